"""Validate a rewritten TTNN program against its original: ``ttanalyze validate FILE [--fixed OUT]``.

Two checks for every applied fix:

1. **Semantic** (:func:`semantic_check`): the reference interpreter
   (:mod:`ttanalyze.interp`) runs the original and the fixed program on the same
   random inputs (:func:`~ttanalyze.interp.random_inputs` of the original's
   entry function, one seed).  The ops that differ between the two programs
   (:func:`diff_programs`: multisets of ops keyed by name, attributes and
   operand/result types; positions, SSA names and locations do not count) decide
   what is required of each output: *identical* values when every differing op
   only moves data within one data type (:func:`~ttanalyze.interp.moves_data`,
   every tensor operand and result of the same data type; deallocations are
   neutral), else tt-metal's ``comp_pcc`` of at least :data:`MIN_PCC`.  Without
   a fixed program the file runs alone: the interpreter completes and every
   float output is finite.
2. **Device** (:func:`device_check`): the companion executor replays the ops the
   fix added or modified (every op of the file without a fixed program) on the
   ttnn device (the mock Blackhole P150 without hardware): tt-metal must accept
   each op, and its circular buffers must match the model's prediction
   (:mod:`ttanalyze.executor.cbcheck`: the per-core peak, and every static CB's
   size on the same cores).  The prediction is made for the device that ran
   the op (its arch, L1 base, free L1), which is not the file's arch when a
   Wormhole file is replayed on the Blackhole mock.  Ops that run no device
   program, that the worker cannot translate, or all ops when the executor is
   unavailable, are skipped with the reason; a skip is not a failure.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .analysis import Analysis
from .arch import Arch
from .errors import InputError
from .interp import Comparison, InterpError, compare, moves_data, random_inputs, run
from .interp.numerics import dtype_of

# The interpreter's words for an op, data type or mode it has no semantics for (interp/run.py, interp/ops.py,
# interp/numerics.py): the semantic check is then inconclusive, not failed.
NO_SEMANTICS = "has no reference semantics"
from .ir.model import Op, Program, TensorType
from .report.records import attr_value

MIN_PCC = 0.999
# Ops that produce no values: they neither move nor compute data.
NEUTRAL = frozenset({"ttnn.deallocate", "ttnn.get_device"})


# ---------------------------------------------------------------------------
# Which ops a fix changed
# ---------------------------------------------------------------------------


def _type_key(t: Any) -> str:
    if isinstance(t, TensorType):
        return repr((t.shape, t.element, t.layout))
    return str(t)


def op_signature(op: Op) -> str:
    """What identifies an op across two programs: name, typed attributes, operand and result types."""
    attrs = {k: attr_value(v) for k, v in op.attrs.items()}
    return json.dumps([op.name, attrs, [_type_key(v.type) for v in op.operands],
                       [_type_key(v.type) for v in op.results], op.callee], sort_keys=True, default=str)


def type_text(t: Any) -> str:
    """``tensor<4x32xbfp_bf8> tile dram``: shape, data type (the layout's), layout and buffer type; or the text."""
    if isinstance(t, TensorType) and t.layout is not None:
        dims = "x".join(str(d) for d in t.shape)
        return f"tensor<{dims}{'x' if dims else ''}{dtype_of(t)}> {t.layout.layout_name} {t.layout.buffer_type}"
    return str(t)


def op_text(op: Op) -> str:
    """``line 15 ttnn.reshape {shape = ...}: (operand types) -> (result types)``."""
    attrs = ", ".join(f"{k} = {v}" for k, v in op.raw_attrs.items())
    ins = ", ".join(type_text(v.type) for v in op.operands)
    outs = ", ".join(type_text(v.type) for v in op.results)
    return f"line {op.pos.line} {op.name}" + (f" {{{attrs}}}" if attrs else "") + f": ({ins}) -> ({outs})"


def op_changes(old: Op, new: Op) -> list[str]:
    """What differs between two ops of one name: attributes (fields of struct attributes) and types."""
    out = []
    for key in sorted(set(old.attrs) | set(new.attrs)):
        a = attr_value(old.attrs[key]) if key in old.attrs else None
        b = attr_value(new.attrs[key]) if key in new.attrs else None
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict) and a.get("kind") == b.get("kind"):
            out += [f"{key}.{k}: {a.get(k)} -> {b.get(k)}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        else:
            out.append(f"{key}: {old.raw_attrs.get(key, '(none)')} -> {new.raw_attrs.get(key, '(none)')}")
    for side, xs, ys in (("operand", old.operands, new.operands), ("result", old.results, new.results)):
        if len(xs) != len(ys):
            out.append(f"{len(xs)} {side}s -> {len(ys)}")
            continue
        out += [f"{side} {i}: {type_text(x.type)} -> {type_text(y.type)}" for i, (x, y) in enumerate(zip(xs, ys))
                if _type_key(x.type) != _type_key(y.type)]
    return out


def moves_data_only(op: Op) -> bool:
    """The op only moves values within one data type (or produces none): outputs must stay identical."""
    if op.name in NEUTRAL:
        return True
    if not moves_data(op.name):
        return False
    dtypes = {dtype_of(v.type) for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)}
    return len(dtypes) <= 1


