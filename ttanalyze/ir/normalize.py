"""Rewrite tt-mlir's textual output into generic MLIR the upstream parser accepts.

The upstream MLIR Python bindings (``iree.compiler.ir``) do not register the
``ttcore``/``ttnn`` dialects, so every op must be in generic form.  tt-mlir
prints a few ops in custom syntax; this module rewrites them, and also:

* blanks every ``loc(...)`` with spaces (and every ``#locN = loc(...)`` alias
  line), so the parser gives each op a file:line:col location in the user's
  file, while the original location names are kept in :class:`Normalized`;
* turns ``<{...}>`` property dictionaries into attribute dictionaries, because
  the bindings expose an unregistered op's attributes but not its properties;
* records every top-level alias (``#name = ...``/``!name = ...``) so that alias
  references inside opaque dialect attribute bodies (``#dram`` inside a
  ``#ttnn.ttnn_layout<...>``), which MLIR does not expand, can be resolved.

Line numbers never change; columns shift only on lines where a custom op is
rewritten, and :meth:`Normalized.original_pos` maps them back.

Custom syntaxes handled follow tt-mlir's TableGen ``assemblyFormat``s in
``include/ttmlir/Dialect/TTCore/IR/TTCoreOps.td`` (tt-mlir 19c86fca, 2026-08-21):
``ttcore.device_module``, ``ttcore.cpu_module``, ``ttcore.device``,
``ttcore.load_cached``, ``ttcore.global``, ``ttcore.get_global``,
``ttcore.get_tuple_element`` and ``ttcore.tuple``.  ``ttnn.generic``,
``ttnn.d2m_subgraph`` and ``ttnn.tt_lang_op`` also have custom syntax; they are
not rewritten and the parser reports them as unknown custom ops.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..errors import InputError, SourcePos

_STRING = r'"(?:[^"\\\n]|\\.)*"'
# One pass over the text finds strings and comments (skipped) and the tokens
# this module rewrites.  The leading lookahead lets the regex engine skip the
# characters no token starts with (3-4x faster on large files).
_MASTER = re.compile(
    r"(?=[\"/#!l<t])(?:"
    rf"(?P<str>{_STRING})"
    r"|(?P<comment>//[^\n]*)"
    r"|(?P<alias>^[#!][A-Za-z_][\w.$-]*)(?=[ \t]*=)"
    # loc(#loc3), loc("name"), loc("file":1:2), loc(unknown) in one match;
    # other locations are matched bracket by bracket.
    rf"|(?P<simple_loc>(?<![\w.$#-])loc\((?:#[\w.$-]+|{_STRING}(?::\d+:\d+)?|unknown)\))"
    r"|(?P<loc>(?<![\w.$#-])loc\()"
    # property dictionaries without nested braces, strings or newlines in one match
    r"|(?P<simple_props><\{[^{}\"\n]*\}>)"
    r"|(?P<props><\{)"
    r"|(?P<custom>(?<![\w.$\"%#!@-])ttcore\.(?:device_module|cpu_module|device|load_cached|global|get_global|get_tuple_element|tuple)\b)"
    ")",
    re.MULTILINE,
)
_BRACKETS = {
    opener: re.compile(rf"{_STRING}|//[^\n]*|{re.escape(opener)}|{re.escape(closer)}")
    for opener, closer in (("(", ")"), ("[", "]"), ("{", "}"), ("<", ">"))
}


@dataclass
class AliasDef:
    """A top-level ``#name = body`` or ``!name = body`` definition."""

    name: str
    body: str
    pos: SourcePos


@dataclass
class _Edit:
    start: int
    end: int
    text: str


