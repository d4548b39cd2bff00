"""Keep the README's examples current: every ```` ``` ```` block whose first line is ``$ .venv/bin/ttanalyze ...``
is a command and its output.  ``python scripts/readme_examples.py`` runs each and reports the ones whose
output differs; ``--write`` rewrites the README with the outputs of today's code.  tests/test_readme.py
runs the check, so an example cannot go stale.

A command ending in ``# excerpt`` shows selected lines: each must appear in the output, in order.  Wall
times (``0.11 s``) are compared as ``<t> s``.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```\n\$ (?P<cmd>\.venv/bin/ttanalyze [^\n]*)\n(?P<out>.*?)^```$", re.M | re.S)
_SECONDS = re.compile(r"\b\d+\.\d+ s\b")


@dataclass
class Example:
    """One README example: its command line, whether it is an excerpt, the output shown, and where."""

    command: str
    excerpt: bool
    shown: str
    start: int
    end: int

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.command.split("#")[0])[1:]


def examples(text: str) -> list[Example]:
    """The examples of ``text`` (README markdown), in order."""
    return [Example(m["cmd"], m["cmd"].rstrip().endswith("# excerpt"), m["out"], m.start("out"), m.end("out"))
            for m in _BLOCK.finditer(text)]


def run(example: Example) -> str:
    """The command's standard output, run in process from the repository root (as the README does)."""
    import os

    from typer.testing import CliRunner

    from ttanalyze.cli import app

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return CliRunner().invoke(app, example.argv).stdout
    finally:
        os.chdir(cwd)


def _lines(text: str) -> list[str]:
    return [_SECONDS.sub("<t> s", line.rstrip()) for line in text.strip("\n").split("\n")]


def stale(example: Example, output: str) -> str | None:
    """Why the example's shown output is not what the command prints (None: it is)."""
    shown, got = _lines(example.shown), _lines(output)
    if not example.excerpt:
        if shown == got:
            return None
        first = next((i for i, (a, b) in enumerate(zip(shown, got)) if a != b), min(len(shown), len(got)))
        return (f"line {first + 1} differs:\n  shown: {shown[first] if first < len(shown) else '(nothing)'}\n"
                f"  now:   {got[first] if first < len(got) else '(nothing)'}")
    it = iter(got)
    for line in shown:
        if not any(line.strip() == g.strip() for g in it):
            return f"excerpt line not in the output (in order): {line}"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite README.md with the current outputs")
    args = ap.parse_args(argv)
    text = README.read_text()
    bad = 0
    pieces, last = [], 0
    for ex in examples(text):
        out = run(ex)
        why = stale(ex, out)
        if why is not None:
            bad += 1
            print(f"README.md: $ {ex.command}\n{why}\n", file=sys.stderr)
        if args.write and why is not None and not ex.excerpt:
            pieces += [text[last:ex.start], out if out.endswith("\n") else out + "\n"]
            last = ex.end
    if args.write:
        README.write_text("".join(pieces) + text[last:])
        print(f"README.md: {bad} example(s) rewritten" if bad else "README.md: every example is current")
        return 0
    print(f"{bad} stale example(s)" if bad else "every README example is current")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
