"""L1 and DRAM in use at each op of the program.

For every op, the bytes that live tensors hold in one L1 bank (= one core) and
in one DRAM bank.  A tensor holds :attr:`Placement.bytes_per_bank` in every bank
of its buffer type from its producer to the end of its lifetime
(:mod:`ttanalyze.graph`); the tt-metal allocator reserves the same address
range in every bank, so the per-core figure is the same on all cores.

Circular buffers are added per op from the op's program model
(:mod:`ttanalyze.programs`).  These sums ignore placement; :func:`replay` runs
the same program through the model of tt-metal's allocator
(:mod:`ttanalyze.allocator`), buffer by buffer in program order, and gives the
address range in use, out-of-memory by capacity and by fragmentation, and how
sure it is of each (see :class:`AllocationReplay`).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from math import prod
from operator import attrgetter

from . import layout as L
from .allocator import Allocation, DeviceAllocator, OutOfMemory
from .arch import Arch
from .graph import Lifetime, lifetimes
from .ir.model import Program, Value
from .ops.generic import BUFFER_SHARING_OPS, tied_operand
from .ops.host import SEMAPHORE_OPS, global_semaphore_buffer
from .ops.moe_compute import aliased_result



@dataclass(slots=True)
class MemoryPoint:
    """Memory in use while one op runs (bytes).

    ``l1_per_core`` (live L1 tensors) and ``dram_per_bank`` include the op's
    operands and results; ``cb_per_core`` is the static circular-buffer region
    of the op's program on its busiest core (0 when the op has no modeled
    program); ``op_l1_buffers_per_core`` the L1 buffers its programs allocate
    for intermediates (:attr:`ttanalyze.ops.cb.ProgramModel.l1_buffers_per_core`).
    """

    op_index: int
    l1_per_core: int
    dram_per_bank: int
    cb_per_core: int = 0
    op_l1_buffers_per_core: int = 0
    l1_extent_per_core: int = 0
    dram_extent_per_bank: int = 0

    @property
    def l1_total_per_core(self) -> int:
        """Live L1 tensors, the op's intermediate L1 buffers and its circular buffers, per core."""
        return self.l1_per_core + self.op_l1_buffers_per_core + self.cb_per_core


@dataclass
class MemoryTimeline:
    """Per-op memory of a whole program and the lifetimes behind it."""

    points: dict[int, MemoryPoint]
    lifetimes: dict[Value, Lifetime]
    infos: dict[Value, L.LayoutInfo]
    shared: set[Value] = field(default_factory=set)  # results that are an operand's buffer (:func:`_tied_ends`)
    shared_until: dict[Value, int] = field(default_factory=dict)  # such an operand's buffer lives to this op

    def live_at(self, op_index: int, buffer_type: str) -> list[tuple[Value, L.LayoutInfo]]:
        """Tensors of ``buffer_type`` (``l1``/``dram``) alive at an op, largest first."""
        live = []
        for v, lt in self.lifetimes.items():
            info = self.infos.get(v)
            if info is None or info.placement is None or info.placement.buffer_type != buffer_type or v in self.shared:
                continue
            if lt.start <= op_index <= max(lt.end, self.shared_until.get(v, lt.end)):
                live.append((v, info))
        live.sort(key=lambda vi: -vi[1].placement.bytes_per_bank)
        return live

    @property
    def peak_l1(self) -> MemoryPoint | None:
        """The (first) op with the most L1 per core: live tensors, its op buffers and its circular buffers."""
        peak, most = None, 0
        for p in self.points.values():  # l1_total_per_core, inline: one pass over 50,000 points per report
            if (total := p.l1_per_core + p.op_l1_buffers_per_core + p.cb_per_core) > most or peak is None:
                peak, most = p, total
        return peak

    @property
    def peak_dram(self) -> MemoryPoint | None:
        """The (first) op with the most DRAM per bank in live tensors."""
        return max(self.points.values(), key=attrgetter("dram_per_bank"), default=None)


