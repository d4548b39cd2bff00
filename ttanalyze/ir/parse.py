"""Parse a TTNN IR file into a :class:`~ttanalyze.ir.model.Program`.

The text is normalized (:mod:`ttanalyze.ir.normalize`), parsed by the upstream
MLIR Python bindings (``iree.compiler.ir``, unregistered dialects allowed) and
walked once.  MLIR uniques attributes and types, so each distinct one is
converted once and cached on the binding object; values get their names from
one shared ``AsmState`` (``Value.get_name()`` without it re-prints the module on
every call).
"""

from __future__ import annotations

import itertools
import re
import sys
import types
from pathlib import Path
from typing import Any

from ..errors import InputError, SourcePos
from . import attrs as A
from .attr_grammar import AttrSyntaxError, Ident, Node, ShapedTypeV, parse_attr_text
from .model import Func, Op, OtherType, Program, TensorType, Value
from .normalize import OPAQUE_OP, Normalized, decode, normalize, split_modules


def _import_bindings() -> tuple[types.ModuleType, types.ModuleType]:
    """``iree.compiler.ir`` and its native ``_mlir`` module, imported without numpy.

    iree-base-compiler's package ``__init__`` imports ``iree.compiler.ir``, whose
    tail (``ir.py``, ``try: import numpy as np ... except ImportError``) imports
    numpy only to register the ``F64ElementsAttr`` / ``I32ElementsAttr`` /
    ``I64ElementsAttr`` / ``IndexElementsAttr`` builders of the generated op
    classes, which ttanalyze never calls: 0.1 s of CPU, a quarter of the start-up
    of a small file's ``check``.  For that import alone numpy is marked absent (a
    ``None`` entry in ``sys.modules`` makes ``import numpy`` raise ImportError,
    as importlib documents), and the mark is removed after it, so a later
    ``import numpy`` (the reshape model, the interpreter) loads it as usual.
    """
    mark = "numpy" not in sys.modules
    if mark:
        sys.modules["numpy"] = None  # type: ignore[assignment]
    try:
        from iree.compiler import ir
        from iree.compiler._mlir_libs import _mlir
    finally:
        if mark and sys.modules.get("numpy", 0) is None:
            del sys.modules["numpy"]
    return ir, _mlir


ir, _mlir = _import_bindings()

# The bindings look up a Python module for every op's dialect when they wrap an
# op and do not remember a failed lookup: without a module for ttnn/ttcore each
# op costs a failed import (~0.1 ms).  Empty modules under a search prefix of our
# own make the lookup succeed once and be cached.
_DIALECT_PREFIX = "ttanalyze.ir._dialect_stubs"
if _DIALECT_PREFIX not in _mlir.globals.dialect_search_modules:
    _mlir.globals.append_dialect_search_prefix(_DIALECT_PREFIX)
    for _ns in ("ttnn", "ttcore", "ttir", "ttkernel", "ttmetal", "d2m", "sdy", "mhlo", "stablehlo"):
        sys.modules.setdefault(f"{_DIALECT_PREFIX}.{_ns}", types.ModuleType(f"{_DIALECT_PREFIX}.{_ns}"))

# tt-metal stores each dimension as uint32 (ttnn::Shape), and no device holds a
# tensor of 2^48 elements; larger shapes are input errors, not findings.
MAX_DIM = 2**32 - 1
MAX_VOLUME = 2**48


def parse_file(path: str | Path) -> Program:
    """Read and parse a TTNN IR file.

    Raises:
        InputError: unreadable file or any malformed input (with file:line:col).
    """
    path = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path) from None
    return parse_bytes(data, path)


def parse_bytes(data: bytes, path: str = "<string>") -> Program:
    """Parse IR given as bytes (UTF-8).  See :func:`parse_text`."""
    return parse_text(decode(data, path), path)


def parse_text(text: str, path: str = "<string>") -> Program:
    """Parse IR text into a Program: its first TTNN module (see :func:`parse_modules` for all).

    Accepts a plain ``module { func.func ... }`` and the real compiler's nesting
    ``module { ttcore.device_module { builtin.module { ttcore.device ...;
    func.func ... } } }`` with any number of functions.

    Raises:
        InputError: malformed MLIR, unknown attribute syntax, undefined alias,
            dynamic/zero/absurd dimensions, no function at all, or no TTNN
            module (TTIR, StableHLO: the message says which).
    """
    return parse_modules(text, path)[0]


def parse_modules(text: str, path: str = "<string>") -> list[Program]:
    """Parse every TTNN module of ``text``, each into its own Program.

    A plain file holds one module; a compiler log may hold several stages (StableHLO,
    TTIR, TTNN) or several TTNN modules, with log lines around them.  Each TTNN module
    becomes a Program named by :attr:`Program.module_name`, with positions in the
    file; modules of other dialects are skipped.

    Raises:
        InputError: as :func:`parse_text`; a text with no TTNN module at all says
            what it is instead ("this is TTIR: ...").
    """
    if not text.strip():
        raise InputError("empty input: expected an MLIR module", path)
    modules = split_modules(text, path)
    if modules is None:
        _check_is_ttnn(text, path)
        return [_parse_module(text, path)]
    ttnn = [m for m in modules if _has_ttnn(m.text)]
    if not ttnn:
        _check_is_ttnn(text, path)
        ttnn = modules[:1]
    programs = []
    for m in ttnn:
        program = _parse_module(m.text, path)
        if len(modules) > 1:
            program.module_name = m.name
            program.module_lines = (m.line, m.end_line)
        programs.append(program)
    return programs


