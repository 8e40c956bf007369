#!/usr/bin/env bash
# Puts companion-desktop in your desktop's menu (for you alone, no root needed):
#   the desktop entry   -> $DATA/applications/<id>.desktop
#   the icons           -> $DATA/icons/hicolor/<size>/apps/<id>.{png,svg}
#   the AppStream data  -> $DATA/metainfo/<id>.metainfo.xml
# where DATA is $XDG_DATA_HOME (default ~/.local/share).
#
# Usage: packaging/linux/install.sh [--bundle DIR] [--prefix DIR]
#   --bundle DIR  also copy a built bundle (DIR holds the companion-desktop program) to
#                 ~/.local/opt/companion-desktop, and start that one from the menu.
#                 Without it the menu starts the companion-desktop on PATH, else the
#                 one in this repository's .venv (bash scripts/run.sh makes it).
#   --prefix DIR  install under DIR instead of ~/.local (DIR/share, DIR/opt, DIR/state).
# What it wrote is listed in $STATE/companion-desktop/install-manifest (STATE is
# $XDG_STATE_HOME, default ~/.local/state); uninstall.sh removes exactly that.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
APP_ID=io.github.companion_desktop.CompanionDesktop
# shellcheck source=paths.sh
. "$HERE/paths.sh"
parse_args "$@"

BUNDLE=${BUNDLE:-}
if [ -n "$BUNDLE" ]; then
  [ -x "$BUNDLE/companion-desktop" ] || die "--bundle $BUNDLE: no companion-desktop program in it"
  EXEC="$OPT_DIR/companion-desktop"
elif command -v companion-desktop >/dev/null 2>&1; then
  EXEC=$(command -v companion-desktop)
elif [ -x "$REPO/.venv/bin/companion-desktop" ]; then
  EXEC="$REPO/.venv/bin/companion-desktop"
else
  die "companion-desktop is not installed: run 'bash scripts/run.sh' first, or give --bundle DIR"
fi

# Records a path in the manifest once: f a file, d a folder this script made,
# t a copied tree, c a cache a desktop tool made.
note() {
  grep -qxF "$1 $2" "$MANIFEST" 2>/dev/null || printf '%s %s\n' "$1" "$2" >>"$MANIFEST"
}

# mkdir -p that notes every folder it creates (so uninstall can remove them again).
make_dir() {
  local dir=$1 missing=()
  while [ ! -d "$dir" ]; do
    missing=("$dir" "${missing[@]}")
    dir=$(dirname "$dir")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  mkdir -p "$1"
  for dir in "${missing[@]}"; do note d "$dir"; done
}

# install_file SOURCE TARGET
install_file() {
  make_dir "$(dirname "$2")"
  cp "$1" "$2.part"
  chmod 644 "$2.part"
  mv -f "$2.part" "$2"
  note f "$2"
}

# A command line argument as a desktop entry's Exec wants it (quoted when needed,
# then the value's own backslash escaping).
desktop_quote() {
  local arg=$1
  case $arg in
    *[[:space:]\"\'\\\<\>~\|\&\;\$\*\?\#\(\)\`]*)
      arg=$(printf '%s' "$arg" | sed -e 's/[\\"`$]/\\&/g')
      arg="\"$arg\"" ;;
  esac
  printf '%s' "$arg" | sed -e 's/%/%%/g' -e 's/\\/\\\\/g'
}

make_dir "$(dirname "$MANIFEST")"
touch "$MANIFEST"

if [ -n "$BUNDLE" ]; then
  if [ -e "$OPT_DIR" ] && ! grep -qxF "t $OPT_DIR" "$MANIFEST"; then
    die "$OPT_DIR exists and was not installed by this script: move it away first"
  fi
  make_dir "$(dirname "$OPT_DIR")"
  rm -rf "$OPT_DIR.part"
  cp -a "$BUNDLE" "$OPT_DIR.part"
  rm -rf "$OPT_DIR"
  mv "$OPT_DIR.part" "$OPT_DIR"
  note t "$OPT_DIR"
fi

entry="$DATA_DIR/applications/$APP_ID.desktop"
make_dir "$(dirname "$entry")"
exec_line=$(desktop_quote "$EXEC")
while IFS= read -r line; do
  case $line in
    Exec=*) printf 'Exec=%s\n' "$exec_line" ;;
    *) printf '%s\n' "$line" ;;
  esac
done <"$HERE/$APP_ID.desktop" >"$entry.part"
chmod 644 "$entry.part"
mv -f "$entry.part" "$entry"
note f "$entry"

(cd "$REPO/resources/icons" && find hicolor -type f -name "$APP_ID.*") | sort | while read -r icon; do
  install_file "$REPO/resources/icons/$icon" "$DATA_DIR/icons/$icon"
done
install_file "$HERE/$APP_ID.metainfo.xml" "$DATA_DIR/metainfo/$APP_ID.metainfo.xml"

# Menus and icon themes read caches; refresh them when the tools are there. A cache
# this made (none was there) is noted, so uninstall can take its folder away too.
refresh() {  # refresh CACHE TOOL ARGS...
  local cache=$1 had=0
  shift
  command -v "$1" >/dev/null 2>&1 || return 0
  [ -e "$cache" ] && had=1
  "$@" >/dev/null 2>&1 || true
  if [ "$had" = 0 ] && [ -e "$cache" ]; then note c "$cache"; fi
}
refresh "$DATA_DIR/applications/mimeinfo.cache" update-desktop-database -q "$DATA_DIR/applications"
refresh "$DATA_DIR/icons/hicolor/icon-theme.cache" \
  gtk-update-icon-cache -q -t -f "$DATA_DIR/icons/hicolor"

echo "companion-desktop is in your menu: $entry (starts $EXEC)"
