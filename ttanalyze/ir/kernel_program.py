"""The program descriptor of ``ttnn.generic``: ``#ttnn.program`` and ``#ttnn.mesh_program_descriptor``.

``ttnn.generic`` runs user kernels; its ``program`` attribute names every kernel
(its cores), every circular buffer (total size, cores, page size per buffer
index, optionally the tensor whose L1 buffer backs it) and every semaphore, the
way tt-mlir's runtime hands them to tt-metal (``runtime/lib/ttnn/operations/
generic/generic_op.cpp`` @19c86fca builds a ``tt::tt_metal::ProgramDescriptor``
field by field).  This module reads every era's spelling of those attributes
(tt-mlir ``include/ttmlir/Dialect/TTNN/IR/TTNNOpsAttrs.td``):

* 2025-09-05 (adf6a202, the first ``ttnn.generic``): ``#ttnn.kernel_cb<total_size
  = N, core_range = #ttnn.core_range<...>, formats = [...]>``, kernels and
  ``#ttnn.kernel_semaphore<core_type, core_range, initial_value>`` on one core range;
* from 2025-09 (before 4d9c1aa8): ``core_ranges = #ttnn.core_range_set<...>``;
* from 2025-10-07 (4d9c1aa8): ``buffer = #ttnn.kernel_cb_global_buffer_address_of_tensor<i>``
  (a CB in the L1 buffer of io tensor ``i``);
* from 2026 on: semaphores carry an ``id``; ``#ttnn.mesh_program_descriptor<[#ttnn.mesh_program<range
  = ..., program = #ttnn.program<...>>], fabric_connection_config = ...>`` (8df1d550, 2026-02-04)
  runs a program per mesh range; ``#ttnn.source_*_kernel`` kernels carry their C++ inline
  (tt-lang kernels, 2026-06).

Inside a ``#ttnn.program`` the CBs, their formats and the semaphores may be printed with or
without their mnemonic (``cbs = [<total_size = 2048, ...>]``), or as aliases (``cbs = [#in_cb]``).
The builders are registered in :mod:`ttanalyze.ir.attrs` (they use its alias-resolving builder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .attr_grammar import Coord, Ident, Node, SymbolRef, TypedInt

if TYPE_CHECKING:
    from .attrs import CoreRangeSet, _Builder

SOURCE = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOpsAttrs.td (KernelCBAttr, KernelSemaphoreAttr, ProgramAttr)"
KERNEL_KINDS = ("compute_kernel", "read_kernel", "write_kernel", "data_movement_kernel",
                "source_compute_kernel", "source_read_kernel", "source_write_kernel")


@dataclass(frozen=True)
class KernelCBFormat:
    """``#ttnn.kernel_cb_format<buffer_index, dtype, page_size>``: one buffer index of a CB (page size in bytes)."""

    buffer_index: int
    dtype: str
    page_size: int


@dataclass(frozen=True)
class KernelCB:
    """``#ttnn.kernel_cb``: a circular buffer of ``total_size`` bytes on every core of ``core_ranges``.

    ``buffer_tensor`` is the io-tensor index whose L1 buffer backs the CB
    (``kernel_cb_global_buffer_address_of_tensor``), None for a CB of its own.
    """

    total_size: int
    core_ranges: CoreRangeSet
    formats: tuple[KernelCBFormat, ...]
    buffer_tensor: int | None = None


@dataclass(frozen=True)
class KernelSemaphore:
    """``#ttnn.kernel_semaphore``: a program semaphore (``id`` None before semaphores carried one)."""

    id: int | None
    core_type: str
    core_ranges: CoreRangeSet
    initial_value: int


@dataclass(frozen=True)
class Kernel:
    """One kernel of a program: its kind (``compute_kernel``, ``read_kernel``...), the function it runs
    (``@symbol``, or ``<inline source>``), its cores, and what its arguments index.

    Attributes:
        tensor_args: io-tensor indices of every ``kernel_arg_address_of_tensor`` /
            ``kernel_arg_tensor_accessor_args`` in its argument lists.
        common_tensor_args: those of ``kernel_arg_address_of_tensor`` in ``common_rt_args``,
            and ``semaphore_args`` the ``kernel_arg_semaphore_at`` indices of ``common_rt_args`` and
            ``ct_args``: what tt-mlir's ``GenericOp::verify`` bounds-checks.
    """

    kind: str
    name: str
    core_ranges: CoreRangeSet
    tensor_args: tuple[int, ...] = ()
    common_tensor_args: tuple[int, ...] = ()
    semaphore_args: tuple[int, ...] = ()