@dataclass
class Normalized:
    """Result of :func:`normalize`.

    Attributes:
        text: generic-form MLIR with the same number of lines as the input.
        aliases: top-level attribute/type aliases by name (``#dram``).
        loc_aliases: ``#locN`` aliases by name, with their ``loc(...)`` text.
        line_locs: for each line, the ``loc(...)`` texts that were blanked on it.
    """

    text: str
    aliases: dict[str, AliasDef] = field(default_factory=dict)
    loc_aliases: dict[str, str] = field(default_factory=dict)
    line_locs: dict[int, list[str]] = field(default_factory=dict)
    _line_edits: dict[int, list[tuple[int, int, int]]] = field(default_factory=dict)
    _body_pos: dict[str, SourcePos] = field(default_factory=dict)

    def original_pos(self, line: int, col: int) -> SourcePos:
        """Map a 1-based (line, col) in :attr:`text` to the user's file."""
        shift = 0
        for orig_col, orig_len, new_len in self._line_edits.get(line, ()):
            norm_col = orig_col + shift
            if col < norm_col:
                break
            if col < norm_col + new_len:
                return SourcePos(line, orig_col)
            shift += new_len - orig_len
        return SourcePos(line, col - shift)

    def op_loc_text(self, line: int) -> str:
        """The last ``loc(...)`` written on ``line`` ("" if none): an op's own location."""
        locs = self.line_locs.get(line)
        return locs[-1] if locs else ""

    def resolve_loc(self, loc_text: str, _depth: int = 0) -> str:
        """Readable name of a ``loc(...)`` text, resolving ``#loc`` aliases.

        ``loc("name"(child))`` gives ``name``; ``loc("f.py":3:4)`` gives
        ``f.py:3:4``; ``callsite(a at b)`` gives the name of ``a``; ``fused``
        gives its first element; ``unknown`` gives "".
        """
        if _depth > 64:
            return ""
        body = loc_text.strip()
        if body.startswith("loc(") and body.endswith(")"):
            body = body[4:-1].strip()
        if body.startswith("#"):
            target = self.loc_aliases.get(re.match(r"#[\w.$-]+", body).group(0))
            return self.resolve_loc(target, _depth + 1) if target else ""
        if body.startswith("callsite("):
            return self.resolve_loc(body[len("callsite("):].split(" at ")[0], _depth + 1)
        if body.startswith("fused"):
            inner = body[body.find("[") + 1:]
            return self.resolve_loc(_split_top_level(inner.rstrip("]"))[0], _depth + 1)
        m = re.match(_STRING, body)
        if not m:
            return ""
        name = m.group(0)[1:-1]
        rest = body[m.end():]
        file_pos = re.match(r":(\d+):(\d+)", rest)
        return f"{name}:{file_pos.group(1)}:{file_pos.group(2)}" if file_pos else name

    def body_pos(self, body: str) -> SourcePos | None:
        """Where an alias body (an attribute's text) is defined, if it is an alias."""
        return self._body_pos.get(body)


def _split_top_level(text: str) -> list[str]:
    """Split ``text`` at commas that are not nested in brackets or strings."""
    parts, depth, last = [], 0, 0
    for m in re.finditer(rf"{_STRING}|[(\[{{<]|[)\]}}>]|,", text):
        tok = m.group(0)
        if tok in "([{<":
            depth += 1
        elif tok in ")]}>":
            if not (tok == ">" and m.start() > 0 and text[m.start() - 1] == "-"):
                depth -= 1
        elif tok == "," and depth == 0:
            parts.append(text[last:m.start()].strip())
            last = m.end()
    parts.append(text[last:].strip())
    return parts


class _Source:
    """The input text with offset <-> (line, col) conversion."""

    def __init__(self, text: str, path: str):
        self.text = text
        self.path = path
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def pos(self, offset: int) -> SourcePos:
        line = bisect.bisect_right(self.line_starts, offset)
        return SourcePos(line, offset - self.line_starts[line - 1] + 1)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def error(self, message: str, offset: int) -> InputError:
        return InputError(message, self.path, self.pos(offset))

    def match_close(self, open_offset: int, what: str) -> int:
        """Offset of the bracket closing the one at ``open_offset``.

        ``->`` arrows inside angle brackets are not closers.  Raises InputError
        when the bracket is never closed.
        """
        opener = self.text[open_offset]
        closer = {"(": ")", "[": "]", "{": "}", "<": ">"}[opener]
        depth = 0
        for m in _BRACKETS[opener].finditer(self.text, open_offset):
            tok = m.group(0)
            if len(tok) != 1:
                continue
            if tok == ">" and self.text[m.start() - 1] == "-":
                continue
            if tok == opener:
                depth += 1
            elif tok == closer:
                depth -= 1
                if depth == 0:
                    return m.start()
        raise self.error(f"unbalanced '{opener}' in {what}: no matching '{closer}'", open_offset)


