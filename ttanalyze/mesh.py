"""Multi-device meshes: which mesh a program runs on, and how tensors map onto it.

How tt-mlir types a mesh program (read from tt-mlir @19c86fca: ``TTNNOpsAttrs.td``
``TTNN_TTNNLayoutAttr``, the CCL tests under ``test/ttmlir/Dialect/TTNN/ccl`` and
``test/python/golden/mlir_snippets/ttnn/ttnn_all_gather.mlir``):

* the module carries ``ttcore.meshes = #ttcore.meshes<[<"mesh" = RxC>]>`` and the device function
  opens the mesh with ``ttnn.get_device {mesh_shape = #ttnn<mesh_shape RxC>}``;
* every device-side tensor type is the **per-device** shape: ``ttnn.distribute_tensor`` turns a
  global host tensor into per-device shards (``<shard, d>`` placements divide dim ``d`` by the
  mesh dim, ``<replicate>`` keeps it), ``ttnn.all_gather`` multiplies its gather dim by the mesh
  dim of its ``cluster_axis`` (``1x1x32x32 -> 1x1x32x128`` on a 1x4 mesh), ``ttnn.reduce_scatter``
  divides its scatter dim, ``ttnn.aggregate_tensor`` composes the global tensor back on the host.

So the analyzer's per-op figures (tensor bytes per bank, CBs per core) are already those of one
device: every device of the mesh runs the same program on its own shard (SPMD), and a memory
finding holds on each device.  This module finds the mesh (:func:`mesh_of`) and says so in the
findings (:func:`device_scope`).  The module's meshes come from the parser (``Program.meshes``);
the mapper/composer attributes are read from their text here (the parser keeps them as
``DialectAttr``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod

from .ir.model import Func, Op, Program

_PLACEMENT = re.compile(r"<\s*(shard|replicate)\s*(?:,\s*(-?\d+)\s*(?::\s*\w+)?)?\s*>")
_OVERRIDE = re.compile(r"mesh_shape_override\s*=\s*\[([^\]]*)\]")
_COMPOSER_DIMS = re.compile(r"dims\s*=\s*\[([^\]]*)\]")


@dataclass(frozen=True)
class Mesh:
    """A device mesh: ``shape`` (rows, cols of devices) and where it was read (``source``)."""

    shape: tuple[int, ...]
    source: str

    @property
    def devices(self) -> int:
        return prod(self.shape) if self.shape else 1

    @property
    def label(self) -> str:
        return "x".join(map(str, self.shape))


def _ints(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", text)]


def mesh_of_func(func: Func | None) -> Mesh | None:
    """The mesh a function opens: the ``mesh_shape`` of its (first) ``ttnn.get_device``, or None."""
    if func is None:
        return None
    for op in func.ops:
        if op.name == "ttnn.get_device":
            dims = getattr(op.attrs.get("mesh_shape"), "dims", None)
            if dims:
                return Mesh(tuple(dims), f"ttnn.get_device at line {op.pos.line}")
    return None


def mesh_of(program: Program) -> Mesh | None:
    """The program's mesh: the module's ``ttcore.meshes`` (first mesh), else the ``mesh_shape`` of a
    ``ttnn.get_device``, else None (a single device)."""
    if program.meshes is not None and program.meshes.shapes:
        name, shape = program.meshes.shapes[0]
        return Mesh(tuple(shape), f'ttcore.meshes "{name}"')
    for func in program.funcs:
        mesh = mesh_of_func(func)
        if mesh is not None:
            return mesh
    return None


def op_mesh(op: Op) -> Mesh | None:
    """The mesh an op runs on: its function's ``ttnn.get_device`` mesh (shape rules see one op only)."""
    return mesh_of_func(op.func)


def device_scope(mesh: Mesh | None) -> str:
    """How a per-device figure reads on ``mesh``: "" for one device, else ``" on each of the N devices of
    mesh RxC"`` (the program is SPMD; tensor types are per device)."""
    if mesh is None or mesh.devices <= 1:
        return ""
    return f" on each of the {mesh.devices} devices of mesh {mesh.label}"


def placements(text: str) -> list[tuple[str, int | None]]:
    """``#ttnn.mesh_mapper_config<placements = [<shard, 2 : i64>, <replicate>]>`` -> ``[("shard", 2), ("replicate", None)]``."""
    return [(kind, int(dim) if dim else None) for kind, dim in _PLACEMENT.findall(text)]


def mesh_shape_override(text: str) -> tuple[int, ...] | None:
    """The ``mesh_shape_override = [...]`` of a mapper/composer config, or None."""
    m = _OVERRIDE.search(text)
    return tuple(_ints(m.group(1))) if m else None


def composer_dims(text: str) -> list[int]:
    """The ``dims = [...]`` of ``#ttnn.mesh_composer_config``."""
    m = _COMPOSER_DIMS.search(text)
    return _ints(m.group(1)) if m else []


def shard_shape(shape: tuple[int, ...], mesh_shape: tuple[int, ...], places: list[tuple[str, int | None]]
                ) -> tuple[int, ...]:
    """The per-device shape of a global tensor distributed with ``places`` (one per mesh dim).

    ``<shard, d>`` on mesh dim ``i`` splits dim ``d`` into ``mesh_shape[i]`` chunks of
    ``ceil(size / mesh_shape[i])`` (ttnn ``ShardTensor2dMesh`` / ``create_mesh_mapper`` chunking:
    the first devices get full chunks); ``<replicate>`` copies it.  Returns the first device's
    (largest) shard.

    Raises:
        ValueError: a placement count other than the mesh rank, or a shard dim out of range.
    """
    if len(places) != len(mesh_shape):
        raise ValueError(f"{len(places)} placements for a mesh of rank {len(mesh_shape)}")
    out = list(shape)
    for (kind, dim), n in zip(places, mesh_shape):
        if kind != "shard":
            continue
        if dim is None or not -len(shape) <= dim < len(shape):
            raise ValueError(f"shard dim {dim} out of range for rank {len(shape)}")
        out[dim] = -(-out[dim] // n)
    return tuple(out)
