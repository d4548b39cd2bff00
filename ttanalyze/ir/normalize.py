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
``ttcore.get_tuple_element`` and ``ttcore.tuple``; ``ttnn.d2m_subgraph``
(TTNNOps.td ``D2MSubgraphOp``) becomes a generic op with its callee.  Other ops
printed in a custom syntax (``d2m.*``, ``ttir.empty``...) become opaque ops.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field

from ..errors import InputError, SourcePos

_STRING = r'"(?:[^"\\\n]|\\.)*"'
# One pass over the text finds strings and comments (skipped) and the tokens
# this module rewrites.  Every alternative starts with a literal character, so
# the regex engine skips the characters no token starts with without trying the
# alternatives, and at a candidate character tries only those starting with it
# (an alternative that starts with a group or a lookbehind is tried at every
# candidate: 1.6 M 'l' and 't' of a 50,000-op file); the lookbehinds follow the
# literal prefix (``loc(``, ``tt``), so that most candidates fail on a character
# compare.  A token's kind is its first character (see normalize).  A string
# without escapes or brackets ``()[]{}<>`` (an op name, a plain location name)
# ends in a tight character-class loop; any other one sets group 1 (group 4
# inside a location), and normalize records those that hold a bracket.
_STRING_KINDS = r'"(?:[^"\\\n(){}\[\]<>]*"|((?:[^"\\\n]|\\.)*"))'
# A #loc alias line as tt-mlir prints them (``#loc5 = loc("jit(mlp)/add"(#loc3))``, callsite, fused, file
# ranges: nothing of it for the scan to rewrite) in one match: its name is group 2, its location group 3.
_LOC_ATOM = r'(?:#[\w.$-]+|"[^"\\\n]*"(?::\d+:\d+(?: to (?:\d+)?:\d+)?)?(?:\((?:#[\w.$-]+|"[^"\\\n]*")\))?|unknown)'
_LOC_BODY = (rf'(?:callsite\({_LOC_ATOM} at {_LOC_ATOM}\)|fused(?:<"[^"\\\n]*">)?\[{_LOC_ATOM}(?:, {_LOC_ATOM})*\]'
             rf'|{_LOC_ATOM})')
# A stretch of an op's line in which no token starts (see _MASTER): no string, comment, brace or newline, no
# 'loc(', '<{' or custom-op name (one excluded more widely than its token is, the op line is scanned token
# by token instead).
_NO_TOKEN = (r"(?:[^\"\n{}/<lt]++|<(?!\{)|l(?!oc\()"
             r"|t(?!t(?:core)?\.(?:device_module|cpu_module|device|load_cached|global|get_global|get_tuple_element"
             r"|tuple)\b))*+")
_MASTER = re.compile(
    # the usual op line from its name on, in one match: '"ttnn.add"(%1, %2) <{...}> : (...) -> ... loc(#loc3)',
    # a plain name, at most one property dictionary without braces, strings or '//', and a plain location;
    # the tokens it holds are those the alternatives below would match in it, rewritten alike (normalize)
    rf'"[^"\\\n(){{}}\[\]<>]*"{_NO_TOKEN}(?:<\{{(?P<props>[^{{}}"\n/]*)\}}>{_NO_TOKEN})?'
    rf'(?P<oploc>loc\((?<![\w.$#-]loc\()(?:#[\w.$-]+|"[^"\\\n(){{}}\[\]<>]*"(?::\d+:\d+)?|unknown)\))'
    rf"|{_STRING_KINDS}"  # a string
    r"|//[^\n]*"  # a comment
    rf"|#(?<![^\n]#)(?P<locname>[A-Za-z_][\w.$-]*)[ \t]*=[ \t]*(?P<locbody>loc\({_LOC_BODY}\))[ \t]*(?![^\n])"  # a #loc alias line
    # an alias definition at the start of a line: #name = / !name =
    r"|#(?<![^\n]#)[A-Za-z_][\w.$-]*(?=[ \t]*=)"
    r"|!(?<![^\n]!)[A-Za-z_][\w.$-]*(?=[ \t]*=)"
    # loc(#loc3), loc("name"), loc("file":1:2), loc(unknown) in one match;
    # other locations (loc( alone) are matched bracket by bracket.
    rf"|loc\((?<![\w.$#-]loc\()(?:(?:#[\w.$-]+|{_STRING_KINDS}(?::\d+:\d+)?|unknown)\))?"
    # property dictionaries without nested braces, strings or newlines in one match, with the '{' of an
    # attribute dictionary that follows them (merged into one dictionary); other ones (<{ alone) are
    # matched bracket by bracket
    r"|<\{(?:[^{}\"\n]*\}>(?:[ \t]*\{(?!\}))?)?"
    r"|tt(?<![\w.$\"%#!@-]tt)(?:core)?\.(?:device_module|cpu_module|device|load_cached|global|get_global|"
    r"get_tuple_element|tuple)\b"  # a custom-syntax op of the ttcore (tt) dialect
)
_BRACKETS = {
    opener: re.compile(rf"{_STRING}|//[^\n]*|{re.escape(opener)}|{re.escape(closer)}")
    for opener, closer in (("(", ")"), ("[", "]"), ("{", "}"), ("<", ">"))
}
# Text whose braces leave the depth as it was: no brace, or innermost pairs {...} (an op's attributes), in one
# match (match_brace then visits the braces of regions alone, not the two of every op of a module)
_BRACE_FREE = re.compile(r"[^{}]*(?:\{[^{}]*\}[^{}]*)*")
_NO_BRACE = re.compile(r"[^{}]*")
_HAS_BRACKET = re.compile(r"[(){}\[\]<>]").search
_HAS_BRACE = re.compile(r"[{}]").search


