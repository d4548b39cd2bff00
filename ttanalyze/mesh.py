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
finding holds on each device.  This module finds the meshes (every mesh the file declares or
opens: :func:`meshes_of`; the one a function runs on: :func:`func_mesh`) and says so in the
findings (:func:`device_scope`).  The module's meshes come from the parser (``Program.meshes``);
the mapper/composer attributes are read from their text here (the parser keeps them as
``DialectAttr``).

One exception to "types are per device": tt-mlir of 2025-07 to 2026-05 passes tensors the frontend
has already sharded ("presharded" arguments) with their **global** type, and cuts the type with a
``ttnn.mesh_shard`` of ``shard_type identity`` whose runtime forwards the tensor unchanged
(tt-mlir ``runtime/lib/ttnn/operations/ccl/mesh_shard.cpp`` @c7d92e92e8^: "Forward tensor in
runtime for identity shard type assuming that the input tensor is pre-sharded by frontend"):
each device holds the shard, not the global tensor.  :func:`presharded_values` finds them (through
``ttcore.load_cached`` calls too), and the analysis sizes them by the shard.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from math import prod

from .ir.model import Func, Op, Program, Value

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


def meshes_of(program: Program) -> list[Mesh]:
    """Every mesh of the file: each mesh of every module's ``ttcore.meshes`` (by name), then each
    ``mesh_shape`` a ``ttnn.get_device`` opens that no declared mesh has, in file order."""
    out = [Mesh(tuple(shape), f'ttcore.meshes "{name}"') for name, shape in (program.meshes.shapes
                                                                               if program.meshes else ())]
    for func in program.funcs:
        mesh = mesh_of_func(func)
        if mesh is not None and all(m.shape != mesh.shape for m in out):
            out.append(mesh)
    return out


def mesh_of(program: Program) -> Mesh | None:
    """The program's mesh: the one its entry function opens (``ttnn.get_device``), else the first of
    :func:`meshes_of`, else None (a single device)."""
    entry = mesh_of_func(program.entry)
    if entry is not None:
        declared = [m for m in meshes_of(program) if m.shape == entry.shape]
        return declared[0] if declared else entry
    found = meshes_of(program)
    return found[0] if found else None


def func_mesh(program: Program, func: Func | None, _seen: frozenset = frozenset()) -> Mesh | None:
    """The mesh ``func`` runs on: its own ``ttnn.get_device`` mesh, else the ``ttcore.meshes`` mesh its
    tensors name (``mesh = #ttcore.tensor_mesh<"m">``), else the mesh of a function that calls it
    (``ttcore.load_cached``, ``func.call``), else the program's mesh (:func:`mesh_of`)."""
    if func is None:
        return mesh_of(program)
    own = mesh_of_func(func)
    if own is not None:
        return own
    for v in [*func.args, *(r for op in func.ops for r in op.results)]:
        name = getattr(v.type, "tensor_mesh", None)
        shape = program.mesh_shape(name) if name else None
        if shape:
            return Mesh(tuple(shape), f'ttcore.meshes "{name}" (named by {v.name}\'s layout)')
    for op in program.ops:
        if op.callee == func.name and op.func is not func and op.func.name not in _seen:
            mesh = func_mesh(program, op.func, _seen | {func.name})
            if mesh is not None:
                return mesh
    return mesh_of(program)


def presharded_values(program: Program) -> dict[Value, Value]:
    """Values typed with a global shape whose buffer on each device is a shard (module docstring).

    Maps each such value to the value whose type is the per-device shard: the operand of a
    ``ttnn.mesh_shard`` ``full_to_shard`` of ``shard_type identity`` (its result), and, going up
    through calls, the caller's operand bound to such a function argument (``ttcore.load_cached``).
    Function arguments only: a global-typed value an op produced on the way (``to_device``,
    ``to_layout`` of a presharded host tensor) keeps its declared type, since the op models check
    their results against the declared types (the memory figures then count the global tensor there).
    """
    out: dict[Value, Value] = {}
    for op in program.ops:
        if (op.name == "ttnn.mesh_shard" and op.operands and op.results and op.results[0].is_tensor
                and "identity" in op.raw_attrs.get("shard_type", "")
                and "full_to_shard" in op.raw_attrs.get("shard_direction", "") and op.operands[0].producer is None):
            out[op.operands[0]] = op.results[0]
    if not out:  # nothing to carry up through calls
        return out
    funcs = {f.name: f for f in program.funcs}
    for _ in range(8):  # call depth
        added = False
        for op in program.ops:
            callee = funcs.get(op.callee) if op.callee else None
            if callee is None:
                continue
            for arg, v in zip(callee.args, op.operands):
                if arg in out and v not in out and v.producer is None:
                    out[v] = out[arg]
                    added = True
        if not added:
            break
    return out


_BOUND: "weakref.WeakKeyDictionary[Func, Mesh]" = weakref.WeakKeyDictionary()


def bind_meshes(program: Program) -> None:
    """Record :func:`func_mesh` of every function of ``program`` for :func:`op_mesh` (the op models see one op,
    not its program); :func:`ttanalyze.analysis.analyze` calls it first.  A module that declares no mesh and
    whose functions open none runs on one device: no function has a mesh, and none is looked for."""
    if program.meshes is None and all(mesh_of_func(f) is None for f in program.funcs):
        return
    for func in program.funcs:
        mesh = func_mesh(program, func)
        if mesh is not None:
            _BOUND[func] = mesh


def op_mesh(op: Op) -> Mesh | None:
    """The mesh an op runs on: its function's ``ttnn.get_device`` mesh, else the mesh :func:`bind_meshes` found
    for its function (named by its tensors, its callers' or the module's)."""
    return mesh_of_func(op.func) or _BOUND.get(op.func)


def device_scope(mesh: Mesh | None, devices: list[tuple[int, ...]] | None = None) -> str:
    """How a per-device figure reads on ``mesh``: "" for one device, ``" on each of the N devices of
    mesh RxC"`` (the program is SPMD; tensor types are per device), or, when the figure holds on some
    devices only (``devices``: their mesh coordinates), ``" on device (r, c) of mesh RxC"``."""
    if mesh is None or mesh.devices <= 1:
        return ""
    if devices:
        where = ", ".join("(" + ", ".join(map(str, d)) + ")" for d in devices)
        return f" on device{'s' if len(devices) > 1 else ''} {where} of mesh {mesh.label}"
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
