"""Cost model accuracy: the committed constants against the measured data in measurements/perf.

Scores ``ttanalyze/cost/constants.json`` on every timed row of each trace, on
the held-out split (``benchmarks/fit_cost.py``: signature hash, so identical
ops never straddle it) and on the training split, per op code, next to
tt-metal's own estimate ``PM IDEAL [ns]`` on the same rows; scores the sweeps'
held-out configurations; with ``--cv``, refits the constants five times
(grouped 5-fold CV by signature hash: every row predicted by constants that
never saw its signature).  Writes the section of docs/accuracy.md between
``<!-- cost:begin -->`` and ``<!-- cost:end -->`` (appended when absent) and
benchmarks/out/cost_accuracy.json.

Usage: .venv/bin/python benchmarks/cost_accuracy.py [--cv] [--no-write]
(``--cv`` needs the ``fit`` extra, scipy, and takes about 10 minutes.)
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import fit_cost as F  # noqa: E402
from ttanalyze.cost import constants as K  # noqa: E402
from ttanalyze.cost.accuracy import Compared, Score, score, summarize  # noqa: E402
from ttanalyze.cost.hardware import for_device  # noqa: E402
from ttanalyze.cost.model import UnknownDeviceOp, UnmodeledDeviceOp, predict  # noqa: E402
from ttanalyze.cost.profile import read_profile  # noqa: E402

DOC = ROOT / "docs" / "accuracy.md"
OUT_JSON = ROOT / "benchmarks" / "out" / "cost_accuracy.json"
BEGIN, END = "<!-- cost:begin -->", "<!-- cost:end -->"
TARGET_MEDIAN, TARGET_MAPE = 15.0, 25.0


def trace_rows(path: Path, c: K.Constants, cv: dict[str, float] | None = None, board: str | None = None) -> list[dict]:
    """Every timed row of a trace with its prediction (per signature), split, PM IDEAL and CV prediction.

    ``board``: the trace's board (default: ``fit_cost.TRACE_BOARDS`` by file name).
    """
    out = []
    cache: dict[str, float | None] = {}
    board = board or F.TRACE_BOARDS.get(F.source_name(path))
    for r in read_profile(path):
        if r.measured_ns is None:
            continue
        if r.signature not in cache:
            try:
                cache[r.signature] = predict(r.op, for_device(r.op.arch, r.op.grid_cores, board=board), c).ns
            except (UnknownDeviceOp, UnmodeledDeviceOp):
                cache[r.signature] = None
        out.append({"op_code": r.op.op_code, "signature": r.signature, "measured": r.measured_ns,
                    "predicted": cache[r.signature], "pm": r.pm_ideal_ns, "heldout": F.is_heldout(r.signature),
                    "cv": (cv or {}).get(r.signature)})
    return out


def _score(rows: list[dict], key: str = "predicted") -> Score | None:
    return score((r[key], r["measured"]) for r in rows if r[key] is not None)


def _pm(rows: list[dict]) -> Score | None:
    return score((r["pm"], r["measured"]) for r in rows if r["pm"] is not None)


def cross_validate(samples: list[F.Sample], folds: int = 5) -> dict[str, float]:
    """Grouped k-fold CV: per sample key, the prediction of constants fitted without its fold."""
    out: dict[str, float] = {}
    for k in range(folds):
        train = [s for s in samples if s.fold != k]
        test = [s for s in samples if s.fold == k]
        c, nui, summary = F.fit(train)
        print(f"  fold {k}: {summary}", flush=True)
        for s in test:
            out[s.key] = F.predict_sample(s, c, nui)
    return out


def _fmt(s: Score | None) -> str:
    return "n/a" if s is None else f"{s.median_ape:.1f}% / {s.mape:.1f}%"


def _beats(rows: list[dict]) -> tuple[int, int]:
    """Rows where the model's APE is below PM IDEAL's, and rows with both."""
    both = [r for r in rows if r["pm"] is not None and r["predicted"] is not None]
    wins = sum(abs(r["predicted"] - r["measured"]) < abs(r["pm"] - r["measured"]) for r in both)
    return wins, len(both)


def sweep_scores(samples: list[F.Sample], c: K.Constants, nui: dict) -> dict[str, dict]:
    """Held-out and training scores of each sweep (nuisance launch and matmul scale from constants.json meta)."""
    out = {}
    for src in (F.EXP_SWEEP, F.MM_SWEEP):
        ss = [s for s in samples if s.source == src]
        res = {}
        for name, part in (("heldout", [s for s in ss if s.heldout]), ("training", [s for s in ss if not s.heldout])):
            sc = score((F.predict_sample(s, c, nui), s.measured_ns) for s in part)
            res[name] = sc
        out[src] = res
    return out


def render(results: dict, c: K.Constants, cv_done: bool, seconds: float) -> str:
    """The docs/accuracy.md section."""
    meta = c.meta
    lines = [BEGIN, "## Cost model: predicted vs measured device kernel time", ""]
    lines += [
        f"Scored {datetime.date.today().isoformat()} with `.venv/bin/python benchmarks/cost_accuracy.py"
        f"{' --cv' if cv_done else ''}` ({seconds / 60:.1f} min); the constants (`ttanalyze/cost/constants.json`, "
        f"{len(c.entries)} constants) come from `{meta.get('command', 'benchmarks/fit_cost.py')}` "
        f"({meta.get('date', '?')}), fitted on the training split only.  Install the `fit` extra first "
        "(`.venv/bin/pip install -e '.[fit]'`, scipy) to refit or to run `--cv`.",
        "",
        "Data: `measurements/perf` (README there; gzip-compressed copies): `wh_clip_encoder_2.csv` (Wormhole n150, CLIP encoder, 1,872 "
        "device ops), `bh_p100_dlv3.csv` (Blackhole p100, DeepLabV3, 387 device ops), two Wormhole sweeps "
        "(`exp_unary_sweep.csv`, `matmul_height_sharded.csv`).  Split: a row is held out iff "
        "`int(sha1(signature), 16) % 10 < 3`, the signature being every static column (op code, arch, "
        "attributes, fidelity, cores, every tensor column), so identical ops never straddle it.  Each row "
        "is predicted from its static columns only (never from a duration, a PM column or a kernel source).",
        "",
        "APE = |predicted - measured| / measured; each cell is median APE / MAPE over the timed rows. "
        f"Targets: median APE <= {TARGET_MEDIAN:.0f}% and MAPE <= {TARGET_MAPE:.0f}% over all timed rows "
        "of each trace.",
        "",
        "| trace | timed rows | all rows | held-out rows | training rows |"
        + (" 5-fold grouped CV |" if cv_done else "") + " PM IDEAL, all rows | rows where the model beats PM IDEAL |",
        "|---|---|---|---|---|" + ("---|" if cv_done else "") + "---|---|",
    ]
    for t, res in results["traces"].items():
        rows = res["rows"]
        ho = [r for r in rows if r["heldout"]]
        tr = [r for r in rows if not r["heldout"]]
        wins, both = _beats(rows)
        cells = [t, f"{len(rows):,}", _fmt(_score(rows)), f"{_fmt(_score(ho))} ({len(ho)} rows, "
                 f"{len({r['signature'] for r in ho})} sigs)", f"{_fmt(_score(tr))} ({len(tr)} rows)"]
        if cv_done:
            cells.append(_fmt(_score(rows, "cv")))
        cells += [_fmt(_pm(rows)), f"{wins:,} of {both:,} ({100 * wins / max(1, both):.0f}%)"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Per op code, all timed rows (held-out rows in brackets; PM IDEAL on the same rows):", ""]
    for t, res in results["traces"].items():
        rows = res["rows"]
        lines += [f"**{t}**", "",
                  "| op code | rows | share of measured time | model | held-out | PM IDEAL | PM IDEAL = 1 ns rows |",
                  "|---|---|---|---|---|---|---|"]
        per_op, total = summarize(Compared(r["op_code"], r["measured"], r["predicted"], r["pm"]) for r in rows)
        for s in per_op:
            g = [r for r in rows if r["op_code"] == s.op_code]
            ho = [r for r in g if r["heldout"]]
            ones = sum(1 for r in g if r["pm"] is not None and r["pm"] <= 1)
            lines.append(f"| {s.op_code} | {s.rows} | {100 * s.measured_ns / max(1.0, total.measured_ns):.1f}% | "
                         f"{_fmt(s.model)} | {_fmt(_score(ho)) if ho else '-'} | {_fmt(s.pm_ideal)} | {ones} |")
        lines.append("")
    lines += ["Sweeps (Wormhole n150, one op per run; each sweep's own launch time, and the matmul sweep's "
              "unrecorded math fidelity as a scale of `mm_cycles_per_pass`, are fitted nuisance values: "
              f"{', '.join(f'{k} = {v:g}' for k, v in meta.get('nuisance', {}).items())}):", "",
              "| sweep | held-out configurations | training configurations |", "|---|---|---|"]
    for src, res in results["sweeps"].items():
        lines.append(f"| {src} | {_fmt(res['heldout'])} ({res['heldout'].rows if res['heldout'] else 0}) | "
                     f"{_fmt(res['training'])} ({res['training'].rows if res['training'] else 0}) |")
    lines += ["", "### Where the model beats PM IDEAL, and why", "",
              "`PM IDEAL = max(PM COMPUTE, PM BANDWIDTH)` is tt-metal's per-op roofline "
              "(`OpPerformanceModelGeneral`): ideal FPU rate on the whole grid, one tensor's bytes at the DRAM peak "
              "(the largest, not their sum), no launch cost; ops without a performance model report 1 ns.  On these "
              "traces it scores a median APE near 100% because:", "",
              "* about half the rows (every op without `create_op_performance_model`: binary_ng, unary, "
              "layernorm, reshape, halo, interleaved/sharded conversions, slices...) carry the 1 ns default;",
              "* where it has a model it leaves out the launch and the kernel start spread (about 2 us per op on "
              "the Wormhole trace, whose ops ran back to back), assumes every core of the grid works (a 1-core "
              "layernorm, a 2-core bmm, a 40-core matmul), and per-core effects: latency-bound tile-by-tile "
              "readers, K-block hand-shaking of multicast matmuls, output writes, stick-by-stick row-major reads;",
              "* on Blackhole the tt-metal that wrote the trace used 1.2 GHz and 96 GiB/s (the measured clock is "
              "1.35 GHz, the p100's DRAM 448 GB/s), so DRAM-bound ops (slice, transpose, typecast...) come out "
              "2-5x too slow.",
              "",
              "The model charges each op the launch, the busiest core's pipeline of reads, compute and writes "
              "(with latency where a kernel waits per tile or stick) and the DRAM traffic at the achieved "
              "bandwidth, with per-arch clock, grid and DRAM channels.",
              "", "### Where it does not", ""]
    for t, res in results["traces"].items():
        per_op, _ = summarize(Compared(r["op_code"], r["measured"], r["predicted"], r["pm"]) for r in res["rows"])
        worse = [s for s in per_op if s.model and s.pm_ideal and s.pm_ideal.median_ape < s.model.median_ape]
        if worse:
            lines.append(f"* {t}: " + "; ".join(
                f"{s.op_code} (model {_fmt(s.model)}, PM IDEAL {_fmt(s.pm_ideal)}, {s.rows} rows)" for s in worse))
        else:
            lines.append(f"* {t}: no op code where PM IDEAL's median APE is lower than the model's.")
    lines += [""] + KNOWN_LIMITS + ["", "### Constants", "",
                                    "| constant | arch | value | unit | how | training rows (signatures) | term |",
                                    "|---|---|---|---|---|---|---|"]
    for e in c.entries:
        p = e.provenance
        lines.append(f"| `{e.name}` | {e.arch or 'shared'} | {e.value:.4g} | {e.unit} | {p.get('how', '?')} | "
                     f"{p.get('rows', 0)} ({p.get('signatures', 0)}) | {e.description} |")
    lines += ["", "A constant's training rows are those whose prediction moves by more than 0.5% when it moves by "
              "5% (`provenance` in constants.json lists them per data set and op code).  `prior`: no training row "
              "depends on it; the value is the value in `benchmarks/fit_cost.py` (cited, or an uncited physical guess: `sfpu_heavy`).", END]
    return "\n".join(lines) + "\n"


KNOWN_LIMITS = [
    "Known limits, by the rows they cost:",
    "",
    "* The Blackhole `BinaryNgDeviceOperation` add of two 32768x256 bfp8 tensors is bimodal: 3 rows take "
    "82-89 us and 4 take 41-43 us; 41 us would be 650 GB/s, above the p100's 448 GB/s peak, so the fast rows "
    "are a case the static columns do not show.  The model predicts the slow mode.",
    "* Wormhole's softmax (one 32x32 tile per core, 20 us) and erf (`sfpu_heavy` is a prior: no training row "
    "has a transcendental SFPU op but the exp sweep) are held out and under-predicted; the binary_ng "
    "multiply of 32x5120 tensors takes 9 us where the add of 32x1280 takes 2.8 us.",
    "* Halo copy rates depend on how the two data-movement cores split the gather (`halo_bytes` per core; "
    "both for tiled or block-sharded inputs, one for row-major height-sharded ones), which the trace's "
    "per-core durations show but the static columns do not say.",
    "* Matmuls without a program config use the model's emulation of ttnn's automatic choice (1D for "
    "narrow outputs, else a 2D grid of the op's cores); the IR path passes the config the analyzer models.",
    "* The Wormhole trace ran its ops back to back (kernel start spread about 1.8 us over 64 cores), the "
    "Blackhole one mostly one at a time (about 0.2 us): `launch_ns` is per arch and carries that difference.",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cv", action="store_true", help="grouped 5-fold cross-validation (refits five times)")
    ap.add_argument("--no-write", action="store_true", help="print, do not write docs/accuracy.md")
    ap.add_argument("--data", type=Path, default=F.DATA, help="directory of the measured data (default: measurements/perf)")
    args = ap.parse_args(argv)
    t0 = time.time()
    c = K.load()
    nui = {}
    for key, v in c.meta.get("nuisance", {}).items():
        name, src = key.split("@", 1)
        nui[(name, src)] = v
    samples = F.fittable(F.all_samples(args.data))
    cv = cross_validate(samples) if args.cv else {}
    results: dict = {"traces": {}, "sweeps": sweep_scores(samples, c, nui)}
    for t in F.TRACES:
        results["traces"][t] = {"rows": trace_rows(F.data_file(args.data, t), c, cv)}
    text = render(results, c, bool(cv), time.time() - t0)
    print(text)
    summary = {}
    ok = True
    for t, res in results["traces"].items():
        rows = res["rows"]
        s_all = _score(rows)
        summary[t] = {"all": s_all.__dict__ if s_all else None,
                      "heldout": (_score([r for r in rows if r["heldout"]]) or Score(0, 0, 0)).__dict__,
                      "cv": (_score(rows, "cv").__dict__ if cv else None), "pm_ideal": _pm(rows).__dict__}
        ok &= bool(s_all and s_all.median_ape <= TARGET_MEDIAN and s_all.mape <= TARGET_MAPE)
    if not args.no_write:
        OUT_JSON.parent.mkdir(parents=True, exist_ok=True)
        OUT_JSON.write_text(json.dumps(summary, indent=1) + "\n")
        doc = DOC.read_text() if DOC.exists() else "# Accuracy\n"
        if BEGIN in doc and END in doc:
            doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END) + 1:]
        else:
            doc = doc.rstrip("\n") + "\n\n" + text
        DOC.write_text(doc)
        print(f"wrote {DOC.relative_to(ROOT)} and {OUT_JSON.relative_to(ROOT)}")
    print("targets met on every trace" if ok else "targets NOT met on every trace")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
