#dram = #ttnn.buffer_type<dram>
#loc1 = loc("x")
#loc2 = loc("w")
#loc3 = loc("b")
#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <blackhole>, grid = 10x11, coord_translation_offsets = 2x1, l1_size = 1572864, num_dram_channels = 8, dram_channel_size = 4278190080, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 64, noc_dram_address_align_bytes = 64, l1_unreserved_base = 177280, erisc_l1_unreserved_base = 88896, dram_unreserved_base = 1048704, dram_unreserved_end = 4275530880, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2, dram_grid = 1x8, dram_bank_to_logical_worker_noc0 = [(9, 0), (0, 0), (7, 0), (3, 0), (9, 6), (1, 6), (6, 6), (4, 6)], dram_bank_to_logical_worker_noc1 = [(0, 0), (8, 0), (2, 0), (5, 0), (0, 6), (8, 6), (2, 6), (5, 6)]}], [0], [1 : i32], [ 0x0x0x0]>
#system_memory = #ttnn.buffer_type<system_memory>
#ttnn_layout = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 32 + d2, d3), <1x1>, memref<1024x16xbf16, #dram>, <interleaved>>
#ttnn_layout1 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 48 + d1 * 16 + d2, d3), <1x1>, memref<144x32xbf16, #dram>, <interleaved>>
#ttnn_layout2 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x32xbf16, #dram>, <interleaved>>
#ttnn_layout3 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 512 + d1 * 32 + d2, d3), <1x1>, memref<16x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout4 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 96 + d1 * 32 + d2, d3), <1x1>, memref<9x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout5 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 512 + d1 * 32 + d2, d3), <1x1>, memref<512x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout6 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout7 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout8 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 32 + d2, d3), <1x1>, memref<32x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout9 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 1024 + d2, d3), <1x1>, memref<32x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout10 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 48 + d1 * 3 + d2, d3), <1x1>, memref<1536x3xbf16, #dram>, <interleaved>>
#ttnn_layout11 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 48 + d1 * 3 + d2, d3), <1x1>, memref<1536x3xbf16, #system_memory>>
#ttnn_layout12 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 + d1 + d2, d3), <1x1>, memref<1x32xbf16, #dram>, <interleaved>>
#ttnn_layout13 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 + d1 + d2, d3), <1x1>, memref<1x32xbf16, #system_memory>>
#ttnn_layout14 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 1024 + d2, d3), <1x1>, memref<1024x16xbf16, #dram>, <interleaved>>
#ttnn_layout15 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 1024 + d2, d3), <1x1>, memref<1024x32xbf16, #dram>, <interleaved>>
#ttnn_layout16 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 256 + d1 * 256 + d2, d3), <1x1>, memref<256x32xbf16, #dram>, <interleaved>>
#ttnn_layout17 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 256 + d1 * 256 + d2, d3), <1x1>, memref<8x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
module @jit_conv2d_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x1>]>} {
  ttcore.device_module {
    builtin.module @jit_conv2d_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x1>]>, ttcore.system_desc = #system_desc, ttnn.l1_const_eval_usage = 1024 : ui64} {
      ttcore.device @default_device = <workerGrid = #ttcore.grid<10x11, virt_to_physical_map = (d0, d1) -> (0, d0, d1), physical_to_virt_map = (d0, d1, d2) -> (d1, d2)>, dramGrid = #ttcore.grid<1x8>, l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), dramMap = (d0, d1, d2)[s0, s1, s2, s3, s4, s5, s6] -> (0, 0, (((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) floordiv s4) mod 8, ((((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) floordiv s4) floordiv 8) * s4 + ((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) mod s4 + s5), meshShape = 1x1, chipIds = [0]> loc(#loc)
      func.func public @main(%arg0: tensor<1x32x32x16xbf16, #ttnn_layout> {ttcore.argument_type = #ttcore.argument_type<input>, ttcore.local_shape = #ttcore<local_shape local_shape = tensor<1x32x32x16xbf16>>, ttcore.shard_status = #ttcore.shard_status<unsharded>} loc("x"), %arg1: tensor<3x3x16x32xbf16, #ttnn_layout1> {ttcore.argument_type = #ttcore.argument_type<input>, ttcore.local_shape = #ttcore<local_shape local_shape = tensor<3x3x16x32xbf16>>, ttcore.shard_status = #ttcore.shard_status<unsharded>} loc("w"), %arg2: tensor<32xbf16, #ttnn_layout2> {ttcore.argument_type = #ttcore.argument_type<input>, ttcore.local_shape = #ttcore<local_shape local_shape = tensor<32xbf16>>, ttcore.shard_status = #ttcore.shard_status<unsharded>} loc("b")) -> (tensor<1x16x16x32xbf16, #ttnn_layout3> {jax.result_info = "result", ttcore.local_shape = #ttcore<local_shape local_shape = tensor<1x16x16x32xbf16>>, ttcore.shard_status = #ttcore.shard_status<unsharded>}) attributes {tt.function_type = "forward_device"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device loc(#loc26)
        %1 = "ttnn.to_layout"(%arg1) : (tensor<3x3x16x32xbf16, #ttnn_layout1>) -> tensor<3x3x16x32xbf16, #ttnn_layout4> loc(#loc2)
        "ttnn.deallocate"(%arg1) <{force = false}> : (tensor<3x3x16x32xbf16, #ttnn_layout1>) -> () loc(#loc2)
        %2 = "ttnn.permute"(%1) <{permutation = array<i64: 3, 2, 0, 1>}> : (tensor<3x3x16x32xbf16, #ttnn_layout4>) -> tensor<32x16x3x3xbf16, #ttnn_layout5> loc(#loc27)
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<3x3x16x32xbf16, #ttnn_layout4>) -> () loc(#loc27)
        %3 = "ttnn.to_layout"(%arg2) : (tensor<32xbf16, #ttnn_layout2>) -> tensor<32xbf16, #ttnn_layout6> loc(#loc3)
        "ttnn.deallocate"(%arg2) <{force = false}> : (tensor<32xbf16, #ttnn_layout2>) -> () loc(#loc3)
        %4 = "ttnn.reshape"(%3) <{shape = [1 : i32, 1 : i32, 1 : i32, 32 : i32]}> : (tensor<32xbf16, #ttnn_layout6>) -> tensor<1x1x1x32xbf16, #ttnn_layout7> loc(#loc28)
        "ttnn.deallocate"(%3) <{force = false}> : (tensor<32xbf16, #ttnn_layout6>) -> () loc(#loc28)
        %7 = "ttnn.to_layout"(%2) : (tensor<32x16x3x3xbf16, #ttnn_layout5>) -> tensor<32x16x3x3xbf16, #ttnn_layout10> loc(#loc27)
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<32x16x3x3xbf16, #ttnn_layout5>) -> () loc(#loc27)
        %8 = "ttnn.from_device"(%7) : (tensor<32x16x3x3xbf16, #ttnn_layout10>) -> tensor<32x16x3x3xbf16, #ttnn_layout11> loc(#loc27)
        "ttnn.deallocate"(%7) <{force = false}> : (tensor<32x16x3x3xbf16, #ttnn_layout10>) -> () loc(#loc27)
        %9 = "ttnn.to_layout"(%4) : (tensor<1x1x1x32xbf16, #ttnn_layout7>) -> tensor<1x1x1x32xbf16, #ttnn_layout12> loc(#loc28)
        "ttnn.deallocate"(%4) <{force = false}> : (tensor<1x1x1x32xbf16, #ttnn_layout7>) -> () loc(#loc28)
        %10 = "ttnn.from_device"(%9) : (tensor<1x1x1x32xbf16, #ttnn_layout12>) -> tensor<1x1x1x32xbf16, #ttnn_layout13> loc(#loc28)
        "ttnn.deallocate"(%9) <{force = false}> : (tensor<1x1x1x32xbf16, #ttnn_layout12>) -> () loc(#loc28)
        %12 = "ttnn.conv2d"(%arg0, %8, %10, %0) <{batch_size = 1 : i32, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, activation = <op_type = relu>, enable_kernel_stride_folding = false, config_tensors_in_dram = true>, dilation = array<i32: 1, 1>, groups = 1 : i32, in_channels = 16 : i32, input_height = 32 : i32, input_width = 32 : i32, kernel_size = array<i32: 3, 3>, out_channels = 32 : i32, padding = array<i32: 1, 1, 1, 1>, stride = array<i32: 1, 1>}> : (tensor<1x32x32x16xbf16, #ttnn_layout>, tensor<32x16x3x3xbf16, #ttnn_layout11>, tensor<1x1x1x32xbf16, #ttnn_layout13>, !ttnn.device) -> tensor<1x1x1024x32xbf16, #ttnn_layout9> loc(#loc22)
        "ttnn.deallocate"(%arg0) <{force = false}> : (tensor<1x32x32x16xbf16, #ttnn_layout>) -> () loc(#loc22)
        "ttnn.deallocate"(%10) <{force = false}> : (tensor<1x1x1x32xbf16, #ttnn_layout13>) -> () loc(#loc22)
        "ttnn.deallocate"(%8) <{force = false}> : (tensor<32x16x3x3xbf16, #ttnn_layout11>) -> () loc(#loc22)
        %13 = "ttnn.to_layout"(%12) : (tensor<1x1x1024x32xbf16, #ttnn_layout9>) -> tensor<1x1x1024x32xbf16, #ttnn_layout15> loc(#loc22)
        "ttnn.deallocate"(%12) <{force = false}> : (tensor<1x1x1024x32xbf16, #ttnn_layout9>) -> () loc(#loc22)
        %14 = "ttnn.max_pool2d"(%13) <{batch_size = 1 : si32, ceil_mode = false, channels = 32 : si32, config_tensors_in_dram = true, dilation = array<i32: 1, 1>, input_height = 32 : si32, input_width = 32 : si32, kernel_size = array<i32: 2, 2>, padding = array<i32: 0, 0>, reallocate_halo_output = false, stride = array<i32: 2, 2>}> : (tensor<1x1x1024x32xbf16, #ttnn_layout15>) -> tensor<1x1x256x32xbf16, #ttnn_layout16> loc(#loc25)
        "ttnn.deallocate"(%13) <{force = false}> : (tensor<1x1x1024x32xbf16, #ttnn_layout15>) -> () loc(#loc25)
        %15 = "ttnn.to_layout"(%14) : (tensor<1x1x256x32xbf16, #ttnn_layout16>) -> tensor<1x1x256x32xbf16, #ttnn_layout17> loc(#loc25)
        "ttnn.deallocate"(%14) <{force = false}> : (tensor<1x1x256x32xbf16, #ttnn_layout16>) -> () loc(#loc25)
        %16 = "ttnn.reshape"(%15) <{shape = [1 : i32, 16 : i32, 16 : i32, 32 : i32]}> : (tensor<1x1x256x32xbf16, #ttnn_layout17>) -> tensor<1x16x16x32xbf16, #ttnn_layout3> loc(#loc29)
        "ttnn.deallocate"(%15) <{force = false}> : (tensor<1x1x256x32xbf16, #ttnn_layout17>) -> () loc(#loc29)
        return %16 : tensor<1x16x16x32xbf16, #ttnn_layout3> loc(#loc)
      } loc(#loc)
    } loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc4 = loc("models.py":69:8 to 70:76)
#loc5 = loc("models.py":454:19 to :44)
#loc6 = loc("models.py":812:8 to :35)
#loc7 = loc("models.py":843:4 to :10)
#loc8 = loc("models.py":71:20 to :25)
#loc9 = loc("models.py":72:11 to :87)
#loc10 = loc("conv2d_block"(#loc4))
#loc11 = loc("worker"(#loc5))
#loc12 = loc("main"(#loc6))
#loc13 = loc("<module>"(#loc7))
#loc14 = loc("conv2d_block"(#loc8))
#loc15 = loc("x_reshape"(#loc1))
#loc16 = loc("conv2d_block"(#loc9))
#loc17 = loc(callsite(#loc12 at #loc13))
#loc18 = loc(callsite(#loc11 at #loc17))
#loc19 = loc(callsite(#loc10 at #loc18))
#loc20 = loc(callsite(#loc14 at #loc18))
#loc21 = loc(callsite(#loc16 at #loc18))
#loc22 = loc("jit(conv2d_block)/conv_general_dilated"(#loc19))
#loc23 = loc("jit(conv2d_block)/add"(#loc20))
#loc24 = loc("jit(conv2d_block)/broadcast_in_dim"(#loc20))
#loc25 = loc("jit(conv2d_block)/reduce_window_max"(#loc21))
#loc26 = loc("jit(conv2d_block)/conv_general_dilated_weight_in_0_layout"(#loc22))
#loc27 = loc("jit(conv2d_block)/conv_general_dilated_weight"(#loc22))
#loc28 = loc(fused[#loc23, #loc24])
#loc29 = loc("jit(conv2d_block)/reduce_window_max_reshape"(#loc25))
