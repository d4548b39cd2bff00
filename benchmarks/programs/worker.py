"""Compile and run campaign programs with the real compiler (jax-tt-plugin) on the mock device.

Runs inside ``.venv-jax`` (``scripts/setup-compiler.sh``), started by ``run.py`` under
``scripts/device-lock``:

    worker.py --out DIR --budget SECONDS CASE [CASE ...]

For each case, in order, until ``--budget`` seconds have passed: compile with tt-mlir's
``export_path`` (TTNN IR in ``DIR/<case>/ttnn.mlir``), call the compiled function on host zeros
(the real tt-mlir runtime and tt-metal on the mock device), and write ``DIR/<case>/result.json``
(compile/run status, tt-metal's error text, seconds).  ``DIR/.current`` names the case in flight,
so the runner can record a case whose process died (a TT_FATAL abort, a time-out).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import families  # noqa: E402

MAX_TEXT = 4000
# Failures of this host (toolchain files, the plugin's temp files), not verdicts of tt-metal on the program.
INFRA = re.compile(r"posix_spawnp|cannot execute 'cc1|system desc does not exist|No space left on device")


def _ttnn_ir(export: str) -> str | None:
    files = [p for p in glob.glob(f"{export}/**/irs/ttnn_*.mlir", recursive=True) if "ttnn_runtime" not in p]
    return max(files, key=os.path.getmtime) if files else None


def run_case(case: families.Case, out: Path) -> dict:
    import jax
    import numpy as np

    fn, specs = families.build(case)
    args = [np.zeros(shape, dtype=jax.numpy.dtype(dt)) for shape, dt in specs]
    res = {"case": case.name, "family": case.family, "params": list(case.params), "opt": case.opt,
           "inputs": [{"shape": list(s), "dtype": d} for s, d in specs],
           "compile_options": {"optimization_level": str(case.opt)}}
    d = out / case.name
    d.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ttprog-") as export:
        t = time.time()
        try:
            compiled = jax.jit(fn).lower(*args).compile(
                compiler_options={"optimization_level": str(case.opt), "export_path": export})
            res["compile_ok"], res["compile_error"] = True, None
        except Exception as e:  # the compiler's refusal is an outcome
            compiled = None
            res["compile_ok"], res["compile_error"] = False, str(e)[:MAX_TEXT]
        res["compile_seconds"] = round(time.time() - t, 2)
        ir = _ttnn_ir(export)
        if ir:
            shutil.copy(ir, d / "ttnn.mlir")
        res["ttnn_ir"] = bool(ir)
    if compiled is not None:
        t = time.time()
        try:
            jax.block_until_ready(compiled(*args))
            res["run_ok"], res["run_error"] = True, None
        except Exception as e:
            res["run_ok"], res["run_error"] = False, str(e)[:MAX_TEXT]
        res["run_seconds"] = round(time.time() - t, 2)
    else:
        res["run_ok"], res["run_error"] = None, None
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    os.environ.setdefault("TT_METAL_MOCK_CLUSTER_DESC_PATH",
                          str(HERE.parent.parent / "ttanalyze/executor/mock/blackhole_P150.yaml"))
    names = families.by_name()
    start = time.time()
    for name in a.cases:
        if time.time() - start > a.budget:
            break
        if any((d / name / "result.json").exists() for d in (a.out, *a.out.parent.iterdir())):
            continue  # done by an earlier chunk, or by a runner beside this one
        (a.out / ".current").write_text(name)
        res = run_case(names[name], a.out)
        tries = a.out / name / "infra_failures"
        if INFRA.search((res.get("run_error") or "") + (res.get("compile_error") or "")):
            # the host, not tt-metal's verdict: retry in a later chunk, record it after the third time
            n = int(tries.read_text()) + 1 if tries.exists() else 1
            tries.write_text(str(n))
            if n < 3:
                print(f"worker: {name}: host failure {n}, retried later", flush=True)
                continue
        (a.out / name / "result.json").write_text(json.dumps(res, indent=1))
        print(f"worker: {name}: compile_ok={res['compile_ok']} run_ok={res['run_ok']}", flush=True)
    (a.out / ".current").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
