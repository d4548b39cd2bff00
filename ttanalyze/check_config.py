"""What ``ttanalyze check`` reports: rule selection (``--select``/``--ignore``, comma lists, ids, names and id
prefixes, as ruff selects) and the ``[tool.ttanalyze]`` table of the nearest ``pyproject.toml``.

    [tool.ttanalyze]
    select = ["TTA0"]                       # ids, rule names (cb-overflow) or id prefixes (TTA00)
    ignore = ["TTA009", "unmodeled-op"]
    fail-on = "warning"                     # error | warning | info | never
    arch = "wormhole_b0"                    # for files without a ttcore.system_desc
    tt-metal = "0.81.1"
    [tool.ttanalyze.per-file-ignores]
    "generated/*.mlir" = ["TTA003"]
    [tool.ttanalyze.thresholds]             # when TTA002/TTA003 speak up (THRESHOLDS)
    "TTA002.min-tiles" = 8
    "TTA003.min-pct" = 20

The command line wins over the file, key by key (``--ignore`` adds to the
file's ``ignore``).  The ``[tool.ttanalyze.diff]`` table is ``ttanalyze
diff``'s (:mod:`ttanalyze.diff`).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError, SourcePos

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        tomllib = None  # type: ignore[assignment]

KEYS = ("select", "ignore", "per-file-ignores", "fail-on", "arch", "tt-metal", "thresholds")
# The rules' reporting thresholds that [tool.ttanalyze.thresholds] may set (defaults in the rule modules).
THRESHOLDS = {"TTA002.min-tiles": "tiles a reshape reads and writes in all (rules/reshape.py MIN_TILES_MOVED)",
              "TTA003.min-pct": "padding share of the physical volume, % (rules/padding.py MIN_PCT)",
              "TTA003.min-tiles": "padding tiles (rules/padding.py MIN_TILES)"}
FAIL_ON = ("error", "warning", "info", "never")
ARCHS = ("wormhole_b0", "blackhole")


@dataclass
class CheckConfig:
    """The ``[tool.ttanalyze]`` settings of ``check`` (None: not set), and the file they came from."""

    path: Path | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    fail_on: str | None = None
    arch: str | None = None
    tt_metal: str | None = None
    thresholds: dict[str, float] = field(default_factory=dict)


def split_list(values: list[str] | None) -> list[str]:
    """``["TTA001,TTA002", "cb-overflow"]`` -> ``["TTA001", "TTA002", "cb-overflow"]`` (repeatable and comma lists)."""
    return [v.strip() for item in values or [] for v in item.split(",") if v.strip()]


def resolve_rules(tokens: list[str], metas: dict, where: str = "--select") -> set[str]:
    """Rule ids matched by ``tokens``: an id (``TTA010``), a rule name (``cb-overflow``) or an id prefix
    (``TTA00``, ``TTA``), case-insensitively.

    Raises:
        InputError: a token that matches no rule (the message lists the rules).
    """
    ids: set[str] = set()
    for token in tokens:
        t = token.strip()
        by_name = {m.name.lower(): rid for rid, m in metas.items()}
        if t.lower() in by_name:
            ids.add(by_name[t.lower()])
            continue
        matched = {rid for rid in metas if rid.upper().startswith(t.upper())}
        if not matched:
            raise InputError(f"{where}: '{t}' is no rule id, rule name or id prefix; rules: "
                             + ", ".join(f"{rid} ({m.name})" for rid, m in metas.items()))
        ids |= matched
    return ids


def _key_pos(text: str, key: str) -> SourcePos | None:
    for i, line in enumerate(text.splitlines()):
        if re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
            return SourcePos(i + 1, len(line) - len(line.lstrip()) + 1)
    return None


def load(path: Path | None) -> CheckConfig:
    """The ``[tool.ttanalyze]`` table of ``path`` (None or no table: an empty config).

    Raises:
        InputError: unreadable file, invalid TOML, an unknown key or a bad value (with its line).
    """
    if path is None:
        return CheckConfig()
    p = str(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise InputError(f"cannot read config: {exc.strerror or exc}", p) from None
    if "[tool.ttanalyze" not in text:
        return CheckConfig(path)
    if tomllib is None:
        raise InputError("reading [tool.ttanalyze] needs Python 3.11 (tomllib) or the tomli package", p)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        raise InputError(f"invalid TOML: {re.sub(r' *[(]at line.*', '', str(exc))}", p,
                         SourcePos(int(m[1]), int(m[2])) if m else None) from None
    table = doc.get("tool", {}).get("ttanalyze", {})
    if not isinstance(table, dict):
        raise InputError("tool.ttanalyze must be a table", p, _key_pos(text, "ttanalyze"))
    cfg = CheckConfig(path)

    def strings(key: str) -> list[str]:
        v = table[key]
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise InputError(f"tool.ttanalyze.{key} must be a list of rule ids, names or prefixes", p,
                             _key_pos(text, key))
        return v

    def choice(key: str, allowed: tuple[str, ...] | None) -> str:
        v = table[key]
        if not isinstance(v, str) or (allowed is not None and v not in allowed):
            raise InputError(f"tool.ttanalyze.{key} must be one of {', '.join(allowed or ())}, not {v!r}", p,
                             _key_pos(text, key))
        return v

    for key in table:
        if key == "diff":
            continue
        if key not in KEYS:
            raise InputError(f"unknown key tool.ttanalyze.{key}; expected one of {', '.join(KEYS)} (or the diff "
                             "table)", p, _key_pos(text, key))
    if "select" in table:
        cfg.select = strings("select")
    if "ignore" in table:
        cfg.ignore = strings("ignore")
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict) or not all(isinstance(v, list) for v in pfi.values()):
            raise InputError("tool.ttanalyze.per-file-ignores must map glob patterns to lists of rules", p,
                             _key_pos(text, "per-file-ignores"))
        cfg.per_file_ignores = {k: [str(x) for x in v] for k, v in pfi.items()}
    if "thresholds" in table:
        th = table["thresholds"]
        if not isinstance(th, dict):
            raise InputError("tool.ttanalyze.thresholds must be a table", p, _key_pos(text, "thresholds"))
        for key, value in th.items():
            if key not in THRESHOLDS:
                raise InputError(f"unknown threshold {key!r}; expected one of {', '.join(THRESHOLDS)}", p,
                                 _key_pos(text, key))
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InputError(f"threshold {key!r} must be a number >= 0, not {value!r}", p, _key_pos(text, key))
            cfg.thresholds[key] = float(value)
    if "fail-on" in table:
        cfg.fail_on = choice("fail-on", FAIL_ON)
    if "arch" in table:
        cfg.arch = choice("arch", ARCHS)
    if "tt-metal" in table:
        cfg.tt_metal = choice("tt-metal", None)
    return cfg


def config_values(cfg: CheckConfig) -> dict[str, Any]:
    """The settings a check run read from the file (for ``--verbose``)."""
    return {k: v for k, v in cfg.__dict__.items() if v not in (None, [], {}) and k != "path"}


def ignored_for_path(path: str, per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...],
                     config_dir: str | None) -> set[str]:
    """Rule ids turned off for ``path`` by resolved per-file-ignores (glob, ids): a glob matches the path as
    given or relative to ``config_dir`` (the pyproject.toml's directory)."""
    names = {path}
    if config_dir is not None:
        try:
            names.add(str(Path(path).resolve().relative_to(Path(config_dir).resolve())))
        except (ValueError, OSError):
            pass
    return {rid for pattern, ids in per_file_ignores if any(fnmatch.fnmatch(n, pattern) for n in names)
            for rid in ids}


def check_options(a: Any, arch: str | None, l1_small_size: int | None) -> list[str]:
    """Options that contradict the file ``a`` (an Analysis): an L1_SMALL region that leaves no L1 bank is an
    input error; an ``--arch`` the file's system_desc overrides gives a note (returned, for stderr).

    Raises:
        InputError: ``l1_small_size`` is negative or not below ``l1_size - l1_unreserved_base``.
    """
    room = a.arch.l1_size - a.arch.l1_unreserved_base
    if l1_small_size is not None and not 0 <= l1_small_size < room:
        raise InputError(f"--l1-small-size {l1_small_size:,} B leaves no L1 bank: the L1 above l1_unreserved_base "
                         f"is {room:,} B (l1_size {a.arch.l1_size:,} - {a.arch.l1_unreserved_base:,}) on "
                         f"{a.arch.name}", a.program.path)
    if arch is not None and a.program.system_desc is not None and a.arch.name != arch:
        return [f"{a.program.path}:1:1: note: --arch {arch} is not used: the file's ttcore.system_desc "
                f"describes a {a.arch.name} device"]
    return []
