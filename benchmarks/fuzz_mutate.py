"""Seeded mutations of TTNN IR programs, for fuzzing ttanalyze (tests/test_fuzz.py, benchmarks/fuzz_campaign.py).

A mutant is a real program (``fixtures/``) with one to three edits, each drawn
from a kind below; the same (source, seed) gives the same mutant on every
machine.  The kinds aim at what a linter in CI meets: damaged files and values
no device has.

* ``byte``: flip, insert or delete one byte (invalid UTF-8, NUL, stray brackets);
* ``line``: delete, duplicate or swap lines; truncate the file anywhere;
* ``dim``: a dimension of a ``tensor<...>``/``memref<...>`` set to 0, 1, 2, 31, 33, 2^31, 2^32, 2^63 or -1;
* ``dtype``: an element or tile data type replaced (bf16 -> f32, bfp_bf8, si32, i1, an unknown name);
* ``tile``: a ``!ttcore.tile<HxW`` shape set to 0x32, 16x32, 32x16, 64x64, 1x1;
* ``layout``: interleaved <-> height/width/block sharded, ``#dram`` <-> ``#l1``, tile <-> row_major;
* ``undefined``: an SSA operand, a layout alias or a ``#loc`` alias renamed to one never defined,
  or an alias defined twice;
* ``int_attr``: an integer attribute (``= 3 : i32``, ``array<i32: ...>`` elements) set to 0, -1 or 2^31-1;
  an array element dropped or added;
* ``system_desc``: a number inside ``#ttcore.system_desc<...>`` (grid, l1_size, channels, alignments)
  set to 0, -1, 1, 2^32 or 2^64;
* ``nesting``: brackets nested thousands deep.
"""

from __future__ import annotations

import random
import re

KINDS = ("byte", "line", "dim", "dtype", "tile", "layout", "undefined", "int_attr", "system_desc", "nesting")

_DIM_VALUES = ("0", "1", "2", "31", "33", "2147483648", "4294967296", "9223372036854775808", "-1")
_DTYPES = ("bf16", "f32", "f16", "si32", "ui32", "ui16", "ui8", "i1", "f64", "bogus")
_TILE_DTYPES = ("bf16", "f32", "bfp_bf8", "bfp_bf4", "u32", "si32", "bogus")
_TILES = ("0x32", "32x0", "16x32", "32x16", "64x64", "1x1", "16x16")
_LAYOUT_SWAPS = (
    ("<interleaved>", ("<height_sharded>", "<width_sharded>", "<block_sharded>")),
    ("#dram", ("#l1",)),
    ("#l1", ("#dram",)),
    ("<tile>", ("<row_major>",)),
    ("<row_major>", ("<tile>",)),
)
_INT_VALUES = ("0", "-1", "1", "2147483647", "4294967296")
_SYS_VALUES = ("0", "-1", "1", "3", "4294967296", "18446744073709551616", "1000000000000000000000000000000")

_SHAPED = re.compile(r"\b(?:tensor|memref)<((?:-?\d+x)+)")
_DTYPE_TOKEN = re.compile(r"(?<=x)(bf16|f32|f16|si32|ui32|ui16|ui8|i32|i1)\b")
_TILE = re.compile(r"!ttcore\.tile<(\d+x\d+), (\w+)>")
_SSA_USE = re.compile(r"(?<=[(, ])%[\w.]+(?=[,)])")
_ALIAS_USE = re.compile(r"#(?:ttnn_layout\d*|loc\d*|dram|l1|system_desc)\b")
_INT_ATTR = re.compile(r"(?<== )-?\d+(?= : [isu]i?\d+)")
_ARRAY = re.compile(r"array<i\d+: ([-\d, ]+)>")
_SYS_NUMBER = re.compile(r"(?<== )\d+(?:x\d+)?")


def mutate(text: str, seed: int, max_edits: int = 3) -> tuple[bytes, list[str]]:
    """A mutant of ``text`` (as the bytes of a file: byte edits may leave invalid UTF-8) and the kinds of
    its edits, drawn from ``random.Random(seed)``.

    Each edit picks a kind of :data:`KINDS` at random; a kind with nothing to
    edit in the text (no tile type to change) falls back to a byte edit.
    """
    rng = random.Random(seed)
    kinds = []
    for _ in range(rng.randint(1, max_edits)):
        kind = rng.choice(KINDS)
        new = _EDITS[kind](text, rng)
        if new is None or new == text:
            kind, new = "byte", _byte(text, rng)
        kinds.append(kind)
        text = new
    return text.encode("utf-8", "surrogateescape"), kinds


def _sub_at(text: str, m: re.Match, group: int, value: str) -> str:
    return text[:m.start(group)] + value + text[m.end(group):]


