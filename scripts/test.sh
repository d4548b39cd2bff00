#!/usr/bin/env bash
# Set up .venv if needed (and Debian's chromium for the HTML report's browser test), then run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if ! command -v chromium >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] \
        && [ -z "${TTANALYZE_NO_BROWSER:-}" ]; then
    # tests/test_html.py renders the report in headless chromium; without it that test skips.
    (apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 \
        && apt-get install -y -q chromium >/dev/null 2>&1; }) \
        || echo "scripts/test.sh: could not install chromium; the browser test will skip" >&2
fi
.venv/bin/python -m pytest "$@"
