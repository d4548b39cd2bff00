"""One command for the whole-program campaign: compile + run every program, then check each IR.

    .venv/bin/python benchmarks/programs/run.py [--only SUBSTR[,SUBSTR...]] [--opt 0,1] [--chunk-seconds 150]
        [--out benchmarks/out/programs] [--stage run|check|all]

Stage ``run`` (needs ``.venv-jax``, ``scripts/setup-compiler.sh``): the programs of
``families.cases()`` without a ``result.json`` in ``--out`` are compiled and run by ``worker.py``
in chunks of about ``--chunk-seconds``, each chunk under ``nice -n 10`` and holding
``scripts/device-lock`` (one mock-device user at a time; ``--no-lock`` skips it: the
plugin's mock device ran while a ttnn executor held its own), so the campaign is resumable and
leaves the device to others between chunks.  Each chunk is one process: the plugin's start
(device init) costs 1 s on an idle host and 40 s on a loaded one.  A chunk whose process dies records the case in flight
as ``crashed`` (tt-metal aborted, or the time-out hit).

Stage ``check`` (``outcomes.py``): copies every program into ``fixtures/real/programs/<case>/``
(``ttnn.mlir`` + ``case.json`` with tt-metal's outcome, classified), runs ``ttanalyze check
--fail-on error`` of this checkout on each IR, and writes ``benchmarks/programs/outcomes.json`` and
the confusion matrix in docs/accuracy.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import families  # noqa: E402

sys.path.insert(0, str(ROOT))
from ttanalyze.executor.protocol import DEVICE_LOCK  # noqa: E402

LOCK = DEVICE_LOCK


def _pending(out: Path, only: str | None, shard: tuple[int, int] = (0, 1), opts: set[int] | None = None) -> list[str]:
    names = [c.name for i, c in enumerate(families.cases())
             if (not only or any(s in c.name for s in only.split(","))) and (opts is None or c.opt in opts)
             and i % shard[1] == shard[0]]
    return [n for n in names if not any((d / n / "result.json").exists() for d in (out, *out.parent.iterdir()))
            and not _committed(n)]


def _committed(name: str) -> bool:
    """True when ``name`` has a committed fixture with a verdict (not a time-out or a crash to retry)."""
    case = ROOT / "fixtures" / "real" / "programs" / name / "case.json"
    return case.exists() and json.loads(case.read_text()).get("outcome") not in ("other/timeout", "other/crashed")


def run_stage(out: Path, only: str | None, chunk: float, timeout: float, lock: bool,
              shard: tuple[int, int] = (0, 1), reverse: bool = False, opts: set[int] | None = None) -> None:
    jax_py = ROOT / ".venv-jax" / "bin" / "python"
    if not jax_py.exists():
        sys.exit("run.py: .venv-jax is missing: run scripts/setup-compiler.sh first")
    out.mkdir(parents=True, exist_ok=True)
    # Null kernels: kernels do not execute on a mock device anyway, and the refusals scored here (CB/DFB
    # validation, factory TT_FATALs, the allocator) are host-side; an empty kernel builds much faster.
    env = dict(os.environ, TT_METAL_MOCK_CLUSTER_DESC_PATH=str(ROOT / "ttanalyze/executor/mock/blackhole_P150.yaml"),
               TT_METAL_NULL_KERNELS="1")
    # The plugin keeps its system descriptor ($TMPDIR/tt_pjrt_system_descriptor) and its kernel toolchain
    # ($TMPDIR/libtt-tt-metal-runtime-assets-*, 417 MB, unpacked at first start) in $TMPDIR; another plugin
    # process can remove or rewrite them under a running one ("system desc does not exist", "cannot execute
    # 'cc1plus'"): each runner gets a TMPDIR of its own.
    tmp = Path(tempfile.gettempdir()) / f"ttprog-{shard[0]}-of-{shard[1]}{'-rev' if reverse else ''}"
    tmp.mkdir(exist_ok=True)
    for link in tmp.glob("libtt-tt-metal-runtime-assets-*"):
        if link.is_symlink():
            link.unlink()
    env["TMPDIR"] = str(tmp)
    while True:
        todo = _pending(out, only, shard, opts)[::-1 if reverse else 1]
        if not todo:
            break
        t = time.time()
        cmd = ["nice", "-n", "10"] + (["flock", LOCK] if lock else []) + ["timeout", "-k", "10", str(timeout), str(jax_py),
               str(HERE / "worker.py"), "--out", str(out), "--budget", str(chunk), *todo]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        cur = out / ".current"
        if cur.exists():  # the worker died inside this case
            name = cur.read_text().strip()
            case = families.by_name()[name]
            (out / name).mkdir(parents=True, exist_ok=True)
            res = {"case": name, "family": case.family, "params": list(case.params), "opt": case.opt,
                   "crashed": True, "exit_code": p.returncode, "compile_ok": None, "run_ok": False,
                   "run_error": (p.stderr or "")[-4000:]}
            (out / name / "result.json").write_text(json.dumps(res, indent=1))
            cur.unlink()
        done = [ln for ln in p.stdout.splitlines() if ln.startswith("worker:")]
        print(f"run.py: chunk of {len(done)} in {time.time() - t:.0f} s, {len(_pending(out, only, shard, opts))} left", flush=True)
        for ln in done:
            print("  " + ln, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out" / "programs")
    ap.add_argument("--only", help="only the cases whose name contains this (or one of these, comma-separated)")
    ap.add_argument("--opt", help="only these optimization levels, comma-separated (e.g. 0,1)")
    ap.add_argument("--chunk-seconds", type=float, default=150.0)
    ap.add_argument("--timeout", type=float, default=900.0, help="kill a chunk after this many seconds")
    ap.add_argument("--stage", choices=("run", "check", "all"), default="all")
    ap.add_argument("--shard", default="0/1", help="K/N: run only the cases whose index is K modulo N "
                    "(N runners side by side)")
    ap.add_argument("--reverse", action="store_true", help="last case first (a second runner on the same "
                    "shard meets the first in the middle)")
    ap.add_argument("--no-lock", dest="lock", action="store_false",
                    help=f"do not take {DEVICE_LOCK}: the plugin's mock device and the ttnn executor's ran "
                         "side by side (measured), so the lock only spares CPU")
    a = ap.parse_args()
    if a.stage in ("run", "all"):
        run_stage(a.out, a.only, a.chunk_seconds, a.timeout, a.lock,
                  tuple(int(x) for x in a.shard.split("/")), a.reverse,
                  {int(x) for x in a.opt.split(",")} if a.opt else None)
    if a.stage in ("check", "all"):
        import outcomes
        outcomes.main([x for d in sorted(p for p in a.out.iterdir() if p.is_dir()) + [a.out]
                       if any(d.glob("*/result.json")) for x in ("--out", str(d))])
    return 0


if __name__ == "__main__":
    sys.exit(main())
