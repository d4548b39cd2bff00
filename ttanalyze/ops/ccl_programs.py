"""Program models of the collectives (CCL ops): the cores each device runs, their CBs, the buffers they allocate.

Every device of the mesh runs the same program on its own shard (one program per mesh coordinate, built by
``create_at``; the end devices of a line differ in their kernels' runtime arguments, not in their cores or
CBs), so the figures are per device and hold on each device of the mesh.  None of these ops can run on the
single-chip mock (they need the fabric): the models follow the source, and every finding built on them
says "from source".

What the IR does not say, and the models assume (each noted on the program):

* the fabric: tt-mlir's runtime opens ``FABRIC_1D`` (a line, ``Topology::Linear``) unless every line of the
  mesh's cabling wraps around (``FABRIC_1D_RING``; tt-mlir ``runtime/lib/common/mesh_fabric_config.cpp``
  @19c86fca); the cabling is not in the IR, so a line is assumed unless the op's ``topology`` says ring;
* the fabric packet: ``FabricEriscDatamoverBuilder::default_packet_payload_size_bytes`` = 4 Bfp8_b tiles
  = 4,352 B of payload, plus a 64-B 1D packet header (``FabricContext``, 1D routing of up to 32 hops) =
  a 4,416-B channel buffer (``get_tt_fabric_channel_buffer_size_bytes``);
* the links: ``get_num_links`` counts the routing planes of the machine's ethernet cabling (not in the IR):
  the op's ``num_links`` where the entry point honours it, else 1.

Sources: ttnn 0.81.1 (tt-metal d80d9482) ships the sources of ``ttnn::all_gather``
(``ttnn/cpp/ttnn/operations/ccl/all_gather/``: the entry point, the device operation and both factories)
and of ``ttnn::reduce_scatter`` / ``ttnn::all_reduce`` (``ccl/reduce_scatter/``, ``ccl/all_reduce/``),
read there; the reduce-scatter program (``experimental/ccl/reduce_scatter_minimal_async/device/
line_reduce_scatter_minimal_async_program.cpp``, ``reduce_scatter_minimal_async_program_common.cpp``) is not
in the wheel and follows the stored tt-metal source (commits 2b31743a and the common file's stored version;
their CB sizing matches every stored version of the line program).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.attrs import CoreRangeSet
from ..mesh import Mesh, op_mesh
from .cb import CB, CBContext, CBModelError, DeviceBuffer, ProgramModel, core_range, cores_set
from .registry import int_attr, norm_dim
from .tensors import Tensor, operand, result

PACKET_PAYLOAD_BYTES = 4 * 1088  # default_packet_payload_size_bytes = tile_size(Bfp8_b) * 4
PACKET_HEADER_1D_BYTES = 64  # 1D routing, max 32 hops ("32 hops (64B header)")
CHANNEL_BUFFER_BYTES = PACKET_PAYLOAD_BYTES + PACKET_HEADER_1D_BYTES

_AG = "tt-metal ttnn/cpp/ttnn/operations/ccl/all_gather/device/"
AG_SOURCE = (f"{_AG}all_gather_device_operation.cpp (select_program_factory), all_gather_multicast_factory.cpp / "
             "all_gather_unicast_factory.cpp (create_at), ccl/all_gather/all_gather.cpp (use_composite_all_gather); "
             "ttnn 0.81.1 = d80d9482, from source")
RS_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/ccl/reduce_scatter/reduce_scatter.cpp and device/"
             "reduce_scatter_device_operation.cpp (d80d9482: the DRAM intermediate), experimental/ccl/"
             "reduce_scatter_minimal_async/device/line_reduce_scatter_minimal_async_program.cpp @2b31743a (CBs, cores) "
             "and reduce_scatter_minimal_async_program_common.cpp (default_workers), from source")


@dataclass
class Fabric:
    """What the models assume of the fabric for one op (module docstring): ``topology`` ``Linear`` or
    ``Ring``, ``links`` per direction, the devices ``n`` on the op's axis, and the ``notes`` saying so."""

    topology: str
    links: int
    n: int
    notes: list[str] = field(default_factory=list)


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
    if "ring" in text:
        topology = "Ring"
    elif "linear" in text:
        topology = "Linear"
    else:
        topology = "Linear"
        notes.append("fabric assumed FABRIC_1D (a line): tt-mlir's runtime opens a ring only when the cabling "
                     "wraps around, which the IR does not say")
    links = op.attrs.get("num_links") if honours_num_links else None
    if isinstance(links, int) and not isinstance(links, bool) and links > 0:
        notes.append(f"{links} link(s), the op's num_links")
    else:
        links = 1
        notes.append("1 fabric link assumed (get_num_links counts the machine's routing planes, not in the IR"
                     + ("" if honours_num_links else "; ttnn 0.81.1's all_gather ignores the deprecated num_links")
                     + ")")
    return Fabric(topology, links, n, notes)


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


