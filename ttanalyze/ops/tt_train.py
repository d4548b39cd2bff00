"""Program models of the tt-train (ttml) ops tt-mlir calls: ``adamw``, ``sdpa_fw``, ``sdpa_bw``, from source.

tt-mlir's runtime runs them through tt-metal's training library, not ttnn
(``runtime/lib/ttnn/operations/ttml/{adamw,sdpa_fw,sdpa_bw}.cpp`` @19c86fca):
``ttml::metal::adamw(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, lr, beta1, beta2, beta1_pow,
beta2_pow, epsilon, weight_decay, stochastic_rounding)``, ``ttml::metal::sdpa_fw(query, key, value, mask_type,
mask, dropout_probability, return_intermediates)`` and ``ttml::metal::sdpa_bw(grad_output, attn_output, query,
key, value, intermediates, mask_type, mask, dropout_probability)``.  tt-mlir @19c86fca pins tt-metal
d5f9bc4a (``third_party/CMakeLists.txt`` ``TT_METAL_VERSION``).  ttnn 0.81.1 has no tt-train ops, so none of
them runs on the mock: every model follows the program factory's source, and every finding built on them says
"from source".

Which source.  The pinned commit's tt-train files are not in the store; the models follow the stored versions
named in each ``*_SOURCE`` below:

* ``adamw``: ``adamw_device_operation.cpp`` @06c85220 and ``adamw_program_factory.cpp`` @050f24fa take exactly
  the arguments tt-mlir's runtime passes (an enum ``StochasticRounding``, no seed; the factory draws the seeds),
  and their checks are the ones tt-mlir's ``OptimizerRules.h`` @19c86fca quotes from the pinned
  ``adamw_device_operation.cpp`` (DRAM, interleaved, TILE);
* ``sdpa_fw`` / ``sdpa_bw``: the stored factories (sdpa_fw @587257e1 and its ``mask_type`` form; sdpa_bw's KV
  factory @7fa826c3 and Q factory @8f864303, run KV then Q by ``sdpa_bw.cpp`` @0aa0f28a) predate the pin: they
  write and read bf16 ``[B, H, S, 64]`` intermediates, where the pinned op returns f32 ``[B, H, S, 32]``
  log-sum-exp (tt-mlir ``TTIROps.cpp`` ``SDPAForwardOp::verify``, ``TTNNWorkaroundsPass.cpp`` @19c86fca).  The
  intermediates CB holds 4,096 B per buffered row either way (2 bf16 tiles or 1 f32 tile), but the other CBs
  may have changed: a CB overflow these models find is a warning (``refusal_unsure``), never an error.

Refusals (TTA013, errors) are only the checks tt-mlir @19c86fca itself documents for the pinned commit: a
non-DRAM, sharded or row-major AdamW operand (``OptimizerRules.h``), a rank other than 4 (the ``AdamWPattern``
and ``SDPAForwardPattern`` decompositions: "ttml::metal::adamw only accepts 4D tensors"), and an SDPA tensor
that is not bf16 (the SDPA workarounds: "TT_FATALs on any other dtype") or not interleaved
(``ttml_sdpa_validation.mlir``: "SDPA forward requires interleaved inputs").  Checks only the stored source
shows (AdamW dtypes, SDPA tensors in DRAM, dropout) leave the op unmodeled with the reason (TTA011).
"""

from __future__ import annotations

from ..ir.attrs import DataType
from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .operands import operand_groups, tensor_or_none
from .registry import register_cb, register_check, register_spec
from .spec import TensorSpec
from .tensors import TILE, Tensor, _view, result
from .work_split import split_work_to_cores

PINNED_TT_METAL = "d5f9bc4a"  # tt-mlir 19c86fca third_party/CMakeLists.txt TT_METAL_VERSION
BF16_TILE = DataType("bf16").tile_bytes()  # tt::tile_size(Float16_b) = 2,048 B
F32_TILE = DataType("f32").tile_bytes()  # tt::tile_size(Float32) = 4,096 B
LSE_WIDTH = 32  # the pinned sdpa_fw's intermediates: one f32 log-sum-exp column per row, [B, H, S, 32]

_TRAIN = "tt-metal tt-train/sources/ttml/metal/"
ADAMW_SOURCE = (f"{_TRAIN}optimizers/adamw/device/adamw_program_factory.cpp @050f24fa and adamw_device_operation.cpp "
                f"@06c85220 (stored versions of the API tt-mlir 19c86fca calls; pinned tt-metal {PINNED_TT_METAL}), "
                "from source")
