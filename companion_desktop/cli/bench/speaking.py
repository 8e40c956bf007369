"""Her voice in ``bench --only voice``: what each offline speech backend costs and how
well it is understood. Figures only, never pass/fail.

- Cost: each backend speaks :data:`SENTENCES` once after a warm-up sentence; the CPU time
  of this process and of its children (espeak-ng runs as a program), and the wall time,
  per second of audio (real-time factors), and this process's resident memory after
  (``VmRSS``; the neural voice's model loads in this process).
- Intelligibility: the same 20 sentences, heard back by the local Whisper base model in
  English; word errors (substitutions, insertions and deletions of words, punctuation
  and case ignored) per backend, over all their words.
- First audio while a reply streams: a reply of :data:`REPLIES` arrives a token (four
  characters) every 0.1 s, like a CPU model writing 10 tokens a second; the app's speech
  stream (``engine.speech_stream``) hands over each finished sentence and a worker thread
  synthesizes it, as her voice does (the first clause first: ``lead_clause``). Timed from
  the token that ends the first sentence (and from the moment the stream hands it over,
  one token later) to the audio of its first clause being ready to play: p50/p95 over
  the replies, per backend.
- While she speaks, in the app: the real app (chat window and overlay with Hana, as
  ``bench --only cost`` starts it) with her natural voice on and a reminder due half a
  minute after launch, which a model server on 127.0.0.1 answers with a few sentences she
  then says aloud. Its CPU (% of one core, all threads), pictures a second and largest
  on-screen step between pictures over 8 s idle, then over 8 s while she speaks.

Reproduce: ``companion-desktop bench --only voice``.
"""

from __future__ import annotations

import re
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

#: Twenty everyday sentences of hers, kept fixed so runs compare.
SENTENCES = (
    "Good morning! Did you sleep well last night?",
    "I saved you a seat by the window.",
    "That sounds like a long day. Do you want to talk about it?",
    "Remember to drink some water and stretch your legs.",
    "The rain stopped, and the sky looks lovely now.",
    "I think your idea for the garden is wonderful.",
    "Could you tell me more about your trip to the mountains?",
    "She bought three fresh oranges at the market.",
    "Your meeting starts in ten minutes, so grab your notes.",
    "I was worried about you, but I'm glad you're back.",
    "Let's pick a movie together tonight.",
    "The little cat kept chasing the red ball across the floor.",
    "You did a great job on that report!",
    "It is almost midnight, maybe it's time to rest.",
    "My favourite season is autumn, because of the colours.",
    "Would you like to hear a short story before bed?",
    "The train to Boston leaves at a quarter past seven.",
    "I learned a new song today and I can't stop humming it.",
    "Thank you for telling me, that means a lot.",
    "See you tomorrow, and have a peaceful evening.",
)
_WORD = re.compile(r"[a-z0-9']+")


def words(text: str) -> list[str]:
    """``text`` as lower-case words (punctuation gone, "it's" kept whole)."""
    return _WORD.findall(text.lower().replace("’", "'"))


def word_errors(said: str, heard: str) -> int:
    """Word-level edit distance between what was said and what was heard."""
    a, b = words(said), words(heard)
    row = list(range(len(b) + 1))
    for i, word in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + (word != other))
    return row[-1]


