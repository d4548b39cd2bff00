"""Reports of fix suggestions: text lines under a finding, JSON records, and the ``ttanalyze fix`` summary.

Effects are the analyzer's figures of the rewritten program next to the
original's (:class:`ttanalyze.fixes.model.Effect`): bytes per core for CBs and
L1, tiles, DRAM bytes, ns.
"""

from __future__ import annotations

from typing import Any

from ..findings import Finding
from ..fixes.model import Fix


def fix_record(fx: Fix) -> dict[str, Any]:
    """The JSON record of one evaluated fix."""
    e = fx.effect
    return {
        "id": fx.id, "rank": fx.rank, "title": fx.title, "rationale": fx.rationale, "numerics": fx.numerics,
        "applicable": fx.applicable,
        "effect": None if e is None else {"finding_gone": e.finding_gone, "new_errors": e.new_errors,
                                          "regressions": e.regressions, "regressions_block": e.regressions_block,
                                          "before": e.before, "after": e.after, "summary": e.summary()},
        "details": fx.details,
    }


def fix_lines(finding: Finding, fixes: list[Fix]) -> list[str]:
    """``file:line:col: note: fix 1 [reshape/before-tilize]: title: effect`` lines under ``finding``, ranked;
    why a fix does not apply."""
    out = []
    for fx in fixes:
        e = fx.effect
        if fx.applicable:
            verdict = e.summary() + (f" (costs: {'; '.join(e.regressions)})" if e.regressions else "")
        elif e is None and fx.rewrite is not None:
            verdict = "not evaluated (`ttanalyze fix --op LINE` evaluates and applies it)"
        elif e is None:
            verdict = "advice only"
        elif e.new_errors:
            verdict = "not applicable: " + "; ".join(e.new_errors[:2])
        elif fx.removes_finding:
            verdict = (f"not applied, it makes the program worse: {'; '.join(e.regressions)} "
                       f"(`ttanalyze fix --allow-regressions` applies it): {e.summary()}")
        else:
            verdict = "not applicable: the finding stays"
        numerics = "" if fx.numerics in ("exact", "-") else f" (numerics: {fx.numerics})"
        if fx.rewrite is None:
            out.append(f"{finding.path}:{finding.pos.line}:{finding.pos.col}: note: fix {fx.rank} [{fx.id}]: "
                       f"{fx.title}")
            continue
        out.append(f"{finding.path}:{finding.pos.line}:{finding.pos.col}: note: fix {fx.rank} [{fx.id}]: {fx.title}: "
                   f"{verdict}{numerics}")
    return out
