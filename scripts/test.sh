#!/usr/bin/env bash
# Set up .venv if needed, then run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/python -m pytest "$@"
