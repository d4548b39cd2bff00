"""The cost model's fitted constants (``constants.json``), with their provenance.

Each constant has a value, a unit, an arch scope (``None``: shared by Wormhole
and Blackhole, which have the same Tensix core, so per-core costs are in
cycles and shared; an arch name: that arch only), a description of the term it
scales, and its provenance: how it was obtained (``fitted`` by
``benchmarks/fit_cost.py`` or ``prior``: a cited value the data could not move)
and, for fitted ones, the training rows whose predictions depend on it (trace
or sweep, rows, distinct signatures, op codes).

``constants.json`` is written by ``benchmarks/fit_cost.py`` from the training
split of ``/work/shared/perf`` only; :func:`load` reads it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).with_name("constants.json")


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
        return {"name": self.name, "value": self.value, "unit": self.unit, "arch": self.arch,
                "description": self.description, "provenance": self.provenance}


class Constants:
    """A set of constants; ``get(name, arch)`` prefers the arch's own value over the shared one."""

    def __init__(self, entries: list[Constant], meta: dict[str, Any] | None = None):
        self.entries = list(entries)
        self.meta = dict(meta or {})
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
                raise ConstantsError(f"cost constant '{name}' is missing for {arch} (constants.json)")
        return v

    def has(self, name: str, arch: str) -> bool:
        """Whether :meth:`get` finds ``name`` for ``arch``."""
        return (name, arch) in self._values or (name, None) in self._values

    def with_values(self, values: dict[tuple[str, str | None], float]) -> "Constants":
        """A copy with some values replaced (keys ``(name, arch)``); used by the fitter."""
        out = Constants(self.entries, self.meta)
        out._values = {**self._values, **values}
        return out

    def to_json(self) -> dict[str, Any]:
        entries = [Constant(c.name, self._values[(c.name, c.arch)], c.unit, c.arch, c.description,
                            c.provenance).to_json() for c in self.entries]
        return {"meta": self.meta, "constants": entries}


def from_json(data: dict[str, Any], source: str = "constants.json") -> Constants:
    """Build :class:`Constants` from the JSON form.

    Raises:
        ConstantsError: the data is not ``{"meta": {...}, "constants": [...]}`` with
            numeric values.
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
    return Constants(entries, data.get("meta") or {})


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
