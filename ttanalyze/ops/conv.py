"""Convolutions, pooling and upsampling: shape rules, programs (CBs), device outputs.

Shape rules.  conv2d and pool2d take the input flattened as ``[1, 1, N*H*W, C]``
and return ``[1, 1, N*OH*OW, C_out]`` with ``OH = (H + pad_top + pad_bottom -
dilation*(k-1) - 1) // stride + 1`` (``ceil`` instead of floor for pools with
``ceil_mode``); ``padding`` is ``[vertical, horizontal]`` or four values,
``[top, bottom, left, right]`` for conv2d (tt-mlir
``lib/Dialect/TTNN/Utils/VerificationUtils.cpp``, ``Spatial4DParam``) and
``[top, left, bottom, right]`` for the pools (``TTNNOps.cpp verifyPoolingOp``,
@19c86fca).  conv3d maps ``[N, D, H, W, C]`` to
``[N, OD, OH, OW, C_out]`` with symmetric ``padding`` per spatial dim.
``prepare_conv3d_weights`` flattens ``[O, C/G, kD, kH, kW]`` to
``[ceil(C/align)*align * kD*kH*kW, O]`` (``PrepareConv3dWeightsOp::verify``).
upsample maps ``[N, H, W, C]`` to ``[N, H*scale_h, W*scale_w, C]``
(``UpsampleOp::verify``).

Programs and outputs (ttnn 0.81.1 = tt-metal d80d9482, measured on a mock P150;
the measured instances are in ``measurements/opdiff/results.jsonl.gz``, and the ttnn
calls are the executor's, :mod:`ttanalyze.executor.ttnn_worker`):

* ``ttnn.conv2d`` is a composite: a DRAM input is auto-sliced (one slice
  when it fits the free L1, else N height or width slices), the scheme is
  picked (height, block or width; ``determine_conv_config_for_auto_shard``),
  the input (slice) is sharded, the halo op runs, then the conv program
  (``Conv2dShardedProgramFactory``, or ``Conv2dWidthShardedProgramFactory``),
  then the result moves to the requested memory config.  The programs modeled
  are the halo program (:mod:`ttanalyze.ops.halo`) and the conv program (for
  sliced convs those of the slice with the most static CB bytes).
  1x1 stride-1 convs run as a tilize and ``ttnn::linear`` (:mod:`.conv_matmul`).
* ``ttnn.max_pool2d``/``avg_pool2d`` run interleaved-to-sharded, halo, then the
  ``Pool2D::MultiCore`` program; the halo and pool programs are modeled.
* ``ttnn.experimental.conv3d`` (``Conv3dProgramFactory``) on every core of its
  grid; ``ttnn.upsample`` (nearest) ``UpsampleMultiCoreInterleavedProgramFactory``.

Where the stored tt-metal source and the mock disagree the model follows the
mock and says so in the function that differs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..arch import Arch
from ..ir.attrs import CoreRangeSet, DataType, StructAttr
from ..ir.model import Op
from ..layout import align_up, ceil_div
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, grid_xy
from .conv_matmul import mm_conv_output, mm_conv_programs
from .halo import halo_program
from .registry import ShapeError, int_attr, int_list, register, register_cb, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import FACE, TILE, operand
from .work_split import full_grid, num_cores_to_corerangeset, split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp + Utils/VerificationUtils.cpp @19c86fca"
_CONV2D_ATTRS = ("in_channels", "out_channels", "batch_size", "input_height", "input_width", "kernel_size",
                 "stride", "padding", "dilation", "groups", "conv2d_config", "compute_config", "conv2d_slice_config",
                 "dtype", "memory_config")
_POOL_ATTRS = ("batch_size", "input_height", "input_width", "channels", "kernel_size", "stride", "padding",
               "dilation", "applied_shard_scheme", "ceil_mode", "reallocate_halo_output", "count_include_pad",
               "config_tensors_in_dram", "in_place_halo", "memory_config")

# tt-metal sources the models follow (the versions read; ttnn 0.81.1 = d80d9482 is not stored).
_METAL = "tt-metal ttnn/cpp/ttnn/operations"
SRC_CONV_UTILS = f"{_METAL}/conv/conv2d/conv2d_utils.cpp @002a3f41"
SRC_CONV_CBS = f"{_METAL}/conv/conv2d/conv2d_op_program_factory_common.cpp (get_cb_info, is_split_reader_viable)"
SRC_CONV_DRAM = f"{_METAL}/conv/conv2d/conv2d.cpp (conv2d_L1, conv2d_DRAM, Conv2dSliceAttr)"
SRC_SLIDING = f"{_METAL}/sliding_window/sliding_window.cpp @00002df2"
SRC_SLICING = f"{_METAL}/sliding_window/op_slicing/op_slicing.cpp @0205dffd"
SRC_POOL = f"{_METAL}/pool/generic/device/pool_multi_core_program_factory.cpp @002a3f41, pool/pool_utils.cpp"
SRC_CONV3D = f"{_METAL}/experimental/conv3d/device/conv3d_program_factory.cpp @015c7ffa"
SRC_UPSAMPLE = f"{_METAL}/pool/upsample (measured on the mock; factory source not read)"
MEASURED = "measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482)"

TILE_HW = TILE * TILE


# ---------------------------------------------------------------------------
# Shape rules
# ---------------------------------------------------------------------------


def _pads(op: Op, pool: bool = False) -> tuple[int, int]:
    """(vertical, horizontal) padding.  Four values are ``[top, bottom, left, right]`` for
    conv2d (``Spatial4DParam``) but ``[top, left, bottom, right]`` for the pools
    (``verifyPoolingOp``, and TTIRToTTNN's pool lowering writes them in that order)."""
    p = int_list(op, "padding")
    if len(p) == 2:
        return 2 * p[0], 2 * p[1]
    if len(p) == 4:
        return (p[0] + p[2], p[1] + p[3]) if pool else (p[0] + p[1], p[2] + p[3])
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


def _spatial(op: Op, names=("kernel_size", "stride", "dilation"), rank: int | None = None,
             ) -> tuple[list[int], list[int], list[int]]:
    """Kernel, stride and dilation lists; with ``rank``, each must hold ``rank`` values.

    Raises:
        ShapeError: a list of another length (tt-mlir's verifiers refuse it).
    """
    k, s = int_list(op, names[0]), int_list(op, names[1])
    d = int_list(op, names[2]) if names[2] in op.attrs else [1] * len(k)
    if rank is not None:
        for name, values in zip(names, (k, s, d)):
            if len(values) != rank:
                raise ShapeError(f"{op.name} {name} must have {rank} values, got {len(values)}")
    return k, s, d


def _flattened_input(op: Op, channels: int) -> None:
    src = tensor_shape(op, 0)
    n, h, w = int_attr(op, "batch_size"), int_attr(op, "input_height"), int_attr(op, "input_width")
    if len(src) != 4 or src[2] != n * h * w or src[3] != channels:
        raise ShapeError(
            f"{op.name} input {'x'.join(map(str, src))} is not the flattened [1, 1, {n}*{h}*{w}={n * h * w}, {channels}]"
        )


def _unflattened_input(op: Op, channels: int) -> bool:
    """Whether a conv2d input is ``[N, H, W, C]`` (the attributes' batch, height, width, channels) rather
    than the flattened ``[1, 1, N*H*W, C]``.  tt-metal's conv2d takes either: it reshapes a 4D input whose
    first two dims are not 1 to ``[1, 1, d0*d1*d2, d3]`` before sharding it
    (``conv2d_utils.cpp shard_or_reshard_tensor_if_required``, 2024 on; measured on the mock with ttnn
    0.81.1: an NHWC DRAM input runs the same programs as the flattened one), and tt-mlir before the
    flattening of conv2d operands (its verifier until 2024-12 checked only the ranks) wrote such inputs."""
    src = tensor_shape(op, 0)
    n, h, w = int_attr(op, "batch_size"), int_attr(op, "input_height"), int_attr(op, "input_width")
    return tuple(src) == (n, h, w, channels) and (src[0], src[1]) != (1, 1)


@register("ttnn.conv2d", "conv", _CONV2D_ATTRS, f"{_SRC} Conv2dOp::verify; NHWC inputs of tt-mlir 2024 (see _unflattened_input)")
def conv2d(op: Op):
    """``[1, 1, N*OH*OW, C_out]`` (what tt-metal returns); from an ``[N, H, W, C]`` input, a result typed
    ``[N, OH, OW, C_out]`` is accepted too: tt-mlir of 2024 typed its conv2d results so (its verifier checked
    ranks only); that tt-metal returns the flattened shape is the device-output model's finding (TTA012)."""
    c_in = int_attr(op, "in_channels")
    unflattened = _unflattened_input(op, c_in)
    if not unflattened:
        _flattened_input(op, c_in)
    k, s, d = _spatial(op, rank=2)
    ph, pw = _pads(op)
    oh = out_size(int_attr(op, "input_height"), ph, k[0], s[0], d[0])
    ow = out_size(int_attr(op, "input_width"), pw, k[1], s[1], d[1])
    n, c_out = int_attr(op, "batch_size"), int_attr(op, "out_channels")
    if unflattened and op.results and op.results[0].is_tensor and tuple(op.results[0].type.shape) == (n, oh, ow, c_out):
        return [(n, oh, ow, c_out)]
    return [(1, 1, n * oh * ow, c_out)]


@register(("ttnn.max_pool2d", "ttnn.avg_pool2d"), "pool", _POOL_ATTRS, f"{_SRC} verifyPoolingOp")
def pool2d(op: Op):
    c = int_attr(op, "channels")
    _flattened_input(op, c)
    k, s, d = _spatial(op, rank=2)
    ph, pw = _pads(op, pool=True)
    ceil_mode = bool(op.attrs.get("ceil_mode", False))
    oh = out_size(int_attr(op, "input_height"), ph, k[0], s[0], d[0], ceil_mode)
    ow = out_size(int_attr(op, "input_width"), pw, k[1], s[1], d[1], ceil_mode)
    return [(1, 1, int_attr(op, "batch_size") * oh * ow, c)]


@register("ttnn.conv3d", "conv", ("in_channels", "out_channels", "batch_size", "input_depth", "input_height",
                                  "input_width", "kernel_size", "stride", "padding", "padding_mode", "groups",
                                  "dilation", "conv3d_config", "compute_config", "dtype", "memory_config"),
          f"{_SRC} Conv3dOp::verify")
def conv3d(op: Op):
    src = tensor_shape(op, 0)
    n, c = int_attr(op, "batch_size"), int_attr(op, "in_channels")
    dims = [int_attr(op, "input_depth"), int_attr(op, "input_height"), int_attr(op, "input_width")]
    if tuple(src) != (n, *dims, c):
        raise ShapeError(f"conv3d input {'x'.join(map(str, src))} is not [N, D, H, W, C] = {[n, *dims, c]}")
    k, s, d = _spatial(op, rank=3)
    p = int_list(op, "padding")
    if len(p) != 3:
        raise ShapeError(f"conv3d padding must have 3 values, got {len(p)}")
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


def upsample_scale(op: Op) -> tuple[int, int]:
    """``scale_factor`` as (scale_h, scale_w): an integer, or a pair.

    Raises:
        ShapeError: missing, not 1 or 2 integers, or not positive.
    """
    value = op.attrs.get("scale_factor")
    if isinstance(value, int) and not isinstance(value, bool):
        scale = (value, value)
    else:
        dims = int_list(op, "scale_factor")
        if len(dims) == 1:
            scale = (dims[0], dims[0])
        elif len(dims) == 2:
            scale = (dims[0], dims[1])
        else:
            raise ShapeError(f"upsample scale_factor must be 1 or 2 integers, got {dims}")
    if scale[0] <= 0 or scale[1] <= 0:
        raise ShapeError(f"upsample scale factors {scale} must be positive")
    return scale


@register("ttnn.upsample", "pool", ("scale_factor", "mode", "memory_config"), f"{_SRC} UpsampleOp::verify")
def upsample(op: Op):
    src = tensor_shape(op, 0)
    if len(src) != 4:
        raise ShapeError(f"upsample expects a 4D [N, H, W, C] input, got rank {len(src)}")
    mode = op.attrs.get("mode", "nearest")
    if mode not in ("nearest", "bilinear"):
        raise ShapeError(f"upsample mode must be 'nearest' or 'bilinear', got {mode!r}")
    sh, sw = upsample_scale(op)
    return [(src[0], src[1] * sh, src[2] * sw, src[3])]


# ---------------------------------------------------------------------------
# Sliding-window geometry (tt-metal sliding_window.cpp)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """A 2D sliding window over an NHWC image.

    ``padding`` is (top, bottom, left, right); ``ceil_pad`` the extra bottom and
    right padding ceil_mode pools add (``get_ceil_pad_h/w``).
    """

    batch: int
    in_h: int
    in_w: int
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int, int, int]
    dilation: tuple[int, int] = (1, 1)
    ceil_mode: bool = False
    is_bilinear = False  # see BilinearWindow

    def out_hw(self) -> tuple[int, int]:
        """Output (OH, OW) (``SlidingWindowConfig::get_output_shape``)."""
        return (out_size(self.in_h, self.padding[0] + self.padding[1], self.kernel[0], self.stride[0],
                         self.dilation[0], self.ceil_mode),
                out_size(self.in_w, self.padding[2] + self.padding[3], self.kernel[1], self.stride[1],
                         self.dilation[1], self.ceil_mode))

    def ceil_pad(self) -> tuple[int, int]:
        """Extra (bottom, right) padding of ceil_mode (``get_ceil_pad_h/w``): 0 without ceil_mode."""
        if not self.ceil_mode:
            return 0, 0
        out = []
        for i, size, pad in ((0, self.in_h, self.padding[0] + self.padding[1]),
                             (1, self.in_w, self.padding[2] + self.padding[3])):
            span = size + pad - self.dilation[i] * (self.kernel[i] - 1) - 1
            o = ceil_div(span, self.stride[i]) + 1
            eff = self.dilation[i] * (self.kernel[i] - 1) + 1
            out.append(max(self.stride[i] * (o - 1) + eff - size - pad, 0))
        return out[0], out[1]

    def padded_hw(self) -> tuple[int, int]:
        """(PH, PW): the image with its padding and ceil padding, in sticks."""
        ch, cw = self.ceil_pad()
        return (self.in_h + self.padding[0] + self.padding[1] + ch,
                self.in_w + self.padding[2] + self.padding[3] + cw)

    @property
    def out_nhw(self) -> int:
        """Output sticks ``N * OH * OW``."""
        oh, ow = self.out_hw()
        return self.batch * oh * ow

    def trace(self, i: int) -> int:
        """Input stick (in the padded image) of the top-left of output ``i`` (``generate_op_trace_metadata``)."""
        oh, ow = self.out_hw()
        ph, pw = self.padded_hw()
        b, r = divmod(i, oh * ow)
        h, w = divmod(r, ow)
        return b * ph * pw + h * self.stride[0] * pw + w * self.stride[1]

    def halo_len(self) -> int:
        """Padded-input sticks a window spans past its top-left: ``(dkh-1)*PW + dkw - 1``."""
        dkh = self.kernel[0] + (self.dilation[0] - 1) * (self.kernel[0] - 1)
        dkw = self.kernel[1] + (self.dilation[1] - 1) * (self.kernel[1] - 1)
        return (dkh - 1) * self.padded_hw()[1] + dkw - 1

    def shard_ranges(self, num_cores_nhw: int, snap_to_tile: bool) -> list[tuple[int, int]]:
        """Output index range [start, end] of each nhw core (``generate_shard_boundaries``); end < start when empty."""
        shard = align_up(self.out_nhw, num_cores_nhw * (TILE if snap_to_tile else 1)) // num_cores_nhw
        return [(c * shard, min(c * shard + shard, self.out_nhw) - 1) for c in range(num_cores_nhw)]

    def max_halo_sticks(self, num_cores_nhw: int, snap_to_tile: bool) -> int:
        """Largest per-core halo output in sticks: ``input_end - input_start + 1`` over the shard boundaries.

        Source: ``generate_shard_boundaries`` + ``generate_max_out_nsticks_per_core`` (sliding_window.cpp);
        a core past the output end gets ``[trace[last], trace[last] + halo_len]``.
        """
        last = self.out_nhw - 1
        best = 0
        for start, end in self.shard_ranges(num_cores_nhw, snap_to_tile):
            end = max(end, last) if start > last else end
            first = self.trace(min(start, last))
            best = max(best, self.trace(end) + self.halo_len() - first + 1)
        return best

    def segments(self, start: int, end: int) -> int:
        """Runs of top-left indices stepping by ``stride_w`` among outputs [start, end].

        One run per output row piece; two row pieces merge when the next one
        starts ``stride_w`` after the previous end (``generate_sliding_window_op_config``).
        """
        oh, ow = self.out_hw()
        count, last, i = 0, None, start
        while i <= end:
            row_end = min(end, (i // ow + 1) * ow - 1)
            first = self.trace(i)
            if last is None or first != last + self.stride[1]:
                count += 1
            last = self.trace(row_end)
            i = row_end + 1
        return count

    def reader_indices_entries(self, num_cores_nhw: int, snap_to_tile: bool, block0: int, block1: int,
                               is_conv: bool) -> int:
        """uint16 entries of one core's row of the reader-indices config tensor.

        Per block: ``[num_segments, 0, start0, end0, ...]``; conv blocks hold
        ``block0`` outputs, alternating with ``block1`` when a split reader is
        used; pools use one block per core.  Rows are padded to the longest core
        and to an even length (``generate_sliding_window_op_config``,
        ``construct_on_host_config_tensor``).
        """
        longest = 0
        for start, end in self.shard_ranges(num_cores_nhw, snap_to_tile):
            entries, i, use0 = 0, start, True
            while i <= end:
                size = (block0 if use0 or not block1 else block1) if is_conv else end - start + 1
                j = min(end, i + size - 1)
                entries += 2 + 2 * self.segments(i, j)
                i, use0 = j + 1, not use0
            longest = max(longest, entries)
        return align_up(longest, 2)


@dataclass(frozen=True)
class BilinearWindow:
    """The sliding window of a bilinear upsample's halo (upsample.cpp ``apply_bilinear_halo_preprocessing``):
    a 2x2 window, stride 1, one padding stick on every side, ``N x H*scale_h x W*scale_w`` outputs whose
    top-left input sticks come from ``generate_op_trace_metadata_bilinear`` (sliding_window.cpp): the
    input coordinate ``(o + 0.5) / scale + 0.5`` accumulated in float32 and floored.  The traces are
    not monotonic, so a core's input range spans the min and max of its outputs' traces
    (``generate_shard_boundaries`` with ``is_bilinear``)."""

    batch: int
    in_h: int
    in_w: int
    scale_h: int
    scale_w: int
    kernel = (2, 2)
    stride = (1, 1)
    padding = (1, 1, 1, 1)
    dilation = (1, 1)
    ceil_mode = False
    is_bilinear = True

    def out_hw(self) -> tuple[int, int]:
        return self.in_h * self.scale_h, self.in_w * self.scale_w

    @property
    def out_nhw(self) -> int:
        oh, ow = self.out_hw()
        return self.batch * oh * ow

    def padded_hw(self) -> tuple[int, int]:
        return self.in_h + 2, self.in_w + 2

    def halo_len(self) -> int:
        """``(2 - 1) * PW + 2 - 1`` padded sticks past a window's top-left."""
        return self.padded_hw()[1] + 1

    def shard_ranges(self, num_cores_nhw: int, snap_to_tile: bool) -> list[tuple[int, int]]:
        shard = align_up(self.out_nhw, num_cores_nhw * (TILE if snap_to_tile else 1)) // num_cores_nhw
        return [(c * shard, min(c * shard + shard, self.out_nhw) - 1) for c in range(num_cores_nhw)]

    @staticmethod
    def _tops(n: int, scale: int) -> list[int]:
        import numpy as np  # here, not at start-up (0.1 s)

        inv = np.float32(1.0) / np.float32(scale)
        offset = np.float32(0.5) * inv + np.float32(0.5)
        out = []
        for _ in range(n):
            out.append(int(math.floor(offset)))
            offset = np.float32(offset + inv)
        return out

    def traces(self) -> list[int]:
        """Top-left padded-input stick of every output, in output order."""
        oh, ow = self.out_hw()
        ph, pw = self.padded_hw()
        rows, cols = self._tops(oh, self.scale_h), self._tops(ow, self.scale_w)
        return [b * ph * pw + r * pw + c for b in range(self.batch) for r in rows for c in cols]

    def input_ranges(self, num_cores_nhw: int, snap_to_tile: bool) -> list[tuple[int, int]]:
        """Each core's padded-input range ``[min trace, max trace + halo_len]``; ``(1, 0)`` without outputs."""
        trace = self.traces()
        out = []
        for start, end in self.shard_ranges(num_cores_nhw, snap_to_tile):
            if start > end:
                out.append((1, 0))
                continue
            part = trace[start:end + 1]
            out.append((min(part), max(part) + self.halo_len()))
        return out

    def max_halo_sticks(self, num_cores_nhw: int, snap_to_tile: bool) -> int:
        return max(end - start + 1 for start, end in self.input_ranges(num_cores_nhw, snap_to_tile))


# ---------------------------------------------------------------------------
# Parallel configs (conv2d_utils.cpp)
# ---------------------------------------------------------------------------


def _closest_divisor(num: int, start: int, num2: int | None = None) -> int:
    d = start
    while num % d or (num2 is not None and num2 % d):
        d -= 1
    return d


def _closest_divisor_padding(num: int, start: int) -> int:
    d = start
    while (align_up(num, d) - num) >= align_up(num, d) // d:
        d -= 1
    return d


def _closest_divisor_padding_mult(num: int, start: int, mult: int) -> int:
    d = start
    while (align_up(num, d * mult) - num) >= align_up(num, d * mult) // d and d > 1:
        d -= 1
    return d


@dataclass(frozen=True)
class Parallel:
    """A sharding: scheme (``height``/``block``/``width``), its core grid, orientation."""

    scheme: str
    cores: CoreRangeSet
    orientation: str = "row_major"

    @property
    def bbox(self) -> tuple[int, int]:
        """Bounding-box (x, y) size of the grid."""
        return (max(r.end.x for r in self.cores.ranges) + 1, max(r.end.y for r in self.cores.ranges) + 1)

    @property
    def num_cores(self) -> int:
        return self.cores.num_cores

    @property
    def nhw_cores(self) -> int:
        """``get_num_cores_nhw``: all cores (height), 1 (width), grid rows or cols (block)."""
        if self.scheme == "width":
            return 1
        if self.scheme == "height":
            return self.num_cores
        return self.bbox[0] if self.orientation == "col_major" else self.bbox[1]

    @property
    def c_cores(self) -> int:
        """``get_num_cores_channels``."""
        if self.scheme == "height":
            return 1
        if self.scheme == "width":
            return self.num_cores
        return self.bbox[1] if self.orientation == "col_major" else self.bbox[0]


def parallel_config(scheme: str, batch: int, in_c: int, out_h: int, out_w: int, out_c: int, align: int,
                    grid: tuple[int, int], orientation: str = "row_major", channels_padding: bool = True,
                    h_tile_multiple: bool = True, w_tile_multiple: bool = True, act_block_h_override: int = 0,
                    groups: int = 1) -> Parallel:
    """``determine_parallel_config``: the core grid of a sharded conv/pool input.

    Height: ``n`` cores, the largest divisor-with-little-padding of the output
    tile rows (``find_closest_largest_divisor_with_num_padding_and_mult``),
    taken row by row from the grid.  Block: nhw cores along grid y (row-major)
    and channel cores along x.  Width: channel tiles over all cores.
    """
    if groups == in_c == out_c:
        align = TILE
    tile_h = TILE if h_tile_multiple else 1
    tile_w = TILE if w_tile_multiple else FACE
    nhw_ntiles = ceil_div(batch * out_h * out_w, tile_h)
    out_c_ntiles = ceil_div(out_c, tile_w)
    abh = act_block_h_override // TILE if act_block_h_override else 1
    gx, gy = grid
    if scheme == "height":
        return Parallel(scheme, num_cores_to_corerangeset(_closest_divisor_padding_mult(nhw_ntiles, gx * gy, abh), grid, True))
    if scheme == "block":
        col = orientation == "col_major"
        nhw = _closest_divisor_padding_mult(nhw_ntiles, gx if col else gy, abh)
        in_blocks = ceil_div(in_c, align)
        start_c = gy if col else gx
        c = (_closest_divisor_padding(in_blocks, start_c) if channels_padding
             else _closest_divisor(out_c_ntiles, start_c, in_blocks))
        return Parallel(scheme, full_grid((nhw if col else c, c if col else nhw)), orientation)
    if scheme == "width":
        in_ntiles = ceil_div(in_c, tile_w)
        c = _closest_divisor_padding(in_ntiles, gx * gy) if channels_padding else _closest_divisor(in_ntiles, gx * gy)
        return Parallel(scheme, num_cores_to_corerangeset(c, grid, True))
    raise CBModelError(f"conv/pool sharding must be height, block or width sharded, not {scheme}")


def output_parallel_config(inp: Parallel, grid: tuple[int, int], out_c: int, mm_conv: bool = False) -> Parallel:
    """``determine_output_parallel_config``: width and block shardings re-split the output channels."""
    if mm_conv:
        return inp
    ntiles = ceil_div(out_c, TILE)
    if inp.scheme == "width":
        return Parallel("width", num_cores_to_corerangeset(_closest_divisor_padding(ntiles, grid[0] * grid[1]), grid, True))
    if inp.scheme == "block":
        col = inp.orientation == "col_major"
        c = _closest_divisor_padding(ntiles, grid[1] if col else grid[0])
        nhw = inp.nhw_cores
        return Parallel("block", full_grid((nhw if col else c, c if col else nhw)), inp.orientation)
    return inp


def shard_shape(nhw: int, channels: int, pc: Parallel, tile: int) -> tuple[int, int]:
    """``create_sharded_memory_config_from_parallel_config``: per-core [rows, channels]."""
    rows = nhw if pc.scheme == "width" else align_up(nhw, pc.nhw_cores * tile)
    if channels % pc.c_cores:
        raise CBModelError(f"{channels} channels do not split over {pc.c_cores} cores")
    return rows // pc.nhw_cores, channels // pc.c_cores


def channels_alignment(scheme: str, layout: str, sliced: bool, mm_conv: bool, shard_width: int | None,
                       l1_alignment: int) -> int:
    """``get_input_channels_alignment``: 8 (= L1 alignment / 2) for row-major non-width inputs, else 32;
    an already-sharded input aligns to its shard width (32, 16 or 8)."""
    if not mm_conv and scheme != "width" and (layout == "row_major" or sliced):
        if shard_width is not None:
            for a in (TILE, 16, 8):
                if shard_width % a == 0:
                    return a
            return TILE
        return l1_alignment // 2
    return TILE


# ---------------------------------------------------------------------------
# conv2d
# ---------------------------------------------------------------------------

_DTYPES = ("bf16", "f32", "bfp_bf8", "bfp_f8", "bfp_bf4", "bfp_f4")  # the data types the conv/pool models take


def tile_bytes(dtype: str) -> int:
    """Bytes of a 32x32 tile of ``dtype`` (tt-metal ``tile_size``, :meth:`DataType.tile_bytes`).

    Raises:
        CBModelError: a data type conv/pool programs do not use.
    """
    if dtype not in _DTYPES:
        raise CBModelError(f"data type {dtype} is not modeled for conv/pool programs")
    return DataType(dtype).tile_bytes()


@dataclass(frozen=True)
class Conv2dParams:
    """Everything ``ttnn.conv2d`` reads, as the tt-mlir runtime passes it.

    Shapes in elements; ``padding`` is (top, bottom, left, right).  Conv2dConfig
    fields keep tt-metal's names and defaults; ``force_split_reader`` is not
    settable from tt-mlir (None = ttnn's heuristic).  ``input_buffer`` is
    ``dram`` or ``l1`` (interleaved); ``memory_config`` is the requested output
    ``(buffer_type, memory_layout)`` or None.
    """

    batch: int
    in_h: int
    in_w: int
    in_c: int
    out_c: int
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int, int, int]
    dilation: tuple[int, int] = (1, 1)
    groups: int = 1
    has_bias: bool = True
    input_dtype: str = "bf16"
    input_layout: str = "row_major"
    input_buffer: str = "dram"
    weights_dtype: str = "bf16"
    output_dtype: str | None = None
    shard_layout: str | None = None
    act_block_h_override: int = 0
    act_block_w_div: int = 1
    transpose_shards: bool = False
    output_layout: str = "tile"
    enable_act_double_buffer: bool = False
    enable_weights_double_buffer: bool = False
    config_tensors_in_dram: bool = False
    fp32_dest_acc_en: bool = False
    packer_l1_acc: bool = False
    force_split_reader: bool | None = None
    memory_config: tuple[str, str | None] | None = ("dram", "interleaved")

    @property
    def window(self) -> Window:
        return Window(self.batch, self.in_h, self.in_w, self.kernel, self.stride, self.padding, self.dilation)

    @property
    def out_dtype(self) -> str:
        return self.output_dtype or self.input_dtype

    @property
    def mm_conv(self) -> bool:
        """``use_matmul_for_1x1_conv``: 1x1, stride 1, no padding/dilation, not width sharded."""
        return (self.kernel == (1, 1) and self.stride == (1, 1) and self.padding == (0, 0, 0, 0)
                and self.dilation == (1, 1) and self.shard_layout != "width")

    @property
    def depthwise_1d(self) -> bool:
        """``is_1d_depthwise_conv``."""
        return (self.groups == self.in_c == self.out_c and self.kernel == (1, 1) and self.in_h == 1
                and not self.has_bias)


