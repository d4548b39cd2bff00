"""The recursive-descent attribute reader (ttanalyze.ir.attr_reader) against Lark's parser of the same grammar.

Whatever the reader accepts, Lark accepts too and builds the same tree (types and the affine maps' text
included); what the reader declines goes to Lark.  Checked on every attribute text of the real and era
fixtures and on seeded mutants of them.
"""

from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path

import pytest

from ttanalyze.ir import attr_grammar as G
from ttanalyze.ir import parse as P
from ttanalyze.ir.attr_lark import lark_parse
from ttanalyze.ir.attr_reader import NotRead, read_attr

ROOT = Path(__file__).resolve().parent.parent


def same_tree(a, b) -> bool:
    """Equal trees, with equal Python types at every node (``True`` is not ``1``, ``1.0`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    if isinstance(a, G.Node):
        return (a.name == b.name and a.kind == b.kind and same_tree(a.items, b.items) and list(a.kw) == list(b.kw)
                and all(same_tree(a.kw[k], b.kw[k]) for k in a.kw))
    if isinstance(a, G.AffineMapV):
        return (a.dim_names, a.sym_names, a.text) == (b.dim_names, b.sym_names, b.text) and same_tree(a.exprs, b.exprs)
    if dataclasses.is_dataclass(a):
        return all(same_tree(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


@pytest.fixture(scope="module")
def attribute_texts() -> list[str]:
    """Every attribute text the parser meets in the era fixtures and every third real fixture (distinct, in order;
    all real fixtures take 17 s)."""
    texts: list[str] = []
    original = P.parse_attr_text

    def record(text: str):
        texts.append(text)
        return original(text)

    P.parse_attr_text = record
    try:
        paths = sorted((ROOT / "fixtures" / "real").rglob("*.mlir"))[::3] + sorted((ROOT / "tests" / "data" / "eras").rglob("*.mlir"))
        for path in paths:
            try:
                P.parse_file(path)
            except Exception:  # an era file the analyzer refuses still contributed its attributes
                pass
    finally:
        P.parse_attr_text = original
    return list(dict.fromkeys(texts))


def _compare(text: str) -> str | None:
    """None when the reader declines ``text`` or builds Lark's tree; else what went wrong."""
    try:
        fast = read_attr(text)
    except NotRead:
        return None
    try:
        ref = lark_parse(text)
    except G.AttrSyntaxError as exc:
        return f"the reader accepts what Lark refuses ({exc})"
    return None if same_tree(fast, ref) else "trees differ"


def test_reader_reads_every_fixture_attribute_as_lark_does(attribute_texts):
    assert len(attribute_texts) > 500
    declined = []
    for text in attribute_texts:
        assert _compare(text) is None, text
        try:
            read_attr(text)
        except NotRead:
            declined.append(text)
    assert not declined, declined[:3]  # every attribute tt-mlir prints is read without Lark


_PIECES = list("<>()[]{},:=-x#!@\"0123456789 \n/.|*+abdeflmnrstuy_") + [
    "->", "floordiv", "mod", "array<i32: ", "dense<", "tensor<", "memref<", "true", "1x1", "1.5", "//c\n", "#a.b",
    "!t.u", "\\", "1 : i32", "<a b", "e5", "@s", "@\"q\""]


def test_reader_never_departs_from_lark_on_mutants(attribute_texts):
    rng = random.Random(14)
    for _ in range(4000):
        text = rng.choice(attribute_texts)
        for _ in range(rng.randint(1, 3)):
            p = rng.randrange(len(text) + 1)
            k = rng.random()
            piece = rng.choice(_PIECES)
            text = (text[:p] + piece + text[p:] if k < 0.4 else text[:p] + text[p + rng.randint(1, 3):] if k < 0.7
                    else text[:p] + piece + text[p + 1:])
        assert _compare(text) is None, repr(text)


@pytest.mark.parametrize("text", [
    "#ttnn.ttnn_layout<(d0, d1) -> (d0 * 32 + d1 floordiv 4, d1 mod 2), <8x8, (d0, d1) -> (0, d0, d1)>, "
    "memref<4x4x!ttcore.tile<32x32, bfp_bf8>, #l1>, <height_sharded>, exactGrid = true>",
    "#ttcore<local_shape local_shape = tensor<1x2xbf16>>",
    "#ttnn.foo<a = [1 : i32, -2, 3.5e1, \"s\"], b = array<i64: 1, -2>, c = dense<1> : tensor<2xi32>, "
    "d = {x = 1 y = @k::@j}, e = (7, 3), f = ()[s0] -> (s0 - 1, -s0), g = #dram>",
    "!ttcore.tile<32x32, bf16>",
    "#ttnn.foo<{a = 1}>",
])
def test_reader_builds_lark_tree_for_every_construct(text):
    assert same_tree(read_attr(text), lark_parse(text))


@pytest.mark.parametrize("text", ['#ttnn.foo<"a\\"b">', "#ttnn.foo<", "#ttnn.foo<1 : >", "(d0 -> (d0)"])
def test_reader_declines_escapes_and_errors(text):
    with pytest.raises(NotRead):
        read_attr(text)
