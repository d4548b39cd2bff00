"""A device operation as the cost model sees it: the level of tt-metal's device profiler.

One TTNN IR op runs zero or more device operations (a matmul, a tilize, a halo
plus a conv...).  The profiler's ``ops_perf_results`` CSV has one row per
device operation, and the cost model predicts each row; the IR path
(:mod:`ttanalyze.cost.ir`) builds the same :class:`DeviceOp` records from the
programs the analyzer models, and the profile path
(:mod:`ttanalyze.cost.profile`) from the CSV's static columns.  Both feed one
model (:mod:`ttanalyze.cost.model`).

``op_code`` is the profiler's ``OP CODE`` (tt-metal's device operation name:
``Matmul``, ``MinimalMatmulOp``, ``BinaryNgDeviceOperation``,
``UnaryDeviceOperation``, ``TilizeWithValPaddingDeviceOperation``,
``Conv2dDeviceOperation``, ``HaloDeviceOperation``, ``Pool2D``...).

``attrs`` keys, all optional, the same whichever path built the record:

* ``program_config``: matmul program config, ``{"kind": "mcast_1d" | "mcast_2d" |
  "reuse" | "dram_sharded" | "multicore" | "minimal", "in0_block_w",
  "out_subblock_h", "out_subblock_w", "per_core_m", "per_core_n",
  "grid": (x, y), "fuse_batch": bool}`` (tiles); MinimalMatmul's config adds
  ``"k_block"`` (its ``K_block_size``); absent when ttnn chooses it at run time;
* ``packer_l1_acc``: bool, the compute config's packer L1 accumulation;
* ``transpose_a`` / ``transpose_b``: bool;
* ``unary_ops``: the unary op names the op applies (``["exp"]``, ``["erf"]``,
  a binary's fused activations);
* ``binary_op``: ``add`` / ``multiply`` / ...; ``scalar``: True when the second
  operand is a scalar;
* ``window``: (kh, kw); ``padding``: (top, bottom, left, right); ``dilation``:
  (dh, dw); ``input_hw``: (h, w); ``channels_in``; ``groups``: conv and pool
  geometry;
* ``act_block_h`` / ``act_block_w``: conv blocking in tiles;
  ``per_core_out_h`` / ``per_core_out_w``: conv output block per core in tiles
  (``per_core_out_matrix_height/width_ntile``); ``num_cores_nhw``: conv / pool
  / halo core split over N*H*W;
* ``in_sticks_per_core`` / ``out_sticks_per_core``: halo input sticks per core
  and output sticks per core (``in_nsticks_per_core``,
  ``max_out_nsticks_per_core``);
* ``dim``: the reduced / transposed / concatenated dim; for transposes and
  reductions tt-metal's ``TransposeOpDim`` / ``ReduceOpDim`` in lower case
  (``wh``, ``hc``, ``cn``; ``w``, ``h``, ``hw``); ``perm``: permutation;
* ``norm``: ``layer`` / ``rms``; ``scale``: upsample factors (sh, sw);
* ``num_groups``: GroupNorm groups; ``use_welford``: GroupNorm's Welford kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any

# Bytes per element; block-float types by tile (bfp8 1,088 B and bfp4 576 B per 1,024-element tile),
# tt-metal tile_size / tt-mlir TileType::getSizeBytes.
# bfp_f8 / bfp_f4 share the block-float tile layouts of bfp_bf8 / bfp_bf4.  A dtype not listed is
# costed at DEFAULT_ELEMENT_BYTES, and the estimate says so (``Estimate.notes``).
ELEMENT_BYTES = {"bf16": 2.0, "f16": 2.0, "f32": 4.0, "u32": 4.0, "si32": 4.0, "u16": 2.0, "u8": 1.0,
                 "bfp_bf8": 1088 / 1024, "bfp_bf4": 576 / 1024, "bfp_f8": 1088 / 1024, "bfp_f4": 576 / 1024}
DEFAULT_ELEMENT_BYTES = 2.0
TILE = 32
# Largest core count a device op may claim (a sanity bound: the largest grids have a few hundred cores).
MAX_CORES = 100_000


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of a device op.

    Attributes:
        shape: logical shape (elements).
        padded: padded shape (tile-padded for ``tile`` layout), elements.
        dtype: tt DataType name (``bf16``, ``bfp_bf8``, ``f32``, ``u32``...).
        layout: ``tile`` or ``row_major``.
        buffer_type: ``dram`` or ``l1``.
        memory_layout: ``interleaved``, ``height_sharded``, ``width_sharded`` or
            ``block_sharded``.
        shard_shape: (height, width) of one shard, elements, when sharded and known.
        shard_cores: cores holding shards, when sharded and known.
    """

    shape: tuple[int, ...]
    padded: tuple[int, ...]
    dtype: str
    layout: str
    buffer_type: str
    memory_layout: str = "interleaved"
    shard_shape: tuple[int, int] | None = None
    shard_cores: int | None = None

    @property
    def elements(self) -> int:
        """Padded elements."""
        return prod(self.padded) if self.padded else 1

    @property
    def bytes(self) -> float:
        """Physical bytes: padded elements times bytes per element (block-float counted per tile)."""
        return self.elements * ELEMENT_BYTES.get(self.dtype, DEFAULT_ELEMENT_BYTES)

    @property
    def tiles(self) -> int:
        """32x32 tiles of the padded shape (of its tile-padded shape for row-major tensors)."""
        h = self.padded[-2] if len(self.padded) >= 2 else 1
        w = self.padded[-1] if self.padded else 1
        batch = prod(self.padded[:-2]) if len(self.padded) > 2 else 1
        return batch * -(-h // TILE) * -(-w // TILE)

    @property
    def rows(self) -> int:
        """Rows of the padded 2D view (``prod(padded[:-1])``): row-major pages ("sticks")."""
        return prod(self.padded[:-1]) if len(self.padded) > 1 else 1

    @property
    def in_dram(self) -> bool:
        """Whether the tensor lives in DRAM (else L1)."""
        return self.buffer_type == "dram"

    @property
    def sharded(self) -> bool:
        """Whether the tensor is sharded (any memory layout but ``interleaved``)."""
        return self.memory_layout != "interleaved"


@dataclass(frozen=True)
class DeviceOp:
    """One device operation (see module docstring).

    Attributes:
        op_code: the profiler's OP CODE.
        arch: ``wormhole_b0`` or ``blackhole``.
        cores: worker cores the op runs on.
        grid_cores: worker cores available on the device.
        inputs / outputs: its tensors (a preallocated output listed as an input
            in the profiler is not repeated).
        math_fidelity: ``LoFi`` / ``HiFi2`` / ``HiFi3`` / ``HiFi4``, or None.
        fp32_dest_acc: fp32 accumulation in the destination registers, or None.
        attrs: op-specific parameters (module docstring).
        where: where it came from (``file:line`` of the IR op, or the CSV row).
    """

    op_code: str
    arch: str
    cores: int
    grid_cores: int
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    math_fidelity: str | None = None
    fp32_dest_acc: bool | None = None
    attrs: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    where: str = ""


@dataclass(frozen=True)
class Estimate:
    """The model's prediction for one device op.

    Attributes:
        ns: predicted device kernel duration, nanoseconds.
        bound: what bounds it: ``DRAM``, ``NoC``, ``compute``, ``per-core``
            (per-tile or per-row work on the busiest core), ``overhead``
            (fixed launch and setup cost dominates), with `` (few cores)``
            appended when the op uses under a quarter of the grid.
        terms: the model's terms in ns (``overhead``, ``dram``, ``noc``,
            ``compute``, ``per_core``), whose combination is ``ns``.
        dram_bytes: bytes read from and written to DRAM.
        flops: floating-point operations (matmul/conv: 2 per multiply-add).
        cores: cores used.
        notes: the assumptions the model made where the op did not say
            (an unknown dtype's bytes, an unknown unary op's SFPU cost, a
            default math fidelity...); empty when it made none.
    """

    ns: float
    bound: str
    terms: dict[str, float]
    dram_bytes: float
    flops: float
    cores: int
    notes: tuple[str, ...] = ()
