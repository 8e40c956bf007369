#!/usr/bin/env bash
# Sets everything up, then starts companion-desktop. Extra arguments go to the app
# (for example: scripts/run.sh --data-dir /tmp/try, or scripts/run.sh state).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh run
. scripts/xdisplay.sh
start_virtual_display
exec_status=0
.venv/bin/companion-desktop "$@" || exec_status=$?
exit $exec_status
