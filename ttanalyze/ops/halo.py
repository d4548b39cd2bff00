"""The halo program of conv2d and the 2D pools (``HaloDeviceOperation``, ``UntilizeWithHaloProgramFactory``).

Before a conv2d or pool program runs, ttnn gathers each core's input sticks plus the
neighbouring rows its windows read (the *halo*) into one L1 shard per core, inserting the
padding sticks; a TILE input is untilized on the way.  The program's circular buffers
(tt-metal d80d9482 = ttnn 0.81.1,
``ttnn/cpp/ttnn/operations/sliding_window/halo/device/untilize_with_halo_program_factory.cpp``,
``UntilizeWithHaloProgramFactory::create``; the kernel installed with ttnn 0.81.1,
``halo/device/kernels/dataflow/halo_gather.cpp``, reads the configs laid out below), in
creation order:

* ``c_0`` the sharded input (backed by its buffer), ``c_1`` the halo output (backed by its
  buffer): globally allocated;
* ``c_2``, ``c_3``: one padding-value stick each, ``aligned_stick_nbytes`` (the shard width
  times the output datum, bf16 or f32 for an f32 input, rounded up to the L1 alignment);
* TILE input only, ``c_4``, ``c_5``: the untilize outputs of the two readers,
  ``2 * (block / 32) * ceil(shard_width / 32)`` tiles each (block = ``UNTILIZE_BLOCK_SIZE``
  = 32 sticks, double buffered);
* the padding configs 0/1 and gather configs 0/1 (uint16): one page of one core's config row
  each, static when the op's ``config_tensors_in_dram`` is set, else backed by the config
  tensor's L1 buffer.

The config rows come from ``sliding_window.cpp`` (``generate_pad_metadata``,
``generate_shard_boundaries``, ``generate_tensor_metadata``,
``generate_halo_kernel_config_tensors``, ``construct_on_host_config_tensor``), which
:func:`halo_config_entries` follows step by step.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.attrs import CoreRangeSet, DataType
from ..layout import align_up, ceil_div
from .cb import CB, ProgramModel

SRC_HALO = ("tt-metal ttnn/cpp/ttnn/operations/sliding_window/halo/device/untilize_with_halo_program_factory.cpp "
            "(UntilizeWithHaloProgramFactory::create) and sliding_window/sliding_window.cpp "
            "(generate_halo_kernel_config_tensors), ttnn 0.81.1 = tt-metal d80d9482")
HALO_FACTORY = "UntilizeWithHaloProgramFactory"
UNTILIZE_BLOCK_SIZE = 32  # sticks per untilize block (halo_device_operation.cpp)
_PAD = -1  # the source "core" of a padding stick (PAD_LOCAL_SENTINAL)


@dataclass(frozen=True)
class HaloConfigRows:
    """uint16 entries of one core's row of each halo config tensor (after the even-length padding)."""

    pad0: int
    pad1: int
    gather0: int
    gather1: int

    @property
    def bytes(self) -> tuple[int, int, int, int]:
        """Bytes of each row, i.e. the page size of each config CB."""
        return (2 * self.pad0, 2 * self.pad1, 2 * self.gather0, 2 * self.gather1)


def shard_boundaries(window, num_cores_nhw: int, snap_to_tile: bool) -> list[tuple[int, int]]:
    """Each nhw core's padded-input stick range ``[start, end]`` (``generate_shard_boundaries``; empty when end < start).

    ``window`` is a :class:`ttanalyze.ops.conv.Window` (or a ``BilinearWindow``, whose ranges span the min
    and max of its non-monotonic traces).  A core past the output end reads
    ``[trace[last], trace[last] + halo_len]``; a core other than the first whose range would
    start at stick 0 reads nothing.
    """
    if window.is_bilinear:
        return window.input_ranges(num_cores_nhw, snap_to_tile)
    last = window.out_nhw - 1
    halo = window.halo_len()
    out = []
    for start, end in window.shard_ranges(num_cores_nhw, snap_to_tile):
        end = last if start > last else end
        in_start = window.trace(min(start, last))
        in_end = window.trace(end) + halo
        if in_start == 0 and start != 0:
            in_start = window.trace(end) + 1
            in_end = in_start - 1
        out.append((in_start, in_end))
    return out


