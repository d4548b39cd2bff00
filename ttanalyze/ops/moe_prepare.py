"""``ttnn.prepare_moe_compute_w0_w1_weights`` / ``ttnn.prepare_moe_compute_w2_weights``: the device programs of the
MoE weight packers, their intermediate buffers in order, and what they return.

tt-mlir's runtime (``runtime/lib/ttnn/operations/ccl/prepare_moe_compute_w{0_w1,2}_weights.cpp`` @19c86fca) calls
the packer ``ttnn::experimental::prepare_w0_w1_tensor_for_moe_compute`` (``..._with_bias`` when the op has biases;
W2 likewise) on the row-major weights (the op's workaround makes every operand row-major), then
``quantize_weights_via_host(packed, BFLOAT4_B, get_weight_mem_configs(...).w0_w1 / .w2)``: a read back to the host,
a host conversion to bfloat4_b and a write into a DRAM height-sharded tensor (host work, no device program).

The packers are not device operations: they are C++ chains of ttnn calls (tt-metal
``ttnn/cpp/ttnn/operations/experimental/ccl/moe_compute/moe_compute_utils.cpp``, the version whose compact W0/W1
layout and per-shape transaction size the 0.81.1 wheel ships: its ``_ttnncpp.so`` carries that file's TT_FATAL
strings and its Python mirror ``ttnn/_experimental/moe_compute_utils.py``) of ``ttnn::zeros`` (a host tensor
written to the device: a buffer, no program), ``concat``, ``reshape``, ``unsqueeze`` (a view), ``permute``,
``slice`` and a final ``to_layout(TILE)``: 30 to 200 programs.  :class:`_Chain` replays those calls with the
program models of :mod:`ttanalyze.ops.data_movement` (reshape, permute, slice, concat, tilize), and every buffer
they allocate and free, in tt-metal's order: a ttnn op allocates its output before its program runs, a view shares
its input's buffer, ``Tensor::deallocate(force)`` frees the buffer when forced or when the handle is its only
owner, and a buffer whose last handle goes out of C++ scope is freed then.  The events go to each program's
:attr:`~ttanalyze.ops.cb.ProgramModel.events`, which the allocator replay (:mod:`ttanalyze.memory`) follows, so
it sees the op's peak; the IR result is allocated where the host write happens.

The layout geometry (moe_ring_common.h, mirrored by the wheel's moe_compute_utils.py): the matmul ring has one
core per live DRAM bank (``get_weight_core_shard_maps``: 8 on a P150, 12 on Wormhole); ring core ``c`` owns
``shard_tiles(Nt, c, n)`` gate/up columns (a Euclidean rhythm) and ``w2_shard_tiles`` W2 output tiles; DRAM reads
are blocks of 2 transactions of ``tiles_per_txn`` tiles (14, or 20 for the 2560/640 expert on 8 banks).

Measured on the mock P150 (measurements/moe_prep: every program, its CBs and scratchpads, the DRAM buffer events
and both outputs of 58 instances, 58 exact; tests/test_ops_moe_prepare.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil

from ..ir.attrs import CoreCoord, CoreRange, CoreRangeSet, DataType
from .cb import CBContext, CBModelError, ProgramModel, plan_of
from .data_movement import _concat_steps, _permute_steps, _slice_steps, _to_tile, reshape_steps
from .registry import int_attr, register_cb, register_check, register_passive, register_spec
from .spec import TensorSpec
from .tensors import TILE, MemCfg, Shard, Tensor, operand

W0_W1 = "ttnn.prepare_moe_compute_w0_w1_weights"
W2 = "ttnn.prepare_moe_compute_w2_weights"
_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/ccl/moe_compute/moe_compute_utils.cpp (the compact-layout "
        "version ttnn 0.81.1 ships)")

# moe_ring_common.h constants (ttnn/_experimental/moe_compute_utils.py of the 0.81.1 wheel mirrors them)
BLOCK_TILES_W = 4  # W0_W1_BLOCK_TILES_W = W2_TILES_PER_A2A_ITER_W: a block is 4 tiles wide
HALF_BLOCK_TILES_W = 2  # W0_W1_HALF_BLOCK_TILES_W = W2_HALF_A2A_ITER_TILES_W
TXNS_PER_BLOCK = 2  # W0_W1_TXNS_PER_BLOCK
DEFAULT_TILES_PER_TXN = 14
ALT_TILES_PER_TXN = 20


# -- the ring geometry (moe_ring_common.h) ------------------------------------------------------------------------------

def shard_tiles(n_tiles: int, core: int, n_cores: int) -> int:
    """Tiles ring core ``core`` owns of ``n_tiles`` (Euclidean rhythm: ``n_tiles % n_cores`` cores own one more)."""
    big = n_tiles % n_cores
    return n_tiles // n_cores + (1 if big and (core * big) % n_cores < big else 0)


def w2_shard_tiles(ht: int, core: int, nt: int, n_cores: int) -> int:
    """W2 output tiles of ring core ``core``: the complement of the W0/W1 pattern when ``Nt % n + Ht % n == n``."""
    big_nt, big_ht = nt % n_cores, ht % n_cores
    if big_nt + big_ht == n_cores:
        is_big_nt = big_nt > 0 and (core * big_nt) % n_cores < big_nt
        return ht // n_cores + (0 if is_big_nt else 1)
    return shard_tiles(ht, core, n_cores)


def _even_stride(tiles: int) -> int:
    return max(tiles + tiles % 2, BLOCK_TILES_W)


def stored_cols(nt: int, core: int, n_cores: int) -> int:
    """Gate/up columns ring core ``core`` stores: its own (compact layout, when the busiest core owns fewer columns
    than the even stride), else the uniform even stride (its own columns, then zero columns)."""
    most = ceil(nt / n_cores)
    if most < _even_stride(most):
        return shard_tiles(nt, core, n_cores)
    return _even_stride(most)


def tiles_per_txn(ht: int, nt: int, has_bias: bool, n_cores: int) -> int:
    """``tiles_per_txn_for_shape``: 20 for the 2560/640 expert (80 x 20 tiles, no bias) on an 8-bank ring, else 14."""
    return ALT_TILES_PER_TXN if (ht, nt, has_bias, n_cores) == (80, 20, False, 8) else DEFAULT_TILES_PER_TXN


def block_tiles_h(tpt: int) -> int:
    """K tile rows of a 4-wide block: 7 for 14-tile transactions, 10 for 20."""
    return TXNS_PER_BLOCK * tpt // BLOCK_TILES_W


def half_block_tiles_h(tpt: int) -> int:
    """K tile rows of a 2-wide (half) block: 14 or 20."""
    return TXNS_PER_BLOCK * tpt // HALF_BLOCK_TILES_W


def w2_last_iter_half(ht: int, n_cores: int, tpt: int) -> bool:
    """With 20-tile transactions the last W2 a2a iteration is 2 tiles wide when at most 2 output tiles are left."""
    last = ceil(ht / n_cores) % BLOCK_TILES_W
    return tpt != DEFAULT_TILES_PER_TXN and 0 < last <= HALF_BLOCK_TILES_W


@dataclass(frozen=True)
class Geometry:
    """One op's packing geometry: ``layers`` x ``experts``, ``hidden`` (K) and ``intermediate`` (N) in elements,
    the bias flag, ``cores`` (the matmul ring) and ``banks`` (DRAM banks, the same number)."""

    layers: int
    experts: int
    hidden: int
    intermediate: int
    bias: bool
    cores: int
    banks: int

    @property
    def ht(self) -> int:
        return self.hidden // TILE

    @property
    def nt(self) -> int:
        return self.intermediate // TILE

    @property
    def tpt(self) -> int:
        return tiles_per_txn(self.ht, self.nt, self.bias, self.cores)

    def w0_w1_bank_rows(self) -> int:
        """Stored 4-tile rows per (layer, expert) of one bank: ``w0_w1_bank_blocks_per_expert * block rows``."""
        k = self.ht + self.bias
        bpc, bph = ceil(k / block_tiles_h(self.tpt)), ceil(k / half_block_tiles_h(self.tpt))
        blocks = sum((s // 2) * bpc + (s % 2) * bph for s in (stored_cols(self.nt, c, self.cores)
                                                               for c in range(self.cores)))
        return ceil(blocks / self.banks) * block_tiles_h(self.tpt) * TILE

    def w2_core_rows(self) -> int:
        """Stored 4-tile rows per (layer, expert) of one ring core (``w2_core_blocks_per_expert * block rows``)."""
        k = self.nt + self.bias
        iters = ceil(ceil(self.ht / self.cores) / BLOCK_TILES_W)
        half = int(w2_last_iter_half(self.ht, self.cores, self.tpt))
        blocks = (iters - half) * ceil(k / block_tiles_h(self.tpt)) + half * ceil(k / half_block_tiles_h(self.tpt))
        return blocks * block_tiles_h(self.tpt) * TILE

    def shard_height(self, op_name: str) -> int:
        """``get_weight_mem_configs``: rows of one bank's shard of the packed tensor (it is 4 tiles wide)."""
        if op_name == W0_W1:
            return self.layers * self.experts * self.w0_w1_bank_rows()
        return self.layers * self.experts * self.cores * self.w2_core_rows() // self.banks


