"""The stub kernel toolchain (ttanalyze.executor.stub_toolchain) on a fake ttnn package: no executor needed."""

from __future__ import annotations

import subprocess

from ttanalyze.executor.stub_toolchain import stub_env

# A stand-in for the real riscv-tt-elf-g++: writes "real <output>" into the file after -o.
REAL = """#!/bin/sh
prev=""
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
echo "real $out" > "$out"
"""


def _fake_ttnn(tmp_path):
    pkg = tmp_path / "ttnn"
    bin_dir = pkg / "runtime" / "sfpi" / "compiler" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "riscv-tt-elf-g++").write_text(REAL)
    (bin_dir / "riscv-tt-elf-g++").chmod(0o755)
    (bin_dir / "riscv-tt-elf-objcopy").write_text("")
    (pkg / "runtime" / "sfpi" / "include").mkdir()
    (pkg / "tt_metal").mkdir()
    return pkg


def test_stub_root_links_everything_but_the_compiler(tmp_path):
    env = stub_env(_fake_ttnn(tmp_path), tmp_path / "cache")
    root = tmp_path / "cache" / "root"
    assert env["TT_METAL_RUNTIME_ROOT"].rstrip("/") == str(root)
    assert env["TT_METAL_NULL_KERNELS"] == "1" and env["TT_METAL_CACHE"].startswith(str(tmp_path / "cache"))
    assert (root / "tt_metal").is_symlink() and (root / "runtime" / "sfpi" / "include").is_symlink()
    assert (root / "runtime" / "sfpi" / "compiler" / "bin" / "riscv-tt-elf-objcopy").is_symlink()
    gxx = root / "runtime" / "sfpi" / "compiler" / "bin" / "riscv-tt-elf-g++"
    assert not gxx.is_symlink() and "ttanalyze stub" in gxx.read_text()
    stub_env(_fake_ttnn(tmp_path / "again"), tmp_path / "cache")  # idempotent on an existing root


def test_stub_compiles_and_links_for_real_once_per_processor(tmp_path):
    stub_env(_fake_ttnn(tmp_path), tmp_path / "cache")
    gxx = str(tmp_path / "cache" / "root" / "runtime" / "sfpi" / "compiler" / "bin" / "riscv-tt-elf-g++")

    def build(kernel: str) -> tuple[str, str]:
        d = tmp_path / "jit" / "kernels" / kernel / "123" / "trisc0"
        d.mkdir(parents=True)
        obj, elf, dep = d / "trisck.o", d / "trisc0.elf", d / "trisck.d"
        subprocess.run([gxx, "-c", "-MMD", "-MF", str(dep), "k.cpp", "-o", str(obj)], check=True)
        subprocess.run([gxx, "substitutes.o", str(obj), "-o", str(elf)], check=True)
        return obj.read_text(), elf.read_text()

    obj, elf = build("first")  # no template yet: the real compiler
    assert obj.startswith("real") and elf.startswith("real")
    obj, elf = build("second")  # stub: empty object, the first kernel's ELF
    assert obj == "" and elf == f"real {tmp_path}/jit/kernels/first/123/trisc0/trisc0.elf\n"
    fw = tmp_path / "jit" / "firmware" / "trisc0"
    fw.mkdir(parents=True)
    subprocess.run([gxx, "-c", "fw.cpp", "-o", str(fw / "fw.o")], check=True)  # firmware: always real
    assert (fw / "fw.o").read_text().startswith("real")
