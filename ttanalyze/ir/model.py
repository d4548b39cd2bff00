"""The typed program model every analysis reads.

Nothing downstream of :mod:`ttanalyze.ir.parse` looks at IR text or at MLIR
binding objects: a :class:`Program` holds functions, ops, values and their
typed attributes, each op with its file:line:col in the user's file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import SourcePos
from .attrs import DataType, Meshes, SystemDesc, TTNNLayout


@dataclass(frozen=True)
class TensorType:
    """A ranked tensor type: logical shape, scalar element type and TTNN layout.

    ``layout`` is None for tensors without a ``#ttnn.ttnn_layout`` encoding;
    ``encoding_text`` keeps the encoding for reports.  ``element`` is the data
    type, also for a tensor whose element type is a tile
    (``tensor<...x!ttcore.tile<32x32, bfp_bf8>, #layout>``, bfp weights), whose
    shape stays the logical shape in elements.  ``tensor_mesh`` names the device
    mesh a multi-device tensor is spread over (``mesh = #ttcore.tensor_mesh<"m">``
    in its layout, or a bare ``#ttcore.tensor_mesh<"m">`` encoding), None for a
    single-device tensor; :meth:`Program.mesh_shape` gives that mesh's shape.
    """

    shape: tuple[int, ...]
    element: DataType
    layout: TTNNLayout | None
    encoding_text: str = ""
    tensor_mesh: str | None = None

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        return f"tensor<{dims}{'x' if dims else ''}{self.element}>"


@dataclass(frozen=True)
class OtherType:
    """A non-tensor type (``!ttnn.device``, ``tuple<...>``...), kept as text."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(eq=False)
class Value:
    """An SSA value: a function argument or an op result.

    Attributes:
        name: its SSA name as printed (``%3``, ``%arg0``), unique per function.
        type: TensorType or OtherType.
        producer: the defining Op, None for function arguments.
        users: ops that take it as an operand, in program order.
        arg_name: for function arguments, the source name from its location (``x``).
    """

    name: str
    type: TensorType | OtherType
    producer: "Op | None" = None
    users: list["Op"] = field(default_factory=list)
    arg_name: str = ""
    func: "Func | None" = None

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.type, TensorType)

    @property
    def key(self) -> str:
        """Unique key within the program: ``func:name``."""
        return f"{self.func.name if self.func else ''}:{self.name}"

    def __repr__(self) -> str:
        return f"Value({self.name}: {self.type})"


@dataclass(eq=False)
class Op:
    """One operation.

    Attributes:
        index: position in the program's flat op list (program order).
        name: the op name (``ttnn.reshape``).
        operands / results: Values.
        attrs: attribute name -> typed value (ints, floats, lists, typed attrs).
        raw_attrs: attribute name -> its text as printed, for reports.
        pos: file:line:col of the op in the user's file.
        loc_text: the op's ``loc(...)`` as written (aliases unresolved); see
            :attr:`loc_name`.
        func: the enclosing Func.
        callee: for ``ttcore.load_cached``/``func.call``, the called function's name.
        opaque: why the op is opaque, "" when it is not: ``"custom syntax"`` (printed
            in a custom syntax ttanalyze cannot read, e.g. ``ttnn.d2m_subgraph``,
            ``d2m.empty``: its name, the operands it names and its results are
            known, its attributes are not) or ``"region"`` (an op with regions,
            whose nested ops are not analyzed).  Opaque ops are reported as
            unmodeled, never guessed.
        dps_index: for an op of the destination-passing era (tt-mlir before 2025-02-28), the position in
            the written operand list of its ``$output`` operand (a ``ttnn.empty`` holding the result),
            which is not among ``operands``; -1 otherwise.
    """

    index: int
    name: str
    operands: list[Value]
    results: list[Value]
    attrs: dict[str, Any]
    raw_attrs: dict[str, str]
    pos: SourcePos
    loc_text: str
    func: "Func"
    callee: str | None = None
    opaque: str = ""
    dps_index: int = -1

    @property
    def loc_name(self) -> str:
        """Readable name of the op's MLIR location (``jit(mlp)/add``), "" if none."""
        if not self.loc_text or self.func.loc_resolver is None:
            return ""
        return self.func.loc_resolver(self.loc_text)

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def short_name(self) -> str:
        return self.name.split(".", 1)[-1]

    @property
    def label(self) -> str:
        """``%3 = ttnn.reshape`` style label for reports."""
        res = ", ".join(r.name for r in self.results)
        return f"{res + ' = ' if res else ''}{self.name}"

    def __repr__(self) -> str:
        return f"Op({self.label} @ {self.pos})"


@dataclass(eq=False)
class Func:
    """A ``func.func``: arguments, ops in order, returned values.

    ``kind`` is tt-mlir's ``tt.function_type`` (``forward_device``,
    ``const_eval``...) or "" when absent.
    """

    name: str
    args: list[Value]
    ops: list[Op]
    returns: list[Value]
    kind: str
    pos: SourcePos
    private: bool = False
    loc_resolver: Callable[[str], str] | None = None


@dataclass
class Program:
    """A whole TTNN module.

    Attributes:
        path: the file it came from.
        funcs: functions in textual order.
        system_desc: the module's ``ttcore.system_desc``, or None.
        ops: every op of every function, in program order (``Op.index``).
        module_attrs: the module's other attributes, as text.
        source: the text it was parsed from ('' for a program built otherwise);
            for one module of a file holding several, the file with every other
            line blanked (same line numbers).
        module_name: for a file holding several modules (a compiler log), this
            module's name (``@name``, ``after PassName``, ``#N``: its rank in the file);
            "" for a file of one module.
        module_lines: first and last line of the module in the file, or None.
        meshes: the module's ``ttcore.meshes`` (mesh name -> shape of chips), None
            when absent (a single device).  A layout's ``tensor_mesh`` names one;
            :meth:`mesh_shape` resolves it.
        system_desc_pos: where the module carrying the system_desc starts.
        host_functions: functions the compiler hoisted to the CPU
            (``ttcore.cpu_module``, LLVM dialect), by name and position; host
            work, not analyzed.
    """

    path: str
    funcs: list[Func]
    system_desc: SystemDesc | None
    ops: list[Op] = field(default_factory=list)
    module_attrs: dict[str, str] = field(default_factory=dict)
    source: str = ""
    module_name: str = ""
    module_lines: tuple[int, int] | None = None
    meshes: Meshes | None = None
    system_desc_pos: SourcePos | None = None
    host_functions: list[tuple[str, SourcePos]] = field(default_factory=list)

    def mesh_shape(self, name: str | None = None) -> tuple[int, ...] | None:
        """Shape (rows x cols of chips) of the device mesh ``name`` of ``ttcore.meshes``.

        Without a name, the module's mesh when it declares exactly one.  None when
        the module declares no mesh (one device) or no mesh of that name.  A
        tensor's mesh name is :attr:`TensorType.tensor_mesh`.
        """
        if self.meshes is None:
            return None
        if name is not None:
            return self.meshes.shape(name)
        return self.meshes.shapes[0][1] if len(self.meshes.shapes) == 1 else None

    def func(self, name: str) -> Func | None:
        for f in self.funcs:
            if f.name == name:
                return f
        return None

    @property
    def entry(self) -> Func | None:
        """The device entry function: public, not const-eval; else the last function."""
        for f in self.funcs:
            if not f.private and f.kind != "const_eval":
                return f
        return self.funcs[-1] if self.funcs else None
