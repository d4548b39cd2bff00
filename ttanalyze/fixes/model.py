"""Fix suggestions: what a fix changes, and its effect measured by analyzing the rewritten IR.

A fix is a rewrite of the user's file (:class:`ttanalyze.ir.rewrite.Rewriter`).
Its predicted effect is not estimated separately: the rewritten file is parsed
and analyzed by the same models as the original, and the numbers that changed
are reported (per-core CB bytes and L1 peak of the op, padded volume, DRAM
traffic and predicted latency where the cost model knows the ops, and whether
the finding is gone).  A fix is *applicable* when the rewritten program no
longer raises the finding and adds no error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..analysis import Analysis, analyze
from ..errors import InputError
from ..findings import Finding
from ..ir.parse import parse_text
from ..ir.rewrite import Rewriter, RewriteError
from ..rules import run

Rewrite = Callable[[Rewriter], None]


@dataclass
class Effect:
    """Numbers before and after a fix (bytes per core, bytes, tiles, ns); None where not known.

    ``finding_gone``: the rewritten program does not raise the finding (same rule
    at the rewritten op's line); ``new_errors``: error findings it raises that
    the original did not (``rule line: message``).
    """

    finding_gone: bool
    new_errors: list[str] = field(default_factory=list)
    before: dict[str, float | None] = field(default_factory=dict)
    after: dict[str, float | None] = field(default_factory=dict)
    regressions: list[str] = field(default_factory=list)
    regressions_block: bool = True

    def summary(self) -> str:
        """``cb_per_core 9,924,608 -> 78,848 B; latency 412.3 -> 95.1 us...``; a figure known on one side only
        says so (``latency_ns 95,100 ns -> unknown``)."""
        parts = []
        for key, unit in (("cb_per_core", "B"), ("l1_peak_per_core", "B"), ("padded_tiles", "tiles"),
                          ("dram_bytes", "B"), ("latency_ns", "ns")):
            b, a = self.before.get(key), self.after.get(key)
            if b == a:
                continue
            parts.append(f"{key} {_figure(b, unit)} -> {_figure(a, unit)}")
        return "; ".join(parts) or "no change in the modeled figures"


def _figure(v: float | None, unit: str) -> str:
    return "unknown" if v is None else f"{v:,.0f} {unit}"


@dataclass
class Fix:
    """One suggested fix of one finding.

    Attributes:
        id: stable name (``TTA002/untilize-reshape-tilize``).
        title: one line saying what it does.
        rationale: why it helps, with the tt-metal behaviour behind it.
        numerics: ``exact`` (pure data movement: identical values) or what
            changes in the values (``bf16 rounding of ...``, ``zero instead of
            replicated edge``).
        rewrite: edits the file (None for advice that is not a rewrite).
        effect: filled by :func:`evaluate`.
        rank: order among the finding's fixes (1 = best), by effect.
    """

    id: str
    title: str
    rationale: str
    numerics: str = "exact"
    rewrite: Rewrite | None = None
    effect: Effect | None = None
    rank: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def removes_finding(self) -> bool:
        """The rewrite removes its finding and adds no error (whatever it costs)."""
        return self.rewrite is not None and self.effect is not None and self.effect.finding_gone \
            and not self.effect.new_errors

    @property
    def applicable(self) -> bool:
        """:attr:`removes_finding` and makes no figure worse (:func:`regressions`), or fixes an error."""
        return self.removes_finding and not (self.effect.regressions and self.effect.regressions_block)


def figures(a: Analysis) -> dict[str, float | None]:
    """The program-level figures a fix is judged on.

    ``cb_per_core``: the largest CB region of any op (bytes per core);
    ``l1_peak_per_core``: live L1 tensors plus CBs at the worst op;
    ``padded_tiles``: tiles of every tensor result (padding included);
    ``dram_bytes``/``latency_ns``: the cost model's totals (None when an op's
    cost is unknown).
    """
    from ..cost.ir import program_cost

    peak = a.memory.peak_l1
    cbs = max((p.program.per_core_bytes() for p in a.programs.values() if p.program is not None), default=0)
    tiles = sum(i.physical_tiles for i in a.infos.values() if i.tile)
    out: dict[str, float | None] = {"cb_per_core": float(cbs),
                                    "l1_peak_per_core": float(peak.l1_total_per_core) if peak else 0.0,
                                    "padded_tiles": float(tiles)}
    try:
        pc = program_cost(a)
    except (ValueError, KeyError):
        out["dram_bytes"] = out["latency_ns"] = None
        return out
    known = not pc.unknown
    out["dram_bytes"] = sum(c.dram_bytes for c in pc.ops) if known else None
    out["latency_ns"] = pc.total_ns if known else None
    return out


def apply_rewrites(source: str, a: Analysis, rewrites: list[Rewrite]) -> str:
    """The file with ``rewrites`` applied (one :class:`Rewriter` for all, so they compose).

    Raises:
        RewriteError: a rewrite cannot be made or its result does not parse.
    """
    rw = Rewriter(source, a.program)
    for rewrite in rewrites:
        rewrite(rw)
    return rw.text()


def reanalyze(text: str, a: Analysis) -> tuple[Analysis, list[Finding]]:
    """Parse and analyze rewritten text with the original's settings (its arch too, for a file without a
    system_desc)."""
    b = analyze(parse_text(text, a.program.path), a.arch.name, a.arch.l1_small_size, a.tt_metal)
    return b, run(b)


def evaluate(fix: Fix, finding: Finding, source: str, a: Analysis, findings: list[Finding],
             before: dict[str, float | None] | None = None) -> Fix:
    """Fill ``fix.effect`` by rewriting ``source`` and analyzing the result (see module docstring)."""
    if fix.rewrite is None:
        return fix
    before = before if before is not None else figures(a)
    try:
        text = apply_rewrites(source, a, [fix.rewrite])
        b, after_findings = reanalyze(text, a)
    except (RewriteError, InputError, ValueError) as exc:  # ValueError: the IR emitter cannot write the new type
        fix.effect = Effect(False, [f"the rewrite failed: {exc}"], before, {})
        return fix
    old_errors = {(f.rule, f.message) for f in findings if f.severity == "error"}
    same_rule = [f for f in after_findings if f.rule == finding.rule and f.severity == finding.severity
                 and _same_site(f, finding, a, source, b, text)]
    new_errors = [f"{f.rule} at line {f.pos.line} of the rewritten IR: {f.message}" for f in after_findings
                  if f.severity == "error" and (f.rule, f.message) not in old_errors and f not in same_rule]
    new_errors += use_after_deallocate(b, text)
    fix.effect = Effect(not same_rule, new_errors, before, figures(b), regressions(a, findings, b, after_findings),
                        regressions_block=finding.severity != "error")
    return fix


# A fix may not make the program worse by the totals `ttanalyze diff` compares (diff.totals: the predicted
# latency and DRAM traffic of the ops costed on both sides, the peak L1 per core), nor leave an op uncosted
# that was costed: the thresholds are 0%.  An error's fix is exempt (the original does not run at all: its
# figures are no baseline), but its costs are listed.
NO_REGRESSION = {"latency": 0.0, "l1": 0.0, "cb": None, "dram": 0.0, "fail_on_new": "never", "allow_uncosted": False}


def regressions(a: Analysis, findings: list[Finding], b: Analysis, after_findings: list[Finding]) -> list[str]:
    """What the rewritten program ``b`` makes worse than ``a``, by :func:`ttanalyze.diff.diff` with 0% thresholds
    (:data:`NO_REGRESSION`): ``predicted latency: 12.10 us -> 59.30 us (+390.1%)...`` messages."""
    from .. import diff as diff_mod

    try:
        d = diff_mod.diff(diff_mod.side(a, findings), diff_mod.side(b, after_findings),
                          diff_mod.Thresholds(**NO_REGRESSION))
    except (ValueError, KeyError) as exc:  # the cost model cannot read a program: its cost is unknown
        return [f"its cost cannot be compared ({exc})"]
    return [r.message.split(" exceeds ")[0].split(" (allow with")[0] for r in d.regressions]


def use_after_deallocate(a: Analysis, text: str | None = None) -> list[str]:
    """``line L: %x used after its ttnn.deallocate at line D`` for every such use in ``a``'s program.

    A rewrite that reorders ops can leave a read after the value's
    deallocate; tt-metal would read a freed buffer (the reference interpreter
    refuses it too).  With the program's ``text``, values are named as the file spells them."""
    rw = Rewriter(text, a.program) if text is not None else None
    out = []
    for op in a.program.ops:
        if op.name != "ttnn.deallocate" or not op.operands:
            continue
        v = op.operands[0]
        for u in v.users:
            if u.name != "ttnn.deallocate" and u.func is op.func and u.index > op.index:
                out.append(f"line {u.pos.line} of the rewritten IR: {u.name} reads {rw.name(v) if rw else v.name} after its "
                           f"ttnn.deallocate at line {op.pos.line}")
    return out


