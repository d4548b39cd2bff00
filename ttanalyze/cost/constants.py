"""The cost model's fitted constants (``constants.json``), with their provenance.

Each constant has a value, a unit, an arch scope (``None``: shared by Wormhole
and Blackhole, which have the same Tensix core, so per-core costs are in
cycles and shared; an arch name: that arch only), a description of the term it
scales, and its provenance: how it was obtained (``fitted`` by
``benchmarks/fit_cost.py``, or ``prior``: no training row depends on it, so it
keeps the prior value of ``benchmarks/fit_cost.py``'s ``PARAMS``) and, for
fitted ones, the training rows whose predictions depend on it (trace or sweep,
rows, distinct signatures, op codes).  A prior is not necessarily cited:
``sfpu_heavy`` (2000 cycles per tile) has no source and no training row; it is
an uncited physical guess, the order of the fitted ``sfpu_exp``, for SFPU
transcendental ops (erf, gelu, sigmoid, recip, rsqrt...).

Every value must be finite and not negative; those the model divides by
(:data:`POSITIVE`) must be above 0.

``constants.json`` is written by ``benchmarks/fit_cost.py`` from the training
split of ``measurements/perf`` only; :func:`load` reads it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).with_name("constants.json")
# Constants the model divides by (bandwidth shares and copy rates): they must be above 0.
POSITIVE = frozenset({"dram_read_eff", "dram_write_eff", "dram_mixed_eff", "mm_dram_share", "l1_copy_bytes",
                      "halo_bytes"})


class ConstantsError(ValueError):
    """constants.json is missing, malformed, or lacks a constant the model needs."""


@dataclass(frozen=True)
class Constant:
    """One constant.

    Attributes:
        name: the model's name for it (see :mod:`ttanalyze.cost.model`).
        value: its value, in ``unit``.
        unit: ``cycles``, ``cycles/tile``, ``ns``, ``fraction of DRAM peak``...
        arch: ``wormhole_b0`` / ``blackhole``, or None when shared.
        description: the term it scales.
        provenance: ``{"how": "fitted" | "prior", "source": ..., "rows": n,
            "signatures": n, "data": {trace: rows}, "op_codes": [...]}``.
    """

    name: str
    value: float
    unit: str
    arch: str | None
    description: str
    provenance: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict[str, Any]:
        """The JSON form of one entry of constants.json."""
        return {"name": self.name, "value": self.value, "unit": self.unit, "arch": self.arch,
                "description": self.description, "provenance": self.provenance}


class Constants:
    """A set of constants; ``get(name, arch)`` prefers the arch's own value over the shared one.

    ``source`` names where they came from (the constants file) in error messages.
    """

    def __init__(self, entries: list[Constant], meta: dict[str, Any] | None = None,
                 source: str = "constants.json"):
        self.entries = list(entries)
        self.meta = dict(meta or {})
        self.source = source
        self._values: dict[tuple[str, str | None], float] = {(c.name, c.arch): c.value for c in entries}

    def get(self, name: str, arch: str) -> float:
        """The value of ``name`` for ``arch``.

        Raises:
            ConstantsError: no value for ``name`` (neither ``arch``'s nor a shared one).
        """
        v = self._values.get((name, arch))
        if v is None:
            v = self._values.get((name, None))
            if v is None:
                raise ConstantsError(f"cost constant '{name}' is missing for {arch} ({self.source})")
        return v

    def with_values(self, values: dict[tuple[str, str | None], float]) -> "Constants":
        """A copy with some values replaced (keys ``(name, arch)``); used by the fitter."""
        out = Constants(self.entries, self.meta, self.source)
        out._values = {**self._values, **values}
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON form of constants.json (``{"meta": ..., "constants": [...]}``), with the current values."""
        entries = [Constant(c.name, self._values[(c.name, c.arch)], c.unit, c.arch, c.description,
                            c.provenance).to_json() for c in self.entries]
        return {"meta": self.meta, "constants": entries}


def from_json(data: dict[str, Any], source: str = "constants.json") -> Constants:
    """Build :class:`Constants` from the JSON form.

    Raises:
        ConstantsError: the data is not ``{"meta": {...}, "constants": [...]}`` with
            numeric values, or a value is not finite, negative, or 0 for a constant
            the model divides by (:data:`POSITIVE`); the message names ``source``.
    """
    if not isinstance(data, dict) or not isinstance(data.get("constants"), list):
        raise ConstantsError(f"{source}: expected {{'meta': ..., 'constants': [...]}}")
    entries = []
    for i, e in enumerate(data["constants"]):
        try:
            value = float(e["value"])
            entries.append(Constant(str(e["name"]), value, str(e.get("unit", "")), e.get("arch"),
                                    str(e.get("description", "")), dict(e.get("provenance") or {})))
        except (KeyError, TypeError, ValueError):
            raise ConstantsError(f"{source}: constant #{i} has no numeric 'value' or no 'name'") from None
        c = entries[-1]
        if not math.isfinite(value) or value < 0 or (value == 0 and c.name in POSITIVE):
            need = "above 0" if c.name in POSITIVE else "finite and not negative"
            raise ConstantsError(f"{source}: constant #{i} '{c.name}' is {value:g}, it must be {need}")
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        raise ConstantsError(f"{source}: 'meta' is not an object")
    return Constants(entries, meta, source)


def load(path: str | Path | None = None) -> Constants:
    """Read constants.json (the packaged one by default; cached).

    Raises:
        ConstantsError: the file is missing or malformed.
    """
    return _load(str(path or DEFAULT_PATH))


@lru_cache(maxsize=8)
def _load(path: str) -> Constants:
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise ConstantsError(f"cannot read cost constants {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ConstantsError(f"{path}: not JSON ({e})") from None
    return from_json(data, path)
