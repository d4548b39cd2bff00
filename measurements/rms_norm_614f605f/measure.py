"""How jax-tt-plugin's runtime (tt-metal 614f605f) runs ``ttnn.rms_norm``: measured, not read.

    # run rms_norm programs through the plugin (needs .venv-jax, scripts/setup-compiler.sh; takes the device lock)
    scripts/device-lock .venv-jax/bin/python measurements/rms_norm_614f605f/measure.py run \
        --width 16384:f32 --width 36864:f32 --width 49152:bf16 ...
    # read back the layer-norm kernels tt-metal built (its JIT cache) into kernels.jsonl
    .venv/bin/python measurements/rms_norm_614f605f/measure.py kernels [--cache ~/.cache/tt-metal-cache]

``run`` compiles ``rms_norm(x [rows, W], weight [W])`` (the campaign's ``rms_norm`` family,
``benchmarks/programs/families.py``) at optimization level 0, runs it on the mock P150 with
``TT_METAL_NULL_KERNELS=1`` and appends tt-metal's verdict (the refusal text with its "L1 buffer
allocated at A" and "region ends at B" figures) to ``runs.jsonl``.

``kernels`` lists every ``layernorm_sharded`` compute kernel in tt-metal's JIT cache with its defines
(``RMSNORM``, ``FUSE_GAMMA``...) and compile-time arguments (``block_h``, ``block_w``,
``num_blocks_first_stage``, ``num_blocks_second_stage``): the program configuration the runtime chose
(``kernels.jsonl``; the campaign's programs and the runs above built them).  Every one-tile-row
rms_norm from Wt 256 to 3072 ran with ``block_w = Wt / 16`` on 8 x 2 cores, which
``ttanalyze/ops/norm_sharded.py`` models.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def run(widths: list[str], rows: int, weight: bool = True) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks" / "programs"))
    os.environ.setdefault("TT_METAL_MOCK_CLUSTER_DESC_PATH", str(ROOT / "ttanalyze/executor/mock/blackhole_P150.yaml"))
    os.environ.setdefault("TT_METAL_NULL_KERNELS", "1")
    import families
    import jax
    import numpy as np

    for spec in widths:
        w, dt = spec.split(":")
        case = families.Case("rms_norm", (rows, int(w), dt), 0)
        fn, specs = families.build(case)
        if not weight:  # rms_norm(x) alone: no gamma DFB
            from jax import lax

            def fn(x):
                return lax.composite(lambda x, **_: x * lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-5),
                                     name="tenstorrent.rms_norm")(
                    x, normalized_shape=np.array([x.shape[-1]], dtype=np.int64), epsilon=np.float32(1e-5))
            specs = specs[:1]
        args = [np.zeros(s, dtype=jax.numpy.dtype(d)) for s, d in specs]
        compiled = jax.jit(fn).lower(*args).compile(compiler_options={"optimization_level": "0"})
        rec = {"rows": rows, "width": int(w), "dtype": dt, "weight": weight, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        try:
            jax.block_until_ready(compiled(*args))
            rec["ran"] = True
        except Exception as e:  # tt-metal's refusal is the measurement
            text = str(e)
            m = re.search(r"info:\n(.*?)\n", text)
            rec.update(ran=False, error=(m.group(1) if m else text)[:400])
        with open(HERE / "runs.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)


def kernels(cache: Path) -> None:
    rows = []
    for d in sorted(cache.glob("*/kernels/layernorm_sharded/*")):
        defines = sorted(ln.split()[1] for ln in (d / "defines_generated.h").read_text().splitlines()
                         if ln.startswith("#define") and "NOC_MODE" not in ln)
        m = re.search(r"KERNEL_COMPILE_TIME_ARG_MAP (.*)", (d / "named_ct_arg_map_generated.h").read_text())
        args = dict((k, int(v)) for k, v in re.findall(r'\{"(\w+)",(\d+)\}', m.group(1))) if m else {}
        rows.append({"defines": defines, **args})
    uniq = {json.dumps(r, sort_keys=True) for r in rows}
    (HERE / "kernels.jsonl").write_text("".join(u + "\n" for u in sorted(uniq)))
    print(f"{len(uniq)} distinct layernorm_sharded kernel configurations -> {HERE / 'kernels.jsonl'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--width", action="append", required=True, help="WIDTH:DTYPE (f32 or bf16)")
    r.add_argument("--rows", type=int, default=32)
    r.add_argument("--no-weight", dest="weight", action="store_false", help="rms_norm(x) without a weight")
    k = sub.add_parser("kernels")
    k.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "tt-metal-cache")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.width, a.rows, a.weight)
    else:
        kernels(a.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
