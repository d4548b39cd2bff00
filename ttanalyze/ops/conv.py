"""Convolutions and pooling.

conv2d and pool2d take the input flattened as ``[1, 1, N*H*W, C]`` and return
``[1, 1, N*OH*OW, C_out]`` with ``OH = (H + pad_top + pad_bottom -
dilation*(k-1) - 1) // stride + 1`` (``ceil`` instead of floor for pools with
``ceil_mode``); ``padding`` is ``[vertical, horizontal]`` or ``[top, bottom,
left, right]`` (tt-mlir ``lib/Dialect/TTNN/Utils/VerificationUtils.cpp``,
``Spatial4DParam``, @19c86fca).  conv3d maps ``[N, D, H, W, C]`` to
``[N, OD, OH, OW, C_out]`` with symmetric ``padding`` per spatial dim.
``prepare_conv3d_weights`` flattens ``[O, C/G, kD, kH, kW]`` to
``[ceil(C/align)*align * kD*kH*kW, O]`` (``PrepareConv3dWeightsOp::verify``).
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, int_attr, int_list, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp + Utils/VerificationUtils.cpp @19c86fca"
_CONV2D_ATTRS = ("in_channels", "out_channels", "batch_size", "input_height", "input_width", "kernel_size",
                 "stride", "padding", "dilation", "groups", "conv2d_config", "compute_config", "conv2d_slice_config")
_POOL_ATTRS = ("batch_size", "input_height", "input_width", "channels", "kernel_size", "stride", "padding",
               "dilation", "applied_shard_scheme", "ceil_mode", "reallocate_halo_output", "count_include_pad",
               "config_tensors_in_dram", "in_place_halo")


def _pads(op: Op) -> tuple[int, int]:
    p = int_list(op, "padding")
    if len(p) == 2:
        return 2 * p[0], 2 * p[1]
    if len(p) == 4:
        return p[0] + p[1], p[2] + p[3]
    raise ShapeError(f"{op.name} padding must have 2 or 4 values, got {len(p)}")


def out_size(size: int, pad: int, kernel: int, stride: int, dilation: int, ceil_mode: bool = False) -> int:
    """Output extent of one spatial dim (see module docstring).

    Raises:
        ShapeError: the dilated kernel is larger than the padded input.
    """
    span = size + pad - dilation * (kernel - 1) - 1
    if span < 0 or stride <= 0:
        raise ShapeError(f"kernel {kernel} (dilation {dilation}) does not fit the padded input {size + pad}")
    return (-(-span // stride) if ceil_mode else span // stride) + 1


def _spatial(op: Op, names=("kernel_size", "stride", "dilation")) -> tuple[list[int], list[int], list[int]]:
    k, s = int_list(op, names[0]), int_list(op, names[1])
    d = int_list(op, names[2]) if names[2] in op.attrs else [1] * len(k)
    return k, s, d


def _flattened_input(op: Op, channels: int) -> None:
    src = tensor_shape(op, 0)
    n, h, w = int_attr(op, "batch_size"), int_attr(op, "input_height"), int_attr(op, "input_width")
    if len(src) != 4 or src[2] != n * h * w or src[3] != channels:
        raise ShapeError(
            f"{op.name} input {'x'.join(map(str, src))} is not the flattened [1, 1, {n}*{h}*{w}={n * h * w}, {channels}]"
        )


@register("ttnn.conv2d", "conv", _CONV2D_ATTRS, f"{_SRC} Conv2dOp::verify")
def conv2d(op: Op):
    _flattened_input(op, int_attr(op, "in_channels"))
    k, s, d = _spatial(op)
    ph, pw = _pads(op)
    oh = out_size(int_attr(op, "input_height"), ph, k[0], s[0], d[0])
    ow = out_size(int_attr(op, "input_width"), pw, k[1], s[1], d[1])
    return [(1, 1, int_attr(op, "batch_size") * oh * ow, int_attr(op, "out_channels"))]


@register(("ttnn.max_pool2d", "ttnn.avg_pool2d"), "pool", _POOL_ATTRS, f"{_SRC} verifyPoolingOp")
def pool2d(op: Op):
    c = int_attr(op, "channels")
    _flattened_input(op, c)
    k, s, d = _spatial(op)
    ph, pw = _pads(op)
    ceil_mode = bool(op.attrs.get("ceil_mode", False))
    oh = out_size(int_attr(op, "input_height"), ph, k[0], s[0], d[0], ceil_mode)
    ow = out_size(int_attr(op, "input_width"), pw, k[1], s[1], d[1], ceil_mode)
    return [(1, 1, int_attr(op, "batch_size") * oh * ow, c)]


@register("ttnn.conv3d", "conv", ("in_channels", "out_channels", "batch_size", "input_depth", "input_height",
                                  "input_width", "kernel_size", "stride", "padding", "padding_mode", "groups",
                                  "dilation", "conv3d_config", "compute_config"), f"{_SRC} Conv3dOp::verify")
def conv3d(op: Op):
    src = tensor_shape(op, 0)
    n, c = int_attr(op, "batch_size"), int_attr(op, "in_channels")
    dims = [int_attr(op, "input_depth"), int_attr(op, "input_height"), int_attr(op, "input_width")]
    if tuple(src) != (n, *dims, c):
        raise ShapeError(f"conv3d input {'x'.join(map(str, src))} is not [N, D, H, W, C] = {[n, *dims, c]}")
    k, s, d = _spatial(op)
    p = int_list(op, "padding")
    out = [out_size(dims[i], 2 * p[i], k[i], s[i], d[i]) for i in range(3)]
    return [(n, *out, int_attr(op, "out_channels"))]


@register("ttnn.prepare_conv3d_weights", "conv", ("groups", "c_in_block", "alignment"), f"{_SRC} PrepareConv3dWeightsOp::verify")
def prepare_conv3d_weights(op: Op):
    w = tensor_shape(op, 0)
    if len(w) != 5:
        raise ShapeError("prepare_conv3d_weights expects a 5D [O, C/G, kD, kH, kW] weight")
    align = int_attr(op, "alignment")
    c_in = w[1] * int_attr(op, "groups", 1)
    c_aligned = -(-c_in // align) * align
    return [(c_aligned * w[2] * w[3] * w[4], w[0])]
