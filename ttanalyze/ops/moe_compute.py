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

``moe_compute`` is not modeled here (its placement and L1 plan depend on the mux cores, the ring and the shapes;
see ``ttnn/cpp/ttnn/operations/experimental/ccl/moe_compute/``); it stays unmodeled and is reported so.
"""

from __future__ import annotations

from ..ir.attrs import DataType
from ..ir.model import Op
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
