"""Architecture parameters: from the module's ``#ttcore.system_desc`` or defaults.

A TTNN file normally carries a ``ttcore.system_desc``; its chip 0 description
gives every size used here.  Without one, ``--arch wormhole_b0|blackhole``
selects the documented defaults below.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .ir.attrs import ChipDesc, SystemDesc


@dataclass(frozen=True)
class Arch:
    """Sizes of one chip, in bytes unless named otherwise.

    Attributes:
        name: ``wormhole_b0`` or ``blackhole``.
        grid: worker (Tensix) grid as (rows, cols), as tt-mlir prints it.
        l1_size: L1 per core.
        l1_unreserved_base: first L1 address the compiler may allocate from
            (the L1 allocator base; circular buffers grow up from here).
        l1_small_size: bytes at the top of each L1 bank reserved for L1_SMALL
            buffers; L1 buffers are allocated top-down below them.
        l1_alignment: L1 page alignment (``noc_l1_address_align_bytes``).
        num_dram_channels / dram_channel_size: DRAM banks and their size.
        dram_unreserved_base / dram_unreserved_end: usable DRAM range per bank.
        dram_alignment: DRAM page alignment (``noc_dram_address_align_bytes``).
        num_cbs: circular buffers per core.
        dst_tiles: DST register capacity in tiles.
        source: where the numbers came from (for reports).
    """

    name: str
    grid: tuple[int, int]
    l1_size: int
    l1_unreserved_base: int
    l1_small_size: int
    l1_alignment: int
    num_dram_channels: int
    dram_channel_size: int
    dram_unreserved_base: int
    dram_unreserved_end: int
    dram_alignment: int
    num_cbs: int
    dst_tiles: int
    source: str

    @property
    def num_cores(self) -> int:
        """Worker cores, which are also the L1 banks of interleaved buffers."""
        return self.grid[0] * self.grid[1]

    @property
    def usable_l1(self) -> int:
        """L1 bank size: ``l1_size - l1_unreserved_base - l1_small_size``.

        tt-mlir's ChipDescAttr::getUsableL1Size is ``l1_size - l1_unreserved_base``;
        the allocator also keeps L1_SMALL at the top of each bank (measured on a
        mock P150, ttnn 0.81.1: bank = 1,572,864 - 111,744 - l1_small_size for
        every l1_small_size tried).
        """
        return self.l1_size - self.l1_unreserved_base - self.l1_small_size

    @property
    def usable_dram_per_bank(self) -> int:
        """``dram_unreserved_end - dram_unreserved_base`` (ChipDescAttr::getUsableDramChannelSize)."""
        return self.dram_unreserved_end - self.dram_unreserved_base


# The tt-mlir runtime opens its device with this L1_SMALL region (tt-mlir
# include/Constants.h L1_SMALL_SIZE = 1 << 16 and runtime/lib/ttnn/runtime.cpp,
# 19c86fca), so programs compiled by tt-mlir run with 64 KiB less L1 per bank
# than l1_size - l1_unreserved_base.
TT_MLIR_RUNTIME_L1_SMALL_SIZE = 1 << 16


def from_chip_desc(chip: ChipDesc, source: str, l1_small_size: int = TT_MLIR_RUNTIME_L1_SMALL_SIZE) -> Arch:
    """Arch from a parsed chip description."""
    grid = tuple(chip.grid) if len(chip.grid) == 2 else (1, chip.grid[0])
    return Arch(
        name=chip.arch,
        grid=grid,  # type: ignore[arg-type]
        l1_size=chip.l1_size,
        l1_unreserved_base=chip.l1_unreserved_base,
        l1_small_size=l1_small_size,
        l1_alignment=chip.noc_l1_address_align_bytes,
        num_dram_channels=chip.num_dram_channels,
        dram_channel_size=chip.dram_channel_size,
        dram_unreserved_base=chip.dram_unreserved_base,
        dram_unreserved_end=chip.dram_unreserved_end,
        dram_alignment=chip.noc_dram_address_align_bytes,
        num_cbs=chip.num_cbs,
        dst_tiles=chip.dst_physical_size_tiles,
        source=source,
    )


# Defaults when the file has no system_desc.
#
# wormhole_b0: the Wormhole n150 system_desc of tt-mlir's own tests
#   (test/ttmlir/Conversion/D2MToTTNN/abs_dram_interleaved.mlir, tt-mlir
#   19c86fca): 8x8 grid, l1_size 1499136, l1_unreserved_base 103712,
#   12 DRAM channels of 1 GiB, dram_unreserved_base 1920032, end 1073119552,
#   L1/DRAM alignment 16/32, 64 CBs, 16 DST tiles.  tt-mlir's built-in
#   SystemDescAttr::getDefault uses placeholder bases (1024), so it is not used.
# blackhole: the system_desc the real compiler (jax-tt-plugin 0.1.3) wrote for a
#   Blackhole P150 (fixtures/real/*/ttnn.mlir): 10x11 grid, l1_size 1572864,
#   l1_unreserved_base 177280, 8 DRAM channels of 4278190080 B,
#   dram_unreserved_base 1048704, end 4275530880, alignment 16/64.
DEFAULTS: dict[str, Arch] = {
    "wormhole_b0": Arch(
        name="wormhole_b0", grid=(8, 8), l1_size=1499136, l1_unreserved_base=103712,
        l1_small_size=TT_MLIR_RUNTIME_L1_SMALL_SIZE, l1_alignment=16,
        num_dram_channels=12, dram_channel_size=1073741824, dram_unreserved_base=1920032,
        dram_unreserved_end=1073119552, dram_alignment=32, num_cbs=64, dst_tiles=16,
        source="--arch wormhole_b0 default (tt-mlir test system_desc, Wormhole n150)",
    ),
    "blackhole": Arch(
        name="blackhole", grid=(10, 11), l1_size=1572864, l1_unreserved_base=177280,
        l1_small_size=TT_MLIR_RUNTIME_L1_SMALL_SIZE, l1_alignment=16,
        num_dram_channels=8, dram_channel_size=4278190080, dram_unreserved_base=1048704,
        dram_unreserved_end=4275530880, dram_alignment=64, num_cbs=64, dst_tiles=16,
        source="--arch blackhole default (jax-tt-plugin 0.1.3 system_desc, Blackhole P150)",
    ),
}


# The mock Blackhole P150 that ttnn 0.81.1 (tt-metal d80d9482) opens with default
# arguments, as measured (graph report and allocator queries, see docs/accuracy.md):
# L1 allocator base 111,744 (bank 1,461,120 B), not the 177,280 of the
# jax-tt-plugin 0.1.3 system_desc, whose tt-metal reserves a larger kernel-config
# ring.  CB figures measured with ttnn 0.81.1 are compared against models run
# with this Arch.
MOCK_P150_TTNN_0_81_1 = Arch(
    name="blackhole", grid=(10, 11), l1_size=1572864, l1_unreserved_base=111744, l1_small_size=0, l1_alignment=16,
    num_dram_channels=8, dram_channel_size=4278190080, dram_unreserved_base=1048704,
    dram_unreserved_end=4275530880, dram_alignment=64, num_cbs=64, dst_tiles=16,
    source="mock Blackhole P150, ttnn 0.81.1 (tt-metal d80d9482), default open_device",
)


def resolve_arch(system_desc: SystemDesc | None, arch_name: str | None, l1_small_size: int | None = None) -> Arch:
    """Pick the Arch for a program.

    The file's system_desc wins; ``arch_name`` is used when there is none.
    ``l1_small_size`` overrides the L1_SMALL region (default: the tt-mlir
    runtime's 65,536 B).

    Raises:
        ValueError: neither a system_desc nor a known ``arch_name``, or a
            negative ``l1_small_size``.
    """
    if l1_small_size is not None and l1_small_size < 0:
        raise ValueError(f"l1_small_size must be >= 0, not {l1_small_size}")
    if system_desc is not None:
        chip = system_desc.chips[system_desc.chip_desc_indices[0] if system_desc.chip_desc_indices else 0]
        arch = from_chip_desc(chip, "system_desc in the file")
    elif arch_name is None:
        raise ValueError("the file has no ttcore.system_desc: pass --arch wormhole_b0 or --arch blackhole")
    elif arch_name not in DEFAULTS:
        raise ValueError(f"unknown arch '{arch_name}': expected one of {', '.join(DEFAULTS)}")
    else:
        arch = DEFAULTS[arch_name]
    if l1_small_size is not None:
        arch = replace(arch, l1_small_size=l1_small_size)
    return arch
