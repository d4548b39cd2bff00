"""Mesh rules: how ``ttnn.distribute_tensor`` cuts a global tensor over the devices (TTA020).

tt-metal's mesh mapper (``ttnn/core/distributed/distributed_tensor.cpp`` ``TensorToMesh::Impl``,
stored version 0104e87b) cuts each sharded tensor dim with ``xtensor::chunk_ndim`` into chunks of
``ceil(size / n)`` (``n`` the mesh dim of the placement; the last chunk smaller, and fewer chunks than
devices when ``size`` is small), then builds one tensor spec for every shard
(``compute_tensor_spec_for_shards``): shards of different shapes are refused ("Shard shape mismatch"),
and on a 2D mesh so is a chunk count other than the devices' ("ND sharding requires the number of
chunks ... to match the mesh dimension size").  On a 1D mesh, fewer chunks than devices leaves the
last devices without a shard.
"""

from __future__ import annotations

from ..analysis import Analysis
from ..mesh import mesh_of_func, mesh_shape_override, placements
from . import Reporter, rule


def _chunks(size: int, n: int) -> list[int]:
    """Chunk sizes of ``xtensor::chunk``: ``ceil(size / n)`` each, the last what remains."""
    step = -(-size // n)
    return [min(step, size - i) for i in range(0, size, step)] if size > 0 else []


@rule("TTA020")
def uneven_distribution(a: Analysis, r: Reporter) -> None:
    for op in a.ops_named("ttnn.distribute_tensor"):
        if not op.operands or not op.operands[0].is_tensor:
            continue
        cfg = op.raw_attrs.get("mapper_config", "")
        mesh = mesh_of_func(op.func) or a.mesh
        shape = mesh_shape_override(cfg) or (mesh.shape if mesh else None)
        places = placements(cfg)
        if shape is None or len(places) != len(shape):
            continue
        x = op.operands[0].type.shape
        for axis, ((kind, dim), n) in enumerate(zip(places, shape)):
            if kind != "shard" or dim is None or not -len(x) <= dim < len(x) or n <= 1:
                continue
            size = x[dim]
            chunks = _chunks(size, n)
            mesh_label = "x".join(map(str, shape))
            data = {"dim": dim, "size": size, "mesh_axis": axis, "devices_on_axis": n, "chunks": chunks,
                    "mesh": mesh_label}
            if len(set(chunks)) > 1:
                r.op(op, f"distribute_tensor shards dim {dim} ({size}) over the {n} devices of mesh axis {axis} "
                         f"(mesh {mesh_label}) in chunks of {chunks[0]}, the last of {chunks[-1]}: device "
                         f"{len(chunks) - 1} along axis {axis} would hold a smaller shard; tt-metal builds one spec "
                         f"for all shards and refuses it (TT_FATAL \"Shard shape mismatch\")", data=data)
            elif len(chunks) < n and len(shape) > 1:
                r.op(op, f"distribute_tensor shards dim {dim} ({size}) into {len(chunks)} chunks for the {n} devices "
                         f"of mesh axis {axis} (mesh {mesh_label}): tt-metal refuses a 2D distribution whose chunk "
                         "count differs from the mesh dim (TT_FATAL \"ND sharding requires the number of chunks ...\")",
                     data=data)
            elif len(chunks) < n:
                r.op(op, f"distribute_tensor shards dim {dim} ({size}) into {len(chunks)} chunks for the {n} devices "
                         f"of mesh axis {axis} (mesh {mesh_label}): devices {len(chunks)}..{n - 1} along that axis get "
                         "no shard, and the ops after it run on fewer devices than the mesh",
                     data=data, severity="warning")
