"""Program models of the persistent MoE fabric ops ``all_to_all_dispatch_metadata`` and ``selective_reduce_combine``.

``all_to_all_dispatch_metadata``: tt-mlir's runtime (``runtime/lib/ttnn/operations/ccl/all_to_all_dispatch_metadata.cpp``
@19c86fca) calls ``ttnn::experimental::all_to_all_dispatch_metadata(input, indices, scores, mapping, shared_expert_ids=
nullopt, axis, {dispatched, indices, scores buffers}, num_links=nullopt, drain core nullopt, WorkerMode::DIRECT,
SPARSE_MCAST_SHORTEST_PATH, worker cores nullopt, mux cores nullopt, cross_device_semaphore)``: the op runs in
persistent mode only, its three outputs bound to buffers the function's prelude allocates (``TTNNOps.cpp``
``AllToAllDispatchMetadataOp::allocateBuffers``: dispatched DRAM interleaved, indices and scores L1 height-sharded on
core (0, 0)) and a global semaphore on cores (0, 0)-(0, 7) (``allocateSemaphores``).  tt-metal returns the bound
buffers as the outputs, so the op's results are those buffers (the allocator replay does not allocate them again:
:func:`bound_buffer_operand`) and the program allocates no L1 buffer of its own (measured: the capture sees none).

The program follows ttnn 0.81.1 (tt-metal d80d9482: ``ttnn/cpp/ttnn/operations/experimental/ccl/
all_to_all_dispatch_metadata/device/all_to_all_dispatch_metadata_program_factory.cpp`` ``get_cb_sizes`` and
``AllToAllDispatchMetadataSparse::create_at``, read at the nearest stored version, tt-metal 01c8afed; its
``validate_on_program_cache_miss`` at 003cc26d) and was measured on a mock 1x2 Blackhole mesh (one P300 board,
``measurements/moe_fabric/probe_metadata.py``): every device runs the same program on its own shard.  What the IR does
not give (the links) is taken as :mod:`ttanalyze.ops.moe_fabric` takes it: the op's ``num_links``, else 1 link assumed
(ttnn's ``get_num_links`` counts the machine's routing planes: 2 on the P300, measured).

``selective_reduce_combine``: the runtime (``runtime/lib/ttnn/operations/ccl/selective_reduce_combine.cpp``
@19c86fca) calls ``ttnn::prim::selective_reduce_combine`` with GPT-OSS's constants, none of which the IR carries:
cluster axis 0, Ring, 4 links, 4 x 3 worker cores at (1, 0)-(3, 3), mux cores (4, 0)-(5, 3), a DRAM output; the op's
``experts`` attribute is not passed (ttnn 0.81.1 takes the local experts from the token maps).  Measured on a mock 2x1
mesh (``measurements/moe_fabric/probe_selective.py``: axis 0 has two devices there) with 2 links, the P300's
ethernet channels (the links change no CB).
"""

from __future__ import annotations

from ..ir.model import Op
from ..mesh import op_mesh
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .ccl_programs import aligned, core_set
from .moe_fabric import (CLIENT_INTERFACE_SIZE, _mesh_devices, _unsure, _workaround_applied, links_of,
                         packet_header_bytes, page, rows)
from .registry import register_cb, register_check, register_passive, register_spec
from .spec import TensorSpec
from .tensors import MemCfg, Shard, operand, result

_EXP = "tt-metal ttnn/cpp/ttnn/operations/experimental/ccl/"
DISPATCH_METADATA_SOURCE = (
    f"{_EXP}all_to_all_dispatch_metadata/device/all_to_all_dispatch_metadata_program_factory.cpp (get_cb_sizes, "
    "AllToAllDispatchMetadataSparse::create_at: DIRECT workers) @01c8afed, the stored version nearest d80d9482 "
    "(ttnn 0.81.1); measured on a mock 1x2 Blackhole mesh: measurements/moe_fabric/results_metadata.jsonl")
DISPATCH_METADATA = "ttnn.all_to_all_dispatch_metadata"
FACTORY = "AllToAllDispatchMetadataDeviceOperation::AllToAllDispatchMetadataSparse"
# ``worker_core_range_set`` when the caller gives none (all_to_all_dispatch_metadata_nanobind.cpp, ttnn 0.81.1
# docstring: "Defaults to cores (0,0) to (0,7)"); tt-mlir's global semaphore spans exactly these cores.
DEFAULT_WORKERS = ((0, 0), (0, 7))
PACKET_HEADERS = 8  # get_cb_sizes num_packet_headers
_VERIFY = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"

