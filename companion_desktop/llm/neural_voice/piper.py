"""Piper voices the user brings (``.onnx`` + ``.onnx.json``), run by our own small runner.

Piper's own runtime is GPL, so it is not used: the voice's JSON (:func:`parse_config`)
names its espeak-ng voice (``"espeak": {"voice": "en-us"}``), sample rate
(``"audio": {"sample_rate": 22050}``, 8-48 kHz), ``"inference"`` scales and
``"phoneme_id_map"`` (a phoneme -> a list of ids). Text becomes espeak-ng IPA, each
symbol (Unicode code point, decomposed) its ids, framed as Piper frames them:
``^ _ id _ id _ ... $`` (``_`` the pad, ``^``/``$`` start and end where the map has them).
The model's inputs: ``input`` int64 [1, N], ``input_lengths`` int64 [1], ``scales``
float32 [3] (noise, length, noise width; length = the voice's own / the speaking rate),
``sid`` int64 [1] for a voice of several speakers (speaker 0 here); its output is float32
audio at the voice's rate, any shape with one channel.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion_desktop.llm.neural_voice import audio
from companion_desktop.llm.neural_voice.errors import VoiceFileError
from companion_desktop.llm.neural_voice.runtime import DEFAULT_THREADS, input_names, open_session

MIN_RATE, MAX_RATE = 8_000, 48_000
#: The most entries a phoneme map may have, ids per entry, and the largest id.
MAX_MAP_ENTRIES, MAX_IDS_PER_PHONEME, MAX_ID = 2_000, 8, 65_535
MAX_SPEAKERS = 10_000
#: The inputs a Piper model must have (``sid`` may be there too), and their types.
INPUTS = {"input": "tensor(int64)", "input_lengths": "tensor(int64)", "scales": "tensor(float)"}
#: The most ids one model call takes (longer text is read a clause group at a time).
MAX_IDS = 2_000
_ESPEAK_VOICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+-]{0,40}$")


@dataclass(frozen=True)
class PiperConfig:
    """What a Piper voice's JSON says: rates in Hz, scales as Piper uses them."""

    sample_rate: int
    espeak_voice: str
    phoneme_id_map: dict[str, tuple[int, ...]]
    noise_scale: float = 0.667
    length_scale: float = 1.0
    noise_w: float = 0.8
    num_speakers: int = 1
    language: str = ""