# ttnn ops, attributes or types; not the names EmitC/EmitPy call (call_opaque "ttnn.add")
_TTNN_TEXT = re.compile(r"(?<![\w.$\"])(?<!call_opaque )[#!\"]?ttnn\.[a-z_]")
# a ttnn op (generic "ttnn.add"(...) or custom syntax), not only a #ttnn attribute on another dialect's op
_TTNN_OP = re.compile(r"(?<![#!\w.$\"])(?<!call_opaque )\"?ttnn\.[a-z_]\w*\"?\s*[(<{:%@]|=\s*\"?ttnn\.[a-z_]\w*")
_DIALECT_OP = re.compile(
    r"(?<![#!\w.$])\"?(ttir|stablehlo|mhlo|d2m|ttmetal|ttkernel|ttl|emitc|emitpy|llvm|tosa|linalg)\.[a-z_]\w*(?![\w<])(?!\s*=)")
_DIALECT_NAMES = {
    "ttir": "TTIR", "stablehlo": "StableHLO", "mhlo": "MHLO", "d2m": "D2M", "ttmetal": "TTMetal",
    "ttkernel": "TTKernel", "emitc": "EmitC", "emitpy": "EmitPy", "llvm": "LLVM dialect", "tosa": "TOSA",
    "linalg": "Linalg", "ttl": "TTL (tt-lang's kernel dialect)",
}


# _TTNN_OP's alternatives each led by a literal (the engine tries a pattern led by a lookbehind at every character:
# 38 ms on 9.7 MB), its whitespace kept within a line: on the whole text, it matches on every line where _TTNN_OP
# matches that line's code (no lookahead, and a line's start is a newline for the lookbehinds)
_TTNN_OP_IN_LINE = re.compile(
    r'ttnn\.(?<![#!\w.$"]ttnn\.)(?<!call_opaque ttnn\.)[a-z_]\w*"?[^\S\n]*[(<{:%@]'
    r'|"(?<![#!\w.$"]")(?<!call_opaque ")ttnn\.[a-z_]\w*"?[^\S\n]*[(<{:%@]'
    r'|=[^\S\n]*"?ttnn\.[a-z_]\w*')


def _has_ttnn(text: str) -> bool:
    """Whether ``text`` holds a ttnn op (TTNN layouts alone type TTIR stages and tt-lang's TTL kernels too): a
    line whose code (before ``//``) :data:`_TTNN_OP` matches.  Only the lines where :data:`_TTNN_OP_IN_LINE`
    matches the whole text can (one regex scan, not one search per line: a file's thousands of layout aliases
    above its ops cost 50 ms that way)."""
    checked = -1
    for m in _TTNN_OP_IN_LINE.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if start <= checked:
            continue
        checked = start
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if any(_TTNN_OP.search(code) for code in _code_lines(line)):
            return True
    return False


def _code_lines(text: str):
    for line in text.split("\n"):
        code = line.split("//", 1)[0] if "//" in line else line
        if code.strip():
            yield code


def _check_is_ttnn(text: str, path: str) -> None:
    """Raise InputError when ``text`` holds ops of another dialect and nothing of TTNN."""
    if _TTNN_TEXT.search(text) and _has_ttnn(text):
        return
    counts: dict[str, int] = {}
    first: dict[str, SourcePos] = {}
    for i, line in enumerate(text.split("\n"), 1):
        code = line.split("//", 1)[0]
        for m in _DIALECT_OP.finditer(code):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            first.setdefault(m.group(1), SourcePos(i, m.start() + 1))
    if not counts:
        return
    dialect = max(counts, key=counts.get)
    name = _DIALECT_NAMES[dialect]
    after = {"TTIR": "the output of ttir-to-ttnn (ttmlir-opt --ttir-to-ttnn-backend-pipeline)",
             "StableHLO": "what tt-mlir makes of it after stablehlo-to-ttir and ttir-to-ttnn"}.get(
        name, "the output of tt-mlir's ttir-to-ttnn pipeline")
    raise InputError(f"this is {name}, not TTNN IR: ttanalyze reads TTNN IR, {after}", path, first[dialect])


def _parse_module(text: str, path: str) -> Program:
    norm = normalize(text, path)
    _check_nesting(norm, path)
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    # One thread: a multithreaded context starts a thread pool the parse of one module does not use
    # (parse 14% less CPU on a 50,000-op file; the parse and its diagnostics are the same).
    ctx.enable_multithreading(False)
    try:
        module = ir.Module.parse(norm.text, ctx)
    except ir.MLIRError as exc:
        raise _mlir_error(exc, norm, path) from None
    _check_locations(text, norm, path, ctx)
    program = _Walker(norm, text, path).program(module)
    program.source = text
    program.host_functions = list(norm.host_functions)
    return program


# Brackets nested deeper than this are refused before MLIR sees them: its
# recursive-descent parser overflows the C stack (a segmentation fault) near
# 10,000 levels, and the attribute grammar and the walker recurse in Python.
# tt-mlir's output nests a few levels (the system_desc is the deepest, ~6).
MAX_NESTING = 128
_NESTING_SKIP = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|//[^\n]*')
_NOT_BRACKETS = bytes(b for b in range(256) if chr(b) not in "([{<)]}>")
_OPENERS = bytes(int(chr(b) in "([{<") for b in range(256))  # bracket byte -> 1 if it opens, else 0


_CHUNK = 96  # brackets per chunk of _first_too_deep