@dataclass
class ProgramDiff:
    """The ops of two programs that do not pair up by :func:`op_signature`.

    Attributes:
        removed: ops of the original with no counterpart in the fixed program.
        added: ops of the fixed program with no counterpart in the original
            (new ops, and ops whose attributes or types the fix modified).
    """

    removed: list[Op] = field(default_factory=list)
    added: list[Op] = field(default_factory=list)

    @property
    def pure_data_movement(self) -> bool:
        """Every differing op only moves data within one data type (:func:`moves_data_only`)."""
        return all(moves_data_only(op) for op in (*self.removed, *self.added))

    def modified(self) -> list[tuple[Op, Op, list[str]]]:
        """Removed and added ops of the same name, paired in program order: ``(original, fixed, changes)``."""
        pairs, used = [], set()
        for new in self.added:
            old = next((o for o in self.removed if o.name == new.name and id(o) not in used), None)
            if old is not None:
                used.add(id(old))
                pairs.append((old, new, op_changes(old, new)))
        return pairs

    @property
    def computing(self) -> list[Op]:
        """The differing ops that compute (or convert data types): why PCC, not identity, is required."""
        return [op for op in (*self.removed, *self.added) if not moves_data_only(op)]


def diff_programs(original: Program, fixed: Program) -> ProgramDiff:
    """Multiset difference of the two programs' ops by :func:`op_signature`, in program order."""
    left = Counter(op_signature(op) for op in fixed.ops)
    right = Counter(op_signature(op) for op in original.ops)
    diff = ProgramDiff()
    budget = Counter(right)
    for op in original.ops:
        key = op_signature(op)
        if left[key] > 0:
            left[key] -= 1
        else:
            diff.removed.append(op)
    for op in fixed.ops:
        key = op_signature(op)
        if budget[key] > 0:
            budget[key] -= 1
        else:
            diff.added.append(op)
    return diff


# ---------------------------------------------------------------------------
# Check 1: the reference interpreter
# ---------------------------------------------------------------------------


