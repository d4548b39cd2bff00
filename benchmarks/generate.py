"""Generate large synthetic TTNN programs in the real compiler's module shape.

Two kinds, both inside ``ttcore.device_module { builtin.module { func.func } }``
with a Wormhole system_desc, so that ``ttanalyze check`` does the work it does on
real output:

* ``repeated``: one function, a chain of ops cycling through eltwise, matmul,
  reshape, permute, typecast and deallocate ops on ``1x128x768``-sized bf16 tile
  tensors in DRAM and L1: 14 distinct op signatures, as the repeated layers of a
  real model (a per-signature cache makes it cheap).
* ``distinct``: several functions whose layers all have different shapes (each
  layer slices a ``[1, S, H]`` input of its own size from the function's
  argument, moves it to L1, and runs eltwise ops, a reshape, a transpose, two
  matmuls ``[S, H] x [H, S]`` and ``[S, S] x [S, H]`` and a typecast round trip
  on it), with a layout alias per distinct tensor type in DRAM and L1: thousands
  of distinct op signatures and layouts, so nothing is shared between layers.
* ``distinct_locs``: the ``distinct`` program with its ops' locations as tt-mlir
  prints them: ``loc(#locN)`` on each op, and after the module the ``#loc``
  alias lines, a name location on a file location defined before it
  (``#loc7 = loc("op3"(#loc6))``, ``#loc6 = loc("layers.py":3:5)``): twice as
  many lines to normalize and locations to check as ``distinct``'s inline
  ``loc("op3")``.

* ``groups``: a module of several function groups (:func:`generate_groups`): ``main`` with its
  const-eval function and a callee, and independent functions with findings in several of them.

Usage: python benchmarks/generate.py N_OPS OUT.mlir [--kind repeated|distinct|distinct_locs|groups]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

SYSTEM_DESC = (
    '#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], '
    "[{arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, "
    "num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, "
    "pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, "
    "erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073119552, "
    "supported_data_types = [<f32>, <bf16>, <bfp_bf8>], supported_tile_sizes = [ 32x32], "
    "dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2, "
    "dram_grid = 1x12, dram_bank_to_logical_worker_noc0 = [(7, 3)], dram_bank_to_logical_worker_noc1 = [(7, 3)]}], "
    "[0], [1 : i32], [ 0x0x0x0]>"
)
HEADER = f"""#dram = #ttnn.buffer_type<dram>
#l1 = #ttnn.buffer_type<l1>
{SYSTEM_DESC}
#loc1 = loc("x")
#a = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 128 + d1, d2), <1x1>, memref<4x24x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#b = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 128 + d1, d2), <8x8>, memref<1x2x!ttcore.tile<32x32, bf16>, #l1>, <interleaved>>
#f = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 128 + d1, d2), <1x1>, memref<4x24x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#w = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<24x24x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#r = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x24x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#p = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 768 + d1, d2), <1x1>, memref<24x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
module @bench attributes {{}} {{
  ttcore.device_module {{
    builtin.module @bench attributes {{ttcore.system_desc = #system_desc}} {{
      func.func @main(%arg0: tensor<1x128x768xbf16, #a> loc("x"), %w: tensor<768x768xbf16, #w> loc("w")) -> tensor<1x128x768xbf16, #a> {{
"""
FOOTER = """      } loc(#loc1)
    } loc(#loc1)
  } loc(#loc1)
} loc(#loc1)
"""
A = "tensor<1x128x768xbf16, #a>"
B = "tensor<1x128x768xbf16, #b>"
F = "tensor<1x128x768xf32, #f>"
R = "tensor<128x768xbf16, #r>"
P = "tensor<1x768x128xbf16, #p>"
W = "tensor<768x768xbf16, #w>"


def _chain(emit, cur: str, i: int, w: str, out: str) -> None:
    """The first ops of layer ``i`` of :func:`generate`'s chain on ``cur`` (matmul weight ``w``), up to the reshape
    back to ``A`` that defines ``out``."""
    a, b, c, d, e = (f"%v{i}_{k}" for k in range(5))
    emit(f'{a} = "ttnn.to_memory_config"({cur}) : ({A}) -> {B}')
    emit(f'{b} = "ttnn.relu"({a}) : ({B}) -> {B}')
    emit(f'"ttnn.deallocate"({a}) <{{force = false}}> : ({B}) -> ()')
    emit(f'{c} = "ttnn.add"({b}, {b}) <{{activations = [], input_tensor_a_activations = [], input_tensor_b_activations = []}}> : ({B}, {B}) -> {A}')
    emit(f'"ttnn.deallocate"({b}) <{{force = false}}> : ({B}) -> ()')
    emit(f'{d} = "ttnn.reshape"({c}) <{{shape = [128 : i32, 768 : i32]}}> : ({A}) -> {R}')
    emit(f'{e} = "ttnn.matmul"({d}, {w}) <{{transpose_a = false, transpose_b = false}}> : ({R}, {W}) -> {R}')
    emit(f'"ttnn.deallocate"({d}) <{{force = false}}> : ({R}) -> ()')
    emit(f'{out} = "ttnn.reshape"({e}) <{{shape = [1 : i32, 128 : i32, 768 : i32]}}> : ({R}) -> {A}')


def generate(n_ops: int) -> str:
    """Text of a program with at least ``n_ops`` ops (see module docstring)."""
    lines = [HEADER]
    cur = "%arg0"
    i = 0
    count = 0

    def emit(text: str) -> None:
        nonlocal count
        lines.append(f"        {text} loc(\"op{count}\")\n")
        count += 1

    while count < n_ops:
        f, g, h = (f"%v{i}_{k}" for k in range(5, 8))
        _chain(emit, cur, i, "%w", f)
        emit(f'{g} = "ttnn.permute"({f}) <{{permutation = array<i64: 0, 2, 1>}}> : ({A}) -> {P}')
        emit(f'{h} = "ttnn.permute"({g}) <{{permutation = array<i64: 0, 2, 1>}}> : ({P}) -> {A}')
        emit(f'"ttnn.deallocate"({g}) <{{force = false}}> : ({P}) -> ()')
        emit(f'%t{i} = "ttnn.typecast"({h}) : ({A}) -> {F}')
        emit(f'%u{i} = "ttnn.typecast"(%t{i}) : ({F}) -> {A}')
        emit(f'"ttnn.deallocate"(%t{i}) <{{force = false}}> : ({F}) -> ()')
        cur = f"%u{i}"
        i += 1
    lines.append(f"        return {cur} : {A} loc(#loc1)\n")
    lines.append(FOOTER)
    return "".join(lines)


DISTINCT_FUNCS = 4
DISTINCT_S = 53  # layer j: S = 32 + 7 * (j % 53), H = 64 + 16 * ((j // 53) % 71): 3,763 distinct (S, H)
DISTINCT_H = 71


def _tiles(n: int) -> int:
    return -(-n // 32)


def _layer_shape(j: int) -> tuple[int, int]:
    return 32 + 7 * (j % DISTINCT_S), 64 + 16 * ((j // DISTINCT_S) % DISTINCT_H)


class _Layouts:
    """One ``#ttnn_layoutN`` alias per distinct (shape, dtype, buffer) as tt-mlir's layout builder makes it."""

    def __init__(self) -> None:
        self.aliases: dict[tuple, str] = {}
        self.lines: list[str] = []

    def type(self, shape: tuple[int, ...], dtype: str = "bf16", buffer: str = "dram") -> str:
        key = (shape, dtype, buffer)
        alias = self.aliases.get(key)
        if alias is None:
            alias = self.aliases[key] = f"#ttnn_layout{len(self.aliases)}"
            rank = len(shape)
            dims = ", ".join(f"d{i}" for i in range(rank))
            padded = [*shape[:-2], _tiles(shape[-2]) * 32, shape[-1]]
            terms = []
            for i in range(rank - 1):
                stride = 1
                for d in padded[i + 1:rank - 1]:
                    stride *= d
                terms.append(f"d{i} * {stride}" if stride != 1 else f"d{i}")
            rows = 1
            for d in shape[:-2]:
                rows *= d
            tiles_h, tiles_w = rows * _tiles(shape[-2]), _tiles(shape[-1])
            if buffer == "l1":
                grid, memref = "8x8", f"1x{-(-tiles_h * tiles_w // 64)}"
            else:
                grid, memref = "1x1", f"{tiles_h}x{tiles_w}"
            self.lines.append(f"{alias} = #ttnn.ttnn_layout<({dims}) -> ({' + '.join(terms)}, d{rank - 1}), <{grid}>, "
                              f"memref<{memref}x!ttcore.tile<32x32, {dtype}>, #{buffer}>, <interleaved>>\n")
        dims = "x".join(str(d) for d in shape)
        return f"tensor<{dims}x{dtype}, {alias}>"


def generate_distinct(n_ops: int) -> str:
    """Text of a program of at least ``n_ops`` ops whose layers all differ in shape (see module docstring)."""
    layouts = _Layouts()
    s_max = max(_layer_shape(j)[0] for j in range(DISTINCT_S))
    h_max = max(_layer_shape(j * DISTINCT_S)[1] for j in range(DISTINCT_H))
    arg = layouts.type((1, s_max, h_max))
    per_func = -(-n_ops // DISTINCT_FUNCS)
    body: list[str] = []
    count = 0
    layer = 0

    def emit(text: str) -> None:
        nonlocal count
        body.append(f"        {text} loc(\"op{count}\")\n")
        count += 1

    for fi in range(DISTINCT_FUNCS):
        visibility = "" if fi == DISTINCT_FUNCS - 1 else "private "
        start = count
        last = None
        body.append(f"      func.func {visibility}@layers{fi}(%arg0: {arg} loc(\"x\")) -> "
                    f"RESULT_TYPE_{fi} {{\n")
        while count - start < per_func:
            s, h = _layer_shape(layer)
            A, B = layouts.type((1, s, h)), layouts.type((1, s, h), buffer="l1")
            R, RT, M = layouts.type((s, h)), layouts.type((h, s)), layouts.type((s, s))
            F = layouts.type((s, h), "f32")
            v = [f"%l{layer}_{k}" for k in range(10)]
            if last is not None:
                emit(f'"ttnn.deallocate"({last}) <{{force = false}}> : ({layouts.type(last_shape)}) -> ()')
            emit(f'{v[0]} = "ttnn.slice_static"(%arg0) <{{begins = [0 : i32, 0 : i32, 0 : i32], '
                 f'ends = [1 : i32, {s} : i32, {h} : i32], step = [1 : i32, 1 : i32, 1 : i32]}}> : ({arg}) -> {A}')
            emit(f'{v[1]} = "ttnn.to_memory_config"({v[0]}) : ({A}) -> {B}')
            emit(f'"ttnn.deallocate"({v[0]}) <{{force = false}}> : ({A}) -> ()')
            emit(f'{v[2]} = "ttnn.relu"({v[1]}) : ({B}) -> {B}')
            emit(f'"ttnn.deallocate"({v[1]}) <{{force = false}}> : ({B}) -> ()')
            emit(f'{v[3]} = "ttnn.add"({v[2]}, {v[2]}) <{{activations = [], input_tensor_a_activations = [], '
                 f'input_tensor_b_activations = []}}> : ({B}, {B}) -> {A}')
            emit(f'"ttnn.deallocate"({v[2]}) <{{force = false}}> : ({B}) -> ()')
            emit(f'{v[4]} = "ttnn.reshape"({v[3]}) <{{shape = [{s} : i32, {h} : i32]}}> : ({A}) -> {R}')
            emit(f'"ttnn.deallocate"({v[3]}) <{{force = false}}> : ({A}) -> ()')
            emit(f'{v[5]} = "ttnn.permute"({v[4]}) <{{permutation = array<i64: 1, 0>}}> : ({R}) -> {RT}')
            emit(f'{v[6]} = "ttnn.matmul"({v[4]}, {v[5]}) <{{transpose_a = false, transpose_b = false}}> : '
                 f'({R}, {RT}) -> {M}')
            emit(f'"ttnn.deallocate"({v[5]}) <{{force = false}}> : ({RT}) -> ()')
            emit(f'{v[7]} = "ttnn.matmul"({v[6]}, {v[4]}) <{{transpose_a = false, transpose_b = false}}> : '
                 f'({M}, {R}) -> {R}')
            emit(f'"ttnn.deallocate"({v[6]}) <{{force = false}}> : ({M}) -> ()')
            emit(f'"ttnn.deallocate"({v[4]}) <{{force = false}}> : ({R}) -> ()')
            emit(f'{v[8]} = "ttnn.typecast"({v[7]}) <{{dtype = #ttcore.supportedDataTypes<f32>}}> : ({R}) -> {F}')
            emit(f'"ttnn.deallocate"({v[7]}) <{{force = false}}> : ({R}) -> ()')
            emit(f'{v[9]} = "ttnn.typecast"({v[8]}) <{{dtype = #ttcore.supportedDataTypes<bf16>}}> : ({F}) -> {R}')
            emit(f'"ttnn.deallocate"({v[8]}) <{{force = false}}> : ({F}) -> ()')
            last, last_shape = v[9], (s, h)
            layer += 1
        ret = layouts.type(last_shape)
        body[body.index(next(b for b in body if f"RESULT_TYPE_{fi}" in b))] = (
            f"      func.func {visibility}@layers{fi}(%arg0: {arg} loc(\"x\")) -> {ret} {{\n")
        body.append(f"        return {last} : {ret} loc(#loc1)\n      }} loc(#loc1)\n")
    head = ["#dram = #ttnn.buffer_type<dram>\n", "#l1 = #ttnn.buffer_type<l1>\n", SYSTEM_DESC + "\n",
            '#loc1 = loc("x")\n', *layouts.lines,
            "module @bench attributes {} {\n  ttcore.device_module {\n"
            "    builtin.module @bench attributes {ttcore.system_desc = #system_desc} {\n"]
    return "".join(head + body + ["    } loc(#loc1)\n  } loc(#loc1)\n} loc(#loc1)\n"])


def generate_distinct_locs(n_ops: int) -> str:
    """:func:`generate_distinct`'s program with tt-mlir's ``#loc`` aliases (see module docstring)."""
    text = generate_distinct(n_ops)
    aliases: list[str] = []

    def alias(m: re.Match) -> str:
        k = 2 * len(aliases) + 100  # #loc100, #loc102, ...: the name; the next number its file location
        aliases.append(f'#loc{k + 1} = loc("layers.py":{m.group(1)}:5)\n#loc{k} = loc("op{m.group(1)}"(#loc{k + 1}))\n')
        return f"loc(#loc{k})"

    body = re.sub(r'loc\("op(\d+)"\)', alias, text)
    return body + "".join(aliases)


GROUPS_FUNCS = 6  # independent functions of the ``groups`` kind, besides main with its const-eval and callee
X = "tensor<1x128x768xbf16, #x>"  # a layout whose memref disagrees with the shape (4x23 tiles, not 4x24)


def generate_groups(n_ops: int) -> str:
    """A module of several function groups (for the split of :mod:`ttanalyze.shards`): ``main``, which
    ``ttcore.load_cached``s its const-eval function and calls a helper (one group), and
    :data:`GROUPS_FUNCS` independent functions, alike (equal peaks in several groups), every other one
    with a layout that disagrees with its shape (findings with equal messages in several groups, on an
    argument and on an op); about ``n_ops`` ops in all."""
    header = HEADER.split("module @bench")[0] + (
        "#x = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 128 + d1, d2), <1x1>, memref<4x23x!ttcore.tile<32x32, bf16>, "
        "#dram>, <interleaved>>\n")
    lines = [header, "module @groups attributes {} {\n  ttcore.device_module {\n"
             "    builtin.module @groups attributes {ttcore.system_desc = #system_desc} {\n"]
    per = max(n_ops // (GROUPS_FUNCS + 2), 9) // 9
    count = 0

    def emit(text: str) -> None:
        nonlocal count
        lines.append(f"        {text} loc(\"op{count}\")\n")
        count += 1

    def body(cur: str, w: str) -> str:
        for i in range(per):
            _chain(emit, cur, i, w, f"%u{i}")
            cur = f"%u{i}"
        return cur

    lines.append(f'      func.func private @main_const_eval_0(%arg0: {W} loc("w")) -> {W} attributes '
                 '{tt.function_type = "const_eval"} {\n')
    emit(f'%0 = "ttnn.relu"(%arg0) : ({W}) -> {W}')
    lines.append(f"        return %0 : {W} loc(#loc1)\n      }} loc(#loc1)\n")
    lines.append(f'      func.func private @helper(%arg0: {A} loc("x"), %w: {W} loc("w")) -> {A} {{\n')
    lines.append(f"        return {body('%arg0', '%w')} : {A} loc(#loc1)\n      }} loc(#loc1)\n")
    for k in range(GROUPS_FUNCS):
        arg = X if k % 2 else A
        lines.append(f'      func.func @layers{k}(%arg0: {arg} loc("x"), %w: {W} loc("w")) -> {A} {{\n')
        cur = "%arg0"
        if k % 2:
            emit(f'%in = "ttnn.relu"(%arg0) : ({X}) -> {X}')
            emit(f'%in2 = "ttnn.relu"(%in) : ({X}) -> {A}')
            cur = "%in2"
        lines.append(f"        return {body(cur, '%w')} : {A} loc(#loc1)\n      }} loc(#loc1)\n")
    lines.append(f'      func.func @main(%arg0: {A} loc("x"), %w: {W} loc("w")) -> {A} {{\n')
    emit(f'%wc = ttcore.load_cached(@main_const_eval_0, [%w]) : ({W}) -> {W}')
    emit(f'%h = call @helper(%arg0, %wc) : ({A}, {W}) -> {A}')
    lines.append(f"        return {body('%h', '%wc')} : {A} loc(#loc1)\n      }} loc(#loc1)\n")
    lines.append(FOOTER.split("\n", 1)[1])
    return "".join(lines)


KINDS = {"repeated": generate, "distinct": generate_distinct, "distinct_locs": generate_distinct_locs,
         "groups": generate_groups}

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="Write a generated TTNN program.")
    ap.add_argument("n_ops", type=int)
    ap.add_argument("out", type=Path)
    ap.add_argument("--kind", choices=sorted(KINDS), default="repeated")
    args = ap.parse_args()
    args.out.write_text(KINDS[args.kind](args.n_ops))
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes, >= {args.n_ops:,} ops)")
