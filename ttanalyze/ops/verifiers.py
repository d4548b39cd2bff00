"""tt-mlir's op verifiers beyond the shape rules: attribute, dtype, rank and cross-function checks.

The shape rules of :mod:`ttanalyze.ops` give each op's result shape (TTA007).  tt-mlir's op
verifiers (``lib/Dialect/TTNN/IR/TTNNOps.cpp`` and ``lib/Dialect/TTNN/Utils/VerificationUtils.cpp``
at 19c86fca45) also refuse ops whose operands have the wrong rank or element type, whose
attributes are out of range, or whose callees do not fit; such an op never reaches a flatbuffer.
Each function here follows one ``Op::verify()``, returns the first violation in the order tt-mlir
checks them, with tt-mlir's own message, and is checked on tt-mlir's negative tests of that op
(``benchmarks/eras_sweep.py``; an accepted test of any era must pass every verifier here).

A check needs what it reads: an operand without a tensor type or an attribute that is absent
(files of other eras) skips the check rather than failing it.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.attrs import TileType
from ..ir.model import Op, Program, TensorType, Value
from .attention import MLA_DECODE_OPERANDS, MLA_PREFILL_OPERANDS
from .operands import operand_groups
from .registry import ShapeError

Verifier = Callable[[Op, Program], "str | None"]
_VERIFIERS: dict[str, Verifier] = {}

# tt-mlir VALID_CQ_IDS (include/ttmlir/Dialect/TTNN/IR/TTNNOps.h): command queues 0 and 1.
VALID_CQ_IDS = (0, 1)
_INTEGER = {"u8", "u16", "u32", "si32", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32"}
_UNSIGNED = {"u8", "u16", "u32", "ui8", "ui16", "ui32"}
_WIDTH = {"u8": 8, "ui8": 8, "i8": 8, "u16": 16, "ui16": 16, "i16": 16, "u32": 32, "ui32": 32, "si32": 32,
          "i32": 32, "i64": 64, "i1": 1}
TILE_WIDTH = 32


def verifier(names: str | tuple[str, ...]) -> Callable[[Verifier], Verifier]:
    """Register ``fn(op, program) -> message | None`` as the verifier of ``names``."""
    def wrap(fn: Verifier) -> Verifier:
        for name in (names,) if isinstance(names, str) else names:
            _VERIFIERS[name] = fn
        return fn
    return wrap


def has_verifier(name: str) -> bool:
    """Whether ops named ``name`` have a verifier here (:func:`verify` returns None for every other op)."""
    return name in _VERIFIERS


def verify(op: Op, program: Program) -> str | None:
    """tt-mlir's verifier message for ``op``, or None when it passes (or has no verifier here).

    Returns:
        The message tt-mlir prints after ``'<op>' op`` (its first failing check).
    """
    fn = _VERIFIERS.get(op.name)
    if fn is None:
        return None
    try:
        return fn(op, program)
    except ShapeError:
        return None  # operands that do not fit the op's groups: the shape rule (TTA007) reports them


# -- helpers ---------------------------------------------------------------------------------------------------------


def _tensor(v: Value | None) -> TensorType | None:
    return v.type if v is not None and v.is_tensor else None


def _operands(op: Op, spec: tuple[str, ...]) -> dict[str, Value | None]:
    """The first value of each ODS operand group (None when an optional group is empty).

    Raises:
        ShapeError: the operands do not fit the groups (:func:`operand_groups`).
    """
    return {name: vals[0] if vals else None for name, vals in operand_groups(op, spec).items()}


def _rank(v: Value | None) -> int | None:
    t = _tensor(v)
    return len(t.shape) if t is not None else None


def _result(op: Op, i: int = 0) -> Value | None:
    return op.results[i] if i < len(op.results) else None


def _on_device(t: TensorType) -> bool | None:
    """tt-mlir ``utils::isTensorOnDevice``: the layout's buffer type is not system memory."""
    return None if t.layout is None else t.layout.buffer_type != "system_memory"


def _ints(op: Op, name: str) -> list[int] | None:
    value = op.attrs.get(name)
    if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        return value
    dims = getattr(value, "dims", None)
    return list(dims) if dims is not None else None


def _int(op: Op, name: str) -> int | None:
    value = op.attrs.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _same_type(a: TensorType, b: TensorType) -> bool:
    return a.shape == b.shape and a.element == b.element and a.encoding_text == b.encoding_text


