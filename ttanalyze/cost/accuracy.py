"""Accuracy figures: absolute percentage errors of predictions against measured durations.

``APE = |predicted - measured| / measured * 100``; a set of rows is summarised
by its median APE and its mean (MAPE), over the rows that have a measured
duration and a prediction.  :func:`summarize` groups rows by op code and puts
tt-metal's own estimate (``PM IDEAL [ns]``) next to the model's, scored on the
same rows; :func:`compare_profile` predicts every row of a profiler CSV and
scores it.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


def ape(predicted: float, measured: float) -> float:
    """Absolute percentage error, percent.

    Raises:
        ValueError: ``measured`` is not positive.
    """
    if measured <= 0:
        raise ValueError(f"measured duration must be positive, not {measured}")
    return abs(predicted - measured) / measured * 100.0


@dataclass(frozen=True)
class Score:
    """Errors of a set of rows: count, median APE and MAPE (percent)."""

    rows: int
    median_ape: float
    mape: float

    def __str__(self) -> str:
        return f"median APE {self.median_ape:.1f}%, MAPE {self.mape:.1f}% ({self.rows} rows)"


def score(pairs: Iterable[tuple[float, float]]) -> Score | None:
    """Score ``(predicted, measured)`` pairs; None when there are none."""
    errors = [ape(p, m) for p, m in pairs]
    if not errors:
        return None
    return Score(len(errors), statistics.median(errors), statistics.fmean(errors))


@dataclass(frozen=True)
class Compared:
    """One measured row next to its predictions.

    Attributes:
        op_code: the row's OP CODE.
        measured_ns: measured device kernel duration, None when untimed.
        predicted_ns: the model's prediction, None when the op is not modeled.
        pm_ideal_ns: tt-metal's ``PM IDEAL [ns]``, None when absent.
    """

    op_code: str
    measured_ns: float | None
    predicted_ns: float | None
    pm_ideal_ns: float | None = None


@dataclass(frozen=True)
class Summary:
    """The rows of one op code (or of all op codes, ``op_code`` ``"all"``).

    Attributes:
        op_code: the op code, or ``"all"``.
        rows: rows in the group.
        timed: rows with a measured duration.
        predicted: timed rows the model predicts.
        measured_ns / predicted_ns: sums over the timed, predicted rows.
        model: the model's score on those rows.
        pm_ideal: PM IDEAL's score on the same rows (those that have it).
    """

    op_code: str
    rows: int
    timed: int
    predicted: int
    measured_ns: float
    predicted_ns: float
    model: Score | None
    pm_ideal: Score | None


def _summary(op_code: str, rows: list[Compared]) -> Summary:
    both = [r for r in rows if r.measured_ns is not None and r.measured_ns > 0 and r.predicted_ns is not None]
    pm = [(r.pm_ideal_ns, r.measured_ns) for r in both if r.pm_ideal_ns is not None]
    return Summary(
        op_code=op_code, rows=len(rows), timed=sum(r.measured_ns is not None for r in rows), predicted=len(both),
        measured_ns=sum(r.measured_ns for r in both),  # type: ignore[misc]
        predicted_ns=sum(r.predicted_ns for r in both),  # type: ignore[misc]
        model=score((r.predicted_ns, r.measured_ns) for r in both),  # type: ignore[misc]
        pm_ideal=score(pm))  # type: ignore[arg-type]


def summarize(rows: Iterable[Compared]) -> tuple[list[Summary], Summary]:
    """Per-op-code summaries (largest measured time over the timed rows first) and the overall one."""
    rows = list(rows)
    groups: dict[str, list[Compared]] = {}
    for r in rows:
        groups.setdefault(r.op_code, []).append(r)
    timed_ns = {k: sum(r.measured_ns or 0.0 for r in v) for k, v in groups.items()}
    per_op = sorted((_summary(k, v) for k, v in groups.items()), key=lambda s: (-timed_ns[s.op_code], s.op_code))
    return per_op, _summary("all", rows)


@dataclass(frozen=True)
class PredictedRow:
    """One profiler row with the model's estimate.

    Attributes:
        row: the profiler row (:class:`ttanalyze.cost.profile.ProfileRow`).
        estimate: the model's :class:`ttanalyze.cost.device_op.Estimate`, None
            when the op is not modeled.
        reason: why there is no estimate (unknown op code, unmodeled form).
    """

    row: Any
    estimate: Any
    reason: str = ""

    @property
    def ape(self) -> float | None:
        """The row's APE (percent), None when untimed or unpredicted."""
        m = self.row.measured_ns
        if m is None or m <= 0 or self.estimate is None:
            return None
        return ape(self.estimate.ns, m)

    @property
    def pm_ape(self) -> float | None:
        """PM IDEAL's APE on the row (percent), None when either is absent."""
        m, pm = self.row.measured_ns, self.row.pm_ideal_ns
        if m is None or m <= 0 or pm is None:
            return None
        return ape(pm, m)