def _first_too_deep(brackets: bytes) -> int | None:
    """Index of the first bracket of ``brackets`` (bracket characters alone, in order) that is nested
    deeper than :data:`MAX_NESTING`, else None.  The depth after bracket ``i`` is ``2 * openers - (i + 1)``.
    In chunks of :data:`_CHUNK` brackets: a chunk holding ``k`` openers nests at most ``k`` deeper than
    where it starts, so only a chunk that could pass the limit is summed bracket by bracket
    (``bytes.count`` per chunk: 3 ms for 730,000 brackets)."""
    openers = brackets.translate(_OPENERS)
    depth = 0
    for start in range(0, len(openers), _CHUNK):
        end = min(start + _CHUNK, len(openers))
        k = openers.count(1, start, end)
        if depth + k > MAX_NESTING:
            for i, d in enumerate(itertools.accumulate(openers[start:end], lambda a, o: a + 2 * o - 1,
                                                       initial=depth)):
                if d > MAX_NESTING:
                    return start + i - 1
        depth += 2 * k - (end - start)
    return None


def _check_nesting(norm: Normalized, path: str) -> None:
    """Refuse brackets ``([{<`` nested deeper than :data:`MAX_NESTING` (strings, comments and ``->`` aside).

    Raises:
        InputError: at the bracket that goes one level too deep.
    """
    # strings and comments skipped; when none holds a bracket (normalize saw them all) they can stay
    text = norm.text if norm.plain_strings else _NESTING_SKIP.sub(" ", norm.text)
    kept = text.replace("->", "").encode("utf-8").translate(None, _NOT_BRACKETS)
    if len(kept) <= MAX_NESTING or _first_too_deep(kept) is None:
        return
    # found: find it again in the text with strings and comments blanked, for its position
    text = _NESTING_SKIP.sub(lambda m: " " * len(m.group(0)), norm.text).replace("->", "  ")
    nth = _first_too_deep(text.encode("utf-8").translate(None, _NOT_BRACKETS))
    m = next(itertools.islice(re.finditer(r"[(\[{<)\]}>]", text), nth, None))
    line = text.count("\n", 0, m.start()) + 1
    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    raise InputError(f"brackets nested more than {MAX_NESTING} deep: not TTNN IR", path, norm.original_pos(line, col))


_LOC_ALIAS_LINE = re.compile(r"[#][A-Za-z_][\w.$-]*[ \t]*=[ \t]*loc\(")
_LOC_HOLDER = '"loc.check"() : () -> () '


def _check_locations(text: str, norm: Normalized, path: str, ctx: ir.Context) -> None:
    """Have MLIR parse every location the normalizer blanked (``loc(...)`` and ``#locN = loc(...)``).

    The normalizer keeps locations away from the parser (so that ops get the
    user's file:line:col); this parses them on their own, each ``loc(...)``
    as the trailing location of a placeholder op at its original line and
    column, so that what MLIR rejects there (an undefined or redefined
    ``#loc`` alias, an unterminated string) is rejected here too.

    Raises:
        InputError: MLIR's first diagnostic, at its position in the user's file.
    """
    if not norm.line_locs and not norm.loc_aliases:
        return
    if _locations_parse(norm, ctx):
        return
    lines = text.split("\n")
    out = [""] * (len(lines) + 1)  # out[k] holds line k of the user's file; out[0] is a free line before it
    for number, line in enumerate(lines, 1):
        if _LOC_ALIAS_LINE.match(line):
            out[number] = line
            continue
        locs = norm.line_locs.get(number)
        if not locs:
            continue
        buf, end = [], 0
        for loc in locs:
            start = line.find(loc, end)
            if start < 0:
                continue
            if not buf:  # the placeholder op goes at the end of the previous line
                out[number - 1] += " " + _LOC_HOLDER
                buf.append(" " * start)
            elif start - end >= len(_LOC_HOLDER):
                buf.append(" " * (start - end - len(_LOC_HOLDER)) + _LOC_HOLDER)
            else:  # too close to the previous one: its column is off by a few characters
                buf.append(" " + _LOC_HOLDER)
            buf.append(loc)
            end = start + len(loc)
        out[number] += "".join(buf)
    try:
        ir.Module.parse("\n".join(out), ctx)
    except ir.MLIRError as exc:
        diags = list(exc.error_diagnostics)
        pos = None
        if diags:
            m = re.search(r":(\d+):(\d+)", str(diags[0].location))
            pos = SourcePos(max(int(m.group(1)) - 1, 1), int(m.group(2))) if m else None
        message = diags[0].message if diags else str(exc)
        raise InputError(f"invalid location: {message}", path, pos) from None


def _locations_parse(norm: Normalized, ctx: ir.Context) -> bool:
    """Whether MLIR parses every location of the file (as ``norm`` recorded them), checked all at once:
    True only when :func:`_check_locations` would accept them too.

    A location that is a bare alias (``loc(#loc3)``) is one MLIR resolves at the end of the file, so it
    is valid when a ``#loc3 = loc(...)`` line defines it.  The locations on a ``#loc`` alias line are
    parsed with that line, as :func:`_check_locations` keeps it (alias lines that are not plain locations,
    :attr:`Normalized.plain_loc_aliases`, are left to it).  Every other ``loc(body)`` goes into one
    placeholder op, whose location fuses their bodies (``loc(fused[a, b, ...])``; a body parses as an
    element of a fused location exactly when ``loc(body)`` parses: both are MLIR's
    ``parseLocationInstance``), placed before the ``#loc`` alias lines (:attr:`Normalized.loc_alias_lines`),
    which follow as they are:
    an alias it names is then undefined there, as it would be in the file unless defined above the
    location, so the fast check fails and the full one decides.  One op instead of one per location:
    a quarter of the time on a 50,000-op file; when it fails, :func:`_check_locations` places each
    location at its own line and column, for the diagnostic.  A name location whose string has no escape
    and none of the characters MLIR's lexer refuses in a string (``loc("name")``: llvm-project
    mlir/lib/AsmParser/Lexer.cpp ``lexString`` ends a string at ``"`` and refuses a newline, ``\\v``, ``\\f``
    or the end of the buffer in it; a string alone is a ``NameLoc``, LocationParser.cpp
    ``parseNameOrFileLineColRange``) always parses: it is not parsed again.
    """
    if not norm.plain_loc_aliases:  # e.g. a comment ending an alias line would swallow the next line's placeholder
        return False
    bodies = []
    alias_lines = norm.loc_alias_lines
    for line, locs in norm.line_locs.items():
        if line in alias_lines:  # MLIR parses the alias line itself (as _check_locations keeps it)
            continue
        for loc in locs:
            body = loc[4:-1]
            if _PLAIN_NAME.fullmatch(body):
                continue
            alias = _BARE_ALIAS.fullmatch(body)
            if alias is None:
                bodies.append(body)
            elif alias.group(1) not in norm.loc_aliases:
                return False
    text = ""
    if bodies:  # each body on its own line: a comment ending one cannot swallow the next
        text = _LOC_HOLDER + "loc(fused[" + "\n, ".join(bodies) + "\n])\n"
    text += "\n".join(alias_lines.values())
    try:
        ir.Module.parse(text, ctx)
    except ir.MLIRError:
        return False
    return True


