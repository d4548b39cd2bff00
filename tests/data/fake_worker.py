#!/usr/bin/env python3
"""A stand-in for the ttnn worker, to test the client's crash and timeout handling without ttnn.

Started by tests/test_executor.py as the executor "interpreter" (its arguments
``-m ttanalyze.executor.ttnn_worker`` are ignored).  Speaks the JSON-lines
protocol: ``__info__`` answers ok; op ``abort`` prints a TT_FATAL line to stderr
and aborts the process (as tt-metal does on an uncaught TT_FATAL); op ``hang``
never answers; any other op answers ok with no CBs.
"""

import json
import os
import sys
import time

for line in sys.stdin:
    req = json.loads(line)
    op = req.get("op")
    if op == "abort":
        sys.stderr.write("2026-11-22 | critical | Always | TT_FATAL @ fake_op.cpp:42: cb_size <= l1_size\n"
                         "info:\nfake circular buffer does not fit\nbacktrace:\n --- frame 0\n")
        sys.stderr.flush()
        os.abort()
    if op == "hang":
        time.sleep(3600)
    resp = {"id": req.get("id"), "ok": True, "device": {"arch": "fake", "mock": True, "pid": os.getpid()},
            "cbs": [], "cb_per_core_peak": 0, "outputs": []}
    sys.stdout.write(json.dumps(resp) + "\n")
    sys.stdout.flush()
