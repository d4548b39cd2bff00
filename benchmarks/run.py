"""Time and peak memory of ``ttanalyze check`` against the MLIR parse-and-walk of the same file
(run on demand, not in the test suite).

For each program (generated ones of ``--ops`` ops, of each ``--kind``, plus the
files given), in rounds of fresh subprocesses so that the load of a shared
machine hits every measurement alike:

* ``walk``: the MLIR Python bindings parse the file (after ttanalyze's
  normalization to generic form, which is not timed) and walk every op: its
  name, result names (one shared ``AsmState``), operand and result types and
  attributes as text (each distinct type and attribute printed once).  This is
  the floor any analyzer built on the bindings pays; its time is measured inside
  the process, without start-up.  The bindings look up a Python module for the
  dialect of every op they wrap and do not remember a failed lookup: the walk
  registers the same empty ``ttnn``/``ttcore`` modules ttanalyze's parser does
  (:mod:`ttanalyze.ir.parse`), without which each op costs a failed import
  (``--walk-uncached`` times the walk without them too: the reference of the
  figures before 2026-11-26 10:00 UTC, about 0.85 s more CPU on 50,000 ops).
* ``check --format F --no-cache -o FILE`` for each format: the wall time of the
  whole command, start-up included, as a user sees it, its CPU time (user +
  system) and the child's peak RSS (getrusage).

Prints, per program and format, the median over ``--repeat`` rounds of the time,
its multiple of the walk's median, ops per second, the CPU time and its multiple
of the walk's CPU time (on a loaded machine wall times stretch with the load,
CPU times much less) and the largest peak RSS; then the load average before and
after.  Children run as an installed package does, from compiled bytecode
(``PYTHONDONTWRITEBYTECODE`` dropped, ``ttanalyze/`` compiled first).
``--startup`` times ``python -c pass``, ``ttanalyze --help``, ``rules`` and
``check`` of a small fixture (wall and CPU, and each over the interpreter's own).  ``--zoo DIR`` also times ``check`` over
every ``*.mlir`` under DIR: in one process without the cache, with ``-j`` workers
into an empty cache, and again with that cache filled (a CI re-run over an
unchanged model zoo).  ``--phases`` adds the CPU time of each phase of one
in-process check (normalize, nesting check, MLIR parse, location check, walk to the model, analyses with their
op models, allocator replay, CB figures, memory timeline and mesh binding, rules
with the five slowest rules alone).  ``check`` runs with its default ``-j`` (the cores), so a program of
several function groups above the split's threshold is checked in parallel shares
(:mod:`ttanalyze.shards`); ``--serial`` also times each format with ``-j 1`` (one process), alternated
with the default in the same rounds, and ``--split-phases`` prints the steps of one split check in a
fresh process (grouping, fork, this process's share, the wait for the others, their exit, the merge;
each share's time and lines).

Usage: .venv/bin/python benchmarks/run.py [--ops 50000] [--kind distinct --kind repeated]
       [--format text --format json ...] [--repeat 3] [--out-dir benchmarks/out] [--phases] [--startup]
       [--walk-uncached] [--zoo DIR] [--serial] [--split-phases] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.generate import KINDS  # noqa: E402

FORMATS = ("text", "json", "sarif", "html")


def walk(path: Path, dialect_stubs: bool = True) -> tuple[float, float, int]:
    """Seconds (wall, CPU) the MLIR bindings take to parse ``path`` (normalized beforehand) and walk every op;
    op count.  ``dialect_stubs``: with the dialect modules ttanalyze registers (module docstring)."""
    from iree.compiler import ir

    if dialect_stubs:
        import ttanalyze.ir.parse  # noqa: F401 - registers the dialect modules
    from ttanalyze.ir.normalize import normalize

    text = normalize(path.read_text(), str(path)).text
    start, cpu = time.perf_counter(), time.process_time()
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    module = ir.Module.parse(text, ctx)
    asm = ir.AsmState(module.operation)
    printed: dict = {}
    n_ops = 0

    def visit(op) -> None:
        nonlocal n_ops
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    arg.get_name(asm)
                    if arg.type not in printed:
                        printed[arg.type] = str(arg.type)
                for child in block.operations:
                    child = child.operation
                    n_ops += 1
                    child.name  # noqa: B018 - the walk reads it
                    str(child.location)
                    for value in (*child.operands, *child.results):
                        if value.type not in printed:
                            printed[value.type] = str(value.type)
                    for r in child.results:
                        r.get_name(asm)
                    attrs = child.attributes
                    for name in attrs:
                        attr = attrs[name]
                        if attr not in printed:
                            printed[attr] = str(attr)
                    visit(child)

    visit(module.operation)
    return time.perf_counter() - start, time.process_time() - cpu, n_ops


def run_walk(path: Path, dialect_stubs: bool = True) -> tuple[float, float, int]:
    """The walk's seconds (wall, CPU) and op count, from a fresh subprocess (see :func:`walk`)."""
    flag = "--walk" if dialect_stubs else "--walk-no-stubs"
    out = subprocess.run([sys.executable, __file__, flag, str(path)], check=True, capture_output=True,
                         text=True, env=_env()).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def run_child(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one subprocess."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=dict(_env(), **(env or {})), stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def run_check(path: Path | list[Path], fmt: str, out: Path, *extra: str,
              env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (KiB) of one ``ttanalyze check --format fmt -o out`` subprocess."""
    paths = path if isinstance(path, list) else [path]
    return run_child([sys.executable, "-m", "ttanalyze", "check", "--fail-on", "never", "--format", fmt,
                      "-o", str(out), *extra, *map(str, paths)], env)


def _env() -> dict[str, str]:
    """The children's environment: this checkout first on the path, and bytecode written and read as an
    installed package's is (``PYTHONDONTWRITEBYTECODE`` dropped, the sources compiled once beforehand)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


STARTUP_FILE = ROOT / "fixtures" / "real" / "mlp_o0" / "ttnn.mlir"


def startup(repeat: int) -> None:
    """Time the interpreter's own start, ``ttanalyze --help``, ``rules`` and ``check`` of a small file."""
    cmds = {"python -c pass": [sys.executable, "-c", "pass"],
            "ttanalyze --help": [sys.executable, "-m", "ttanalyze", "--help"],
            "ttanalyze rules": [sys.executable, "-m", "ttanalyze", "rules"],
            f"ttanalyze check {STARTUP_FILE.relative_to(ROOT)}": [sys.executable, "-m", "ttanalyze", "check",
                                                                  "--no-cache", "--fail-on", "never", str(STARTUP_FILE)]}
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in cmds}
    for _ in range(repeat):
        for name, cmd in cmds.items():
            runs[name].append(run_child(cmd))
    base_wall = statistics.median(r[0] for r in runs["python -c pass"])
    base_cpu = statistics.median(r[1] for r in runs["python -c pass"])
    print("start-up (medians; + over the interpreter's own start)")
    for name, rs in runs.items():
        wall, cpu = statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)
        print(f"  {name:<48} wall {wall:5.2f} s (+{wall - base_wall:4.2f})  CPU {cpu:5.2f} s (+{cpu - base_cpu:4.2f})")


