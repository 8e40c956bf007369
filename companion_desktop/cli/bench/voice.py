"""``companion-desktop bench --only voice``: how long she takes to hear and to answer.

- End of speech to recognised text: espeak-ng utterances of about 2 s and 6 s go through the
  Listener (hands-free, the default 0.7 s of silence ends an utterance) in 100 ms capture
  pieces and the local Whisper model. The figure is the silence the listener waits for (in
  audio time, as a microphone delivers it) plus the recognition's wall time; shown split.
- End of speech to her first audio: that, plus an instant model (an OpenAI-compatible server
  on 127.0.0.1 that streams its reply at once) read through the real provider up to the end
  of the first sentence, plus espeak-ng speaking that sentence.
- Her voice: what espeak-ng and her natural voice cost and how well Whisper understands
  them (``cli.bench.speaking``).
Figures only, never pass/fail. Needs the voice extra and espeak-ng; says so otherwise.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from companion_desktop.cli.bench.app_process import ReplyServer
from companion_desktop.cli.bench.stats import percentile

SHORT = ("Good morning, how are you?", "What time is it now?", "Tell me a joke please.",
         "I feel a bit tired today.")
LONG = ("I went to the market this morning and bought some apples, fresh bread and a piece of "
        "cheese for our picnic by the lake tomorrow.",
        "Could you remind me to call my sister on Friday evening about the birthday party "
        "that we are planning for our mother?",
        "My manager changed the plan again today, so now I have to rewrite the whole report "
        "before the meeting on Monday morning.",
        "We drove to the seaside last weekend and sat on the beach watching the little boats "
        "until the sun went down.")
REPLY = "Oh, that sounds lovely! Tell me more about it, I want to hear everything."
RUNS = 8


def _speech(text: str) -> np.ndarray:
    from companion_desktop.llm.tts import EspeakBackend
    from companion_desktop.voice.audio import pcm16_to_float, resample

    audio = EspeakBackend().synthesize(text)
    return resample(pcm16_to_float(audio.pcm), audio.sample_rate)


def _speech_end(samples: np.ndarray) -> int:
    loud = np.flatnonzero(np.abs(samples) > 0.01)
    return int(loud[-1]) + 1 if loud.size else samples.size


def hear_once(speech: np.ndarray, whisper, language: str | None = "en",
              languages: list[str] | None = None) -> tuple[float, float, str]:
    """(seconds waited for the end of the utterance, seconds recognising, text); the
    language recognised is added to ``languages``."""
    from companion_desktop.voice.audio import SAMPLE_RATE
    from companion_desktop.voice.listener import HearingOptions, Listener
    from companion_desktop.voice.vad import SpeechDetector

    lead = int(0.5 * SAMPLE_RATE)
    audio = np.concatenate([np.zeros(lead, np.float32), speech,
                            np.zeros(2 * SAMPLE_RATE, np.float32)])
    listener = Listener(HearingOptions(), SpeechDetector())
    for start in range(0, audio.size, 1600):
        for event in listener.feed(audio[start:start + 1600]):
            if event.kind == "utterance":
                waited = (event.position - lead - _speech_end(speech)) / SAMPLE_RATE
                t0 = time.perf_counter()
                heard = whisper.transcribe(event.audio, language)
                if languages is not None:
                    languages.append(heard.language)
                return waited, time.perf_counter() - t0, heard.text
    raise RuntimeError("the listener heard no utterance")


def _figures(values: list[float]) -> str:
    return f"p50 {statistics.median(values):.2f} s, p95 {percentile(values, 95):.2f} s"


class InstantModel(ReplyServer):
    """An OpenAI-compatible chat server on 127.0.0.1 that streams :data:`REPLY` at once."""

    def __init__(self) -> None:
        super().__init__(REPLY)


def first_audio(text: str, provider, tts) -> float:
    """Seconds from sending ``text`` to her first sentence's audio from espeak-ng."""
    from companion_desktop.llm.base import ChatMessage

    t0 = time.perf_counter()
    said = ""
    for piece in provider.stream_chat("You are a friendly companion.",
                                      [ChatMessage("user", text)]):
        said += piece
        ends = [said.find(mark) for mark in (". ", "! ", "? ") if mark in said]
        if ends:
            said = said[: min(ends) + 1]
            break
    tts.synthesize(said)
    return time.perf_counter() - t0


