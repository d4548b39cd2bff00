"""Replay measurements/dialect/cases_moe.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_moe.py

Writes measurements/dialect/results_moe.jsonl in the format of probe_misc.py (one line per case: ttnn's
error, every CB/DFB and kernel scratchpad of the NO_DISPATCH graph capture, each output's spec).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases_moe import CASES  # noqa: E402
from measurements.dialect.probe_misc import _mem, record, ttnn  # noqa: E402

OUT = Path(__file__).with_name("results_moe.jsonl")


def call(case, ts: list, dev):
    """The ttnn call tt-mlir's runtime makes for the case's op (runtime/lib/ttnn/operations @19c86fca)."""
    if case.op == "ttnn.sampling":  # reduction/sampling.cpp: a thin 1:1 dispatch
        return ttnn.sampling(ts[0], ts[1], ts[2], ts[3], ts[4], seed=7)
    if case.op == "ttnn.dit_rms_norm_unary_fused":  # normalization/dit_rms_norm_unary_fused.cpp
        kw, rest = case.kwargs, iter(ts[1:])
        weight = next(rest) if kw["weight"] else None
        bias = next(rest) if kw["bias"] else None
        residual = next(rest) if kw["residual"] else None
        return ttnn.experimental.dit_rms_norm_unary_fused(ts[0], epsilon=1e-5, weight=weight, bias=bias,
                                                          residual_input_tensor=residual,
                                                          memory_config=_mem(case.results[0][3]),
                                                          activation=kw["activation"])
    if case.op == "ttnn.sparse_matmul":  # matmul/matmul.cpp: the IR's 1D program config, nnz, the result's memcfg
        kw = case.kwargs
        pc = ttnn.MatmulMultiCoreReuseMultiCast1DProgramConfig(
            compute_with_storage_grid_size=ttnn.CoreCoord(*kw["grid"]), in0_block_w=kw["in0_block_w"],
            out_subblock_h=kw["out_subblock_h"], out_subblock_w=kw["out_subblock_w"], out_block_h=kw["out_block_h"],
            out_block_w=kw["out_block_w"], per_core_M=kw["per_core_M"], per_core_N=kw["per_core_N"], fuse_batch=False,
            fused_activation=None, mcast_in0=True)
        return ttnn.sparse_matmul(ts[0], ts[1], sparsity=ts[2], program_config=pc, nnz=kw["nnz"],
                                  is_input_a_sparse=kw["mode"] != "b", is_input_b_sparse=kw["mode"] != "a",
                                  memory_config=_mem(case.results[0][3]))
    if case.op == "ttnn.moe_expert_token_remap":  # ccl/moe_expert_token_remap.cpp
        return ttnn.moe_expert_token_remap(ts[0], ts[1], ts[2], memory_config=_mem(case.results[0][3]),
                                           reduction_size=case.kwargs["reduction_size"])
    if case.op == "ttnn.topk_router_gpt":  # reduction/topk_router_gpt.cpp
        return ttnn.experimental.topk_router_gpt(ts[0], weight_tensor=ts[1], bias_tensor=ts[2], k=case.kwargs["k"],
                                                 num_experts=128)
    if case.op == "ttnn.slice_dynamic":  # data_movement/slice.cpp runSliceDynamicOp: step only when the IR has one
        step = [1] * len(case.operands[0][0]) if case.attrs else None
        return ttnn.slice(ts[0], ts[1], ts[2], step, memory_config=_mem(case.results[0][3]))
    raise ValueError(case.op)


if __name__ == "__main__":
    record(CASES, call, OUT)