def all_gather_program(ctx: CBContext) -> ProgramModel:
    """``ttnn::all_gather`` (ttnn 0.81.1): ``AllGatherDeviceOperation`` with its multicast or unicast factory.

    * Path: a gather dim whose logical size is tile-padded takes the composite all-gather (not modeled:
      :class:`CBModelError`); so do sharded tensors here (their page-ratio rules).
    * Factory (``select_program_factory``): Wormhole takes unicast on a ring with at least 64 input pages
      (20 when a page is 4,096 B or more), else multicast; Blackhole takes unicast once the bytes per link,
      ``input bytes * N / links``, reach ``min(4e6, txn^2 * 1e6 / 2048^2)`` with ``txn`` the smaller of the
      input and output pages, else multicast.
    * Cores: multicast, one worker per link; unicast, per link 2 directions of ``W`` workers plus, when
      ``W > 1``, one fabric-mux core per direction (Wormhole ``W = 2``; Blackhole 1, 2, 8 or 12 by bytes per
      link and page size), the first cores in row-major order (:func:`row_major_cores`).
    * CB ``c_0`` on the workers: 3 pages of ``aligned input page * max(1, 4352 // aligned input page)``,
      for TILE times ``clamp(max_l1_space // (3 * that), 1, 3 on Wormhole / 4 on Blackhole)``.
    * Two global semaphores in L1_SMALL on the worker grid (16 B per core each), not in the CB region.

    Raises:
        CBModelError: see above, or no mesh known.
    """
    op = ctx.op
    x = operand(ctx, 0)
    return all_gather_program_of(ctx, x, result(ctx), norm_dim(int_attr(op, "all_gather_dim"), x.rank, op),
                                 fabric_of(op, honours_num_links=False))


def all_gather_program_of(ctx: CBContext, x: Tensor, out: Tensor, d: int, fab: Fabric) -> ProgramModel:
    """The all-gather program of ``x`` into ``out`` along dim ``d`` (:func:`all_gather_program`), for the op of
    ``ctx`` or a step of a composite (a distributed norm's statistics).

    Raises:
        CBModelError: see :func:`all_gather_program`.
    """
    op = ctx.op
    _interleaved(op, x, out)
    if x.shape[d] != x.padded[d]:
        raise CBModelError(f"gather dim {d} is padded from {x.shape[d]} to {x.padded[d]}: ttnn takes the composite "
                           "all_gather, not modeled")
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
    notes.append("from source: the collectives cannot run on the single-chip mock")
    return ProgramModel(factory, AG_SOURCE, core_set(cores), [CB(0, "input_relay", cb_page, 3, workers_set)], notes,
                        inputs=(x,), outputs=(out,), params={"ring_size": fab.n, "num_links": fab.links})


def _rs_workers(grid: tuple[int, int], links: int) -> int:
    """``default_workers`` of the reduce-scatter programs: the first of 8, 4, 2, 1 workers per direction whose
    ``links * 2 * (1 + workers)`` cores fit the grid (the byte thresholds it compares are written in MB but
    compared with bytes, so any tensor above 4 bytes asks for 8)."""
    for w in (8, 4, 2, 1):
        if links * 2 * (1 + w) <= grid[0] * grid[1]:
            return w
    raise CBModelError(f"{links} link(s) of reduce_scatter do not fit the {grid[0]}x{grid[1]} grid")


