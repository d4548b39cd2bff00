"""Program models of the MoE fabric ops ``all_to_all_dispatch`` and ``all_to_all_combine``.

tt-mlir's runtime calls ``ttnn::all_to_all_dispatch(input, indices, mapping, axis, nullopt, num_links=nullopt,
topology=nullopt, memory_config)`` and ``ttnn::all_to_all_combine(input, mapping, metadata, locally_reduced=false,
num_links=nullopt, topology=nullopt, memory_config, axis, output_shard_dim)``
(``runtime/lib/ttnn/operations/ccl/all_to_all_{dispatch,combine}.cpp`` @19c86fca).  Both programs follow ttnn
0.81.1 (tt-metal d80d9482, whose wheel ships these sources: ``ttnn/cpp/ttnn/operations/ccl/all_to_all_dispatch/``
and ``ccl/all_to_all_combine/``, the entry points, device operations and program factories) and were measured on a
mock 1x2 Blackhole mesh (one P300 board, ``measurements/moe_fabric/``): every device runs the same program on its
own shard, so the figures hold on each device of the mesh.

What the IR does not say, and the models take from ttnn's defaults (each noted on the program):

* the links: ``get_num_links`` (``ccl/common/host/moe_utils.cpp``) counts the routing planes of the machine's
  ethernet cabling along the axis (2 on a P300 board, measured); the IR has none, so 1 link is assumed unless the op
  carries ``num_links``.  Both factories give each link one sender core and split the tokens over them, so one link
  is the largest per-core figure; a CB overflow that fits with one token per link is reported as unsure;
* the fabric packet header: ``get_tt_fabric_packet_header_size_bytes`` = 48 B on a 1D fabric of up to 16 hops
  (measured; tt-metal ``tt_metal/fabric/fabric_context.hpp``: 0 routing extension words up to 16 hops, one 16-B
  word beyond), the hops being the longest mesh dim minus 1;
* the fabric: ``FABRIC_1D`` (tt-mlir's runtime opens a line unless the cabling wraps, which changes no CB here).
"""

from __future__ import annotations

from ..mesh import op_mesh
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .ccl_programs import aligned, core_set, row_major_cores
from .registry import register_cb, register_check, register_spec
from .spec import TensorSpec
from .tensors import Tensor, operand, result
from .work_split import split_work_to_cores

_CCL = "tt-metal ttnn/cpp/ttnn/operations/ccl/"
DISPATCH_SOURCE = (f"{_CCL}all_to_all_dispatch/all_to_all_dispatch.cpp (FullPacket / PageByPage), device/"
                   "all_to_all_dispatch_program_factory.cpp (get_cb_sizes, sender cores) @d80d9482 (ttnn 0.81.1); "
                   "measured on a mock 1x2 Blackhole mesh: measurements/moe_fabric/results.jsonl")
COMBINE_SOURCE = (f"{_CCL}all_to_all_combine/all_to_all_combine.cpp (moreh_full zeros the output), device/"
                  "all_to_all_combine_program_factory.cpp, tt-metal ttnn/cpp/ttnn/operations/full/device/"
                  "full_program_factory_interleaved.cpp @d80d9482 (ttnn 0.81.1); measured on a mock 1x2 Blackhole "
                  "mesh: measurements/moe_fabric/results.jsonl")

PACKET_HEADER_BYTES = 48  # get_tt_fabric_packet_header_size_bytes, 1D fabric of <= 16 hops (measured, ttnn 0.81.1)
PACKET_HEADER_EXTENSION_BYTES = 16  # one routing extension word beyond 16 hops (fabric_context.hpp)
CLIENT_INTERFACE_SIZE = 3280  # tt_metal/hostdevcommon/api/hostdevcommon/fabric_common.h


def packet_header_bytes(op) -> int:
    """The fabric packet header for the op's mesh (module docstring), bytes."""
    mesh = op_mesh(op)
    hops = max(mesh.shape) - 1 if mesh is not None and mesh.shape else 0
    return PACKET_HEADER_BYTES + (PACKET_HEADER_EXTENSION_BYTES if hops > 16 else 0)


