"""The neural voices there are: Kokoro's built-in ones and those imported into a data folder.

Voice ids: ``kokoro:<id>`` (built in, e.g. ``kokoro:jf_nezumi``), ``kokoro-file:<name>``
(a Kokoro voice file the user imported, ``<data>/voices/kokoro/<name>.npy``) and
``piper:<name>`` (a Piper voice the user imported, ``<data>/voices/piper/<name>.onnx``
with ``<name>.onnx.json``). Names are 1-40 of ``A-Z a-z 0-9 _ -``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from companion_desktop.llm.neural_voice import kokoro_files
from companion_desktop.llm.tts import Voice
from companion_desktop.llm.wav import TtsError

KOKORO, KOKORO_FILE, PIPER = "kokoro", "kokoro-file", "piper"
KINDS = (KOKORO, KOKORO_FILE, PIPER)
#: The voice used when none is chosen: female, and the clearest English of the built-in
#: voices heard back by Whisper (0 word errors in 97; see the package docstring).
DEFAULT_VOICE = "kokoro:jf_gongitsune"
VOICES_FOLDER = "voices"
NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
#: A Kokoro voice name's first letter -> the language it was made for (Kokoro's habit).
_KOKORO_LANGUAGES = {"a": "en-us", "b": "en-gb", "j": "ja", "z": "zh", "e": "es", "f": "fr",
                     "h": "hi", "i": "it", "p": "pt"}


@dataclass(frozen=True)
class NeuralVoice(Voice):
    """A neural voice: ``id`` (see the module), ``name`` for people, ``language`` the one
    it was made for (BCP-47-like, ``ja``, ``en-us``), ``kind`` one of :data:`KINDS`,
    ``gender`` "female", "male" or "" (unknown)."""

    kind: str = KOKORO
    gender: str = ""


def parse_id(voice_id: str) -> tuple[str, str]:
    """(kind, name) of ``voice_id``; TtsError for an id of no neural voice."""
    kind, _, name = str(voice_id).partition(":")
    if kind not in KINDS or not NAME.match(name):
        shown = voice_id if len(voice_id) <= 50 else voice_id[:50] + "…"
        raise TtsError(f"\"{shown}\" is not a neural voice (ids look like "
                       f"{DEFAULT_VOICE}, kokoro-file:NAME or piper:NAME).")
    return kind, name


def is_neural(voice_id: str | None) -> bool:
    """True when ``voice_id`` names a neural voice (not an espeak-ng or server voice)."""
    return bool(voice_id) and str(voice_id).partition(":")[0] in KINDS


def kokoro_language(name: str) -> str:
    """The language a Kokoro voice called ``name`` was made for, from its first letter
    (``af_bella`` en-us, ``jf_alpha`` ja); "" when the name does not say."""
    if len(name) > 2 and name[1] in "fm" and name[2] == "_":
        return _KOKORO_LANGUAGES.get(name[0].lower(), "")
    return ""


def built_in_voices() -> list[NeuralVoice]:
    """Kokoro's built-in voices (none when Kokoro is not installed)."""
    if kokoro_files.missing():
        return []
    return [NeuralVoice(f"{KOKORO}:{vid}", f"{name} (Kokoro)", "ja", KOKORO, gender)
            for vid, (name, gender) in kokoro_files.BUILT_IN.items()]


def voices_dir(data_dir: Path) -> Path:
    """Where imported voices are kept: ``<data>/voices``."""
    return Path(data_dir) / VOICES_FOLDER


def imported_voices(data_dir: Path) -> list[NeuralVoice]:
    """The voices imported into ``data_dir``, sorted by id (a Piper voice counts only with
    its settings beside it)."""
    found: list[NeuralVoice] = []
    root = voices_dir(data_dir)
    for path in sorted((root / KOKORO).glob("*.npy")) if (root / KOKORO).is_dir() else []:
        if NAME.match(path.stem):
            found.append(NeuralVoice(f"{KOKORO_FILE}:{path.stem}", f"{path.stem} (Kokoro file)",
                                     kokoro_language(path.stem) or "en-us", KOKORO_FILE))
    for path in sorted((root / PIPER).glob("*.onnx")) if (root / PIPER).is_dir() else []:
        settings = path.with_name(path.name + ".json")
        if NAME.match(path.stem) and settings.is_file():
            found.append(NeuralVoice(f"{PIPER}:{path.stem}", f"{path.stem} (Piper)",
                                     _piper_language(settings), PIPER))
    return found


def _piper_language(settings: Path) -> str:
    from companion_desktop.llm.neural_voice.piper import parse_config

    try:
        return parse_config(settings.read_bytes()).language
    except (OSError, TtsError):
        return ""


def list_voices(data_dir: Path | None = None) -> list[NeuralVoice]:
    """The built-in voices, then those imported into ``data_dir`` (when given)."""
    return built_in_voices() + (imported_voices(data_dir) if data_dir is not None else [])
