"""Program models of the collectives (CCL ops): the cores each device runs, their CBs, the buffers they allocate.

Every device of the mesh runs the same program on its own shard (one program per mesh coordinate, built by
``create_at``; the end devices of a line differ in their kernels' runtime arguments, not in their cores or
CBs), so the figures are per device and hold on each device of the mesh.  The models follow the source and are
checked on mock meshes of Blackhole chips (``measurements/ccl/probe.py``, tests/test_ccl_measured.py: every CB by
size and cores and the DRAM intermediates, with the mocks' 2 links per hop): the line programs on a 1x2 mesh (17
cases), the ring programs on a 1x4 mesh cabled as a ring (8 cases), the composite paths (28 cases on the line, 5 on
the ring: the sequence of programs, each the model of its op, and the global semaphores).

What the IR does not say, and the models assume (each noted on the program):

* the fabric: tt-mlir's runtime opens ``FABRIC_1D`` (a line, ``Topology::Linear``) unless every line of the
  mesh's cabling wraps around (``FABRIC_1D_RING``; tt-mlir ``runtime/lib/common/mesh_fabric_config.cpp``
  @19c86fca); the cabling is not in the IR, so a line is assumed unless the op's ``topology`` says ring;
* the fabric packet: ``FabricEriscDatamoverBuilder::default_packet_payload_size_bytes`` = 4 Bfp8_b tiles
  = 4,352 B of payload (``get_tt_fabric_max_payload_size_bytes``), plus a 48-B packet header
  (``get_tt_fabric_packet_header_size_bytes``: measured on the 1x2 mock mesh, the point-to-point programs' header
  CBs of 2 x 2 headers take 192 B) = a 4,400-B channel buffer (``get_tt_fabric_channel_buffer_size_bytes``);
* the links: ``get_num_links`` counts the routing planes of the machine's ethernet cabling (not in the IR):
  the op's ``num_links`` where the entry point honours it, else 1.

Sources: ttnn 0.81.1 (tt-metal d80d9482) ships the sources of ``ttnn::all_gather``
(``ttnn/cpp/ttnn/operations/ccl/all_gather/``: the entry point, the device operation and both factories)
and of ``ttnn::reduce_scatter`` / ``ttnn::all_reduce`` (``ccl/reduce_scatter/``, ``ccl/all_reduce/``),
read there.  The reduce-scatter programs (the ring and line builders of ``reduce_scatter_minimal_async``) are
not in the wheel: the models follow the stored tt-metal source whose kernels' compile-time arguments match the
wheel's kernels (the ring kernels' named arguments ``cb_interm2_id``, ``contiguous_interm``, the V2 fabric mux)
and whose error strings the wheel's ``_ttnncpp.so`` carries ("contiguous-interm tile_granularity mismatch",
"the tiled intermediate must hold the whole input", "... worker cores stay on the grid after
core_grid_offset"), with ``reduce_scatter_program_utils.cpp`` @01ea68fb (the default worker count).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.attrs import CoreRangeSet, DataType
from ..mesh import Mesh, op_mesh
from . import data_movement as DM
from . import layout_conversion as LC
from .cb import CB, CBContext, CBModelError, DeviceBuffer, ProgramModel, core_range, cores_set
from .registry import int_attr, norm_dim
from .tensors import TILE, Tensor, operand, result

PACKET_PAYLOAD_BYTES = 4 * 1088  # default_packet_payload_size_bytes = tile_size(Bfp8_b) * 4
PACKET_HEADER_1D_BYTES = 48  # get_tt_fabric_packet_header_size_bytes on FABRIC_1D, measured (module docstring)
CHANNEL_BUFFER_BYTES = PACKET_PAYLOAD_BYTES + PACKET_HEADER_1D_BYTES
MEASURED_LINE = ("from source, checked on a 1x2 mock mesh (measurements/ccl: the CBs, cores and DRAM intermediate of "
                 "this program on a 2-device line)")
MEASURED_RING = ("from source, checked on a 1x4 mock mesh cabled as a ring (measurements/ccl: the CBs, cores and DRAM "
                 "intermediate of this program)")

_AG = "tt-metal ttnn/cpp/ttnn/operations/ccl/all_gather/device/"
AG_SOURCE = (f"{_AG}all_gather_device_operation.cpp (select_program_factory), all_gather_multicast_factory.cpp / "
             "all_gather_unicast_factory.cpp (create_at), ccl/all_gather/all_gather.cpp (use_composite_all_gather); "
             "ttnn 0.81.1 = d80d9482, from source")
RS_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/ccl/reduce_scatter/reduce_scatter.cpp (dispatch), device/"
             "reduce_scatter_device_operation.cpp and reduce_scatter_program_factory.cpp (d80d9482: the DRAM "
             "intermediate, ring or line builder), the ring and line builders "
             "(build_ring/line_reduce_scatter_program_impl: CBs, cores) of the stored source whose kernel arguments "
             "and error strings the 0.81.1 wheel carries, experimental/ccl/reduce_scatter_common/"
             "reduce_scatter_program_utils.cpp @01ea68fb (reduce_scatter_default_workers), from source")


@dataclass
class Fabric:
    """What the models assume of the fabric for one op (module docstring): ``topology`` ``Linear`` or
    ``Ring``, ``links`` per direction, the devices ``n`` on the op's axis, the ``notes`` saying so, and whether the
    topology was ``assumed`` (not in the IR)."""

    topology: str
    links: int
    n: int
    notes: list[str] = field(default_factory=list)
    assumed: bool = False  # the topology is not in the IR (the fabric's default taken)


def axis_devices(op, mesh: Mesh) -> int:
    """Devices on the op's ``cluster_axis`` (every device of a line mesh without one).

    Raises:
        CBModelError: no ``cluster_axis`` on a 2D mesh, or one that is not a mesh dim.
    """
    if "cluster_axis" not in op.attrs:
        if sum(d > 1 for d in mesh.shape) > 1:
            raise CBModelError(f"{op.name} without cluster_axis on the 2D mesh {mesh.label}: one collective per mesh "
                               "axis, not modeled")
        return mesh.devices
    axis = int_attr(op, "cluster_axis")
    if not 0 <= axis < len(mesh.shape):
        raise CBModelError(f"{op.name}: cluster_axis {axis} is not a dim of mesh {mesh.label}")
    return mesh.shape[axis]


def fabric_of(op, honours_num_links: bool) -> Fabric:
    """The fabric the op runs on (module docstring).

    Raises:
        CBModelError: no mesh known for the op, or one device on its axis (nothing to collect).
    """
    mesh = op_mesh(op)
    if mesh is None:
        raise CBModelError(f"{op.name}: no mesh (ttnn.get_device mesh_shape) for the collective")
    n = axis_devices(op, mesh)
    if n < 2:
        raise CBModelError(f"{op.name} over {n} device: tt-metal needs more than one")
    notes = [f"{n} devices on the op's axis of mesh {mesh.label}; each runs this program on its own shard"]
    text = str(op.raw_attrs.get("topology", "")).lower()
    assumed = False
    if "ring" in text:
        topology = "Ring"
    elif "linear" in text:
        topology = "Linear"
    else:
        topology = "Linear"
        assumed = True
        notes.append("fabric assumed FABRIC_1D (a line): tt-mlir's runtime opens a ring only when the cabling "
                     "wraps around, which the IR does not say")
    links = op.attrs.get("num_links")
    if isinstance(links, int) and not isinstance(links, bool) and links > 0:
        notes.append(f"{links} link(s), the op's num_links" + ("" if honours_num_links else
                     " taken as the machine's link count (ttnn 0.81.1's all_gather ignores it and counts the routing "
                     "planes, get_num_links)"))
    else:
        links = 1
        notes.append("1 fabric link assumed (get_num_links counts the machine's routing planes, not in the IR"
                     + ("" if honours_num_links else "; ttnn 0.81.1's all_gather ignores the deprecated num_links")
                     + ")")
    return Fabric(topology, links, n, notes, assumed)


def _io(steps: list[ProgramModel], ins, out: Tensor) -> list[ProgramModel]:
    """Record the tensors each step of one data-movement op reads and writes where its model did not (the replay
    allocates a composite's intermediates from them, the cost model reads them): the first step reads ``ins``, a
    concat what the steps before it wrote (else ``ins``), a fill of the tile padding writes its input in place, a
    step writes what the next one reads, and the last writes ``out``."""
    ins = tuple(ins)
    for i, st in enumerate(steps):
        if not st.inputs:
            if i and st.factory.startswith("Concat"):
                st.inputs = tuple(t for p in steps[:i] for t in p.outputs) or ins
            else:
                st.inputs = steps[i - 1].outputs if i else ins
        if not st.outputs:
            if st.factory.startswith("FillPad"):
                st.outputs = st.inputs[:1]
            elif i == len(steps) - 1:
                st.outputs = (out,)
            elif steps[i + 1].inputs:
                st.outputs = (steps[i + 1].inputs[0],)
    return steps


def _typecast(ctx: CBContext, x: Tensor, out: Tensor) -> ProgramModel:
    """``ttnn::typecast`` of ``x`` into ``out`` (:func:`ttanalyze.ops.layout_conversion.typecast_program`)."""
    return _io([LC.typecast_program(x, out, ctx.arch)], (x,), out)[0]


def _topology_name(fab: Fabric) -> str:
    """``ring`` or ``line``: the topology the program runs, as the cost model reads it (``params["topology"]``)."""
    return "ring" if fab.topology == "Ring" else "line"


def row_major_cores(grid: tuple[int, int], count: int) -> list[tuple[int, int]]:
    """tt-metal ``ccl::choose_worker_cores``: the first ``count`` worker cores in row-major order (rows of the
    (x, y) ``grid`` from y = 0), one per CCL worker or mux.

    Raises:
        CBModelError: more cores than the grid has.
    """
    if count > grid[0] * grid[1]:
        raise CBModelError(f"{count} CCL cores do not fit the {grid[0]}x{grid[1]} grid")
    return [(i % grid[0], i // grid[0]) for i in range(count)]


def core_set(cores: list[tuple[int, int]]) -> CoreRangeSet:
    """The cores as ranges: each run of consecutive x on one row is one range."""
    ranges, run = [], []
    for x, y in sorted(cores, key=lambda c: (c[1], c[0])):
        if run and (y != run[-1][1] or x != run[-1][0] + 1):
            ranges.append(core_range(run[0][0], run[0][1], run[-1][0], run[-1][1]))
            run = []
        run.append((x, y))
    if run:
        ranges.append(core_range(run[0][0], run[0][1], run[-1][0], run[-1][1]))
    return cores_set(*ranges)


def page_bytes(t: Tensor) -> int:
    """The unaligned page of an interleaved tensor (``buffer()->page_size()``): a tile, or a row-major row."""
    return t.tile_bytes if t.tiled else t.width * t.element_bytes


def aligned(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def num_pages(t: Tensor) -> int:
    """Pages of an interleaved tensor: tiles, or row-major rows."""
    return t.physical_volume // 1024 if t.tiled else t.physical_volume // t.width


def _interleaved(op, *tensors: Tensor) -> None:
    if any(t.sharded for t in tensors):
        raise CBModelError(f"{op.name} on sharded tensors is not modeled (the page-ratio rules of the sharded paths)")


SEMAPHORE_BYTES = 4  # a GlobalSemaphore: one uint32 per core (global_semaphore.cpp: a sharded buffer, 1 page per core)
SEM_SOURCE = ("tt-metal ttnn/cpp/ttnn/global_semaphore.cpp / tt_metal/impl/buffers/global_semaphore.cpp "
              "(create_global_semaphore: a HEIGHT_SHARDED buffer of one 4-B page per core of the core range set); "
              "measured on the 1x2 mock mesh: each a 440-B L1 buffer of 4-B pages over the 110 worker cores, freed "
              "when the op returns")


def global_semaphores(ctx: CBContext, count: int, who: str, buffer_type: str = "l1") -> tuple[DeviceBuffer, ...]:
    """The ``count`` global semaphores a CCL factory creates on every worker core of the device
    (``create_global_semaphore(mesh_device, worker_cores, 0, buffer_type)``): each one ``uint32`` per core, a
    sharded buffer of ``4 * cores`` bytes (one L1-aligned page per core: 16 B of each core's bank), freed when the
    op returns (measured, :data:`SEM_SOURCE`).  ``buffer_type`` ``l1``, or ``l1_small`` where the factory prefers
    it and the device has an L1_SMALL region."""
    cores = ctx.grid[0] * ctx.grid[1]
    return tuple(DeviceBuffer(buffer_type, SEMAPHORE_BYTES * cores, SEMAPHORE_BYTES, False,
                              f"global semaphore {i + 1} of {count} of {who} ({SEMAPHORE_BYTES} B on each of "
                              f"{cores} cores, {buffer_type.upper()})") for i in range(count))


def all_gather_program(ctx: CBContext) -> list[ProgramModel]:
    """``ttnn::all_gather`` (ttnn 0.81.1): ``AllGatherDeviceOperation`` with its multicast or unicast factory.

    * Path: a gather dim whose logical size is tile-padded takes the composite all-gather
      (:func:`all_gather_steps`); sharded tensors are not modeled here (their page-ratio rules).
    * Factory (``select_program_factory``): Wormhole takes unicast on a ring with at least 64 input pages
      (20 when a page is 4,096 B or more), else multicast; Blackhole takes unicast once the bytes per link,
      ``input bytes * N / links``, reach ``min(4e6, txn^2 * 1e6 / 2048^2)`` with ``txn`` the smaller of the
      input and output pages, else multicast.
    * Cores: multicast, one worker per link; unicast, per link 2 directions of ``W`` workers plus, when
      ``W > 1``, one fabric-mux core per direction (Wormhole ``W = 2``; Blackhole 1, 2, 8 or 12 by bytes per
      link and page size), the first cores in row-major order (:func:`row_major_cores`).
    * CB ``c_0`` on the workers: 3 pages of ``aligned input page * max(1, 4352 // aligned input page)``,
      for TILE times ``clamp(max_l1_space // (3 * that), 1, 3 on Wormhole / 4 on Blackhole)``.
    * Two global semaphores on every worker core (:func:`global_semaphores`), in L1_SMALL when the device has an
      L1_SMALL region (``prefer_l1_small_buffer_type``), else in L1 (the mock's, measured).

    Raises:
        CBModelError: see above, or no mesh known.
    """
    op = ctx.op
    x = operand(ctx, 0)
    fab = usable_topology(fabric_of(op, honours_num_links=False))
    if not fab.assumed:
        fab.notes.append("ttnn 0.81.1's all_gather takes the fabric's axis topology (get_axis_topology), not the "
                         "op's deprecated one, which stands here for the cabling the compiler was told of")
    return all_gather_steps(ctx, x, result(ctx), norm_dim(int_attr(op, "all_gather_dim"), x.rank, op), fab)


def all_gather_steps(ctx: CBContext, x: Tensor, out: Tensor, d: int, fab: Fabric) -> list[ProgramModel]:
    """``ttnn::all_gather`` of ``x`` into ``out`` along dim ``d`` (all_gather.cpp ``use_composite_all_gather``): a
    tile-padded gather dim takes :func:`composite_all_gather_steps`, else the native program
    (:func:`all_gather_program_of`).

    Raises:
        CBModelError: see both.
    """
    if x.shape[d] != x.padded[d]:
        return composite_all_gather_steps(ctx, x, out, d, fab)
    return [all_gather_program_of(ctx, x, out, d, fab)]


AB_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/ccl/all_broadcast/device/all_broadcast_program_factory.cpp and "
             "all_broadcast_device_operation.cpp (d80d9482, in the 0.81.1 wheel): one worker per link, CB c_in0, "
             "ring_size outputs, two global semaphores")
CAG_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/ccl/all_gather/all_gather.cpp (d80d9482: use_composite_all_gather) "
              "and experimental/ccl/composite_common.cpp composite_all_gather (@00d062bc: typecast of a block-float "
              "tensor that is not tile-aligned, all_broadcast, concat along the gather dim, typecast back); the "
              "sequence of programs measured on the 1x2 and 1x4-ring mock meshes")


def all_broadcast_program(ctx: CBContext, x: Tensor, fab: Fabric) -> ProgramModel:
    """``ttnn::prim::all_broadcast`` of ``x`` (AllBroadcastProgramFactory, :data:`AB_SOURCE`): every device sends its
    ``x`` to the ``n - 1`` others and returns ``n`` tensors of ``x``'s spec (one per device of the axis).

    * Cores: one worker per link, the first in row-major order (``choose_worker_cores``).
    * CB ``c_0``: TILE, 3 packets of ``4352 // aligned page`` pages (``get_tt_fabric_max_payload_size_bytes``);
      row-major, 3 x (2 rows when two fit a packet, else 1) aligned rows, a bf16 packet being 4,096 B
      (``bit_floor``).
    * Two global semaphores on every worker core (:func:`global_semaphores`); the ``n`` outputs are buffers of
      ``x``'s size (:attr:`ProgramModel.device_buffers`: freed after the step that reads them, the concat).

    Raises:
        CBModelError: a sharded tensor (its width-shard pages not modeled).
    """
    _interleaved(ctx.op, x)
    page = aligned(page_bytes(x), x.alignment)
    if x.tiled:
        pages = 3 * (PACKET_PAYLOAD_BYTES // page)
        why = f"3 packets of {PACKET_PAYLOAD_BYTES // page} page(s) of {page:,} B"
    else:
        packet = 1 << (PACKET_PAYLOAD_BYTES.bit_length() - 1) if x.dtype.name == "bf16" else PACKET_PAYLOAD_BYTES
        rows = 2 if packet // page >= 2 else 1
        pages = 3 * rows
        why = f"3 x {rows} row(s) of {page:,} B (a {packet:,}-B packet)"
    workers = core_set(row_major_cores(ctx.grid, fab.links))
    size = num_pages(x) * page_bytes(x)
    prog = ProgramModel("AllBroadcastDeviceOperation::AllBroadcastProgramFactory", AB_SOURCE, workers,
                        [CB(0, "input_relay", page, pages, workers)],
                        list(fab.notes) + [f"one worker per link ({fab.links}); c_0 holds {why}",
                                           f"returns {fab.n} tensors of the input's spec ({size:,} B each), one per "
                                           "device of the axis"],
                        inputs=(x,), outputs=(x,), params={"ring_size": fab.n, "num_links": fab.links,
                                                          "topology": _topology_name(fab)})
    prog.device_buffers = tuple(DeviceBuffer(x.buffer_type, size, page_bytes(x), False,
                                             f"all_broadcast's copy {i + 1} of {fab.n} of the input")
                                for i in range(fab.n)) + global_semaphores(ctx, 2, "all_broadcast")
    return prog


def composite_all_gather_steps(ctx: CBContext, x: Tensor, out: Tensor, d: int, fab: Fabric,
                               reason: str | None = None) -> list[ProgramModel]:
    """The composite all-gather ttnn 0.81.1 runs when the gather dim is tile-padded (:data:`CAG_SOURCE`):

    * a bfloat8_b/bfloat4_b tensor whose last two dims are not tile multiples is typecast to bfloat16 first and the
      result back (:func:`ttanalyze.ops.layout_conversion.typecast_program`);
    * :func:`all_broadcast_program`: each device receives the ``n`` shards;
    * ``ttnn::concat`` of the ``n`` shards along ``d`` (the concat model of :mod:`ttanalyze.ops.data_movement`: a
      padded concat dim untilizes each shard, concatenates row-major and tilizes back), into the input's memory
      config.

    Raises:
        CBModelError: a sharded tensor, or a step the concat/typecast models do not model.
    """
    op = ctx.op
    _interleaved(op, x, out)
    steps: list[ProgramModel] = []
    src, final = x, out
    widen = (x.tiled and x.dtype.is_block_float and (x.shape[-1] % TILE or (x.rank > 1 and x.shape[-2] % TILE)))
    if widen:
        src = x.with_(dtype=DataType("bf16"))
        steps.append(_typecast(ctx, x, src))
        final = out.with_(dtype=DataType("bf16"))
    bcast = all_broadcast_program(ctx, src, fab)
    steps.append(bcast)
    cat = final if final.mem == src.mem else final.with_(mem=src.mem)
    steps += _io(DM._concat_steps([src] * fab.n, d, cat, ctx), [src] * fab.n, cat)
    if widen:
        steps.append(_typecast(ctx, cat, out))
    if cat.mem != out.mem:
        steps[-1].notes.append("the composite concatenates in the input's memory config; the op's output memory "
                               "config differs (only a sharded one is converted, composite_common.cpp)")
    steps[0].notes.append((reason or f"gather dim {d} is tile-padded ({x.shape[d]} -> {x.padded[d]})")
                          + ": ttnn takes the composite all_gather (use_composite_all_gather): "
                          + ("typecast to bf16, " if widen else "") + f"all_broadcast to the {fab.n} devices, concat "
                          f"along dim {d}" + (", typecast back" if widen else ""))
    for p in steps:
        p.notes.append(CAG_SOURCE.split(";")[0] + "; steps measured on the mock meshes (measurements/ccl)")
    return steps


def all_gather_program_of(ctx: CBContext, x: Tensor, out: Tensor, d: int, fab: Fabric) -> ProgramModel:
    """The all-gather program of ``x`` into ``out`` along dim ``d`` (:func:`all_gather_program`), for the op of
    ``ctx`` or a step of a composite (a distributed norm's statistics).

    Raises:
        CBModelError: see :func:`all_gather_program`.
    """
    op = ctx.op
    _interleaved(op, x, out)
    if x.shape[d] != x.padded[d]:
        raise CBModelError(f"gather dim {d} is padded from {x.shape[d]} to {x.padded[d]}: the composite all_gather "
                           "(all_gather_steps), not the native program")
    in_page, out_page = page_bytes(x), page_bytes(out)
    in_aligned, out_aligned = aligned(in_page, x.alignment), aligned(out_page, out.alignment)
    blackhole = ctx.arch.name == "blackhole"
    pages = num_pages(x)
    in_bytes = pages * in_page
    if blackhole:
        txn = min(in_page, out_page)
        ceiling = min(4_000_000, txn * txn * 1_000_000 // (2048 * 2048))
        unicast = in_bytes * fab.n // fab.links >= ceiling
        why = f"{in_bytes * fab.n // fab.links:,} B per link against the multicast ceiling {ceiling:,} B"
    else:
        unicast = fab.topology == "Ring" and pages >= (20 if in_aligned >= 4096 else 64)
        why = f"{fab.topology.lower()}, {pages} input pages"
    cb_page = in_aligned * max(1, PACKET_PAYLOAD_BYTES // in_aligned)
    notes = list(fab.notes)
    if x.tiled:
        ideal = 4 if blackhole else 3
        mult = min(max(ctx.max_l1_space // (3 * cb_page), 1), ideal)
        if mult < ideal:
            notes.append(f"CB depth reduced to {mult} packets of pages for L1 pressure ({ctx.max_l1_space:,} B free)")
        cb_page *= mult
    grid = ctx.grid
    if unicast:
        workers = 2
        if blackhole:
            per_link = num_pages(out) * out_aligned // fab.links
            if min(in_aligned, out_aligned) >= 1536 and per_link >= 4_000_000:
                workers = 12 if per_link >= 20_000_000 else 8
            elif per_link < 750_000:
                workers = 1
        links = fab.links
        per_link_cores = lambda w: 2 * (w + (1 if w > 1 else 0))  # noqa: E731
        while workers > 1 and links * per_link_cores(workers) > grid[0] * grid[1]:
            workers -= 1
        mux = 1 if workers > 1 else 0
        cores = row_major_cores(grid, links * per_link_cores(workers))
        per_dir = workers + mux
        worker_cores = [c for i, c in enumerate(cores) if (i % per_dir) >= mux]
        factory = "AllGatherDeviceOperation::AllGatherUnicastFactory"
        notes.append(f"unicast ({why}): {links} link(s) x 2 directions x {workers} worker(s)"
                     + (" + 1 fabric-mux core per direction (its channel buffers are the mux kernel's own L1)"
                        if mux else ""))
    else:
        cores = worker_cores = row_major_cores(grid, fab.links)
        factory = "AllGatherDeviceOperation::AllGatherMulticastFactory"
        notes.append(f"multicast ({why}): one worker core per link")
    workers_set = core_set(worker_cores)
    notes.append(MEASURED_LINE)
    prog = ProgramModel(factory, AG_SOURCE, core_set(cores), [CB(0, "input_relay", cb_page, 3, workers_set)], notes,
                        inputs=(x,), outputs=(out,), params={"ring_size": fab.n, "num_links": fab.links,
                                                             "topology": _topology_name(fab)})
    prog.device_buffers = global_semaphores(ctx, 2, "all_gather", "l1_small" if ctx.arch.l1_small_size else "l1")
    return prog


def rs_fp32_dest_acc(op, x: Tensor) -> bool:
    """``fp32_dest_acc_en`` of the reduce-scatter's compute kernel: the op's ``compute_config`` (tt-mlir's runtime
    passes it when the IR has one), else true for a float32 input and false otherwise
    (``ccl::resolve_fp32_acc_compute_kernel_config`` in ccl_common.cpp, ``ttnn::get_fp32_dest_acc_en``)."""
    cc = op.attrs.get("compute_config")
    if cc is not None:
        return bool(getattr(cc, "fp32_dest_acc_en", None))
    return x.dtype.name == "f32"


def rs_workers(ctx: CBContext, topology: str, input_bytes: int, n: int, links: int) -> int:
    """``reduce_scatter_default_workers`` (reduce_scatter_program_utils.cpp): workers per direction and link.

    The bytes each link moves, ``input_bytes * (n - 1) / n / links`` (halved on a ring, whose two directions
    share the work), pick the candidates: on a ring above 1 MiB on Blackhole (50 MiB on Wormhole) 8, 4, 2, 1;
    up to one 4 KiB packet 1; below 1 MiB 2, 1; else 4, 2, 1; on a line above 4,000,000 B 8, 4, 2, 1; up to
    4 KiB 1; below 500,000 B 2, 1; else 4, 2, 1.  The first whose ``links * 2 * (1 mux + W)`` cores fit the grid.

    Raises:
        CBModelError: not even the last candidate fits (tt-metal TT_THROW "Not enough cores available").
    """
    moved = input_bytes * (n - 1) / n / links / (2 if topology == "Ring" else 1)
    if topology == "Ring":
        high = 1.0 * 1024 * 1024 if ctx.arch.name == "blackhole" else 50.0 * 1024 * 1024
        low = 1.0 * 1024 * 1024
    else:
        high, low = 4_000_000.0, 500_000.0
    if moved > high:
        candidates = (8, 4, 2, 1)
    elif moved <= 4.0 * 1024:
        candidates = (1,)
    elif moved < low:
        candidates = (2, 1)
    else:
        candidates = (4, 2, 1)
    grid_cores = ctx.grid[0] * ctx.grid[1]
    for w in candidates:
        if links * 2 * (1 + w) <= grid_cores:
            return w
    raise CBModelError(f"{links} link(s) of reduce_scatter do not fit the {ctx.grid[0]}x{ctx.grid[1]} grid "
                       "(TT_THROW 'Not enough cores available')")


def usable_topology(fab: Fabric) -> Fabric:
    """The topology tt-metal runs (``ccl::get_usable_topology`` / ``get_axis_topology``, ccl_common.cpp): the op's
    ``topology`` (else the fabric's, :func:`fabric_of`); a ring is kept only on an axis that is wrap-wired
    (``is_axis_wrap_wired``): never on a 2-device axis ("it would close on the link it already uses"), and
    on a longer one only when its cabling closes the ring, which the IR does not say (the compiler asked for a
    ring: assumed, and noted)."""
    if fab.topology != "Ring":
        return fab
    if fab.n == 2:
        return Fabric("Linear", fab.links, fab.n, fab.notes + [
            "the op asks for a ring, but a 2-device axis never wraps (is_axis_wrap_wired): tt-metal runs the line"])
    return Fabric("Ring", fab.links, fab.n, fab.notes + [
        "ring as the op asks: tt-metal keeps it when the axis's cabling wraps around (is_axis_wrap_wired, not in "
        "the IR), else it runs the line program"])


def doubt_assumed_line(ctx: CBContext, prog: ProgramModel, x: Tensor, dim: int, fab: Fabric,
                       fp32_dest_acc: bool) -> None:
    """A line reduce-scatter taken because the IR gives no topology, on an axis of more than 2 devices, may run as
    a ring on a ring-cabled mesh (:func:`fabric_of`), whose CBs are smaller (5 x 2g against 4 x 3g pages): a
    refusal of the line's CBs then does not hold for every fabric, and the model says so
    (``params["refusal_unsure"]``, which makes TTA010 a warning).  The CB bytes per worker do not depend on the
    link count (only the number of workers does), so the assumed single link raises no such doubt."""
    if not (fab.assumed and fab.topology == "Linear" and fab.n > 2 and fab.n % 2 == 0):
        return
    ring = reduce_scatter_steps(ctx, x, dim, Fabric("Ring", fab.links, fab.n, []), fp32_dest_acc=fp32_dest_acc)
    if ring.per_core_bytes() < prog.per_core_bytes():
        prog.params["refusal_unsure"] = (
            "the IR gives no topology: on a mesh cabled as a ring tt-metal runs the ring program, whose CBs take "
            f"{ring.per_core_bytes():,} B per worker against the line's {prog.per_core_bytes():,} B")


def reduce_scatter_steps(ctx: CBContext, x: Tensor, dim: int, fab: Fabric, out: Tensor | None = None,
                         fp32_dest_acc: bool = False) -> ProgramModel:
    """The reduce-scatter program of ``x`` over ``fab.n`` devices along ``dim`` (``ttnn::reduce_scatter``:
    :func:`reduce_scatter_program`), on a line or a ring (``fab.topology``).  ``out`` is the scattered tensor
    (the IR result, or a step's tensor in a composite); ``fp32_dest_acc`` the compute kernel's
    ``fp32_dest_acc_en`` (:func:`rs_fp32_dest_acc`).

    Raises:
        CBModelError: a row-major or sharded input, a scattered dim that does not split into whole tiles
            (composite paths), an odd ring (TT_FATAL in the ring program, or the line where the axis does not
            wrap: not settled).
    """
    op = ctx.op
    if not x.tiled:
        raise CBModelError(f"{op.name} of a row-major tensor takes the composite path, not modeled")
    _interleaved(op, x)
    if dim >= x.rank - 2 and (x.shape[dim] // fab.n) % 32:
        raise CBModelError(f"{op.name}: dim {dim} ({x.shape[dim]}) does not split into whole tiles over {fab.n} "
                           "devices: composite path, not modeled")
    ring = fab.topology == "Ring"
    if ring and fab.n % 2:
        raise CBModelError(f"{op.name} on a ring of {fab.n} devices: the ring program refuses an odd ring size "
                           "(TT_FATAL), the line runs where the axis does not wrap: not settled, not modeled")
    page = x.tile_bytes
    max_dst = 4 if fp32_dest_acc else 8
    input_bytes = num_pages(x) * page
    workers = rs_workers(ctx, fab.topology, input_bytes, fab.n, fab.links)
    mux = 0 if ring and workers == 1 else 1
    if ring:
        # build_ring_reduce_scatter_program_impl: up to 4 scatter-write pages per max-size packet payload
        per_packet = min(4, PACKET_PAYLOAD_BYTES // page)
        granularity = min(4 * per_packet, max_dst)
        depth, names = 2, ("input", "intermediate", "intermediate_2", "reader_output", "compute_output")
    else:
        # build_line_reduce_scatter_program_impl: pages per channel buffer (payload + header)
        granularity = min(4 * (CHANNEL_BUFFER_BYTES // page), max_dst)
        depth, names = 3, ("input", "intermediate", "reader_output", "compute_output")
    cores = row_major_cores(ctx.grid, fab.links * 2 * (mux + workers))
    worker_set = core_set([c for i, c in enumerate(cores) if i % (mux + workers) >= mux])
    cbs = [CB(i, name, page, depth * granularity, worker_set) for i, name in enumerate(names)]
    # compute_output_specs: a line doubles dim 0 of the DRAM interleaved intermediate, a ring keeps the input's shape
    inter_shape = (x.shape[0] * 2, *x.shape[1:]) if not ring else tuple(x.shape)
    inter = x.with_(shape=inter_shape)
    inter_bytes = inter.physical_volume // 1024 * page
    kind = "ring" if ring else "line"
    notes = list(fab.notes) + [
        f"{kind}: {fab.links} link(s) x 2 directions x {workers} worker(s)"
        + (" + 1 fabric-mux core per direction (its channel buffers are the mux kernel's own L1)" if mux else
           ", no fabric-mux core (one worker per direction talks to the fabric itself)"),
        f"{len(names)} CBs of {depth} x {granularity} tiles (tile granularity: "
        + (f"min(4 x {per_packet} tiles per {PACKET_PAYLOAD_BYTES:,}-B packet payload, " if ring else
           f"min(4 x {CHANNEL_BUFFER_BYTES // page} tiles per {CHANNEL_BUFFER_BYTES:,}-B fabric channel buffer, ")
        + f"{max_dst} dest tiles{' with fp32_dest_acc_en' if fp32_dest_acc else ''}))",
        f"the op allocates a DRAM interleaved intermediate {'x'.join(map(str, inter_shape))} ({inter_bytes:,} B) "
        "beside its output, freed when it returns",
        MEASURED_LINE if not ring else MEASURED_RING]
    prog = ProgramModel(f"ReduceScatterDeviceOperation::ReduceScatterProgram ({kind})", RS_SOURCE, core_set(cores),
                        cbs, notes, params={"ring_size": fab.n, "num_links": fab.links, "topology": kind})
    prog.device_buffers = (DeviceBuffer("dram", inter_bytes, page, False,
                                        f"the {'x'.join(map(str, inter_shape))} intermediate tensor of reduce_scatter"),
                           ) + global_semaphores(ctx, 4, "reduce_scatter")
    if out is not None:
        prog.inputs, prog.outputs = (x,), (out,)
    return prog


DIRECT_RS_MAX_INPUT_BYTES = 512 << 10  # reduce_scatter.cpp k_direct_rs_max_input_bytes


def reduce_scatter_program(ctx: CBContext) -> ProgramModel | list[ProgramModel]:
    """``ttnn::reduce_scatter`` (ttnn 0.81.1): ``ReduceScatterDeviceOperation``, whose program is the line or the
    ring reduce-scatter of ``reduce_scatter_minimal_async`` (``ReduceScatterProgram::create_at``).

    * Topology (:func:`usable_topology`): the op's ``topology`` (tt-mlir's runtime passes it when the IR has one), else
      the fabric's (a line assumed, :func:`fabric_of`); a ring only on an axis of more than 2 devices.
    * Composite path (:func:`uses_composite_reduce_scatter`, checked first): a row-major input, or a scattered dim
      that does not split into whole tiles, runs :func:`composite_reduce_scatter_steps`.
    * Direct path: a ring without a ``compute_config`` whose input is at most 512 KiB may take
      ``reduce_scatter_minimal_direct`` (``use_direct_reduce_scatter``): not modeled.
    * Cores (:func:`rs_workers`): per link, 2 directions of ``W`` workers, each direction led by one fabric-mux
      core (none on a ring with one worker per direction), the first cores in row-major order.
    * CBs on the workers, ``g`` the tile granularity (``max_dst`` = 4 dest tiles with ``fp32_dest_acc_en``, else
      8): a line has ``c_0`` input, ``c_1`` intermediate, ``c_2`` reader output, ``c_3`` compute output, each
      ``3 * g`` tiles, ``g = min(4 * (4400 // tile), max_dst)``; a ring has ``c_0`` input, ``c_1`` and ``c_2``
      intermediates, ``c_3`` reader output, ``c_4`` compute output, each ``2 * g`` tiles,
      ``g = min(4 * min(4, 4352 // tile), max_dst)``.
    * A DRAM interleaved intermediate tensor of the input's shape (a line doubles dim 0; ``compute_output_specs``),
      allocated after the output and freed when the op returns (a device buffer of the program, which the
      allocator replay places).

    Raises:
        CBModelError: see :func:`reduce_scatter_steps`, the direct path, or no mesh known.
    """
    op = ctx.op
    fab = usable_topology(fabric_of(op, honours_num_links=True))
    x = operand(ctx, 0)
    dim = norm_dim(int_attr(op, "scatter_dim"), x.rank, op)
    fp32 = rs_fp32_dest_acc(op, x)
    if uses_composite_reduce_scatter(x, dim, fab.n):
        return composite_reduce_scatter_steps(ctx, x, dim, fab, result(ctx), fp32)
    if (fab.topology == "Ring" and op.attrs.get("compute_config") is None
            and num_pages(x) * page_bytes(x) <= DIRECT_RS_MAX_INPUT_BYTES):
        raise CBModelError(f"{op.name}: a ring reduce-scatter of at most 512 KiB without a compute_config takes "
                           "reduce_scatter_minimal_direct (use_direct_reduce_scatter), not modeled")
    prog = reduce_scatter_steps(ctx, x, dim, fab, fp32_dest_acc=fp32)
    doubt_assumed_line(ctx, prog, x, dim, fab, fp32)
    return prog


CRS_SOURCE = ("tt-metal experimental/ccl/composite_common.cpp use_composite_reduce_scatter / composite_reduce_scatter "
              "(@00d062bc, called by ccl/reduce_scatter/reduce_scatter.cpp at d80d9482 before the direct path): split, "
              "tilize a row-major piece, pad each piece to whole tiles, concat, the native reduce-scatter, slice (or "
              "untilize_with_unpadding); the sequence of programs, with the block-float typecasts around it, measured "
              "on the 1x2 mock mesh")


def normalize_dim_4d(dim: int, rank: int) -> int:
    """``composite_common::normalize_dim_4d``: ``dim`` of a rank-``rank`` tensor as a dim of its 4D form."""
    if rank == 2:
        return 2 + dim
    diff = rank - 4
    return dim if dim < abs(diff) else dim - diff


def uses_composite_reduce_scatter(x: Tensor, dim: int, n: int) -> bool:
    """``use_composite_reduce_scatter``: the dim splits evenly over the ``n`` devices, and the tensor is row-major or
    its scattered dim (dim 2 or 3 of the 4D form) does not split into whole tiles."""
    if x.shape[dim] % n:
        return False
    if not x.tiled:
        return True
    return normalize_dim_4d(dim, x.rank) in (2, 3) and (x.shape[dim] // n) % TILE != 0


def composite_reduce_scatter_steps(ctx: CBContext, x: Tensor, dim: int, fab: Fabric, out: Tensor,
                                   fp32_dest_acc: bool) -> list[ProgramModel]:
    """The composite reduce-scatter ttnn 0.81.1 runs (:data:`CRS_SOURCE`), each step the program model of its op:

    * a block-float input is typecast to bfloat16 (its pad has no block-float path) and the result back;
    * ``ttnn::split`` into ``n`` pieces along ``dim``: a slice each (:func:`ttanalyze.ops.data_movement._slice_steps`:
      an unaligned piece untilizes, slices row-major and tilizes back);
    * a row-major piece is tilized (``tilize_with_zero_padding``: tilize_with_val_padding);
    * ``ttnn::pad`` of each piece to whole tiles on its last two dims (fill_pad);
    * ``ttnn::concat`` of the padded pieces along ``dim``;
    * the native reduce-scatter of that tensor (:func:`reduce_scatter_steps`);
    * ``ttnn::slice`` back to the output's shape (row-major: ``untilize_with_unpadding``).

    The intermediates live in the input's memory config.

    Raises:
        CBModelError: a sharded tensor (the composite's to_memory_config hops), or a step a model does not cover.
    """
    op = ctx.op
    _interleaved(op, x, out)
    n = fab.n
    steps: list[ProgramModel] = []
    widen = x.tiled and x.dtype.is_block_float
    src = x.with_(dtype=DataType("bf16")) if widen else x
    if widen:
        steps.append(_typecast(ctx, x, src))
    k = x.shape[dim] // n
    piece_shape = tuple(k if i == dim else s for i, s in enumerate(x.shape))
    pieces = []
    for i in range(n):
        dims = [(i * k, (i + 1) * k, 1, k) if j == dim else (0, s, 1, s) for j, s in enumerate(x.shape)]
        piece = src.with_(shape=piece_shape)
        steps += _io(DM._slice_steps(src, dims, piece, ctx), (src,), piece)
        pieces.append(piece)
    if not src.tiled:
        tiled = []
        for piece in pieces:
            t = piece.with_(layout="tile")
            steps.append(DM._layout_program(LC.twvp_program, piece, t, ctx))
            tiled.append(t)
        pieces = tiled
    padded = []
    for piece in pieces:
        full = piece.with_(shape=piece.shape[:-2] + tuple(piece.padded[-2:]) if piece.rank > 1
                           else tuple(piece.padded))
        padding = [(0, f - s) for s, f in zip(piece.shape, full.shape)]
        steps += _io(DM._pad_steps(piece, padding, True, full, ctx), (piece,), full)
        padded.append(full)
    cat_shape = tuple(s * n if i == dim else s for i, s in enumerate(padded[0].shape))
    cat = padded[0].with_(shape=cat_shape)
    steps += _io(DM._concat_steps(padded, dim, cat, ctx), padded, cat)
    rs_out = cat.with_(shape=tuple(s // n if i == dim else s for i, s in enumerate(cat_shape)))
    rs = reduce_scatter_steps(ctx, cat, dim, fab, rs_out, fp32_dest_acc=fp32_dest_acc)
    steps.append(rs)
    final = out.with_(dtype=src.dtype) if widen else out
    if x.tiled:
        dims = [(0, s, 1, s) for s in final.shape]
        steps += _io(DM._slice_steps(rs_out, dims, final, ctx), (rs_out,), final)
    else:
        steps.append(DM._layout_program(LC.uwu_program, rs_out, final, ctx))
    if widen:
        steps.append(_typecast(ctx, final, out))
    steps[0].notes.append(
        f"scatter dim {dim} ({x.shape[dim]} over {n} devices: {k} per device) "
        + ("of a row-major tensor" if not x.tiled else "does not split into whole tiles")
        + ": ttnn takes the composite reduce_scatter (use_composite_reduce_scatter): "
        + ("typecast to bf16, " if widen else "") + f"split into {n} pieces, "
        + ("tilize, " if not x.tiled else "") + f"pad each to whole tiles, concat, reduce-scatter "
        f"{'x'.join(map(str, cat_shape))}, " + ("slice" if x.tiled else "untilize_with_unpadding")
        + (", typecast back" if widen else ""))
    for p in steps:
        p.notes.append("a step of the composite reduce_scatter (composite_common.cpp); steps measured on the 1x2 mock "
                       "mesh (measurements/ccl)")
    return steps


# ---------------------------------------------------------------------------------------------------------------
# all_reduce / all_reduce_async

AR_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/ccl/all_reduce/all_reduce.cpp (d80d9482) and experimental/ccl/"
             "all_reduce_async/all_reduce_async.cpp @00d062bc (the cluster-axis overload: finding_scatter_dim, the "
             "composite gate, ttnn::reduce_scatter then ttnn::all_gather when no semaphores are passed; its error "
             "strings are in the 0.81.1 binary), the reduce-scatter and all-gather programs as modeled here, from source")


def finding_scatter_dim(x: Tensor, n: int) -> int:
    """``finding_scatter_dim`` (all_reduce_async.cpp): the last dim of the padded shape, counted in tiles for the
    last two dims of a TILE tensor, that ``n`` divides; the rank when none does."""
    dims = list(x.padded)
    if x.tiled:
        dims[-1] //= 32
        dims[-2] //= 32
    for d in range(len(dims) - 1, -1, -1):
        if dims[d] % n == 0:
            return d
    return len(dims)


def all_reduce_program(ctx: CBContext) -> list[ProgramModel]:
    """``ttnn.all_reduce`` and ``ttnn.all_reduce_async`` (ttnn 0.81.1): tt-mlir's runtime calls ``ttnn::all_reduce``
    (``runtime/lib/ttnn/operations/ccl/all_reduce.cpp`` @19c86fca) or ``ttnn::experimental::all_reduce_async``
    without semaphores (``all_reduce_async.cpp``); both run the cluster-axis ``all_reduce_async``:

    * the topology as ``get_usable_topology`` resolves it (:func:`usable_topology`), the op's ``num_links`` (else 1
      assumed), the output memory config the op's (``all_reduce``) or the input's (``all_reduce_async``: tt-mlir's
      overload drops it);
    * the scatter dim :func:`finding_scatter_dim`; with none, a row-major input, or a dim whose reduce-scatter or
      all-gather takes the composite path, the all-gather + local ``moreh_sum`` composite runs
      (:func:`all_reduce_composite_steps`); a sharded input first runs sharded_to_interleaved (not modeled);
    * else, without semaphores, ``ttnn::reduce_scatter`` of the input along that dim (no compute config: ``fp32_dest_acc``
      for float32 only; a ring of at most 512 KiB takes the direct path, not modeled) into a ``1/n`` tensor, then
      ``ttnn::all_gather`` of it back along the same dim: the two programs of :func:`reduce_scatter_steps` and
      :func:`all_gather_program_of`.

    Raises:
        CBModelError: the paths above that are not modeled, or no mesh known.
    """
    op = ctx.op
    x, out = operand(ctx, 0), result(ctx)
    fab = usable_topology(fabric_of(op, honours_num_links=True))
    if x.sharded:
        raise CBModelError(f"{op.name} of a sharded input first runs sharded_to_interleaved: not modeled")
    dim = finding_scatter_dim(x, fab.n)
    why = None
    if not x.tiled:
        why = "a row-major tensor"
    elif dim == x.rank:
        why = f"no dim of {'x'.join(map(str, x.padded))} splits over {fab.n} devices (finding_scatter_dim)"
    elif uses_composite_reduce_scatter(x, dim, fab.n):
        why = f"dim {dim} ({x.shape[dim]}) does not scatter into whole tiles over {fab.n} devices"
    elif x.shape[dim] != x.padded[dim]:
        why = f"scatter dim {dim} is tile-padded ({x.shape[dim]} -> {x.padded[dim]})"
    if why is not None:
        return all_reduce_composite_steps(ctx, x, out, fab, why)
    if fab.topology == "Ring" and num_pages(x) * page_bytes(x) <= DIRECT_RS_MAX_INPUT_BYTES:
        raise CBModelError(f"{op.name}: its ring reduce-scatter of at most 512 KiB (no compute_config) takes "
                           "reduce_scatter_minimal_direct (use_direct_reduce_scatter), not modeled")
    mem_from = out if op.name == "ttnn.all_reduce" else x
    scattered = mem_from.with_(shape=tuple(s // fab.n if i == dim else s for i, s in enumerate(x.shape)),
                               dtype=x.dtype, layout=x.layout)
    rs = reduce_scatter_steps(ctx, x, dim, fab, scattered, fp32_dest_acc=x.dtype.name == "f32")
    doubt_assumed_line(ctx, rs, x, dim, fab, x.dtype.name == "f32")
    ag = all_gather_program_of(ctx, scattered, out, dim, fab)
    for p, step in ((rs, "reduce-scatter"), (ag, "all-gather")):
        p.notes.append(f"{op.name} = ttnn::reduce_scatter then ttnn::all_gather along dim {dim} (all_reduce_async "
                       f"without semaphores); this is its {step} step")
    return [rs, ag]


MOREH_SUM_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/moreh/moreh_sum/device/moreh_sum_nc_program_factory.cpp "
                    "(d80d9482, in the 0.81.1 wheel: dataflow buffers input 2, zero 1, out 2 tiles of the output's "
                    "format; split_work_to_cores over the output tiles)")


def moreh_sum_nc_program(ctx: CBContext, x: Tensor, out: Tensor) -> ProgramModel:
    """``ttnn::moreh_sum`` of the TILE tensor ``x`` over a dim above the last two (``MorehSumNCFactory``,
    :data:`MOREH_SUM_SOURCE`): the output's tiles split over the grid (``split_work_to_cores``), each core with CBs
    of 2 input tiles, 1 zero tile and 2 output tiles (the output's tile size)."""
    from .work_split import split_work_to_cores

    tiles = out.physical_volume // (TILE * TILE)
    split = split_work_to_cores(ctx.grid, tiles)
    cores = split.all_cores
    tile = out.tile_bytes
    return ProgramModel("MorehSumOperation::MorehSumNCFactory", MOREH_SUM_SOURCE, cores,
                        [CB(0, "input", tile, 2, cores), CB(1, "zero", tile, 1, cores), CB(2, "out", tile, 2, cores)],
                        [f"{tiles} output tile(s) on {split.num_cores} core(s)"], inputs=(x,), outputs=(out,))


def all_reduce_composite_steps(ctx: CBContext, x: Tensor, out: Tensor, fab: Fabric, why: str) -> list[ProgramModel]:
    """The all-gather + local-sum composite of ``all_reduce_async`` (:data:`AR_SOURCE`), each step the program model
    of its op:

    * the input viewed as ``[1, *shape]`` (a reshape that keeps the last two dims: no program);
    * the composite all-gather of that along dim 0 (:func:`composite_all_gather_steps`: all_broadcast, concat) into
      ``[n, *shape]``;
    * ``local_sum``: a row-major tensor is tilized (``to_layout``), a block-float one typecast to bfloat16,
      ``moreh_sum`` over dim 0 (:func:`moreh_sum_nc_program`), then typecast and untilized back;
    * the ``[1, *shape]`` sum viewed back as the output's shape.

    Raises:
        CBModelError: a float32 input (``local_sum_float32``: reshape, transpose, sum: not modeled), or a step the
            models do not cover.
    """
    op = ctx.op
    if x.dtype.name == "f32":
        raise CBModelError(f"{op.name}: {why}: the all-gather + local-sum composite of a float32 tensor sums with "
                           "local_sum_float32 (reshape, transpose, ttnn::sum), not modeled")
    n = fab.n
    x1 = x.with_(shape=(1,) + tuple(x.shape))
    mem_from = out if op.name == "ttnn.all_reduce" else x
    gathered = x1.with_(shape=(n,) + tuple(x.shape))
    steps = composite_all_gather_steps(ctx, x1, gathered, 0, fab, reason=why)
    t = gathered
    if not t.tiled:
        tiled = t.with_(layout="tile")
        steps += DM._to_tile(t, tiled, ctx)
        t = tiled
    wide = t.with_(dtype=DataType("bf16")) if t.dtype.is_block_float else t
    if wide is not t:
        steps.append(_typecast(ctx, t, wide))
    summed = wide.with_(shape=(1,) + tuple(x.shape), mem=mem_from.mem)
    steps.append(moreh_sum_nc_program(ctx, wide, summed))
    if wide is not t:
        back = summed.with_(dtype=t.dtype)
        steps.append(_typecast(ctx, summed, back))
        summed = back
    if not x.tiled:
        steps += DM._to_row_major(summed, summed, ctx)
    steps[0].notes.insert(0, f"{op.name}: {why}: all_reduce_async takes the all-gather + local moreh_sum composite")
    return steps


# ---------------------------------------------------------------------------------------------------------------
# point_to_point

P2P_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/point_to_point/device/host/point_to_point_device_op.cpp "
              "(compute_aligned_packet_dims, compute_output_specs: the intermediate) and send_program_factory.cpp / "
              "receive_program_factory.cpp @2ed8bc3c (their kernels' compile-time arguments match the 0.81.1 wheel's, "
              "their TT_FATAL strings are in its binary), from source")


def p2p_packet_dims(t: Tensor) -> tuple[int, int, int, int]:
    """``compute_aligned_packet_dims``: (packet bytes, pages per packet, segments per page, packets) of sending
    ``t``'s pages.  A packet holds at most a fabric channel buffer (4,400 B; bf16 rounds it down to a power of two,
    4,096 B); pages round up to the 16-B L1 alignment and pack whole into packets, or a page larger than a packet
    splits into segments."""
    max_packet = CHANNEL_BUFFER_BYTES
    if t.dtype.name == "bf16":
        max_packet = 1 << (max_packet.bit_length() - 1)
    pages = num_pages(t)
    page = aligned(page_bytes(t), t.l1_alignment)
    if page <= max_packet:
        per = min(max_packet // page, pages)
        return page * per, per, 1, -(-pages // per)
    segments = -(-page // max_packet)
    return max_packet, 1, segments, segments * pages


def point_to_point_program(ctx: CBContext) -> ProgramModel:
    """``ttnn.point_to_point``: tt-mlir's runtime calls ``ttnn::point_to_point`` with ``Topology::Linear``
    (``runtime/lib/ttnn/operations/ccl/point_to_point.cpp`` @19c86fca): ``PointToPointOp::SendReceive``, a send
    program on the sender device and a receive program on the receiver, one core each (0,0) (``use_cores = {1, 1}``);
    the model is the program of the device with the most CB bytes per core (the receiver's but for one-page
    packets), the other named in its notes.

    * Packets (:func:`p2p_packet_dims`): ``P`` bytes, ``k`` pages each.
    * Send CBs: ``c_0`` 2 input pages (16-B aligned), ``c_1`` 2 x 2 packet headers of 48 B, ``c_2`` one packet.
    * Receive CBs: ``c_0`` 2 x 2 packet headers, ``c_1`` one packet, ``c_2`` ``3 k`` output pages.
    * An intermediate tensor ``[packets, P / element bytes]`` in the input's layout and memory config (the receive
      buffer the sender writes into), allocated on every device with the output and freed when the op returns.

    Raises:
        CBModelError: a sharded tensor (TT_FATAL "does not yet support sharded configs"), a block-float input (no
            element size for the intermediate's shape), no mesh known.
    """
    op = ctx.op
    x, out = operand(ctx, 0), result(ctx)
    if op_mesh(op) is None:
        raise CBModelError(f"{op.name}: no mesh (ttnn.get_device mesh_shape) for the collective")
    if x.sharded or out.sharded:
        raise CBModelError(f"{op.name} of a sharded tensor: tt-metal TT_FATAL 'Point to point does not yet support "
                           "sharded configs'")
    packet, per, segments, packets = p2p_packet_dims(x)
    inter = x.with_(shape=(packets, packet // x.element_bytes))
    inter_bytes = num_pages(inter) * page_bytes(inter)
    core = core_set([(0, 0)])
    header = PACKET_HEADER_1D_BYTES
    notes = [f"{num_pages(x)} pages in {packets} packet(s) of {packet:,} B ({per} page(s) each"
             + (f", {segments} segments per page" if segments > 1 else "") + ")",
             f"the op allocates an intermediate {packets}x{packet // x.element_bytes} {x.layout} tensor "
             f"({inter_bytes:,} B, {x.buffer_type}) on every device, freed when it returns",
             MEASURED_LINE]
    send = ProgramModel("PointToPointOp::SendReceive (send)", P2P_SOURCE, core, [
        CB(0, "sender", aligned(page_bytes(x), x.l1_alignment), 2, core),
        CB(1, "packet_header", header, 4, core),
        CB(2, "packet", packet, 1, core)], list(notes), inputs=(x,), outputs=(out,),
        params={"ring_size": 2, "num_links": 1})
    receive = ProgramModel("PointToPointOp::SendReceive (receive)", P2P_SOURCE, core, [
        CB(0, "packet_header", header, 4, core),
        CB(1, "packet", packet, 1, core),
        CB(2, "receiver", page_bytes(out), 3 * per, core)], list(notes), inputs=(x,), outputs=(out,),
        params={"ring_size": 2, "num_links": 1})
    sender, receiver = (str(op.attrs.get(k, op.raw_attrs.get(k, "?"))) for k in ("sender_coord", "receiver_coord"))
    prog, other, role = ((receive, send, f"receiver {receiver}") if receive.per_core_bytes() >= send.per_core_bytes()
                         else (send, receive, f"sender {sender}"))
    prog.notes.append(f"the {role}'s program (the device with the most CB bytes per core); the other device runs "
                      f"{other.factory.split(' ')[-1]} with {other.per_core_bytes():,} B of CBs on core (0,0); "
                      "the other devices of the mesh run nothing but hold the intermediate")
    prog.device_buffers = (DeviceBuffer(x.buffer_type, inter_bytes, page_bytes(inter), False,
                                        "the point_to_point intermediate (receive buffer) tensor"),
                           ) + global_semaphores(ctx, 1, "point_to_point")
    return prog
