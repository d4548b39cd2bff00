# Shared by setup-executor.sh and setup-compiler.sh (sourced, not run): the venv of
# a given CPython minor version, and the mock-device lock.
#
#   find_python 3.12 PYTHON312 TAG   the interpreter: $PYTHON312 if set, else
#                                    python3.12 on PATH, else the newest pyenv 3.12.x
#   make_venv VENV 3.12 PYTHON312 TAG  reuse VENV when it runs that version, else
#                                    (re)create it from find_python
#   MOCK_LOCK                        the command prefix that holds the mock-device
#                                    lock (ttanalyze.executor.protocol.DEVICE_LOCK:
#                                    through scripts/device-lock), empty without flock

is_python() { "$1" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$2'.split('.'))))" >/dev/null 2>&1; }

find_python() {
  local version="$1" env_name="$2" tag="$3"
  if [ -n "${!env_name:-}" ]; then echo "${!env_name}"; return; fi
  local root="${PYENV_ROOT:-$HOME/.pyenv}" cand
  # python3.X on PATH may be a pyenv shim that fails when that version is not selected.
  for cand in "$(command -v "python$version" || true)" $(ls -d "$root"/versions/"$version".*/bin/python 2>/dev/null | sort -rV); do
    if [ -n "$cand" ] && is_python "$cand" "$version"; then echo "$cand"; return; fi
  done
  echo "$tag: no CPython $version found; set $env_name" >&2
  exit 1
}

make_venv() {
  local venv="$1" version="$2" env_name="$3" tag="$4" py
  if [ -x "$venv/bin/python" ] && is_python "$venv/bin/python" "$version"; then
    echo "$tag: reusing $venv"
    return
  fi
  py="$(find_python "$version" "$env_name" "$tag")"
  is_python "$py" "$version" || { echo "$tag: $py is not CPython $version" >&2; exit 1; }
  rm -rf "$venv"
  "$py" -m venv "$venv"
}

MOCK_LOCK=()
if command -v flock >/dev/null 2>&1; then MOCK_LOCK=("$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/device-lock"); fi
