"""One pass of every analysis over a program, computed once and shared by rules and reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING

from . import layout as L
from . import ops as O
from .arch import Arch, resolve_arch
from .ir.model import Op, Program, TensorType, Value
from .memory import AllocationReplay, MemoryTimeline, replay, timeline
from .mesh import Mesh, bind_meshes, mesh_of, presharded_values
from .ops.spec import TensorSpec
from .programs import (MODEL_FAILURES, OpProgram, Verdicts, failure_text, moved_free_l1, op_models, reraise_in_debug,
                       sign_ops)
from .versions import DEFAULT_TT_METAL, check_version

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class OpShapeCheck:
    """Result of an op's shape rule: inferred shapes, or why there are none.

    ``status`` is ``checked`` (shapes inferred), ``unchecked`` (model has no
    shape rule), ``unmodeled`` (no model for the op) or ``invalid`` (the rule
    found no possible result; ``error`` says why).
    """

    status: str
    shapes: list[tuple[int, ...]] | None = None
    error: str = ""


@dataclass
class Analysis:
    """Everything ttanalyze computes about one program.

    Attributes:
        program / arch: the inputs.
        infos: layout info of every tensor value with a TTNN layout.
        memory: per-op L1/DRAM timeline, circular buffers included.
        shape_checks: per op index, the op model's shape verdict.
        programs: per op index, its program (cores and circular buffers).
        specs: per op index with an output model, what tt-metal returns for each result.
        tt_metal: the tt-metal version whose factories the CB models follow.
        tensor_views: the op models' device view of each value type (a cache, by ``id`` of the type, with the type).
        allocation: the program through tt-metal's allocator model (:func:`ttanalyze.memory.replay`).
        thresholds: overrides of the rules' reporting thresholds (``[tool.ttanalyze.thresholds]``).
    """

    program: Program
    arch: Arch
    infos: dict[Value, L.LayoutInfo]
    memory: MemoryTimeline
    shape_checks: dict[int, OpShapeCheck] = field(default_factory=dict)
    programs: dict[int, OpProgram] = field(default_factory=dict)
    specs: dict[int, list[TensorSpec]] = field(default_factory=dict)
    tt_metal: str = DEFAULT_TT_METAL
    tensor_views: dict = field(default_factory=dict, repr=False)
    allocation: AllocationReplay | None = None
    thresholds: dict[str, float] = field(default_factory=dict)  # rule noise thresholds (check_config.THRESHOLDS)

    @cached_property
    def mesh(self) -> "Mesh | None":
        """The device mesh the program runs on (:func:`ttanalyze.mesh.mesh_of`); per-op figures are per device."""
        return mesh_of(self.program)

    @cached_property
    def graph(self) -> nx.DiGraph:
        """The dataflow graph (:mod:`ttanalyze.graph`), built on first use (networkx imported then)."""
        from .graph import build_graph

        return build_graph(self.program)

    @cached_property
    def ops_by_name(self) -> dict[str, list[Op]]:
        """The ops of each name, in program order: built in one pass over the ops, shared by the rules that
        look at a few op names only (:meth:`ops_named`)."""
        out: dict[str, list[Op]] = {}
        for op in self.program.ops:
            got = out.get(op.name)
            if got is None:
                out[op.name] = [op]
            else:
                got.append(op)
        return out

    def ops_named(self, *names: str) -> list[Op]:
        """The ops named one of ``names``, in program order (:attr:`ops_by_name`; a list the caller must not change)."""
        by_name = self.ops_by_name
        lists = [by_name[n] for n in dict.fromkeys(names) if n in by_name]
        if len(lists) == 1:
            return lists[0]
        return sorted((op for ops in lists for op in ops), key=lambda op: op.index)

    def values(self) -> list[Value]:
        """Every SSA value in program order (arguments first in each function)."""
        out: list[Value] = []
        for f in self.program.funcs:
            out.extend(f.args)
            for op in f.ops:
                out.extend(op.results)
        return out


def analyze(program: Program, arch_name: str | None = None, l1_small_size: int | None = None,
            tt_metal: str = DEFAULT_TT_METAL) -> Analysis:
    """Run the layout, graph, memory and shape analyses.

    Args:
        program: a parsed program.
        arch_name: ``wormhole_b0``/``blackhole``, used only when the file has
            no ``ttcore.system_desc``.
        l1_small_size: bytes of L1_SMALL per bank (default: the tt-mlir
            runtime's, see :mod:`ttanalyze.arch`).
        tt_metal: the tt-metal version to model (:mod:`ttanalyze.versions`).

    Raises:
        ValueError: no system_desc and no (known) arch_name, or an unknown
            tt-metal version.
    """
    arch = resolve_arch(program.system_desc, arch_name, l1_small_size)
    check_version(tt_metal)
    infos: dict[Value, L.LayoutInfo] = {}
    by_type: dict[int, L.LayoutInfo | None] = {}  # the parser makes one object per distinct type
    layouts: dict = {}  # what the layout numbers read of a layout alone, shared by its types (layout.analyze)
    for func in program.funcs:
        for v in chain(func.args, *[op.results for op in func.ops]):
            t = v.type
            info = by_type.get(id(t), _UNSEEN)
            if info is _UNSEEN:
                info = by_type[id(t)] = L.analyze(t, arch, layouts) if isinstance(t, TensorType) else None
            if info is not None:
                infos[v] = info
    bind_meshes(program)  # the mesh of each function, for the op models (mesh.op_mesh)
    for v, shard in presharded_values(program).items():  # a presharded global holds a shard per device (mesh.py)
        if shard in infos:
            infos[v] = infos[shard]
    analysis = Analysis(program, arch, infos, timeline(program, arch, infos), tt_metal=tt_metal)
    # shared by both op-model passes: an op whose free L1 did not move keeps its verdict
    verdicts = Verdicts(sign_ops(program.ops))
    _check_shapes(analysis, verdicts.signatures)
    analysis.programs, analysis.specs = op_models(analysis, verdicts)
    _program_figures(analysis)
    analysis.allocation = replay(analysis)
    moved = moved_free_l1(analysis, verdicts)
    if any(analysis.programs[i].status not in ("not_device", "unmodeled") for i in moved):
        # the factories see the allocator's lowest L1 address, holes included (programs.max_l1_space)
        before = [(analysis.programs[i], analysis.specs.get(i)) for i in moved]
        programs, specs = op_models(analysis, verdicts, only=moved)
        changed = any(programs[i] != p or specs.get(i) != s for i, (p, s) in zip(moved, before))
        analysis.programs, analysis.specs = programs, specs
        if changed:  # equal verdicts give the same figures and the same replay
            _program_figures(analysis, moved)
            analysis.allocation = replay(analysis)
    points = analysis.memory.points
    for index, ap in analysis.allocation.points.items():
        point = points.get(index)
        if point is not None:
            point.l1_extent_per_core = ap.l1_extent
            point.dram_extent_per_bank = ap.dram_extent
    return analysis


def _program_figures(analysis: Analysis, only: list[int] | None = None) -> None:
    """Each op's CB region and own L1 buffers (its busiest program) into the memory timeline: of every op, or of
    the ops ``only`` (the ones whose verdict the second :func:`op_models` pass may have changed).  The first pass
    skips the ops that run no program: their memory points hold 0 from :func:`timeline`."""
    points, programs = analysis.memory.points, analysis.programs
    figures: dict[int, tuple[int, int]] = {}  # by id of the verdict: ops alike share one (programs.op_models)
    for index in programs if only is None else only:
        prog = programs.get(index)
        if prog is None:
            continue
        stages = prog.stages
        if not stages and only is None:
            continue
        point = points.get(index)
        if point is not None:
            got = figures.get(id(prog))
            if got is None:
                if not stages:
                    got = (0, 0)
                elif len(stages) == 1:
                    got = (stages[0].region_bytes_per_core(), stages[0].l1_buffers_per_core)
                else:
                    got = (max([p.region_bytes_per_core() for p in stages]), max([p.l1_buffers_per_core for p in stages]))
                figures[id(prog)] = got
            point.cb_per_core, point.op_l1_buffers_per_core = got


def _check_shapes(analysis: Analysis, signatures: list[int]) -> None:
    """Every op's shape check (:func:`check_shapes`) into ``analysis.shape_checks``.

    A shape rule reads the op's name, attributes and operand types only, so the ops of one signature
    (``signatures``, :func:`~ttanalyze.programs.sign_ops`; those it does not number by their name, attributes
    and operand types) share one check, and the ops of a name without a shape rule share one.
    """
    shape_checks = analysis.shape_checks
    checks: dict = {}  # by signature number, or by (name, attributes, operand types)
    by_name: dict[str, OpShapeCheck | None] = {}  # the check of every op of a name without a shape rule, else None
    for op, sig in zip(analysis.program.ops, signatures):
        name = op.name
        if name not in by_name:
            model = O.lookup(name)
            by_name[name] = check_shapes(op) if model is None or model.infer is None else None  # reads the name only
        check = by_name[name]
        if check is None:
            key = sig if sig >= 0 else (name, tuple(op.raw_attrs.items()), tuple([id(v.type) for v in op.operands]))
            check = checks.get(key)
            if check is None:
                check = checks[key] = check_shapes(op)
        shape_checks[op.index] = check


_UNSEEN = object()  # a type not analyzed yet (analyze's by_type)


def check_shapes(op: Op) -> OpShapeCheck:
    """Apply the op's shape rule (see :mod:`ttanalyze.ops`)."""
    model = O.lookup(op.name)
    if model is None:
        return OpShapeCheck("unmodeled")
    if model.infer is None:
        return OpShapeCheck("unchecked")
    try:
        shapes = model.infer(op)
    except O.ShapeError as exc:
        return OpShapeCheck("invalid", error=str(exc))
    except MODEL_FAILURES as exc:  # see programs.MODEL_FAILURES
        reraise_in_debug()
        return OpShapeCheck("unchecked", error=f"the shape rule failed on this op ({failure_text(exc)})")
    if shapes is None:
        return OpShapeCheck("unchecked")
    return OpShapeCheck("checked", shapes=shapes)
