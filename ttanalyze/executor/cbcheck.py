"""Circular buffers: the model's prediction against what tt-metal allocated for a replayed op.

Shared by ``benchmarks/accuracy_sweep.py`` (every op of the fixtures and of the
generated instances) and ``ttanalyze validate`` (the ops a fix changed).

The prediction is made for the device that ran the op, not for the arch of the
file: :func:`device_arch` turns the worker's device figures into an
:class:`~ttanalyze.arch.Arch` (on the mock P150 of ttnn 0.81.1 that is
:data:`~ttanalyze.arch.MOCK_P150_TTNN_0_81_1`: L1 base 111,744, no L1_SMALL),
and the model is given the free L1 the device saw.  A NO_DISPATCH capture does
not allocate the op's outputs, so the model gets the free L1 before the
outputs (its usual input counts them as live).

Two agreements are computed:

* ``outcome`` (the accuracy sweep's): ``exact`` when the per-core peak of
  program-scope L1 (static CBs/DFBs plus kernel scratchpads on the busiest
  core, max over the op's programs) is equal to the byte, ``both_refused``,
  ``no_program``; else the kind of mismatch;
* ``cbs_equal``: every static CB (not backed by a tensor's buffer; kernel
  scratchpads excluded, they have no core range in the model) has the same
  size on the same set of cores, as multisets over all the op's programs; when
  the model has a different number of programs than the device ran (a
  composite op whose helper programs are not modeled, e.g. conv2d's halo), over
  the program holding the per-core peak on each side.  Core sets are compared
  as sets of cores, not by how the ranges are split.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..arch import DEFAULTS, MOCK_P150_TTNN_0_81_1, Arch
from ..ir.attrs import CoreRangeSet
from ..programs import OpProgram, context_for, program_of

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..ir.model import Op
    from .client import DeviceResult

# Ops that run no device program of their own, with the reason; neither the sweep nor validate replays them.
NOT_REPLAYED = {
    "ttnn.deallocate": "frees a buffer",
    "ttnn.get_device": "returns the device handle",
    "ttcore.load_cached": "calls a const-eval function, whose ops are swept themselves",
    "ttnn.from_device": "a device-to-host read (Tensor::cpu), no program",
    "ttnn.to_device": "a host-to-device write (Tensor::to_device), no program",
    "ttnn.prepare_conv3d_weights": "reorders a host weight tensor on the host and writes it to the device",
}

# Outcomes where model and device agree.
AGREE = ("exact", "both_refused", "no_program")


def device_arch(device: dict[str, Any] | None) -> Arch:
    """The Arch of the device the worker opened (its ``__info__`` ``device`` figures).

    The mock P150 of ttnn 0.81.1 gives :data:`MOCK_P150_TTNN_0_81_1`; other
    devices get that arch's defaults with the measured grid, L1 size, L1 base
    and L1_SMALL size.  Without figures: :data:`MOCK_P150_TTNN_0_81_1`.
    """
    if not device or "l1_base" not in device:
        return MOCK_P150_TTNN_0_81_1
    name = device.get("arch") or "blackhole"
    base = MOCK_P150_TTNN_0_81_1 if name == "blackhole" else DEFAULTS.get(name, MOCK_P150_TTNN_0_81_1)
    grid = device.get("grid")  # (x, y) as ttnn reports it; Arch.grid is (rows, cols)
    arch = replace(
        base, name=name,
        grid=(int(grid[1]), int(grid[0])) if grid and len(grid) == 2 else base.grid,
        l1_size=int(device.get("l1_size", base.l1_size)),
        l1_unreserved_base=int(device["l1_base"]),
        l1_small_size=int(device.get("l1_small_size", 0)),
    )
    if arch == replace(MOCK_P150_TTNN_0_81_1, source=arch.source):
        return MOCK_P150_TTNN_0_81_1
    where = "mock " if device.get("mock") else ""
    return replace(arch, source=f"{where}{name} as the ttnn executor opened it (L1 base {arch.l1_unreserved_base:,})")


def _cores(crs: CoreRangeSet) -> frozenset[tuple[int, int]]:
    return frozenset((x, y) for r in crs.ranges for x in range(r.start.x, r.end.x + 1)
                     for y in range(r.start.y, r.end.y + 1))


@dataclass
class CBComparison:
    """The model's CBs for one op against the device's.

    Attributes:
        outcome: the sweep's classification (module docstring; :func:`outcome`).
        model_status / model_reason: the model's verdict (``modeled``, ``rejected``...).
        model_peak / device_peak: per-core peak of program-scope L1, bytes.
        model_cbs / device_cbs: static CBs as ``(bytes, cores)`` in creation order, of every program
            when the model has as many programs as the device ran, else of each side's peak program.
        device_scratchpads: bytes of the device's kernel scratchpads (in the peak, not in the CB lists).
        cbs_equal: the two CB multisets are equal (sizes on the same core sets); None when
            there is nothing to compare (the device refused, or the model has no program).
        free_l1: the free L1 per core the model was given (what the device saw, outputs not allocated).
        arch: the arch the prediction is for.
        scope: which programs' CBs were compared (``all programs`` or the peak program).
        verdict: the model's :class:`~ttanalyze.programs.OpProgram`.
        refusal: TTA010's refusal of the modeled program (:func:`l1_refusal`), scored as the model's
            refusal in ``outcome``; None when it fits.
    """

    outcome: str
    model_status: str
    model_reason: str
    model_peak: int
    device_peak: int
    model_cbs: list[tuple[int, CoreRangeSet]]
    device_cbs: list[tuple[int, CoreRangeSet]]
    device_scratchpads: list[int]
    cbs_equal: bool | None
    free_l1: int
    arch: Arch
    verdict: OpProgram = field(repr=False)
    scope: str = "all programs"
    refusal: str | None = None

    @property
    def match(self) -> bool:
        """Model and device agree: the sweep's agreement and, when both built programs, equal CB lists."""
        return self.outcome in AGREE and self.cbs_equal is not False

    def by_cores(self) -> list[tuple[CoreRangeSet, list[int], list[int]]]:
        """Per set of cores (first seen, device first): the device's and the model's CB sizes there."""
        groups: dict[frozenset, tuple[CoreRangeSet, list[int], list[int]]] = {}
        for side, cbs in ((1, self.device_cbs), (2, self.model_cbs)):
            for size, crs in cbs:
                entry = groups.setdefault(_cores(crs), (crs, [], []))
                entry[side].append(size)
        return list(groups.values())


