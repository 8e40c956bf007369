"""Figures for the two embedding backends, side by side (figures only, never pass/fail).

    python -m companion_desktop.memory.measure          # speed and memory
    python -m companion_desktop.memory.measure speed    # query p50 ms, backfill sentences/s
    python -m companion_desktop.memory.measure rss      # VmRSS after load + one embed, MB

Memory is measured in a fresh process per backend (``rss --child BACKEND``): each loads
the shipped model, embeds one sentence and prints ``VmRSS`` and ``VmHWM`` (peak) from
``/proc/self/status`` (Linux only). Speed runs the backends in this process, taking turns
call by call; "numpy-blas-all" is the numpy backend with BLAS's default thread count.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion_desktop.memory.embeddings import Embedder

BACKENDS = ("numpy", "sentence-transformers")
QUERIES = ("where did I grow up?", "what is my cat called", "do you remember our trip?")
_TOPICS = ("their day", "their work and their family", "a trip to the mountains with Sarah",
           "the book they are reading, which they find slow but beautiful", "their dog Max")


def backfill_texts(n: int = 512) -> list[str]:
    """``n`` fact-like sentences of varied length (about 8 to 25 tokens)."""
    return [f"They mentioned detail number {i} about {_TOPICS[i % len(_TOPICS)]}" for i in range(n)]


def _load(backend: str) -> Embedder:
    """The shipped model on ``backend``; "numpy-blas-all" is numpy with BLAS's own threads."""
    from companion_desktop.memory.embeddings import NumpyEmbedder, load_embedder, resolve_model

    choice = resolve_model(None, cache_dirs=[])
    if backend == "numpy-blas-all":
        return NumpyEmbedder(choice.path, choice.name, blas_threads=None)
    return load_embedder(choice, backend=backend)


def speed(backends: tuple[str, ...], repeats: int = 30, batch: int = 32) -> dict[str, dict]:
    """Per backend: load time (s), query p50 (ms, one short sentence) and sentences/s for
    512 sentences in batches of ``batch``. Backends take turns call by call, so a busy
    CPU slows them alike."""
    embedders: dict[str, Embedder] = {}
    figures: dict[str, dict[str, Any]] = {}
    for backend in backends:
        t0 = time.perf_counter()
        embedders[backend] = _load(backend)
        figures[backend] = {"load_s": time.perf_counter() - t0, "query": [], "batch_s": 0.0}
        embedders[backend].embed_queries(["warm up"])
    for i in range(repeats):
        for backend, embedder in embedders.items():
            t0 = time.perf_counter()
            embedder.embed_queries([QUERIES[i % len(QUERIES)]])
            figures[backend]["query"].append((time.perf_counter() - t0) * 1000)
    texts = backfill_texts()
    for start in range(0, len(texts), batch):
        for backend, embedder in embedders.items():
            t0 = time.perf_counter()
            embedder.embed_passages(texts[start : start + batch])
            figures[backend]["batch_s"] += time.perf_counter() - t0
    for f in figures.values():
        f["query_p50_ms"] = statistics.median(f.pop("query"))
        f["per_s"] = len(texts) / f.pop("batch_s")
    return figures


def rss_child(backend: str) -> None:
    """Load, embed one sentence, print ``VmRSS`` and ``VmHWM`` in MB (this process)."""
    embedder = _load(backend)
    embedder.embed_queries(["They like pizza"])
    status = dict(
        line.split(":", 1) for line in open("/proc/self/status", encoding="ascii") if ":" in line
    )
    torch = "torch" in sys.modules
    print(f"{int(status['VmRSS'].split()[0]) / 1024:.0f} "
          f"{int(status['VmHWM'].split()[0]) / 1024:.0f}"
          f" {int(torch)} {type(embedder).__name__}")


def rss() -> None:
    """One fresh process per backend; prints resident and peak memory in MB."""
    for backend in BACKENDS:
        proc = subprocess.run(
            [sys.executable, "-m", "companion_desktop.memory.measure", "rss", "--child", backend],
            capture_output=True, text=True, timeout=300,
        )
        if proc.returncode != 0:
            print(f"  {backend}: failed: {proc.stderr.strip()[-300:]}")
            continue
        now, peak, torch, kind = proc.stdout.split()[-4:]
        print(f"  {backend:>21} ({kind}): VmRSS {now} MB, peak VmHWM {peak} MB, "
              f"torch imported: {bool(int(torch))}")


def main(argv: list[str]) -> int:
    if argv[:2] == ["rss", "--child"]:
        rss_child(argv[2])
        return 0
    what = argv[0] if argv else "all"
    if what in ("all", "speed"):
        print("embedding speed (all-MiniLM-L6-v2, CPU):")
        figures = speed((*BACKENDS, "numpy-blas-all"))
        for b, f in figures.items():
            print(f"  {b:>21}: load {f['load_s']:.2f} s, query p50 {f['query_p50_ms']:.1f} ms, "
                  f"512 sentences in batches of 32: {f['per_s']:.0f} sentences/s")
        new, old = figures["numpy"], figures["sentence-transformers"]
        print("  numpy / sentence-transformers: query p50 "
              f"x{new['query_p50_ms'] / old['query_p50_ms']:.2f}"
              f", throughput x{new['per_s'] / old['per_s']:.2f}")
    if what in ("all", "rss"):
        print("memory after loading and embedding one sentence (fresh process each):")
        rss()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
