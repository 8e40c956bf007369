"""Bringing a voice file: checked, then copied into ``<data>/voices/`` whole or not at all.

A Kokoro voice is a ``.npy`` (float32, shape (510 or 511, 1, 256) or (N, 256), read with
``allow_pickle=False``) or a ``.bin`` (raw little-endian float32, a multiple of 256
values, the usual voice-pack format), at most :data:`MAX_KOKORO_BYTES`; every value
finite and of a sane size. It is stored as ``voices/kokoro/<name>.npy`` (N, 256).
A Piper voice is an ``.onnx`` (at most :data:`MAX_PIPER_BYTES`) with its ``.onnx.json``
beside it (at most :data:`MAX_JSON_BYTES`): the settings are checked
(:func:`~companion_desktop.llm.neural_voice.piper.parse_config`) and the model must open
in ONNX Runtime with Piper's inputs. Nothing is executed (no pickle, no custom operator
library) or downloaded; a refused file raises :class:`VoiceFileError` with one line and
leaves nothing behind. Importing a name that is there replaces it (atomically).
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from companion_desktop.llm.neural_voice.catalog import (
    KOKORO,
    KOKORO_FILE,
    NAME,
    PIPER,
    NeuralVoice,
    imported_voices,
    kokoro_language,
    parse_id,
    voices_dir,
)
from companion_desktop.llm.neural_voice.errors import VoiceFileError
from companion_desktop.llm.neural_voice.piper import PiperConfig, PiperVoice, parse_config
from companion_desktop.llm.wav import TtsError

MAX_KOKORO_BYTES = 4 * 1024 * 1024
MAX_PIPER_BYTES = 150 * 1024 * 1024
MAX_JSON_BYTES = 1024 * 1024
STYLE_SIZE = 256
#: Rows a Kokoro voice may have (one per token count; the model takes 510 tokens).
MIN_ROWS, MAX_ROWS = 1, 4096
#: The largest magnitude a style value may have (real voices stay under about 10).
MAX_STYLE_VALUE = 100.0


def voice_name(path: Path, name: str | None = None) -> str:
    """The name a voice gets: ``name``, else the file's stem, with anything but
    ``A-Z a-z 0-9 _ -`` as ``_``, at most 40 characters."""
    stem = name or path.name.removesuffix(".onnx.json").split(".")[0]
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", stem)[:40].strip("_-") or "voice"
    if not NAME.match(clean):
        raise VoiceFileError(f"\"{stem[:40]}\" cannot be a voice name.")
    return clean


def _read(path: Path, limit: int, what: str) -> bytes:
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise VoiceFileError(f"{path.name} is not a file.")
        if size > limit:
            raise VoiceFileError(f"{path.name} is too large for {what} ({size:,} bytes; at most "
                                 f"{limit:,}).")
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise VoiceFileError(f"{path.name} cannot be read ({exc.strerror or exc}).") from None
    if len(data) > limit:
        raise VoiceFileError(f"{path.name} is too large for {what}.")
    return data


def check_kokoro_voice(path: Path) -> np.ndarray:
    """The style vectors of the Kokoro voice file ``path`` as float32 (rows, 256);
    VoiceFileError for anything else."""
    data = _read(path, MAX_KOKORO_BYTES, "a Kokoro voice")
    if path.suffix.lower() == ".npy":
        try:
            array = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError):
            raise VoiceFileError(f"{path.name} is not a plain NumPy array file (damaged, cut "
                                 "short, or holding Python objects).") from None
        if not isinstance(array, np.ndarray) or array.dtype != np.float32:
            raise VoiceFileError(f"{path.name} does not hold float32 numbers "
                                 f"({getattr(array, 'dtype', 'no array')}).")
        if array.ndim == 3 and array.shape[1:] == (1, STYLE_SIZE) or \
                array.ndim == 2 and array.shape[1] == STYLE_SIZE:
            array = array.reshape(-1, STYLE_SIZE)
        else:
            raise VoiceFileError(f"{path.name} has the shape {array.shape}; a Kokoro voice is "
                                 f"(510, 1, 256) or (N, 256).")
    elif path.suffix.lower() == ".bin":
        if len(data) == 0 or len(data) % (4 * STYLE_SIZE):
            raise VoiceFileError(f"{path.name} is not a Kokoro voice: its size is not a "
                                 f"multiple of {STYLE_SIZE} float32 values (cut short?).")
        array = np.frombuffer(data, dtype="<f4").astype(np.float32).reshape(-1, STYLE_SIZE)
    else:
        raise VoiceFileError(f"{path.name} is not a Kokoro voice (.npy or .bin).")
    if not MIN_ROWS <= len(array) <= MAX_ROWS:
        raise VoiceFileError(f"{path.name} has {len(array)} style rows; a Kokoro voice has "
                             f"{MIN_ROWS}-{MAX_ROWS}.")
    if not np.isfinite(array).all() or float(np.abs(array).max()) > MAX_STYLE_VALUE:
        raise VoiceFileError(f"{path.name} holds values that are not numbers or far too large.")
    return np.ascontiguousarray(array)


def _piper_settings(model: Path) -> tuple[bytes, PiperConfig]:
    """The JSON bytes and checked settings beside the Piper model ``model``, after a look at
    the model's size and first bytes; VoiceFileError for anything unusable."""
    settings = model.with_name(model.name + ".json")
    if not settings.is_file():
        raise VoiceFileError(f"{model.name} needs its settings beside it ({settings.name}).")
    data = _read(settings, MAX_JSON_BYTES, "a voice's settings")
    config = parse_config(data)
    head = _read_head(model)
    if len(head) < 16 or head[0] != 0x08:  # ONNX (protobuf) starts with ir_version, field 1
        raise VoiceFileError(f"{model.name} is not an ONNX model.")
    size = model.stat().st_size
    if size > MAX_PIPER_BYTES:
        raise VoiceFileError(f"{model.name} is too large for a Piper voice ({size:,} bytes; "
                             f"at most {MAX_PIPER_BYTES:,}).")
    return data, config