def zoo(root: Path, repeat: int, tmp: Path) -> None:
    """Time ``check`` over every ``*.mlir`` under ``root`` (see the module docstring)."""
    paths = sorted(root.rglob("*.mlir"))
    jobs = len(os.sched_getaffinity(0))
    runs: dict[str, list[float]] = {"one process, no cache": [], f"-j {jobs}, empty cache": [],
                                    f"-j {jobs}, cache filled": []}
    for r in range(repeat):
        cache = {"TTANALYZE_CACHE_DIR": str(tmp / f"cache{r}")}
        out = tmp / "zoo.sarif"
        runs["one process, no cache"].append(run_check(paths, "sarif", out, "-j", "1", "--no-cache")[0])
        runs[f"-j {jobs}, empty cache"].append(run_check(paths, "sarif", out, "-j", str(jobs), env=cache)[0])
        runs[f"-j {jobs}, cache filled"].append(run_check(paths, "sarif", out, "-j", str(jobs), env=cache)[0])
    print(f"{root}: {len(paths)} files, check --format sarif")
    for name, walls in runs.items():
        print(f"  {name:<24} {statistics.median(walls):7.2f} s")


def phases(path: Path) -> dict[str, float]:
    """CPU seconds of each phase of one in-process check of ``path`` (the garbage collector paused, as check
    does): the module split and dialect check, normalize, the nesting check, the MLIR parse, the location check, the walk to the typed model, the
    analyses (and their parts) and the rules.
    CPU time, not wall time: on a shared machine the wall time of a phase stretches with the load."""
    import gc

    from iree.compiler import ir

    from ttanalyze import rules
    from ttanalyze.analysis import analyze
    from ttanalyze.ir import normalize as N
    from ttanalyze.ir import parse as P

    out = {}
    text = path.read_text()
    gc.disable()
    t = time.process_time()
    if N.split_modules(text, str(path)) is None:  # one module: parse_modules then checks it is TTNN
        P._check_is_ttnn(text, str(path))
    out["module split"] = time.process_time() - t
    t = time.process_time()
    norm = N.normalize(text, str(path))
    out["normalize"] = time.process_time() - t
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    ctx.enable_multithreading(False)  # as parse does
    t = time.process_time()
    P._check_nesting(norm, str(path))
    out["nesting check"] = time.process_time() - t
    t = time.process_time()
    module = ir.Module.parse(norm.text, ctx)
    out["mlir parse"] = time.process_time() - t
    t = time.process_time()
    P._check_locations(text, norm, str(path), ctx)
    out["location check"] = time.process_time() - t
    t = time.process_time()
    program = P._Walker(norm, text, str(path)).program(module)
    out["walk to model"] = time.process_time() - t
    parts: dict[str, float] = {}
    with _timed_analysis_parts(parts):
        t = time.process_time()
        a = analyze(program)
        out["analyses"] = time.process_time() - t
    for name, secs in parts.items():
        out[f"  {name}"] = secs
    t = time.process_time()
    rules.run(a)
    out["rules"] = time.process_time() - t
    for rid in rules.implemented():  # each rule alone, the slowest ones
        t = time.process_time()
        rules.run(a, [rid])
        out[f"  {rid}"] = time.process_time() - t
    for k in sorted((k for k in out if k.startswith("  TTA")), key=out.get)[:-5]:
        del out[k]  # all but the five slowest rules
    gc.enable()
    return out


