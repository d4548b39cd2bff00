"""Grammar and generic tree for the bodies of ``ttnn``/``ttcore`` attributes.

The MLIR bindings keep attributes of unregistered dialects as opaque text
(``#ttnn.ttnn_layout<...>``).  This module parses that text with a Lark LALR
grammar into a small generic tree; :mod:`ttanalyze.ir.attrs` turns the tree
into typed objects.  The grammar covers the printed forms of tt-mlir's
TableGen ``assemblyFormat``s (``TTNNOpsAttrs.td``, ``TTCoreOpsTypes.td`` at
tt-mlir 19c86fca): ``struct(params)`` key/value lists (also without commas, as
``physical_helper_cores = {dram = [...] eth = [...]}`` of 2025), ``<...>`` parameter
lists, dimension lists (``10x11``), coordinates (``(7, 3)``), affine maps,
``memref<...>``/``tensor<...>`` types, arrays, dictionaries, aliases and
nested dialect attributes and types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy
from lark import Lark, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

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

affine_map: dim_ids [sym_ids] "->" "(" [aexpr ("," aexpr)*] ")"
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
BARE_ID: /[A-Za-z_][\w$.]*/
STRING: /"(?:[^"\\]|\\.)*"/

%ignore /[ \t\r\n]+/
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


@dataclass(frozen=True)
class AffineMapV:
    """An affine map with its result expressions as sympy expressions.

    ``dims`` are sympy symbols named like the map's dimensions (d0, d1, ...);
    ``syms`` likewise for its symbols (s0, ...).  ``floordiv``/``ceildiv``/``mod``
    are sympy ``floor``/``ceiling``/``Mod`` of the operands.
    """

    dims: tuple[sympy.Symbol, ...]
    syms: tuple[sympy.Symbol, ...]
    results: tuple[sympy.Expr, ...]
    text: str = ""


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


def _aconst_sym(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, nonnegative=True)


@v_args(inline=True)
class _ToTree(Transformer):
    def __init__(self, text: str = ""):
        super().__init__()
        self._text = text

    def int(self, tok):
        return int(tok)

    def neg_int(self, tok):
        return -int(tok)

    def float(self, tok):
        return float(tok)

    def neg_float(self, tok):
        return -float(tok)

    def string(self, tok):
        return str(tok)[1:-1].encode("utf-8").decode("unicode_escape")

    def ident(self, tok):
        name = str(tok)
        if name in ("true", "false"):
            return name == "true"
        return Ident(name)

    def alias(self, tok):
        return AliasRef(str(tok))

    def symbol(self, tok):
        return SymbolRef(str(tok))

    def typed_int(self, value, type_):
        return TypedInt(int(value), str(type_))

    def typed_float(self, value, _type):
        return float(value)

    def dense_array(self, elem_type, nums=None):
        return list(nums) if nums is not None else []

    def dense_elements(self, values, _type):
        return values

    def num_list(self, *nums):
        return list(nums)

    def dims(self, tok):
        return Dims(tuple(int(x) for x in str(tok).split("x")))

    def coord(self, *values):
        return Coord(tuple(values))

    def array(self, *items):
        return [i for i in items if i is not None]

    def dict(self, *kvs):
        node = Node(None, kind="dict")
        for kv in kvs:
            if kv is not None:
                node.kw[kv[0]] = kv[1]
        return node

    def kv(self, key, value):
        key = str(key)
        return (key[1:-1] if key.startswith('"') else key, value)

    def angle(self, *items):
        node = Node(None, kind="angle")
        for item in items:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                node.kw[item[0]] = item[1]
            elif item is not None:
                node.items.append(item)
        return node

    def verbose(self, mnemonic, *items):
        node = self.angle(*items)
        node.name = str(mnemonic)
        return node

    def dialect_attr(self, name, body=None):
        node = body if body is not None else Node(None)
        # The verbose form #ttnn<mesh_offset 0x0> names the mnemonic inside.
        name = _dialect_name(str(name)[1:])
        node.name = f"{name}.{node.name}" if node.name else name
        node.kind = "attr"
        return node

    def dialect_type(self, name, body=None):
        node = body if body is not None else Node(None)
        node.name = _dialect_name(str(name)[1:])
        node.kind = "type"
        return node

    def shaped_type(self, kw, prefix, elem, *extra):
        shape = tuple(int(x) for x in str(prefix).rstrip("x").split("x")) if prefix else ()
        return ShapedTypeV(str(kw), shape, elem, tuple(extra))

    # affine maps -----------------------------------------------------------
    @v_args(meta=True, inline=True)
    def affine_map(self, meta, dims, syms, *results):
        text = self._text[meta.start_pos:meta.end_pos] if self._text else ""
        return AffineMapV(dims, syms or (), tuple(r for r in results if r is not None), text)

    def dim_ids(self, *names):
        return tuple(_aconst_sym(str(n)) for n in names if n is not None)

    def sym_ids(self, *names):
        return tuple(_aconst_sym(str(n)) for n in names)

    def aconst(self, tok):
        return sympy.Integer(int(tok))

    def avar(self, tok):
        return _aconst_sym(str(tok))

    def add(self, a, b):
        return a + b

    def sub(self, a, b):
        return a - b

    def mul(self, a, b):
        return a * b

    def floordiv(self, a, _op, b):
        return sympy.floor(a / b)

    def ceildiv(self, a, _op, b):
        return sympy.ceiling(a / b)

    def mod(self, a, _op, b):
        return sympy.Mod(a, b)

    def aneg(self, a):
        return -a


# cache=True keeps the built LALR tables in the temp dir (0.2 s saved per start).
_PARSER = Lark(GRAMMAR, parser="lalr", lexer="contextual", maybe_placeholders=True, propagate_positions=True,
               cache=True)


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

    Raises:
        AttrSyntaxError: the text is not valid attribute syntax; ``offset`` says where.
    """
    try:
        tree = _PARSER.parse(text)
    except UnexpectedInput as exc:
        offset = getattr(exc, "pos_in_stream", None) or 0
        if isinstance(exc, UnexpectedCharacters):
            what = f"unexpected character {text[offset:offset + 1]!r}"
        else:
            token = getattr(exc, "token", None)
            what = "unexpected end of attribute" if token is None or token.type == "$END" else f"unexpected {str(token)!r}"
        raise AttrSyntaxError(f"malformed attribute: {what}", offset) from None
    except LarkError as exc:  # pragma: no cover - grammar errors are bugs
        raise AttrSyntaxError(f"malformed attribute: {exc}", 0) from None
    return _ToTree(text).transform(tree)
