"""Choosing and loading the embedding model, offline; real vectors from the shipped model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.engine.facts import DEDUP_COSINE, is_duplicate
from companion_desktop.memory import embeddings
from companion_desktop.memory.embeddings import (
    FALLBACK_MODEL,
    MULTILINGUAL_MODEL,
    Embedder,
    EmbedderUnavailable,
    ModelChoice,
    find_cached_model,
    hf_cache_dirs,
    load_embedder,
    resolve_model,
)

CACHE_FOLDER = "models--sentence-transformers--paraphrase-multilingual-MiniLM-L12-v2"


def fake_snapshot(cache: Path, revision: str, ref: bool = True) -> Path:
    snap = cache / CACHE_FOLDER / "snapshots" / revision
    snap.mkdir(parents=True)
    (snap / "modules.json").write_text("[]")
    if ref:
        (cache / CACHE_FOLDER / "refs").mkdir(exist_ok=True)
        (cache / CACHE_FOLDER / "refs" / "main").write_text(revision + "\n")
    return snap


# --- choosing ----------------------------------------------------------------------------------


def test_shipped_model_when_nothing_is_cached(tmp_path):
    choice = resolve_model(None, cache_dirs=[tmp_path])
    assert choice.name == FALLBACK_MODEL == "sentence-transformers/all-MiniLM-L6-v2"
    assert choice.dim == 384
    assert (choice.path / "modules.json").is_file()


def test_multilingual_model_from_the_hub_cache(tmp_path):
    fake_snapshot(tmp_path, "aaaa", ref=False)
    main = fake_snapshot(tmp_path, "bbbb")
    (tmp_path / CACHE_FOLDER / "snapshots" / "cccc").mkdir()  # incomplete: no model files
    choice = resolve_model(None, cache_dirs=[tmp_path / "empty", tmp_path])
    assert choice == ModelChoice(MULTILINGUAL_MODEL, main, 384)


def test_hub_cache_folders_follow_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    assert hf_cache_dirs()[0] == tmp_path / "hf" / "hub"
    assert hf_cache_dirs()[-1] == Path.home() / ".cache" / "huggingface" / "hub"
    snap = fake_snapshot(tmp_path / "hf" / "hub", "dddd")
    assert find_cached_model(MULTILINGUAL_MODEL) == snap


def test_a_configured_folder_wins_and_is_named_exactly(tmp_path):
    named = tmp_path / "paraphrase-multilingual-MiniLM-L12-v2"
    named.mkdir()
    (named / "config.json").write_text("{}")
    assert resolve_model(str(named), cache_dirs=[]).name == MULTILINGUAL_MODEL
    other = tmp_path / "my-model"
    other.mkdir()
    (other / "modules.json").write_text("[]")
    (other / "1_Pooling").mkdir()
    (other / "1_Pooling" / "config.json").write_text('{"word_embedding_dimension": 768}')
    choice = resolve_model(other, cache_dirs=[])
    assert choice.name == f"local:{other.resolve()}" and choice.dim == 768
    # a missing folder falls back to the next choice
    assert resolve_model(tmp_path / "absent", cache_dirs=[]).name == FALLBACK_MODEL


def test_unavailable_without_a_model_or_the_library(tmp_path, monkeypatch):
    monkeypatch.setattr(embeddings, "_fallback_path", lambda: None)
    with pytest.raises(EmbedderUnavailable, match="no embedding model"):
        resolve_model(None, cache_dirs=[tmp_path])
    # a cached model only sentence-transformers can read (no weights here), and no library
    fake_snapshot(tmp_path, "eeee")
    monkeypatch.setattr(embeddings, "_has_sentence_transformers", lambda: False)
    with pytest.raises(EmbedderUnavailable, match="sentence-transformers is not installed"):
        resolve_model(None, cache_dirs=[tmp_path])


def test_importing_memory_does_not_import_torch():
    code = (
        "import sys, companion_desktop.memory as m; m.resolve_model(cache_dirs=[]);"
        "bad = [x for x in ('torch', 'sentence_transformers', 'transformers') if x in sys.modules];"
        "assert not bad, bad"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow  # imports torch
def test_a_broken_model_folder_is_unavailable_not_a_crash(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(EmbedderUnavailable, match="cannot load"):
        load_embedder(ModelChoice("local:broken", tmp_path))
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


# --- the real model ----------------------------------------------------------------------------


@pytest.mark.slow
def test_real_vectors_are_unit_float32(real_embedder):
    assert isinstance(real_embedder, Embedder)
    assert real_embedder.model_name == FALLBACK_MODEL and real_embedder.dim == 384
    out = real_embedder.embed(["They like pizza", "Ils aiment la pizza", ""])
    assert out.shape == (3, 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out[:2], axis=1), 1.0, atol=1e-5)
    assert real_embedder.embed([]).shape == (0, 384)
    # deterministic: the same text, the same vector
    np.testing.assert_allclose(real_embedder.embed(["They like pizza"])[0], out[0], atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("a", "b", "duplicate"),
    [
        ("They live in Berlin", "They reside in Berlin", True),
        ("They have a dog named Max", "They own a dog called Max", True),
        ("Their name is Alex", "They are called Alex", False),
        ("They live in Berlin", "They live in Paris", False),
    ],
)
def test_dedup_threshold_on_real_paraphrases(real_embedder, a, b, duplicate):
    va, vb = real_embedder.embed([a, b])
    cosine = float(va @ vb)
    verdict = is_duplicate(a, b, cosine)
    assert verdict is duplicate, f"cosine({a!r}, {b!r}) = {cosine:.4f} vs {DEDUP_COSINE}"
    margin = cosine - DEDUP_COSINE
    assert abs(margin) > 0.02, f"cosine {cosine:.4f} too close to the threshold to be a fixture"