def _reduced_length(transfers: list[tuple[int, tuple[int, int]]]) -> int:
    """uint16 entries of a serialized gather config: ``[routes, (x, y, n, (src, dst, size) * n) * routes]``,
    a route being a run of consecutive transfers to one destination core (``reduce_flattened_transfers``)."""
    routes, previous = 0, None
    for _, dst in transfers:
        if dst != previous:
            routes, previous = routes + 1, dst
    return 1 + 3 * routes + 3 * len(transfers)


def halo_config_entries(window, num_cores_nhw: int, snap_to_tile: bool, input_shard_rows: int,
                        core_xy: list[tuple[int, int]], tiled: bool,
                        block: int = UNTILIZE_BLOCK_SIZE) -> HaloConfigRows:
    """Row lengths (uint16 entries) of the halo's padding and gather configs.

    Args:
        window: the sliding window (:class:`ttanalyze.ops.conv.Window`).
        num_cores_nhw: cores along N*H*W.
        snap_to_tile: the output shards are tile-rounded (conv2d) or not (pools).
        input_shard_rows: sticks per core of the sharded input (``generate_tensor_metadata``).
        core_xy: logical (x, y) of each nhw core id, whose order is the NoC order the gather
            transfers are sorted by (Tensix NoC coordinates grow with the logical ones).
        tiled: a TILE input: transfers are split at ``block``-stick boundaries of the source,
            sorted by source stick and dealt to the two readers by block parity; else they are
            dealt alternately.

    Raises:
        ValueError: a core's window reads past the padded input (tt-metal indexes out of bounds).
    """
    ph, pw = window.padded_hw()
    top, left = window.padding[0], window.padding[2]
    in_h, in_w = window.in_h, window.in_w
    total = window.batch * ph * pw
    boundaries = shard_boundaries(window, num_cores_nhw, snap_to_tile)
    runs: dict[tuple[int, int], list[list[int]]] = {}
    for dst, (in_start, in_end) in enumerate(boundaries):
        if in_end >= total:
            raise ValueError(f"the halo of core {dst} reads stick {in_end}, past the {total} padded input sticks")
        for g in range(in_start, in_end + 1):
            local = g - in_start
            b, r = divmod(g, ph * pw)
            h, w = divmod(r, pw)
            if top <= h < top + in_h and left <= w < left + in_w:
                n = (b * in_h + h - top) * in_w + w - left
                src, src_local = divmod(n, input_shard_rows)
            else:
                src, src_local = _PAD, 0
            entries = runs.setdefault((src, dst), [])
            if entries:
                run = entries[-1]
                if (src == _PAD or src_local == run[0] + run[2]) and local == run[1] + run[2]:
                    run[2] += 1
                    continue
            entries.append([src_local, local, 1])
    pads = [0] * num_cores_nhw
    gathers: list[list[tuple[int, int, int, int]]] = [[] for _ in range(num_cores_nhw)]  # (src_id, dst_core, len)
    for (src, dst), entries in sorted(runs.items(), key=lambda kv: (kv[0][0] == _PAD, kv[0])):
        if src == _PAD:
            pads[dst] = len(entries)
            continue
        # local routes first, then the remote ones by destination core (std::map order of (src, dst))
        gathers[src] += [(s, dst, n) for s, _, n in entries]
    for src in range(num_cores_nhw):
        local = [t for t in gathers[src] if t[1] == src]
        gathers[src] = local + [t for t in gathers[src] if t[1] != src]
    longest0 = longest1 = 1
    for transfers in gathers:
        if tiled:
            pieces = []
            for s, dst, n in transfers:
                while n:
                    size = min(n, block - s % block)
                    pieces.append((s, dst, size))
                    s, n = s + size, n - size
            pieces.sort(key=lambda t: (t[0], core_xy[t[1]]))
            first = [(t[0], t[1]) for t in pieces if (t[0] // block) % 2 == 0]
            second = [(t[0], t[1]) for t in pieces if (t[0] // block) % 2 == 1]
        else:
            first = [(t[0], t[1]) for i, t in enumerate(transfers) if i % 2 == 0]
            second = [(t[0], t[1]) for i, t in enumerate(transfers) if i % 2 == 1]
        longest0 = max(longest0, _reduced_length(first) if first else 1)
        longest1 = max(longest1, _reduced_length(second) if second else 1)
    pad0 = 2 * max(p // 2 for p in pads) + 2
    pad1 = 2 * max(p - p // 2 for p in pads) + 2
    return HaloConfigRows(pad0, pad1, align_up(longest0, 2), align_up(longest1, 2))


def nhw_core_xy(scheme: str, cores: CoreRangeSet, num_cores_nhw: int, col_major: bool) -> list[tuple[int, int]]:
    """Logical (x, y) of each nhw core id (``generate_halo_kernel_config_tensors``' ``core_id_to_noc_coords``):
    block sharded ``(0, id)`` (``(id, 0)`` col-major), else ``(id % grid_x, id // grid_x)``."""
    if scheme == "block":
        return [(i, 0) if col_major else (0, i) for i in range(num_cores_nhw)]
    grid_x = max(r.end.x for r in cores.ranges) + 1
    return [(i % grid_x, i // grid_x) for i in range(num_cores_nhw)]


def halo_program(window, scheme: str, cores: CoreRangeSet, num_cores_nhw: int, col_major: bool, snap_to_tile: bool,
                 input_shard: tuple[int, int], halo_sticks: int, input_layout: str, input_dtype: str,
                 config_tensors_in_dram: bool, l1_alignment: int) -> ProgramModel:
    """The halo program's ProgramModel (module docstring).

    Args:
        window: the sliding window (:class:`ttanalyze.ops.conv.Window`).
        scheme / cores / num_cores_nhw / col_major: the input's sharding.
        input_shard: the sharded input's [sticks, channels] per core.
        halo_sticks: ``max_out_nsticks_per_core``, the halo output's sticks per core.
        input_layout / input_dtype: of the sharded input (``tile`` is untilized by the halo).
        config_tensors_in_dram: the op's ``config_tensors_in_dram``.
        l1_alignment: the input buffer's alignment, bytes.

    ``l1_buffers_per_core``: the sharded input and the halo output (both live while it runs).

    Raises:
        ValueError: see :func:`halo_config_entries`.
    """
    rows, width = input_shard
    tiled = input_layout == "tile"
    out_dtype = "f32" if input_dtype == "f32" else "bf16"
    datum = 4 if out_dtype == "f32" else 2
    stick = align_up(width * datum, l1_alignment)
    nhw = window.batch * window.in_h * window.in_w  # the input's padded N*H*W (tile-rounded when tiled)
    nhw = align_up(nhw, 32) if tiled else nhw
    ntiles_w = ceil_div(width, 32)
    in_datum = DataType(input_dtype).scalar_bytes or 2
    if tiled:
        src = (DataType(input_dtype).tile_bytes(), ntiles_w * ceil_div(ceil_div(nhw, num_cores_nhw), 32))
    else:
        src = (width * in_datum, ceil_div(nhw, num_cores_nhw))
    cfg = halo_config_entries(window, num_cores_nhw, snap_to_tile, rows,
                              nhw_core_xy(scheme, cores, num_cores_nhw, col_major), tiled)
    specs = [("src", src[0], src[1], True), ("out", stick, halo_sticks, True), ("pad0", stick, 1, False),
             ("pad1", stick, 1, False)]
    if tiled:
        tile = DataType(out_dtype).tile_bytes()
        specs += [("untilize_out0", tile, 2 * (UNTILIZE_BLOCK_SIZE // 32) * ntiles_w, False),
                  ("untilize_out1", tile, 2 * (UNTILIZE_BLOCK_SIZE // 32) * ntiles_w, False)]
    for name, size in zip(("padding_config0", "padding_config1", "gather_config0", "gather_config1"), cfg.bytes):
        specs.append((name, size, 1, not config_tensors_in_dram))
    cbs = [CB(i, name, page, pages, cores, glob) for i, (name, page, pages, glob) in enumerate(specs)]
    in_bytes = align_up(rows * width * in_datum, 16) if not tiled else \
        align_up(ceil_div(rows, 32) * ntiles_w * DataType(input_dtype).tile_bytes(), 16)
    notes = [f"halo of {scheme} sharded input [{rows}, {width}] on {num_cores_nhw} nhw cores: {halo_sticks} sticks "
             f"per core, {'untilized from tiles' if tiled else 'row-major'}; config rows pad {cfg.pad0}/{cfg.pad1}, "
             f"gather {cfg.gather0}/{cfg.gather1} uint16 ({'DRAM' if config_tensors_in_dram else 'L1'} config tensors)"]
    return ProgramModel(HALO_FACTORY, SRC_HALO, cores, cbs, notes,
                        l1_buffers_per_core=in_bytes + align_up(halo_sticks * stick, 16))
