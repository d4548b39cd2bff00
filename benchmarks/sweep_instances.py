"""Op instances of the circular-buffer accuracy sweep (benchmarks/accuracy_sweep.py).

Two sources:
* every device op of the bundled fixtures (the real compiler's programs and the
  seed failures), replayed as written;
* generated single-op modules over shapes, data types, layouts and memory
  configs per op family, emitted with :mod:`ttanalyze.ir.emit` on the Blackhole
  P150 system_desc of the real fixtures, so each goes through the same parse and
  analysis as a user's file.

Each instance is identified by a stable id (``fixture:real/mlp_o2/ttnn.mlir:37``,
``gen:unary/relu/bf16/64x128/dram``), used to attach known causes of mismatches.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

# NOT_REPLAYED: ops that run no device program of their own, with the reason; the sweep skips them.
from ttanalyze.executor.cbcheck import NOT_REPLAYED  # noqa: F401 - re-exported for the sweep
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ops.work_split import num_cores_to_corerangeset

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
GRID_XY = (11, 10)  # the mock P150's compute grid (x, y)


@dataclass(frozen=True)
class Instance:
    """One op to model and to replay: its module text and the line of the op."""

    id: str
    family: str
    text: str
    line: int
    path: str = "<generated>"


def _system_desc() -> str:
    text = (FIXTURES / "real" / "mlp_o2" / "ttnn.mlir").read_text()
    return next(line for line in text.splitlines() if line.startswith("#system_desc = "))


SYSTEM_DESC = _system_desc()


def fixture_instances() -> list[Instance]:
    """Every replayable op of every fixture (views and no-op conversions included)."""
    from ttanalyze.ir.parse import parse_file

    out = []
    for path in sorted((FIXTURES / "real").glob("*/ttnn.mlir")) + sorted((FIXTURES / "seeds").glob("*.mlir")):
        rel = path.relative_to(FIXTURES)
        text = path.read_text()
        for op in parse_file(path).ops:
            if op.name in NOT_REPLAYED:
                continue
            out.append(Instance(f"fixture:{rel}:{op.pos.line}", _family(op.name), text, op.pos.line, str(path)))
    return out


def _family(name: str) -> str:
    from ttanalyze import ops as O

    model = O.lookup(name)
    return model.family if model else "unmodeled"


def _shape_text(shape) -> str:
    return "x".join(map(str, shape))


def _op(op: str, operands: list[TensorDesc], result: TensorDesc, attrs: str = "") -> tuple[str, int]:
    func = single_op_func(op, operands, [result], attrs)
    text = module_text(SYSTEM_DESC, func)
    line = next(i + 1 for i, l in enumerate(text.splitlines()) if f'"{op}"' in l)
    return text, line


def _dram(shape, dtype="bf16", layout="tile") -> TensorDesc:
    return TensorDesc(tuple(shape), dtype, layout, "dram", "interleaved")


def _l1(shape, dtype="bf16", layout="tile") -> TensorDesc:
    return TensorDesc(tuple(shape), dtype, layout, "l1", "interleaved", (10, 11))


def _sharded(shape, kind: str, cores: int, dtype="bf16") -> TensorDesc:
    """A height/width/block-sharded L1 tile tensor over ``cores`` (block: a rows x cols rectangle)."""
    if kind == "block":
        rows, cols = cores
        crs = CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(cols - 1, rows - 1)),))
        return TensorDesc(tuple(shape), dtype, "tile", "l1", "block_sharded", (rows, cols), crs)
    crs = num_cores_to_corerangeset(cores, GRID_XY, row_wise=True)
    grid = (cores, 1) if kind == "height" else (1, cores)
    return TensorDesc(tuple(shape), dtype, "tile", "l1", f"{kind}_sharded", grid, crs)


def _gen(family: str, key: str, op: str, operands, result, attrs: str = "") -> Instance:
    text, line = _op(op, operands, result, attrs)
    return Instance(f"gen:{family}/{key}", family, text, line)


def _ints(v) -> str:
    return "[" + ", ".join(f"{x} : i32" for x in v) + "]"


def generated_instances() -> list[Instance]:
    """The generated op instances, family by family."""
    out: list[Instance] = []
    shapes = [(32, 32), (64, 128), (1, 128, 768), (3, 100, 70), (1, 8, 128, 64)]
    # eltwise unary
    for op, shape, dtype, where in itertools.product(("relu", "exp", "gelu", "sqrt"), shapes, ("bf16", "f32"), ("dram", "l1")):
        t = (_dram if where == "dram" else _l1)(shape, dtype)
        out.append(_gen("eltwise_unary", f"{op}/{dtype}/{_shape_text(shape)}/{where}", f"ttnn.{op}", [t], t))
    for kind, shape, cores in (("height", (256, 64), 8), ("width", (32, 512), 8), ("block", (128, 256), (4, 4)),
                               ("height", (1024, 32), 32), ("width", (64, 1024), 16), ("block", (256, 512), (4, 8))):
        t = _sharded(shape, kind, cores)
        out.append(_gen("eltwise_unary", f"relu/bf16/{_shape_text(shape)}/{kind}", "ttnn.relu", [t], t))
    # eltwise binary, with broadcasts
    pairs = [((64, 128), (64, 128)), ((1, 128, 768), (1, 1, 768)), ((1, 128, 768), (1, 128, 1)),
             ((32, 32), (1, 1)), ((2, 64, 96), (2, 64, 96))]
    acts = 'activations = [], input_tensor_a_activations = [], input_tensor_b_activations = []'
    for op, (a, b), dtype in itertools.product(("add", "multiply", "subtract", "maximum", "divide"), pairs, ("bf16", "f32")):
        out.append(_gen("eltwise_binary", f"{op}/{dtype}/{_shape_text(a)}+{_shape_text(b)}", f"ttnn.{op}",
                        [_dram(a, dtype), _dram(b, dtype)], _dram(a, dtype), acts))
    for op, (a, b) in itertools.product(("add", "multiply"), pairs):
        out.append(_gen("eltwise_binary", f"{op}/bf16/{_shape_text(a)}+{_shape_text(b)}/l1", f"ttnn.{op}",
                        [_l1(a), _l1(b)], _l1(a), acts))
    # reductions
    for op, shape, dims in itertools.product(("sum", "mean", "max"), ((64, 128), (1, 128, 768), (2, 3, 64, 96)),
                                             ((-1,), (-2,), (-2, -1))):
        res = tuple(1 if i - len(shape) in dims else d for i, d in enumerate(shape))
        out.append(_gen("reduction", f"{op}/{_shape_text(shape)}/dims{list(dims)}/keep", f"ttnn.{op}", [_dram(shape)],
                        _dram(res), f"dim_arg = {_ints(dims)}, keep_dim = true"))
    for op, shape in itertools.product(("sum", "mean", "max"), ((64, 128), (1, 128, 768), (2, 3, 64, 96))):
        res = shape[:-1]
        out.append(_gen("reduction", f"{op}/{_shape_text(shape)}/dims[-1]/drop", f"ttnn.{op}", [_dram(shape)],
                        _dram(res), f"dim_arg = {_ints((-1,))}, keep_dim = false"))
    # normalization
    for shape, dtype in itertools.product(((64, 128), (1, 8, 128, 128), (1, 32, 1024)), ("bf16", "f32")):
        out.append(_gen("normalization", f"softmax/{dtype}/{_shape_text(shape)}", "ttnn.softmax", [_dram(shape, dtype)],
                        _dram(shape, dtype), "dimension = -1 : si32"))
    for op, shape, dtype in itertools.product(("layer_norm", "rms_norm"), ((128, 768), (1, 32, 2048)), ("bf16", "f32")):
        out.append(_gen("normalization", f"{op}/{dtype}/{_shape_text(shape)}", f"ttnn.{op}", [_dram(shape, dtype)],
                        _dram(shape, dtype), "epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 0, 0>"))
    # matmul / linear with ttnn's default program config
    for (m, k, n), dtype, where in itertools.product(((32, 128, 256), (128, 768, 3072), (256, 256, 256),
                                                      (1024, 1024, 1024), (64, 2048, 128)), ("bf16", "bfp_bf8"), ("dram", "l1")):
        mk = _dram if where == "dram" else _l1
        out.append(_gen("matmul", f"matmul/{dtype}/{m}x{k}x{n}/{where}", "ttnn.matmul",
                        [mk((m, k), dtype), mk((k, n), dtype)], mk((m, n), "bf16"),
                        "transpose_a = false, transpose_b = false"))
    for m, k, n in ((32, 128, 256), (128, 768, 3072), (256, 512, 1024)):
        out.append(_gen("matmul", f"linear/bf16/{m}x{k}x{n}", "ttnn.linear",
                        [_dram((m, k)), _dram((k, n)), _dram((n,))], _dram((m, n)),
                        "transpose_a = false, transpose_b = false"))
    # layout conversions
    for shape, dtype in itertools.product(((32, 32), (64, 128), (100, 70), (1, 128, 768), (4, 9000)), ("bf16", "f32")):
        out.append(_gen("layout_conversion", f"tilize/{dtype}/{_shape_text(shape)}", "ttnn.to_layout",
                        [_dram(shape, dtype, "row_major")], _dram(shape, dtype)))
        out.append(_gen("layout_conversion", f"untilize/{dtype}/{_shape_text(shape)}", "ttnn.to_layout",
                        [_dram(shape, dtype)], _dram(shape, dtype, "row_major")))
        other = "f32" if dtype == "bf16" else "bf16"
        out.append(_gen("layout_conversion", f"typecast/{dtype}->{other}/{_shape_text(shape)}", "ttnn.typecast",
                        [_dram(shape, dtype)], _dram(shape, other)))
    for shape in ((64, 128), (1, 128, 768), (256, 64)):
        out.append(_gen("layout_conversion", f"to_l1/{_shape_text(shape)}", "ttnn.to_memory_config", [_dram(shape)], _l1(shape)))
        out.append(_gen("layout_conversion", f"from_l1/{_shape_text(shape)}", "ttnn.to_memory_config", [_l1(shape)], _dram(shape)))
    for kind, shape, cores in (("height", (256, 64), 8), ("width", (32, 512), 8), ("block", (128, 256), (4, 4))):
        out.append(_gen("layout_conversion", f"to_{kind}/{_shape_text(shape)}", "ttnn.to_memory_config",
                        [_dram(shape)], _sharded(shape, kind, cores)))
        out.append(_gen("layout_conversion", f"from_{kind}/{_shape_text(shape)}", "ttnn.to_memory_config",
                        [_sharded(shape, kind, cores)], _dram(shape)))
    # data movement
    for src, dst in (((1, 128, 768), (128, 768)), ((64, 128), (128, 64)), ((1, 4, 60, 106), (4, 60, 106)),
                     ((2, 3, 64, 96), (6, 64, 96)), ((64, 96), (2, 32, 96)), ((8, 128), (4, 256)),
                     ((3, 100, 70), (300, 70)), ((1, 8, 128), (1, 8, 128, 1)), ((96,), (1, 96)), ((32, 64), (2048,))):
        for layout in ("tile", "row_major"):
            out.append(_gen("data_movement", f"reshape/{layout}/{_shape_text(src)}->{_shape_text(dst)}", "ttnn.reshape",
                            [_dram(src, layout=layout)], _dram(dst, layout=layout), f"shape = {_ints(dst)}"))
    for shape, perm in (((1, 128, 768), (0, 2, 1)), ((2, 3, 64, 96), (0, 2, 1, 3)), ((2, 3, 64, 96), (3, 2, 1, 0)),
                        ((1, 64, 6, 18, 18), (0, 2, 3, 4, 1)), ((64, 128), (1, 0))):
        for layout in ("tile", "row_major"):
            res = tuple(shape[p] for p in perm)
            out.append(_gen("data_movement", f"permute/{layout}/{_shape_text(shape)}/{list(perm)}", "ttnn.permute",
                            [_dram(shape, layout=layout)], _dram(res, layout=layout),
                            f"permutation = array<i64: {', '.join(map(str, perm))}>"))
    for shape, pads, layout in (((64, 128), (0, 0, 0, 32), "tile"), ((1, 30, 60), (0, 0, 2, 0, 1, 1), "row_major"),
                                ((32, 32), (0, 32, 0, 32), "tile"), ((3, 10, 16), (0, 0, 1, 1, 0, 16), "row_major")):
        res = tuple(d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(shape))
        out.append(_gen("data_movement", f"pad/{layout}/{_shape_text(shape)}/{list(pads)}", "ttnn.pad",
                        [_dram(shape, layout=layout)], _dram(res, layout=layout),
                        f"padding = array<i32: {', '.join(map(str, pads))}>, value = 0.0 : f32, use_multicore = true"))
    for shape, b, e, layout in (((64, 128), (0, 0), (32, 64), "tile"), ((64, 128), (0, 32), (64, 128), "tile"),
                                ((1, 64, 6, 16, 16), (0, 0, 0, 15, 0), (1, 64, 6, 16, 16), "tile"),
                                ((10, 70), (2, 3), (8, 40), "row_major")):
        res = tuple(y - x for x, y in zip(b, e))
        out.append(_gen("data_movement", f"slice/{layout}/{_shape_text(shape)}/{list(b)}-{list(e)}", "ttnn.slice_static",
                        [_dram(shape, layout=layout)], _dram(res, layout=layout),
                        f"begins = {_ints(b)}, ends = {_ints(e)}, step = {_ints([1] * len(shape))}"))
    for shapes, dim, layout in ((((64, 128), (64, 128)), 0, "tile"), (((64, 128), (64, 64)), 1, "tile"),
                                (((1, 64, 2, 16, 16), (1, 64, 4, 16, 16)), 2, "tile"), (((10, 70), (10, 30)), 1, "row_major")):
        res = list(shapes[0])
        res[dim] = sum(s[dim] for s in shapes)
        out.append(_gen("data_movement", f"concat/{layout}/{'+'.join(map(_shape_text, shapes))}/dim{dim}", "ttnn.concat",
                        [_dram(s, layout=layout) for s in shapes], _dram(res, layout=layout), f"dim = {dim} : si32"))
    for shape, reps, dim in (((1, 64, 1, 16, 16), 2, 2), ((32, 64), 3, 0), ((2, 32, 64), 2, 1)):
        res = list(shape)
        res[dim] *= reps
        out.append(_gen("data_movement", f"repeat_interleave/{_shape_text(shape)}/x{reps}/dim{dim}", "ttnn.repeat_interleave",
                        [_dram(shape)], _dram(res), f"repeats = {reps} : ui32, dim = {dim} : si32"))
    for shape, reps in (((1, 1, 768), (1, 128, 1)), ((32, 64), (2, 3)), ((1, 4, 32), (2, 1, 1))):
        res = tuple(d * r for d, r in zip(shape, reps))
        out.append(_gen("data_movement", f"repeat/{_shape_text(shape)}/{list(reps)}", "ttnn.repeat",
                        [_dram(shape)], _dram(res), f"repeat_dims = #ttnn.shape<{_shape_text(reps)}>"))
    for (b, s), (v, h), layout in (((1, 32), (1000, 128), "tile"), ((2, 19), (49408, 512), "row_major"),
                                   ((1, 128), (512, 768), "tile")):
        out.append(_gen("data_movement", f"embedding/{b}x{s}/{v}x{h}/{layout}", "ttnn.embedding",
                        [_dram((b, s), "u32", "row_major"), _dram((v, h), layout="row_major")], _dram((b, s, h), layout=layout)))
    # conv2d, pooling, upsample
    for h, w, cin, cout, k, s, p in ((32, 32, 16, 32, 3, 1, 1), (64, 64, 32, 64, 3, 2, 1), (28, 28, 64, 64, 3, 1, 1),
                                     (56, 56, 64, 128, 3, 2, 1), (16, 16, 128, 128, 5, 1, 2)):
        oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        weight = TensorDesc((cout, cin, k, k), "bf16", "row_major", "system_memory", None)
        attrs = (f"batch_size = 1 : i32, in_channels = {cin} : i32, out_channels = {cout} : i32, input_height = {h} : i32, "
                 f"input_width = {w} : i32, kernel_size = array<i32: {k}, {k}>, stride = array<i32: {s}, {s}>, "
                 f"padding = array<i32: {p}, {p}, {p}, {p}>, dilation = array<i32: 1, 1>, groups = 1 : i32, "
                 "conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, enable_kernel_stride_folding = false, "
                 "config_tensors_in_dram = true>, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, "
                 "fp32_dest_acc_en = true>")
        out.append(_gen("conv", f"conv2d/{h}x{w}x{cin}->{cout}/k{k}s{s}p{p}", "ttnn.conv2d",
                        [_dram((1, 1, h * w, cin), layout="row_major"), weight], _dram((1, 1, oh * ow, cout)), attrs))
    for h, w, c, k, s in ((32, 32, 32, 2, 2), (64, 64, 64, 3, 2), (28, 28, 128, 2, 2), (112, 112, 64, 3, 2)):
        oh, ow = (h - k) // s + 1, (w - k) // s + 1
        attrs = (f"batch_size = 1 : si32, channels = {c} : si32, input_height = {h} : si32, input_width = {w} : si32, "
                 f"kernel_size = array<i32: {k}, {k}>, stride = array<i32: {s}, {s}>, padding = array<i32: 0, 0>, "
                 "dilation = array<i32: 1, 1>, ceil_mode = false, config_tensors_in_dram = true, reallocate_halo_output = false")
        out.append(_gen("pool", f"max_pool2d/{h}x{w}x{c}/k{k}s{s}", "ttnn.max_pool2d",
                        [_dram((1, 1, h * w, c), layout="row_major")], _dram((1, 1, oh * ow, c), layout="row_major"), attrs))
    for n, h, w, c, f in ((1, 16, 16, 32, 2), (1, 32, 32, 64, 2), (2, 8, 8, 128, 3)):
        out.append(_gen("pool", f"upsample/{n}x{h}x{w}x{c}/x{f}", "ttnn.upsample", [_dram((n, h, w, c), layout="row_major")],
                        _dram((n, h * f, w * f, c), layout="row_major"), f'scale_factor = {f} : si32, mode = "nearest"'))
    out += index_reduction_instances()
    return out


def index_reduction_instances() -> list[Instance]:
    """argmax (row-major multi-core, tile single-core, NC) and topk (single-core, multi-core, large-index route)."""
    out: list[Instance] = []
    for shape, dim, layout, dtype, where in (
            ((64, 5000), 1, "row_major", "bf16", "dram"), ((2000, 64), 1, "row_major", "bf16", "dram"),
            ((3, 2000), 1, "row_major", "bf16", "dram"), ((7104, 4096), 1, "row_major", "bf16", "dram"),
            ((64, 100000), 1, "row_major", "si32", "dram"), ((64, 300), 1, "row_major", "f32", "l1"),
            ((64, 128), 1, "tile", "bf16", "l1"), ((2, 3, 96, 64), 2, "tile", "bf16", "dram"),
            ((2, 3, 64, 64), 0, "row_major", "bf16", "dram")):
        make = _dram if where == "dram" else _l1
        res = tuple(d for i, d in enumerate(shape) if i != dim)
        out.append(_gen("reduction", f"argmax/{layout}/{dtype}/{_shape_text(shape)}/dim{dim}/{where}", "ttnn.argmax",
                        [make(shape, dtype, layout)], _dram(res, "u32", "row_major"),
                        f"dim = {dim} : si32, keep_dim = false"))
    for shape, k, dim, dtype in (((128, 4096), 3552, 1, "bf16"), ((128, 4096), 32, 1, "bf16"), ((64, 8192), 48, 1, "bf16"),
                                 ((32, 1024), 100, 1, "bf16"), ((300, 2, 64), 10, 0, "bf16"), ((64, 20), 4, 1, "bf16"),
                                 ((2, 16, 1000), 32, 2, "f32")):
        res = tuple(k if i == dim else d for i, d in enumerate(shape))
        index = "u32" if dtype == "f32" else "u16"
        func = single_op_func("ttnn.topk", [_dram(shape, dtype)], [_dram(res, dtype), _dram(res, index)],
                              f"dim = {dim} : si32, k = {k} : i32, largest = true, sorted = true")
        text = module_text(SYSTEM_DESC, func)
        line = next(i + 1 for i, l in enumerate(text.splitlines()) if '"ttnn.topk"' in l)
        out.append(Instance(f"gen:reduction/topk/{dtype}/{_shape_text(shape)}/k{k}/dim{dim}", "reduction", text, line))
    return out


def all_instances() -> list[Instance]:
    """Fixture instances first, then the generated ones."""
    return fixture_instances() + generated_instances()
