"""Random ``ttnn.generic`` program descriptors, as TTNN IR and as the ttnn call tt-mlir's runtime makes.

Each :class:`Case` is one ``ttnn.generic`` over three io tensors (``%a`` and ``%out``: bf16 tile
tensors height-sharded in L1 over the first ``shard_cores`` cores, ``shard_tiles`` tiles per core;
``%b``: a DRAM interleaved one) with random circular buffers: core ranges anywhere on the 11x10 grid
of the P150, page sizes of tiles and row-major sticks, a few pages or hundreds (some overflow L1),
some in a sharded tensor's buffer (some larger than its bank), some with a total size that is not a
multiple of the page size, some reusing a buffer index, some with two formats; and 0-2 semaphores.
:func:`draw_edge` adds cases whose CBs end within 3% of the L1 limit on a core they share.

:func:`module` writes the case as TTNN IR (the mock P150's system_desc: L1 base 111,744);
``probe.py`` builds the same ``ttnn.ProgramDescriptor`` (tt-mlir ``runtime/lib/ttnn/operations/
generic/generic_op.cpp`` @19c86fca: a ``CBDescriptor`` per ``#ttnn.kernel_cb``, ``buffer`` = the io
tensor's buffer) and runs ``ttnn.generic_op`` on the mock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

GRID = (11, 10)  # compute_with_storage_grid_size of the mock P150 (x, y)
SEED = 20261126
COUNT = 120
KERNEL_SOURCE = "void kernel_main() {}"
# page size -> dtype of its format (a bf16 / f32 / bfp8 tile, else row-major bf16 sticks)
PAGES = {2048: "bf16", 4096: "f32", 1088: "bfp_bf8", 64: "bf16", 96: "bf16", 1024: "bf16", 4160: "bf16"}

MOCK_SYSTEM_DESC = (
    '#system_desc = #ttcore.system_desc<[{role = host, target_triple = "x86_64-pc-linux"}], [{arch = <blackhole>, '
    "grid = 10x11, coord_translation_offsets = 2x1, l1_size = 1572864, num_dram_channels = 8, "
    "dram_channel_size = 4278190080, noc_l1_address_align_bytes = 16, pcie_address_align_bytes = 64, "
    "noc_dram_address_align_bytes = 64, l1_unreserved_base = 111744, erisc_l1_unreserved_base = 88896, "
    "dram_unreserved_base = 1048704, dram_unreserved_end = 4275530880, supported_data_types = [<f32>, <bf16>], "
    "supported_tile_sizes = [ 32x32], dst_physical_size_tiles = 16, num_cbs = 64, num_compute_threads = 1, "
    "num_datamovement_threads = 2, dram_grid = 1x8, dram_bank_to_logical_worker_noc0 = [(9, 0)], "
    "dram_bank_to_logical_worker_noc1 = [(0, 0)]}], [0], [1 : i32], [ 0x0x0x0]>"
)

Range = tuple[int, int, int, int]  # x0, y0, x1, y1 (inclusive)


@dataclass(frozen=True)
class CBCase:
    """One ``#ttnn.kernel_cb``: ``total`` bytes on ``ranges``, ``formats`` (buffer index, dtype, page size),
    ``buffer`` the io tensor index backing it (0 = %a, 2 = %out) or None."""

    total: int
    ranges: tuple[Range, ...]
    formats: tuple[tuple[int, str, int], ...]
    buffer: int | None = None


@dataclass(frozen=True)
class Case:
    id: str
    shard_cores: int
    shard_tiles: int
    cbs: tuple[CBCase, ...]
    semaphores: int

    @property
    def bank_bytes(self) -> int:
        """Bytes of one shard of %a / %out (bf16 tiles of 2,048 B)."""
        return self.shard_tiles * 2048


def shard_ranges(n: int) -> tuple[Range, ...]:
    """The first ``n`` cores in row-major order as ranges (ttnn.num_cores_to_corerangeset(n, grid, True))."""
    full, rest = divmod(n, GRID[0])
    out = []
    if full:
        out.append((0, 0, GRID[0] - 1, full - 1))
    if rest:
        out.append((0, full, rest - 1, full))
    return tuple(out)


def _rect(rng: random.Random) -> Range:
    x0, x1 = sorted(rng.randrange(GRID[0]) for _ in range(2))
    y0, y1 = sorted(rng.randrange(GRID[1]) for _ in range(2))
    return (x0, y0, x1, y1)


def _disjoint(a: Range, b: Range) -> bool:
    return a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]


def draw(i: int) -> Case:
    """Case ``i`` of the campaign (deterministic: ``random.Random(SEED + i)``)."""
    rng = random.Random(SEED + i)
    shard_cores = rng.choice([1, 4, 8, 16, 32, 64, 110])
    shard_tiles = rng.choice([1, 2, 4, 8])
    bank = shard_tiles * 2048
    cbs: list[CBCase] = []
    indices: list[int] = []
    for _ in range(rng.randint(1, 6)):
        roll = rng.random()
        index = rng.choice(indices) if indices and rng.random() < 0.08 else next(
            k for k in rng.sample(range(32), 32) if k not in indices)
        indices.append(index)
        if roll < 0.15:  # in %a's or %out's L1 buffer, on some of its cores
            cores = shard_ranges(rng.randint(1, shard_cores))
            total = rng.choice([bank, bank, max(2048, bank // 2), bank + 2048])
            cbs.append(CBCase(total, cores, ((index, "bf16", 2048),), rng.choice([0, 2])))
            continue
        page = rng.choice(list(PAGES))
        pages = rng.randint(1, 8) if rng.random() < 0.85 else rng.randint(150_000, 700_000) // page
        total = page * pages + (32 if page > 32 and rng.random() < 0.05 else 0)
        ranges = [_rect(rng)]
        if rng.random() < 0.3:
            other = _rect(rng)
            if _disjoint(other, ranges[0]):
                ranges.append(other)
        formats = [(index, PAGES[page], page)]
        if rng.random() < 0.1:
            extra = next(k for k in range(32) if k not in indices)
            indices.append(extra)
            formats.append((extra, PAGES[page], page))
        cbs.append(CBCase(total, tuple(ranges), tuple(formats)))
    return Case(f"generic/{i}", shard_cores, shard_tiles, tuple(cbs), rng.randint(0, 2))


L1_SPAN = 1_572_864 - 111_744  # l1_size - l1_unreserved_base of the mock P150: the CB region's room
COUNT_EDGE = 40


def draw_edge(i: int) -> Case:
    """Edge case ``i``: 2-4 CBs overlapping on one core whose sum lands within 3% of the CB region's room
    (``random.Random(SEED + 100_000 + i)``): some fit, some grow beyond ``l1_size``, some clash with the
    sharded io tensors at the top of L1; odd page sizes exercise the 64-B alignment of each CB's address."""
    rng = random.Random(SEED + 100_000 + i)
    shard_cores = rng.choice([1, 8, 32, 110])
    shard_tiles = rng.choice([1, 4, 8])
    cx, cy = rng.randrange(GRID[0]), rng.randrange(GRID[1])
    target = int(L1_SPAN * rng.uniform(0.97, 1.03))
    cbs: list[CBCase] = []
    used = 0
    n = rng.randint(2, 4)
    for k in range(n):
        page = rng.choice(list(PAGES))
        x0, y0 = rng.randint(0, cx), rng.randint(0, cy)
        x1, y1 = rng.randint(cx, GRID[0] - 1), rng.randint(cy, GRID[1] - 1)
        if k < n - 1:
            pages = max(1, int(target * rng.uniform(0.05, 0.3)) // page)
        else:
            pages = max(1, (target - used) // page)
        used += pages * page
        cbs.append(CBCase(pages * page, ((x0, y0, x1, y1),), ((k, PAGES[page], page),)))
    return Case(f"generic_edge/{i}", shard_cores, shard_tiles, tuple(cbs), 0)


CASES = [draw(i) for i in range(COUNT)] + [draw_edge(i) for i in range(COUNT_EDGE)]


# -- as TTNN IR ------------------------------------------------------------------------------------------------

def _crs(ranges: tuple[Range, ...]) -> str:
    return "#ttnn.core_range_set<[" + ", ".join(f"#ttnn.core_range<({x0},{y0}), ({x1},{y1})>"
                                              for x0, y0, x1, y1 in ranges) + "]>"


def _cb_text(cb: CBCase) -> str:
    formats = ", ".join(f"#ttnn.kernel_cb_format<buffer_index = {i}, dtype = {d}, page_size = {p}>"
                        for i, d, p in cb.formats)
    buffer = f", buffer = #ttnn.kernel_cb_global_buffer_address_of_tensor<{cb.buffer}>" if cb.buffer is not None else ""
    return f"#ttnn.kernel_cb<total_size = {cb.total}, core_ranges = {_crs(cb.ranges)}, formats = [{formats}]{buffer}>"


WHOLE_GRID = ((0, 0, GRID[0] - 1, GRID[1] - 1),)


def program_text(case: Case) -> str:
    """The case's ``#ttnn.program`` (one reader kernel on the whole grid)."""
    kernel = (f"#ttnn.read_kernel<symbol_ref = @kernel, core_ranges = {_crs(WHOLE_GRID)}, ct_args = [], "
              "common_rt_args = [], rt_args = []>")
    sems = ", ".join(f"#ttnn.kernel_semaphore<id = {k}, core_type = worker, core_ranges = {_crs(WHOLE_GRID)}, "
                     "initial_value = 0>" for k in range(case.semaphores))
    return f"#ttnn.program<kernels = [{kernel}], cbs = [{', '.join(_cb_text(c) for c in case.cbs)}], semaphores = [{sems}]>"


def module(case: Case) -> str:
    """The case as a TTNN module: ``%a``, ``%b``, ``%out`` allocated in that order, then the ``ttnn.generic``."""
    n, t = case.shard_cores, case.shard_tiles
    sharded = (f"#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <{n}x1>, memref<{t}x1x!ttcore.tile<32x32, bf16>, #l1>, "
               f"<height_sharded>, core_ranges = {_crs(shard_ranges(n))}>")
    dram = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
    a_type = f"tensor<{32 * t * n}x32xbf16, #sharded>"
    b_type = "tensor<64x32xbf16, #in_dram>"
    return (f"{MOCK_SYSTEM_DESC}\n#l1 = #ttnn.buffer_type<l1>\n#dram = #ttnn.buffer_type<dram>\n"
            f"#sharded = {sharded}\n#in_dram = {dram}\n"
            "module attributes {ttcore.system_desc = #system_desc} {\n"
            f"  func.func @main(%a: {a_type}, %b: {b_type}, %out: {a_type}) -> {a_type} {{\n"
            f'    "ttnn.generic"(%a, %b, %out) <{{program = {program_text(case)}, operandSegmentSizes = '
            f"array<i32: 3, 0>}}> : ({a_type}, {b_type}, {a_type}) -> ()\n"
            f"    return %out : {a_type}\n  }}\n}}\n")
