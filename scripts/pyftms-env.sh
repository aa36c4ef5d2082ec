#!/usr/bin/env bash
# pyftms-env.sh — create (idempotently) a Python venv holding pyftms, the reference FTMS
# decoder we compare ftms-bridge against (scripts/parity.py, scripts/bench-decode-vs-pyftms.sh).
# pyftms needs Python >= 3.12. Prints the venv's python path on stdout.
# Env: PYFTMS_VENV (default .build-pyftms/venv, relative to the repo root), PYFTMS_VERSION (default 0.2.20).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${PYFTMS_VENV:-.build-pyftms/venv}"
VERSION="${PYFTMS_VERSION:-0.2.20}"

ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; }

if [[ -x "$VENV/bin/python" ]] && ok "$VENV/bin/python" \
   && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('pyftms') != '$VERSION')" 2>/dev/null; then
  echo "$(cd "$VENV" && pwd)/bin/python"; exit 0
fi

PY=""
# 3.12 first: pyftms 0.2.x declares Requires-Python "<3.13,>=3.11".
for cand in python3.12 $(ls -d "$HOME"/.pyenv/versions/3.12*/bin/python3 2>/dev/null | sort -rV) \
            python3.13 $(ls -d "$HOME"/.pyenv/versions/3.1[3-9]*/bin/python3 2>/dev/null | sort -rV); do
  p="$(command -v "$cand" 2>/dev/null || true)"
  if [[ -n "$p" ]] && ok "$p"; then PY="$p"; break; fi
done
if [[ -z "$PY" ]]; then
  echo "pyftms-env: no Python >= 3.12 found (tried python3.13, python3.12, ~/.pyenv/versions/3.1[2-9]*)" >&2
  exit 3
fi

[[ -x "$VENV/bin/python" ]] && ok "$VENV/bin/python" || { rm -rf "$VENV"; "$PY" -m venv "$VENV"; }
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "pyftms==$VERSION" >&2
echo "$(cd "$VENV" && pwd)/bin/python"
