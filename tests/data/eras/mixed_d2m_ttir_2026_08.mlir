// RUN: ttmlir-opt --ttcore-register-device="system-desc-path=%system_desc_path%" --d2m-to-ttkernel-pipeline="ttnn-mode=true" --d2m-to-ttnn-pipeline -o %t.mlir %s
// RUN: FileCheck %s --input-file=%t.mlir

#dram = #ttnn.buffer_type<dram>
#l1 = #ttnn.buffer_type<l1>
#l1_mem = #ttcore.memory_space<l1>

#core_range = #ttnn.core_range<(0,0), (0,0)>
#core_ranges = #ttnn.core_range_set<[#core_range]>

#dram_memory_config = #ttnn.memory_config<#dram, <interleaved>>
#l1_memory_config = #ttnn.memory_config<#l1, <block_sharded>, #ttnn.shard_spec<<[#core_range]>, <32x32>, <row_major>>>

#dram_layout = #ttnn.ttnn_layout<
  (d0, d1) -> (d0, d1),
  <1x1>,
  memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>
  >

// Layout for single tile in L1
#l1_layout = #ttnn.ttnn_layout<
  (d0, d1) -> (d0, d1),
  <1x1>,
  memref<1x1x!ttcore.tile<32x32, f32>, #l1>, <block_sharded>, core_ranges = #core_ranges
  >

// BF16 tile layout (dtype must match memref element type for ttnn.full / empty).
#l1_layout_bf16 = #ttnn.ttnn_layout<
  (d0, d1) -> (d0, d1),
  <1x1>,
  memref<1x1x!ttcore.tile<32x32, bf16>, #l1>, <block_sharded>, core_ranges = #core_ranges
  >

