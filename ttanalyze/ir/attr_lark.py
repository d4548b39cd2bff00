"""Lark's LALR parser of the attribute grammar (:data:`ttanalyze.ir.attr_grammar.GRAMMAR`).

The reference parser of attribute texts: :func:`ttanalyze.ir.attr_grammar.parse_attr_text` comes here
for what the faster reader (:mod:`ttanalyze.ir.attr_reader`) declines, and here every syntax error is
worded.  Imported on first use (lark and the grammar's tables take about 0.05 s to load).
"""

from __future__ import annotations

from typing import Any

from lark import Lark, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

from .attr_grammar import (GRAMMAR, AffineMapV, AliasRef, AttrSyntaxError, Coord, Dims, Ident, Node, ShapedTypeV,
                           SymbolRef, TypedInt, _dialect_name, _map_text)


@v_args(inline=True)
class _ToTree(Transformer):
    """Builds the tree while the parser reduces (Lark's embedded transformer: no parse tree is built).

    ``text`` is the text being parsed (set by :func:`lark_parse`), from which an affine map's own
    text is cut around its ``->`` token.
    """

    text = ""

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
    def affine_map(self, dims, syms, arrow, *results):
        return AffineMapV.parsed(dims, syms or (), tuple(r for r in results if r is not None),
                                 _map_text(self.text, arrow.start_pos))

    def dim_ids(self, *names):
        return tuple(str(n) for n in names if n is not None)

    def sym_ids(self, *names):
        return tuple(str(n) for n in names)

    def aconst(self, tok):
        return ("c", int(tok))

    def avar(self, tok):
        return ("v", str(tok))

    def add(self, a, b):
        return ("+", a, b)

    def sub(self, a, b):
        return ("-", a, b)

    def mul(self, a, b):
        return ("*", a, b)

    def floordiv(self, a, _op, b):
        return ("floordiv", a, b)

    def ceildiv(self, a, _op, b):
        return ("ceildiv", a, b)

    def mod(self, a, _op, b):
        return ("mod", a, b)

    def aneg(self, a):
        return ("neg", a)


# cache=True keeps the built LALR tables in the temp dir (0.2 s saved per start).  The transformer is
# embedded (applied as the parser reduces; 1.7x faster than transforming a parse tree).
_TRANSFORMER = _ToTree()
_PARSER = Lark(GRAMMAR, parser="lalr", lexer="contextual", maybe_placeholders=True, transformer=_TRANSFORMER,
               cache=True)


def lark_parse(text: str) -> Any:
    """Parse one attribute/type text (e.g. ``#ttnn.ttnn_layout<...>``) to a tree with Lark.

    Raises:
        AttrSyntaxError: the text is not valid attribute syntax; ``offset`` says where.
    """
    _TRANSFORMER.text = text
    try:
        return _PARSER.parse(text)
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