@dataclass
class ConvPlan:
    """The choices ttnn 0.81.1 makes for one conv2d, and the conv program's CBs.

    ``input_pc``/``output_pc``: parallel configs; ``input_shard``: the sharded
    input [rows, channels]; ``halo_sticks``: halo output rows per core;
    ``out_shard``: conv output shard [rows, channels]; ``block``: act_block_h,
    act_block_w (tiles); ``per_core_out``: output tiles (h, w) per core;
    ``split_reader``; ``l1_usage``: tt-metal's per-core L1 estimate for the
    chosen scheme (bytes); ``cbs``: (name, page_bytes, pages, globally_allocated).
    """

    path: str
    scheme: str
    input_pc: Parallel
    output_pc: Parallel
    input_shard: tuple[int, int]
    halo_sticks: int
    in_channels_padded: int
    out_shard: tuple[int, int]
    per_core_out: tuple[int, int]
    block: tuple[int, int]
    split_reader: bool
    cbs: list[tuple[str, int, int, bool]]
    l1_usage: int
    notes: list[str]
    slices: int = 1
    window: Window | None = None  # the (slice's) sliding window the halo runs

    @property
    def static_bytes(self) -> int:
        return sum(p * n for _, p, n, g in self.cbs if not g)


# Split-reader cost model constants per arch (conv2d_op_program_factory_common.cpp): clamped-linear NoC
# transfer rates (GB/s) as (size where the peak is reached, rate at the L1 alignment, peak rate) for local L1
# reads, DRAM reads and L1 multicast; the clock (GHz) they were measured at; tilize cycles per tile keyed by
# (halo dtype, output dtype) -> (fp32 accumulation off, on).
_NOC = {
    "blackhole": dict(
        local=(4096, 1.124, 80.48), dram=(2048, 0.671, 80.885), mcast=(65536, 0.182, 57.677), clock=1.35,
        tilize={("f32", "f32"): (132, 132), ("f32", "bf16"): (132, 80), ("f32", "bfp_bf8"): (132, 77),
                ("bf16", "f32"): (105, 128), ("bf16", "bf16"): (72, 72), ("bf16", "bfp_bf8"): (60, 60)}),
    "wormhole_b0": dict(
        local=(1024, 0.868, 27.84), dram=(2048, 0.436, 28.411), mcast=(65536, 0.318, 25.345), clock=1.0,
        tilize={("f32", "f32"): (107, 128), ("f32", "bf16"): (74, 74), ("f32", "bfp_bf8"): (74, 70),
                ("bf16", "f32"): (92, 117), ("bf16", "bf16"): (61, 68), ("bf16", "bfp_bf8"): (40, 43)}),
}


