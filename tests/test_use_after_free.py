"""TTA019: reads of a tensor after ttnn.deallocate or a deallocating convolution freed it."""

from __future__ import annotations

from .conftest import analyze_text, findings_of, wh_module

DEVICE = '%dev = "ttnn.get_device"() <{mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device'
L1 = "#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 1024 + d2, d3), <1x1>, memref<32x2x!ttcore.tile<32x32, bf16>, #l1>, <interleaved>>"
DRAM = "#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 1024 + d2, d3), <1x1>, memref<32x2x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
X = "tensor<1x1x1024x64xbf16, #x>"


def conv(dealloc: str) -> str:
    return f"""%1 = "ttnn.conv2d"(%arg0, %arg1, %dev) <{{in_channels = 64 : i32, out_channels = 64 : i32,
        batch_size = 1 : i32, input_height = 32 : i32, input_width = 32 : i32, kernel_size = array<i32: 3, 3>,
        stride = array<i32: 1, 1>, padding = array<i32: 1, 1>, dilation = array<i32: 1, 1>, groups = 1 : i32,
        conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, deallocate_activation = {dealloc}>,
        operandSegmentSizes = array<i32: 1, 1, 0, 1>}}> : ({X}, tensor<64x64x3x3xbf16>, !ttnn.device) -> {X}"""


def findings(body: str, layout: str = L1) -> list:
    text = wh_module(f"#x = {layout}", f"{DEVICE}\n    {body}", f"%arg0: {X}, %arg1: tensor<64x64x3x3xbf16>", X)
    return findings_of(analyze_text(text), "TTA019")


def test_a_deallocating_conv2d_input_read_later_is_an_error():
    body = conv("true") + f"""
    %2 = "ttnn.add"(%arg0, %1) : ({X}, {X}) -> {X}
    return %2 : {X}"""
    [f] = findings(body)
    assert f.severity == "error"
    assert f.message == "ttnn.add reads %arg0, which ttnn.conv2d at line 8 freed"  # the conv2d is the module's line 8
    assert findings(body.replace("deallocate_activation = true", "deallocate_activation = false")) == []
    # a DRAM input is not freed by the convolution (tt-mlir's ttnn-deallocate pass: "only if it is in L1 memory")
    assert findings(body, DRAM) == []


def test_freeing_a_freed_tensor_again_is_not_a_read():
    # what tt-mlir writes at o1 after a deallocating conv2d (fixtures/real/programs/conv2d_*_o1), and runs
    body = conv("true") + f"""
    "ttnn.deallocate"(%arg0) <{{force = false}}> : ({X}) -> ()
    return %1 : {X}"""
    assert findings(body) == []


def test_returning_a_deallocated_tensor():
    body = conv("false") + f"""
    "ttnn.deallocate"(%1) <{{force = false}}> : ({X}) -> ()
    return %1 : {X}"""
    [f] = findings(body)
    assert "returns %1, which ttnn.deallocate frees here" in f.message
