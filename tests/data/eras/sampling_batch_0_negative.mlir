
#dram = #ttnn.buffer_type<dram>
#ttnn_layout_vals0  = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#ttnn_layout_idx0   = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, si32>, #dram>, <interleaved>>

// batch == 0 (empty) — also out of range, must be rejected.
module {
  func.func @sampling_batch_0_rejected(
      %arg0: tensor<0x64xbf16, #ttnn_layout_vals0>,
      %arg1: tensor<0x64xsi32, #ttnn_layout_idx0>,
      %arg2: tensor<0xui32>,
      %arg3: tensor<0xbf16>,
      %arg4: tensor<0xbf16>)
      -> tensor<0xsi32> {
    // CHECK: error: 'ttnn.sampling' op batch (0) must be in [1, 32] (kernel limit)
    %0 = "ttnn.sampling"(%arg0, %arg1, %arg2, %arg3, %arg4)
        : (tensor<0x64xbf16, #ttnn_layout_vals0>,
           tensor<0x64xsi32, #ttnn_layout_idx0>,
           tensor<0xui32>,
           tensor<0xbf16>,
           tensor<0xbf16>)
        -> tensor<0xsi32>
    return %0 : tensor<0xsi32>
  }
}
