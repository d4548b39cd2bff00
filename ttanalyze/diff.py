"""``ttanalyze diff``: one program before and after a compiler pass.

Both files are analyzed as ``ttanalyze check`` and ``ttanalyze cost`` would
(:func:`ttanalyze.analysis.analyze`, :func:`ttanalyze.rules.run`,
:func:`ttanalyze.cost.ir.program_cost`); their ops are matched, and the report
gives, per matched op and in total, what changed, which findings appeared or
vanished, and which thresholds the change violates.

Op matching
-----------
``ttnn.deallocate`` ops take no part (they run no program; their effect shows
in the L1 figures of the other ops).  Every other op of every function takes
part, in program order.  Two passes:

1. **Location.**  Ops are grouped by (location name, op name).  The location
   name is :attr:`Op.loc_name` with a leading ``jit(NAME)/`` removed, so that
   the same program under another function name still matches (the mochi
   constpad/edgepad pair); ops without a location name skip this pass.  A group
   with as many ops before as after pairs them in order (tt-mlir reuses one
   location for every op it lowers from one source op, and keeps their order).
   A group whose counts differ is aligned with :class:`difflib.SequenceMatcher`
   on the ops' signatures (operand and result shapes and element types, the
   TTNN layout left out, since a pass that shards a tensor changes it): runs of
   equal signatures pair in order, and so do the ops of a replaced run, up to
   the shorter side; the rest go to pass 2.
2. **Position.**  What is left is grouped by op name and aligned with
   :class:`difflib.SequenceMatcher` on signatures: ops with the same signature
   pair in order; ops with different signatures pair (in order, within a
   replaced run) only when their relative positions in the two programs (rank
   among the matched-or-not ops / count) differ by at most
   :data:`POSITION_TOLERANCE`.

Ops left unmatched are reported as removed (before only) or added (after
only).  Matching never pairs ops of different names.

Metrics per op (bytes per core as in :mod:`ttanalyze.memory`)
--------------------------------------------------------------
``l1_per_core``: L1 in use on a core while the op runs: live L1 tensors, the
op's intermediate L1 buffers and its circular buffers
(:attr:`MemoryPoint.l1_total_per_core`).  ``cb_per_core``: its circular-buffer
region on its busiest core.  ``dram_bytes``: DRAM bytes its device ops move,
``ns``: their predicted time (:mod:`ttanalyze.cost`); both ``None`` when the
cost model does not know the op (never guessed), 0 when it runs no device op.

Findings
--------
A finding belongs to its op's match (or to the program when it has no op).
Before and after findings pair when rule, match and message agree, the message
compared with its numbers and SSA names blanked out (``%3 64x4x16x16 ... 256
tiles`` equals ``%7 64x4x16x16 ... 512 tiles``); findings still unpaired then
pair on rule and match alone (the wording changed: ``persists``, with both
messages).  Unpaired findings are ``new`` (after only) or ``gone`` (before
only).

Totals and thresholds
---------------------
Totals: peak L1 per core (the largest ``l1_per_core``), the largest CB region
per core, total DRAM traffic and total predicted latency, and finding counts
by severity.  The DRAM and latency totals of the two sides are sums over the
same ops, so that an op the cost model stops knowing cannot make a total
shrink: a matched op counts on both sides when it is costed on both, on
neither otherwise; an added op counts after, a removed op before, when costed
there (:func:`compared_ops`).  The ops the cost model does not know are
counted apart (``uncosted_ops``, per side).

A regression is a total that grows by more than its threshold, in percent of
the before value (from 0 to anything above 0 is an infinite increase); a new
finding at or above ``fail_on_new`` (a persisting finding whose severity rose
counts as new); or, while the latency or the DRAM threshold is checked, an op
whose cost became unknown: a matched op costed before and not after ("op X at
line L is no longer costed"), or an added op the cost model does not know
(the totals cannot vouch for either).  ``allow-uncosted = true`` in the table
below (:attr:`Thresholds.allow_uncosted`) lets such ops pass; they are still
reported.  Thresholds come from the command line, else from the
``[tool.ttanalyze.diff]`` table of a TOML file (``--config PATH``, else the
nearest ``pyproject.toml`` in the current directory or above it; the search
stops at the first one found, whether or not it has the table), else
:data:`DEFAULTS`.  A threshold set to ``false`` (TOML) or ``off`` (command
line) is not checked.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .analysis import Analysis
from .errors import InputError, SourcePos
from .findings import SEVERITIES, Finding, severity_rank
from .ir.model import Op, TensorType

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, the same parser, when installed
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        tomllib = None  # type: ignore[assignment]

SCHEMA = "ttanalyze.diff/1"
POSITION_TOLERANCE = 0.1
SKIPPED_OPS = frozenset({"ttnn.deallocate"})

METRICS = ("l1_per_core", "cb_per_core", "dram_bytes", "ns")
TOTALS = ("peak_l1_per_core", "max_cb_per_core", "dram_bytes", "latency_ns")

# Threshold key in [tool.ttanalyze.diff] -> (Thresholds attribute, total it bounds, command-line option).
THRESHOLD_KEYS = {
    "max-latency-increase": ("latency", "latency_ns", "--max-latency-increase"),
    "max-l1-increase": ("l1", "peak_l1_per_core", "--max-l1-increase"),
    "max-cb-increase": ("cb", "max_cb_per_core", "--max-cb-increase"),
    "max-dram-increase": ("dram", "dram_bytes", "--max-dram-increase"),
}
FAIL_ON_NEW = ("error", "warning", "info", "never")
CONFIG_TABLE = "[tool.ttanalyze.diff]"
ALLOW_UNCOSTED_KEY = "allow-uncosted"

#: Default thresholds: each total may grow by 5% at most; a new error-severity finding is a regression, and so
#: is an op whose cost became unknown.
DEFAULTS = {"latency": 5.0, "l1": 5.0, "cb": 5.0, "dram": 5.0, "fail_on_new": "error", "allow_uncosted": False}


# ---------------------------------------------------------------------------
# Op matching
# ---------------------------------------------------------------------------

_JIT_PREFIX = re.compile(r"^jit\([^()/]*\)/")


def location_key(op: Op) -> str:
    """The op's location name with a leading ``jit(NAME)/`` removed ("" when it has none)."""
    return _JIT_PREFIX.sub("", op.loc_name)


