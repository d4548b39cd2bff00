"""Grammar and generic tree for the bodies of ``ttnn``/``ttcore`` attributes.

The MLIR bindings keep attributes of unregistered dialects as opaque text
(``#ttnn.ttnn_layout<...>``).  This module defines the LALR grammar of that
text (:data:`GRAMMAR`) and the small generic tree it is parsed into:
:func:`parse_attr_text` reads it with the recursive-descent reader of
:mod:`ttanalyze.ir.attr_reader`, and with Lark (:mod:`ttanalyze.ir.attr_lark`)
what that reader declines; :mod:`ttanalyze.ir.attrs` turns the tree into typed
objects.  The grammar covers the printed forms of tt-mlir's
TableGen ``assemblyFormat``s (``TTNNOpsAttrs.td``, ``TTCoreOpsTypes.td`` at
tt-mlir 19c86fca): ``struct(params)`` key/value lists (also without commas, as
``physical_helper_cores = {dram = [...] eth = [...]}`` of 2025), ``<...>`` parameter
lists, dimension lists (``10x11``), coordinates (``(7, 3)``), affine maps,
``memref<...>``/``tensor<...>`` types, arrays, dictionaries, aliases and
nested dialect attributes and types; ``//`` comments inside an attribute written over
several lines (hand-written ``#ttnn.read_kernel`` aliases) are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


GRAMMAR = r"""
?start: value

?value: scalar
      | dims
      | coord
      | affine_map
      | array
      | dict
      | angle
      | dialect_attr
      | dialect_type
      | shaped_type
      | typed_int
      | typed_float
      | "array" "<" BARE_ID ":" [num_list] ">"   -> dense_array
      | "dense" "<" value ">" ":" shaped_type    -> dense_elements

typed_int: INT ":" BARE_ID
typed_float: FLOAT ":" BARE_ID
num_list: signed ("," signed)*

?scalar: signed
       | STRING        -> string
       | BARE_ID       -> ident
       | ALIAS         -> alias
       | SYMBOL        -> symbol

?signed: INT           -> int
       | FLOAT         -> float
       | "-" INT       -> neg_int
       | "-" FLOAT     -> neg_float

dims: DIMS
coord: "(" signed_int ("," signed_int)+ ")"
     | "(" signed_int ")"
?signed_int: INT -> int
           | "-" INT -> neg_int

array: "[" [item ("," item)*] "]"
dict: "{" [kv (","? kv)*] "}"
angle: "<" [item ("," item)*] ">"
     | "<" BARE_ID item ("," item)* ">"   -> verbose

?item: kv
     | value
kv: (BARE_ID | STRING) "=" value

dialect_attr: DIALECT_ATTR angle?
dialect_type: DIALECT_TYPE angle?

shaped_type: SHAPED_KW "<" [DIMS_PREFIX] elem_type ("," item)* ">"
?elem_type: BARE_ID -> ident
          | dialect_type

affine_map: dim_ids [sym_ids] ARROW "(" [aexpr ("," aexpr)*] ")"
dim_ids: "(" [BARE_ID ("," BARE_ID)*] ")"
sym_ids: "[" BARE_ID ("," BARE_ID)* "]"
?aexpr: aterm
      | aexpr "+" aterm        -> add
      | aexpr "-" aterm        -> sub
?aterm: afactor
      | aterm "*" afactor      -> mul
      | aterm FLOORDIV afactor -> floordiv
      | aterm CEILDIV afactor  -> ceildiv
      | aterm MOD afactor      -> mod
?afactor: INT                  -> aconst
        | BARE_ID              -> avar
        | "(" aexpr ")"
        | "-" afactor          -> aneg

ARROW: "->"
SHAPED_KW.3: /(memref|tensor)(?=<)/
FLOORDIV.3: /floordiv\b/
CEILDIV.3: /ceildiv\b/
MOD.3: /mod\b/
DIMS_PREFIX.4: /(\d+x)+(?=[A-Za-z!])/
DIMS.3: /\d+(x\d+)+/
FLOAT.2: /\d+\.\d*([eE][-+]?\d+)?|\d+[eE][-+]?\d+/
INT: /\d+/
DIALECT_ATTR.2: /#[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)+|#[A-Za-z_][\w$]*(?=<)/
DIALECT_TYPE.2: /![A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)*/
ALIAS: /#[A-Za-z_][\w$-]*/
SYMBOL: /@(?:[\w.$-]+|"(?:[^"\\]|\\.)*")(?:::@(?:[\w.$-]+|"(?:[^"\\]|\\.)*"))*/
BARE_ID: /[A-Za-z_][\w$.]*(\|[A-Za-z_][\w$.]*)*/
STRING: /"(?:[^"\\]|\\.)*"/

