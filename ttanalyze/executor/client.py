"""Analyzer side of the companion executor: start the ttnn worker, send requests, read typed results.

Runs in the analyzer's environment and never imports ttnn.  The worker
(:mod:`ttanalyze.executor.ttnn_worker`) runs in the executor environment, a
CPython 3.12 venv with ttnn 0.81.1 made by ``scripts/setup-executor.sh``:

* interpreter: ``$TTANALYZE_TTNN_PYTHON``, else ``<repo>/.venv-ttnn/bin/python``;
* device: real hardware when ``/dev/tenstorrent`` exists, else a mock
  Blackhole P150 described by ``$TTANALYZE_MOCK_DESC``, else
  ``<repo>/ttanalyze/executor/mock/blackhole_P150.yaml`` (passed to the worker as
  ``TT_METAL_MOCK_CLUSTER_DESC_PATH``; a value already in the environment wins).

The worker is started on first use and restarted after it dies: an op that
aborts the process (a TT_FATAL outside a catchable path) comes back as a
:class:`DeviceResult` with ``ok=False`` and ``crashed=True``.
"""

from __future__ import annotations

import glob
import json
import os
import selectors
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from ..analysis import Analysis
from ..ir.attrs import CoreCoord, CoreRange, CoreRangeSet, TileType
from ..ir.model import Op, TensorType, Value
from ..ops.spec import TensorSpec
from ..report.records import attr_value
from .protocol import DEFAULT_MOCK_DESC, DEVICE_NODE_GLOBS, MOCK_ENV, MOCK_OVERRIDE_ENV

REPO = Path(__file__).resolve().parents[2]
DEFAULT_TIMEOUT = 300.0  # seconds per request
START_TIMEOUT = 300.0  # seconds to import ttnn and open the device (first run builds firmware)


class ExecutorError(RuntimeError):
    """The executor cannot be started (no environment, no device description)."""


def executor_python() -> Path:
    """The executor's interpreter: ``$TTANALYZE_TTNN_PYTHON`` or ``<repo>/.venv-ttnn/bin/python``."""
    env = os.environ.get("TTANALYZE_TTNN_PYTHON")
    return Path(env) if env else REPO / ".venv-ttnn" / "bin" / "python"


def has_hardware() -> bool:
    """Whether a Tenstorrent device node (tt-kmd's ``/dev/tenstorrent/<n>``) exists."""
    return any(glob.glob(pattern) for pattern in DEVICE_NODE_GLOBS)


def mock_descriptor() -> Path | None:
    """The mock cluster descriptor the worker opens, None when it opens real hardware.

    ``$TT_METAL_MOCK_CLUSTER_DESC_PATH`` if set, then ``$TTANALYZE_MOCK_DESC``,
    then (without hardware) ``<repo>/ttanalyze/executor/mock/blackhole_P150.yaml``.
    """
    for var in (MOCK_ENV, MOCK_OVERRIDE_ENV):
        if os.environ.get(var):
            return Path(os.environ[var])
    if has_hardware():
        return None
    return REPO.joinpath(*DEFAULT_MOCK_DESC).resolve()


@lru_cache(maxsize=None)
def _probe(python: str) -> tuple[bool, str]:
    """Find ttnn in ``python`` without importing it, and its sfpi compiler."""
    code = ("import importlib.util, os; s = importlib.util.find_spec('ttnn'); "
            "print(os.path.dirname(s.origin) if s else '')")
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"cannot run {python}: {exc}"
    pkg = out.stdout.strip()
    if out.returncode != 0 or not pkg:
        return False, f"ttnn is not installed in {python} (run scripts/setup-executor.sh)"
    gxx = Path(pkg) / "runtime" / "sfpi" / "compiler" / "bin" / "riscv-tt-elf-g++"
    if not gxx.exists():
        return False, f"ttnn has no sfpi toolchain at {gxx} (run scripts/setup-executor.sh)"
    return True, ""


def ttnn_dir(python: str | Path | None = None) -> Path | None:
    """The directory of the ttnn package in the executor interpreter (None when it has none)."""
    python = str(python or executor_python())
    code = ("import importlib.util, os; s = importlib.util.find_spec('ttnn'); "
            "print(os.path.dirname(s.origin) if s else '')")
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def available() -> tuple[bool, str]:
    """Whether the executor can run here, and why not.

    Checks the interpreter, that ttnn is installed in it with its sfpi
    toolchain, and (without hardware) that the mock descriptor exists.  Does not
    open the device.
    """
    python = executor_python()
    if not python.exists():
        return False, f"no executor interpreter at {python} (run scripts/setup-executor.sh or set TTANALYZE_TTNN_PYTHON)"
    ok, reason = _probe(str(python))
    if not ok:
        return False, reason
    mock = mock_descriptor()
    if mock is not None and not mock.exists():
        return False, f"no Tenstorrent hardware and no mock cluster descriptor at {mock} (set TTANALYZE_MOCK_DESC)"
    return True, ""


