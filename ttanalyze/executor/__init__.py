"""Companion executor: replays TTNN ops on a ttnn device (mock or real) in a separate interpreter.

Nothing here imports ttnn: :mod:`ttanalyze.executor.ttnn_worker` runs inside the
executor's own Python 3.12 environment (``scripts/setup-executor.sh``) as a
subprocess speaking JSON lines (:mod:`ttanalyze.executor.protocol`).
"""
