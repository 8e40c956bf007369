"""Synthetic vectors and a scripted embedder for the memory tests."""

from __future__ import annotations

import numpy as np

from companion_desktop.memory.roles import Symmetric
from companion_desktop.memory.vectors import l2_normalize

DIM = 384


def unit(*components: float, dim: int = DIM) -> np.ndarray:
    """A unit vector whose first components are ``components`` (rest zero), normalized."""
    vec = np.zeros(dim, dtype=np.float32)
    vec[: len(components)] = components
    return l2_normalize(vec)


def axis(i: int, dim: int = DIM) -> np.ndarray:
    """The basis vector ``i``."""
    vec = np.zeros(dim, dtype=np.float32)
    vec[i] = 1.0
    return vec


def at_similarity(cos: float, to: int = 0, other: int = 1, dim: int = DIM) -> np.ndarray:
    """A unit vector with cosine ``cos`` to the basis vector ``to`` (tilted toward ``other``)."""
    vec = np.zeros(dim, dtype=np.float64)
    vec[to] = cos
    vec[other] = np.sqrt(1.0 - cos * cos)
    return vec.astype(np.float32)


class ScriptedEmbedder(Symmetric):
    """An ``Embedder`` mapping known texts to fixed vectors; unknown texts get the last axis."""

    model_name = "test/scripted"
    dim = DIM

    def __init__(self, vectors: dict[str, np.ndarray] | None = None) -> None:
        self.vectors = dict(vectors or {})
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self.vectors.get(text, axis(self.dim - 1))
        return out
