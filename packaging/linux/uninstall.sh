#!/usr/bin/env bash
# Takes companion-desktop out of your desktop's menu: removes exactly what
# packaging/linux/install.sh put in place (the files and folders listed in its
# manifest, the copied bundle included), and refreshes the menu and icon caches.
# Your conversations and settings (the data folder) are not touched.
#
# Usage: packaging/linux/uninstall.sh [--prefix DIR]
#   --prefix DIR  the same folder given to install.sh --prefix
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=paths.sh
. "$HERE/paths.sh"
parse_args "$@"

if [ ! -f "$MANIFEST" ]; then
  echo "companion-desktop was not installed here: no $MANIFEST"
  exit 0
fi

entries() {  # entries KIND: the manifest's paths of that kind, deepest first
  sed -n "s/^$1 //p" "$MANIFEST" | sort -r
}

remove_folders() {  # the folders install made, when they are empty now
  entries d | while IFS= read -r dir; do
    rmdir -- "$dir" 2>/dev/null || true
  done
}

entries f | while IFS= read -r path; do rm -f -- "$path"; done
entries t | while IFS= read -r path; do rm -rf -- "$path"; done
remove_folders

# A cache install made goes when nothing else is left beside it; other caches are
# refreshed, so the menu and the icon theme forget her.
entries c | while IFS= read -r cache; do
  if [ -z "$(find "$(dirname "$cache")" -mindepth 1 ! -path "$cache" -print -quit 2>/dev/null)" ]; then
    rm -f -- "$cache"
  fi
done
remove_folders
if [ -d "$DATA_DIR/applications" ] && command -v update-desktop-database >/dev/null 2>&1; then
  update-desktop-database -q "$DATA_DIR/applications" >/dev/null 2>&1 || true
fi
if [ -d "$DATA_DIR/icons/hicolor" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
  gtk-update-icon-cache -q -t -f "$DATA_DIR/icons/hicolor" >/dev/null 2>&1 || true
fi

folders=$(entries d)
rm -f -- "$MANIFEST"
printf '%s\n' "$folders" | while IFS= read -r dir; do
  if [ -n "$dir" ]; then rmdir -- "$dir" 2>/dev/null || true; fi
done
echo "companion-desktop is out of your menu."