# -- the ttnn calls, replayed -----------------------------------------------------------------------------------------

@dataclass
class _H:
    """A ``ttnn::Tensor`` handle of the packer: the tensor and its buffer (shared by views)."""

    t: Tensor
    buf: int


class _Chain:
    """The packer's ttnn calls: the programs they run and the buffers they allocate and free, in order.

    Events (``("+", key, tensor)``, ``("-", key)``, ``("run",)``, ``("result",)``) are kept in one list and split
    over the programs at the end (:meth:`stages`): program ``k`` carries what happens from the end of program
    ``k - 1`` through its own run.
    """

    def __init__(self, ctx: CBContext):
        self.ctx = ctx
        self.programs: list[ProgramModel] = []
        self.events: list[tuple] = []
        self.refs: dict[int, int] = {}  # live handles per buffer
        self.live: set[int] = set()  # buffers allocated by the chain and not freed
        self.next_key = 0

    # buffers and handles
    def owned_input(self, t: Tensor) -> _H:
        """An operand: the caller holds one more handle, and the chain never frees it."""
        self.next_key += 1
        self.refs[self.next_key] = 2
        return _H(t, self.next_key)

    def _alloc(self, t: Tensor) -> _H:
        self.next_key += 1
        key = self.next_key
        self.events.append(("+", key, t))
        self.refs[key] = 1
        self.live.add(key)
        return _H(t, key)

    def share(self, h: _H, t: Tensor | None = None) -> _H:
        """A view (or a copy of the handle) on ``h``'s buffer."""
        self.refs[h.buf] += 1
        return _H(t if t is not None else h.t, h.buf)

    def _free(self, key: int) -> None:
        if key in self.live:
            self.live.discard(key)
            self.events.append(("-", key))

    def deallocate(self, h: _H, force: bool) -> None:
        """``Tensor::deallocate(force)``: frees the buffer when forced or when this handle is its only owner."""
        if force or self.refs[h.buf] == 1:
            self._free(h.buf)

    def drop(self, *hs: _H) -> None:
        """Handles going out of C++ scope: a buffer with no handle left is freed."""
        for h in hs:
            self.refs[h.buf] -= 1
            if self.refs[h.buf] == 0:
                self._free(h.buf)

    # ttnn calls
    def _run(self, steps: list[ProgramModel], ins: list[_H], out: Tensor) -> _H:
        """A ttnn call's programs: each allocates its output, runs, and a temporary between two is freed after
        the next program runs; the last one's output is the call's result."""
        if not steps:
            return self.share(ins[0], out)
        if not steps[0].inputs:
            steps[0].inputs = tuple(h.t for h in ins)
        if not steps[-1].outputs:
            steps[-1].outputs = (out,)
        temp = None
        result = None
        for k, st in enumerate(steps):
            last = k == len(steps) - 1
            h = self._alloc(out) if last else (self._alloc(st.outputs[0]) if st.outputs else None)
            self.events.append(("run",))
            self.programs.append(st)
            if temp is not None:
                self.drop(temp)
            temp, result = h, h
        return result  # type: ignore[return-value]

    def zeros(self, shape: tuple[int, ...], like: _H) -> _H:
        """``ttnn::zeros(shape, like's dtype, layout, device, memory config)``: a host tensor written to the device."""
        return self._alloc(like.t.with_(shape=tuple(shape)))

    def unsqueeze(self, h: _H, dim: int) -> _H:
        s = list(h.t.shape)
        s.insert(dim, 1)
        return self.share(h, h.t.with_(shape=tuple(s)))

    def reshape(self, h: _H, shape: tuple[int, ...]) -> _H:
        out = h.t.with_(shape=tuple(shape))
        return self._run(reshape_steps(h.t, tuple(shape), out, self.ctx), [h], out)

    def permute(self, h: _H, dims: tuple[int, ...]) -> _H:
        out = h.t.with_(shape=tuple(h.t.shape[d] for d in dims))
        return self._run(_permute_steps(h.t, dims, out, self.ctx.grid, self.ctx.arch), [h], out)

    def slice(self, h: _H, begins: list[int], ends: list[int]) -> _H:
        """``ttnn::slice`` with unit steps; an empty slice (a ring core that owns no column) runs no program and
        allocates nothing (measured)."""
        dims = [(b, e, 1, e - b) for b, e in zip(begins, ends)]
        out = h.t.with_(shape=tuple(e - b for b, e in zip(begins, ends)))
        if out.volume == 0:
            self.next_key += 1
            self.refs[self.next_key] = 1
            return _H(out, self.next_key)
        return self._run(_slice_steps(h.t, dims, out, self.ctx), [h], out)

    def concat(self, hs: list[_H], dim: int) -> _H:
        """``ttnn::concat`` without a memory config: the output is DRAM interleaved (concat.cpp
        ``memory_config.value_or(ttnn::DRAM_MEMORY_CONFIG)``; measured with L1 weights).  Empty inputs (a ring core
        that owns no tile) stay in the call, as ttnn keeps them; the cost reads the others."""
        xs = [h.t for h in hs]
        dim %= xs[0].rank
        shape = list(xs[0].shape)
        shape[dim] = sum(t.shape[dim] for t in xs)
        out = xs[0].with_(shape=tuple(shape), mem=MemCfg("dram", "interleaved"))
        steps = _concat_steps(xs, dim, out, self.ctx)
        if len(steps) == 1:
            steps[0].inputs = tuple(t for t in xs if t.volume)
        return self._run(steps, hs, out)

    def to_tile(self, h: _H) -> _H:
        out = h.t.with_(layout="tile")
        return self._run(_to_tile(h.t, out, self.ctx), [h], out)

    def stages(self) -> list[ProgramModel]:
        """The programs, each with its share of the events (see the class docstring)."""
        runs = [i for i, e in enumerate(self.events) if e[0] == "run"]
        for k, st in enumerate(self.programs):
            start = runs[k - 1] + 1 if k else 0
            end = runs[k] + 1 if k + 1 < len(self.programs) else len(self.events)
            st.events = tuple(self.events[start:end])
        return self.programs


