"""Fit the cost model's constants on the training split of the measured data in measurements/perf.

Data (``measurements/perf/README.md``, gzip-compressed copies): two tt-metal device-profiler traces
(``wh_clip_encoder_2.csv``: Wormhole n150, CLIP encoder; ``bh_p100_dlv3.csv``:
Blackhole p100, DeepLabV3) and two Wormhole n150 sweeps from
ttnn-op-runtime-predictor (``exp_unary_sweep.csv``: ``ttnn.exp``;
``matmul_height_sharded.csv``: matmul with a height-sharded in0).

Split: a sample is held out iff ``int(sha1(key), 16) % 10 < 3``, where the
key of a trace row is its static signature (:func:`ttanalyze.cost.profile.signature`:
op code, arch, attributes, fidelity, cores, every tensor column) and the key of
a sweep row is its configuration (shape, dtype, memory; m, k, n, cores), so
identical ops never straddle the split.  Only training samples are fitted.

Fit: identical training rows are merged (median duration, weight sqrt(rows));
each data source gets the same total weight (the sweeps half), so the
thousands of sweep shapes do not drown the traces.  Loss: soft-L1 on
``log(predicted / measured)`` (scipy ``least_squares``), plus weak log-normal
priors centred on the initial values below.  The sweeps ran one op at a time
(no back-to-back launch), so each sweep gets its own launch time, and the
matmul sweep, whose math fidelity is not recorded, its own scale of
``mm_cycles_per_pass``: these nuisance values are reported, not kept.

Provenance: a constant's data are the training samples whose prediction moves
by more than 0.5% when it moves by 5%.

Usage: .venv/bin/python benchmarks/fit_cost.py [--data DIR] [--out PATH]
Needs the ``fit`` extra (scipy): ``.venv/bin/pip install -e '.[fit]'``.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import gzip
import hashlib
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ttanalyze.cost import constants as K  # noqa: E402
from ttanalyze.cost.device_op import DeviceOp, TensorInfo  # noqa: E402
from ttanalyze.cost.hardware import Hardware, for_device  # noqa: E402
from ttanalyze.cost.model import UnknownDeviceOp, UnmodeledDeviceOp, predict  # noqa: E402
from ttanalyze.cost.profile import read_profile  # noqa: E402

DATA = ROOT / "measurements" / "perf"
TRACES = ("wh_clip_encoder_2.csv", "bh_p100_dlv3.csv")
EXP_SWEEP = "exp_unary_sweep.csv"
MM_SWEEP = "matmul_height_sharded.csv"
# The board each calibration trace ran on (measurements/perf/traces.json): its DRAM channels.
TRACE_BOARDS = {"wh_clip_encoder_2.csv": "n150", "bh_p100_dlv3.csv": "p100"}


def data_file(data: Path, name: str) -> Path:
    """``data/name``, or its gzip-compressed copy ``data/name.gz`` when only that exists."""
    p = data / name
    return p if p.exists() else data / f"{name}.gz"


def open_text(path: Path):
    """Open a CSV, plain or ``.gz``, as text."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def source_name(path: Path) -> str:
    """A data file's name without ``.gz`` (the key of SOURCE_WEIGHT, TRACE_BOARDS and constants.json)."""
    return path.name[:-3] if path.name.endswith(".gz") else path.name
SOURCE_WEIGHT = {"wh_clip_encoder_2.csv": 1.0, "bh_p100_dlv3.csv": 1.0, EXP_SWEEP: 0.5, MM_SWEEP: 0.5}
SWEEP_CAP = 700  # training configurations kept per sweep (every one is scored)

