"""TTA018: tt-mlir's op verifiers (TTNNOps.cpp @19c86fca), each with an op it refuses and one it accepts."""

from __future__ import annotations

import pytest

from .conftest import DRAM_TILE, analyze_text, findings_of, wh_module

D = "#d = " + DRAM_TILE.format(r=1, c=1)
HOST = "#h = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x32xbf16, #ttnn.buffer_type<system_memory>>>"
DEVICE = ('%dev = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> '
          ": () -> !ttnn.device")


def verifier_messages(body: str, args: str = "", aliases: str = "") -> list[str]:
    a = analyze_text(wh_module(aliases, body + "\n    return", args, ""))
    return [f.data["verifier"] for f in findings_of(a, "TTA018")]


def norm(op: str, inp: str, weight: str | None) -> str:
    seg = "1, 1, 0" if weight else "1, 0, 0"
    operands = "%arg0, %arg1" if weight else "%arg0"
    types = f"{inp}, {weight}" if weight else inp
    return (f'%0 = "{op}"({operands}) <{{epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: {seg}>}}> '
            f": ({types}) -> {inp}")


@pytest.mark.parametrize("op", ["ttnn.rms_norm", "ttnn.layer_norm"])
def test_norm_weight_must_be_1d_over_the_last_dim(op):
    bad = norm(op, "tensor<2x4x8xf32>", "tensor<2x8xf32>")
    assert verifier_messages(bad, "%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x8xf32>") == [
        "weight tensor must be 1D with size matching the last dimension of input"]
    good = norm(op, "tensor<2x4x8xf32>", "tensor<8xf32>")
    assert verifier_messages(good, "%arg0: tensor<2x4x8xf32>, %arg1: tensor<8xf32>") == []
    zero_d = norm(op, "tensor<f32>", "tensor<1xf32>")
    assert verifier_messages(zero_d, "%arg0: tensor<f32>, %arg1: tensor<1xf32>") == [
        "weight tensor must be 0D for 0D input tensor"]


def test_pow_scalar_exponent_is_not_negative():
    body = '%0 = "ttnn.pow_scalar"(%arg0) <{rhs = -2.0 : f32}> : (tensor<32x32xbf16>) -> tensor<32x32xbf16>'
    assert verifier_messages(body, "%arg0: tensor<32x32xbf16>") == ["exponent must be non-negative; but got -2.0"]
    ok = body.replace("-2.0", "2.0")
    assert verifier_messages(ok, "%arg0: tensor<32x32xbf16>") == []


def conv3d(weight: str, bias: str | None, groups: int, kernel=(3, 3, 3)) -> tuple[str, str]:
    k = ", ".join(map(str, kernel))
    operands = "%arg0, %arg1, %arg2, %dev" if bias else "%arg0, %arg1, %dev"
    seg = "1, 1, 1, 1" if bias else "1, 1, 0, 1"
    types = f"tensor<1x8x8x8x32xbf16>, {weight}, {bias}, !ttnn.device" if bias else \
        f"tensor<1x8x8x8x32xbf16>, {weight}, !ttnn.device"
    body = f"""{DEVICE}
    %0 = "ttnn.conv3d"({operands}) <{{batch_size = 1 : i32, groups = {groups} : i32, in_channels = 32 : i32,
        input_depth = 8 : i32, input_height = 8 : i32, input_width = 8 : i32, kernel_size = array<i32: {k}>,
        out_channels = 32 : i32, padding = array<i32: 0, 0, 0>, padding_mode = "zeros", stride = array<i32: 1, 1, 1>,
        operandSegmentSizes = array<i32: {seg}>}}> : ({types}) -> tensor<1x6x6x6x32xbf16>"""
    args = f"%arg0: tensor<1x8x8x8x32xbf16>, %arg1: {weight}" + (f", %arg2: {bias}" if bias else "")
    return body, args


def test_conv3d_groups_channels_and_bias():
    assert verifier_messages(*conv3d("tensor<32x32x3x3x3xbf16>", None, 1)) == []
    assert verifier_messages(*conv3d("tensor<32x32x3x3x3xbf16>", None, 0)) == ["groups must be >= 1, got: 0"]
    assert verifier_messages(*conv3d("tensor<32x32x3x3x3xbf16>", "tensor<32xbf16>", 1)) == [
        "bias must be a 2D tensor [1, O]"]
    assert verifier_messages(*conv3d("tensor<32x32x3x3x3xbf16>", "tensor<2x32xbf16>", 1)) == [
        "bias first dimension must be 1, got 2"]
    # prepared 2D weight [kD*kH*kW*C/G, O]: 27 * 32 = 864 rows expected
    assert verifier_messages(*conv3d("tensor<432x32xbf16>", None, 1)) == [
        "weight flattened dimension (432) must equal kD*kH*kW*C_in/groups (864)"]
    assert verifier_messages(*conv3d("tensor<864x32xbf16>", None, 1)) == []


def test_sparse_matmul_needs_a_sparse_operand():
    body = """%0 = "ttnn.sparse_matmul"(%arg0, %arg1, %arg2) <{is_input_a_sparse = false, is_input_b_sparse = false}>
        : (tensor<1x1x32x64xbf16>, tensor<1x4x64x128xbf16>, tensor<1x1x1x4xbf16>) -> tensor<1x1x1x4x32x128xbf16>"""
    args = "%arg0: tensor<1x1x32x64xbf16>, %arg1: tensor<1x4x64x128xbf16>, %arg2: tensor<1x1x1x4xbf16>"
    assert verifier_messages(body, args) == ["At least one of is_input_a_sparse or is_input_b_sparse must be true"]
    # dense A, sparse B: output [A, B, 1, E, M, N]
    assert verifier_messages(body.replace("is_input_b_sparse = false", "is_input_b_sparse = true"), args) == []


