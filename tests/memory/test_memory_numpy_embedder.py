"""The numpy embedding backend: same vectors as sentence-transformers, without torch."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.memory import embeddings
from companion_desktop.memory.bert import UnsupportedModel, _activate, _erf
from companion_desktop.memory.embeddings import (
    FALLBACK_MODEL,
    EmbedderUnavailable,
    ModelChoice,
    NumpyEmbedder,
    load_embedder,
    resolve_model,
)
from companion_desktop.memory.numpy_embedder import plan_folder, unreadable_reason

HAS_ST = importlib.util.find_spec("sentence_transformers") is not None
needs_st = pytest.mark.skipif(not HAS_ST, reason="sentence-transformers is not installed")

SENTENCES = [
    "They like pizza",
    "where did I grow up?",
    "",
    "   ",
    "a",
    "Their sister Emma lives in Paris and works at the Louvre.",
    "Ünïcödé àccents, Straße, naïve café, 日本語のテキスト, русский текст, 😀🎉 emoji!",
    "ALL CAPS SHOUTING WITH NUMBERS 12345 and symbols #@$%^&*()",
    "tab\tseparated\nnew line\r\nand  double  spaces",
    "Ils aiment la pizza",
    " ".join(f"word{i}" for i in range(400)),  # far over 256 tokens: truncated
    "The quick brown fox jumps over the lazy dog. " * 40,
] + [f"They mentioned detail number {i} about their day and their family" for i in range(30)]


def shipped_folder() -> Path:
    choice = resolve_model(None, cache_dirs=[])
    if choice.name != FALLBACK_MODEL:
        pytest.skip("the shipped all-MiniLM-L6-v2 is not installed")
    return choice.path


@pytest.fixture(scope="module")
def numpy_embedder():
    return NumpyEmbedder(shipped_folder(), FALLBACK_MODEL)


@pytest.fixture(scope="module")
def st_embedder():
    if not HAS_ST:
        pytest.skip("sentence-transformers is not installed")
    return load_embedder(ModelChoice(FALLBACK_MODEL, shipped_folder()),
                         backend="sentence-transformers")


# --- the maths -----------------------------------------------------------------------------


def test_erf_and_gelu_match_the_exact_functions():
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert np.max(np.abs(_erf(x.copy()) - exact)) < 5e-7  # 1.5e-7 + float32 rounding
    gelu = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    assert np.max(np.abs(_activate(x.copy(), "gelu") - gelu)) < 2e-6


# --- agreement with sentence-transformers --------------------------------------------------


@pytest.mark.slow
@needs_st
def test_same_vectors_as_sentence_transformers(numpy_embedder, st_embedder):
    assert numpy_embedder.model_name == st_embedder.model_name == FALLBACK_MODEL
    assert numpy_embedder.dim == st_embedder.dim == 384
    ours, theirs = numpy_embedder.embed(SENTENCES), st_embedder.embed(SENTENCES)
    assert ours.dtype == np.float32 and ours.shape == theirs.shape == (len(SENTENCES), 384)
    cosines = np.sum(ours * theirs, axis=1)
    worst = int(np.argmin(cosines))
    assert cosines.min() >= 0.9999, (SENTENCES[worst][:60], float(cosines[worst]))
    # one at a time (a query) gives the same as in a padded batch
    for i in (0, 2, 6, 10):
        single = numpy_embedder.embed([SENTENCES[i]])[0]
        assert float(single @ theirs[i]) >= 0.9999


@pytest.mark.slow
@needs_st
def test_same_tokens_and_truncation_as_sentence_transformers(numpy_embedder, st_embedder):
    features = st_embedder.model.tokenize(SENTENCES)
    ids, mask = features["input_ids"].numpy(), features["attention_mask"].numpy()
    for row, text in enumerate(SENTENCES):
        ours = numpy_embedder.tokenizer.encode(text).ids
        assert ours == ids[row][mask[row] > 0].tolist(), text[:60]
    assert numpy_embedder.plan.max_seq_length == 256
    assert len(numpy_embedder.tokenizer.encode(SENTENCES[10]).ids) == 256


def test_vectors_are_unit_length_and_edge_inputs_work(numpy_embedder):
    out = numpy_embedder.embed(["hello", "", None, "hello"])  # type: ignore[list-item]
    assert out.shape == (4, 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(out[1], out[2], atol=1e-6)  # a non-string is the empty string
    np.testing.assert_allclose(out[0], out[3], atol=1e-6)
    assert numpy_embedder.embed([]).shape == (0, 384)


# --- a different BERT, built here: prefix, activation, lengths, no Normalize ------------------


def tiny_bert_folder(root: Path, shipped: Path, act: str = "gelu_new") -> Path:
    """A random 2-layer, 32-wide BERT saved as a sentence-transformers folder."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(7)
    hidden, inter, vocab = 32, 64, 30522
    cfg = {"architectures": ["BertModel"], "model_type": "bert", "hidden_size": hidden,
           "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": inter,
           "hidden_act": act, "layer_norm_eps": 1e-7, "max_position_embeddings": 64,
           "type_vocab_size": 2, "vocab_size": vocab, "pad_token_id": 0}
    w = {"bert.embeddings.word_embeddings.weight": rng.normal(0, 1, (vocab, hidden)),
         "bert.embeddings.position_embeddings.weight": rng.normal(0, 1, (64, hidden)),
         "bert.embeddings.token_type_embeddings.weight": rng.normal(0, 1, (2, hidden)),
         "bert.embeddings.LayerNorm.weight": rng.normal(1, 0.2, hidden),
         "bert.embeddings.LayerNorm.bias": rng.normal(0, 0.2, hidden)}
    shapes = {"attention.self.query": (hidden, hidden), "attention.self.key": (hidden, hidden),
              "attention.self.value": (hidden, hidden), "attention.output.dense": (hidden, hidden),
              "intermediate.dense": (inter, hidden), "output.dense": (hidden, inter)}
    for i in range(2):
        p = f"bert.encoder.layer.{i}."
        for name, shape in shapes.items():
            w[p + name + ".weight"] = rng.normal(0, 0.5, shape)
            w[p + name + ".bias"] = rng.normal(0, 0.2, shape[0])
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"] = rng.normal(1, 0.2, hidden)
            w[p + norm + ".bias"] = rng.normal(0, 0.2, hidden)
    folder = root / "tiny-bert"
    (folder / "1_Pooling").mkdir(parents=True)
    save_file({k: v.astype(np.float32) for k, v in w.items()}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(cfg))
    for name in ("tokenizer.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(shipped / name, folder / name)
    tok_cfg = json.loads((shipped / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**tok_cfg, "model_max_length": 512}))
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"},
    ]))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": hidden, "pooling_mode_mean_tokens": True}))
    return folder


