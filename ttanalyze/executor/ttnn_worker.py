"""The ttnn worker: replays one TTNN op per request on a ttnn device and reports tt-metal's figures.

Runs inside the executor environment (CPython 3.12 with ttnn 0.81.1, see
``scripts/setup-executor.sh``) as ``python -m ttanalyze.executor.ttnn_worker``.
It imports only ttnn, the standard library and
:mod:`ttanalyze.executor.protocol`; ttnn is imported in :func:`main`, so the
graph parsing (:func:`parse_graph`) and the attribute translation helpers can
be imported and tested without it.

Per request (protocol in :mod:`ttanalyze.executor.protocol`):

1. allocate the fillers, then the operands, with ``ttnn.empty`` (host operands
   with ``ttnn.zeros``);
2. run the op under ``ttnn._ttnn.graph.begin_graph_capture(RunMode.NO_DISPATCH)``:
   tt-metal builds every program (and checks its circular buffers against L1)
   but dispatches nothing, and the capture records each buffer and each
   program-scope L1 allocation;
3. parse the captured graph (:func:`parse_graph`) and describe the returned
   tensors;
4. deallocate everything, so each request starts with an empty L1.

A TT_FATAL/TT_THROW raised by the op becomes ``ok: false`` with its text; an
abort kills this process, which the client reports and survives.

The device is opened once (``ttnn.open_device(device_id=0, ...)``): a mock
cluster when ``TT_METAL_MOCK_CLUSTER_DESC_PATH`` is set (see :func:`choose_device`),
else the hardware ttnn finds.  The program cache is disabled: factories read the live
L1 state (tt-metal ``get_max_l1_space``) while the cache does not key on it.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ttanalyze.executor.protocol import (
    DEFAULT_MOCK_DESC, DEVICE_NODE_GLOBS, MOCK_ENV, MOCK_OVERRIDE_ENV, PROTOCOL_VERSION,
)

ttnn: Any = None  # the ttnn module, imported by main()


class Unsupported(Exception):
    """The request names an op, attribute or tensor the worker does not translate."""


# ---------------------------------------------------------------------------
# Captured graph -> program-scope L1 and L1 buffers
# ---------------------------------------------------------------------------

# Node types of the captured graph (ttnn 0.81.1 ``ttnn/graph.py`` pretty_format,
# tt-metal d80d9482).  Program-scope L1 = circular buffers (older factories),
# dataflow buffers (Metal 2.0 factories) and kernel scratchpads; tt-metal
# releases all three together before the next program
# (``circular_buffer_deallocate_all``).  A CB that is ``globally_allocated`` or a
# DFB that ``borrows_memory`` sits in a tensor's own L1 buffer and takes no
# program-scope space (tests/ttnn/unit_tests/base_functionality/test_graph_capture.py,
# tt-metal d134b03a: test_resource_usage_excludes_borrowed_dataflow_buffer).
_PROGRAM_L1_KINDS = {
    "circular_buffer_allocate": "cb",
    "dataflow_buffer_allocate": "dfb",
    "scratchpad_allocate": "scratchpad",
}
_RANGE_RE = re.compile(r"\[\(?(?:x=)?(\d+)[-,]\s*(?:y=)?(\d+)\)?\s*-\s*\(?(?:x=)?(\d+)[-,]\s*(?:y=)?(\d+)\)?\]")


def parse_core_range_set(text: str) -> list[list[int]]:
    """Core ranges of a captured ``core_range_set`` string as ``[[x0, y0, x1, y1], ...]`` (inclusive).

    Accepts tt-metal's two printed forms, ``{[0-0 - 10-8], [0-9 - 9-9]}``
    (ttnn 0.81.1) and ``{[(x=0,y=0) - (x=7,y=7)]}`` (older builds).

    Raises:
        ValueError: a non-empty string with no core range in it.
    """
    ranges = [[int(g) for g in m.groups()] for m in _RANGE_RE.finditer(text or "")]
    if not ranges and (text or "").strip("{} "):
        raise ValueError(f"unreadable core range set {text!r}")
    return ranges


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() in ("1", "true")


def _per_core_peak(cbs: list[dict[str, Any]]) -> int:
    """Max over cores of the bytes of the given program-scope buffers on that core.

    A buffer without core ranges counts on every core.
    """
    per_core: dict[tuple[int, int], int] = {}
    everywhere = 0
    for cb in cbs:
        if not cb["core_ranges"]:
            everywhere += cb["size"]
            continue
        cores = {(x, y) for x0, y0, x1, y1 in cb["core_ranges"]
                 for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}
        for core in cores:
            per_core[core] = per_core.get(core, 0) + cb["size"]
    return max(per_core.values(), default=0) + everywhere


def parse_graph(graph: list[dict[str, Any]]) -> dict[str, Any]:
    """Program-scope L1 and L1 buffers of a captured graph (a list of node dicts).

    Returns a dict with (sizes in bytes):

    * ``cbs``: every program-scope L1 allocation in capture order: ``kind``
      (``cb``/``dfb``/``scratchpad``), ``size`` per core, ``core_ranges``
      (``[[x0, y0, x1, y1], ...]``, inclusive), ``address`` (0 under
      NO_DISPATCH), ``borrowed`` (in a tensor's buffer, so no extra L1),
      ``program`` (index of the program: allocations between two
      ``circular_buffer_deallocate_all`` nodes), ``op`` (the innermost enclosing
      function, e.g. ``MatmulDeviceOperation``) and ``factory``
      (its ``program_factory_type`` when the capture records one).
    * ``cb_per_core_peak``: max over programs of max over cores of the
      non-borrowed bytes on that core; core ranges are honoured, unlike
      ttnn's ``extract_resource_usage_per_core``, which adds every CB.
    * ``l1_buffers``: each L1/L1_SMALL buffer allocated during the op:
      ``size`` (total), ``per_bank`` (tt-metal's ``max_size_per_bank``),
      ``page_size``, ``layout``, ``buffer_type``, ``address``, ``core_ranges``
      (None: interleaved over every bank) and ``freed`` (deallocated before
      the op returned).
    * ``l1_buffers_peak_per_bank``: peak of the summed ``per_bank`` of the L1
      buffers the op had alive at once.

    Raises:
        ValueError: a malformed node (missing size, unreadable core ranges).
    """
    cbs: list[dict[str, Any]] = []
    live_program: list[dict[str, Any]] = []
    program = 0
    program_seen = False  # a program-scope allocation since the last release
    peak = 0
    stack: list[dict[str, Any]] = []
    l1_buffers: list[dict[str, Any]] = []
    by_buffer_node: dict[int, dict[str, Any]] = {}  # ``buffer`` node counter -> its L1 buffer
    l1_live = 0
    l1_peak = 0
    for node in graph:
        kind = node.get("node_type")
        params = node.get("params") or {}
        if kind == "function_start":
            stack.append(params)
        elif kind == "function_end":
            if stack:
                stack.pop()
        elif kind == "circular_buffer_deallocate_all":
            if program_seen:
                program += 1
            program_seen = False
            live_program = []
        elif kind in _PROGRAM_L1_KINDS:
            if "size" not in params:
                raise ValueError(f"{kind} node {node.get('counter')} has no size")
            borrowed = _truthy(params.get("globally_allocated", 0)) or _truthy(params.get("borrows_memory", 0))
            owner = stack[-1] if stack else {}
            cb = {
                "kind": _PROGRAM_L1_KINDS[kind],
                "size": int(params["size"]),
                "core_ranges": parse_core_range_set(params.get("core_range_set", "")),
                "address": int(params.get("address", params.get("addr", 0)) or 0),
                "borrowed": borrowed,
                "program": program,
                "op": owner.get("name"),
                "factory": owner.get("program_factory_type"),
            }
            cbs.append(cb)
            program_seen = True
            if not borrowed:
                live_program.append(cb)
                peak = max(peak, _per_core_peak(live_program))
        elif kind == "buffer_allocate" and params.get("type") in ("L1", "L1_SMALL"):
            # connections: the ``buffer`` node this allocation belongs to
            buf = {
                "size": int(params["size"]),
                "per_bank": int(params.get("max_size_per_bank", 0)),
                "page_size": int(params.get("page_size", 0)),
                "layout": params.get("layout"),
                "buffer_type": params["type"].lower(),
                "address": int(params.get("address", 0)),
                "core_ranges": parse_core_range_set(params["core_range_set"]) if params.get("core_range_set") else None,
                "freed": False,
            }
            l1_buffers.append(buf)
            for target in node.get("connections", []):
                by_buffer_node[target] = buf
            l1_live += buf["per_bank"]
            l1_peak = max(l1_peak, l1_live)
        elif kind == "buffer_deallocate":
            for target in node.get("connections", []):
                buf = by_buffer_node.pop(target, None)
                if buf is not None:
                    buf["freed"] = True
                    l1_live -= buf["per_bank"]
    return {
        "cbs": cbs,
        "cb_per_core_peak": peak,
        "l1_buffers": l1_buffers,
        "l1_buffers_peak_per_bank": l1_peak,
    }


def short_error(exc: BaseException) -> str:
    """The text of a ttnn exception without tt-metal's backtrace."""
    text = str(exc) or type(exc).__name__
    cut = text.find("\nbacktrace:")
    return (text[:cut] if cut >= 0 else text).strip()


# The fields of a captured CB (:func:`parse_graph`) the measurement probes record, in their order.
CB_RECORD_FIELDS = ("size", "core_ranges", "borrowed", "op", "factory", "kind", "program")


def capture(run: Callable[[], Any], describe: Callable[[Any], Any] | None = None
            ) -> tuple[Any, str | None, list[dict[str, Any]]]:
    """Call ``run()`` under tt-metal's NO_DISPATCH graph capture (the op builds its programs and buffers, and
    no kernel runs): ``(describe(what run returned), or None on an error; the op's error as
    :func:`short_error`, or None; the captured graph)``.  ``describe`` (default :func:`output_records`) runs
    inside the capture, so an output that cannot be described is recorded as the op's error; what ``run``
    returned is released only after the capture ends, so its outputs' deallocation is not in the graph.
    """
    ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
    ret = described = err = None
    try:
        ret = run()
        described = (describe or output_records)(ret)
    except Exception as exc:  # a TT_FATAL of the op: recorded
        err = short_error(exc)
    graph = ttnn._ttnn.graph.end_graph_capture()
    del ret
    return described, err, graph


def cb_records(parsed: dict[str, Any], fields: tuple[str, ...] = CB_RECORD_FIELDS) -> list[dict[str, Any]]:
    """The CBs of a :func:`parse_graph` result, each reduced to ``fields`` (the probes' raw results)."""
    return [{k: c[k] for k in fields} for c in parsed["cbs"]]


def output_records(ret: Any) -> list[dict[str, Any]]:
    """:func:`describe_tensor` of what an op returned: a tensor, or each tensor of a list or tuple (entries
    that are None or not tensors skipped)."""
    outs = ret if isinstance(ret, (list, tuple)) else [ret]
    return [describe_tensor(t) for t in outs if t is not None and hasattr(t, "padded_shape")]


# ---------------------------------------------------------------------------
# Protocol names <-> ttnn objects
# ---------------------------------------------------------------------------

# tt-mlir DataType names (protocol) -> ttnn.DataType members.
DTYPES = {
    "bf16": "BFLOAT16", "f32": "FLOAT32", "bfp_bf8": "BFLOAT8_B", "bfp_bf4": "BFLOAT4_B",
    "u32": "UINT32", "si32": "INT32", "u16": "UINT16", "u8": "UINT8",
}
_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
_MEMORY_LAYOUTS = {
    "interleaved": "INTERLEAVED", "height_sharded": "HEIGHT_SHARDED",
    "width_sharded": "WIDTH_SHARDED", "block_sharded": "BLOCK_SHARDED",
}
_MATH_FIDELITY = {"lofi": "LoFi", "hifi2": "HiFi2", "hifi3": "HiFi3", "hifi4": "HiFi4"}


def _enum_name(value: Any) -> str:
    """``DataType.BFLOAT16`` / ``BufferType.DRAM`` -> ``BFLOAT16`` / ``DRAM``."""
    return getattr(value, "name", None) or str(value).rsplit(".", 1)[-1].split("::")[-1]


def name_of(value: Any, what: str) -> str:
    """The identifier inside an attribute value as ``attr_value`` renders it.

    ``"bf16"``, ``{"name": "bf16"}`` (a DataType or bare identifier),
    ``{"kind": ..., "value": "height_sharded"}`` (an enum attribute),
    ``{"value": "tile"}`` (a layout attribute) and a one-item generic node all
    give the bare name.

    Raises:
        Unsupported: anything else.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("value"), str):
            return value["value"]
        if isinstance(value.get("name"), str):
            return value["name"]
        items = value.get("items")
        if isinstance(items, list) and len(items) == 1 and not value.get("kw"):
            return name_of(items[0], what)
    raise Unsupported(f"unsupported {what} value {value!r}")


def tt_dtype(name: str):
    if name not in DTYPES:
        raise Unsupported(f"unsupported data type '{name}' (ttnn has {', '.join(sorted(DTYPES))})")
    return getattr(ttnn.DataType, DTYPES[name])


def tt_layout(name: str):
    if name == "tile":
        return ttnn.TILE_LAYOUT
    if name == "row_major":
        return ttnn.ROW_MAJOR_LAYOUT
    raise Unsupported(f"unsupported layout '{name}'")


def tt_memory_layout(name: str):
    if name not in _MEMORY_LAYOUTS:
        raise Unsupported(f"unsupported tensor memory layout '{name}'")
    return getattr(ttnn.TensorMemoryLayout, _MEMORY_LAYOUTS[name])


def tt_core_range_set(ranges: list[list[int]]):
    """``[[x0, y0, x1, y1], ...]`` -> ``ttnn.CoreRangeSet``."""
    return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(r[0], r[1]), ttnn.CoreCoord(r[2], r[3])) for r in ranges])


def crs_attr(value: dict[str, Any]) -> list[list[int]]:
    """A core range set attribute (``{"ranges": [{"start": {x, y}, "end": {x, y}}]}``) as ``[[x0, y0, x1, y1]]``."""
    try:
        return [[r["start"]["x"], r["start"]["y"], r["end"]["x"], r["end"]["y"]] for r in value["ranges"]]
    except (KeyError, TypeError) as exc:
        raise Unsupported(f"unsupported core range set {value!r}") from exc


def memory_config(desc: dict[str, Any]):
    """The ``ttnn.MemoryConfig`` of a device tensor descriptor.

    Raises:
        Unsupported: host tensors, ND sharding, a sharded layout without shard.
    """
    bt = desc.get("buffer_type")
    if bt not in ("dram", "l1"):
        raise Unsupported(f"no device memory config for buffer type '{bt}'")
    layout = desc.get("memory_layout") or "interleaved"
    buffer_type = ttnn.BufferType.DRAM if bt == "dram" else ttnn.BufferType.L1
    if layout == "interleaved":
        return ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED, buffer_type)
    shard = desc.get("shard")
    if not shard:
        raise Unsupported(f"{layout} tensor without a shard spec")
    orientation = getattr(ttnn.ShardOrientation, (shard.get("orientation") or "row_major").upper())
    spec = ttnn.ShardSpec(tt_core_range_set(shard["core_ranges"]), list(shard["shape"]), orientation)
    return ttnn.MemoryConfig(tt_memory_layout(layout), buffer_type, spec)


def create_tensor(desc: dict[str, Any], device):
    """A tensor for a descriptor: ``ttnn.empty`` on the device, ``ttnn.zeros`` on the host."""
    dtype, layout = tt_dtype(desc["dtype"]), tt_layout(desc["layout"])
    if desc.get("buffer_type") == "system_memory":
        return ttnn.zeros(list(desc["shape"]), dtype=dtype, layout=layout)
    return ttnn.empty(list(desc["shape"]), dtype, layout, device, memory_config(desc))


def describe_tensor(t) -> dict[str, Any]:
    """A protocol tensor descriptor of a ttnn tensor, with its padded shape."""
    mc = t.memory_config() if t.storage_type() == ttnn.StorageType.DEVICE else None
    shard = None
    if mc is not None and mc.shard_spec is not None:
        spec = mc.shard_spec
        shard = {
            "core_ranges": [[r.start.x, r.start.y, r.end.x, r.end.y] for r in spec.grid.ranges()],
            "shape": list(spec.shape),
            "orientation": _enum_name(spec.orientation).lower(),
        }
    dtype = _enum_name(t.dtype)
    return {
        "shape": list(t.shape),
        "padded_shape": list(t.padded_shape),
        "dtype": _DTYPE_NAMES.get(dtype, dtype.lower()),
        "layout": _enum_name(t.layout).lower(),
        "buffer_type": _enum_name(mc.buffer_type).lower() if mc is not None else "system_memory",
        "memory_layout": _enum_name(mc.memory_layout).lower() if mc is not None else None,
        "shard": shard,
    }


# ---------------------------------------------------------------------------
# Attribute translation
# ---------------------------------------------------------------------------


def unary_op_type(name: str):
    """tt-mlir ``UnaryOpType`` name (``rsqrt``, ``is_finite``) -> ``ttnn.UnaryOpType``.

    tt-mlir's names are the snake_case of ttnn's enum: ``relu_max`` ->
    ``RELU_MAX``, ``is_finite`` -> ``ISFINITE`` (tt-mlir
    ``lib/OpModel/TTNN/Conversion.cpp`` maps them one to one).

    Raises:
        Unsupported: no such ttnn enum member.
    """
    for candidate in (name.upper(), name.upper().replace("_", "")):
        if hasattr(ttnn.UnaryOpType, candidate):
            return getattr(ttnn.UnaryOpType, candidate)
    raise Unsupported(f"unsupported unary op type '{name}'")


def unary_with_param(value: Any):
    """``{"op_type": "relu", "params": [...]}`` (or the generic ``<op_type = relu>`` node) -> ``ttnn.UnaryWithParam``."""
    if not isinstance(value, dict):
        raise Unsupported(f"unsupported activation {value!r}")
    kw = value.get("kw") if isinstance(value.get("kw"), dict) else value
    if "op_type" not in kw:
        raise Unsupported(f"activation without op_type: {value!r}")
    params = [float(p) for p in (kw.get("params") or [])]
    return ttnn.UnaryWithParam(unary_op_type(name_of(kw["op_type"], "unary op_type")), *params)


def compute_config(value: dict[str, Any] | None):
    """``#ttnn.device_compute_kernel_config`` -> ``ttnn.WormholeComputeKernelConfig`` (None stays None).

    Only the fields the IR sets are passed; the others keep the struct's
    defaults, as tt-mlir's runtime builds it.
    """
    if value is None:
        return None
    kw: dict[str, Any] = {}
    for key, v in value.items():
        if v is None:
            continue
        if key == "math_fidelity":
            fid = _MATH_FIDELITY.get(name_of(v, "math_fidelity").lower())
            if fid is None:
                raise Unsupported(f"unsupported math fidelity {v!r}")
            kw[key] = getattr(ttnn.MathFidelity, fid)
        elif key in ("math_approx_mode", "fp32_dest_acc_en", "packer_l1_acc", "dst_full_sync_en"):
            kw[key] = bool(v)
        else:
            raise Unsupported(f"unsupported compute_config field '{key}'")
    return ttnn.WormholeComputeKernelConfig(**kw)


_MATMUL_CONFIGS = {
    "reuse": "MatmulMultiCoreReuseProgramConfig",
    "mcast_2d": "MatmulMultiCoreReuseMultiCastProgramConfig",
    "mcast_1d": "MatmulMultiCoreReuseMultiCast1DProgramConfig",
    "dram_sharded": "MatmulMultiCoreReuseMultiCastDRAMShardedProgramConfig",
}
_MATMUL_PARAM_NAMES = {"per_core_m": "per_core_M", "per_core_n": "per_core_N"}


def matmul_program_config(value: dict[str, Any] | None):
    """A matmul program config attribute (``{"kind": "mcast_1d", ...}``) -> the ttnn config object.

    Parameter names are tt-mlir's (``TTNNOpsAttrs.td``); ``per_core_m/n``
    become ttnn's ``per_core_M/N``, ``compute_with_storage_grid_size`` a
    ``CoreCoord``, ``hop_cores`` a ``CoreRangeSet``, ``fused_activation`` a
    ``UnaryWithParam``.

    Raises:
        Unsupported: an unknown kind or a parameter the ttnn constructor rejects.
    """
    if value is None:
        return None
    kind = value.get("kind")
    if kind not in _MATMUL_CONFIGS:
        raise Unsupported(f"unsupported matmul program config kind {kind!r}")
    kw: dict[str, Any] = {}
    for key, v in value.items():
        if key == "kind":
            continue
        name = _MATMUL_PARAM_NAMES.get(key, key)
        if key == "compute_with_storage_grid_size":
            v = ttnn.CoreCoord(v["x"], v["y"])
        elif key == "hop_cores":
            v = tt_core_range_set(crs_attr(v))
        elif key == "fused_activation":
            v = unary_with_param(v) if v else None
        kw[name] = v
    cls = getattr(ttnn, _MATMUL_CONFIGS[kind])
    try:
        return cls(**kw)
    except TypeError as exc:
        raise Unsupported(f"ttnn.{_MATMUL_CONFIGS[kind]} rejects {sorted(kw)}: {exc}") from exc


def conv2d_config(value: dict[str, Any] | None):
    """``#ttnn.conv2d_config<...>`` -> ``ttnn.Conv2dConfig`` (fields by tt-mlir's names, which are ttnn's)."""
    if value is None:
        return None
    kw: dict[str, Any] = {}
    for key, v in value.items():
        if key == "kind" or v is None:
            continue
        if key == "weights_dtype":
            v = tt_dtype(name_of(v, key))
        elif key == "activation":
            v = unary_with_param(v)
        elif key == "shard_layout":
            v = tt_memory_layout(name_of(v, key))
        elif key == "core_grid":
            v = tt_core_range_set(crs_attr(v))
        elif key == "output_layout":
            v = tt_layout(name_of(v, key))
        elif not isinstance(v, (bool, int)):
            raise Unsupported(f"unsupported conv2d_config field {key} = {v!r}")
        kw[key] = v
    try:
        return ttnn.Conv2dConfig(**kw)
    except TypeError as exc:
        raise Unsupported(f"ttnn.Conv2dConfig rejects {sorted(kw)}: {exc}") from exc


def layer_norm_program_config(value: dict[str, Any] | None):
    """``#ttnn.layer_norm_sharded_multi_core_program_config`` -> ``ttnn.LayerNormShardedMultiCoreProgramConfig``."""
    if value is None:
        return None
    kw = {k: v for k, v in value.items() if k != "kind"}
    if "compute_with_storage_grid_size" in kw:
        grid = kw["compute_with_storage_grid_size"]
        kw["compute_with_storage_grid_size"] = ttnn.CoreCoord(grid["x"], grid["y"])
    try:
        return ttnn.LayerNormShardedMultiCoreProgramConfig(**kw)
    except TypeError as exc:
        raise Unsupported(f"ttnn.LayerNormShardedMultiCoreProgramConfig rejects {sorted(kw)}: {exc}") from exc


def accepts_kwarg(fn: Any, name: str) -> bool:
    """Whether a ttnn operation takes keyword ``name`` in any overload (from its nanobind signature)."""
    f = getattr(fn, "function", fn)
    sigs = getattr(type(f).__call__, "__nb_signature__", None) or getattr(f, "__nb_signature__", None) or ()
    return any(re.search(rf"\b{re.escape(name)}\s*:", s[0]) for s in sigs)


# ---------------------------------------------------------------------------
# Op handlers
# ---------------------------------------------------------------------------


@dataclass
class Call:
    """One request, ready to run: its tensors and attributes and the device.

    ``ins`` holds one entry per IR operand (a ttnn tensor, or None for a
    non-tensor operand such as the device); ``res`` the declared result
    descriptors.
    """

    op: str
    ins: list[Any]
    attrs: dict[str, Any]
    res: list[dict[str, Any]]
    device: Any
    segments: list[int] | None = field(default=None)

    @property
    def tensors(self) -> list[Any]:
        return [t for t in self.ins if t is not None]

    def operand(self, i: int):
        ts = self.tensors
        if i >= len(ts):
            raise Unsupported(f"{self.op} needs operand {i}, got {len(ts)} tensors")
        return ts[i]

    def segment(self, i: int):
        """Operand group ``i`` under ``operandSegmentSizes`` (None when empty); positional without it."""
        if self.segments is None:
            ts = self.tensors
            return ts[i] if i < len(ts) else None
        start = sum(self.segments[:i])
        return self.ins[start] if self.segments[i] else None

    @property
    def mc(self):
        """Memory config of the declared result."""
        return memory_config(self.res[0])

    @property
    def dtype(self):
        return tt_dtype(self.res[0]["dtype"])

    @property
    def layout(self):
        return tt_layout(self.res[0]["layout"])


Handler = Callable[[Call], Any]
HANDLERS: dict[str, tuple[Handler, frozenset[str], dict[str, Any]]] = {}


def handler(names: str | tuple[str, ...], attrs: tuple[str, ...] = (), defaults: dict[str, Any] | None = None):
    """Register ``fn`` for ``names``: ``attrs`` it reads; ``defaults`` attributes accepted only at that value."""
    def wrap(fn: Handler) -> Handler:
        for name in (names,) if isinstance(names, str) else names:
            HANDLERS[name] = (fn, frozenset(attrs) | {"operandSegmentSizes"}, dict(defaults or {}))
        return fn
    return wrap


def check_attrs(op: str, attrs: dict[str, Any]) -> Handler:
    """The handler of ``op`` after checking it reads every attribute given.

    Raises:
        Unsupported: no handler, or an attribute it does not read (or one it
            accepts only at its default, set to something else).
    """
    if op not in HANDLERS:
        raise Unsupported(f"unsupported op {op}")
    fn, known, defaults = HANDLERS[op]
    for key, value in attrs.items():
        if key in known:
            continue
        if key in defaults and value == defaults[key]:
            continue
        raise Unsupported(f"unsupported attribute {key} = {value!r} on {op}")
    return fn


@handler("ttnn.to_layout", ("layout", "dtype", "memory_config"))
def _to_layout(c: Call):
    return ttnn.to_layout(c.operand(0), c.layout, dtype=c.dtype, memory_config=c.mc)


@handler(("ttnn.untilize", "ttnn.tilize"), ("use_multicore",))
def _tilize(c: Call):
    # ttnn's own ops (not TTNN dialect ops): pin the single- or multi-core factory.
    fn = ttnn.untilize if c.op == "ttnn.untilize" else ttnn.tilize
    kw = {"dtype": c.dtype} if c.op == "ttnn.tilize" else {}
    return fn(c.operand(0), memory_config=c.mc, use_multicore=bool(c.attrs.get("use_multicore", True)), **kw)


@handler("ttnn.to_memory_config", ("memory_config",))
def _to_memory_config(c: Call):
    return ttnn.to_memory_config(c.operand(0), c.mc)


@handler("ttnn.typecast", ("dtype", "memory_config"))
def _typecast(c: Call):
    return ttnn.typecast(c.operand(0), c.dtype, memory_config=c.mc)


@handler("ttnn.reshape", ("shape", "memory_config"))
def _reshape(c: Call):
    return ttnn.reshape(c.operand(0), list(c.attrs["shape"]), memory_config=c.mc)


@handler("ttnn.permute", ("permutation", "pad_value", "memory_config"))
def _permute(c: Call):
    return ttnn.permute(c.operand(0), list(c.attrs["permutation"]), memory_config=c.mc,
                        pad_value=float(c.attrs.get("pad_value", 0.0)))


@handler("ttnn.transpose", ("dim0", "dim1", "memory_config"))
def _transpose(c: Call):
    return ttnn.transpose(c.operand(0), int(c.attrs["dim0"]), int(c.attrs["dim1"]), memory_config=c.mc)


@handler("ttnn.pad", ("padding", "value", "use_multicore", "memory_config"))
def _pad(c: Call):
    flat = list(c.attrs["padding"])
    pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
    return ttnn.pad(c.operand(0), pairs, float(c.attrs.get("value", 0.0)),
                    use_multicore=bool(c.attrs.get("use_multicore", True)), memory_config=c.mc)


@handler("ttnn.slice_static", ("begins", "ends", "step", "memory_config"))
def _slice(c: Call):
    x = c.operand(0)
    step = list(c.attrs.get("step") or [1] * len(c.attrs["begins"]))
    return ttnn.slice(x, list(c.attrs["begins"]), list(c.attrs["ends"]), step, memory_config=c.mc)


@handler("ttnn.concat", ("dim", "memory_config"))
def _concat(c: Call):
    return ttnn.concat(c.tensors, int(c.attrs["dim"]), memory_config=c.mc)


@handler("ttnn.repeat_interleave", ("repeats", "dim", "memory_config"))
def _repeat_interleave(c: Call):
    return ttnn.repeat_interleave(c.operand(0), int(c.attrs["repeats"]), int(c.attrs["dim"]), memory_config=c.mc)


@handler("ttnn.repeat", ("repeat_dims", "memory_config"))
def _repeat(c: Call):
    dims = c.attrs["repeat_dims"]
    dims = dims["dims"] if isinstance(dims, dict) else dims
    return ttnn.repeat(c.operand(0), list(dims), memory_config=c.mc)


@handler("ttnn.embedding", ("memory_config", "dtype"))
def _embedding(c: Call):
    return ttnn.embedding(c.operand(0), c.operand(1), layout=c.layout, dtype=c.dtype, memory_config=c.mc)


# Eltwise op names of ttanalyze.ops.eltwise whose ttnn function has another name.
_TTNN_NAME = {"clamp_scalar": "clamp", "pow_tensor": "pow", "pow_scalar": "pow"}
_UNARY = (
    "abs", "cbrt", "ceil", "sign", "cos", "acos", "exp", "erf", "erfc", "floor", "gelu", "isfinite",
    "logical_not", "bitwise_not", "neg", "tan", "atan", "tanh", "reciprocal", "relu", "relu6", "sin",
    "asin", "asinh", "sqrt", "rsqrt", "sigmoid", "hardsigmoid", "silu", "mish", "log", "log1p", "expm1",
)
_BINARY = (
    "add", "divide", "multiply", "logical_right_shift", "subtract", "eq", "ne", "ge", "gt", "le", "lt",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "logical_left_shift", "bitwise_or",
    "bitwise_xor", "maximum", "minimum", "remainder", "pow_tensor", "atan2",
)
_ACTIVATION_KWARGS = ("activations", "input_tensor_a_activations", "input_tensor_b_activations")


def _ttnn_fn(op: str):
    short = op.split(".", 1)[1]
    return getattr(ttnn, _TTNN_NAME.get(short, short))


@handler(tuple(f"ttnn.{n}" for n in _UNARY), ("memory_config",))
def _unary(c: Call):
    return _ttnn_fn(c.op)(c.operand(0), memory_config=c.mc)


@handler("ttnn.leaky_relu", ("parameter", "memory_config"))
def _leaky_relu(c: Call):
    return ttnn.leaky_relu(c.operand(0), float(c.attrs.get("parameter", 0.01)), memory_config=c.mc)


@handler("ttnn.clamp_scalar", ("min", "max", "memory_config"))
def _clamp(c: Call):
    return ttnn.clamp(c.operand(0), min=c.attrs["min"], max=c.attrs["max"], memory_config=c.mc)


@handler("ttnn.pow_scalar", ("rhs", "exponent", "memory_config"))
def _pow_scalar(c: Call):
    exponent = c.attrs.get("rhs", c.attrs.get("exponent"))
    if exponent is None:
        raise Unsupported("ttnn.pow_scalar without an exponent")
    return ttnn.pow(c.operand(0), exponent, memory_config=c.mc)


@handler(tuple(f"ttnn.{n}" for n in _BINARY), (*_ACTIVATION_KWARGS, "dtype", "memory_config"))
def _binary(c: Call):
    fn = _ttnn_fn(c.op)
    kw: dict[str, Any] = {"memory_config": c.mc}
    if accepts_kwarg(fn, "dtype"):
        kw["dtype"] = c.dtype
    for name in _ACTIVATION_KWARGS:
        acts = c.attrs.get(name) or []
        if not acts:
            continue
        if not accepts_kwarg(fn, name):
            raise Unsupported(f"{c.op} maps to a ttnn function that takes no {name}")
        kw[name] = [unary_with_param(a) for a in acts]
    return fn(c.operand(0), c.operand(1), **kw)


@handler("ttnn.where", ("memory_config",))
def _where(c: Call):
    return ttnn.where(c.operand(0), c.operand(1), c.operand(2), memory_config=c.mc)


@handler(("ttnn.sum", "ttnn.mean", "ttnn.max", "ttnn.min"), ("dim_arg", "keep_dim", "compute_config", "memory_config"))
def _reduce(c: Call):
    dims = c.attrs.get("dim_arg")
    return _ttnn_fn(c.op)(c.operand(0), dim=dims, keepdim=bool(c.attrs.get("keep_dim", False)),
                          memory_config=c.mc, compute_kernel_config=compute_config(c.attrs.get("compute_config")))


@handler("ttnn.softmax", ("dimension", "numericStable", "compute_config", "memory_config"))
def _softmax(c: Call):
    return ttnn.softmax(c.operand(0), int(c.attrs.get("dimension", -1)), memory_config=c.mc,
                        compute_kernel_config=compute_config(c.attrs.get("compute_config")),
                        numeric_stable=bool(c.attrs.get("numericStable", False)))


@handler(("ttnn.layer_norm", "ttnn.rms_norm"), ("epsilon", "compute_config", "memory_config", "program_config"))
def _norm(c: Call):
    fn = ttnn.layer_norm if c.op == "ttnn.layer_norm" else ttnn.rms_norm
    return fn(c.segment(0), epsilon=float(c.attrs.get("epsilon", 1e-12)), weight=c.segment(1), bias=c.segment(2),
              memory_config=c.mc, program_config=layer_norm_program_config(c.attrs.get("program_config")),
              compute_kernel_config=compute_config(c.attrs.get("compute_config")))


@handler("ttnn.group_norm", ("num_groups", "epsilon", "core_grid", "memory_config"))
def _group_norm(c: Call):
    # As tt-mlir's runtime calls it (runtime/lib/ttnn/operations/normalization/group_norm.cpp @697d510f):
    # dtype and inplace left to ttnn (nullopt; the Python binding's own default is inplace=True),
    # core_grid only when the IR gives one.
    grid = c.attrs.get("core_grid")
    return ttnn.group_norm(c.segment(0), num_groups=int(c.attrs["num_groups"]),
                           epsilon=float(c.attrs.get("epsilon", 1e-12)), input_mask=c.segment(1),
                           weight=c.segment(2), bias=c.segment(3), memory_config=c.mc, inplace=None,
                           core_grid=ttnn.CoreGrid(x=grid["x"], y=grid["y"]) if grid else None)


_MATMUL_ATTRS = ("transpose_a", "transpose_b", "matmul_program_config", "activation", "compute_config",
                 "dtype", "memory_config")


@handler(("ttnn.matmul", "ttnn.linear"), _MATMUL_ATTRS)
def _matmul(c: Call):
    kw: dict[str, Any] = {
        "transpose_a": bool(c.attrs.get("transpose_a", False)),
        "transpose_b": bool(c.attrs.get("transpose_b", False)),
        "memory_config": c.mc,
        "dtype": c.dtype,
        "program_config": matmul_program_config(c.attrs.get("matmul_program_config")),
        "compute_kernel_config": compute_config(c.attrs.get("compute_config")),
    }
    if c.attrs.get("activation"):
        kw["activation"] = c.attrs["activation"]
    if c.op == "ttnn.linear":
        bias = c.tensors[2] if len(c.tensors) > 2 else None
        return ttnn.linear(c.operand(0), c.operand(1), bias=bias, **kw)
    return ttnn.matmul(c.operand(0), c.operand(1), **kw)


_CONV_ATTRS = ("in_channels", "out_channels", "batch_size", "input_height", "input_width", "kernel_size",
               "stride", "padding", "dilation", "groups", "conv2d_config", "compute_config", "conv2d_slice_config")
_SLICE_TYPES = {"dram_height": "DRAM_HEIGHT", "dram_width": "DRAM_WIDTH", "l1_full": "L1_FULL"}


def conv2d_slice_config(value: dict[str, Any] | None):
    """``#ttnn.conv2d_slice_config<slice_type, num_slices>`` -> ``ttnn.Conv2dSliceConfig``
    (tt-mlir runtime/lib/ttnn/operations/utils/utils.cpp createConv2dSliceConfig @19c86fca)."""
    if value is None:
        return None
    kind = _SLICE_TYPES.get(str(value.get("slice_type")))
    if kind is None:
        raise Unsupported(f"unsupported conv2d slice type {value.get('slice_type')!r}")
    return ttnn.Conv2dSliceConfig(slice_type=getattr(ttnn.Conv2dSliceConfig.SliceTypeEnum, kind),
                                  num_slices=int(value.get("num_slices", 0)))


@handler("ttnn.conv2d", _CONV_ATTRS)
def _conv2d(c: Call):
    ts = c.tensors
    bias = ts[2] if len(ts) > 2 else None
    a = c.attrs
    return ttnn.conv2d(
        input_tensor=c.operand(0), weight_tensor=c.operand(1), bias_tensor=bias, device=c.device,
        in_channels=int(a["in_channels"]), out_channels=int(a["out_channels"]), batch_size=int(a["batch_size"]),
        input_height=int(a["input_height"]), input_width=int(a["input_width"]),
        kernel_size=list(a["kernel_size"]), stride=list(a.get("stride", [1, 1])),
        padding=list(a.get("padding", [0, 0])), dilation=list(a.get("dilation", [1, 1])),
        groups=int(a.get("groups", 1)), dtype=c.dtype, conv_config=conv2d_config(a.get("conv2d_config")),
        compute_config=compute_config(a.get("compute_config")), memory_config=c.mc,
        slice_config=conv2d_slice_config(a.get("conv2d_slice_config")),
    )


_CONV3D_CONFIG_FIELDS = {"t_out_block": "T_out_block", "w_out_block": "W_out_block", "h_out_block": "H_out_block",
                         "c_out_block": "C_out_block", "c_in_block": "C_in_block"}


@handler("ttnn.conv3d", ("in_channels", "out_channels", "batch_size", "input_depth", "input_height", "input_width",
                         "kernel_size", "stride", "padding", "padding_mode", "groups", "conv3d_config",
                         "compute_config", "dtype"), {"dilation": [1, 1, 1]})
def _conv3d(c: Call):
    # As tt-mlir's runtime calls it (runtime/lib/ttnn/operations/conv/conv3d.cpp @19c86fca): output dtype
    # bf16 unless the IR sets one; dilation fixed at 1; compute config through
    # init_device_compute_kernel_config(arch, cfg, HiFi4, approx=True, fp32=True, packer=False); the
    # config's grid is the device's (the flatbuffer at 19c86fca does not carry the IR's).
    a = c.attrs
    kw: dict[str, Any] = {"compute_with_storage_grid_size": c.device.compute_with_storage_grid_size()}
    cfg = a.get("conv3d_config") or {}
    for key, v in cfg.items():
        if key in ("kind", "compute_with_storage_grid_size") or v is None:
            continue
        if key == "weights_dtype":
            kw[key] = tt_dtype(name_of(v, key))
        elif key in _CONV3D_CONFIG_FIELDS:
            kw[_CONV3D_CONFIG_FIELDS[key]] = int(v)
        else:
            raise Unsupported(f"unsupported conv3d_config field {key} = {v!r}")
    cc = {k: v for k, v in (a.get("compute_config") or {}).items() if v is not None}
    fid = _MATH_FIDELITY.get(name_of(cc["math_fidelity"], "math_fidelity").lower()) if "math_fidelity" in cc else None
    compute = ttnn.init_device_compute_kernel_config(
        c.device.arch(), math_fidelity=getattr(ttnn.MathFidelity, fid or "HiFi4"),
        math_approx_mode=bool(cc.get("math_approx_mode", True)), fp32_dest_acc_en=bool(cc.get("fp32_dest_acc_en", True)),
        packer_l1_acc=bool(cc.get("packer_l1_acc", False)))
    ts = c.tensors
    return ttnn.experimental.conv3d(
        input_tensor=c.operand(0), weight_tensor=c.operand(1), device=c.device,
        bias_tensor=ts[2] if len(ts) > 2 else None, config=ttnn.Conv3dConfig(**kw),
        dtype=tt_dtype(name_of(a["dtype"], "dtype")) if a.get("dtype") is not None else ttnn.bfloat16,
        output_channels=int(a["out_channels"]), kernel_size=list(a["kernel_size"]), stride=list(a["stride"]),
        padding=list(a["padding"]), dilation=[1, 1, 1], padding_mode=str(a.get("padding_mode", "zeros")),
        groups=int(a.get("groups", 1)), memory_config=c.mc, compute_kernel_config=compute)


@handler("ttnn.argmax", ("dim", "keep_dim", "use_multicore", "memory_config"))
def _argmax(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/reduction/argmax.cpp @19c86fca: no sub-core grids, the IR's memcfg;
    # the runtime drops use_multicore (ttnn 0.81.1's argmax has no such argument).
    return ttnn.argmax(c.operand(0), dim=c.attrs.get("dim"), keepdim=bool(c.attrs.get("keep_dim", False)),
                       memory_config=c.mc)


@handler("ttnn.topk", ("k", "dim", "largest", "sorted", "memory_config"))
def _topk(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/reduction/topk.cpp @19c86fca.
    return ttnn.topk(c.operand(0), int(c.attrs["k"]), dim=int(c.attrs.get("dim", -1)),
                     largest=bool(c.attrs.get("largest", True)), sorted=bool(c.attrs.get("sorted", True)),
                     memory_config=c.mc)


@handler("ttnn.full", ("shape", "fill_value", "dtype", "layout", "memory_config"))
def _full(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/creation/full.cpp @19c86fca: dtype, layout and memory config of the
    # result unless the IR sets them; on the device when the op takes one.
    shape = c.attrs["shape"]
    dims = shape["dims"] if isinstance(shape, dict) else shape
    on_device = c.res[0].get("buffer_type") != "system_memory"
    fill = c.attrs["fill_value"]
    if isinstance(fill, str):  # a hex float attribute (0xFF800000 : f32) renders as "-inf"/"inf"/"nan"
        fill = float(fill)
    return ttnn.full(list(dims), fill_value=fill, dtype=c.dtype, layout=c.layout,
                     device=c.device if on_device else None, memory_config=c.mc if on_device else None)


@handler(("ttnn.zeros", "ttnn.ones", "ttnn.empty"), ("shape", "dtype", "layout", "memory_config"))
def _named_full(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/creation/{zeros,ones,empty}.cpp @19c86fca: shape, dtype, layout,
    # device and memory config (the result's when the IR gives none).
    shape = c.attrs["shape"]
    dims = list(shape["dims"] if isinstance(shape, dict) else shape)
    if c.op == "ttnn.empty":
        return ttnn.empty(dims, c.dtype, c.layout, c.device, c.mc)
    fn = ttnn.zeros if c.op == "ttnn.zeros" else ttnn.ones
    return fn(dims, dtype=c.dtype, layout=c.layout, device=c.device, memory_config=c.mc)


@handler("ttnn.arange", ("start", "end", "step", "dtype", "layout", "memory_config"))
def _arange(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/creation/arange.cpp @19c86fca: ttnn::arange(start, end, step, dtype,
    # device, memory_config, layout).
    return ttnn.arange(int(c.attrs["start"]), int(c.attrs["end"]), int(c.attrs["step"]), dtype=c.dtype,
                       device=c.device, memory_config=c.mc, layout=c.layout)


_POOL_ATTRS = ("batch_size", "input_height", "input_width", "channels", "kernel_size", "stride", "padding",
               "ceil_mode", "applied_shard_scheme", "reallocate_halo_output", "config_tensors_in_dram")


def _pool_kwargs(c: Call) -> tuple[list[Any], dict[str, Any]]:
    a = c.attrs
    args = [c.operand(0), int(a["batch_size"]), int(a["input_height"]), int(a["input_width"]), int(a["channels"]),
            list(a["kernel_size"]), list(a["stride"]), list(a["padding"])]
    kw: dict[str, Any] = {"memory_config": c.mc, "dtype": c.dtype, "output_layout": c.layout,
                          "reallocate_halo_output": bool(a.get("reallocate_halo_output", True))}
    if a.get("applied_shard_scheme") is not None:
        kw["applied_shard_scheme"] = tt_memory_layout(name_of(a["applied_shard_scheme"], "applied_shard_scheme"))
    if a.get("config_tensors_in_dram") is not None:
        kw["config_tensor_in_dram"] = bool(a["config_tensors_in_dram"])
    return args, kw


@handler("ttnn.max_pool2d", (*_POOL_ATTRS, "dilation"), {"in_place_halo": False})
def _max_pool2d(c: Call):
    args, kw = _pool_kwargs(c)
    return ttnn.max_pool2d(*args, list(c.attrs.get("dilation", [1, 1])), bool(c.attrs.get("ceil_mode", False)), **kw)


@handler("ttnn.max_pool2d_with_indices", (*_POOL_ATTRS, "dilation"), {"in_place_halo": False})
def _max_pool2d_with_indices(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/pool/pool2d.cpp @19c86fca: max_pool2d with return_indices = true, bf16
    # row-major values.
    args, kw = _pool_kwargs(c)
    kw |= {"dtype": ttnn.bfloat16, "output_layout": ttnn.ROW_MAJOR_LAYOUT, "return_indices": True}
    return tuple(ttnn.max_pool2d(*args, list(c.attrs.get("dilation", [1, 1])), bool(c.attrs.get("ceil_mode", False)),
                                 **kw))


@handler("ttnn.avg_pool2d", (*_POOL_ATTRS, "count_include_pad"), {"in_place_halo": False, "dilation": [1, 1]})
def _avg_pool2d(c: Call):
    args, kw = _pool_kwargs(c)
    return ttnn.avg_pool2d(*args, bool(c.attrs.get("ceil_mode", False)),
                           bool(c.attrs.get("count_include_pad", True)), **kw)


@handler("ttnn.upsample", ("scale_factor", "mode", "memory_config"))
def _upsample(c: Call):
    scale = c.attrs["scale_factor"]
    return ttnn.upsample(c.operand(0), scale if isinstance(scale, int) else list(scale),
                         mode=str(c.attrs.get("mode", "nearest")), memory_config=c.mc)


# Transformer and indexing ops of the dialect (ttanalyze.ops.transformer/attention/sort_scatter), called as
# tt-mlir's runtime calls them (runtime/lib/ttnn/operations/{transformer,data_movement,reduction}/*.cpp @19c86fca).


@handler("ttnn.nlp_concat_heads")
def _nlp_concat_heads(c: Call):
    return ttnn.experimental.nlp_concat_heads(c.operand(0), memory_config=c.mc)


@handler("ttnn.concatenate_heads")
def _concatenate_heads(c: Call):
    return ttnn.transformer.concatenate_heads(c.operand(0), memory_config=c.mc)


# Ops that write into an operand and declare no result (TTNNOps.td @19c86fca: FillCacheOp, UpdateCacheOp).
IN_PLACE_OPS = frozenset({"ttnn.fill_cache", "ttnn.update_cache", "ttnn.copy", "ttnn.write_tensor", "ttnn.dump_tensor"})


@handler("ttnn.fill_cache", ("batch_offset",))
def _fill_cache(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/kv_cache/fill_cache.cpp @19c86fca: ttnn::fill_cache(cache, input,
    # batch_offset) (the op's batch_offset is fill_cache's batch index)
    return ttnn.fill_cache(c.operand(0), c.operand(1), int(c.attrs.get("batch_offset", 0)))


@handler("ttnn.update_cache", ("batch_offset",))
def _update_cache(c: Call):
    # tt-mlir runtime/lib/ttnn/operations/kv_cache/update_cache.cpp @19c86fca: the runtime reads the update
    # index tensor on the host and passes its value; the operands here are uninitialized, so index 0
    return ttnn.update_cache(c.operand(0), c.operand(1), 0, batch_offset=int(c.attrs.get("batch_offset", 0)))


@handler("ttnn.split_query_key_value_and_split_heads", ("num_heads", "num_kv_heads", "transpose_key"))
def _split_qkv(c: Call):
    # operands: input, optional kv_input (positional: ODS has a single optional group)
    kv = c.tensors[1] if len(c.tensors) > 1 else None
    kv_heads = c.attrs.get("num_kv_heads")
    return ttnn.transformer.split_query_key_value_and_split_heads(
        c.operand(0), kv, num_heads=int(c.attrs["num_heads"]),
        num_kv_heads=int(kv_heads) if kv_heads is not None else None,
        transpose_key=bool(c.attrs.get("transpose_key", False)), memory_config=c.mc)


@handler("ttnn.scaled_dot_product_attention", ("is_causal", "scale", "sliding_window_size"))
def _sdpa(c: Call):
    # operand groups: query, key, value, attention_mask?, attention_sink?
    kw: dict[str, Any] = {"is_causal": bool(c.attrs.get("is_causal", True)), "memory_config": c.mc}
    if c.attrs.get("scale") is not None:
        kw["scale"] = float(c.attrs["scale"])
    if c.attrs.get("sliding_window_size") is not None:
        kw["sliding_window_size"] = int(c.attrs["sliding_window_size"])
    if c.segment(4) is not None:
        kw["attention_sink"] = c.segment(4)
    return ttnn.transformer.scaled_dot_product_attention(c.segment(0), c.segment(1), c.segment(2),
                                                         attn_mask=c.segment(3), **kw)


@handler("ttnn.flash_mla_prefill", ("head_dim_v", "is_causal", "scale"))
def _flash_mla_prefill(c: Call):
    # operand groups: query, key, value?, attention_mask?
    kw: dict[str, Any] = {"is_causal": bool(c.attrs.get("is_causal", True)), "memory_config": c.mc}
    if c.attrs.get("scale") is not None:
        kw["scale"] = float(c.attrs["scale"])
    # ttnn 0.81.1 takes either head_dim_v (V is K's first columns) or V itself, positionally
    third = c.segment(2) if c.segment(2) is not None else int(c.attrs["head_dim_v"])
    return ttnn.transformer.flash_mla_prefill(c.segment(0), c.segment(1), third, attn_mask=c.segment(3), **kw)


@handler("ttnn.chunked_scaled_dot_product_attention", ("scale",))
def _chunked_sdpa(c: Call):
    # the runtime's flexible overload: the chunk start index is a device tensor
    kw: dict[str, Any] = {"memory_config": c.mc}
    if c.attrs.get("scale") is not None:
        kw["scale"] = float(c.attrs["scale"])
    return ttnn.transformer.chunked_scaled_dot_product_attention(
        c.operand(0), c.operand(1), c.operand(2), c.operand(3), chunk_start_idx_tensor=c.operand(4), **kw)


@handler(("ttnn.scaled_dot_product_attention_decode", "ttnn.paged_scaled_dot_product_attention_decode"),
         ("is_causal", "scale", "sliding_window_size"))
def _sdpa_decode(c: Call):
    # operand groups: query, key, value, [page_table,] attention_mask?, cur_pos_tensor?, attention_sink?
    kw: dict[str, Any] = {"is_causal": bool(c.attrs.get("is_causal", True)), "memory_config": c.mc}
    if c.attrs.get("scale") is not None:
        kw["scale"] = float(c.attrs["scale"])
    if c.attrs.get("sliding_window_size") is not None:
        kw["sliding_window_size"] = int(c.attrs["sliding_window_size"])
    if c.op == "ttnn.paged_scaled_dot_product_attention_decode":
        return ttnn.transformer.paged_scaled_dot_product_attention_decode(
            c.segment(0), c.segment(1), c.segment(2), c.segment(3), attn_mask=c.segment(4), cur_pos_tensor=c.segment(5),
            attention_sink=c.segment(6), **kw)
    return ttnn.transformer.scaled_dot_product_attention_decode(
        c.segment(0), c.segment(1), c.segment(2), attn_mask=c.segment(3), cur_pos_tensor=c.segment(4),
        attention_sink=c.segment(5), **kw)


@handler("ttnn.rotary_embedding_llama", ("is_decode_mode", "compute_config"))
def _rotary_embedding_llama(c: Call):
    return ttnn.experimental.rotary_embedding_llama(
        c.operand(0), c.operand(1), c.operand(2), c.operand(3), is_decode_mode=bool(c.attrs.get("is_decode_mode", False)),
        memory_config=c.mc, compute_kernel_config=compute_config(c.attrs.get("compute_config")))


@handler("ttnn.rotary_embedding", ("token_index", "compute_config"))
def _rotary_embedding(c: Call):
    token = c.attrs.get("token_index")
    return ttnn.experimental.rotary_embedding(
        c.operand(0), c.operand(1), c.operand(2), int(token) if token is not None else None, memory_config=c.mc,
        compute_kernel_config=compute_config(c.attrs.get("compute_config")))


@handler("ttnn.sort", ("dim", "descending", "stable"))
def _sort(c: Call):
    return ttnn.sort(c.operand(0), dim=int(c.attrs.get("dim", -1)), descending=bool(c.attrs.get("descending", False)),
                     stable=bool(c.attrs.get("stable", False)), memory_config=c.mc)


@handler("ttnn.cumsum", ("dim",))
def _cumsum(c: Call):
    return ttnn.cumsum(c.operand(0), int(c.attrs["dim"]), dtype=c.dtype, memory_config=c.mc)


@handler("ttnn.gather", ("dim",))
def _gather(c: Call):
    return ttnn.gather(c.operand(0), int(c.attrs["dim"]), index=c.operand(1), memory_config=c.mc)


@handler("ttnn.cumprod", ("dim",))
def _cumprod(c: Call):
    return ttnn.cumprod(c.operand(0), int(c.attrs["dim"]), memory_config=c.mc)


# tt-mlir runtime scatter.cpp: the reduce type's name as ttnn spells it (none for invalid)
_SCATTER_REDUCE = {"sum": "add", "prod": "multiply", "max": "amax", "min": "amin"}


@handler("ttnn.scatter", ("dim", "scatter_reduce_type"))
def _scatter(c: Call):
    red = c.attrs.get("scatter_reduce_type")
    reduce = _SCATTER_REDUCE.get(name_of(red, "scatter_reduce_type")) if red is not None else None
    return ttnn.scatter(c.operand(0), int(c.attrs["dim"]), c.operand(1), c.operand(2), memory_config=c.mc,
                        reduce=reduce)


# dialect-misc's ops (tt-mlir runtime runtime/lib/ttnn/operations/* @19c86fca: the calls it makes)


@handler("ttnn.assign", ("memory_config", "dtype"))
def _assign(c: Call):
    return ttnn.assign(c.operand(0), memory_config=c.mc, dtype=c.dtype)


@handler("ttnn.bitcast_convert", ("dtype", "memory_config"))
def _bitcast_convert(c: Call):
    return ttnn.bitcast(c.operand(0), c.dtype, memory_config=c.mc)


@handler("ttnn.dropout", ("prob", "scale", "seed", "use_per_device_seed"))
def _dropout(c: Call):
    return ttnn.experimental.dropout(c.operand(0), float(c.attrs.get("prob", 0.0)), float(c.attrs.get("scale", 1.0)),
                                     int(c.attrs.get("seed", 0)),
                                     use_per_device_seed=bool(c.attrs.get("use_per_device_seed", True)))


@handler(("ttnn.batch_norm_inference", "ttnn.batch_norm_training"), ("epsilon", "momentum", "memory_config"))
def _batch_norm(c: Call):
    # runtime/lib/ttnn/operations/normalization/batch_norm.cpp: no memory config (the input's is kept)
    return ttnn.batch_norm(c.segment(0), running_mean=c.segment(1), running_var=c.segment(2),
                           training=c.op == "ttnn.batch_norm_training", eps=float(c.attrs.get("epsilon", 1e-5)),
                           momentum=float(c.attrs.get("momentum", 0.1)), weight=c.segment(3), bias=c.segment(4))


@handler("ttnn.indexer_score_dsa", ("chunk_start_idx", "cluster_axis"))
def _indexer_score_dsa(c: Call):
    # runtime/lib/ttnn/operations/transformer/indexer_score_dsa.cpp: ttnn's default program and compute configs
    axis = c.attrs.get("cluster_axis")
    return ttnn.experimental.indexer_score_dsa(c.operand(0), c.operand(1), c.operand(2),
                                               chunk_start_idx=int(c.attrs.get("chunk_start_idx", 0)),
                                               seq_shard_axes=None if axis is None else [int(axis)])


@handler(("ttnn.quantize", "ttnn.dequantize", "ttnn.requantize"), ("output_dtype", "memory_config"))
def _quantization(c: Call):
    # Per-tensor: tt-mlir's flatbuffer passes a 1-element scale and zero point as scalars; their values do
    # not change the programs.
    if any(math.prod(list(t.shape)) != 1 for t in c.tensors[1:]):
        raise Unsupported(f"{c.op} with per-axis scales is not supported")
    if c.op == "ttnn.requantize":
        return ttnn.requantize(c.operand(0), 0.1, 0, 0.2, 0, dtype=c.dtype, memory_config=c.mc)
    fn = ttnn.quantize if c.op == "ttnn.quantize" else ttnn.dequantize
    return fn(c.operand(0), 0.1, 0, dtype=c.dtype, memory_config=c.mc)


@handler("ttnn.global_avg_pool2d", ("dtype", "memory_config"))
def _global_avg_pool2d(c: Call):
    # runtime/lib/ttnn/operations/pool/pool2d.cpp: avg_pool2d over the whole H x W window (the op's dtype, else
    # the input's; the result's layout), then a reshape to [N, 1, 1, C]
    x = c.operand(0)
    n, h, w, ch = list(x.shape)
    out = ttnn.avg_pool2d(x, n, h, w, ch, [h, w], [1, 1], [0, 0], False, True, None, memory_config=c.mc,
                          dtype=c.dtype if c.attrs.get("dtype") is not None else x.dtype,
                          output_layout=c.layout)
    return ttnn.reshape(out, [n, 1, 1, ch], memory_config=c.mc)


# engineer gens's ops: the calls tt-mlir's runtime makes (runtime/lib/ttnn/operations/* @19c86fca); the
# memory config is the declared result's, as for the ops above.


@handler("ttnn.prod", ("dim_arg", "keep_dim", "memory_config"))
def _prod(c: Call):
    # reduction/prod.cpp: ttnn::prod(in, dim_arg (optional), keep_dim, memory_config)
    dim = c.attrs.get("dim_arg")
    return ttnn.prod(c.operand(0), None if dim is None else int(dim), bool(c.attrs.get("keep_dim", False)),
                     memory_config=c.mc)


@handler("ttnn.clamp_tensor", ("memory_config",))
def _clamp_tensor(c: Call):
    # eltwise/unary/unary_composite.cpp runEltwiseUnaryCompositeClampTensorOp: ttnn::clamp(in, min, max, memcfg)
    return ttnn.clamp(c.operand(0), c.operand(1), c.operand(2), memory_config=c.mc)


@handler("ttnn.copy")
def _copy(c: Call):
    # data_movement/copy.cpp: ttnn::copy(src, dst) writes dst; no result
    return ttnn.copy(c.operand(0), c.operand(1))


@handler("ttnn.rand", ("size", "dtype", "layout", "memory_config", "low", "high", "seed"))
def _rand(c: Call):
    # rand/rand.cpp: ttnn::rand(size, device, dtype, layout, memcfg (DRAM when absent), low, high, seed)
    size = c.attrs["size"]
    size = size["dims"] if isinstance(size, dict) else size
    return ttnn.rand(list(size), c.device, dtype=c.dtype, layout=c.layout, memory_config=c.mc,
                     low=float(c.attrs.get("low", 0.0)), high=float(c.attrs.get("high", 1.0)),
                     seed=int(c.attrs.get("seed", 0)))


@handler("ttnn.conv1d", ("in_channels", "out_channels", "batch_size", "input_length", "kernel_size", "stride",
                         "padding", "dilation", "groups", "conv2d_config", "compute_config", "conv2d_slice_config"))
def _conv1d(c: Call):
    # conv/conv1d.cpp: geometry positionally, padding a (left, right) pair, the result's memory config
    a, ts = c.attrs, c.tensors
    return ttnn.conv1d(
        input_tensor=c.operand(0), weight_tensor=c.operand(1), device=c.device, in_channels=int(a["in_channels"]),
        out_channels=int(a["out_channels"]), batch_size=int(a["batch_size"]), input_length=int(a["input_length"]),
        kernel_size=int(a["kernel_size"]), stride=int(a.get("stride", 1)), padding=tuple(a.get("padding", (0, 0))),
        dilation=int(a.get("dilation", 1)), groups=int(a.get("groups", 1)), bias_tensor=ts[2] if len(ts) > 2 else None,
        conv_config=conv2d_config(a.get("conv2d_config")), compute_config=compute_config(a.get("compute_config")),
        memory_config=c.mc, slice_config=conv2d_slice_config(a.get("conv2d_slice_config")))


_CONVT_ATTRS = ("in_channels", "out_channels", "batch_size", "input_height", "input_width", "kernel_size", "stride",
                "padding", "output_padding", "dilation", "groups", "conv2d_config", "compute_config",
                "conv2d_slice_config")


@handler("ttnn.conv_transpose2d", (*_CONVT_ATTRS, "dtype"))
def _conv_transpose2d(c: Call):
    # conv/conv_transpose2d.cpp: geometry, the IR's conv2d config, compute config and the result's memory config
    a, ts = c.attrs, c.tensors
    return ttnn.conv_transpose2d(
        input_tensor=c.operand(0), weight_tensor=c.operand(1), device=c.device, in_channels=int(a["in_channels"]),
        out_channels=int(a["out_channels"]), batch_size=int(a["batch_size"]), input_height=int(a["input_height"]),
        input_width=int(a["input_width"]), kernel_size=list(a["kernel_size"]), stride=list(a["stride"]),
        padding=list(a["padding"]), output_padding=list(a.get("output_padding", [0, 0])),
        dilation=list(a.get("dilation", [1, 1])), groups=int(a.get("groups", 1)),
        bias_tensor=ts[2] if len(ts) > 2 else None, conv_config=conv2d_config(a.get("conv2d_config")),
        compute_config=compute_config(a.get("compute_config")), memory_config=c.mc,
        dram_slice_config=conv2d_slice_config(a.get("conv2d_slice_config")))


@handler(("ttnn.prepare_conv_transpose2d_weights", "ttnn.prepare_conv_transpose2d_bias"),
         (*_CONVT_ATTRS, "input_memory_config", "input_tensor_layout", "weights_format", "has_bias", "input_dtype",
          "output_dtype"), {"mirror_kernel": True})
def _prepare_conv_transpose2d(c: Call):
    # conv/prepare_conv_transpose2d_weights.cpp / _bias.cpp: the input's memory config and layout as the IR gives them
    a = c.attrs
    kw: dict[str, Any] = dict(
        input_memory_config=memory_config(a["input_memory_config"] | {"shard": None}),
        input_layout=tt_layout(name_of(a["input_tensor_layout"], "layout")), in_channels=int(a["in_channels"]),
        out_channels=int(a["out_channels"]), batch_size=int(a["batch_size"]), input_height=int(a["input_height"]),
        input_width=int(a["input_width"]), kernel_size=list(a["kernel_size"]), stride=list(a["stride"]),
        padding=list(a["padding"]), dilation=list(a.get("dilation", [1, 1])), groups=int(a.get("groups", 1)),
        device=c.device, input_dtype=tt_dtype(name_of(a["input_dtype"], "dtype")),
        output_dtype=tt_dtype(name_of(a["output_dtype"], "dtype")) if a.get("output_dtype") is not None else None,
        conv_config=conv2d_config(a.get("conv2d_config")), compute_config=compute_config(a.get("compute_config")))
    if c.op.endswith("_bias"):
        return ttnn.prepare_conv_transpose2d_bias(bias_tensor=c.operand(0), **kw)
    return ttnn.prepare_conv_transpose2d_weights(
        weight_tensor=c.operand(0), weights_format=str(a.get("weights_format", "IOHW")),
        output_padding=list(a.get("output_padding", [0, 0])), has_bias=bool(a.get("has_bias", False)), **kw)


@handler("ttnn.slice_dynamic", ("step", "memory_config"))
def _slice_dynamic(c: Call):
    # data_movement/slice.cpp runSliceDynamicOp: begins/ends device tensors, step only when the IR has one
    step = c.attrs.get("step")
    return ttnn.slice(c.operand(0), c.operand(1), c.operand(2), list(step) if step else None, memory_config=c.mc)


@handler("ttnn.embedding_bw", ("dtype", "memory_config"))
def _embedding_bw(c: Call):
    # embedding/embedding_backward.cpp: ttnn::embedding_bw(input, weight, in_grad, dtype, memcfg)
    return ttnn.embedding_bw(c.operand(0), c.operand(1), c.operand(2), dtype=c.dtype, memory_config=c.mc)


@handler("ttnn.sparse_matmul", ("is_input_a_sparse", "is_input_b_sparse", "nnz", "program_config", "compute_config",
                                "memory_config"))
def _sparse_matmul(c: Call):
    # matmul/matmul.cpp: the IR's 1D program config, nnz, the sparse flags, the result's memory config
    a = c.attrs
    nnz = a.get("nnz")
    return ttnn.sparse_matmul(c.operand(0), c.operand(1), sparsity=c.operand(2),
                              program_config=matmul_program_config(a.get("program_config")),
                              nnz=None if nnz is None else int(nnz),
                              is_input_a_sparse=bool(a.get("is_input_a_sparse", False)),
                              is_input_b_sparse=bool(a.get("is_input_b_sparse", True)), memory_config=c.mc,
                              compute_kernel_config=compute_config(a.get("compute_config")))


@handler("ttnn.sampling", ("seed",))
def _sampling(c: Call):
    # reduction/sampling.cpp: a thin 1:1 dispatch
    seed = c.attrs.get("seed")
    return ttnn.sampling(*(c.operand(i) for i in range(5)), seed=None if seed is None else int(seed))


@handler(("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"),
         ("dtype", "compute_config", "memory_config", "use_2d_core_grid"))
def _pre_all_gather(c: Call):
    # normalization/{rms,layer}_norm_pre_all_gather.cpp: dtype, residual, compute config, memory config
    kw: dict[str, Any] = {"dtype": c.dtype, "residual_input_tensor": c.segment(1), "memory_config": c.mc,
                          "compute_kernel_config": compute_config(c.attrs.get("compute_config"))}
    if c.op == "ttnn.rms_norm_pre_all_gather":
        if c.attrs.get("use_2d_core_grid") is not None:
            kw["use_2d_core_grid"] = bool(c.attrs["use_2d_core_grid"])
        return ttnn.rms_norm_pre_all_gather(c.segment(0), **kw)
    return ttnn.layer_norm_pre_all_gather(c.segment(0), recip_tensor=c.segment(2), **kw)


@handler("ttnn.layer_norm_post_all_gather", ("epsilon", "dtype", "compute_config", "memory_config"))
def _layer_norm_post_all_gather(c: Call):
    # normalization/layer_norm_post_all_gather.cpp: input, stats, epsilon, weight?, bias?, memcfg, compute, dtype
    dtype = c.attrs.get("dtype")
    return ttnn.layer_norm_post_all_gather(
        c.segment(0), c.segment(1), epsilon=float(c.attrs.get("epsilon", 1e-12)), weight=c.segment(2),
        bias=c.segment(3), memory_config=c.mc, compute_kernel_config=compute_config(c.attrs.get("compute_config")),
        dtype=tt_dtype(name_of(dtype, "dtype")) if dtype is not None else None)


@handler("ttnn.dit_rms_norm_unary_fused", ("epsilon", "activation", "compute_config", "memory_config"))
def _dit_rms_norm_unary_fused(c: Call):
    # normalization/dit_rms_norm_unary_fused.cpp: the activation string as ttnn's string_to_unary_with_param reads it
    return ttnn.experimental.dit_rms_norm_unary_fused(
        c.segment(0), epsilon=float(c.attrs.get("epsilon", 1e-12)), weight=c.segment(1), bias=c.segment(2),
        residual_input_tensor=c.segment(3), memory_config=c.mc,
        compute_kernel_config=compute_config(c.attrs.get("compute_config")), activation=c.attrs.get("activation"))


@handler("ttnn.topk_router_gpt", ("k", "num_experts"))
def _topk_router_gpt(c: Call):
    # reduction/topk_router_gpt.cpp
    return ttnn.experimental.topk_router_gpt(c.operand(0), weight_tensor=c.operand(1), bias_tensor=c.operand(2),
                                             k=int(c.attrs["k"]), num_experts=int(c.attrs["num_experts"]))


@handler("ttnn.moe_expert_token_remap", ("reduction_size", "memory_config"))
def _moe_expert_token_remap(c: Call):
    # ccl/moe_expert_token_remap.cpp
    return ttnn.moe_expert_token_remap(c.operand(0), c.operand(1), c.operand(2), memory_config=c.mc,
                                       reduction_size=int(c.attrs.get("reduction_size", 32)))


@handler("ttnn.paged_flash_multi_latent_attention_decode", ("head_dim_v", "is_causal", "scale"))
def _paged_flash_mla_decode(c: Call):
    # transformer/paged_flash_multi_latent_attention_decode.cpp: SDPAProgramConfig{k_chunk_size = 32, the device's grid}
    grid = c.device.compute_with_storage_grid_size()
    # (a value-initialized C++ struct: q_chunk_size 0, sdpa_config.hpp)
    pc = ttnn.SDPAProgramConfig(compute_with_storage_grid_size=grid, q_chunk_size=0, k_chunk_size=32)
    scale = c.attrs.get("scale")
    return ttnn.transformer.paged_flash_multi_latent_attention_decode(
        c.segment(0), c.segment(1), c.segment(2), head_dim_v=int(c.attrs["head_dim_v"]), page_table_tensor=c.segment(3),
        is_causal=bool(c.attrs.get("is_causal", True)), attn_mask=c.segment(4), cur_pos_tensor=c.segment(5),
        attention_sink=c.segment(6), scale=None if scale is None else float(scale), memory_config=c.mc,
        program_config=pc)


@handler("ttnn.write_tensor", ("blocking", "cq_id"))
def _write_tensor(c: Call):
    # data_movement/write_tensor.cpp: ttnn::copy_to_device(host, device, cq) (ttnn 0.81.1: copy_host_to_device_tensor)
    if int(c.attrs.get("cq_id", 0)) != 0:
        raise Unsupported("write_tensor on command queue 1")
    ttnn.copy_host_to_device_tensor(c.operand(0), c.operand(1))


@handler(("ttnn.dump_tensor", "ttnn.load_tensor"), ("file_path",))
def _tensor_file_io(c: Call):
    # tensor_serialization/{dump,load}_tensor.cpp: ttnn::dump_tensor_flatbuffer / load_tensor_flatbuffer (ttnn 0.81.1:
    # dump_tensor / load_tensor, its own format); the file is a temporary one, not the IR's path.  load_tensor
    # loads what a device tensor of the declared result dumps (made and dumped inside the capture: host reads).
    fd, path = tempfile.mkstemp(suffix=".tensorbin")  # ttnn checks the extension
    os.close(fd)
    try:
        if c.op == "ttnn.dump_tensor":
            ttnn.dump_tensor(path, c.operand(0))
            return None
        src = create_tensor(c.res[0], c.device)
        ttnn.dump_tensor(path, src)
        ttnn.deallocate(src)
        return ttnn.load_tensor(path, device=c.device)
    finally:
        os.unlink(path)


# ---------------------------------------------------------------------------
# The worker
# ---------------------------------------------------------------------------


class Worker:
    """Owns the device; answers requests."""

    def __init__(self, open_kwargs: dict[str, int]):
        self.open_kwargs = open_kwargs
        self.device = ttnn.open_device(device_id=0, **open_kwargs)
        self.device.disable_and_clear_program_cache()
        self.info = self._device_info()

    def _device_info(self) -> dict[str, Any]:
        """Device figures from tt-metal: a graph report (its ``devices`` and ``metadata``) and the allocator."""
        dev = self.device
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
            probe = ttnn.empty([32, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, dev, ttnn.L1_MEMORY_CONFIG)
            ttnn._ttnn.graph.end_graph_capture_to_file(path)
            ttnn.deallocate(probe)
            with open(path) as f:
                report = json.load(f)
        finally:
            os.unlink(path)
        d = report["devices"][0]
        meta = report.get("metadata", {})
        grid = dev.compute_with_storage_grid_size()
        l1_view = ttnn._ttnn.device.GetMemoryView(dev, ttnn.BufferType.L1)
        small_view = ttnn._ttnn.device.GetMemoryView(dev, ttnn.BufferType.L1_SMALL)
        dram_view = ttnn._ttnn.device.GetMemoryView(dev, ttnn.BufferType.DRAM)
        return {
            "arch": _enum_name(dev.arch()).lower(),
            "grid": [grid.x, grid.y],
            "l1_size": int(d["worker_l1_size"]),
            "l1_base": int(ttnn._ttnn.device.GetAllocatorBaseAddress(dev, ttnn.BufferType.L1)),
            "l1_bank_size": int(l1_view.total_bytes_per_bank),
            "l1_num_banks": int(l1_view.num_banks),
            "l1_small_size": int(small_view.total_bytes_per_bank) if small_view.num_banks else 0,
            "cb_limit": int(d["cb_limit"]),
            "dram_num_banks": int(dram_view.num_banks),
            "dram_bank_size": int(dram_view.total_bytes_per_bank),
            "mock": bool(os.environ.get(MOCK_ENV)),
            "open_kwargs": dict(self.open_kwargs),
            "ttnn_version": meta.get("version", getattr(ttnn, "__version__", "")),
            "tt_metal_sha": meta.get("git_sha", ""),
        }

    def envelope(self, rid: Any) -> dict[str, Any]:
        return {"id": rid, "protocol": PROTOCOL_VERSION, "device": {k: v for k, v in self.info.items()
                                                                   if k not in ("ttnn_version", "tt_metal_sha")},
                "ttnn_version": self.info["ttnn_version"], "tt_metal_sha": self.info["tt_metal_sha"]}

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        """Answer one request (never raises for a bad request or a failing op)."""
        rid = req.get("id")
        resp = self.envelope(rid)
        if req.get("op") == "__info__":
            resp["ok"] = True
            return resp
        resp.update(ok=False, error=None, cbs=[], l1_buffers=[], cb_per_core_peak=0, outputs=[])
        live: list[Any] = []
        try:
            fn = check_attrs(req.get("op", ""), req.get("attrs") or {})
            results = req.get("results") or []
            if not results and req.get("op") not in IN_PLACE_OPS:
                raise Unsupported("the request declares no result")
            for filler in req.get("fillers") or []:
                live.append(create_tensor(filler, self.device))
            ins = []
            for desc in req.get("operands") or []:
                t = create_tensor(desc, self.device) if desc is not None else None
                ins.append(t)
                if t is not None:
                    live.append(t)
            attrs = req.get("attrs") or {}
            segments = attrs.get("operandSegmentSizes")
            call = Call(req["op"], ins, attrs, results, self.device, list(segments) if segments else None)
            resp["l1_allocated_per_bank"] = int(
                ttnn._ttnn.device.GetMemoryView(self.device, ttnn.BufferType.L1).total_bytes_allocated_per_bank)
            error = None
            out = None
            ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
            try:
                out = fn(call)
            except Unsupported:
                raise
            except Exception as exc:  # a TT_FATAL/TT_THROW from the op
                error = exc
            finally:
                graph = ttnn._ttnn.graph.end_graph_capture()
            outs = list(out) if isinstance(out, (list, tuple)) else ([out] if out is not None else [])
            outs = [t for t in outs if hasattr(t, "padded_shape")]
            live.extend(outs)
            resp.update(parse_graph(graph))
            if req.get("return_graph"):
                resp["graph"] = graph
            resp["outputs"] = [describe_tensor(t) for t in outs]
            if error is not None:
                resp["error"] = short_error(error)
            else:
                resp["ok"] = True
        except Unsupported as exc:
            resp["error"] = f"unsupported: {exc}"
            resp["unsupported"] = True
        except Exception as exc:  # allocation of operands/fillers failed (OOM...)
            resp["error"] = short_error(exc)
        finally:
            for t in live:
                if t.storage_type() == ttnn.StorageType.DEVICE and t.is_allocated():
                    ttnn.deallocate(t)
        return resp

    def close(self) -> None:
        ttnn.close_device(self.device)


def choose_device() -> None:
    """Point tt-metal at a mock cluster unless told otherwise or hardware is present.

    Keeps ``$TT_METAL_MOCK_CLUSTER_DESC_PATH`` when set; else uses
    ``$TTANALYZE_MOCK_DESC``; else, without a tt-kmd device node, the repository's
    default mock descriptor (``<repo>/ttanalyze/executor/mock/blackhole_P150.yaml``) when it exists.
    Must run before ttnn is imported.
    """
    if os.environ.get(MOCK_ENV):
        return
    if os.environ.get(MOCK_OVERRIDE_ENV):
        os.environ[MOCK_ENV] = os.environ[MOCK_OVERRIDE_ENV]
        return
    if any(glob.glob(pattern) for pattern in DEVICE_NODE_GLOBS):
        return
    default = Path(__file__).resolve().parents[2].joinpath(*DEFAULT_MOCK_DESC).resolve()
    if default.exists():
        os.environ[MOCK_ENV] = str(default)


def main(argv: list[str] | None = None) -> int:
    """Serve JSON-line requests on stdin until it closes.

    Everything tt-metal or ttnn prints goes to stderr: stdout is duplicated for
    the protocol and file descriptor 1 then points at stderr.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--l1-small-size", type=int)
    parser.add_argument("--trace-region-size", type=int)
    parser.add_argument("--worker-l1-size", type=int)
    args = parser.parse_args(argv)
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    choose_device()
    global ttnn
    import ttnn as _ttnn

    ttnn = _ttnn
    open_kwargs = {k: v for k, v in (("l1_small_size", args.l1_small_size),
                                     ("trace_region_size", args.trace_region_size),
                                     ("worker_l1_size", args.worker_l1_size)) if v is not None}
    worker = Worker(open_kwargs)
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except json.JSONDecodeError as exc:
                proto.write(json.dumps({"id": None, "ok": False, "error": f"bad request: {exc}"}) + "\n")
                continue
            proto.write(json.dumps(worker.handle(req)) + "\n")
    finally:
        worker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
