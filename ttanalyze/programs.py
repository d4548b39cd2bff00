"""The program (cores and circular buffers) of every op of a program.

For each op with a CB model (:mod:`ttanalyze.ops.cb`), build its
:class:`~ttanalyze.ops.cb.CBContext` from the analysis, and run the model.  The
free L1 a factory sees (``max_l1_space``) is tt-metal's: the lowest allocated L1
address when the op's program is created (its operands and results allocated,
outputs first) minus ``l1_unreserved_base``.  That address comes from the
allocator replay (:func:`ttanalyze.memory.replay`, tt-metal's free list: holes
left by freed buffers count), once it has run; before it, from the memory
timeline's sums (L1 buffers packed top-down from ``l1_size - l1_small_size``, no
fragmentation).  :func:`ttanalyze.analysis.analyze` runs the models with the
sums, replays the allocator, and reruns the models whose free L1 differs.
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from . import ops as O
from .arch import Arch
from .ir.model import Op
from .ops.cb import CBContext, CBFn, CBModelError, DeviceRejection, NoDeviceProgram, ProgramModel
from .ops.spec import SpecFn, TensorSpec

if TYPE_CHECKING:
    from .analysis import Analysis


@dataclass
class OpProgram:
    """The CB verdict for one op: a model, or why there is none.

    ``status`` is ``modeled``, ``unmodeled`` (no CB model for the op),
    ``not_device`` (no program: deallocate, get_device, host transfers, views;
    ``reason`` says which), ``rejected`` (tt-metal refuses the configuration;
    ``reason`` says which check; ``unsure`` why that refusal may not happen, see
    :class:`~ttanalyze.ops.cb.DeviceRejection`) or ``out_of_scope`` (the model does not cover
    this configuration; ``reason``).  ``stages`` are the device programs the op
    runs, in order; ``program`` is the one needing the most L1 per core (CBs plus
    other per-core L1), since each program's CBs are freed before the next.
    """

    status: str
    stages: list[ProgramModel] = field(default_factory=list)
    reason: str = ""
    unsure: str = ""

    @property
    def program(self) -> ProgramModel | None:
        if not self.stages:
            return None
        return max(self.stages, key=lambda p: p.region_bytes_per_core())


# Ops that build no device program.
NO_PROGRAM = frozenset({
    "ttnn.deallocate", "ttnn.get_device", "ttcore.load_cached", "ttnn.from_device", "ttnn.to_device",
    "ttnn.empty", "ttnn.prepare_conv2d_weights", "ttnn.prepare_conv2d_bias", "ttnn.prepare_conv3d_weights",
})


def max_l1_space(analysis: "Analysis", op: Op, arch: Arch | None = None) -> int:
    """tt-metal's ``get_max_l1_space`` at ``op``, in bytes per core (see module docstring).

    ``(lowest occupied L1 address or l1_size) - base`` (tt-metal ``lowest_occupied_compute_l1_address``):
    with no L1 tensor live, ``l1_size - l1_unreserved_base`` (L1_SMALL is not subtracted: measured on
    mock P150, tt-metal 614f605f, argmax [87216, 64] with a 64 KiB L1_SMALL still sizes its DFBs to all
    1,395,584 B), else the allocator replay's lowest live L1 address at the op
    (:attr:`ttanalyze.memory.AllocationReplay.l1_lowest_at_op`) minus the base, or, before the replay
    has run, the bank minus the live L1 (no fragmentation).
    """
    arch = arch or analysis.arch
    replayed = analysis.allocation
    if replayed is not None and arch is analysis.arch and op.index in replayed.l1_lowest_at_op:
        return free_l1_below(arch, replayed.l1_lowest_at_op[op.index])
    return summed_free_l1(analysis, op.index, arch)


def free_l1_below(arch: Arch, lowest: int | None) -> int:
    """Bytes per core from ``l1_unreserved_base`` to ``lowest`` (the lowest allocated L1 address, absolute),
    or to ``l1_size`` when no L1 buffer is allocated (None)."""
    if lowest is None:
        return arch.l1_size - arch.l1_unreserved_base
    return max(lowest - arch.l1_unreserved_base, 0)


def summed_free_l1(analysis: "Analysis", op_index: int, arch: Arch) -> int:
    """The free L1 at op ``op_index`` from the memory timeline's sums: the bank (``l1_size - l1_small_size -
    l1_unreserved_base``) minus the live L1 per core, or ``l1_size - l1_unreserved_base`` with none live."""
    point = analysis.memory.points.get(op_index)
    live = point.l1_per_core if point else 0
    if live == 0:
        return arch.l1_size - arch.l1_unreserved_base
    return max(arch.usable_l1 - live, 0)


def context_for(analysis: "Analysis", op: Op, arch: Arch | None = None, free_l1: int | None = None) -> CBContext:
    """The CBContext of ``op``.

    Args:
        analysis: the program's analysis.
        op: one of its ops.
        arch: override the program's arch (e.g. the measured mock device).
        free_l1: override ``max_l1_space`` (bytes per core).
    """
    arch = arch or analysis.arch
    inputs = tuple(analysis.infos.get(v) for v in op.operands)
    outputs = tuple(analysis.infos.get(v) for v in op.results)
    space = free_l1 if free_l1 is not None else max_l1_space(analysis, op, arch)
    views = analysis.tensor_views if arch is analysis.arch else {}
    return CBContext(op, arch, inputs, outputs, space, analysis.tt_metal, outputs_l1_per_core(analysis, op), views)


def outputs_l1_per_core(analysis: "Analysis", op: Op) -> int:
    """Bytes per core (per L1 bank) of the op's L1-resident results (:attr:`CBContext.output_l1_per_core`)."""
    infos = analysis.infos
    total = 0
    for v in op.results:
        i = infos.get(v)
        if i is not None and i.placement is not None and i.placement.buffer_type == "l1":
            total += i.placement.bytes_per_bank
    return total