@dataclass
class AliasDef:
    """A top-level ``#name = body`` or ``!name = body`` definition: ``body`` starts at ``offset`` of the text,
    :attr:`pos` (computed when asked: only a message needs it)."""

    name: str
    body: str
    offset: int
    _line_starts: list[int] = field(repr=False, compare=False)

    @property
    def pos(self) -> SourcePos:
        line = bisect.bisect_right(self._line_starts, self.offset)
        return SourcePos(line, self.offset - self._line_starts[line - 1] + 1)


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
        host_functions: the functions of a ``ttcore.cpu_module`` (CPU-hoisted
            const-eval, LLVM dialect), by name and position; the module itself
            is set aside (blanked), its LLVM ops are never parsed.
        opaque_ops: how many custom-syntax ops were rewritten to opaque ops.
        loc_alias_lines: every ``#locN = loc(...)`` line of the input by line number, in order (a
            redefinition too).
        line_locs: for each line, the ``loc(...)`` texts that were blanked on it (on a ``#loc`` alias
            line, none or some: MLIR checks those lines as they are).
        plain_strings: whether no string or comment of :attr:`text` holds a bracket character
            ``()[]{}<>``: then every bracket of :attr:`text` is one of its structure (parse's nesting check).
        plain_loc_aliases: whether every ``#loc`` alias line is one location as tt-mlir prints them (no
            comment, nothing after it: the lines the scan matches whole).
    """

    text: str
    aliases: dict[str, AliasDef] = field(default_factory=dict)
    loc_aliases: dict[str, str] = field(default_factory=dict)
    line_locs: dict[int, list[str]] = field(default_factory=dict)
    host_functions: list[tuple[str, SourcePos]] = field(default_factory=list)
    opaque_ops: int = 0
    loc_alias_lines: dict[int, str] = field(default_factory=dict)
    plain_strings: bool = True
    plain_loc_aliases: bool = True
    _line_edits: dict[int, list[tuple[int, int, int]]] = field(default_factory=dict)
    _body_alias: dict[str, AliasDef] = field(default_factory=dict)  # an alias body -> its first definition

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
        alias = self._body_alias.get(body)
        return alias.pos if alias is not None else None


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
        when ``open_offset`` holds no opening bracket or the bracket is never closed.
        """
        opener = self.text[open_offset:open_offset + 1]
        closer = {"(": ")", "[": "]", "{": "}", "<": ">"}.get(opener)
        if closer is None:
            raise self.error(f"expected an opening bracket of the {what}, found {opener or 'the end of the file'!r}",
                             open_offset)
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

    def match_brace(self, open_offset: int, what: str, hidden: list[int]) -> int:
        """:meth:`match_close` of the ``{`` at ``open_offset`` (a region of any size), region brace by region brace.

        ``hidden`` holds, in order, the offsets of the strings, comments and locations of the text that
        hold a brace (the tokens :meth:`match_close` skips, visiting every string on its way: half the
        time on a 50,000-op module); when one lies between the braces, :meth:`match_close` decides.

        Raises:
            InputError: as :meth:`match_close`.
        """
        text, depth = self.text, 0
        at = _NO_BRACE.match(text, open_offset).end()  # the first brace
        while at < len(text):
            if text[at] == "{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    i = bisect.bisect_left(hidden, open_offset)
                    if i < len(hidden) and hidden[i] < at:
                        return self.match_close(open_offset, what)
                    return at
            at = _BRACE_FREE.match(text, at + 1).end()  # the next brace that changes the depth
        return self.match_close(open_offset, what)  # unbalanced: its error


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
    edits: list[_Edit] = []  # rewrites that reach beyond their token, applied after the scan by _apply
    line_locs = out.line_locs
    line, counted = 1, 0  # the line of offset `counted`
    hidden: list[int] = []  # offsets of the strings, comments and locations that hold a brace
    has_bracket, has_brace = _HAS_BRACKET, _HAS_BRACE
    regions: list[tuple[int, str, str]] = []  # device modules whose closing brace is found after the scan
    groups = _MASTER.groupindex
    oploc, props_group, loc_name, loc_body = groups["oploc"], groups["props"], groups["locname"], groups["locbody"]

    def record_loc(loc_text: str, start: int) -> None:
        """Record the location ``loc_text`` found at offset ``start`` on its line (``line_locs``)."""
        nonlocal line, counted
        line += text.count("\n", counted, start)
        counted = start
        locs = line_locs.get(line)
        if locs is None:
            line_locs[line] = [loc_text]
        else:
            locs.append(loc_text)

    def rewrite(m: re.Match) -> str:
        """The text of one token after normalization; same-length rewrites of the token itself are made here,
        the others are added to ``edits``."""
        nonlocal line, counted
        token = m.group(0)
        if m.lastindex == oploc:  # an op line: its name, properties <{a}> -> ' {a} ' and location, blanked
            start = m.start(oploc)
            loc_text = m.group(oploc)
            record_loc(loc_text, start)
            base = m.start()
            props = m.start(props_group)
            if props < 0:
                return token[:start - base] + " " * len(loc_text)
            return (token[:props - 2 - base] + " {" + m.group(props_group) + "} " + token[m.end(props_group) + 2 - base:
                                                                                       start - base] + " " * len(loc_text))
        first = token[0]
        if first == '"' or first == "/":  # a string or a comment
            if (first == "/" or m.lastindex is not None) and has_bracket(token) is not None:
                out.plain_strings = False
                if has_brace(token) is not None:
                    hidden.append(m.start())
            return token
        if first == "l" and len(token) > 4:  # a whole location (else "loc(" alone)
            loc_text = token
            start = m.start()
            record_loc(loc_text, start)
            if m.lastindex is not None and has_brace(token) is not None:
                hidden.append(start)
            return " " * len(loc_text)
        if first == "<" and len(token) > 2:  # <{a}> -> ' {a} ', and <{a}> {b} -> ' {a,    b}'
            if "//" in token:  # a comment the match_close of a brace around it skips
                out.plain_strings = False
                hidden.append(m.start())
            if token[-1] != "{":
                return " {" + token[2:-2] + "} "
            close = token.index("}")
            return " {" + token[2:close] + "," + " " * (len(token) - close - 1)
        if first == "#" and m.lastindex == loc_body:  # a #loc alias line: recorded and blanked
            start = m.start()
            line += text.count("\n", counted, start)
            counted = start
            out.loc_aliases["#" + m.group(loc_name)] = m.group(loc_body)
            out.loc_alias_lines[line] = token
            if has_brace(token) is not None:
                hidden.append(start)
            return " " * len(token)
        if first == "#" or first == "!":
            _record_alias(src, out, m, edits)
        elif first == "l":
            close = src.match_close(m.end() - 1, "location")
            loc_text = text[m.start(): close + 1]
            line_locs.setdefault(src.line_of(m.start()), []).append(loc_text)
            edits.append(_Edit(m.start(), close + 1, " " * len(loc_text)))
        elif first == "<":
            _rewrite_properties(src, m.start(), edits)
        else:
            _rewrite_custom(src, m, edits, out, regions)
        return token  # tokens whose rewrite is in `edits`

    try:
        rewritten = _MASTER.sub(rewrite, text)
    except InputError:
        for open_brace, name, _ in regions:  # an unclosed region before the error is the first error, as in text order
            src.match_close(open_brace, name)
        raise
    for open_brace, name, attrs in regions:  # once every string and comment is known (hidden)
        close = src.match_brace(open_brace, name, hidden)
        edits.append(_Edit(close, close + 1, f"}}){attrs} : () -> ()"))
    first = _CUSTOM_STMT.match(text)
    for m in itertools.chain([first] if first else [], _CUSTOM_STMT_AFTER_NEWLINE.finditer(text)):
        if m.group("name").split(".", 1)[0] not in _PARSED_DIALECTS and not _HANDLED.fullmatch(m.group("name")):
            if m.group("name") != "ttnn.d2m_subgraph" or not _rewrite_d2m_subgraph(src, m, edits):
                _rewrite_opaque(src, m, edits, out)
    if out.opaque_ops:
        out.plain_strings = False  # their generic form holds types in strings (!ttanalyze.opaque<"memref<...>">)
    out.text = _apply(src, rewritten, edits, out)
    return out