@pytest.mark.slow
@needs_st
def test_another_bert_folder_matches_too(tmp_path):
    folder = tiny_bert_folder(tmp_path, shipped_folder())
    plan = plan_folder(folder)
    assert plan.max_seq_length == 64 and plan.dim == 32  # the tokenizer's 512, capped
    choice = resolve_model(folder, cache_dirs=[])
    ours = load_embedder(choice, backend="numpy")
    theirs = load_embedder(choice, backend="sentence-transformers")
    assert ours.model_name == theirs.model_name == f"local:{folder.resolve()}"
    a, b = ours.embed(SENTENCES), theirs.embed(SENTENCES)
    assert np.sum(a * b, axis=1).min() >= 0.9999


# --- folders the numpy backend refuses -------------------------------------------------------


def copy_configs(shipped: Path, dest: Path) -> Path:
    shutil.copytree(shipped, dest, ignore=shutil.ignore_patterns("model.safetensors"))
    (dest / "model.safetensors").symlink_to(shipped / "model.safetensors")
    return dest


def test_the_shipped_folder_is_readable():
    assert unreadable_reason(shipped_folder()) is None


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: (d / "model.safetensors").rename(d / "pytorch_model.bin"), "pytorch_model.bin"),
        (lambda d: (d / "tokenizer.json").unlink(), "tokenizer.json"),
        (lambda d: (d / "1_Pooling" / "config.json").write_text(
            '{"word_embedding_dimension": 384, "pooling_mode_cls_token": true,'
            ' "pooling_mode_mean_tokens": false}'), "mean pooling"),
        (lambda d: (d / "modules.json").write_text(json.dumps(
            json.loads((d / "modules.json").read_text())
            + [{"path": "3_Dense", "type": "sentence_transformers.models.Dense"}])), "Dense"),
        (lambda d: (d / "config.json").write_text(json.dumps(
            {**json.loads((d / "config.json").read_text()), "model_type": "roberta",
             "architectures": ["RobertaModel"]})), "not a BERT"),
    ],
)
def test_unreadable_folders_say_why(tmp_path, change, reason):
    folder = copy_configs(shipped_folder(), tmp_path / "m")
    change(folder)
    assert reason in (unreadable_reason(folder) or "")
    with pytest.raises(UnsupportedModel):
        plan_folder(folder)
    with pytest.raises(EmbedderUnavailable, match="numpy backend cannot read"):
        load_embedder(ModelChoice("local:x", folder), backend="numpy")


def test_resolve_without_sentence_transformers(tmp_path, monkeypatch):
    monkeypatch.setattr(embeddings, "_has_sentence_transformers", lambda: False)
    # the shipped model needs only numpy
    assert resolve_model(None, cache_dirs=[]).name == FALLBACK_MODEL
    # a configured folder that only torch can read is skipped for the shipped model
    folder = copy_configs(shipped_folder(), tmp_path / "torch-only")
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    assert resolve_model(folder, cache_dirs=[]).name == FALLBACK_MODEL
    monkeypatch.setattr(embeddings, "_fallback_path", lambda: None)
    with pytest.raises(EmbedderUnavailable, match="sentence-transformers is not installed"):
        resolve_model(folder, cache_dirs=[])


def test_loading_and_embedding_never_imports_torch():
    code = (
        "import sys, companion_desktop.memory as m;"
        "e = m.load_embedder(m.resolve_model(cache_dirs=[]));"
        "assert type(e).__name__ == 'NumpyEmbedder', type(e);"
        "assert e.embed(['hello there']).shape == (1, 384);"
        "bad = [x for x in ('torch', 'sentence_transformers', 'transformers') if x in sys.modules];"
        "assert not bad, bad"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
