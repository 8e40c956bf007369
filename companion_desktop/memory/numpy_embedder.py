"""The torch-free embedding backend: a sentence-transformers BERT folder run in numpy.

Reads a sentence-transformers model folder (``modules.json``: Transformer, mean
Pooling, optionally Normalize) whose Transformer is a BERT with ``model.safetensors``
and ``tokenizer.json``, and computes the same sentence embeddings as
sentence-transformers: tokenize with the ``tokenizers`` package (truncated to the
folder's ``max_seq_length``), encode (``bert.BertEncoder``), mean-pool the token vectors
over the attention mask, L2-normalize. Resident memory is numpy, the tokenizer and the
float32 weights (about 90 MB for all-MiniLM-L6-v2) instead of torch and transformers.

``unreadable_reason(path)`` says, without loading weights, why a folder needs the
sentence-transformers backend instead (None when this one can read it).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .bert import BertConfig, BertEncoder, UnsupportedModel
from .roles import Symmetric
from .vectors import l2_normalize

if TYPE_CHECKING:
    from tokenizers import Tokenizer, normalizers

__all__ = ["FolderPlan", "NumpyEmbedder", "plan_folder", "thread_limiter", "unreadable_reason"]

ENCODE_BATCH = 32
_TRANSFORMER, _POOLING, _NORMALIZE = "Transformer", "Pooling", "Normalize"
_OTHER_POOLING = (
    "pooling_mode_cls_token",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)


@dataclass(frozen=True)
class FolderPlan:
    """What the numpy backend reads from a model folder.

    ``transformer``: the folder of the Transformer module (config, weights, tokenizer);
    ``max_seq_length``: inputs are truncated to this many tokens, special tokens included;
    ``lowercase``: sentence-transformers' ``do_lower_case`` (adds a Lowercase normalizer).
    """

    transformer: Path
    config: BertConfig
    dim: int
    max_seq_length: int
    lowercase: bool


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UnsupportedModel(f"no {path.name}") from exc
    except (OSError, ValueError) as exc:
        raise UnsupportedModel(f"unreadable {path.name}: {exc}") from exc


def _module_kind(entry: dict[str, Any]) -> str:
    return str(entry.get("type", "")).rsplit(".", 1)[-1]


def _check_pooling(path: Path, hidden: int) -> int:
    """The embedding dimension of a mean Pooling module folder; refuses any other mode."""
    cfg = _read_json(path / "config.json")
    mode = cfg.get("pooling_mode")
    if mode is not None:
        if mode not in ("mean", ["mean"]):
            raise UnsupportedModel(f"pooling mode {mode!r} (only mean is supported)")
    elif not cfg.get("pooling_mode_mean_tokens", True) or any(cfg.get(k) for k in _OTHER_POOLING):
        raise UnsupportedModel("only mean pooling is supported")
    if cfg.get("include_prompt") is False:
        raise UnsupportedModel("pooling that excludes the prompt is not supported")
    dim = int(cfg.get("word_embedding_dimension", cfg.get("embedding_dimension", hidden)))
    if dim != hidden:
        raise UnsupportedModel(f"pooling dimension {dim} != hidden size {hidden}")
    return dim


def plan_folder(path: Path) -> FolderPlan:
    """Check a model folder (config files only, no weights). Raises ``UnsupportedModel``."""
    path = Path(path)
    modules = _read_json(path / "modules.json")
    if not isinstance(modules, list):
        raise UnsupportedModel("modules.json is not a list")
    kinds = [_module_kind(m) for m in modules]
    if kinds not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
        raise UnsupportedModel(f"modules {kinds} (need Transformer, Pooling[, Normalize])")
    st_cfg = path / "config_sentence_transformers.json"
    if st_cfg.is_file() and _read_json(st_cfg).get("default_prompt_name"):
        raise UnsupportedModel("a default prompt is configured")
    folder = path / str(modules[0].get("path", ""))
    if not (folder / "model.safetensors").is_file():
        extra = (" (pytorch_model.bin needs torch)" if (folder / "pytorch_model.bin").is_file()
                 else "")
        raise UnsupportedModel("no model.safetensors" + extra)
    if not (folder / "tokenizer.json").is_file():
        raise UnsupportedModel("no tokenizer.json")
    config = BertConfig.from_dict(_read_json(folder / "config.json"))
    dim = _check_pooling(path / str(modules[1].get("path", "")), config.hidden)
    bert_cfg = folder / "sentence_bert_config.json"
    st = _read_json(bert_cfg) if bert_cfg.is_file() else {}
    max_len = st.get("max_seq_length")
    if max_len is None:  # sentence-transformers: the tokenizer's limit, capped by positions
        tok_cfg = folder / "tokenizer_config.json"
        tok = _read_json(tok_cfg) if tok_cfg.is_file() else {}
        max_len = min(int(tok.get("model_max_length", config.max_positions)), config.max_positions)
    return FolderPlan(folder, config, dim, min(int(max_len), config.max_positions),
                      bool(st.get("do_lower_case", False)))


def unreadable_reason(path: Path) -> str | None:
    """Why the numpy backend cannot read ``path``, or None when it can (cheap, no weights)."""
    try:
        plan_folder(path)
    except UnsupportedModel as exc:
        return str(exc)
    try:
        import safetensors.numpy  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed"
    return None


def _members(sequence: normalizers.Sequence) -> list[Any]:
    """The normalizers in ``sequence`` (it is indexed, not iterable, in tokenizers' types)."""
    return [sequence[i] for i in range(len(sequence))]


def _load_tokenizer(plan: FolderPlan) -> Tokenizer:
    """``tokenizer.json`` set up as sentence-transformers calls it: truncation at
    ``max_seq_length`` from the right, no padding (the batch is padded here)."""
    from tokenizers import Tokenizer, normalizers

    tok = Tokenizer.from_file(str(plan.transformer / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(
        plan.max_seq_length, stride=0, strategy="longest_first", direction="right"
    )
    if plan.lowercase:  # what sentence-transformers does for do_lower_case
        current = tok.normalizer
        if isinstance(current, normalizers.Sequence):
            has = any(isinstance(n, normalizers.Lowercase) for n in _members(current))
        else:
            has = isinstance(current, normalizers.Lowercase)
        if not has:
            parts = [normalizers.Lowercase()]
            if isinstance(current, normalizers.Sequence):
                parts += _members(current)
            elif current is not None:
                parts.append(current)
            tok.normalizer = normalizers.Sequence(parts)
    return tok


def thread_limiter(
    threads: int | None, user_api: str = "blas"
) -> Callable[[], contextlib.AbstractContextManager[object]]:
    """A context-manager factory that caps a thread pool (numpy's BLAS, or "openmp") at
    ``threads`` while it is open (``threadpoolctl``, when installed; otherwise, or for
    None, a no-op)."""
    if threads is None:
        return contextlib.nullcontext
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return contextlib.nullcontext
    controller = ThreadpoolController()
    return lambda: controller.limit(limits=threads, user_api=user_api)


class NumpyEmbedder(Symmetric):
    """An ``Embedder`` that runs a BERT sentence-transformers folder in numpy (CPU,
    batched, thread-safe). Vectors match sentence-transformers to cosine >= 0.9999.

    ``blas_threads``: BLAS threads while embedding (default 1: the cores are shared with
    the user's local model, and a multi-threaded BLAS slows down sharply on a busy CPU);
    None leaves numpy's setting alone.
    """

    def __init__(
        self,
        path: Path,
        model_name: str,
        batch_size: int = ENCODE_BATCH,
        blas_threads: int | None = 1,
    ):
        plan = plan_folder(Path(path))
        self.plan = plan
        self.model_name = model_name
        self.dim = plan.dim
        self.batch_size = batch_size
        self.tokenizer = _load_tokenizer(plan)
        self.encoder = BertEncoder.from_folder(plan.transformer, plan.config)
        self._limit_blas = thread_limiter(blas_threads)
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32, unit length rows; an empty list gives ``(0, dim)``.

        Texts are batched by token length (longest first, like sentence-transformers) so
        that a batch pads little; a non-string counts as the empty string.
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        clean = [t if isinstance(t, str) else "" for t in texts]
        with self._lock, self._limit_blas():
            encodings = self.tokenizer.encode_batch(clean)
            order = sorted(range(len(clean)), key=lambda i: -len(encodings[i].ids))
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                out[rows] = self._embed_batch([encodings[i] for i in rows])
        return l2_normalize(out)

    def _embed_batch(self, encodings: list[Any]) -> np.ndarray:
        """Mean-pooled token vectors ``(batch, dim)`` of one padded batch (not normalized)."""
        tokens = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), tokens), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros((len(encodings), tokens), dtype=np.float32)
        for row, enc in enumerate(encodings):
            n = len(enc.ids)
            ids[row, :n] = enc.ids
            types[row, :n] = enc.type_ids
            mask[row, :n] = 1.0
        hidden = self.encoder(ids, mask, types)
        summed = np.matmul(mask[:, None, :], hidden)[:, 0, :]
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
