#!/usr/bin/env bash
# Create .venv (Python >= 3.10) and install ttanalyze with its test dependencies.
# Idempotent: a second run only re-checks the install.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