def outcome(device_ok: bool, device_unsupported: bool, device_crashed: bool, device_peak: int,
            model_status: str, model_peak: int) -> str:
    """``exact``, ``both_refused``, ``no_program`` (agreements) or the kind of mismatch."""
    if device_unsupported:
        return "not_replayed"
    if device_crashed:
        return "device_crashed"
    if not device_ok:
        return "both_refused" if model_status == "rejected" else "device_refused"
    if model_status == "rejected":
        return "model_refused"
    if model_status == "not_device":
        return "no_program" if device_peak == 0 else "model_no_program"
    if model_status != "modeled":
        return f"model_{model_status}"
    return "exact" if model_peak == device_peak else "bytes_differ"


def model_peak(verdict: OpProgram) -> int:
    """The model's per-core peak of program-scope L1: CBs plus scratchpads of its biggest program."""
    return max((p.region_bytes_per_core() for p in verdict.stages), default=0)


def predict(analysis: "Analysis", op: "Op", dev: "DeviceResult", arch: Arch = MOCK_P150_TTNN_0_81_1
            ) -> tuple[OpProgram, int]:
    """The model's verdict for ``op`` on ``arch`` with the free L1 the replay saw, and that free L1."""
    free = arch.usable_l1 - (dev.l1_allocated_per_bank or 0)
    outputs = context_for(analysis, op, arch=arch, free_l1=0).output_l1_per_core
    # An output beyond the free L1 cannot be allocated (the analyzer's TTA004; a NO_DISPATCH capture only
    # traces the allocation): like the allocator replay of `check`, it leaves the free L1 as it was.
    free_l1 = free - outputs if outputs <= free else free
    return program_of(analysis, op, arch=arch, free_l1=free_l1), free_l1