_BARE_ALIAS = re.compile(r"\s*(#[\w.$-]+)\s*")
_PLAIN_NAME = re.compile(r'"[^"\\\n\r\v\f\x00]*"')


def _mlir_error(exc: ir.MLIRError, norm: Normalized, path: str) -> InputError:
    diags = list(exc.error_diagnostics) or []
    if not diags:
        return InputError(f"MLIR parse error: {exc}", path)
    diag = diags[0]
    pos = _loc_pos(diag.location, norm)
    message = diag.message
    custom = re.search(r"custom op '([\w.]+)'", message)
    if custom:
        message = (
            f"op '{custom.group(1)}' is printed in a custom syntax ttanalyze cannot read; "
            "print it in generic form (mlir-opt --mlir-print-op-generic)"
        )
    return InputError(message, path, pos)


def _loc_pos(loc: ir.Location, norm: Normalized) -> SourcePos | None:
    try:
        return norm.original_pos(loc.start_line, loc.start_col)
    except (AttributeError, ValueError):
        m = re.search(r":(\d+):(\d+)", str(loc))
        return norm.original_pos(int(m.group(1)), int(m.group(2))) if m else None



# conv2d and max_pool2d took one scalar per spatial dim until tt-mlir 12198ac9 (2025-02-25, "Refactor conv2d op")
# and 69604bd1 (2025-03-07, "Fix maxpool2d signature"): kernel_height/kernel_width, stride_*, padding_*, dilation_*
# (TTNNOps.td).  Both became DenseI32ArrayAttr pairs [height, width] with the same meaning (padding symmetric).
_SPATIAL_PAIRS = ("kernel", "stride", "padding", "dilation")


def _spatial_pairs_to_lists(attrs: dict[str, Any], raw: dict[str, str]) -> None:
    """Rewrite an op's ``kernel_height = 3, kernel_width = 3, ...`` into ``kernel_size = [3, 3], ...`` in place."""
    for base in _SPATIAL_PAIRS:
        h, w = attrs.get(f"{base}_height"), attrs.get(f"{base}_width")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (h, w)):
            continue
        name = "kernel_size" if base == "kernel" else base
        for key in (f"{base}_height", f"{base}_width"):
            attrs.pop(key)
            raw.pop(key, None)
        attrs[name] = [h, w]
        raw[name] = f"array<i32: {h}, {w}>"

# Until tt-mlir 7bc75fc2 (2025-02-28, "[TTNN Dialect] Remove dps ops"; eltwise binary ops since 91dd3d61, 2025-02-24)
# these TTNN ops were destination-passing: an ``$output``/``$outputs`` operand, a ``ttnn.empty`` of the result's type,
# held the result (TTNNOps.td @c4dd5377..7bc75fc2~1: TTNN_NamedDPSOp, TTNN_ElementwiseOp, TTNN_ReductionOp and the ops
# with an ``AnyRankedTensor:$output`` argument).  Each maps to the most tensor inputs it takes without that operand
# (optional inputs counted), None for concat's variadic inputs.
_DPS_ERA_OPS: dict[str, int | None] = {
    **{f"ttnn.{n}": 1 for n in (
        "abs cbrt ceil cos exp expm1 floor gelu isfinite leaky_relu log log1p logical_not neg reciprocal relu rsqrt "
        "sigmoid sign sin sqrt tan tanh typecast bitwise_not reshape transpose softmax slice argmax moreh_cumsum mean "
        "sum max max_pool2d").split()},
    **{f"ttnn.{n}": 2 for n in (
        "add bitwise_and bitwise_or bitwise_xor div eq ge gt le logical_and logical_or logical_xor lt maximum minimum "
        "multiply ne pow remainder subtract matmul embedding").split()},
    **{f"ttnn.{n}": 3 for n in "where scatter linear conv2d conv_transpose2d embedding_bw".split()},
    "ttnn.concat": None,
}


def _dps_init_index(name: str, operands: list[Value], results: list[Value]) -> int:
    """The position of a destination-passing ``$output`` operand (:data:`_DPS_ERA_OPS`): the last operand made by
    ``ttnn.empty`` whose type is the op's single result's type, when the op has more tensor operands than it takes
    without one; -1 otherwise.  A modern op may take a ``ttnn.empty`` as an input (``ttnn.add(%x, %scratch)``), so
    the count decides; concat's inputs are variadic: an input of the result's own type would make its result larger
    than declared (counted twice), so there the reading is the only consistent one."""
    if len(results) != 1 or len(operands) < 2:
        return -1
    most = _DPS_ERA_OPS[name]
    if most is not None and sum(v.is_tensor for v in operands) <= most:
        return -1
    rtype = results[0].type
    for i in range(len(operands) - 1, -1, -1):
        v = operands[i]
        if v.type is rtype and v.producer is not None and v.producer.name == "ttnn.empty":
            return i
    return -1