def _rate(params: tuple[int, float, float], size: int, l1_alignment: int) -> float:
    top, lo, peak = params
    return lo + (peak - lo) / (top - l1_alignment) * (min(max(size, l1_alignment), top) - l1_alignment)


def split_reader_viable(arch: Arch, scheme: str, act_block_h: int, in_c_padded: int, kernel_w: int,
                        input_dtype: str, weights_block_tiles: int, weights_tile: int, dilation_w: int,
                        act_block_w: int, fp32_acc: bool, output_dtype: str) -> bool:
    """``is_split_reader_viable``: block sharding always; height sharding when reading the activation
    block with two readers beats one (cycle model: L1 NoC reads of ``act_block_h*32`` rows of
    ``kernel_w * channels`` sticks, DRAM read + multicast of the weight block, tilize):
    ``act/2 + max(weights, tilize) < max(act + tilize, weights)``.

    Raises:
        CBModelError: an arch or data-type pair outside tt-metal's tables.
    """
    if scheme == "block":
        return True
    if arch.name not in _NOC:
        raise CBModelError(f"no split-reader cost figures for {arch.name}")
    noc = _NOC[arch.name]
    elem = 4 if input_dtype == "f32" else 2
    unit = elem * in_c_padded * (kernel_w if dilation_w == 1 else 1)
    act = noc["clock"] * (elem * act_block_h * TILE * in_c_padded * kernel_w) / _rate(noc["local"], unit,
                                                                                         arch.l1_alignment)
    wbytes = weights_tile * weights_block_tiles
    w = noc["clock"] * wbytes * (1 / _rate(noc["dram"], weights_tile, arch.l1_alignment)
                                 + 1 / _rate(noc["mcast"], wbytes, arch.l1_alignment))
    key = ("f32" if input_dtype == "f32" else "bf16", output_dtype)
    if key not in noc["tilize"]:
        raise CBModelError(f"no tilize cycle figure for {key[0]} -> {key[1]} (split-reader heuristic)")
    tilize = noc["tilize"][key][1 if fp32_acc else 0] * act_block_w * act_block_h
    return act / 2 + max(w, tilize) < max(act + tilize, w)