@contextmanager
def _timed_analysis_parts(parts: dict[str, float]):
    """Within the block, :func:`ttanalyze.analysis.analyze` adds to ``parts`` the CPU seconds of what it calls
    once or twice: the op models, the allocator replay, the CB figures, the memory timeline, the mesh binding
    (each wrapped by a timer in :mod:`ttanalyze.analysis`, restored after)."""
    from ttanalyze import analysis

    originals = {}
    for name, label in (("op_models", "op models"), ("replay", "allocator replay"),
                        ("_program_figures", "CB figures"), ("timeline", "memory timeline"),
                        ("bind_meshes", "mesh binding")):
        def timed(*args, _fn=getattr(analysis, name), _label=label, **kwargs):
            t = time.process_time()
            try:
                return _fn(*args, **kwargs)
            finally:
                parts[_label] = parts.get(_label, 0.0) + time.process_time() - t
        originals[name] = getattr(analysis, name)
        setattr(analysis, name, timed)
    try:
        yield
    finally:
        for name, fn in originals.items():
            setattr(analysis, name, fn)


def split_child(path: Path) -> None:
    """Print the steps of one split ``check`` of ``path`` in text (:data:`ttanalyze.shards.last_timings`), in
    this fresh process, the way ``check`` runs it (cores as workers, the analyses kept until the exit)."""
    import json

    from ttanalyze import batch, shards
    from ttanalyze.versions import DEFAULT_TT_METAL

    batch.keep_until_exit()
    start = time.perf_counter()
    out = shards.check_split(str(path), batch.CheckOptions(format="text", tt_metal=DEFAULT_TT_METAL),
                             None, batch.default_jobs())
    timings = {k: [round(x, 3) for x in v] if isinstance(v, list) else round(v, 3)
               for k, v in shards.last_timings.items()} if out is not None else {"split": "no"}
    print(json.dumps(dict(timings, total=round(time.perf_counter() - start, 3))))
    sys.stdout.flush()
    os._exit(0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="More programs to measure.")
    ap.add_argument("--ops", type=int, default=50_000, help="Ops of each generated program (0: none).")
    ap.add_argument("--kind", action="append", choices=sorted(KINDS), help="Generated kinds (default: distinct).")
    ap.add_argument("--format", action="append", choices=FORMATS, dest="formats",
                    help="check formats to time (default: text, json, sarif).")
    ap.add_argument("--repeat", type=int, default=3, help="Rounds; each figure is the median.")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "out",
                    help="Where generated programs are written.")
    ap.add_argument("--phases", action="store_true", help="Also time the phases of one in-process check.")
    ap.add_argument("--zoo", type=Path, help="Also time check over every *.mlir under this directory.")
    ap.add_argument("--startup", action="store_true",
                    help="Also time start-up: --help, rules and check of a small file against python -c pass.")
    ap.add_argument("--walk-uncached", action="store_true",
                    help="Also time the walk without the dialect modules (the reference before 2026-11-26 10:00 UTC).")
    ap.add_argument("--serial", action="store_true",
                    help="Also time each format with -j 1 (one process: no split of the function groups), "
                         "alternated with the default -j in the same rounds.")
    ap.add_argument("--split-phases", action="store_true",
                    help="Also time the steps of one split check (ttanalyze.shards), in a fresh process.")
    ap.add_argument("--split-child", type=Path, help=argparse.SUPPRESS)  # the --split-phases subprocess
    ap.add_argument("--walk", type=Path, help=argparse.SUPPRESS)  # the walk subprocess
    ap.add_argument("--walk-no-stubs", type=Path, help=argparse.SUPPRESS)  # the walk subprocess, uncached lookups
    args = ap.parse_args()
    if args.walk or args.walk_no_stubs:
        print(*walk(args.walk or args.walk_no_stubs, dialect_stubs=bool(args.walk)))
        return
    if args.split_child:
        split_child(args.split_child)
        return
    programs = list(args.files)
    if args.ops:
        args.out_dir.mkdir(parents=True, exist_ok=True)
        for kind in args.kind or ["distinct"]:
            path = args.out_dir / f"{kind}_{args.ops}.mlir"
            if not path.exists():
                path.write_text(KINDS[kind](args.ops))
            programs.append(path)
    formats = args.formats or ["text", "json", "sarif"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ttanalyze")], check=True, env=_env())
    print(f"load average {os.getloadavg()[0]:.2f} at the start; python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cpus; medians of {args.repeat} rounds")
    if args.startup:
        startup(args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        for path in programs:
            walks: list[tuple[float, float, int]] = []
            uncached: list[tuple[float, float, int]] = []
            checks: dict[str, list[tuple[float, float, int]]] = {f: [] for f in formats}
            if args.serial:
                checks.update({f"{f} -j 1": [] for f in formats})
            for _ in range(args.repeat):
                walks.append(run_walk(path))
                if args.walk_uncached:
                    uncached.append(run_walk(path, dialect_stubs=False))
                for fmt in formats:
                    checks[fmt].append(run_check(path, fmt, Path(tmp) / f"report.{fmt}", "--no-cache"))
                    if args.serial:
                        checks[f"{fmt} -j 1"].append(run_check(path, fmt, Path(tmp) / f"report.{fmt}", "--no-cache",
                                                               "-j", "1"))
            n_ops = walks[0][2]
            base, base_cpu = statistics.median(w[0] for w in walks), statistics.median(w[1] for w in walks)
            shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path.name
            print(f"{shown} ({path.stat().st_size:,} B, {n_ops:,} ops): MLIR parse and walk {base:.2f} s "
                  f"(CPU {base_cpu:.2f} s)")
            old_cpu = statistics.median(w[1] for w in uncached) if uncached else None
            if old_cpu is not None:
                print(f"  the walk without the dialect modules (the reference before 2026-11-26): "
                      f"{statistics.median(w[0] for w in uncached):.2f} s (CPU {old_cpu:.2f} s)")
            for fmt, runs in checks.items():
                wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
                rss = max(r[2] for r in runs) / 1024
                size = (Path(tmp) / f"report.{fmt.split()[0]}").stat().st_size
                old = f" ({cpu / old_cpu:.1f}x the old reference)" if old_cpu else ""
                print(f"  check --format {fmt:<10} {wall:7.2f} s = {wall / base:5.1f}x walk, {n_ops / wall:8,.0f} ops/s; "
                      f"CPU {cpu:6.2f} s = {cpu / base_cpu:5.1f}x{old}; peak RSS {rss:5.0f} MiB, report {size:,} B")
            if args.split_phases:
                for _ in range(args.repeat):
                    print("  split steps (wall s):", subprocess.run(
                        [sys.executable, __file__, "--split-child", str(path)], check=True, capture_output=True,
                        text=True, env=_env()).stdout.strip())
            if args.phases:
                for name, secs in phases(path).items():
                    print(f"    {name:<18} {secs:.3f} s")
        if args.zoo:
            zoo(args.zoo, args.repeat, Path(tmp))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
