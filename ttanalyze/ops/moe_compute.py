"""Program models of the fused MoE expert ops ``moe_gpt`` and ``moe_compute``.

``moe_gpt``: tt-mlir's runtime calls ``ttnn::experimental::moe_gpt(input, expert_indices, expert_scores,
expert_mapping, w0_w1, w2, output_height_shard_dim, output_width_shard_dim, hidden_size, cluster_axis)`` and binds
its five results (``runtime/lib/ttnn/operations/ccl/moe_gpt.cpp`` @19c86fca).  ttnn 0.81.1 (tt-metal d80d9482)
builds one program per device (``MoEGPTMeshWorkloadFactory``; source read at tt-metal 00cc8384
``ttnn/cpp/ttnn/operations/experimental/ccl/moe_gpt/device/moe_gpt_{device_operation,program_factory}.cpp``, the
version the stored history holds nearest d80d9482, and checked against the mock: the one difference, the expert
activation CB's ``T + 1`` rows, follows the measurement) on four core groups:

* the matmul ring: one worker per DRAM bank (``get_optimal_dram_bank_to_logical_worker_assignment(NOC_0)``, known
  for the Blackhole P150 only, :data:`P150_DRAM_WORKERS`);
* two tilize cores: the first two non-ring cores scanning rows from the bottom-right corner;
* the combine rectangle (``output_width_shard_dim`` x ``output_height_shard_dim`` cores): the first one, scanning
  rows from (0, 0), that holds no ring core; its one CB is backed by the tilize output tensor;
* the activation CB ``c_16`` on the tilize cores and the ring together.

The tilize output (result 3, L1 HEIGHT_SHARDED over the whole worker grid, 64 rows of ``hidden_size`` per core) and
result 4 are one buffer (``create_output_tensors`` re-perceives it as row major): :func:`aliased_result`.

``moe_compute``: tt-mlir's runtime calls ``ttnn::experimental::moe_compute(..., layer_id, output_height_shard_dim,
intermediate_size, has_bias, cluster_axis, topology, num_links, mux_core_range_set, nullopt, combine_output,
combine_semaphore, activation, compute_only=false)`` with the output buffer and semaphore bound in the prelude
(``ttnn.empty``, ``allocate_moe_compute_semaphore``), exposes slot 5 and frees the other five
(``runtime/lib/ttnn/operations/ccl/moe_compute.cpp`` @19c86fca).  Modeled on the path a mesh axis of extent 1
takes (ttnn's local output: no combine kernels, the ring writes the ``[k, T, H]`` rows), which is what a 1x1 mesh
runs: :func:`moe_compute_program`; the fused combine over the fabric (extent > 1) is reported unmodeled.
"""

from __future__ import annotations

from ..ir.attrs import CoreRangeSet, DataType
from ..ir.model import Op
from ..mesh import op_mesh
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .ccl_programs import aligned, core_set
from .registry import ShapeError, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import MemCfg, Shard, Tensor, operand

_DIR = "tt-metal ttnn/cpp/ttnn/operations/experimental/ccl/moe_gpt/device/"
GPT_SOURCE = (f"{_DIR}moe_gpt_program_factory.cpp, moe_gpt_device_operation.cpp @00cc8384 (nearest stored to "
              "ttnn 0.81.1's d80d9482); measured on the mock P150: measurements/moe_compute/results.jsonl")

# get_optimal_dram_bank_to_logical_worker_assignment(NOC_0) on the P150, bank order, (x, y): measured on the mock
# (measurements/moe_compute/results.jsonl, first line); the same table the DRAM-sharded matmul uses.
P150_DRAM_WORKERS = ((0, 9), (0, 0), (0, 7), (0, 3), (6, 9), (6, 1), (6, 6), (6, 4))
TILIZE_CORES = 2  # moe_gpt_program_factory.cpp TILIZE_NUM_CORES
TOKENS_PER_CHUNK = 32  # tokens_per_chunk
W_BLOCK_WIDTH = 4 * 32  # the weights' dim 5: 4 * TILE_SIZE
BFP4_TILE = 576  # tt::tile_size(Bfp4_b): c_0 holds Bfp4_b tiles whatever the weights' dtype
BF16_TILE = 2048
U32 = DataType("u32")


@register("ttnn.moe_gpt", "moe", ("output_height_shard_dim", "output_width_shard_dim", "hidden_size", "cluster_axis"),
          "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca MoeGptOp::verify")
def moe_gpt_shape(op: Op):
    """``MoeGptOp::verify``: rank-6 weights with dim 5 = 128 and the same dims 0 (ring cores) and 2 (experts per
    device), indices and scores of rank >= 2; the results keep their declared types (checked against what ttnn
    returns by :func:`moe_gpt_spec`).

    Raises:
        ShapeError: the verifier's errors, in its words.
    """
    w01, w2 = tensor_shape(op, 4), tensor_shape(op, 5)
    for shape, what in ((w01, "w0_w1_tensor"), (w2, "w2_tensor")):
        if len(shape) != 6:
            raise ShapeError(f"{op.name}: {what} must be a rank 6 tensor")
    for shape, what in ((w01, "w0_w1_tensor"), (w2, "w2_tensor")):
        if shape[5] != W_BLOCK_WIDTH:
            raise ShapeError(f"{op.name}: {what} dim[5] must be 128 (4*TILE_SIZE)")
    if w01[0] != w2[0]:
        raise ShapeError(f"{op.name}: w0_w1_tensor and w2_tensor must have same dim[0] (num_cores)")
    if w01[2] != w2[2]:
        raise ShapeError(f"{op.name}: w0_w1_tensor and w2_tensor must have same dim[2] (experts_per_device)")
    for i, what in ((1, "expert_indices"), (2, "expert_scores")):
        if len(tensor_shape(op, i)) < 2:
            raise ShapeError(f"{op.name}: {what} must have rank >= 2")
    return None