def run_voice_bench(report: Callable[[str], None] = print, runs: int = RUNS) -> None:
    import tempfile

    from companion_desktop.llm.tts import EspeakBackend
    from companion_desktop.voice.stt import missing_packages

    report("voice:")
    missing = missing_packages()
    if missing or not EspeakBackend().available():
        report(f"  skipped: {missing or 'espeak-ng is not installed'}")
        return
    from companion_desktop.voice.whisper_files import open_local_whisper

    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        whisper = open_local_whisper(Path(folder))
        report(f"  local Whisper base (int8, 2 threads): assembled and loaded in "
               f"{time.perf_counter() - t0:.1f} s (first use only)")
        whisper.transcribe(_speech(SHORT[0]), "en")  # warm-up
        totals: dict[str, list[float]] = {}
        for label, texts in (("2 s", SHORT), ("6 s", LONG)):
            speeches = [_speech(t) for t in texts]
            length = statistics.fmean(s.size / 16000 for s in speeches)
            for mode, window in (("short window", True), ("30 s window", False)):
                whisper.short_window = window
                count = runs if window else max(2, runs // 4)
                heard = [hear_once(speeches[i % len(speeches)], whisper) for i in range(count)]
                waits, recog = [h[0] for h in heard], [h[1] for h in heard]
                total = [w + r for w, r in zip(waits, recog, strict=True)]
                if window:
                    totals[label] = total
                report(f"  end of speech to text, {label} utterances (mean {length:.1f} s), "
                       f"{mode}, {count} runs: {_figures(total)} (waiting for the silence "
                       f"{_figures(waits)}; recognising {_figures(recog)})"
                       + (" (aim for 6 s: p50 < 1.5 s)" if label == "6 s" and window else ""))
        whisper.short_window = True
        _detected_bench(report, whisper, runs)
        _first_audio_bench(report, whisper, runs)
        from companion_desktop.cli.bench.speaking import bench_speaking

        bench_speaking(report, whisper, Path(folder), None if runs >= RUNS else 2)


def _detected_bench(report: Callable[[str], None], whisper, runs: int) -> None:
    """2 s utterances with the language on "detect": the first one may be checked on the
    30 s window (an unsure guess), the later ones keep the language heard surely."""
    from collections import Counter

    whisper.heard_language = None
    speeches = [_speech(t) for t in SHORT]
    totals, found = [], []
    for i in range(runs):
        waited, recognised, _ = hear_once(speeches[i % len(speeches)], whisper, None, found)
        totals.append(waited + recognised)
    languages = ", ".join(f"{code or '?'} x{count}"
                          for code, count in Counter(found).most_common())
    report(f"  end of speech to text, 2 s utterances, language detected, {runs} runs: "
           f"{_figures(totals)} (the first {totals[0]:.2f} s; languages heard: {languages})")


def _first_audio_bench(report: Callable[[str], None], whisper, runs: int) -> None:
    from companion_desktop.llm.base import ProviderConfig
    from companion_desktop.llm.registry import create_provider
    from companion_desktop.llm.tts import EspeakBackend

    server = InstantModel()
    try:
        provider = create_provider(ProviderConfig("openai-compatible", server.url, "instant"))
        tts = EspeakBackend()
        first_audio("hello", provider, tts)  # warm-up: the connection and espeak-ng
        speeches = [_speech(t) for t in SHORT]
        totals, answers = [], []
        for i in range(runs):
            waited, recognised, text = hear_once(speeches[i % len(speeches)], whisper)
            answer = first_audio(text, provider, tts)
            answers.append(answer)
            totals.append(waited + recognised + answer)
        report(f"  end of speech to her first audio (2 s utterances, instant model on "
               f"127.0.0.1, espeak-ng), {runs} runs: {_figures(totals)} (of which model to "
               f"first sentence spoken {_figures(answers)})")
    finally:
        server.close()
