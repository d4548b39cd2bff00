"""Random op instances measured on the mock device for the dialect models of engineer dialect-misc's ops.

``copy``, ``assign``, ``bitcast_convert``, ``dropout`` and ``rand`` (ttanalyze.ops.copies / random), drawn
from a seeded generator over shapes (rank 2-4, dims that are and are not tile multiples), dtypes, layouts
and memory configs (DRAM / L1 interleaved).  Each case is one TTNN op as IR and the ttnn call tt-mlir's
runtime makes for it (``runtime/lib/ttnn/operations/*`` @19c86fca).  ``measurements/dialect/probe_misc.py``
replays them on the mock (NO_DISPATCH graph capture) into ``results_misc.jsonl``;
tests/test_ops_dialect_misc.py compares the models with it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

Desc = tuple  # (shape, dtype, layout "tile"/"row_major", buffer "dram"/"l1")


@dataclass(frozen=True)
class MiscCase:
    """One measured op: ``id``, the IR op name, operand and result tensors (:data:`Desc`), IR attributes
    (text inside ``<{...}>``), whether the op takes the device as its first operand, and keyword arguments
    the probe passes to the ttnn call."""

    id: str
    op: str
    operands: tuple[Desc, ...]
    results: tuple[Desc, ...]
    attrs: str = ""
    device: bool = False
    kwargs: dict = field(default_factory=dict)


def _shape(rng: random.Random, rank: int) -> tuple[int, ...]:
    lead = [rng.choice([1, 1, 2, 3, 4]) for _ in range(rank - 2)]
    h = rng.choice([32, 64, 96, 128, 200, 256, 320, 7, 50])
    w = rng.choice([32, 64, 128, 256, 384, 512, 100, 33])
    return (*lead, h, w)


def _cases() -> list[MiscCase]:
    rng = random.Random(11)
    out: list[MiscCase] = []
    for i in range(10):  # copy(src, dst): dst's memory config and dtype
        shape = _shape(rng, rng.randint(2, 4))
        layout = rng.choice(["tile", "tile", "row_major"])
        dt = rng.choice(["bf16", "f32", "bfp_bf8"] if layout == "tile" else ["bf16", "f32"])
        odt = rng.choice([dt, dt, "bf16", "f32"]) if layout == "tile" else dt
        buf = rng.choice(["dram", "l1"])
        obuf = buf if rng.random() < 0.7 else rng.choice(["dram", "l1"])
        out.append(MiscCase(f"copy/{i}", "ttnn.copy", ((shape, dt, layout, buf), (shape, odt, layout, obuf)), ()))
    for i in range(10):  # assign(input) -> result's memory config and dtype
        shape = _shape(rng, rng.randint(2, 4))
        layout = rng.choice(["tile", "tile", "row_major"])
        dt = rng.choice(["bf16", "f32", "bfp_bf8"] if layout == "tile" else ["bf16", "f32"])
        odt = rng.choice([dt, dt, "bf16", "f32"]) if layout == "tile" else dt
        buf = rng.choice(["dram", "l1"])
        obuf = buf if rng.random() < 0.7 else rng.choice(["dram", "l1"])
        out.append(MiscCase(f"assign/{i}", "ttnn.assign", ((shape, dt, layout, buf),), ((shape, odt, layout, obuf),)))
    for i in range(6):  # bitcast_convert: same-width dtypes
        shape = _shape(rng, rng.randint(2, 4))
        dt, odt = rng.choice([("bf16", "u16"), ("f32", "si32"), ("f32", "u32"), ("si32", "f32")])
        buf = rng.choice(["dram", "l1"])
        out.append(MiscCase(f"bitcast_convert/{i}", "ttnn.bitcast_convert", ((shape, dt, "tile", buf),),
                            ((shape, odt, "tile", buf),), f"dtype = #ttcore.supportedDataTypes<{odt}>"))
    for i in range(8):  # dropout
        shape = _shape(rng, rng.randint(2, 4))
        dt = rng.choice(["bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        out.append(MiscCase(f"dropout/{i}", "ttnn.dropout", ((shape, dt, "tile", buf),), ((shape, dt, "tile", buf),),
                            "prob = 2.000000e-01 : f32, scale = 1.250000e+00 : f32, seed = 42 : ui32, "
                            "use_per_device_seed = false"))
    for i in range(8):  # rand
        shape = _shape(rng, rng.randint(2, 4))
        dt = rng.choice(["bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        dims = "x".join(map(str, shape))
        out.append(MiscCase(f"rand/{i}", "ttnn.rand", (), ((shape, dt, "tile", buf),),
                            f"size = #ttnn.shape<{dims}>, dtype = #ttcore.supportedDataTypes<{dt}>, "
                            f"layout = #ttnn.layout<tile>, low = 0.000000e+00 : f32, high = 1.000000e+00 : f32, "
                            f"seed = 7 : ui32", device=True))
    for i in range(6):  # quantize / dequantize / requantize, per-tensor (1-element scale and zero point)
        shape = _shape(rng, rng.randint(2, 4))
        buf = rng.choice(["dram", "l1"])
        fdt = rng.choice(["bf16", "f32"])
        scale, zp = ((1,), "f32", "tile", "dram"), ((1,), "si32", "tile", "dram")
        out.append(MiscCase(f"quantize/{i}", "ttnn.quantize", ((shape, fdt, "tile", buf), scale, zp),
                            ((shape, "si32", "tile", buf),), "output_dtype = #ttcore.supportedDataTypes<si32>"))
        out.append(MiscCase(f"dequantize/{i}", "ttnn.dequantize", ((shape, "si32", "tile", buf), scale, zp),
                            ((shape, fdt, "tile", buf),), f"output_dtype = #ttcore.supportedDataTypes<{fdt}>"))
        out.append(MiscCase(f"requantize/{i}", "ttnn.requantize", ((shape, "si32", "tile", buf), scale, zp, scale, zp),
                            ((shape, "si32", "tile", buf),), "output_dtype = #ttcore.supportedDataTypes<si32>"))
    for i in range(8):  # batch_norm_inference(input, mean, var, weight?, bias?)
        n, c = rng.choice([1, 2, 3]), rng.choice([3, 16, 32, 64, 96])
        h, w = rng.choice([7, 16, 32, 56, 64]), rng.choice([7, 16, 32, 56, 64])
        dt = rng.choice(["bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        affine = rng.random() < 0.7
        stat = ((1, c, 1, 1), dt, "tile", buf)
        ins = ((n, c, h, w), dt, "tile", buf), stat, stat, *((stat, stat) if affine else ())
        seg = "1, 1, 1, 1, 1" if affine else "1, 1, 1, 0, 0"
        out.append(MiscCase(f"batch_norm_inference/{i}", "ttnn.batch_norm_inference", ins, (((n, c, h, w), dt, "tile", buf),),
                            f"epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: {seg}>"))
    for i in range(8):  # global_avg_pool2d [N, H, W, C] -> [N, 1, 1, C]
        n, h, w, c = rng.choice([1, 2]), rng.choice([7, 8, 14, 16, 32]), rng.choice([7, 8, 14, 16, 32]), \
            rng.choice([32, 64, 96, 128, 256, 512])
        dt = rng.choice(["bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        out.append(MiscCase(f"global_avg_pool2d/{i}", "ttnn.global_avg_pool2d", (((n, h, w, c), dt, "tile", buf),),
                            (((n, 1, 1, c), dt, "tile", buf),)))
    for i in range(10):  # sort along the last dim (rank 4 ones in the single-row single-core range, and others)
        rank = rng.choice([4, 4, 4, 3, 2])
        lead = [rng.choice([1, 2, 3]) for _ in range(rank - 2)]
        shape = (*lead, rng.choice([32, 64, 96, 200]), rng.choice([64, 128, 256, 512, 1024, 2048, 100]))
        dt = rng.choice(["bf16", "bf16", "f32"])
        idx = "u32" if dt == "f32" else "u16"
        buf = rng.choice(["dram", "l1"])
        desc = rng.choice(["true", "false"])
        out.append(MiscCase(f"sort/{i}", "ttnn.sort", ((shape, dt, "tile", buf),),
                            ((shape, dt, "tile", buf), (shape, idx, "tile", buf)),
                            f"dim = -1 : si8, descending = {desc}, stable = false", kwargs={"descending": desc == "true"}))
    for i in range(12):  # conv1d(input [N, L, C], weight [Cout, Cin/g, K] on the host, bias?, device)
        n, length = rng.choice([1, 1, 2, 4]), rng.choice([16, 50, 64, 128, 256, 400, 1024])
        cin, cout = rng.choice([8, 16, 32, 64, 128, 256]), rng.choice([16, 32, 64, 128, 256])
        k, st = rng.choice([2, 3, 3, 5, 7]), rng.choice([1, 1, 2])
        pl = rng.choice([0, 1, k // 2])
        lout = (length + 2 * pl - (k - 1) - 1) // st + 1
        layout = rng.choice(["row_major", "row_major", "tile"])
        bias = rng.random() < 0.6
        ins = (((n, length, cin), "bf16", layout, "dram"), ((cout, cin, k), "bf16", "row_major", "system_memory"))
        ins += (((1, 1, 1, cout), "bf16", "row_major", "system_memory"),) if bias else ()
        out.append(MiscCase(f"conv1d/{i}", "ttnn.conv1d", ins, (((1, 1, n * lout, cout), "bf16", "tile", "dram"),),
                            f"batch_size = {n} : i32, dilation = 1 : i32, groups = 1 : i32, in_channels = {cin} : i32, "
                            f"input_length = {length} : i32, kernel_size = {k} : i32, out_channels = {cout} : i32, "
                            f"padding = array<i32: {pl}, {pl}>, stride = {st} : i32", device=True,
                            kwargs={"k": k, "stride": st, "pad": pl}))
    for i in range(8):  # embedding_bw(index [B, 1, 1, N] u32 row-major, weight [V, E] (2D, as the verifier wants), grad [1, 1, B*N, E])
        b, n = rng.choice([1, 2, 4]), rng.choice([32, 64, 128])
        v, e = rng.choice([128, 1024, 4096]), rng.choice([64, 256, 768, 2048, 4096])
        dt = rng.choice(["bf16", "bf16", "f32"])
        buf = rng.choice(["dram", "l1"]) if e <= 768 else "dram"
        out.append(MiscCase(f"embedding_bw/{i}", "ttnn.embedding_bw",
                            (((b, 1, 1, n), "u32", "row_major", "dram"), ((v, e), dt, "tile", "dram"),
                             ((1, 1, b * n, e), dt, "tile", buf)), (((1, 1, v, e), dt, "tile", buf),),
                            f"dtype = #ttcore.supportedDataTypes<{dt}>"))
    for i in range(10):  # rms_norm_pre_all_gather / layer_norm_pre_all_gather (bf16, 1D factory), residual sometimes
        name = rng.choice(["rms_norm_pre_all_gather", "layer_norm_pre_all_gather"])
        lead = rng.choice([(1, 1), (1, 2), (2, 1)])
        h, w = rng.choice([32, 64, 128, 256, 1024]), rng.choice([256, 512, 1024, 2048, 4096, 100])
        buf = rng.choice(["dram", "l1"]) if w <= 2048 else "dram"
        stats = 32 if name.startswith("rms") else 64
        x = ((*lead, h, w), "bf16", "tile", buf)
        res = rng.random() < 0.3
        seg = ("1, 1" if res else "1, 0") + (", 0" if name.startswith("layer") else "")
        out.append(MiscCase(f"{name}/{i}", f"ttnn.{name}", (x, x) if res else (x,),
                            (((*lead, h, stats), "bf16", "tile", buf),),
                            f"dtype = #ttcore.supportedDataTypes<bf16>, operandSegmentSizes = array<i32: {seg}>"))
    return out


CASES: list[MiscCase] = _cases()
