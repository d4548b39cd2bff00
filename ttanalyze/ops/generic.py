"""User-kernel ops: ``ttnn.generic``, ``ttnn.tt_lang_op`` and ``ttnn.d2m_subgraph``.

None of them runs a tt-metal program factory, but the IR says what they run:

* ``ttnn.generic`` carries its whole program descriptor (``#ttnn.program``, read by
  :mod:`ttanalyze.ir.kernel_program`): tt-mlir's runtime turns every ``#ttnn.kernel_cb``
  into a ``tt::tt_metal::CBDescriptor`` with the same total size, core ranges and
  formats, backed by io tensor ``i``'s buffer when the CB names one
  (``runtime/lib/ttnn/operations/generic/generic_op.cpp`` @19c86fca ``createCBDescriptor``),
  and ttnn's ``GenericOpDeviceOperation`` builds the program from it as is
  (``ttnn/cpp/ttnn/operations/generic/device/generic_op_program_factory.cpp``: ``Program
  program{program_descriptor}``; tt-metal ``tt_metal/impl/program/program.cpp``
  ``Program::Program(const ProgramDescriptor&)`` adds each CB with ``add_circular_buffer_``).
  The CBs of :func:`generic_cb` are therefore the program's, to the byte: a CB backed
  by a tensor (``kernel_cb_global_buffer_address_of_tensor``) is globally allocated and
  takes no L1 of its own; every other CB sits in the static CB region, so TTA010's checks
  apply unchanged.  Semaphores live in the program's kernel-config region (tt-metal
  ``add_semaphore``), not in allocator L1.  The op has no results: it writes its
  preallocated output tensors (the last io tensors) in place.
* ``ttnn.tt_lang_op`` is lowered to a ``ttnn.generic`` by ``--ttnn-lower-tt-lang-to-generic``
  (``lib/Dialect/TTNN/Transforms/TTNNLowerTTLangToGeneric.cpp`` @19c86fca) from its
  ``kernel_artifact`` JSON: every ``cb_configs`` entry becomes a CB of ``total_size`` bytes
  on ``core_range`` (none tensor-backed), ``num_pipe_sync_semaphores`` semaphores, and a
  ``pipe_sram_scratch_bytes`` scratch becomes a height-sharded L1 tensor of
  ``align_up(bytes, 32)`` B per core (:func:`tt_lang_cb`).  Without an artifact (before
  ``--ttnn-resolve-tt-lang-kernels`` runs) nothing about its kernels is known.  Its results are
  its ``"out"`` operands' buffers (destination-passing style, :func:`tied_operand`): the
  allocator replay allocates nothing for them.
* ``ttnn.d2m_subgraph @fn ins(...) outs(...)`` runs the function ``@fn`` of the module:
  ``TTNNCollaspeD2M`` inlines its body at the call (callee arguments = ``ins``, results =
  the callee's returned values; ``lib/Dialect/TTNN/Transforms/TTNNCollaspeD2M.cpp``), so it
  is analyzed as a call (:attr:`ttanalyze.ir.model.Op.callee`): the callee's TTNN and
  ``ttnn.generic`` ops are modeled where they are; D2M ops in it stay unmodeled
  (TTA042 names the callee and them).

Measured: :func:`generic_cb`'s CBs and tt-metal's verdict against ``ttnn.generic_op`` on the
mock P150 of ttnn 0.81.1 (``measurements/generic/``, ``tests/test_ops_generic_measured.py``).
Kernel time is user code: not costed (the TTA042 note says so).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ..ir.kernel_program import GenericProgram, KernelCB, MeshGenericProgram
from ..ir.model import Op, Program, TensorType
from ..layout import align_up
from .cb import CB, CBContext, CBModelError, DeviceRejection, NoDeviceProgram, ProgramModel
from .moe_compute import tied_output
from .moe_metadata import DISPATCH_METADATA, bound_buffer_operand
from .registry import register_cb, register_check, register_passive
from .verifiers import verifier

_TTMLIR = "tt-mlir @19c86fca"
GENERIC_SOURCE = ("ttnn GenericOpDeviceOperation (generic_op_program_factory.cpp: Program{program_descriptor}) from "
                  f"the IR's program descriptor, as the runtime builds it ({_TTMLIR} runtime/lib/ttnn/operations/"
                  "generic/generic_op.cpp); ttnn 0.81.1, measured on the mock P150")
TT_LANG_SOURCE = (f"{_TTMLIR} lib/Dialect/TTNN/Transforms/TTNNLowerTTLangToGeneric.cpp: kernel_artifact -> ttnn.generic "
                  f"program, then {GENERIC_SOURCE}")
FACTORY = "GenericOpDeviceOperation"
NOT_COSTED = ("user kernels: their device time is not modeled (the descriptor gives their cores and buffers, not how "
              "much of each tensor they move or compute; no bound is claimed)")
# kernel_runner._align_up of the pipe scratch (TTNNLowerTTLangToGeneric.cpp createPipeSramScratchTensor).
PIPE_SCRATCH_ALIGN = 32


register_passive(("ttnn.generic",), "custom", ("program", "operandSegmentSizes", "memory_config"),
                 f"{_TTMLIR} TTNNOps.td GenericOp: no results (writes its preallocated output tensors in place)")
register_passive(("ttnn.tt_lang_op",), "custom", ("kernel_id", "version_tag", "arg_roles", "shard_spec",
                                                  "kernel_artifact"),
                 f"{_TTMLIR} TTNNOps.td TTLangOp: destination-passing style, result i aliases the i-th 'out' "
                 "operand (results as declared)")
register_passive(("ttnn.d2m_subgraph",), "custom", ("d2m_func", "operandSegmentSizes"),
                 f"{_TTMLIR} TTNNOps.td D2MSubgraphOp: its results are the callee's returned values (TTNNCollaspeD2M)")
register_check(("ttnn.generic", "ttnn.tt_lang_op"), "mock",
               "tests/test_ops_generic_measured.py against measurements/generic/results.jsonl (ttnn.generic_op "
               "with random program descriptors; tt_lang_op through the descriptor it lowers to)",
               device_ops=(FACTORY,))
register_check("ttnn.d2m_subgraph", "none", "a call of its @d2m_func callee (TTNNCollaspeD2M inlines it): the "
               "callee's ops are modeled where they are")


def io_tensor_count(op: Op) -> int:
    """How many operands of a ``ttnn.generic`` are io tensors (``operandSegmentSizes[0]``; all without it)."""
    seg = op.attrs.get("operandSegmentSizes")
    if isinstance(seg, list) and seg and isinstance(seg[0], int):
        return seg[0]
    return len(op.operands)


def _union(sets: Iterable[CoreRangeSet]) -> CoreRangeSet:
    ranges: list[CoreRange] = []
    for s in sets:
        ranges.extend(r for r in s.ranges if r not in ranges)
    return CoreRangeSet(tuple(ranges))


def _overlap(a: CoreRange, b: CoreRange) -> bool:
    return not (a.end.x < b.start.x or b.end.x < a.start.x or a.end.y < b.start.y or b.end.y < a.start.y)


def descriptor_program(ctx: CBContext, program: GenericProgram, factory: str, source: str,
                       n_io: int) -> ProgramModel:
    """The program tt-metal builds from one program descriptor: cores, CBs, notes.

    Every ``#ttnn.kernel_cb`` becomes one :class:`~ttanalyze.ops.cb.CB` of ``total_size`` bytes
    (``total_size / page_size`` pages of its first format's page size) on its core ranges, in
    descriptor order (the order tt-metal allocates them).  tt-metal's own refusals of a
    descriptor, each reproduced on the mock P150 (ttnn 0.81.1):

    * ``total_size`` not a multiple of a format's page size: "Total circular buffer size X B must
      be divisible by page size Y B" (``tt_metal/impl/buffers/circular_buffer_config.cpp``);
    * a buffer index used by two CBs on a common core: "Invalid circular buffer index: Cannot add
      circular buffer at index i, another circular buffer already exists" (``impl/program/program.cpp``
      ``add_circular_buffer_``);
    * a tensor-backed CB larger than its tensor's L1 bank: "Cannot set circular buffer size to X.
      This is larger than the associated dynamically allocated L1 buffer bank size of Y B"
      (``set_globally_allocated_address``), or backed by a tensor outside L1: "Only L1 buffers can
      have an associated circular buffer!" (from source).

    Args:
        ctx: the op's context (its operands' layouts: the io tensors are the first ``n_io``).
        program: the descriptor.
        n_io: how many operands are io tensors (the CB ``buffer`` indices index them).

    Raises:
        DeviceRejection: one of the refusals above.
        CBModelError: a tensor-backed CB whose tensor has no TTNN layout, or an index past the io tensors.
    """
    cbs: list[CB] = []
    used: list[tuple[int, CoreRange]] = []  # (buffer index, core range) of every CB so far
    for n, kcb in enumerate(program.cbs):
        if not kcb.formats:
            raise CBModelError(f"cbs[{n}] of the program descriptor has no format")
        for f in kcb.formats:
            if f.page_size <= 0 or kcb.total_size % f.page_size:
                raise DeviceRejection(f"cbs[{n}]: TT_THROW Total circular buffer size {kcb.total_size} B must be "
                                      f"divisible by page size {f.page_size} B (tt-metal circular_buffer_config.cpp)")
        if kcb.buffer_tensor is not None:
            _check_backing_tensor(ctx, n, kcb, n_io)
        for f in kcb.formats:
            for index, r in used:
                if index == f.buffer_index and any(_overlap(r, s) for s in kcb.core_ranges.ranges):
                    raise DeviceRejection(
                        f"cbs[{n}]: TT_THROW Invalid circular buffer index: Cannot add circular buffer at index "
                        f"{index}, another circular buffer already exists (on a core of {r}; tt-metal program.cpp "
                        "add_circular_buffer_)")
        used.extend((f.buffer_index, r) for f in kcb.formats for r in kcb.core_ranges.ranges)
        page = kcb.formats[0].page_size
        indices = "/".join(f"c_{f.buffer_index}" for f in kcb.formats)
        backed = f", in io tensor #{kcb.buffer_tensor}'s buffer" if kcb.buffer_tensor is not None else ""
        cbs.append(CB(kcb.formats[0].buffer_index, f"cbs[{n}] {indices} {kcb.formats[0].dtype}{backed}", page,
                      kcb.total_size // page, kcb.core_ranges, globally_allocated=kcb.buffer_tensor is not None))
    cores = _union(k.core_ranges for k in program.kernels) if program.kernels else _union(c.cores for c in cbs)
    notes = [f"{len(program.kernels)} user kernel(s): " + ", ".join(f"{k.kind} {k.name}" for k in program.kernels)]
    if program.semaphores:
        notes.append(f"{len(program.semaphores)} semaphore(s): in the program's kernel-config region, not allocator L1")
    return ProgramModel(factory, source, cores, cbs, notes=notes, params={"not_costed": NOT_COSTED})


def _check_backing_tensor(ctx: CBContext, n: int, kcb: KernelCB, n_io: int) -> None:
    i = kcb.buffer_tensor
    if i >= n_io:
        raise CBModelError(f"cbs[{n}] is backed by io tensor #{i}, but the op has {n_io} io tensors")
    info = ctx.input(i)
    placement = info.placement
    if placement is None or placement.buffer_type != "l1":
        where = placement.buffer_type if placement is not None else "host"
        raise DeviceRejection(f"cbs[{n}] is backed by io tensor #{i}, which is in {where}: TT_THROW Only L1 buffers "
                              "can have an associated circular buffer! (tt-metal CircularBufferConfig::"
                              "set_globally_allocated_address)")
    if kcb.total_size > placement.bytes_per_bank:
        raise DeviceRejection(f"cbs[{n}]: TT_FATAL Cannot set circular buffer size to {kcb.total_size}. This is "
                              "larger than the associated dynamically allocated L1 buffer bank size of "
                              f"{placement.bytes_per_bank} B (io tensor #{i}; tt-metal circular_buffer_config.cpp)")


@register_cb("ttnn.generic")
def generic_cb(ctx: CBContext) -> ProgramModel | list[ProgramModel]:
    """The program(s) of a ``ttnn.generic`` from its descriptor (:func:`descriptor_program`).

    A ``#ttnn.mesh_program_descriptor`` gives one program per mesh range (each device runs the one
    of its range); they are returned as a list, so the per-core figures are the largest of them.

    Raises:
        CBModelError: no readable ``program`` attribute.
        DeviceRejection: see :func:`descriptor_program`.
    """
    program = ctx.op.attrs.get("program")
    n_io = io_tensor_count(ctx.op)
    if isinstance(program, GenericProgram):
        return descriptor_program(ctx, program, FACTORY, GENERIC_SOURCE, n_io)
    if isinstance(program, MeshGenericProgram):
        return [descriptor_program(ctx, p, f"{FACTORY} on mesh range {where}", GENERIC_SOURCE, n_io)
                for where, p in program.programs]
    raise CBModelError(f"{ctx.op.name} has no readable program descriptor")


@register_cb("ttnn.tt_lang_op")
def tt_lang_cb(ctx: CBContext) -> ProgramModel:
    """The program a ``ttnn.tt_lang_op`` runs, from its ``kernel_artifact`` (see the module docstring).

    Raises:
        CBModelError: no ``kernel_artifact`` yet (tt-xla's resolver fills it after the TTNN pipeline), or
            one the lowering pass would refuse (not JSON, no ``core_range``/``cb_configs``).
        DeviceRejection: a CB tt-metal refuses (:func:`descriptor_program`).
    """
    op = ctx.op
    text = op.attrs.get("kernel_artifact")
    if not isinstance(text, str) or not text:
        raise CBModelError(f"{op.name} has no kernel_artifact yet: its kernels and circular buffers are chosen by "
                           "the tt-lang resolver (--ttnn-resolve-tt-lang-kernels), which runs after this IR")
    try:
        art = json.loads(text)
        start, end = art["core_range"]["start"], art["core_range"]["end"]
        cores = CoreRangeSet((CoreRange(CoreCoord(int(start[0]), int(start[1])), CoreCoord(int(end[0]), int(end[1]))),))
        kcbs = tuple(KernelCB(int(c["total_size"]), cores,
                              (_format(c),)) for c in art["cb_configs"])
        scratch = int(art.get("pipe_sram_scratch_bytes", 0))
        semaphores = int(art.get("num_pipe_sync_semaphores", 0))
        kernels = [k.get("thread_type", "?") for k in art.get("kernels", [])]
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise CBModelError(f"{op.name}: its kernel_artifact is not one the lowering pass reads ({exc})") from None
    model = descriptor_program(ctx, GenericProgram((), kcbs, ()), f"{FACTORY} (lowered tt_lang_op "
                               f"{op.attrs.get('kernel_id', '?')})", TT_LANG_SOURCE, len(op.operands))
    model.cores = cores
    model.notes[0] = f"{len(kernels)} tt-lang kernel(s) ({', '.join(kernels)}) on {cores}"
    if semaphores:
        model.notes.append(f"{semaphores} pipe semaphore(s): in the program's kernel-config region, not allocator L1")
    if scratch:
        model.l1_buffers_per_core = align_up(scratch, PIPE_SCRATCH_ALIGN)
        model.notes.append(f"pipe SRAM scratch: a height-sharded L1 tensor of {model.l1_buffers_per_core} B per core")
    return model


def _format(c: dict):
    from ..ir.kernel_program import KernelCBFormat

    return KernelCBFormat(int(c["buffer_index"]), str(c["data_format"]), int(c["page_size"]))


# The ops some of whose results are not buffers of their own: :func:`tied_operand` or
# :func:`ttanalyze.ops.moe_compute.aliased_result` may answer for them, and only for them (each reads the op's
# name first), so the allocator replay and the memory timeline ask about these ops' results only.
BUFFER_SHARING_OPS = frozenset({"ttnn.tt_lang_op", DISPATCH_METADATA, "ttnn.moe_compute", "ttnn.moe_gpt"})


def tied_operand(op: Op, k: int) -> int | None:
    """The operand whose buffer result ``k`` of ``op`` is, for a destination-passing-style user-kernel op: a
    ``ttnn.tt_lang_op``'s result ``i`` is its ``i``-th ``"out"`` operand, the trailing ones (TTNNOps.td
    ``TTLangOp::getDpsInitsMutable`` @19c86fca), or for an op returning bound persistent buffers
    (:func:`ttanalyze.ops.moe_metadata.bound_buffer_operand`, :func:`ttanalyze.ops.moe_compute.tied_output`); None
    for any other op."""
    if op.name == "ttnn.tt_lang_op" and k < len(op.results) <= len(op.operands):
        return len(op.operands) - len(op.results) + k
    bound = bound_buffer_operand(op, k)
    return bound if bound is not None else tied_output(op, k)


@register_cb("ttnn.d2m_subgraph")
def d2m_subgraph_cb(ctx: CBContext) -> ProgramModel:
    """A ``ttnn.d2m_subgraph`` runs no program of its own: its callee's ops run in its place.

    Raises:
        NoDeviceProgram: always (the callee's ops carry the programs).
    """
    raise NoDeviceProgram(f"{ctx.op.name} runs its callee @{ctx.op.callee or '?'} in place: the callee's ops "
                          "carry the programs")


@verifier("ttnn.d2m_subgraph")
def d2m_subgraph_verifier(op: Op, program: Program) -> str | None:
    """``D2MSubgraphOp::verify`` (tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca): the callee exists, takes
    the ``ins`` (same count and types) and returns the op's result types."""
    name = op.attrs.get("d2m_func")
    if not isinstance(name, str):
        return None
    callee = program.func(name)
    if callee is None:
        return f"Could not find D2M function '@{name}' in parent module."
    seg = op.attrs.get("operandSegmentSizes")
    n_ins = seg[0] if isinstance(seg, list) and seg else len(callee.args)
    if len(callee.args) != n_ins:
        return f"D2M function must have {n_ins} arguments, got {len(callee.args)}"
    for i, (v, a) in enumerate(zip(op.operands[:n_ins], callee.args)):
        if not _same_type(v.type, a.type):
            return f"D2M function argument type {i} mismatch: expected {v.type}, got {a.type}"
    if len(callee.returns) != len(op.results):
        return f"D2M function must have {len(op.results)} return values, got {len(callee.returns)}"
    for i, (r, v) in enumerate(zip(op.results, callee.returns)):
        if not _same_type(r.type, v.type):
            return f"D2M function return type {i} mismatch: expected {r.type}, got {v.type}"
    return None


def _same_type(a, b) -> bool:
    """Two types are the same MLIR type: shape, element type and layout (however the layout is spelled)."""
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return (a.shape, a.element, a.layout, a.tensor_mesh) == (b.shape, b.element, b.layout, b.tensor_mesh)
    return str(a) == str(b)


@verifier("ttnn.generic")
def generic_verifier(op: Op, program: Program) -> str | None:  # noqa: ARG001
    """``GenericOp::verify`` / ``verifyProgramAttr`` (tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca): at least
    one io tensor; every ``kernel_arg_address_of_tensor`` of a kernel's ``common_rt_args`` indexes an io tensor;
    every ``kernel_arg_semaphore_at`` of its ``common_rt_args`` and ``ct_args`` indexes a program semaphore."""
    attr = op.attrs.get("program")
    programs = [attr] if isinstance(attr, GenericProgram) else \
        [p for _, p in attr.programs] if isinstance(attr, MeshGenericProgram) else []
    n_io = io_tensor_count(op)
    for prog in programs:
        if n_io == 0:
            return "GenericOp must have at least one operand"
        for kernel in prog.kernels:
            if any(i >= n_io for i in kernel.common_tensor_args):
                return "Address of tensor at index is out of bounds"
            if any(i >= len(prog.semaphores) for i in kernel.semaphore_args):
                return "Semaphore at index is out of bounds"
    return None
