"""Errors that carry a position in the user's file.

Every problem with the *input* (malformed MLIR, unknown attribute syntax, absurd
shapes, ...) is raised as :class:`InputError`.  The CLI prints it as one line,
``file:line:col: error: message``, and exits with status 2; it never shows a
traceback for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourcePos:
    """A 1-based line and column in the user's file (columns count characters)."""

    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


class InputError(Exception):
    """The input cannot be analyzed.

    Attributes:
        message: one-line description, without the position prefix.
        path: file name as given by the user ("<string>" for in-memory text).
        pos: position of the offending text, or None when the whole file is at
            fault (then line 1, column 1 is printed).
    """

    def __init__(self, message: str, path: str = "<string>", pos: SourcePos | None = None):
        super().__init__(message)
        self.message = message.replace("\n", " ").strip()
        self.path = path
        self.pos = pos

    def with_path(self, path: str) -> "InputError":
        """Return the same error attributed to ``path``."""
        return InputError(self.message, path, self.pos)

    def __str__(self) -> str:
        pos = self.pos or SourcePos(1, 1)
        return f"{self.path}:{pos.line}:{pos.col}: error: {self.message}"


class Interrupted(BaseException):
    """Ctrl-C (SIGINT), as ``python -m ttanalyze`` raises it: past click's own KeyboardInterrupt handling
    ("Aborted!", exit 1) to the entry point, which prints one line and exits 130; long searches
    (``ttanalyze limits``) catch it to answer with what they know so far."""