def program_of(analysis: "Analysis", op: Op, arch: Arch | None = None, free_l1: int | None = None) -> OpProgram:
    """Run the op's CB model (:func:`run_cb_model`) in its context (:func:`context_for`)."""
    return run_cb_model(op, context_for(analysis, op, arch, free_l1))


# What a model raises when it meets input it was not written for (a fuzzed
# attribute list one value short, a zero extent): the op is then reported as
# out of the model's scope, with the failure, instead of ending the run with an
# internal error.  TTANALYZE_DEBUG=1 raises them (tests/test_fuzz.py counts them).
MODEL_FAILURES = (ArithmeticError, IndexError, KeyError, ValueError, TypeError, RecursionError, MemoryError)


def reraise_in_debug() -> None:
    """Re-raise the exception being handled when ``TTANALYZE_DEBUG`` is set."""
    if os.environ.get("TTANALYZE_DEBUG"):
        raise


def failure_text(exc: BaseException) -> str:
    """``IndexError at ops/conv.py:1343``: the exception and the innermost ttanalyze frame raising it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "ttanalyze" in f.filename]
    where = ""
    if frames:
        parts = frames[-1].filename.replace(os.sep, "/").split("/ttanalyze/")
        where = f" at {parts[-1]}:{frames[-1].lineno}"
    return f"{type(exc).__name__}{where}"


def run_cb_model(op: Op, ctx: CBContext) -> OpProgram:
    """The op's CB verdict in ``ctx``: its programs, or why there are none (never raises)."""
    if op.name in NO_PROGRAM:
        return OpProgram("not_device")
    model = O.cb_model(op.name)
    if model is None:
        return OpProgram("unmodeled", reason=f"no circular-buffer model for {op.name}")
    return _cb_verdict(op, ctx, model, _shape_rule_disagrees(op))


def _verdicts(op: Op, ctx: CBContext) -> tuple[OpProgram, list[TensorSpec] | None]:
    """``(run_cb_model(op, ctx), run_spec_model(op, ctx))``, in that order (the output-spec model reuses the
    plans the CB model derived in ``ctx``), with the models looked up and the shape rule's guard
    (:func:`_shape_rule_disagrees`) evaluated once for both."""
    name = op.name
    cb_model = None if name in NO_PROGRAM else O.cb_model(name)
    spec_model = O.spec_model(name)
    disagreement = _shape_rule_disagrees(op) if cb_model is not None or spec_model is not None else None
    if name in NO_PROGRAM:
        program = OpProgram("not_device")
    elif cb_model is None:
        program = OpProgram("unmodeled", reason=f"no circular-buffer model for {name}")
    else:
        program = _cb_verdict(op, ctx, cb_model, disagreement)
    return program, (None if spec_model is None or disagreement else _spec_verdict(ctx, spec_model))


def _cb_verdict(op: Op, ctx: CBContext, model: CBFn, disagreement: str | None) -> OpProgram:
    """:func:`run_cb_model` once the op's CB ``model`` is found and the shape rule's guard evaluated."""
    if disagreement:
        return OpProgram("out_of_scope", reason=disagreement)
    try:
        result = model(ctx)
    except NoDeviceProgram as exc:
        return OpProgram("not_device", reason=str(exc))
    except DeviceRejection as exc:
        return OpProgram("rejected", reason=str(exc), unsure=exc.unsure)
    except CBModelError as exc:
        return OpProgram("out_of_scope", reason=str(exc))
    except MODEL_FAILURES as exc:  # a bug of the model on input it was not written for: unknown, not a crash
        reraise_in_debug()
        return OpProgram("out_of_scope", reason=f"the CB model failed on this op ({failure_text(exc)}); "
                                                "its circular buffers are unknown")
    stages = result if isinstance(result, list) else [result]
    if not stages:
        return OpProgram("not_device", reason=f"{op.name} runs no device program here")
    return OpProgram("modeled", stages)


