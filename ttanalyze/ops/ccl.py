"""Collective (CCL) and mesh ops, and the mixture-of-experts ops built on them.

Tensor types are per device (:mod:`ttanalyze.mesh`).  Shape rules, with ``n`` the mesh dim of the
op's ``cluster_axis`` (the function's ``ttnn.get_device`` mesh; without one the shapes are taken
as declared, unchecked):

* ``all_gather``: dim ``all_gather_dim`` times ``n`` (tt-metal ``AllGatherDeviceOperation``
  ``compute_output_specs``: the gathered dim grows by the ring size);
* ``reduce_scatter``: dim ``scatter_dim`` divided by ``n`` (it must divide);
* ``all_reduce`` / ``all_reduce_async``: the input's shape;
* ``mesh_partition``: dim ``dim`` divided by ``n`` (by the device count without ``cluster_axis``);
* ``point_to_point``: the input's shape (the optional output tensor matches it,
  ``PointToPointOp::verify``);
* ``distribute_tensor``: the global host tensor's per-device shard (``mapper_config``
  placements, :func:`ttanalyze.mesh.shard_shape`); ``aggregate_tensor``: taken as declared.

Verifier checks kept (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca): gather/scatter/partition
dims in range, ``reduce_type`` sum, ``cluster_axis`` 0 or 1.  The MoE and all-to-all ops
(``all_to_all_dispatch``/``_metadata``/``combine``, ``moe_gpt``, ``moe_compute``,
``moe_expert_token_remap``, ``selective_reduce_combine``, the MoE weight
preparation) keep their declared result types: their verifiers check ranks only.  The programs and output specs
of ``all_to_all_dispatch`` and ``all_to_all_combine`` are in :mod:`ttanalyze.ops.moe_fabric` (measured on a mock
1x2 mesh), ``moe_expert_token_remap``'s in :mod:`ttanalyze.ops.moe`, ``all_to_all_dispatch_metadata``'s and
``selective_reduce_combine``'s (registered there) in :mod:`ttanalyze.ops.moe_metadata`, ``moe_gpt``'s and ``moe_compute``'s (shape
rules, programs, specs) in :mod:`ttanalyze.ops.moe_compute`; the other MoE ops have none.  The program
models of ``all_gather``, ``reduce_scatter``, ``all_reduce(_async)`` and ``point_to_point`` are in
:mod:`ttanalyze.ops.ccl_programs` (from source, checked on a 1x2 and a 1x4 ring mock mesh), their composite paths
included (all_broadcast + concat, split + pad + concat + reduce-scatter + slice, all-gather + moreh_sum), and the
global semaphores each CCL program allocates.
"""

from __future__ import annotations

from ..ir.model import Op
from ..mesh import Mesh, op_mesh, placements, mesh_shape_override, shard_shape
from .cb import CBContext, CBModelError, NoDeviceProgram
from .ccl_programs import (AG_SOURCE, AR_SOURCE, P2P_SOURCE, RS_SOURCE, all_gather_program, all_reduce_program,
                           point_to_point_program, reduce_scatter_program)
from .registry import (ShapeError, int_attr, norm_dim, register, register_cb, register_check, register_passive,
                       tensor_shape)

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_CCL_ATTRS = ("cluster_axis", "sub_device_id", "num_links", "topology")


def _axis_size(op: Op, mesh: Mesh) -> int:
    axis = int_attr(op, "cluster_axis")
    if not 0 <= axis < len(mesh.shape):
        raise ShapeError(f"{op.name}: cluster_axis {axis} is not a dim of mesh {mesh.label}")
    return mesh.shape[axis]


def _sum_only(op: Op) -> None:
    kind = str(op.raw_attrs.get("reduce_type", "sum")).lower()
    if "sum" not in kind:
        raise ShapeError(f"{op.name}: only the sum reduction is supported, got {op.raw_attrs.get('reduce_type')}")