# An op printed in custom syntax at the start of a statement: ``%0 = ttnn.d2m_subgraph @f ins(...)``,
# ``d2m.empty() : tensor<...>``, ``%a, %b = x.y ...``; not an attribute entry (``ttcore.system_desc = ...``).
_CUSTOM_STMT_BODY = (r"[ \t]*(?P<results>%[\w.$-]+(?::\d+)?(?:[ \t]*,[ \t]*%[\w.$-]+)*[ \t]*=[ \t]*)?"
                     r"(?P<name>[A-Za-z_][\w$]*\.[\w.$]+)(?![\w.$])(?![ \t]*=)")
_CUSTOM_STMT = re.compile(_CUSTOM_STMT_BODY)  # at the start of the text
# at the start of every other line: led by the newline, which the engine finds with a literal search (a pattern
# led by ^ in MULTILINE mode is tried at every character)
_CUSTOM_STMT_AFTER_NEWLINE = re.compile("\n" + _CUSTOM_STMT_BODY)
# Dialects whose custom syntax the MLIR bindings parse, as tt-mlir prints them (func.func, func.call, return).
_PARSED_DIALECTS = {"func", "builtin"}
_HANDLED = re.compile(r"(?:ttcore|tt)\.(?:device_module|cpu_module|device|load_cached|global|get_global|"
                      r"get_tuple_element|tuple)")
