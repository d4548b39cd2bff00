// Constructed for ttanalyze's tests: a 2x4 mesh (ttcore.meshes), layouts naming it (mesh = #ttcore.tensor_mesh,
// the assemblyFormat of TTNN_TTNNLayoutAttr at tt-mlir 19c86fca), #ttnn.buffer_type written inline, a layout
// spread over several lines, and tensors of every TTCore_DataType tt-mlir writes (builtin element types and
// block-float tiles as the tensor's element type).
#mesh_layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, mesh = #ttcore.tensor_mesh<"mesh">, memref<4x8x!ttcore.tile<32x32, bf16>, #ttnn.buffer_type<dram>>, <interleaved>>
#bfp8 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, bfp_bf8>, #ttnn.buffer_type<dram>>, <interleaved>>
#bfp4 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, bfp_bf4>, #ttnn.buffer_type<dram>>, <interleaved>>
#bfp2 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, bfp_bf2>, #ttnn.buffer_type<dram>>, <interleaved>>
#u8 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>,
                        memref<4x8x!ttcore.tile<32x32, u8>, #ttnn.buffer_type<dram>>,
                        <interleaved>>
#u16 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, u16>, #ttnn.buffer_type<dram>>, <interleaved>>
#u32 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, u32>, #ttnn.buffer_type<dram>>, <interleaved>>
#si32 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, si32>, #ttnn.buffer_type<dram>>, <interleaved>>
#f32 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x8x!ttcore.tile<32x32, f32>, #ttnn.buffer_type<dram>>, <interleaved>>
module attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>} {
  func.func @forward(%a: tensor<128x256xbf16, #mesh_layout>,
                     %w8: tensor<128x256x!ttcore.tile<32x32, bfp_bf8>, #bfp8>,
                     %w4: tensor<128x256x!ttcore.tile<32x32, bfp_bf4>, #bfp4>,
                     %w2: tensor<128x256x!ttcore.tile<32x32, bfp_bf2>, #bfp2>,
                     %i8: tensor<128x256xui8, #u8>, %i16: tensor<128x256xui16, #u16>, %i32: tensor<128x256xui32, #u32>,
                     %s32: tensor<128x256xsi32, #si32>, %f: tensor<128x256xf32, #f32>) -> tensor<128x256xbf16, #mesh_layout> {
    %0 = "ttnn.typecast"(%w8) <{dtype = #ttcore.supportedDataTypes<bf16>}> : (tensor<128x256x!ttcore.tile<32x32, bfp_bf8>, #bfp8>) -> tensor<128x256xbf16, #mesh_layout>
    %1 = "ttnn.add"(%a, %0) : (tensor<128x256xbf16, #mesh_layout>, tensor<128x256xbf16, #mesh_layout>) -> tensor<128x256xbf16, #mesh_layout>
    return %1 : tensor<128x256xbf16, #mesh_layout>
  }
}