@register("ttnn.all_gather", "ccl", ("all_gather_dim", *_CCL_ATTRS), f"{_SRC} AllGatherOp::verify")
def all_gather(op: Op):
    x = tensor_shape(op, 0)
    d = norm_dim(int_attr(op, "all_gather_dim"), len(x), op)
    mesh = op_mesh(op)
    if mesh is None:
        return None
    out = list(x)
    out[d] *= _axis_size(op, mesh)
    return [tuple(out)]


@register("ttnn.reduce_scatter", "ccl", ("reduce_type", "scatter_dim", "compute_config", *_CCL_ATTRS),
          f"{_SRC} ReduceScatterOp::verify")
def reduce_scatter(op: Op):
    x = tensor_shape(op, 0)
    d = norm_dim(int_attr(op, "scatter_dim"), len(x), op)
    _sum_only(op)
    mesh = op_mesh(op)
    if mesh is None:
        return None
    n = _axis_size(op, mesh)
    if x[d] % n:
        raise ShapeError(f"{op.name}: scatter dim {d} of size {x[d]} does not divide over {n} devices")
    out = list(x)
    out[d] //= n
    return [tuple(out)]


@register(("ttnn.all_reduce", "ttnn.all_reduce_async"), "ccl", ("reduce_type", *_CCL_ATTRS),
          f"{_SRC} AllReduceOp/AllReduceAsyncOp::verify")
def all_reduce(op: Op):
    _sum_only(op)
    return [tensor_shape(op, 0)]


@register("ttnn.mesh_partition", "ccl", ("dim", "cluster_axis", "memory_config"), f"{_SRC} MeshPartitionOp::verify")
def mesh_partition(op: Op):
    x = tensor_shape(op, 0)
    d = norm_dim(int_attr(op, "dim"), len(x), op)
    if "cluster_axis" in op.attrs and int_attr(op, "cluster_axis") > 1:
        raise ShapeError(f"{op.name}: cluster axis must be None, 0 or 1, got {int_attr(op, 'cluster_axis')}")
    mesh = op_mesh(op)
    if mesh is None:
        return None
    n = _axis_size(op, mesh) if "cluster_axis" in op.attrs else mesh.devices
    if x[d] % n:
        raise ShapeError(f"{op.name}: dim {d} of size {x[d]} does not divide over {n} devices")
    out = list(x)
    out[d] //= n
    return [tuple(out)]


@register("ttnn.point_to_point", "ccl", ("sender_coord", "receiver_coord"), f"{_SRC} PointToPointOp::verify")
def point_to_point(op: Op):
    x = tensor_shape(op, 0)
    if len(op.operands) > 1 and op.operands[1].is_tensor and tensor_shape(op, 1) != x:
        raise ShapeError(f"{op.name}: the optional output tensor must match the input {list(x)}")
    return [x]


@register("ttnn.distribute_tensor", "ccl", ("mapper_config", "cq_id"), "tt-mlir runtime/lib/ttnn/operations/ccl/"
          "distribute_tensor.cpp @19c86fca (create_mesh_mapper + distribute_tensor)")
def distribute_tensor(op: Op):
    """The first device's shard of the global input (module docstring); None without a known mesh."""
    x = tensor_shape(op, 0)
    mesh = op_mesh(op)
    cfg = op.raw_attrs.get("mapper_config", "")
    places = placements(cfg)
    shape = mesh_shape_override(cfg) or (mesh.shape if mesh else None)
    if shape is None or not places:
        return None
    try:
        return [shard_shape(x, shape, places)]
    except ValueError as exc:
        raise ShapeError(f"{op.name}: {exc}") from None


register_passive(("ttnn.aggregate_tensor",), "ccl", ("composer_config",),
                 "tt-mlir runtime/lib/ttnn/operations/ccl/aggregate_tensor.cpp @19c86fca (host-side compose)")

register_passive(("ttnn.all_to_all_dispatch", "ttnn.all_to_all_combine",
                  "ttnn.moe_expert_token_remap"), "moe",
                 ("num_devices", "cluster_axis", "num_experts_per_tok", "output_shard_dim", "output_height_shard_dim",
                  "output_width_shard_dim", "hidden_size", "intermediate_size", "layer_id", "has_bias", "activation",
                  "reduction_size", "batch_size", "seq_size", "select_experts_k", "experts", "operandSegmentSizes",
                  "memory_config"), f"{_SRC} AllToAllDispatchOp/... ::verify (ranks only)")