@dataclass(frozen=True)
class DeviceTotal:
    """One device's rows: measured and predicted kernel time (ns).

    Attributes:
        device_id: the DEVICE ID (None for rows without one).
        rows: device-op rows of the device (read and skipped).
        measured_ns: measured kernel time over all its timed rows (skipped ones too).
        predicted_ns: predicted time over the timed rows the model predicts.
        covered_measured_ns: measured time of those predicted rows.
    """

    device_id: int | None
    rows: int
    measured_ns: float
    predicted_ns: float
    covered_measured_ns: float

    @property
    def coverage(self) -> float:
        """Share of the measured time in rows the model predicts (0..1; 1 when nothing is timed)."""
        return self.covered_measured_ns / self.measured_ns if self.measured_ns > 0 else 1.0


@dataclass(frozen=True)
class ProfileComparison:
    """Every row of a profiler CSV predicted, and the scores per op code, per device and overall.

    Attributes:
        rows: every device-op row read, with its estimate or the reason it has none.
        per_op / total: scores (:class:`Summary`).
        skipped: rows the reader could not read (:class:`ttanalyze.cost.profile.SkippedRow`).
        devices: per-device totals (:class:`DeviceTotal`), by device id.
        notes: how the file was read and costed where it did not say (arch, grid, board).
        board: the board the rows were costed on, None when it was not known (``notes`` says
            what was assumed).
    """

    rows: list[PredictedRow]
    per_op: list[Summary]
    total: Summary
    skipped: list[Any] = field(default_factory=list)
    devices: list[DeviceTotal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    board: str | None = None

    @property
    def measured_ns(self) -> float:
        """Measured kernel time over every timed row, read or skipped, all devices (ns)."""
        return sum(d.measured_ns for d in self.devices)

    @property
    def coverage(self) -> float:
        """Share of the measured time (all devices) in rows the model predicts (0..1)."""
        m = self.measured_ns
        return sum(d.covered_measured_ns for d in self.devices) / m if m > 0 else 1.0

    @property
    def slowest(self) -> DeviceTotal | None:
        """The device with the largest measured time: the program's time on a multi-device mesh."""
        return max(self.devices, key=lambda d: d.measured_ns, default=None)

    def share(self, measured_ns: float | None) -> float:
        """A measured time as a share of the whole trace's (0..1)."""
        m = self.measured_ns
        return (measured_ns or 0.0) / m if m > 0 else 0.0


def _device_totals(rows: list[PredictedRow], skipped: list[Any]) -> list[DeviceTotal]:
    acc: dict[int | None, list[float]] = {}
    for p in rows:
        a = acc.setdefault(p.row.device_id, [0, 0.0, 0.0, 0.0])
        a[0] += 1
        m = p.row.measured_ns or 0.0
        a[1] += m
        if p.estimate is not None and m > 0:
            a[2] += p.estimate.ns
            a[3] += m
    for s in skipped:
        a = acc.setdefault(s.device_id, [0, 0.0, 0.0, 0.0])
        a[0] += 1
        a[1] += s.measured_ns or 0.0
    return [DeviceTotal(d, int(a[0]), a[1], a[2], a[3])
            for d, a in sorted(acc.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))]


def compare_profile(rows: Iterable[Any], constants: Any = None, board: str | None = None) -> ProfileComparison:
    """Predict each profiler row from its static columns and score it against its measured duration.

    Rows that share a signature (identical static columns) share one
    prediction.  The device of each row is ``for_device(arch, AVAILABLE WORKER
    CORE COUNT, board=board)``: without a board, the arch's default board
    (:data:`ttanalyze.cost.hardware.DEFAULT_BOARD`), noted.

    Args:
        rows: a :class:`ttanalyze.cost.profile.Profile` (its skipped rows and notes are carried
            over) or :class:`ttanalyze.cost.profile.ProfileRow` records.
        constants: :class:`ttanalyze.cost.constants.Constants` (default: the calibrated ones).
        board: ``n150``, ``p100``, ``p150``... (:data:`ttanalyze.cost.hardware.BOARDS`).

    Raises:
        ValueError: an unknown board, or one of another arch than a row's.
    """
    from .hardware import DEFAULT_BOARD, board_channels, for_device
    from .model import UnknownDeviceOp, UnmodeledDeviceOp, predict

    skipped: list[Any] = list(getattr(rows, "skipped", []))
    notes: list[str] = list(getattr(rows, "notes", []))
    rows = list(getattr(rows, "rows", rows))
    archs = sorted({r.op.arch for r in rows})
    if board is not None:
        for a in archs:
            board_channels(board, a)
    else:
        for a in archs:
            notes.append(f"board not given: {a} rows costed as on a {DEFAULT_BOARD[a]} (its DRAM channels); "
                         f"--board sets it")
    cache: dict[tuple[str, str], tuple[Any, str]] = {}
    out: list[PredictedRow] = []
    for r in rows:
        key = (r.signature, r.op.arch)
        if key not in cache:
            try:
                hw = for_device(r.op.arch, r.op.grid_cores, board=board)
                cache[key] = (predict(r.op, hw, constants), "")
            except UnknownDeviceOp as exc:
                cache[key] = (None, f"unknown op: {exc}")
            except UnmodeledDeviceOp as exc:
                cache[key] = (None, f"not modeled: {exc}")
        est, reason = cache[key]
        out.append(PredictedRow(r, est, reason))
    per_op, total = summarize(Compared(p.row.op.op_code, p.row.measured_ns, p.estimate.ns if p.estimate else None,
                                       p.row.pm_ideal_ns) for p in out)
    return ProfileComparison(out, per_op, total, skipped, _device_totals(out, skipped), notes, board)


