"""The held-out score of the op-level campaign: the records of one ``opdiff.py run --results FILE`` alone.

The committed campaign (``measurements/opdiff/results.jsonl.gz``) was measured while the models were written, so
its exact rate over-states how they do on draws nobody has seen.  A runs file of fresh ids (a higher ``--base``:
ids the committed results lack, drawn by the same generators) is such a held-out set.  Each of its records carries
the verdict of the model that measured it (``as measured``: the model had never seen the draw); this module also
scores the same device records by the current model (``now``: after the fixes the draws led to, no longer held
out) and prints both, per family and per op, with the current mismatch classes and their causes
(``measurements/opdiff/causes.yaml``).

Usage::

    .venv/bin/python benchmarks/opdiff.py report --results-only measurements/opdiff/runs/fresh.jsonl.gz [--write]

``--write`` rewrites the part of docs/accuracy.md between ``<!-- opdiff-heldout:begin -->`` and
``<!-- opdiff-heldout:end -->`` (placed after the campaign's generated section when absent).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks.opdiff import ROOT, load_results, rescore_records
from benchmarks.opdiff_report import END as CAMPAIGN_END, causes, cause_of, counted, mismatch_class, write_doc

BEGIN, END = "<!-- opdiff-heldout:begin -->", "<!-- opdiff-heldout:end -->"


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def _esc(s: str) -> str:
    return s.replace("|", "/").replace("\n", " ")


def section(path: Path, raw: list[dict], now: list[dict], minutes: float) -> str:
    """The held-out section (markdown, between the markers) for the records ``raw`` of ``path`` as measured and
    ``now`` (the same records rescored by the current model, in the same order)."""
    pairs = [(r, n) for r, n in zip(raw, now) if counted(r)]
    rel = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
    cmd = f".venv/bin/python benchmarks/opdiff.py report --results-only {rel} --write"
    fam: dict[str, Counter] = defaultdict(Counter)
    per_op: dict[str, Counter] = defaultdict(Counter)
    for r, n in pairs:
        for c in (fam[r["family"]], fam["**all**"], per_op[r["op"]]):
            c["n"] += 1
            c["then"] += bool(r.get("exact"))
            c["now"] += bool(n.get("exact"))
            c["refused"] += n["outcome"] == "both_refused"
    lines = [BEGIN, "## Held-out draws: fresh instances the models were not written on", "",
             f"Scored with `{cmd}` ({minutes:.1f} min): the {len(pairs):,} instances of `{rel}` alone, fresh ids of "
             "the campaign's generators (`opdiff.py run --base 200 --results` skips the ids the committed results "
             f"hold) over {len(per_op)} ops, measured like the campaign. "
             "*As measured*: each record's verdict by the model of the commit that measured it, which had never "
             "seen the draw (the held-out estimate). *Now*: the same device records scored by the current model, "
             "after the fixes these draws led to (no longer held out). "
             f"{sum(r['outcome'] == 'invalid' for r in raw)} draws whose operands tt-metal could not allocate and "
             f"{sum(r['outcome'] == 'not_replayed' for r in raw)} the executor could not replay are not instances.", "",
             "| family | instances | exact as measured | exact now | both refuse (now) |", "|---|---|---|---|---|"]
    for name in sorted(fam, key=lambda k: (k == "**all**", k)):
        c = fam[name]
        lines.append(f"| {name} | {c['n']} | {c['then']} ({_pct(c['then'], c['n'])}) | {c['now']} "
                     f"({_pct(c['now'], c['n'])}) | {c['refused']} |")
    lines += ["", "<details><summary>Per op</summary>", "", "| op | instances | exact as measured | exact now |",
              "|---|---|---|---|"]
    for op in sorted(per_op):
        c = per_op[op]
        lines.append(f"| `{op}` | {c['n']} | {c['then']} ({_pct(c['then'], c['n'])}) | {c['now']} "
                     f"({_pct(c['now'], c['n'])}) |")
    lines += ["", "</details>", ""]
    groups: dict[str, list[tuple[dict, dict]]] = defaultdict(list)
    for r, n in pairs:
        if not n.get("exact"):
            groups[mismatch_class(n)].append((r, n))
    lines += ["Mismatch classes of the held-out draws under the current model:", ""]
    if not groups:
        lines.append("None: every held-out instance is exact.")
    else:
        lines += ["| class | instances | exact as measured | example | model | device | cause |",
                  "|---|---|---|---|---|---|---|"]
    table = causes()
    for cls, rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        r, n = rs[0]
        m, d = n.get("model", {}), n["device"]
        model = f"{m.get('status')} {m.get('peak', 0):,} B" + (f": {m.get('reason', '')[:90]}" if m.get("reason") else "")
        device = f"{d['peak']:,} B" if d["ok"] else f"error: {d['error'][:90]}"
        lines.append(f"| {_esc(cls)} | {len(rs)} | {sum(bool(x.get('exact')) for x, _ in rs)} | `{n['id']}` "
                     f"{_esc(n['key'][:60])} | {_esc(model)} | {_esc(device)} | "
                     f"{_esc(cause_of(cls, [x['id'] for _, x in rs], table))} |")
    lines.append(END)
    return "\n".join(lines)


def main(path: Path, write: bool = False) -> None:
    """Score ``path``'s records as measured and now; print the section, and write it into the doc when ``write``.

    Raises:
        SystemExit: ``path`` does not exist.
    """
    if not path.exists():
        raise SystemExit(f"{path}: no such runs file")
    t0 = time.monotonic()
    raw = list(load_results(path).values())
    now = rescore_records(raw)
    text = section(path, raw, now, (time.monotonic() - t0) / 60)
    print(text)
    if write:  # after the campaign's section when new
        write_doc(text, BEGIN, END, after=CAMPAIGN_END)