def site_names(f: Finding, rw: Rewriter) -> set[str]:
    """The values the op of ``f`` defines, named as ``rw``'s file spells them (empty for a finding without
    an op).  A finding keeps its site across rewrites by these names: rewrites keep the names of the values
    they replace, while the parser's names are renumbered."""
    if f.op_index is None:
        return set()
    return {rw.name(r) for r in rw.program.ops[f.op_index].results}


def _same_site(f: Finding, original: Finding, a: Analysis, source: str, b: Analysis, text: str) -> bool:
    """Whether ``f`` (raised on the rewritten program ``b``) is ``original`` again: the same op by
    :func:`site_names`, or, for findings without an op, the same line."""
    if f.op_index is None or original.op_index is None:
        return f.pos.line == original.pos.line
    return bool(site_names(original, Rewriter(source, a.program)) & site_names(f, Rewriter(text, b.program)))


def rank(fixes: list[Fix]) -> list[Fix]:
    """Applicable fixes first, then those that remove the finding at a cost (:func:`regressions`), then
    rewrites that do not apply, then advice; within each, exact before those that change rounding, fewest
    regressions, then by measured benefit: lowest predicted latency, DRAM bytes, L1 peak and CB bytes per
    core after the fix (the before figures are the same for every fix of a finding); numbered from 1."""
    def key(fx: Fix) -> tuple:
        after = fx.effect.after if fx.effect else {}
        return (not fx.applicable, not fx.removes_finding, fx.rewrite is None, fx.numerics != "exact",
                len(fx.effect.regressions) if fx.effect else 0,
                after.get("latency_ns") if after.get("latency_ns") is not None else float("inf"),
                after.get("dram_bytes") if after.get("dram_bytes") is not None else float("inf"),
                after.get("l1_peak_per_core") if after.get("l1_peak_per_core") is not None else float("inf"),
                after.get("cb_per_core") or float("inf"))
    ordered = sorted(fixes, key=key)
    for n, fx in enumerate(ordered, 1):
        fx.rank = n
    return ordered
