"""L1 and DRAM in use at each op of the program.

For every op, the bytes that live tensors hold in one L1 bank (= one core) and
in one DRAM bank.  A tensor holds :attr:`Placement.bytes_per_bank` in every bank
of its buffer type from its producer to the end of its lifetime
(:mod:`ttanalyze.graph`); the tt-metal allocator reserves the same address
range in every bank, so the per-core figure is the same on all cores.

Circular buffers are added per op from the op's program model
(:mod:`ttanalyze.programs`).  Not modeled: allocator fragmentation and
alignment gaps between buffers (the figures are a lower bound on the address
range in use), and views: every op result is counted as its own buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import layout as L
from .arch import Arch
from .graph import Lifetime, lifetimes
from .ir.model import Program, Value


@dataclass
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

    def live_at(self, op_index: int, buffer_type: str) -> list[tuple[Value, L.LayoutInfo]]:
        """Tensors of ``buffer_type`` (``l1``/``dram``) alive at an op, largest first."""
        live = []
        for v, lt in self.lifetimes.items():
            info = self.infos.get(v)
            if info is None or info.placement is None or info.placement.buffer_type != buffer_type:
                continue
            if lt.live_at(op_index):
                live.append((v, info))
        live.sort(key=lambda vi: -vi[1].placement.bytes_per_bank)
        return live

    @property
    def peak_l1(self) -> MemoryPoint | None:
        """The op with the most L1 per core: live tensors plus its circular buffers."""
        return max(self.points.values(), key=lambda p: p.l1_total_per_core, default=None)

    @property
    def peak_dram(self) -> MemoryPoint | None:
        return max(self.points.values(), key=lambda p: p.dram_per_bank, default=None)


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
    for func in program.funcs:
        if not func.ops:
            continue
        lts = lifetimes(func)
        all_lifetimes.update(lts)
        first = func.ops[0].index
        n = func.ops[-1].index - first + 1
        delta_l1 = [0] * (n + 1)
        delta_dram = [0] * (n + 1)
        for v, lt in lts.items():
            info = infos.get(v)
            if info is None or info.placement is None:
                continue
            b = info.placement.bytes_per_bank
            delta = delta_l1 if info.placement.buffer_type == "l1" else delta_dram
            delta[lt.start - first] += b
            delta[lt.end - first + 1] -= b
        l1 = dram = 0
        for op in func.ops:
            i = op.index - first
            l1 += delta_l1[i]
            dram += delta_dram[i]
            points[op.index] = MemoryPoint(op.index, l1, dram)
    return MemoryTimeline(points, all_lifetimes, infos)
