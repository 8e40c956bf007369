#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh test
. scripts/xdisplay.sh
start_virtual_display
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-$([ -n "${DISPLAY:-}" ] && echo xcb || echo offscreen)}"
.venv/bin/lint-imports --no-cache
.venv/bin/ruff check .  # the rules in pyproject.toml [tool.ruff]
.venv/bin/python -m mypy  # the packages and settings in pyproject.toml [tool.mypy]
.venv/bin/python -m pytest "$@"
