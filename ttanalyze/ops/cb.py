"""Circular-buffer (CB) models: what a tt-metal program factory allocates per core.

Every op model that knows its program factory exposes a function
``(CBContext) -> ProgramModel | list[ProgramModel]``: one program, or the device
programs the op runs one after the other (a composite such as untilize, concat,
tilize; tt-metal frees a program's CBs before the next one runs).  It raises
:class:`NoDeviceProgram` when the op runs none (a view reshape, a conversion to
the layout the tensor already has).  A :class:`ProgramModel` names the factory
(with the tt-metal file it follows), the cores it runs on, and its CB list:
index, page size, pages, bytes and core ranges.  tt-metal places
the CBs of a program one after the other from the L1 allocator base of each core
(``l1_unreserved_base``) upwards, while L1 buffers are allocated top-down, and
refuses the program when, on some core,

* ``base + sum(CB bytes) > l1_size``: "Statically allocated circular buffers on
  core range [...] grow to X B which is beyond max L1 size of Y B", or
* ``base + sum(CB bytes) > lowest live L1 buffer address``: "... clash with L1
  buffers on core range [...]".

(tt-metal ``tt_metal/impl/program/program.cpp`` /
``impl/dataflow_buffer/dataflow_buffer.cpp``; both checks measured on a mock
P150 with ttnn 0.81.1, tt-metal d80d9482, including inside NO_DISPATCH graph
capture.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..arch import Arch
from ..ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ..ir.model import Op
from ..layout import LayoutInfo


def grid_xy(arch: Arch) -> tuple[int, int]:
    """``compute_with_storage_grid_size`` as (x, y): tt-mlir prints the grid as rows x cols."""
    return arch.grid[1], arch.grid[0]


def core_range(x0: int, y0: int, x1: int, y1: int) -> CoreRange:
    return CoreRange(CoreCoord(x0, y0), CoreCoord(x1, y1))


def cores_set(*ranges: CoreRange) -> CoreRangeSet:
    return CoreRangeSet(tuple(ranges))


def contains(crs: CoreRangeSet, x: int, y: int) -> bool:
    return any(r.start.x <= x <= r.end.x and r.start.y <= y <= r.end.y for r in crs.ranges)


# The op models build a few hundred thousand small value objects per large program: the value classes
# they build most (CB, CBContext, Tensor, MemCfg, Shard, TensorSpec, LayoutInfo, Placement, WorkSplit,
# Conversion, BinaryCall, matmul's _Mm/_Cfg/_Compute) are immutable by convention, hashed and compared
# by value (unsafe_hash), but not frozen: a frozen dataclass's __init__ sets each field through
# object.__setattr__, about 1 us more per object in CPython 3.11 (0.2 s of the distinct 50,000-op
# benchmark program).  Nothing may assign to their fields.
@dataclass(unsafe_hash=True)
class CB:
    """One circular buffer of a program.

    Attributes:
        index: the CB index the factory uses (``c_0`` = 0, ``c_16`` = 16, ...).
        name: what it holds (``in0``, ``out``, ``interm``...).
        page_bytes: bytes of one page (a tile, or a row-major stick).
        pages: pages it holds.
        cores: the cores it is allocated on.
        globally_allocated: the CB is backed by a sharded L1 tensor's buffer
            (``set_globally_allocated_address``): it occupies no L1 of its own
            and is not part of the static CB region.
    """

    index: int
    name: str
    page_bytes: int
    pages: int
    cores: CoreRangeSet
    globally_allocated: bool = False

    @property
    def bytes(self) -> int:
        return self.page_bytes * self.pages


@dataclass(frozen=True)
class DeviceBuffer:
    """A buffer a program factory allocates on the device (not a CB): ``buffer_type`` ``dram``/``l1``,
    ``size`` and ``page_size`` in bytes (interleaved), ``kept`` when something outlives the op holds it
    (the program cache), ``what`` it is."""

    buffer_type: str
    size: int
    page_size: int
    kept: bool
    what: str


@dataclass
class ProgramModel:
    """The program an op's factory builds: cores and circular buffers.

    Attributes:
        factory: the program factory's name (``UntilizeMultiCoreProgramFactory``).
        source: the tt-metal file (and commit) the model follows.
        cores: the cores the program runs on.
        cbs: its circular buffers.
        notes: the choices behind the model (single vs multi-core, block sizes...).
        extra_l1_per_core: other per-core L1 the program allocates beside CBs
            in its own region above the L1 allocator base (kernel scratchpads),
            in bytes.
        l1_buffers_per_core: L1 *buffers* (tensors, allocated top-down like any
            L1 tensor) the op creates for intermediates and holds while this
            program runs, other than its IR results (conv/pool halo output and
            output shards of a DRAM result), in bytes per core.  They move the
            lowest live L1 buffer down, so they count in the "clash with L1
            buffers" check and in the L1 timeline, not in the CB region.
        inputs / outputs: the device tensors the program reads and writes
            (:class:`ttanalyze.ops.tensors.Tensor`), where the model knows them
            (the steps of a composite op); empty otherwise, and then they are
            the IR op's operands and results.
        params: what the factory chose that costs time, by name (``program_config``:
            the matmul config in effect, its fields in tiles).
        device_buffers: device buffers the factory itself allocates besides
            CBs (:class:`DeviceBuffer`), e.g. reshape's DRAM page-mapping tensor;
            the allocator replay (:func:`ttanalyze.memory.replay`) places them.
        scratchpads: the kernel scratchpads one by one (bytes, in allocation
            order) where the model knows them; their sum is
            ``extra_l1_per_core``.  Each starts at an aligned address, which
            moves the region end tt-metal reports (:meth:`cb_regions`).
        events: a composite op's device buffers in tt-metal's order, where the model
            knows them exactly (:mod:`ttanalyze.ops.moe_prepare`): ``("+", key,
            tensor)`` allocates, ``("-", key)`` frees, ``("run",)`` is this program
            running, ``("result",)`` the op's IR results being allocated; a program
            carries the events from the end of the one before through its own run,
            the last one also what follows it.  Empty: the allocator replay
            approximates the intermediates' lifetimes (``memory._Replay.op_internal``).
    """

    factory: str
    source: str
    cores: CoreRangeSet
    cbs: list[CB]
    notes: list[str] = field(default_factory=list)
    extra_l1_per_core: int = 0
    l1_buffers_per_core: int = 0
    inputs: tuple = ()
    outputs: tuple = ()
    params: dict = field(default_factory=dict)
    device_buffers: tuple = ()
    scratchpads: tuple[int, ...] = ()
    events: tuple = ()
    _busiest: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _regions: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def static_cbs(self) -> list[CB]:
        """The CBs of the static CB region (not backed by a tensor's buffer)."""
        return [cb for cb in self.cbs if not cb.globally_allocated]

    def busiest_core(self) -> tuple[tuple[int, int] | None, int]:
        """A core holding the most static CB bytes, and that byte count.

        CBs on disjoint core ranges do not add up.  The per-core sum is constant
        between range boundaries, so only cores whose x and y are both range
        boundaries are examined.
        """
        return self._static_figures()[1]

    def _static_figures(self) -> tuple[tuple, tuple[tuple[int, int] | None, int], int, int]:
        """(the CB list as a tuple, :meth:`busiest_core`, the static CBs' bytes in all, their count), derived
        once and again only when the CB list changes (a list equal item by item gives the same figures)."""
        key = tuple(self.cbs)
        got = self._busiest
        if got is None or got[0] != key:
            cbs = [cb for cb in key if not cb.globally_allocated]
            total = 0
            for cb in cbs:
                total += cb.page_bytes * cb.pages
            got = self._busiest = (key, self._find_busiest(cbs, total), total, len(cbs))
        return got

    def _find_busiest(self, cbs: list[CB], total: int) -> tuple[tuple[int, int] | None, int]:
        """:meth:`busiest_core` of ``cbs`` (static), whose bytes add up to ``total``."""
        best, where = 0, None
        if cbs:
            first_set = cbs[0].cores
            for cb in cbs:
                if cb.cores is not first_set and cb.cores != first_set:
                    break
            else:
                # one core set: every core holds all of them; the first core in (x, y) order is named
                return (_first_core(first_set), total) if total > 0 else (None, 0)
        xs = sorted({v for cb in cbs for r in cb.cores.ranges for v in (r.start.x, r.end.x)})
        ys = sorted({v for cb in cbs for r in cb.cores.ranges for v in (r.start.y, r.end.y)})
        for x in xs:
            for y in ys:
                total = sum(c.bytes for c in cbs if contains(c.cores, x, y))
                if total > best:
                    best, where = total, (x, y)
        return where, best

    def per_core_bytes(self) -> int:
        """The most static CB bytes any single core holds."""
        return self.busiest_core()[1]

    def region_busiest_core(self) -> tuple[tuple[int, int] | None, int]:
        """A core holding the most CB-region bytes, and that byte count: the static CBs of
        :meth:`busiest_core` plus the kernel scratchpads that follow them on every core of the program
        (tt-metal ``allocate_scratchpads`` runs before ``validate_dataflow_buffer_region``); the
        program's first core when it has scratchpads and no static CB."""
        core, cb_bytes = self.busiest_core()
        if core is None and self.extra_l1_per_core and self.cores.ranges:
            core = (self.cores.ranges[0].start.x, self.cores.ranges[0].start.y)
        return core, cb_bytes + self.extra_l1_per_core

    def region_bytes_per_core(self) -> int:
        """The most CB-region bytes (static CBs plus kernel scratchpads) any single core holds
        (:meth:`region_busiest_core`'s bytes, without locating the core)."""
        return self._static_figures()[1][1] + self.extra_l1_per_core

    def cb_regions(self, base: int, alignment: int = 1) -> list[tuple[CoreRange, int]]:
        """Each CB allocator's core range and the end address of its CB region (bytes), in creation order.

        tt-metal keeps one CB allocator per core range, created in the order the
        program's CBs are created; each CB is placed at the highest current
        end among the allocators its ranges touch, rounded up to ``alignment``,
        then all of them end after it (tt-metal ``impl/program/program.cpp``
        ``add_circular_buffer_``, ``impl/dataflow_buffer/dataflow_buffer.cpp``
        ``allocate_dataflow_buffers``); kernel scratchpads (``scratchpads`` one by
        one, else ``extra_l1_per_core`` as one) follow the buffers on the
        program's cores, each at an aligned address (``allocate_scratchpads`` runs
        before ``validate_dataflow_buffer_region``; measured: repeat's two
        ``128 + row``-B scratchpads of an odd row grow the region by the first
        one's alignment padding, 52 B in ``g1/ttnn.repeat/11``).  Dataflow buffers start at 64-B aligned
        addresses on Blackhole (measured through the real runtime, tt-metal
        614f605f: argmax/topk refusals reproduce to the byte).
        """
        key = (base, alignment, tuple(id(cb) for cb in self.cbs))
        if key not in self._regions:
            self._regions[key] = self._walk_regions(base, alignment)
        return self._regions[key]

    def _walk_regions(self, base: int, alignment: int) -> list[tuple[CoreRange, int]]:
        allocators: list[list] = []  # [core range, end], end relative to base
        buffers = list(self.static_cbs)
        if self.extra_l1_per_core:  # kernel scratchpads, allocated after the DFBs (allocate_scratchpads)
            sizes = self.scratchpads if sum(self.scratchpads) == self.extra_l1_per_core else (self.extra_l1_per_core,)
            buffers += [CB(-1, "scratchpad", size, 1, self.cores) for size in sizes]
        for cb in buffers:
            touched = []
            for r in cb.cores.ranges:
                found = next((a for a in allocators if a[0] == r), None)
                if found is None:
                    found = [r, 0]
                    allocators.append(found)
                touched.append(found)
            touched += [a for a in allocators if a not in touched and any(_overlap(a[0], r) for r in cb.cores.ranges)]
            if not touched:  # a buffer on no core (e.g. an empty cliff group) takes no L1
                continue
            address = max(a[1] for a in touched)
            address = -(-(base + address) // alignment) * alignment - base if alignment > 1 else address
            for a in touched:
                a[1] = address + cb.bytes
        return [(r, base + end) for r, end in allocators]

    def first_overflow(self, base: int, limit: int, alignment: int = 1) -> tuple[CoreRange, int] | None:
        """The first CB allocator tt-metal finds beyond ``limit``, and its region end (bytes).

        ``validate_circular_buffer_region`` / ``validate_dataflow_buffer_region``
        walk the allocators (:meth:`cb_regions`) in creation order and throw for
        the first whose end exceeds the limit: that core range is the one named
        in "Statically allocated circular buffers on core range [...] grow to X
        B" (seed 001, core (7,6)).  No allocator ends beyond ``base`` plus every buffer's bytes and
        alignment padding: below ``limit``, none overflows, and the regions are not walked.
        """
        pad = alignment - 1 if alignment > 1 else 0
        _, _, static_bytes, static_count = self._static_figures()
        if base + static_bytes + static_count * pad + self.extra_l1_per_core + pad <= limit:
            return None
        return next(((r, end) for r, end in self.cb_regions(base, alignment) if end > limit), None)

    def region_figures(self, base: int, limit: int, alignment: int = 1) -> tuple[tuple[int, int] | None, int, bool]:
        """(:meth:`region_busiest_core`'s core and bytes, whether :meth:`first_overflow` is None) from one read of
        the static figures: TTA010 asks all three of every program (bytes; ``base``, ``limit`` and ``alignment``
        as :meth:`first_overflow`'s)."""
        _, (core, cb_bytes), static_bytes, static_count = self._static_figures()
        extra = self.extra_l1_per_core
        if core is None and extra and self.cores.ranges:  # region_busiest_core
            core = (self.cores.ranges[0].start.x, self.cores.ranges[0].start.y)
        pad = alignment - 1 if alignment > 1 else 0  # first_overflow's bound, then its walk
        fits = (base + static_bytes + static_count * pad + extra + pad <= limit
                or next((end for _, end in self.cb_regions(base, alignment) if end > limit), None) is None)
        return core, cb_bytes + extra, fits

    def l1_refusal(self, arch: Arch, lowest_l1_buffer: int) -> L1Refusal | None:
        """tt-metal's two checks of this program's CB region at program creation, or None when it passes.

        ``validate_dataflow_buffer_region`` / ``validate_circular_buffer_region``
        (tt-metal ``impl/dataflow_buffer/dataflow_buffer.cpp``, ``impl/program/program.cpp`` @d80d9482):
        first every CB allocator's region end against ``l1_size`` (:meth:`first_overflow`, "Statically
        allocated circular buffers on core range [...] grow to X B which is beyond max L1 size of Y B"),
        then the region end of the busiest core (static CBs plus kernel scratchpads,
        :meth:`region_busiest_core`) against ``lowest_l1_buffer``, the lowest allocated L1 address
        (absolute, bytes; ``l1_size`` when no L1 buffer is allocated): "... clash with L1 buffers".
        The one condition behind TTA010 and the op-level campaign's verdict
        (:mod:`ttanalyze.executor.cbcheck`).
        """
        first = self.first_overflow(arch.l1_unreserved_base, arch.l1_size, arch.dram_alignment)
        if first is not None:
            return L1Refusal("max_l1_size", first[0], first[1])
        core, cb_bytes = self.region_busiest_core()
        end = arch.l1_unreserved_base + cb_bytes
        if core is not None and end > lowest_l1_buffer:
            return L1Refusal("clash", None, end)
        return None


@dataclass(frozen=True)
class L1Refusal:
    """Why tt-metal refuses a program's CB region (:meth:`ProgramModel.l1_refusal`).

    Attributes:
        check: ``max_l1_size`` (a CB allocator's region ends beyond ``l1_size``) or ``clash`` (the busiest
            core's region ends above the lowest allocated L1 buffer).
        core_range: the CB allocator tt-metal names (``max_l1_size``; None for ``clash``).
        end: the region end tt-metal reports ("grow to X B"), absolute address in bytes.
    """

    check: str
    core_range: CoreRange | None
    end: int


def _first_core(crs: CoreRangeSet) -> tuple[int, int] | None:
    """The first core of ``crs`` in (x, y) order among the cores whose x and y are range boundaries."""
    if len(crs.ranges) == 1:
        r = crs.ranges[0]
        if r.start.x <= r.end.x and r.start.y <= r.end.y:
            return r.start.x, r.start.y
    xs = sorted({v for r in crs.ranges for v in (r.start.x, r.end.x)})
    ys = sorted({v for r in crs.ranges for v in (r.start.y, r.end.y)})
    return next(((x, y) for x in xs for y in ys if contains(crs, x, y)), None)


def _overlap(a: CoreRange, b: CoreRange) -> bool:
    return not (a.end.x < b.start.x or b.end.x < a.start.x or a.end.y < b.start.y or b.end.y < a.start.y)


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class CBContext:
    """What a CB model may read about one op.

    Attributes:
        op: the op.
        arch: chip parameters (grid, L1 size and base, alignments).
        inputs / outputs: layout info of each operand / result (None without a layout).
        free_l1: bytes per core from the L1 allocator base up to the lowest
            live L1 buffer (``l1_size`` when none, L1_SMALL not subtracted):
            tt-metal's ``get_max_l1_space``, which data-movement factories use to
            size their blocks.  Models read it as :attr:`max_l1_space`, which
            records the read (:attr:`read_free_l1`).
        tt_metal: the tt-metal version whose factories to follow
            (:mod:`ttanalyze.versions`).
        output_l1_per_core: L1 bytes per core of the op's L1-resident results.
            ``max_l1_space`` counts them as live (tt-metal allocates outputs
            before it creates the program); a factory whose choice is made
            before the outputs exist (matmul's automatic program config) adds
            them back.
        tensor_views: a cache of the :class:`ttanalyze.ops.tensors.Tensor` of
            each IR value type on ``arch`` (by ``id`` of the type, with the type),
            shared by the contexts of one analysis.
        shapes: the op's result shapes by its shape rule, where the analysis checked them (None: not
            checked, or the rule refused the op); a model reads them instead of running the rule again.
            They are ``op``'s: a context made for another op (``dataclasses.replace(ctx, op=...)``) must
            reset them to None.
        plans: what the models derived from this context, by the function that
            derived it (:func:`plan_of`): the CB model and the output-spec model
            of one op read the same context and share one plan.
    """

    op: Op
    arch: Arch
    inputs: tuple[LayoutInfo | None, ...]
    outputs: tuple[LayoutInfo | None, ...]
    free_l1: int
    tt_metal: str = "0.81.1"
    output_l1_per_core: int = 0
    tensor_views: dict = field(default_factory=dict, compare=False, repr=False)
    shapes: list[tuple[int, ...]] | None = field(default=None, compare=False, repr=False)
    plans: dict = field(default_factory=dict, init=False, compare=False, repr=False)
    _reads: list = field(default_factory=list, init=False, compare=False, repr=False)  # :attr:`read_free_l1`

    @property
    def max_l1_space(self) -> int:
        """``get_max_l1_space`` at the op (:attr:`free_l1`, bytes per core); the read is recorded."""
        if not self._reads:
            self._reads.append(True)
        return self.free_l1

    @property
    def read_free_l1(self) -> bool:
        """Whether a model read :attr:`max_l1_space` in this context: a verdict derived without reading it
        holds at every free L1 (:func:`ttanalyze.programs.op_models` shares it between ops alike but in the
        free L1 around them)."""
        return bool(self._reads)

    @property
    def grid(self) -> tuple[int, int]:
        return grid_xy(self.arch)

    @property
    def max_l1_space_before_outputs(self) -> int:
        """``get_max_l1_space`` before the op's L1 outputs are allocated (bytes per core).

        ``max_l1_space`` plus the outputs; when that leaves no L1 tensor live,
        tt-metal reads ``l1_size`` as the lowest occupied address, so the
        figure is ``l1_size - l1_unreserved_base`` (L1_SMALL not subtracted).
        """
        free = self.max_l1_space + self.output_l1_per_core
        if free >= self.arch.usable_l1:
            return self.arch.l1_size - self.arch.l1_unreserved_base
        return free

    def input(self, i: int) -> LayoutInfo:
        """Layout info of operand ``i``.

        Raises:
            CBModelError: the operand has no TTNN layout.
        """
        info = self.inputs[i] if i < len(self.inputs) else None
        if info is None:
            raise CBModelError(f"operand #{i} of {self.op.name} has no TTNN layout")
        return info

    def output(self, i: int = 0) -> LayoutInfo:
        """Layout info of result ``i`` (see :meth:`input`)."""
        info = self.outputs[i] if i < len(self.outputs) else None
        if info is None:
            raise CBModelError(f"result #{i} of {self.op.name} has no TTNN layout")
        return info


def plan_of(ctx: CBContext, derive: Callable[[CBContext], object]) -> object:
    """``derive(ctx)``, computed once per context: ``derive`` must read nothing but the context and return a
    value nobody mutates (a frozen plan).  The CB model and the output-spec model of an op run on one context
    (:func:`ttanalyze.programs.op_models`), so the work split, tile-padded tensors and program config they
    both start from are derived once.  An exception is not kept: the next call raises it again."""
    plans = ctx.plans
    got = plans.get(derive)
    if got is None:
        got = plans[derive] = derive(ctx)
    return got


class NoDeviceProgram(Exception):
    """The op runs no device program in this configuration; the message says why."""


class CBModelError(ValueError):
    """The op's configuration is outside what its CB model covers; the reason says why."""


class DeviceRejection(CBModelError):
    """tt-metal refuses this op's configuration (a TT_FATAL/TT_THROW the model reproduces).

    The message quotes or paraphrases tt-metal's check; it is a prediction that
    the op fails on the device, not a gap in the model.  ``unsure`` (empty when
    the check is read from tt-metal's source) says why the prediction may be
    wrong: a refusal found by measurement whose code path is not read, with a
    measured instance that ran; the rule then reports it as a warning.
    """

    def __init__(self, message: str, unsure: str = ""):
        super().__init__(message)
        self.unsure = unsure


CBFn = Callable[[CBContext], "ProgramModel | list[ProgramModel]"]