# Result shapes as declared: with the buffers bound, tt-metal returns them whatever their shape (verify checks ranks).
register_passive((DISPATCH_METADATA,), "moe", ("num_devices", "cluster_axis", "operandSegmentSizes", "num_links"),
                 f"{_VERIFY} AllToAllDispatchMetadataOp::verify (ranks, all three buffers bound or none)")


def _segments(op: Op) -> list[int]:
    """``operandSegmentSizes`` of the op (input, indices, scores, mapping, three buffers, semaphore); without the
    attribute, the operands are taken as the four inputs, then the buffers and the semaphore when present."""
    seg = op.attrs.get("operandSegmentSizes")
    if isinstance(seg, list) and len(seg) == 8 and all(isinstance(s, int) for s in seg):
        return seg
    extra = len(op.operands) - 4
    return [1, 1, 1, 1] + ([1, 1, 1] if extra >= 3 else [0, 0, 0]) + ([1] if extra >= 4 else [0])


def bound_buffer_operand(op: Op, k: int) -> int | None:
    """The operand whose buffer result ``k`` of an ``all_to_all_dispatch_metadata`` is: tt-metal returns the bound
    persistent buffers as its outputs (``create_output_tensors``: ``optional_output_tensors.value()``), result ``k``
    being buffer operand ``4 + k``; None for another op or when the buffers are not bound."""
    if op.name != DISPATCH_METADATA or not 0 <= k < 3:
        return None
    seg = _segments(op)
    return 4 + k if seg[4:7] == [1, 1, 1] and len(op.operands) >= 7 else None


def _metadata_tensors(ctx: CBContext):
    """The operands and outputs, checked as ttnn 0.81.1's ``validate_on_program_cache_miss`` (its measured TT_FATALs).

    Returns:
        ``(input, indices, scores, mapping, (dispatched, indices_out, scores_out), bound)``.

    Raises:
        DeviceRejection: scores and indices of different shapes, input and indices whose leading dims differ, a
            mapping not of rank 2 or without one row per mesh device, non-row-major persistent outputs.
        CBModelError: no mesh known; operands tt-mlir's workaround pass would still make row-major bf16/u16 (IR from
            before that pass, see :func:`ttanalyze.ops.moe_fabric._workaround_applied`).
    """
    op = ctx.op
    x, idx, scores, mapping = (operand(ctx, i) for i in range(4))
    _workaround_applied(op, ((x, "bf16"), (idx, "u16"), (scores, "bf16"), (mapping, "u16")))
    outs = tuple(result(ctx, k) for k in range(3))
    n, _, _ = _mesh_devices(op)
    if tuple(scores.shape) != tuple(idx.shape):
        raise DeviceRejection(f"all_to_all_dispatch_metadata: TT_FATAL Scores tensor shape Shape({list(scores.shape)}) "
                              f"must match indices tensor shape Shape({list(idx.shape)})")
    if any(t.tiled for t in outs):
        raise DeviceRejection("all_to_all_dispatch_metadata: TT_FATAL Output tensor must be in row major layout")
    if x.rank != 4 or idx.rank != 4 or tuple(x.shape[:-1]) != tuple(idx.shape[:-1]):
        raise DeviceRejection("all_to_all_dispatch_metadata: TT_FATAL Input and indices tensor must have the same shape "
                              f"for all dimensions except the last ({list(x.shape)} vs {list(idx.shape)})")
    if mapping.rank != 2:
        raise DeviceRejection("all_to_all_dispatch_metadata: TT_FATAL Expert mapping tensor must have rank 2 with shape "
                              f"[devices, experts], got rank {mapping.rank}")
    if mapping.shape[0] != n:
        raise DeviceRejection("all_to_all_dispatch_metadata: TT_FATAL Expert mapping tensor first dimension must equal "
                              f"number of devices ({n}), got {mapping.shape[0]}")
    if x.sharded or idx.sharded or scores.sharded or mapping.sharded:
        raise CBModelError(f"{op.name}: a sharded input is not modeled (tt-mlir's workaround pass makes them interleaved)")
    bound = bound_buffer_operand(op, 0) is not None
    return x, idx, scores, mapping, outs, bound