def _cpu() -> float:
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def rss_mb() -> float:
    """This process's resident memory in MB (0 where /proc is not there)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass
class Spoken:
    """One backend's run over the sentences: seconds of audio, CPU and wall seconds, the
    word errors and words heard back (None without a recogniser), MB resident after."""

    name: str
    audio_s: float = 0.0
    cpu_s: float = 0.0
    wall_s: float = 0.0
    errors: int | None = None
    total_words: int = 0
    rss_mb: float = 0.0
    failed: str | None = None

    def line(self) -> str:
        if self.failed is not None:
            return f"    {self.name}: failed: {self.failed}"
        heard = ("" if self.errors is None else f"; heard back by Whisper: {self.errors} word "
                 f"errors in {self.total_words} ({100 * self.errors / self.total_words:.1f}%)")
        return (f"    {self.name}: {self.cpu_s / self.audio_s:.3f} CPU s and "
                f"{self.wall_s / self.audio_s:.3f} wall s per second of speech "
                f"({self.audio_s:.0f} s of audio), {self.rss_mb:.0f} MB resident after{heard}")


def speak_all(name: str, backend: Any, voice: str | None, whisper: Any,
              sentences: tuple[str, ...] = SENTENCES) -> Spoken:
    """``backend`` speaking ``sentences`` with ``voice`` (see the module)."""
    from companion_desktop.voice.audio import pcm16_to_float, resample

    result = Spoken(name)
    try:
        backend.synthesize("Hello there.", voice)  # warm-up: loads the model
        clips = []
        for sentence in sentences:
            cpu, wall = _cpu(), time.perf_counter()
            audio = backend.synthesize(sentence, voice)
            result.cpu_s += _cpu() - cpu
            result.wall_s += time.perf_counter() - wall
            result.audio_s += audio.duration
            clips.append(audio)
        result.rss_mb = rss_mb()
    except Exception as error:  # noqa: BLE001 - a backend's failure is a figure here
        result.failed = str(error)[:200]
        return result
    if whisper is not None:
        result.errors = 0
        for sentence, audio in zip(sentences, clips, strict=True):
            samples = resample(pcm16_to_float(audio.pcm), audio.sample_rate)
            heard = whisper.transcribe(samples, "en").text
            result.errors += word_errors(sentence, heard)
            result.total_words += len(words(sentence))
    return result


#: Replies her voice starts while they stream (their first sentences vary in length).
REPLIES = (
    "Oh, that sounds lovely! Tell me more about the lake, I want to hear everything.",
    "Welcome back! I missed you today. How did the meeting go?",
    "Hmm, I think you should rest a little. You worked so hard this week.",
    "That's a great question. Let me think about it for a second.",
    "Good night! Sleep well, and dream of something nice.",
    "I'm so proud of you for finishing it. You should celebrate tonight!",
    "Really? That's wonderful news. When do you start?",
    "Let's take a short break together. Maybe some tea?",
)
TOKEN_S, TOKEN_CHARS = 0.1, 4


def first_audio(reply: str, backend: Any, voice: str | None) -> tuple[float, float]:
    """(seconds from the token that ends the first sentence, seconds from the stream
    handing it over) to its audio, for ``reply`` streamed as the module says."""
    import threading

    from companion_desktop.engine.speech_stream import SpeechStream, lead_clause

    stream, ready = SpeechStream(), _Ready()
    ended_at = handed_at = 0.0
    first_end = min(i for i in (reply.find(m) for m in ".!?") if i >= 0)
    worker: threading.Thread | None = None
    for start in range(0, len(reply), TOKEN_CHARS):
        time.sleep(TOKEN_S)
        if start <= first_end < start + TOKEN_CHARS:
            ended_at = time.perf_counter()
        parts = stream.feed(reply[:start + TOKEN_CHARS])
        if parts and worker is None:
            handed_at = time.perf_counter()
            first = lead_clause(parts)[0].text  # as her voice starts a reply
            worker = threading.Thread(target=_speak_then, args=(backend, first, voice, ready))
            worker.start()
    if worker is None:
        raise RuntimeError("the stream handed over no sentence")
    worker.join(120)
    done = ready.at  # when the worker had the audio (the stream went on meanwhile)
    return done - ended_at, done - handed_at


class _Ready:
    """When a worker's audio was ready (``time.perf_counter()``)."""

    at = 0.0


def _speak_then(backend: Any, text: str, voice: str | None, ready: _Ready) -> None:
    backend.synthesize(text, voice)
    ready.at = time.perf_counter()


def _first_audio_line(name: str, backend: Any, voice: str | None,
                      replies: tuple[str, ...]) -> str:
    from companion_desktop.cli.bench.stats import percentile

    backend.synthesize("Hello there.", voice)  # warm-up: loads the model
    timed = [first_audio(reply, backend, voice) for reply in replies]
    ended, handed = [t[0] for t in timed], [t[1] for t in timed]
    return (f"    {name}: first sentence written to its audio p50 {percentile(ended, 50):.2f} "
            f"s, p95 {percentile(ended, 95):.2f} s (from the hand-over: p50 "
            f"{percentile(handed, 50):.2f} s, p95 {percentile(handed, 95):.2f} s)")


def bench_speaking(report: Callable[[str], None], whisper: Any, data_dir: Path,
                   count: int | None = None) -> None:
    """Cost and intelligibility of espeak-ng and her natural voice, and her first audio
    while a reply streams (see the module); ``count`` sentences and replies of each (all
    by default: fewer for a quick look)."""
    from companion_desktop.llm.neural_voice import DEFAULT_VOICE, NeuralBackend, kokoro_missing
    from companion_desktop.llm.tts import EspeakBackend

    sentences, replies = SENTENCES[:count], REPLIES[:count]
    report(f"  her voice, {len(sentences)} fixed sentences a backend (cost per second of "
           f"speech; word errors heard back by the local Whisper):")
    report(f"    before any voice: {rss_mb():.0f} MB resident (Whisper loaded)")
    espeak = EspeakBackend()
    report(speak_all("espeak-ng (robot voice)", espeak, "en-us", whisper, sentences).line())
    missing = kokoro_missing()
    if missing:
        report(f"    natural voice: skipped ({missing})")
        return
    neural = NeuralBackend(data_dir)
    try:
        for voice in (DEFAULT_VOICE, "kokoro:jm_kumo"):
            label = f"natural voice {voice}" + (" (her default)" if voice == DEFAULT_VOICE else "")
            report(speak_all(label, neural, voice, whisper, sentences).line())
        report(f"  her first audio while a reply streams ({len(replies)} replies, a token of "
               f"{TOKEN_CHARS} characters every {TOKEN_S} s; aim on 2 cores: under 1 s):")
        report(_first_audio_line("espeak-ng (robot voice)", espeak, "en-us", replies))
        report(_first_audio_line("natural voice (her default)", neural, DEFAULT_VOICE, replies))
    finally:
        neural.close()
    if count is None:
        bench_speaking_app(report)


