"""Mutation-fuzzing campaign: N seeded mutants of the fixtures, each run through the command line in a child
process with a time and memory cap; every outcome recorded, resumable.

    nice -n 10 python -m benchmarks.fuzz_campaign --mutants 5000 --out measurements/fuzz/campaign.jsonl.gz

Each mutant (``benchmarks/fuzz_mutate.py``; source fixture and seed fixed by
its number) is written to a temporary file and run as ``ttanalyze check``
(fixes of two findings evaluated), ``cost`` or ``explain --op`` (by number
mod 3) in a forked child with ``RLIMIT_AS`` (``--memory-gb``) and a CPU-time
cap (``--seconds`` of RLIMIT_CPU; a wall-clock backstop of 10x that).  The parent has imported ttanalyze
once, so a run costs the analysis, not Python's start-up.  Outcomes: exit
0/1 (analyzed), 2 (input error: one ``file:line:col: error:`` line expected),
3 (internal error), a signal, a hang (killed at the cap).  ``model_failure``
counts runs whose report says an op model failed on the input (reported as
out of the model's scope: see ``ttanalyze/programs.py``).  Results already
in ``--out`` are skipped, so a campaign runs in chunks (``--chunk``).
Prints the summary; ``--summary`` only summarizes ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import resource
import signal
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("check", "cost", "explain")


def sources(fixtures: Path) -> list[Path]:
    """The programs mutated: every fixture, in a fixed order."""
    return sorted([*fixtures.glob("real/*/ttnn.mlir"), *fixtures.glob("seeds/*.mlir")])


def argv_for(n: int, path: str, text: str) -> list[str]:
    """The command line mutant ``n`` runs."""
    command = COMMANDS[n % len(COMMANDS)]
    if command == "check":
        return ["check", path, "--fix-limit", "2"]
    if command == "cost":
        return ["cost", path]
    line = next((i + 1 for i, l in enumerate(text.split("\n")) if '"ttnn.' in l), 1)
    return ["explain", path, "--op", str(line)]


def run_child(argv: list[str], seconds: float, memory_bytes: int) -> tuple[str, int | None, str, float]:
    """Run ``ttanalyze ARGV`` in a forked child; (outcome, exit status or signal, first 4 KB of output, CPU s).

    The cap is ``seconds`` of CPU time (RLIMIT_CPU: SIGXCPU, then SIGKILL), so that a loaded machine does not
    turn a slow run into a "hang"; a wall-clock backstop of 10x ``seconds`` kills a child that sleeps.
    """
    out = tempfile.TemporaryFile()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: caps, output to the file, the command line, its exit status
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
            cpu = max(1, int(seconds))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
            sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
            from ttanalyze.cli import app

            try:
                app(argv, prog_name="ttanalyze")
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        except BaseException:  # noqa: BLE001 - anything escaping is an internal error
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
            os._exit(3)
    deadline = start + 10 * seconds
    status = None
    cpu_s = 0.0
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            cpu_s = usage.ru_utime + usage.ru_stime
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
            cpu_s = usage.ru_utime + usage.ru_stime
            status = None
            break
        time.sleep(0.01)
    elapsed = cpu_s
    out.seek(0)
    text = out.read(4096).decode("utf-8", "replace")
    out.close()
    if status is None:
        return "hang", None, text, elapsed
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s >= seconds):
            return "hang", sig, text, elapsed  # the CPU-time cap
        return "signal", sig, text, elapsed
    code = os.WEXITSTATUS(status)
    outcome = {0: "analyzed", 1: "analyzed", 2: "input_error"}.get(code, "internal_error")
    return outcome, code, text, elapsed


def summarize(records: list[dict]) -> dict:
    """Counts by outcome, the slowest run, and the failures (internal errors, signals, hangs) by class."""
    outcomes = Counter(r["outcome"] for r in records)
    bad = [r for r in records if r["outcome"] in ("internal_error", "signal", "hang")]
    return {
        "mutants": len(records),
        "outcomes": dict(outcomes),
        "model_failures": sum(1 for r in records if r.get("model_failure")),
        "input_errors_without_position": sum(1 for r in records if r["outcome"] == "input_error"
                                             and not r.get("positioned", True)),
        "max_cpu_seconds": round(max((r["seconds"] for r in records), default=0.0), 2),
        "failures": [{k: r[k] for k in ("n", "source", "seed", "kinds", "argv", "outcome", "status", "output")}
                     for r in bad][:50],
    }


def load(path: Path) -> list[dict]:
    """The records of ``path``; a file cut short (a campaign killed mid-write) yields its complete lines."""
    if not path.exists():
        return []
    text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(path.read_bytes()).decode("utf-8", "replace")
    records = []
    for line in text.split("\n"):
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def main(argv: list[str] | None = None) -> int:
    from benchmarks.fuzz_mutate import mutate

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=5000, help="mutants in the campaign (numbers 0..N-1)")
    ap.add_argument("--chunk", type=int, default=0, help="run at most this many new mutants, then stop (0: all)")
    ap.add_argument("--fixtures", type=Path, default=ROOT / "fixtures", help="directory of the programs mutated")
    ap.add_argument("--out", type=Path, default=ROOT / "measurements" / "fuzz" / "campaign.jsonl.gz")
    ap.add_argument("--seconds", type=float, default=30.0, help="CPU-time cap per run (s)")
    ap.add_argument("--memory-gb", type=float, default=4.0, help="address-space cap per run (RLIMIT_AS)")
    ap.add_argument("--summary", action="store_true", help="only summarize --out")
    args = ap.parse_args(argv)

    records = load(args.out)
    if not args.summary:
        done = {r["n"] for r in records}
        progs = sources(args.fixtures)
        texts = [p.read_text() for p in progs]
        import ttanalyze.cli  # noqa: F401 - imported once, before forking

        args.out.parent.mkdir(parents=True, exist_ok=True)
        if records:  # rewritten whole, so that a file cut short becomes a valid gzip stream again
            with gzip.open(args.out, "wt") as f:
                f.writelines(json.dumps(r) + "\n" for r in records)
        new = 0
        tmp = Path(tempfile.mkdtemp(prefix="ttanalyze-fuzz-"))
        with gzip.open(args.out, "at") as sink:
            for n in range(args.mutants):
                if n in done:
                    continue
                if args.chunk and new >= args.chunk:
                    break
                k = n % len(progs)
                seed = n
                data, kinds = mutate(texts[k], seed)
                path = tmp / f"mutant{n}.mlir"
                path.write_bytes(data)
                cmd = argv_for(n, str(path), texts[k])
                outcome, status, output, seconds = run_child(cmd, args.seconds, int(args.memory_gb * 2**30))
                rec = {"n": n, "source": str(progs[k].relative_to(args.fixtures)), "seed": seed, "kinds": kinds,
                       "argv": cmd[0], "outcome": outcome, "status": status, "seconds": round(seconds, 3),
                       "model_failure": "model failed on this op" in output or "rule failed on this op" in output}
                if outcome == "input_error":
                    rec["positioned"] = f"{path}:" in output and ": error: " in output
                if outcome in ("internal_error", "signal", "hang") or (outcome == "input_error"
                                                                      and not rec["positioned"]):
                    rec["output"] = output[-1500:]
                    path.rename(tmp / f"failing{n}.mlir")
                else:
                    rec["output"] = ""
                    path.unlink()
                sink.write(json.dumps(rec) + "\n")
                sink.flush()
                records.append(rec)
                new += 1
    print(json.dumps(summarize(records), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