module {
  func.func @test_generic(%arg0: tensor<32x32xf32, #dram_layout>) -> tensor<32x32xf32, #dram_layout> {
    %device = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device

    // CHECK: %[[T1:.*]] = "ttnn.to_memory_config"
    // CHECK: %[[T2:.*]] = "ttnn.empty"
    %ttnn_input_l1 = "ttnn.to_memory_config"(%arg0) : (tensor<32x32xf32, #dram_layout>) -> tensor<32x32xf32, #l1_layout>
    %ttnn_output_l1 = d2m.empty() : tensor<32x32xf32, #l1_layout>

    // CHECK-NOT: ttir.ttnn_metal_layout_cast
    // CHECK-NOT: ttir.ttnn_metal_layout_cast
    %metal_input_l1 = ttir.ttnn_metal_layout_cast %ttnn_input_l1 : tensor<32x32xf32, #l1_layout> -> memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>>
    %metal_output_l1 = ttir.ttnn_metal_layout_cast %ttnn_output_l1 : tensor<32x32xf32, #l1_layout> -> memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>>

    %view_input = d2m.view_layout %metal_input_l1 remapping = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)> : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>> -> memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.view<4>, #ttcore.memory_space<l1>>
    %view_output = d2m.view_layout %metal_output_l1 remapping = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)> : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>> -> memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.view<4>, #ttcore.memory_space<l1>>

    // CHECK: "ttnn.generic"(%[[T1]], %[[T2]])
    // CHECK-SAME: #ttnn.data_movement_kernel<symbol_ref = @read_kernel
    // CHECK-SAME: processor = riscv1, noc_index = noc0, noc_mode = dedicated_noc
    // CHECK-SAME: ct_args = [#ttnn.kernel_arg_cb_buffer_index<0>, #ttnn.kernel_arg_semaphore_at<0>, #ttnn.kernel_arg_semaphore_at<1>, #ttnn.kernel_arg_tensor_accessor_args<0>]
    // CHECK-SAME: common_rt_args = [#ttnn.kernel_arg_address_of_tensor<0>]
    // CHECK-SAME: #ttnn.data_movement_kernel<symbol_ref = @write_kernel
    // CHECK-SAME: processor = riscv0, noc_index = noc1, noc_mode = dedicated_noc
    // CHECK-SAME: ct_args = [#ttnn.kernel_arg_cb_buffer_index<1>, #ttnn.kernel_arg_semaphore_at<2>, #ttnn.kernel_arg_semaphore_at<3>]
    // CHECK-SAME: common_rt_args = [#ttnn.kernel_arg_address_of_tensor<1>]
    // CHECK-SAME: #ttnn.compute_kernel<symbol_ref = @compute_kernel0
    // CHECK-SAME: ct_args = [#ttnn.kernel_arg_cb_buffer_index<0>, #ttnn.kernel_arg_cb_buffer_index<1>]
    // CHECK-SAME: common_rt_args = []
    // CHECK-SAME: page_size = 4096
    %sem0 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %sem1 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %sem2 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %sem3 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %cb_0 = d2m.operand_alias %view_input : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.view<4>, #ttcore.memory_space<l1>> -> memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>
    %cb_1 = d2m.operand_alias %view_output : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.view<4>, #ttcore.memory_space<l1>> -> memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>
    d2m.generic {block_factors = [1, 1], grid = #ttcore.grid<1x1>, indexing_maps = [], iterator_types = [], threads = [#d2m.thread<datamovement, @read_kernel, dm_core = 1>, #d2m.thread<datamovement, @write_kernel, dm_core = 0>, #d2m.thread<compute, @compute_kernel0>]}
        ins(%view_input : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.view<4>, #ttcore.memory_space<l1>>)
        outs(%view_output : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.view<4>, #ttcore.memory_space<l1>>)
    additionalArgs(%sem0, %sem1, %sem2, %sem3, %cb_0, %cb_1 : !d2m.local_semaphore, !d2m.local_semaphore, !d2m.local_semaphore, !d2m.local_semaphore, memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>, memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>)

    // CHECK: "ttnn.generic"(%[[T1]], %[[T2]])
    // CHECK-SAME: buffer = #ttnn.kernel_cb_global_buffer_address_of_tensor<0>>
    // CHECK-SAME: buffer = #ttnn.kernel_cb_global_buffer_address_of_tensor<1>>
    %sem4 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %sem5 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %sem6 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %sem7 = d2m.create_local_semaphore <{initialValue = 0 : ui32}> -> !d2m.local_semaphore
    %cb_2 = d2m.operand_alias %metal_input_l1 : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>> -> memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>
    %cb_3 = d2m.operand_alias %metal_output_l1 : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>> -> memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>
    d2m.generic {block_factors = [1, 1], grid = #ttcore.grid<1x1>, indexing_maps = [], iterator_types = [], threads = [#d2m.thread<datamovement, @read_kernel, dm_core = 1>, #d2m.thread<datamovement, @write_kernel, dm_core = 0>, #d2m.thread<compute, @compute_kernel0>]}
        ins(%metal_input_l1 : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>>)
        outs(%metal_output_l1 : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>>)
    additionalArgs(%sem4, %sem5, %sem6, %sem7, %cb_2, %cb_3 : !d2m.local_semaphore, !d2m.local_semaphore, !d2m.local_semaphore, !d2m.local_semaphore, memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>, memref<1x1x!ttcore.tile<32x32, f32>, #ttcore.cb_layout<4096x4096, 1>, #l1_mem>)

    // CHECK-NOT: ttir.ttnn_metal_layout_cast
    %output_l1 = ttir.ttnn_metal_layout_cast %metal_output_l1 : memref<1x1x1x1x!ttcore.tile<32x32, f32>, #ttcore.shard<4096x4096, 1>, #ttcore.memory_space<l1>> -> tensor<32x32xf32, #l1_layout>

    %output_dram = "ttnn.to_memory_config"(%output_l1) : (tensor<32x32xf32, #l1_layout>) -> tensor<32x32xf32, #dram_layout>
    return %output_dram : tensor<32x32xf32, #dram_layout>
  }
  func.func @test_full() -> tensor<32x32xbf16, #l1_layout_bf16> {
    %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device
    // CHECK: ttnn.full
    %1 = "ttnn.full"(%0) <{fill_value = 5.000000e-01 : f32, layout = #ttnn.layout<tile>, shape = #ttnn.shape<32x32>}> : (!ttnn.device) -> tensor<32x32xbf16, #l1_layout_bf16>
    return %1 : tensor<32x32xbf16, #l1_layout_bf16>
  }
  func.func @test_empty() -> tensor<32x32xbf16, #l1_layout_bf16> {
    %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device
    // CHECK: ttnn.empty
    %1 = d2m.empty() : tensor<32x32xbf16, #l1_layout_bf16>
    return %1 : tensor<32x32xbf16, #l1_layout_bf16>
  }
  func.func private @read_kernel() attributes {
    ttkernel.arg_spec = #ttkernel.arg_spec<
      rt_args = [<arg_type = buffer_address, operand_index = 0>]
      ct_args = [
        <arg_type = cb_port, operand_index = 6>,
        <arg_type = local_semaphore, operand_index = 0>,
        <arg_type = local_semaphore, operand_index = 1>,
        <arg_type = tensor_accessor_args, operand_index = 0>
      ]
    >,
    ttkernel.thread = #ttkernel.thread<noc>
  } {
    return
  }
  func.func private @compute_kernel0() attributes {
    ttkernel.arg_spec = #ttkernel.arg_spec<
      ct_args = [
        <arg_type = cb_port, operand_index = 6>,
        <arg_type = cb_port, operand_index = 7>
      ]
    >,
    ttkernel.thread = #ttkernel.thread<compute>
  } {
    return
  }
  func.func private @write_kernel() attributes {
    ttkernel.arg_spec = #ttkernel.arg_spec<
      rt_args = [<arg_type = buffer_address, operand_index = 1>]
      ct_args = [
        <arg_type = cb_port, operand_index = 7>,
        <arg_type = local_semaphore, operand_index = 2>,
        <arg_type = local_semaphore, operand_index = 3>
      ]
    >,
    ttkernel.thread = #ttkernel.thread<noc>
  } {
    return
  }
}