# -- creation and eltwise ----------------------------------------------------------------------------------------------


@verifier("ttnn.constant")
def constant(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """ConstantOp::verify: a device operand exactly when the result is not in system memory."""
    out = _tensor(_result(op))
    if out is None or out.layout is None:
        return None
    has_device = any(not v.is_tensor for v in op.operands)
    if out.layout.buffer_type != "system_memory" and not has_device:
        return "device operand must be specified for non-system memory buffer type"
    if out.layout.buffer_type == "system_memory" and has_device:
        return "device operand must not be specified for system memory buffer type"
    return None


@verifier("ttnn.pow_scalar")
def pow_scalar(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """PowScalarOp::verify: the exponent (``rhs``) is not negative."""
    rhs = op.attrs.get("rhs")
    if isinstance(rhs, (int, float)) and not isinstance(rhs, bool) and rhs < 0:
        return f"exponent must be non-negative; but got {rhs}"
    return None


# -- convolution -------------------------------------------------------------------------------------------------------


@verifier("ttnn.prepare_conv2d_weights")
def prepare_conv2d_weights(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """PrepareConv2dWeightsOp::verify: an OIHW 4D weight matching the channel and kernel attributes."""
    w = _tensor(op.operands[0] if op.operands else None)
    if w is None:
        return None
    if len(w.shape) != 4:
        return "Weight must be a 4D tensor"
    fmt = op.attrs.get("weights_format")
    if isinstance(fmt, str) and fmt != "OIHW":
        return "Only `OIHW` weights format is currently supported"
    out_ch, in_ch, groups = _int(op, "out_channels"), _int(op, "in_channels"), _int(op, "groups")
    if out_ch is not None and w.shape[0] != out_ch:
        return (f"Expected output channels attribute ({out_ch}) to match the first dimension of the weight "
                f"tensor ({w.shape[0]})")
    if in_ch is not None and groups and w.shape[1] != in_ch // groups:
        return (f"Expected input channels attribute ({in_ch}) to match the number of input channels per group "
                f"({w.shape[1] // groups})")
    kernel = _ints(op, "kernel_size")
    if kernel is not None:
        if len(kernel) != 2:
            return "Expected kernel size attribute to be a 2D tensor"
        if w.shape[2] != kernel[0]:
            return (f"Expected kernel height attribute ({kernel[0]}) to match the third dimension of the weight "
                    f"tensor ({w.shape[2]})")
        if w.shape[3] != kernel[1]:
            return (f"Expected kernel width attribute ({kernel[1]}) to match the fourth dimension of the weight "
                    f"tensor ({w.shape[3]})")
    for name, sizes in (("stride", (2,)), ("dilation", (2,)), ("padding", (2, 4))):
        value = _ints(op, name)
        if value is not None and len(value) not in sizes:
            return f"Expected {name} attribute to be a 2D tensor"
    return None


_CONV2D = ("input", "weight", "bias?", "device")


@verifier("ttnn.conv2d")
def conv2d(op: Op, program: Program) -> str | None:
    """Conv2dOp::verify (``verifyTensorRanks``, then the weight's channels for an unprepared weight).

    A weight is prepared when ``prepare_conv2d_weights`` or ``ttcore.load_cached`` defines it, or
    its first two dims are 1 (tt-mlir ``isWeightPrepared``).
    """
    g = _operands(op, _CONV2D)
    inp, weight, bias = g["input"], g["weight"], g["bias"]
    for v, what in ((inp, "Input"), (weight, "Weight"), (bias, "Bias"), (_result(op), "Output")):
        if _rank(v) not in (None, 4):
            return f"{what} must be a 4D tensor"
    w = _tensor(weight)
    in_ch, groups = _int(op, "in_channels"), _int(op, "groups")
    if w is None or in_ch is None or not groups:
        return None
    producer = weight.producer.name if weight.producer is not None else ""
    prepared = producer in ("ttnn.prepare_conv2d_weights", "ttcore.load_cached") or w.shape[:2] == (1, 1)
    if prepared:
        return None
    out_ch, kernel = _int(op, "out_channels"), _ints(op, "kernel_size")
    if out_ch is not None and w.shape[0] != out_ch:
        return (f"Expected output channels attribute ({out_ch}) to match the output channels in the weight tensor "
                f"({w.shape[0]}).")
    if w.shape[1] != in_ch // groups:
        return (f"Expected input channels / groups attribute ({in_ch}/{groups}) = {in_ch // groups} to match the "
                f"number of input channels per group in the weight tensor ({w.shape[1]}).")
    if kernel is not None and len(kernel) == 2:
        if w.shape[2] != kernel[0]:
            return (f"Expected kernel height attribute ({kernel[0]}) to match the kernel height in the weight tensor "
                    f"({w.shape[2]}).")
        if w.shape[3] != kernel[1]:
            return (f"Expected kernel width attribute ({kernel[1]}) to match the kernel width in the weight tensor "
                    f"({w.shape[3]}).")
    return None


_CONV3D = ("input", "weight", "bias?", "device")


@verifier("ttnn.conv3d")
def conv3d(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """Conv3dOp::verify: ranks, parameters and channels (VerificationUtils.cpp ``conv3d``)."""
    g = _operands(op, _CONV3D)
    inp, weight, bias = g["input"], g["weight"], g["bias"]
    if _rank(inp) not in (None, 5):
        return "input must be a 5D tensor [N, D, H, W, C]"
    if _rank(weight) not in (None, 5, 2):
        return "weight must be either a 5D tensor [O, C/G, kD, kH, kW] (raw) or a 2D tensor [kD*kH*kW*C/G, O] (prepared)"
    if _rank(bias) not in (None, 2):
        return "bias must be a 2D tensor [1, O]"
    if _rank(_result(op)) not in (None, 5):
        return "result must be a 5D tensor [N, D_out, H_out, W_out, O]"
    kernel, groups = _ints(op, "kernel_size"), _int(op, "groups")
    if groups is not None and groups < 1:
        return f"groups must be >= 1, got: {groups}"
    w = _tensor(weight)
    in_ch, out_ch = _int(op, "in_channels"), _int(op, "out_channels")
    if w is None or groups is None or in_ch is None or out_ch is None or kernel is None or len(kernel) != 3:
        return None
    if len(w.shape) == 5:
        w_out, flat = w.shape[0], w.shape[1] * w.shape[2] * w.shape[3] * w.shape[4]
    else:
        w_out, flat = out_ch, w.shape[0]
    if in_ch % groups:
        return f"in_channels ({in_ch}) must be divisible by groups ({groups})"
    if w_out % groups:
        return f"out_channels ({w_out}) must be divisible by groups ({groups})"
    if len(w.shape) == 2:
        expected = in_ch // groups * kernel[0] * kernel[1] * kernel[2]
        if expected != flat:
            return f"weight flattened dimension ({flat}) must equal kD*kH*kW*C_in/groups ({expected})"
    elif tuple(w.shape[2:]) != tuple(kernel):
        return (f"weight kernel dimensions ({w.shape[2]}, {w.shape[3]}, {w.shape[4]}) must match kernel_size "
                f"({kernel[0]}, {kernel[1]}, {kernel[2]})")
    b = _tensor(bias)
    if b is not None and len(b.shape) == 2:
        if b.shape[1] != w_out:
            return f"bias output channels ({b.shape[1]}) must match weight output channels ({w_out})"
        if b.shape[0] != 1:
            return f"bias first dimension must be 1, got {b.shape[0]}"
    return None


# -- matmul ------------------------------------------------------------------------------------------------------------


@verifier("ttnn.matmul")
def matmul(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """MatmulOp::verify, its scalar case: two 1D inputs give a 1D result of size 1."""
    if len(op.operands) < 2:
        return None
    a, b, out = _tensor(op.operands[0]), _tensor(op.operands[1]), _tensor(_result(op))
    if a is None or b is None or out is None or len(a.shape) != 1 or len(b.shape) != 1:
        return None
    if len(out.shape) < 1:
        return "Scalar output is not supported, output must be at least a 1D tensor"
    if len(out.shape) > 1 or out.shape[0] != 1:
        return "Scalar output must be a 1D tensor of size 1"
    return None


@verifier("ttnn.sparse_matmul")
def sparse_matmul(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """SparseMatmulOp::verify: ranks, sparsity mode and the output shape of each mode."""
    if len(op.operands) < 3:
        return None
    a, b, sparsity = (_tensor(op.operands[i]) for i in range(3))
    out = _tensor(_result(op))
    nnz = _int(op, "nnz")
    if nnz is not None and nnz <= 0:
        return "nnz must be greater than 0 when set"
    if a is None or b is None or sparsity is None or out is None:
        return None
    if len(a.shape) < 4:
        return "Input A must be at least a 4D tensor"
    if len(b.shape) != 4:
        return "Input B must be a 4D tensor [1, E, K, N]"
    if len(sparsity.shape) != 4:
        return "Sparsity tensor must be a 4D tensor"
    a_sparse, b_sparse = op.attrs.get("is_input_a_sparse"), op.attrs.get("is_input_b_sparse")
    if not isinstance(a_sparse, bool) or not isinstance(b_sparse, bool):
        return None
    if not a_sparse and not b_sparse:
        return "At least one of is_input_a_sparse or is_input_b_sparse must be true"
    _, e, k, n = b.shape
    m = a.shape[-2]
    if b.shape[0] != 1:
        return "Input B first dimension must be 1"
    if a.shape[-1] != k:
        return "Input A inner dimension must match Input B K dimension"
    if sparsity.shape[-1] != e:
        return "Sparsity tensor last dimension must match number of experts in Input B"
    o = out.shape
    if a_sparse and b_sparse:
        if len(o) != 4:
            return "Output must be 4D for sparse-sparse mode"
        if o != (1, e, m, n):
            return "Output shape must be [1, E, M, N] for sparse-sparse mode"
    elif b_sparse:
        if len(o) != 6:
            return "Output must be 6D for dense-sparse mode"
        if o != (a.shape[0], a.shape[1], 1, e, m, n):
            return "Output shape must be [A, B, 1, E, M, N] for dense-sparse mode"
    else:
        if len(o) != 4:
            return "Output must be 4D for sparse-dense mode"
        if o != (a.shape[0], e, m, n):
            return "Output shape must be [A, E, M, N] for sparse-dense mode"
    return None


_MOE_W0_W1 = ("w0", "w1", "bias_0?", "bias_1?", "device")


@verifier("ttnn.prepare_moe_compute_w0_w1_weights")
def prepare_moe_compute_w0_w1_weights(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """PrepareMoEComputeW0W1WeightsOp::verify: sizes that are multiples of 32, both biases or none."""
    for name in ("hidden_size", "intermediate_size"):
        size = _int(op, name)
        if size is not None and (size == 0 or size % 32):
            return f"{name} must be a positive multiple of 32"
    g = _operands(op, _MOE_W0_W1)
    if (g["bias_0"] is None) != (g["bias_1"] is None):
        return "bias_0 and bias_1 must be both present or both absent"
    return None


# -- normalization -----------------------------------------------------------------------------------------------------

_NORM = ("input", "weight?", "bias?")


@verifier(("ttnn.rms_norm", "ttnn.layer_norm"))
def norm(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """RMSNormOp::verify / LayerNormOp::verify: weight and bias are 1D of the input's last dim (0D for 0D)."""
    g = _operands(op, _NORM)
    inp = _tensor(g["input"])
    if inp is None:
        return None
    for name in ("weight", "bias"):
        t = _tensor(g[name])
        if t is None:
            continue
        if not inp.shape:
            if t.shape:
                return f"{name} tensor must be 0D for 0D input tensor"
        elif len(t.shape) != 1 or t.shape[0] != inp.shape[-1]:
            return f"{name} tensor must be 1D with size matching the last dimension of input"
    return None


@verifier("ttnn.rms_norm_pre_all_gather")
def rms_norm_pre_all_gather(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """RMSNormPreAllGatherOp::verify: the residual, when given, has the input's shape."""
    g = _operands(op, ("input", "residual?"))
    inp, res = _tensor(g["input"]), _tensor(g["residual"])
    if inp is not None and res is not None and res.shape != inp.shape:
        return "residual tensor shape must match the input tensor shape"
    return None


@verifier("ttnn.layer_norm_pre_all_gather")
def layer_norm_pre_all_gather(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """LayerNormPreAllGatherOp::verify: residual shape, then two tiles of statistics per row (64 wide)."""
    g = _operands(op, ("input", "residual_input?", "recip?"))
    inp, res, out = _tensor(g["input"]), _tensor(g["residual_input"]), _tensor(_result(op))
    if inp is None:
        return None
    if res is not None and res.shape != inp.shape:
        return "residual_input shape must match input shape"
    if out is None or len(out.shape) != len(inp.shape) or len(inp.shape) < 2 or out.shape[:-1] != inp.shape[:-1]:
        return None
    if out.shape[-1] != 2 * TILE_WIDTH:
        return (f"output last dimension must be {2 * TILE_WIDTH} (2 * TILE_WIDTH) for layernorm partial statistics, "
                f"got {out.shape[-1]}")
    return None


# -- sort, sampling ----------------------------------------------------------------------------------------------------


@verifier("ttnn.sort")
def sort(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """SortOp::verify: integer indices."""
    indices = _tensor(op.results[-1]) if op.results else None
    if indices is not None and indices.element.name not in _INTEGER:
        return f"Expected integer data type for indices but got '{indices.element.name}'"
    return None


@verifier("ttnn.sampling")
def sampling(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """SamplingOp::verify: 2D [batch, candidates] or 4D [1, 1, batch, candidates] values, batch in [1, 32]."""
    values = _tensor(op.operands[0]) if op.operands else None
    if values is None:
        return None
    rank = len(values.shape)
    if rank not in (2, 4):
        return "input_values must be 2D [batch, candidates] or 4D [1, 1, batch, candidates]"
    if rank == 4 and values.shape[:2] != (1, 1):
        return "rank-4 input_values leading dims must be [1, 1, batch, candidates]"
    batch = values.shape[0] if rank == 2 else values.shape[2]
    if not 1 <= batch <= 32:
        return f"batch ({batch}) must be in [1, 32] (kernel limit)"
    return None


# -- transformer -------------------------------------------------------------------------------------------------------


@verifier("ttnn.rotary_embedding_llama")
def rotary_embedding_llama(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """RotaryEmbeddingLlamaOp::verify: bf16, tiled, on device; cos and sin alike; a 32x32 transformation matrix."""
    ts = [_tensor(v) for v in op.operands[:4]]
    if len(ts) < 4 or any(t is None for t in ts):
        return None
    if any(t.element.name != "bf16" for t in ts):
        return "all input tensors must be bfloat16 type."
    if all(t.layout is not None for t in ts):
        if any(not isinstance(t.layout.element, TileType) for t in ts):
            return "all input tensors must have tiled layout."
        if any(_on_device(t) is False for t in ts):
            return "all input tensors must be on device."
    if ts[1].shape != ts[2].shape:
        return "cos and sin tensors must have the same shape."
    if ts[0].shape and ts[0].shape[-1] > 256:
        return f"head dimension must be ≤ 256, got {ts[0].shape[-1]}."
    return None


@verifier("ttnn.rotary_embedding")
def rotary_embedding(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """RotaryEmbeddingOp::verify: cos and sin of the same dtype and shape."""
    if len(op.operands) < 3:
        return None
    cos, sin = _tensor(op.operands[1]), _tensor(op.operands[2])
    if cos is None or sin is None:
        return None
    if cos.element != sin.element:
        return "cos and sin tensor dtypes must match."
    if cos.shape != sin.shape:
        return "cos and sin tensor shapes must match."
    return None


@verifier("ttnn.paged_flash_multi_latent_attention_decode")
def paged_flash_mla_decode(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """PagedFlashMultiLatentAttentionDecodeOp::verify: 4D query/key/value of one dtype, one KV head."""
    g = _operands(op, MLA_DECODE_OPERANDS)
    q, k, value = _tensor(g["query"]), _tensor(g["key"]), _tensor(g["value"])
    if q is None or k is None or len(q.shape) != 4 or len(k.shape) != 4:
        return None
    if q.element != k.element:
        return "Query and key must have the same element type."
    if k.shape[1] != 1:
        return f"Key num KV heads (nkv) must be 1, got {k.shape[1]}."
    if value is not None and len(value.shape) == 4:
        if value.element != q.element:
            return "Query and value must have the same element type."
        if value.shape[1] != 1:
            return f"Value num KV heads (nkv) must be 1, got {value.shape[1]}."
    return None


@verifier("ttnn.flash_mla_prefill")
def flash_mla_prefill(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """FlashMlaPrefillOp::verify: query, key, value and result of one element type."""
    g = _operands(op, MLA_PREFILL_OPERANDS)
    q, k, value, out = _tensor(g["query"]), _tensor(g["key"]), _tensor(g["value"]), _tensor(_result(op))
    if q is None or k is None or out is None:
        return None
    if q.element != out.element:
        return "Query and result must have the same element type"
    if q.element != k.element:
        return "Query and key must have the same element type"
    if value is not None and value.element != q.element:
        return "Query and value must have the same element type"
    return None


@verifier("ttnn.indexer_score_dsa")
def indexer_score_dsa(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """IndexerScoreDsaOp::verify, its element-type check: query and key alike."""
    q, k = (_tensor(op.operands[i]) if i < len(op.operands) else None for i in (0, 1))
    if q is not None and k is not None and q.element != k.element:
        return "Query and key must have the same element type"
    return None


# -- data movement -----------------------------------------------------------------------------------------------------


@verifier("ttnn.assign")
def assign(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """AssignOp::verify: the output has the input's data type."""
    inp, out = _tensor(op.operands[0]) if op.operands else None, _tensor(_result(op))
    if inp is not None and out is not None and inp.shape == out.shape and inp.element != out.element:
        return "output tensor data type does not match expected output data type"
    return None


@verifier("ttnn.copy")
def copy(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """CopyOp::verify: source and destination on device, of the same type."""
    if len(op.operands) < 2:
        return None
    src, dst = _tensor(op.operands[0]), _tensor(op.operands[1])
    if src is None or dst is None:
        return None
    if _on_device(src) is False:
        return "Source tensor must be on device memory"
    if _on_device(dst) is False:
        return "Destination tensor must be on device memory"
    if not _same_type(src, dst):
        return f"Source and destination tensor types must match, but got {src} and {dst}"
    return None


# -- trace ops ---------------------------------------------------------------------------------------------------------


def _trace_id(t: TensorType | None) -> str | None:
    """tt-mlir ``verifyTraceIdTensor``: a scalar ui32 tensor with the ``#ttnn.trace_id`` encoding."""
    if t is None:
        return None
    if t.shape:
        return "Trace ID must be a scalar"
    name = t.element.name
    if name not in _INTEGER:
        return "Trace ID must be an integer"
    if name not in _UNSIGNED:
        return "Trace ID must be unsigned"
    if _WIDTH.get(name) != 32:
        return "Trace ID must be 32-bit"
    if "trace_id" not in t.encoding_text:
        return "Trace ID must have the TraceIdAttr encoding"
    return None


def _cq_id(op: Op) -> str | None:
    cq = _int(op, "cq_id")
    if cq is not None and cq not in VALID_CQ_IDS:
        return f"Invalid CQ ID {cq}"
    return None


@verifier("ttnn.begin_trace_capture")
def begin_trace_capture(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """BeginTraceCaptureOp::verify: a valid command queue; the result is a trace ID."""
    return _cq_id(op) or _trace_id(_tensor(_result(op)))


@verifier(("ttnn.end_trace_capture", "ttnn.execute_trace"))
def end_or_execute_trace(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """EndTraceCaptureOp::verify / ExecuteTraceOp::verify: a valid command queue; operand #1 is a trace ID."""
    return _cq_id(op) or _trace_id(_tensor(op.operands[1]) if len(op.operands) > 1 else None)


_CAPTURE_OR_EXECUTE = ("device", "inputs*", "semaphore_inputs*")


@verifier("ttnn.capture_or_execute_trace")
def capture_or_execute_trace(op: Op, program: Program) -> str | None:
    """CaptureOrExecuteTraceOp::verify: the slot-allocation, capture, trace and execute functions fit the op.

    Inputs in system memory are host-staged (written into their slot by the capture function),
    the others device-resident (tt-mlir ``partitionInputIndices``).
    """
    groups = operand_groups(op, _CAPTURE_OR_EXECUTE)
    inputs, semaphores = groups["inputs"], groups["semaphore_inputs"]
    host = [v for v in inputs if v.is_tensor and _on_device(v.type) is False]
    resident = [v for v in inputs if v not in host]
    funcs = {}
    for attr in ("allocate_slots_callee", "capture_callee"):
        name = op.attrs.get(attr)
        if not isinstance(name, str):
            return None
        funcs[attr] = program.func(name)
        if funcs[attr] is None:
            return f"'{name}' does not reference a function"
    alloc, capture = funcs["allocate_slots_callee"], funcs["capture_callee"]
    if len(alloc.args) != len(resident):
        return (f"Slot allocation function '{alloc.name}' must take {len(resident)} arguments (the device-resident "
                f"inputs), but has {len(alloc.args)}")
    slots = alloc.returns
    expected = len(inputs) + len(op.results)
    if len(slots) != expected:
        return (f"Slot allocation function '{alloc.name}' must return {expected} slots ({len(inputs)} input slots + "
                f"{len(op.results)} output slots), but returns {len(slots)}")
    want = len(host) + len(slots) + len(semaphores)
    if len(capture.args) != want:
        return (f"Capture function '{capture.name}' must take {want} arguments ({len(host)} host-staged inputs + "
                f"{len(slots)} slots + {len(semaphores)} semaphores), but has {len(capture.args)}")
    for i, slot in enumerate(slots):
        arg = capture.args[len(host) + i]
        if slot.is_tensor and arg.is_tensor and not _same_type(slot.type, arg.type):
            return f"Capture function slot argument {i} type mismatch"
    if len(capture.returns) != 1:
        return (f"Capture function '{capture.name}' must return exactly one trace_id value, but returns "
                f"{len(capture.returns)}")
    ret = capture.returns[0]
    if not ret.is_tensor or ret.type.shape or "trace_id" not in ret.type.encoding_text:
        return f"Capture function '{capture.name}' must return a trace_id tensor (scalar ui32 with TraceIdAttr encoding)"
    calls = [o.attrs["callee"] for o in capture.ops if o.name == "func.call" and isinstance(o.attrs.get("callee"), str)]
    if not calls:
        return "No trace function found in capture function"
    trace = program.func(calls[0])
    if trace is None:
        return f"'{calls[0]}' does not reference a function"
    if trace.returns:
        return (f"Trace function '{trace.name}' must return no results; it stores its outputs into the output slot "
                "arguments")
    device = op.operands[0].producer if op.operands else None
    for inner in trace.ops:
        if inner.name == "ttnn.get_device" and device is not None and device.name == "ttnn.get_device":
            if any(inner.raw_attrs.get(k) != device.raw_attrs.get(k) for k in ("mesh_shape", "mesh_offset")):
                return "Device configuration of get_device op in callee must match device configuration of trace op"
    name = op.attrs.get("execute_callee")
    if isinstance(name, str):
        execute = program.func(name)
        if execute is None:
            return f"'{name}' does not reference a function"
        if len(execute.args) != 1:
            return (f"Execute function '{name}' must take exactly one trace_id argument, but has "
                    f"{len(execute.args)} arguments")
        arg = execute.args[0]
        if not arg.is_tensor or _trace_id(arg.type) is not None:
            return (f"Execute function '{name}' argument must be a trace_id tensor (scalar ui32 with TraceIdAttr "
                    "encoding)")
    return None


# -- custom kernels ----------------------------------------------------------------------------------------------------


@verifier("ttnn.tt_lang_op")
def tt_lang_op(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """TTLangOp::verify: ``arg_roles`` tags each input ``in`` or ``out``, every ``in`` first, one ``out`` per result."""
    roles = op.attrs.get("arg_roles")
    if not op.operands:
        return "tt-lang kernel must have at least one input operand."
    if not isinstance(roles, str):
        return None
    if not roles:
        return "`arg_roles` attribute must not be empty."
    tokens = [t.strip() for t in roles.split(",")]
    if len(tokens) != len(op.operands):
        return f"`arg_roles` token count ({len(tokens)}) must match number of inputs ({len(op.operands)})."
    seen_out = False
    for token in tokens:
        if token == "out":
            seen_out = True
        elif token != "in":
            return f'`arg_roles` token must be "in" or "out", got: "{token}".'
        elif seen_out:
            return ('`arg_roles` must list all "in" operands before any "out" operand (destination-passing-style '
                    "ordering).")
    outs = tokens.count("out")
    if outs != len(op.results):
        return f'number of "out" roles ({outs}) must match number of results ({len(op.results)}).'
    if outs == 0:
        return ('tt-lang kernel must have at least one operand tagged "out" (the destination buffer the runtime '
                "returns as the kernel's output).")
    return None
