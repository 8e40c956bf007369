"""A BERT encoder in numpy: the forward pass of a Hugging Face ``BertModel``, no torch.

Used by the numpy embedding backend (``numpy_embedder``) for sentence-transformers
models such as all-MiniLM-L6-v2 (6 layers, 384 hidden, 12 heads) and
paraphrase-multilingual-MiniLM-L12-v2 (12 layers, same shapes, a larger vocabulary).
Inference only (no dropout), float32, batched with an attention mask; the weights are
read from ``model.safetensors`` with ``safetensors.numpy``.

The maths follows ``transformers``' ``BertModel`` with absolute position embeddings:
embeddings (word + position + token type) -> LayerNorm -> per layer: self-attention with
an additive mask -> dense -> residual + LayerNorm -> dense + activation -> dense ->
residual + LayerNorm. The pooler head is not used (sentence-transformers pools tokens).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["BertConfig", "BertEncoder", "UnsupportedModel"]

#: Added to the attention scores of padding keys (float32: exp() of it is exactly 0).
MASK_BIAS = -1e9
#: ``hidden_act`` values this encoder computes (``gelu`` is the exact erf form).
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")
_PREFIXES = ("", "bert.", "model.")


class UnsupportedModel(ValueError):
    """The folder holds a model this encoder cannot compute exactly (use another backend)."""


@dataclass(frozen=True)
class BertConfig:
    """The shape of a BERT encoder, read from a Hugging Face ``config.json``.

    ``layer_norm_eps`` is the LayerNorm epsilon (1e-12 for MiniLM); ``max_positions``
    is the longest input in tokens that the position table covers.
    """

    hidden: int
    heads: int
    layers: int
    intermediate: int
    layer_norm_eps: float
    activation: str
    max_positions: int
    type_vocab: int

    @classmethod
    def from_dict(cls, cfg: dict[str, Any]) -> BertConfig:
        """Raises ``UnsupportedModel`` for anything but a plain absolute-position BERT."""
        archs = cfg.get("architectures") or ["BertModel"]
        if cfg.get("model_type") != "bert" or not all(a.startswith("Bert") for a in archs):
            raise UnsupportedModel(f"not a BERT model ({cfg.get('model_type')}, {archs})")
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise UnsupportedModel("only absolute position embeddings are supported")
        act = cfg.get("hidden_act", "gelu")
        if act not in ACTIVATIONS:
            raise UnsupportedModel(f"activation {act!r} is not supported")
        try:
            config = cls(
                hidden=int(cfg["hidden_size"]),
                heads=int(cfg["num_attention_heads"]),
                layers=int(cfg["num_hidden_layers"]),
                intermediate=int(cfg["intermediate_size"]),
                layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
                activation=act,
                max_positions=int(cfg.get("max_position_embeddings", 512)),
                type_vocab=int(cfg.get("type_vocab_size", 2)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise UnsupportedModel(f"incomplete BERT config: {exc}") from exc
        if config.hidden % config.heads:
            raise UnsupportedModel("hidden_size is not a multiple of num_attention_heads")
        return config


def _erf(x: np.ndarray) -> np.ndarray:
    """erf(x), elementwise, float32 (Abramowitz & Stegun 7.1.26: |error| < 1.5e-7)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + np.float32(0.3275911) * a)
    poly = np.float32(1.061405429) * t + np.float32(-1.453152027)
    poly = poly * t + np.float32(1.421413741)
    poly = poly * t + np.float32(-0.284496736)
    poly = poly * t + np.float32(0.254829592)
    poly *= t
    np.square(x, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a  # poly is now 1 - erf(|x|)
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _activate(h: np.ndarray, kind: str) -> np.ndarray:
    """The feed-forward activation, in place where it can be (h: float32, any shape)."""
    if kind == "relu":
        return np.maximum(h, 0.0, out=h)
    if kind == "gelu":  # 0.5 x (1 + erf(x / sqrt 2))
        e = _erf(h * np.float32(1.0 / math.sqrt(2.0)))
        e += 1.0
        h *= e
        h *= 0.5
        return h
    # tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    inner = h * h
    inner *= np.float32(0.044715)
    inner += 1.0
    inner *= h
    inner *= np.float32(math.sqrt(2.0 / math.pi))
    np.tanh(inner, out=inner)
    inner += 1.0
    h *= inner
    h *= 0.5
    return h


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis (biased variance, like torch), in place on ``x``."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.mean(np.square(x), axis=-1, keepdims=True)
    var += np.float32(eps)
    x /= np.sqrt(var)
    x *= weight
    x += bias
    return x


class BertEncoder:
    """The encoder of a BERT model; ``__call__`` gives the last hidden states.

    Weights are float32 views for ``x @ W`` (query, key and value fused into one
    ``(hidden, 3 * hidden)`` matrix per layer); the pooler head is dropped.
    """

    def __init__(self, weights: dict[str, np.ndarray], config: BertConfig):
        self.config = config
        get = _getter(weights)
        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")
        self.emb_norm = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        if self.word.shape[1] != config.hidden:
            raise UnsupportedModel("word embeddings do not match hidden_size")
        self.layers = [_layer_weights(get, f"encoder.layer.{i}.") for i in range(config.layers)]

    @classmethod
    def from_folder(cls, path: Path, config: BertConfig) -> BertEncoder:
        """Read ``model.safetensors`` in ``path`` (about 90 MB for all-MiniLM-L6-v2)."""
        from safetensors.numpy import load_file

        return cls(load_file(str(path / "model.safetensors")), config)

    def __call__(
        self, ids: np.ndarray, mask: np.ndarray, type_ids: np.ndarray | None = None
    ) -> np.ndarray:
        """Hidden states ``(batch, tokens, hidden)`` float32.

        ``ids``: token ids ``(batch, tokens)``; ``mask``: 1 for real tokens, 0 for
        padding; ``type_ids``: segment ids (zeros when None). ``tokens`` must not exceed
        ``config.max_positions``.
        """
        cfg = self.config
        batch, tokens = ids.shape
        if tokens > cfg.max_positions:
            raise ValueError(f"{tokens} tokens > {cfg.max_positions} positions")
        x = self.word[ids]
        x += self.position[:tokens]
        x += self.token_type[0] if type_ids is None else self.token_type[type_ids]
        x = _layer_norm(x.reshape(batch * tokens, cfg.hidden), *self.emb_norm, cfg.layer_norm_eps)
        bias = np.where(np.asarray(mask)[:, None, None, :] > 0, 0.0, MASK_BIAS).astype(np.float32)
        for layer in self.layers:
            x = self._layer(x, bias, layer, batch, tokens)
        return x.reshape(batch, tokens, cfg.hidden)

    def _layer(
        self, x: np.ndarray, bias: np.ndarray, w: dict[str, np.ndarray], batch: int, tokens: int
    ) -> np.ndarray:
        cfg = self.config
        head = cfg.hidden // cfg.heads
        qkv = np.matmul(x, w["qkv"])
        qkv += w["qkv_b"]
        qkv = qkv.reshape(batch, tokens, 3, cfg.heads, head).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # (batch, heads, tokens, head)
        scores = np.matmul(q, k.transpose(0, 1, 3, 2))
        scores *= np.float32(1.0 / math.sqrt(head))
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = np.matmul(scores, v).transpose(0, 2, 1, 3).reshape(batch * tokens, cfg.hidden)
        attn = np.matmul(context, w["out"])
        attn += w["out_b"]
        attn += x
        x = _layer_norm(attn, w["norm1"], w["norm1_b"], cfg.layer_norm_eps)
        h = np.matmul(x, w["up"])
        h += w["up_b"]
        h = _activate(h, cfg.activation)
        y = np.matmul(h, w["down"])
        y += w["down_b"]
        y += x
        return _layer_norm(y, w["norm2"], w["norm2_b"], cfg.layer_norm_eps)


def _getter(weights: dict[str, np.ndarray]) -> Callable[[str], np.ndarray]:
    """A lookup of weights by ``BertModel`` name that accepts a ``bert.`` style prefix."""
    prefix = next(
        (p for p in _PREFIXES if p + "embeddings.word_embeddings.weight" in weights), None
    )
    if prefix is None:
        raise UnsupportedModel("no BERT embeddings in the weights")

    def get(name: str) -> np.ndarray:
        try:
            return np.ascontiguousarray(weights[prefix + name], dtype=np.float32)
        except KeyError as exc:
            raise UnsupportedModel(f"missing weight {prefix + name}") from exc

    return get


def _layer_weights(get: Callable[[str], np.ndarray], p: str) -> dict[str, np.ndarray]:
    """One layer's weights. torch ``Linear`` stores ``(out, in)``: each is kept as is and
    used through its transpose (a view; BLAS reads it without a copy)."""
    att = p + "attention."
    qkv = [att + f"self.{n}." for n in ("query", "key", "value")]
    return {
        "qkv": np.concatenate([get(n + "weight") for n in qkv]).T,
        "qkv_b": np.concatenate([get(n + "bias") for n in qkv]),
        "out": get(att + "output.dense.weight").T,
        "out_b": get(att + "output.dense.bias"),
        "norm1": get(att + "output.LayerNorm.weight"),
        "norm1_b": get(att + "output.LayerNorm.bias"),
        "up": get(p + "intermediate.dense.weight").T,
        "up_b": get(p + "intermediate.dense.bias"),
        "down": get(p + "output.dense.weight").T,
        "down_b": get(p + "output.dense.bias"),
        "norm2": get(p + "output.LayerNorm.weight"),
        "norm2_b": get(p + "output.LayerNorm.bias"),
    }
