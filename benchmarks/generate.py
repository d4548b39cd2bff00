"""Generate a large synthetic TTNN program in the real compiler's module shape.

The program is a chain of ``n_ops`` ops cycling through to_layout-free
eltwise, matmul, reshape, permute, typecast and deallocate ops on
``1x128x768``-sized bf16 tile tensors in DRAM and L1, inside
``ttcore.device_module { builtin.module { ttcore.device; func.func } }`` with a
Wormhole system_desc, so that ``ttanalyze check`` does the work it does on
real output.

Usage: python benchmarks/generate.py N_OPS OUT.mlir
"""

from __future__ import annotations

import sys
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
        a, b, c, d, e, f, g, h = (f"%v{i}_{k}" for k in range(8))
        emit(f'{a} = "ttnn.to_memory_config"({cur}) : ({A}) -> {B}')
        emit(f'{b} = "ttnn.relu"({a}) : ({B}) -> {B}')
        emit(f'"ttnn.deallocate"({a}) <{{force = false}}> : ({B}) -> ()')
        emit(f'{c} = "ttnn.add"({b}, {b}) <{{activations = [], input_tensor_a_activations = [], input_tensor_b_activations = []}}> : ({B}, {B}) -> {A}')
        emit(f'"ttnn.deallocate"({b}) <{{force = false}}> : ({B}) -> ()')
        emit(f'{d} = "ttnn.reshape"({c}) <{{shape = [128 : i32, 768 : i32]}}> : ({A}) -> {R}')
        emit(f'{e} = "ttnn.matmul"({d}, %w) <{{transpose_a = false, transpose_b = false}}> : ({R}, {W}) -> {R}')
        emit(f'"ttnn.deallocate"({d}) <{{force = false}}> : ({R}) -> ()')
        emit(f'{f} = "ttnn.reshape"({e}) <{{shape = [1 : i32, 128 : i32, 768 : i32]}}> : ({R}) -> {A}')
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


if __name__ == "__main__":
    n, out = int(sys.argv[1]), Path(sys.argv[2])
    out.write_text(generate(n))
    print(f"wrote {out} ({out.stat().st_size:,} bytes, >= {n:,} ops)")
