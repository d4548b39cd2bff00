"""tt-metal device-profiler CSVs (``ops_perf_results_*.csv``) as cost-model input.

tt-metal's device profiler (``tt_metal/tools/profiler/process_ops_logs.py``,
the format tt-perf-report reads) writes one row per device operation.  A row
carries the op's static description, which is all the cost model may read:

* ``OP CODE`` (the device operation's type name), ``DEVICE ARCH``,
  ``ATTRIBUTES`` (the op's attribute struct, printed), ``MATH FIDELITY``,
  ``CORE COUNT``, ``AVAILABLE WORKER CORE COUNT``;
* per tensor ``INPUT_i_`` / ``OUTPUT_0_``: ``{W,Z,Y,X}_PAD[LOGICAL]`` (outermost
  first, each ``padded[logical]`` or one number), ``_LAYOUT``, ``_DATATYPE``,
  ``_MEMORY`` (``DEV_<id>_<DRAM|L1>_<INTERLEAVED|..._SHARDED>``);

and the measurements the model is scored against: ``DEVICE KERNEL DURATION
[ns]`` (the busiest core's kernel time, first kernel start to last kernel end)
and tt-metal's own estimate ``PM IDEAL [ns]``.  Everything else (host times,
per-RISC durations, utilisations, kernel sources) is ignored.

``ATTRIBUTES`` is a Python-dict-like string whose inner commas became ``;``:
``{'dim': '3'; 'output_mem_config': 'MemoryConfig(memory_layout=...;
shard_spec=ShardSpec(grid={[(x=0;y=0) - (x=10;y=9)]};shape={96; 512};...))'}``.
:func:`parse_attributes` splits it into keys and :func:`parse_value` reads one
value into dicts (``Name(k=v;...)``, with the type under ``"__type__"``),
lists (``{...}``, ``[...]``, positional ``Name(...)``), core ranges
(``[(x=0;y=0) - (x=10;y=9)]`` -> ``{"start": (0, 0), "end": (10, 9)}``) and
scalars (int, float, bool, None for ``std::nullopt``, other text as is).

Every era of the format is read (tt-metal ``tools/tracy/process_ops_logs.py``
and its predecessor ``tt_metal/tools/profiler/process_ops_logs.py``):

* tensor dims as ``INPUT_0_W_PAD[LOGICAL]`` (``padded[logical]``, from 2024-12)
  or as ``INPUT_0_W`` (one number, older); a dim of ``0`` (``0[0]``) marks an
  absent optional tensor, which is skipped;
* no ``DEVICE ARCH`` / ``AVAILABLE WORKER CORE COUNT`` (before 2025-10): the
  arch is the caller's (``--arch``), else inferred from the AI clock the
  ``DEVICE FW DURATION [ns]`` and ``DEVICE FW START/END CYCLE`` columns give
  (1.0 GHz Wormhole, 1.35 GHz Blackhole), with a note; the grid is the
  largest CORE COUNT of the trace, with a note;
* ``ATTRIBUTES`` empty, ``{}`` or ``None``; attribute values that are empty;
* memory ``DEV_<n>_<DRAM|L1>_ND_SHARDED`` (2025 ND sharding);
* any number of INPUT_i / OUTPUT_i groups, extra columns (utilisations,
  program hashes) ignored.

A row whose ``OP TO OP LATENCY [ns]`` is negative started, by its device
timestamps, before the previous op on its device ended: its start cycle is not
its own (tt-perf-report omits such "invalid device durations"), so the row is
kept untimed (``measured_ns`` None) and a note gives its lines.

A row the model cannot read (an unparseable cell, a non-finite number, a core
count outside 1..:data:`MAX_CORES`, no output tensor) is skipped and reported
(:class:`SkippedRow`: line, reason, its measured time) by :func:`load_profile`;
with ``strict=True`` (and always in :func:`read_profile`) it raises
:class:`ProfileError` (a ValueError) naming the CSV line.  A file that is not
an ops_perf_results CSV at all (no OP CODE or no tensor columns) always raises.
Attribute values that do not parse are ignored (the attribute is treated as
absent).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import math
import re
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .device_op import MAX_CORES, TILE, DeviceOp, TensorInfo

DURATION = "DEVICE KERNEL DURATION [ns]"
OP_TO_OP = "OP TO OP LATENCY [ns]"
PM_IDEAL = "PM IDEAL [ns]"
# The static columns a prediction may read besides the tensor columns (INPUT_*/OUTPUT_*).
STATIC_COLUMNS = ("OP CODE", "DEVICE ARCH", "ATTRIBUTES", "MATH FIDELITY", "CORE COUNT",
                  "AVAILABLE WORKER CORE COUNT")
REQUIRED_COLUMNS = ("OP CODE", "CORE COUNT")
# The tensor columns of each era: ``<prefix>_<dim><suffix>`` (process_ops_logs.py: ``_PAD[LOGICAL]`` since 2024-12).
DIM_SUFFIXES = ("_PAD[LOGICAL]", "")
# AI clock (GHz) -> arch, for traces without DEVICE ARCH (hardware.py [clock]).
CLOCK_ARCH = ((1.0, "wormhole_b0"), (1.35, "blackhole"))

DTYPES = {"BFLOAT16": "bf16", "FLOAT32": "f32", "BFLOAT8_B": "bfp_bf8", "BFLOAT4_B": "bfp_bf4",
          "UINT32": "u32", "INT32": "si32", "UINT16": "u16", "UINT8": "u8"}
# DataType names tt-metal prints that the model has no size for: read as is (the model notes its default).
_DTYPE_WORD = re.compile(r"^[A-Z][A-Z0-9_]*$")
LAYOUTS = {"TILE": "tile", "ROW_MAJOR": "row_major"}
MEMORY_LAYOUTS = {"INTERLEAVED": "interleaved", "HEIGHT_SHARDED": "height_sharded",
                  "WIDTH_SHARDED": "width_sharded", "BLOCK_SHARDED": "block_sharded", "ND_SHARDED": "nd_sharded"}
_MEMORY = re.compile(r"^DEV_\d+_(DRAM|L1|L1_SMALL)_(INTERLEAVED|HEIGHT_SHARDED|WIDTH_SHARDED|BLOCK_SHARDED|ND_SHARDED)$")
# Storage types process_ops_logs.py prints as MEMORY for a tensor not on a device (``storage_type`` a string).
_HOST_STORAGE = re.compile(r"^(HOST|OWNED|BORROWED|MULTI_DEVICE_HOST|MULTI_DEVICE|HostStorage|.*HOST.*)$", re.I)
_DIM = re.compile(r"^\s*(\d+)(?:\[(\d+)\])?\s*$")
FIDELITIES = ("LoFi", "HiFi2", "HiFi3", "HiFi4")
_BINARY_NAMES = {"ADD": "add", "SUB": "subtract", "MUL": "multiply", "DIV": "divide"}

# Device ops that may list their preallocated output tensor as an extra last input, with the
# number of real inputs (tt-metal's tensor_args: Move's output, InterleavedToSharded's /
# binary ops' optional output tensor, SliceWrite's destination).
_ARITY = {"MoveDeviceOperation": 1, "InterleavedToShardedDeviceOperation": 1,
          "ShardedToInterleavedDeviceOperation": 1, "ReshardDeviceOperation": 1,
          "SliceWriteDeviceOperation": 1, "CopyDeviceOperation": 1, "UnaryDeviceOperation": 1,
          "TypecastDeviceOperation": 1, "BinaryDeviceOperation": 2, "BinaryNgDeviceOperation": 2}


class ProfileError(ValueError):
    """A profiler CSV the model cannot read; ``str()`` is ``path:line: message``.

    Attributes:
        path: the CSV file as given.
        line: 1-based line of the offending record (1 for the header).
        message: what is wrong.
    """

    def __init__(self, message: str, path: str = "<csv>", line: int = 1):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: error: {self.message}"


@dataclass(frozen=True)
class ProfileRow:
    """One device-op row of a profiler CSV.

    Attributes:
        line: 1-based CSV line of the record.
        index: 0-based index among the file's device-op rows.
        op: the device op built from the row's static columns.
        measured_ns: ``DEVICE KERNEL DURATION [ns]``, None when the row is untimed.
        pm_ideal_ns: tt-metal's ``PM IDEAL [ns]``, None when absent.
        global_call_count / device_id: the row's identity in the profiler's log.
        signature: sha1 of the static columns (OP CODE, DEVICE ARCH, ATTRIBUTES,
            MATH FIDELITY, CORE COUNT, AVAILABLE WORKER CORE COUNT, every
            INPUT_*/OUTPUT_* column): identical ops share it.
        loc: the MLIR location tt-mlir's runtime records for the op (a ``LOC`` column), None when absent.
    """

    line: int
    index: int
    op: DeviceOp
    measured_ns: float | None
    pm_ideal_ns: float | None
    global_call_count: int | None
    device_id: int | None
    signature: str
    loc: str | None = None


# ----------------------------------------------------------------------------- ATTRIBUTES

_TOP = re.compile(r"'([^']*)': '([^']*)'")


def parse_attributes(text: str) -> dict[str, str]:
    """Split an ATTRIBUTES cell into ``{key: raw value}`` (values unparsed).

    Raises:
        ValueError: the cell is not ``{'k': 'v'; ...}`` (an empty cell or ``{}`` gives ``{}``).
    """
    text = (text or "").strip()
    if text in ("", "{}"):
        return {}
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"ATTRIBUTES is not a {{'key': 'value'; ...}} map: {text[:60]!r}")
    pairs = _TOP.findall(text)
    if not pairs:
        raise ValueError(f"ATTRIBUTES holds no 'key': 'value' pair: {text[:60]!r}")
    return dict(pairs)


class _Reader:
    """Recursive-descent reader of one printed attribute value (see module docstring)."""

    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def peek(self) -> str:
        """The next character ("" at the end)."""
        return self.s[self.i] if self.i < len(self.s) else ""

    def ws(self) -> None:
        """Skip spaces."""
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def expect(self, ch: str) -> None:
        """Consume ``ch`` after spaces, else raise ValueError."""
        self.ws()
        if self.peek() != ch:
            raise ValueError(f"expected {ch!r} at {self.i} in {self.s[:80]!r}")
        self.i += 1

    def value(self) -> Any:
        """Read one value: a bracketed list or map, a ``Name(...)`` node, or a scalar word."""
        self.ws()
        ch = self.peek()
        if ch and ch in "{[(":
            close = {"{": "}", "[": "]", "(": ")"}[ch]
            self.i += 1
            items = self.items(close)
            self.expect(close)
            return _collect(items, tuple_for_parens=ch == "(")
        start = self.i
        depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            elif depth == 0 and c in "([{":
                break
            elif depth == 0 and c in ";)]}=":
                break
            elif depth == 0 and c == " " and self.s[self.i:self.i + 3] == " - ":
                break
            self.i += 1
        word = self.s[start:self.i].strip()
        if self.peek() == "(" and word:
            self.i += 1
            items = self.items(")")
            self.expect(")")
            node = _collect(items, tuple_for_parens=False)
            name = re.sub(r"<.*>$", "", word)
            if isinstance(node, dict):
                return {"__type__": name, **node}
            return {"__type__": name, "args": node}
        return _scalar(word)

    def items(self, close: str) -> list[tuple[str | None, Any]]:
        """Read ``;``-separated items (``k=v``, ranges ``a - b``, values) up to ``close`` (not consumed)."""
        out: list[tuple[str | None, Any]] = []
        self.ws()
        if self.peek() == close:
            return out
        while True:
            v = self.value()
            self.ws()
            if self.peek() == "=" and isinstance(v, str):
                self.i += 1
                out.append((v, self.value()))
            elif self.s[self.i:self.i + 3] == " - " or self.s[self.i:self.i + 2] == "- ":
                self.i += 2 if self.peek() == "-" else 3
                end = self.value()
                out.append((None, {"start": _xy(v), "end": _xy(end)}))
            else:
                out.append((None, v))
            self.ws()
            if self.peek() == ";":
                self.i += 1
                continue
            return out


def _xy(v: Any) -> Any:
    if isinstance(v, dict) and "x" in v and "y" in v:
        return (v["x"], v["y"])
    return v


def _collect(items: list[tuple[str | None, Any]], tuple_for_parens: bool) -> Any:
    if items and all(k is not None for k, _ in items):
        return {k: v for k, v in items}
    values = [v for _, v in items]
    if len(values) == 1 and isinstance(values[0], dict) and "start" in values[0] and not tuple_for_parens:
        return values
    return tuple(values) if tuple_for_parens else values


def _scalar(word: str) -> Any:
    if word in ("std::nullopt", "nullopt", "None", ""):
        return None
    if word in ("true", "True"):
        return True
    if word in ("false", "False"):
        return False
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word)
    except ValueError:
        return word


def parse_value(text: str) -> Any:
    """Parse one printed attribute value (module docstring); unparseable text is returned as is."""
    try:
        r = _Reader(text)
        v = r.value()
        r.ws()
        return v if r.i == len(r.s) else text
    except (ValueError, IndexError, KeyError, RecursionError):
        return text


# ----------------------------------------------------------------------------- helpers

def _enum(v: Any) -> str | None:
    """``'BinaryOpType::ADD'`` -> ``'ADD'``."""
    return v.rsplit("::", 1)[-1] if isinstance(v, str) else None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def _copy_ints(src: dict[str, Any], dst: dict[str, Any], names: tuple[tuple[str, str], ...]) -> None:
    """``dst[to] = src[frm]`` for each ``(frm, to)`` whose value reads as an integer."""
    for frm, to in names:
        n = _int(src.get(frm))
        if n is not None:
            dst[to] = n


def _pair(v: Any) -> tuple[int, int] | None:
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(_int(x) is not None for x in v):
        return (_int(v[0]), _int(v[1]))  # type: ignore[return-value]
    if isinstance(v, dict) and "x" in v and "y" in v:
        return (_int(v["x"]), _int(v["y"]))  # type: ignore[return-value]
    return None


def _grid_cores(grid: Any) -> int | None:
    """Cores of a CoreRangeSet ``{[(x=0;y=0) - (x=10;y=9)]; ...}`` (parsed)."""
    if not isinstance(grid, list):
        return None
    total = 0
    for rng in grid:
        if isinstance(rng, list) and len(rng) == 1:
            rng = rng[0]
        if not (isinstance(rng, dict) and "start" in rng):
            return None
        ends = [_pair(rng.get("start")), _pair(rng.get("end"))]
        if None in ends:
            return None
        (x0, y0), (x1, y1) = ends  # type: ignore[misc]
        if x1 < x0 or y1 < y0:
            return None
        total += (x1 - x0 + 1) * (y1 - y0 + 1)
    return total or None


def _shape(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, dict) and v.get("__type__") == "Shape":
        v = v.get("args")
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], list):
            v = v[0]
    if isinstance(v, (list, tuple)) and all(_int(x) is not None for x in v):
        return tuple(_int(x) for x in v)  # type: ignore[misc]
    return None


def _unary_names(v: Any) -> list[str]:
    """Unary op names in an ``op_chain`` / ``activations`` / ``post_activations`` value."""
    found: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            t = x.get("op_type")
            if isinstance(t, str):
                found.append(_enum(t).lower())  # type: ignore[union-attr]
            for k, y in x.items():
                if k != "op_type":
                    walk(y)
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)

    walk(v)
    return found


def memory_config(v: Any) -> dict[str, Any] | None:
    """A parsed ``MemoryConfig(...)``: ``{"buffer_type", "memory_layout", "shard_shape", "shard_cores"}``."""
    if not (isinstance(v, dict) and v.get("__type__") == "MemoryConfig"):
        return None
    out: dict[str, Any] = {
        "buffer_type": (_enum(v.get("buffer_type")) or "DRAM").lower(),
        "memory_layout": (_enum(v.get("memory_layout")) or "INTERLEAVED").lower(),
        "shard_shape": None, "shard_cores": None,
    }
    spec = v.get("shard_spec")
    if isinstance(spec, dict):
        shape = _shape(spec.get("shape"))
        if shape and len(shape) == 2:
            out["shard_shape"] = shape
        out["shard_cores"] = _grid_cores(spec.get("grid"))
    return out


def _sliding_window(v: Any, attrs: dict[str, Any]) -> None:
    """Conv / pool / halo geometry from a parsed ``SlidingWindowConfig``."""
    if not isinstance(v, dict):
        return
    for key, name in (("window_hw", "window"), ("dilation_hw", "dilation"), ("input_hw", "input_hw")):
        p = _pair(v.get(key))
        if p:
            attrs[name] = p
    pad = v.get("padding")
    if isinstance(pad, tuple) and len(pad) == 2 and all(_pair(x) for x in pad):
        (t, b), (left, r) = _pair(pad[0]), _pair(pad[1])  # type: ignore[misc]
        attrs["padding"] = (t, b, left, r)
    n = _int(v.get("num_cores_nhw"))
    if n:
        attrs["num_cores_nhw"] = n


def _program_config(v: Any) -> dict[str, Any] | None:
    """A parsed matmul program config in the DeviceOp ``program_config`` form (device_op docstring)."""
    if not isinstance(v, dict):
        return None
    name = v.get("__type__", "")
    kinds = {"MatmulMultiCoreReuseMultiCast1DProgramConfig": "mcast_1d",
             "MatmulMultiCoreReuseMultiCastProgramConfig": "mcast_2d",
             "MatmulMultiCoreReuseMultiCastDRAMShardedProgramConfig": "dram_sharded",
             "MatmulMultiCoreReuseProgramConfig": "reuse",
             "MatmulMultiCoreProgramConfig": "multicore",
             "MinimalMatmulConfig": "minimal"}
    if name not in kinds:
        return None
    pc: dict[str, Any] = {"kind": kinds[name]}
    _copy_ints(v, pc, (("in0_block_w", "in0_block_w"), ("out_subblock_h", "out_subblock_h"),
                       ("out_subblock_w", "out_subblock_w"), ("per_core_M", "per_core_m"),
                       ("per_core_N", "per_core_n"), ("K_block_size", "k_block"), ("subblock_h", "out_subblock_h"),
                       ("subblock_w", "out_subblock_w")))
    grid = _pair(v.get("compute_with_storage_grid_size"))
    if grid:
        pc["grid"] = grid
    if "fuse_batch" in v:
        pc["fuse_batch"] = bool(v["fuse_batch"])
    return pc


def op_attrs(raw: dict[str, str]) -> tuple[dict[str, Any], str | None, bool | None, dict | None]:
    """The DeviceOp ``attrs`` of one row, with its compute config and output memory config.

    Args:
        raw: :func:`parse_attributes` of its ATTRIBUTES.

    Returns:
        ``(attrs, math_fidelity, fp32_dest_acc, output memory config)``; the last
        three are None when the attributes do not say.
    """
    v = {k: parse_value(s) for k, s in raw.items()}
    attrs: dict[str, Any] = {}
    fidelity: str | None = None
    fp32: bool | None = None
    ck = v.get("compute_kernel_config") or v.get("compute_kernel_config_")
    if isinstance(ck, dict):
        f = ck.get("math_fidelity")
        fidelity = _enum(f) if isinstance(f, str) else None
        if "fp32_dest_acc_en" in ck:
            fp32 = bool(ck["fp32_dest_acc_en"])
        if "packer_l1_acc" in ck:
            attrs["packer_l1_acc"] = bool(ck["packer_l1_acc"])
    if fp32 is None and isinstance(v.get("fp32_dest_acc_en"), bool):
        fp32 = v["fp32_dest_acc_en"]
    out_mem = None
    for key in ("output_mem_config", "output_memory_config", "memory_config", "memory_config_"):
        out_mem = memory_config(v.get(key))
        if out_mem:
            break
    pc = _program_config(v.get("program_config")) or _program_config(v.get("config"))
    if pc:
        attrs["program_config"] = pc
    for k in ("transpose_a", "transpose_b"):
        if isinstance(v.get(k), bool):
            attrs[k] = v[k]
    unary = []
    for k in ("op_chain", "activations", "post_activations", "lhs_activations", "rhs_activations",
              "activation", "fused_activation", "user_fused_activation", "input_tensor_a_activation",
              "program_config"):
        unary += _unary_names(v.get(k))
    if isinstance(v.get("fused_activation"), str) and v["fused_activation"] not in ("",):
        unary.append(v["fused_activation"].rsplit("::", 1)[-1].lower())
    if unary:
        attrs["unary_ops"] = unary
    bop = _enum(v.get("binary_op_type"))
    if bop:
        attrs["binary_op"] = _BINARY_NAMES.get(bop, bop.lower())
    if "scalar" in v:
        attrs["scalar"] = v["scalar"] is not None
    for key in ("sliding_window_config", "sliding_window_config_", "config"):
        if isinstance(v.get(key), dict) and v[key].get("__type__") == "SlidingWindowConfig":
            _sliding_window(v[key], attrs)
    par = v.get("parallelization_config")
    if isinstance(par, dict):
        for src, dst in (("per_core_out_matrix_height_ntile", "per_core_out_h"),
                         ("per_core_out_matrix_width_ntile", "per_core_out_w"),
                         ("num_cores_nhw", "num_cores_nhw")):
            n = _int(par.get(src))
            if n is not None:
                attrs[dst] = n
    blk = v.get("block_config")
    if isinstance(blk, dict):
        for src, dst in (("act_block_h_ntiles", "act_block_h"), ("act_block_w_ntiles", "act_block_w")):
            n = _int(blk.get(src))
            if n is not None:
                attrs[dst] = n
    ishape = _shape(v.get("input_tensor_shape"))
    if ishape and len(ishape) == 4:
        attrs.setdefault("input_hw", (ishape[1], ishape[2]))
        attrs["channels_in"] = ishape[3]
    _copy_ints(v, attrs, (("groups", "groups"), ("in_nsticks_per_core", "in_sticks_per_core"),
                          ("max_out_nsticks_per_core", "out_sticks_per_core")))
    norm = _enum(v.get("norm_type"))
    if norm:
        attrs["norm"] = "rms" if "RMS" in norm else "layer"
    dim = v.get("dim")
    if _int(dim) is not None:
        attrs["dim"] = _int(dim)
    elif isinstance(dim, str):
        attrs["dim"] = _enum(dim).lower()  # type: ignore[union-attr]
    perm = v.get("dims")
    if isinstance(perm, dict):
        perm = _shape(perm.get("args", [None])[0] if isinstance(perm.get("args"), list) else None)
    if isinstance(perm, tuple):
        attrs["perm"] = perm
    _copy_ints(v, attrs, (("num_groups", "num_groups"), ("ring_size", "ring_size"), ("num_links", "num_links"),
                          ("logical_n", "logical_n")))
    for key in ("is_causal", "use_precomputed_grid", "batch_output_channels", "use_welford"):
        if isinstance(v.get(key), bool):
            attrs[key] = v[key]
    if isinstance(v.get("mode"), str):
        attrs["mode"] = v["mode"].rsplit("::", 1)[-1].lower()
    topo = _enum(v.get("topology"))
    if topo:
        attrs["topology"] = topo.lower()
    sdpa = v.get("program_config")
    if isinstance(sdpa, dict) and sdpa.get("__type__") in ("LayerNormShardedMultiCoreProgramConfig",
                                                          "SoftmaxShardedMultiCoreProgramConfig"):
        # the sharded norm / softmax program's per-core block, in tiles (a trace gives no input shard spec)
        _copy_ints(sdpa, attrs, (("block_h", "shard_block_h"), ("block_w", "shard_block_w")))
    if isinstance(sdpa, dict) and sdpa.get("__type__") == "SDPAProgramConfig":
        _copy_ints(sdpa, attrs, (("q_chunk_size", "q_chunk"), ("k_chunk_size", "k_chunk")))
    if "logical_output_shape" in v and "padded_output_shape" in v and "recreate_mapping_tensor" not in v:
        # a reshape of the tt-metal before the recreate_mapping_tensor attribute (tt-metal PR #28399, 2025-09),
        # whose row-major program ran one kernel per core: the dual kernel (PR #28169) landed after it
        attrs["rm_reshape_one_kernel"] = True
    sh, sw = _int(v.get("scale_factor_h")), _int(v.get("scale_factor_w"))
    if sh and sw:
        attrs["scale"] = (sh, sw)
    return attrs, fidelity, fp32, out_mem


# ----------------------------------------------------------------------------- rows

def _dims(row: dict[str, str], prefix: str, suffix: str, line: int,
          path: str) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(logical, padded) dims of one tensor group; None when the group is empty or an absent optional tensor."""
    cells = [(row.get(f"{prefix}_{d}{suffix}") or "").strip() for d in "WZYX"]
    if not any(cells):
        return None
    padded, logical = [], []
    for d, c in zip("WZYX", cells):
        m = _DIM.match(c)
        if not m:
            raise ProfileError(f"{prefix}_{d}{suffix} is {c!r}, expected N or PADDED[LOGICAL]", path, line)
        padded.append(int(m.group(1)))
        logical.append(int(m.group(2)) if m.group(2) is not None else int(m.group(1)))
    if 0 in padded or 0 in logical:  # an empty tensor (an absent optional one): moves no data
        return None
    return tuple(logical), tuple(padded)