def signature(op: Op) -> tuple:
    """Operand and result types without their TTNN layouts: ``(('tensor<32x128xbf16>', ...), (...))``."""
    def types(values):
        return tuple(str(v.type) for v in values)
    return types(op.operands), types(op.results)


@dataclass
class OpMatch:
    """A pair of ops (``before``/``after``; one is None for a removed or an added op) and how they matched.

    ``how``: ``location`` (pass 1), ``signature`` or ``position`` (pass 2), ``removed``, ``added``.
    """

    before: Op | None
    after: Op | None
    how: str


def _considered(ops: Iterable[Op]) -> list[Op]:
    return [op for op in ops if op.name not in SKIPPED_OPS]


def _align(before: list[Op], after: list[Op], replaced_ok) -> list[tuple[Op, Op, bool]]:
    """Order-preserving pairs of ``before``/``after`` by :class:`difflib.SequenceMatcher` on signatures.

    Returns ``(b, a, same_signature)``; within a replaced run, pairs in order up to the shorter side
    when ``replaced_ok(b, a)``.
    """
    sm = difflib.SequenceMatcher(None, [signature(o) for o in before], [signature(o) for o in after],
                                 autojunk=False)
    pairs = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            pairs += [(before[i1 + k], after[j1 + k], True) for k in range(i2 - i1)]
        elif tag == "replace":
            pairs += [(b, a, False) for b, a in zip(before[i1:i2], after[j1:j2]) if replaced_ok(b, a)]
    return pairs


def match_ops(before: list[Op], after: list[Op]) -> list[OpMatch]:
    """Match the ops of two programs (see the module docstring); every op appears in exactly one OpMatch.

    Returns matched pairs in the after program's order, then the removed ops in the before program's order
    (deallocations are left out).
    """
    before, after = _considered(before), _considered(after)
    matched: dict[int, tuple[Op, str]] = {}   # id(after op) -> (before op, how)
    used_b: set[int] = set()

    def pair(b: Op, a: Op, how: str) -> None:
        matched[id(a)] = (b, how)
        used_b.add(id(b))

    # pass 1: (location name, op name)
    groups_b: dict[tuple[str, str], list[Op]] = defaultdict(list)
    groups_a: dict[tuple[str, str], list[Op]] = defaultdict(list)
    for op in before:
        if location_key(op):
            groups_b[(location_key(op), op.name)].append(op)
    for op in after:
        if location_key(op):
            groups_a[(location_key(op), op.name)].append(op)
    for key, ops_a in groups_a.items():
        ops_b = groups_b.get(key, [])
        if len(ops_b) == len(ops_a):
            for b, a in zip(ops_b, ops_a):
                pair(b, a, "location")
        elif ops_b:
            for b, a, _ in _align(ops_b, ops_a, lambda b, a: True):
                pair(b, a, "location")

    # pass 2: op name, then same signature or nearby relative position
    rel_b = {id(op): i / max(len(before) - 1, 1) for i, op in enumerate(before)}
    rel_a = {id(op): i / max(len(after) - 1, 1) for i, op in enumerate(after)}
    left_b: dict[str, list[Op]] = defaultdict(list)
    left_a: dict[str, list[Op]] = defaultdict(list)
    for op in before:
        if id(op) not in used_b:
            left_b[op.name].append(op)
    for op in after:
        if id(op) not in matched:
            left_a[op.name].append(op)
    for name, ops_a in left_a.items():
        ops_b = left_b.get(name)
        if not ops_b:
            continue
        near = lambda b, a: abs(rel_b[id(b)] - rel_a[id(a)]) <= POSITION_TOLERANCE  # noqa: E731
        for b, a, same in _align(ops_b, ops_a, near):
            pair(b, a, "signature" if same else "position")

    out = []
    for a in after:
        if id(a) in matched:
            b, how = matched[id(a)]
            out.append(OpMatch(b, a, how))
        else:
            out.append(OpMatch(None, a, "added"))
    out += [OpMatch(b, None, "removed") for b in before if id(b) not in used_b]
    return out


