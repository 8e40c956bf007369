#!/usr/bin/env bash
# Sets up everything companion-desktop needs on this machine; safe to run again.
#   - Debian/Ubuntu system packages for Qt's X11 platform, Xvfb and speech
#     (only as root, only the missing ones; elsewhere it prints what to install)
#   - a virtual environment in .venv with the app and its test tools
# Usage: scripts/bootstrap.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
DEB_PACKAGES=(xvfb xcompmgr libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-xinerama0
  libxcb-randr0 libxcb-render-util0 libxcb-image0 libxcb-shape0 libxkbcommon-x11-0
  libegl1 libgl1 libgl1-mesa-dri libegl-mesa0 libfontconfig1 libdbus-1-3 fonts-noto-color-emoji
  espeak-ng desktop-file-utils appstream xdotool openbox
  pulseaudio pulseaudio-utils  # a sound server with a test microphone (tests/voice/test_mic_capture.py)
  binutils)  # binutils: objdump and strip for the bundle build

install_system_packages() {
  command -v dpkg-query >/dev/null 2>&1 || return 0
  local missing=()
  for pkg in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bootstrap: missing system packages (install them with your package manager):" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
  fi
}

install_python_packages() {
  local extras=$1 stamp=.venv/.bootstrap-stamp want
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  want="$(cat pyproject.toml | sha256sum | cut -c1-16)-$extras"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "bootstrap: installing Python packages into .venv"
    local log=.venv/bootstrap-pip.log
    if ! { .venv/bin/python -m pip install --upgrade pip &&
           .venv/bin/python -m pip install -e ".[$extras]"; } >"$log" 2>&1; then
      tail -n 30 "$log" >&2
      echo "bootstrap: pip failed; the whole log is in $log" >&2
      exit 1
    fi
    echo "$want" > "$stamp"
  fi
}

install_system_packages
install_python_packages "test,embeddings,voice"  # one environment serves both commands
