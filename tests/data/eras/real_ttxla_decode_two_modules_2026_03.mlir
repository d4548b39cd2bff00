#dram = #ttnn.buffer_type<dram>
#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}], [0, 1, 2, 3, 4, 5, 6, 7], [1 : i32, 1 : i32, 1 : i32, 1 : i32, 0 : i32, 0 : i32, 0 : i32, 0 : i32], [ 0x0x0x0], [<[0, 6, 0], [3, 6, 0]>, <[0, 7, 0], [3, 7, 0]>, <[0, 9, 0], [5, 1, 0]>, <[0, 14, 0], [1, 14, 0]>, <[0, 15, 0], [1, 15, 0]>, <[1, 0, 0], [2, 0, 0]>, <[1, 1, 0], [2, 1, 0]>, <[1, 9, 0], [6, 1, 0]>, <[2, 9, 0], [4, 1, 0]>, <[2, 14, 0], [3, 14, 0]>, <[2, 15, 0], [3, 15, 0]>, <[3, 9, 0], [7, 1, 0]>, <[4, 6, 0], [7, 6, 0]>, <[5, 6, 0], [6, 6, 0]>]>
#system_memory = #ttnn.buffer_type<system_memory>
#ttnn_layout = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 64 + d1, d2), <1x1>, memref<2x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout1 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout2 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<576x2048xbf16, #system_memory>>
#ttnn_layout3 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<18x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout4 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<576x2048xbf16, #dram>, <interleaved>>
#ttnn_layout5 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<18x64x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout6 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 64 + d1, d2), <1x1>, memref<4x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout7 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 64 + d1, d2), <1x1>, memref<4x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout8 = #ttnn.ttnn_layout<() -> (0, 0), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout9 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout10 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x512xbf16, #system_memory>>
#ttnn_layout11 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<1x16x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout12 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x512xbf16, #dram>, <interleaved>>
#ttnn_layout13 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout14 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<1x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout15 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2048x2048xbf16, #system_memory>>
#ttnn_layout16 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout17 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2048x2048xbf16, #dram>, <interleaved>>
#ttnn_layout18 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<64x64x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout19 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x3072xbf16, #system_memory>>
#ttnn_layout20 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x96x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout21 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x3072xbf16, #dram>, <interleaved>>
#ttnn_layout22 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x96x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout23 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x96x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout24 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<64x1xui32, #dram>, <interleaved>>
#ttnn_layout25 = #ttnn.ttnn_layout<() -> (0, 0), <1x1>, memref<1x1x!ttcore.tile<32x32, si32>, #dram>, <interleaved>>
#ttnn_layout26 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x2x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout27 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x1x!ttcore.tile<32x32, si32>, #dram>, <interleaved>>
#ttnn_layout28 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x2x!ttcore.tile<32x32, si32>, #dram>, <interleaved>>
#ttnn_layout29 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2x1x!ttcore.tile<32x32, si32>, #dram>, <interleaved>>
#ttnn_layout30 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2x1x!ttcore.tile<32x32, u32>, #dram>, <interleaved>>
#ttnn_layout31 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout32 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout33 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<3072x3072xbf16, #system_memory>>
#ttnn_layout34 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<24x96x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout35 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<3072x3072xbf16, #dram>, <interleaved>>
#ttnn_layout36 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<96x96x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout37 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<3072x2048xbf16, #system_memory>>
#ttnn_layout38 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<96x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout39 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<3072x2048xbf16, #dram>, <interleaved>>
#ttnn_layout40 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<96x64x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout41 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4096x512xbf16, #system_memory>>
#ttnn_layout42 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 128 + d1, d2), <1x1>, memref<16x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout43 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4096x512xbf16, #dram>, <interleaved>>
#ttnn_layout44 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<128x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout45 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 256 + d1, d2), <1x1>, memref<32x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout46 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 64 + d1, d2), <1x1>, memref<8x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout47 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<4x64x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout48 = #ttnn.ttnn_layout<() -> (0, 0), <1x1>, memref<1x1xbf16, #dram>, <interleaved>>
#ttnn_layout49 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 64 + d1, d2), <1x1>, memref<8x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout50 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<32x2xbf16, #dram>, <interleaved>>
#ttnn_layout51 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<4x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout52 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout53 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x18x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout54 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x18x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout55 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x18x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout56 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout57 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x16x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout58 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1024xbf16, #dram>, <interleaved>>
#ttnn_layout59 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<64x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout60 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<64x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout61 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout62 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x2x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout63 = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 32 + d1 * 32 + d2 * 32 + d3, d4), <1x1>, memref<2x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout64 = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 32 + d1 * 32 + d2 * 32 + d3, d4), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout65 = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 32 + d1 * 32 + d2 * 32 + d3, d4), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout66 = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 32 + d1 * 32 + d2 * 32 + d3, d4), <1x1>, memref<2x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout67 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<1x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout68 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout69 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x128xbf16, #dram>, <interleaved>>
#ttnn_layout70 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<64x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout71 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<64x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout72 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x96x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout73 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<2x96x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout74 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout75 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x24x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout76 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<2x6x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout77 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<2x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout78 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 64 + d1 * 32 + d2, d3), <1x1>, memref<8x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout79 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<4x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout80 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<4x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout81 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 64 + d1 * 32 + d2, d3), <1x1>, memref<8x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout82 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<2x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout83 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<2x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout84 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<2x2x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout85 = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 128 + d1 * 128 + d2 * 32 + d3, d4), <1x1>, memref<8x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout86 = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 128 + d1 * 128 + d2 * 32 + d3, d4), <1x1>, memref<8x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout87 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout88 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x16x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout89 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout90 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x8x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
module @SyncTensorsGraph.388 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false, ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>} {
  ttcore.device_module {
    builtin.module @SyncTensorsGraph.388 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false, ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>, ttcore.system_desc = #system_desc} {
      ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), dramMap = (d0, d1, d2)[s0, s1, s2, s3, s4, s5, s6] -> (0, 0, (((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) floordiv s4) mod 12, ((((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) floordiv s4) floordiv 12) * s4 + ((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) mod s4 + s5), meshShape = 2x4, chipIds = [0, 1, 2, 3, 4, 5, 6, 7], meshTopology = [linear, ring]>
      func.func private @main_const_eval_0() -> tensor<1x64x1xbf16, #ttnn_layout> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.constant"(%0) <{dtype = #ttcore.supportedDataTypes<bf16>, layout = #ttnn.layout<tile>, memory_config = #ttnn.memory_config<#dram, <interleaved>>, value = dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]> : tensor<64xbf16>}> : (!ttnn.device) -> tensor<64xbf16, #ttnn_layout1>
        %2 = "ttnn.reshape"(%1) <{shape = [1 : i32, 64 : i32, 1 : i32]}> : (tensor<64xbf16, #ttnn_layout1>) -> tensor<1x64x1xbf16, #ttnn_layout>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<64xbf16, #ttnn_layout1>) -> ()
        return %2 : tensor<1x64x1xbf16, #ttnn_layout>
      }
      func.func private @main_const_eval_1(%arg0: tensor<576x2048xbf16, #ttnn_layout2>) -> tensor<576x1024xbf16, #ttnn_layout3> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<576x2048xbf16, #ttnn_layout2>, !ttnn.device) -> tensor<576x2048xbf16, #ttnn_layout4>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<576x2048xbf16, #ttnn_layout4>) -> tensor<576x2048xbf16, #ttnn_layout5>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<576x2048xbf16, #ttnn_layout4>) -> ()
        %3 = "ttnn.mesh_shard"(%2, %0) <{shard_dims = array<i64: 1, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 2>, shard_type = #ttcore.shard_type<identity>}> : (tensor<576x2048xbf16, #ttnn_layout5>, !ttnn.device) -> tensor<576x1024xbf16, #ttnn_layout3>
        return %3 : tensor<576x1024xbf16, #ttnn_layout3>
      }
      func.func private @main_const_eval_2() -> (tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x64xbf16, #ttnn_layout7>) attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.full"(%0) <{dtype = #ttcore.supportedDataTypes<bf16>, fill_value = 0.000000e+00 : f32, layout = #ttnn.layout<tile>, shape = #ttnn.shape<>}> : (!ttnn.device) -> tensor<bf16, #ttnn_layout8>
        %2 = "ttnn.reshape"(%1) <{shape = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<bf16, #ttnn_layout8>) -> tensor<1x1x1xbf16, #ttnn_layout9>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<bf16, #ttnn_layout8>) -> ()
        %3 = "ttnn.repeat"(%2) <{repeat_dims = #ttnn.shape<2x64x512>}> : (tensor<1x1x1xbf16, #ttnn_layout9>) -> tensor<2x64x512xbf16, #ttnn_layout6>
        %4 = "ttnn.repeat"(%2) <{repeat_dims = #ttnn.shape<2x64x64>}> : (tensor<1x1x1xbf16, #ttnn_layout9>) -> tensor<2x64x64xbf16, #ttnn_layout7>
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<1x1x1xbf16, #ttnn_layout9>) -> ()
        return %3, %4 : tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x64xbf16, #ttnn_layout7>
      }
      func.func private @main_const_eval_3(%arg0: tensor<512xbf16, #ttnn_layout10>) -> tensor<1x1x512xf32, #ttnn_layout11> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<512xbf16, #ttnn_layout10>, !ttnn.device) -> tensor<512xbf16, #ttnn_layout12>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<512xbf16, #ttnn_layout12>) -> tensor<512xbf16, #ttnn_layout13>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<512xbf16, #ttnn_layout12>) -> ()
        %3 = "ttnn.reshape"(%2) <{shape = [1 : i32, 1 : i32, 512 : i32]}> : (tensor<512xbf16, #ttnn_layout13>) -> tensor<1x1x512xbf16, #ttnn_layout14>
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<512xbf16, #ttnn_layout13>) -> ()
        %4 = "ttnn.typecast"(%3) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x1x512xbf16, #ttnn_layout14>) -> tensor<1x1x512xf32, #ttnn_layout11>
        "ttnn.deallocate"(%3) <{force = false}> : (tensor<1x1x512xbf16, #ttnn_layout14>) -> ()
        return %4 : tensor<1x1x512xf32, #ttnn_layout11>
      }
      func.func private @main_const_eval_4() -> tensor<1x1x1xbf16, #ttnn_layout9> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.full"(%0) <{dtype = #ttcore.supportedDataTypes<bf16>, fill_value = 0.072265625 : f32, layout = #ttnn.layout<tile>, shape = #ttnn.shape<>}> : (!ttnn.device) -> tensor<bf16, #ttnn_layout8>
        %2 = "ttnn.reshape"(%1) <{shape = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<bf16, #ttnn_layout8>) -> tensor<1x1x1xbf16, #ttnn_layout9>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<bf16, #ttnn_layout8>) -> ()
        return %2 : tensor<1x1x1xbf16, #ttnn_layout9>
      }
      func.func private @main_const_eval_5(%arg0: tensor<2048x2048xbf16, #ttnn_layout15>) -> tensor<1024x512xbf16, #ttnn_layout16> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<2048x2048xbf16, #ttnn_layout15>, !ttnn.device) -> tensor<2048x2048xbf16, #ttnn_layout17>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<2048x2048xbf16, #ttnn_layout17>) -> tensor<2048x2048xbf16, #ttnn_layout18>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<2048x2048xbf16, #ttnn_layout17>) -> ()
        %3 = "ttnn.mesh_shard"(%2, %0) <{shard_dims = array<i64: 0, 1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 2, 4>, shard_type = #ttcore.shard_type<identity>}> : (tensor<2048x2048xbf16, #ttnn_layout18>, !ttnn.device) -> tensor<1024x512xbf16, #ttnn_layout16>
        return %3 : tensor<1024x512xbf16, #ttnn_layout16>
      }
      func.func private @main_const_eval_6(%arg0: tensor<3072xbf16, #ttnn_layout19>) -> tensor<1x3072xf32, #ttnn_layout20> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<3072xbf16, #ttnn_layout19>, !ttnn.device) -> tensor<3072xbf16, #ttnn_layout21>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<3072xbf16, #ttnn_layout21>) -> tensor<3072xbf16, #ttnn_layout22>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<3072xbf16, #ttnn_layout21>) -> ()
        %3 = "ttnn.reshape"(%2) <{shape = [1 : i32, 3072 : i32]}> : (tensor<3072xbf16, #ttnn_layout22>) -> tensor<1x3072xbf16, #ttnn_layout23>
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<3072xbf16, #ttnn_layout22>) -> ()
        %4 = "ttnn.typecast"(%3) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x3072xbf16, #ttnn_layout23>) -> tensor<1x3072xf32, #ttnn_layout20>
        "ttnn.deallocate"(%3) <{force = false}> : (tensor<1x3072xbf16, #ttnn_layout23>) -> ()
        return %4 : tensor<1x3072xf32, #ttnn_layout20>
      }
      func.func private @main_const_eval_7() -> tensor<64x1xui32, #ttnn_layout24> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.full"(%0) <{dtype = #ttcore.supportedDataTypes<si32>, fill_value = 1 : i32, layout = #ttnn.layout<tile>, shape = #ttnn.shape<>}> : (!ttnn.device) -> tensor<si32, #ttnn_layout25>
        %2 = "ttnn.constant"(%0) <{dtype = #ttcore.supportedDataTypes<f32>, layout = #ttnn.layout<tile>, memory_config = #ttnn.memory_config<#dram, <interleaved>>, value = dense<[-3.200000e+01, -3.100000e+01, -3.000000e+01, -2.900000e+01, -2.800000e+01, -2.700000e+01, -2.600000e+01, -2.500000e+01, -2.400000e+01, -2.300000e+01, -2.200000e+01, -2.100000e+01, -2.000000e+01, -1.900000e+01, -1.800000e+01, -1.700000e+01, -1.600000e+01, -1.500000e+01, -1.400000e+01, -1.300000e+01, -1.200000e+01, -1.100000e+01, -1.000000e+01, -9.000000e+00, -8.000000e+00, -7.000000e+00, -6.000000e+00, -5.000000e+00, -4.000000e+00, -3.000000e+00, -2.000000e+00, -1.000000e+00, 0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01, 2.400000e+01, 2.500000e+01, 2.600000e+01, 2.700000e+01, 2.800000e+01, 2.900000e+01, 3.000000e+01, 3.100000e+01]> : tensor<64xf32>}> : (!ttnn.device) -> tensor<64xf32, #ttnn_layout26>
        %3 = "ttnn.full"(%0) <{dtype = #ttcore.supportedDataTypes<si32>, fill_value = 0 : i32, layout = #ttnn.layout<tile>, shape = #ttnn.shape<>}> : (!ttnn.device) -> tensor<si32, #ttnn_layout25>
        %4 = "ttnn.reshape"(%1) <{shape = [1 : i32]}> : (tensor<si32, #ttnn_layout25>) -> tensor<1xsi32, #ttnn_layout27>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<si32, #ttnn_layout25>) -> ()
        %5 = "ttnn.reshape"(%3) <{shape = [1 : i32]}> : (tensor<si32, #ttnn_layout25>) -> tensor<1xsi32, #ttnn_layout27>
        "ttnn.deallocate"(%3) <{force = false}> : (tensor<si32, #ttnn_layout25>) -> ()
        %6 = "ttnn.floor"(%2) : (tensor<64xf32, #ttnn_layout26>) -> tensor<64xf32, #ttnn_layout26>
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<64xf32, #ttnn_layout26>) -> ()
        %7 = "ttnn.typecast"(%6) <{dtype = #ttcore.supportedDataTypes<si32>}> : (tensor<64xf32, #ttnn_layout26>) -> tensor<64xsi32, #ttnn_layout28>
        "ttnn.deallocate"(%6) <{force = false}> : (tensor<64xf32, #ttnn_layout26>) -> ()
        %8 = "ttnn.clamp_scalar"(%7) <{max = 0 : i32, min = 0 : i32}> : (tensor<64xsi32, #ttnn_layout28>) -> tensor<64xsi32, #ttnn_layout28>
        "ttnn.deallocate"(%7) <{force = false}> : (tensor<64xsi32, #ttnn_layout28>) -> ()
        %9 = "ttnn.gt"(%5, %8) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<1xsi32, #ttnn_layout27>, tensor<64xsi32, #ttnn_layout28>) -> tensor<64xbf16, #ttnn_layout1>
        "ttnn.deallocate"(%5) <{force = false}> : (tensor<1xsi32, #ttnn_layout27>) -> ()
        %10 = "ttnn.add"(%8, %4) <{dtype = #ttcore.supportedDataTypes<si32>}> : (tensor<64xsi32, #ttnn_layout28>, tensor<1xsi32, #ttnn_layout27>) -> tensor<64xsi32, #ttnn_layout28>
        "ttnn.deallocate"(%4) <{force = false}> : (tensor<1xsi32, #ttnn_layout27>) -> ()
        %11 = "ttnn.typecast"(%9) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<64xbf16, #ttnn_layout1>) -> tensor<64xf32, #ttnn_layout26>
        "ttnn.deallocate"(%9) <{force = false}> : (tensor<64xbf16, #ttnn_layout1>) -> ()
        %12 = "ttnn.typecast"(%10) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<64xsi32, #ttnn_layout28>) -> tensor<64xf32, #ttnn_layout26>
        "ttnn.deallocate"(%10) <{force = false}> : (tensor<64xsi32, #ttnn_layout28>) -> ()
        %13 = "ttnn.typecast"(%8) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<64xsi32, #ttnn_layout28>) -> tensor<64xf32, #ttnn_layout26>
        "ttnn.deallocate"(%8) <{force = false}> : (tensor<64xsi32, #ttnn_layout28>) -> ()
        %14 = "ttnn.where"(%11, %12, %13) : (tensor<64xf32, #ttnn_layout26>, tensor<64xf32, #ttnn_layout26>, tensor<64xf32, #ttnn_layout26>) -> tensor<64xf32, #ttnn_layout26>
        "ttnn.deallocate"(%13) <{force = false}> : (tensor<64xf32, #ttnn_layout26>) -> ()
        "ttnn.deallocate"(%12) <{force = false}> : (tensor<64xf32, #ttnn_layout26>) -> ()
        "ttnn.deallocate"(%11) <{force = false}> : (tensor<64xf32, #ttnn_layout26>) -> ()
        %15 = "ttnn.typecast"(%14) <{dtype = #ttcore.supportedDataTypes<si32>}> : (tensor<64xf32, #ttnn_layout26>) -> tensor<64xsi32, #ttnn_layout28>
        "ttnn.deallocate"(%14) <{force = false}> : (tensor<64xf32, #ttnn_layout26>) -> ()
        %16 = "ttnn.reshape"(%15) <{shape = [64 : i32, 1 : i32]}> : (tensor<64xsi32, #ttnn_layout28>) -> tensor<64x1xsi32, #ttnn_layout29>
        "ttnn.deallocate"(%15) <{force = false}> : (tensor<64xsi32, #ttnn_layout28>) -> ()
        %17 = "ttnn.typecast"(%16) <{dtype = #ttcore.supportedDataTypes<u32>}> : (tensor<64x1xsi32, #ttnn_layout29>) -> tensor<64x1xui32, #ttnn_layout30>
        "ttnn.deallocate"(%16) <{force = false}> : (tensor<64x1xsi32, #ttnn_layout29>) -> ()
        %18 = "ttnn.to_layout"(%17) <{layout = #ttnn.layout<row_major>}> : (tensor<64x1xui32, #ttnn_layout30>) -> tensor<64x1xui32, #ttnn_layout24>
        "ttnn.deallocate"(%17) <{force = false}> : (tensor<64x1xui32, #ttnn_layout30>) -> ()
        return %18 : tensor<64x1xui32, #ttnn_layout24>
      }
      func.func private @main_const_eval_8() -> tensor<1x64x1xbf16, #ttnn_layout> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.constant"(%0) <{dtype = #ttcore.supportedDataTypes<bf16>, layout = #ttnn.layout<tile>, memory_config = #ttnn.memory_config<#dram, <interleaved>>, value = dense<[1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<64xbf16>}> : (!ttnn.device) -> tensor<64xbf16, #ttnn_layout1>
        %2 = "ttnn.reshape"(%1) <{shape = [1 : i32, 64 : i32, 1 : i32]}> : (tensor<64xbf16, #ttnn_layout1>) -> tensor<1x64x1xbf16, #ttnn_layout>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<64xbf16, #ttnn_layout1>) -> ()
        return %2 : tensor<1x64x1xbf16, #ttnn_layout>
      }
      func.func private @main_const_eval_9() -> (tensor<2x1x1xf32, #ttnn_layout31>, tensor<1x2x1xf32, #ttnn_layout32>) attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.full"(%0) <{dtype = #ttcore.supportedDataTypes<f32>, fill_value = 9.99999997E-7 : f32, layout = #ttnn.layout<tile>, shape = #ttnn.shape<2x1x1>}> : (!ttnn.device) -> tensor<2x1x1xf32, #ttnn_layout31>
        %2 = "ttnn.permute"(%1) <{permutation = array<i64: 1, 0, 2>}> : (tensor<2x1x1xf32, #ttnn_layout31>) -> tensor<1x2x1xf32, #ttnn_layout32>
        return %1, %2 : tensor<2x1x1xf32, #ttnn_layout31>, tensor<1x2x1xf32, #ttnn_layout32>
      }
      func.func private @main_const_eval_10(%arg0: tensor<3072x3072xbf16, #ttnn_layout33>) -> tensor<768x3072xbf16, #ttnn_layout34> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<3072x3072xbf16, #ttnn_layout33>, !ttnn.device) -> tensor<3072x3072xbf16, #ttnn_layout35>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<3072x3072xbf16, #ttnn_layout35>) -> tensor<3072x3072xbf16, #ttnn_layout36>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<3072x3072xbf16, #ttnn_layout35>) -> ()
        %3 = "ttnn.mesh_shard"(%2, %0) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 4, 1>, shard_type = #ttcore.shard_type<identity>}> : (tensor<3072x3072xbf16, #ttnn_layout36>, !ttnn.device) -> tensor<768x3072xbf16, #ttnn_layout34>
        return %3 : tensor<768x3072xbf16, #ttnn_layout34>
      }
      func.func private @main_const_eval_11(%arg0: tensor<3072x2048xbf16, #ttnn_layout37>) -> tensor<3072x1024xbf16, #ttnn_layout38> attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<3072x2048xbf16, #ttnn_layout37>, !ttnn.device) -> tensor<3072x2048xbf16, #ttnn_layout39>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<3072x2048xbf16, #ttnn_layout39>) -> tensor<3072x2048xbf16, #ttnn_layout40>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<3072x2048xbf16, #ttnn_layout39>) -> ()
        %3 = "ttnn.mesh_shard"(%2, %0) <{shard_dims = array<i64: 1, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 2>, shard_type = #ttcore.shard_type<identity>}> : (tensor<3072x2048xbf16, #ttnn_layout40>, !ttnn.device) -> tensor<3072x1024xbf16, #ttnn_layout38>
        return %3 : tensor<3072x1024xbf16, #ttnn_layout38>
      }
      func.func private @main_const_eval_12(%arg0: tensor<4096x512xbf16, #ttnn_layout41>) -> (tensor<4x128x512xbf16, #ttnn_layout42>, tensor<4x128x512xbf16, #ttnn_layout42>) attributes {tt.function_type = "const_eval"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.to_device"(%arg0, %0) <{memory_config = #ttnn.memory_config<#dram, <interleaved>>}> : (tensor<4096x512xbf16, #ttnn_layout41>, !ttnn.device) -> tensor<4096x512xbf16, #ttnn_layout43>
        %2 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<tile>}> : (tensor<4096x512xbf16, #ttnn_layout43>) -> tensor<4096x512xbf16, #ttnn_layout44>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<4096x512xbf16, #ttnn_layout43>) -> ()
        %3 = "ttnn.mesh_shard"(%2, %0) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 4, 1>, shard_type = #ttcore.shard_type<identity>}> : (tensor<4096x512xbf16, #ttnn_layout44>, !ttnn.device) -> tensor<1024x512xbf16, #ttnn_layout16>
        %4 = "ttnn.reshape"(%3) <{shape = [4 : i32, 256 : i32, 512 : i32]}> : (tensor<1024x512xbf16, #ttnn_layout16>) -> tensor<4x256x512xbf16, #ttnn_layout45>
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<4096x512xbf16, #ttnn_layout44>) -> ()
        %5 = "ttnn.slice_static"(%4) <{begins = [0 : i32, 0 : i32, 0 : i32], ends = [4 : i32, 128 : i32, 512 : i32], step = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<4x256x512xbf16, #ttnn_layout45>) -> tensor<4x128x512xbf16, #ttnn_layout42>
        %6 = "ttnn.slice_static"(%4) <{begins = [0 : i32, 128 : i32, 0 : i32], ends = [4 : i32, 256 : i32, 512 : i32], step = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<4x256x512xbf16, #ttnn_layout45>) -> tensor<4x128x512xbf16, #ttnn_layout42>
        "ttnn.deallocate"(%4) <{force = false}> : (tensor<4x256x512xbf16, #ttnn_layout45>) -> ()
        return %5, %6 : tensor<4x128x512xbf16, #ttnn_layout42>, tensor<4x128x512xbf16, #ttnn_layout42>
      }
      func.func @main(
          %arg0: tensor<4x64x512xbf16, #ttnn_layout46> {
              ttcore.argument_type = #ttcore.argument_type<input>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<2x64x512xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "kv_cache"
          },
          %arg1: tensor<576x2048xbf16, #ttnn_layout2> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<576x1024xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "wkv_a.weight"
          },
          %arg2: tensor<4x1x2048xbf16, #ttnn_layout47> {
              ttcore.argument_type = #ttcore.argument_type<input>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<4x1x1024xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "args_0"
          },
          %arg3: tensor<512xbf16, #ttnn_layout10> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<512xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "kv_norm.weight"
          },
          %arg4: tensor<bf16, #ttnn_layout48> {
              ttcore.argument_type = #ttcore.argument_type<input>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<i1>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>
          },
          %arg5: tensor<4x64x64xbf16, #ttnn_layout49> {
              ttcore.argument_type = #ttcore.argument_type<input>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<2x64x64xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "pe_cache"
          },
          %arg6: tensor<1x32x2xbf16, #ttnn_layout50> {
              ttcore.argument_type = #ttcore.argument_type<input>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<1x32x2xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "args_1"
          },
          %arg7: tensor<2048x2048xbf16, #ttnn_layout15> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<1024x512xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "wo.weight"
          },
          %arg8: tensor<4096x512xbf16, #ttnn_layout41> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<1024x512xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "wkv_b.weight"
          },
          %arg9: tensor<3072x3072xbf16, #ttnn_layout33> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<768x3072xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "wq_b.weight"
          },
          %arg10: tensor<3072x2048xbf16, #ttnn_layout37> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<3072x1024xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "wq_a.weight"
          },
          %arg11: tensor<3072xbf16, #ttnn_layout19> {
              ttcore.argument_type = #ttcore.argument_type<parameter>,
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<3072xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>,
              ttir.name = "q_norm.weight"
          }
      )
      -> (
          tensor<4x64x512xbf16, #ttnn_layout46> {
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<2x64x512xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>
          },
          tensor<4x64x64xbf16, #ttnn_layout49> {
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<2x64x64xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>
          },
          tensor<4x1x2048xbf16, #ttnn_layout47> {
              ttcore.local_shape = #ttcore<local_shape local_shape = tensor<4x1x1024xbf16>>,
              ttcore.shard_status = #ttcore.shard_status<presharded>
          }
      )
      attributes {tt.function_type = "forward_device"}
      {
        %0 = ttcore.load_cached(@main_const_eval_0, []) : () -> tensor<1x64x1xbf16, #ttnn_layout>
        %1 = ttcore.load_cached(@main_const_eval_1, [%arg1]) : (tensor<576x2048xbf16, #ttnn_layout2>) -> tensor<576x1024xbf16, #ttnn_layout3>
        "ttnn.deallocate"(%arg1) <{force = false}> : (tensor<576x2048xbf16, #ttnn_layout2>) -> ()
        %2:2 = ttcore.load_cached(@main_const_eval_2, []) : () -> (tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x64xbf16, #ttnn_layout7>)
        %3 = ttcore.load_cached(@main_const_eval_3, [%arg3]) : (tensor<512xbf16, #ttnn_layout10>) -> tensor<1x1x512xf32, #ttnn_layout11>
        "ttnn.deallocate"(%arg3) <{force = false}> : (tensor<512xbf16, #ttnn_layout10>) -> ()
        %4 = ttcore.load_cached(@main_const_eval_4, []) : () -> tensor<1x1x1xbf16, #ttnn_layout9>
        %5 = ttcore.load_cached(@main_const_eval_5, [%arg7]) : (tensor<2048x2048xbf16, #ttnn_layout15>) -> tensor<1024x512xbf16, #ttnn_layout16>
        "ttnn.deallocate"(%arg7) <{force = false}> : (tensor<2048x2048xbf16, #ttnn_layout15>) -> ()
        %6 = ttcore.load_cached(@main_const_eval_6, [%arg11]) : (tensor<3072xbf16, #ttnn_layout19>) -> tensor<1x3072xf32, #ttnn_layout20>
        "ttnn.deallocate"(%arg11) <{force = false}> : (tensor<3072xbf16, #ttnn_layout19>) -> ()
        %7 = ttcore.load_cached(@main_const_eval_7, []) : () -> tensor<64x1xui32, #ttnn_layout24>
        %8 = ttcore.load_cached(@main_const_eval_8, []) : () -> tensor<1x64x1xbf16, #ttnn_layout>
        %9:2 = ttcore.load_cached(@main_const_eval_9, []) : () -> (tensor<2x1x1xf32, #ttnn_layout31>, tensor<1x2x1xf32, #ttnn_layout32>)
        %10 = ttcore.load_cached(@main_const_eval_10, [%arg9]) : (tensor<3072x3072xbf16, #ttnn_layout33>) -> tensor<768x3072xbf16, #ttnn_layout34>
        "ttnn.deallocate"(%arg9) <{force = false}> : (tensor<3072x3072xbf16, #ttnn_layout33>) -> ()
        %11 = ttcore.load_cached(@main_const_eval_11, [%arg10]) : (tensor<3072x2048xbf16, #ttnn_layout37>) -> tensor<3072x1024xbf16, #ttnn_layout38>
        "ttnn.deallocate"(%arg10) <{force = false}> : (tensor<3072x2048xbf16, #ttnn_layout37>) -> ()
        %12:2 = ttcore.load_cached(@main_const_eval_12, [%arg8]) : (tensor<4096x512xbf16, #ttnn_layout41>) -> (tensor<4x128x512xbf16, #ttnn_layout42>, tensor<4x128x512xbf16, #ttnn_layout42>)
        "ttnn.deallocate"(%arg8) <{force = false}> : (tensor<4096x512xbf16, #ttnn_layout41>) -> ()
        %13 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %14 = "ttnn.mesh_shard"(%arg0, %13) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 2, 1, 1>, shard_type = #ttcore.shard_type<identity>}> : (tensor<4x64x512xbf16, #ttnn_layout46>, !ttnn.device) -> tensor<2x64x512xbf16, #ttnn_layout6>
        %15 = "ttnn.mesh_shard"(%arg2, %13) <{shard_dims = array<i64: 2, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 1, 2>, shard_type = #ttcore.shard_type<identity>}> : (tensor<4x1x2048xbf16, #ttnn_layout47>, !ttnn.device) -> tensor<4x1x1024xbf16, #ttnn_layout51>
        %16 = "ttnn.mesh_shard"(%arg5, %13) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 2, 1, 1>, shard_type = #ttcore.shard_type<identity>}> : (tensor<4x64x64xbf16, #ttnn_layout49>, !ttnn.device) -> tensor<2x64x64xbf16, #ttnn_layout7>
        %17 = "ttnn.to_layout"(%arg4) <{layout = #ttnn.layout<tile>}> : (tensor<bf16, #ttnn_layout48>) -> tensor<bf16, #ttnn_layout8>
        "ttnn.deallocate"(%arg4) <{force = false}> : (tensor<bf16, #ttnn_layout48>) -> ()
        %18 = "ttnn.reshape"(%17) <{shape = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<bf16, #ttnn_layout8>) -> tensor<1x1x1xbf16, #ttnn_layout9>
        "ttnn.deallocate"(%17) <{force = false}> : (tensor<bf16, #ttnn_layout8>) -> ()
        %19 = "ttnn.logical_and"(%18, %0) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<1x1x1xbf16, #ttnn_layout9>, tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<1x64x1xbf16, #ttnn_layout>
        "ttnn.deallocate"(%18) <{force = false}> : (tensor<1x1x1xbf16, #ttnn_layout9>) -> ()
        "ttnn.deallocate"(%0) <{force = false}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> ()
        %20 = "ttnn.logical_and"(%19, %8) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<1x64x1xbf16, #ttnn_layout>, tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<1x64x1xbf16, #ttnn_layout>
        "ttnn.deallocate"(%19) <{force = false}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> ()
        "ttnn.deallocate"(%8) <{force = false}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> ()
        %21 = "ttnn.logical_not"(%20) : (tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<1x64x1xbf16, #ttnn_layout>
        %22 = "ttnn.reshape"(%15) <{shape = [4 : i32, 1024 : i32]}> : (tensor<4x1x1024xbf16, #ttnn_layout51>) -> tensor<4x1024xbf16, #ttnn_layout52>
        "ttnn.deallocate"(%arg2) <{force = false}> : (tensor<4x1x2048xbf16, #ttnn_layout47>) -> ()
        %23 = "ttnn.matmul"(%22, %1) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<4x1024xbf16, #ttnn_layout52>, tensor<576x1024xbf16, #ttnn_layout3>) -> tensor<4x576xbf16, #ttnn_layout53>
        "ttnn.deallocate"(%1) <{force = false}> : (tensor<576x1024xbf16, #ttnn_layout3>) -> ()
        %24 = "ttnn.reshape"(%23) <{shape = [1 : i32, 1 : i32, 4 : i32, 576 : i32]}> : (tensor<4x576xbf16, #ttnn_layout53>) -> tensor<1x1x4x576xbf16, #ttnn_layout54>
        "ttnn.deallocate"(%23) <{force = false}> : (tensor<4x576xbf16, #ttnn_layout53>) -> ()
        %25 = "ttnn.reduce_scatter"(%24) <{cluster_axis = 0 : ui32, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, math_approx_mode = false, fp32_dest_acc_en = true, packer_l1_acc = false>, reduce_type = #ttcore.reduce_type<sum>, scatter_dim = 2 : si32, topology = #ttcore.topology<ring>}> : (tensor<1x1x4x576xbf16, #ttnn_layout54>) -> tensor<1x1x2x576xbf16, #ttnn_layout54>
        "ttnn.deallocate"(%24) <{force = false}> : (tensor<1x1x4x576xbf16, #ttnn_layout54>) -> ()
        %26 = "ttnn.reshape"(%25) <{shape = [2 : i32, 1 : i32, 576 : i32]}> : (tensor<1x1x2x576xbf16, #ttnn_layout54>) -> tensor<2x1x576xbf16, #ttnn_layout55>
        "ttnn.deallocate"(%25) <{force = false}> : (tensor<1x1x2x576xbf16, #ttnn_layout54>) -> ()
        %27 = "ttnn.slice_static"(%26) <{begins = [0 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 1 : i32, 512 : i32], step = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x576xbf16, #ttnn_layout55>) -> tensor<2x1x512xbf16, #ttnn_layout56>
        %28 = "ttnn.typecast"(%27) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x512xbf16, #ttnn_layout56>) -> tensor<2x1x512xf32, #ttnn_layout57>
        "ttnn.deallocate"(%27) <{force = false}> : (tensor<2x1x512xbf16, #ttnn_layout56>) -> ()
        %29 = "ttnn.permute"(%28) <{permutation = array<i64: 1, 0, 2>}> : (tensor<2x1x512xf32, #ttnn_layout57>) -> tensor<1x2x512xf32, #ttnn_layout11>
        "ttnn.deallocate"(%28) <{force = false}> : (tensor<2x1x512xf32, #ttnn_layout57>) -> ()
        %30 = "ttnn.pow_scalar"(%29) <{rhs = 2.000000e+00 : f32}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> tensor<1x2x512xf32, #ttnn_layout11>
        %31 = "ttnn.mean"(%30) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, dim_arg = [2 : i32], keep_dim = true}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> tensor<1x2x1xf32, #ttnn_layout32>
        "ttnn.deallocate"(%30) <{force = false}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> ()
        %32 = "ttnn.add"(%31, %9#1) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x2x1xf32, #ttnn_layout32>, tensor<1x2x1xf32, #ttnn_layout32>) -> tensor<1x2x1xf32, #ttnn_layout32>
        "ttnn.deallocate"(%31) <{force = false}> : (tensor<1x2x1xf32, #ttnn_layout32>) -> ()
        "ttnn.deallocate"(%9#1) <{force = false}> : (tensor<1x2x1xf32, #ttnn_layout32>) -> ()
        %33 = "ttnn.rsqrt"(%32) : (tensor<1x2x1xf32, #ttnn_layout32>) -> tensor<1x2x1xf32, #ttnn_layout32>
        "ttnn.deallocate"(%32) <{force = false}> : (tensor<1x2x1xf32, #ttnn_layout32>) -> ()
        %34 = "ttnn.multiply"(%29, %33) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x2x512xf32, #ttnn_layout11>, tensor<1x2x1xf32, #ttnn_layout32>) -> tensor<1x2x512xf32, #ttnn_layout11>
        "ttnn.deallocate"(%33) <{force = false}> : (tensor<1x2x1xf32, #ttnn_layout32>) -> ()
        "ttnn.deallocate"(%29) <{force = false}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> ()
        %35 = "ttnn.multiply"(%3, %34) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x1x512xf32, #ttnn_layout11>, tensor<1x2x512xf32, #ttnn_layout11>) -> tensor<1x2x512xf32, #ttnn_layout11>
        "ttnn.deallocate"(%34) <{force = false}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> ()
        "ttnn.deallocate"(%3) <{force = false}> : (tensor<1x1x512xf32, #ttnn_layout11>) -> ()
        %36 = "ttnn.typecast"(%35) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> tensor<1x2x512xbf16, #ttnn_layout14>
        "ttnn.deallocate"(%35) <{force = false}> : (tensor<1x2x512xf32, #ttnn_layout11>) -> ()
        %37 = "ttnn.reshape"(%36) <{shape = [1 : i32, 1024 : i32]}> : (tensor<1x2x512xbf16, #ttnn_layout14>) -> tensor<1x1024xbf16, #ttnn_layout52>
        "ttnn.deallocate"(%36) <{force = false}> : (tensor<1x2x512xbf16, #ttnn_layout14>) -> ()
        %38 = "ttnn.to_layout"(%37) <{layout = #ttnn.layout<row_major>}> : (tensor<1x1024xbf16, #ttnn_layout52>) -> tensor<1x1024xbf16, #ttnn_layout58>
        "ttnn.deallocate"(%37) <{force = false}> : (tensor<1x1024xbf16, #ttnn_layout52>) -> ()
        %39 = "ttnn.embedding"(%7, %38) : (tensor<64x1xui32, #ttnn_layout24>, tensor<1x1024xbf16, #ttnn_layout58>) -> tensor<64x1x1024xbf16, #ttnn_layout59>
        "ttnn.deallocate"(%38) <{force = false}> : (tensor<1x1024xbf16, #ttnn_layout58>) -> ()
        %40 = "ttnn.reshape"(%39) <{shape = [64 : i32, 2 : i32, 512 : i32]}> : (tensor<64x1x1024xbf16, #ttnn_layout59>) -> tensor<64x2x512xbf16, #ttnn_layout60>
        "ttnn.deallocate"(%39) <{force = false}> : (tensor<64x1x1024xbf16, #ttnn_layout59>) -> ()
        %41 = "ttnn.permute"(%40) <{permutation = array<i64: 1, 0, 2>}> : (tensor<64x2x512xbf16, #ttnn_layout60>) -> tensor<2x64x512xbf16, #ttnn_layout6>
        "ttnn.deallocate"(%40) <{force = false}> : (tensor<64x2x512xbf16, #ttnn_layout60>) -> ()
        %42 = "ttnn.repeat"(%21) <{repeat_dims = #ttnn.shape<2x1x512>}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<2x64x512xbf16, #ttnn_layout6>
        %43 = "ttnn.where"(%42, %2#0, %41) : (tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x512xbf16, #ttnn_layout6>) -> tensor<2x64x512xbf16, #ttnn_layout6>
        "ttnn.deallocate"(%42) <{force = false}> : (tensor<2x64x512xbf16, #ttnn_layout6>) -> ()
        "ttnn.deallocate"(%41) <{force = false}> : (tensor<2x64x512xbf16, #ttnn_layout6>) -> ()
        "ttnn.deallocate"(%2#0) <{force = false}> : (tensor<2x64x512xbf16, #ttnn_layout6>) -> ()
        %44 = "ttnn.repeat"(%20) <{repeat_dims = #ttnn.shape<2x1x512>}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<2x64x512xbf16, #ttnn_layout6>
        %45 = "ttnn.where"(%44, %43, %14) : (tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x512xbf16, #ttnn_layout6>, tensor<2x64x512xbf16, #ttnn_layout6>) -> tensor<2x64x512xbf16, #ttnn_layout6>
        "ttnn.deallocate"(%44) <{force = false}> : (tensor<2x64x512xbf16, #ttnn_layout6>) -> ()
        "ttnn.deallocate"(%43) <{force = false}> : (tensor<2x64x512xbf16, #ttnn_layout6>) -> ()
        "ttnn.deallocate"(%arg0) <{force = false}> : (tensor<4x64x512xbf16, #ttnn_layout46>) -> ()
        %46 = "ttnn.slice_static"(%26) <{begins = [0 : i32, 0 : i32, 512 : i32], ends = [2 : i32, 1 : i32, 576 : i32], step = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x576xbf16, #ttnn_layout55>) -> tensor<2x1x64xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%26) <{force = false}> : (tensor<2x1x576xbf16, #ttnn_layout55>) -> ()
        %47 = "ttnn.typecast"(%46) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x64xbf16, #ttnn_layout61>) -> tensor<2x1x64xf32, #ttnn_layout62>
        "ttnn.deallocate"(%46) <{force = false}> : (tensor<2x1x64xbf16, #ttnn_layout61>) -> ()
        %48 = "ttnn.reshape"(%47) <{shape = [2 : i32, 1 : i32, 1 : i32, 32 : i32, 2 : i32]}> : (tensor<2x1x64xf32, #ttnn_layout62>) -> tensor<2x1x1x32x2xf32, #ttnn_layout63>
        "ttnn.deallocate"(%47) <{force = false}> : (tensor<2x1x64xf32, #ttnn_layout62>) -> ()
        %49 = "ttnn.slice_static"(%48) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 1 : i32, 1 : i32, 32 : i32, 1 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x1x32x2xf32, #ttnn_layout63>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        %50 = "ttnn.to_layout"(%arg6) <{layout = #ttnn.layout<tile>}> : (tensor<1x32x2xbf16, #ttnn_layout50>) -> tensor<1x32x2xbf16, #ttnn_layout9>
        "ttnn.deallocate"(%arg6) <{force = false}> : (tensor<1x32x2xbf16, #ttnn_layout50>) -> ()
        %51 = "ttnn.reshape"(%50) <{shape = [1 : i32, 1 : i32, 1 : i32, 32 : i32, 2 : i32]}> : (tensor<1x32x2xbf16, #ttnn_layout9>) -> tensor<1x1x1x32x2xbf16, #ttnn_layout64>
        "ttnn.deallocate"(%50) <{force = false}> : (tensor<1x32x2xbf16, #ttnn_layout9>) -> ()
        %52 = "ttnn.slice_static"(%51) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32, 0 : i32], ends = [1 : i32, 1 : i32, 1 : i32, 32 : i32, 1 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<1x1x1x32x2xbf16, #ttnn_layout64>) -> tensor<1x1x1x32x1xbf16, #ttnn_layout64>
        %53 = "ttnn.typecast"(%52) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x1x1x32x1xbf16, #ttnn_layout64>) -> tensor<1x1x1x32x1xf32, #ttnn_layout65>
        "ttnn.deallocate"(%52) <{force = false}> : (tensor<1x1x1x32x1xbf16, #ttnn_layout64>) -> ()
        %54 = "ttnn.multiply"(%49, %53) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        %55 = "ttnn.slice_static"(%48) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32, 1 : i32], ends = [2 : i32, 1 : i32, 1 : i32, 32 : i32, 2 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x1x32x2xf32, #ttnn_layout63>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        "ttnn.deallocate"(%48) <{force = false}> : (tensor<2x1x1x32x2xf32, #ttnn_layout63>) -> ()
        %56 = "ttnn.slice_static"(%51) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32, 1 : i32], ends = [1 : i32, 1 : i32, 1 : i32, 32 : i32, 2 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<1x1x1x32x2xbf16, #ttnn_layout64>) -> tensor<1x1x1x32x1xbf16, #ttnn_layout64>
        "ttnn.deallocate"(%51) <{force = false}> : (tensor<1x1x1x32x2xbf16, #ttnn_layout64>) -> ()
        %57 = "ttnn.typecast"(%56) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x1x1x32x1xbf16, #ttnn_layout64>) -> tensor<1x1x1x32x1xf32, #ttnn_layout65>
        "ttnn.deallocate"(%56) <{force = false}> : (tensor<1x1x1x32x1xbf16, #ttnn_layout64>) -> ()
        %58 = "ttnn.multiply"(%55, %57) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        %59 = "ttnn.subtract"(%54, %58) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        "ttnn.deallocate"(%58) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        "ttnn.deallocate"(%54) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        %60 = "ttnn.multiply"(%49, %57) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        "ttnn.deallocate"(%49) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        %61 = "ttnn.multiply"(%55, %53) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        "ttnn.deallocate"(%55) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        %62 = "ttnn.add"(%60, %61) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> tensor<2x1x1x32x1xf32, #ttnn_layout63>
        "ttnn.deallocate"(%61) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        "ttnn.deallocate"(%60) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        %63 = "ttnn.concat"(%59, %62) <{dim = 4 : si32}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>, tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> tensor<2x1x1x32x2xf32, #ttnn_layout63>
        "ttnn.deallocate"(%62) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        "ttnn.deallocate"(%59) <{force = false}> : (tensor<2x1x1x32x1xf32, #ttnn_layout63>) -> ()
        %64 = "ttnn.typecast"(%63) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<2x1x1x32x2xf32, #ttnn_layout63>) -> tensor<2x1x1x32x2xbf16, #ttnn_layout66>
        "ttnn.deallocate"(%63) <{force = false}> : (tensor<2x1x1x32x2xf32, #ttnn_layout63>) -> ()
        %65 = "ttnn.reshape"(%64) <{shape = [2 : i32, 1 : i32, 64 : i32]}> : (tensor<2x1x1x32x2xbf16, #ttnn_layout66>) -> tensor<2x1x64xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%64) <{force = false}> : (tensor<2x1x1x32x2xbf16, #ttnn_layout66>) -> ()
        %66 = "ttnn.permute"(%65) <{permutation = array<i64: 1, 0, 2>}> : (tensor<2x1x64xbf16, #ttnn_layout61>) -> tensor<1x2x64xbf16, #ttnn_layout67>
        "ttnn.deallocate"(%65) <{force = false}> : (tensor<2x1x64xbf16, #ttnn_layout61>) -> ()
        %67 = "ttnn.reshape"(%66) <{shape = [1 : i32, 128 : i32]}> : (tensor<1x2x64xbf16, #ttnn_layout67>) -> tensor<1x128xbf16, #ttnn_layout68>
        "ttnn.deallocate"(%66) <{force = false}> : (tensor<1x2x64xbf16, #ttnn_layout67>) -> ()
        %68 = "ttnn.to_layout"(%67) <{layout = #ttnn.layout<row_major>}> : (tensor<1x128xbf16, #ttnn_layout68>) -> tensor<1x128xbf16, #ttnn_layout69>
        "ttnn.deallocate"(%67) <{force = false}> : (tensor<1x128xbf16, #ttnn_layout68>) -> ()
        %69 = "ttnn.embedding"(%7, %68) : (tensor<64x1xui32, #ttnn_layout24>, tensor<1x128xbf16, #ttnn_layout69>) -> tensor<64x1x128xbf16, #ttnn_layout70>
        "ttnn.deallocate"(%68) <{force = false}> : (tensor<1x128xbf16, #ttnn_layout69>) -> ()
        "ttnn.deallocate"(%7) <{force = false}> : (tensor<64x1xui32, #ttnn_layout24>) -> ()
        %70 = "ttnn.reshape"(%69) <{shape = [64 : i32, 2 : i32, 64 : i32]}> : (tensor<64x1x128xbf16, #ttnn_layout70>) -> tensor<64x2x64xbf16, #ttnn_layout71>
        "ttnn.deallocate"(%69) <{force = false}> : (tensor<64x1x128xbf16, #ttnn_layout70>) -> ()
        %71 = "ttnn.permute"(%70) <{permutation = array<i64: 1, 0, 2>}> : (tensor<64x2x64xbf16, #ttnn_layout71>) -> tensor<2x64x64xbf16, #ttnn_layout7>
        "ttnn.deallocate"(%70) <{force = false}> : (tensor<64x2x64xbf16, #ttnn_layout71>) -> ()
        %72 = "ttnn.repeat"(%21) <{repeat_dims = #ttnn.shape<2x1x64>}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<2x64x64xbf16, #ttnn_layout7>
        "ttnn.deallocate"(%21) <{force = false}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> ()
        %73 = "ttnn.where"(%72, %2#1, %71) : (tensor<2x64x64xbf16, #ttnn_layout7>, tensor<2x64x64xbf16, #ttnn_layout7>, tensor<2x64x64xbf16, #ttnn_layout7>) -> tensor<2x64x64xbf16, #ttnn_layout7>
        "ttnn.deallocate"(%72) <{force = false}> : (tensor<2x64x64xbf16, #ttnn_layout7>) -> ()
        "ttnn.deallocate"(%71) <{force = false}> : (tensor<2x64x64xbf16, #ttnn_layout7>) -> ()
        "ttnn.deallocate"(%2#1) <{force = false}> : (tensor<2x64x64xbf16, #ttnn_layout7>) -> ()
        %74 = "ttnn.repeat"(%20) <{repeat_dims = #ttnn.shape<2x1x64>}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> tensor<2x64x64xbf16, #ttnn_layout7>
        "ttnn.deallocate"(%20) <{force = false}> : (tensor<1x64x1xbf16, #ttnn_layout>) -> ()
        %75 = "ttnn.where"(%74, %73, %16) : (tensor<2x64x64xbf16, #ttnn_layout7>, tensor<2x64x64xbf16, #ttnn_layout7>, tensor<2x64x64xbf16, #ttnn_layout7>) -> tensor<2x64x64xbf16, #ttnn_layout7>
        "ttnn.deallocate"(%74) <{force = false}> : (tensor<2x64x64xbf16, #ttnn_layout7>) -> ()
        "ttnn.deallocate"(%73) <{force = false}> : (tensor<2x64x64xbf16, #ttnn_layout7>) -> ()
        "ttnn.deallocate"(%arg5) <{force = false}> : (tensor<4x64x64xbf16, #ttnn_layout49>) -> ()
        %76 = "ttnn.matmul"(%22, %11) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<4x1024xbf16, #ttnn_layout52>, tensor<3072x1024xbf16, #ttnn_layout38>) -> tensor<4x3072xbf16, #ttnn_layout23>
        "ttnn.deallocate"(%22) <{force = false}> : (tensor<4x1024xbf16, #ttnn_layout52>) -> ()
        "ttnn.deallocate"(%11) <{force = false}> : (tensor<3072x1024xbf16, #ttnn_layout38>) -> ()
        %77 = "ttnn.reshape"(%76) <{shape = [1 : i32, 1 : i32, 4 : i32, 3072 : i32]}> : (tensor<4x3072xbf16, #ttnn_layout23>) -> tensor<1x1x4x3072xbf16, #ttnn_layout72>
        "ttnn.deallocate"(%76) <{force = false}> : (tensor<4x3072xbf16, #ttnn_layout23>) -> ()
        %78 = "ttnn.reduce_scatter"(%77) <{cluster_axis = 0 : ui32, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, math_approx_mode = false, fp32_dest_acc_en = true, packer_l1_acc = false>, reduce_type = #ttcore.reduce_type<sum>, scatter_dim = 2 : si32, topology = #ttcore.topology<ring>}> : (tensor<1x1x4x3072xbf16, #ttnn_layout72>) -> tensor<1x1x2x3072xbf16, #ttnn_layout72>
        "ttnn.deallocate"(%77) <{force = false}> : (tensor<1x1x4x3072xbf16, #ttnn_layout72>) -> ()
        %79 = "ttnn.reshape"(%78) <{shape = [2 : i32, 3072 : i32]}> : (tensor<1x1x2x3072xbf16, #ttnn_layout72>) -> tensor<2x3072xbf16, #ttnn_layout23>
        "ttnn.deallocate"(%78) <{force = false}> : (tensor<1x1x2x3072xbf16, #ttnn_layout72>) -> ()
        %80 = "ttnn.typecast"(%79) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x3072xbf16, #ttnn_layout23>) -> tensor<2x3072xf32, #ttnn_layout20>
        "ttnn.deallocate"(%79) <{force = false}> : (tensor<2x3072xbf16, #ttnn_layout23>) -> ()
        %81 = "ttnn.reshape"(%80) <{shape = [2 : i32, 1 : i32, 3072 : i32]}> : (tensor<2x3072xf32, #ttnn_layout20>) -> tensor<2x1x3072xf32, #ttnn_layout73>
        %82 = "ttnn.pow_scalar"(%81) <{rhs = 2.000000e+00 : f32}> : (tensor<2x1x3072xf32, #ttnn_layout73>) -> tensor<2x1x3072xf32, #ttnn_layout73>
        "ttnn.deallocate"(%81) <{force = false}> : (tensor<2x1x3072xf32, #ttnn_layout73>) -> ()
        %83 = "ttnn.mean"(%82) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, dim_arg = [2 : i32], keep_dim = true}> : (tensor<2x1x3072xf32, #ttnn_layout73>) -> tensor<2x1x1xf32, #ttnn_layout31>
        "ttnn.deallocate"(%82) <{force = false}> : (tensor<2x1x3072xf32, #ttnn_layout73>) -> ()
        %84 = "ttnn.add"(%83, %9#0) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x1xf32, #ttnn_layout31>, tensor<2x1x1xf32, #ttnn_layout31>) -> tensor<2x1x1xf32, #ttnn_layout31>
        "ttnn.deallocate"(%83) <{force = false}> : (tensor<2x1x1xf32, #ttnn_layout31>) -> ()
        "ttnn.deallocate"(%9#0) <{force = false}> : (tensor<2x1x1xf32, #ttnn_layout31>) -> ()
        %85 = "ttnn.rsqrt"(%84) : (tensor<2x1x1xf32, #ttnn_layout31>) -> tensor<2x1x1xf32, #ttnn_layout31>
        "ttnn.deallocate"(%84) <{force = false}> : (tensor<2x1x1xf32, #ttnn_layout31>) -> ()
        %86 = "ttnn.reshape"(%85) <{shape = [2 : i32, 1 : i32]}> : (tensor<2x1x1xf32, #ttnn_layout31>) -> tensor<2x1xf32, #ttnn_layout74>
        "ttnn.deallocate"(%85) <{force = false}> : (tensor<2x1x1xf32, #ttnn_layout31>) -> ()
        %87 = "ttnn.multiply"(%80, %86) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x3072xf32, #ttnn_layout20>, tensor<2x1xf32, #ttnn_layout74>) -> tensor<2x3072xf32, #ttnn_layout20>
        "ttnn.deallocate"(%86) <{force = false}> : (tensor<2x1xf32, #ttnn_layout74>) -> ()
        "ttnn.deallocate"(%80) <{force = false}> : (tensor<2x3072xf32, #ttnn_layout20>) -> ()
        %88 = "ttnn.multiply"(%6, %87) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<1x3072xf32, #ttnn_layout20>, tensor<2x3072xf32, #ttnn_layout20>) -> tensor<2x3072xf32, #ttnn_layout20>
        "ttnn.deallocate"(%87) <{force = false}> : (tensor<2x3072xf32, #ttnn_layout20>) -> ()
        "ttnn.deallocate"(%6) <{force = false}> : (tensor<1x3072xf32, #ttnn_layout20>) -> ()
        %89 = "ttnn.typecast"(%88) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<2x3072xf32, #ttnn_layout20>) -> tensor<2x3072xbf16, #ttnn_layout23>
        "ttnn.deallocate"(%88) <{force = false}> : (tensor<2x3072xf32, #ttnn_layout20>) -> ()
        %90 = "ttnn.matmul"(%89, %10) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<2x3072xbf16, #ttnn_layout23>, tensor<768x3072xbf16, #ttnn_layout34>) -> tensor<2x768xbf16, #ttnn_layout75>
        "ttnn.deallocate"(%89) <{force = false}> : (tensor<2x3072xbf16, #ttnn_layout23>) -> ()
        "ttnn.deallocate"(%10) <{force = false}> : (tensor<768x3072xbf16, #ttnn_layout34>) -> ()
        %91 = "ttnn.reshape"(%90) <{shape = [2 : i32, 1 : i32, 4 : i32, 192 : i32]}> : (tensor<2x768xbf16, #ttnn_layout75>) -> tensor<2x1x4x192xbf16, #ttnn_layout76>
        "ttnn.deallocate"(%90) <{force = false}> : (tensor<2x768xbf16, #ttnn_layout75>) -> ()
        %92 = "ttnn.slice_static"(%91) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 1 : i32, 4 : i32, 128 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x4x192xbf16, #ttnn_layout76>) -> tensor<2x1x4x128xbf16, #ttnn_layout77>
        %93 = "ttnn.permute"(%92) <{permutation = array<i64: 2, 0, 1, 3>}> : (tensor<2x1x4x128xbf16, #ttnn_layout77>) -> tensor<4x2x1x128xbf16, #ttnn_layout78>
        "ttnn.deallocate"(%92) <{force = false}> : (tensor<2x1x4x128xbf16, #ttnn_layout77>) -> ()
        %94 = "ttnn.reshape"(%93) <{shape = [4 : i32, 2 : i32, 128 : i32]}> : (tensor<4x2x1x128xbf16, #ttnn_layout78>) -> tensor<4x2x128xbf16, #ttnn_layout79>
        "ttnn.deallocate"(%93) <{force = false}> : (tensor<4x2x1x128xbf16, #ttnn_layout78>) -> ()
        %95 = "ttnn.matmul"(%94, %12#0) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = false}> : (tensor<4x2x128xbf16, #ttnn_layout79>, tensor<4x128x512xbf16, #ttnn_layout42>) -> tensor<4x2x512xbf16, #ttnn_layout80>
        "ttnn.deallocate"(%94) <{force = false}> : (tensor<4x2x128xbf16, #ttnn_layout79>) -> ()
        "ttnn.deallocate"(%12#0) <{force = false}> : (tensor<4x128x512xbf16, #ttnn_layout42>) -> ()
        %96 = "ttnn.reshape"(%95) <{shape = [4 : i32, 2 : i32, 1 : i32, 512 : i32]}> : (tensor<4x2x512xbf16, #ttnn_layout80>) -> tensor<4x2x1x512xbf16, #ttnn_layout81>
        "ttnn.deallocate"(%95) <{force = false}> : (tensor<4x2x512xbf16, #ttnn_layout80>) -> ()
        %97 = "ttnn.permute"(%96) <{permutation = array<i64: 1, 2, 0, 3>}> : (tensor<4x2x1x512xbf16, #ttnn_layout81>) -> tensor<2x1x4x512xbf16, #ttnn_layout82>
        "ttnn.deallocate"(%96) <{force = false}> : (tensor<4x2x1x512xbf16, #ttnn_layout81>) -> ()
        %98 = "ttnn.slice_static"(%45) <{begins = [0 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 33 : i32, 512 : i32], step = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x64x512xbf16, #ttnn_layout6>) -> tensor<2x33x512xbf16, #ttnn_layout6>
        %99 = "ttnn.reshape"(%97) <{shape = [2 : i32, 4 : i32, 512 : i32]}> : (tensor<2x1x4x512xbf16, #ttnn_layout82>) -> tensor<2x4x512xbf16, #ttnn_layout56>
        "ttnn.deallocate"(%97) <{force = false}> : (tensor<2x1x4x512xbf16, #ttnn_layout82>) -> ()
        %100 = "ttnn.matmul"(%99, %98) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<2x4x512xbf16, #ttnn_layout56>, tensor<2x33x512xbf16, #ttnn_layout6>) -> tensor<2x4x33xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%99) <{force = false}> : (tensor<2x4x512xbf16, #ttnn_layout56>) -> ()
        %101 = "ttnn.slice_static"(%91) <{begins = [0 : i32, 0 : i32, 0 : i32, 128 : i32], ends = [2 : i32, 1 : i32, 4 : i32, 192 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x4x192xbf16, #ttnn_layout76>) -> tensor<2x1x4x64xbf16, #ttnn_layout83>
        "ttnn.deallocate"(%91) <{force = false}> : (tensor<2x1x4x192xbf16, #ttnn_layout76>) -> ()
        %102 = "ttnn.typecast"(%101) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x64xbf16, #ttnn_layout83>) -> tensor<2x1x4x64xf32, #ttnn_layout84>
        "ttnn.deallocate"(%101) <{force = false}> : (tensor<2x1x4x64xbf16, #ttnn_layout83>) -> ()
        %103 = "ttnn.reshape"(%102) <{shape = [2 : i32, 1 : i32, 4 : i32, 32 : i32, 2 : i32]}> : (tensor<2x1x4x64xf32, #ttnn_layout84>) -> tensor<2x1x4x32x2xf32, #ttnn_layout85>
        "ttnn.deallocate"(%102) <{force = false}> : (tensor<2x1x4x64xf32, #ttnn_layout84>) -> ()
        %104 = "ttnn.slice_static"(%103) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 1 : i32, 4 : i32, 32 : i32, 1 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x4x32x2xf32, #ttnn_layout85>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        %105 = "ttnn.multiply"(%104, %53) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        %106 = "ttnn.slice_static"(%103) <{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32, 1 : i32], ends = [2 : i32, 1 : i32, 4 : i32, 32 : i32, 2 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x1x4x32x2xf32, #ttnn_layout85>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        "ttnn.deallocate"(%103) <{force = false}> : (tensor<2x1x4x32x2xf32, #ttnn_layout85>) -> ()
        %107 = "ttnn.multiply"(%106, %57) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        %108 = "ttnn.subtract"(%105, %107) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        "ttnn.deallocate"(%107) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        "ttnn.deallocate"(%105) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        %109 = "ttnn.multiply"(%104, %57) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        "ttnn.deallocate"(%104) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        "ttnn.deallocate"(%57) <{force = false}> : (tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> ()
        %110 = "ttnn.multiply"(%106, %53) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        "ttnn.deallocate"(%106) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        "ttnn.deallocate"(%53) <{force = false}> : (tensor<1x1x1x32x1xf32, #ttnn_layout65>) -> ()
        %111 = "ttnn.add"(%109, %110) <{dtype = #ttcore.supportedDataTypes<f32>}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> tensor<2x1x4x32x1xf32, #ttnn_layout85>
        "ttnn.deallocate"(%110) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        "ttnn.deallocate"(%109) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        %112 = "ttnn.concat"(%108, %111) <{dim = 4 : si32}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>, tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> tensor<2x1x4x32x2xf32, #ttnn_layout85>
        "ttnn.deallocate"(%111) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        "ttnn.deallocate"(%108) <{force = false}> : (tensor<2x1x4x32x1xf32, #ttnn_layout85>) -> ()
        %113 = "ttnn.typecast"(%112) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<2x1x4x32x2xf32, #ttnn_layout85>) -> tensor<2x1x4x32x2xbf16, #ttnn_layout86>
        "ttnn.deallocate"(%112) <{force = false}> : (tensor<2x1x4x32x2xf32, #ttnn_layout85>) -> ()
        %114 = "ttnn.reshape"(%113) <{shape = [2 : i32, 4 : i32, 64 : i32]}> : (tensor<2x1x4x32x2xbf16, #ttnn_layout86>) -> tensor<2x4x64xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%113) <{force = false}> : (tensor<2x1x4x32x2xbf16, #ttnn_layout86>) -> ()
        %115 = "ttnn.slice_static"(%75) <{begins = [0 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 33 : i32, 64 : i32], step = [1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x64x64xbf16, #ttnn_layout7>) -> tensor<2x33x64xbf16, #ttnn_layout7>
        %116 = "ttnn.matmul"(%114, %115) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<2x4x64xbf16, #ttnn_layout61>, tensor<2x33x64xbf16, #ttnn_layout7>) -> tensor<2x4x33xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%115) <{force = false}> : (tensor<2x33x64xbf16, #ttnn_layout7>) -> ()
        "ttnn.deallocate"(%114) <{force = false}> : (tensor<2x4x64xbf16, #ttnn_layout61>) -> ()
        %117 = "ttnn.add"(%100, %116) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<2x4x33xbf16, #ttnn_layout61>, tensor<2x4x33xbf16, #ttnn_layout61>) -> tensor<2x4x33xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%116) <{force = false}> : (tensor<2x4x33xbf16, #ttnn_layout61>) -> ()
        "ttnn.deallocate"(%100) <{force = false}> : (tensor<2x4x33xbf16, #ttnn_layout61>) -> ()
        %118 = "ttnn.multiply"(%117, %4) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<2x4x33xbf16, #ttnn_layout61>, tensor<1x1x1xbf16, #ttnn_layout9>) -> tensor<2x4x33xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%117) <{force = false}> : (tensor<2x4x33xbf16, #ttnn_layout61>) -> ()
        "ttnn.deallocate"(%4) <{force = false}> : (tensor<1x1x1xbf16, #ttnn_layout9>) -> ()
        %119 = "ttnn.softmax"(%118) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, dimension = 2 : si32, numericStable = true}> : (tensor<2x4x33xbf16, #ttnn_layout61>) -> tensor<2x4x33xbf16, #ttnn_layout61>
        "ttnn.deallocate"(%118) <{force = false}> : (tensor<2x4x33xbf16, #ttnn_layout61>) -> ()
        %120 = "ttnn.matmul"(%119, %98) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = false}> : (tensor<2x4x33xbf16, #ttnn_layout61>, tensor<2x33x512xbf16, #ttnn_layout6>) -> tensor<2x4x512xbf16, #ttnn_layout56>
        "ttnn.deallocate"(%119) <{force = false}> : (tensor<2x4x33xbf16, #ttnn_layout61>) -> ()
        "ttnn.deallocate"(%98) <{force = false}> : (tensor<2x33x512xbf16, #ttnn_layout6>) -> ()
        %121 = "ttnn.reshape"(%120) <{shape = [2 : i32, 1 : i32, 4 : i32, 512 : i32]}> : (tensor<2x4x512xbf16, #ttnn_layout56>) -> tensor<2x1x4x512xbf16, #ttnn_layout82>
        "ttnn.deallocate"(%120) <{force = false}> : (tensor<2x4x512xbf16, #ttnn_layout56>) -> ()
        %122 = "ttnn.permute"(%121) <{permutation = array<i64: 2, 0, 1, 3>}> : (tensor<2x1x4x512xbf16, #ttnn_layout82>) -> tensor<4x2x1x512xbf16, #ttnn_layout81>
        "ttnn.deallocate"(%121) <{force = false}> : (tensor<2x1x4x512xbf16, #ttnn_layout82>) -> ()
        %123 = "ttnn.reshape"(%122) <{shape = [4 : i32, 2 : i32, 512 : i32]}> : (tensor<4x2x1x512xbf16, #ttnn_layout81>) -> tensor<4x2x512xbf16, #ttnn_layout80>
        "ttnn.deallocate"(%122) <{force = false}> : (tensor<4x2x1x512xbf16, #ttnn_layout81>) -> ()
        %124 = "ttnn.matmul"(%123, %12#1) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<4x2x512xbf16, #ttnn_layout80>, tensor<4x128x512xbf16, #ttnn_layout42>) -> tensor<4x2x128xbf16, #ttnn_layout79>
        "ttnn.deallocate"(%123) <{force = false}> : (tensor<4x2x512xbf16, #ttnn_layout80>) -> ()
        "ttnn.deallocate"(%12#1) <{force = false}> : (tensor<4x128x512xbf16, #ttnn_layout42>) -> ()
        %125 = "ttnn.reshape"(%124) <{shape = [4 : i32, 2 : i32, 1 : i32, 128 : i32]}> : (tensor<4x2x128xbf16, #ttnn_layout79>) -> tensor<4x2x1x128xbf16, #ttnn_layout78>
        "ttnn.deallocate"(%124) <{force = false}> : (tensor<4x2x128xbf16, #ttnn_layout79>) -> ()
        %126 = "ttnn.permute"(%125) <{permutation = array<i64: 1, 2, 0, 3>}> : (tensor<4x2x1x128xbf16, #ttnn_layout78>) -> tensor<2x1x4x128xbf16, #ttnn_layout77>
        "ttnn.deallocate"(%125) <{force = false}> : (tensor<4x2x1x128xbf16, #ttnn_layout78>) -> ()
        %127 = "ttnn.reshape"(%126) <{shape = [1 : i32, 1 : i32, 2 : i32, 512 : i32]}> : (tensor<2x1x4x128xbf16, #ttnn_layout77>) -> tensor<1x1x2x512xbf16, #ttnn_layout87>
        "ttnn.deallocate"(%126) <{force = false}> : (tensor<2x1x4x128xbf16, #ttnn_layout77>) -> ()
        %128 = "ttnn.all_gather"(%127) <{all_gather_dim = 2 : si32, cluster_axis = 0 : ui32, topology = #ttcore.topology<ring>}> : (tensor<1x1x2x512xbf16, #ttnn_layout87>) -> tensor<1x1x4x512xbf16, #ttnn_layout87>
        "ttnn.deallocate"(%127) <{force = false}> : (tensor<1x1x2x512xbf16, #ttnn_layout87>) -> ()
        %129 = "ttnn.reshape"(%128) <{shape = [4 : i32, 512 : i32]}> : (tensor<1x1x4x512xbf16, #ttnn_layout87>) -> tensor<4x512xbf16, #ttnn_layout88>
        "ttnn.deallocate"(%128) <{force = false}> : (tensor<1x1x4x512xbf16, #ttnn_layout87>) -> ()
        %130 = "ttnn.matmul"(%129, %5) <{compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, transpose_a = false, transpose_b = true}> : (tensor<4x512xbf16, #ttnn_layout88>, tensor<1024x512xbf16, #ttnn_layout16>) -> tensor<4x1024xbf16, #ttnn_layout52>
        "ttnn.deallocate"(%129) <{force = false}> : (tensor<4x512xbf16, #ttnn_layout88>) -> ()
        "ttnn.deallocate"(%5) <{force = false}> : (tensor<1024x512xbf16, #ttnn_layout16>) -> ()
        %131 = "ttnn.reshape"(%130) <{shape = [1 : i32, 1 : i32, 4 : i32, 1024 : i32]}> : (tensor<4x1024xbf16, #ttnn_layout52>) -> tensor<1x1x4x1024xbf16, #ttnn_layout89>
        "ttnn.deallocate"(%130) <{force = false}> : (tensor<4x1024xbf16, #ttnn_layout52>) -> ()
        %132 = "ttnn.reduce_scatter"(%131) <{cluster_axis = 1 : ui32, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, math_approx_mode = false, fp32_dest_acc_en = true, packer_l1_acc = false>, reduce_type = #ttcore.reduce_type<sum>, scatter_dim = 3 : si32, topology = #ttcore.topology<linear>}> : (tensor<1x1x4x1024xbf16, #ttnn_layout89>) -> tensor<1x1x4x256xbf16, #ttnn_layout90>
        "ttnn.deallocate"(%131) <{force = false}> : (tensor<1x1x4x1024xbf16, #ttnn_layout89>) -> ()
        %133 = "ttnn.all_gather"(%132) <{all_gather_dim = 3 : si32, cluster_axis = 1 : ui32, topology = #ttcore.topology<linear>}> : (tensor<1x1x4x256xbf16, #ttnn_layout90>) -> tensor<1x1x4x1024xbf16, #ttnn_layout89>
        "ttnn.deallocate"(%132) <{force = false}> : (tensor<1x1x4x256xbf16, #ttnn_layout90>) -> ()
        %134 = "ttnn.reshape"(%133) <{shape = [4 : i32, 1 : i32, 1024 : i32]}> : (tensor<1x1x4x1024xbf16, #ttnn_layout89>) -> tensor<4x1x1024xbf16, #ttnn_layout51>
        "ttnn.deallocate"(%133) <{force = false}> : (tensor<1x1x4x1024xbf16, #ttnn_layout89>) -> ()
        %135 = "ttnn.mesh_shard"(%45, %13) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 2, 1, 1>, shard_type = #ttcore.shard_type<identity>}> : (tensor<2x64x512xbf16, #ttnn_layout6>, !ttnn.device) -> tensor<4x64x512xbf16, #ttnn_layout46>
        %136 = "ttnn.mesh_shard"(%75, %13) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 2, 1, 1>, shard_type = #ttcore.shard_type<identity>}> : (tensor<2x64x64xbf16, #ttnn_layout7>, !ttnn.device) -> tensor<4x64x64xbf16, #ttnn_layout49>
        %137 = "ttnn.mesh_shard"(%134, %13) <{shard_dims = array<i64: 2, -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 1, 1, 2>, shard_type = #ttcore.shard_type<identity>}> : (tensor<4x1x1024xbf16, #ttnn_layout51>, !ttnn.device) -> tensor<4x1x2048xbf16, #ttnn_layout47>
        return %135, %136, %137 : tensor<4x64x512xbf16, #ttnn_layout46>, tensor<4x64x64xbf16, #ttnn_layout49>, tensor<4x1x2048xbf16, #ttnn_layout47>
      }
    }
  }
}


// ------------------------------------------------------------


#dram = #ttnn.buffer_type<dram>
#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073136832, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}, {arch = <wormhole_b0>, grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, dram_unreserved_base = 1920032, dram_unreserved_end = 1073154112, supported_data_types = [<f32>, <f16>, <bf16>, <bfp_f8>, <bfp_bf8>, <bfp_f4>, <bfp_bf4>, <bfp_f2>, <bfp_bf2>, <u32>, <u16>, <u8>, <si32>], supported_tile_sizes = [ 4x16,  16x16,  32x16,  4x32,  16x32,  32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, num_datamovement_threads = 2}], [0, 1, 2, 3, 4, 5, 6, 7], [1 : i32, 1 : i32, 1 : i32, 1 : i32, 0 : i32, 0 : i32, 0 : i32, 0 : i32], [ 0x0x0x0], [<[0, 6, 0], [3, 6, 0]>, <[0, 7, 0], [3, 7, 0]>, <[0, 9, 0], [5, 1, 0]>, <[0, 14, 0], [1, 14, 0]>, <[0, 15, 0], [1, 15, 0]>, <[1, 0, 0], [2, 0, 0]>, <[1, 1, 0], [2, 1, 0]>, <[1, 9, 0], [6, 1, 0]>, <[2, 9, 0], [4, 1, 0]>, <[2, 14, 0], [3, 14, 0]>, <[2, 15, 0], [3, 15, 0]>, <[3, 9, 0], [7, 1, 0]>, <[4, 6, 0], [7, 6, 0]>, <[5, 6, 0], [6, 6, 0]>]>
#ttnn_layout = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<4x64x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout1 = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), <1x1>, memref<4x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout2 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 128 + d1 * 32 + d2, d3), <1x1>, memref<4x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout3 = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 128 + d1 * 32 + d2, d3), <1x1>, memref<4x64x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
module @ReplicateShardedData.6 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false, ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>} {
  ttcore.device_module {
    builtin.module @ReplicateShardedData.6 attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false, ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>, ttcore.system_desc = #system_desc} {
      ttcore.device @default_device = <workerGrid = #ttcore.grid<8x8, (d0, d1) -> (0, d0, d1)>, l1Map = (d0, d1, d2)[s0] -> (0, d0, d1, d2 + s0), dramMap = (d0, d1, d2)[s0, s1, s2, s3, s4, s5, s6] -> (0, 0, (((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) floordiv s4) mod 12, ((((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) floordiv s4) floordiv 12) * s4 + ((d0 * s1) * (s2 * (s3 * s6)) + d1 * (s2 * (s3 * s6)) + d2) mod s4 + s5), meshShape = 2x4, chipIds = [0, 1, 2, 3, 4, 5, 6, 7], meshTopology = [linear, ring]>
      func.func @main(%arg0: tensor<4x1x2048xbf16, #ttnn_layout> {ttcore.argument_type = #ttcore.argument_type<input>, ttcore.local_shape = #ttcore<local_shape local_shape = tensor<4x1x1024xbf16>>, ttcore.shard_status = #ttcore.shard_status<presharded>}) -> (tensor<4x1x2048xbf16, #ttnn_layout> {ttcore.local_shape = #ttcore<local_shape local_shape = tensor<4x1x2048xbf16>>, ttcore.shard_status = #ttcore.shard_status<presharded>}) attributes {tt.function_type = "forward_device"} {
        %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device
        %1 = "ttnn.mesh_shard"(%arg0, %0) <{shard_dims = array<i64: 2, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 1, 2>, shard_type = #ttcore.shard_type<identity>}> : (tensor<4x1x2048xbf16, #ttnn_layout>, !ttnn.device) -> tensor<4x1x1024xbf16, #ttnn_layout1>
        %2 = "ttnn.reshape"(%1) <{shape = [1 : i32, 4 : i32, 1 : i32, 1024 : i32]}> : (tensor<4x1x1024xbf16, #ttnn_layout1>) -> tensor<1x4x1x1024xbf16, #ttnn_layout2>
        "ttnn.deallocate"(%arg0) <{force = false}> : (tensor<4x1x2048xbf16, #ttnn_layout>) -> ()
        %3 = "ttnn.all_gather"(%2) <{all_gather_dim = 3 : si32, cluster_axis = 0 : ui32, topology = #ttcore.topology<ring>}> : (tensor<1x4x1x1024xbf16, #ttnn_layout2>) -> tensor<1x4x1x2048xbf16, #ttnn_layout3>
        "ttnn.deallocate"(%2) <{force = false}> : (tensor<1x4x1x1024xbf16, #ttnn_layout2>) -> ()
        %4 = "ttnn.reshape"(%3) <{shape = [4 : i32, 1 : i32, 2048 : i32]}> : (tensor<1x4x1x2048xbf16, #ttnn_layout3>) -> tensor<4x1x2048xbf16, #ttnn_layout>
        "ttnn.deallocate"(%3) <{force = false}> : (tensor<1x4x1x2048xbf16, #ttnn_layout3>) -> ()
        return %4 : tensor<4x1x2048xbf16, #ttnn_layout>
      }
    }
  }
}