#: What the model server answers her reminder with (she says it aloud).
SPOKEN_REPLY = ("Hey, it's time to stretch! You've been sitting for a long while, so stand "
                "up and roll your shoulders. Maybe walk to the window and look outside for a "
                "minute. Your eyes will thank you, and so will your back. I'll be right here "
                "when you come back!\n```json\n{\"mood_change\": {\"emotion\": \"happy\", "
                "\"intensity_delta\": 2}, \"new_memory\": null, \"expression\": null}\n```")
WINDOW_S = 8.0


def bench_speaking_app(report: Callable[[str], None]) -> None:
    """The app's CPU and pictures idle, then while she speaks (see the module)."""
    import os
    import tempfile

    from companion_desktop.cli.bench.app_process import ReplyServer, RunningApp, cpu_seconds
    from companion_desktop.llm.neural_voice import kokoro_files, kokoro_missing

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        report("  while she speaks: skipped (no display; `scripts/run.sh bench --only voice` "
               "starts a virtual one)")
        return
    if kokoro_missing():
        report(f"  while she speaks: skipped ({kokoro_missing()})")
        return
    server = ReplyServer(SPOKEN_REPLY)
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as folder:
        data = Path(folder) / "data"
        due = datetime.now().astimezone() + timedelta(seconds=20)
        _prepare(data, server.url, due)
        kokoro_files.model_file(data / "cache")  # joined before: not in the figures
        app = RunningApp(Path(folder))
        try:
            if app.wait_shown() is None:
                report(f"  while she speaks: the app did not show ({app.tail()})")
                return
            time.sleep(max(0.0, 6.0 - (time.time() - app.launched)))
            idle = _window(app, cpu_seconds)
            deadline = time.monotonic() + 60
            while not _answered(data) and time.monotonic() < deadline and app.alive:
                time.sleep(0.1)
            if not _answered(data):
                report(f"  while she speaks: her reminder was not answered ({app.tail()})")
                return
            time.sleep(1.5)  # her first clip is made
            talking = _window(app, cpu_seconds)
            report(f"  the app idle, {WINDOW_S:.0f} s: {idle}")
            report(f"  the app while she speaks (her natural voice), {WINDOW_S:.0f} s: {talking}")
        except OSError:
            report(f"  while she speaks: the app exited ({app.proc.poll()}): {app.tail()}")
        finally:
            app.stop()
            server.close()


def _prepare(data: Path, url: str, due: datetime) -> None:
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.reminders import add_reminder
    from companion_desktop.storage.settings import LlmSettings, VoiceSettings, save_settings

    with Database.open(data) as db, db.session() as session:
        save_settings(session, LlmSettings(provider="openai-compatible", base_url=url,
                                           model="bench"))
        save_settings(session, VoiceSettings(enabled=True, backend="neural"))
        add_reminder(session, due, "stretch", due - timedelta(minutes=1), None)


def _answered(data: Path) -> bool:
    import sqlite3

    try:
        with sqlite3.connect(data / "companion.sqlite3", timeout=1) as db:
            row = db.execute("SELECT COUNT(*) FROM conversation_turns WHERE role = "
                             "'assistant'").fetchone()
    except sqlite3.Error:
        return False
    return bool(row and row[0])


def _window(app: Any, cpu_seconds: Callable[[int], float]) -> str:
    """The app's CPU share, pictures a second and largest step over :data:`WINDOW_S`."""
    wall0, cpu0 = time.time(), cpu_seconds(app.proc.pid)
    time.sleep(WINDOW_S)
    wall1, cpu1 = time.time(), cpu_seconds(app.proc.pid)
    time.sleep(1.2)  # the frame report that closes the window
    stats = app.stats()
    fps = stats.distinct_fps(wall0 - 0.6, wall1 + 1.2)
    motion = stats.motion(wall0 - 0.6, wall1 + 1.2)
    share = 100 * (cpu1 - cpu0) / (wall1 - wall0)
    pictures = "no frame figures" if fps is None else f"{fps:.1f} pictures/s"
    step = "" if motion is None else (f", motion updated {motion[0]:.1f} times/s, largest "
                                      f"step between pictures {motion[1]:.2f} px")
    return f"{share:.1f}% of one core, all threads; {pictures}{step}"
