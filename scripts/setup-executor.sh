#!/usr/bin/env bash
# Set up the companion executor: .venv-ttnn (CPython 3.12) with ttnn 0.81.1 and
# the sfpi RISC-V toolchain that ttnn compiles its device kernels with.
#
#   ./scripts/setup-executor.sh        # idempotent: a second run only re-checks
#
# Environment:
#   PYTHON312   the CPython 3.12 interpreter to build the venv from (ttnn 0.81.1
#               wheels exist for CPython 3.10 and 3.12 only); default: python3.12
#               on PATH, else the newest pyenv 3.12.x.
#
# What it does:
# 1. .venv-ttnn: `pip install -e '.[executor]'` (the project's `executor` extra
#    pins ttnn==0.81.1; the whole project installs fine on 3.12, so the worker
#    runs as `python -m ttanalyze.executor.ttnn_worker` from this checkout).
# 2. sfpi: ttnn's wheel does not ship sfpi and its own download_sfpi.py fetches
#    it from GitHub releases, which no registry serves.  The PyPI wheel
#    jax-tt-plugin 0.1.3 embeds tt-metal's runtime assets (sfpi 7.87.0 included)
#    as a zstd-compressed tar inside jax_plugins/libtt/libtt.so; the plugin
#    unpacks it to $TMPDIR/libtt-tt-metal-runtime-assets-<hash>/ at first start.
#    This script downloads that wheel (--no-deps, nothing installed), finds the
#    archive in libtt.so, unpacks runtime/sfpi to .cache/executor/sfpi and links
#    <ttnn package>/runtime/sfpi to it.  ttnn 0.81.1's tt_metal/sfpi-version asks
#    for 7.89.0; 7.87.0 builds its firmware and kernels (measured on a mock P150).
#    Needs the `zstd` command (apt-get install zstd).
# 3. Smoke test: the `__info__` request through ttanalyze.executor.client, which
#    opens the device (a mock Blackhole P150 without hardware) in the worker.
#
# Files it creates (keep them out of git): .venv-ttnn/ and .cache/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv-ttnn"
CACHE="$ROOT/.cache/executor"
SFPI="$CACHE/sfpi"
PLUGIN_SPEC="jax-tt-plugin==0.1.3"
start=$(date +%s)
phase() { echo "setup-executor: $1 done at $(( $(date +%s) - start )) s"; }

. "$ROOT/scripts/venv-lib.sh"

# --- 1. the venv --------------------------------------------------------------
make_venv "$VENV" 3.12 PYTHON312 setup-executor
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[executor]"

phase "venv + ttnn"

TTNN_DIR=$("$VENV/bin/python" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("ttnn").origin))')

# --- 2. sfpi --------------------------------------------------------------------
if [ -x "$SFPI/compiler/bin/riscv-tt-elf-g++" ]; then
  echo "setup-executor: reusing $SFPI"
else
  command -v zstd >/dev/null 2>&1 || { echo "setup-executor: needs the zstd command (apt-get install zstd)" >&2; exit 1; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$VENV/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps "$PLUGIN_SPEC" -d "$work"
  # Locate the runtime-asset archive: the zstd frame (magic 28 b5 2f fd) in
  # libtt.so whose content starts with a tar header for "runtime/".
  "$VENV/bin/python" - "$work" <<'EOF'
import glob, subprocess, sys, zipfile
work = sys.argv[1]
wheel = glob.glob(f"{work}/jax_tt_plugin-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("jax_plugins/libtt/libtt.so")
pos = data.find(b"\x28\xb5\x2f\xfd")
while pos >= 0:
    head = subprocess.run(["zstd", "-dc"], input=data[pos:pos + (1 << 20)], capture_output=True).stdout[:512]
    if len(head) == 512 and head.startswith(b"runtime/") and head[257:262] == b"ustar":
        with open(f"{work}/assets.tar.zst", "wb") as f:
            f.write(data[pos:])
        sys.exit(0)
    pos = data.find(b"\x28\xb5\x2f\xfd", pos + 1)
sys.exit("setup-executor: no runtime-asset archive found in libtt.so")
EOF
  mkdir -p "$work/x"
  # zstd exits 1 on the bytes of libtt.so that follow the frame; tar's status decides.
  set +o pipefail
  zstd -dc "$work/assets.tar.zst" 2>/dev/null | tar -x -C "$work/x" runtime/sfpi
  tar_rc=${PIPESTATUS[1]}
  set -o pipefail
  [ "$tar_rc" -eq 0 ] || { echo "setup-executor: unpacking sfpi failed" >&2; exit 1; }
  # copy next to the target first, so an interrupted run never leaves a half sfpi in place
  mkdir -p "$CACHE"
  rm -rf "$SFPI.partial" "$SFPI"
  mv "$work/x/runtime/sfpi" "$SFPI.partial"
  mv "$SFPI.partial" "$SFPI"
fi
"$SFPI/compiler/bin/riscv-tt-elf-g++" --version | head -n1
ln -sfn "$SFPI" "$TTNN_DIR/runtime/sfpi"
phase "sfpi"

# --- 3. smoke test --------------------------------------------------------------
if [ -x "$ROOT/.venv/bin/python" ]; then CLIENT_PY="$ROOT/.venv/bin/python"; else CLIENT_PY="$VENV/bin/python"; fi
# Mock-device users on a shared machine serialise on this lock (the wait counts in the time below).
"${MOCK_LOCK[@]}" "$CLIENT_PY" - <<'EOF'
import json, sys
from ttanalyze.executor import client
ok, reason = client.available()
if not ok:
    sys.exit(f"setup-executor: executor not available: {reason}")
with client.Executor() as ex:
    print(json.dumps(ex.info(), indent=1))
EOF
echo "setup-executor: done in $(( $(date +%s) - start )) s"