SDPA_FW_SOURCE = (f"{_TRAIN}ops/sdpa_fw/device/sdpa_fw_program_factory.cpp @587257e1 and its mask_type form "
                  f"(stored versions older than the pinned tt-metal {PINNED_TT_METAL}), from source")
SDPA_BW_SOURCE = (f"{_TRAIN}ops/sdpa_bw/sdpa_bw.cpp @0aa0f28a, device/sdpa_bw_kv_program_factory.cpp @7fa826c3 and "
                  f"device/sdpa_bw_q_program_factory.cpp @8f864303 (stored versions older than the pinned tt-metal "
                  f"{PINNED_TT_METAL}), from source")
_SDPA_UNSURE = (f"the stored SDPA factories predate tt-metal {PINNED_TT_METAL} (tt-mlir 19c86fca's pin), whose op "
                "returns f32 [B, H, S, 32] log-sum-exp intermediates: its CBs may differ")
_ADAMW_UNSURE = (f"the AdamW factory follows the stored 050f24fa, not the pinned tt-metal {PINNED_TT_METAL} itself")

ADAMW_OPERANDS = ("param", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq?")
SDPA_FW_OPERANDS = ("query", "key", "value", "attention_mask?")
SDPA_BW_OPERANDS = ("grad_output", "attn_output", "query", "key", "value", "intermediates", "attention_mask?")

# The fused AdamW update per tile, all on the SFPU ("FPU is not used at all in the operation",
# adamw_program_factory.cpp; theta_t = theta_{t-1} * (1 - lr * wd) - step_size * m_t / (sqrt(v_t) * inv_sqrt_bc2 + eps)):
# m_t = beta1 * m + (1 - beta1) * g; v_t = beta2 * v + (1 - beta2) * g^2; the denominator; the update.
ADAMW_SFPU_OPS = ("mul", "mul", "add", "square", "mul", "mul", "add", "sqrt", "mul", "add", "recip", "mul", "mul",
                  "mul", "sub")

# Matmuls per (Q row, K tile) pair, each of tiles_q x tiles_k x head-dim tiles products: the forward
# computes S = Q K^T and P V; tt-train's backward splits into a KV program (S = Q K^T, dP = dO V^T,
# dV += P^T dO, dK += dS^T Q) and a Q program (S = Q K^T, dP = dO V^T, dQ += dS K), each recomputing S
# and dP (sdpa_bw_kv_compute_kernel.cpp / sdpa_bw_q_compute_kernel.cpp @0aa0f28a): 7 matmuls, 3.5 times the
# forward's 2 (FlashAttention-2, Dao 2023, sec. 3.1.2: 5 matmuls, 2.5 times, without the recompute).
SDPA_FW_MATMULS = 2
SDPA_BW_KV_MATMULS = 4
SDPA_BW_Q_MATMULS = 3
# What each backward program's reader streams per (row, K tile) pair over the forward's K and V: the Q program K and
# V (1); the KV program Q, dO and O past each K row, 3 head-dim-wide tensors to 2 (sdpa_bw_kv_reader_kernel.cpp /
# sdpa_bw_q_reader_kernel.cpp @0aa0f28a).
SDPA_BW_KV_STREAM_SHARE = 3 / 2


def _mask_type(op: Op, default: str) -> str:
    """``causal``, ``arbitrary`` or ``none`` from ``#ttcore.attention_mask_type<...>`` (``default`` when absent)."""
    v = op.attrs.get("mask_type")
    text = str(getattr(v, "value", v if v is not None else default)).lower()
    return next((m for m in ("causal", "arbitrary", "none") if m in text), default)


def _float_attr(op: Op, name: str, default: float = 0.0) -> float:
    v = op.attrs.get(name, default)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def _views(ctx: CBContext, groups, names: tuple[str, ...]) -> dict[str, Tensor | None]:
    op = ctx.op
    return {n: (_view(ctx, v, f"{n} of {op.name}") if (v := tensor_or_none(groups, n)) is not None else None)
            for n in names}


def _interleaved_tile(op: Op, tensors: dict[str, Tensor | None], why: str) -> None:
    """DeviceRejection for a sharded or row-major tensor (``why`` cites the check)."""
    for name, t in tensors.items():
        if t is None:
            continue
        if t.sharded or not t.tiled:
            raise DeviceRejection(f"{op.name}: {name} is {'sharded' if t.sharded else 'row-major'}; {why}")


def _rank4(op: Op, tensors: dict[str, Tensor | None], why: str) -> None:
    for name, t in tensors.items():
        if t is not None and len(t.padded) != 4:
            raise DeviceRejection(f"{op.name}: {name} has rank {len(t.padded)}, not 4; {why}")


# ---------------------------------------------------------------------------------------------------------- adamw


@register_cb("ttnn.adamw")
def adamw_program(ctx: CBContext) -> ProgramModel:
    """``AdamWProgramFactory::create`` (``ADAMW_SOURCE``): the parameter's tiles (physical volume / 1,024) split over
    the grid (``split_work_to_cores``); ``block = min(2, tiles per core of group 1)``; on every core of the split, in
    creation order: ``c_0`` param, ``c_1`` grad (always a bf16 tile: "Gradient is always bf16"), ``c_2`` exp_avg,
    ``c_3`` exp_avg_sq, ``c_16`` param out, ``c_17`` exp_avg out, ``c_18`` exp_avg_sq out, each ``block`` tiles of the
    parameter's format; with ``max_exp_avg_sq`` (AMSGrad) ``c_4`` and ``c_19`` ``block`` tiles and ``c_26`` ``2 *
    block`` f32 tiles; ``c_24`` momentum and ``c_25`` variance ``2 * block`` f32 tiles.  Updates param, exp_avg,
    exp_avg_sq (and max_exp_avg_sq) in place: no new buffer.

    Raises:
        DeviceRejection: an operand not in DRAM, sharded, row-major, or not 4D (tt-mlir ``OptimizerRules.h``,
            ``AdamWPattern`` @19c86fca).
        CBModelError: dtypes the stored device operation refuses (param bf16 or f32, grad bf16, the states the
            param's): the pinned check is not known for certain.
    """
    op = ctx.op
    t = _views(ctx, operand_groups(op, ADAMW_OPERANDS), tuple(n.rstrip("?") for n in ADAMW_OPERANDS))
    for name, x in t.items():
        if x is not None and x.buffer_type != "dram":
            raise DeviceRejection(f"adamw: {name} is in {x.buffer_type.upper()}; ttml::metal::adamw TT_FATALs unless "
                                  "every operand is DRAM, interleaved, TILE (adamw_device_operation.cpp, quoted by "
                                  "tt-mlir OptimizerRules.h @19c86fca)")
    _interleaved_tile(op, t, "ttml::metal::adamw TT_FATALs unless every operand is DRAM, interleaved, TILE "
                             "(adamw_device_operation.cpp, quoted by tt-mlir OptimizerRules.h @19c86fca)")
    _rank4(op, t, "ttml::metal::adamw only accepts 4D tensors (tt-mlir AdamWPattern @19c86fca; factory TT_FATAL "
                  "'Input tensor must be 4D')")
    param, grad = t["param"], t["grad"]
    if str(param.dtype) not in ("bf16", "f32"):
        raise CBModelError(f"adamw of a {param.dtype} parameter: the stored AdamWDeviceOperation (06c85220) requires "
                           "BFLOAT16 or FLOAT32 (not certain for the pinned tt-metal)")
    if str(grad.dtype) != "bf16":
        raise CBModelError(f"adamw with a {grad.dtype} gradient: the stored AdamWDeviceOperation (06c85220) requires a "
                           "BFLOAT16 gradient (not certain for the pinned tt-metal)")
    for name in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        x = t[name]
        if x is not None and x.dtype != param.dtype:
            raise CBModelError(f"adamw: {name} is {x.dtype}, the parameter {param.dtype}; the stored "
                               "AdamWDeviceOperation (06c85220) requires the parameter's dtype (not certain for the "
                               "pinned tt-metal)")
    amsgrad = t["max_exp_avg_sq"] is not None
    split = split_work_to_cores(ctx.grid, param.physical_volume // (TILE * TILE))
    cores = split.all_cores
    block = min(2, split.units_per_core_group_1)
    p = param.tile_bytes
    cbs = [CB(0, "param", p, block, cores), CB(1, "grad", BF16_TILE, block, cores),
           CB(2, "exp_avg", p, block, cores), CB(3, "exp_avg_sq", p, block, cores),
           CB(16, "param_out", p, block, cores), CB(17, "exp_avg_out", p, block, cores),
           CB(18, "exp_avg_sq_out", p, block, cores)]
    if amsgrad:
        cbs += [CB(4, "max_exp_avg_sq_in", p, block, cores), CB(19, "max_exp_avg_sq_out", p, block, cores),
                CB(26, "max_exp_avg_sq", F32_TILE, 2 * block, cores)]
    cbs += [CB(24, "momentum", F32_TILE, 2 * block, cores), CB(25, "variance", F32_TILE, 2 * block, cores)]
    states = tuple(x for x in (param, t["exp_avg"], t["exp_avg_sq"], t["max_exp_avg_sq"]) if x is not None)
    return ProgramModel("AdamWDeviceOperation::AdamWProgramFactory", ADAMW_SOURCE, cores, cbs,
                        [f"{split.units} tiles on {split.num_cores} cores, block {block}"
                         + ("; AMSGrad" if amsgrad else ""), "from source (tt-train: not runnable on ttnn 0.81.1)"],
                        inputs=(param, grad) + states[1:], outputs=states,
                        params={"unary_ops": list(ADAMW_SFPU_OPS), "refusal_unsure": _ADAMW_UNSURE})


register_check("ttnn.adamw", "source", "adamw_program_factory.cpp @050f24fa (tt-train; ttnn 0.81.1 has no adamw): "
               "tests/test_ops_train.py", ("AdamWDeviceOperation",))


# ---------------------------------------------------------------------------------------------------------- sdpa


def _sdpa_checks(op: Op, t: dict[str, Tensor | None]) -> None:
    """The refusals tt-mlir @19c86fca documents for the pinned SDPA ops (module docstring), then the stored
    source's DRAM and dropout checks as unmodeled (CBModelError)."""
    _rank4(op, t, "ttml SDPA ops only accept rank-4 (B, H, S, D) tensors (tt-mlir SDPAForwardPattern @19c86fca)")
    _interleaved_tile(op, t, "the ttml SDPA device operations require interleaved TILE tensors (tt-mlir "
                             "ttml_sdpa_validation.mlir @19c86fca: 'SDPA forward requires interleaved inputs')")
    for name, x in t.items():
        if x is None or name == "intermediates":
            continue
        if str(x.dtype) != "bf16":
            raise DeviceRejection(f"{op.name}: {name} is {x.dtype}; the ttml SDPA device operations TT_FATAL on any "
                                  "dtype but bf16 (tt-mlir TTNNWorkaroundsPass @19c86fca casts them to bf16)")
    for name, x in t.items():
        if x is not None and x.buffer_type != "dram":
            raise CBModelError(f"{op.name}: {name} in {x.buffer_type.upper()}: the stored SDPA factories TT_FATAL "
                               "'buffer must be in DRAM' (not certain for the pinned tt-metal)")
    if _float_attr(op, "dropout_probability"):
        raise CBModelError(f"{op.name} with dropout: the stored SDPA device operations TT_FATAL on a nonzero "
                           "dropout_probability (#28205; not certain for the pinned tt-metal)")


def _rows(q: Tensor) -> tuple[int, int, int, int]:
    """(batch, heads, sequence tiles, head-dim tiles) of a padded [B, H, S, D] tensor."""
    b, h, s, d = q.padded
    return b, h, s // TILE, d // TILE


@register_cb("ttnn.sdpa_fw")
def sdpa_fw_program(ctx: CBContext) -> ProgramModel:
    """``SDPAForwardProgramFactory::create`` (``SDPA_FW_SOURCE``): one row of Q tiles (32 query rows of one head) per
    work unit, ``B * Hq * S / 32`` units split over the grid (``split_work_to_cores``); each row streams K and V one
    tile row at a time with an online softmax.  With ``Wt = D / 32`` (Q, K and V share D), on every core of the
    split, in creation order: ``c_0`` Q ``2 * Wt``, ``c_1`` K ``2 * Wt``, ``c_2`` V ``2 * Wt`` bf16 tiles; ``c_3`` the
    mask, 1 tile, unless ``mask_type`` is ``none`` (a causal mask is built on chip into it); ``c_4`` the
    intermediates, 2 bf16 tiles (4,096 B: the pinned f32 log-sum-exp tile is as large), with
    ``return_intermediates``; ``c_5`` reduction scaler, ``c_6`` matmul reduce, ``c_7`` QK result, ``c_8`` / ``c_9``
    previous / current row max, 1 bf16 tile each; ``c_10`` exp max diff, ``c_11`` / ``c_12`` previous / current exp
    sum, 1 f32 tile each; ``c_13`` / ``c_14`` previous / current matmul output and ``c_15`` the output, ``Wt`` bf16
    tiles each.

    Raises:
        DeviceRejection: see :func:`_sdpa_checks`.
        CBModelError: see :func:`_sdpa_checks`; Q, K, V of different head dims, batches or sequences, or query
            heads not a multiple of the KV heads (the stored factory's TT_FATALs).
    """
    op = ctx.op
    g = operand_groups(op, SDPA_FW_OPERANDS)
    t = _views(ctx, g, ("query", "key", "value", "attention_mask"))
    q, k, v = t["query"], t["key"], t["value"]
    _sdpa_checks(op, t)
    b, hq, st, wt = _rows(q)
    if not (q.padded[3] == k.padded[3] == v.padded[3]) or q.padded[0] != k.padded[0] or q.padded[2] != k.padded[2]:
        raise CBModelError(f"sdpa_fw: Q {list(q.shape)}, K {list(k.shape)}, V {list(v.shape)}: the stored factory "
                           "TT_FATALs unless Q, K, V share the embedding dim and Q, K the batch and sequence (not "
                           "certain for the pinned tt-metal)")
    if k.padded[1] == 0 or k.padded[1] != v.padded[1] or q.padded[1] % k.padded[1]:
        raise CBModelError(f"sdpa_fw: {q.padded[1]} query heads over {k.padded[1]} key / {v.padded[1]} value heads: "
                           "the stored factory TT_FATALs unless K and V have the same heads and they divide Q's (not "
                           "certain for the pinned tt-metal)")
    mask = _mask_type(op, "causal")
    inter = len(op.results) == 2
    split = split_work_to_cores(ctx.grid, b * hq * st)
    cores = split.all_cores
    cbs = [CB(0, "query", BF16_TILE, 2 * wt, cores), CB(1, "key", BF16_TILE, 2 * wt, cores),
           CB(2, "value", BF16_TILE, 2 * wt, cores)]
    if mask != "none":
        cbs.append(CB(3, "attn_mask", BF16_TILE, 1, cores))
    if inter:
        cbs.append(CB(4, "intermediates", BF16_TILE, 2, cores))
    cbs += [CB(i, n, BF16_TILE, 1, cores) for i, n in ((5, "reduction_scaler"), (6, "matmul_reduce"),
                                                        (7, "qk_result"), (8, "prev_max"), (9, "cur_max"))]
    cbs += [CB(i, n, F32_TILE, 1, cores) for i, n in ((10, "exp_max_diff"), (11, "prev_sum_exp"),
                                                       (12, "cur_sum_exp"))]
    cbs += [CB(13, "prev_mm_out", BF16_TILE, wt, cores), CB(14, "cur_mm_out", BF16_TILE, wt, cores),
            CB(15, "output", BF16_TILE, wt, cores)]
    outs = (result(ctx),) + ((result(ctx, 1),) if inter else ())
    ins = (q, k, v) + ((t["attention_mask"],) if t["attention_mask"] is not None else ())
    return ProgramModel("SDPAForwardDeviceOperation::SDPAForwardProgramFactory", SDPA_FW_SOURCE, cores, cbs,
                        [f"{split.units} rows of 32 query rows on {split.num_cores} cores, {mask} mask",
                         "from source (tt-train: not runnable on ttnn 0.81.1)"], inputs=ins, outputs=outs,
                        params={"q_chunk_size": TILE, "k_chunk_size": TILE, "is_causal": mask == "causal",
                                "matmuls": SDPA_FW_MATMULS, "refusal_unsure": _SDPA_UNSURE})


@register_spec("ttnn.sdpa_fw")
def sdpa_fw_spec(ctx: CBContext) -> list[TensorSpec]:
    """The output: Q's shape and memory config, TILE, bf16 (Q's dtype, which must be bf16); with
    ``return_intermediates`` the log-sum-exp ``[B, Hq, S, 32]`` f32 TILE in Q's memory config (the stored
    ``compute_output_specs`` takes Q's memory config; the pinned shape and dtype are tt-mlir 19c86fca's:
    ``SDPAForwardOp::verify`` "intermediates must have shape (B, Hq, S, 32)", the f32 workaround)."""
    q = _view(ctx, ctx.op.operands[0], f"query of {ctx.op.name}")
    if len(q.shape) != 4:
        raise CBModelError(f"{ctx.op.name}: a query of rank {len(q.shape)}")
    specs = [q.with_(layout="tile").spec()]
    if len(ctx.op.results) == 2:
        specs.append(q.with_(shape=(*q.shape[:3], LSE_WIDTH), layout="tile", dtype=DataType("f32")).spec())
    return specs


@register_cb("ttnn.sdpa_bw")
def sdpa_bw_programs(ctx: CBContext) -> list[ProgramModel]:
    """``SDPABackwardOperation::invoke`` (``SDPA_BW_SOURCE``): the KV program (grad K, grad V), then the Q program
    (grad Q), each on its own ``split_work_to_cores``.  With ``Wt = D / 32``:

    * KV: ``B * Hkv * S / 32`` rows of K and V; ``c_0`` dO, ``c_1`` O, ``c_2`` Q, ``c_3`` K, ``c_4`` V ``2 * Wt`` bf16
      tiles; ``c_5`` mask 2, ``c_6`` intermediates 4 bf16 tiles; ``c_7`` matmul reduce 1 f32 tile; ``c_8`` - ``c_11``
      the previous / current grad V and grad K accumulators, ``Wt`` f32 tiles each; ``c_15`` transpose, ``c_12``
      attention weights, ``c_13`` grad attention, ``c_14`` grad scores, ``c_16`` scaler row, 1 f32 tile each;
      ``c_17`` grad K, ``c_18`` grad V ``2 * Wt`` bf16 tiles;
    * Q: ``B * Hq * S / 32`` rows of Q; ``c_0`` - ``c_4`` as above, ``c_5`` mask 2, ``c_6`` intermediates 4 bf16
      tiles, ``c_7`` 1 f32 tile, ``c_8`` / ``c_9`` grad Q accumulators ``Wt`` f32 tiles, ``c_10`` - ``c_12`` 1 f32
      tile each, ``c_13`` transpose 1 bf16 tile, ``c_14`` scaler row 1 f32 tile, ``c_15`` grad Q ``2 * Wt`` bf16.

    Raises:
        DeviceRejection: see :func:`_sdpa_checks`.
        CBModelError: see :func:`_sdpa_checks`; tensors of different head dims (``qWt == kWt == vWt``) or query
            heads not a multiple of the KV heads.
    """
    op = ctx.op
    g = operand_groups(op, SDPA_BW_OPERANDS)
    t = _views(ctx, g, tuple(n.rstrip("?") for n in SDPA_BW_OPERANDS))
    _sdpa_checks(op, t)
    q, k, v, d_out = t["query"], t["key"], t["value"], t["grad_output"]
    b, hq, st, wt = _rows(d_out)
    if not (q.padded[3] == k.padded[3] == v.padded[3] == d_out.padded[3]):
        raise CBModelError(f"sdpa_bw: Q, K, V and the gradient of head dims {q.padded[3]}, {k.padded[3]}, "
                           f"{v.padded[3]}, {d_out.padded[3]}: the stored factories assume qWt == kWt == vWt")
    hkv = k.padded[1]
    if hkv == 0 or hq % hkv:
        raise CBModelError(f"sdpa_bw: {hq} query heads over {hkv} key/value heads: the stored factories need whole "
                           "heads_per_group")
    mask = _mask_type(op, "arbitrary")
    grads = [result(ctx, i) for i in range(3)]
    ins = tuple(x for x in (q, k, v, d_out, t["attn_output"], t["intermediates"], t["attention_mask"]) if x is not None)
    common = {"q_chunk_size": TILE, "k_chunk_size": TILE, "is_causal": mask == "causal",
              "refusal_unsure": _SDPA_UNSURE}

    kv_split = split_work_to_cores(ctx.grid, b * hkv * st)
    c = kv_split.all_cores
    kv = [CB(0, "grad_output", BF16_TILE, 2 * wt, c), CB(1, "attn_output", BF16_TILE, 2 * wt, c),
          CB(2, "query", BF16_TILE, 2 * wt, c), CB(3, "key", BF16_TILE, 2 * wt, c), CB(4, "value", BF16_TILE, 2 * wt, c),
          CB(5, "attn_mask", BF16_TILE, 2, c), CB(6, "intermediates", BF16_TILE, 4, c),
          CB(7, "matmul_reduce", F32_TILE, 1, c)]
    kv += [CB(i, n, F32_TILE, wt, c) for i, n in ((8, "prev_grad_value"), (9, "cur_grad_value"),
                                                  (10, "prev_grad_key"), (11, "cur_grad_key"))]
    kv += [CB(i, n, F32_TILE, 1, c) for i, n in ((15, "transpose_wh"), (12, "attention_weights"),
                                                 (13, "grad_attention"), (14, "grad_scores"), (16, "u_scaler_row"))]
    kv += [CB(17, "grad_key", BF16_TILE, 2 * wt, c), CB(18, "grad_value", BF16_TILE, 2 * wt, c)]

    q_split = split_work_to_cores(ctx.grid, b * hq * st)
    c = q_split.all_cores
    qp = [CB(0, "grad_output", BF16_TILE, 2 * wt, c), CB(1, "attn_output", BF16_TILE, 2 * wt, c),
          CB(2, "query", BF16_TILE, 2 * wt, c), CB(3, "key", BF16_TILE, 2 * wt, c), CB(4, "value", BF16_TILE, 2 * wt, c),
          CB(5, "attn_mask", BF16_TILE, 2, c), CB(6, "intermediates", BF16_TILE, 4, c),
          CB(7, "matmul_reduce", F32_TILE, 1, c), CB(8, "prev_grad_query", F32_TILE, wt, c),
          CB(9, "cur_grad_query", F32_TILE, wt, c)]
    qp += [CB(i, n, F32_TILE, 1, c) for i, n in ((10, "attention_weights"), (11, "grad_attention"), (12, "grad_scores"))]
    qp += [CB(13, "transpose_wh", BF16_TILE, 1, c), CB(14, "u_scaler_row", F32_TILE, 1, c),
           CB(15, "grad_query", BF16_TILE, 2 * wt, c)]
    note = "from source (tt-train: not runnable on ttnn 0.81.1)"
    return [ProgramModel("SDPABackwardKVDeviceOperation::SDPABackwardKVProgramFactory", SDPA_BW_SOURCE,
                         kv_split.all_cores, kv, [f"{kv_split.units} K/V rows on {kv_split.num_cores} cores, {mask} "
                                                  "mask", note],
                         inputs=ins, outputs=(grads[1], grads[2]), params={**common, "matmuls": SDPA_BW_KV_MATMULS,
                                                                     "stream_share": SDPA_BW_KV_STREAM_SHARE}),
            ProgramModel("SDPABackwardQDeviceOperation::SDPABackwardQProgramFactory", SDPA_BW_SOURCE,
                         q_split.all_cores, qp, [f"{q_split.units} Q rows on {q_split.num_cores} cores", note],
                         inputs=ins, outputs=(grads[0],), params={**common, "matmuls": SDPA_BW_Q_MATMULS})]


@register_spec("ttnn.sdpa_bw")
def sdpa_bw_spec(ctx: CBContext) -> list[TensorSpec]:
    """grad Q, grad K, grad V: the shapes of Q, K, V, TILE, bf16, each in its input's memory config (the stored
    ``compute_output_specs`` of the Q and KV device operations build them from Q, K, V)."""
    g = operand_groups(ctx.op, SDPA_BW_OPERANDS)
    t = _views(ctx, g, ("query", "key", "value"))
    for n, x in t.items():
        if x is None or len(x.shape) != 4:
            raise CBModelError(f"{ctx.op.name}: {n} is not a 4D device tensor")
    return [x.with_(layout="tile").spec() for x in t.values()]


register_check("ttnn.sdpa_fw", "source", "sdpa_fw_program_factory.cpp @587257e1 (tt-train, older than the pinned "
               "d5f9bc4a; ttnn 0.81.1 has no sdpa_fw): tests/test_ops_train.py", ("SDPAForwardDeviceOperation",))
register_check("ttnn.sdpa_bw", "source", "sdpa_bw_kv_program_factory.cpp @7fa826c3, sdpa_bw_q_program_factory.cpp "
               "@8f864303 (tt-train, older than the pinned d5f9bc4a; ttnn 0.81.1 has no sdpa_bw): tests/test_ops_train.py",
               ("SDPABackwardKVDeviceOperation", "SDPABackwardQDeviceOperation"))
