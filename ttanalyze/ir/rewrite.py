"""Text-level rewriting of a TTNN IR file: replace or insert ops, add layout aliases, retype values.

A fix edits the user's file as text, so everything it does not touch (other
ops, locations, comments, aliases, module attributes) stays as it was, line
endings aside (CRLF is written back as LF).
Ops are located by the line and column the parser recorded
(:attr:`ttanalyze.ir.model.Op.pos`); an op's text runs from there to the end of
the line on which its brackets balance (tt-mlir prints one op per line, in
generic form).  New tensor types get ``#tta_layoutN`` aliases, defined after the
file's last alias above the module (MLIR needs an alias defined before its
use); new SSA values are named ``%ttaN``.  The parser's value names are MLIR's
(renumbered in print order), so the file's spelling of a value is read from
its op's line (:meth:`Rewriter.name`).  ``ttnn.to_layout`` and
``ttnn.to_memory_config`` are written without attributes, as tt-mlir prints
them: their target layout, dtype and memory config are the result type's
encoding (``TTNNOps.td`` at 19c86fca: ``ins AnyRankedTensor:$input``).  The
result is parsed back before it is returned (:meth:`Rewriter.text`).
"""

from __future__ import annotations

import re
from dataclasses import replace as dc_replace
from typing import Callable

from ..errors import InputError
from .emit import TensorDesc, encoding_text
from .model import Op, Program

_ALIAS_LINE = re.compile(r"^#[A-Za-z_][\w$.-]*\s*=")
_RESULTS = re.compile(r"^\s*(%[\w$.-]+(?::\d+)?(?:\s*,\s*%[\w$.-]+)*)\s*=")


class RewriteError(ValueError):
    """The rewrite cannot be made (an op not found where the parser put it, a name clash)."""


