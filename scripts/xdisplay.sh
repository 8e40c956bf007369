#!/usr/bin/env bash
# Sourced by run.sh and test.sh: when no display is available, start Xvfb (and a
# compositor, for the overlay's transparency) on a free display number and export
# DISPLAY. The servers stop when the calling script exits.
start_virtual_display() {
  if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ] || [ "$(uname -s)" != "Linux" ]; then
    return 0
  fi
  if ! command -v Xvfb >/dev/null 2>&1; then
    echo "no display and no Xvfb: GL and window tests will be skipped" >&2
    return 0
  fi
  local n=99
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
  XVFB_PID=$!
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
  export DISPLAY=":$n"
  if command -v xcompmgr >/dev/null 2>&1; then xcompmgr -n >/dev/null 2>&1 & COMPMGR_PID=$!; fi
  trap 'kill ${COMPMGR_PID:-} ${XVFB_PID:-} 2>/dev/null || true' EXIT
  trap 'exit 130' INT TERM
  echo "no display found: using a virtual display $DISPLAY (Xvfb); windows there are not on your screen" >&2
}