def _tensor(row: dict[str, str], prefix: str, suffix: str, line: int, path: str) -> TensorInfo | None:
    dims = _dims(row, prefix, suffix, line, path)
    if dims is None:
        return None
    logical, padded = dims
    layout = (row.get(f"{prefix}_LAYOUT") or "").strip()
    dtype = (row.get(f"{prefix}_DATATYPE") or "").strip()
    mem = (row.get(f"{prefix}_MEMORY") or "").strip()
    if layout not in LAYOUTS:
        raise ProfileError(f"{prefix}_LAYOUT is {layout!r}, expected TILE or ROW_MAJOR", path, line)
    if dtype not in DTYPES and not _DTYPE_WORD.match(dtype):
        raise ProfileError(f"{prefix}_DATATYPE is {dtype!r}, expected a DataType name ({', '.join(DTYPES)}, ...)",
                           path, line)
    m = _MEMORY.match(mem)
    if not m and _HOST_STORAGE.match(mem):  # a host tensor (process_ops_logs prints its storage type): no device data
        return None
    if not m:
        raise ProfileError(f"{prefix}_MEMORY is {mem!r}, expected DEV_<n>_<DRAM|L1>_<INTERLEAVED|..._SHARDED>",
                           path, line)
    if layout == "TILE" and suffix == "":  # the older columns print the tensor's shape: tile-pad it
        padded = tuple(padded[:-2]) + tuple(-(-d // TILE) * TILE for d in padded[-2:])
    return TensorInfo(shape=logical, padded=padded, dtype=DTYPES.get(dtype, dtype.lower()), layout=LAYOUTS[layout],
                      buffer_type="dram" if m.group(1) == "DRAM" else "l1",
                      memory_layout=MEMORY_LAYOUTS[m.group(2)])


def _number(row: dict[str, str], col: str, line: int, path: str, integer: bool = False) -> float | None:
    cell = (row.get(col) or "").strip()
    if cell == "":
        return None
    try:
        x = float(cell)
    except ValueError:
        raise ProfileError(f"{col} is {cell!r}, not a number", path, line) from None
    if not math.isfinite(x):
        raise ProfileError(f"{col} is {cell!r}, not a finite number", path, line)
    if integer:
        if not x.is_integer():
            raise ProfileError(f"{col} is {cell!r}, not an integer", path, line)
        return int(x)
    return x


def signature(row: dict[str, str]) -> str:
    """sha1 hex of a row's static columns (see :class:`ProfileRow`)."""
    keys = [k for k in row if k and (k.startswith("INPUT_") or k.startswith("OUTPUT_"))]
    text = "|".join(f"{k}={(row.get(k) or '').strip()}" for k in list(STATIC_COLUMNS) + keys)
    return hashlib.sha1(text.encode()).hexdigest()


def _groups(header: list[str], kind: str, suffix: str) -> list[str]:
    """The ``INPUT_i`` / ``OUTPUT_i`` prefixes the header has, in index order."""
    found = sorted({int(m.group(1)) for h in header
                    for m in [re.match(rf"^{kind}_(\d+)_W{re.escape(suffix)}$", h)] if m})
    return [f"{kind}_{i}" for i in found]


@dataclass(frozen=True)
class _Format:
    """What one file's header holds: the tensor-column era and its tensor groups."""

    suffix: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def _row_op(row: dict[str, str], line: int, path: str, fmt: _Format, arch: str, grid: int) -> DeviceOp:
    op_code = row["OP CODE"].strip()
    if not op_code:
        raise ProfileError("OP CODE is empty", path, line)
    cell_arch = (row.get("DEVICE ARCH") or "").strip().lower()
    if cell_arch:
        if cell_arch not in ("wormhole_b0", "blackhole"):
            raise ProfileError(f"DEVICE ARCH is {cell_arch!r}, expected wormhole_b0 or blackhole", path, line)
        arch = cell_arch
    cores = _number(row, "CORE COUNT", line, path, integer=True)
    if cores is None:
        raise ProfileError("CORE COUNT is missing", path, line)
    cell_grid = _number(row, "AVAILABLE WORKER CORE COUNT", line, path, integer=True)
    for col, n in (("CORE COUNT", cores), ("AVAILABLE WORKER CORE COUNT", cell_grid)):
        if n is not None and not 1 <= n <= MAX_CORES:
            raise ProfileError(f"{col} is {n:g}: expected 1 to {MAX_CORES:,} cores", path, line)
    grid = int(cell_grid) if cell_grid is not None else max(grid, int(cores))
    cell = (row.get("ATTRIBUTES") or "").strip()
    try:
        raw = parse_attributes("" if cell == "None" else cell)
    except ValueError as e:
        raise ProfileError(str(e), path, line) from None
    attrs, fidelity, fp32, out_mem = op_attrs(raw)
    cell = (row.get("MATH FIDELITY") or "").strip()
    if cell and cell != "N/A":
        if cell not in FIDELITIES:
            raise ProfileError(f"MATH FIDELITY is {cell!r}, expected one of {', '.join(FIDELITIES)}", path, line)
        fidelity = cell
    inputs = [t for p in fmt.inputs if (t := _tensor(row, p, fmt.suffix, line, path)) is not None]
    outputs = [t for p in fmt.outputs if (t := _tensor(row, p, fmt.suffix, line, path)) is not None]
    if not outputs:
        raise ProfileError("the row has no output tensor (none, or only empty ones: a dim of 0)", path, line)
    out = outputs[0]
    if out_mem and out_mem["shard_shape"] and out.sharded:
        outputs[0] = out = replace(out, shard_shape=out_mem["shard_shape"], shard_cores=out_mem["shard_cores"])
    arity = _ARITY.get(op_code)
    if arity is not None and attrs.get("scalar"):
        arity = 1
    if arity is not None and len(inputs) > arity and _same(inputs[-1], out):
        inputs.pop()
    return DeviceOp(op_code=op_code, arch=arch, cores=int(cores), grid_cores=grid, inputs=tuple(inputs),
                    outputs=tuple(outputs), math_fidelity=fidelity, fp32_dest_acc=fp32, attrs=attrs,
                    where=f"{path}:{line}")


def _same(a: TensorInfo, b: TensorInfo) -> bool:
    return (a.padded, a.dtype, a.layout, a.buffer_type, a.memory_layout) == \
        (b.padded, b.dtype, b.layout, b.buffer_type, b.memory_layout)


@dataclass(frozen=True)
class SkippedRow:
    """A device-op row the model could not read.

    Attributes:
        line: 1-based CSV line.
        op_code: its OP CODE ("" when unreadable).
        reason: what is wrong (the :class:`ProfileError` message).
        measured_ns: its DEVICE KERNEL DURATION [ns] when that cell reads, else None.
        device_id: its DEVICE ID when that cell reads, else None.
    """

    line: int
    op_code: str
    reason: str
    measured_ns: float | None
    device_id: int | None


@dataclass
class Profile:
    """A profiler CSV as read: its device-op rows, the rows skipped, and how it was read.

    Attributes:
        path: the file as given.
        rows: the device-op rows read (:class:`ProfileRow`).
        skipped: device-op rows that could not be read (:class:`SkippedRow`).
        arch: the arch of rows without DEVICE ARCH (given or inferred), None when every row names it.
        notes: how the file was read where it did not say (the inferred arch, the assumed grid).
    """

    path: str
    rows: list[ProfileRow]
    skipped: list[SkippedRow] = field(default_factory=list)
    arch: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def devices(self) -> list[int | None]:
        """The device ids of the rows (read and skipped), sorted (None for rows without one last)."""
        ids = {r.device_id for r in self.rows} | {s.device_id for s in self.skipped}
        return sorted(ids, key=lambda d: (d is None, d or 0))


def read_profile(path: str | Path, arch: str | None = None) -> list[ProfileRow]:
    """Read an ops_perf_results CSV into its device-op rows, failing on the first row it cannot read.

    ``load_profile(path, arch, strict=True).rows`` (see :func:`load_profile`).

    Raises:
        ProfileError: unreadable file, missing columns, or a malformed row (with its line).
    """
    return load_profile(path, arch=arch, strict=True).rows


def load_profile(path: str | Path, arch: str | None = None, strict: bool = False) -> Profile:
    """Read an ops_perf_results CSV (plain or ``.gz``) of any era (module docstring).

    Rows whose ``OP TYPE`` is not a device op (host ops, signposts) are left out.

    Args:
        path: the CSV.
        arch: ``wormhole_b0`` / ``blackhole`` for rows without DEVICE ARCH (None: inferred from the clock).
        strict: raise on the first row that cannot be read instead of skipping it.

    Raises:
        ProfileError: unreadable file, not an ops_perf_results CSV (no OP CODE / CORE COUNT / output
            tensor columns), rows without DEVICE ARCH whose arch is neither given nor inferable, or
            (``strict``) a malformed row, with its line.
    """
    path = str(path)
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", newline="", encoding="utf-8") as fh:
                return _read(fh, path, arch, strict)
        with open(path, newline="", encoding="utf-8") as fh:
            return _read(fh, path, arch, strict)
    except OSError as e:
        raise ProfileError(f"cannot read: {e.strerror or e}", path, 1) from None
    except (UnicodeDecodeError, EOFError):
        raise ProfileError("not a UTF-8 text file", path, 1) from None


def _clock_arch(recs: list[tuple[int, dict[str, str]]]) -> tuple[str | None, float | None]:
    """The arch whose AI clock matches the rows' FW cycles over FW duration (median over rows), and the clock."""
    ghz = []
    for _, rec in recs:
        try:
            cycles = float(rec.get("DEVICE FW END CYCLE") or "") - float(rec.get("DEVICE FW START CYCLE") or "")
            ns = float(rec.get("DEVICE FW DURATION [ns]") or "")
        except ValueError:
            continue
        if ns > 0 and cycles > 0 and math.isfinite(cycles / ns):
            ghz.append(cycles / ns)
    if not ghz:
        return None, None
    f = statistics.median(ghz)
    best = min(CLOCK_ARCH, key=lambda ca: abs(ca[0] - f))
    return (best[1] if abs(best[0] - f) < 0.05 * best[0] else None), f


def _read(fh, path: str, arch: str | None, strict: bool) -> Profile:
    reader = csv.DictReader(fh)
    try:
        header = reader.fieldnames
    except csv.Error as e:
        raise ProfileError(f"malformed CSV: {e}", path, 1) from None
    if not header:
        raise ProfileError("empty file: no header row", path, 1)
    header = [h.strip() for h in header]
    reader.fieldnames = header
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    suffix = next((s for s in DIM_SUFFIXES if f"OUTPUT_0_W{s}" in header), None)
    if suffix is None:
        missing.append("OUTPUT_0_W_PAD[LOGICAL] (or OUTPUT_0_W)")
    if missing:
        raise ProfileError(f"not an ops_perf_results CSV: missing column(s) {', '.join(missing)}", path, 1)
    fmt = _Format(suffix, tuple(_groups(header, "INPUT", suffix)),  # type: ignore[arg-type]
                  tuple(_groups(header, "OUTPUT", suffix)))  # type: ignore[arg-type]
    recs: list[tuple[int, dict[str, str]]] = []
    skipped: list[SkippedRow] = []
    try:
        for rec in reader:
            line = reader.line_num
            op_type = (rec.get("OP TYPE") or "tt_dnn_device").strip()
            if "device" not in op_type:
                continue
            recs.append((line, rec))
    except csv.Error as e:
        raise ProfileError(f"malformed CSV: {e}", path, reader.line_num) from None
    notes: list[str] = []
    need_arch = any(not (rec.get("DEVICE ARCH") or "").strip() for _, rec in recs)
    if need_arch and arch is None:
        arch, ghz = _clock_arch(recs)
        if arch is None:
            what = f"the AI clock {ghz:.3f} GHz matches neither" if ghz else "no FW cycle and duration columns"
            raise ProfileError(f"no DEVICE ARCH column and {what} (Wormhole 1.0 GHz, Blackhole 1.35 GHz): give "
                               f"--arch", path, 1)
        notes.append(f"no DEVICE ARCH: {arch} inferred from the AI clock ({ghz:.3f} GHz from the DEVICE FW "
                     f"columns); --arch overrides")
    elif need_arch:
        arch = arch.lower()
        if arch not in ("wormhole_b0", "blackhole"):
            raise ProfileError(f"arch {arch!r} is neither wormhole_b0 nor blackhole", path, 1)
        notes.append(f"no DEVICE ARCH: {arch} as given")
    grid = 1
    if "AVAILABLE WORKER CORE COUNT" not in header:
        for _, rec in recs:
            try:
                n = int(float(rec.get("CORE COUNT") or ""))
            except ValueError:
                continue
            if 1 <= n <= MAX_CORES:
                grid = max(grid, n)
        notes.append(f"no AVAILABLE WORKER CORE COUNT: the worker grid taken as the largest CORE COUNT, {grid}")
    rows: list[ProfileRow] = []
    invalid: list[int] = []
    for line, rec in recs:
        try:
            if None in rec:
                raise ProfileError(f"the record has {len(header) + len(rec[None])} fields, the header "
                                   f"{len(header)}", path, line)
            op = _row_op(rec, line, path, fmt, arch or "", grid)
            if not op.arch:
                raise ProfileError("DEVICE ARCH is empty and no arch was given", path, line)
            dur = _number(rec, DURATION, line, path)
            gap = _number(rec, OP_TO_OP, line, path)
            if dur and gap is not None and gap < 0:
                invalid.append(line)
                dur = None
            pm = _number(rec, PM_IDEAL, line, path)
            rows.append(ProfileRow(
                line=line, index=len(rows), op=op, measured_ns=dur if dur and dur > 0 else None,
                pm_ideal_ns=pm, global_call_count=_number(rec, "GLOBAL CALL COUNT", line, path, integer=True),
                device_id=_number(rec, "DEVICE ID", line, path, integer=True), signature=signature(rec),
                loc=(rec.get("LOC") or "").strip() or None))
        except ProfileError as e:
            if strict:
                raise
            skipped.append(SkippedRow(line, (rec.get("OP CODE") or "").strip(), e.message,
                                      _lenient(rec.get(DURATION)), _lenient_int(rec.get("DEVICE ID"))))
    if invalid:
        shown = ", ".join(map(str, invalid[:8])) + (", ..." if len(invalid) > 8 else "")
        notes.append(f"{len(invalid)} row(s) with a negative {OP_TO_OP}: the op's device start precedes the "
                     f"previous op's end on its device, so its start cycle is not its own and its device "
                     f"duration is invalid; left untimed (line(s) {shown})")
    return Profile(path, rows, skipped, arch if need_arch else None, notes)


def _lenient(cell: str | None) -> float | None:
    """A cell as a positive finite number, else None (for the report of a skipped row)."""
    try:
        x = float((cell or "").strip())
    except ValueError:
        return None
    return x if math.isfinite(x) and x > 0 else None


def _lenient_int(cell: str | None) -> int | None:
    x = _lenient(cell) if (cell or "").strip() not in ("0", "0.0") else 0.0
    return int(x) if x is not None and float(x).is_integer() else None