@dataclass
class OutputCheck:
    """One returned value.

    Attributes:
        index: its position in the entry function's results.
        name: its SSA name in the original (``%6``).
        shape / dtype: declared shape and data type (the fixed program's when comparing).
        required: ``identical``, ``pcc >= 0.999`` or ``finite`` (single program).
        comparison: original vs fixed (None for a single program).
        finite: every value is finite (a single program's check).
        passed: the requirement holds.
    """

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    required: str
    comparison: Comparison | None
    finite: bool
    passed: bool

    def describe(self) -> str:
        head = f"output {self.index} {self.name} {list(self.shape)} {self.dtype}"
        if self.comparison is None:
            return f"{head}: {'all finite' if self.finite else 'NOT all finite'} (required: {self.required})"
        c = self.comparison
        if c.shape_a != c.shape_b:
            return f"{head}: {c} (required: {self.required})"
        how = "identical" if c.exact else "differs"
        pcc = f"pcc {c.pcc:.6f}" + (" (degenerate: a constant side)" if c.degenerate else "")
        return f"{head}: {how}; max abs diff {c.max_abs:.6g}; {pcc} (required: {self.required})"

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"index": self.index, "name": self.name, "shape": list(self.shape),
                               "dtype": self.dtype, "required": self.required, "passed": self.passed,
                               "finite": self.finite}
        if self.comparison is not None:
            c = self.comparison
            rec.update(exact=c.exact, max_abs=_num(c.max_abs), max_rel=_num(c.max_rel), pcc=_num(c.pcc),
                       degenerate=c.degenerate)
        return rec


def _num(x: float) -> float | str:
    return x if np.isfinite(x) else str(x)


@dataclass
class SemanticResult:
    """The reference-interpreter check.

    Attributes:
        mode: ``compare`` (original vs fixed) or ``single`` (one program runs).
        seed: the inputs' seed.
        diff: the ops that differ (``compare`` only).
        required: ``identical``, ``pcc >= 0.999`` or ``finite``.
        outputs: one :class:`OutputCheck` per returned value.
        error: the interpreter's error (``file:line:col: error: ...``) when a program did not run.
    """

    mode: str
    seed: int
    required: str
    diff: ProgramDiff | None = None
    outputs: list[OutputCheck] = field(default_factory=list)
    error: str | None = None
    inconclusive: bool = False

    @property
    def passed(self) -> bool:
        return self.error is None and all(o.passed for o in self.outputs)

    @property
    def status(self) -> str:
        """``pass``, ``fail``, or ``inconclusive``: an op without reference semantics (the interpreter
        cannot judge the program; not a failure of the program)."""
        return "pass" if self.passed else "inconclusive" if self.inconclusive else "fail"

    def _interp_failed(self, what: str, exc: InterpError) -> "SemanticResult":
        self.error = f"{what} does not run in the reference interpreter: {exc}"
        self.inconclusive = NO_SEMANTICS in exc.message
        return self

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"mode": self.mode, "seed": self.seed, "required": self.required,
                               "passed": self.passed, "status": self.status, "error": self.error,
                               "outputs": [o.record() for o in self.outputs]}
        if self.diff is not None:
            rec["removed"] = [_op_record(op) for op in self.diff.removed]
            rec["added"] = [_op_record(op) for op in self.diff.added]
            rec["modified"] = [{"original_line": old.pos.line, "line": new.pos.line, "op": new.name,
                                "changes": changes} for old, new, changes in self.diff.modified()]
            rec["pure_data_movement"] = self.diff.pure_data_movement
            rec["computing_ops"] = [_op_record(op) for op in self.diff.computing]
        return rec


def _op_record(op: Op) -> dict[str, Any]:
    return {"line": op.pos.line, "col": op.pos.col, "op": op.name, "text": op_text(op)}