# ---------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------


@dataclass
class Side:
    """One program's analysis, findings and cost, and the per-op metrics read from them."""

    analysis: Analysis
    findings: list[Finding]
    cost: Any  # ttanalyze.cost.ir.ProgramCost
    metrics: dict[int, dict[str, float | None]] = field(default_factory=dict)
    cost_status: dict[int, str] = field(default_factory=dict)

    @property
    def path(self) -> str:
        """The program's file path, as given (no unit)."""
        return self.analysis.program.path


def side(analysis: Analysis, findings: list[Finding], constants=None) -> Side:
    """Cost ``analysis`` and read every op's metrics (see the module docstring)."""
    from .cost.ir import program_cost

    pc = program_cost(analysis, constants)
    s = Side(analysis, findings, pc)
    for c in pc.ops:
        point = analysis.memory.points.get(c.op.index)
        known = c.status != "unknown"
        s.metrics[c.op.index] = {
            "l1_per_core": point.l1_total_per_core if point else 0,
            "cb_per_core": point.cb_per_core if point else 0,
            "dram_bytes": round(c.dram_bytes) if known else None,
            "ns": c.ns if known else None,
        }
        s.cost_status[c.op.index] = c.status
    return s


def totals(s: Side, costed: set[int] | None = None) -> dict[str, Any]:
    """Program totals (module docstring) and the ops that set the peaks.

    Args:
        s: one side.
        costed: the op indices whose DRAM bytes and latency are summed (:func:`compared_ops`); default:
            every op the cost model knows.
    """
    ops = _considered(s.analysis.program.ops)
    peak_op = max(ops, key=lambda o: s.metrics[o.index]["l1_per_core"], default=None)
    cb_op = max(ops, key=lambda o: s.metrics[o.index]["cb_per_core"], default=None)
    known = [s.metrics[o.index] for o in ops if s.metrics[o.index]["ns"] is not None
             and (costed is None or o.index in costed)]
    return {
        "ops": len(ops),
        "peak_l1_per_core": s.metrics[peak_op.index]["l1_per_core"] if peak_op else 0,
        "peak_l1_op": _op_ref(peak_op) if peak_op else None,
        "max_cb_per_core": s.metrics[cb_op.index]["cb_per_core"] if cb_op else 0,
        "max_cb_op": _op_ref(cb_op) if cb_op else None,
        "dram_bytes": sum(m["dram_bytes"] for m in known),
        "latency_ns": sum(m["ns"] for m in known),
        "uncosted_ops": sum(1 for o in ops if s.metrics[o.index]["ns"] is None),
        "findings": {sev: sum(1 for f in s.findings if f.severity == sev) for sev in reversed(SEVERITIES)},
    }


def _op_ref(op: Op) -> dict[str, Any]:
    return {"index": op.index, "line": op.pos.line, "col": op.pos.col, "name": op.name, "loc": op.loc_name,
            "func": op.func.name}


# ---------------------------------------------------------------------------
# Findings
# ---------------------------------------------------------------------------

_NUMBER = re.compile(r"%[\w.$-]+|\d+(?:\.\d+)?")


def message_key(message: str) -> str:
    """The message with numbers and SSA names blanked: ``'%3 64x4 holds 256 tiles' -> '# #x# holds # tiles'``."""
    return _NUMBER.sub("#", message)


@dataclass
class FindingChange:
    """``status``: ``new`` (after only), ``gone`` (before only) or ``persists`` (both)."""

    status: str
    before: Finding | None
    after: Finding | None

    @property
    def finding(self) -> Finding:
        """The finding as it is after the pass (before it, for a ``gone`` one)."""
        return self.after or self.before  # type: ignore[return-value]

    @property
    def severity_rose(self) -> bool:
        """A persisting finding whose severity is higher after the pass than before."""
        return (self.status == "persists"
                and severity_rank(self.after.severity) > severity_rank(self.before.severity))  # type: ignore[union-attr]