def timeline(program: Program, arch: Arch, infos: dict[Value, L.LayoutInfo]) -> MemoryTimeline:
    """Sweep every function's lifetimes into per-op L1/DRAM figures.

    Args:
        program: the parsed program.
        arch: chip parameters (bank counts, alignments).
        infos: the layout info of every tensor value (values without one hold
            no device memory).
    """
    points: dict[int, MemoryPoint] = {}
    all_lifetimes: dict[Value, Lifetime] = {}
    shared: set[Value] = set()
    shared_until: dict[Value, int] = {}
    for func in program.funcs:
        if not func.ops:
            continue
        lts = lifetimes(func)
        all_lifetimes.update(lts)
        first = func.ops[0].index
        n = func.ops[-1].index - first + 1
        delta_l1 = [0] * (n + 1)
        delta_dram = [0] * (n + 1)
        ends = _tied_ends(func, lts)
        tied, tied_end = ends["tied"], ends["end"]
        shared |= tied
        shared_until.update(tied_end)
        get_info = infos.get
        for v, lt in lts.items():
            info = get_info(v)
            if info is None:
                continue
            p = info.placement
            if p is None or (tied and v in tied):
                continue  # a result that is an operand's buffer holds no bytes of its own
            b = p.bytes_per_bank
            end = lt.end
            if tied_end and v in tied_end:
                end = max(end, tied_end[v])
            delta = delta_l1 if p.buffer_type == "l1" else delta_dram
            delta[lt.start - first] += b
            delta[end - first + 1] -= b
        l1 = dram = 0
        for op in func.ops:
            index = op.index
            i = index - first
            l1 += delta_l1[i]
            dram += delta_dram[i]
            points[index] = MemoryPoint(index, l1, dram)
    return MemoryTimeline(points, all_lifetimes, infos, shared, shared_until)


def _tied_ends(func, lts: dict[Value, Lifetime]) -> dict:
    """Results that are one of their op's operands' buffers (:func:`ttanalyze.ops.generic.tied_operand`) or another
    result's (:func:`ttanalyze.ops.moe_compute.aliased_result`): ``tied``,
    the set of them, and ``end``, the last op index each such operand's buffer lives to (the latest end among the
    values sharing it)."""
    tied: set[Value] = set()
    end: dict[Value, int] = {}
    root_of: dict[Value, Value] = {}
    for op in func.ops:
        if op.name not in BUFFER_SHARING_OPS:
            continue  # every result its own buffer
        for k, r in enumerate(op.results):
            t = tied_operand(op, k)
            src = op.operands[t] if t is not None and t < len(op.operands) else None
            j = aliased_result(op, k)
            src = op.results[j] if src is None and j is not None else src
            if src is None or r not in lts:
                continue
            root = root_of.get(src, src)
            if root not in lts:
                continue
            root_of[r] = root
            tied.add(r)
            end[root] = max(end.get(root, lts[root].end), lts[r].end)
    return {"tied": tied, "end": end}


# ---------------------------------------------------------------------------
# The allocator replay
# ---------------------------------------------------------------------------

# Ops that ttnn may run as a view of (or return) their input: their result shares the input's
# buffer when the op's model says no program runs (reshape_view/reshape.cpp ``this_is_view``,
# to_memory_config of the same config...); without a model the result may or may not be new.
VIEW_CAPABLE = frozenset({
    "ttnn.reshape", "ttnn.permute", "ttnn.transpose", "ttnn.pad", "ttnn.slice_static", "ttnn.repeat",
    "ttnn.to_memory_config", "ttnn.to_layout", "ttnn.typecast", "ttnn.squeeze", "ttnn.unsqueeze", "ttnn.view",
})
NEAR_FULL = 0.95  # share of a bank above which a fit is reported as tight (TTA015)
MAX_REASONS = 3  # reasons of doubt kept per buffer type


@dataclass(slots=True)
class Buffer:
    """One device buffer of the replay: an IR tensor (``value``) or an op-internal buffer.

    ``certain`` is False when the buffer may not exist as modeled (a possible view, an
    intermediate of a composite op whose allocation order is approximated); ``members``
    counts the live values sharing it (views).
    """

    label: str
    buffer_type: str  # l1 / l1_small / dram
    allocation: Allocation
    certain: bool
    value: Value | None = None
    members: int = 1


@dataclass(frozen=True)
class LiveBuffer:
    """A buffer alive at a refused allocation (the refused one has ``requested``), bytes per bank."""

    label: str
    bytes_per_bank: int
    certain: bool
    value: Value | None = None
    requested: bool = False


