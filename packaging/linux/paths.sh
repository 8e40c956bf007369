# Shared by install.sh and uninstall.sh: the options and where things go.
# shellcheck shell=bash

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

# parse_args "$@": sets PREFIX, BUNDLE (install only), DATA_DIR, OPT_DIR and MANIFEST.
parse_args() {
  PREFIX="" BUNDLE=""
  while [ $# -gt 0 ]; do
    case $1 in
      --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; PREFIX=$2; shift 2 ;;
      --prefix=*) PREFIX=${1#--prefix=}; shift ;;
      --bundle) [ $# -ge 2 ] || die "--bundle needs a folder"; BUNDLE=$2; shift 2 ;;
      --bundle=*) BUNDLE=${1#--bundle=}; shift ;;
      -h|--help) usage; exit 0 ;;
      *) die "unknown option $1 (see --help)" ;;
    esac
  done
  if [ -n "$BUNDLE" ]; then
    [ "$(basename "$0")" = install.sh ] || die "--bundle is for install.sh"
    BUNDLE=$(cd "$BUNDLE" 2>/dev/null && pwd) || die "--bundle: no such folder"
  fi
  if [ -n "$PREFIX" ]; then
    case $PREFIX in /*) ;; *) PREFIX="$PWD/$PREFIX" ;; esac
    DATA_DIR="$PREFIX/share" STATE_DIR="$PREFIX/state" OPT_DIR="$PREFIX/opt/companion-desktop"
  else
    : "${HOME:?HOME is not set}"
    DATA_DIR=${XDG_DATA_HOME:-}
    case $DATA_DIR in /*) ;; *) DATA_DIR="$HOME/.local/share" ;; esac
    STATE_DIR=${XDG_STATE_HOME:-}
    case $STATE_DIR in /*) ;; *) STATE_DIR="$HOME/.local/state" ;; esac
    OPT_DIR="$HOME/.local/opt/companion-desktop"
  fi
  MANIFEST="$STATE_DIR/companion-desktop/install-manifest"
}