def decode(data: bytes, path: str) -> str:
    """Decode UTF-8 input; raise InputError at the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8")
        line = good.count("\n") + 1
        col = len(good) - (good.rfind("\n") + 1) + 1
        raise InputError(
            f"input is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            path,
            SourcePos(line, col),
        ) from None


def normalize(text: str, path: str = "<string>") -> Normalized:
    """Rewrite tt-mlir text into generic MLIR; see the module docstring.

    Args:
        text: the IR as printed by tt-mlir (any module shape of ``fixtures/``).
        path: file name used in diagnostics.

    Returns:
        A :class:`Normalized` whose ``text`` has the input's line count.

    Raises:
        InputError: a NUL byte, an unbalanced bracket in a location, property
            dictionary or custom op, or a malformed custom op.
    """
    nul = text.find("\x00")
    if nul >= 0:
        raise _Source(text, path).error("input contains a NUL byte (binary data, not MLIR text)", nul)
    src = _Source(text, path)
    out = Normalized(text="")
    edits: list[_Edit] = []
    for m in _MASTER.finditer(text):
        kind = m.lastgroup
        if kind in ("str", "comment"):
            continue
        if kind == "alias":
            _record_alias(src, out, m, edits)
        elif kind in ("loc", "simple_loc"):
            close = m.end() - 1 if kind == "simple_loc" else src.match_close(m.end() - 1, "location")
            loc_text = text[m.start(): close + 1]
            line = src.line_of(m.start())
            out.line_locs.setdefault(line, []).append(loc_text)
            edits.append(_Edit(m.start(), close + 1, " " * len(loc_text)))
        elif kind == "simple_props":
            _rewrite_properties(src, m.start(), edits, close=m.end() - 2)
        elif kind == "props":
            _rewrite_properties(src, m.start(), edits)
        elif kind == "custom":
            _rewrite_custom(src, m, edits)
    out.text = _apply(src, edits, out)
    return out


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _record_alias(src: _Source, out: Normalized, m: re.Match, edits: list[_Edit]) -> None:
    text = src.text
    eq = text.index("=", m.end())
    line_end = text.find("\n", eq)
    line_end = len(text) if line_end < 0 else line_end
    body_start = eq + 1
    while body_start < line_end and text[body_start] in " \t":
        body_start += 1
    body = text[body_start:line_end].rstrip()
    name = m.group("alias")
    if body.startswith("loc("):
        out.loc_aliases[name] = body
        edits.append(_Edit(m.start(), line_end, _blank(text[m.start():line_end])))
        return
    pos = src.pos(body_start)
    out.aliases[name] = AliasDef(name, body, pos)
    out._body_pos.setdefault(body, pos)


def _rewrite_properties(src: _Source, start: int, edits: list[_Edit], close: int | None = None) -> None:
    """``<{props}>`` -> `` {props} `` and ``<{a}> {b}`` -> `` {a,    b}``.

    ``close`` is the offset of the closing ``}`` when the caller already knows it.
    """
    text = src.text
    if close is None:
        close = src.match_close(start + 1, "property dictionary")
    if close + 1 >= len(text) or text[close + 1] != ">":
        raise src.error("property dictionary '<{' is not closed by '}>'", start)
    edits.append(_Edit(start, start + 2, " {"))
    after = close + 2
    while after < len(text) and text[after] in " \t":
        after += 1
    if after < len(text) and text[after] == "{" and text[after + 1: after + 2] != "}":
        edits.append(_Edit(close, after + 1, "," + " " * (after - close)))
    else:
        edits.append(_Edit(close, close + 2, "} "))


_SYM = r"@[\w.$-]+|@" + _STRING


def _rewrite_custom(src: _Source, m: re.Match, edits: list[_Edit]) -> None:
    text = src.text
    name = m.group("custom")
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    if name in ("ttcore.device_module", "ttcore.cpu_module"):
        rest = m.end()
        attrs = ""
        kw = re.compile(r"\s*attributes\s*").match(text, rest)
        if kw:
            brace = kw.end()
            close = src.match_close(brace, f"{name} attributes")
            attrs = " " + text[brace:close + 1]
            rest = close + 1
        brace = re.compile(r"\s*\{").match(text, rest)
        if not brace:
            raise src.error(f"'{name}' must be followed by a region '{{'", m.start())
        open_brace = brace.end() - 1
        close = src.match_close(open_brace, name)
        edits.append(_Edit(m.start(), open_brace + 1, f'"{name}"() ({{'))
        edits.append(_Edit(close, close + 1, f"}}){attrs} : () -> ()"))
        return
    if name == "ttcore.device":
        sym = re.compile(rf"\s*({_SYM})\s*=\s*").match(text, m.end())
        if not sym or text[sym.end():sym.end() + 1] != "<":
            raise src.error("expected 'ttcore.device @name = <...>'", m.start())
        close = src.match_close(sym.end(), "ttcore.device attribute")
        edits.append(_Edit(
            m.start(), close + 1,
            f'"ttcore.device"() {{sym_name = "{sym.group(1)[1:].strip(chr(34))}", '
            f"device_attr = #ttcore.device{text[sym.end():close + 1]}}} : () -> ()",
        ))
        return
    if name == "ttcore.load_cached":
        call = re.compile(rf"\(\s*({_SYM})\s*,\s*\[").match(text, m.end())
        if not call:
            raise src.error("expected 'ttcore.load_cached(@callee, [operands])'", m.start())
        close_sq = src.match_close(call.end() - 1, "ttcore.load_cached operands")
        close_par = text.index(")", close_sq)
        operands = text[call.end():close_sq].strip()
        edits.append(_Edit(
            m.start(), close_par + 1,
            f'"ttcore.load_cached"({operands}) {{callee = {call.group(1)}}}',
        ))
        return
    if name == "ttcore.get_global":
        sym = re.compile(rf"\s*({_SYM})").match(text, m.end())
        if not sym:
            raise src.error("expected 'ttcore.get_global @name'", m.start())
        colon = text.find(":", sym.end(), line_end)
        if colon < 0:
            raise src.error("expected ': type' after 'ttcore.get_global @name'", m.start())
        edits.append(_Edit(m.start(), colon + 1, f'"ttcore.get_global"() {{sym_name = "{sym.group(1)[1:]}"}} : () ->'))
        return
    if name == "ttcore.global":
        g = re.compile(rf"\s*({_SYM})\s*=\s*(.+?)(?:\s*\[(\d+)\])?\s*$", re.M).match(text, m.end(), line_end)
        if not g:
            raise src.error("expected 'ttcore.global @name = type'", m.start())
        index = f", index = {g.group(3)} : si32" if g.group(3) else ""
        edits.append(_Edit(
            m.start(), line_end,
            f'"ttcore.global"() {{sym_name = "{g.group(1)[1:]}", type = {g.group(2)}{index}}} : () -> ()',
        ))
        return
    if name == "ttcore.get_tuple_element":
        g = re.compile(r"\s*(%[\w#$.-]+)\s*\[\s*(\d+)\s*\]").match(text, m.end())
        if not g:
            raise src.error("expected 'ttcore.get_tuple_element %operand[index]'", m.start())
        edits.append(_Edit(m.start(), g.end(), f'"ttcore.get_tuple_element"({g.group(1)}) {{index = {g.group(2)} : i32}}'))
        return
    # ttcore.tuple %a, %b : tuple<t1, t2>
    colon = text.find(":", m.end(), line_end)
    tup = text.find("tuple<", colon, line_end) if colon >= 0 else -1
    if tup < 0:
        raise src.error("expected 'ttcore.tuple %a, ... : tuple<...>'", m.start())
    close = src.match_close(tup + len("tuple"), "tuple type")
    operands = text[m.end():colon].strip()
    member_types = ", ".join(_split_top_level(text[tup + len("tuple<"):close]))
    edits.append(_Edit(m.start(), colon + 1, f'"ttcore.tuple"({operands}) : ({member_types}) ->'))


def _apply(src: _Source, edits: list[_Edit], out: Normalized) -> str:
    edits.sort(key=lambda e: e.start)
    pieces, last = [], 0
    for e in edits:
        if e.start < last:  # an edit nested in a blanked span (e.g. a loc inside an alias line)
            continue
        pieces.append(src.text[last:e.start])
        pieces.append(e.text)
        if len(e.text) != e.end - e.start:
            if "\n" in src.text[e.start:e.end] or "\n" in e.text:
                raise src.error("internal: a rewrite crossed a line boundary", e.start)
            p = src.pos(e.start)
            out._line_edits.setdefault(p.line, []).append((p.col, e.end - e.start, len(e.text)))
        last = e.end
    pieces.append(src.text[last:])
    return "".join(pieces)
