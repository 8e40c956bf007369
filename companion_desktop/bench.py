"""``companion-desktop bench``: figures, never pass/fail.

Turn: the app's own time per turn through the real pipeline and a real SQLite
file, with an instant in-process provider so model time is excluded.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from companion_desktop.llm.base import CancelToken, ChatMessage, ProviderConfig

REPLY = (
    "That sounds lovely! Tell me more about it?\n"
    '```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5}, "affection_delta": 3, '
    '"trust_delta": 1, "intimacy_delta": 1, "comfort_delta": 1, "new_memory": null, '
    '"triggered_event": null, "expression": "happy"}\n```'
)
MESSAGES = (
    "I went hiking today and saw the most amazing view, thank you for asking!",
    "Work was stressful, my manager keeps changing the plan.",
    "What do you think about learning to paint?",
    "I'm learning Japanese, 毎日少しずつ勉強しています。",
    "ok",
)


class InstantProvider:
    """Replies at once with a canned answer split into small chunks (no network)."""

    id = "instant"

    def __init__(self, reply: str = REPLY) -> None:
        self.config = ProviderConfig("instant", "in-process", "instant")
        self.reply = reply

    def stream_chat(self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None) -> Iterator[str]:
        for start in range(0, len(self.reply), 12):
            yield self.reply[start : start + 12]

    def complete_json(self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None) -> dict[str, Any]:
        return {}

    def list_models(self) -> list[str]:
        return ["instant"]

    def test_connection(self) -> str:
        return "instant provider"


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def bench_turns(turns: int = 200, report: Callable[[str], None] = print) -> dict[str, float]:
    """Time ``turns`` turns through TurnRunner; returns the figures in milliseconds."""
    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.pipeline.runner import TurnRunner
    from companion_desktop.storage.db import Database

    start = datetime(2026, 3, 10, 9, 0).astimezone()
    clock_now = [start]
    with tempfile.TemporaryDirectory() as folder:
        db = Database.open(Path(folder))
        runner = TurnRunner(CompanionService(db), InstantProvider(), lambda: clock_now[0])
        times: list[float] = []
        for i in range(turns):
            clock_now[0] = start + timedelta(minutes=3 * i)
            t0 = time.perf_counter()
            runner.run(MESSAGES[i % len(MESSAGES)])
            times.append((time.perf_counter() - t0) * 1000)
        runner.close()
        db.close()
    figures = {
        "turns": float(turns),
        "p50_ms": statistics.median(times),
        "p95_ms": percentile(times, 95),
        "max_ms": max(times),
        "mean_ms": statistics.fmean(times),
    }
    report(
        f"turn pipeline, app time per turn (instant provider, {turns} turns, real SQLite): "
        f"p50 {figures['p50_ms']:.2f} ms, p95 {figures['p95_ms']:.2f} ms, "
        f"max {figures['max_ms']:.2f} ms (aim: p95 < 15 ms)"
    )
    return figures


def _avatar_models() -> list[tuple[str, Path]]:
    from companion_desktop.resources import default_avatar_path

    from companion_desktop.bench_peer import shared_dir

    models = [("Hana (default)", default_avatar_path())]
    godette = shared_dir() / "assets" / "vrm0" / "Godette_vrm_v4.vrm"
    models.append(("Godette", godette))
    return [(name, path) for name, path in models if path.is_file()]


def bench_avatar_update(path: Path, frames: int = 300, report: Callable[[str], None] = print,
                        aim_ms: float = 1.0) -> dict[str, float]:
    """Per-frame CPU update of the runtime in the three-vrm peer's workload (idle clip,
    blink, ``happy`` at 0.5, a moving look-at target, dt 1/60, springs at 60 Hz), split by
    stage, in milliseconds."""
    from companion_desktop.avatar.animation.workload import twin_update_workload

    stages: dict[str, list[float]] = {}
    whole = twin_update_workload(path, frames, stages=stages)
    figures = {name: statistics.median(values) for name, values in stages.items()}
    parts = ", ".join(f"{name} {ms:.3f}" for name, ms in figures.items())
    figures["update_p50"] = statistics.median(whole)
    figures["update_p95"] = percentile(whole, 95)
    report(f"  CPU update per frame (the peer's workload): p50 {figures['update_p50']:.2f} ms, "
           f"p95 {figures['update_p95']:.2f} ms (aim <= {aim_ms:g} ms); by stage (median ms): {parts}")
    return figures

def bench_avatar_frame(path: Path, frames: int = 20, report: Callable[[str], None] = print) -> None:
    """Full frame: update + draw + read back at 512x768 (llvmpipe here: no GPU)."""
    import random

    from companion_desktop.avatar.render.context import RenderUnavailable
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.relaxed import relaxed_pose
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime
    from companion_desktop.offscreen_gl import use_available_context

    use_available_context()
    model = load_model(path)
    runtime = AvatarRuntime(model, random.Random(0), animation=relaxed_pose)
    for samples in (0, 4):
        try:
            renderer = OffscreenRenderer(samples=samples)
        except RenderUnavailable as error:
            report(f"  full frame: no OpenGL context here ({error})")
            return
        with renderer:
            renderer.render(model, runtime.update(1 / 30), 512, 768)
            times = []
            for _ in range(frames):
                t0 = time.perf_counter()
                renderer.render(model, runtime.update(1 / 30), 512, 768)
                times.append((time.perf_counter() - t0) * 1000)
        report(f"  full frame 512x768 (update + draw + readback, {samples}x MSAA): "
               f"p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 95):.1f} ms")


def bench_animation(path: Path, frames: int = 600, report: Callable[[str], None] = print) -> None:
    """Per-frame cost of sampling one clip plus the mixer, written into the pose."""
    import random

    from companion_desktop.avatar.animation.library import AnimationLibrary
    from companion_desktop.avatar.animation.mixer import AnimationDriver
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.pose import Pose

    model = load_model(path)
    library = AnimationLibrary()
    idles = library.builtin_idle_ids
    if not idles:
        report("  animation: no built-in clips found")
        return
    driver = AnimationDriver()
    pose = Pose(model)
    driver.mixer.play_base(library.get(idles[0]), fade=0.0)
    for i in range(60):
        driver(pose, 1 / 30, i / 30)
    steady, fading = [], []
    for i in range(frames):
        if i == frames // 2 and len(idles) > 1:
            driver.mixer.play_base(library.get(idles[1]), fade=5.0)  # a long cross-fade
            if library.emote_ids:
                driver.mixer.play_emote(library.get(library.emote_ids[0]))
        t0 = time.perf_counter()
        driver(pose, 1 / 30, i / 30)
        (steady if i < frames // 2 else fading).append((time.perf_counter() - t0) * 1000)
    joints = len(model.skins[0].joints) if model.skins else 0
    report(f"  animation per frame ({joints}-joint skin): one clip + mixer p50 "
           f"{statistics.median(steady):.3f} ms; cross-fade + emote p50 {statistics.median(fading):.3f} ms, "
           f"p95 {percentile(fading, 95):.3f} ms (aim < 0.5 ms)")


def bench_memory(report: Callable[[str], None] = print) -> None:
    """Retrieval over 500, 10,000 and 100,000 facts (query embedding apart), and backfill."""
    from companion_desktop.memory.index import FactIndex
    from companion_desktop.memory.retrieval import (
        CANDIDATE_POOL,
        RELEVANT_MIN_SIMILARITY,
        RELEVANT_W_IMP,
        RELEVANT_W_SIM,
    )

    rng = np.random.default_rng(0)
    for n in (500, 10_000, 100_000):
        vectors = rng.standard_normal((n, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index = FactIndex(384)
        index.set_all(list(range(n)), vectors, rng.uniform(0, 100, n).tolist())
        query = vectors[7] * 0.8 + vectors[9] * 0.2
        query /= np.linalg.norm(query)
        for label, candidates in (("all facts", None), (f"{CANDIDATE_POOL} most important", CANDIDATE_POOL)):
            times = []
            for _ in range(30):
                t0 = time.perf_counter()
                index.search(query, limit=10, min_similarity=RELEVANT_MIN_SIMILARITY,
                             w_sim=RELEVANT_W_SIM, w_imp=RELEVANT_W_IMP, candidates=candidates)
                times.append((time.perf_counter() - t0) * 1000)
            report(f"  retrieval over {n:>7,} facts ({label}): p50 {statistics.median(times):.2f} ms, "
                   f"p95 {percentile(times, 95):.2f} ms (aim: 100,000 in < 10 ms)")
    try:
        from companion_desktop.memory.backfill import backfill
        from companion_desktop.memory.embeddings import EmbedderUnavailable, load_embedder, resolve_model

        t0 = time.perf_counter()
        embedder = load_embedder(resolve_model())
        report(f"  embedding model {embedder.model_name}: loaded in {time.perf_counter() - t0:.1f} s")
    except (ImportError, EmbedderUnavailable) as error:
        report(f"  embedding model: not available ({error}); query and backfill figures skipped")
        return
    embedder.embed(["warm up"])
    times = []
    for text in ("where did I grow up?", "what is my cat called", "do you remember our trip?") * 5:
        t0 = time.perf_counter()
        embedder.embed([text])
        times.append((time.perf_counter() - t0) * 1000)
    report(f"  query embedding: p50 {statistics.median(times):.1f} ms (apart from retrieval)")
    items = [(i, f"They mentioned detail number {i} about their day, their work and their family")
             for i in range(512)]
    t0 = time.perf_counter()
    count = sum(1 for _ in backfill(embedder, items, batch=32))
    elapsed = time.perf_counter() - t0
    report(f"  backfill: {count} facts in {elapsed:.2f} s = {count / elapsed:.0f} facts/s (batches of 32)")


def _avatar_section() -> None:
    for name, path in _avatar_models():
        print(f"avatar: {name}")
        bench_avatar_update(path, aim_ms=1.0 if "Hana" in name else 0.5)
        bench_animation(path)
        bench_avatar_frame(path)


#: ``bench --only`` choices, in the order a full run prints them.
SECTIONS = ("turns", "memory", "media", "avatar", "peer", "cost", "voice")


def parse_sections(only: list[str] | None) -> list[str]:
    """``--only`` values (repeatable, comma-separated) as sections in run order; raises
    ``CliError`` naming the choices for an unknown one."""
    from companion_desktop.cli import CliError

    if not only:
        return list(SECTIONS)
    asked = {part.strip().lower() for item in only for part in item.split(",") if part.strip()}
    unknown = sorted(asked - set(SECTIONS))
    if unknown or not asked:
        named = ", ".join(map(repr, unknown)) or "(none given)"
        raise CliError(f"bench --only: unknown section {named}; choose from {', '.join(SECTIONS)}")
    return [name for name in SECTIONS if name in asked]


def run_bench(turns: int = 200, only: list[str] | None = None, peer_install: bool = False) -> int:
    sections = parse_sections(only)
    print("companion-desktop bench: figures only; timing never fails anything")
    for section in sections:
        if section == "turns":
            bench_turns(turns)
        elif section == "memory":
            print("memory:")
            bench_memory()
            from companion_desktop.bench_memory import run_memory_quality

            run_memory_quality()
        elif section == "media":
            from companion_desktop.bench_media import run_media_bench

            run_media_bench()
        elif section == "avatar":
            _avatar_section()
        elif section == "peer":
            from companion_desktop.bench_peer import run_peer_bench

            run_peer_bench(install=peer_install)
        elif section == "cost":
            from companion_desktop.bench_cost import run_cost_bench

            run_cost_bench()
        elif section == "voice":
            from companion_desktop.bench_voice import run_voice_bench

            run_voice_bench()
    return 0
