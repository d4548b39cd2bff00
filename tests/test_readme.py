"""Every README example's output is what today's code prints (scripts/readme_examples.py --write regenerates
them)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from .conftest import ROOT

_spec = importlib.util.spec_from_file_location("readme_examples", ROOT / "scripts" / "readme_examples.py")
readme = sys.modules["readme_examples"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme)
EXAMPLES = readme.examples(readme.README.read_text())


def test_the_readme_has_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.command.split("ttanalyze ")[1][:60] for e in EXAMPLES])
def test_readme_example_is_current(example):
    why = readme.stale(example, readme.run(example))
    assert why is None, f"$ {example.command}\n{why}\n(run: python scripts/readme_examples.py --write)"
