"""Does compiling ttanalyze's pure-Python core with mypyc pay?  A trial, run on demand (not in the test suite).

Copies ``ttanalyze/`` to ``OUT/src`` (default ``benchmarks/out/mypyc``, ignored by git), applies the few
source changes mypyc needs that the repository does not carry (:data:`WORKAROUNDS`), compiles the chosen
modules there with mypyc (``--modules hot``: the modules that hold check's CPU time by cProfile; ``wide``:
every module ``check`` imports but the CLI) and then, in alternating fresh subprocesses, times
``ttanalyze check --format text --no-cache`` of the pure sources against the compiled copy (CPU time, user +
system, and wall time), times the phases of one in-process check (``benchmarks/run.py``'s :func:`phases`)
for both, and compares the two text reports byte for byte.  The repository's sources are never touched and
no compiled module lands beside them, so nothing stale can shadow an edited ``.py`` file.

It is a trial, not a build: mypy's type errors in the compiled modules are silenced by error code
(:data:`SILENCED`) so that the modules compile as they are; mypyc still checks every annotation at run time
on a compiled boundary (arguments, returns, typed locals and attributes), so a false annotation on a path the
program takes shows up as a ``TypeError`` (an internal error, exit 3), which the trial reports.

``mypy`` (which ships mypyc) must be importable by ``--mypy-python`` (default: this interpreter); build it
into its own environment, not the project's, e.g. ``python3 -m venv .venv-c && .venv-c/bin/pip install mypy
setuptools``, and pass ``--mypy-python .venv-c/bin/python``.  The compiled modules are for the interpreter
that runs the trial (same CPython version needed).

Writes the figures to ``--results`` (JSON; default ``measurements/mypyc/<modules>.json``).

Usage: .venv/bin/python benchmarks/mypyc_trial.py --mypy-python .venv-c/bin/python [--modules hot|wide]
       [--repeat 3] [--no-build] [--out OUT] [FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.generate import KINDS  # noqa: E402

# By cProfile (tottime summed by module) of check --format text on the distinct 50,000-op program (docs/mypyc.md).
HOT = [
    "layout", "allocator", "memory", "programs", "analysis", "graph", "mesh",
    "ir/model", "ir/parse", "ir/normalize", "ir/attrs",
    "ops/cb", "ops/tensors", "ops/registry", "ops/work_split", "ops/matmul", "ops/data_movement",
    "ops/eltwise", "ops/layout_conversion",
    "rules/capacity", "rules/circular_buffers", "rules/encoding", "rules/eras", "rules/mesh", "rules/padding",
    "rules/reshape", "rules/result_spec", "rules/result_type", "rules/unmodeled", "rules/use_after_free",
    "rules/user_programs", "rules/verifier",
]
# Not compiled: typer reads the CLI's signatures, which compiled functions do not keep.
NEVER = {"ttanalyze", "ttanalyze.__main__", "ttanalyze.cli"}

# mypy's error codes silenced so that the modules compile as they are (module docstring).
SILENCED = ("union-attr arg-type assignment index attr-defined misc var-annotated return-value call-overload "
            "operator call-arg list-item dict-item override valid-type type-var has-type func-returns-value "
            "name-defined no-redef str-bytes-safe truthy-function return empty-body annotation-unchecked "
            "import-untyped import-not-found redundant-cast").split()

# (module path, pattern, replacement, why): the source changes mypyc needs that the repository lacks.
WORKAROUNDS = [
    ("rules/padding.py", r'in \(\*CHAIN_OPS, "ttnn\.to_layout"\)', 'in CHAIN_OPS + ("ttnn.to_layout",)',
     "mypyc 2.4.1 crashes on a starred tuple display as the right side of `in` (internal error)"),
    ("ops/cb.py", r"field\((default=None|default_factory=dict), init=False,", r"field(\1,",
     "a compiled dataclass leaves init=False fields with a default unset (AttributeError on first read): "
     "ProgramModel's two caches"),
    ("mesh.py", r"weakref\.WeakKeyDictionary\(\)", "{}",
     "a compiled class has no weak references: the IR model's Func keys mesh.py's WeakKeyDictionary (TypeError on "
     "every mesh program); a plain dict keeps each Func alive as long as the process, harmless for one check"),
]


def check_modules(python: str) -> list[str]:
    """The ``ttanalyze`` modules ``check`` of a small fixture imports (dotted names), but :data:`NEVER`."""
    code = ("import sys\nfrom ttanalyze.__main__ import main\n"
            f"sys.argv = ['ttanalyze', 'check', '--no-cache', '--fail-on', 'never', '-o', os.devnull, "
            f"{str(ROOT / 'fixtures' / 'real' / 'mlp_o2' / 'ttnn.mlir')!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(m for m in sys.modules if m.startswith('ttanalyze')))\n")
    out = subprocess.run([python, "-c", "import os\n" + code], check=True, capture_output=True, text=True,
                         cwd=ROOT, env=_env(ROOT)).stdout.split()
    return sorted(m for m in out if m not in NEVER)


def prepare(out: Path, modules: list[str]) -> list[str]:
    """A fresh copy of the sources in ``out/src`` with :data:`WORKAROUNDS` applied; the module files to compile
    (paths relative to ``out/src``)."""
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / "ttanalyze", src / "ttanalyze", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    # a checkout around the copy, so that the test suite can run against it (cd OUT/src; pytest tests): the
    # tests copied (they find the package from their own directory), the rest linked
    shutil.copytree(ROOT / "tests", src / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    for entry in ROOT.iterdir():
        if entry.name not in ("ttanalyze", "tests") and not entry.name.startswith("."):
            (src / entry.name).symlink_to(entry)
    for rel, pattern, repl, _why in WORKAROUNDS:
        path = src / "ttanalyze" / rel
        text, n = re.subn(pattern, repl, path.read_text())
        if n == 0:
            print(f"note: workaround for {rel} no longer applies (the source changed)")
        path.write_text(text)
    files = []
    for m in modules:
        rel = Path(*m.split(".")) if "." in m or m == "ttanalyze" else Path("ttanalyze", *m.split("/"))
        path = rel / "__init__.py" if (src / rel).is_dir() else rel.with_suffix(".py")
        if (src / path).exists():
            files.append(str(path))
    return files


def build(out: Path, files: list[str], mypy_python: str) -> tuple[float, float]:
    """Compile ``files`` in place in ``out/src`` (mypyc, opt level 3, one C group per module so that gcc
    runs on both cores); wall and CPU seconds of the build.  Raises SystemExit when it fails."""
    src = out / "src"
    # module names from the copy's root, not from a package found further up (benchmarks/ is one)
    (out / "mypy.ini").write_text(f"[mypy]\nmypy_path = {src}\nexplicit_package_bases = True\n"
                                  "ignore_missing_imports = True\nfollow_imports = silent\n"
                                  f"disable_error_code = {', '.join(SILENCED)}\n")
    (out / "setup_mypyc.py").write_text(
        "import sys\nfrom setuptools import setup\nfrom mypyc.build import mypycify\n"
        "files = sys.argv[sys.argv.index('--files') + 1:]\ndel sys.argv[sys.argv.index('--files'):]\n"
        f"setup(name='ttanalyze-mypyc-trial', packages=[], ext_modules=mypycify(['--config-file', "
        f"{str(out / 'mypy.ini')!r}, '--python-executable', {sys.executable!r}] + files, opt_level='3', "
        "separate=True))\n")
    start = time.perf_counter()
    mypy_python = os.path.abspath(mypy_python) if os.sep in mypy_python else mypy_python  # the build runs in src
    proc = subprocess.Popen([mypy_python, str(out / "setup_mypyc.py"), "build_ext", "--inplace", "-j", "2",
                             "--files", *files], cwd=src, stdout=open(out / "build.log", "w"),
                            stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the mypyc build failed: see {out / 'build.log'}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def build_dropping_crashes(out: Path, files: list[str], mypy_python: str) -> tuple[float, float, dict[str, str]]:
    """:func:`build`, leaving out each module on which mypyc itself crashes (its "internal mypyc error" names
    the module and line) or which has a type error mypyc does not let through, and building again; wall and CPU seconds of the build that succeeded, and the modules left out
    with the line mypyc names."""
    dropped: dict[str, str] = {}
    while True:
        try:
            w, c = build(out, files, mypy_python)
            return w, c, dropped
        except SystemExit:
            log = (out / "build.log").read_text()
            crash = re.search(r"^(ttanalyze/\S+\.py):(\d+): (?:(?:AssertionError|\w+Error).*\n.*internal mypyc error"
                              r"|error: (.*))", log, re.MULTILINE)
            if not crash or crash.group(1) not in files:
                raise
            why = f"mypy error at line {crash.group(2)}: {crash.group(3)}" if crash.group(3) else \
                f"mypyc internal error at line {crash.group(2)}"
            print(f"  {crash.group(1)}: {why}: left out, building again")
            dropped[crash.group(1)] = why
            files = [f for f in files if f != crash.group(1)]


def run_check(pythonpath: Path, path: Path, report: Path, cwd: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and exit status of one ``check --format text`` subprocess
    whose ``ttanalyze`` comes from ``pythonpath`` (the working directory ``cwd`` holds no ``ttanalyze``)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "ttanalyze", "check", "--no-cache", "--fail-on", "never",
                             "--format", "text", "-o", str(report), str(path)], cwd=cwd, env=_env(pythonpath),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(f"  check from {pythonpath} exited {code}: {err.decode(errors='replace').strip()[-300:]}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, code


def run_phases(pythonpath: Path, path: Path, cwd: Path) -> dict[str, float]:
    """CPU seconds per phase of one in-process check (``benchmarks/run.py`` :func:`phases`) with ``ttanalyze``
    from ``pythonpath``.  A compiled ``analysis`` module calls its helpers directly, so the analysis parts that
    :func:`phases` times by wrapping them are absent from the compiled figures."""
    code = ("import json, sys, time\n"
            f"sys.path.insert(0, {str(ROOT)!r})\nimport benchmarks.run as R\n"
            f"sys.path.insert(0, {str(pythonpath)!r})\nfrom pathlib import Path\n"
            "t = time.process_time()\n"
            f"out = R.phases(Path({str(path)!r}))\n"
            "out['total'] = time.process_time() - t\nprint(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=_env(pythonpath), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        print(f"  phases from {pythonpath} failed: {proc.stderr.strip()[-300:]}")
        return {}
    return {k.strip(): v for k, v in json.loads(proc.stdout.splitlines()[-1]).items()}


def _env(pythonpath: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(pythonpath)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", type=Path, help="Program to time (default: the distinct 50,000-op one).")
    ap.add_argument("--mypy-python", default=sys.executable, help="An interpreter that can import mypyc.")
    ap.add_argument("--modules", choices=("hot", "wide"), default="hot", help="Which modules to compile.")
    ap.add_argument("--repeat", type=int, default=3, help="Rounds; each figure is the median.")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "mypyc", help="Work directory.")
    ap.add_argument("--no-build", action="store_true", help="Reuse the compiled copy already in --out.")
    ap.add_argument("--results", type=Path, help="Where the figures are written (JSON; default: "
                    "measurements/mypyc/<modules>.json).")
    args = ap.parse_args()
    path = args.file
    if path is None:
        path = ROOT / "benchmarks" / "out" / "distinct_50000.mlir"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(KINDS["distinct"](50_000))
    path = path.resolve()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    modules = HOT if args.modules == "hot" else check_modules(sys.executable)
    result: dict = {"python": platform.python_version(), "file": path.name, "modules": args.modules}
    if not args.no_build:
        files = prepare(out, modules)
        print(f"compiling {len(files)} modules with mypyc into {out / 'src'} (log: {out / 'build.log'})")
        wall, cpu, dropped = build_dropping_crashes(out, files, args.mypy_python)
        result.update(compiled=[f for f in files if f not in dropped], left_out=dropped,
                      build_wall_s=round(wall, 1), build_cpu_s=round(cpu, 1))
        print(f"  build: {wall:.0f} s wall, {cpu:.0f} s CPU")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ttanalyze"), str(out / "src")],
                   check=True, capture_output=True)
    sides = {"pure": ROOT, "compiled": out / "src"}
    runs: dict[str, list[tuple[float, float, int]]] = {s: [] for s in sides}
    load = [os.getloadavg()[0]]
    for _ in range(args.repeat):
        for side, pp in sides.items():
            runs[side].append(run_check(pp, path, out / f"report_{side}.txt", out))
    load.append(os.getloadavg()[0])
    same = (out / "report_pure.txt").read_bytes() == (out / "report_compiled.txt").read_bytes()
    result["check_text"] = {s: {"wall_s": round(statistics.median(r[0] for r in rs), 2),
                                "cpu_s": round(statistics.median(r[1] for r in rs), 2),
                                "exit": sorted({r[2] for r in rs})} for s, rs in runs.items()}
    result["reports_identical"] = same
    result["phases_cpu_s"] = {s: {k: round(v, 3) for k, v in run_phases(pp, path, out).items()}
                              for s, pp in sides.items()}
    load.append(os.getloadavg()[0])
    result["load_average"] = [round(x, 2) for x in load]
    pure, comp = result["check_text"]["pure"], result["check_text"]["compiled"]
    print(f"{path.name}: check --format text, medians of {args.repeat} (load average {load[0]:.1f} -> {load[-1]:.1f})")
    for side in sides:
        print(f"  {side:<9} CPU {result['check_text'][side]['cpu_s']:5.2f} s, wall {result['check_text'][side]['wall_s']:5.2f} s")
    print(f"  compiled/pure CPU {comp['cpu_s'] / pure['cpu_s']:.2f}; text reports identical: {same}")
    ph = result["phases_cpu_s"]
    for k in ph.get("pure", {}):
        if k in ph.get("compiled", {}):
            print(f"    {k:<20} {ph['pure'][k]:6.3f} s -> {ph['compiled'][k]:6.3f} s")
    results = args.results or ROOT / "measurements" / "mypyc" / f"{args.modules}.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {results}")


if __name__ == "__main__":
    main()
