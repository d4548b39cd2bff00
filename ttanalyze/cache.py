"""A cache of per-file results on disk, keyed by content: re-checking an unchanged file costs a read.

A key is the SHA-256 of everything that decides a result: the file's bytes and
path, the command's options, and the tool itself (its version and a digest of
its source files, rule catalog and cost constants, so an edited checkout never
reads a stale entry).  An entry is a pickle written to a temporary file in the
same directory and renamed into place (``os.replace``), so concurrent writers
and interrupted runs leave either the whole entry or none; an unreadable entry
is a miss.

Where: ``$TTANALYZE_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttanalyze``, else
``~/.cache/ttanalyze``.  Entries are never evicted; delete the directory to
reclaim its space.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import __version__

ENV_DIR = "TTANALYZE_CACHE_DIR"
FORMAT = 1  # bump when the layout of the directory or of an entry changes


def default_dir() -> Path:
    """The cache directory (see the module docstring); not created here."""
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ttanalyze"


@lru_cache(maxsize=1)
def tool_digest() -> str:
    """SHA-256 of the ttanalyze version and of every file that shapes its results (``*.py``, ``*.json``,
    ``*.yaml`` of the package and the rule catalog), by relative path and content."""
    package = Path(__file__).resolve().parent
    roots = [package, package.parent / "rules"]
    h = hashlib.sha256(f"ttanalyze {__version__} cache {FORMAT}".encode())
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".json", ".yaml") and p.is_file()):
            h.update(str(path.relative_to(root)).encode() + b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


class Cache:
    """Pickled values by key in a directory (two-level: ``ab/abcdef....pickle``)."""

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else default_dir()

    @staticmethod
    def key(*parts: bytes | str) -> str:
        """The key of a result: SHA-256 over the tool digest and ``parts`` (each length-prefixed)."""
        h = hashlib.sha256(tool_digest().encode())
        for part in parts:
            data = part.encode() if isinstance(part, str) else part
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Any | None:
        """The value stored under ``key``, or None (absent, unreadable or written by another Python)."""
        try:
            with open(self._path(key), "rb") as f:
                return pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` atomically; a cache that cannot be written is skipped silently
        (it only costs the next run its time)."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pickle")
            try:
                with os.fdopen(fd, "wb") as f:
                    pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass
