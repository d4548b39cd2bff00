#!/usr/bin/env bash
# Set up the real compiler: .venv-jax (CPython 3.11) with jax and jax-tt-plugin,
# the PyPI build of tt-mlir + tt-metal that compiles JAX programs to TTNN IR and
# runs them (here on a mock Blackhole P150).  Optional, like setup-executor.sh:
# only benchmarks/programs/ (the whole-program campaign) uses it.
#
#   ./scripts/setup-compiler.sh        # idempotent: a second run only re-checks
#
# Environment:
#   VENV_JAX    where to make the venv; default .venv-jax in the checkout.
#   PYTHON311   the CPython 3.11 interpreter to build the venv from; default:
#               python3.11 on PATH, else the newest pyenv 3.11.x.
#   JAX_SPEC, PLUGIN_SPEC   pip requirement strings; default jax==0.10.2 and
#               jax-tt-plugin==0.1.3 (the versions the campaign was measured with).
#
# Smoke test: with TT_METAL_MOCK_CLUSTER_DESC_PATH pointing at
# ttanalyze/executor/mock/blackhole_P150.yaml, jax.devices() lists a Blackhole
# TTDevice.  The smoke test opens the mock device, so it holds
# the mock-device lock (scripts/device-lock, shared with the executor) while it runs.
#
# Files it creates (keep them out of git): .venv-jax/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VENV="${VENV_JAX:-$ROOT/.venv-jax}"
JAX_SPEC="${JAX_SPEC:-jax==0.10.2}"
PLUGIN_SPEC="${PLUGIN_SPEC:-jax-tt-plugin==0.1.3}"
start=$(date +%s)

. "$ROOT/scripts/venv-lib.sh"
make_venv "$VENV" 3.11 PYTHON311 setup-compiler
if ! "$VENV/bin/python" -c 'import jax, jax_plugins.tt' >/dev/null 2>&1 \
   && ! "$VENV/bin/python" -m pip show jax-tt-plugin >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$JAX_SPEC" "$PLUGIN_SPEC"
fi
"$VENV/bin/python" -m pip show jax jax-tt-plugin 2>/dev/null | grep -E '^(Name|Version):'
echo "setup-compiler: venv done at $(( $(date +%s) - start )) s"

export TT_METAL_MOCK_CLUSTER_DESC_PATH="$ROOT/ttanalyze/executor/mock/blackhole_P150.yaml"
"${MOCK_LOCK[@]}" "$VENV/bin/python" -c '
import jax, sys
devs = jax.devices()
print("setup-compiler: devices", devs)
sys.exit(0 if any("Blackhole" in repr(d) for d in devs) else "setup-compiler: no Blackhole device")
'
echo "setup-compiler: done in $(( $(date +%s) - start )) s"