@dataclass
class AllocationFailure:
    """An allocation tt-metal's allocator would refuse.

    Attributes:
        op_index: the op during which it happens.
        label: what is allocated (``result %3``, ``an intermediate buffer of ...``).
        buffer_type: ``l1`` / ``l1_small`` / ``dram``.
        oom: the refusal, with tt-metal's figures and text.
        certain: the model is sure (see :func:`replay`).
        uncertain: what the model is unsure of, when not certain.
        live: the buffers alive at the failure and the refused one, largest first.
        certain_bytes: per-bank bytes that certainly coexist (the request included when certain).
        value: the IR value whose buffer fails, if any.
    """

    op_index: int
    label: str
    buffer_type: str
    oom: OutOfMemory
    certain: bool
    uncertain: list[str]
    live: list[LiveBuffer]
    certain_bytes: int
    value: Value | None = None

    @property
    def fragmentation(self) -> bool:
        return self.oom.fragmentation


@dataclass(slots=True)
class AllocatorPoint:
    """The allocator's state at the busiest moment of one op (bytes per bank).

    ``allocated``: sum of the live blocks (64-B aligned); ``extent``: the address range
    in use from the allocation end of the bank (top of L1 / DRAM base) to the farthest
    live block, holes included.
    """

    op_index: int
    l1_allocated: int = 0
    l1_extent: int = 0
    dram_allocated: int = 0
    dram_extent: int = 0


@dataclass
class AllocationReplay:
    """Every allocation and deallocation of a program through tt-metal's allocator model.

    Attributes:
        configs: the banks (:func:`ttanalyze.allocator.bank_configs`).
        points: per op index, the allocator's state at its peak.
        failures: refused allocations, in program order (one per function at most is
            certain: tt-metal stops at the first).
        assumptions: what the whole replay assumes (e.g. the device holds nothing else).
        l1_lowest_at_op: per op index, the lowest allocated L1 address (absolute, bytes; None: no L1
            buffer) when its program is created: its operands and results allocated, nothing of its own
            yet (tt-metal ``lowest_occupied_compute_l1_address``, which ``get_max_l1_space`` reads).
        l1_lowest_in_stage: per (op index, program number), the lowest allocated L1 address while that
            program runs (the op's intermediates and its programs' own L1 buffers included): what
            tt-metal compares a program's CB/DFB region end with ("clash with L1 buffers").
        l1_inexact_at_op / l1_inexact_in_stage: keyed as the two above, why the L1 placement there may
            differ from tt-metal's (absent: exact).
    """

    configs: dict
    points: dict[int, AllocatorPoint]
    failures: list[AllocationFailure]
    assumptions: list[str]
    l1_lowest_at_op: dict[int, int | None] = field(default_factory=dict)
    l1_lowest_in_stage: dict[tuple[int, int], int | None] = field(default_factory=dict)
    l1_inexact_at_op: dict[int, list[str]] = field(default_factory=dict)
    l1_inexact_in_stage: dict[tuple[int, int], list[str]] = field(default_factory=dict)


def _request(info: L.LayoutInfo) -> tuple[int, int, int | None]:
    """(size, page size, shards) tt-metal's Buffer passes to the allocator for an IR tensor (bytes)."""
    p = info.placement
    if not p.memory_layout or not p.memory_layout.endswith("sharded"):
        return p.pages * p.page_bytes, p.page_bytes, None
    memref = info.ir_memref
    shard_pages = prod(memref) if info.tile else prod(memref[:-1])
    return shard_pages * p.cores_with_data * p.aligned_page_bytes, p.aligned_page_bytes, p.cores_with_data


def _tensor_request(t) -> tuple[str, int, int, int | None]:
    """(buffer type, size, page size, shards) of an op model's :class:`~ttanalyze.ops.tensors.Tensor`."""
    if t.tiled:
        page = t.tile_bytes
        pages = t.physical_volume // 1024
        if t.sharded:
            return t.buffer_type, t.shard.tiles * len(t.shard.cores) * page, page, len(t.shard.cores)
        return t.buffer_type, pages * page, page, None
    page = t.width * t.element_bytes
    if t.sharded:
        rows, width = t.shard.shape
        page = width * t.element_bytes
        return t.buffer_type, rows * len(t.shard.cores) * page, page, len(t.shard.cores)
    return t.buffer_type, t.height * page, page, None