def ring_cores(ctx: CBContext) -> list[tuple[int, int]]:
    """The matmul ring: one worker core per DRAM bank, in bank order.

    Raises:
        CBModelError: a device other than the Blackhole P150 (8 DRAM banks, 11x10 grid), whose table is unknown.
    """
    if ctx.arch.name != "blackhole" or ctx.arch.num_dram_channels != len(P150_DRAM_WORKERS) or ctx.grid != (11, 10):
        raise CBModelError(f"{ctx.op.name}: the DRAM-bank worker cores (the matmul ring) are only known for the "
                           "Blackhole P150 (measured there)")
    return list(P150_DRAM_WORKERS)


def aliased_result(op: Op, k: int) -> int | None:
    """The earlier result whose buffer result ``k`` of ``op`` is: ``moe_gpt``'s result 4 (``tilize_out_rm``) is
    result 3 re-perceived as row major (``MoEGPTDeviceOperation::create_output_tensors``); None otherwise."""
    if op.name == "ttnn.moe_gpt" and k == 4 and len(op.results) == 5:
        return 3
    return None


def _u32(op: Op, name: str, default: int) -> int:
    v = op.attrs.get(name, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise CBModelError(f"{op.name}: attribute {name} is not an integer")
    return v


def _gpt_tensors(ctx: CBContext):
    """The six operands, checked as ``MoEGPTDeviceOperation::validate_on_program_cache_miss`` (ttnn 0.81.1).

    Raises:
        DeviceRejection: its TT_FATALs (ranks, the weights' dim 0 against the ring, dim 5, experts, the indices
            and scores not L1 HEIGHT_SHARDED).
        CBModelError: no known ring (:func:`ring_cores`).
    """
    op = ctx.op
    x, idx, scores, mapping, w01, w2 = (operand(ctx, i) for i in range(6))
    ring = ring_cores(ctx)
    n = len(ring)
    fatal = "moe_gpt: TT_FATAL "
    if w01.rank != 6:
        raise DeviceRejection(f"{fatal}w0_w1_tensor must have rank 6 (num_cores, L, E, groups_per_core, K, "
                              f"4*TILE_SIZE), got rank {w01.rank}")
    if w01.shape[0] != n:
        raise DeviceRejection(f"{fatal}w0_w1_tensor dim 0 must equal the number of DRAM-bank-aligned matmul cores "
                              f"({n}), got {w01.shape[0]}")
    e = w01.shape[2]
    if e < 1:
        raise DeviceRejection(f"{fatal}w0_w1_tensor dim 2 (experts_per_device) must be >= 1, got {e}")
    if w01.shape[5] != W_BLOCK_WIDTH:
        raise DeviceRejection(f"{fatal}w0_w1_tensor dim 5 must be 4*TILE_SIZE (128), got {w01.shape[5]}")
    if w2.rank != 6:
        raise DeviceRejection(f"{fatal}w2_tensor must have rank 6 (num_cores, L, E, 2, N, 4*TILE_SIZE), got rank "
                              f"{w2.rank}")
    if w2.shape[0] != n:
        raise DeviceRejection(f"{fatal}w2_tensor dim 0 must equal the number of DRAM-bank-aligned matmul cores ({n}), "
                              f"got {w2.shape[0]}")
    if w2.shape[2] != e:
        raise DeviceRejection(f"{fatal}w2_tensor dim 2 (experts_per_device) must match w0_w1_tensor ({e}), got "
                              f"{w2.shape[2]}")
    if w2.shape[5] != W_BLOCK_WIDTH:
        raise DeviceRejection(f"{fatal}w2_tensor dim 5 must be 4*TILE_SIZE (128), got {w2.shape[5]}")
    if x.rank < 2:
        raise DeviceRejection(f"{fatal}input_tensor (sparse buffer) must be at least rank 2, got {x.rank}")
    if mapping.shape[-1] < e:
        raise DeviceRejection(f"{fatal}expert_mapping last dim (experts_total={mapping.shape[-1]}) must be >= "
                              f"experts_per_device ({e})")
    if idx.rank < 2:
        raise DeviceRejection(f"{fatal}expert_indices must be at least rank 2, got {idx.rank}")
    for t, what in ((idx, "expert_indices"), (scores, "expert_scores")):
        if not (t.l1 and t.memory_layout == "height_sharded"):
            raise DeviceRejection(f"{fatal}{what} must be HEIGHT_SHARDED L1 (produced by "
                                  "all_to_all_dispatch_metadata)")
    return x, idx, scores, mapping, w01, w2, ring, e


def _combine_rect(ctx: CBContext, ring: list[tuple[int, int]], w: int, h: int) -> tuple[int, int]:
    """The combine rectangle's origin: the first ``w x h`` rectangle, rows from y = 0 and x = 0, holding no ring core.

    Raises:
        DeviceRejection: none fits (the factory's TT_FATAL).
    """
    gx, gy = ctx.grid
    taken = set(ring)
    for sy in range(0, gy - h + 1):
        for sx in range(0, gx - w + 1):
            if not any((sx + dx, sy + dy) in taken for dy in range(h) for dx in range(w)):
                return sx, sy
    raise DeviceRejection(f"moe_gpt: TT_FATAL Could not find a {w}x{h} combine core range that avoids matmul cores")


def _tilize_cores(ctx: CBContext, ring: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The two tilize cores: non-ring cores scanning rows from the bottom-right corner (y, then x, descending)."""
    gx, gy = ctx.grid
    taken = set(ring)
    out = [(x, y) for y in range(gy - 1, -1, -1) for x in range(gx - 1, -1, -1) if (x, y) not in taken]
    return out[:TILIZE_CORES]


def _pages(t: Tensor) -> int:
    """``buffer()->num_pages()`` of a row-major tensor: its rows."""
    return t.physical_volume // t.width if t.width else 0


def _aligned_page(t: Tensor) -> int:
    """``buffer()->aligned_page_size()`` of a row-major tensor: one row aligned to its buffer's alignment."""
    return aligned(t.width * t.element_bytes, t.alignment)


def moe_gpt_program(ctx: CBContext) -> ProgramModel:
    """``MoEGPTMeshWorkloadFactory`` on each device (ttnn 0.81.1).

    With ``T`` the input's dim 0 (tokens), ``K`` its last dim, ``E`` the experts per device (w0_w1 dim 2), ``H`` the
    ``hidden_size`` attribute, ``l1a`` the L1 alignment (16 B), per core group (bytes):

    * ring (one core per DRAM bank): ``c_0`` 84 Bfp4_b tiles (48,384); ``c_2``, ``c_3`` 4; ``c_4`` 48 bf16 tiles;
      ``c_5`` 2 x 16; ``c_6`` one bf16 tile; ``c_14`` ``32 * E`` rows of 512;
    * tilize (2 cores): ``c_1`` ``align(4E, l1a)``; ``c_2`` 4; ``c_6`` ``E`` pages of ``(T + 1) * l1a``; ``c_3`` /
      ``c_5`` / ``c_4`` the indices', scores' and mapping's pages (aligned rows); ``c_7`` 32 pages of the
      sub-token ``align(ceil(P / 2), l1a)`` (``P`` the input's aligned row, one sub-token per core);
      ``c_8`` ``T + 1`` rows of ``align((2E + 1) * 4, l1a)``; ``c_19`` ``(T / 2) * l1a * E``; ``c_10`` ``4E``;
      ``c_11`` ``T / 2`` rows of ``align((2E + 1) * 4, l1a)``; ``c_12`` 4; ``c_13`` ``align((E + 1) * 4, l1a)``;
    * tilize and ring: ``c_16`` ``2 * K / 32`` tiles of the input's dtype;
    * combine rectangle: ``c_0`` the tilize output's shard, ``2 * ceil(H / 32)`` bf16 tiles (backed by result 3).

    Raises:
        DeviceRejection: see :func:`_gpt_tensors`, :func:`_combine_rect`.
        CBModelError: no known ring, a non-row-major input, indices, scores or mapping.
    """
    op = ctx.op
    x, idx, scores, mapping, w01, w2, ring, e = _gpt_tensors(ctx)
    for t, what in ((x, "input"), (idx, "expert_indices"), (scores, "expert_scores"), (mapping, "expert_mapping")):
        if t.tiled:
            raise CBModelError(f"{op.name}: a TILE {what} (tt-mlir's workaround pass makes it row major; measured "
                               "row major only)")
    hs, ws = _u32(op, "output_height_shard_dim", 4), _u32(op, "output_width_shard_dim", 3)
    hidden = _u32(op, "hidden_size", 2880)
    sx, sy = _combine_rect(ctx, ring, ws, hs)
    tilize = _tilize_cores(ctx, ring)
    ring_set, tilize_set = core_set(ring), core_set(tilize)
    both = core_set(ring + tilize)
    combine = cores_set(core_range(sx, sy, sx + ws - 1, sy + hs - 1))
    l1a = ctx.arch.l1_alignment
    tokens, k_in = x.shape[0], x.shape[-1]
    act_row = aligned((2 * e + 1) * 4, l1a)
    sub = aligned(-(-_aligned_page(x) // TILIZE_CORES), l1a)
    in_tile = x.dtype.tile_bytes()
    cbs = [CB(0, "cb_r2c_w0 (W0/W1 and W2 blocks)", BFP4_TILE, 84, ring_set), CB(2, "cb_c2w_rdy", 4, 1, ring_set),
           CB(3, "cb_w2c_rdy", 4, 1, ring_set), CB(4, "cb_s2c_in2 (ring activations)", BF16_TILE, 48, ring_set),
           CB(6, "cb_c2c_ones_tile", BF16_TILE, 1, ring_set), CB(5, "cb_w2c_md", 16, 2, ring_set),
           CB(14, "untilized output rows", 512, 32 * e, ring_set),
           CB(0, "combine output (tilize output's shard)", BF16_TILE, 2 * -(-hidden // 32), combine,
              globally_allocated=True),
           CB(1, "per_expert_total_tokens", aligned(4 * e, l1a), 1, tilize_set),
           CB(2, "total_chunks", 4, 1, tilize_set),
           CB(6, "e_t (token ids per expert)", (tokens + 1) * l1a, e, tilize_set),
           CB(3, "expert_indices", _aligned_page(idx), _pages(idx), tilize_set),
           CB(5, "expert_scores", _aligned_page(scores), _pages(scores), tilize_set),
           CB(4, "expert_mapping", _aligned_page(mapping), _pages(mapping), tilize_set),
           CB(7, "tilize input (sub-tokens)", sub, TOKENS_PER_CHUNK, tilize_set),
           CB(8, "expert_activation", act_row, tokens + 1, tilize_set),
           CB(19, "brisc_e_t", (tokens // 2) * l1a * e, 1, tilize_set),
           CB(10, "brisc_expert_counts", 4 * e, 1, tilize_set),
           CB(11, "brisc_expert_activation", act_row * (tokens // 2), 1, tilize_set),
           CB(12, "brisc_activated_count", 4, 1, tilize_set),
           CB(13, "remote_counts", aligned((e + 1) * 4, l1a), TILIZE_CORES - 1, tilize_set),
           CB(16, "tilized activations (tilize -> ring)", in_tile, 2 * (k_in // 32), both)]
    cores = core_set(sorted(set(ring) | set(tilize) | {(sx + dx, sy + dy) for dx in range(ws) for dy in range(hs)}))
    chunks = _chunks(tokens, mapping, idx, e)
    notes = [f"{len(ring)}-core matmul ring on the DRAM-bank workers, tilize cores {tilize}, combine rectangle "
             f"({sx},{sy})-({sx + ws - 1},{sy + hs - 1}); {tokens} tokens, {e} experts per device",
             f"cost: a roofline of the expert matmuls, {chunks} chunk(s) of {TOKENS_PER_CHUNK} tokens per expert "
             "assumed (the routing is data: tokens * k / experts on average)"]
    return ProgramModel("MoEGPTMeshWorkloadFactory", GPT_SOURCE, cores, cbs, notes,
                        inputs=(x, idx, scores, mapping, w01, w2), outputs=(),
                        params=_gpt_cost_params(x, w01, w2, e, chunks, len(ring)))


def _chunks(tokens: int, mapping: Tensor, idx: Tensor, e: int) -> int:
    """32-token chunks one expert computes, on average: ``ceil(T * k / experts / 32)``, at least 1."""
    experts = max(mapping.shape[-1], e)
    per_expert = -(-tokens * idx.shape[-1] // experts)
    return max(1, -(-per_expert // TOKENS_PER_CHUNK))


def _gpt_cost_params(x: Tensor, w01: Tensor, w2: Tensor, e: int, chunks: int, ring: int) -> dict:
    """What the roofline cost needs: FLOPs of the expert matmuls (the W0/W1 block columns and W2 rows the weights
    hold, each chunk of 32 tokens against them) and the DRAM bytes read (each expert's weights once per chunk, the
    input once)."""
    w01_elems = w01.physical_volume // max(1, w01.shape[1])  # one layer
    w2_elems = w2.physical_volume // max(1, w2.shape[1])
    flops = 2.0 * chunks * TOKENS_PER_CHUNK * (w01_elems + w2_elems)
    weight_bytes = (w01.dtype.tile_bytes() * w01_elems + w2.dtype.tile_bytes() * w2_elems) / 1024
    return {"moe_flops": flops, "moe_weight_bytes": chunks * weight_bytes, "moe_matmul_cores": ring,
            "moe_chunks": chunks}


@register_spec("ttnn.moe_gpt")
def moe_gpt_spec(ctx: CBContext) -> list[TensorSpec]:
    """``MoEGPTDeviceOperation::compute_output_specs`` (ttnn 0.81.1, measured), with ``T`` the input's dim 0, ``E``
    the experts per device, ``H`` the ``hidden_size`` attribute, ``C`` the worker grid's cores, all u32 row-major
    L1 interleaved but the last two:

    * token counts ``[1, align(4E, 16) / 4]``; activation records ``[1, (T + 1) * align((2E + 1) * 4, 16) / 4]``;
      token indices ``[E, (T + 1) * 16 / 4]``;
    * the tilize output ``[C, 2, 32, H]`` bf16 TILE, L1 HEIGHT_SHARDED over the whole grid (shard ``[64, H]``),
      and the same buffer as row major.

    Raises:
        DeviceRejection / CBModelError: see :func:`_gpt_tensors`.
    """
    x, _, _, _, _, _, _, e = _gpt_tensors(ctx)
    l1a = ctx.arch.l1_alignment
    tokens = x.shape[0]
    hidden = _u32(ctx.op, "hidden_size", 2880)
    inter = MemCfg("l1", "interleaved")

    def rm(shape):
        return Tensor(tuple(shape), tuple(shape), U32, "row_major", inter, l1a, x.dram_alignment)

    gx, gy = ctx.grid
    n = gx * gy
    shard = Shard(cores_set(core_range(0, 0, gx - 1, gy - 1)), (64, hidden))
    mem = MemCfg("l1", "height_sharded", shard)
    tiled = Tensor((n, 2, 32, hidden), (n, 2, 32, -(-hidden // 32) * 32), x.dtype, "tile", mem, l1a,
                   x.dram_alignment)
    specs = [rm((1, aligned(4 * e, l1a) // 4)), rm((1, (tokens + 1) * aligned((2 * e + 1) * 4, l1a) // 4)),
             rm((e, (tokens + 1) * l1a // 4)), tiled, tiled.with_(layout="row_major", padded=(n, 2, 32, hidden))]
    return [s.spec() for s in specs]


register_cb("ttnn.moe_gpt")(moe_gpt_program)
register_check("ttnn.moe_gpt", "mock", "tests/test_ops_moe_compute.py against measurements/moe_compute/results.jsonl "
               "(the mock P150 as a 1x1 mesh)", ("MoEGPTDeviceOperation",))


# ----------------------------------------------------------------------------- moe_compute

_CDIR = "tt-metal ttnn/cpp/ttnn/operations/experimental/ccl/moe_compute/"
COMPUTE_SOURCE = (f"{_CDIR}moe_core_placement.cpp @01656bf7 (select_moe_compute_cores), device/"
                  "moe_compute_device_operation.cpp (validate, compute_output_specs), device/moe_compute_l1_plan.hpp "
                  "(the ring's weight pipeline) @529950a2, the stored versions nearest ttnn 0.81.1 (d80d9482); the CB "
                  "list measured on the mock P150: measurements/moe_compute/results_compute.jsonl")
MAX_TILIZE_CORES = 4  # kMoEComputeMaxTilizeCores
STRIP_WIDTH = 2  # kMoEComputeCombineStripWidth
TOKEN_SIZE = 32  # detail::TOKEN_SIZE: the shared buffer's tokens per combine core
FAST_WEIGHT_TILES, FAST_WEIGHT_SLOTS = 28, 3  # moe_compute_l1_plan.hpp: the fast weight pipeline
FAST_A2A_BUDGET = 512 * 1024  # beyond it the plan switches to a compact weight pipeline (not measured)
LOCAL_OUTPUT_STAGING = 512  # the ring's last CB on the local-output path (measured on every instance: 512 B)
TILIZE_TAIL = 16  # the tilize cores' last CB (measured on every instance: 16 B, whatever E, T, H)

Cell = tuple[int, int]


def data_parallel_cores(hidden_tiles: int) -> int:
    """``num_data_parallel_cores``: the largest divisor of the hidden tiles up to 4 (``auto_output_width_shard_dim``,
    ttnn.experimental.moe_compute_utils; the runtime's allocate_moe_compute_semaphore computes the same)."""
    return next(d for d in range(4, 0, -1) if hidden_tiles % d == 0)


def _bbox(cells) -> tuple[int, int, int, int]:
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    return min(xs), min(ys), max(xs), max(ys)


def _cells(b) -> set[Cell]:
    return {(x, y) for x in range(b[0], b[2] + 1) for y in range(b[1], b[3] + 1)}


def _intersects(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _find_rect(avoid: set[Cell], grid: Cell, w: int, h: int, y_limit: int):
    """The first ``w x h`` rectangle free of ``avoid``: eastern columns first, rows from y = 0, below ``y_limit``."""
    for sx in range(grid[0] - w, -1, -1):
        for sy in range(0, y_limit - h + 1):
            if not any((sx + dx, sy + dy) in avoid for dx in range(w) for dy in range(h)):
                return sx, sy, sx + w - 1, sy + h - 1
    return None


def _place_combine_and_tilize(grid: Cell, mm_bbox, mux: set[Cell], n_combine: int, n_tilize: int, hidden_tiles: int):
    """``place_combine_and_tilize``: the combine cores in a 2-wide eastern strip (else the widest dense rectangle,
    else row-major cells) below the top two rows, the tilize cores in the eastern 2x2 block of the top two rows
    (legacy order), all bounding boxes disjoint; None when no layout fits."""
    gx, gy = grid
    avoid = set(mux) | _cells(mm_bbox)
    y_limit = min((gy - 3 if gy >= 3 else gy - 1) + 1, gy)
    strip = _find_rect(avoid, grid, STRIP_WIDTH, -(-n_combine // STRIP_WIDTH), y_limit) if STRIP_WIDTH <= gx else None
    if strip is None:
        for w in sorted((w for w in range(1, n_combine + 1) if n_combine % w == 0), reverse=True):
            h = n_combine // w
            if w <= gx and h <= y_limit:
                strip = _find_rect(avoid, grid, w, h, y_limit)
                if strip is not None:
                    break
    if strip is not None:
        combine = [(x, y) for y in range(strip[1], strip[3] + 1) for x in range(strip[0], strip[2] + 1)][:n_combine]
    else:
        combine = [(x, y) for y in range(y_limit) for x in range(gx) if (x, y) not in avoid][:n_combine]
    if len(combine) != n_combine:
        return None
    cb = _bbox(combine)
    if (cb[2] - cb[0] + 1) * (cb[3] - cb[1] + 1) != n_combine or _intersects(cb, mm_bbox):
        return None
    t_avoid = avoid | _cells(cb)
    for n in range(n_tilize, 0, -1):
        if hidden_tiles % n:
            continue
        block = next((sx for sx in range(gx - 2, -1, -1)
                      if not any((sx + dx, gy - 2 + dy) in t_avoid for dx in range(2) for dy in range(2))), None)
        if block is not None:
            sy = gy - 2
            tilize = [(block + 1, sy + 1), (block + 1, sy), (block, sy + 1), (block, sy)][:n]
        else:
            tilize = [(x, y) for y in range(gy - 1, gy - 3, -1) for x in range(gx - 1, -1, -1)
                      if (x, y) not in t_avoid][:n]
        if len(tilize) != n:
            continue
        tb = _bbox(tilize)
        if _intersects(tb, cb) or _intersects(tb, mm_bbox):
            continue
        return combine, tilize
    return None


def place_moe_compute(ctx: CBContext, hs: int, dp: int, hidden_tiles: int, mux: set[Cell]):
    """``select_moe_compute_cores``: the matmul ring on the DRAM-bank workers unless it hits a mux core or leaves no
    disjoint combine/tilize layout, else a column-0-anchored compact ring (rows from ``y_start``, west of the
    combine strip, below the top two rows) at the first ``y_start`` that fits; then combine and tilize.

    Returns:
        (ring, combine, tilize) cores, (x, y).

    Raises:
        DeviceRejection: no layout fits (the placement's TT_FATAL).
        CBModelError: no known ring (:func:`ring_cores`).
    """
    grid = ctx.grid
    ring = ring_cores(ctx)
    n_combine = hs * dp
    n_tilize = min(MAX_TILIZE_CORES, hidden_tiles)
    while n_tilize > 1 and hidden_tiles % n_tilize:
        n_tilize -= 1
    if not any(c in mux for c in ring):
        placed = _place_combine_and_tilize(grid, _bbox(ring), mux, n_combine, n_tilize, hidden_tiles)
        if placed is not None:
            return ring, *placed
    gx, gy = grid
    x_limit = gx - STRIP_WIDTH if gx > STRIP_WIDTH else gx
    y_limit = gy - 2 if gy > 2 else gy
    for y_start in range(gy):
        compact = [(x, y) for y in range(y_start, y_limit) if (0, y) not in mux for x in range(x_limit)
                   if (x, y) not in mux][:len(ring)]
        if len(compact) != len(ring):
            break
        placed = _place_combine_and_tilize(grid, _bbox(compact), mux, n_combine, n_tilize, hidden_tiles)
        if placed is not None:
            return compact, *placed
    raise DeviceRejection(f"moe_compute: TT_FATAL could not place a column-0-anchored compact {len(ring)}-core matmul "
                          f"ring together with {n_combine} combine + {n_tilize} tilize cores disjointly, avoiding "
                          f"{len(mux)} mux cores, on the {gx}x{gy} worker grid")


def _mux_cells(op: Op) -> set[Cell]:
    crs = op.attrs.get("mux_core_range_set")
    if crs is None:
        return set()
    if not isinstance(crs, CoreRangeSet):
        raise CBModelError(f"{op.name}: mux_core_range_set is not a core range set")
    return {(x, y) for r in crs.ranges for x in range(r.start.x, r.end.x + 1) for y in range(r.start.y, r.end.y + 1)}


def _compute_operands(ctx: CBContext):
    """The operands (input, indices, scores, mapping, w0_w1, w2, and the output buffer when bound: operand 6 by
    ``operandSegmentSizes``), checked as ``MoEComputeDeviceOperation::validate_on_program_cache_miss`` on the local
    output path (ttnn 0.81.1), with what the model covers.

    Raises:
        DeviceRejection: its TT_FATALs (ranks, the token count against the combine cores' shared buffer, the output
            buffer's shape and memory layout).
        CBModelError: an input, indices of another layout or dtype than the workaround pass gives, a mesh axis of extent > 1 (the fused combine over the fabric: not modeled), no mesh, bias
            tiles, indices or scores not L1 HEIGHT_SHARDED (measured sharded on the drain core only).
    """
    op = ctx.op
    x, idx, scores, mapping, w01, w2 = (operand(ctx, i) for i in range(6))
    seg = op.attrs.get("operandSegmentSizes")
    out = operand(ctx, 6) if isinstance(seg, list) and len(seg) > 6 and seg[6] else None
    fatal = "moe_compute: TT_FATAL "
    if x.tiled or x.dtype.name != "bf16" or idx.dtype.name != "u16":  # ttnn: "Input tensor must be in row major
        # layout" / "... bfloat16" / "Indices tensor must be uint16"; tt-mlir's workaround pass gives them so
        raise CBModelError(f"{op.name}: a {x.layout} {x.dtype} input or {idx.dtype} indices, not the row-major bf16 / "
                           "u16 tt-mlir's workaround pass gives them (IR from before that pass; ttnn refuses it as it "
                           "is)")
    for t, what, rank in ((x, "tilize_input_tensor", 3), (idx, "tilize_expert_indices_tensor", 2),
                          (scores, "tilize_expert_scores_tensor", 2)):
        if t.rank < rank:
            raise DeviceRejection(f"{fatal}{what} must be rank >= {rank}; got rank {t.rank}")
    for t, what, rank in ((mapping, "tilize_expert_mapping_tensor", 2), (w01, "matmul_w0_w1_tensor", 6),
                          (w2, "matmul_w2_tensor", 6)):
        if t.rank != rank:
            raise DeviceRejection(f"{fatal}{what} must be rank {rank}; got rank {t.rank}")
    if op.attrs.get("has_bias") is True:
        raise CBModelError(f"{op.name}: bias tiles in the weights (has_bias) are not measured")
    mesh = op_mesh(op)
    axis = op.attrs.get("cluster_axis")
    if mesh is None or not isinstance(axis, int) or not 0 <= axis < len(mesh.shape):
        raise CBModelError(f"{op.name}: no mesh with cluster_axis {axis} known")
    if mesh.shape[axis] != 1:
        raise CBModelError(f"{op.name}: cluster_axis {axis} of mesh {mesh.label} has extent {mesh.shape[axis]}: the "
                           "fused combine over the fabric is not modeled (measured: the local output path, extent 1)")
    hidden = x.shape[-1]
    if hidden <= 0 or hidden % 32:
        raise DeviceRejection(f"{fatal}hidden_size ({hidden}) must be a positive multiple of 32 (TILE_SIZE)")
    tokens = x.shape[0] * x.shape[1]
    hs = _u32(op, "output_height_shard_dim", 0)
    dp = data_parallel_cores(hidden // 32)
    if TOKEN_SIZE * dp * hs < tokens:
        raise DeviceRejection(f"{fatal}Too many tokens in input, got: {tokens} but expected max: "
                              f"{TOKEN_SIZE * dp * hs}")
    if out is not None:
        k = idx.shape[-1]
        if out.shape != (k, tokens, hidden) or out.tiled or out.dtype != x.dtype:
            raise DeviceRejection(f"{fatal}optional_output_tensor must be a [{k}, {tokens}, {hidden}] row-major bf16 "
                                  f"tensor for the local output path; got shape {list(out.shape)}")
        if out.memory_layout not in ("interleaved", "height_sharded"):
            raise DeviceRejection(f"{fatal}the optional_output_tensor memory config must be INTERLEAVED or "
                                  f"HEIGHT_SHARDED row-major; got {out.memory_layout}")
    for t, what in ((idx, "expert indices"), (scores, "expert scores")):
        if not (t.l1 and t.memory_layout == "height_sharded"):
            raise CBModelError(f"{op.name}: {what} not L1 HEIGHT_SHARDED (measured sharded on the drain tilize core)")
    return x, idx, scores, mapping, w01, w2, out, tokens, hidden, hs, dp


def moe_compute_program(ctx: CBContext) -> ProgramModel:
    """``MoEComputeMeshWorkloadFactory`` on the local output path (a mesh axis of extent 1), ttnn 0.81.1.

    Cores: :func:`place_moe_compute`.  With ``T`` tokens (input dims 0 x 1), ``H`` hidden, ``E`` experts per
    device (w0_w1 dim 2), ``Nt`` intermediate tiles, ``n`` tilize cores, ``l1a`` = 16 B, per core group (bytes):

    * every grid core: the tilize output's shard twice (the tilize output and its row-major view as two CBs,
      ``2 * H / 32`` bf16 tiles, tensor-backed); ring, combine and tilize cores: the token counts' shard
      ``align(4E, l1a)`` (tensor-backed);
    * tilize: ``e_t`` ``E * (T + 1) * l1a``; the indices' and scores' shards (tensor-backed); the mapping's pages;
      the input sub-token ``align(ceil(P / n), l1a)`` x 32 (``P`` the input's aligned row); the activation ``T``
      rows of ``align((2E + 1) * 4, l1a)``; ``(T / 2) * l1a * E``; ``4E``; ``T / 2`` activation rows; 4; ``n - 1``
      rows of ``align((E + 1) * 4, l1a)``; 16;
    * ring: the weight pipeline 28 x 3 tiles of the weights' dtype (``moe_compute_l1_plan.hpp``, fast plan); 16;
      16; the A2A buffer ``ceil(Nt / ring) * ring`` bf16 tiles; 32; 512 (local output).

    The op also holds its five intermediate outputs in L1 while it runs (:attr:`ProgramModel.l1_buffers_per_core`:
    the tilize output ``2 * 32 * H * 2`` per core, the token counts' shard, the activation page, the ``e_t``
    pages); tt-mlir's runtime frees them after the op.

    Raises:
        DeviceRejection / CBModelError: see :func:`_compute_operands`, :func:`place_moe_compute`.
    """
    op = ctx.op
    x, idx, scores, mapping, w01, w2, out, tokens, hidden, hs, dp = _compute_operands(ctx)
    e = w01.shape[2]
    ht = hidden // 32
    nt = _u32(op, "intermediate_size", 0) // 32
    ring, combine, tilize = place_moe_compute(ctx, hs, dp, ht, _mux_cells(op))
    a2a_tiles = -(-nt // len(ring)) * len(ring)
    if a2a_tiles * BF16_TILE > FAST_A2A_BUDGET:
        raise CBModelError(f"{op.name}: an A2A buffer of {a2a_tiles} tiles takes the compact weight pipeline "
                           "(moe_compute_l1_plan.hpp), not measured")
    l1a = ctx.arch.l1_alignment
    gx, gy = ctx.grid
    n = len(tilize)
    ring_set, tilize_set = core_set(ring), core_set(tilize)
    workers = core_set(sorted(set(ring) | set(combine) | set(tilize)))
    grid_set = cores_set(core_range(0, 0, gx - 1, gy - 1))
    act_row = aligned((2 * e + 1) * 4, l1a)
    sub = aligned(-(-_aligned_page(x) // n), l1a)
    shard_tiles = 2 * ht
    cbs = [CB(0, "tilize output (shard)", BF16_TILE, shard_tiles, grid_set, globally_allocated=True),
           CB(1, "matmul output (the same shard, row major)", BF16_TILE, shard_tiles, grid_set,
              globally_allocated=True),
           CB(2, "per_expert_total_tokens (shard)", aligned(4 * e, l1a), 1, workers, globally_allocated=True),
           CB(3, "e_t (token ids per expert)", (tokens + 1) * l1a, e, tilize_set),
           CB(4, "expert_indices (shard)", _aligned_page(idx), _pages(idx), tilize_set, globally_allocated=True),
           CB(5, "expert_scores (shard)", _aligned_page(scores), _pages(scores), tilize_set, globally_allocated=True),
           CB(6, "expert_mapping", _aligned_page(mapping), _pages(mapping), tilize_set),
           CB(7, "tilize input (sub-tokens)", sub, TOKEN_SIZE, tilize_set),
           CB(8, "expert_activation", act_row, tokens, tilize_set),
           CB(9, "brisc_e_t", (tokens // 2) * l1a * e, 1, tilize_set),
           CB(10, "brisc_expert_counts", 4 * e, 1, tilize_set),
           CB(11, "brisc_expert_activation", act_row * (tokens // 2), 1, tilize_set),
           CB(12, "brisc_activated_count", 4, 1, tilize_set),
           CB(13, "remote_counts", aligned((e + 1) * 4, l1a), n - 1, tilize_set),
           CB(14, "tilize bookkeeping (measured)", TILIZE_TAIL, 1, tilize_set),
           CB(0, "weight pipeline (W0/W1 and W2 blocks)", w01.dtype.tile_bytes(), FAST_WEIGHT_TILES * FAST_WEIGHT_SLOTS,
              ring_set),
           CB(1, "ring bookkeeping", 16, 1, ring_set), CB(2, "ring bookkeeping", 16, 1, ring_set),
           CB(3, "A2A activations", BF16_TILE, a2a_tiles, ring_set), CB(4, "ring bookkeeping", 32, 1, ring_set),
           CB(5, "local output staging (measured)", LOCAL_OUTPUT_STAGING, 1, ring_set)]
    banks = gx * gy
    held = (2 * TOKEN_SIZE * hidden * 2 + aligned(4 * e, l1a) + aligned(tokens * act_row, l1a)
            + -(-e // banks) * (tokens + 1) * l1a)
    chunks = _chunks(tokens, mapping, idx, e)
    notes = [f"local output path (cluster_axis of extent 1): {len(ring)}-core matmul ring, tilize cores {tilize}, "
             f"{len(combine)} combine cores (placed, idle on this path); {tokens} tokens, {e} experts per device",
             f"the op's intermediate outputs hold {held:,} B of L1 per core while it runs",
             f"cost: a roofline of the expert matmuls, {chunks} chunk(s) of {TOKEN_SIZE} tokens per expert assumed"]
    return ProgramModel("MoEComputeMeshWorkloadFactory", COMPUTE_SOURCE, core_set(sorted(set(ring) | set(tilize))),
                        cbs, notes, l1_buffers_per_core=held, inputs=(x, idx, scores, mapping, w01, w2),
                        outputs=(), params=_gpt_cost_params(x, w01, w2, e, chunks, len(ring)))


@register_spec("ttnn.moe_compute")
def moe_compute_spec(ctx: CBContext) -> list[TensorSpec]:
    """``compute_output_specs`` slot 5 on the local output path (the one result tt-mlir exposes): ``[k, T, H]`` in
    the input's dtype, row major, in the bound output buffer's memory config (DRAM interleaved without one).

    Raises:
        DeviceRejection / CBModelError: see :func:`_compute_operands`.
    """
    x, idx, _, _, _, _, out, tokens, hidden, _, _ = _compute_operands(ctx)
    mem = out.mem if out is not None else MemCfg("dram", "interleaved")
    shape = (idx.shape[-1], tokens, hidden)
    return [x.with_(shape=shape, padded=shape, layout="row_major", mem=mem).spec()]


@register("ttnn.moe_compute", "moe", ("layer_id", "output_height_shard_dim", "intermediate_size", "has_bias",
                                      "activation_function", "cluster_axis", "num_links", "topology",
                                      "mux_core_range_set", "operandSegmentSizes"),
          "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca MoeComputeOp::verify")
def moe_compute_shape(op: Op):
    """``MoeComputeOp::verify``: ``intermediate_size`` a positive multiple of 32, ``output_height_shard_dim``
    positive, an input of rank >= 2 whose last dim (hidden) is a positive multiple of 32; the result keeps its
    declared type (checked against what ttnn returns by :func:`moe_compute_spec`).

    Raises:
        ShapeError: the verifier's errors, in its words.
    """
    inter = op.attrs.get("intermediate_size")
    if not isinstance(inter, int) or inter <= 0 or inter % 32:
        raise ShapeError(f"{op.name}: intermediate_size must be a positive multiple of 32")
    hs = op.attrs.get("output_height_shard_dim")
    if not isinstance(hs, int) or hs <= 0:
        raise ShapeError(f"{op.name}: output_height_shard_dim must be positive")
    x = tensor_shape(op, 0)
    if len(x) < 2:
        raise ShapeError(f"{op.name}: tilize_input_tensor must have rank >= 2")
    if x[-1] <= 0 or x[-1] % 32:
        raise ShapeError(f"{op.name}: tilize_input_tensor last dim (hidden_size) must be a positive multiple of 32")
    return None


def tied_output(op: Op, k: int) -> int | None:
    """The operand whose buffer result ``k`` is: ``moe_compute``'s combine output is its bound
    ``optional_output_tensor`` (operand 6 when ``operandSegmentSizes`` has it; the runtime returns that buffer)."""
    seg = op.attrs.get("operandSegmentSizes")
    if op.name == "ttnn.moe_compute" and k == 0 and isinstance(seg, list) and len(seg) > 6 and seg[6]:
        return 6
    return None


register_cb("ttnn.moe_compute")(moe_compute_program)
register_check("ttnn.moe_compute", "mock", "tests/test_ops_moe_compute.py against measurements/moe_compute/"
               "results_compute.jsonl (the mock P150 as a 1x1 mesh: the local output path)",
               ("MoEComputeDeviceOperation",))