def dispatch_metadata_program(ctx: CBContext, links: int | None = None) -> ProgramModel:
    """``AllToAllDispatchMetadataSparse`` on each device (ttnn 0.81.1, WorkerMode::DIRECT).

    With ``T`` the tokens per device (the input's rows), ``L`` links (one worker per link), ``t = ceil(T / L)`` tokens
    per worker and ``N`` devices in the mesh, on the ``L`` worker cores (0, 0)..(0, L - 1) of the default worker range
    (0, 0)-(0, 7), every page aligned to its buffer's alignment (``aligned_page_size``: 16 B in L1, 64 B in DRAM on
    Blackhole), CBs in the factory's creation order:

    * ``c_0`` input: 2 input rows;
    * ``c_1`` indices: ``t`` rows of the indices *output* (the drain-sharded buffer, which holds shared experts too);
    * ``c_6`` scores: ``t`` rows of the scores output;
    * ``c_2`` mapping: 1 mapping row (the source device's ``[E]`` row);
    * ``c_3`` packet headers: 8 x the fabric packet header (48 B on a 1D fabric of up to 16 hops);
    * ``c_4`` send preparation: ``N * t`` bytes;
    * ``c_5`` metadata: ``T`` x (an indices output row + a scores output row).

    Raises:
        DeviceRejection: see :func:`_metadata_tensors`; more links than the 8 default worker cores ("Not enough cores").
        CBModelError: see :func:`_metadata_tensors`.
    """
    op = ctx.op
    x, _, _, mapping, (dispatched, idx_out, scores_out), bound = _metadata_tensors(ctx)
    n, d, label = _mesh_devices(op)
    links, links_note = links_of(op, links)
    (x0, y0), (x1, y1) = DEFAULT_WORKERS
    workers = (x1 - x0 + 1) * (y1 - y0 + 1)
    if links > workers:
        raise DeviceRejection(f"all_to_all_dispatch_metadata: TT_FATAL Not enough cores {workers} to send all links "
                              f"{links}")
    if links > ctx.grid[1]:
        raise CBModelError(f"{op.name}: {links} workers on column 0 do not fit the {ctx.grid[0]}x{ctx.grid[1]} grid")
    tokens = rows(x)
    per_core = -(-tokens // links)
    cores = cores_set(core_range(x0, y0, x0, y0 + links - 1))
    a_in, a_map = aligned(page(x), x.alignment), aligned(page(mapping), mapping.alignment)
    a_idx, a_sc = aligned(page(idx_out), idx_out.alignment), aligned(page(scores_out), scores_out.alignment)
    header = packet_header_bytes(op)
    cbs = [CB(0, "input", a_in, 2, cores), CB(1, "indices", a_idx, per_core, cores),
           CB(6, "scores", a_sc, per_core, cores), CB(2, "mapping", a_map, 1, cores),
           CB(3, "packet_headers", header, PACKET_HEADERS, cores), CB(4, "send_preparation", per_core, n, cores),
           CB(5, "metadata", a_idx + a_sc, tokens, cores)]
    notes = [f"{tokens} tokens per device, {per_core} per worker core; {n} devices, {d} on the dispatch axis of mesh "
             f"{label}; each device runs this program on its own shard", links_note,
             f"fabric packet header {header} B (FABRIC_1D, ttnn 0.81.1)",
             "persistent mode: the outputs are the bound buffers and the cross-device semaphore the prelude allocates "
             "(the program allocates no buffer of its own)"]
    if not bound:
        notes.append("the output buffers are not bound yet (IR from before tt-mlir's persistent-buffer prelude, which "
                     "the runtime requires): modeled on the declared result types")
    return ProgramModel(FACTORY, DISPATCH_METADATA_SOURCE, cores, cbs, notes, inputs=(x, operand(ctx, 1),
                        operand(ctx, 2), mapping), outputs=(dispatched, idx_out, scores_out),
                        params={"ring_size": d, "num_links": links, "refusal_unsure": _unsure(links, tokens)})


@register_spec(DISPATCH_METADATA)
def dispatch_metadata_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ttnn 0.81.1 returns: the bound persistent buffers as they are (``compute_output_specs`` returns their
    specs, ``create_output_tensors`` the tensors: a bound buffer of another spec is not refused, measured).  Unbound
    (IR before the prelude): ``compute_output_specs``, the dispatched ``[1, T * D[A], H]`` DRAM interleaved in the
    input's dtype and layout, indices and scores ``[1, T * D[A], K]`` L1 height-sharded on the drain core (0, 0), the
    whole tensor one shard, ``T`` the input's ``B * S * M`` and ``D[A]`` the devices on the cluster axis.

    Raises:
        DeviceRejection / CBModelError: see :func:`_metadata_tensors`.
    """
    x, idx, scores, _, outs, bound = _metadata_tensors(ctx)
    if bound:
        return [t.spec() for t in outs]
    _, d, _ = _mesh_devices(ctx.op)
    total = x.shape[0] * x.shape[1] * x.shape[2] * d
    k = idx.shape[-1]
    dram = MemCfg("dram", "interleaved")
    drain = MemCfg("l1", "height_sharded", Shard(cores_set(core_range(0, 0, 0, 0)), (total, k)))
    return [x.with_(shape=(1, total, x.shape[-1]), mem=dram).spec(), idx.with_(shape=(1, total, k), mem=drain).spec(),
            scores.with_(shape=(1, total, k), mem=drain).spec()]


register_cb(DISPATCH_METADATA)(dispatch_metadata_program)
register_check(DISPATCH_METADATA, "mock", "tests/test_ops_moe_metadata.py against measurements/moe_fabric/"
               "results_metadata.jsonl (a mock 1x2 Blackhole mesh, persistent buffers and semaphore as tt-mlir's "
               "runtime passes them)", ("AllToAllDispatchMetadataDeviceOperation",))



# ---------------------------------------------------------------------------------------------------------------------
# selective_reduce_combine
# ---------------------------------------------------------------------------------------------------------------------

SELECTIVE_REDUCE_COMBINE = "ttnn.selective_reduce_combine"
SELECTIVE_SOURCE = (
    f"{_EXP}moe/selective_reduce_combine/device/selective_reduce_combine_program_factory.cpp (data_parallel_split, "
    "build_selective_reduce_combine_program_artifacts: CBs c_15/c_1/c_2/c_3/c_4) @002d2845 and "
    "selective_reduce_combine_device_operation.cpp @00bcb33e, the stored versions nearest d80d9482 (ttnn 0.81.1), "
    "corrected by the mock: the token-counts CB and the experts per device; measured on a mock 2x1 Blackhole mesh: "
    "measurements/moe_fabric/results_selective.jsonl")
# tt-mlir runtime/lib/ttnn/operations/ccl/selective_reduce_combine.cpp @19c86fca: GPT-OSS constants the IR does not carry
RUNTIME_AXIS = 0
RUNTIME_LINKS = 4
RUNTIME_TOKEN_PARALLEL = 4
RUNTIME_DATA_PARALLEL = 3
RUNTIME_WORKERS = tuple((x, y) for y in range(RUNTIME_TOKEN_PARALLEL) for x in range(1, RUNTIME_DATA_PARALLEL + 1))
RUNTIME_MUX = ((4, 0), (5, 3))
FABRIC_PACKET_BYTES = 4096  # std::bit_floor(get_tt_fabric_channel_buffer_size_bytes()) for bf16 (measured: H = 8192)
TOKEN_COUNT_FIELDS = 3  # per local expert: offset into the token maps, token count, offset into the activations
SEMAPHORES = 2  # the init and the final barrier global semaphores the factory creates on the worker cores


def data_parallel_split(token_bytes: int, data_parallel: int, packet: int = FABRIC_PACKET_BYTES) -> list[int]:
    """``detail::data_parallel_split``: each token row cut into segments of ``token_bytes / n`` bytes (integer),
    ``n = max(data_parallel, token_bytes / packet)``, one per data-parallel core, up to ``data_parallel`` of them.

    Returns:
        the segment sizes in bytes (fewer than ``data_parallel`` when the row runs out first).

    Raises:
        DeviceRejection: bytes left over after ``data_parallel`` segments (ttnn 0.81.1's TT_FATAL, measured).
    """
    need = max(data_parallel, token_bytes // packet)
    seg = token_bytes // need
    sizes, left = [], token_bytes
    for _ in range(data_parallel):
        take = min(left, seg)
        sizes.append(take)
        left -= take
        if left == 0:
            break
    if left:
        raise DeviceRejection(f"selective_reduce_combine: TT_FATAL selective_reduce_combine: {data_parallel} "
                              f"data-parallel core(s) cannot cover the token: {left} bytes left over (each segment is "
                              f"limited to {seg} bytes by the fabric packet size); increase num_data_parallel_cores")
    return sizes


def _uint_attr(op: Op, name: str) -> int:
    v = op.attrs.get(name)
    if not isinstance(v, int) or isinstance(v, bool):
        raise CBModelError(f"{op.name}: no integer {name} attribute")
    return v


def _selective_tensors(ctx: CBContext):
    """The operands and the figures the factory reads, checked as ttnn 0.81.1's ``validate_on_program_cache_miss``.

    Returns:
        ``(input, activations, maps, counts, experts_per_device, tokens, devices on axis 0)``.

    Raises:
        DeviceRejection: token maps not of rank 2, activations whose per-token stride is not ``2 E + 1`` u32 aligned
            to their buffer, a mesh whose axis 0 has one device of several (the runtime's Ring along axis 0 has the
            device as its own neighbour: "Expected different src and dst chip ids").
        CBModelError: no mesh known; a single-device mesh (no fabric); attributes missing; block-float operands.
    """
    op = ctx.op
    x, acts, maps, counts = (operand(ctx, i) for i in range(4))
    mesh = _mesh_devices(op)
    shape = op_mesh(op).shape
    d = shape[RUNTIME_AXIS] if shape else 1
    if maps.rank != 2:
        raise DeviceRejection("selective_reduce_combine: TT_FATAL dense_token_maps_tensor must be rank 2 ([experts, "
                              f"per-token-stride]); got rank {maps.rank}")
    e = maps.shape[0]
    tokens = _uint_attr(op, "batch_size") * _uint_attr(op, "seq_size")
    if tokens <= 0:
        raise CBModelError(f"{op.name}: batch_size * seq_size is 0")
    datum = acts.element_bytes
    expected = aligned((2 * e + 1) * datum, acts.alignment) // datum
    if acts.shape[-1] // tokens != expected:
        raise DeviceRejection("selective_reduce_combine: TT_FATAL The token activations tensor is expected to have "
                              "aligned 2 * experts_per_device + 1 elements per token")
    if d == 1:
        if mesh[0] > 1:
            raise DeviceRejection("selective_reduce_combine: TT_FATAL Expected different src and dst chip ids but got "
                                  "same, Src: (M0, D0), Dst: (M0, D0) (the runtime combines along mesh axis 0 in a Ring, and that "
                                  "axis has one device here: the device is its own neighbour)")
        raise CBModelError(f"{op.name}: a single-device mesh: no fabric to combine over")
    return x, acts, maps, counts, e, tokens, d


def selective_reduce_combine_program(ctx: CBContext, links: int | None = None) -> ProgramModel:
    """``SelectiveReduceCombineDeviceOperation::UnifiedSelectReduce`` on each device (ttnn 0.81.1) as tt-mlir's runtime
    calls it: axis 0, Ring, 4 links, 4 token-parallel x 3 data-parallel worker cores (1, 0)-(3, 3), mux cores
    (4, 0)-(5, 3) (module constants).

    With ``E`` the local experts (the token maps' dim 0), ``T = batch_size * seq_size``, ``H`` the hidden size, the
    token row of ``2 H`` bytes cut into data-parallel segments (:func:`data_parallel_split`, largest ``g``), on the
    first ``4 x segments`` worker cores, every CB aligned to the L1 alignment (16 B on Blackhole):

    * ``c_15`` data: ``E x (g * T / 4)`` bytes on the dense input's L1 buffer (globally allocated: no L1 of its own);
    * ``c_1`` token maps: ``E`` token-maps rows;
    * ``c_2`` token counts: the counts row plus 3 u32 per local expert;
    * ``c_3`` activations: one activations row;
    * ``c_4`` client interfaces: 3 x 3,280 B;

    and two global semaphores (16 B per worker core each) the factory creates for the call.

    Raises:
        DeviceRejection: see :func:`_selective_tensors` and :func:`data_parallel_split`; a dense input outside L1
            ("Only L1 buffers can have an associated circular buffer!").
        CBModelError: see :func:`_selective_tensors`.
    """
    op = ctx.op
    x, acts, maps, counts, e, tokens, d = _selective_tensors(ctx)
    hidden = _uint_attr(op, "hidden_size")
    sizes = data_parallel_split(hidden * x.element_bytes, RUNTIME_DATA_PARALLEL)
    if not x.l1:
        raise DeviceRejection("selective_reduce_combine: TT_THROW Only L1 buffers can have an associated circular "
                              "buffer! (the dense input must be in L1: its buffer backs c_15)")
    l1 = ctx.arch.l1_alignment
    n_workers = RUNTIME_TOKEN_PARALLEL * len(sizes)
    if any(cx >= ctx.grid[0] or cy >= ctx.grid[1] for cx, cy in RUNTIME_WORKERS[:n_workers]):
        raise CBModelError(f"{op.name}: the runtime's worker cores do not fit the {ctx.grid[0]}x{ctx.grid[1]} grid")
    cores = core_set(list(RUNTIME_WORKERS[:n_workers]))
    block = max(sizes) * tokens // RUNTIME_TOKEN_PARALLEL
    maps_page = aligned(page(maps), l1)
    counts_bytes = aligned(page(counts) + TOKEN_COUNT_FIELDS * counts.element_bytes * e, l1)
    acts_page = aligned(page(acts), l1)
    cbs = [CB(15, "data", block * e, 1, cores, globally_allocated=True),
           CB(1, "dense_token_maps", maps_page, e, cores), CB(2, "token_counts", counts_bytes, 1, cores),
           CB(3, "token_activations", acts_page, 1, cores), CB(4, "client_interface", CLIENT_INTERFACE_SIZE, 3, cores)]
    links = RUNTIME_LINKS if links is None else links
    notes = [f"{e} local experts, {tokens} tokens, hidden {hidden}: token rows cut into {len(sizes)} segment(s) of "
             f"{max(sizes):,} B on {n_workers} worker cores; {d} devices on mesh axis 0 (the runtime's cluster axis, "
             "whatever the IR's mesh); each device runs this program on its own shard",
             f"tt-mlir's runtime asks for {links} fabric links along axis 0 (Ring): a machine with fewer ethernet "
             "channels between neighbours refuses it (\"Requested link index 2 is out of bounds. 2 ethernet channels "
             "available\", measured on a P300); the IR does not say the machine",
             "the fabric mux on cores (4, 0)-(5, 3) takes raw L1 outside the allocator (not modeled)"]
    sem_bytes = SEMAPHORES * aligned(4, l1)
    return ProgramModel("SelectiveReduceCombineDeviceOperation::UnifiedSelectReduce", SELECTIVE_SOURCE, cores, cbs,
                        notes, inputs=(x, acts, maps, counts), outputs=(result(ctx),), l1_buffers_per_core=sem_bytes,
                        params={"ring_size": d, "num_links": links})


@register_spec(SELECTIVE_REDUCE_COMBINE)
def selective_reduce_combine_spec(ctx: CBContext) -> list[TensorSpec]:
    """``compute_output_specs``: ``[K, T / D, H]`` (``T = batch_size * seq_size``, ``D`` the devices on the runtime's
    axis 0) in the dense input's dtype, row-major, DRAM interleaved (the runtime passes no memory config).

    Raises:
        DeviceRejection / CBModelError: see :func:`_selective_tensors`.
    """
    op = ctx.op
    x, _, _, _, _, tokens, d = _selective_tensors(ctx)
    shape = (_uint_attr(op, "select_experts_k"), tokens // d, _uint_attr(op, "hidden_size"))
    return [x.with_(shape=shape, layout="row_major", mem=MemCfg("dram", "interleaved")).spec()]


register_passive((SELECTIVE_REDUCE_COMBINE,), "moe", ("hidden_size", "batch_size", "seq_size", "select_experts_k",
                                                      "experts"),
                 f"{_VERIFY} SelectiveReduceCombineOp::verify (k, experts and hidden size positive); experts is not "
                 "passed to ttnn, which takes the local experts from the token maps")
register_cb(SELECTIVE_REDUCE_COMBINE)(selective_reduce_combine_program)
register_check(SELECTIVE_REDUCE_COMBINE, "mock", "tests/test_ops_moe_metadata.py against measurements/moe_fabric/"
               "results_selective.jsonl (a mock 2x1 Blackhole mesh, the runtime's call with 2 links)",
               ("SelectiveReduceCombineDeviceOperation",))
