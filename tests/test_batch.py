"""``check`` over many files: ``-j`` worker processes and the content-keyed cache give the report one process
and no cache give, byte for byte; the cache is keyed by content and options and survives broken entries."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ttanalyze import batch
from ttanalyze.cache import Cache

from .conftest import FIXTURES, REAL

SEED0 = FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir"
FILES = [SEED0, FIXTURES / "seeds" / "simple_mlp_wh.mlir", *REAL[:3]]


def entries(root) -> list:
    return sorted(p for p in root.rglob("*.pickle"))


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_workers_and_cache_give_the_single_process_report(cli, tmp_path, fmt):
    args = ["check", *FILES, "--format", fmt, "--fail-on", "warning"]
    alone = cli(*args, "-j", "1", "--no-cache")
    assert not entries(Cache().root)  # --no-cache writes nothing
    pooled = cli(*args, "-j", "2")
    cached = cli(*args, "-j", "2")
    assert alone.exit_code == pooled.exit_code == cached.exit_code == 1
    assert alone.stdout == pooled.stdout == cached.stdout
    if fmt == "json":
        assert [f["path"] for f in json.loads(alone.stdout)["files"]] == [str(p) for p in FILES]


def test_a_cached_file_is_not_analyzed_again(cli, monkeypatch):
    first = cli("check", SEED0, "--format", "json")
    root = Cache().root
    assert len(entries(root)) == 1

    def no_analysis(*args, **kwargs):
        raise AssertionError("analyzed again")

    monkeypatch.setattr(batch, "check_file", no_analysis)
    again = cli("check", SEED0, "--format", "json")
    assert again.exit_code == first.exit_code and again.stdout == first.stdout
    # other options are another key: analyzed again (the patched analysis fails as an internal error)
    assert cli("check", SEED0, "--select", "TTA002").exit_code == 3


def test_the_key_is_the_content(cli, tmp_path):
    path = tmp_path / "seed.mlir"
    shutil.copy(SEED0, path)
    before = cli("check", path, "--select", "TTA002")
    assert "TTA002" in before.stdout
    path.write_text("// one line more\n" + path.read_text())  # the same program, every op a line lower
    after = cli("check", path, "--select", "TTA002")
    line = int(before.stdout.split(":")[1])
    assert f"{path}:{line + 1}:" in after.stdout and f"{path}:{line}:" not in after.stdout
    assert len(entries(Cache().root)) == 2


def test_a_broken_entry_is_a_miss(cli):
    first = cli("check", SEED0)
    [entry] = entries(Cache().root)
    entry.write_bytes(b"not a pickle")
    again = cli("check", SEED0)
    assert again.exit_code == first.exit_code and again.stdout == first.stdout
    assert entry.read_bytes() != b"not a pickle"  # rewritten whole


def test_input_errors_are_reported_and_not_cached(cli, tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n  func.func @f( {\n}\n")
    result = cli("check", bad, SEED0, "-j", "2")
    assert result.exit_code == 2
    assert f"{SEED0}: 3 ops" in result.stdout
    assert len(entries(Cache().root)) == 1  # only the good file


def test_cache_dir_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TTANALYZE_CACHE_DIR", str(tmp_path / "here"))
    assert Cache().root == tmp_path / "here"
    monkeypatch.delenv("TTANALYZE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert Cache().root == tmp_path / "xdg" / "ttanalyze"


def test_put_is_atomic_and_get_round_trips(tmp_path):
    cache = Cache(tmp_path)
    key = Cache.key("a", b"b")
    assert cache.get(key) is None
    cache.put(key, {"x": [1, 2]})
    assert cache.get(key) == {"x": [1, 2]}
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [f"{key}.pickle"]  # no temporary left
    assert Cache.key("a", b"b") != Cache.key("ab", b"")  # parts are length-prefixed
    os.chmod(tmp_path, 0o500)
    try:
        cache.put(Cache.key("other"), 1)  # an unwritable cache is skipped, not an error
    finally:
        os.chmod(tmp_path, 0o700)


def test_the_command_ends_with_its_report_flushed_and_its_exit_status(cli, tmp_path):
    """``python -m ttanalyze`` ends with ``os._exit`` (ttanalyze.__main__): stdout, stderr and the status are
    those of the command run in process."""
    import subprocess
    import sys

    from .conftest import ROOT

    for args, status in (([SEED0, FIXTURES / "seeds" / "simple_mlp_wh.mlir", "--fail-on", "warning"], 1),
                         ([SEED0, "--format", "json", "--fail-on", "never"], 0)):
        expected = cli("check", *args, "--no-cache")
        env = dict(os.environ, PYTHONPATH=str(ROOT), TTANALYZE_CACHE_DIR=str(tmp_path))
        run = subprocess.run([sys.executable, "-m", "ttanalyze", "check", *map(str, args), "--no-cache"],
                             capture_output=True, text=True, env=env, timeout=300)
        assert (run.returncode, run.stdout) == (status, expected.stdout)
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {\n")
    run = subprocess.run([sys.executable, "-m", "ttanalyze", "check", str(bad), "--no-cache"], capture_output=True,
                         text=True, env=env, timeout=300)
    assert run.returncode == 2 and run.stderr == f"{bad}:1:8: error: unbalanced '{{' in module: no matching '}}'\n"
