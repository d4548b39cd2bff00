"""The fix catalog: which fixes each rule's findings get, evaluated and ranked.

A *builder* takes a finding and the analysis it came from and returns
candidate :class:`~ttanalyze.fixes.model.Fix` records (rewrites of the file);
builders register per rule id with :func:`builder`.  :func:`suggest` builds the
candidates of one finding, evaluates each by rewriting the file and analyzing
the result (:func:`ttanalyze.fixes.model.evaluate`), and ranks them.
:func:`fix_file` applies the best applicable fix of every selected finding,
one at a time (each fix is chosen on the program the previous ones produced,
so fixes never edit the same op twice), and returns the new text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..analysis import Analysis
from ..findings import Finding
from ..ir.rewrite import Rewriter
from .model import Fix, apply_rewrites, evaluate, figures, rank, reanalyze, site_names

Builder = Callable[[Finding, Analysis, list[Finding]], list[Fix]]
BUILDERS: dict[str, list[Builder]] = {}
MAX_ROUNDS = 32


def builder(*rules: str) -> Callable[[Builder], Builder]:
    """Register a fix builder for findings of ``rules`` (``TTA002``...)."""
    def wrap(fn: Builder) -> Builder:
        for r in rules:
            BUILDERS.setdefault(r, []).append(fn)
        return fn
    return wrap


def _load_builders() -> None:
    """Import the builder modules: each registers its builders on import."""
    from . import layout_fixes, matmul_fixes, memory_fixes, replicate_pad  # noqa: F401


def advice(finding: Finding) -> Fix | None:
    """The rule's own advice (``fix`` in ``rules/<id>.yaml``) as a fix without a rewrite, ranked last."""
    from ..rules import catalog

    meta = catalog().get(finding.rule)
    if meta is None or not meta.fix:
        return None
    return Fix(f"{finding.rule}/advice", " ".join(meta.fix.split()), f"rules/{finding.rule}.yaml", numerics="-")