# A line that starts a new statement (ends a custom op printed over several lines).
_NEW_STMT = re.compile(r"[ \t]*(?:%|\"|\}|\^|return\b|module\b|[#!]|//|[A-Za-z_][\w$]*\.[\w.$]+(?![\w.$])(?![ \t]*=)|$)")
_OP_TOKENS = re.compile(rf"{_STRING}|//[^\n]*|->|[(\[{{<]|[)\]}}>]|:|,|\n|%[\w.$-]+(?:#\d+)?")
OPAQUE_OP = "ttanalyze.opaque"


def _rewrite_opaque(src: _Source, m: re.Match, edits: list[_Edit], out: Normalized) -> None:
    """Rewrite one custom-syntax op of an unparsed dialect into an opaque generic op.

    ``%0 = ttnn.d2m_subgraph @f ins(%a : T) outs(%b : T) : T`` (over any number
    of lines, with or without a region) becomes, on its first line,
    ``%0 = "ttanalyze.opaque"() {ttanalyze.name = "ttnn.d2m_subgraph",
    ttanalyze.operands = "%a %b"} : () -> (T)``; its other lines are blanked.
    The result types are the types after the op's last top-level ``->``, else
    after its last top-level ``:``.  An op whose result types cannot be found is
    left alone (the MLIR parser then reports it).
    """
    text = src.text
    start = m.start("name")
    depth, colon, arrow, stop = 0, -1, -1, -1
    operands: list[str] = []
    for t in _OP_TOKENS.finditer(text, m.end("name")):
        tok = t.group(0)
        if tok[0] in "([{<":
            depth += 1
        elif tok[0] in ")]}>":
            depth -= 1
            if depth < 0:  # the op ended inside an enclosing region ('}' of the block)
                stop = t.start()
                break
        elif tok[0] == "%":
            if tok not in operands:
                operands.append(tok)
        elif depth == 0 and tok == ":":
            colon = t.end()
        elif depth == 0 and tok == "->":
            arrow = t.end()
        elif depth == 0 and tok == "\n" and _NEW_STMT.match(text, t.end()):
            stop = t.start()
            break
    else:
        stop = len(text)
    while stop > start and text[stop - 1] in " \t\n":
        stop -= 1
    results = m.group("results") or ""
    n_results = 0
    if results:
        first = re.match(r"%[\w.$-]+(?::(\d+))?", results.strip())
        n_results = int(first.group(1)) if first.group(1) else results.count("%")
    types: str | None = ""
    if n_results:
        at = arrow if arrow > colon else colon
        if at < 0:
            return
        types = _type_list(text, at, stop)
        if types is None or (len(_split_top_level(types)) != n_results and n_results != 1):
            return
        # A memref with a tt layout (#ttcore.shard<...>) is no builtin memref the bindings accept;
        # only opaque ops consume such values, so their type is kept as an opaque type.
        types = ", ".join(f'!ttanalyze.opaque<"{_escape(t)}">' if t.startswith("memref<") and "#" in t else t
                          for t in _split_top_level(types))
    operand_text = " ".join(o for o in operands if not results or o not in results)
    first_line_end = text.find("\n", start)
    first_line_end = stop if first_line_end < 0 or first_line_end > stop else first_line_end
    generic = (f'"{OPAQUE_OP}"() {{ttanalyze.name = "{m.group("name")}", ttanalyze.operands = "{operand_text}"}}'
               f" : () -> ({types})")
    edits.append(_Edit(start, first_line_end, generic))
    if stop > first_line_end:
        edits.append(_Edit(first_line_end, stop, _blank(text[first_line_end:stop])))
    out.opaque_ops += 1


