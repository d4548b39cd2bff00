// Constructed for ttanalyze's tests (shape of tt-mlir's CPU-hoisted const-eval output: a TTNN device
// module calling a function of a ttcore.cpu_module lowered to the LLVM dialect). The llvm.mlir.constant
// below has an i64 attribute on an i32 result, which the upstream MLIR verifier rejects.
#dram = #ttnn.buffer_type<dram>
#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073119552, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2, dram_grid = 1x12, dram_bank_to_logical_worker_noc0 = [], dram_bank_to_logical_worker_noc1 = []}], [0], [1 : i32], [ 0x0x0x0]>
#ttnn_layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout_host = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x32xf32, #ttnn.buffer_type<system_memory>>>
module {
  ttcore.device_module {
    builtin.module attributes {ttcore.system_desc = #system_desc} {
      func.func @forward(%arg0: tensor<32x32xf32, #ttnn_layout>, %arg1: tensor<32x32xf32, #ttnn_layout_host>) -> tensor<32x32xf32, #ttnn_layout> {
        %0 = call @cpu_hoisted_const_eval_0(%arg1) : (tensor<32x32xf32, #ttnn_layout_host>) -> tensor<32x32xf32, #ttnn_layout_host>
        %1 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device
        %2 = "ttnn.to_device"(%0, %1) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<32x32xf32, #ttnn_layout_host>, !ttnn.device) -> tensor<32x32xf32, #ttnn_layout>
        %3 = "ttnn.add"(%arg0, %2) : (tensor<32x32xf32, #ttnn_layout>, tensor<32x32xf32, #ttnn_layout>) -> tensor<32x32xf32, #ttnn_layout>
        return %3 : tensor<32x32xf32, #ttnn_layout>
      }
      func.func private @cpu_hoisted_const_eval_0(tensor<32x32xf32, #ttnn_layout_host>) -> tensor<32x32xf32, #ttnn_layout_host> attributes {tt.function_type = "forward_cpu_declaration"}
    }
  }
  ttcore.cpu_module {
    builtin.module {
      llvm.func @cpu_hoisted_const_eval_0(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64) -> !llvm.struct<(ptr, ptr, i64)> {
        %0 = llvm.mlir.constant(1 : i64) : i32
        %1 = llvm.mlir.undef : !llvm.struct<(ptr, ptr, i64)>
        llvm.return %1 : !llvm.struct<(ptr, ptr, i64)>
      }
      llvm.func @cpu_hoisted_const_eval_0_helper(%arg0: !llvm.ptr) {
        llvm.return
      }
    }
  }
}