def _open_piper(model: Path, config: PiperConfig, shown: str) -> None:
    """Open ``model`` in ONNX Runtime as a Piper voice; VoiceFileError naming ``shown``."""
    try:
        PiperVoice(model, config, threads=1)
    except VoiceFileError as exc:
        raise VoiceFileError(str(exc).replace(model.name, shown)) from None
    except TtsError:
        raise VoiceFileError(f"{shown} is not a usable ONNX model (ONNX Runtime cannot load "
                             "it).") from None


def check_piper_voice(model: Path) -> PiperConfig:
    """The settings of the Piper voice ``model`` after checking both files and opening the
    model; VoiceFileError for anything unusable."""
    _, config = _piper_settings(model)
    _open_piper(model, config, model.name)
    return config


def _read_head(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.read(64)
    except OSError as exc:
        raise VoiceFileError(f"{path.name} cannot be read ({exc.strerror or exc}).") from None


def import_voice(data_dir: Path, source: Path, name: str | None = None) -> NeuralVoice:
    """Check the voice file ``source`` (a Kokoro ``.npy``/``.bin`` or a Piper ``.onnx``
    with its ``.onnx.json``) and copy it into ``<data_dir>/voices/``; the voice as listed.
    ``name`` defaults to the file's stem. VoiceFileError when refused."""
    source = Path(source)
    suffix = source.suffix.lower()
    label = voice_name(source, name)
    if suffix in (".npy", ".bin"):
        array = check_kokoro_voice(source)
        folder = voices_dir(data_dir) / KOKORO
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        _store(folder, {f"{label}.npy": buffer.getvalue()})
        return _listed(data_dir, f"{KOKORO_FILE}:{label}", kokoro_language(label))
    if suffix == ".onnx":
        settings, config = _piper_settings(source)
        folder = voices_dir(data_dir) / PIPER
        _store(folder, {f"{label}.onnx.json": settings}, {f"{label}.onnx": source},
               check=lambda written: _open_piper(written[0], config, source.name))
        return _listed(data_dir, f"{PIPER}:{label}", "")
    raise VoiceFileError(f"{source.name} is not a voice file: bring a Kokoro voice (.npy, "
                         ".bin) or a Piper voice (.onnx with its .onnx.json).")


def _listed(data_dir: Path, voice_id: str, language: str) -> NeuralVoice:
    for voice in imported_voices(data_dir):
        if voice.id == voice_id:
            return voice
    raise VoiceFileError(f"The voice {voice_id} was copied but cannot be listed.")


def _store(folder: Path, blobs: dict[str, bytes], copies: dict[str, Path] | None = None,
           check: Callable[[list[Path]], None] | None = None) -> None:
    """Write ``blobs`` and copy ``copies`` (at most :data:`MAX_PIPER_BYTES` each) into
    ``folder``, each through a temporary file; ``check(copied temporary files)`` may
    refuse what was copied; all are renamed into place only when every one was written
    and checked (the files are the user's alone)."""
    temps: list[tuple[Path, Path]] = []
    copied: list[Path] = []
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        items: list[tuple[str, bytes | Path]] = [*blobs.items(), *(copies or {}).items()]
        for target, content in items:
            handle, name = tempfile.mkstemp(prefix=f".{target}.", suffix=".part", dir=folder)
            temps.append((Path(name), folder / target))
            with os.fdopen(handle, "wb") as out:
                if isinstance(content, Path):
                    _copy_limited(content, out)
                    copied.append(Path(name))
                else:
                    out.write(content)
                out.flush()
                os.fsync(out.fileno())
        if check is not None:
            check(copied)
        for temp, final in temps:
            os.replace(temp, final)
    except OSError as exc:
        raise VoiceFileError(f"The voice could not be saved in {folder} "
                             f"({exc.strerror or exc}).") from None
    finally:
        for leftover, _ in temps:
            leftover.unlink(missing_ok=True)


def _copy_limited(source: Path, out: BinaryIO) -> None:
    with source.open("rb") as file:
        done = 0
        while block := file.read(1 << 20):
            done += len(block)
            if done > MAX_PIPER_BYTES:
                raise VoiceFileError(f"{source.name} is too large for a voice.")
            out.write(block)


def remove_voice(data_dir: Path, voice_id: str) -> None:
    """Delete an imported voice's files (a built-in voice cannot be removed)."""
    kind, name = parse_id(voice_id)
    root = voices_dir(data_dir)
    if kind == KOKORO_FILE:
        (root / KOKORO / f"{name}.npy").unlink(missing_ok=True)
    elif kind == PIPER:
        for path in (root / PIPER / f"{name}.onnx.json", root / PIPER / f"{name}.onnx"):
            path.unlink(missing_ok=True)
    else:
        raise VoiceFileError(f"{voice_id} is built in and cannot be removed.")