def _signature_error(original: Program, fixed: Program) -> str | None:
    """Why the two entry functions cannot take the same inputs and be compared output by output, or None."""
    fo, ff = original.entry, fixed.entry
    if fo is None or ff is None:
        return "the original or the fixed program has no functions"
    ta = [a for a in fo.args if isinstance(a.type, TensorType)]
    tb = [a for a in ff.args if isinstance(a.type, TensorType)]
    if len(ta) != len(tb):
        return f"@{ff.name} takes {len(tb)} tensor arguments, the original @{fo.name} takes {len(ta)}"
    for i, (a, b) in enumerate(zip(ta, tb)):
        if (tuple(a.type.shape), dtype_of(a.type)) != (tuple(b.type.shape), dtype_of(b.type)):
            return (f"tensor argument {i} ({b.name}) is {list(b.type.shape)} {dtype_of(b.type)}, the original's "
                    f"({a.name}) is {list(a.type.shape)} {dtype_of(a.type)}")
    if len(fo.returns) != len(ff.returns):
        return f"@{ff.name} returns {len(ff.returns)} values, the original returns {len(fo.returns)}"
    for i, (a, b) in enumerate(zip(fo.returns, ff.returns)):
        sa = tuple(a.type.shape) if isinstance(a.type, TensorType) else str(a.type)
        sb = tuple(b.type.shape) if isinstance(b.type, TensorType) else str(b.type)
        if sa != sb:
            return f"result {i} ({b.name}) has shape {sb}, the original's ({a.name}) {sa}"
    return None


def semantic_check(original: Program, fixed: Program | None = None, seed: int = 0,
                   min_pcc: float = MIN_PCC) -> SemanticResult:
    """Run ``original`` (and ``fixed``) on the same random inputs and judge the outputs (module docstring).

    Raises:
        InputError: the two entry functions' signatures differ (tensor argument
            count, shapes or data types; result count or shapes), at the fixed
            program's function.
    """
    if fixed is None:
        return _single_check(original, seed)
    why = _signature_error(original, fixed)
    if why is not None:
        ff = fixed.entry
        raise InputError(f"the fixed program's signature differs from the original's: {why}",
                         fixed.path or "<string>", ff.pos if ff else None)
    diff = diff_programs(original, fixed)
    exact = diff.pure_data_movement
    required = "identical" if exact else f"pcc >= {min_pcc}"
    result = SemanticResult("compare", seed, required, diff)
    inputs = random_inputs(original.entry, seed)
    try:
        want = run(original, inputs)
    except InterpError as exc:
        return result._interp_failed("the original", exc)
    try:
        got = run(fixed, inputs)
    except InterpError as exc:
        return result._interp_failed("the fixed program", exc)
    for i, (a, b, va, vb) in enumerate(zip(want, got, original.entry.returns, fixed.entry.returns)):
        c = _compare(np.asarray(a), np.asarray(b))
        ok = c.ok(min_pcc=min_pcc, require_exact=exact)
        t = vb.type
        result.outputs.append(OutputCheck(i, va.name, tuple(t.shape) if isinstance(t, TensorType) else (),
                                          dtype_of(t) if isinstance(t, TensorType) else str(t), required, c,
                                          _finite(b), ok))
    return result


def _compare(a: np.ndarray, b: np.ndarray) -> Comparison:
    """:func:`~ttanalyze.interp.compare`, with equal arrays settled at once (PCC 1, no error), as it would."""
    if a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
        return Comparison(a.shape, b.shape, str(a.dtype), str(b.dtype), True, 1.0, False, 0.0, 0.0)
    return compare(a, b)


def _finite(x: Any) -> bool:
    x = np.asarray(x)
    return bool(np.all(np.isfinite(x))) if x.dtype.kind == "f" else True


def _single_check(program: Program, seed: int) -> SemanticResult:
    result = SemanticResult("single", seed, "finite")
    if program.entry is None:
        result.error = f"{program.path}: the program has no functions"
        return result
    try:
        out = run(program, random_inputs(program.entry, seed))
    except InterpError as exc:
        return result._interp_failed("the program", exc)
    for i, (x, v) in enumerate(zip(out, program.entry.returns)):
        t = v.type
        fin = _finite(x)
        result.outputs.append(OutputCheck(i, v.name, tuple(t.shape) if isinstance(t, TensorType) else (),
                                          dtype_of(t) if isinstance(t, TensorType) else str(t), "finite", None,
                                          fin, fin))
    return result


# ---------------------------------------------------------------------------
# Check 2: the ttnn device
# ---------------------------------------------------------------------------


