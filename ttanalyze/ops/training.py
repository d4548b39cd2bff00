"""Training ops: ``embedding_bw`` and ``adamw``.

* ``embedding_bw(input [B, 1, 1, N], weight [V, E], grad [1, 1, B*N, E])`` -> ``[1, 1, V, E]``
  (tt-mlir ``EmbeddingBackwardOp::verify`` @19c86fca: "tt-metal always returns the weight gradient
  as a 4D tensor (1, 1, dictionary_size, embedding_size)");
* ``adamw`` updates ``param``, ``exp_avg``, ``exp_avg_sq`` (and ``max_exp_avg_sq``) in place: no
  result; every state tensor and the gradient shaped like ``param`` (``AdamWOp::verify``).

Programs: ``embedding_bw`` runs one ``EmbeddingBackwardDeviceOperation`` program (:func:`embedding_bw_cb`);
``gelu_bw`` (its shape rule is in :mod:`ttanalyze.ops.eltwise_extra`) one ``GeluBackwardDeviceOperation``
program, from source (:func:`gelu_bw_cb`); ``adamw``'s program (a tt-train op) is in :mod:`ttanalyze.ops.tt_train`.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, operand, result
from .work_split import split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.embedding_bw", "training", ("dtype", "memory_config"), f"{_SRC} EmbeddingBackwardOp::verify")
def embedding_bw(op: Op):
    x, w, g = (tensor_shape(op, i) for i in range(3))
    if len(x) != 4 or x[1] != 1 or x[2] != 1 or x[3] % 32:
        raise ShapeError(f"{op.name}: the index tensor must be [B, 1, 1, N] with N a multiple of 32, got {list(x)}")
    if len(w) != 2:
        raise ShapeError(f"{op.name}: the weight must be 2D, got rank {len(w)}")
    if len(g) != 4 or g[:2] != (1, 1) or g[2] != x[0] * x[3] or g[3] != w[1]:
        raise ShapeError(f"{op.name}: the gradient must be [1, 1, {x[0] * x[3]}, {w[1]}], got {list(g)}")
    if op.results and op.results[0].is_tensor and tuple(op.results[0].type.shape) == tuple(w):
        # tt-mlir before 0592f226 (2026-08-13) typed the result as the weight, [V, E] (its verifier then); tt-metal
        # returns [1, 1, V, E] all the same, which TTA012 (what tt-metal returns) reports
        return [tuple(w)]
    return [(1, 1, w[0], w[1])]


@register("ttnn.adamw", "training", ("lr", "beta1", "beta2", "beta1_pow", "beta2_pow", "epsilon", "weight_decay",
                                     "stochastic_rounding", "operandSegmentSizes"), f"{_SRC} AdamWOp::verify")
def adamw(op: Op):
    g = operand_groups(op, ("param", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq?"))
    p = shape_of(op, tensor_or_none(g, "param"), "param")
    for name in ("grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        v = tensor_or_none(g, name)
        if v is not None and shape_of(op, v, name) != p:
            raise ShapeError(f"{op.name}: {name} must have the shape of param {list(p)}")
    return []


_EMB_BW_SRC = ("tt-metal ttnn/cpp/ttnn/operations/embedding_backward/device/embedding_backward_program_descriptor.cpp "
               "@00e6635c (measured on ttnn 0.81.1)")


@register_cb("ttnn.embedding_bw")
def embedding_bw_cb(ctx: CBContext) -> ProgramModel:
    """``EmbeddingBackwardDeviceOperation::create_descriptor``: the gradient's embedding tiles
    (``padded E / 32``) split column-major over the grid (``split_work_to_cores``); with ``m`` the most
    tiles a core gets: ``c_0`` m gradient tiles, ``c_1`` 32 indices (``32 * element size``), ``c_2`` m output
    tiles, ``c_24`` a 32-B UInt8 mask, ``c_25`` 16 B, ``c_16`` m output tiles, on those cores.

    Raises:
        DeviceRejection: a gradient that is not bf16 (``embedding_backward_device_operation.cpp`` TT_FATAL
            ``grad_tensor.dtype() == DataType::BFLOAT16``; measured: every f32 instance), or an index tensor that
            is neither uint32 nor bf16 (the same file's ``index_tensor.dtype() == DataType::UINT32 or ...
            BFLOAT16``; measured: every uint16 index of the op-level campaign, measurements/opdiff/runs/gens).
        CBModelError: a row-major gradient or a sharded tensor.
    """
    idx, grad, out = operand(ctx, 0), operand(ctx, 2), result(ctx)
    if idx.dtype.name not in ("u32", "bf16"):
        raise DeviceRejection(f"embedding_bw with a {idx.dtype} index tensor: TT_FATAL index_tensor.dtype() == "
                              "UINT32 or BFLOAT16 (embedding_backward_device_operation.cpp)")
    if grad.dtype.name != "bf16":
        raise DeviceRejection(f"embedding_bw of a {grad.dtype} gradient: TT_FATAL grad_tensor.dtype() == BFLOAT16 "
                              "(embedding_backward_device_operation.cpp)")
    if not grad.tiled or idx.sharded or grad.sharded or out.sharded:
        raise CBModelError("embedding_bw is modeled for a TILE interleaved gradient and interleaved tensors")
    split = split_work_to_cores(ctx.grid, grad.padded[-1] // TILE)
    cores, m = split.all_cores, split.units_per_core_group_1
    cbs = [CB(0, "grad", grad.tile_bytes, m, cores), CB(1, "index", 32 * idx.element_bytes, 1, cores),
           CB(2, "output_in", out.tile_bytes, m, cores), CB(24, "mask", 32, 1, cores), CB(25, "chunk_count", 16, 1, cores),
           CB(16, "output", out.tile_bytes, m, cores)]
    return ProgramModel("EmbeddingBackwardDeviceOperation", _EMB_BW_SRC, cores, cbs,
                        [f"{split.units} embedding tiles on {split.num_cores} cores, {m} per core at most"])


@register_spec("ttnn.embedding_bw")
def embedding_bw_spec(ctx: CBContext) -> list[TensorSpec]:
    """``EmbeddingBackwardDeviceOperation::compute_output_specs``: ``[1, 1, V, E]`` (V the weight's rows, E the
    gradient's width), TILE, the requested dtype and memory config (the IR result's; measured)."""
    w, grad, out = operand(ctx, 1), operand(ctx, 2), result(ctx)
    return [grad.with_(shape=(1, 1, w.shape[-2], grad.shape[-1]), layout="tile", dtype=out.dtype, mem=out.mem).spec()]


register_check("ttnn.embedding_bw", "mock", "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl",
               ("EmbeddingBackwardDeviceOperation",))


_GELU_BW_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/unary_backward/gelu_backward/device/"
                "gelu_backward_program_factory.cpp @12bf2f96 (from source: ttnn 0.81.1 has no experimental::gelu_bw)")


@register_cb("ttnn.gelu_bw")
def gelu_bw_cb(ctx: CBContext) -> ProgramModel:
    """``GeluBackwardProgramFactory`` (from source): tt-mlir's runtime calls ``ttnn::experimental::gelu_bw(grad,
    input, approximate, memory_config)`` (``runtime/lib/ttnn/operations/experimental/gelu_bw.cpp`` @19c86fca), which
    the tt-metal tt-mlir pins (d5f9bc4a) has and ttnn 0.81.1 does not.

    The input's tiles (``physical volume / 1,024``) split column-major over the grid (``split_work_to_cores``);
    on those cores ``c_0`` 2 input tiles, ``c_1`` 2 gradient tiles, ``c_2`` 2 output tiles, each of its tensor's
    format.  Costed as a binary multiply with the derivative's erf and exp on the SFPU
    (``eltwise_bw_gelu_approx_none.cpp``; tanh and exp for ``approximate = "tanh"``).

    Raises:
        DeviceRejection: a sharded or row-major tensor (``GeluBackwardDeviceOperation::validate_on_program_cache_miss``
            rejects them).
        CBModelError: a gradient shaped unlike the input (the factory assumes one tile count; broadcasting is not
            modeled).
    """
    grad, x, out = operand(ctx, 0), operand(ctx, 1), result(ctx)
    for t, what in ((grad, "gradient"), (x, "input"), (out, "output")):
        if t.sharded or not t.tiled:
            raise DeviceRejection(f"gelu_bw of a {'sharded' if t.sharded else 'row-major'} {what}: "
                                  "GeluBackwardDeviceOperation accepts interleaved TILE tensors only")
    if grad.padded != x.padded:
        raise CBModelError(f"gelu_bw with a gradient {list(grad.shape)} shaped unlike the input {list(x.shape)}")
    split = split_work_to_cores(ctx.grid, x.physical_volume // (TILE * TILE))
    cores = split.all_cores
    cbs = [CB(0, "input", x.tile_bytes, 2, cores), CB(1, "grad", grad.tile_bytes, 2, cores),
           CB(2, "output", out.tile_bytes, 2, cores)]
    tanh = str(ctx.op.attrs.get("approximate", "none")).strip('"') == "tanh"
    return ProgramModel("GeluBackwardDeviceOperation::GeluBackwardProgramFactory", _GELU_BW_SRC, cores, cbs,
                        [f"{split.units} tiles on {split.num_cores} cores", "from source (not runnable on ttnn 0.81.1)"],
                        inputs=(grad, x), outputs=(out,),
                        params={"binary_op": "mul", "unary_ops": ["tanh", "exp"] if tanh else ["erf", "exp"]})


register_check("ttnn.gelu_bw", "source", "gelu_backward_program_factory.cpp @12bf2f96 (ttnn 0.81.1 has no "
               "experimental::gelu_bw)", ("GeluBackwardDeviceOperation",))