def _block_config(pc: Parallel, per_core_h: int, padded_h_ntiles: int, in_c_padded: int, p: Conv2dParams) -> tuple[int, int]:
    """``determine_per_core_conv_block_config``: (act_block_h, act_block_w) in tiles."""
    abh = per_core_h
    if p.act_block_h_override:
        if p.act_block_h_override % TILE:
            raise CBModelError(f"act_block_h_override {p.act_block_h_override} is not a multiple of 32")
        o = p.act_block_h_override // TILE
        abh = o if padded_h_ntiles % o == 0 else _closest_divisor(padded_h_ntiles, o)
    kh, kw = p.kernel
    if pc.scheme == "height":
        abw = align_up(in_c_padded, TILE) if p.depthwise_1d else align_up(in_c_padded * kw, TILE)
    elif pc.scheme == "block":
        abw = align_up(in_c_padded // pc.c_cores * kw, TILE)
    else:
        den = pc.num_cores * p.act_block_w_div
        if in_c_padded % (TILE * den):
            raise CBModelError(f"width sharding needs {in_c_padded} padded input channels divisible by 32*{den}")
        abw = in_c_padded * kh * kw // den
    return abh, abw // TILE


def conv_cbs(p: Conv2dParams, pc: Parallel, per_core: tuple[int, int], block: tuple[int, int], in_c_padded: int,
             input_shard: tuple[int, int], reader_bytes: int, arch: Arch) -> tuple[list[tuple[str, int, int, bool]], bool]:
    """The conv program's CBs (``get_cb_info``) and whether the split reader is on.

    Returns ``[(name, page_bytes, pages, globally_allocated), ...]`` in creation
    order, zero-page CBs dropped.  ``input_shard`` is the halo output shard
    [sticks, channels]; ``reader_bytes`` the reader-indices row (0 drops the
    CB).  Differences from the stored source, following the mock (ttnn 0.81.1):
    MATMUL_PARTIALS holds ``act_block_h x per_core_out_w`` tiles (source: the
    whole per-core output), and the READER_INDICES CB is one config-tensor row,
    static when the config tensors are in DRAM (source: ``per_core_out_h*32*2`` B).
    The weight-matrix height used for ``packer_l1_acc`` (``in0_num_blocks_w``) is
    ``kh`` blocks for height sharding (measured), ``kh * channel cores`` for block
    sharding and 1 for width sharding (not measured).
    """
    ph, pw = per_core
    abh, abw = block
    scheme = pc.scheme
    in_tile = 4096 if p.input_dtype == "f32" else 2048
    datum = 4 if p.input_dtype == "f32" else 2
    w_tile = tile_bytes(p.weights_dtype)
    out_tile = tile_bytes(p.out_dtype)
    kh, kw = p.kernel
    untilize = p.output_layout == "row_major"
    split = (scheme in ("height", "block") and not p.depthwise_1d and abh > 1
             and (p.force_split_reader if p.force_split_reader is not None else split_reader_viable(
                 arch, scheme, abh, in_c_padded, kw, p.input_dtype, pw * abw, w_tile, p.dilation[1], abw,
                 p.fp32_dest_acc_en, p.out_dtype)))
    if split:
        act, act_split = (abh - abh // 2) * abw, (abh // 2) * abw
    else:
        act, act_split = abh * abw, 0
    # weight matrix rows (tiles): kh rows of act_block_w for height, channel cores x that for block
    w_rows = kh * abw * (pc.c_cores if scheme == "block" else 1) if scheme != "width" else abw
    in0_blocks_w = w_rows // abw * (ceil_div(p.out_c, TILE * pw) if scheme == "block" else 1)
    packer = p.packer_l1_acc and ((p.has_bias and in0_blocks_w > 1) or in0_blocks_w > 2)
    partial = ("f32" if p.fp32_dest_acc_en else "bf16") if packer else p.out_dtype
    cbs: list[tuple[str, int, int, bool]] = []

    weights = pw * (abh * kw if p.depthwise_1d else abw)
    if scheme == "height":
        if ph // abh > 1:
            weights *= kh
        elif p.enable_weights_double_buffer:
            weights *= 2
    elif p.enable_weights_double_buffer:
        weights *= 2
    cbs.append(("weights", w_tile, weights, False))
    cbs.append(("matmul_partials", tile_bytes(partial), 1 if p.depthwise_1d else abh * pw,
                not untilize and partial == p.out_dtype and not p.depthwise_1d))
    if p.enable_act_double_buffer:
        act, act_split = 2 * act, 2 * act_split
    overlap_im2col = scheme == "block" and ("f32" if p.input_dtype == "f32" else "bf16") == p.out_dtype
    cbs.append(("act", in_tile if scheme == "height" else out_tile, act if scheme == "height" else act + act_split, False))
    cbs.append(("act_second_reader", in_tile, 0 if overlap_im2col else act_split, False))
    cbs.append(("temp_sum", out_tile, 1 if p.depthwise_1d else 0, False))
    cbs.append(("act_tilized", out_tile, abh * abw, False))
    cbs.append(("bias", w_tile, pw if p.has_bias else 0, False))
    row_major = 2 * abw if scheme == "width" else (act if scheme == "block" else 0)
    cbs.append(("act_row_major", in_tile, 0 if overlap_im2col else row_major, False))
    cbs.append(("out", out_tile, ph * pw, True))
    cbs.append(("reader_indices", reader_bytes, 1, not p.config_tensors_in_dram))
    cbs.append(("l1_array", 64, 1, False))
    cbs.append(("act_sharded", input_shard[1] * datum, input_shard[0], True))
    return [cb for cb in cbs if cb[2] > 0 and cb[1] > 0], split


def _conv_configs(p: Conv2dParams, in_pc: Parallel, out_pc: Parallel, in_c_padded: int):
    """``get_conv_configs``: output shard, per-core output tiles, block config."""
    oh, ow = p.window.out_hw()
    nhw = p.batch * oh * ow
    out_c_padded = align_up(p.out_c, out_pc.c_cores * TILE)
    out_shard = shard_shape(nhw, out_c_padded, out_pc, TILE)
    per_core = (ceil_div(out_shard[0], TILE), ceil_div(out_shard[1], TILE))
    block = _block_config(in_pc, per_core[0], out_shard[0] // TILE, in_c_padded, p)
    return out_shard, per_core, block


def _l1_usage(p: Conv2dParams, scheme: str, arch: Arch, sliced: bool = False) -> tuple[int, int, Parallel]:
    """``calculate_L1_usage_for_conv_op`` for one scheme: (total bytes per core, core count, input config).

    Total = static CBs + output shard + halo output; the reader-indices CB is
    estimated at ``per_core_out_h*32*2`` B as the stored source does.  The
    input's channel alignment is that of an input sharded from DRAM slices
    when ``sliced``.
    """
    grid = grid_xy(arch)
    align = channels_alignment(scheme, p.input_layout, sliced, p.mm_conv, None, arch.l1_alignment)
    oh, ow = p.window.out_hw()
    orient = "col_major" if p.transpose_shards else "row_major"
    in_pc = parallel_config(scheme, p.batch, p.in_c, oh, ow, p.out_c, align, grid, orient, not p.mm_conv,
                            act_block_h_override=p.act_block_h_override, groups=p.groups)
    out_pc = output_parallel_config(in_pc, grid, p.out_c, p.mm_conv)
    in_c_padded = align_up(p.in_c, in_pc.c_cores * align)
    out_shard, per_core, block = _conv_configs(p, in_pc, out_pc, in_c_padded)
    est = replace(p, config_tensors_in_dram=False)
    cbs, _ = conv_cbs(est, in_pc, per_core, block, in_c_padded, (0, 0), 0, arch)
    static = sum(pb * n for name, pb, n, g in cbs if not g)
    if p.config_tensors_in_dram:
        static += per_core[0] * TILE * 2
    out_bytes = per_core[0] * per_core[1] * tile_bytes(p.out_dtype)
    halo_in = _input_shard(p, in_pc, align)
    datum = 4 if p.input_dtype == "f32" else 2
    halo = p.window.max_halo_sticks(in_pc.nhw_cores, True) * halo_in[1] * datum
    return static + out_bytes + halo, max(in_pc.num_cores, out_pc.num_cores), in_pc


def _input_shard(p: Conv2dParams, pc: Parallel, align: int) -> tuple[int, int]:
    """``determine_input_memory_config``: the sharded input [rows, channels] per core."""
    tile = 1 if pc.scheme == "width" and p.input_layout == "row_major" else TILE
    rows = align_up(p.batch * p.in_h * p.in_w, pc.nhw_cores * tile) // pc.nhw_cores
    return rows, align_up(p.in_c, pc.c_cores * align) // pc.c_cores


def choose_scheme(p: Conv2dParams, arch: Arch) -> str:
    """``determine_conv_config_for_auto_shard``: height unless block is smaller and spans at least a
    grid row of cores, or width is smaller still (never width for matmul convs)."""
    if p.shard_layout:
        return p.shard_layout
    height = _l1_usage(p, "height", arch)
    if p.depthwise_1d:
        return "height"
    block = _l1_usage(p, "block", arch)
    width = _l1_usage(p, "width", arch)
    win, best = "height", height[0]
    if block[0] < best and block[1] >= arch.grid[1]:
        win, best = "block", block[0]
    if width[0] < best and not p.mm_conv:
        win = "width"
    return win


def _slice_params(p: Conv2dParams, kind: str, start: int, end: int, sliced: bool) -> Conv2dParams:
    """The conv of output rows (``kind`` = height) or columns [start, end) of ``p``
    (``Conv2dSliceAttr::get_input_slice_and_padding``): the input slice it reads and its padding.

    Edge slices keep the full padding; with a tile output, a width slice that is
    not a multiple of 32 gets extra right padding (``stride_w`` per missing column).
    """
    oh, ow = p.window.out_hw()
    kh, kw = p.kernel
    if kind == "height":
        axis, size, full, pads, stride, dil, k = 0, p.in_h, oh, p.padding[0:2], p.stride[0], p.dilation[0], kh
    else:
        axis, size, full, pads, stride, dil, k = 1, p.in_w, ow, p.padding[2:4], p.stride[1], p.dilation[1], kw
    lo = start * stride - pads[0]
    hi = (end - 1) * stride - pads[0] + (k - 1) * (dil - 1) + k
    pad_lo, pad_hi = max(0, -lo), max(0, hi - size)
    lo, hi = max(0, lo), min(size, hi)
    if start == 0:
        pad_lo, lo = pads[0], 0
    if end == full:
        pad_hi, hi = pads[1], size
    if kind == "width" and p.output_layout == "tile" and sliced and (end - start) % TILE:
        pad_hi += (TILE - (end - start) % TILE) * p.stride[1]
    if axis == 0:
        return replace(p, in_h=hi - lo, padding=(pad_lo, pad_hi, p.padding[2], p.padding[3]))
    return replace(p, in_w=hi - lo, padding=(p.padding[0], p.padding[1], pad_lo, pad_hi))


def _slices(p: Conv2dParams, n: int, kind: str) -> list[Conv2dParams]:
    """The ``n`` slices of ``compute_L1_usage_for_slice_config`` (tile-rounded width slices for tile outputs)."""
    oh, ow = p.window.out_hw()
    dim = oh if kind == "height" else ow
    rounding = TILE if p.output_layout == "tile" and kind == "width" else 1
    units = ceil_div(dim, rounding)
    base, rem = divmod(units, n)
    out, start = [], 0
    for i in range(n):
        if start >= dim:
            break
        size = rounding * (base + (1 if i < rem else 0))
        end = min(dim, start + size)
        if end > start:
            out.append(_slice_params(p, kind, start, end, n > 1))
        start += size
    return out


def _slice_usage(p: Conv2dParams, arch: Arch, sliced: bool) -> int:
    """``Conv2dSliceAttr::get_L1_usage``: max(halo input + halo output, conv total) per core."""
    scheme = choose_scheme(p, arch)
    total, _, in_pc = _l1_usage(p, scheme, arch, sliced)
    align = channels_alignment(scheme, p.input_layout, sliced, False, None, arch.l1_alignment)
    halo_in = _input_shard(p, in_pc, align)
    datum = 4 if p.input_dtype == "f32" else 2
    halo_out = p.window.max_halo_sticks(in_pc.nhw_cores, True) * halo_in[1] * datum
    return max(halo_in[0] * halo_in[1] * datum + halo_out, total)


def slice_config(p: Conv2dParams, arch: Arch, free_l1: int) -> tuple[int, str, int]:
    """``determine_slice_config`` for a DRAM-input conv2d: (slices, ``height``/``width``, L1 bytes per core).

    The slice direction is guessed from the input (tile output: height when
    W < 200 or H > W; row-major: height when H > 3W), then 1, 2, ... slices are
    tried until the largest slice's L1 estimate fits ``free_l1``; the other
    direction is tried once before giving up.

    Raises:
        CBModelError: no slicing fits (tt-metal raises too).
    """
    if p.output_layout == "row_major":
        first = "height" if p.in_h > p.in_w * 3 else "width"
    else:
        first = "height" if p.in_w < 200 or p.in_h > p.in_w else "width"
    oh, ow = p.window.out_hw()
    for kind in (first, "width" if first == "height" else "height"):
        dim = oh if kind == "height" else ow
        rounding = TILE if p.output_layout == "tile" and kind == "width" else 1
        most = ceil_div(dim, rounding) if p.output_layout == "tile" else dim
        for n in range(1, most + 1):
            need = max(_slice_usage(s, arch, n > 1) for s in _slices(p, n, kind))
            if need <= free_l1:
                return n, kind, need
    raise DeviceRejection(f"conv2d does not fit {free_l1:,} B of free L1 per core even sliced (tt-metal refuses)")


def plan_conv2d(p: Conv2dParams, arch: Arch, free_l1: int) -> ConvPlan:
    """What ttnn 0.81.1's ``ttnn.conv2d`` builds for ``p`` (see :class:`ConvPlan`).

    Follows ``conv2d`` -> ``conv2d_DRAM`` (DRAM input: auto-slicing, one slice
    when the op fits ``free_l1``) or ``conv2d_L1`` (L1 input) -> auto shard ->
    interleaved-to-sharded -> halo -> the conv program.

    Raises:
        CBModelError: matmul convs (1x1, stride 1), grouped convs, inputs
            outside DRAM/L1, convs that fit no slicing, unknown dtypes.
    """
    if p.mm_conv:
        raise CBModelError("a 1x1 stride-1 conv2d runs as ttnn.linear (tilize + matmul): not modeled as a conv program")
    if p.groups != 1:
        raise CBModelError(f"grouped conv2d (groups={p.groups}) is not modeled")
    if p.input_buffer not in ("dram", "l1"):
        raise CBModelError(f"conv2d input in {p.input_buffer} is not modeled")
    notes: list[str] = []
    if p.input_buffer == "l1":
        return _plan_l1(p, arch, "l1", False, notes)
    slices, kind, need = slice_config(p, arch, free_l1)
    if slices == 1:
        notes.append(f"DRAM input: auto-slicing keeps one slice ({need:,} B <= {free_l1:,} B free), run as the "
                     "L1 op with a tile output (conv2d.cpp Conv2dSliceAttr::run_L1_op)")
        return _plan_l1(p, arch, "dram", False, notes)
    notes.append(f"DRAM input: auto-sliced into {slices} {kind} slices (one slice needs more than the {free_l1:,} B "
                 f"free, {slices} need {need:,} B); the slice with the most static CB bytes is modeled "
                 "(op_slicing.cpp determine_slice_config, conv2d.cpp Conv2dSliceAttr)")
    plans = [_plan_l1(s, arch, "dram", True, list(notes)) for s in _slices(p, slices, kind)]
    best = max(plans, key=lambda pl: pl.static_bytes)
    best.slices = slices
    return best


def _plan_l1(p: Conv2dParams, arch: Arch, path: str, sliced: bool, notes: list[str]) -> ConvPlan:
    """``conv2d_L1`` on an interleaved input (or one DRAM slice of it): scheme, shards, blocks, CBs."""
    grid = grid_xy(arch)
    # The scheme uses the caller's Conv2dConfig; the DRAM path then runs the L1 op with a tile output
    # (Conv2dSliceAttr::get_input_memory_config / run_L1_op).
    scheme = choose_scheme(p, arch)
    usage, _, in_pc = _l1_usage(p, scheme, arch, sliced)
    q = replace(p, output_layout="tile") if path == "dram" else p
    align0 = channels_alignment(scheme, q.input_layout, sliced, False, None, arch.l1_alignment)
    input_shard = _input_shard(q, in_pc, align0)
    align = channels_alignment(scheme, q.input_layout, False, False, input_shard[1], arch.l1_alignment)
    in_c_padded = align_up(q.in_c, in_pc.c_cores * align)
    out_pc = output_parallel_config(in_pc, grid, q.out_c)
    out_shard, per_core, block = _conv_configs(q, in_pc, out_pc, in_c_padded)
    halo_sticks = q.window.max_halo_sticks(in_pc.nhw_cores, True)
    halo_shard = (halo_sticks, input_shard[1])
    _, split_probe = conv_cbs(q, in_pc, per_core, block, in_c_padded, halo_shard, 0, arch)
    abh_datums = block[0] * TILE
    b0, b1 = ((block[0] - block[0] // 2) * TILE, (block[0] // 2) * TILE) if split_probe else (abh_datums, 0)
    reader = 2 * q.window.reader_indices_entries(in_pc.nhw_cores, True, b0, b1, True)
    _check_reader_indices(q, reader, per_core[0])
    cbs, split = conv_cbs(q, in_pc, per_core, block, in_c_padded, halo_shard, reader, arch)
    notes.append(f"{scheme} sharded on {in_pc.num_cores} cores (nhw {in_pc.nhw_cores} x c {in_pc.c_cores}), "
                 f"input shard {list(input_shard)}, output shard {list(out_shard)} on {out_pc.num_cores} cores "
                 f"(conv2d_utils.cpp determine_parallel_config/get_conv_configs)")
    notes.append(f"act_block_h {block[0]} tiles, act_block_w {block[1]} tiles, per-core output {per_core[0]}x"
                 f"{per_core[1]} tiles, split reader {'on' if split else 'off'}")
    return ConvPlan(path, scheme, in_pc, out_pc, input_shard, halo_sticks, in_c_padded, out_shard, per_core, block,
                    split, cbs, usage, notes, window=q.window)


def _check_reader_indices(p: Conv2dParams, reader_bytes: int, per_core_out_h: int) -> None:
    """tt-metal's check of the reader-indices page against the worst case it sized for
    (``conv2d_op_program_factory_common.cpp:337`` in ttnn 0.81.1; the source is not stored, the message and the
    bound are the mock's).

    With the config tensors in DRAM the READER_INDICES CB is budgeted at ``per_core_out_h * 32 * 2`` B
    (``per_core_out_h`` in tiles: one uint16 index per output row, the figure ``calculate_L1_usage_for_conv_op``
    adds); a config-tensor row (``reader_bytes``, see :meth:`Window.reader_indices_entries`) longer than that
    is refused.  Measured on mock P150 (opdiff g1/ttnn.conv2d): the six refused instances have a 68-B row
    against 64 B (one output tile row per core); every instance that ran has its row within the bound
    (up to 120 B against 45 tiles).

    Raises:
        DeviceRejection: the row exceeds the worst case.
    """
    worst = per_core_out_h * TILE * 2
    if p.config_tensors_in_dram and reader_bytes > worst:
        raise DeviceRejection(
            f"conv2d reader indices: a config-tensor row of {reader_bytes} B exceeds the worst-case CB size {worst} B "
            f"({per_core_out_h} output tile row(s) per core x 32 x 2 B); tt-metal refuses: TT_FATAL "
            f"'Reader indices buffer page size {reader_bytes} exceeds worst-case CB size {worst} (config tensor "
            "layout changed?)' (conv2d_op_program_factory_common.cpp)")


def conv_program_cores(plan: ConvPlan) -> CoreRangeSet:
    """Cores the conv program's CBs are on: the bounding rectangle of the output grid (height), the input
    and output grids merged (block, and width: measured, g1/ttnn.conv2d/42 and /126 run a 512- and a
    128-channel input on 16 and 4 cores into a one-core 32- and 8-channel output, with every CB on the input
    grid's bounding rectangle)."""
    if plan.scheme in ("block", "width"):
        x = max(plan.input_pc.bbox[0], plan.output_pc.bbox[0])
        y = max(plan.input_pc.bbox[1], plan.output_pc.bbox[1])
        return full_grid((x, y))
    bx, by = plan.output_pc.bbox
    return full_grid((bx, by))


def conv_program(p: Conv2dParams, arch: Arch, free_l1: int) -> ProgramModel:
    """The conv program's ProgramModel (the halo program before it: :func:`conv_programs`).

    ``l1_buffers_per_core`` is the halo output the op keeps in L1 while the conv
    program runs, plus the conv's L1 output shard when the result goes to DRAM
    (an L1 result is an IR value, already live).

    Raises:
        CBModelError: see :func:`plan_conv2d`.
    """
    plan = plan_conv2d(p, arch, free_l1)
    cores = conv_program_cores(plan)
    cbs = [CB(i, name, page, pages, cores, glob) for i, (name, page, pages, glob) in enumerate(plan.cbs)]
    factory = "Conv2dWidthShardedProgramFactory" if plan.scheme == "width" else "Conv2dShardedProgramFactory"
    datum = 4 if p.input_dtype == "f32" else 2
    halo_bytes = align_up(plan.halo_sticks * plan.input_shard[1] * datum, 16)
    out_bytes = plan.per_core_out[0] * plan.per_core_out[1] * tile_bytes(p.out_dtype)
    notes = plan.notes + [f"tt-metal's own L1 estimate for the {plan.scheme} scheme: {plan.l1_usage:,} B per core",
                          MEASURED + " for the CB lists this model was checked on"]
    source = f"{SRC_CONV_DRAM}; {SRC_CONV_UTILS}; {SRC_CONV_CBS}; {SRC_SLIDING}; {SRC_SLICING}"
    if p.input_buffer != "dram" and (p.memory_config is None or p.memory_config[0] == "l1"):
        out_bytes = 0  # the result itself
    prog = ProgramModel(factory, source, cores, cbs, notes, l1_buffers_per_core=halo_bytes + out_bytes)
    if plan.l1_usage <= free_l1:
        # tt-metal sized the op (scheme, blocks, DRAM slices) so that its own estimate fits; where the detailed
        # count of CBs plus the op's own L1 buffers disagrees, the model, not tt-metal, may be wrong.
        prog.params["refusal_unsure"] = (
            f"tt-metal's own L1 estimate for this conv2d ({plan.l1_usage:,} B per core, calculate_L1_usage_for_conv_op) "
            f"fits the {free_l1:,} B of free L1 it sized the op for; only the detailed count of CBs and the op's "
            "intermediate L1 buffers does not")
    prog.params["conv"] = {
        "path": plan.path, "slices": plan.slices, "scheme": plan.scheme, "input_cores": plan.input_pc.num_cores,
        "output_cores": plan.output_pc.num_cores, "input_shard": plan.input_shard, "halo_sticks": plan.halo_sticks,
        "out_shard": plan.out_shard, "per_core_out": plan.per_core_out, "act_block_h": plan.block[0],
        "act_block_w": plan.block[1], "in_channels_padded": plan.in_channels_padded}
    return prog


def conv_programs(p: Conv2dParams, arch: Arch, free_l1: int) -> list[ProgramModel]:
    """The conv2d's programs in order: the halo program (:func:`ttanalyze.ops.halo.halo_program`; none for a
    width-sharded conv without padding: conv2d.cpp ``bypass_halo``), then the conv program
    (:func:`conv_program`).  Input sharding, the tiled input's reshape, DRAM slicing and the output move are
    not listed; a sliced conv lists the halo of the slice :func:`plan_conv2d` models.

    Raises:
        CBModelError: see :func:`plan_conv2d`; a halo that reads past the padded input.
    """
    plan = plan_conv2d(p, arch, free_l1)
    conv = conv_program(p, arch, free_l1)
    if plan.scheme == "width" and sum(plan.window.padding) == 0:
        return [conv]
    try:
        halo = halo_program(plan.window, plan.scheme, plan.input_pc.cores, plan.input_pc.nhw_cores,
                            plan.input_pc.orientation == "col_major", True, plan.input_shard, plan.halo_sticks,
                            p.input_layout, p.input_dtype, p.config_tensors_in_dram, arch.l1_alignment)
    except ValueError as exc:
        raise CBModelError(f"conv2d halo: {exc}") from None
    return [halo, conv]


def conv_output_spec(p: Conv2dParams, arch: Arch, free_l1: int) -> TensorSpec:
    """What ``ttnn.conv2d`` returns for ``p`` (ttnn 0.81.1, measured).

    DRAM input: ``[1, 1, N*OH*OW, C_out]`` DRAM interleaved whatever memory
    config is asked ("Conv2D DRAM doesn't support specifying memory config"),
    TILE for one slice (the L1 op's tile output is moved to DRAM), else the
    ``output_layout`` of the DRAM tensor the slices are written into.  L1 input:
    ``conv_config.output_layout``; the requested memory config, or the conv's own
    sharded output when none is given.

    Raises:
        CBModelError: see :func:`plan_conv2d`.
    """
    plan = plan_conv2d(p, arch, free_l1)
    oh, ow = p.window.out_hw()
    shape = (1, 1, p.batch * oh * ow, p.out_c)
    layout = "tile" if plan.path == "dram" and plan.slices == 1 else p.output_layout
    padded = (1, 1, align_up(shape[2], TILE), align_up(shape[3], TILE)) if layout == "tile" else shape
    if plan.path == "dram":
        return TensorSpec(shape, padded, layout, p.out_dtype, "dram", "interleaved")
    if p.memory_config is not None:
        return TensorSpec(shape, padded, layout, p.out_dtype, p.memory_config[0], p.memory_config[1])
    return TensorSpec(shape, padded, layout, p.out_dtype, "l1", f"{plan.scheme}_sharded", plan.out_shard)


# --- reading conv2d ops ------------------------------------------------------------------


def _name(v) -> str | None:
    if v is None:
        return None
    return str(getattr(v, "name", getattr(v, "value", v)))


def _bool(v, default: bool) -> bool:
    return default if v is None else bool(v)


_SCHEMES = {"height_sharded": "height", "block_sharded": "block", "width_sharded": "width"}


def _rule_holds(op: Op, rule) -> None:
    """Run the op's shape rule before its CB model reads the same attributes (a padding list one value
    short, a batch_size the input does not have would crash or stall the model).

    Raises:
        CBModelError: the rule fails (TTA007 reports why).
    """
    try:
        rule(op)
    except ShapeError as exc:
        raise CBModelError(f"its shape rule fails: {exc}") from None


def conv2d_params(ctx: CBContext) -> Conv2dParams:
    """:class:`Conv2dParams` of a ``ttnn.conv2d`` op (its attributes and operand layouts).

    The tt-mlir runtime (runtime/lib/ttnn/operations/conv/conv2d.cpp @19c86fca)
    passes the conv2d_config and compute_config attributes, and the result's
    memory config as ``memory_config``; weights and bias come from operands 1, 2.

    Raises:
        CBModelError: options the model does not cover (see :func:`conv_params`).
    """
    op = ctx.op
    _rule_holds(op, conv2d)
    k, s, d = _spatial(op)
    pad = int_list(op, "padding")
    pad4 = (pad[0], pad[0], pad[1], pad[1]) if len(pad) == 2 else tuple(pad)
    return conv_params(ctx, batch=int_attr(op, "batch_size"), in_h=int_attr(op, "input_height"),
                       in_w=int_attr(op, "input_width"), kernel=(k[0], k[1]), stride=(s[0], s[1]), padding=pad4,
                       dilation=(d[0], d[1]))


def kernel_stride_folds(geometry: dict, inp, enable: bool | None) -> bool:
    """Whether ttnn folds the conv's input (``fold_input_tensor_if_required`` / ``auto_enable_kernel_folding``,
    conv2d_utils.cpp, store id 746669609): when asked to (and a stride is > 1), or, unset, when stride ==
    kernel > 1 with no dilation, the padded input divides by the stride, and the input is in DRAM and
    row-major or unpadded, or height sharded.  ``geometry`` as :func:`conv_params`'s; ``inp`` the input
    :class:`~ttanalyze.ops.tensors.Tensor`."""
    k, s, d, pad = geometry["kernel"], geometry["stride"], geometry["dilation"], geometry["padding"]
    if enable is not None:
        return bool(enable) and max(s) > 1
    if tuple(s) != tuple(k) or max(s) == 1 or tuple(d) != (1, 1):
        return False
    if (geometry["in_h"] + pad[0] + pad[1]) % s[0] or (geometry["in_w"] + pad[2] + pad[3]) % s[1]:
        return False
    return ((inp.buffer_type == "dram" and (not inp.tiled or not any(pad)))
            or inp.memory_layout == "height_sharded")


def conv_params(ctx: CBContext, **geometry) -> Conv2dParams:
    """:class:`Conv2dParams` of a conv op run as ttnn's conv2d: ``geometry`` (batch, in_h, in_w, kernel,
    stride, padding, dilation) plus what every conv reads the same way: channels, groups, the operand
    layouts, ``conv2d_config``, ``compute_config``, the result's dtype and memory config.

    Raises:
        CBModelError: options the model does not cover (kernel-stride folding, sharding overrides, core
            grids, an already-sharded input).
    """
    op = ctx.op
    inp = operand(ctx, 0)
    if inp.sharded:
        raise CBModelError(f"{op.name} with an already {inp.memory_layout} input is not modeled")
    k, s = geometry["kernel"], geometry["stride"]
    cfg = op.attrs.get("conv2d_config")
    get = cfg.get if isinstance(cfg, StructAttr) else (lambda key, default=None: default)
    for key in ("override_sharding_config", "core_grid", "reshard_if_not_optimal"):
        if get(key):
            raise CBModelError(f"conv2d_config {key} is not modeled")
    if kernel_stride_folds(geometry, inp, get("enable_kernel_stride_folding")):
        raise CBModelError(f"{op.name} folds its input (kernel-stride folding: ttnn runs a fold, then the conv as a "
                           "matmul on the folded input): not modeled")
    weights = ctx.inputs[1] if len(ctx.inputs) > 1 else None
    has_bias = len(op.operands) > 2 and op.operands[2].is_tensor
    wdt = _name(get("weights_dtype")) or (str(weights.dtype) if weights is not None else str(inp.dtype))
    cc = op.attrs.get("compute_config")
    fp32 = bool(getattr(cc, "fp32_dest_acc_en", None)) if cc is not None else (str(inp.dtype) == "f32" and wdt == "f32")
    packer = bool(getattr(cc, "packer_l1_acc", None)) if cc is not None else False
    out = ctx.outputs[0] if ctx.outputs else None
    mem = None
    if out is not None and out.placement is not None:
        mem = (out.placement.buffer_type, out.placement.memory_layout)
    shard = _name(get("shard_layout"))
    out_dtype = _name(op.attrs.get("dtype"))
    return Conv2dParams(
        **geometry, in_c=int_attr(op, "in_channels"), out_c=int_attr(op, "out_channels"),
        groups=int_attr(op, "groups", 1), has_bias=has_bias, input_dtype=str(inp.dtype), input_layout=inp.layout,
        input_buffer=inp.buffer_type, weights_dtype=wdt, output_dtype=out_dtype,
        shard_layout=_SCHEMES.get(shard, shard) if shard else None,
        act_block_h_override=int(get("act_block_h_override", 0) or 0),
        act_block_w_div=int(get("act_block_w_div", 1) or 1),
        transpose_shards=_bool(get("transpose_shards"), False),
        output_layout=_name(get("output_layout")) or "tile",
        enable_act_double_buffer=_bool(get("enable_act_double_buffer"), False),
        enable_weights_double_buffer=_bool(get("enable_weights_double_buffer"), False),
        config_tensors_in_dram=_bool(get("config_tensors_in_dram"), False),
        fp32_dest_acc_en=fp32, packer_l1_acc=packer, memory_config=mem)


def conv2d_programs(ctx: CBContext, p: Conv2dParams) -> list[ProgramModel]:
    """The programs of the conv2d ``p`` describes (conv2d, conv1d, conv_transpose2d): the halo and conv
    programs (:func:`conv_programs`), or the tilize + linear of a matmul conv
    (:func:`~.conv_matmul.mm_conv_programs`)."""
    if p.mm_conv:
        return mm_conv_programs(ctx, p)
    return conv_programs(p, ctx.arch, ctx.max_l1_space)


def conv2d_outputs(ctx: CBContext, p: Conv2dParams) -> list[TensorSpec]:
    """What the conv2d ``p`` describes returns (:func:`conv_output_spec`; a matmul conv:
    :func:`~.conv_matmul.mm_conv_output`)."""
    if p.mm_conv:
        return [mm_conv_output(ctx, p)]
    return [conv_output_spec(p, ctx.arch, ctx.max_l1_space)]


@register_cb("ttnn.conv2d")
def conv2d_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.conv2d`` (:func:`conv2d_programs`)."""
    return conv2d_programs(ctx, conv2d_params(ctx))


@register_spec("ttnn.conv2d")
def conv2d_spec(ctx: CBContext) -> list[TensorSpec]:
    """Device output of ``ttnn.conv2d`` (:func:`conv2d_outputs`)."""
    return conv2d_outputs(ctx, conv2d_params(ctx))


# ---------------------------------------------------------------------------
# max_pool2d / avg_pool2d
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolParams:
    """What ``ttnn.max_pool2d``/``avg_pool2d`` read, as the tt-mlir runtime passes them
    (runtime/lib/ttnn/operations/pool/pool2d.cpp @19c86fca: row-major bf16 output,
    no divisor override, ``config_tensor_in_dram`` from the op).

    ``padding`` is (top, bottom, left, right); ``memory_config`` the requested
    output ``(buffer_type, memory_layout)`` or None.
    """

    kind: str
    batch: int
    in_h: int
    in_w: int
    channels: int
    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int, int, int]
    dilation: tuple[int, int] = (1, 1)
    ceil_mode: bool = False
    count_include_pad: bool = True
    applied_shard_scheme: str | None = None
    input_dtype: str = "bf16"
    input_layout: str = "row_major"
    input_buffer: str = "dram"
    config_tensor_in_dram: bool = False
    memory_config: tuple[str, str | None] | None = ("dram", "interleaved")
    return_indices: bool = False  # max_pool2d_with_indices

    @property
    def window(self) -> Window:
        return Window(self.batch, self.in_h, self.in_w, self.kernel, self.stride, self.padding, self.dilation,
                      self.ceil_mode)

    @property
    def one_scalar_per_core(self) -> bool:
        """``is_pool_op_one_scalar_per_core``: max pools, or avg pools whose divisor never changes."""
        ch, cw = self.window.ceil_pad()
        pads = sum(self.padding)
        return self.kind == "max" or ((not self.ceil_mode or (ch == 0 and cw == 0))
                                      and (self.count_include_pad or pads == 0))


@dataclass(frozen=True)
class _PoolFactory:
    """``get_factory_parameters`` (pool_utils.cpp): CB-shaping numbers of the pool program."""

    in_ntiles_c: int
    out_ntiles_c: int
    num_tilized_rows: int
    wide: bool
    max_tiles: int


def _pool_factory(p: PoolParams, num_shards_c: int) -> _PoolFactory:
    hw = p.kernel[0] * p.kernel[1]
    rows = hw if hw <= FACE else TILE
    per_shard = p.channels / num_shards_c
    in_ntiles = math.ceil(per_shard / TILE)
    out_ntiles = math.ceil(per_shard / FACE)
    partial = (p.channels // num_shards_c) % TILE != 0 and (p.channels // num_shards_c) % TILE <= FACE
    large = hw > (TILE // 2 if partial else TILE)
    max_tiles = 1 if p.return_indices else 4 if p.kind == "avg" and large else 8
    return _PoolFactory(in_ntiles, out_ntiles, rows, in_ntiles > max_tiles, max_tiles)


def pool_cbs(p: PoolParams, num_shards_c: int, out_shard: tuple[int, int], halo_shard: tuple[int, int],
             reader_bytes: int) -> list[tuple[str, int, int, bool]]:
    """The pool program's CBs (``pool2d_multi_core_sharded_with_halo_v2_impl_new``), row-major bf16 output.

    ``out_shard`` is the output [rows, channels] per core, ``halo_shard`` the halo
    output [sticks, channels], ``reader_bytes`` one reader-indices row.  Two
    readers always (split reader), two pages per input CB.  Measured on the
    mock: the reader-indices CB is static and one config row when the config
    tensors are in DRAM (source: backed by the L1 config tensor).

    An avg pool whose divisor changes per output (padding without
    ``count_include_pad``, or ceil padding) adds a second scalar CB and a scalar
    config CB of one ``(start, value, end)`` uint16 triple per output row
    (measured: ttnn 0.81.1 keeps one triple per output, the stored source
    de-duplicates them), static when the config tensors are in DRAM.
    """
    f = _pool_factory(p, num_shards_c)
    tile = 2048
    in_cb_sz = (f.max_tiles if f.wide else f.in_ntiles_c) * TILE * f.num_tilized_rows
    if p.return_indices:
        in_cb_sz = f.max_tiles * TILE_HW  # "for return indices we use 1 whole tile per reduction"
    in_page = 2 * align_up(in_cb_sz, TILE_HW)
    out_page = min(FACE, out_shard[1]) * 2
    per_shard = p.channels // num_shards_c if p.channels % num_shards_c == 0 else None
    raw_page = (per_shard if per_shard is not None else halo_shard[1]) * 2
    cbs = [("in_scalar", tile, 2, False)]
    if not p.one_scalar_per_core:
        cbs.append(("in_scalar_1", tile, 2, False))
    cbs += [
        ("clear_value", tile, 1, False),
        ("raw_in", raw_page, halo_shard[0], True),
        ("reader_indices", reader_bytes, 1, not p.config_tensor_in_dram),
        ("in_0", in_page, 2, False),
        ("in_1", in_page, 2, False),
    ]
    if p.return_indices:
        # one tile each (bf16 data, uint16 indices): the stored source (@002a3f41) creates in_idx, pack_tmp,
        # pack_idx_tmp and the right / down-left-wrap / up-left-wrap increment tiles; ttnn 0.81.1 creates seven
        # 2,048 B CBs there (measured: g1/ttnn.max_pool2d_with_indices/*, measurements/opdiff/runs/halo.jsonl.gz)
        cbs += [(name, tile, 1, False) for name in ("in_idx_0", "in_idx_1", "pack_tmp", "pack_idx_tmp", "right_inc",
                                                     "down_left_wrap_inc", "up_left_wrap_inc")]
    cbs.append(("out", out_page, out_shard[0] * ceil_div(out_shard[1], FACE), True))
    if p.return_indices:
        cbs.append(("out_idx", out_page, out_shard[0] * ceil_div(out_shard[1], FACE), True))
    if not p.one_scalar_per_core:
        cbs.append(("scalar_config", 6 * out_shard[0], 1, not p.config_tensor_in_dram))
    return cbs


def _pool_l1_estimate(p: PoolParams, pc: Parallel) -> int:
    """``calculate_L1_usage`` (pool_utils.cpp): the auto-shard estimate of one sharding, per core.

    The output shard here is tile-rounded (``get_memconfig``); the config
    tensor term is ``6 B per output row + 2`` when it lives in DRAM.
    """
    nhw = p.window.out_nhw
    rows, ch = shard_shape(nhw, align_up(p.channels, pc.c_cores * TILE), pc, TILE)
    f = _pool_factory(p, pc.c_cores)
    in_cb_sz = f.max_tiles * TILE_HW if p.return_indices else (f.max_tiles if f.wide else f.in_ntiles_c) * TILE * f.num_tilized_rows
    in_cbs = 2 * 2 * (2 * align_up(in_cb_sz, TILE_HW))
    scalar = 2 * 2048 * (2 if p.kind == "avg" and not p.one_scalar_per_core else 1)
    out = align_up(rows * f.out_ntiles_c * min(FACE, ch) * 2, 64)
    config = (rows * 6 + 2) * (1 if p.one_scalar_per_core else 2) if p.config_tensor_in_dram else 0
    if p.return_indices:  # the index tiles and the indices output (as the pool program creates them)
        return scalar + 2048 + in_cbs + 2 * out + 7 * 2048 + config
    return scalar + 2048 + in_cbs + out + config


def pool_parallel(p: PoolParams, grid: tuple[int, int]) -> Parallel:
    """The pool's sharding: ``applied_shard_scheme``, else the smallest L1 estimate of height, width
    and block (``determine_pool_config_for_auto_shard``; ties keep height, then width)."""
    oh, ow = p.window.out_hw()

    def pc(scheme: str) -> Parallel:
        return parallel_config(scheme, p.batch, p.channels, oh, ow, p.channels, TILE, grid, "row_major", False,
                               False, p.input_layout == "tile")

    if p.applied_shard_scheme:
        return pc(p.applied_shard_scheme)
    h, w, b = pc("height"), pc("width"), pc("block")
    uh, uw, ub = (_pool_l1_estimate(p, x) for x in (h, w, b))
    if uh > uw:
        return b if uw > ub else w
    return b if uh > ub else h


@dataclass
class PoolPlan:
    """The pool's sharding, shards ([rows, channels] per core), halo sticks and CBs."""

    pc: Parallel
    input_shard: tuple[int, int]
    halo_sticks: int
    out_shard: tuple[int, int]
    cbs: list[tuple[str, int, int, bool]]


def plan_pool2d(p: PoolParams, arch: Arch, free_l1: int) -> PoolPlan:
    """What ttnn 0.81.1's pool builds: sharding, interleaved-to-sharded, halo, the pool program.

    Measured: the input shard is ``ceil(N*H*W / nhw_cores)`` rows (tile-rounded
    per core for a tile input), channels padded to 8 per channel core; the
    output shard ``ceil(N*OH*OW / nhw_cores)`` rows of the channels per core
    rounded up to 16 when at most 16, else to 32 (``C = 40`` -> 64, inferred
    from the output CB sizes).  A DRAM input that does not fit the free L1 in
    one pass would be DRAM-sliced; that is refused (the pool's slice estimate is
    not modeled, the check here is halo + CBs + output).

    Raises:
        CBModelError: inputs outside DRAM/L1, slicing.
    """
    if p.input_buffer not in ("dram", "l1"):
        raise CBModelError(f"pool input in {p.input_buffer} is not modeled")
    grid = grid_xy(arch)
    pc = pool_parallel(p, grid)
    nhw_in = p.batch * p.in_h * p.in_w
    # a TILE input keeps its tile-padded channels (the halo's sticks of 16 channels are 64 B, measured)
    ch = align_up(p.channels, pc.c_cores * (TILE if p.input_layout == "tile" else arch.l1_alignment // 2)) // pc.c_cores
    rows = (align_up(nhw_in, pc.nhw_cores * TILE) // pc.nhw_cores if p.input_layout == "tile"
            else ceil_div(nhw_in, pc.nhw_cores))
    input_shard = (rows, ch)
    halo = p.window.max_halo_sticks(pc.nhw_cores, False)
    per_core_c = p.channels / pc.c_cores
    out_c = FACE if per_core_c <= FACE else align_up(math.ceil(per_core_c), TILE)
    out_shard = (ceil_div(p.window.out_nhw, pc.nhw_cores), out_c)
    reader = 2 * p.window.reader_indices_entries(pc.nhw_cores, False, 0, 0, False)
    cbs = pool_cbs(p, pc.c_cores, out_shard, (halo, ch), reader)
    static = sum(pb * n for _, pb, n, g in cbs if not g)
    need = static + (halo + out_shard[0]) * ch * 2
    if p.input_buffer == "dram" and need > free_l1:
        raise CBModelError(f"pool needs about {need:,} B of L1 per core, more than the {free_l1:,} B free: ttnn "
                           "would DRAM-slice it (not modeled)")
    return PoolPlan(pc, input_shard, halo, out_shard, cbs)


def pool_program(p: PoolParams, arch: Arch, free_l1: int) -> ProgramModel:
    """The pool program's ProgramModel (``Pool2D::MultiCore``; the halo program before it: :func:`pool_programs`).

    ``l1_buffers_per_core``: the halo output the op holds in L1, plus the pool's
    output shard when the result is not an L1 tensor itself.

    Raises:
        CBModelError: see :func:`plan_pool2d`.
    """
    plan = plan_pool2d(p, arch, free_l1)
    cbs = [CB(i, name, page, pages, plan.pc.cores, glob) for i, (name, page, pages, glob) in enumerate(plan.cbs)]
    ch = plan.input_shard[1]
    notes = [
        f"{plan.pc.scheme} sharded on {plan.pc.num_cores} cores (nhw {plan.pc.nhw_cores} x c {plan.pc.c_cores}), "
        f"input shard {list(plan.input_shard)}, output shard {list(plan.out_shard)} (pool_utils.cpp "
        "determine_pool_config_for_auto_shard)",
        MEASURED + " for the CB lists this model was checked on",
    ]
    out_bytes = align_up(plan.out_shard[0] * plan.out_shard[1] * 2, 16)
    if p.memory_config is None or p.memory_config[0] == "l1":
        out_bytes = 0
    prog = ProgramModel("Pool2D::MultiCore", f"{SRC_POOL}; {SRC_SLIDING}", plan.pc.cores, cbs, notes,
                        l1_buffers_per_core=align_up(plan.halo_sticks * ch * 2, 16) + out_bytes)
    prog.params["pool"] = {"scheme": plan.pc.scheme, "cores": plan.pc.num_cores, "input_shard": plan.input_shard,
                           "halo_sticks": plan.halo_sticks, "out_shard": plan.out_shard}
    return prog


def pool_programs(p: PoolParams, arch: Arch, free_l1: int) -> list[ProgramModel]:
    """The pool's programs in order: the halo program (:func:`ttanalyze.ops.halo.halo_program`), then
    ``Pool2D::MultiCore`` (:func:`pool_program`).  The interleaved-to-sharded and sharded-to-interleaved
    programs around them are not listed.

    Raises:
        CBModelError: see :func:`plan_pool2d`; a halo that reads past the padded input.
    """
    plan = plan_pool2d(p, arch, free_l1)
    try:
        halo = halo_program(p.window, plan.pc.scheme, plan.pc.cores, plan.pc.nhw_cores,
                            plan.pc.orientation == "col_major", False, plan.input_shard, plan.halo_sticks,
                            p.input_layout, p.input_dtype, p.config_tensor_in_dram, arch.l1_alignment)
    except ValueError as exc:
        raise CBModelError(f"pool halo: {exc}") from None
    return [halo, pool_program(p, arch, free_l1)]


def pool_output_spec(p: PoolParams, arch: Arch, free_l1: int) -> TensorSpec:
    """What the pool returns: ``[1, 1, N*OH*OW, C]`` row-major bf16 in the requested memory config, or
    height/width/block sharded in L1 with the pool's output shard when none is given, its padded
    channels the shard width times the channel cores (measured: C = 40 -> padded 64, 24 -> 32, 8 -> 16).

    Raises:
        CBModelError: see :func:`plan_pool2d`.
    """
    plan = plan_pool2d(p, arch, free_l1)
    shape = (1, 1, p.window.out_nhw, p.channels)
    if p.memory_config is not None:
        return TensorSpec(shape, shape, "row_major", "bf16", p.memory_config[0], p.memory_config[1])
    padded = shape[:3] + (plan.out_shard[1] * plan.pc.c_cores,)
    return TensorSpec(shape, padded, "row_major", "bf16", "l1", f"{plan.pc.scheme}_sharded", plan.out_shard)


def pool_params(ctx: CBContext) -> PoolParams:
    """:class:`PoolParams` of a ``ttnn.max_pool2d``/``avg_pool2d`` op.

    The tt-mlir runtime passes the op's ``memory_config`` attribute; without one
    it asserts for device results, so the result's memory config is used (the
    IR of the fixtures carries none and ran).

    Raises:
        CBModelError: a host or sharded input.
    """
    op = ctx.op
    inp = operand(ctx, 0)
    if inp.sharded:
        raise CBModelError(f"{op.name} with an already {inp.memory_layout} input is not modeled")
    _rule_holds(op, pool2d)
    k, s, d = _spatial(op)
    pad = int_list(op, "padding")
    pad4 = (pad[0], pad[0], pad[1], pad[1]) if len(pad) == 2 else (pad[0], pad[2], pad[1], pad[3])
    mem = op.attrs.get("memory_config")
    if mem is not None and hasattr(mem, "buffer_type"):
        memory = (mem.buffer_type, mem.memory_layout)
    else:
        out = ctx.outputs[0] if ctx.outputs else None
        memory = (out.placement.buffer_type, out.placement.memory_layout) if out and out.placement else None
    scheme = _name(op.attrs.get("applied_shard_scheme"))
    return PoolParams(
        kind="avg" if op.name == "ttnn.avg_pool2d" else "max", return_indices=op.name == "ttnn.max_pool2d_with_indices",
        batch=int_attr(op, "batch_size"),
        in_h=int_attr(op, "input_height"), in_w=int_attr(op, "input_width"), channels=int_attr(op, "channels"),
        kernel=(k[0], k[1]), stride=(s[0], s[1]), padding=pad4, dilation=(d[0], d[1]),
        ceil_mode=bool(op.attrs.get("ceil_mode", False)),
        count_include_pad=bool(op.attrs.get("count_include_pad", True)),
        applied_shard_scheme=_SCHEMES.get(scheme, scheme) if scheme else None, input_dtype=str(inp.dtype),
        input_layout=inp.layout, input_buffer=inp.buffer_type,
        config_tensor_in_dram=bool(op.attrs.get("config_tensors_in_dram", False)), memory_config=memory)


@register_cb(("ttnn.max_pool2d", "ttnn.avg_pool2d", "ttnn.max_pool2d_with_indices"))
def pool2d_cb(ctx: CBContext) -> ProgramModel:
    """CB model of the 2D pools (see :func:`pool_programs`)."""
    return pool_programs(pool_params(ctx), ctx.arch, ctx.max_l1_space)


@register_spec(("ttnn.max_pool2d", "ttnn.avg_pool2d", "ttnn.max_pool2d_with_indices"))
def pool2d_spec(ctx: CBContext) -> list[TensorSpec]:
    """Device output of the 2D pools (see :func:`pool_output_spec`); ``max_pool2d_with_indices`` adds the
    indices, uint16 in the values' layout and memory config (measured)."""
    p = pool_params(ctx)
    values = pool_output_spec(p, ctx.arch, ctx.max_l1_space)
    if not p.return_indices:
        return [values]
    return [values, replace(values, dtype="u16")]


# ---------------------------------------------------------------------------
# conv3d (ttnn.experimental.conv3d)
# ---------------------------------------------------------------------------

# Blackhole's MEM_MAP_END: get_max_worker_l1_unreserved_size() = l1_size - 41,088 (measured on the mock,
# same dev_mem_map.h in ttnn 0.81.1 and the jax-tt-plugin's tt-metal: tt_metal/hw/inc/internal/tt-1xx/blackhole/dev_mem_map.h).
_MEM_MAP_END = {"blackhole": 41088}


@dataclass(frozen=True)
class Conv3dParams:
    """What ``ttnn.experimental.conv3d`` reads, as the tt-mlir runtime passes it
    (runtime/lib/ttnn/operations/conv/conv3d.cpp @19c86fca).

    ``blocks`` = (T_out_block, H_out_block, W_out_block, C_out_block,
    C_in_block) of ``Conv3dConfig`` (0 = the whole dim); ``grid`` the config's
    compute grid as (x, y); ``memory_config`` the requested output or None.
    """

    batch: int
    in_t: int
    in_h: int
    in_w: int
    in_c: int
    out_c: int
    kernel: tuple[int, int, int]
    stride: tuple[int, int, int]
    padding: tuple[int, int, int]
    dilation: tuple[int, int, int] = (1, 1, 1)
    blocks: tuple[int, int, int, int, int] = (1, 1, 1, 32, 0)
    grid: tuple[int, int] = (11, 10)
    has_bias: bool = True
    dtype: str = "bf16"
    fp32_dest_acc_en: bool = True
    memory_config: tuple[str, str | None] | None = ("dram", "interleaved")
    input_memory: tuple[str, str | None] = ("dram", "interleaved")

    def out_dims(self) -> tuple[int, int, int]:
        """(T_out, H_out, W_out) (``detail::compute_output_dims``, symmetric padding, dilation)."""
        return tuple(out_size(size, 2 * self.padding[i], self.kernel[i], self.stride[i], self.dilation[i])
                     for i, size in enumerate((self.in_t, self.in_h, self.in_w)))


def conv3d_validate(p: Conv3dParams, arch: Arch) -> None:
    """``Conv3dDeviceOperation::validate_on_program_cache_miss``'s checks of the blocking
    (``ttnn/cpp/ttnn/operations/experimental/conv3d/device/conv3d_device_operation.cpp``, newest stored version,
    store id 96644996; ttnn 0.81.1 checks ``C_out_block`` against the tile-padded ``C_out``, line 164, measured).

    * ``C_out_block`` (when set) a multiple of 32 dividing ``round_up(C_out, 32)``;
    * ``C_in_block`` (when set) dividing ``C_in`` and a multiple of the L1 alignment;
    * at most one ``C_in`` block per core of the config grid.

    Raises:
        DeviceRejection: a check fails (tt-metal's message).
    """
    _, _, _, co_b, ci_b = p.blocks
    padded_c_out = align_up(p.out_c, TILE)
    src = "conv3d_device_operation.cpp TT_FATAL"
    if co_b > 0 and (padded_c_out % co_b or co_b % TILE):
        raise DeviceRejection(f"C_out_block must be a multiple of {TILE} and divide evenly into padded output channels "
                              f"({padded_c_out}). Got C_out_block={co_b} and output_channels={p.out_c} ({src})")
    if ci_b > 0 and p.in_c % ci_b:
        raise DeviceRejection(f"Input channels ({p.in_c}) must be divisible by C_in_block ({ci_b}) ({src})")
    if ci_b > 0 and ci_b % arch.l1_alignment:
        raise DeviceRejection(f"C_in_block ({ci_b}) must be a multiple of {arch.l1_alignment} ({src})")
    blocks = p.in_c // (ci_b or p.in_c)
    cores = p.grid[0] * p.grid[1]
    if blocks > cores:
        raise DeviceRejection(f"Number of C_in blocks ({blocks}) must be <= the number of cores ({cores}) ({src})")


def conv3d_cbs(p: Conv3dParams, arch: Arch) -> list[tuple[str, int, int]]:
    """The conv3d program's CBs (``Conv3dProgramFactory::create``), ``[(name, page_bytes, pages)]``.

    vol2col: ``min(patches, 32)`` row-major patch pages; K_t tiles of the
    tilized patch row; ``K_t * N_t`` weight tiles; ``M_t * N_t`` partial and
    result tiles (fp32 partials with fp32 accumulation and several C_in blocks);
    a reduction CB and an ack tile with several C_in blocks; ``N_t`` bias tiles;
    and an L1 prefetch shard of the receptive field when it fits
    ``min(l1_unreserved - 200 KB - other CBs, 500 KB)``.  Measured, where ttnn
    0.81.1 differs from the stored source: no zero tile for fp32 reductions, at
    most 32 vol2col pages (source: 64), and ``C_in_block = 0`` means the
    smallest valid block, ``min(lcm(16, 32 / gcd(kT*kH*kW, 32)), C_in)`` (32 for
    a 3x3x3 kernel; the formula is tt-mlir's TTIRToTTNN default, which mirrors
    tt-metal's), not the whole ``C_in``.

    Raises:
        DeviceRejection: blocks tt-metal refuses (:func:`conv3d_validate`).
        CBModelError: a default C_in block that does not divide the channels,
            non-bf16 data, an arch without a known L1 map.
    """
    if p.dtype != "bf16":
        raise CBModelError(f"conv3d takes bf16 only, not {p.dtype}")
    if arch.name not in _MEM_MAP_END:
        raise CBModelError(f"conv3d L1 prefetch budget is not known for {arch.name}")
    t_b, h_b, w_b, co_b, ci_b = p.blocks
    padded_c_out = align_up(p.out_c, TILE)
    co_b = co_b or padded_c_out
    kvol = p.kernel[0] * p.kernel[1] * p.kernel[2]
    ci_b = ci_b or min(math.lcm(arch.l1_alignment, TILE // math.gcd(kvol, TILE)), p.in_c)
    conv3d_validate(p, arch)
    if p.in_c % ci_b or padded_c_out % co_b:
        raise CBModelError(f"conv3d blocks C_in {ci_b} / C_out {co_b} do not divide {p.in_c} / {padded_c_out}")
    kt, kh, kw = p.kernel
    patch = kt * kh * kw * ci_b
    patch_bytes = align_up(patch, TILE) * 2
    patches = t_b * h_b * w_b
    m_t, k_t, n_t = ceil_div(patches, TILE), ceil_div(patch, TILE), ceil_div(co_b, TILE)
    ci_blocks = p.in_c // ci_b
    partial = 4096 if p.fp32_dest_acc_en and ci_blocks > 1 else 2048
    cbs = [("vol2col_rm", patch_bytes, min(patches, TILE)), ("vol2col_tiled", 2048, k_t),
           ("weights", 2048, k_t * n_t), ("matmul_interm", partial, m_t * n_t), ("matmul_result_rm", 2048, m_t * n_t)]
    if ci_blocks > 1:
        cbs += [("reduction", partial, m_t * n_t), ("worker_ack", 2048, 1)]
    if p.has_bias:
        cbs.append(("bias", 2048, n_t))
    if max(p.kernel) > 1 and p.dilation == (1, 1, 1):
        positions = (((t_b - 1) * p.stride[0] + kt) * ((h_b - 1) * p.stride[1] + kh)
                     * ((w_b - 1) * p.stride[2] + kw))
        usable = arch.l1_size - _MEM_MAP_END[arch.name] - 200 * 1024
        other = sum(page * n for _, page, n in cbs)
        budget = min(usable - other, 500 * 1024) if other < usable else 0
        if positions * ci_b * 2 <= budget:
            cbs.append(("input_shard", ci_b * 2, positions))
    return [cb for cb in cbs if cb[2] > 0]


def conv3d_program(p: Conv3dParams, arch: Arch) -> ProgramModel:
    """The conv3d's ProgramModel: every CB on every core of the config grid.

    Raises:
        CBModelError: see :func:`conv3d_cbs`; a grid larger than the device's.
    """
    gx, gy = p.grid
    dx, dy = grid_xy(arch)
    if gx > dx or gy > dy:
        raise CBModelError(f"conv3d grid {gx}x{gy} exceeds the device grid {dx}x{dy} "
                           "(tt-metal: 'Requested grid size exceeds device grid size')")
    cores = full_grid((gx, gy))
    cbs = [CB(i, name, page, pages, cores) for i, (name, page, pages) in enumerate(conv3d_cbs(p, arch))]
    return ProgramModel("Conv3dProgramFactory", SRC_CONV3D, cores, cbs,
                        [f"blocks T/H/W/Cout/Cin = {p.blocks}, grid {gx}x{gy}", MEASURED])


def conv3d_output_spec(p: Conv3dParams) -> TensorSpec:
    """What ``ttnn.experimental.conv3d`` returns: ``[N, T_out, H_out, W_out, C_out]`` ROW_MAJOR in the requested
    memory config (the input's when none), the last dim padded to 32 (measured: C_out 3 -> padded 32, a row-major
    tensor whose pages are 64 B, not 6 B); ``Conv3dConfig.output_layout`` is ignored (measured)."""
    t, h, w = p.out_dims()
    shape = (p.batch, t, h, w, p.out_c)
    padded = shape[:-1] + (align_up(p.out_c, TILE),)
    mem = p.memory_config or p.input_memory
    return TensorSpec(shape, padded, "row_major", p.dtype, mem[0], mem[1])


def conv3d_params(ctx: CBContext) -> Conv3dParams:
    """:class:`Conv3dParams` of a ``ttnn.conv3d`` op.

    The runtime fills unset config fields with tt-metal's struct defaults
    (blocks 1, C_out_block 0, C_in_block 0) and the grid with the device's;
    the compute config defaults to fp32 accumulation.

    Raises:
        CBModelError: no conv3d_config (ttnn's own default blocking is not modeled), a host input.
    """
    op = ctx.op
    inp = operand(ctx, 0)
    cfg = op.attrs.get("conv3d_config")
    if not isinstance(cfg, StructAttr):
        raise CBModelError("conv3d without a conv3d_config uses ttnn's default blocking: not modeled")
    _rule_holds(op, conv3d)
    k, s, d = _spatial(op, rank=3)
    pad = int_list(op, "padding")
    cc = op.attrs.get("compute_config")
    fp32 = bool(getattr(cc, "fp32_dest_acc_en", None)) if cc is not None else True
    out = ctx.outputs[0] if ctx.outputs else None
    mem = (out.placement.buffer_type, out.placement.memory_layout) if out and out.placement else None
    blocks = tuple(int(cfg.get(key, default) or default) for key, default in
                   (("t_out_block", 1), ("h_out_block", 1), ("w_out_block", 1), ("c_out_block", 0), ("c_in_block", 0)))
    return Conv3dParams(
        batch=int_attr(op, "batch_size"), in_t=int_attr(op, "input_depth"), in_h=int_attr(op, "input_height"),
        in_w=int_attr(op, "input_width"), in_c=int_attr(op, "in_channels"), out_c=int_attr(op, "out_channels"),
        kernel=(k[0], k[1], k[2]), stride=(s[0], s[1], s[2]), padding=(pad[0], pad[1], pad[2]),
        dilation=(d[0], d[1], d[2]), blocks=blocks, grid=grid_xy(ctx.arch),
        has_bias=len(op.operands) > 2 and op.operands[2].is_tensor, dtype=str(inp.dtype), fp32_dest_acc_en=fp32,
        memory_config=mem, input_memory=(inp.buffer_type, inp.memory_layout))


@register_cb("ttnn.conv3d")
def conv3d_cb(ctx: CBContext) -> ProgramModel:
    """CB model of ``ttnn.conv3d`` (see :func:`conv3d_program`)."""
    return conv3d_program(conv3d_params(ctx), ctx.arch)


@register_spec("ttnn.conv3d")
def conv3d_spec(ctx: CBContext) -> list[TensorSpec]:
    """Device output of ``ttnn.conv3d`` (see :func:`conv3d_output_spec`)."""
    return [conv3d_output_spec(conv3d_params(ctx))]


# ---------------------------------------------------------------------------
# upsample
# ---------------------------------------------------------------------------


def upsample_program(shape: tuple[int, ...], layout: str, dtype: str, mode: str, sharded: bool,
                     arch: Arch) -> ProgramModel:
    """``UpsampleMultiCoreInterleavedProgramFactory`` for an interleaved input ``[N, H, W, C]``.

    Row-major: one CB of ``round_up(C * elem, dram_alignment)`` pages, double
    buffered when a core gets more than one stick.  Tile: an input and an
    output CB of one tile row each (doubled likewise), on the cores that get a
    tile row.  Work is split column-major over the grid.

    Raises:
        CBModelError: a mode other than nearest (:func:`upsample_bilinear_programs`) or a sharded input.
    """
    if mode != "nearest":
        raise CBModelError(f"upsample mode {mode!r} is not the interleaved nearest factory")
    if sharded:
        raise CBModelError("upsample of a sharded input is not modeled")
    grid = grid_xy(arch)
    if layout == "tile":
        width_tiles = ceil_div(shape[-1], TILE)
        units = math.prod(shape[:-2]) * ceil_div(shape[-2], TILE)
        split = split_work_to_cores(grid, units)
        cores, per_core = split.all_cores, split.units_per_core_group_1
        pages = width_tiles * (2 if per_core != 1 else 1)
        t = tile_bytes(dtype)
        cbs = [CB(0, "in", t, pages, cores), CB(1, "out", t, pages, cores)]
    else:
        elem = {"bf16": 2, "f32": 4}.get(dtype)
        if elem is None:
            raise CBModelError(f"row-major upsample of {dtype} is not modeled")
        units = math.prod(shape[:-1])
        split = split_work_to_cores(grid, units)
        cores, per_core = split.all_cores, split.units_per_core_group_1
        cbs = [CB(0, "in_out", align_up(shape[-1] * elem, arch.dram_alignment), 2 if per_core != 1 else 1, cores)]
    return ProgramModel("UpsampleMultiCoreInterleavedProgramFactory", SRC_UPSAMPLE, cores, cbs, [MEASURED])


SRC_BILINEAR = (f"{_METAL}/pool/upsample/upsample.cpp (compute_bilinear_autoshard_memory_config, "
                "apply_bilinear_halo_preprocessing) and device/upsample_bilinear_program_factory_multicore.cpp")


def upsample_bilinear_programs(shape: tuple[int, ...], layout: str, dtype: str, sharded: bool,
                               scale: tuple[int, int], arch: Arch) -> list[ProgramModel]:
    """Bilinear ``ttnn.upsample`` of an interleaved ``[N, H, W, C]`` input: the halo program, then
    ``UpsampleBilinearProgramFactory`` (interleaved-to-sharded before and the move of the result after
    are not listed).

    The input is height sharded on ``min(grid cores, N*H*W)`` cores, ``ceil(N*H*W / cores)`` sticks each
    (``compute_bilinear_autoshard_memory_config``); the halo (:class:`BilinearWindow`, config tensors
    in L1) runs; then the bilinear program's CBs: the halo output and the output shard (globally
    allocated; the output shard taken as ``shard * scale_h * scale_w`` sticks), two tilize-reduce CBs of
    8 pages (``min(8 tiles of width, stick)`` and one stick: 4 pixels, double buffered) and two scalar
    CBs of 2 tiles.  Measured on the mock: ``g1/ttnn.upsample/*/bilinear`` of the opdiff campaign.

    Raises:
        DeviceRejection: channels not a multiple of 32 (the factory's TT_FATAL, after the halo ran).
        CBModelError: a sharded or TILE input, a data type other than bf16.
    """
    if sharded:
        raise CBModelError("bilinear upsample of a sharded input is not modeled")
    if layout != "row_major" or dtype != "bf16":
        raise CBModelError(f"bilinear upsample of a {layout} {dtype} input is not modeled (measured: row-major bf16)")
    n, h, w, c = shape
    gx, gy = grid_xy(arch)
    nhw = n * h * w
    ncores = min(gx * gy, nhw)
    shard = ceil_div(nhw, ncores)
    cores = num_cores_to_corerangeset(ncores, (gx, gy), True)
    window = BilinearWindow(n, h, w, scale[0], scale[1])
    halo_sticks = window.max_halo_sticks(ncores, False)
    try:
        halo = halo_program(window, "height", cores, ncores, False, False, (shard, c), halo_sticks, "row_major",
                            dtype, False, arch.l1_alignment)
    except ValueError as exc:
        raise CBModelError(f"bilinear upsample halo: {exc}") from None
    if c % TILE:
        raise DeviceRejection(f"TT_FATAL in upsample_bilinear_program_factory_multicore.cpp: in_channels % 32 == 0: "
                              f"input channels should be divisible by 32 (C = {c})")
    elem = 2
    stick = c * elem
    out_sticks = shard * scale[0] * scale[1]
    specs = [("halo_in", stick, halo_sticks, True), ("tilize_reduce_0", min(TILE * elem * 8, stick), 8, False),
             ("tilize_reduce_1", stick, 8, False), ("in_scalar_0", tile_bytes(dtype), 2, False),
             ("in_scalar_1", tile_bytes(dtype), 2, False), ("out", TILE * elem, out_sticks * ceil_div(c, TILE), True)]
    cbs = [CB(i, name, page, pages, cores, glob) for i, (name, page, pages, glob) in enumerate(specs)]
    notes = [f"height sharded on {ncores} cores, {shard} input sticks each; halo {halo_sticks} sticks per core"]
    prog = ProgramModel("UpsampleBilinearProgramFactory", SRC_BILINEAR, cores, cbs, notes,
                        l1_buffers_per_core=align_up(halo_sticks * stick, 16) + align_up(out_sticks * stick, 16))
    return [halo, prog]


@register_cb("ttnn.upsample")
def upsample_cb(ctx: CBContext) -> ProgramModel | list[ProgramModel]:
    """CB model of ``ttnn.upsample`` (see :func:`upsample_program`, :func:`upsample_bilinear_programs`)."""
    inp = operand(ctx, 0)
    mode = str(ctx.op.attrs.get("mode", "nearest"))
    if mode == "bilinear":
        return upsample_bilinear_programs(inp.shape, inp.layout, str(inp.dtype), inp.sharded,
                                          upsample_scale(ctx.op), ctx.arch)
    return upsample_program(inp.shape, inp.layout, str(inp.dtype), mode, inp.sharded, ctx.arch)


@register_spec("ttnn.upsample")
def upsample_spec(ctx: CBContext) -> list[TensorSpec]:
    """Device output of ``ttnn.upsample``: ``[N, H*sh, W*sw, C]`` ROW_MAJOR whatever the input layout
    (measured: a tile input comes back row-major), in the memory config the runtime passes (the op's,
    else the result's, else the input's)."""
    inp = ctx.input(0)
    sh, sw = upsample_scale(ctx.op)
    n, h, w, c = inp.logical_shape
    shape = (n, h * sh, w * sw, c)
    mem = ctx.op.attrs.get("memory_config")
    out = ctx.outputs[0] if ctx.outputs else None
    if mem is not None and hasattr(mem, "buffer_type"):
        where = (mem.buffer_type, mem.memory_layout)
    elif out is not None and out.placement is not None:
        where = (out.placement.buffer_type, out.placement.memory_layout)
    else:
        where = (inp.placement.buffer_type, inp.placement.memory_layout) if inp.placement else ("dram", "interleaved")
    return [TensorSpec(shape, shape, "row_major", str(inp.dtype), where[0], where[1])]
