"""Shared helpers: fixture paths, analysis of a file or of inline IR, the CLI runner, the executor."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ttanalyze.analysis import Analysis, analyze
from ttanalyze.cli import app
from ttanalyze.executor import client
from ttanalyze.ir.parse import parse_file, parse_text
from ttanalyze.rules import run

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REAL = sorted((FIXTURES / "real").glob("*/ttnn.mlir"))
SEEDS = sorted((FIXTURES / "seeds").glob("*.mlir"))

# The Wormhole n150 system_desc of the seed fixtures (tt-mlir's test system_desc).
WH_SYSTEM_DESC = (
    '#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <wormhole_b0>, '
    "grid = 8x8, coord_translation_offsets = 18x18, l1_size = 1499136, num_dram_channels = 12, "
    "dram_channel_size = 1073741824, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 32, "
    "noc_dram_address_align_bytes = 32, l1_unreserved_base = 103712, erisc_l1_unreserved_base = 98304, "
    "dram_unreserved_base = 1920032, dram_unreserved_end = 1073119552, supported_data_types = [<f32>, <bf16>], "
    "supported_tile_sizes = [ 32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, "
    "num_datamovement_threads = 2, dram_grid = 1x12, dram_bank_to_logical_worker_noc0 = [(7, 3)], "
    "dram_bank_to_logical_worker_noc1 = [(7, 3)]}], [0], [1 : i32], [ 0x0x0x0]>"
)


# The Blackhole P150 system_desc of the real fixtures (jax-tt-plugin 0.1.3).
BH_SYSTEM_DESC = (
    '#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <blackhole>, '
    "grid = 10x11, coord_translation_offsets = 2x1, l1_size = 1572864, num_dram_channels = 8, "
    "dram_channel_size = 4278190080, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 64, "
    "noc_dram_address_align_bytes = 64, l1_unreserved_base = 177280, erisc_l1_unreserved_base = 88896, "
    "dram_unreserved_base = 1048704, dram_unreserved_end = 4275530880, supported_data_types = [<f32>, <bf16>], "
    "supported_tile_sizes = [ 32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, "
    "num_datamovement_threads = 2, dram_grid = 1x8, dram_bank_to_logical_worker_noc0 = [(9, 0)], "
    "dram_bank_to_logical_worker_noc1 = [(0, 0)]}], [0], [1 : i32], [ 0x0x0x0]>"
)


def _module(system_desc: str, aliases: str, body: str, args: str, results: str) -> str:
    return (
        "#dram = #ttnn.buffer_type<dram>\n#l1 = #ttnn.buffer_type<l1>\n" + system_desc + "\n" + aliases.strip() + "\n"
        "module attributes {ttcore.system_desc = #system_desc} {\n"
        f"  func.func @main({args}) -> ({results}) {{\n{body.rstrip()}\n  }}\n}}\n"
    )


def wh_module(aliases: str, body: str, args: str = "", results: str = "") -> str:
    """A Wormhole module: ``aliases`` lines, then ``func @main(args) -> (results) { body }``."""
    return _module(WH_SYSTEM_DESC, aliases, body, args, results)


def bh_module(aliases: str, body: str, args: str = "", results: str = "") -> str:
    """A Blackhole P150 module (the real fixtures' system_desc); see :func:`wh_module`."""
    return _module(BH_SYSTEM_DESC, aliases, body, args, results)


# Tile layouts of the inline test programs: DRAM interleaved (r x c tiles) and L1 interleaved on the 8x8
# Wormhole grid (n tiles per core).
DRAM_TILE = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<{r}x{c}x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
L1_TILE = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <8x8>, memref<1x{n}x!ttcore.tile<32x32, bf16>, #l1>, <interleaved>>"


def l1_overflow_module() -> str:
    """A Wormhole program that overflows L1 (TTA004 in tests/test_rules.py, which derives the numbers).

    Three 4096x4096 bf16 L1-interleaved tensors of 524,288 B per core are alive at the add (its line is
    the program's 3rd op): 1,572,864 B per core, over the 1,329,888-B bank.
    """
    aliases = "#d = " + DRAM_TILE.format(r=128, c=128) + "\n#l = " + L1_TILE.format(n=256)
    t_d, t_l = "tensor<4096x4096xbf16, #d>", "tensor<4096x4096xbf16, #l>"
    body = f"""
    %0 = "ttnn.to_memory_config"(%arg0) : ({t_d}) -> {t_l}
    %1 = "ttnn.relu"(%0) : ({t_l}) -> {t_l}
    %2 = "ttnn.add"(%0, %1) : ({t_l}, {t_l}) -> {t_l}
    %3 = "ttnn.to_memory_config"(%2) : ({t_l}) -> {t_d}
    return %3 : {t_d}"""
    return wh_module(aliases, body, f"%arg0: {t_d}", t_d)


def analyze_text(text: str, path: str = "test.mlir") -> Analysis:
    return analyze(parse_text(text, path))


def analyze_path(path: Path) -> Analysis:
    return analyze(parse_file(path))


def findings_of(a: Analysis, rule: str | None = None):
    fs = run(a)
    return [f for f in fs if rule is None or f.rule == rule]


def assert_specs_match(specs, outputs) -> None:
    """A spec model's output specs against the tensors ttnn returned (the probes' ``outputs`` records): shape,
    padded shape, layout, dtype, buffer type and memory layout, output by output."""
    assert specs is not None
    got = [(list(s.shape), list(s.padded_shape), s.layout, s.dtype, s.buffer_type, s.memory_layout) for s in specs]
    want = [(o["shape"], o["padded_shape"], o["layout"], o["dtype"], o["buffer_type"], o["memory_layout"])
            for o in outputs]
    assert got == want


@pytest.fixture(autouse=True)
def _own_cache_dir(tmp_path_factory, monkeypatch):
    """Each test gets an empty ``check`` cache of its own (never the user's ~/.cache/ttanalyze)."""
    monkeypatch.setenv("TTANALYZE_CACHE_DIR", str(tmp_path_factory.mktemp("ttanalyze-cache")))


@pytest.fixture()
def cli():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, [str(a) for a in args])

    return invoke


# The companion executor: tests marked ``@device`` replay ops with it, and skip with the reason when it is absent.
EXECUTOR_AVAILABLE, EXECUTOR_WHY_NOT = client.available()
device = pytest.mark.skipif(not EXECUTOR_AVAILABLE, reason=f"ttnn executor not available: {EXECUTOR_WHY_NOT}")


@pytest.fixture(scope="module")
def ex():
    """One executor (worker process) per test module."""
    with client.Executor() as executor:
        yield executor