_D2M_HEAD = re.compile(r"ttnn\.d2m_subgraph\s+(@[\w.$-]+)\s*(?:attributes\s*)?(\{[^{}\n]*\})?\s*ins\s*\(")
_D2M_OUTS = re.compile(r"\s*outs\s*\(")
_D2M_RESULTS = re.compile(r"[ \t]*:")


def _rewrite_d2m_subgraph(src: _Source, m: re.Match, edits: list[_Edit]) -> bool:
    """Rewrite ``ttnn.d2m_subgraph @f ins(%a : A) outs(%o : O) : R`` into generic form.

    tt-mlir prints it with ``$d2m_func attr-dict ins($inputs : types) outs($outputs : types)
    (: type($results))?`` over several lines (TTNNOps.td @19c86fca D2MSubgraphOp); it becomes,
    on its first line, ``"ttnn.d2m_subgraph"(%a, %o) {d2m_func = @f, operandSegmentSizes =
    array<i32: 1, 1>} : (A, O) -> (R)`` and its other lines are blanked, so the op is parsed
    like any other, with its callee.  Returns False (the op is then kept opaque) when the text
    does not follow that format.
    """
    text = src.text
    start = m.start("name")
    head = _D2M_HEAD.match(text, start)
    if head is None:
        return False
    ins_close = src.match_close(head.end() - 1, "ttnn.d2m_subgraph ins")
    outs = _D2M_OUTS.match(text, ins_close + 1)
    if outs is None:
        return False
    outs_close = src.match_close(outs.end() - 1, "ttnn.d2m_subgraph outs")
    groups = [_operand_group(text[head.end():ins_close]), _operand_group(text[outs.end():outs_close])]
    if None in groups:
        return False
    stop, results = outs_close + 1, ""
    colon = _D2M_RESULTS.match(text, stop)
    if colon is not None:
        line_end = text.find("\n", colon.end())
        line_end = len(text) if line_end < 0 else line_end
        results = _type_list(text, colon.end(), line_end) or ""
        stop = line_end
    if bool(results) != bool(m.group("results")):
        return False
    (ins, in_types), (outs_v, out_types) = groups
    attrs = f"d2m_func = {head.group(1)}, operandSegmentSizes = array<i32: {len(ins)}, {len(outs_v)}>"
    if head.group(2) and head.group(2)[1:-1].strip():
        attrs += ", " + head.group(2)[1:-1].strip()
    generic = (f'"ttnn.d2m_subgraph"({", ".join(ins + outs_v)}) {{{attrs}}} : '
               f'({", ".join(in_types + out_types)}) -> ({results})')
    first_line_end = text.find("\n", start)
    first_line_end = stop if first_line_end < 0 or first_line_end > stop else first_line_end
    edits.append(_Edit(start, first_line_end, generic))
    if stop > first_line_end:
        edits.append(_Edit(first_line_end, stop, _blank(text[first_line_end:stop])))
    return True


