"""Text-to-speech backends: espeak-ng (offline) and OpenAI-compatible ``/audio/speech``;
:func:`create_tts` also gives her natural voice (``llm.neural_voice``).

Both return :class:`SpeechAudio`: raw signed 16-bit little-endian mono PCM and its sample
rate (no numpy here; ``array`` assumes a little-endian machine, as every supported one is).
Every failure is a :class:`TtsError` whose message a user can act on; the API key never
appears in one. Text is capped at :data:`MAX_TEXT_CHARS`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from companion_desktop.llm.bounded_request import REQUEST_DEADLINE_S, Reply, ServerFailed, fetch
from companion_desktop.llm.errors import provider_detail, redact, redirect_target
from companion_desktop.llm.programs import NO_WINDOW, find_program
from companion_desktop.llm.wav import (  # noqa: F401 - decode_wav re-exported
    WAV_TYPES,
    SpeechAudio,
    TtsError,
    decode_wav,
    decode_wav_from,
)

#: The longest text sent to a backend, in characters (longer text is cut at a word).
MAX_TEXT_CHARS = 4000
#: Seconds espeak-ng may take for one text.
ESPEAK_TIMEOUT_S = 30.0
#: espeak-ng's speed at rate 1.0 (words per minute) and pitch at 1.0 (0-99 scale).
ESPEAK_WPM, ESPEAK_PITCH = 175, 50
#: The largest speech response accepted, in bytes (about 20 minutes of 24 kHz audio).
MAX_AUDIO_BYTES = 64 * 1024 * 1024
#: The largest voice list accepted from a server, in bytes.
MAX_VOICE_LIST_BYTES = 1024 * 1024
#: Sample rate OpenAI documents for ``response_format: "pcm"`` (16-bit mono).
OPENAI_PCM_RATE = 24_000
OPENAI_VOICES: tuple[str, ...] = (
    "alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer",
    "verse",
)
SETTINGS_PAGE = "Settings > Voice"
_VOICE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/-]{0,63}$")


@dataclass(frozen=True)
class Voice:
    """A voice a backend offers: ``id`` is what settings store, ``name`` what users see."""

    id: str
    name: str
    language: str = ""


def _factor(value: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 1.0
    return 1.0 if number != number else min(2.0, max(0.5, number))


@dataclass(frozen=True)
class VoiceOptions:
    """Speed and pitch multipliers, each clamped to 0.5-2.0 (1.0 = the voice's own)."""

    rate: float = 1.0
    pitch: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", _factor(self.rate))
        object.__setattr__(self, "pitch", _factor(self.pitch))


def cap_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` without control characters, cut at the last space before ``limit``."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(text)).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    return text[: cut if cut > limit // 2 else limit].rstrip()


# -- espeak-ng ----------------------------------------------------------------------------
class EspeakBackend:
    """The offline espeak-ng program: text on stdin, WAV to a temporary file (``-w``; on
    Windows its stdout is a text stream), no shell and no console window."""

    def __init__(self, executable: str = "espeak-ng") -> None:
        self.executable = executable
        self._voices: list[Voice] | None = None

    def _path(self) -> str:
        path = find_program(self.executable)
        if path is None:
            raise TtsError(
                "espeak-ng is not installed (or not on the PATH). Install the espeak-ng "
                f"package, or choose a speech server in {SETTINGS_PAGE}."
            )
        return path

    def available(self) -> bool:
        """True when the espeak-ng program can be found."""
        return find_program(self.executable) is not None

    def run(self, args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        """espeak-ng with ``args`` (never through a shell), ``stdin`` as its input; TtsError
        when it is missing, cannot start or takes longer than :data:`ESPEAK_TIMEOUT_S`."""
        try:
            return subprocess.run([self._path(), *args], input=stdin, capture_output=True,
                                  timeout=ESPEAK_TIMEOUT_S, check=False,
                                  creationflags=NO_WINDOW)
        except subprocess.TimeoutExpired:
            raise TtsError(f"espeak-ng took longer than {ESPEAK_TIMEOUT_S:.0f} s "
                           "and was stopped.") from None
        except OSError as exc:
            raise TtsError(f"espeak-ng could not be started: {exc.strerror or exc}.") from None

    def voices(self) -> list[Voice]:
        """The installed voices (``espeak-ng --voices``), read once and cached."""
        if self._voices is None:
            done = self.run(["--voices"])
            if done.returncode != 0:
                raise TtsError("espeak-ng could not list its voices: "
                               f"{_first_line(done.stderr)}")
            self._voices = parse_espeak_voices(done.stdout.decode("utf-8", "replace"))
        return list(self._voices)

    def synthesize(self, text: str, voice: str | None = None,
                   options: VoiceOptions | None = None) -> SpeechAudio:
        """Speak ``text`` (capped); ``voice`` an id from :meth:`voices` (variants such as
        ``en+f3`` allowed), None for espeak-ng's default. Empty text gives empty audio."""
        options = options or VoiceOptions()
        text = cap_text(text)
        if not text:
            return SpeechAudio(b"", 22_050)
        args = ["-b", "1", "-s", str(round(ESPEAK_WPM * options.rate)),
                "-p", str(min(99, max(0, round(ESPEAK_PITCH * options.pitch))))]
        if voice:
            args += ["-v", self._checked_voice(voice)]
        fd, wav_path = tempfile.mkstemp(prefix="companion-speech-", suffix=".wav")
        os.close(fd)
        try:
            done = self.run(["-w", wav_path, *args], text.encode("utf-8"))
            with open(wav_path, "rb") as wav:
                data = wav.read()
        finally:
            os.unlink(wav_path)
        if done.returncode != 0 or not data:
            raise TtsError(f"espeak-ng could not speak: {_first_line(done.stderr)}")
        return decode_wav_from(data, "espeak-ng")

    def _checked_voice(self, voice: str) -> str:
        base = voice.split("+", 1)[0]
        known = {v.id for v in self.voices()}
        if not _VOICE_ID.match(voice) or base not in known:
            shown = voice if len(voice) <= 40 else voice[:40] + "…"
            raise TtsError(f"espeak-ng has no voice \"{shown}\". Pick one in {SETTINGS_PAGE}.")
        return voice


def _first_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return (lines[0][:200] if lines else "no details given") or "no details given"


def parse_espeak_voices(listing: str) -> list[Voice]:
    """Voices from ``espeak-ng --voices`` output; ids are the language codes ``-v`` takes.

    Columns: Pty, Language, Age/Gender, VoiceName, File, Other Languages ``(code pty)``.
    A code only named under Other Languages (``en``) is added as its best voice's alias."""
    voices: dict[str, Voice] = {}
    aliases: dict[str, tuple[int, str]] = {}
    for line in listing.splitlines()[1:]:
        cols = line.split()
        if len(cols) < 5 or not _VOICE_ID.match(cols[1]):
            continue
        name = cols[3].replace("_", " ")
        voices.setdefault(cols[1], Voice(cols[1], name, cols[1]))
        for code, priority in re.findall(r"\(([A-Za-z0-9-]+) (\d+)\)", line):
            best = aliases.get(code)
            if best is None or int(priority) < best[0]:
                aliases[code] = (int(priority), name)
    for code, (_, name) in sorted(aliases.items()):
        if code not in voices and _VOICE_ID.match(code):
            voices[code] = Voice(code, f"{name} ({code})", code)
    return sorted(voices.values(), key=lambda v: v.id)


# -- OpenAI-compatible speech server ------------------------------------------------------
class OpenAISpeechBackend:
    """``POST {base_url}/audio/speech`` on OpenAI or any compatible server, over ``client``
    (its timeouts apply to each wait); one request may take ``deadline_s`` seconds in all,
    its audio at most :data:`MAX_AUDIO_BYTES` (read a piece at a time, never whole first)."""

    def __init__(self, base_url: str, model: str, api_key: str | None,
                 client: httpx.Client, deadline_s: float = REQUEST_DEADLINE_S) -> None:
        self.base_url = (base_url or "").strip().rstrip("/")
        self.model = model
        self.api_key = api_key or None
        self.client = client
        self.deadline_s = deadline_s
        self._voices: list[Voice] | None = None

    def available(self) -> bool:
        """True when an address is set (whether it answers shows at the first request)."""
        return bool(self.base_url)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _url(self, path: str) -> str:
        if not self.base_url.startswith(("http://", "https://")):
            raise TtsError(f"Set the speech server's address (http:// or https://) in "
                           f"{SETTINGS_PAGE}.")
        return f"{self.base_url}{path}"

    def voices(self) -> list[Voice]:
        """OpenAI's voices, plus those the server lists at ``GET /audio/voices`` (cached;
        a server without that list is fine)."""
        if self._voices is None:
            found = [Voice(v, v.capitalize(), "") for v in OPENAI_VOICES]
            known = set(OPENAI_VOICES)
            for voice in self._server_voices():
                if voice.id not in known:
                    known.add(voice.id)
                    found.append(voice)
            self._voices = found
        return list(self._voices)

    def _server_voices(self) -> list[Voice]:
        try:
            reply = self._fetch("GET", "/audio/voices", MAX_VOICE_LIST_BYTES)
            items = json.loads(reply.body).get("voices") if reply.status == 200 else None
        except (ServerFailed, TtsError, ValueError, AttributeError):
            return []
        return [v for v in map(_voice_from_json, items[:500] if isinstance(items, list)
                               else []) if v is not None]

    def synthesize(self, text: str, voice: str | None = None,
                   options: VoiceOptions | None = None) -> SpeechAudio:
        """Speak ``text`` (capped) with ``voice`` (default "alloy"). Empty text gives
        empty audio without a request."""
        options = options or VoiceOptions()
        text = cap_text(text)
        if not text:
            return SpeechAudio(b"", OPENAI_PCM_RATE)
        body = {"model": self.model, "input": text, "voice": (voice or "alloy")[:100],
                "response_format": "wav", "speed": options.rate}
        try:
            reply = self._fetch("POST", "/audio/speech", MAX_AUDIO_BYTES, json=body)
        except ServerFailed as exc:
            raise TtsError(str(exc)) from None
        if reply.status != 200:
            raise TtsError(self._status_message(reply))
        return self._audio(reply)

    def _fetch(self, method: str, path: str, max_bytes: int, **request: Any) -> Reply:
        return fetch(self.client, method, self._url(path), server="speech server",
                     address=self.base_url, max_bytes=max_bytes, deadline_s=self.deadline_s,
                     headers=self._headers(), **request)

    def _status_message(self, response: Reply) -> str:
        status = response.status
        detail = provider_detail(response.body, self.api_key)
        said = f" It said: {detail}" if detail else ""
        if status in (401, 403):
            text = f"The speech server refused the API key ({status}). Check it in " \
                   f"{SETTINGS_PAGE}.{said}"
        elif status == 404:
            text = f"The speech server has no {self.base_url}/audio/speech or no model " \
                   f"\"{self.model}\" (404). Check the address and model in {SETTINGS_PAGE}."
        elif 300 <= status < 400:
            target = redirect_target(self.base_url, response.headers.get("location"))
            text = f"The speech server tried to send the request to {target or 'elsewhere'} " \
                   f"({status}); redirects are not followed, so nothing was sent there. " \
                   f"If that address is right, set it in {SETTINGS_PAGE}."
        elif status == 429:
            text = f"The speech server is rate-limiting requests (429); try again later.{said}"
        elif status >= 500:
            text = f"The speech server had an error ({status}); try again later.{said}"
        else:
            text = f"The speech server rejected the request ({status}).{said}"
        return redact(text, self.api_key)

    def _audio(self, response: Reply) -> SpeechAudio:
        kind, data = response.content_type, response.body
        if kind in WAV_TYPES or (kind in ("application/octet-stream", "")
                                  and data[:4] == b"RIFF"):
            return decode_wav_from(data, "The speech server")
        if kind in ("audio/pcm", "audio/l16"):
            return SpeechAudio(data[: len(data) // 2 * 2], OPENAI_PCM_RATE)
        raise TtsError(f"The speech server sent {kind or 'an unlabelled body'}; expected WAV.")


def _voice_from_json(item: object) -> Voice | None:
    """A voice from a ``/audio/voices`` entry: a string, or an object with an id/name."""
    vid: object  # as given: checked below
    name: object
    if isinstance(item, str):
        vid, name, lang = item, item, ""
    elif isinstance(item, dict):
        vid = item.get("id") or item.get("voice_id") or item.get("name")
        name = item.get("name") or vid
        lang = item.get("language") or item.get("lang") or ""
    else:
        return None
    if not isinstance(vid, str) or not vid.strip() or len(vid) > 100:
        return None
    return Voice(vid.strip(), str(name)[:100], str(lang)[:20])


class VoiceConfig(Protocol):
    """What :func:`create_tts` reads (``storage.settings.VoiceSettings`` has it)."""

    backend: str
    base_url: str | None
    model: str


def natural_voice_problem() -> str | None:
    """Why her natural voice cannot speak here, as the line Settings > Voice shows (None
    when it can); espeak-ng speaks meanwhile."""
    from companion_desktop.llm.neural_voice import kokoro_missing
    from companion_desktop.llm.neural_voice.speaking import home

    problem = kokoro_missing()
    if problem is None and not EspeakBackend().available():
        problem = ("Her natural voice reads words through espeak-ng, which is not installed: "
                   "install the espeak-ng package.")
    if problem is None and home() is None:
        problem = "Her natural voice has no data folder set (neural_voice.speaking.configure)."
    return problem


def create_tts(settings: VoiceConfig, api_key: str | None,
               client: httpx.Client | None = None) -> Any:
    """The backend ``settings`` choose: "neural" her natural voice (Kokoro and the voices
    the user brought, each part in its own language: ``neural_voice.speaking``), espeak-ng
    where its packages are missing; "espeak" espeak-ng; "openai" the speech server, which
    gets ``client`` (or a new one with a 10 s connect and 120 s read timeout)."""
    if settings.backend == "neural":
        from companion_desktop.llm.neural_voice.speaking import (
            SpeakingVoice,
            home,
            shared_backend,
        )

        folder = home()
        if natural_voice_problem() is not None or folder is None:
            return EspeakBackend()
        return SpeakingVoice(shared_backend(folder))
    if settings.backend != "openai":
        return EspeakBackend()
    if client is None:
        client = httpx.Client(timeout=httpx.Timeout(120.0, connect=10.0))
    return OpenAISpeechBackend(settings.base_url or "", settings.model, api_key, client)
