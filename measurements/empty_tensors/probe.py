"""Does ttnn 0.81.1 accept zero-volume tensors?  Runs, on the mock device, ``ttnn.empty`` of a shape with a 0 dim,
a ``ttnn.slice`` whose begin equals its end in one dim, and ``ttnn.add`` of two empty tensors, and prints each
verdict (``ok`` and the shape, or ttnn's message).  The result is committed as ``results.txt``; the analyzer's
handling of empty tensors (tests/test_empty_tensors.py) relies on it.

Usage (one process may hold the mock device at a time: ``flock`` the executor's DEVICE_LOCK)::

    .venv-ttnn/bin/python measurements/empty_tensors/probe.py 2>/dev/null | grep -E ": (ok|refused)" \
        > measurements/empty_tensors/results.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402


def main() -> None:
    dev = ttnn.open_device(device_id=0)
    try:
        x = ttnn.ones([1, 40, 32, 128], dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=dev)
        steps = {
            "slice [1,40,32,128] ends [1,40,0,128]": lambda: ttnn.slice(x, [0, 0, 0, 0], [1, 40, 0, 128], [1, 1, 1, 1]),
            "empty [1,40,0,128] tile bf16": lambda: ttnn.empty([1, 40, 0, 128], dtype=ttnn.bfloat16,
                                                                layout=ttnn.TILE_LAYOUT, device=dev),
        }
        results = {}
        for name, step in steps.items():
            try:
                results[name] = step()
                print(f"{name}: ok {list(results[name].shape)}")
            except Exception as exc:  # noqa: BLE001 - the verdict is what is measured
                print(f"{name}: refused: {str(exc).splitlines()[0][:300]}")
        e = results.get("empty [1,40,0,128] tile bf16")
        if e is not None:
            try:
                print(f"add of two empty [1,40,0,128]: ok {list(ttnn.add(e, e).shape)}")
            except Exception as exc:  # noqa: BLE001
                print(f"add of two empty [1,40,0,128]: refused: {str(exc).splitlines()[0][:300]}")
    finally:
        ttnn.close_device(dev)


if __name__ == "__main__":
    main()