def _operand_group(body: str) -> tuple[list[str], list[str]] | None:
    """``%a, %b : A, B`` -> (values, types); ``""`` -> ([], []); None when it is not that."""
    body = re.sub(r"(?<![\w.$#-])loc\((?:[^()]|\([^()]*\))*\)", "", re.sub(r"//[^\n]*", "", body)).strip()
    if not body:
        return [], []
    depth, colon = 0, -1
    for i, c in enumerate(body):
        if c in "([{<":
            depth += 1
        elif c in ")]}>" and not (c == ">" and i and body[i - 1] == "-"):
            depth -= 1
        elif c == ":" and depth == 0:
            colon = i
            break
    if colon < 0:
        return None
    values = [v.strip() for v in body[:colon].split(",")]
    types = [" ".join(t.split()) for t in _split_top_level(body[colon + 1:])]
    if len(values) != len(types) or not all(re.fullmatch(r"%[\w.$-]+(?:#\d+)?", v) for v in values):
        return None
    return values, types


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _type_list(text: str, start: int, stop: int) -> str | None:
    """The type list between ``start`` and the op's end or its first top-level ``{`` (a region or attributes)."""
    depth, end = 0, stop
    for t in re.compile(rf"{_STRING}|//[^\n]*|->|[(\[{{<]|[)\]}}>]").finditer(text, start, stop):
        tok = t.group(0)
        if tok == "{" and depth == 0:
            end = t.start()
            break
        if tok[0] in "([{<":
            depth += 1
        elif tok[0] in ")]}>":
            depth -= 1
    types = re.sub(r"//[^\n]*", "", text[start:end])
    types = re.sub(r"(?<![\w.$#-])loc\((?:[^()]|\([^()]*\))*\)", "", types)
    types = " ".join(types.split())
    if types.startswith("(") and types.endswith(")") and "->" not in types:
        types = types[1:-1]
    return types or None


def _set_aside_cpu_module(src: _Source, m: re.Match, edits: list[_Edit], out: Normalized) -> None:
    """Blank a ``ttcore.cpu_module { ... }`` and record its functions as host work.

    tt-mlir hoists some const-eval functions to the CPU, lowered to the LLVM
    dialect inside ``ttcore.cpu_module``; the upstream MLIR verifier rejects
    some of them (``'llvm.mlir.constant' op attribute and type have different
    integer types``).  They are host work, not TTNN: their names and positions
    are kept in :attr:`Normalized.host_functions` and the region is never parsed.
    """
    text = src.text
    brace = re.compile(r"\s*(?:attributes\s*\{[^{}]*\}\s*)?\{").match(text, m.end())
    if not brace:
        raise src.error("'ttcore.cpu_module' must be followed by a region '{'", m.start())
    close = src.match_close(brace.end() - 1, "ttcore.cpu_module")
    for f in re.finditer(r"(?:llvm\.func|func\.func)\s+(?:(?:private|public|internal|external|linkonce|weak)\s+)*"
                         r"(@[\w.$-]+)", text[m.start():close]):
        out.host_functions.append((f.group(1)[1:], src.pos(m.start() + f.start())))
    edits.append(_Edit(m.start(), close + 1, _blank(text[m.start():close + 1])))


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
    opener = _OPENER.search(body)
    if opener and _unbalanced(body):  # an alias printed over several lines (hand-written tests)
        close = src.match_close(body_start + opener.start(), f"alias {m.group(0)}")
        end = text.find("\n", close)
        body = text[body_start:len(text) if end < 0 else end].rstrip()
    name = m.group(0)
    if body.startswith("loc("):
        out.loc_aliases[name] = body
        if name[0] == "#":  # MLIR reads a !name = loc(...) line as a type alias
            out.loc_alias_lines[src.line_of(m.start())] = text[m.start():line_end]
            out.plain_loc_aliases = False
        edits.append(_Edit(m.start(), line_end, _blank(text[m.start():line_end])))
        return
    alias = out.aliases[name] = AliasDef(name, body, body_start, src.line_starts)
    out._body_alias.setdefault(body, alias)


_OPENER = re.compile(r"[<(\[{]")


def _unbalanced(body: str) -> bool:
    """Whether ``body`` opens more brackets than it closes (``->`` is no closer; strings skipped)."""
    if '"' not in body:  # no string to skip: count the brackets
        opened = body.count("<") + body.count("(") + body.count("[") + body.count("{")
        closed = body.count(">") - body.count("->") + body.count(")") + body.count("]") + body.count("}")
        return opened > closed
    depth = 0
    for t in re.finditer(rf"{_STRING}|->|[<(\[{{]|[>)\]}}]", body):
        tok = t.group(0)
        if tok in "<([{":
            depth += 1
        elif tok in ">)]}":
            depth -= 1
    return depth > 0