class _Replay:
    """The state of one replay (see :func:`replay`): the device allocator, live buffers, refusals, doubts."""

    def __init__(self, analysis, trace_region_size: int):
        self.a = analysis
        self.trace_region_size = trace_region_size
        self.dev = DeviceAllocator(analysis.arch, trace_region_size)
        self.points: dict[int, AllocatorPoint] = {}
        self.failures: list[AllocationFailure] = []
        self.live: dict[int, Buffer] = {}  # id(buffer) -> buffer
        self.inexact: dict[str, list[str]] = {"l1": [], "l1_small": [], "dram": []}  # why placement may differ from tt-metal's
        self.failed_in_func = False
        self.kept: set = set()  # program-cache keys whose kept buffers are allocated
        self.l1_lowest_at_op: dict[int, int | None] = {}
        self.l1_lowest_in_stage: dict[tuple[int, int], int | None] = {}
        self.l1_inexact_at_op: dict[int, list[str]] = {}
        self.l1_inexact_in_stage: dict[tuple[int, int], list[str]] = {}
        self.requests: dict[int, tuple[int, int, int | None]] = {}  # _request of each LayoutInfo, by id
        self.inexact_l1_copy: list[str] | None = None  # the copy of inexact["l1"] the ops share while it is unchanged
        self._banks()

    def _banks(self) -> None:
        """Short cuts to the L1 and DRAM free lists, read at every op (:meth:`snapshot`, :meth:`lowest_l1`)."""
        self.l1, self.dram = self.dev.managers["l1"], self.dev.managers["dram"]
        self.l1_free, self.dram_free = self.l1.free_list, self.dram.free_list
        self.l1_base = self.l1.config.base
        # L1 is allocated top-down and DRAM bottom-up (allocator.bank_configs), so their extents are read at
        # opposite ends (BankManager.in_use_extent)
        assert not self.l1.config.bottom_up and self.dram.config.bottom_up

    def lowest_l1(self) -> int | None:
        """The lowest allocated L1 address now (absolute), or None (``BankManager.lowest_occupied_address``)."""
        fl = self.l1_free
        return self.l1_base + fl.free_by_start.get(0, 0) if fl.allocated else None

    def inexact_l1(self) -> list[str] | None:
        """A copy of why the L1 placement may differ from tt-metal's now, or None when it is exact; the ops
        share one copy until a reason is added (the lists are read, never changed)."""
        if not self.inexact["l1"]:
            return None
        if self.inexact_l1_copy is None:
            self.inexact_l1_copy = list(self.inexact["l1"])
        return self.inexact_l1_copy

    def reset(self) -> None:
        self.dev = DeviceAllocator(self.a.arch, self.trace_region_size)
        self._banks()
        self.live = {}
        self.inexact = {"l1": [], "l1_small": [], "dram": []}
        self.inexact_l1_copy = None
        self.failed_in_func = False
        self.kept = set()

    # -- allocation primitives -------------------------------------------------
    def alloc(self, op_index: int, label: str, buffer_type: str, size: int, page: int, shards: int | None,
              certain: bool, value: Value | None = None, why_uncertain: str = "") -> Buffer | None:
        try:
            got = self.dev.managers[buffer_type].allocate(size, page, shards)  # DeviceAllocator.allocate
        except ValueError:
            return None
        if isinstance(got, OutOfMemory):
            self._fail(op_index, label, buffer_type, got, certain, value, why_uncertain)
            self.note_inexact(buffer_type, f"an earlier allocation ({label}) already failed")
            return None
        buf = Buffer(label, buffer_type, got, certain, value)
        self.live[id(buf)] = buf
        if not certain and why_uncertain:
            self.note_inexact(buffer_type, why_uncertain)
        return buf

    def note_inexact(self, buffer_type: str, reason: str) -> None:
        """Record why placement in ``buffer_type`` may differ from tt-metal's from here on (first few reasons)."""
        if len(self.inexact[buffer_type]) < MAX_REASONS:
            self.inexact[buffer_type].append(reason)
        elif len(self.inexact[buffer_type]) == MAX_REASONS:
            self.inexact[buffer_type].append("and more")
        else:
            return
        if buffer_type == "l1":
            self.inexact_l1_copy = None

    def free(self, buf: Buffer | None) -> None:
        if buf is None or id(buf) not in self.live:
            return
        buf.members -= 1
        if buf.members <= 0:
            del self.live[id(buf)]
            self.dev.managers[buf.buffer_type].deallocate(buf.allocation)

    def _fail(self, op_index, label, buffer_type, oom, certain, value, why_uncertain) -> None:
        live = [LiveBuffer(b.label, b.allocation.aligned_size_per_bank, b.certain, b.value) for b in self.live.values()
                if b.buffer_type == buffer_type]
        live.append(LiveBuffer(label, oom.aligned_size_per_bank, certain, value, requested=True))
        live.sort(key=lambda x: -x.bytes_per_bank)
        certain_bytes = sum(x.bytes_per_bank for x in live if x.certain)
        reasons: list[str] = []
        if not certain:
            reasons.append(why_uncertain or f"{label} may not be allocated as modeled")
        if self.failed_in_func:
            reasons.append("an earlier allocation of this function already failed: tt-metal stops there")
        if oom.fragmentation:
            reasons += self.inexact[buffer_type]
            sure = not reasons
        else:
            # capacity: sure when the buffers certain to coexist already exceed the bank
            if certain_bytes > oom.stats.bank_size and not self.failed_in_func:
                reasons = []
            elif certain_bytes <= oom.stats.bank_size:
                reasons.append(f"the buffers certain to be alive hold {certain_bytes} B per bank, within the bank")
            sure = not reasons
        self.failures.append(AllocationFailure(op_index, label, buffer_type, oom, sure, _dedup(reasons), live,
                                               certain_bytes, value))
        self.failed_in_func = True

    def snapshot(self, op_index: int) -> None:
        """Raise ``op_index``'s :class:`AllocatorPoint` to the L1 and DRAM allocated now and their extents
        (``BankManager.in_use_extent``, read from the free lists in place: L1 top-down, DRAM bottom-up)."""
        pt = self.points.get(op_index)
        l1, dram = self.l1_free, self.dram_free
        if pt is None:  # the op's first snapshot (most ops have one): its figures as they are now
            self.points[op_index] = AllocatorPoint(
                op_index, l1.allocated_bytes, l1.size - l1.free_by_start.get(0, 0) if l1.allocated_bytes else 0,
                dram.allocated_bytes, dram.free_by_end.get(dram.size, dram.size) if dram.allocated_bytes else 0)
            return
        fl = l1
        if allocated := fl.allocated_bytes:  # nothing allocated: extent 0
            if allocated > pt.l1_allocated:
                pt.l1_allocated = allocated
            if (extent := fl.size - fl.free_by_start.get(0, 0)) > pt.l1_extent:
                pt.l1_extent = extent
        fl = dram
        if allocated := fl.allocated_bytes:
            if allocated > pt.dram_allocated:
                pt.dram_allocated = allocated
            if (extent := fl.free_by_end.get(fl.size, fl.size)) > pt.dram_extent:
                pt.dram_extent = extent

    # -- program walk ------------------------------------------------------------
    def value_buffer(self, op_index: int, v: Value, label: str, certain: bool = True, why: str = "") -> Buffer | None:
        info = self.a.infos.get(v)
        if info is None or info.placement is None:
            return None
        request = self.requests.get(id(info))  # infos are shared by the values of one type (analysis._add_info)
        if request is None:
            request = self.requests[id(info)] = _request(info)
        size, page, shards = request
        lay = getattr(v.type, "layout", None)
        bt = "l1_small" if lay is not None and lay.buffer_type == "l1_small" else info.placement.buffer_type
        return self.alloc(op_index, label, bt, size, page, shards, certain, v, why)

    def run_func(self, func, bound: dict[Value, Buffer | None], depth: int = 0) -> dict[Value, Buffer | None]:
        """Replay ``func``'s ops; ``bound`` maps its arguments to buffers. Returns every value's buffer."""
        all_lts = self.a.memory.lifetimes
        ends: dict[int, list[tuple[Value, Lifetime]]] = {}  # by op index, the values whose lifetime ends there
        for v in func.args:
            if v in bound and (lt := all_lts.get(v)) is not None:
                ends.setdefault(lt.end, []).append((v, lt))
        for op in func.ops:
            for r in op.results:
                if (lt := all_lts.get(r)) is not None and r.producer is not None:
                    ends.setdefault(lt.end, []).append((r, lt))
        bufs: dict[Value, Buffer | None] = dict(bound)
        returned = set(func.returns)
        pinned: set[int] = set()  # buffers of load_cached results: the cache keeps them
        run_op, snapshot, ends_at = self.run_op, self.snapshot, ends.get
        for op in func.ops:
            if op.name == "ttnn.deallocate" or not run_op(op, bufs, pinned, depth):  # run_op returns at once
                snapshot(op.index)
            ending = ends_at(op.index)
            if ending is None:
                continue
            for v, lt in ending:
                if v in returned or (v in bound and (depth or lt.end_reason != "deallocate")):
                    continue  # the caller owns arguments (an explicit ttnn.deallocate frees one); returned values outlive the function
                b = bufs.get(v)
                if b is None:
                    continue
                if id(b) in pinned and not (lt.end_reason == "deallocate"
                                            and self.a.program.ops[op.index].attrs.get("force") is True):
                    continue  # ttnn::deallocate(force=false) keeps a buffer the const-eval cache also holds
                if lt.end_reason == "last use" and len(self.inexact[b.buffer_type]) < MAX_REASONS:
                    self.note_inexact(b.buffer_type, f"{v.name} has no ttnn.deallocate: freed at its last use here, "
                                      "while the tt-mlir runtime keeps it until the program ends")
                self.free(b)
        return bufs

    def run_op(self, op, bufs: dict[Value, Buffer | None], pinned: set[int], depth: int) -> bool:
        """Allocate the op's results and run its programs' own buffers; whether the op's peak is recorded
        (:meth:`op_internal` snapshots every program, and what is live after it is a subset of that)."""
        i = op.index
        if op.name == "ttnn.deallocate":
            return False  # frees through lifetimes (the deallocate op ends its operand's lifetime)
        if op.callee and depth < 8:
            callee = self.a.program.func(op.callee)
            if callee is not None:
                bound = {a: bufs.get(v) for a, v in zip(callee.args, op.operands)}
                inner = self.run_func(callee, bound, depth + 1)  # never frees its arguments
                for r, rv in zip(op.results, callee.returns):
                    b = inner.get(rv)
                    if b is not None and rv in bound:
                        b.members += 1  # the callee returns its argument
                    bufs[r] = b
                    if b is not None and op.name == "ttcore.load_cached":
                        pinned.add(id(b))
                return False
        prog = self.a.programs.get(i)
        status = prog.status if prog is not None else "unmodeled"
        view_capable = op.name in VIEW_CAPABLE
        sharing = op.name in BUFFER_SHARING_OPS
        for k, r in enumerate(op.results):
            if sharing:
                alias = aliased_result(op, k)
                if alias is not None and bufs.get(op.results[alias]) is not None:  # one buffer, two views
                    bufs[r] = bufs[op.results[alias]]
                    bufs[r].members += 1
                    continue
                tied = tied_operand(op, k)
                if tied is not None and bufs.get(op.operands[tied]) is not None:  # the result is that operand's buffer
                    bufs[r] = bufs[op.operands[tied]]
                    bufs[r].members += 1
                    continue
            if view_capable and status == "not_device" and op.operands:
                src = op.operands[0]
                info, src_info = self.a.infos.get(r), self.a.infos.get(src)
                if info is not None and src_info is not None and info.placement is not None \
                        and src_info.placement is not None \
                        and info.placement.buffer_type == src_info.placement.buffer_type and bufs.get(src) is not None:
                    b = bufs[src]
                    b.members += 1
                    bufs[r] = b
                    continue
            maybe_view = view_capable and status != "modeled"
            why = (f"{op.name} at line {op.pos.line} has no program model here ({status}): its result may be a view "
                   "of its input" if maybe_view else "")
            bufs[r] = self.value_buffer(i, r, f"result {r.name} of {op.name}", not maybe_view, why)
        if op.name in SEMAPHORE_OPS and op.results and global_semaphore_buffer(op) is not None:
            size, page, cores = global_semaphore_buffer(op)  # held to the program's end: no lifetime ends it
            bufs[op.results[0]] = self.alloc(i, f"global semaphore {op.results[0].name} of {op.name} ({page} B on each "
                                             f"of {cores} cores)", "l1", size, page, cores, True, None)
        fl = self.l1_free  # lowest_l1 and inexact_l1, inline
        lowest = self.l1_lowest_at_op[i] = self.l1_base + fl.free_by_start.get(0, 0) if fl.allocated else None
        inexact = self.inexact_l1() if self.inexact["l1"] else None
        if inexact is not None:
            self.l1_inexact_at_op[i] = inexact
        if prog is None or not prog.stages:
            return False
        stages = prog.stages
        if len(stages) == 1:
            st = stages[0]
            if not st.events and not st.device_buffers and not st.l1_buffers_per_core:
                # op_internal of one program that allocates nothing: the L1 stays as it is at the op
                self.l1_lowest_in_stage[(i, 0)] = lowest
                if inexact is not None:
                    self.l1_inexact_in_stage[(i, 0)] = inexact
                self.snapshot(i)
                return True
        if any(st.events for st in stages):
            self.op_events(op, stages, bufs)
        else:
            self.op_internal(op, stages)
        return True

    def op_events(self, op, stages, bufs: dict[Value, Buffer | None]) -> None:
        """A composite op whose model lists its buffers in tt-metal's order (:attr:`ProgramModel.events`): each
        intermediate allocated and freed where the model says, the op's results allocated at its ``("result",)``
        event (they were allocated before its programs above: freed again first), a snapshot after every
        allocation and at every program.  A program's own device buffers and L1 buffers are held while it runs."""
        moved = any(ev[0] == "result" for st in stages for ev in st.events)
        if moved:
            for r in op.results:
                self.free(bufs.get(r))
        live: dict[int, Buffer] = {}
        for k, st in enumerate(stages):
            for ev in st.events:
                if ev[0] == "+":
                    t = ev[2]
                    try:
                        bt, size, page, shards = _tensor_request(t)
                    except Exception:
                        continue
                    b = self.alloc(op.index, f"an intermediate {'x'.join(map(str, t.shape))} {t.dtype} {bt} tensor "
                                   f"of {op.name}", bt, size, page, shards, True, None)
                    if b is not None:
                        live[ev[1]] = b
                    self.snapshot(op.index)
                elif ev[0] == "-":
                    self.free(live.pop(ev[1], None))
                elif ev[0] == "result":
                    for r in op.results:
                        bufs[r] = self.value_buffer(op.index, r, f"result {r.name} of {op.name}")
                    self.snapshot(op.index)
                elif ev[0] == "run":
                    own = [self.alloc(op.index, db.what + f" in {op.name}", db.buffer_type, db.size, db.page_size,
                                      None, True, None) for db in st.device_buffers]
                    if st.l1_buffers_per_core:
                        n = st.l1_buffers_per_core
                        own.append(self.alloc(op.index, f"the L1 buffers of {st.factory} ({n} B per core)", "l1",
                                              n * self.a.arch.num_cores, n, None, True, None))
                    self.l1_lowest_in_stage[(op.index, k)] = self.lowest_l1()
                    if self.inexact["l1"]:
                        self.l1_inexact_in_stage[(op.index, k)] = self.inexact_l1()
                    self.snapshot(op.index)
                    for b in own:
                        self.free(b)
        for b in live.values():
            self.free(b)

    def op_internal(self, op, stages) -> None:
        """Buffers the op allocates while it runs: intermediates between the programs of a composite op, the
        device buffers its factories allocate (:attr:`ProgramModel.device_buffers`: kept ones stay until the
        device closes, once per distinct program) and each program's own L1 buffers
        (:attr:`ProgramModel.l1_buffers_per_core`)."""
        last = len(stages) - 1
        finals = {id(t) for t in stages[-1].outputs} if last else set()
        pending: list[Buffer] = []
        arch = self.a.arch
        for k, st in enumerate(stages):
            fresh: list[Buffer] = []
            if k < last:
                for t in st.outputs:
                    if id(t) in finals or any(t == f for f in stages[-1].outputs) or any(t == x for x in st.inputs):
                        continue
                    try:
                        bt, size, page, shards = _tensor_request(t)
                    except Exception:
                        continue
                    b = self.alloc(op.index, f"an intermediate {'x'.join(map(str, t.shape))} {t.dtype} {bt} tensor "
                                   f"of {op.name} ({st.factory})", bt, size, page, shards, False, None,
                                   f"{op.name} at line {op.pos.line} is a composite whose intermediate buffers' order "
                                   "is approximated")
                    if b is not None:
                        fresh.append(b)
            for db in st.device_buffers:
                key = (st.factory, db.buffer_type, db.size, db.page_size, tuple(t.shape for t in st.inputs),
                       tuple(a.type for a in op.operands), tuple(r.type for r in op.results))
                if db.kept and key in self.kept:
                    continue  # a program-cache hit reuses the cached program and its buffer
                b = self.alloc(op.index, db.what + f" in {op.name}", db.buffer_type, db.size, db.page_size, None,
                               True, None)
                if b is not None and db.kept:
                    self.kept.add(key)  # held by the program cache (on in the tt-mlir runtime) until the device closes
                elif b is not None:
                    fresh.append(b)
            if st.l1_buffers_per_core:
                n = st.l1_buffers_per_core
                b = self.alloc(op.index, f"the L1 buffers of {st.factory} ({n} B per core)", "l1",
                               n * arch.num_cores, n, None, False, None,
                               f"{op.name} at line {op.pos.line} allocates L1 buffers inside its program "
                               "(their order relative to its output is approximated)")
                self.snapshot(op.index)
                self.l1_lowest_in_stage[(op.index, k)] = self.lowest_l1()
                self.free(b)
            else:
                self.l1_lowest_in_stage[(op.index, k)] = self.lowest_l1()
            if self.inexact["l1"]:
                self.l1_inexact_in_stage[(op.index, k)] = self.inexact_l1()
            self.snapshot(op.index)
            for b in pending:
                self.free(b)
            pending = fresh
        for b in pending:
            self.free(b)