def test_trace_ids_and_command_queues():
    body = f"""{DEVICE}
    %1 = "ttnn.begin_trace_capture"(%dev) <{{cq_id = 5 : ui32}}> : (!ttnn.device) -> tensor<ui32, #ttnn.trace_id>
    "ttnn.end_trace_capture"(%dev, %1) <{{cq_id = 0 : ui32}}> : (!ttnn.device, tensor<ui32, #ttnn.trace_id>) -> ()"""
    assert verifier_messages(body) == ["Invalid CQ ID 5"]
    assert verifier_messages(body.replace("cq_id = 5", "cq_id = 1")) == []
    for bad, message in (("tensor<4xui32, #ttnn.trace_id>", "Trace ID must be a scalar"),
                         ("tensor<si32, #ttnn.trace_id>", "Trace ID must be unsigned"),
                         ("tensor<f32, #ttnn.trace_id>", "Trace ID must be an integer"),
                         ("tensor<ui32>", "Trace ID must have the TraceIdAttr encoding")):
        text = body.replace("cq_id = 5", "cq_id = 0").replace("tensor<ui32, #ttnn.trace_id>", bad)
        assert set(verifier_messages(text)) == {message}


def test_copy_between_device_tensors_of_one_type():
    body = '"ttnn.copy"(%arg0, %arg1) : (tensor<32x32xbf16, #h>, tensor<32x32xbf16, #d>) -> ()'
    assert verifier_messages(body, "%arg0: tensor<32x32xbf16, #h>, %arg1: tensor<32x32xbf16, #d>",
                             D + "\n" + HOST) == ["Source tensor must be on device memory"]
    same = '"ttnn.copy"(%arg0, %arg1) : (tensor<32x32xbf16, #d>, tensor<32x32xbf16, #d>) -> ()'
    assert verifier_messages(same, "%arg0: tensor<32x32xbf16, #d>, %arg1: tensor<32x32xbf16, #d>", D) == []


def test_constant_device_operand_follows_the_buffer_type():
    body = ('%0 = "ttnn.constant"() <{value = dense<1.0> : tensor<32x32xbf16>}> : () -> tensor<32x32xbf16, #d>')
    assert verifier_messages(body, "", D) == [
        "device operand must be specified for non-system memory buffer type"]
    with_device = f"""{DEVICE}
    %0 = "ttnn.constant"(%dev) <{{value = dense<1.0> : tensor<32x32xbf16>}}> : (!ttnn.device) -> tensor<32x32xbf16, #d>"""
    assert verifier_messages(with_device, "", D) == []


def test_rotary_embedding_cos_and_sin_alike():
    body = """%0 = "ttnn.rotary_embedding"(%arg0, %arg1, %arg2) : (tensor<1x1x32x64xbf16>, tensor<1x1x32x64xbf16>,
        tensor<1x1x32x64xf32>) -> tensor<1x1x32x64xbf16>"""
    args = "%arg0: tensor<1x1x32x64xbf16>, %arg1: tensor<1x1x32x64xbf16>, %arg2: tensor<1x1x32x64xf32>"
    assert verifier_messages(body, args) == ["cos and sin tensor dtypes must match."]


def test_capture_or_execute_trace_callee_must_exist():
    text = wh_module(D, f"""{DEVICE}
    "ttnn.capture_or_execute_trace"(%dev) <{{allocate_slots_callee = @nowhere, capture_callee = @capture,
        execute_callee = @execute, operandSegmentSizes = array<i32: 1, 0, 0>}}> : (!ttnn.device) -> ()
    return""")
    [f] = findings_of(analyze_text(text), "TTA018")
    assert f.severity == "error"
    assert f.message == ("tt-mlir's verifier refuses this op: 'ttnn.capture_or_execute_trace' op "
                         "'nowhere' does not reference a function")


def test_tt_lang_op_arg_roles():
    def body(roles: str, results: str) -> str:
        return (f'{"%0 = " if results != "()" else ""}"ttnn.tt_lang_op"(%arg0, %arg1) <{{kernel_id = "k::v1", '
                f'version_tag = "1.0", arg_roles = "{roles}", shard_spec = ""}}> : (tensor<32x32xf32>, '
                f"tensor<32x32xf32>) -> {results}")
    args = "%arg0: tensor<32x32xf32>, %arg1: tensor<32x32xf32>"
    assert verifier_messages(body("in,out", "tensor<32x32xf32>"), args) == []
    assert verifier_messages(body("out,in", "tensor<32x32xf32>"), args) == [
        '`arg_roles` must list all "in" operands before any "out" operand (destination-passing-style ordering).']
    assert verifier_messages(body("in,in,out", "tensor<32x32xf32>"), args) == [
        "`arg_roles` token count (3) must match number of inputs (2)."]
    assert verifier_messages(body("in,in", "()"), args) == [
        'tt-lang kernel must have at least one operand tagged "out" (the destination buffer the runtime returns as '
        "the kernel's output)."]