# ---------------------------------------------------------------------------
# Typed results
# ---------------------------------------------------------------------------


def _crs(ranges: Iterable[Iterable[int]] | None) -> CoreRangeSet:
    return CoreRangeSet(tuple(CoreRange(CoreCoord(r[0], r[1]), CoreCoord(r[2], r[3])) for r in ranges or ()))


@dataclass(frozen=True)
class DeviceCB:
    """One program-scope L1 allocation tt-metal made for the op.

    Attributes:
        kind: ``cb`` (circular buffer), ``dfb`` (dataflow buffer) or
            ``scratchpad`` (kernel scratchpad).
        size: bytes on each of its cores.
        cores: the cores it is allocated on.
        address: its L1 address (0 under NO_DISPATCH capture).
        borrowed: backed by a tensor's L1 buffer (globally allocated CB or
            borrowing DFB): takes no program-scope L1.
        program: index of the program within the op (composite ops run several).
        op: the device operation that created it (``UntilizeDeviceOperation``).
        factory: its program factory, when the capture records it.
    """

    kind: str
    size: int
    cores: CoreRangeSet
    address: int
    borrowed: bool
    program: int
    op: str | None
    factory: str | None


@dataclass(frozen=True)
class DeviceL1Buffer:
    """An L1 (or L1_SMALL) buffer the op allocated: total ``size`` and ``per_bank`` bytes."""

    size: int
    per_bank: int
    page_size: int
    buffer_type: str
    layout: str | None
    address: int
    freed: bool


@dataclass
class DeviceResult:
    """What the device said about one op.

    Attributes:
        ok: the op built its programs without error.
        error: TT_FATAL/TT_THROW text, "unsupported: ..." or the worker's death.
        unsupported: the worker does not translate this op or attribute.
        crashed: the worker process died on this request.
        cbs: every program-scope L1 allocation (:class:`DeviceCB`).
        cb_per_core_peak: max over programs and cores of the non-borrowed
            CB/DFB/scratchpad bytes on one core.
        l1_buffers: L1 buffers the op allocated (outputs, intermediates).
        l1_buffers_peak_per_bank: peak of their per-bank bytes alive at once.
        l1_allocated_per_bank: L1 bytes per bank allocated before the op ran
            (fillers and operands).
        outputs: tt-metal's real output tensors (:class:`TensorSpec`).
        device: the worker's device figures (arch, grid, l1_size, l1_base...).
        response: the raw protocol response.
    """

    ok: bool
    error: str | None = None
    unsupported: bool = False
    crashed: bool = False
    cbs: list[DeviceCB] = field(default_factory=list)
    cb_per_core_peak: int = 0
    l1_buffers: list[DeviceL1Buffer] = field(default_factory=list)
    l1_buffers_peak_per_bank: int = 0
    l1_allocated_per_bank: int | None = None
    outputs: list[TensorSpec] = field(default_factory=list)
    device: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_response(cls, resp: dict[str, Any]) -> "DeviceResult":
        """Build from a protocol response (see :mod:`ttanalyze.executor.protocol`)."""
        cbs = [DeviceCB(c.get("kind", "cb"), int(c["size"]), _crs(c.get("core_ranges")), int(c.get("address") or 0),
                        bool(c.get("borrowed", False)), int(c.get("program", 0)), c.get("op"), c.get("factory"))
               for c in resp.get("cbs") or []]
        bufs = [DeviceL1Buffer(int(b["size"]), int(b.get("per_bank", 0)), int(b.get("page_size", 0)),
                               b.get("buffer_type", "l1"), b.get("layout"), int(b.get("address", 0)),
                               bool(b.get("freed", False)))
                for b in resp.get("l1_buffers") or []]
        outs = [TensorSpec(tuple(o["shape"]), tuple(o["padded_shape"]), o["layout"], o["dtype"], o["buffer_type"],
                           o.get("memory_layout"), tuple(o["shard"]["shape"]) if o.get("shard") else None)
                for o in resp.get("outputs") or []]
        return cls(
            ok=bool(resp.get("ok")), error=resp.get("error"), unsupported=bool(resp.get("unsupported", False)),
            crashed=bool(resp.get("crashed", False)), cbs=cbs, cb_per_core_peak=int(resp.get("cb_per_core_peak", 0)),
            l1_buffers=bufs, l1_buffers_peak_per_bank=int(resp.get("l1_buffers_peak_per_bank", 0)),
            l1_allocated_per_bank=resp.get("l1_allocated_per_bank"), outputs=outs,
            device=dict(resp.get("device") or {}), response=resp,
        )