def l1_refusal(verdict: OpProgram, arch: Arch, l1_allocated_per_bank: int | None) -> str | None:
    """The analyzer's refusal of a modeled op's CB region on the replay's device, as TTA010 words it, or None.

    The condition is TTA010's (:meth:`ttanalyze.ops.cb.ProgramModel.l1_refusal`, the first refused program
    in order; a program whose model doubts its refusal, ``params["refusal_unsure"]``, is a warning there and
    no refusal here).  The lowest allocated L1 address is the replay's: the operands allocated before the
    op, packed top-down from ``l1_size - l1_small_size`` (``l1_allocated_per_bank``), or ``l1_size`` with
    none; a NO_DISPATCH capture traces the op's own output and intermediate buffers without placing them.
    """
    if verdict.status != "modeled":
        return None
    held = l1_allocated_per_bank or 0
    lowest = arch.l1_size - arch.l1_small_size - held if held else arch.l1_size
    for program in verdict.stages:
        refusal = program.l1_refusal(arch, lowest)
        if refusal is None:
            continue
        if program.params.get("refusal_unsure"):
            return None
        if refusal.check == "max_l1_size":
            r = refusal.core_range
            return (f"TTA010: circular buffers of {program.factory} on core range [({r.start.x},{r.start.y})-"
                    f"({r.end.x},{r.end.y})] grow to {refusal.end} B, beyond the max L1 size of {arch.l1_size} B")
        return (f"TTA010: circular buffers of {program.factory} clash with L1 buffers: the CB region ends at "
                f"{refusal.end} B, the lowest L1 buffer starts at {lowest} B")
    return None


def compare_cbs(analysis: "Analysis", op: "Op", dev: "DeviceResult", arch: Arch = MOCK_P150_TTNN_0_81_1
                ) -> CBComparison:
    """Model ``op`` for ``arch`` (the device that ran it) and compare its CBs with the replay's ``dev``.

    The outcome scores the analyzer's verdict: a modeled program that TTA010 refuses (:func:`l1_refusal`)
    counts as a refusal (``both_refused`` when tt-metal refused too, ``model_refused`` when it ran it); the
    per-core peaks and CB lists are compared for the instances both run."""
    verdict, free_l1 = predict(analysis, op, dev, arch)
    mpeak = model_peak(verdict)
    refusal = l1_refusal(verdict, arch, dev.l1_allocated_per_bank)
    kind = outcome(dev.ok, dev.unsupported, dev.crashed, dev.cb_per_core_peak,
                   "rejected" if refusal else verdict.status, mpeak)
    model_progs = [[(cb.bytes, cb.cores) for cb in p.static_cbs] for p in verdict.stages]
    by_program: dict[int, list] = {}
    for c in dev.cbs:
        if not c.borrowed:
            by_program.setdefault(c.program, []).append(c)
    device_progs = [[(c.size, c.cores) for c in by_program[k] if c.kind != "scratchpad"] for k in sorted(by_program)]
    scratch = [c.size for c in dev.cbs if not c.borrowed and c.kind == "scratchpad"]
    equal: bool | None = None
    scope = "all programs"
    model_cbs = [cb for prog in model_progs for cb in prog]
    device_cbs = [cb for prog in device_progs for cb in prog]
    if dev.ok and verdict.status in ("modeled", "not_device") and refusal is None:
        if len(model_progs) != len(device_progs) and model_progs and device_progs:
            # the model covers fewer (or more) of the op's programs: compare the programs holding the peak
            peaks = [_peak(by_program[k]) for k in sorted(by_program)]
            model_cbs = [(cb.bytes, cb.cores) for cb in verdict.program.static_cbs]
            device_cbs = device_progs[peaks.index(max(peaks))]
            scope = (f"the peak program (the model has {len(model_progs)} of the device's "
                     f"{len(device_progs)} programs)")
        equal = _multiset(model_cbs) == _multiset(device_cbs)
    return CBComparison(kind, verdict.status, verdict.reason, mpeak, dev.cb_per_core_peak, model_cbs, device_cbs,
                        scratch, equal, free_l1, arch, verdict, scope, refusal)


def _multiset(cbs: list[tuple[int, CoreRangeSet]]) -> Counter:
    return Counter((b, _cores(c)) for b, c in cbs)


def _peak(cbs: list) -> int:
    """Most bytes of ``cbs`` (device CBs of one program, scratchpads included) on one core."""
    per_core: Counter = Counter()
    for c in cbs:
        for core in _cores(c.cores):
            per_core[core] += c.size
    return max(per_core.values(), default=0)