def _mesh_devices(op) -> tuple[int, int, str]:
    """``(num_devices, devices on the op's cluster_axis, mesh label)``.

    Raises:
        CBModelError: no mesh known for the op, or a cluster_axis that is not a mesh dim.
    """
    mesh = op_mesh(op)
    if mesh is None:
        raise CBModelError(f"{op.name}: no mesh (ttnn.get_device mesh_shape) to dispatch over")
    axis = op.attrs.get("cluster_axis")
    if isinstance(axis, int) and not isinstance(axis, bool):
        if not 0 <= axis < len(mesh.shape):
            raise CBModelError(f"{op.name}: cluster_axis {axis} is not a dim of mesh {mesh.label}")
        return mesh.devices, mesh.shape[axis], mesh.label
    return mesh.devices, mesh.devices, mesh.label


def links_of(op, links: int | None) -> tuple[int, str]:
    """The links the op's factory splits its tokens over, and the note saying where the figure comes from:
    ``links`` when given (a measured machine), else the op's ``num_links``, else 1 (module docstring)."""
    if links is not None:
        return links, f"{links} link(s) on the axis (given)"
    attr = op.attrs.get("num_links")
    if isinstance(attr, int) and not isinstance(attr, bool) and attr > 0:
        return attr, f"{attr} link(s), the op's num_links"
    return 1, ("1 fabric link assumed (ttnn's get_num_links counts the routing planes of the machine's cabling, not in "
               "the IR; more links split the tokens over more sender cores and shrink the per-core CBs)")


def page(t: Tensor) -> int:
    """``buffer()->page_size()`` of a row-major interleaved tensor: one row of its last dim, bytes."""
    return t.width * t.element_bytes


def rows(t: Tensor) -> int:
    """Rows of a row-major tensor: its logical volume over its last dim (``get_num_rows``, ``num_pages``)."""
    return t.volume // t.width if t.width else 0


