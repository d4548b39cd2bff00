"""Comparing two result tensors: exact equality, PCC, max absolute and relative error.

``pcc`` is tt-metal's ``comp_pcc`` (``models/common/utility_functions.py``
@022e2c5a), the check its model and op tests use:

1. both arrays all NaN -> 1.0; exactly one all NaN -> 0.0;
2. one array has a nonzero (or NaN) element and the other none -> 0.0;
3. NaN and +-inf are set to 0 in both;
4. equal arrays -> 1.0;
5. else the smallest entry of ``numpy.ma.corrcoef`` of the flattened arrays
   (float64 here), the masked result of a zero variance -> 1.0.

Step 5 makes ``comp_pcc`` 1.0 whenever one side is constant (zero variance:
every entry involving it is masked, and the other side's own correlation 1.0
remains), e.g. two different constants, or a constant against any array.
:attr:`Comparison.degenerate` flags that case, where the PCC says nothing and
the absolute/relative errors must decide; :meth:`Comparison.ok` does so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Comparison:
    """How two tensors compare (``a`` the reference, e.g. the original program's output; ``b`` the candidate).

    Attributes:
        shape_a / shape_b: shapes; when they differ nothing else is compared
            (``exact`` False, ``pcc`` 0.0, errors infinite).
        dtype_a / dtype_b: numpy storage types.
        exact: same shape, same storage type and equal values (NaN equal to NaN
            at the same positions; -0.0 equals 0.0).
        pcc: tt-metal's ``comp_pcc`` value (module docstring).
        degenerate: ``pcc`` is not a correlation: the arrays differ and one of
            them (after step 3) is constant.
        max_abs: max ``|a - b|`` over positions where both are finite; infinite
            when the non-finite positions or values differ.
        max_rel: max ``|a - b| / max(|a|, |b|)`` over the same positions (0 where
            both are 0), in [0, 2].
    """

    shape_a: tuple[int, ...]
    shape_b: tuple[int, ...]
    dtype_a: str
    dtype_b: str
    exact: bool
    pcc: float
    degenerate: bool
    max_abs: float
    max_rel: float

    def ok(self, min_pcc: float = 0.999, require_exact: bool = False, max_abs_if_degenerate: float = 0.0) -> bool:
        """Whether ``b`` passes as ``a``: exact, or (unless ``require_exact``) ``pcc >= min_pcc`` with a real
        correlation; a degenerate PCC passes only when ``max_abs <= max_abs_if_degenerate``."""
        if self.exact:
            return True
        if require_exact or self.shape_a != self.shape_b:
            return False
        if self.degenerate:
            return self.max_abs <= max_abs_if_degenerate
        return self.pcc >= min_pcc

    def __str__(self) -> str:
        if self.shape_a != self.shape_b:
            return f"shapes differ: {list(self.shape_a)} vs {list(self.shape_b)}"
        head = "exact" if self.exact else "differs"
        pcc = f"pcc {self.pcc:.6f}" + (" (degenerate: a constant side)" if self.degenerate else "")
        return f"{head}; {pcc}; max abs {self.max_abs:.6g}; max rel {self.max_rel:.6g}"


def comp_pcc(a: np.ndarray, b: np.ndarray) -> float:
    """tt-metal's ``comp_pcc`` value of two arrays of one shape (module docstring)."""
    g = np.asarray(a, dtype=np.float64).ravel()
    c = np.asarray(b, dtype=np.float64).ravel()
    g_nan, c_nan = np.isnan(g), np.isnan(c)
    if g_nan.all() and c_nan.all():
        return 1.0
    if g_nan.all() or c_nan.all():
        return 0.0
    if bool(np.any(g != 0)) != bool(np.any(c != 0)):
        return 0.0
    g = np.where(np.isfinite(g), g, 0.0)
    c = np.where(np.isfinite(c), c, 0.0)
    if np.array_equal(g, c):
        return 1.0
    with np.errstate(all="ignore"):
        value = np.min(np.ma.corrcoef(np.ma.masked_invalid(g), np.ma.masked_invalid(c)))
    if isinstance(value, np.ma.core.MaskedConstant):
        return 1.0
    return float(value)


def compare(a: np.ndarray, b: np.ndarray) -> Comparison:
    """Compare reference ``a`` with candidate ``b`` (:class:`Comparison`)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return Comparison(a.shape, b.shape, str(a.dtype), str(b.dtype), False, 0.0, False, float("inf"), float("inf"))
    exact = a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    pcc = comp_pcc(a, b)
    x, y = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    fx, fy = np.isfinite(x), np.isfinite(y)
    same_nonfinite = np.array_equal(fx, fy) and np.array_equal(x[~fx], y[~fy], equal_nan=True)
    both = fx & fy
    diff = np.abs(x[both] - y[both])
    scale = np.maximum(np.abs(x[both]), np.abs(y[both]))
    if not same_nonfinite:
        max_abs = max_rel = float("inf")
    elif diff.size:
        max_abs = float(diff.max())
        with np.errstate(all="ignore"):
            max_rel = float(np.max(np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), 0.0)))
    else:
        max_abs = max_rel = 0.0
    xm, ym = np.where(fx, x, 0.0), np.where(fy, y, 0.0)
    constant = (xm.size > 0) and (np.all(xm == xm[0]) or np.all(ym == ym[0]))
    degenerate = bool(constant and not np.array_equal(xm, ym))
    return Comparison(a.shape, b.shape, str(a.dtype), str(b.dtype), exact, pcc, degenerate, max_abs, max_rel)