# Host-side mapping and composition: tt-mlir's runtime asserts distribute_tensor's input is on the host and
# calls ttnn::distributed::distribute_tensor without a mesh device (a host multi-device tensor); aggregate_tensor
# composes the per-device tensors on the host (ttnn/cpp/ttnn/distributed/distributed_tensor.cpp
# ``aggregate_tensor``: ``composer.compose(get_device_tensors(tensor.cpu()))``, a read-back, no program).
@register_cb(("ttnn.distribute_tensor", "ttnn.aggregate_tensor"))
def host_mesh_mapping_program(ctx: CBContext):
    """No device program: the mapping and composition run on the host (see above).

    Raises:
        NoDeviceProgram: always.
    """
    raise NoDeviceProgram(f"{ctx.op.name} maps or composes the per-device tensors on the host")


register_check(("ttnn.distribute_tensor", "ttnn.aggregate_tensor"), "none",
               "runtime/lib/ttnn/operations/ccl/{distribute,aggregate}_tensor.cpp @19c86fca: host-side, no device program")


_PARTITION_SRC = ("tt-metal ttnn/cpp/ttnn/operations/ccl/mesh_partition/device/mesh_partition_program_factory.cpp "
                  "(MeshPartition::create_at: each device slices its chunk with the slice program factories)")