@dataclass(frozen=True)
class GenericProgram:
    """``#ttnn.program<kernels = [...], cbs = [...], semaphores = [...]>``."""

    kernels: tuple[Kernel, ...]
    cbs: tuple[KernelCB, ...]
    semaphores: tuple[KernelSemaphore, ...]


@dataclass(frozen=True)
class MeshGenericProgram:
    """``#ttnn.mesh_program_descriptor``: a :class:`GenericProgram` per mesh range (``range`` as printed)."""

    programs: tuple[tuple[str, GenericProgram], ...]


def _error(message: str) -> Exception:
    from .attrs import AttrError  # attrs imports this module at its end

    return AttrError(message)


def _int(v: Any, what: str) -> int:
    if isinstance(v, TypedInt):
        return v.value
    if isinstance(v, bool) or not isinstance(v, int):
        raise _error(f"{what}: expected an integer, got {v!r:.60}")
    return v


def _name(v: Any, what: str) -> str:
    if isinstance(v, Ident):
        return v.name
    if isinstance(v, Node) and len(v.items) == 1 and isinstance(v.items[0], Ident) and not v.kw:
        return v.items[0].name
    raise _error(f"{what}: expected an identifier, got {v!r:.60}")


def _node(b: _Builder, v: Any, names: tuple[str, ...], what: str) -> Node:
    """``v`` (an alias resolved) as a parameter list printed with one of ``names`` or without a mnemonic."""
    v = b.deref(v)
    if isinstance(v, Node) and (v.name is None or v.name in names):
        return v
    raise _error(f"{what}: expected #{names[0]}<...>, got {v!r:.60}")


def _cores(b: _Builder, kw: dict, what: str) -> CoreRangeSet:
    """``core_ranges = <[...]>`` (a core range set), or ``core_range = #ttnn.core_range<...>`` (2025-09)."""
    from .attrs import CoreRangeSet

    if "core_ranges" in kw:
        return b.core_range_set(kw["core_ranges"])
    if "core_range" in kw:
        r = b.deref(kw["core_range"])
        if isinstance(r, Node) and r.name in (None, "ttnn.core_range"):
            return CoreRangeSet((b.core_range(r),))
        raise _error(f"{what} core_range: expected #ttnn.core_range<...>, got {r!r:.60}")
    raise _error(f"{what} has no core_ranges")


def _cb(b: _Builder, v: Any) -> KernelCB:
    node = _node(b, v, ("ttnn.kernel_cb",), "cbs")
    kw = node.kw
    if "total_size" not in kw or "formats" not in kw:
        raise _error("#ttnn.kernel_cb needs total_size and formats")
    formats = []
    for f in kw["formats"] if isinstance(kw["formats"], list) else [kw["formats"]]:
        f = _node(b, f, ("ttnn.kernel_cb_format",), "kernel_cb formats")
        if not {"buffer_index", "dtype", "page_size"} <= f.kw.keys():
            raise _error("#ttnn.kernel_cb_format needs buffer_index, dtype and page_size")
        formats.append(KernelCBFormat(_int(f.kw["buffer_index"], "buffer_index"), _name(f.kw["dtype"], "dtype"),
                                      _int(f.kw["page_size"], "page_size")))
    buffer = None
    if "buffer" in kw:
        ref = _node(b, kw["buffer"], ("ttnn.kernel_cb_global_buffer_address_of_tensor",), "kernel_cb buffer")
        if len(ref.items) != 1:
            raise _error("#ttnn.kernel_cb_global_buffer_address_of_tensor expects <tensor index>")
        buffer = _int(ref.items[0], "kernel_cb buffer tensor index")
    return KernelCB(_int(kw["total_size"], "total_size"), _cores(b, kw, "#ttnn.kernel_cb"), tuple(formats), buffer)


def _semaphore(b: _Builder, v: Any) -> KernelSemaphore:
    node = _node(b, v, ("ttnn.kernel_semaphore",), "semaphores")
    kw = node.kw
    core_type = kw.get("core_type")
    return KernelSemaphore(_int(kw["id"], "semaphore id") if "id" in kw else None,
                           _name(core_type, "semaphore core_type") if core_type is not None else "worker",
                           _cores(b, kw, "#ttnn.kernel_semaphore"),
                           _int(kw.get("initial_value", 0), "semaphore initial_value"))


