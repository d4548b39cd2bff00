"""A numpy reference interpreter of TTNN IR.

Runs a parsed program (:mod:`ttanalyze.ir.parse`) on numpy arrays holding the
logical tensors, rounding every op's results to their declared data types as
the device stores them (:mod:`.numerics`), with per-op semantics in
:mod:`.ops`.  Used to check that a rewritten program computes what the
original does: run both on the same :func:`random_inputs` and :func:`compare`
their results (identical for pure data movement, PCC otherwise).

Public API:

* :func:`random_inputs` ``(func, seed) -> list[np.ndarray]``
* :func:`run` ``(program, inputs, func=None) -> list[np.ndarray]``
* :func:`compare` ``(a, b) -> Comparison``
* :class:`InterpError` (an :class:`~ttanalyze.errors.InputError`: ``file:line:col: error: ...``)
* :func:`moves_data` ``(op_name) -> bool``: the op only moves values.
"""

from .compare import Comparison, comp_pcc, compare
from .numerics import InterpError, dtype_of, quantize
from .ops import SEMANTICS, moves_data
from .run import Interpreter, random_inputs, run

__all__ = ["Comparison", "Interpreter", "InterpError", "SEMANTICS", "comp_pcc", "compare", "dtype_of",
           "moves_data", "quantize", "random_inputs", "run"]