@dataclass
class OpReplay:
    """One op replayed on the device.

    Attributes:
        op: the op (of the fixed program).
        status: ``pass``, ``fail`` or ``skipped``.
        accepted: tt-metal built the op's programs (None when not replayed).
        error: the TT_FATAL text (or the worker's death) when it did not.
        reason: why it was skipped, or what failed in the CB comparison.
        cbs: the model against the device (:class:`~ttanalyze.executor.cbcheck.CBComparison`).
    """

    op: Op
    status: str
    accepted: bool | None = None
    error: str | None = None
    reason: str = ""
    cbs: Any = None

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {**_op_record(self.op), "status": self.status, "accepted": self.accepted,
                               "error": self.error, "reason": self.reason}
        c = self.cbs
        if c is not None:
            rec["cbs"] = {
                "outcome": c.outcome, "match": c.match, "cbs_equal": c.cbs_equal,
                "model_status": c.model_status, "model_reason": c.model_reason,
                "model_peak_per_core": c.model_peak, "device_peak_per_core": c.device_peak,
                "device_scratchpads": c.device_scratchpads, "free_l1": c.free_l1, "compared": c.scope,
                "by_core_range": [{"cores": _ranges(crs), "device": dev, "model": model}
                                  for crs, dev, model in c.by_cores()],
            }
        return rec


def _ranges(crs) -> list[list[int]]:
    return [[r.start.x, r.start.y, r.end.x, r.end.y] for r in crs.ranges]


@dataclass
class DeviceCheckResult:
    """The device check.

    Attributes:
        status: ``pass``, ``fail`` or ``skipped`` (nothing replayed: ``reason``).
        reason: why the whole check was skipped.
        file_arch: the arch of the program's system_desc.
        arch: the arch the CB prediction is for (the device's), None when skipped.
        device: the worker's device figures (``mock``, ``arch``, ``grid``, ``l1_base``...).
        versions: ttnn and tt-metal versions of the executor.
        ops: one :class:`OpReplay` per op asked for.
    """

    status: str
    reason: str = ""
    file_arch: str = ""
    arch: Arch | None = None
    device: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    ops: list[OpReplay] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """No op failed (skips do not fail)."""
        return all(r.status != "fail" for r in self.ops)

    def device_text(self) -> str:
        d = self.device
        if not d:
            return ""
        return (f"{'mock ' if d.get('mock') else ''}{d.get('arch', '?')} grid {d.get('grid')} "
                f"L1 {d.get('l1_size')} base {d.get('l1_base')}")

    def record(self) -> dict[str, Any]:
        return {"status": self.status, "passed": self.passed, "reason": self.reason, "file_arch": self.file_arch,
                "prediction_arch": None if self.arch is None else {
                    "name": self.arch.name, "l1_unreserved_base": self.arch.l1_unreserved_base,
                    "l1_small_size": self.arch.l1_small_size, "grid": list(self.arch.grid),
                    "source": self.arch.source},
                "device": self.device, "versions": self.versions,
                "ops": [r.record() for r in self.ops]}


