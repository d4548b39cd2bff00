"""A model of tt-metal's bank allocator (ttnn 0.81.1 = tt-metal d80d9482).

tt-metal keeps one allocator per buffer type (``tt_metal/impl/allocator/``):

* **Banks and their sizes** (``l1_banking_allocator.cpp``
  ``AllocatorImpl::init_compute_and_storage_l1_bank_manager``, ``allocator.cpp``
  ``init_one_bank_per_channel``).  L1: one bank per worker core, the range
  ``[l1_unreserved_base, l1_size - l1_small_size)`` of every core (bank size
  ``l1_size - l1_unreserved_base - l1_small_size``); L1_SMALL: the top
  ``l1_small_size`` bytes.  DRAM: one bank per channel,
  ``[dram_unreserved_base, dram_channel_size - trace_region_size / channels)``; the
  trace region sits at the top of every channel.  tt-mlir's ``dram_unreserved_end`` is not
  tt-metal's limit: the runtime derives it from a program carve-out estimate
  (``runtime/lib/common/system_desc.cpp`` ``calculateDRAMUnreservedEnd``), so the DRAM
  bank is ``dram_channel_size - dram_unreserved_base`` (trace region 0, tt-metal's
  ``DEFAULT_TRACE_REGION_SIZE``), 2,659,200 B larger than the system_desc's range on a
  P150 (measured: 4,277,141,376 B per bank).
* **Lock-step banks** (``bank_manager.cpp`` ``BankManager::allocate_buffer``): every
  allocation takes the same address range in all banks of its buffer type, so one free
  list per buffer type describes them all.  The per-bank size is
  ``calculate_bank_size_spread(size, page_size, banks, alignment)`` =
  ``ceil(pages / banks) * round_up(page_size, alignment)`` (``allocator.hpp``), with
  ``banks`` the number of shards (cores) for a sharded buffer, and ``alignment`` the
  buffer type's (L1 16 B; DRAM 64 B on Blackhole, 32 B on Wormhole).
* **The free list** (``algorithms/free_list_opt.cpp`` ``FreeListOpt``): the BankManager
  builds it with ``SearchPolicy::FIRST`` (``BankManager::init_allocators``; the class
  default BEST is not used), minimum allocation size and alignment both the DRAM
  alignment, so every allocation is rounded up to 64 B (Blackhole), L1 included.
  ``allocate`` takes, among free blocks of at least the request, the one at the lowest
  address when bottom-up (DRAM) or the highest when top-down (L1, ``Buffer``'s
  ``bottom_up`` defaults to ``is_dram()``), and carves the request from that block's low
  (bottom-up) or high (top-down) end.  The size-segregated lists only speed the
  search up: a block in a lower size class is always smaller than the request, so the
  result is plain first fit (measured on the mock: a 32 MiB request goes to the lower
  64 MiB hole, not the exact 32 MiB one).  ``deallocate`` merges a freed block with
  free neighbours.
* **Out of memory** (``BankManager::allocate_buffer``): when no free block fits,
  ``TT_FATAL("Out of Memory: Not enough space to allocate {size} B {type} buffer across
  {banks} banks, where each bank needs to store {size_per_bank} B, but bank size is
  {bank} B (allocated: {A} B, free: {F} B, largest free block: {L} B).")`` with the
  statistics of ``FreeListOpt::get_statistics`` (per bank; with nothing allocated, free
  and largest are the bank size).  ``free > request > largest`` is fragmentation.

Complexity: the free blocks are kept per size class (powers of two of 1 KiB, as
FreeListOpt) in address order, so an allocation looks at the first fitting block of each
larger class (O(classes), about 22) plus a scan of its own class, and a deallocation is
O(log n) dictionary and bisect work.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from .arch import Arch

SIZE_CLASS_BASE = 1024  # FreeListOpt::size_segregated_base
MAX_SIZE_CLASS_BYTES = 128 * 1024 * 1024  # num_segerated_classes: "128MB as the last seggregated class"


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def round_up(value: int, multiple: int) -> int:
    return value if multiple <= 1 else ceil_div(value, multiple) * multiple


def size_per_bank(size: int, page_size: int, banks: int, alignment: int) -> int:
    """tt-metal ``detail::calculate_bank_size_spread`` (``tt_metal/impl/allocator/allocator.hpp``), bytes.

    ``ceil(pages / banks) * round_up(page_size, alignment)`` with ``pages = size / page_size``.

    Args:
        size: the buffer's bytes (pages * page size).
        page_size: one page, bytes.
        banks: banks the pages spread over (all banks of the type, or the shards' cores).
        alignment: the buffer type's page alignment, bytes.

    Raises:
        ValueError: a size that is not a whole number of pages, or no bank.
    """
    if banks <= 0:
        raise ValueError(f"a buffer needs at least one bank, not {banks}")
    if page_size == 0:
        if size:
            raise ValueError(f"page size 0 with a {size} B buffer")
        return 0
    if size % page_size:
        raise ValueError(f"buffer size {size} B is not a multiple of its page size {page_size} B")
    pages = size // page_size
    return ceil_div(pages, banks) * round_up(page_size, alignment) if pages else 0


@dataclass(frozen=True)
class BankConfig:
    """One buffer type's banks, as tt-metal's BankManager sees them.

    Attributes:
        buffer_type: ``DRAM``, ``L1`` or ``L1_SMALL`` (tt-metal's enum names).
        num_banks: banks of an interleaved buffer.
        bank_size: allocatable bytes per bank.
        base: absolute address of the bank's first allocatable byte.
        page_alignment: alignment of a page (``calculate_bank_size_spread``), bytes.
        block_alignment: the free list's alignment and minimum allocation (the DRAM alignment).
        bottom_up: the default direction (DRAM bottom-up, L1 top-down).
        source: how the figures were derived (for reports).
    """

    buffer_type: str
    num_banks: int
    bank_size: int
    base: int
    page_alignment: int
    block_alignment: int
    bottom_up: bool
    source: str = ""


def bank_configs(arch: Arch, trace_region_size: int = 0) -> dict[str, BankConfig]:
    """The L1, L1_SMALL and DRAM banks of ``arch`` (keys ``l1``, ``l1_small``, ``dram``).

    L1 (``init_compute_and_storage_l1_bank_manager``): ``arch.num_cores`` banks of
    ``l1_size - l1_unreserved_base - l1_small_size`` B from ``l1_unreserved_base``;
    L1_SMALL: ``l1_small_size`` B above them.  DRAM (``init_one_bank_per_channel``):
    ``num_dram_channels`` banks of ``dram_channel_size - dram_unreserved_base -
    trace_region_size / channels`` B from ``dram_unreserved_base`` (the trace region,
    rounded up to ``dram_alignment * channels`` in ``L1BankingAllocator::generate_config``,
    is split over the channels).

    Args:
        arch: the chip (from the file's system_desc or ``--arch``).
        trace_region_size: bytes of trace region the device is opened with (0: tt-metal's
            and the tt-mlir runtime's default).
    """
    block = arch.dram_alignment
    l1_bank = arch.l1_size - arch.l1_unreserved_base - arch.l1_small_size
    trace_per_bank = round_up(trace_region_size, arch.dram_alignment * arch.num_dram_channels) // arch.num_dram_channels
    dram_bank = arch.dram_channel_size - arch.dram_unreserved_base - trace_per_bank
    return {
        "l1": BankConfig("L1", arch.num_cores, l1_bank, arch.l1_unreserved_base, arch.l1_alignment, block, False,
                         f"l1_size {arch.l1_size} - l1_unreserved_base {arch.l1_unreserved_base} - l1_small_size "
                         f"{arch.l1_small_size}"),
        "l1_small": BankConfig("L1_SMALL", arch.num_cores, arch.l1_small_size, arch.l1_unreserved_base + l1_bank,
                               arch.l1_alignment, block, False, f"l1_small_size {arch.l1_small_size}"),
        "dram": BankConfig("DRAM", arch.num_dram_channels, dram_bank, arch.dram_unreserved_base, arch.dram_alignment,
                           block, True, f"dram_channel_size {arch.dram_channel_size} - dram_unreserved_base "
                           f"{arch.dram_unreserved_base}" + (f" - trace region {trace_per_bank}" if trace_per_bank else "")),
    }


@dataclass(frozen=True)
class Statistics:
    """``FreeListOpt::get_statistics``, bytes per bank."""

    bank_size: int
    allocated: int
    free: int
    largest_free: int


@dataclass(frozen=True)
class OutOfMemory:
    """A request tt-metal's allocator refuses, with the figures of its message."""

    buffer_type: str
    size: int
    num_banks: int
    size_per_bank: int
    aligned_size_per_bank: int
    stats: Statistics

    @property
    def fragmentation(self) -> bool:
        """Enough free bytes in total, but no free block large enough."""
        return self.stats.free >= self.aligned_size_per_bank

    def message(self) -> str:
        """tt-metal's text (``BankManager::allocate_buffer``, d80d9482), to the byte."""
        s = self.stats
        return (f"Out of Memory: Not enough space to allocate {self.size} B {self.buffer_type} buffer across "
                f"{self.num_banks} banks, where each bank needs to store {self.size_per_bank} B, but bank size is "
                f"{s.bank_size} B (allocated: {s.allocated} B, free: {s.free} B, largest free block: "
                f"{s.largest_free} B).")


class FreeList:
    """tt-metal's ``FreeListOpt`` with ``SearchPolicy::FIRST`` over one bank (addresses relative to its base).

    Free blocks are kept in size classes (``floor(log2(size / 1024))``, the last class
    open-ended) in address order, and by start and end address for merging.
    """

    def __init__(self, size: int, alignment: int):
        self.size = size
        self.alignment = alignment
        n = max(size // SIZE_CLASS_BASE, 1).bit_length()
        cap = (MAX_SIZE_CLASS_BYTES // SIZE_CLASS_BASE).bit_length()
        self.num_classes = min(max(n, 2), cap)  # num_segerated_classes
        self.classes: list[list[int]] = [[] for _ in range(self.num_classes)]
        self.nonempty = 0  # bit k set: classes[k] holds a block (the search visits only those)
        self.free_by_start: dict[int, int] = {}
        self.free_by_end: dict[int, int] = {}
        self.allocated: dict[int, int] = {}
        self.allocated_bytes = 0
        self._add_free(0, size)

    def _class(self, size: int) -> int:
        """``min(num_classes - 1, floor(log2(max(size // 1024, 1))))`` (FreeListOpt's size class)."""
        k = (size // SIZE_CLASS_BASE).bit_length() - 1  # -1 below 1 KiB: class 0
        return 0 if k < 0 else k if k < self.num_classes else self.num_classes - 1

    def _add_free(self, start: int, size: int) -> None:
        if size <= 0:
            return
        self.free_by_start[start] = size
        self.free_by_end[start + size] = start
        k = (size // SIZE_CLASS_BASE).bit_length() - 1  # _class, inline: called for every block freed or split
        if k < 0:
            k = 0
        elif k >= self.num_classes:
            k = self.num_classes - 1
        bisect.insort(self.classes[k], start)
        self.nonempty |= 1 << k

    def _remove_free(self, start: int) -> int:
        size = self.free_by_start.pop(start)
        del self.free_by_end[start + size]
        k = (size // SIZE_CLASS_BASE).bit_length() - 1  # _class, inline
        if k < 0:
            k = 0
        elif k >= self.num_classes:
            k = self.num_classes - 1
        lst = self.classes[k]
        del lst[bisect.bisect_left(lst, start)]
        if not lst:
            self.nonempty &= ~(1 << k)
        return size

    def aligned(self, size: int) -> int:
        """``FreeListOpt::allocate``'s block size: ``align(max(size, min_allocation_size))``."""
        return round_up(max(size, self.alignment), self.alignment)

    def allocate(self, size: int, bottom_up: bool) -> int | None:
        """First fit of ``size`` bytes: the address (relative to the bank base), or None when nothing fits
        (:meth:`take` of the :meth:`aligned` block)."""
        return self.take(self.aligned(size), bottom_up)

    def take(self, need: int, bottom_up: bool) -> int | None:
        """First fit of a block of ``need`` bytes, already :meth:`aligned`: its address (relative to the bank
        base), or None when nothing fits.

        Visits the non-empty size classes from the request's own upwards: the first fitting block of its own
        class in address order, the first (bottom-up) or last (top-down) block of each larger one (each of
        those fits), and takes the lowest (bottom-up) or highest (top-down) address among them."""
        best: int | None = None
        first = self._class(need)
        pending = self.nonempty >> first
        k = first
        while pending:
            skip = (pending & -pending).bit_length() - 1  # to the next non-empty class, past the empty ones
            k += skip
            pending >>= skip
            lst = self.classes[k]
            if k == first:  # blocks of the request's own class may be too small: scan in address order
                by_start = self.free_by_start
                cand = None
                for a in (lst if bottom_up else reversed(lst)):
                    if by_start[a] >= need:
                        cand = a
                        break
            else:
                cand = lst[0] if bottom_up else lst[-1]
            if cand is not None and (best is None or (cand < best if bottom_up else cand > best)):
                best = cand
            pending >>= 1
            k += 1
        if best is None:
            return None
        block = self._remove_free(best)
        if bottom_up:
            addr = best
            self._add_free(best + need, block - need)
        else:
            addr = best + block - need
            self._add_free(best, block - need)
        self.allocated[addr] = need
        self.allocated_bytes += need
        return addr

    def deallocate(self, addr: int) -> None:
        """Free the block at ``addr`` and merge it with free neighbours (an unknown address is ignored, as tt-metal)."""
        size = self.allocated.pop(addr, None)
        if size is None:
            return
        self.allocated_bytes -= size
        start, end = addr, addr + size
        if start in self.free_by_end:  # free block just below
            start = self.free_by_end[start]
            self._remove_free(start)
        if end in self.free_by_start:  # free block just above
            end += self._remove_free(end)
        self._add_free(start, end - start)

    def statistics(self) -> Statistics:
        if not self.allocated_bytes:
            return Statistics(self.size, 0, self.size, self.size)
        largest = 0
        for lst in reversed(self.classes):
            if lst:
                largest = max(self.free_by_start[a] for a in lst)
                break
        return Statistics(self.size, self.allocated_bytes, self.size - self.allocated_bytes, largest)

    def lowest_allocated(self) -> int | None:
        """Lowest allocated address (relative), or None: the end of the free block at 0, if any (O(1))."""
        if not self.allocated:
            return None
        return self.free_by_start.get(0, 0)

    def highest_allocated_end(self) -> int:
        """End of the highest allocated block (relative), 0 when empty: the start of the free block that
        ends the bank, if any (O(1))."""
        if not self.allocated:
            return 0
        return self.free_by_end.get(self.size, self.size)


@dataclass(slots=True)
class Allocation:
    """One live buffer: where the model put it (absolute address) and its size per bank."""

    buffer_type: str
    address: int
    size: int
    size_per_bank: int
    aligned_size_per_bank: int


@dataclass
class BankManager:
    """One buffer type's banks and their shared free list (tt-metal ``BankManager``)."""

    config: BankConfig
    free_list: FreeList = field(init=False)
    # (size, page size, banks) -> (size per bank, aligned size, the free list's block), of allocate
    _sizes: dict[tuple[int, int, int], tuple[int, int, int]] = field(init=False, default_factory=dict, repr=False,
                                                                       compare=False)

    def __post_init__(self) -> None:
        self.free_list = FreeList(self.config.bank_size, self.config.block_alignment)

    def allocate(self, size: int, page_size: int, num_shards: int | None = None,
                 bottom_up: bool | None = None) -> Allocation | OutOfMemory:
        """Allocate a buffer of ``size`` bytes in ``page_size`` pages (``BankManager::allocate_buffer``).

        Args:
            size: bytes of the buffer (pages * page size).
            page_size: bytes per page.
            num_shards: cores of a sharded buffer (its pages spread over those banks only).
            bottom_up: direction; default the buffer type's (DRAM up, L1 down).

        Returns:
            the :class:`Allocation`, or the :class:`OutOfMemory` tt-metal would raise (the state is unchanged);
            both report the buffer's size as tt-metal does, ``Buffer::aligned_size()`` = pages *
            ``round_up(page_size, alignment)`` (measured: a [N, 3] f32 row-major DRAM buffer is
            reported as N * 64 B).

        Raises:
            ValueError: ``size`` is not a whole number of pages.
        """
        cfg = self.config
        banks = num_shards if num_shards is not None else cfg.num_banks
        sizes = self._sizes.get((size, page_size, banks))
        if sizes is None:  # programs allocate the same few sizes again and again
            per_bank = size_per_bank(size, page_size, banks, cfg.page_alignment)
            # tt-metal passes Buffer::aligned_size(): pages * round_up(page_size, alignment)
            aligned_size = size // page_size * round_up(page_size, cfg.page_alignment) if page_size else 0
            sizes = self._sizes[(size, page_size, banks)] = (per_bank, aligned_size, self.free_list.aligned(per_bank))
        per_bank, aligned_size, aligned = sizes
        rel = self.free_list.take(aligned, cfg.bottom_up if bottom_up is None else bottom_up)
        if rel is None:
            return OutOfMemory(cfg.buffer_type, aligned_size, banks, per_bank, aligned, self.statistics())
        return Allocation(cfg.buffer_type, cfg.base + rel, aligned_size, per_bank, aligned)

    def deallocate(self, allocation: Allocation) -> None:
        self.free_list.deallocate(allocation.address - self.config.base)

    def statistics(self) -> Statistics:
        return self.free_list.statistics()

    def in_use_extent(self) -> int:
        """Bytes per bank from the allocation end of the bank to the farthest live block.

        For DRAM (bottom-up) the end of the highest block minus the base; for L1 (top-down)
        the bank's top minus the lowest block: the address range in use, holes included.
        """
        fl = self.free_list
        if self.config.bottom_up:
            return fl.highest_allocated_end()
        low = fl.lowest_allocated()
        return 0 if low is None else fl.size - low

    def lowest_occupied_address(self) -> int | None:
        """Absolute lowest allocated address (tt-metal ``lowest_occupied_address``), or None."""
        low = self.free_list.lowest_allocated()
        return None if low is None else self.config.base + low


class DeviceAllocator:
    """The L1, L1_SMALL and DRAM bank managers of one device (tt-metal ``AllocatorImpl``)."""

    def __init__(self, arch: Arch, trace_region_size: int = 0):
        self.configs = bank_configs(arch, trace_region_size)
        self.managers = {k: BankManager(c) for k, c in self.configs.items()}

    def allocate(self, buffer_type: str, size: int, page_size: int, num_shards: int | None = None,
                 bottom_up: bool | None = None) -> Allocation | OutOfMemory:
        """See :meth:`BankManager.allocate`; ``buffer_type`` is ``l1``, ``l1_small`` or ``dram``."""
        return self.managers[buffer_type].allocate(size, page_size, num_shards, bottom_up)

    def deallocate(self, allocation: Allocation) -> None:
        self.managers[_MANAGER_OF[allocation.buffer_type]].deallocate(allocation)


_MANAGER_OF = {"L1": "l1", "L1_SMALL": "l1_small", "DRAM": "dram"}  # DeviceAllocator.managers' key of a buffer type