# ---------------------------------------------------------------------------
# IR -> request
# ---------------------------------------------------------------------------


def tensor_descriptor(t: TensorType, analysis: Analysis | None = None, value: Value | None = None) -> dict[str, Any]:
    """The protocol descriptor of a tensor type (shape, dtype, layout, memory placement).

    Layout and dtype come from the value's :class:`~ttanalyze.layout.LayoutInfo`
    when the analysis has one, else from the type's TTNN layout.  A sharded
    layout's shard spec is its ``core_ranges`` and its memref shard shape in
    elements (tiles times the tile's height and width when tiled); tt-mlir's
    layout carries no orientation and its runtime shards row-major.

    Raises:
        ValueError: the type has no TTNN layout, or a sharded one has no core ranges.
    """
    lay = t.layout
    if lay is None:
        raise ValueError(f"{t} has no #ttnn.ttnn_layout encoding")
    info = analysis.infos.get(value) if analysis is not None and value is not None else None
    desc: dict[str, Any] = {
        "shape": list(t.shape),
        "dtype": str(info.dtype if info else lay.dtype),
        "layout": info.layout if info else lay.layout_name,
        "buffer_type": lay.buffer_type,
        "memory_layout": lay.memory_layout,
        "shard": None,
    }
    if lay.is_sharded:
        if lay.core_ranges is None:
            raise ValueError(f"{lay.memory_layout} layout of {t} has no core_ranges")
        shape = list(lay.memref_shape)
        if isinstance(lay.element, TileType):
            shape = [shape[0] * lay.element.height, shape[1] * lay.element.width]
        desc["shard"] = {
            "core_ranges": [[r.start.x, r.start.y, r.end.x, r.end.y] for r in lay.core_ranges.ranges],
            "shape": shape,
            "orientation": "row_major",
        }
    return desc


def _value_descriptor(v: Value, analysis: Analysis) -> dict[str, Any] | None:
    return tensor_descriptor(v.type, analysis, v) if isinstance(v.type, TensorType) else None


def live_l1_fillers(op: Op, analysis: Analysis) -> list[Value]:
    """The L1 tensors alive while ``op`` runs, other than its operands and results.

    Lifetimes are ttanalyze's (:mod:`ttanalyze.graph`); replaying ``op`` with
    these allocated first gives its factories the free L1 they would see in the
    program (tt-metal's ``get_max_l1_space`` and the matmul auto-config read it).
    """
    own = {id(v) for v in (*op.operands, *op.results)}
    return [v for v, _ in analysis.memory.live_at(op.index, "l1") if id(v) not in own]


def request_for(op: Op, analysis: Analysis, fillers: Iterable[Value] = ()) -> dict[str, Any]:
    """A protocol request replaying ``op``: its operands, attributes and declared results.

    Args:
        op: the op to replay.
        analysis: the program's analysis (layout info of every value).
        fillers: tensors to allocate before the operands, e.g. the L1 tensors
            live at this op (factories size their CBs from the free L1).

    Raises:
        ValueError: a tensor operand, result or filler without a TTNN layout.
    """
    return {
        "op": op.name,
        "operands": [_value_descriptor(v, analysis) for v in op.operands],
        "attrs": {k: attr_value(v) for k, v in op.attrs.items()},
        "results": [_value_descriptor(v, analysis) for v in op.results],
        "fillers": [d for d in (_value_descriptor(v, analysis) for v in fillers) if d is not None],
    }


# ---------------------------------------------------------------------------
# The worker process
# ---------------------------------------------------------------------------


def _fatal_text(log: str) -> str:
    """The last TT_FATAL/TT_THROW message in a worker log, without its backtrace; else the log's tail."""
    starts = [log.rfind(tag) for tag in ("TT_FATAL", "TT_THROW")]
    start = max(starts)
    if start < 0:
        return log[-2000:].strip()
    text = log[start:]
    cut = text.find("backtrace:")
    return (text[:cut] if cut >= 0 else text[:2000]).strip()