# Families whose plans walk the output (conv/pool sliding windows and halos): sized from attributes that
# disagree with the declared result (a padding of 2^31), they would loop over an output the program never has.
_OUTPUT_WALKING_FAMILIES = ("conv", "pool")


def _shape_rule_disagrees(op: Op) -> str | None:
    """Why a conv/pool op's program and output spec are not modeled: its shape rule infers other result
    shapes than the IR declares (TTA007 reports that); else None.  Other families' models keep their own
    refusals (a shape rule's error is often a tt-metal refusal they name)."""
    shape_model = O.lookup(op.name)
    if shape_model is None or shape_model.infer is None or shape_model.family not in _OUTPUT_WALKING_FAMILIES:
        return None
    try:
        inferred = shape_model.infer(op)
    except (O.ShapeError, *MODEL_FAILURES):
        return None  # the CB model's own guards report it
    declared = [tuple(v.type.shape) for v in op.results if v.is_tensor]
    if inferred is not None and [tuple(s) for s in inferred] != declared[:len(inferred)]:
        return "the declared result shape disagrees with the shape rule; its circular buffers are not modeled"
    return None


def run_spec_model(op: Op, ctx: CBContext) -> list[TensorSpec] | None:
    """What the op really returns in ``ctx`` (its output-spec model), or None without a model or outside it."""
    model = O.spec_model(op.name)
    if model is None or _shape_rule_disagrees(op):
        return None
    return _spec_verdict(ctx, model)


def _spec_verdict(ctx: CBContext, model: SpecFn) -> list[TensorSpec] | None:
    """:func:`run_spec_model` once the op's output-spec ``model`` is found and the shape rule agrees."""
    try:
        return model(ctx)
    except CBModelError:
        return None
    except MODEL_FAILURES:
        reraise_in_debug()
        return None


@dataclass
class Verdicts:
    """The op models' verdicts of one analysis, kept between :func:`op_models` calls.

    ``signatures``: per op index, the number of its signature (:func:`sign_ops`; :func:`op_models` numbers the
    ops when it is empty); ``by_key``: (programs, specs) by (signature number, free L1 in bytes per core), the
    inputs the models read (see :func:`op_models`), or by signature number alone for a verdict whose models
    did not read the free L1 (:attr:`~ttanalyze.ops.cb.CBContext.read_free_l1`); ``by_op``: each op's free L1
    (None: its verdict holds at every free L1) and verdict at its last call, so that a later call (after the
    allocator replay) looks up again only an op whose free L1 moved and whose verdict depends on it.
    """

    signatures: list[int] = field(default_factory=list)
    by_key: dict = field(default_factory=dict)
    by_op: dict[int, tuple[int, tuple]] = field(default_factory=dict)


def sign_ops(ops: "list[Op]") -> list[int]:
    """Per op (by index), the number of its signature: its name, attributes' text and the identities of its
    operand and result types (the parser makes one type object per distinct type), numbered from 0 in order
    of first appearance; -1 for an op of :data:`NO_PROGRAM` without an output model, whose verdict reads
    nothing of it (:func:`op_models`)."""
    ids: dict[tuple, int] = {}
    skip: dict[str, bool] = {}
    out = []
    for op in ops:
        name = op.name
        skipped = skip.get(name)
        if skipped is None:
            skipped = skip[name] = name in NO_PROGRAM and O.spec_model(name) is None
        if skipped:
            out.append(-1)
            continue
        sig = (name, tuple(op.raw_attrs.items()), tuple([id(v.type) for v in op.operands]),
               tuple([id(v.type) for v in op.results]))
        n = ids.get(sig)
        if n is None:
            n = ids[sig] = len(ids)
        out.append(n)
    return out