class Rewriter:
    """Accumulates edits to one file's text; :meth:`text` applies them.

    Edits are line based: each op is replaced or has lines inserted before or
    after it; edits to different ops commute.
    """

    def __init__(self, source: str, program: Program):
        self.lines = source.replace("\r\n", "\n").split("\n")
        self.program = program
        self._replace: dict[int, list[str]] = {}
        self._before: dict[int, list[str]] = {}
        self._after: dict[int, list[str]] = {}
        self._aliases: dict[str, str] = {}  # encoding text -> alias name
        self._counter = 0

    # -- names ---------------------------------------------------------------
    def _fresh(self, prefix: str) -> str:
        source = "\n".join(self.lines)
        while True:
            name = f"{prefix}{self._counter}"
            self._counter += 1
            if not re.search(re.escape(name) + r"(?![\w$.])", source):
                return name

    def fresh_value(self) -> str:
        """A new SSA value name (``%ttaN``) unused in the file."""
        return self._fresh("%tta")

    def name(self, v) -> str:
        """The SSA name of value ``v`` as the file spells it.

        The parser's names are MLIR's (``%0``, ``%1``... renumbered in print
        order), which differ from the file's once a rewrite added ``%ttaN``
        values; an op result's name is read from its op's line instead.
        """
        p = v.producer
        if p is None:
            return v.name
        line = self.lines[p.pos.line - 1]
        m = _RESULTS.match(line)
        if not m:
            return v.name
        names = [n.strip() for n in m.group(1).split(",")]
        i = p.results.index(v)
        if len(names) == 1 and ":" in names[0]:
            base = names[0].split(":")[0]
            return f"{base}#{i}"
        return names[i] if i < len(names) else v.name

    def type_text(self, t: TensorDesc) -> str:
        """``tensor<...xT, #tta_layoutN>`` for ``t``, defining the alias once per distinct encoding."""
        enc = encoding_text(t)
        alias = self._aliases.get(enc)
        if alias is None:
            alias = self._aliases[enc] = self._fresh("#tta_layout")
        return t.type_text(alias)

    @staticmethod
    def value_type(v) -> str:
        """The MLIR type text of an existing value, its encoding written inline (aliases it uses stay valid)."""
        t = v.type
        enc = getattr(t, "encoding_text", "")
        if not enc:
            return str(t)
        dims = "x".join(str(d) for d in t.shape)
        scalar = TensorDesc(tuple(t.shape), str(t.element)).scalar_type
        return f"tensor<{dims}{'x' if dims else ''}{scalar}, {enc}>"

    # -- op spans --------------------------------------------------------------
    def span(self, op: Op) -> tuple[int, int]:
        """0-based first and last line of ``op``'s text.

        Raises:
            RewriteError: the op's name is not at its recorded position.
        """
        first = op.pos.line - 1
        if first >= len(self.lines) or f'"{op.name}"' not in self.lines[first] and op.name not in self.lines[first]:
            raise RewriteError(f"{op.name} not found at {op.pos}")
        depth, last = 0, first
        for i in range(first, len(self.lines)):
            in_string = False
            for ch in self.lines[i]:
                if ch == '"':
                    in_string = not in_string
                elif not in_string and ch in "([{":
                    depth += 1
                elif not in_string and ch in ")]}":
                    depth -= 1
            last = i
            if depth <= 0:
                break
        return first, last

    def indent(self, op: Op) -> str:
        line = self.lines[op.pos.line - 1]
        return line[: len(line) - len(line.lstrip())]

    # -- edits -----------------------------------------------------------------
    def replace(self, op: Op, new_lines: list[str]) -> None:
        """Replace ``op``'s text by ``new_lines`` (indented like the op)."""
        first, _ = self.span(op)
        if first in self._replace:
            raise RewriteError(f"{op.name} at {op.pos} is rewritten twice")
        self._replace[first] = [self.indent(op) + line for line in new_lines]

    def insert_before(self, op: Op, new_lines: list[str]) -> None:
        first, _ = self.span(op)
        self._before.setdefault(first, []).extend(self.indent(op) + line for line in new_lines)

    def insert_after(self, op: Op, new_lines: list[str]) -> None:
        _, last = self.span(op)
        self._after.setdefault(last, []).extend(self.indent(op) + line for line in new_lines)

    def rewrite_operands(self, op: Op, changes: dict[int, tuple[str, str]],
                         edit: Callable[[str], str] | None = None) -> None:
        """Give ``op`` new operands: ``changes[i] = (value name, type text)`` for operand ``i``.

        Rewrites the operand list and the operand types of the op's generic form
        (``"ttnn.add"(%0, %1) <{...}> : (T0, T1) -> R``), then applies ``edit``
        to the op's text (attribute changes); the op is replaced.

        Raises:
            RewriteError: the op's text is not in generic form.
        """
        first, last = self.span(op)
        text = " ".join(line.strip() for line in self.lines[first:last + 1])
        head = text.find(f'"{op.name}"(')
        if head < 0:
            raise RewriteError(f"{op.name} at {op.pos} is not in generic form")
        open_ = head + len(op.name) + 3  # after the quoted name and "("
        close = _matching(text, open_ - 1)
        names = _split_top(text[open_:close])
        colon = text.find(" : (", close)
        if colon < 0:
            raise RewriteError(f"{op.name} at {op.pos} has no type list")
        t_open = colon + 3
        t_close = _matching(text, t_open)
        types = _split_top(text[t_open + 1:t_close])
        for i, (name, type_text) in changes.items():
            i += 0 <= op.dps_index <= i  # the written list also holds a destination-passing $output operand
            names[i], types[i] = name, type_text
        new = (text[:open_] + ", ".join(names) + text[close:t_open + 1] + ", ".join(types) + text[t_close:])
        self.replace(op, [edit(new) if edit else new])

    def retype(self, v, type_text: str) -> None:
        """Give the op result ``v`` the type ``type_text`` at its definition and at every use.

        Raises:
            RewriteError: ``v`` is a function argument or is returned (its
                function's signature would change), or its op has several results.
        """
        op = v.producer
        if op is None:
            raise RewriteError(f"{v.name} is a function argument: retyping it changes the signature")
        if any(u.name in ("func.return", "return") for u in v.users):
            raise RewriteError(f"{v.name} is returned: retyping it changes the signature")
        if len(op.results) != 1:
            raise RewriteError(f"{op.name} at {op.pos} has several results")
        first, last = self.span(op)
        text = " ".join(line.strip() for line in self.lines[first:last + 1])
        colon = text.find(" : (", text.find(f'"{op.name}"('))
        if colon < 0:
            raise RewriteError(f"{op.name} at {op.pos} has no type list")
        t_close = _matching(text, colon + 3)
        arrow = text.find(" -> ", t_close)
        start = arrow + 4
        end = text.find(" loc(", start)
        end = len(text) if end < 0 else end
        self.replace(op, [text[:start] + type_text + text[end:]])
        self.replace_uses(v, self.name(v), type_text)

    def replace_uses(self, v, name: str, type_text: str) -> None:
        """Make every op that reads ``v`` (deallocates included) read ``name`` of type ``type_text`` instead.

        Raises:
            RewriteError: a reader is not in generic form.
        """
        for u in v.users:
            self.rewrite_operands(u, {i: (name, type_text) for i, o in enumerate(u.operands) if o is v})

    # -- result ----------------------------------------------------------------
    def text(self) -> str:
        """The rewritten file, checked by parsing it back.

        Raises:
            RewriteError: the result does not parse (a bug in the fix that made it).
        """
        lines = list(self.lines)
        out: list[str] = []
        i = 0
        while i < len(lines):
            out.extend(self._before.get(i, []))
            if i in self._replace:
                last = self._span_from(i)
                out.extend(self._replace[i])
                out.extend(self._after.get(last, []))
                i = last + 1
                continue
            out.append(lines[i])
            out.extend(self._after.get(i, []))
            i += 1
        text = "\n".join(self._with_aliases(out))
        from .parse import parse_text

        try:
            parse_text(text, self.program.path + " (rewritten)")
        except InputError as exc:
            raise RewriteError(f"the rewritten IR does not parse: {exc}") from None
        return text

    def _span_from(self, first: int) -> int:
        op = next(o for o in self.program.ops if o.pos.line - 1 == first)
        return self.span(op)[1]

    def _with_aliases(self, lines: list[str]) -> list[str]:
        if not self._aliases:
            return lines
        module = next((i for i, line in enumerate(lines) if line.lstrip().startswith("module")), 0)
        last_alias = max((i for i in range(module) if _ALIAS_LINE.match(lines[i])), default=-1)
        defs = [f"{alias} = {enc}" for enc, alias in self._aliases.items()]
        return lines[: last_alias + 1] + defs + lines[last_alias + 1:]