%ignore /[ \t\r\n]+/
%ignore /\/\/[^\n]*/
"""


@dataclass(frozen=True)
class Dims:
    """A dimension list such as ``10x11`` or ``0x0x0x0``."""

    values: tuple[int, ...]


@dataclass(frozen=True)
class Coord:
    """A coordinate such as ``(7, 3)``."""

    values: tuple[int, ...]


@dataclass(frozen=True)
class Ident:
    """A bare identifier: an enum value (``dram``), a builtin type (``bf16``), ``true``."""

    name: str


@dataclass(frozen=True)
class AliasRef:
    """A reference to a top-level alias (``#dram``), resolved by the caller."""

    name: str


@dataclass(frozen=True)
class SymbolRef:
    """A symbol reference such as ``@datamovement_kernel0`` (``#ttnn.read_kernel<symbol_ref = @k>``)."""

    name: str


@dataclass(frozen=True)
class TypedInt:
    """``1 : i32``."""

    value: int
    type: str


class AffineMapV:
    """An affine map: its dims (d0, d1, ...), symbols (s0, ...) and result expressions.

    A parsed map keeps its results as small expression trees (``exprs``: tuples
    ``("c", int)``, ``("v", name)``, ``("+"|"-"|"*"|"floordiv"|"ceildiv"|"mod", a, b)``,
    ``("neg", a)``) and builds their sympy form only when :attr:`results` is read:
    the layout analysis needs only the integer coefficients of linear results
    (:meth:`coefficients`), and sympy takes 0.4 s to import.  ``dims``/``syms`` are
    sympy symbols named like the map's dimensions and symbols; ``floordiv``/``ceildiv``/
    ``mod`` are sympy ``floor``/``ceiling``/``Mod`` of the operands.  Built from sympy
    expressions (``AffineMapV(dims, syms, results, text)``), the map keeps them as given.

    Two maps are equal when their dim and symbol names and result trees are (parsed
    maps), or their sympy forms are (maps built from sympy expressions).
    """

    __slots__ = ("dim_names", "sym_names", "exprs", "text", "_sympy")

    def __init__(self, dims: tuple = (), syms: tuple = (), results: tuple = (), text: str = ""):
        self.dim_names = tuple(str(d) for d in dims)
        self.sym_names = tuple(str(s) for s in syms)
        self.exprs: tuple | None = None
        self.text = text
        self._sympy = (tuple(dims), tuple(syms), tuple(results))

    @classmethod
    def parsed(cls, dim_names: tuple[str, ...], sym_names: tuple[str, ...], exprs: tuple, text: str) -> "AffineMapV":
        """A map read from IR text: result expression trees, sympy built on first use."""
        m = cls.__new__(cls)
        m.dim_names, m.sym_names, m.exprs, m.text, m._sympy = dim_names, sym_names, exprs, text, None
        return m

    def _sympy_form(self) -> tuple:
        if self._sympy is None:
            table = {n: _aconst_sym(n) for n in self.dim_names + self.sym_names}
            self._sympy = (tuple(table[n] for n in self.dim_names), tuple(table[n] for n in self.sym_names),
                           tuple(_to_sympy(e) for e in self.exprs))
        return self._sympy

    @property
    def dims(self) -> tuple:
        """The dims as sympy symbols (integer, nonnegative)."""
        return self._sympy_form()[0]

    @property
    def syms(self) -> tuple:
        """The symbols as sympy symbols (integer, nonnegative)."""
        return self._sympy_form()[1]

    @property
    def results(self) -> tuple:
        """The result expressions as sympy expressions."""
        return self._sympy_form()[2]

    def coefficients(self, k: int) -> dict[str, int] | None:
        """``{dim or symbol name: integer coefficient}`` of result ``k`` when it is a sum of integer
        multiples of dims and symbols plus a constant (terms whose coefficient is 0 left out), else None
        (floordiv, mod, ceildiv or a product of two of them: the caller differentiates :attr:`results`)."""
        if self.exprs is None:
            return _sympy_coefficients(self.results[k])
        form = _linear_form(self.exprs[k])
        if form is None:
            return None
        return {name: c for name, c in form.items() if name is not None and c != 0}

    def _key(self) -> tuple:
        if self.exprs is not None:
            return ("parsed", self.dim_names, self.sym_names, self.exprs)
        return ("sympy", *self._sympy)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AffineMapV) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"AffineMapV({self.text!r})"