@register_cb("ttnn.mesh_partition")
def mesh_partition_program(ctx: CBContext):
    """Each device runs ``ttnn.slice`` of its own chunk of dim ``dim`` (device ``i`` of the ``n`` on the
    cluster axis, or of all devices in row-major order without one, takes ``[i * chunk, (i + 1) * chunk)``),
    with the slice factories of :mod:`ttanalyze.ops.data_movement`.  The devices' programs differ when a chunk
    boundary is not tile-aligned (row-major slicing on those devices); the model gives the programs of the device
    with the most CB bytes per core and names it.  From source: the fabric-less single-chip mock cannot
    partition over a mesh.

    Raises:
        CBModelError: no mesh known for the op, or see the slice model.
    """
    from .data_movement import _slice_steps  # the slice factories' model (one module per concern)
    from .tensors import operand, result

    op = ctx.op
    mesh = op_mesh(op)
    if mesh is None:
        raise CBModelError(f"{op.name}: no mesh (ttnn.get_device mesh_shape) to partition over")
    x, out = operand(ctx, 0), result(ctx)
    d = norm_dim(int_attr(op, "dim"), x.rank, op)
    n = _axis_size(op, mesh) if "cluster_axis" in op.attrs else mesh.devices
    chunk = -(-x.shape[d] // n)
    best = None
    for i in range(n):
        lo = min(i * chunk, x.shape[d])
        hi = min(lo + chunk, x.shape[d])
        if hi <= lo:
            continue
        dims = [(0, s, 1, s) if j != d else (lo, hi, 1, hi - lo) for j, s in enumerate(x.shape)]
        progs = _slice_steps(x, dims, out.with_(shape=tuple(n_ for *_, n_ in dims)), ctx)
        peak = max((p.per_core_bytes() for p in progs), default=0)
        if best is None or peak > best[0]:
            best = (peak, i, progs)
    if best is None or not best[2]:
        raise NoDeviceProgram(f"{op.name}: every device's chunk is the whole tensor (a view)")
    _, i, progs = best
    for p in progs:
        p.notes.append(f"device {i} of the {n} on the partitioned axis (the one with the most CB bytes per core; "
                       f"chunk [{i * chunk}, {min((i + 1) * chunk, x.shape[d])}) of dim {d})")
    return progs


register_check("ttnn.mesh_partition", "source", _PARTITION_SRC + "; the slice factories measured on the mock",
               ("SliceDeviceOperation",))


_MESH_SHARD_SRC = ("tt-mlir runtime/lib/ttnn/operations/ccl/mesh_shard.cpp @5d69b8449d^ (devices/replicate: host-side "
                   "distribute_tensor / aggregate_tensor) and @c7d92e92e8^ (identity: the tensor is forwarded); the op "
                   "was removed from the dialect by c7d92e92e8 (2026-05-28)")


@register("ttnn.mesh_shard", "ccl", ("shard_dims", "shard_direction", "shard_shape", "shard_type"), _MESH_SHARD_SRC)
def mesh_shard(op: Op):
    """``ttnn.mesh_shard`` of tt-mlir 2024-12 to 2026-05: the per-device shard (``full_to_shard``: dim ``i`` divided
    by ``shard_shape[i]``) or the global tensor (``shard_to_full``: multiplied); ``shard_type replicate`` keeps the
    shape.  A ``shard_shape`` of another rank than the tensor's, or a dim it does not divide, leaves the declared type
    unchecked (tt-mlir's verifiers do not check it)."""
    x = tensor_shape(op, 0)
    kind = op.raw_attrs.get("shard_type", "")
    if "replicate" in kind:
        return [x]
    factors = op.attrs.get("shard_shape")
    if not isinstance(factors, (list, tuple)) or len(factors) != len(x) or not all(isinstance(f, int) and f > 0
                                                                                    for f in factors):
        return None
    if "shard_to_full" in op.raw_attrs.get("shard_direction", ""):
        return [tuple(s * f for s, f in zip(x, factors))]
    if any(s % f for s, f in zip(x, factors)):
        return None
    return [tuple(s // f for s, f in zip(x, factors))]


@register_cb("ttnn.mesh_shard")
def mesh_shard_program(ctx: CBContext):
    """No device program: ``identity`` forwards the presharded tensor, ``devices``/``replicate`` map or compose it
    on the host (see :data:`_MESH_SHARD_SRC`).

    Raises:
        NoDeviceProgram: always.
    """
    kind = ctx.op.raw_attrs.get("shard_type", "")
    why = ("forwards the tensor the frontend already sharded (identity)" if "identity" in kind
           else "maps or composes the per-device tensors on the host")
    raise NoDeviceProgram(f"ttnn.mesh_shard {why}")


register_check("ttnn.mesh_shard", "none", _MESH_SHARD_SRC)


register_cb("ttnn.all_gather")(all_gather_program)
register_cb("ttnn.reduce_scatter")(reduce_scatter_program)
register_check("ttnn.all_gather", "mock", AG_SOURCE + "; measured on a 1x2 mock mesh: tests/test_ccl_measured.py against "
               "measurements/ccl/results_mesh.jsonl (multicast and unicast); the composite (all_broadcast + concat) "
               "against results_composite.jsonl and results_ring_composite.jsonl",
               ("AllGatherDeviceOperation", "AllBroadcastDeviceOperation"))
register_check("ttnn.reduce_scatter", "mock", RS_SOURCE + "; measured on mock meshes: tests/test_ccl_measured.py "
               "(the line program on 1x2, 9 cases; the ring program on a 1x4 ring, 5 cases, and its direct path named; "
               "the composite path, 13 cases on the line and 2 on the ring, results_composite.jsonl and "
               "results_ring_composite.jsonl)",
               ("ReduceScatterDeviceOperation",))
register_cb(("ttnn.all_reduce", "ttnn.all_reduce_async"))(all_reduce_program)
register_check(("ttnn.all_reduce", "ttnn.all_reduce_async"), "mock", AR_SOURCE + "; ttnn::all_reduce measured on "
               "mock meshes (tests/test_ccl_measured.py: 2 cases on a 1x2 line, 1 on a 1x4 ring; the all-gather + "
               "moreh_sum composite, 2 cases on the line)",
               ("ReduceScatterDeviceOperation", "AllGatherDeviceOperation"))
register_cb("ttnn.point_to_point")(point_to_point_program)
register_check("ttnn.point_to_point", "mock", P2P_SOURCE + "; measured on a 1x2 mock mesh: tests/test_ccl_measured.py "
               "against measurements/ccl/results_mesh.jsonl (3 cases)", ("PointToPointDeviceOperation",))