def device_check(fixed_analysis: Analysis, ops: list[Op], executor: Any = None,
                 progress: Callable[[Op], None] | None = None) -> DeviceCheckResult:
    """Replay ``ops`` of ``fixed_analysis``'s program on the ttnn executor; compare their CBs with the model's.

    Each op is replayed with the program's live L1 tensors allocated first
    (:func:`~ttanalyze.executor.client.live_l1_fillers`).  Per op: ``pass``
    (accepted and the CBs match, or accepted with no CB prediction to compare:
    ``reason`` says so), ``fail`` (a TT_FATAL, a crash, or CBs that differ from
    the prediction) or ``skipped`` (no device program, or not replayable).

    Args:
        fixed_analysis: the analysis of the program the ops belong to.
        ops: the ops to replay (the changed ops of a fix, or every op).
        executor: an open :class:`~ttanalyze.executor.client.Executor`; one is
            started (and closed) here when None.
        progress: called with each op before it is replayed.
    """
    from .executor import client
    from .executor.cbcheck import NOT_REPLAYED, compare_cbs, device_arch

    result = DeviceCheckResult("pass", file_arch=fixed_analysis.arch.name)
    if executor is None:
        ok, why = client.available()
        if not ok:
            return _skip_all(result, ops, f"ttnn executor not available: {why}")
        with client.Executor() as ex:
            return device_check(fixed_analysis, ops, ex, progress)
    try:
        info = executor.info()
    except client.ExecutorError as exc:
        return _skip_all(result, ops, str(exc))
    result.device = dict(info.get("device") or {})
    result.versions = {k: str(info[k]) for k in ("ttnn_version", "tt_metal_sha") if k in info}
    arch = result.arch = device_arch(result.device)
    for op in ops:
        if op.name in NOT_REPLAYED:
            result.ops.append(OpReplay(op, "skipped", reason=f"runs no device program: {NOT_REPLAYED[op.name]}"))
            continue
        try:
            req = client.request_for(op, fixed_analysis, client.live_l1_fillers(op, fixed_analysis))
        except ValueError as exc:
            result.ops.append(OpReplay(op, "skipped", reason=f"not replayable: {exc}"))
            continue
        if progress is not None:
            progress(op)
        dev = executor.run(req)
        if dev.unsupported:
            result.ops.append(OpReplay(op, "skipped", reason=f"not replayable: {dev.error}"))
            continue
        cmp = compare_cbs(fixed_analysis, op, dev, arch)
        if dev.crashed or not dev.ok:
            why = "the worker died on it" if dev.crashed else "tt-metal refused it"
            if cmp.outcome == "both_refused":
                why += f" (the model predicted the refusal: {cmp.model_reason})"
            result.ops.append(OpReplay(op, "fail", False, dev.error or "", why, cmp))
            continue
        if cmp.model_status in ("unmodeled", "out_of_scope"):
            rep = OpReplay(op, "pass", True, reason=f"no CB prediction to compare ({cmp.model_status}: "
                                                    f"{cmp.model_reason})", cbs=cmp)
        elif cmp.match:
            rep = OpReplay(op, "pass", True, cbs=cmp)
        else:
            rep = OpReplay(op, "fail", True, reason=_mismatch_text(cmp), cbs=cmp)
        result.ops.append(rep)
    if any(r.status == "fail" for r in result.ops):
        result.status = "fail"
    elif ops and all(r.status == "skipped" for r in result.ops):
        result.status = "skipped"
        result.reason = "no op to replay"
    return result


def _skip_all(result: DeviceCheckResult, ops: list[Op], reason: str) -> DeviceCheckResult:
    result.status, result.reason = "skipped", reason
    result.ops = [OpReplay(op, "skipped", reason=reason) for op in ops]
    return result


def _mismatch_text(c: Any) -> str:
    if c.outcome == "model_refused":
        return f"the model predicts a refusal tt-metal did not make: {c.model_reason}"
    if c.outcome == "model_no_program":
        return f"the model predicts no program, tt-metal allocated {c.device_peak:,} B per core"
    if c.outcome == "bytes_differ":
        return f"per-core CB peak: model {c.model_peak:,} B, device {c.device_peak:,} B"
    if c.cbs_equal is False:
        return "the CBs differ in size or cores (same per-core peak)"
    return c.outcome