def _number(section: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not low <= float(value) <= high:
        raise VoiceFileError(f"The voice's settings have an unusable \"{key}\" ({value!r:.40}; "
                             f"expected {low}-{high}).")
    return float(value)


def _section(config: dict[str, Any], key: str) -> dict[str, Any]:
    value = config.get(key, {})
    if not isinstance(value, dict):
        raise VoiceFileError(f"The voice's settings have an unusable \"{key}\" section.")
    return value


def parse_config(data: bytes) -> PiperConfig:
    """The checked settings of a Piper voice from its JSON ``data``; VoiceFileError (one
    line) for anything unusable."""
    try:
        config = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise VoiceFileError("The voice's .onnx.json is not valid JSON.") from None
    if not isinstance(config, dict):
        raise VoiceFileError("The voice's .onnx.json does not hold Piper voice settings.")
    kind = config.get("phoneme_type", "espeak")
    if kind != "espeak":
        raise VoiceFileError(f"The voice reads phonemes of type {str(kind)[:20]!r}; only "
                             "espeak-ng voices can be used.")
    rate = _section(config, "audio").get("sample_rate")
    if isinstance(rate, bool) or not isinstance(rate, int) or not MIN_RATE <= rate <= MAX_RATE:
        raise VoiceFileError(f"The voice's sample rate {rate!r:.20} is unusable (8000-48000 Hz).")
    espeak = _section(config, "espeak").get("voice", "en-us")
    if not isinstance(espeak, str) or not _ESPEAK_VOICE.match(espeak):
        raise VoiceFileError("The voice names no usable espeak-ng voice.")
    inference = _section(config, "inference")
    speakers = config.get("num_speakers", 1)
    if isinstance(speakers, bool) or not isinstance(speakers, int) or \
            not 1 <= speakers <= MAX_SPEAKERS:
        raise VoiceFileError(f"The voice's number of speakers {speakers!r:.20} is unusable.")
    code = _section(config, "language").get("code", "")
    language = code.replace("_", "-").lower()[:20] if isinstance(code, str) else ""
    return PiperConfig(
        sample_rate=rate, espeak_voice=espeak, phoneme_id_map=_id_map(config),
        noise_scale=_number(inference, "noise_scale", 0.667, 0.0, 2.0),
        length_scale=_number(inference, "length_scale", 1.0, 0.1, 5.0),
        noise_w=_number(inference, "noise_w", 0.8, 0.0, 2.0),
        num_speakers=speakers, language=language or espeak.lower())


def _id_map(config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    raw = config.get("phoneme_id_map")
    if not isinstance(raw, dict) or not 0 < len(raw) <= MAX_MAP_ENTRIES:
        raise VoiceFileError("The voice has no usable phoneme_id_map.")
    table: dict[str, tuple[int, ...]] = {}
    for key, ids in raw.items():
        if not 0 < len(key) <= 4 or not isinstance(ids, list) or \
                not 0 < len(ids) <= MAX_IDS_PER_PHONEME or \
                not all(type(i) is int and 0 <= i <= MAX_ID for i in ids):
            raise VoiceFileError(f"The voice's phoneme_id_map has an unusable entry "
                                 f"{key[:8]!r}: phonemes map to lists of small ids.")
        table[key] = tuple(ids)
    if not any(len(k) == 1 and k.isalpha() for k in table):
        raise VoiceFileError("The voice's phoneme_id_map has no phonemes.")
    return table


def phoneme_ids(ipa: str, id_map: dict[str, tuple[int, ...]]) -> list[int]:
    """Piper's ids for ``ipa``: ``^ _`` then each known symbol's ids and ``_``, then ``$``
    (a symbol the map lacks is dropped; the frame marks only where the map has them)."""
    pad = list(id_map.get("_", ()))
    ids = list(id_map.get("^", ())) + pad
    for symbol in unicodedata.normalize("NFD", ipa):
        if symbol in id_map:
            ids += list(id_map[symbol]) + pad
    return ids + list(id_map.get("$", ()))


class PiperVoice:
    """One loaded Piper model with its settings (called under the backend's lock)."""

    def __init__(self, model: Path, config: PiperConfig, threads: int = DEFAULT_THREADS) -> None:
        self.config = config
        self.session: Any = open_session(model, threads)
        found = input_names(self.session)
        if any(found.get(name, ("",))[0] != kind for name, kind in INPUTS.items()):
            raise VoiceFileError(f"{Path(model).name} is not a Piper voice (its inputs are "
                                 f"{', '.join(found) or 'none'}).")
        self.has_speaker = "sid" in found

    def run(self, ipa: str, rate: float = 1.0, speaker: int = 0) -> np.ndarray:
        """Audio (float32 at the voice's rate, silence trimmed) for espeak-ng ``ipa``;
        ``rate`` 0.5-2.0 divides the voice's length scale."""
        ids = phoneme_ids(ipa, self.config.phoneme_id_map)[:MAX_IDS]
        if len(ids) < 3:
            return np.zeros(0, np.float32)
        rate = min(2.0, max(0.5, float(rate)))
        feed = {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": np.array([self.config.noise_scale, self.config.length_scale / rate,
                                self.config.noise_w], dtype=np.float32),
        }
        if self.has_speaker:
            feed["sid"] = np.array([min(max(0, speaker), self.config.num_speakers - 1)],
                                   dtype=np.int64)
        out = self.session.run(None, feed)[0]
        return audio.trim(audio.clean(out), self.config.sample_rate)
