"""Query and passage roles: the one embedding interface every backend offers.

Some models embed a question and a stored sentence differently (e5 reads a "query: "
or "passage: " prefix); others (the MiniLM sentence-transformers) have one encoder for
both. Every backend has ``model_name``, ``dim``, ``embed_queries(texts)`` (a user's
message, a memory cue) and ``embed_passages(texts)`` (a fact as stored, so also fact
against fact: dedup and the graph). ``Symmetric`` gives both to a backend whose
``embed`` serves either role.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Symmetric"]


class Symmetric:
    """Both roles through ``self.embed`` (looked up at call time)."""

    def embed(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Vectors of questions (the user's message, memory cues)."""
        return self.embed(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Vectors of stored facts."""
        return self.embed(texts)