class Executor:
    """A running ttnn worker.

    Use as a context manager, or call :meth:`close`.  Each request waits at most
    ``timeout`` seconds; a worker that times out is killed and the request
    reported failed.  A dead worker is restarted on the next request.

    Args:
        python: the executor interpreter (default :func:`executor_python`).
        timeout: seconds per request.
        l1_small_size / worker_l1_size / trace_region_size: ``ttnn.open_device``
            arguments (None: ttnn's default).  ``worker_l1_size=1395584`` gives
            the L1 base 177,280 of tt-mlir's Blackhole system_desc.
        env: variables set in the worker's environment on top of this process's
            (e.g. ``{"TT_METAL_NULL_KERNELS": "1"}``).
    """

    def __init__(self, python: str | Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                 l1_small_size: int | None = None, worker_l1_size: int | None = None,
                 trace_region_size: int | None = None, env: dict[str, str] | None = None):
        self.python = Path(python) if python else executor_python()
        self.timeout = timeout
        self.open_args: list[str] = []
        for flag, v in (("--l1-small-size", l1_small_size), ("--worker-l1-size", worker_l1_size),
                        ("--trace-region-size", trace_region_size)):
            if v is not None:
                self.open_args += [flag, str(int(v))]
        self.extra_env = dict(env or {})
        self._proc: subprocess.Popen | None = None
        self._log: Any = None
        self._buf = b""
        self._next_id = 1
        self._info: dict[str, Any] | None = None
        self.restarts = 0

    # lifecycle ------------------------------------------------------------
    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        mock = mock_descriptor()
        if mock is not None:
            env[MOCK_ENV] = str(mock)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        env["PYTHONUNBUFFERED"] = "1"
        env.update(self.extra_env)
        return env

    def start(self) -> dict[str, Any]:
        """Start the worker (if not running) and return its ``__info__`` response.

        Raises:
            ExecutorError: the executor is not available, or the worker died
                or timed out while opening the device.
        """
        if self._proc is not None and self._proc.poll() is None and self._info is not None:
            return self._info
        self._stop()
        ok, reason = available() if self.python == executor_python() else (self.python.exists(), str(self.python))
        if not ok:
            raise ExecutorError(f"executor not available: {reason}")
        self._log = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [str(self.python), "-m", "ttanalyze.executor.ttnn_worker", *self.open_args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, env=self._env(), bufsize=0,
        )
        self._buf = b""
        resp = self._exchange({"op": "__info__"}, START_TIMEOUT)
        if not resp.get("ok"):
            self._stop()
            raise ExecutorError(f"the ttnn worker did not start: {resp.get('error')}")
        self._info = resp
        return resp

    def close(self) -> None:
        """Stop the worker (closing its stdin lets it close the device)."""
        self._stop()

    def _stop(self) -> None:
        proc, self._proc, self._info = self._proc, None, None
        if proc is not None:
            try:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            if proc.stdout:
                proc.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _log_text(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        data = self._log.read()
        self._log.seek(0, os.SEEK_END)
        return data[-200_000:].decode("utf-8", "replace")

    # requests -------------------------------------------------------------
    def _exchange(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and wait for its response; a dead or stuck worker gives a crash response."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        req = dict(req, id=self._next_id)
        self._next_id += 1
        try:
            proc.stdin.write((json.dumps(req) + "\n").encode())
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._crashed(req, "the worker's stdin is closed")
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0:
                    proc.kill()
                    return self._crashed(req, f"no response within {timeout:.0f} s; worker killed")
                if not sel.select(left):
                    continue
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    return self._crashed(req, None)
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            resp = json.loads(line)
        except ValueError:
            proc.kill()
            return self._crashed(req, f"unreadable response line {line[:200]!r}; worker killed")
        if resp.get("id") != req["id"]:
            return self._crashed(req, f"response id {resp.get('id')} does not match request {req['id']}")
        return resp

    def _crashed(self, req: dict[str, Any], why: str | None) -> dict[str, Any]:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
        log = self._log_text()
        self._stop()
        self.restarts += 1
        if why is None:
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            why = f"worker died ({how}) on {req.get('op')}: {_fatal_text(log)}"
        return {"id": req.get("id"), "ok": False, "crashed": True, "error": why}

    def request(self, req: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send a raw protocol request (``id`` is assigned here) and return the raw response."""
        self.start()
        return self._exchange(req, timeout or self.timeout)

    def run(self, req: dict[str, Any], timeout: float | None = None) -> DeviceResult:
        """Send a request and return a :class:`DeviceResult`."""
        return DeviceResult.from_response(self.request(req, timeout))

    def replay(self, op: Op, analysis: Analysis, fillers: Iterable[Value] | None = None) -> DeviceResult:
        """Replay one IR op (see :func:`request_for`).

        ``fillers`` default to :func:`live_l1_fillers`: the L1 tensors the
        program keeps alive around the op.
        """
        if fillers is None:
            fillers = live_l1_fillers(op, analysis)
        return self.run(request_for(op, analysis, fillers))

    def info(self) -> dict[str, Any]:
        """The worker's ``__info__`` response: device figures and versions."""
        return dict(self.start())