# (name, arch or None, initial value = prior centre, prior sigma of log, lower, upper, unit, description)
PARAMS: list[tuple[str, str | None, float, float, float, float, str, str]] = [
    ("launch_ns", "wormhole_b0", 2000.0, 1.0, 100.0, 2e4, "ns",
     "program launch and kernel start spread over the cores (Wormhole)"),
    ("launch_ns", "blackhole", 600.0, 1.0, 100.0, 2e4, "ns",
     "program launch and kernel start spread over the cores (Blackhole)"),
    ("dram_read_eff", None, 0.78, 0.3, 0.2, 1.0, "fraction of DRAM peak", "achieved DRAM bandwidth, reads only"),
    ("dram_write_eff", None, 0.6, 0.3, 0.2, 1.0, "fraction of DRAM peak", "achieved DRAM bandwidth, writes only"),
    ("dram_mixed_eff", None, 0.75, 0.3, 0.2, 1.0, "fraction of DRAM peak",
     "achieved DRAM bandwidth, reads and writes together"),
    ("dram_txn_bytes", None, 64.0, 1.0, 1.0, 4096.0, "bytes",
     "per-transaction DRAM overhead: a tensor's bytes count (s + s0) / s for transactions of s bytes"),
    ("eltwise_tile", None, 60.0, 1.0, 8.0, 2000.0, "cycles/tile", "unpack + FPU op + pack of one tile"),
    ("sfpu_exp", None, 2000.0, 1.0, 50.0, 2e4, "cycles/tile", "SFPU exp of one tile"),
    ("sfpu_heavy", None, 2000.0, 0.5, 50.0, 2e4, "cycles/tile",
     "SFPU transcendental op without its own constant (erf, gelu, sigmoid, tanh, recip, rsqrt, ...), one tile"),
    ("scalar_fill", None, 3000.0, 1.0, 10.0, 3e4, "cycles", "filling one tile with a binary op's scalar (RISC-V)"),
    ("fill_byte", None, 1.0, 1.0, 0.01, 20.0, "cycles/byte", "padding bytes written by a RISC-V core"),
    ("stick_read_dram", None, 400.0, 0.7, 20.0, 5000.0, "cycles/stick",
     "wait for one row-major stick read from DRAM"),
    ("stick_read_l1", None, 200.0, 0.7, 10.0, 5000.0, "cycles/stick", "wait for one row-major stick read from L1"),
    ("tilize_tile", None, 80.0, 1.0, 8.0, 3000.0, "cycles/tile", "tilize one tile on the compute core"),
    ("untilize_tile", None, 80.0, 1.0, 8.0, 3000.0, "cycles/tile", "untilize one tile on the compute core"),
    ("page_handoff", None, 250.0, 0.7, 10.0, 5000.0, "cycles/page",
     "one input page handed from reader to writer through a one-page CB, with the writer's write barrier"),
    ("mm_cycles_per_pass", None, 20.0, 0.5, 16.0, 200.0, "cycles/tile product/pass",
     "matrix engine cycles per 32x32x32 tile product and fidelity pass (ideal 16)"),
    ("mm_unpack_tile", None, 40.0, 1.0, 4.0, 1000.0, "cycles/tile", "unpack of one operand tile for the matrix engine"),
    ("mm_block", None, 1500.0, 1.0, 10.0, 3e4, "cycles/K-block",
     "per K-block hand-shaking of a matmul (multicast semaphores, CB sync)"),
    ("mm_spill_tile", None, 60.0, 1.0, 1.0, 3000.0, "cycles/tile",
     "reload of one partial output tile per extra K block (no packer L1 accumulation)"),
    ("mm_out_tile", None, 400.0, 1.0, 10.0, 5000.0, "cycles/tile", "writing one interleaved matmul output tile"),
    ("mm_dram_share", None, 0.6, 0.5, 0.1, 1.0, "fraction",
     "matmul DRAM bandwidth as a share of the streaming ops' (operand reads, then output writes)"),
    ("l1_copy_bytes", None, 48.0, 0.5, 4.0, 64.0, "bytes/cycle",
     "one core copying within its L1 (move); at most the NoC's 64 B/cycle"),
    ("conv_gather", None, 10.0, 1.0, 0.5, 500.0, "cycles/run",
     "one activation run (kw sticks) gathered from the local shard"),
    ("halo_bytes", None, 6.0, 1.0, 0.5, 64.0, "bytes/cycle", "halo copy rate of one data-movement core"),
    ("pool_stick", None, 35.0, 1.0, 1.0, 1000.0, "cycles/stick", "per input stick reduced, per 64-channel block"),
]
# Nuisance values of the sweeps (fitted, reported, not kept): (name, source, initial, lower, upper)
NUISANCE = [("launch_ns", EXP_SWEEP, 3000.0, 100.0, 2e4), ("launch_ns", MM_SWEEP, 1000.0, 100.0, 2e4),
            ("mm_scale", MM_SWEEP, 2.0, 0.25, 8.0)]
PRIOR_WEIGHT = 0.05


@dataclass
class Sample:
    """Identical measured ops merged: one op, its median duration and how many rows it stands for."""

    source: str
    key: str
    op: DeviceOp
    hw: Hardware
    measured_ns: float
    rows: int
    pm_ideal_ns: float | None = None

    @property
    def heldout(self) -> bool:
        return is_heldout(self.key)

    @property
    def fold(self) -> int:
        return int(hashlib.sha1(self.key.encode()).hexdigest(), 16) % 5