def _w0_w1_compact(c: _Chain, w0: _H, w1: _H, g: Geometry, k: int, tpt: int) -> _H:
    """``prepare_w0_w1_compact``: W0/W1 interleaved per tile column, each ring core's columns as 4-wide blocks (and
    a 2-wide half block for an odd count), the cores' slices back to back, cut into one piece per bank."""
    lay, exp, n, nt = g.layers, g.experts, g.intermediate, g.nt
    kt = k // TILE
    bh, hh = block_tiles_h(tpt), half_block_tiles_h(tpt)
    bpc, bph = ceil(kt / bh), ceil(kt / hh)
    kp_full, kp_half = bpc * bh * TILE, bph * hh * TILE
    kp = max(kp_full, kp_half)
    shard_map = [shard_tiles(nt, i, g.cores) for i in range(g.cores)]
    stored = [stored_cols(nt, i, g.cores) for i in range(g.cores)]
    expert_blocks = sum((s // 2) * bpc + (s % 2) * bph for s in stored)
    bank_blocks = ceil(expert_blocks / g.banks)
    block_rows = bh * TILE
    uniform = (tpt == DEFAULT_TILES_PER_TXN and g.banks == g.cores and stored[0] % 2 == 0
               and len(set(stored)) == 1)

    work0, work1 = c.share(w0), c.share(w1)
    if k < kp:
        padding = c.zeros((lay, exp, kp - k, n), w0)
        new0 = c.concat([w0, padding], 2)
        c.drop(work0)
        work0 = new0
        new1 = c.concat([w1, padding], 2)
        c.drop(work1)
        work1 = new1
        c.deallocate(padding, True)
        c.drop(padding)
    ch0 = c.reshape(work0, (lay, exp, kp, nt, TILE))
    ch1 = c.reshape(work1, (lay, exp, kp, nt, TILE))
    u0, u1 = c.unsqueeze(ch0, 4), c.unsqueeze(ch1, 4)  # stack_along: unsqueeze + concat
    stacked = c.concat([u0, u1], 4)
    c.drop(u0, u1)
    for h in (ch0, ch1, work0, work1):
        c.deallocate(h, False)
    interleaved = c.reshape(stacked, (lay, exp, kp, nt, 2 * TILE))
    permuted = c.permute(interleaved, (0, 1, 3, 2, 4))
    c.deallocate(interleaved, False)
    c.deallocate(stacked, True)

    each: list[_H] = []
    start = 0
    for core in range(g.cores):
        own, keep = shard_map[core], stored[core]
        cols = c.slice(permuted, [0, 0, start, 0, 0], [lay, exp, start + own, kp, 2 * TILE])
        if keep > own:
            zero = c.zeros((lay, exp, keep - own, kp, 2 * TILE), permuted)
            padded = c.concat([cols, zero], 2)
            c.deallocate(cols, True)
            c.deallocate(zero, True)
            c.drop(cols, zero)
            cols = padded
        pairs = keep // 2
        if pairs:
            full = c.slice(cols, [0, 0, 0, 0, 0], [lay, exp, 2 * pairs, kp_full, 2 * TILE])
            grouped = c.reshape(full, (lay, exp, pairs, 2, kp_full, 2 * TILE))
            c.deallocate(full, False)
            paired = c.permute(grouped, (0, 1, 2, 4, 3, 5))
            c.deallocate(grouped, True)
            each.append(c.reshape(paired, (lay, exp, pairs * kp_full, 4 * TILE)))
            c.drop(paired, grouped, full)
        if keep % 2:
            col = 2 * pairs
            half = c.slice(cols, [0, 0, col, 0, 0], [lay, exp, col + 1, kp_half, 2 * TILE])
            grouped = c.reshape(half, (lay, exp, kp_half // (2 * TILE), 2, TILE, 2 * TILE))
            c.deallocate(half, False)
            side = c.permute(grouped, (0, 1, 2, 4, 3, 5))
            c.deallocate(grouped, True)
            each.append(c.reshape(side, (lay, exp, kp_half // 2, 4 * TILE)))
            c.drop(side, grouped, half)
        c.deallocate(cols, True)
        c.drop(cols)
        start += own
    pad_blocks = g.banks * bank_blocks - expert_blocks
    if pad_blocks > 0:
        each.append(c.zeros((lay, exp, pad_blocks * block_rows, 4 * TILE), permuted))
    stream = c.concat(each, 2)
    for h in each:
        c.deallocate(h, True)
    c.drop(*each)
    c.deallocate(permuted, True)
    banked = c.reshape(stream, (lay, exp, g.banks, bank_blocks, block_rows, 4 * TILE))
    packed = c.permute(banked, (2, 0, 1, 3, 4, 5))
    c.deallocate(banked, False)
    c.deallocate(stream, True)
    if uniform:  # the per-core stride shape (num_cores, L, E, groups, K_padded, 4 * TILE), byte-identical
        per_core = c.reshape(packed, (g.cores, lay, exp, stored[0] // 2, kp_full, 4 * TILE))
        c.deallocate(packed, False)
        c.drop(packed)
        packed = per_core
    out = c.to_tile(packed)
    c.deallocate(packed, False)
    c.drop(packed, banked, stream, permuted, interleaved, stacked, ch0, ch1, work0, work1)
    return out


def _w0_w1(c: _Chain, ops: list[_H], g: Geometry) -> _H:
    """``prepare_w0_w1_tensor_for_moe_compute`` / ``prepare_w0_w1_tensor_with_bias``."""
    if not g.bias:
        return _w0_w1_compact(c, ops[0], ops[1], g, g.hidden, g.tpt)
    w0, w1, b0, b1 = ops
    lay, exp, n = g.layers, g.experts, g.intermediate
    r0, r1 = c.unsqueeze(b0, 2), c.unsqueeze(b1, 2)
    pad_rows = c.zeros((lay, exp, TILE - 1, n), b0)
    t0 = c.concat([r0, pad_rows], 2)
    t1 = c.concat([r1, pad_rows], 2)
    c.deallocate(r0, False)
    c.deallocate(r1, False)
    c.deallocate(pad_rows, True)
    wb0 = c.concat([w0, t0], 2)
    wb1 = c.concat([w1, t1], 2)
    c.deallocate(t0, True)
    c.deallocate(t1, True)
    out = _w0_w1_compact(c, wb0, wb1, g, (g.ht + 1) * TILE, g.tpt)
    c.deallocate(wb0, True)
    c.deallocate(wb1, True)
    c.drop(wb0, wb1, t0, t1, pad_rows, r0, r1)
    return out


def _w2_maps(g: Geometry) -> tuple[list[tuple[int, int]], list[int], int]:
    """``get_weight_core_shard_maps``: each core's (last group tiles, last group pad tiles), the W0/W1 map, groups."""
    groups = ceil(ceil(g.ht / g.cores) / BLOCK_TILES_W)
    w2_map = []
    for core in range(g.cores):
        tiles = w2_shard_tiles(g.ht, core, g.nt, g.cores)
        w2_map.append((tiles - (groups - 1) * BLOCK_TILES_W, groups * BLOCK_TILES_W - tiles))
    return w2_map, [shard_tiles(g.nt, i, g.cores) for i in range(g.cores)], groups


def _column_shards(c: _Chain, x: _H, rows: int, g: Geometry) -> list[_H]:
    """Each core's K columns of ``x`` ``[L, E, rows, K]``: its full groups, its last group, zero padding."""
    w2_map, _, groups = _w2_maps(g)
    lay, exp = g.layers, g.experts
    out: list[_H] = []
    start, full = 0, (groups - 1) * BLOCK_TILES_W * TILE
    for last, pad in w2_map:
        if full:
            out.append(c.slice(x, [0, 0, 0, start], [lay, exp, rows, start + full]))
            start += full
        out.append(c.slice(x, [0, 0, 0, start], [lay, exp, rows, start + last * TILE]))
        start += last * TILE
        if pad:
            out.append(c.zeros((lay, exp, rows, pad * TILE), x))
    return out


def _w2_no_n_pad(c: _Chain, w2: _H, g: Geometry) -> _H:
    """``prepare_w2_no_n_pad``: K column-sharded per core in 4-wide groups, then each core's N tiles rotated by its
    ring position."""
    lay, exp, n, nt, cores = g.layers, g.experts, g.intermediate, g.nt, g.cores
    _, w01_map, groups = _w2_maps(g)
    each = _column_shards(c, w2, n, g)
    reordered = c.concat(each, -1)
    for h in each:
        c.deallocate(h, True)
    c.drop(*each)
    gpb = c.reshape(reordered, (lay, exp, n, cores, groups, 4 * TILE))
    gpb2 = c.permute(gpb, (3, 0, 1, 4, 2, 5))
    c.drop(gpb)
    c.deallocate(reordered, True)
    n_grouped = c.reshape(gpb2, (cores, lay, exp, groups, nt, TILE, 4 * TILE))
    starts = [0]
    for s in w01_map:
        starts.append(starts[-1] + s)
    order = [0] + list(range(cores - 1, 0, -1))  # reversed(range(n)) rolled by one
    per_core: list[_H] = []
    for core in range(cores):
        slab = c.slice(n_grouped, [core, 0, 0, 0, 0, 0, 0], [core + 1, lay, exp, groups, nt, TILE, 4 * TILE])
        chunks = [c.slice(slab, [0, 0, 0, 0, starts[ch], 0, 0], [1, lay, exp, groups, starts[ch + 1], TILE, 4 * TILE])
                  for ch in order]
        per_core.append(c.concat(chunks, 4))
        for h in chunks:
            c.deallocate(h, True)
        c.deallocate(slab, True)
        c.drop(*chunks, slab)
        order = order[-1:] + order[:-1]
    c.deallocate(n_grouped, False)
    c.deallocate(gpb2, True)
    stacked = c.concat(per_core, 0)
    for h in per_core:
        c.deallocate(h, True)
    c.drop(*per_core)
    out = c.reshape(stacked, (cores, lay, exp, groups, nt * TILE, 4 * TILE))
    c.deallocate(stacked, False)
    c.drop(stacked, n_grouped, gpb2, reordered)
    return out


def _w2_blocks(c: _Chain, grouped: _H, k_tiles: int, g: Geometry, tpt: int) -> _H:
    """``w2_blocks_from_groups``: K padded to whole blocks; a half-width last a2a iteration laid out 2 wide."""
    cores, lay, exp, groups, rows, _ = grouped.t.shape
    bh, hh = block_tiles_h(tpt), half_block_tiles_h(tpt)
    full_rows = ceil(k_tiles / bh) * bh * TILE
    half = w2_last_iter_half(g.ht, cores, tpt)
    full_groups = groups - int(half)
    full = c.share(grouped)
    if half and full_groups > 0:
        new = c.slice(grouped, [0] * 6, [cores, lay, exp, full_groups, rows, 4 * TILE])
        c.drop(full)
        full = new
    if full_groups > 0 and full_rows > rows:
        pad = c.zeros((cores, lay, exp, full_groups, full_rows - rows, 4 * TILE), grouped)
        padded = c.concat([full, pad], 4)
        c.deallocate(pad, True)
        if half:
            c.deallocate(full, True)
        c.drop(full, pad)
        full = padded
    if not half:
        return full
    half_rows = ceil(k_tiles / hh) * hh * TILE
    last = c.slice(grouped, [0, 0, 0, groups - 1, 0, 0], [cores, lay, exp, groups, rows, HALF_BLOCK_TILES_W * TILE])
    if half_rows > rows:
        pad = c.zeros((cores, lay, exp, 1, half_rows - rows, HALF_BLOCK_TILES_W * TILE), grouped)
        padded = c.concat([last, pad], 4)
        c.deallocate(pad, True)
        c.deallocate(last, True)
        c.drop(last, pad)
        last = padded
    last_grouped = c.reshape(last, (cores, lay, exp, half_rows // (2 * TILE), 2, TILE, 2 * TILE))
    c.deallocate(last, False)
    side = c.permute(last_grouped, (0, 1, 2, 3, 5, 4, 6))
    c.deallocate(last_grouped, True)
    last_rows = c.reshape(side, (cores, lay, exp, half_rows // 2, 4 * TILE))
    if full_groups > 0:
        full_rows_t = c.reshape(full, (cores, lay, exp, full_groups * full_rows, 4 * TILE))
        stream = c.concat([full_rows_t, last_rows], 3)
        c.deallocate(full, True)
        c.deallocate(side, True)
        c.drop(full_rows_t)
    else:
        stream = c.share(last_rows)
    block_rows = bh * TILE
    stream_rows = full_groups * full_rows + half_rows // 2
    out = c.reshape(stream, (cores, lay, exp, stream_rows // block_rows, block_rows, 4 * TILE))
    c.deallocate(stream, False)
    c.drop(stream, last_rows, side, last_grouped, last, full)
    return out


def _w2(c: _Chain, ops: list[_H], g: Geometry) -> _H:
    """``prepare_w2_tensor_for_moe_compute`` / ``prepare_w2_tensor_with_bias``, then ``to_layout(TILE)``."""
    lay, exp, k = g.layers, g.experts, g.hidden
    n_reordered = _w2_no_n_pad(c, ops[0], g)
    if g.bias:
        b2 = ops[1]
        row = c.unsqueeze(b2, 2)
        pad_rows = c.zeros((lay, exp, TILE - 1, k), b2)
        tiled = c.concat([row, pad_rows], 2)
        c.deallocate(row, False)
        c.deallocate(pad_rows, True)
        each = _column_shards(c, tiled, TILE, g)
        b2_reordered = c.concat(each, -1)
        for h in each:
            c.deallocate(h, True)
        c.drop(*each)
        c.deallocate(tiled, True)
        _, _, groups = _w2_maps(g)
        b2_grouped = c.reshape(b2_reordered, (lay, exp, TILE, g.cores, groups, 4 * TILE))
        b2_perm = c.permute(b2_grouped, (3, 0, 1, 4, 2, 5))
        c.drop(b2_grouped)
        c.deallocate(b2_reordered, True)
        with_bias = c.concat([n_reordered, b2_perm], 4)
        c.deallocate(n_reordered, True)
        c.deallocate(b2_perm, True)
        blocks = _w2_blocks(c, with_bias, g.nt + 1, g, g.tpt)
        c.deallocate(with_bias, False)
        c.drop(with_bias, b2_perm, b2_reordered, tiled, pad_rows, row)
    else:
        blocks = _w2_blocks(c, n_reordered, g.nt, g, g.tpt)
        c.deallocate(n_reordered, False)
    out = c.to_tile(blocks)
    c.deallocate(blocks, False)
    c.drop(blocks, n_reordered)
    return out


# -- the op -------------------------------------------------------------------------------------------------------------

def geometry(ctx: CBContext) -> Geometry:
    """The op's :class:`Geometry` on ``ctx.arch`` (the ring and the banks: the device's DRAM channels).

    Raises:
        CBModelError: another tt-metal than ttnn 0.81.1's packer, sizes that are not positive tile multiples (the
            verifier's job), weights that are not rank 4 or not ``[L, E, ...]`` alike.
    """
    op = ctx.op
    if ctx.tt_metal != "0.81.1":
        raise CBModelError(f"{op.name} is modeled on ttnn 0.81.1's packer only (moe_compute_utils.cpp changes often)")
    k, n = int_attr(op, "hidden_size"), int_attr(op, "intermediate_size")
    if k <= 0 or n <= 0 or k % TILE or n % TILE:
        raise CBModelError(f"{op.name}: hidden_size {k} and intermediate_size {n} must be positive tile multiples")
    tensors = [v for v in op.operands if v.is_tensor]
    w = operand(ctx, 0)
    if w.rank != 4:
        raise CBModelError(f"{op.name}: the weights must be [L, E, K, N] (rank 4), not rank {w.rank}")
    banks = ctx.arch.num_dram_channels
    bias = len(tensors) > (2 if op.name == W0_W1 else 1)
    return Geometry(w.shape[0], w.shape[1], k, n, bias, banks, banks)


def _operands(ctx: CBContext) -> list[Tensor]:
    ops = [operand(ctx, i) for i, v in enumerate(ctx.op.operands) if v.is_tensor]
    for t in ops:
        if t.tiled or t.sharded or t.dtype.is_block_float:
            raise CBModelError(f"{ctx.op.name}: the packer's chain is modeled for interleaved row-major weights (the "
                               "op's workaround makes them row-major)")
    return ops


def _weight_shape(op_name: str, g: Geometry) -> tuple[int, ...]:
    lead = (g.layers, g.experts)
    return lead + ((g.hidden, g.intermediate) if op_name == W0_W1 else (g.intermediate, g.hidden))


def _plan(ctx: CBContext) -> tuple[tuple[ProgramModel, ...], Tensor]:
    """The packer's programs (with their buffer events; the runtime's host step after the last) and the op's result
    tensor, derived once per context (:func:`~ttanalyze.ops.cb.plan_of`)."""
    g = geometry(ctx)
    ops = _operands(ctx)
    want = _weight_shape(ctx.op.name, g)
    for t in ops[:2 if ctx.op.name == W0_W1 else 1]:
        if t.shape != want:
            raise CBModelError(f"{ctx.op.name}: weights {list(t.shape)}, expected {list(want)} from hidden_size "
                               f"{g.hidden} and intermediate_size {g.intermediate}")
    c = _Chain(ctx)
    packed = (_w0_w1 if ctx.op.name == W0_W1 else _w2)(c, [c.owned_input(t) for t in ops], g)
    c.events.append(("result",))  # quantize_weights_via_host: read back, to bfloat4_b, written as the result
    c.drop(packed)  # the runtime's handle on the packed tensor ends with the op
    stages = c.stages()
    out = result_tensor(packed.t, g, ctx.op.name, ctx.arch.num_dram_channels)
    stages[-1].notes.append(
        f"then on the host (quantize_weights_via_host): the packed {'x'.join(map(str, packed.t.shape))} "
        f"{packed.t.dtype} tile tensor is read back, converted to bfloat4_b and written DRAM height-sharded "
        f"({out.shard.shape[0]} x {out.shard.shape[1]} per bank; {len(stages)} device programs before it)")
    return tuple(stages), out


def result_tensor(packed: Tensor, g: Geometry, op_name: str, banks: int) -> Tensor:
    """The op's result: the packed tile tensor as bfloat4_b, DRAM height-sharded over every bank in shards of
    ``get_weight_mem_configs`` height and 4 tiles width (the banks' order on the ring is the device's DRAM-bank to
    worker assignment: not modeled, it moves no byte)."""
    grid = CoreRangeSet(tuple(CoreRange(CoreCoord(b, 0), CoreCoord(b, 0)) for b in range(banks)))
    shard = Shard(grid, (g.shard_height(op_name), BLOCK_TILES_W * TILE))
    return packed.with_(dtype=DataType("bfp_bf4"), mem=MemCfg("dram", "height_sharded", shard))


@register_cb((W0_W1, W2))
def moe_prepare_programs(ctx: CBContext) -> list[ProgramModel]:
    """The packer's device programs in order (module docstring), each with its buffer events; the last one's notes
    say what the runtime does after it on the host.

    Raises:
        CBModelError: see :func:`geometry`; operands that are not interleaved row-major weights of the op's sizes.
    """
    return list(plan_of(ctx, _plan)[0])


@register_spec((W0_W1, W2))
def moe_prepare_spec(ctx: CBContext) -> list[TensorSpec]:
    """The packed tensor's shape (its last two dims: block rows x 4 tiles), tile layout, bfloat4_b, in the DRAM
    height-sharded config of ``get_weight_mem_configs`` (tt-mlir's runtime passes it to quantize_weights_via_host).

    Raises:
        CBModelError: see :func:`moe_prepare_programs`.
    """
    return [plan_of(ctx, _plan)[1].spec()]


register_passive((W0_W1, W2), "moe", ("hidden_size", "intermediate_size", "operandSegmentSizes"),
                 "tt-mlir TTNNOps.td @19c86fca: the result shape is derived at compile time by a graph capture of the "
                 "packer on the target device (TTNNDeduceMoEComputeLayouts); the spec model derives it")

register_check((W0_W1, W2), "mock", "tests/test_ops_moe_prepare.py against measurements/moe_prep/results.jsonl",
               ("ConcatDeviceOperation", "ReshapeDeviceOperation", "PermuteDeviceOperation", "SliceDeviceOperation",
                "TilizeDeviceOperation"))