def _rewrite_properties(src: _Source, start: int, edits: list[_Edit], close: int | None = None) -> None:
    """``<{props}>`` -> `` {props} `` and ``<{a}> {b}`` -> `` {a,    b}``.

    ``close`` is the offset of the closing ``}`` when the caller already knows it.
    """
    text = src.text
    if close is None:
        close = src.match_close(start + 1, "property dictionary")
    if close + 1 < len(text) and text[close + 1] != ">":
        gt = re.compile(r"\s*").match(text, close + 1).end()
        if gt < len(text) and text[gt] == ">":  # '}' and '>' on different lines (hand-written tests)
            edits.append(_Edit(start, start + 2, " {"))
            edits.append(_Edit(gt, gt + 1, " "))
            return
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


def _rewrite_custom(src: _Source, m: re.Match, edits: list[_Edit], out: Normalized,
                    regions: list[tuple[int, str, str]]) -> None:
    """Rewrite one custom-syntax op of the ttcore (tt) dialect into generic form (the module docstring).

    The closing brace of a ``ttcore.device_module``'s region is found after the scan (``regions``:
    (offset of its ``{``, op name, attribute dictionary text)), by :meth:`_Source.match_brace`.

    Raises:
        InputError: a malformed custom op.
    """
    text = src.text
    name = m.group(0)
    line_end = text.find("\n", m.end())
    line_end = len(text) if line_end < 0 else line_end
    name = "ttcore." + name.split(".", 1)[1]  # the tt dialect of tt-mlir before 2025-06-17 is ttcore
    if name == "ttcore.cpu_module":
        _set_aside_cpu_module(src, m, edits, out)
        return
    if name == "ttcore.device_module":
        rest = m.end()
        attrs = ""
        kw = re.compile(r"\s*attributes\s*").match(text, rest)
        if kw:
            attrs_open = kw.end()
            close = src.match_close(attrs_open, f"{name} attributes")
            attrs = " " + text[attrs_open:close + 1]
            rest = close + 1
        brace = re.compile(r"\s*\{").match(text, rest)
        if not brace:
            raise src.error(f"'{name}' must be followed by a region '{{'", m.start())
        open_brace = brace.end() - 1
        edits.append(_Edit(m.start(), open_brace + 1, f'"{name}"() ({{'))
        regions.append((open_brace, name, attrs))
        return
    if name == "ttcore.device":
        if re.compile(r"\s*=").match(text, m.end()):
            return  # the module attribute `tt.device = #device` of tt-mlir before 2025-01, not the op
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


def _apply(src: _Source, rewritten: str, edits: list[_Edit], out: Normalized) -> str:
    """``rewritten`` (the text with its tokens' same-length rewrites made) with ``edits`` applied in order
    of their starts, an edit inside an earlier one skipped; an edit that changes a line's length records
    it in ``out._line_edits`` (:meth:`Normalized.original_pos`).  An edit replaces every token rewrite
    inside it: those never reach beyond their token, and no token starts inside another.

    Raises:
        InputError: a rewrite that changes the length of a span holding a line break (internal).
    """
    if not edits:
        return rewritten
    edits.sort(key=lambda e: e.start)
    pieces, last = [], 0
    for e in edits:
        if e.start < last:  # an edit nested in a blanked span (e.g. a loc inside an alias line)
            continue
        pieces.append(rewritten[last:e.start])
        pieces.append(e.text)
        if len(e.text) != e.end - e.start:
            if "\n" in src.text[e.start:e.end] or "\n" in e.text:
                raise src.error("internal: a rewrite crossed a line boundary", e.start)
            p = src.pos(e.start)
            out._line_edits.setdefault(p.line, []).append((p.col, e.end - e.start, len(e.text)))
        last = e.end
    pieces.append(rewritten[last:])
    return "".join(pieces)


@dataclass
class ModuleText:
    """One top-level module of a text that holds several (or log lines around one).

    Attributes:
        name: ``@sym_name`` of the module, else the pass of the ``IR Dump After``
            header before it (``after PassName``), else its rank in the file (``#3``).
        line / end_line: its first and last line in the file (1-based).
        text: the whole file with every line outside this module and its own
            aliases blanked, so positions stay the file's.
    """

    name: str
    line: int
    end_line: int
    text: str