def _to_sympy(e: tuple):
    """The sympy expression of an affine expression tree (see :class:`AffineMapV`)."""
    import sympy

    kind = e[0]
    if kind == "c":
        return sympy.Integer(e[1])
    if kind == "v":
        return _aconst_sym(e[1])
    if kind == "neg":
        return -_to_sympy(e[1])
    a, b = _to_sympy(e[1]), _to_sympy(e[2])
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "floordiv":
        return sympy.floor(a / b)
    if kind == "ceildiv":
        return sympy.ceiling(a / b)
    return sympy.Mod(a, b)


def _linear_form(e: tuple) -> dict[str | None, int] | None:
    """``{name: coefficient, None: constant}`` of an affine expression tree that is linear with integer
    coefficients, else None."""
    kind = e[0]
    if kind == "c":
        return {None: e[1]}
    if kind == "v":
        return {e[1]: 1}
    if kind == "neg":
        a = _linear_form(e[1])
        return None if a is None else {k: -v for k, v in a.items()}
    if kind in ("+", "-"):
        a, b = _linear_form(e[1]), _linear_form(e[2])
        if a is None or b is None:
            return None
        sign = 1 if kind == "+" else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    if kind == "*":
        a, b = _linear_form(e[1]), _linear_form(e[2])
        if a is None or b is None:
            return None
        if set(a) <= {None}:
            a, b = b, a
        if not set(b) <= {None}:
            return None  # a product of two dims
        c = b.get(None, 0)
        return {k: v * c for k, v in a.items()}
    return None  # floordiv, ceildiv, mod: the caller asks sympy


def _sympy_coefficients(expr) -> dict[str, int] | None:
    """:meth:`AffineMapV.coefficients` of a sympy expression."""
    coeffs = {}
    for term, coeff in expr.as_coefficients_dict().items():
        if not coeff.is_Integer:
            return None
        if term.is_Symbol:
            coeffs[str(term)] = int(coeff)
        elif not term.is_Number:
            return None
    return coeffs


@dataclass(frozen=True)
class ShapedTypeV:
    """``memref<AxBxT, memspace>`` or ``tensor<AxBxT, encoding>``."""

    kind: str
    shape: tuple[int, ...]
    element: Any
    extra: tuple[Any, ...]


@dataclass
class Node:
    """A parameter list ``<...>``/``{...}`` or a dialect attribute/type.

    ``name`` is the qualified name (``ttnn.ttnn_layout``, ``ttcore.tile``) for a
    dialect attribute/type, the mnemonic for a verbose ``<mnemonic params>`` body,
    and None for an anonymous list.  ``items`` are positional values; ``kw`` the
    ``key = value`` parameters in order.
    """

    name: str | None
    items: list[Any] = field(default_factory=list)
    kw: dict[str, Any] = field(default_factory=dict)
    kind: str = "attr"  # "attr", "type", "angle", "dict"


def _dialect_name(name: str) -> str:
    """``tt.tile`` -> ``ttcore.tile``: the ``tt`` dialect was renamed ``ttcore`` in tt-mlir 820a5207 (2025-06-17)."""
    return "ttcore" + name[2:] if name == "tt" or name.startswith("tt.") else name


def _aconst_sym(name: str):
    import sympy

    return sympy.Symbol(name, integer=True, nonnegative=True)


def _map_text(text: str, arrow: int) -> str:
    """The text of the affine map whose ``->`` is at ``arrow``: from the ``(`` of its dims (symbols
    ``[...]`` between) to the ``)`` that closes its results."""
    i = arrow - 1
    while text[i].isspace():
        i -= 1
    if text[i] == "]":
        i = text.rfind("[", 0, i) - 1
        while text[i].isspace():
            i -= 1
    start = text.rfind("(", 0, i)
    j = text.index("(", arrow)
    depth = 0
    for j in range(j, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                break
    return text[start:j + 1]


class AttrSyntaxError(ValueError):
    """Attribute text that the grammar does not accept.

    Attributes:
        offset: 0-based character offset of the problem inside the parsed text.
    """

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def parse_attr_text(text: str) -> Any:
    """Parse one attribute/type text (e.g. ``#ttnn.ttnn_layout<...>``) to a tree.

    The recursive-descent reader of :mod:`ttanalyze.ir.attr_reader` reads the common texts; any other
    goes to Lark (:mod:`ttanalyze.ir.attr_lark`, imported then), which builds the same tree or words
    the syntax error.

    Raises:
        AttrSyntaxError: the text is not valid attribute syntax; ``offset`` says where.
    """
    try:
        return attr_reader.read_attr(text)
    except attr_reader.NotRead:
        pass
    from .attr_lark import lark_parse

    return lark_parse(text)


from . import attr_reader  # noqa: E402 - it builds the trees defined above