def reduce_scatter_steps(ctx: CBContext, x: Tensor, dim: int, fab: Fabric, out: Tensor | None = None
                         ) -> ProgramModel:
    """The line reduce-scatter program of ``x`` over ``fab.n`` devices along ``dim`` (``ttnn::reduce_scatter``
    with ``Topology::Linear``; see :func:`reduce_scatter_program`).  ``out`` is the scattered tensor (the IR
    result, or a step's tensor in a composite).

    Raises:
        CBModelError: a ring (its direct and ring programs are not modeled), a row-major or sharded input, or
            a scattered dim that does not split into whole tiles (composite paths).
    """
    op = ctx.op
    if fab.topology != "Linear":
        raise CBModelError(f"{op.name} on a ring: the ring and direct reduce-scatter programs are not modeled")
    if not x.tiled:
        raise CBModelError(f"{op.name} of a row-major tensor takes the composite path, not modeled")
    _interleaved(op, x)
    if dim >= x.rank - 2 and (x.padded[dim] // fab.n) % 32:
        raise CBModelError(f"{op.name}: dim {dim} ({x.padded[dim]}) does not split into whole tiles over {fab.n} "
                           "devices: composite path, not modeled")
    page = x.tile_bytes
    per_packet = CHANNEL_BUFFER_BYTES // page
    granularity = min(4 * min(per_packet, 2), 8)
    cb_pages = 3 * granularity
    workers = _rs_workers(ctx.grid, fab.links)
    cores = row_major_cores(ctx.grid, fab.links * 2 * (1 + workers))
    worker_set = core_set([c for i, c in enumerate(cores) if i % (1 + workers)])
    cbs = [CB(i, name, page, cb_pages, worker_set)
           for i, name in enumerate(("input", "intermediate", "reader_output", "compute_output"))]
    inter_shape = (x.shape[0] * 2, *x.shape[1:])  # compute_output_specs: Linear doubles dim 0
    inter = x.with_(shape=inter_shape)
    inter_bytes = inter.physical_volume // 1024 * page
    notes = list(fab.notes) + [
        f"{fab.links} link(s) x 2 directions x {workers} workers + 1 fabric-mux core per direction",
        f"4 CBs of 3 x {granularity} tiles (tile granularity of a {CHANNEL_BUFFER_BYTES:,}-B fabric packet)",
        f"the op allocates a DRAM interleaved intermediate {'x'.join(map(str, inter_shape))} ({inter_bytes:,} B) "
        "beside its output, freed when it returns",
        "from source: the collectives cannot run on the single-chip mock"]
    prog = ProgramModel("ReduceScatterDeviceOperation::ReduceScatterProgram (line)", RS_SOURCE, core_set(cores), cbs,
                        notes, params={"ring_size": fab.n, "num_links": fab.links})
    prog.device_buffers = (DeviceBuffer("dram", inter_bytes, page, False,
                                        f"the {'x'.join(map(str, inter_shape))} intermediate tensor of reduce_scatter"),)
    if out is not None:
        prog.inputs, prog.outputs = (x,), (out,)
    return prog


def reduce_scatter_program(ctx: CBContext) -> ProgramModel:
    """``ttnn::reduce_scatter`` (ttnn 0.81.1) on a line: ``ReduceScatterDeviceOperation``, whose program is the
    line reduce-scatter of ``reduce_scatter_minimal_async``.

    * Cores: per link, 2 directions of one fabric-mux core and ``W`` workers (:func:`_rs_workers`: 8 on any
      grid of 18 cores or more per link), the first cores in row-major order.
    * CBs on the workers: ``c_0`` input, ``c_1`` intermediate, ``c_2`` reader output, ``c_3`` compute output,
      each ``3 * g`` tiles, ``g = min(4 * min(4416 // tile, 2), 8)`` (8 for bf16 and bfp8 tiles, 4 for f32).
    * A DRAM interleaved intermediate tensor of the input's shape with dim 0 doubled (``compute_output_specs``
      on a line), allocated after the output and freed when the op returns (a device buffer of the program,
      which the allocator replay places).

    Raises:
        CBModelError: see :func:`reduce_scatter_steps`, or no mesh known.
    """
    op = ctx.op
    fab = fabric_of(op, honours_num_links=True)
    x = operand(ctx, 0)
    dim = norm_dim(int_attr(op, "scatter_dim"), x.rank, op)
    return reduce_scatter_steps(ctx, x, dim, fab)