# A top-level module at the start of a line: led by the newline (or at the start of the text), which the engine
# finds with a literal search (a pattern led by ^ in MULTILINE mode is tried at every character: 30 ms on 9.7 MB).
_MODULE_START_BODY = r"(?:builtin\.)?module\b(?=[ \t]*(?:@|attributes\b|\{))"
_MODULE_START = re.compile(_MODULE_START_BODY)
_MODULE_START_AFTER_NEWLINE = re.compile("\n" + _MODULE_START_BODY)
_MODULE_LOC = re.compile(r"[ \t]*loc\([^\n]*\)")
_LOC_ALIAS_LINE = re.compile(r"#[A-Za-z_][\w.$-]*[ \t]*=[ \t]*loc\(")
_DUMP_HEADER = re.compile(r"IR Dump (?:After|Before) (\w+)")
_ALIAS_LINE = re.compile(r"[ \t]*[#!][A-Za-z_][\w.$-]*[ \t]*=")
# Lines that may surround the one module of a plain file: blank, comments, aliases (#loc lines at the end).
_AROUND = re.compile(r"(?:[ \t]*(?:[#!][A-Za-z_][\w.$-]*[ \t]*=[^\n]*|//[^\n]*)?[ \t\r]*(?:\n|$))*")


def split_modules(text: str, path: str = "<string>") -> list[ModuleText] | None:
    """Split a text into its top-level modules, or None when it is one module and nothing else.

    A compiler log holds several modules (the StableHLO, TTIR and TTNN stages of
    one compilation, ``// -----// IR Dump After ...`` headers) with log lines
    around them; each module keeps the latest definition, before it, of every alias
    (a log prints each stage's aliases before it, with the same names; a test file
    defines them once above several modules).
    Top-level modules start at column 1 (as MLIR prints them).  The common case,
    one module with only aliases and comments around it, is recognized with two
    regex matches and returns None.

    Raises:
        InputError: a module whose region is never closed.
    """
    starts = [m.start() + 1 for m in _MODULE_START_AFTER_NEWLINE.finditer(text)]
    if _MODULE_START.match(text):
        starts.insert(0, 0)
    if not starts:
        return None
    if len(starts) == 1:
        last_close = text.rfind("\n}")
        if last_close >= 0 and _AROUND.fullmatch(text, 0, starts[0]):
            tail = _MODULE_LOC.match(text, last_close + 2)  # } loc(#loc)
            if _AROUND.fullmatch(text, tail.end() if tail else last_close + 2):
                return None
    src = _Source(text, path)
    spans: list[tuple[int, int, str]] = []
    pos = 0
    for start in starts:
        if start < pos:
            continue
        head = re.compile(r"(?:builtin\.)?module[ \t]*(@[\w.$-]+)?\s*(attributes\s*)?").match(text, start)
        at = head.end()
        if head.group(2):
            at = src.match_close(at, "module attributes") + 1
        brace = re.compile(r"\s*\{").match(text, at)
        if brace is None:
            continue
        close = src.match_close(brace.end() - 1, "module")
        spans.append((start, close + 1, head.group(1) or ""))
        pos = close + 1
    if not spans:
        return None
    modules = []
    prev_end = 0
    latest: dict[str, tuple[int, int]] = {}  # each alias name's latest definition before the module
    for start, end, sym in spans:
        offset, header, skip_to = prev_end, "", -1
        for ln in text[prev_end:start].split("\n"):
            if offset >= skip_to and _ALIAS_LINE.match(ln):
                alias_end = offset + len(ln)
                opener = re.search(r"[<(\[{]", ln)
                if opener and _unbalanced(ln):  # an alias over several lines
                    close = src.match_close(offset + opener.start(), "alias")
                    alias_end = text.find("\n", close)
                    alias_end = len(text) if alias_end < 0 else alias_end
                latest[ln.split("=", 1)[0].strip()] = (offset, alias_end)
                skip_to = alias_end
            h = _DUMP_HEADER.search(ln)
            if h:
                header = h.group(1)
            offset += len(ln) + 1
        kept = sorted(latest.values()) + [(start, end)]
        following = spans[len(modules) + 1][0] if len(modules) + 1 < len(spans) else len(text)
        offset = end
        for ln in text[end:following].split("\n"):  # its #loc aliases, printed after it
            if _LOC_ALIAS_LINE.match(ln):
                kept.append((offset, offset + len(ln)))
            offset += len(ln) + 1
        pieces, last = [], 0
        for a, b in kept:
            pieces.append(_blank(text[last:a]))
            pieces.append(text[a:b])
            last = b
        pieces.append(_blank(text[last:]))
        first_line = src.line_of(start)
        name = sym or (f"after {header}" if header else f"#{len(modules) + 1}")
        modules.append(ModuleText(name, first_line, src.line_of(end - 1), "".join(pieces)))
        prev_end = end
    return modules