def match_findings(before: list[Finding], after: list[Finding], matches: list[OpMatch]) -> list[FindingChange]:
    """Pair findings by (rule, op match, message modulo numbers), then by (rule, op match)."""
    owner_b: dict[int, int] = {}
    owner_a: dict[int, int] = {}
    for k, m in enumerate(matches):
        if m.before is not None:
            owner_b[m.before.index] = k
        if m.after is not None:
            owner_a[m.after.index] = k

    def owner(f: Finding, table: dict[int, int], side_: str):
        if f.op_index is None:
            return ("program",)
        k = table.get(f.op_index)
        return ("match", k) if k is not None else (side_, f.op_index)   # a deallocate's finding: its own

    out: list[FindingChange] = []
    left_b = list(before)
    pending = list(after)
    for strict in (True, False):
        def key(f: Finding, table: dict[int, int], side_: str) -> tuple:
            return f.rule, owner(f, table, side_), message_key(f.message) if strict else None
        pool: dict[tuple, list[Finding]] = defaultdict(list)
        for fb in left_b:
            pool[key(fb, owner_b, "b")].append(fb)
        unpaired = []
        for fa in pending:
            candidates = pool.get(key(fa, owner_a, "a"))
            if candidates:
                out.append(FindingChange("persists", candidates.pop(0), fa))
            else:
                unpaired.append(fa)
        left_b = [fb for fbs in pool.values() for fb in fbs]
        pending = unpaired
    out += [FindingChange("new", None, fa) for fa in pending]
    out += [FindingChange("gone", fb, None) for fb in left_b]
    order = {"new": 0, "gone": 1, "persists": 2}
    out.sort(key=lambda c: (order[c.status], c.finding.pos.line, c.finding.pos.col, c.finding.rule))
    return out


# ---------------------------------------------------------------------------
# Thresholds
# ---------------------------------------------------------------------------


@dataclass
class Thresholds:
    """Largest allowed increase of each total, in percent (None: not checked), ``fail_on_new``, and
    ``allow_uncosted`` (True: an op whose cost became unknown is not a regression).

    ``sources`` says where each came from: ``command line``, the config file's path, or ``default``.
    """

    latency: float | None = DEFAULTS["latency"]
    l1: float | None = DEFAULTS["l1"]
    cb: float | None = DEFAULTS["cb"]
    dram: float | None = DEFAULTS["dram"]
    fail_on_new: str = DEFAULTS["fail_on_new"]
    allow_uncosted: bool = DEFAULTS["allow_uncosted"]
    sources: dict[str, str] = field(default_factory=dict)


def parse_percent(text: str, option: str, path: str = "<command line>", pos: SourcePos | None = None) -> float | None:
    """``'5'``, ``'5%'``, ``'2.5'`` -> float; ``'off'`` -> None.

    Raises:
        InputError: anything else, or a negative number.
    """
    t = str(text).strip().lower()
    if t in ("off", "none", "false"):
        return None
    try:
        value = float(t[:-1] if t.endswith("%") else t)
    except ValueError:
        raise InputError(f"{option}: expected a percentage (e.g. 5 or 5%) or 'off', got '{text}'", path, pos) from None
    if not math.isfinite(value) or value < 0:
        raise InputError(f"{option}: expected a percentage >= 0, got '{text}'", path, pos)
    return value


