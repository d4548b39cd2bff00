"""Time and peak memory of ``ttanalyze check`` (run on demand, not in the test suite).

Measures, each in a fresh subprocess (median of ``--repeat`` runs, wall time and the
child's peak RSS from getrusage):
* the largest bundled fixture;
* a generated program of ``--ops`` ops (benchmarks/generate.py);
and prints ops/s. Also prints a per-phase breakdown of one in-process run on the
generated program (normalize, MLIR parse, walk, analyses, rules).

Usage: .venv/bin/python benchmarks/run.py [--ops 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.generate import generate  # noqa: E402


def run_check(path: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one ``ttanalyze check`` subprocess."""
    exe = ROOT / ".venv" / "bin" / "ttanalyze"
    cmd = [str(exe) if exe.exists() else "ttanalyze", "check", "--fail-on", "never", str(path)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return wall, usage.ru_maxrss


def phases(path: Path) -> dict[str, float]:
    from iree.compiler import ir

    from ttanalyze import rules
    from ttanalyze.analysis import analyze
    from ttanalyze.ir import normalize as N
    from ttanalyze.ir import parse as P

    out = {}
    text = path.read_text()
    t = time.perf_counter()
    norm = N.normalize(text, str(path))
    out["normalize"] = time.perf_counter() - t
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    t = time.perf_counter()
    module = ir.Module.parse(norm.text, ctx)
    out["mlir parse"] = time.perf_counter() - t
    t = time.perf_counter()
    program = P._Walker(norm, text, str(path)).program(module)
    out["walk to model"] = time.perf_counter() - t
    t = time.perf_counter()
    a = analyze(program)
    out["analyses"] = time.perf_counter() - t
    t = time.perf_counter()
    rules.run(a)
    out["rules"] = time.perf_counter() - t
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out_dir = ROOT / "benchmarks" / "out"
    out_dir.mkdir(exist_ok=True)
    big = out_dir / f"generated_{args.ops}.mlir"
    big.write_text(generate(args.ops))
    largest = max((ROOT / "fixtures").rglob("*.mlir"), key=lambda p: p.stat().st_size)
    from ttanalyze.ir.parse import parse_file

    for path in (largest, big):
        n_ops = len(parse_file(path).ops)
        runs = [run_check(path) for _ in range(args.repeat)]
        wall = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        print(f"{path.relative_to(ROOT)}: {n_ops:,} ops, {path.stat().st_size:,} B; "
              f"check {wall:.2f} s (median of {args.repeat}), {n_ops / wall:,.0f} ops/s, peak RSS {rss / 1024:.0f} MiB")
    print("phases of one in-process run on the generated program:")
    for name, secs in phases(big).items():
        print(f"  {name:<14} {secs:.3f} s")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