def candidates(finding: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """Unevaluated fixes of ``finding``: every builder's rewrites of its rule, then the rule's advice."""
    _load_builders()
    out: list[Fix] = []
    for build in BUILDERS.get(finding.rule, []):
        out.extend(build(finding, a, findings))
    tip = advice(finding)
    if tip is not None:
        out.append(tip)
    return out


def suggest(finding: Finding, source: str, a: Analysis, findings: list[Finding],
            before: dict[str, float | None] | None = None) -> list[Fix]:
    """The fixes of ``finding``, each with its effect (figures before and after, finding gone, new errors),
    ranked (applicable and exact first, then lowest predicted latency, then fewest CB bytes)."""
    fixes = candidates(finding, a, findings)
    if not fixes:
        return []
    before = before if before is not None else figures(a)
    return rank([evaluate(fx, finding, source, a, findings, before) for fx in fixes])


def suggest_all(source: str, a: Analysis, findings: list[Finding], limit: int | None = None,
                evaluate_fixes: bool = True) -> dict[int, list[Fix]]:
    """Ranked fixes per finding (by index into ``findings``): rewrites evaluated, then the rule's advice.

    Each evaluation re-analyzes the whole rewritten program, so at most
    ``limit`` findings (errors first, then warnings, then infos, in file order)
    get their fixes evaluated; None evaluates all.  With ``evaluate_fixes``
    False the candidates are listed unevaluated (``effect`` None), in builder
    order.
    """
    from ..findings import severity_rank

    _load_builders()
    out: dict[int, list[Fix]] = {}
    before = None
    order = sorted((i for i, f in enumerate(findings) if f.rule in BUILDERS),
                   key=lambda i: (-severity_rank(findings[i].severity), i))
    evaluated = set(order[:limit] if limit is not None else order)
    for i, f in enumerate(findings):
        if evaluate_fixes and i in evaluated:
            if before is None:
                before = figures(a)
            fixes = suggest(f, source, a, findings, before)
        else:  # over the limit, or not evaluated: the candidates in builder order, the rule's advice last
            fixes = candidates(f, a, findings)
            for n, fx in enumerate(fixes, 1):
                fx.rank = n
        if fixes:
            out[i] = fixes
    return out


@dataclass
class Applied:
    """One fix applied by :func:`fix_file`: the finding (as the input file raised it, when it did) and the fix."""

    finding: Finding
    fix: Fix


@dataclass
class FixResult:
    """What :func:`fix_file` did: the new text, the fixes applied in order, the findings left unfixed."""

    text: str
    applied: list[Applied] = field(default_factory=list)
    unfixed: list[tuple[Finding, str]] = field(default_factory=list)
    analysis: Analysis | None = None
    findings: list[Finding] = field(default_factory=list)


def _original(f: Finding, cur: Analysis, cur_text: str, a: Analysis, source: str,
              findings: list[Finding]) -> Finding:
    """The finding of the input file that ``f`` (raised on a rewritten program) is: the same rule on the
    same site (:func:`~ttanalyze.fixes.model.site_names`); ``f`` when there is none."""
    if f.op_index is None or cur is a:
        return f
    names, rw = site_names(f, Rewriter(cur_text, cur.program)), Rewriter(source, a.program)
    return next((g for g in findings if g.rule == f.rule and names & site_names(g, rw)), f)


def _selected(f: Finding, rule: str | None) -> bool:
    return rule is None or f.rule == rule


def fix_file(source: str, a: Analysis, findings: list[Finding], rule: str | None = None,
             line: int | None = None, allow_regressions: bool = False) -> FixResult:
    """Apply the best applicable fix of each selected finding (``rule``, op ``line``), one at a time.

    A fix applies when it removes its finding, adds no error and makes no
    figure worse by the totals ``ttanalyze diff`` compares
    (:func:`~ttanalyze.fixes.model.regressions`; an error's fix is exempt);
    with ``allow_regressions`` a fix that removes its finding applies whatever
    it costs.  Fixes left out are listed in ``unfixed`` with why (their costs).

    After each fix the file is re-analyzed; the next finding is taken from the
    new program (a fix may remove others, or move lines).  ``line`` selects
    findings on the original file's line; findings of later rounds are matched
    to it by the value names the rewrite keeps (as the file spells them).  Stops when no selected finding
    has an applicable fix, or after ``MAX_ROUNDS`` fixes.
    """
    _load_builders()
    text, cur_a, cur_f = source, a, findings
    result = FixResult(source, analysis=a, findings=findings)
    names = None
    if line is not None:  # the sites of the findings on that line
        rw = Rewriter(source, a.program)
        names = set().union(*(site_names(f, rw) for f in findings if f.pos.line == line))
    tried: set[tuple[str, str, frozenset[str]]] = set()
    for _ in range(MAX_ROUNDS):
        chosen = None
        cur_rw = Rewriter(text, cur_a.program)
        for f in cur_f:
            if f.rule not in BUILDERS or not _selected(f, rule):
                continue
            op_names = site_names(f, cur_rw)
            if names is not None and not names & op_names:
                continue
            key = (f.rule, f.message, frozenset(op_names))
            if key in tried:
                continue
            tried.add(key)
            fixes = suggest(f, text, cur_a, cur_f)
            best = next((fx for fx in fixes if fx.applicable or (allow_regressions and fx.removes_finding)), None)
            if best is None:
                why = "; ".join(f"{fx.id}: {_why_not(fx)}" for fx in fixes if fx.effect) \
                    or "no fix known for this finding"
                result.unfixed.append((_original(f, cur_a, text, a, source, findings), why))
                continue
            chosen = (f, best)
            break
        if chosen is None:
            break
        f, best = chosen
        result.applied.append(Applied(_original(f, cur_a, text, a, source, findings), best))
        text = apply_rewrites(text, cur_a, [best.rewrite])
        cur_a, cur_f = reanalyze(text, cur_a)
    result.text, result.analysis, result.findings = text, cur_a, cur_f
    return result


def _why_not(fx: Fix) -> str:
    """Why ``fx`` was not applied: the errors it adds, what it makes worse (and its figures), or the finding stays."""
    e = fx.effect
    if e.new_errors:
        return ", ".join(e.new_errors)
    if fx.removes_finding:
        return f"it makes the program worse: {'; '.join(e.regressions)} ({e.summary()}; --allow-regressions applies it)"
    return "the finding stays"
