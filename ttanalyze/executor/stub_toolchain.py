"""A kernel toolchain that skips the JIT compile of device kernels, for NO_DISPATCH captures.

A NO_DISPATCH capture (:mod:`ttanalyze.executor.ttnn_worker`) builds every program the op
creates, and building a program JIT-compiles each kernel variant it has not seen (tt-metal
``jit_build/build.cpp``: one ``riscv-tt-elf-g++`` compile and one LTO link per RISC-V
processor of the kernel, keyed by the kernel's compile-time arguments and defines): 2-8 s per
new op instance on a 2-core machine.  On a mock device no kernel runs, and what the campaigns
compare (circular buffers, dataflow buffers, scratchpads, L1 buffers, output specs,
TT_FATAL texts) is decided on the host before and independently of the kernel binaries.

This module makes a *runtime root* for tt-metal (``TT_METAL_RUNTIME_ROOT``): symbolic links to
everything of the installed ttnn package except ``runtime/sfpi/compiler/bin/riscv-tt-elf-g++``,
which is :data:`STUB` (a POSIX shell script):

* firmware, the precompiled header and anything outside ``.../kernels/<name>/<hash>/<processor>/``
  go to the real compiler;
* a kernel compile (``-c``) writes an empty object and an empty dependency file once a template
  binary for the processor exists (the first kernel of each processor is compiled for real);
* a kernel link whose object is empty copies the template ELF of the processor (the last real
  kernel link of that processor, saved under ``templates/``); a real link saves its output as
  the template.

With ``TT_METAL_NULL_KERNELS=1`` the templates are tt-metal's null kernels.  ``TT_METAL_CACHE``
points at a cache of its own, so no other user of the machine's kernel cache ever loads a stub
binary.  ``benchmarks/opdiff_stub_check.py`` checks on measured instances that every compared
field is the same with and without it (result in ``measurements/opdiff/stub_check.json``).
"""

from __future__ import annotations

import os
from pathlib import Path

STUB = r"""#!/bin/sh
# ttanalyze stub riscv-tt-elf-g++ (ttanalyze/executor/stub_toolchain.py)
REAL="@REAL@"
TPL="@TPL@"
out=""; dep=""; compile=0; prev=""; obj=""
for a in "$@"; do
  case "$prev" in -o) out=$a ;; -MF) dep=$a ;; esac
  case "$a" in -c) compile=1 ;; *.o) obj=$a ;; esac
  prev=$a
done
case "$out" in
  */kernels/*/*/*/*) ;;
  *) exec "$REAL" "$@" ;;
esac
proc=$(basename "$(dirname "$out")")
if [ "$compile" = 1 ]; then
  if [ -f "$TPL/$proc.elf" ]; then
    : > "$out"
    [ -n "$dep" ] && printf '%s:\n' "$out" > "$dep"
    exit 0
  fi
  exec "$REAL" "$@"
fi
if [ -f "$TPL/$proc.elf" ] && [ -n "$obj" ] && [ ! -s "$obj" ]; then
  cp "$TPL/$proc.elf" "$out"
  exit $?
fi
"$REAL" "$@" || exit $?
cp "$out" "$TPL/$proc.elf.$$" && mv "$TPL/$proc.elf.$$" "$TPL/$proc.elf"
"""


def stub_root(ttnn_dir: Path, cache: Path) -> Path:
    """Make (idempotently) the stub runtime root under ``cache`` for the ttnn package at ``ttnn_dir``.

    Returns the root directory (pass it as ``TT_METAL_RUNTIME_ROOT``, with a trailing slash).

    Raises:
        FileNotFoundError: ``ttnn_dir`` has no ``runtime/sfpi/compiler/bin/riscv-tt-elf-g++``.
    """
    ttnn_dir = Path(ttnn_dir).resolve()
    gxx = ttnn_dir / "runtime" / "sfpi" / "compiler" / "bin" / "riscv-tt-elf-g++"
    if not gxx.exists():
        raise FileNotFoundError(f"no sfpi compiler at {gxx}")
    # ttnn/runtime/sfpi is itself a link (scripts/setup-executor.sh): mirror through the resolved path
    real_bin = gxx.resolve().parent
    root = cache / "root"
    templates = cache / "templates"
    templates.mkdir(parents=True, exist_ok=True)
    _mirror_tree(ttnn_dir, root, real_bin)
    stub = root / "runtime" / "sfpi" / "compiler" / "bin" / "riscv-tt-elf-g++"
    text = STUB.replace("@REAL@", str(gxx.resolve())).replace("@TPL@", str(templates))
    if not stub.exists() or stub.is_symlink() or stub.read_text() != text:
        if stub.is_symlink():
            stub.unlink()
        tmp = stub.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(stub)
    return root


def _mirror_tree(ttnn_dir: Path, root: Path, real_bin: Path) -> None:
    """``root`` = links to ``ttnn_dir``'s entries; ``runtime/sfpi/compiler/bin`` a real directory of links."""
    path = ("runtime", "sfpi", "compiler", "bin")
    src, dst = ttnn_dir, root
    for depth, part in enumerate(path):
        dst.mkdir(parents=True, exist_ok=True)
        for entry in src.iterdir():
            if entry.name == part:
                continue
            target = dst / entry.name
            if not target.is_symlink() and not target.exists():
                target.symlink_to(entry.resolve())
        src, dst = (src / part).resolve(), dst / part
    dst.mkdir(parents=True, exist_ok=True)
    for entry in real_bin.iterdir():
        target = dst / entry.name
        if entry.name != "riscv-tt-elf-g++" and not target.is_symlink() and not target.exists():
            target.symlink_to(entry.resolve())


def stub_env(ttnn_dir: Path, cache: Path) -> dict[str, str]:
    """The worker environment that uses the stub toolchain (see the module docstring)."""
    root = stub_root(ttnn_dir, cache)
    jit = cache / "jit"
    jit.mkdir(parents=True, exist_ok=True)
    return {"TT_METAL_RUNTIME_ROOT": str(root) + os.sep, "TT_METAL_CACHE": str(jit) + os.sep,
            "TT_METAL_NULL_KERNELS": "1"}