def is_heldout(key: str) -> bool:
    """The split rule: held out iff ``int(sha1(key), 16) % 10 < 3``."""
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % 10 < 3


def trace_samples(path: Path, board: str | None = None) -> list[Sample]:
    """Timed rows of a profiler trace, merged by signature (the board: ``TRACE_BOARDS`` by file name)."""
    groups: dict[str, list] = defaultdict(list)
    name = source_name(path)
    board = board or TRACE_BOARDS.get(name)
    for r in read_profile(path):
        if r.measured_ns is not None:
            groups[r.signature].append(r)
    out = []
    for sig, rs in groups.items():
        op = rs[0].op
        out.append(Sample(name, sig, op, for_device(op.arch, op.grid_cores, board=board),
                          statistics.median(r.measured_ns for r in rs), len(rs), rs[0].pm_ideal_ns))
    return out


_SWEEP_DTYPES = (("bfloat8", "bfp_bf8"), ("bfloat16", "bf16"), ("float32", "f32"), ("uint16", "u16"),
                 ("uint32", "u32"))


def _tile_padded(shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) < 2:
        return shape
    return shape[:-2] + tuple(-(-d // 32) * 32 for d in shape[-2:])


def exp_samples(path: Path) -> list[Sample]:
    """``ttnn.exp`` sweep (Wormhole n150, 64 cores): shape, dtype, input buffer; output assumed alike."""
    hw = for_device("wormhole_b0", 64)
    groups: dict[str, list[float]] = defaultdict(list)
    ops: dict[str, DeviceOp] = {}
    with open_text(path) as fh:
        for rec in csv.DictReader(fh):
            rec = {k.strip(): v.strip() for k, v in rec.items()}
            shape = tuple(int(rec[f"input_shape_{i}"]) for i in range(1, 5) if int(rec[f"input_shape_{i}"]) > 0)
            dtype = next(d for col, d in _SWEEP_DTYPES if rec[col] == "1")
            buf = "dram" if rec["input_DRAM"] == "1" else "l1"
            key = f"exp|{'x'.join(map(str, shape))}|{dtype}|{buf}"
            if key not in ops:
                t = TensorInfo(shape, _tile_padded(shape), dtype, "tile", buf)
                cores = min(64, max(1, t.tiles))
                ops[key] = DeviceOp("UnaryDeviceOperation", "wormhole_b0", cores, 64, (t,), (t,), "HiFi4", False,
                                    {"unary_ops": ["exp"]}, f"{source_name(path)}:{key}")
            groups[key].append(float(rec["kernel_duration"]))
    return [Sample(source_name(path), k, ops[k], hw, statistics.median(v), len(v)) for k, v in groups.items()]


def matmul_samples(path: Path) -> list[Sample]:
    """Height-sharded matmul sweep (Wormhole n150): in0 [m, k] sharded over ``num_cores``, in1 in DRAM, bf16."""
    hw = for_device("wormhole_b0", 64)
    groups: dict[str, list[float]] = defaultdict(list)
    ops: dict[str, DeviceOp] = {}
    with open_text(path) as fh:
        for rec in csv.DictReader(fh):
            m, k, n, cores = (int(float(rec[c])) for c in ("m_size", "k_size", "n_size", "num_cores"))
            key = f"mm|{m}|{k}|{n}|{cores}"
            if key not in ops:
                mt, kt, nt = -(-m // 32), -(-k // 32), -(-n // 32)
                pm = -(-mt // cores)
                a = TensorInfo((1, 1, m, k), (1, 1, mt * 32, kt * 32), "bf16", "tile", "l1", "height_sharded",
                               (pm * 32, kt * 32), cores)
                b = TensorInfo((1, 1, k, n), (1, 1, kt * 32, nt * 32), "bf16", "tile", "dram")
                o = TensorInfo((1, 1, m, n), (1, 1, mt * 32, nt * 32), "bf16", "tile", "l1", "height_sharded",
                               (pm * 32, nt * 32), cores)
                pc = {"kind": "mcast_1d", "per_core_m": pm, "per_core_n": nt, "in0_block_w": kt,
                      "mcast_in0": False, "fuse_batch": True}
                ops[key] = DeviceOp("Matmul", "wormhole_b0", cores, 64, (a, b), (o,), "LoFi", False,
                                    {"program_config": pc}, f"{source_name(path)}:{key}")
            groups[key].append(float(rec["duration"]))
    return [Sample(source_name(path), k, ops[k], hw, statistics.median(v), len(v)) for k, v in groups.items()]


def all_samples(data: Path = DATA) -> list[Sample]:
    """Every sample of the four data sets (both splits)."""
    out: list[Sample] = []
    for t in TRACES:
        out += trace_samples(data_file(data, t))
    out += exp_samples(data_file(data, EXP_SWEEP))
    out += matmul_samples(data_file(data, MM_SWEEP))
    return out


def initial_constants() -> K.Constants:
    """The priors as a :class:`Constants` (the fit's starting point)."""
    return K.Constants([K.Constant(n, v, unit, arch, desc, {"how": "prior"})
                        for n, arch, v, _s, _lo, _hi, unit, desc in PARAMS])


def source_constants(c: K.Constants, source: str, nuisance: dict[tuple[str, str], float]) -> K.Constants:
    """``c`` with a sweep's nuisance values (its launch time, its matmul scale) applied."""
    if source not in (EXP_SWEEP, MM_SWEEP):
        return c
    repl = {("launch_ns", "wormhole_b0"): nuisance[("launch_ns", source)]}
    if source == MM_SWEEP:
        repl[("mm_cycles_per_pass", None)] = c.get("mm_cycles_per_pass", "wormhole_b0") * nuisance[("mm_scale", source)]
    return c.with_values(repl)


def predict_sample(s: Sample, c: K.Constants, nuisance: dict[tuple[str, str], float]) -> float:
    """Predicted ns of a sample under ``c`` (and the sweep nuisance values)."""
    return predict(s.op, s.hw, source_constants(c, s.source, nuisance)).ns


def fittable(samples: list[Sample]) -> list[Sample]:
    """Samples the model predicts (known op codes); others are skipped."""
    out = []
    for s in samples:
        try:
            predict(s.op, s.hw, initial_constants())
        except (UnknownDeviceOp, UnmodeledDeviceOp):
            continue
        out.append(s)
    return out


def _subsample(samples: list[Sample]) -> list[Sample]:
    """At most SWEEP_CAP training configurations per sweep (lowest key hash first)."""
    by: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by[s.source].append(s)
    out = []
    for src, ss in by.items():
        if src in (EXP_SWEEP, MM_SWEEP) and len(ss) > SWEEP_CAP:
            ss = sorted(ss, key=lambda s: hashlib.sha1(s.key.encode()).hexdigest())[:SWEEP_CAP]
        out += ss
    return out


def fit(train: list[Sample], start: K.Constants | None = None,
        max_fev: int = 6000) -> tuple[K.Constants, dict[tuple[str, str], float], dict]:
    """Fit the constants on ``train``; returns (constants, nuisance values, fit summary).

    Minimises ``sum_s w_s * soft_l1(log(pred_s / measured_s) / 0.2)`` plus the
    log-normal priors over the log of every constant, within its bounds, with
    Powell's method (the model is piecewise: max() of stages and roofs).
    """
    import numpy as np
    from scipy.optimize import minimize

    train = _subsample(train)
    start = start or initial_constants()
    names = [(n, a) for n, a, *_ in PARAMS]
    prior = {(n, a): (v, s, lo, hi) for n, a, v, s, lo, hi, _u, _d in PARAMS}
    nui_init = {(n, src): (v, lo, hi) for n, src, v, lo, hi in NUISANCE}
    nui_names = [k for k in nui_init if any(s.source == k[1] for s in train)]
    per_source: dict[str, float] = defaultdict(float)
    for s in train:
        per_source[s.source] += math.sqrt(s.rows)
    weights = np.array([SOURCE_WEIGHT.get(s.source, 1.0) * math.sqrt(s.rows) / per_source[s.source]
                        for s in train])
    weights = weights / weights.mean()
    y = np.array([s.measured_ns for s in train])
    scale = 0.2

    def unpack(x):
        vals = {k: math.exp(v) for k, v in zip(names, x[:len(names)])}
        nui = {k: math.exp(v) for k, v in zip(nui_names, x[len(names):])}
        return start.with_values(vals), nui

    def loss(x):
        c, nui = unpack(x)
        pred = np.array([predict_sample(s, c, nui) for s in train])
        z = (np.log(pred / y) / scale) ** 2
        data = float((weights * 2.0 * (np.sqrt(1.0 + z) - 1.0)).sum()) * scale ** 2
        pri = sum(((x[i] - math.log(prior[k][0])) / prior[k][1]) ** 2 for i, k in enumerate(names))
        return data + PRIOR_WEIGHT ** 2 * len(train) * pri

    x0 = [math.log(min(max(start.get(n, a or "wormhole_b0"), prior[(n, a)][2] * 1.001), prior[(n, a)][3] * 0.999))
          for n, a in names]
    x0 += [math.log(nui_init[k][0]) for k in nui_names]
    lo = [math.log(prior[k][2]) for k in names] + [math.log(nui_init[k][1]) for k in nui_names]
    hi = [math.log(prior[k][3]) for k in names] + [math.log(nui_init[k][2]) for k in nui_names]
    t0 = time.time()
    res = minimize(loss, np.array(x0), method="Powell", bounds=list(zip(lo, hi)),
                   options={"maxfev": max_fev, "xtol": 1e-3, "ftol": 1e-7})
    c, nui = unpack(res.x)
    summary = {"method": "Powell", "nfev": int(res.nfev), "seconds": round(time.time() - t0, 1),
               "loss_start": round(float(loss(np.array(x0))), 4), "loss": round(float(res.fun), 4), "samples": len(train)}
    return c, nui, summary


def provenance(c: K.Constants, nui: dict, train: list[Sample]) -> dict[tuple[str, str | None], dict]:
    """Per constant: the training samples whose prediction moves >0.5% when it moves by 5%."""
    base = [predict_sample(s, c, nui) for s in train]
    out = {}
    for n, a, *_ in PARAMS:
        arch = a or "wormhole_b0"
        c2 = c.with_values({(n, a): c.get(n, arch) * 1.05})
        rows: dict[str, int] = defaultdict(int)
        sigs: dict[str, int] = defaultdict(int)
        ops: set[str] = set()
        for s, p in zip(train, base):
            if abs(predict_sample(s, c2, nui) / p - 1) > 0.005:
                rows[s.source] += s.rows
                sigs[s.source] += 1
                ops.add(s.op.op_code)
        out[(n, a)] = {"rows": sum(rows.values()), "signatures": sum(sigs.values()),
                       "data": {k: {"rows": rows[k], "signatures": sigs[k]} for k in sorted(rows)},
                       "op_codes": sorted(ops)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="directory of the measured data (default: measurements/perf)")
    ap.add_argument("--out", type=Path, default=K.DEFAULT_PATH)
    args = ap.parse_args(argv)
    samples = fittable(all_samples(args.data))
    train = [s for s in samples if not s.heldout]
    c, nui, summary = fit(train)
    prov = provenance(c, nui, _subsample(train))
    entries = []
    for n, a, _v, _s, lo, hi, unit, desc in PARAMS:
        p = prov[(n, a)]
        how = "fitted" if p["rows"] else "prior"
        entries.append(K.Constant(n, round(c.get(n, a or "wormhole_b0"), 6), unit, a, desc,
                                  {"how": how, "prior": _v, "bounds": [lo, hi], **p}))
    n_rows = defaultdict(int)
    n_sigs = defaultdict(int)
    for s in train:
        n_rows[s.source] += s.rows
        n_sigs[s.source] += 1
    meta = {
        "written_by": "benchmarks/fit_cost.py", "date": datetime.date.today().isoformat(),
        "command": ".venv/bin/python benchmarks/fit_cost.py",
        "data": {src: {"training_rows": n_rows[src], "training_samples": n_sigs[src]} for src in sorted(n_rows)},
        "split": "held out iff int(sha1(key), 16) % 10 < 3 (key: trace row signature, sweep configuration)",
        "sweep_cap": SWEEP_CAP, "nuisance": {f"{n}@{src}": round(v, 4) for (n, src), v in nui.items()},
        "fit": summary,
    }
    out = K.Constants(entries, meta)
    args.out.write_text(json.dumps(out.to_json(), indent=1) + "\n")
    print(f"wrote {args.out}: {len(entries)} constants, {summary}")
    for e in entries:
        print(f"  {e.name:20s} {e.arch or 'shared':12s} {e.value:12.4g} {e.unit:28s} {e.provenance['how']:6s} "
              f"rows={e.provenance['rows']} sigs={e.provenance['signatures']}")
    print("  nuisance:", meta["nuisance"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