def desc_of(t, **changes) -> TensorDesc:
    """The :class:`TensorDesc` of an IR tensor type, with ``changes`` applied (``shape``, ``layout``
    (``tile``/``row_major``), ``buffer_type`` (``dram``/``l1``), ``memory_layout``, ``dtype``...).

    Raises:
        RewriteError: the type has no ``#ttnn.ttnn_layout`` encoding.
    """
    lay = t.layout
    if lay is None:
        raise RewriteError(f"{t} has no TTNN layout encoding")
    desc = TensorDesc(shape=tuple(t.shape), dtype=lay.dtype.name, layout="tile" if lay.is_tiled else "row_major",
                      buffer_type=lay.buffer_type, memory_layout=lay.memory_layout,
                      grid=tuple(lay.grid[:2]) if len(lay.grid) >= 2 else (1, 1), core_ranges=lay.core_ranges)
    if changes.get("buffer_type") == "dram" or changes.get("memory_layout") == "interleaved":
        changes.setdefault("memory_layout", "interleaved")
        changes.setdefault("core_ranges", None)
        changes.setdefault("grid", (1, 1))
    return dc_replace(desc, **changes)


def _matching(text: str, i: int) -> int:
    """Index of the bracket closing the one at ``text[i]``."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] in "([{<":
            depth += 1
        elif text[j] in ")]}>" and not (text[j] == ">" and text[j - 1] == "-"):
            depth -= 1
            if depth == 0:
                return j
    raise RewriteError(f"unbalanced brackets in {text[i:i + 60]!r}")


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, stripped ('' gives [])."""
    parts, depth, cur = [], 0, ""
    for j, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and j and text[j - 1] == "-"):
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts
