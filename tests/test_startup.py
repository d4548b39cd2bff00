"""Start-up of the command line: what ``check`` of a small file imports, and the plain writer of the text
report that stands in for rich's console (``ttanalyze.report.text.console_text``)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from ttanalyze.report.text import console_text

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "fixtures" / "real" / "mlp_o0" / "ttnn.mlir"

# Libraries a text check of a small file never needs: each costs 0.03-0.1 s of start-up when imported.
NOT_IMPORTED = ("numpy", "rich", "sympy", "networkx", "lark", "z3")


def _rich(text: str, width: int) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, emoji=False, highlight=False).print(text, highlight=False, markup=False,
                                                                        soft_wrap=True)
    return buf.getvalue()


def test_console_text_writes_what_rich_writes():
    """Random text of printable ASCII, markup and emoji syntax, wide characters, tabs, control codes, blank
    and trailing lines, long lines: the plain writer's output is rich's, byte for byte."""
    pieces = list("abc XYZ[]:/%#@()=-_.,;'\"\\{}<>|!?*~`^$&+") + [
        "\n", "\n", "é", "中", "😀", "\u00a0", "\t", "\r", "\x1b[1m", "\x07", "\u200b", "\u2028", ":smile:",
        "[bold]x[/bold]", " " * 5]
    rng = random.Random(14)
    plain = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60))) * rng.randint(1, 8)
        width = rng.choice((240, 80))
        assert console_text(text, width) == _rich(text, width), repr(text)
        plain += text.replace("\n", "").isprintable()
    assert plain > 300  # the plain path was taken, not only rich's


def test_check_of_a_small_file_imports_no_heavy_library():
    """``python -m ttanalyze check FILE`` with its text report on a pipe imports none of NOT_IMPORTED (iree's
    ``ir.py`` would import numpy: ttanalyze.ir.parse._import_bindings), and its report is unchanged."""
    probe = (
        "import atexit, json, sys\n"
        f"names = {NOT_IMPORTED!r}\n"
        "atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in names)),"
        " file=sys.stderr))\n"
        f"sys.argv = ['ttanalyze', 'check', '--no-cache', '--fail-on', 'never', {str(SMALL)!r}]\n"
        "from ttanalyze.__main__ import main\n"
        "main()\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stderr.strip().splitlines()[-1]) == []
    assert proc.stdout.endswith("Found 0 errors, 0 warnings and 0 info in 1 file\n")
    assert f"{SMALL}: 17 ops, 0 errors, 0 warnings, 0 info; peak L1 at line 36" in proc.stdout


def test_bindings_import_leaves_numpy_importable():
    """After the bindings were imported with numpy marked absent, numpy imports as usual."""
    probe = ("import sys\nimport ttanalyze.ir.parse\nassert 'numpy' not in sys.modules\n"
             "import numpy\nprint(numpy.int64(3) + 1)\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "4\n"