def _dedup(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for x in items:
        seen.setdefault(x, None)
    return list(seen)


def replay(analysis, trace_region_size: int = 0) -> AllocationReplay:
    """Run every allocation and deallocation of the program through tt-metal's allocator model.

    Order, per function (from an empty device): its tensor arguments in order; then per op,
    its results (tt-metal allocates an op's outputs before its program runs, while the
    inputs are alive; a view shares its input's buffer), the buffers the op allocates while
    it runs (intermediates of a composite op's programs, each program's L1 buffers), and
    after the op the values whose lifetime ends there (:func:`ttanalyze.graph.lifetimes`).
    A ``ttcore.load_cached`` or call runs the callee in place; the cache keeps
    ``load_cached`` results to the end.  Functions called from another are replayed
    there only.

    Certainty of a refusal: by capacity, sure when the buffers certain to be alive
    (IR tensors of modeled ops, arguments) already exceed the bank; by fragmentation, sure
    only when every allocation and free before it in that buffer type is known exactly
    (no last-use frees, no possible view, no approximated intermediate, no earlier
    failure).

    Args:
        analysis: a program's :class:`~ttanalyze.analysis.Analysis` (its programs computed).
        trace_region_size: the device's trace region in bytes (0: the tt-mlir runtime's).
    """
    r = _Replay(analysis, trace_region_size)
    program = analysis.program
    called = {op.callee for op in program.ops if op.callee}
    # The replay makes no reference cycles; the collector's passes over the analysis's large heap would
    # double its time on a 50,000-op program.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for func in program.funcs:
            if func.name in called or not func.ops:
                continue
            r.reset()
            bound = {}
            for v in func.args:
                bound[v] = r.value_buffer(func.ops[0].index, v, f"argument {v.name}")
            r.run_func(func, bound)
    finally:
        if was_enabled:
            gc.enable()
    assumptions = ["the device holds nothing but this program's buffers, and each function starts from an empty "
                   "allocator with its arguments allocated first, in order"]
    return AllocationReplay(r.dev.configs, r.points, r.failures, assumptions, r.l1_lowest_at_op,
                            r.l1_lowest_in_stage, r.l1_inexact_at_op,
                            r.l1_inexact_in_stage)
