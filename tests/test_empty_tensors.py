"""Zero-volume tensors (a dim of 0; measurements/empty_tensors/): tt-mlir writes them (tt-mlir branch tests type an empty ring-SDPA output
``tensor<1x40x0x128xbf16>``) and ttnn 0.81.1 accepts them (measured on the mock: ``ttnn.empty([1, 40, 0, 128])``,
``ttnn.slice`` to ends[2] = begins[2] and ``ttnn.add`` of two empty tensors run).  ttanalyze analyzes such files;
what tt-metal does with an empty tensor is not modeled, so a verdict on an op that touches one is never an error."""

from __future__ import annotations

from pathlib import Path

from .conftest import wh_module

LAYOUT = ("#l = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1280 + d1 * 32 + d2, d3), <1x1>, "
          "memref<40x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>\n"
          "#e = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 0 + d1 * 0 + d2, d3), <1x1>, "
          "memref<0x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>")
FULL = "tensor<1x40x32x128xbf16, #l>"
EMPTY = "tensor<1x40x0x128xbf16, #e>"


def _check(cli, tmp_path, body: str, result_type: str):
    path = tmp_path / "empty.mlir"
    path.write_text(wh_module(LAYOUT, body, f"%arg0: {FULL}", result_type))
    return cli("check", path)


def test_an_empty_slice_is_analyzed_without_error(cli, tmp_path):
    body = (f'    %0 = "ttnn.slice_static"(%arg0) <{{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32], '
            f'ends = [1 : i32, 40 : i32, 0 : i32, 128 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32]}}> '
            f': ({FULL}) -> {EMPTY}\n    return %0 : {EMPTY}')
    result = _check(cli, tmp_path, body, EMPTY)
    assert result.exit_code == 0, result.output
    assert "error[" not in result.stdout and "warning[" not in result.stdout, result.output


def test_an_error_on_an_op_with_an_empty_tensor_is_a_warning(cli, tmp_path):
    """The add's shapes do not broadcast (0 against 32 in dim 2): an error on full tensors, a warning here,
    with a note naming the empty tensor."""
    body = (f'    %0 = "ttnn.slice_static"(%arg0) <{{begins = [0 : i32, 0 : i32, 0 : i32, 0 : i32], '
            f'ends = [1 : i32, 40 : i32, 0 : i32, 128 : i32], step = [1 : i32, 1 : i32, 1 : i32, 1 : i32]}}> '
            f': ({FULL}) -> {EMPTY}\n'
            f'    %1 = "ttnn.add"(%0, %arg0) <{{dtype = #ttcore.supportedDataTypes<bf16>}}> : ({EMPTY}, {FULL}) -> {FULL}\n'
            f'    return %1 : {FULL}')
    result = _check(cli, tmp_path, body, FULL)
    assert result.exit_code == 0, result.output
    assert "warning[TTA007]" in result.stdout, result.output
    assert "zero-volume tensor [1, 40, 0, 128]" in result.stdout


def test_a_verifier_refusal_on_empty_tensors_stays_an_error(cli):
    """tt-mlir's verifier refuses a sampling of batch 0 (TTA018): certain before tt-metal sees the empty tensors."""
    path = Path(__file__).parent / "data" / "eras" / "sampling_batch_0_negative.mlir"
    result = cli("check", "--arch", "blackhole", path)
    assert result.exit_code == 1, result.output
    assert "error[TTA018]" in result.stdout and "batch (0) must be in [1, 32]" in result.stdout