def op_models(analysis: "Analysis", verdicts: Verdicts | None = None,
              only: "Iterable[int] | None" = None) -> tuple[dict[int, OpProgram], dict[int, list[TensorSpec]]]:
    """Every op's programs (:func:`run_cb_model`) and output specs (:func:`run_spec_model`), by op index,
    from one context per op.

    The models read only the op's name, attributes, operand and result types
    and the free L1 around it, so ops alike in all of those share one
    verdict: the key is the op's signature number (``verdicts.signatures``) and
    the free L1 (the L1 of its L1 results is a function of its result types),
    or the signature alone when the models did not read the free L1.
    ``verdicts`` may be shared between the calls on one analysis: after the
    allocator replay, only the ops whose free L1 moved are looked up again (and
    modeled, when no op alike was).  ``only``: the indices of the ops to look up
    (:func:`moved_free_l1`'s); every other op keeps its verdict of ``analysis.programs`` / ``analysis.specs``,
    which must then hold the last call's (an op whose free L1 did not move keeps its verdict anyway).
    """
    programs: dict[int, OpProgram] = {}
    specs: dict[int, list[TensorSpec]] = {}
    if verdicts is None:
        verdicts = Verdicts()
    if not verdicts.signatures:
        verdicts.signatures = sign_ops(analysis.program.ops)
    seen, by_op, signatures = verdicts.by_key, verdicts.by_op, verdicts.signatures
    arch, infos, views, tt_metal = analysis.arch, analysis.infos, analysis.tensor_views, analysis.tt_metal
    replayed = analysis.allocation
    lowest_at_op = replayed.l1_lowest_at_op if replayed is not None else {}
    no_program = OpProgram("not_device")  # the verdict of every op of NO_PROGRAM without an output model
    ops = analysis.program.ops
    if only is not None:
        programs, specs = dict(analysis.programs), dict(analysis.specs)
        ops = [ops[i] for i in only]
    points, checks = analysis.memory.points, analysis.shape_checks
    no_live_l1, usable_l1, l1_base = arch.l1_size - arch.l1_unreserved_base, arch.usable_l1, arch.l1_unreserved_base
    for op in ops:
        i = op.index
        sig = signatures[i]
        if sig < 0:  # an op of NO_PROGRAM without an output model: run_cb_model reads nothing else of them
            programs[i] = no_program
            continue
        # max_l1_space(analysis, op), unrolled: the replay's lowest L1 address where it has one, else the sums
        if i in lowest_at_op:
            lowest = lowest_at_op[i]  # free_l1_below(arch, lowest)
            space = no_live_l1 if lowest is None else max(lowest - l1_base, 0)
        else:  # summed_free_l1(analysis, i, arch)
            point = points.get(i)
            live = point.l1_per_core if point else 0
            space = no_live_l1 if live == 0 else max(usable_l1 - live, 0)
        known = by_op.get(i)
        verdict: tuple | None
        if known is not None and (known[0] == space or known[0] is None):
            verdict = known[1]  # the other inputs of the key do not change within an analysis
        else:
            read_free_l1 = False
            verdict = seen.get(sig)  # a verdict that holds at every free L1
            if verdict is None:
                read_free_l1 = True
                key = (sig, space)
                verdict = seen.get(key)
                if verdict is None:  # the context (context_for's) is built only for an op whose verdict is not known yet
                    out_l1 = 0  # outputs_l1_per_core(analysis, op)
                    for v in op.results:
                        info = infos.get(v)
                        if info is not None and info.placement is not None and info.placement.buffer_type == "l1":
                            out_l1 += info.placement.bytes_per_bank
                    ctx = CBContext(op, arch, tuple([infos.get(v) for v in op.operands]),
                                    tuple([infos.get(v) for v in op.results]), space, tt_metal, out_l1, views,
                                    checks[i].shapes if i in checks else None)
                    verdict = _verdicts(op, ctx)
                    read_free_l1 = ctx.read_free_l1
                    seen[key if read_free_l1 else sig] = verdict
            by_op[i] = (space if read_free_l1 else None, verdict)
        programs[i] = verdict[0]
        if verdict[1] is not None:
            specs[i] = verdict[1]
        else:
            specs.pop(i, None)
    if only is not None and list(specs) != sorted(specs):  # an op that gained a spec: program order, as a full call
        specs = {i: specs[i] for i in sorted(specs)}
    return programs, specs


def moved_free_l1(analysis: "Analysis", verdicts: Verdicts) -> list[int]:
    """The indices (in program order) of the ops whose free L1 (:func:`max_l1_space`) the allocator replay moves
    from the one their verdict in ``verdicts`` was modeled with, of the verdicts that read it: the only ops
    :func:`op_models` must look up again after the replay (the others' verdict is unchanged)."""
    arch = analysis.arch
    lowest_at_op = analysis.allocation.l1_lowest_at_op if analysis.allocation is not None else {}
    moved = []
    for i, (space, _) in verdicts.by_op.items():
        if space is not None and i in lowest_at_op and free_l1_below(arch, lowest_at_op[i]) != space:
            moved.append(i)
    moved.sort()
    return moved
