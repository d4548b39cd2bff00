"""Random ``ttnn.conv_transpose2d`` instances on the mock device: every program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/conv_transpose2d/probe.py

The cases (:data:`CASES`, seeded) are drawn as tt-mlir emits the op: a flattened ``[1, 1, N*H*W, C]``
bf16 input in DRAM (row-major or TILE), host weights ``[C_in, C_out, K, K]``, an optional host bias,
``conv2d_config<weights_dtype = bf16, config_tensors_in_dram = true>`` and a HiFi4 fp32-accumulating
compute config; the ttnn call is the one tt-mlir's runtime makes
(runtime/lib/ttnn/operations/conv/conv_transpose2d.cpp: geometry as keyword arguments, the result's
memory config).  Writes measurements/conv_transpose2d/results.jsonl in the format of
measurements/dialect/probe_misc.py (``record``).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases_misc import MiscCase  # noqa: E402

OUT = Path(__file__).with_name("results.jsonl")
CONFIG = ("conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, config_tensors_in_dram = true>, "
          "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>")


def _cases() -> list[MiscCase]:
    rng = random.Random("conv_transpose2d")
    out = []
    for i in range(24):
        n = rng.choice([1, 1, 2])
        h, w = rng.choice([4, 7, 8, 14, 16, 28, 32]), rng.choice([4, 7, 8, 14, 16, 28, 32])
        cin, cout = rng.choice([8, 16, 32, 64, 128, 256]), rng.choice([8, 16, 32, 64, 128, 256])
        k = rng.choice([2, 2, 3, 3, 4])
        s = rng.choice([1, 2, 2])
        p = rng.choice([0, 0, k // 2]) if k > 1 else 0
        op = rng.choice([0, 0, 1]) if s > 1 and p > 0 else 0
        oh, ow = (h - 1) * s - 2 * p + (k - 1) + op + 1, (w - 1) * s - 2 * p + (k - 1) + op + 1
        layout = rng.choice(["row_major", "row_major", "tile"])
        ins = (((1, 1, n * h * w, cin), "bf16", layout, "dram"), ((cin, cout, k, k), "bf16", "row_major", "system_memory"))
        if rng.random() < 0.5:
            ins += (((1, 1, 1, cout), "bf16", "row_major", "system_memory"),)
        attrs = (f"batch_size = {n} : i32, dilation = array<i32: 1, 1>, groups = 1 : i32, in_channels = {cin} : i32, "
                 f"input_height = {h} : i32, input_width = {w} : i32, kernel_size = array<i32: {k}, {k}>, "
                 f"out_channels = {cout} : i32, output_padding = array<i32: {op}, {op}>, "
                 f"padding = array<i32: {p}, {p}>, stride = array<i32: {s}, {s}>, {CONFIG}")
        out.append(MiscCase(f"conv_transpose2d/{i}", "ttnn.conv_transpose2d", ins,
                            (((1, 1, n * oh * ow, cout), "bf16", "tile", "dram"),), attrs, device=True,
                            kwargs={"n": n, "h": h, "w": w, "k": k, "s": s, "p": p, "op": op}))
    return out


CASES = _cases()


def call(case: MiscCase, ts: list, dev):
    """``ttnn.conv_transpose2d`` as tt-mlir's runtime calls it."""
    import ttnn
    from ttanalyze.executor import ttnn_worker as W

    kw = case.kwargs
    x = case.operands[0][0]
    return ttnn.conv_transpose2d(
        input_tensor=ts[0], weight_tensor=ts[1], device=dev, in_channels=x[3], out_channels=case.operands[1][0][1],
        batch_size=kw["n"], input_height=kw["h"], input_width=kw["w"], kernel_size=[kw["k"]] * 2,
        stride=[kw["s"]] * 2, padding=[kw["p"]] * 2, output_padding=[kw["op"]] * 2, dilation=[1, 1], groups=1,
        bias_tensor=ts[2] if len(ts) > 2 else None,
        conv_config=W.conv2d_config({"weights_dtype": "bf16", "config_tensors_in_dram": True}),
        compute_config=W.compute_config({"math_fidelity": "hifi4", "fp32_dest_acc_en": True}),
        memory_config=ttnn.DRAM_MEMORY_CONFIG)


def main() -> int:
    from measurements.dialect import probe_misc

    probe_misc.record(CASES, call, OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
