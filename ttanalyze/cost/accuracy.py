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
from dataclasses import dataclass
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
class ProfileComparison:
    """Every row of a profiler CSV predicted, and the scores per op code and overall."""

    rows: list[PredictedRow]
    per_op: list[Summary]
    total: Summary


def compare_profile(rows: Iterable[Any], constants: Any = None) -> ProfileComparison:
    """Predict each profiler row from its static columns and score it against its measured duration.

    Rows that share a signature (identical static columns) share one
    prediction.  The device of each row is ``for_device(arch, AVAILABLE WORKER
    CORE COUNT)`` with the arch's default clock and DRAM channels.

    Args:
        rows: :class:`ttanalyze.cost.profile.ProfileRow` records (``read_profile``).
        constants: :class:`ttanalyze.cost.constants.Constants` (default: the calibrated ones).
    """
    from .hardware import for_device
    from .model import UnknownDeviceOp, UnmodeledDeviceOp, predict

    cache: dict[str, tuple[Any, str]] = {}
    out: list[PredictedRow] = []
    for r in rows:
        if r.signature not in cache:
            try:
                cache[r.signature] = (predict(r.op, for_device(r.op.arch, r.op.grid_cores), constants), "")
            except UnknownDeviceOp as exc:
                cache[r.signature] = (None, f"unknown op: {exc}")
            except UnmodeledDeviceOp as exc:
                cache[r.signature] = (None, f"not modeled: {exc}")
        est, reason = cache[r.signature]
        out.append(PredictedRow(r, est, reason))
    per_op, total = summarize(Compared(p.row.op.op_code, p.row.measured_ns, p.estimate.ns if p.estimate else None,
                                       p.row.pm_ideal_ns) for p in out)
    return ProfileComparison(out, per_op, total)