def _argmax_kept_dim(attrs: dict[str, Any], raw: dict[str, str], operands: list[Value], results: list[Value]) -> None:
    """Set ``keep_dim`` of a ``ttnn.argmax`` that keeps the reduced dim without saying so.  tt-mlir before 4645bda6
    (2026-03-19, which added ``ArgMaxOp::verify``) wrote argmax results of the input's rank with no ``keep_dim``: its
    runtime called ``ttnn::argmax(in, dim, ...)`` with no keepdim and tt-metal returned the reduced dim as 1
    (runtime/lib/ttnn/operations/reduction/argmax.cpp @5f030fbf; the argmax workaround tests declare 64x64 -> 64x1).
    Since 4645bda6 the verifier refuses a result of the input's rank unless ``keep_dim = true`` is printed, so the
    declared rank decides in every era."""
    if not operands or len(results) != 1 or not operands[0].is_tensor or not results[0].is_tensor:
        return
    if len(results[0].type.shape) == len(operands[0].type.shape) > 0:
        attrs["keep_dim"] = True
        raw["keep_dim"] = "true"


class _Walker:
    def __init__(self, norm: Normalized, text: str, path: str):
        self.norm = norm
        self.lines = text.split("\n")
        self.path = path
        self.type_cache: dict[Any, TensorType | OtherType] = {}
        self.tiles_checked: set[int] = set()  # ids of result types whose tile element matches the layout
        self.element_names: dict[int, str] = {}  # id of a TensorType -> its MLIR element type as printed
        self.element_types_seen: dict[Any, tuple[str, A.DataType]] = {}  # MLIR element type -> (as printed, DataType)
        self.attr_cache: dict[Any, tuple[Any, str]] = {}
        self.alias_trees: dict[str, Any] = {}
        self.ops: list[Op] = []
        self.system_desc: A.SystemDesc | None = None
        self.meshes: A.Meshes | None = None
        self.system_desc_pos: SourcePos | None = None
        self.module_attrs: dict[str, str] = {}
        self.source_names: dict[int, dict[str, Value]] = {}
        self.source_seen: dict[int, int] = {}

    # -- errors ---------------------------------------------------------------
    def error(self, message: str, pos: SourcePos | None) -> InputError:
        return InputError(message, self.path, pos)

    def op_pos(self, op: ir.Operation) -> SourcePos:
        pos = _loc_pos(op.location, self.norm)
        return pos or SourcePos(1, 1)

    def text_pos(self, text: str, near: SourcePos | None, offset: int = 0) -> SourcePos | None:
        """Position of attribute ``text`` (+offset): its alias definition, else in ``near``'s line."""
        pos = self.norm.body_pos(text)
        if pos is not None:
            return SourcePos(pos.line, pos.col + offset)
        if near is not None and 0 < near.line <= len(self.lines):
            col = self.lines[near.line - 1].find(text[:40])
            if col >= 0:
                return SourcePos(near.line, col + 1 + offset)
        return near

    # -- program ----------------------------------------------------------------
    def program(self, module: ir.Module) -> Program:
        self.asm = ir.AsmState(module.operation)
        self.context = module.context
        self.element_types: dict[str, str | None] = {}  # builtin element type name -> MLIR's complaint
        funcs: list[Func] = []
        self.collect(module.operation, funcs)
        if not funcs:
            raise self.error("no func.func in the module: nothing to analyze", SourcePos(1, 1))
        program = Program(self.path, funcs, self.system_desc, self.ops, self.module_attrs)
        program.meshes = self.meshes
        program.system_desc_pos = self.system_desc_pos
        return program

    def collect(self, op: ir.Operation, funcs: list[Func]) -> None:
        name = op.name
        if name in ("builtin.module", "module"):
            attrs = op.attributes
            for key in ("ttcore.system_desc", "tt.system_desc"):  # tt.system_desc before 2025-06-17
                if key in attrs and self.system_desc is None:
                    value, _ = self.convert_attr(attrs[key], self.op_pos(op))
                    if not isinstance(value, A.SystemDesc):
                        # tt-mlir's verifier does not check it (a hand-written test of 2025-07 names a
                        # #ttnn.buffer_type): kept as a plain module attribute, the arch comes from --arch
                        self.module_attrs[key] = str(attrs[key])
                        continue
                    self.system_desc = value
                    self.system_desc_pos = self.op_pos(op)
            for key in ("ttcore.meshes", "tt.meshes"):  # every module's meshes, by name (the first shape of a name wins)
                if key in attrs:
                    value, _ = self.convert_attr(attrs[key], self.op_pos(op))
                    if isinstance(value, A.Meshes):
                        known = dict(self.meshes.shapes) if self.meshes is not None else {}
                        added = tuple((n, s) for n, s in value.shapes if n not in known)
                        self.meshes = A.Meshes((self.meshes.shapes if self.meshes is not None else ()) + added)
            for n in attrs:
                if n not in ("ttcore.system_desc", "tt.system_desc"):
                    self.module_attrs[n] = str(attrs[n])
        if name == "func.func":
            funcs.append(self.func(op))
            return
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    self.collect(child.operation, funcs)

    def func(self, fop: ir.Operation) -> Func:
        attrs = fop.attributes
        fname = attrs["sym_name"].value if "sym_name" in attrs else "?"
        kind = attrs["tt.function_type"].value if "tt.function_type" in attrs else ""
        private = "sym_visibility" in attrs and attrs["sym_visibility"].value == "private"
        pos = self.op_pos(fop)
        for name in ("arg_attrs", "res_attrs"):  # checked like any attribute (ttcore.local_shape holds a type)
            if name in attrs:
                self.convert_attr(attrs[name], pos)
        if "ttkernel.thread" in attrs or "ttkernel.arg_spec" in attrs:
            kind = "kernel"  # a ttnn.generic kernel (EmitC/TTKernel body), tt.function_type absent in some tests
        func = Func(fname, [], [], [], kind, pos, private, self.norm.resolve_loc)
        if not fop.regions or not fop.regions[0].blocks or kind == "kernel":
            return func  # a declaration, or a kernel's body (device code a ttnn.generic names, not TTNN ops)
        values: dict[Any, Value] = {}
        block = fop.regions[0].blocks[0]
        arg_locs = [self.norm.resolve_loc(t) for t in self.norm.line_locs.get(pos.line, [])]
        for i, arg in enumerate(block.arguments):
            v = Value(arg.get_name(self.asm), self.convert_type(arg.type, pos), func=func)
            if len(arg_locs) >= len(block.arguments):
                v.arg_name = arg_locs[i]
            values[arg] = v
            func.args.append(v)
        convert_op, ops = self.op, func.ops
        for child in block.operations:
            op = child.operation
            name = op.name
            if name in ("func.return", "return"):
                func.returns = [self.lookup(values, o, op) for o in op.operands]
                continue
            ops.append(convert_op(op, name, func, values))
        return func

    def check_tile_element(self, tensor: TensorType, op_name: str, pos: SourcePos) -> None:
        """An op result whose element type is a tile must hold the same tile as its layout's memref.

        tt-mlir's verifier refuses the op otherwise (``CheckTileTypeTrait``,
        include/ttmlir/Dialect/TTNN/IR/TTNNTraits.h @19c86fca: "Output element type
        must match the scalar element type from encoding").

        Raises:
            InputError: the two tiles differ.
        """
        tile = _TILE_ELEMENT.fullmatch(self.element_names[id(tensor)])
        layout = tensor.layout
        if tile is None:
            return
        if not layout.is_tiled or (layout.element.height, layout.element.width, layout.element.dtype) != (
                int(tile.group(1)), int(tile.group(2)), tensor.element):
            raise self.error(
                f"'{op_name}' result element type {tile.group(0)} differs from its layout's memref element "
                f"{layout.element}: tt-mlir's verifier refuses it (\"Output element type must match the scalar "
                f"element type from encoding\", TTNNTraits.h CheckTileTypeTrait)", pos)

    def source_operands(self, names: str, func: Func) -> list[Value]:
        """The Values an opaque op names in the source (``%arg0 %5``), found by their source names.

        Names are read from the function's signature and its ops' first lines, once per function
        and only for functions with opaque ops; names defined inside the op's own region are skipped.
        """
        table = self.source_names.get(id(func))
        if table is None:
            table = self.source_names[id(func)] = {}
            sig = "\n".join(self.lines[func.pos.line - 1: func.pos.line + 200])
            paren = sig.find("(")
            if paren >= 0:
                for i, arg_m in enumerate(re.finditer(r"(%[\w.$-]+)\s*:", sig[paren:_close_paren(sig, paren)])):
                    if i < len(func.args):
                        table[arg_m.group(1)] = func.args[i]
            self.source_seen[id(func)] = 0
        for op in func.ops[self.source_seen[id(func)]:]:
            m = _RESULT_NAMES.match(self.lines[op.pos.line - 1]) if 0 < op.pos.line <= len(self.lines) else None
            if m and op.results:
                first, count = m.group(1), m.group(2)
                if count:
                    table[first] = op.results[0]
                    for i, r in enumerate(op.results):
                        table[f"{first}#{i}"] = r
                else:
                    for n, r in zip(re.findall(r"%[\w.$-]+", m.group(0)), op.results):
                        table[n] = r
        self.source_seen[id(func)] = len(func.ops)
        return [table[n] for n in names.split() if n in table]

    def lookup(self, values: dict[Any, Value], operand: ir.Value, op: ir.Operation) -> Value:
        v = values.get(operand)
        if v is None:
            raise self.error("operand defined outside the function or in a nested region", self.op_pos(op))
        return v

    def op(self, op: ir.Operation, name: str, func: Func, values: dict[Any, Value]) -> Op:
        """The typed Op of ``op`` (named ``name``), its results added to ``values``.

        The inner loop of the walk (once per op of the file): the bindings are read once each (every access of
        ``op.attributes``, ``op.location`` or ``r.type`` makes a new binding object), cached attributes and types
        are looked up inline, and an op position comes straight from MLIR's location unless normalize moved a
        column of its line (:meth:`Normalized.original_pos`).

        Raises:
            InputError: an operand defined outside the function, or a conversion error of an attribute or type.
        """
        norm = self.norm
        loc = op.location
        try:
            line, col = loc.start_line, loc.start_col
        except (AttributeError, ValueError):
            pos = _loc_pos(loc, norm) or SourcePos(1, 1)
        else:
            pos = norm.original_pos(line, col) if line in norm._line_edits else SourcePos(line, col)
        attrs: dict[str, Any] = {}
        raw: dict[str, str] = {}
        opaque = ""
        if name == OPAQUE_OP:  # a custom-syntax op normalize could not turn into generic form
            name = op.attributes["ttanalyze.name"].value
            opaque = "custom syntax"
            operands = self.source_operands(op.attributes["ttanalyze.operands"].value, func)
        else:
            operands = [values.get(o) for o in op.operands]
            if None in operands:
                raise self.error("operand defined outside the function or in a nested region", pos)
            attr_cache = self.attr_cache
            for attr_name, a in op.attributes.items():
                converted = attr_cache.get(a)
                if converted is None:
                    converted = self.convert_attr(a, pos)
                attrs[attr_name], raw[attr_name] = converted
            if len(op.regions) and any(len(r.blocks) for r in op.regions):
                opaque = "region"
            if "kernel_height" in attrs and "kernel_size" not in attrs:
                _spatial_pairs_to_lists(attrs, raw)
            if name == "ttnn.sparse_matmul" and attrs.get("nnz") == 0:
                # tt-mlir before fc60ec52 (2026-05-22) wrote nnz = 0 for "not set" and its runtime passed
                # std::nullopt; since then the verifier refuses 0 and an unset nnz is absent
                del attrs["nnz"], raw["nnz"]
        locs = norm.line_locs.get(pos.line)
        new = Op(len(self.ops), name, operands, [], attrs, raw, pos, locs[-1] if locs else "", func)
        new.opaque = opaque
        if name == "ttcore.load_cached":
            new.callee = attrs.get("callee")
        elif name == "ttnn.d2m_subgraph":  # runs its callee in place (TTNNCollaspeD2M inlines it)
            new.callee = attrs.get("d2m_func")
        type_cache, asm, results = self.type_cache, self.asm, new.results
        for r in op.results:
            t = r.type
            vtype = type_cache.get(t)
            if vtype is None:
                vtype = self.convert_type(t, pos)
            v = Value(r.get_name(asm), vtype, new, [], "", func)
            if not opaque and isinstance(vtype, TensorType) and vtype.layout is not None \
                    and id(vtype) not in self.tiles_checked:
                self.check_tile_element(vtype, name, pos)
                self.tiles_checked.add(id(vtype))  # passed once, passes again (one object per type, type_cache)
            values[r] = v
            results.append(v)
        if name in _DPS_ERA_OPS and not opaque:
            if name == "ttnn.argmax" and "keep_dim" not in attrs:
                _argmax_kept_dim(attrs, raw, operands, results)
            dps = _dps_init_index(name, operands, results)
            if dps >= 0:
                new.dps_index = dps
                del operands[dps]
                seg = attrs.get("operandSegmentSizes")
                if isinstance(seg, list) and sum(seg) == len(operands) + 1:  # eltwise: [inputs, outputs]
                    seg = list(seg)
                    for k, end in enumerate(itertools.accumulate(seg)):
                        if dps < end:
                            seg[k] -= 1
                            break
                    attrs["operandSegmentSizes"] = seg
        for v in operands:
            v.users.append(new)
        self.ops.append(new)
        return new

    # -- types ----------------------------------------------------------------
    def convert_type(self, t: ir.Type, pos: SourcePos) -> TensorType | OtherType:
        cached = self.type_cache.get(t)
        if cached is not None:
            return cached
        if isinstance(t, ir.RankedTensorType):
            result: TensorType | OtherType = self.tensor_type(t, pos)
        elif isinstance(t, ir.UnrankedTensorType):
            raise self.error("unranked tensor type: ttanalyze needs static shapes", pos)
        else:
            result = OtherType(str(t))
        self.type_cache[t] = result
        return result

    def tensor_type(self, t: ir.RankedTensorType, pos: SourcePos) -> TensorType:
        """The TensorType of ``t`` (once per distinct type: :meth:`convert_type` caches it); its element type's
        name is kept in :attr:`element_names` for :meth:`check_tile_element`.  The type is printed only for a
        message.

        Raises:
            InputError: a dynamic, zero or absurd dimension, an element type tt-metal cannot store, or an
                encoding that is not a layout.
        """
        shape = tuple(t.shape)
        if any(d < 0 or d > MAX_DIM for d in shape):
            text = str(t)
            if any(d < 0 for d in shape):
                raise self.error(f"dynamic dimension in {text}: ttanalyze needs static shapes", self.text_pos(text, pos))
            raise self.error(f"dimension larger than 2^32-1 in {text} (tt-metal stores dims as uint32)", self.text_pos(text, pos))
        volume = 1
        for d in shape:
            volume *= d
        if volume > MAX_VOLUME:
            text = str(t)
            raise self.error(f"absurd tensor volume {volume} elements in {text} (more than 2^48)", self.text_pos(text, pos))
        element_type = t.element_type
        known = self.element_types_seen.get(element_type)
        if known is None:  # printing an element type costs more than the rest of this method
            elem_name = str(element_type)
            try:
                known = self.element_types_seen[element_type] = (elem_name, _element_dtype(elem_name))
            except A.AttrError as exc:
                text = str(t)
                raise self.error(str(exc), self.text_pos(text, pos)) from None
        elem_name, element = known
        layout = None
        enc_text = ""
        mesh = None
        encoding = t.encoding
        if encoding is not None:
            value, enc_text = self.convert_attr(encoding, pos)
            if isinstance(value, A.TTNNLayout):
                layout = value
                mesh = value.tensor_mesh
            elif isinstance(value, A.TensorMesh):
                mesh = value.name
            elif not isinstance(value, A.DialectAttr):
                raise self.error(f"tensor encoding is not a layout: {enc_text[:80]}", self.text_pos(enc_text, pos))
        result = TensorType(shape, element, layout, enc_text, mesh)
        self.element_names[id(result)] = elem_name
        return result

    # -- attributes ---------------------------------------------------------
    def convert_attr(self, a: ir.Attribute, pos: SourcePos) -> tuple[Any, str]:
        cached = self.attr_cache.get(a)
        if cached is not None:
            return cached
        result = (self._convert(a, pos), str(a) if not isinstance(a, ir.OpaqueAttr) else self._opaque_text(a))
        self.attr_cache[a] = result
        return result

    @staticmethod
    def _opaque_text(a: ir.OpaqueAttr) -> str:
        data = bytes(a.data).decode("utf-8", "replace")
        if re.match(r"[\w.$]+(<|$)", data):  # pretty form: #ttnn.layout<tile>
            return f"#{a.dialect_namespace}.{data}"
        if data.startswith("<"):
            return f"#{a.dialect_namespace}{data}"
        return f"#{a.dialect_namespace}<{data}>"  # verbose form: #ttnn<mesh_offset 0x0>

    def _convert(self, a: ir.Attribute, pos: SourcePos) -> Any:
        if isinstance(a, ir.OpaqueAttr):
            return self.dialect_attr(self._opaque_text(a), pos)
        if isinstance(a, ir.BoolAttr):
            return a.value
        if isinstance(a, (ir.IntegerAttr, ir.FloatAttr, ir.StringAttr, ir.FlatSymbolRefAttr)):
            return a.value
        if isinstance(a, ir.UnitAttr):
            return True
        if isinstance(a, ir.ArrayAttr):
            return [self.convert_attr(x, pos)[0] for x in a]
        if isinstance(a, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr, ir.DenseI16ArrayAttr, ir.DenseI8ArrayAttr,
                          ir.DenseBoolArrayAttr, ir.DenseF32ArrayAttr, ir.DenseF64ArrayAttr)):
            return list(a)
        if isinstance(a, ir.DictAttr):
            return {x.name: self.convert_attr(x.attr, pos)[0] for x in a}
        if isinstance(a, ir.TypeAttr):
            return str(a.value)
        return A.DialectAttr(type(a).__name__, str(a))

    def dialect_attr(self, text: str, pos: SourcePos) -> Any:
        try:
            tree = parse_attr_text(text)
        except AttrSyntaxError as exc:
            raise self.error(f"{exc} in '{_clip(text)}'", self.text_pos(text, pos, exc.offset)) from None
        try:
            self.check_tensor_types(tree)
            value = A.build(tree, self.resolve_alias)
        except A.AttrError as exc:
            raise self.error(f"{exc} in '{_clip(text)}'", self.text_pos(text, pos)) from None
        if isinstance(value, A.DialectAttr):
            return A.DialectAttr(value.kind, text)
        return value

    def check_tensor_types(self, tree: Any) -> None:
        """The ``tensor<...>`` types inside an opaque attribute (``#ttcore<local_shape local_shape =
        tensor<...>>``), which MLIR does not parse: their element types must be MLIR builtin types and
        their dims obey the limits of :meth:`tensor_type`.

        Raises:
            A.AttrError: an unknown element type or an absurd dimension.
        """
        stack = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ShapedTypeV):
                if node.kind == "tensor":
                    if any(d > MAX_DIM for d in node.shape):
                        raise A.AttrError(f"dimension larger than 2^32-1 in tensor<{'x'.join(map(str, node.shape))}x...> "
                                          "(tt-metal stores dims as uint32)")
                    if isinstance(node.element, Ident):
                        self.check_element_type(node.element.name)
                stack.extend(node.extra)
                stack.append(node.element)
            elif isinstance(node, Node):
                stack.extend(node.items)
                stack.extend(node.kw.values())
            elif isinstance(node, list):
                stack.extend(node)

    def check_element_type(self, name: str) -> None:
        """Raise A.AttrError when MLIR does not parse ``name`` as a type."""
        if name not in self.element_types:
            try:
                ir.Type.parse(name, self.context)
                self.element_types[name] = None
            except ir.MLIRError as exc:
                diags = list(exc.error_diagnostics)
                self.element_types[name] = diags[0].message if diags else str(exc)
        if self.element_types[name] is not None:
            raise A.AttrError(f"unknown element type '{name}' ({self.element_types[name]})")

    def resolve_alias(self, name: str) -> Any:
        if name in self.alias_trees:
            return self.alias_trees[name]
        alias = self.norm.aliases.get(name)
        if alias is None:
            raise A.AttrError(f"undefined alias '{name}'")
        try:
            tree = parse_attr_text(alias.body)
        except AttrSyntaxError as exc:
            raise InputError(f"{exc} in alias {name}", self.path, SourcePos(alias.pos.line, alias.pos.col + exc.offset)) from None
        self.alias_trees[name] = tree
        return tree