def replay_text(r: OpReplay) -> list[str]:
    """Lines describing one replayed op."""
    head = f"{op_text(r.op)}"
    if r.status == "skipped":
        return [f"  SKIP {head}", f"       {r.reason}"]
    lines = [f"  {'PASS' if r.status == 'pass' else 'FAIL'} {head}"]
    if not r.accepted:
        lines.append(f"       not accepted: {r.reason}: {r.error}")
        return lines
    c = r.cbs
    if c is None:
        return lines
    if c.model_status == "not_device" and not c.device_cbs and c.device_peak == 0:
        lines.append("       accepted; no CBs (no program on the device, none predicted)")
    else:
        verdict = "match" if c.match else "DIFFER"
        lines.append(f"       accepted; CBs {verdict}: per-core peak device {c.device_peak:,} B, model "
                     f"{c.model_peak:,} B ({c.model_status})"
                     + (f"; device scratchpads {', '.join(f'{s:,}' for s in c.device_scratchpads)} B"
                        if c.device_scratchpads else ""))
        if c.scope != "all programs":
            lines.append(f"         compared {c.scope}")
        for crs, dev, model in c.by_cores():
            mark = "=" if sorted(dev) == sorted(model) else "!="
            lines.append(f"         cores {crs}: device {_sizes(dev)} {mark} model {_sizes(model)}")
    if r.reason:
        lines.append(f"       {r.reason}")
    return lines


def _sizes(sizes: list[int]) -> str:
    if not sizes:
        return "none"
    return " + ".join(f"{s:,}" for s in sizes) + (f" = {sum(sizes):,} B" if len(sizes) > 1 else " B")


def semantic_text(s: SemanticResult) -> list[str]:
    """Lines describing the semantic check."""
    verdict = s.status.upper()
    if s.mode == "single":
        lines = [f"semantic check (reference interpreter, seed {s.seed}, the file alone): {verdict}"]
    else:
        lines = [f"semantic check (reference interpreter, original vs fixed, seed {s.seed}): {verdict}"]
        d = s.diff
        if d is not None:
            why = ("every changed op only moves data within one data type: outputs must be identical"
                   if d.pure_data_movement else
                   "changed ops compute: " + ", ".join(sorted({op.name for op in d.computing}))
                   + f"; outputs need pcc >= {MIN_PCC}")
            lines.append(f"  {len(d.removed)} ops removed, {len(d.added)} added or modified ({why})")
            pairs = d.modified()
            paired = {id(o) for pair in pairs for o in pair[:2]}
            lines += [f"    - {op_text(op)}" for op in d.removed if id(op) not in paired]
            lines += [f"    + {op_text(op)}" for op in d.added if id(op) not in paired]
            for old, new, changes in pairs:
                lines.append(f"    ~ line {old.pos.line} -> {new.pos.line} {new.name}: " + "; ".join(changes))
    if s.error:
        lines.append(f"  error: {s.error}")
    for o in s.outputs:
        lines.append(f"  {'PASS' if o.passed else 'FAIL'} {o.describe()}")
    return lines


def device_text(d: DeviceCheckResult) -> list[str]:
    """Lines describing the device check."""
    if d.status == "skipped" and d.arch is None:
        return [f"device check: SKIPPED ({d.reason}; {len(d.ops)} ops not replayed)"]
    verdict = {"pass": "PASS", "fail": "FAIL", "skipped": "SKIPPED"}[d.status]
    vers = ", ".join(f"{k.replace('_version', '').replace('_sha', '').replace('_', '-')} {v[:8]}" for k, v in d.versions.items())
    arch = d.arch
    pred = (f"CB prediction for the device that ran the ops: {arch.name}, L1 base {arch.l1_unreserved_base:,}"
            if arch else "")
    if arch is not None and arch.name != d.file_arch:
        pred += f"; the file is {d.file_arch}"
    lines = [f"device check ({d.device_text()}; {vers}): {verdict}", f"  {pred}"]
    counts = Counter(r.status for r in d.ops)
    lines.append(f"  {len(d.ops)} ops: {counts['pass']} pass, {counts['fail']} fail, {counts['skipped']} skipped")
    quiet: Counter = Counter()
    for r in d.ops:
        if r.status == "skipped" and r.reason.startswith("runs no device program"):
            quiet[r.op.name] += 1
        else:
            lines += replay_text(r)
    if quiet:
        lines.append("  skipped, no device program: " + ", ".join(f"{n} x {name}" for name, n in sorted(quiet.items())))
    return lines