_TENSOR_ARGS = ("ttnn.kernel_arg_address_of_tensor", "ttnn.kernel_arg_tensor_accessor_args")


def _arg_indices(b: _Builder, v: Any, names: tuple[str, ...], out: list[int]) -> None:
    """Collect the index of every kernel argument attribute named in ``names`` inside ``v`` (lists, per-core args)."""
    v = b.deref(v)
    if isinstance(v, list):
        for x in v:
            _arg_indices(b, x, names, out)
    elif isinstance(v, Node):
        if v.name in names and v.items:
            index = v.items[0]
            if isinstance(index, int) and index not in out:
                out.append(index)
            return
        for x in list(v.items) + list(v.kw.values()):
            _arg_indices(b, x, names, out)


def _kernel(b: _Builder, v: Any) -> Kernel:
    """A kernel of any kind: the known ones (:data:`KERNEL_KINDS`) and, read the same way, any later one."""
    from .attrs import CoreRangeSet

    node = b.deref(v)
    if not (isinstance(node, Node) and node.name):
        raise _error(f"kernels: expected a kernel attribute (#ttnn.read_kernel<...>...), got {node!r:.60}")
    kind = node.name.split(".", 1)[-1]
    sym = node.kw.get("symbol_ref")
    name = sym.name if isinstance(sym, SymbolRef) else "<inline source>" if "source" in node.kw else "?"
    every: list[int] = []
    for key in ("ct_args", "common_rt_args", "rt_args"):
        if key in node.kw:
            _arg_indices(b, node.kw[key], _TENSOR_ARGS, every)
    common: list[int] = []
    _arg_indices(b, node.kw.get("common_rt_args", []), ("ttnn.kernel_arg_address_of_tensor",), common)
    sems: list[int] = []
    for key in ("common_rt_args", "ct_args"):
        _arg_indices(b, node.kw.get(key, []), ("ttnn.kernel_arg_semaphore_at",), sems)
    has_cores = "core_ranges" in node.kw or "core_range" in node.kw
    cores = _cores(b, node.kw, f"#ttnn.{kind}") if has_cores else CoreRangeSet(())
    return Kernel(kind, name, cores, tuple(every), tuple(common), tuple(sems))


def _list(v: Any) -> list:
    return v if isinstance(v, list) else [] if v is None else [v]


def build_program(b: _Builder, node: Node) -> GenericProgram:
    """``#ttnn.program<kernels = [...], cbs = [...], semaphores = [...]>`` (TTNN_ProgramAttr).

    Raises:
        AttrError: a CB, format, semaphore or kernel whose parameters do not match its TableGen definition.
    """
    kw = node.kw
    return GenericProgram(tuple(_kernel(b, k) for k in _list(b.deref(kw.get("kernels")))),
                          tuple(_cb(b, c) for c in _list(b.deref(kw.get("cbs")))),
                          tuple(_semaphore(b, s) for s in _list(b.deref(kw.get("semaphores")))))


def _range_text(v: Any) -> str:
    if isinstance(v, Node):
        inner = ", ".join(_range_text(x) for x in v.items)
        return f"<{inner}>" if v.name is None else f"#{v.name}<{inner}>"
    if isinstance(v, Coord):
        return "(" + ", ".join(map(str, v.values)) + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_range_text(x) for x in v) + "]"
    return str(v)


def build_mesh_program_descriptor(b: _Builder, node: Node) -> MeshGenericProgram:
    """``#ttnn.mesh_program_descriptor<[#ttnn.mesh_program<range = ..., program = ...>], fabric_connection_config
    = ...>`` (TTNN_MeshProgramDescriptorAttr): one :class:`GenericProgram` per mesh range.

    Raises:
        AttrError: a mesh program without a ``program``.
    """
    programs = []
    for item in _list(b.deref(node.items[0]) if node.items else None):
        mp = _node(b, item, ("ttnn.mesh_program",), "mesh_program_descriptor")
        program = b.deref(mp.kw.get("program"))
        if not (isinstance(program, Node) and program.name == "ttnn.program"):
            raise _error("#ttnn.mesh_program needs program = #ttnn.program<...>")
        programs.append((_range_text(b.deref(mp.kw.get("range"))), build_program(b, program)))
    return MeshGenericProgram(tuple(programs))


BUILDERS = {"ttnn.program": build_program, "ttnn.mesh_program_descriptor": build_mesh_program_descriptor}
