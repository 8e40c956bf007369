"""Embedding vectors as bytes (the ``facts.embedding`` column) and back.

A vector is stored as ``dim`` float32 values, little-endian, nothing else: 384 values
take 1,536 bytes. ``from_bytes`` refuses anything that is not exactly that (wrong
length, non-finite values) by returning None, so a damaged row counts as unembedded.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DTYPE", "from_bytes", "l2_normalize", "to_bytes"]

DTYPE = np.dtype("<f4")


def to_bytes(vec: np.ndarray) -> bytes:
    """``vec`` (any shape, any float dtype) as float32 little-endian bytes."""
    return np.ascontiguousarray(np.asarray(vec, dtype=DTYPE).ravel()).tobytes()


def from_bytes(data: bytes | bytearray | memoryview | None, dim: int) -> np.ndarray | None:
    """A writable float32 vector of shape ``(dim,)``, or None when ``data`` is not one."""
    if data is None or dim <= 0:
        return None
    try:
        raw = memoryview(data).cast("B")
    except TypeError:
        return None
    if raw.nbytes != dim * DTYPE.itemsize:
        return None
    vec = np.frombuffer(raw, dtype=DTYPE).astype(np.float32)
    if not np.isfinite(vec).all():
        return None
    return vec


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32); zero rows stay zero."""
    arr = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(arr, axis=-1, keepdims=True)
    return np.divide(arr, norms, out=np.zeros_like(arr), where=norms > 0)