def _pick(rng: random.Random, pattern: re.Pattern, text: str, start: int = 0, end: int | None = None):
    matches = list(pattern.finditer(text, start, len(text) if end is None else end))
    return rng.choice(matches) if matches else None


def _byte(text: str, rng: random.Random) -> str:
    data = bytearray(text.encode("utf-8", "surrogateescape"))
    if not data:
        return "x"
    i = rng.randrange(len(data))
    op = rng.randrange(3)
    if op == 0:
        data[i] ^= 1 << rng.randrange(8)
    elif op == 1:
        data.insert(i, rng.choice(b"\x00\xff<>()[]{}\"%#:,=x0123456789"))
    else:
        del data[i]
    return data.decode("utf-8", "surrogateescape")


def _line(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    op = rng.randrange(4)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[i])
    elif op == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        return text[:rng.randrange(len(text) + 1)]
    return "\n".join(lines)


def _dim(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, _SHAPED, text)
    if m is None:
        return None
    dims = m.group(1).rstrip("x").split("x")
    dims[rng.randrange(len(dims))] = rng.choice(_DIM_VALUES)
    return _sub_at(text, m, 1, "x".join(dims) + "x")


def _dtype(text: str, rng: random.Random) -> str | None:
    if rng.random() < 0.5:
        m = _pick(rng, _TILE, text)
        if m is not None:
            return _sub_at(text, m, 2, rng.choice(_TILE_DTYPES))
    m = _pick(rng, _DTYPE_TOKEN, text)
    return None if m is None else _sub_at(text, m, 1, rng.choice(_DTYPES))


def _tile(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, _TILE, text)
    return None if m is None else _sub_at(text, m, 1, rng.choice(_TILES))


def _layout(text: str, rng: random.Random) -> str | None:
    old, news = rng.choice(_LAYOUT_SWAPS)
    starts = [m.start() for m in re.finditer(re.escape(old), text)]
    if not starts:
        return None
    i = rng.choice(starts)
    return text[:i] + rng.choice(news) + text[i + len(old):]


def _undefined(text: str, rng: random.Random) -> str | None:
    op = rng.randrange(3)
    if op == 0:
        m = _pick(rng, _SSA_USE, text)
        return None if m is None else text[:m.start()] + "%undefined9" + text[m.end():]
    if op == 1:
        m = _pick(rng, _ALIAS_USE, text)
        return None if m is None else text[:m.start()] + m.group(0) + "_undefined" + text[m.end():]
    defs = [m for m in re.finditer(r"^#\w+ = [^\n]*$", text, re.M)]
    if not defs:
        return None
    d = rng.choice(defs)
    return text[:d.end()] + "\n" + d.group(0) + text[d.end():]


def _int_attr(text: str, rng: random.Random) -> str | None:
    if rng.random() < 0.5:
        m = _pick(rng, _INT_ATTR, text)
        return None if m is None else text[:m.start()] + rng.choice(_INT_VALUES) + text[m.end():]
    m = _pick(rng, _ARRAY, text)
    if m is None:
        return None
    values = [v.strip() for v in m.group(1).split(",")]
    op = rng.randrange(3)
    if op == 0 and len(values) > 1:
        del values[rng.randrange(len(values))]
    elif op == 1:
        values.insert(rng.randrange(len(values) + 1), rng.choice(_INT_VALUES))
    else:
        values[rng.randrange(len(values))] = rng.choice(_INT_VALUES)
    return _sub_at(text, m, 1, ", ".join(values))


def _system_desc(text: str, rng: random.Random) -> str | None:
    start = text.find("#ttcore.system_desc<")
    if start < 0:
        return None
    end = text.find("\n", start)
    m = _pick(rng, _SYS_NUMBER, text, start, end if end >= 0 else None)
    if m is None:
        return None
    value = rng.choice(_SYS_VALUES)
    if "x" in m.group(0) and rng.random() < 0.5:
        value = rng.choice(("0x0", "1x1", "8x8x8", f"{value}x1"))
    return text[:m.start()] + value + text[m.end():]


def _nesting(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, _ARRAY, text) or _pick(rng, _SHAPED, text)
    if m is None:
        return None
    depth = rng.choice((200, 2_000, 20_000))
    opener = rng.choice("[({<")
    closer = {"[": "]", "(": ")", "{": "}", "<": ">"}[opener]
    return text[:m.start()] + opener * depth + m.group(0) + closer * depth + text[m.end():]


_EDITS = {"byte": _byte, "line": _line, "dim": _dim, "dtype": _dtype, "tile": _tile, "layout": _layout,
          "undefined": _undefined, "int_attr": _int_attr, "system_desc": _system_desc, "nesting": _nesting}
