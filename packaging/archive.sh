#!/usr/bin/env bash
# Packs a folder into a .tar.gz that tells nothing about who built it, or when: every entry
# is owned by uid/gid 0 with no user or group names, has the same time (SOURCE_DATE_EPOCH,
# else the time of the last commit, in seconds since 1970), no write permission for group or
# others, and comes in name order; the gzip header has no file name or time. The same
# folder gives the same bytes, whoever packs it.
#
# Usage: packaging/archive.sh PARENT FOLDER ARCHIVE
#   packs PARENT/FOLDER (its entries named FOLDER/...) into ARCHIVE
set -euo pipefail
PARENT=${1:?usage: archive.sh PARENT FOLDER ARCHIVE}
FOLDER=${2:?usage: archive.sh PARENT FOLDER ARCHIVE}
ARCHIVE=${3:?usage: archive.sh PARENT FOLDER ARCHIVE}
HERE=$(cd "$(dirname "$0")" && pwd)
EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$HERE" log -1 --format=%ct 2>/dev/null || echo 0)}

tar --sort=name --format=gnu --owner=0 --group=0 --numeric-owner --mode=go-w \
  --mtime="@$EPOCH" -C "$PARENT" -cf - "$FOLDER" | gzip -n >"$ARCHIVE.part"
mv "$ARCHIVE.part" "$ARCHIVE"