_TILE_ELEMENT = re.compile(r"!tt(?:core)?\.tile<\s*(\d+)x(\d+)\s*,\s*(\w+)\s*>")


def _element_dtype(name: str) -> A.DataType:
    """The DataType of a tensor's element type: a builtin (``bf16``, ``ui8``) or a tile.

    tt-mlir writes block-float tensors (bfp8/bfp4 weights) with a tile element
    type, ``tensor<1x1x3840x8192x!ttcore.tile<32x32, bfp_bf8>, #layout>``: the
    shape stays the logical shape in elements and the data type is the tile's
    (``!tt.tile`` before tt-mlir 820a5207, 2025-06-17).

    Raises:
        AttrError: a type tt-metal cannot store, or a tile of an unknown data type.
    """
    tile = _TILE_ELEMENT.fullmatch(name)
    if tile is None:
        return A.dtype_from_builtin(name)
    dtype = A.DataType(A.BUILTIN_TO_DTYPE.get(tile.group(3), tile.group(3)))
    dtype.tile_bytes(int(tile.group(1)), int(tile.group(2)))  # raises for an unknown type or a bad bfp tile
    return dtype


_RESULT_NAMES = re.compile(r"\s*(%[\w.$-]+)(?::(\d+))?(?:\s*,\s*%[\w.$-]+)*\s*=")


def _close_paren(text: str, open_at: int) -> int:
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."