def _sender_cores(ctx: CBContext, tokens: int, links: int):
    """Both factories: ``tokens_per_core = ceil(tokens / links)`` on ``min(links, ceil(tokens / that))`` sender cores,
    the first worker cores in row-major order (``num_cores_to_corerangeset_in_subcoregrids(..., row_wise=true)``)."""
    per_core = -(-tokens // links)
    n = min(links, -(-tokens // per_core)) if per_core else 1
    return per_core, core_set(row_major_cores(ctx.grid, n))


def _row_major_interleaved(op, **tensors: Tensor) -> None:
    for what, t in tensors.items():
        if t.sharded:
            raise CBModelError(f"{op.name}: a sharded {what} is not modeled")


def _workaround_applied(op, wanted) -> None:
    """The operands as tt-mlir's workaround pass leaves them (``TTNNWorkarounds``: the tokens row-major bf16, the
    indices, metadata and mapping row-major u16; tt-mlir test/ttmlir/Dialect/TTNN/Transforms/Workarounds/
    moe_ccl_workaround_with_optimizer.mlir): another layout or dtype is IR from before that pass, which the runtime
    never sees (ttnn would refuse it: "Input tensor must be in row major layout", "... must be bfloat16/uint16").

    Raises:
        CBModelError: an operand the workaround pass would still rewrite.
    """
    for t, dtype in wanted:
        if t.tiled or t.dtype.name != dtype:
            raise CBModelError(f"{op.name}: an operand in {t.layout} {t.dtype}, not the row-major {dtype} tt-mlir's "
                               "workaround pass gives it (IR from before that pass; ttnn refuses it as it is)")


def _dispatch_tensors(ctx: CBContext):
    """The dispatch's operands, checked as ``AllToAllDispatchDeviceOperation::validate_on_program_cache_miss``.

    Raises:
        DeviceRejection: its TT_FATALs on what the workaround pass leaves (ranks, mismatched leading dims, a sharded
            output).
        CBModelError: see :func:`_workaround_applied`.
    """
    op = ctx.op
    x, idx, mapping = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2)
    _workaround_applied(op, ((x, "bf16"), (idx, "u16"), (mapping, "u16")))
    if result(ctx).sharded:
        raise DeviceRejection("all_to_all_dispatch: TT_FATAL Output memory config must not be sharded")
    if x.rank != 4 or idx.rank != 4 or x.shape[:-1] != idx.shape[:-1]:
        raise DeviceRejection("all_to_all_dispatch: TT_FATAL Input and indices tensor must have the same shape for all "
                              f"dimensions except the last ({list(x.shape)} vs {list(idx.shape)})")
    _row_major_interleaved(op, input=x, indices=idx, mapping=mapping)
    return x, idx, mapping


def dispatch_program(ctx: CBContext, links: int | None = None) -> ProgramModel:
    """``AllToAllDispatchDeviceOperation::AllToAllDispatchSparse`` on each device (ttnn 0.81.1).

    With ``T`` the tokens per device (the input's rows), ``L`` links, ``t = ceil(T / L)`` tokens per sender core,
    ``N`` devices in the mesh and ``D`` on the cluster axis, pages aligned to their buffer's alignment
    (``get_cb_sizes``), on ``min(L, ceil(T / t))`` sender cores from (0, 0) in row-major order:

    * ``c_0`` input: 2 rows; ``c_1`` indices: ``t`` rows; ``c_2`` mapping: all its rows;
    * ``c_3`` packet headers: 2 x the fabric packet header (48 B, module docstring);
    * ``c_4`` send preparation: ``N * t`` bytes (one byte per device and token);
    * ``c_5`` metadata, in the FullPacket transfer only: ``T * D`` index rows.  ``ttnn::all_to_all_dispatch`` takes
      FullPacket when the CBs (plus its outputs per bank, when they go to L1) fit the largest free L1 block
      (here: the free L1 per core before the outputs), else PageByPage without ``c_5``.

    Raises:
        DeviceRejection: see :func:`_dispatch_tensors`.
        CBModelError: no mesh known, a sharded operand, a TILE mapping.
    """
    op = ctx.op
    x, idx, mapping = _dispatch_tensors(ctx)
    n, d, label = _mesh_devices(op)
    links, links_note = links_of(op, links)
    tokens = rows(x)
    per_core, cores = _sender_cores(ctx, tokens, links)
    a_in, a_idx, a_map = (aligned(page(t), t.alignment) for t in (x, idx, mapping))
    header = packet_header_bytes(op)
    cbs = [CB(0, "input", a_in, 2, cores), CB(1, "indices", a_idx, per_core, cores),
           CB(2, "mapping", a_map, rows(mapping), cores), CB(3, "packet_header", header, 2, cores),
           CB(4, "send_preparation", per_core, n, cores)]
    metadata = CB(5, "metadata", a_idx, tokens * d, cores)
    total = sum(cb.bytes for cb in cbs) + metadata.bytes
    out_l1 = ctx.output_l1_per_core if result(ctx).l1 else 0
    free = ctx.max_l1_space_before_outputs
    full_packet = total + out_l1 <= free
    if full_packet:
        cbs.append(metadata)
    notes = [f"{tokens} tokens per device, {per_core} per sender core; {n} devices, {d} on the dispatch axis of mesh "
             f"{label}; each device runs this program on its own shard", links_note,
             f"fabric packet header {header} B (FABRIC_1D, ttnn 0.81.1)",
             ("FullPacket" if full_packet else "PageByPage") + f" transfer: {total + out_l1:,} B of CBs"
             + (" and L1 outputs" if out_l1 else "") + f" against {free:,} B of free L1 "
             "(ttnn compares with the allocator's largest free L1 block)"]
    return ProgramModel("AllToAllDispatchDeviceOperation::AllToAllDispatchSparse", DISPATCH_SOURCE, cores, cbs, notes,
                        inputs=(x, idx, mapping), outputs=(result(ctx, 0), result(ctx, 1)),
                        params={"ring_size": d, "num_links": links, "refusal_unsure": _unsure(links, tokens)})


def _unsure(links: int, tokens: int) -> str:
    """Why a CB overflow of a model on assumed links is not certain ("" when the links cannot shrink the CBs)."""
    if links >= tokens:
        return ""
    return (f"the model assumes {links} fabric link(s); ttnn splits the tokens over the machine's links, which the IR "
            "does not give, and more links shrink the per-core CBs")


@register_spec("ttnn.all_to_all_dispatch")
def dispatch_spec(ctx: CBContext) -> list[TensorSpec]:
    """``AllToAllDispatchDeviceOperation::compute_output_specs`` (concat dim 1, tt-mlir passes none): the dispatched
    tokens ``[1, B * D, S, H]`` in the input's dtype and layout and the metadata ``[1, B * D, S, K]`` in the indices',
    with ``B`` the input's dim 0, ``S`` the indices' dim -2, ``D`` the devices on the cluster axis, both in the
    result's memory config.

    Raises:
        DeviceRejection / CBModelError: see :func:`_dispatch_tensors`, :func:`_mesh_devices`.
    """
    x, idx, _ = _dispatch_tensors(ctx)
    _, d, _ = _mesh_devices(ctx.op)
    b, s = x.shape[0] * d, idx.shape[-2]
    mem = result(ctx).mem
    return [x.with_(shape=(1, b, s, x.shape[-1]), mem=mem).spec(),
            idx.with_(shape=(1, b, s, idx.shape[-1]), mem=mem).spec()]


def _combine_tensors(ctx: CBContext):
    """The combine's operands (the IR's ``input, metadata, mapping``; returned as input, mapping, metadata), checked as
    ``AllToAllCombineDeviceOperation::validate_on_program_cache_miss``.

    Raises:
        DeviceRejection: its TT_FATALs on what the workaround pass leaves (ranks, experts per device, the shard
            dim's divisibility, a sharded output).
        CBModelError: no mesh known, sharded tensors, see :func:`_workaround_applied`.
    """
    op = ctx.op
    x, metadata, mapping = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2)  # the IR's operand order
    _workaround_applied(op, ((x, "bf16"), (metadata, "u16"), (mapping, "u16")))
    if result(ctx).sharded:
        raise DeviceRejection("all_to_all_combine: TT_FATAL Output memory config must not be sharded")
    if x.rank != 4 or metadata.rank != 4 or mapping.rank != 4:
        raise DeviceRejection("all_to_all_combine: TT_FATAL Input, metadata, and mapping tensors must all be rank 4")
    n, d, _ = _mesh_devices(op)
    experts = mapping.shape[-2]
    if experts % n:
        raise DeviceRejection(f"all_to_all_combine: TT_FATAL Number of experts {experts} should be evenly divisible "
                              f"by devices: {n}")
    if x.shape[0] != experts // n:
        raise DeviceRejection(f"all_to_all_combine: TT_FATAL Expected input shape dim 0: {x.shape[0]} to be equal to "
                              f"the experts per device {experts // n}")
    shard = op.attrs.get("output_shard_dim", 1)
    if shard not in (1, 2):
        raise DeviceRejection(f"all_to_all_combine: TT_FATAL Output shard dimension must be 1 or 2, got {shard}")
    if metadata.shape[shard] % d:
        raise DeviceRejection(f"all_to_all_combine: TT_FATAL {'Batch' if shard == 1 else 'Sequence length'} "
                              f"{metadata.shape[shard]} must be divisible by axis group {d}")
    _row_major_interleaved(op, input=x, mapping=mapping, metadata=metadata)
    return x, mapping, metadata, experts // n, shard


def _combine_shape(ctx: CBContext, metadata: Tensor, x: Tensor, shard: int) -> tuple[int, int, int, int]:
    """``compute_output_specs``: ``[K, B * R / N, S, H]`` (shard dim 1) or ``[K, B, S * R / N, H]`` (2), ``R`` the
    devices on the other mesh axis (``mesh_device->shape()[!axis]``)."""
    op = ctx.op
    mesh = op_mesh(op)
    n = mesh.devices
    axis = op.attrs.get("cluster_axis")
    r = mesh.shape[1 - axis] if isinstance(axis, int) and len(mesh.shape) == 2 else 1
    _, b, s, k = metadata.shape
    return (k, b * r // n, s, x.shape[-1]) if shard == 1 else (k, b, s * r // n, x.shape[-1])


def full_program(ctx: CBContext, out: Tensor) -> ProgramModel:
    """``FullDeviceOperation`` (``ttnn::moreh_full``) of a row-major interleaved ``out``:
    ``FullInterleavedProgramFactory`` splits its pages (rows) over the grid (``split_work_to_cores``); ``c_0`` one
    page on every core with work, and ``c_1`` one more when there are more pages than cores (a reader kernel writes
    half of each core's pages)."""
    pages = rows(out)
    split = split_work_to_cores(ctx.grid, pages)
    cores = split.all_cores
    cbs = [CB(0, "fill", page(out), 1, cores)]
    if pages > split.num_cores:
        cbs.append(CB(1, "fill (second writer)", page(out), 1, cores))
    return ProgramModel("FullDeviceOperation::FullInterleavedProgramFactory", COMBINE_SOURCE, cores, cbs,
                        [f"the output zeroed first (moreh_full): {pages} rows on {split.num_cores} cores"],
                        inputs=(), outputs=(out,))


def combine_programs(ctx: CBContext, links: int | None = None) -> list[ProgramModel]:
    """``ttnn::all_to_all_combine`` (ttnn 0.81.1) on each device: ``moreh_full`` zeroes the output
    (:func:`full_program`), then ``AllToAllCombineDeviceOperation``'s program.

    With ``e`` the experts per device, ``T`` the metadata's tokens (``B * S``), ``L`` links and ``t = ceil(T / L)``,
    on ``min(L, ceil(T / t))`` sender cores from (0, 0) in row-major order: ``c_0`` ``e`` input rows (aligned to the
    input buffer's alignment), ``c_1`` one mapping row, ``c_2`` the ``e`` local expert ids (u16), ``c_3`` one metadata
    row (each aligned to the L1 alignment), ``c_4`` three fabric client interfaces (3 x 3,280 B).

    Raises:
        DeviceRejection / CBModelError: see :func:`_combine_tensors`.
    """
    op = ctx.op
    x, mapping, metadata, e, shard = _combine_tensors(ctx)
    n, d, label = _mesh_devices(op)
    links, links_note = links_of(op, links)
    out = result(ctx)
    tokens = metadata.shape[1] * metadata.shape[2]
    per_core, cores = _sender_cores(ctx, tokens, links)
    l1 = ctx.arch.l1_alignment
    cbs = [CB(0, "data", aligned(page(x), x.alignment), e, cores), CB(1, "mapping", aligned(page(mapping), l1), 1, cores),
           CB(2, "local_experts", aligned(2 * e, l1), 1, cores), CB(3, "metadata", aligned(page(metadata), l1), 1, cores),
           CB(4, "client_interface", CLIENT_INTERFACE_SIZE, 3, cores)]
    notes = [f"{tokens} tokens, {per_core} per sender core; {e} experts per device; {n} devices, {d} on the combine "
             f"axis of mesh {label}; each device runs this program on its own shard", links_note]
    prog = ProgramModel("AllToAllCombineDeviceOperation::AllToAllCombineFromSparse", COMBINE_SOURCE, cores, cbs, notes,
                        inputs=(x, mapping, metadata), outputs=(out,),
                        params={"ring_size": d, "num_links": links, "refusal_unsure": _unsure(links, tokens)})
    return [full_program(ctx, out), prog]


@register_spec("ttnn.all_to_all_combine")
def combine_spec(ctx: CBContext) -> list[TensorSpec]:
    """``AllToAllCombineDeviceOperation::compute_output_specs`` (:func:`_combine_shape`), in the input's dtype and
    layout and the result's memory config.

    Raises:
        DeviceRejection / CBModelError: see :func:`_combine_tensors`.
    """
    x, _, metadata, _, shard = _combine_tensors(ctx)
    return [x.with_(shape=_combine_shape(ctx, metadata, x, shard), mem=result(ctx).mem).spec()]


register_cb("ttnn.all_to_all_dispatch")(dispatch_program)
register_cb("ttnn.all_to_all_combine")(combine_programs)
register_check("ttnn.all_to_all_dispatch", "mock", "tests/test_ops_moe_fabric.py against measurements/moe_fabric/"
               "results.jsonl (a mock 1x2 Blackhole mesh)", ("AllToAllDispatchDeviceOperation",))
register_check("ttnn.all_to_all_combine", "mock", "tests/test_ops_moe_fabric.py against measurements/moe_fabric/"
               "results.jsonl (a mock 1x2 Blackhole mesh)", ("FullDeviceOperation", "AllToAllCombineDeviceOperation"))