@dataclass(frozen=True)
class IrOpMatch:
    """One IR op next to the profiler rows matched to it.

    Attributes:
        cost: the op's :class:`ttanalyze.cost.ir.OpCost`.
        rows: the matched :class:`ttanalyze.cost.profile.ProfileRow` records (one device).
        how: ``loc`` (the runtime's LOC column) or ``order`` (op codes aligned in program order).
    """

    cost: Any
    rows: tuple[Any, ...]
    how: str

    @property
    def measured_ns(self) -> float | None:
        """Measured time over the matched timed rows, None when none is timed."""
        timed = [r.measured_ns for r in self.rows if r.measured_ns]
        return sum(timed) if timed else None

    @property
    def ape(self) -> float | None:
        """APE of the op's predicted time against its matched rows' (percent), None when unmatched or untimed."""
        m = self.measured_ns
        if m is None or self.cost.status != "costed":
            return None
        return ape(self.cost.ns, m)


def _loc_key(text: str) -> str:
    """A location as ``loc("name")`` / ``name`` / ``"name"(...)`` reduced to its name."""
    t = text.strip()
    if t.startswith("loc("):
        t = t[4:-1] if t.endswith(")") else t[4:]
    t = t.strip()
    if t.startswith('"'):
        end = t.find('"', 1)
        t = t[1:end] if end > 0 else t[1:]
    return t


def match_ir(program_cost: Any, rows: Iterable[Any]) -> tuple[list[IrOpMatch], list[Any]]:
    """Match profiler rows to the IR ops of a costed program.

    Rows of one device only (the lowest device id: every device of a mesh runs
    the same program).  When the rows carry the runtime's ``LOC`` column, a row
    goes to the IR op whose location name (``Op.loc_name``) equals its LOC's
    name (IR ops sharing a name take its rows in program order, each as many
    as it runs device ops).  Otherwise the IR's device ops, in program order, and the rows are
    aligned by op family (``OP_KINDS``: ``TilizeWithValPadding`` and
    ``TilizeWithValPaddingDeviceOperation`` match) with the longest common
    subsequence (``difflib.SequenceMatcher``); a row in no matching block stays
    unmatched.

    Returns:
        ``(matches, unmatched rows)``: one :class:`IrOpMatch` per IR op with device work, in program order.
    """
    import difflib

    from .model import OP_KINDS

    rows = list(rows)
    devices = sorted({r.device_id for r in rows if r.device_id is not None})
    if devices:
        rows = [r for r in rows if r.device_id in (devices[0], None)]
    ops = [c for c in program_cost.ops if c.status != "no_device_op"]
    got: dict[int, list[Any]] = {id(c): [] for c in ops}
    unmatched: list[Any] = []
    if rows and any(r.loc for r in rows):
        # IR ops sharing a location name take its rows in program order, each as many as it runs device ops.
        by_name: dict[str, list[list[Any]]] = {}
        for c in ops:
            if c.op.loc_name:
                by_name.setdefault(_loc_key(c.op.loc_name), []).append([c, max(1, len(c.device_ops))])
        for r in rows:
            queue = by_name.get(_loc_key(r.loc)) if r.loc else None
            if not queue:
                unmatched.append(r)
                continue
            slot = next((q for q in queue if q[1] > 0), queue[-1])
            slot[1] -= 1
            got[id(slot[0])].append(r)
        how = "loc"
    else:
        seq = [(c, d.op_code) for c in ops for d in c.device_ops]
        key = [OP_KINDS.get(code, code) for _, code in seq]
        rkey = [OP_KINDS.get(r.op.op_code, r.op.op_code) for r in rows]
        sm = difflib.SequenceMatcher(None, key, rkey, autojunk=False)
        taken = set()
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                got[id(seq[blk.a + k][0])].append(rows[blk.b + k])
                taken.add(blk.b + k)
        unmatched = [r for i, r in enumerate(rows) if i not in taken]
        how = "order"
    return [IrOpMatch(c, tuple(got[id(c)]), how) for c in ops], unmatched