def find_config(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` in ``start`` or a directory above it."""
    start = start.resolve()
    for d in (start, *start.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _key_pos(text: str, key: str) -> SourcePos | None:
    """Line of ``key = ...`` after the ``[tool.ttanalyze.diff]`` header (for error messages)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().replace(" ", "") == CONFIG_TABLE), None)
    for i in range(start + 1 if start is not None else 0, len(lines)):
        m = re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", lines[i])
        if m:
            return SourcePos(i + 1, len(lines[i]) - len(lines[i].lstrip()) + 1)
        if start is not None and lines[i].lstrip().startswith("["):
            break
    return None


def read_config(path: Path, required: bool = False) -> dict[str, Any]:
    """The ``[tool.ttanalyze.diff]`` table of a TOML file, validated, as Thresholds attribute -> value.

    Args:
        path: the TOML file.
        required: the file was named on the command line: a missing table is an error.

    Raises:
        InputError: unreadable file, TOML syntax error (with its line and column), missing table (when
            ``required``), unknown key or bad value.
    """
    p = str(path)
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InputError(f"cannot read config: {exc.strerror or exc}", p) from None
    if tomllib is None:
        if "[tool.ttanalyze" in text or required:
            raise InputError("reading thresholds from TOML needs Python 3.11 (tomllib) or the tomli package", p)
        return {}
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc)) or "invalid TOML"
        pos = SourcePos(int(m[1]), int(m[2])) if m else None
        raise InputError(f"invalid TOML: {msg}", p, pos) from None
    table: Any = doc
    dotted = []
    for name in ("tool", "ttanalyze", "diff"):
        dotted.append(name)
        table = table.get(name)
        if table is None:
            break
        if not isinstance(table, dict):
            raise InputError(f"'{'.'.join(dotted)}' must be a table (holding {CONFIG_TABLE}), not "
                             f"{type(table).__name__} {table!r}", p, _key_pos(text, name))
    if table is None:
        if required:
            raise InputError(f"no {CONFIG_TABLE} table", p)
        return {}
    out: dict[str, Any] = {}
    for key, value in table.items():
        norm = key.replace("_", "-")
        pos = _key_pos(text, key)
        if norm == "fail-on-new":
            if not isinstance(value, str) or value not in FAIL_ON_NEW:
                raise InputError(f"{key}: expected one of {', '.join(FAIL_ON_NEW)}, got {value!r}", p, pos)
            out["fail_on_new"] = value
        elif norm == ALLOW_UNCOSTED_KEY:
            if not isinstance(value, bool):
                raise InputError(f"{key}: expected true or false, got {value!r}", p, pos)
            out["allow_uncosted"] = value
        elif norm in THRESHOLD_KEYS:
            if value is False:
                out[THRESHOLD_KEYS[norm][0]] = None
            elif isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise InputError(f"{key}: expected a percentage (e.g. 5) or false, got {value!r}", p, pos)
            else:
                out[THRESHOLD_KEYS[norm][0]] = parse_percent(str(value), key, p, pos)
        else:
            known = ", ".join([*THRESHOLD_KEYS, "fail-on-new", ALLOW_UNCOSTED_KEY])
            raise InputError(f"unknown key '{key}' in {CONFIG_TABLE} (known: {known})", p, pos)
    return out


def resolve_thresholds(cli: dict[str, Any], config: Path | None = None, cwd: Path | None = None) -> Thresholds:
    """Thresholds from the command line, else the config file, else :data:`DEFAULTS`, per threshold.

    Args:
        cli: Thresholds attribute -> value for the options given (None: ``off``); absent when not given.
        config: ``--config PATH`` (its table must exist), else the nearest pyproject.toml from ``cwd``
            (default: the current directory) is read when there is one.

    Raises:
        InputError: see :func:`read_config`.
    """
    path = config if config is not None else find_config(cwd or Path.cwd())
    from_file = read_config(path, required=config is not None) if path is not None else {}
    t = Thresholds()
    for attr in ("latency", "l1", "cb", "dram", "fail_on_new", "allow_uncosted"):
        if attr in cli:
            setattr(t, attr, cli[attr])
            t.sources[attr] = "command line"
        elif attr in from_file:
            setattr(t, attr, from_file[attr])
            t.sources[attr] = str(path)
        else:
            t.sources[attr] = "default"
    return t


# ---------------------------------------------------------------------------
# The diff
# ---------------------------------------------------------------------------


@dataclass
class OpChange:
    """One op match with its metrics before and after (None where a side is missing or the value unknown)."""

    match: OpMatch
    before: dict[str, float | None]
    after: dict[str, float | None]
    changed_attrs: list[str] = field(default_factory=list)
    types_changed: bool = False

    def delta(self, metric: str) -> float | None:
        """After minus before, in the metric's unit (bytes per core, bytes, ns); None when a side lacks it."""
        b, a = self.before.get(metric), self.after.get(metric)
        return None if b is None or a is None else a - b

    @property
    def changed(self) -> bool:
        """Added, removed, or a metric, an attribute or a type (layouts included) differs."""
        if self.match.before is None or self.match.after is None:
            return True
        return (any(self.before[m] != self.after[m] for m in METRICS) or bool(self.changed_attrs)
                or self.types_changed)


@dataclass
class Regression:
    """One violated threshold: ``what`` (a total, ``new findings`` or ``uncosted op``), its option, the limit
    and the numbers (for ``uncosted op``: the op's line before, None when added, and after)."""

    what: str
    option: str
    limit: Any
    before: Any
    after: Any
    message: str


@dataclass
class ProgramDiff:
    """The result of :func:`diff`: both sides, every op match and finding change, the totals (bytes, bytes per
    core, ns; see the module docstring), the thresholds and the regressions they found.

    ``uncosted``: the ops whose cost became unknown (a matched op costed before only, or an added op the cost
    model does not know), left out of the DRAM and latency totals of both sides.
    """

    before: Side
    after: Side
    ops: list[OpChange]
    findings: list[FindingChange]
    totals_before: dict[str, Any]
    totals_after: dict[str, Any]
    thresholds: Thresholds
    regressions: list[Regression]
    uncosted: list[OpChange] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Number of op matches by how they matched (``location``, ``signature``, ``position``, ``added``,
        ``removed``), in ops."""
        out = {"location": 0, "signature": 0, "position": 0, "added": 0, "removed": 0}
        for c in self.ops:
            out[c.match.how] += 1
        return out


def _types_text(op: Op) -> tuple:
    return tuple(v.type.encoding_text if isinstance(v.type, TensorType) else str(v.type)
                 for v in (*op.operands, *op.results)), signature(op)


def increase_pct(before: float, after: float) -> float:
    """Growth in percent of ``before``; from 0 to more is ``inf``, 0 to 0 is 0."""
    if before == 0:
        return math.inf if after > 0 else 0.0
    return (after - before) / abs(before) * 100.0


def _fmt_total(key: str, v: float) -> str:
    return f"{v / 1000:,.2f} us" if key == "latency_ns" else f"{round(v):,} B"


def regressions(tb: dict[str, Any], ta: dict[str, Any], findings: list[FindingChange], t: Thresholds,
                uncosted: list[OpChange] = ()) -> list[Regression]:
    """The thresholds the change violates (module docstring); ``uncosted``: :func:`compared_ops`."""
    out = []
    labels = {"latency_ns": "predicted latency", "peak_l1_per_core": "peak L1 per core",
              "max_cb_per_core": "max CB per core", "dram_bytes": "DRAM traffic"}
    for attr, total, option in THRESHOLD_KEYS.values():
        limit = getattr(t, attr)
        if limit is None:
            continue
        b, a = tb[total], ta[total]
        pct = increase_pct(b, a)
        if pct > limit:
            grow = "from 0" if math.isinf(pct) else f"+{pct:.1f}%"
            out.append(Regression(total, option, limit, b, a,
                                  f"{labels[total]}: {_fmt_total(total, b)} -> {_fmt_total(total, a)} ({grow}) "
                                  f"exceeds {option} {limit:g}%"))
    if t.fail_on_new != "never":
        rank = severity_rank(t.fail_on_new)
        bad = [c for c in findings if (c.status == "new" or c.severity_rose) and severity_rank(c.finding.severity) >= rank]
        if bad:
            by_sev = {s: sum(1 for c in bad if c.finding.severity == s) for s in reversed(SEVERITIES)}
            what = ", ".join(f"{n} {s}" for s, n in by_sev.items() if n)
            out.append(Regression("new findings", "--fail-on-new", t.fail_on_new, 0, len(bad),
                                  f"new findings at or above {t.fail_on_new}: {what} "
                                  f"({', '.join(sorted({c.finding.rule for c in bad}))}) exceeds --fail-on-new "
                                  f"{t.fail_on_new}"))
    if not t.allow_uncosted and (t.latency is not None or t.dram is not None):
        for c in uncosted:
            a, b = c.match.after, c.match.before
            if b is not None:
                why = (f"op {a.name} at line {a.pos.line} is no longer costed (it was at line {b.pos.line} before "
                       "the pass): its latency and DRAM bytes are left out of both totals")
            else:
                why = (f"op {a.name} at line {a.pos.line} (added) is not costed: its latency and DRAM bytes are not "
                       "in the after totals")
            out.append(Regression("uncosted op", ALLOW_UNCOSTED_KEY, False, b.pos.line if b else None, a.pos.line,
                                  f"{why} (allow with {ALLOW_UNCOSTED_KEY} = true in {CONFIG_TABLE})"))
    return out


def compared_ops(ops: list[OpChange]) -> tuple[set[int], set[int], list[OpChange]]:
    """The ops whose DRAM bytes and latency the totals sum (module docstring), as op indices before and after,
    and the ops whose cost became unknown (matched and costed before only, or added and not costed)."""
    before: set[int] = set()
    after: set[int] = set()
    uncosted: list[OpChange] = []
    for c in ops:
        b, a = c.match.before, c.match.after
        known_b, known_a = c.before.get("ns") is not None, c.after.get("ns") is not None
        if b is not None and a is not None:
            if known_b and known_a:
                before.add(b.index)
                after.add(a.index)
            elif known_b:
                uncosted.append(c)
        elif a is not None:
            if known_a:
                after.add(a.index)
            else:
                uncosted.append(c)
        elif b is not None and known_b:
            before.add(b.index)
    return before, after, uncosted


def diff(before: Side, after: Side, thresholds: Thresholds | None = None) -> ProgramDiff:
    """Match the two programs' ops and findings, compare metrics and totals, check ``thresholds``."""
    thresholds = thresholds or Thresholds()
    matches = match_ops(before.analysis.program.ops, after.analysis.program.ops)
    empty = dict.fromkeys(METRICS)
    ops = []
    for m in matches:
        mb = before.metrics[m.before.index] if m.before is not None else empty
        ma = after.metrics[m.after.index] if m.after is not None else empty
        attrs: list[str] = []
        types = False
        if m.before is not None and m.after is not None:
            rb, ra = m.before.raw_attrs, m.after.raw_attrs
            attrs = sorted(k for k in set(rb) | set(ra) if rb.get(k) != ra.get(k))
            types = _types_text(m.before) != _types_text(m.after)
        ops.append(OpChange(m, dict(mb), dict(ma), attrs, types))
    fchanges = match_findings(before.findings, after.findings, matches)
    costed_b, costed_a, uncosted = compared_ops(ops)
    tb, ta = totals(before, costed_b), totals(after, costed_a)
    return ProgramDiff(before, after, ops, fchanges, tb, ta, thresholds,
                       regressions(tb, ta, fchanges, thresholds, uncosted), uncosted)


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------


def _metric_pair(c: OpChange, metric: str) -> dict[str, Any]:
    return {"before": c.before.get(metric), "after": c.after.get(metric), "delta": c.delta(metric)}


def diff_record(d: ProgramDiff) -> dict[str, Any]:
    """The JSON document of ``ttanalyze diff --format json`` (schema ``ttanalyze.diff/1``)."""
    from . import __version__
    from .report.records import finding_record

    def total_rec(key):
        b, a = d.totals_before[key], d.totals_after[key]
        pct = increase_pct(b, a)
        return {"before": b, "after": a, "delta": a - b, "pct": None if math.isinf(pct) else round(pct, 3)}

    t = d.thresholds
    return {
        "schema": SCHEMA,
        "tool": {"name": "ttanalyze", "version": __version__},
        "before": {"path": d.before.path, "ops": d.totals_before["ops"]},
        "after": {"path": d.after.path, "ops": d.totals_after["ops"]},
        "matching": d.counts(),
        "ops": [{"before": _op_ref(c.match.before) if c.match.before else None,
                 "after": _op_ref(c.match.after) if c.match.after else None,
                 "match": c.match.how, "changed": c.changed,
                 "changed_attrs": c.changed_attrs, "types_changed": c.types_changed,
                 **{m: _metric_pair(c, m) for m in METRICS}} for c in d.ops],
        "findings": [{"status": c.status, "rule": c.finding.rule, "severity": c.finding.severity,
                      "before": finding_record(c.before) if c.before else None,
                      "after": finding_record(c.after) if c.after else None} for c in d.findings],
        "totals": {**{k: total_rec(k) for k in TOTALS},
                   "uncosted_ops": {"before": d.totals_before["uncosted_ops"], "after": d.totals_after["uncosted_ops"]},
                   "newly_uncosted": [{"before": _op_ref(c.match.before) if c.match.before else None,
                                       "after": _op_ref(c.match.after)} for c in d.uncosted],
                   "findings": {"before": d.totals_before["findings"], "after": d.totals_after["findings"]},
                   "peak_l1_op": {"before": d.totals_before["peak_l1_op"], "after": d.totals_after["peak_l1_op"]},
                   "max_cb_op": {"before": d.totals_before["max_cb_op"], "after": d.totals_after["max_cb_op"]}},
        "thresholds": {"max_latency_increase_pct": t.latency, "max_l1_increase_pct": t.l1,
                       "max_cb_increase_pct": t.cb, "max_dram_increase_pct": t.dram, "fail_on_new": t.fail_on_new,
                       "allow_uncosted": t.allow_uncosted, "sources": t.sources},
        "regressions": [{"what": r.what, "option": r.option, "limit": r.limit, "before": r.before, "after": r.after,
                         "message": r.message} for r in d.regressions],
    }


def _num(v: float | None, key: str) -> str:
    if v is None:
        return "?"
    return f"{v / 1000:,.2f}" if key == "ns" else f"{round(v):,}"


def _cell(c: OpChange, key: str) -> str:
    b, a = c.before.get(key), c.after.get(key)
    if c.match.before is None:
        return _num(a, key)
    if c.match.after is None:
        return _num(b, key)
    if b == a:
        return _num(a, key)
    d = c.delta(key)
    sign = "" if d is None else ("+" if d > 0 else "-")
    return f"{_num(b, key)} -> {_num(a, key)}" + ("" if d is None else f" ({sign}{_num(abs(d), key)})")


def _where(op: Op | None) -> str:
    return str(op.pos.line) if op is not None else "-"


def diff_text(d: ProgramDiff, console) -> None:
    """Print the human report: matching summary, changed ops, findings, totals, regressions."""
    from rich.table import Table

    def out(s: str = "") -> None:
        console.print(s, highlight=False, markup=False, soft_wrap=True)

    counts = d.counts()
    out(f"{d.before.path} -> {d.after.path}")
    out(f"ops: {d.totals_before['ops']} -> {d.totals_after['ops']}; matched "
        f"{counts['location']} by location, {counts['signature']} by signature, {counts['position']} by position; "
        f"{counts['added']} added, {counts['removed']} removed (deallocations left out)")
    changed = [c for c in d.ops if c.changed]
    if changed:
        table = Table(title=f"{len(changed)} ops changed (L1 and CB: bytes per core; latency: us; "
                            f"location without its jit(...)/ prefix)")
        for col in ("line", "op", "location", "match", "L1/core", "CB/core", "DRAM bytes", "us", "attrs/types"):
            table.add_column(col, justify="right" if col in ("L1/core", "CB/core", "DRAM bytes", "us") else "left")
        for c in changed:
            op = c.match.after or c.match.before
            what = ", ".join(c.changed_attrs + (["types"] if c.types_changed else []))
            table.add_row(f"{_where(c.match.before)} -> {_where(c.match.after)}", op.name, location_key(op), c.match.how,
                          *(_cell(c, m) for m in METRICS), what)
        console.print(table)
    else:
        out("no op changed")

    n = {s: sum(1 for c in d.findings if c.status == s) for s in ("new", "gone", "persists")}
    out(f"findings: {n['new']} new, {n['gone']} gone, {n['persists']} persist")
    for c in d.findings:
        if c.status == "new":
            head = "new:  "
        elif c.status == "gone":
            head = "gone: "
        elif c.severity_rose:
            head = f"severity {c.before.severity} -> {c.after.severity}: "  # type: ignore[union-attr]
        else:
            continue
        first, *notes = c.finding.format().splitlines()
        out(f"  {head}{first}")
        for note in notes:
            out(f"        {note}")

    table = Table(title="totals")
    for col in ("", "before", "after", "change"):
        table.add_column(col, justify="left" if not col else "right")
    labels = {"peak_l1_per_core": "peak L1 per core (B)", "max_cb_per_core": "max CB per core (B)",
              "dram_bytes": "DRAM traffic (B)", "latency_ns": "predicted latency (us)"}
    for key in TOTALS:
        b, a = d.totals_before[key], d.totals_after[key]
        k = "ns" if key == "latency_ns" else key
        pct = increase_pct(b, a)
        change = ("0" if a == b else f"{'+' if a > b else '-'}{_num(abs(a - b), k)}"
                  + ("" if math.isinf(pct) else f" ({pct:+.1f}%)"))
        table.add_row(labels[key], _num(b, k), _num(a, k), change)
    fb, fa = d.totals_before["findings"], d.totals_after["findings"]
    table.add_row("findings error/warning/info", "/".join(str(v) for v in fb.values()),
                  "/".join(str(v) for v in fa.values()), "")
    table.add_row("ops the cost model does not know", str(d.totals_before["uncosted_ops"]),
                  str(d.totals_after["uncosted_ops"]), "")
    console.print(table)
    if d.totals_before["uncosted_ops"] or d.totals_after["uncosted_ops"]:
        out("note: the DRAM and latency totals sum the same ops on both sides: the matched ops costed on both, "
            "the added and removed ops costed on theirs")
    for c in d.uncosted:
        a = c.match.after
        out(f"note: {a.name} at line {a.pos.line} "
            + ("is no longer costed" if c.match.before is not None else "(added) is not costed"))

    t = d.thresholds
    lim = ", ".join(f"{opt} {'off' if getattr(t, attr) is None else format(getattr(t, attr), 'g') + '%'}"
                    for attr, _, opt in THRESHOLD_KEYS.values())
    srcs = sorted(set(t.sources.values()))
    out(f"thresholds: {lim}, --fail-on-new {t.fail_on_new}, {ALLOW_UNCOSTED_KEY} "
        f"{'true' if t.allow_uncosted else 'false'} (from {', '.join(srcs) or 'default'})")
    if d.regressions:
        out(f"{len(d.regressions)} regression{'s' if len(d.regressions) > 1 else ''}:")
        for r in d.regressions:
            out(f"  {r.message}")
    else:
        out("no regression")
