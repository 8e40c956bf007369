"""The turn pipeline's own time per turn (``bench --only turns``): the real pipeline and a
real SQLite file, with an instant in-process provider so model time is excluded."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from companion_desktop.cli.bench.stats import percentile
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

    def stream_chat(self, system: str, messages: list[ChatMessage],
                    cancel: CancelToken | None = None) -> Iterator[str]:
        for start in range(0, len(self.reply), 12):
            yield self.reply[start : start + 12]

    def complete_json(self, system: str, messages: list[ChatMessage],
                      cancel: CancelToken | None = None) -> dict[str, Any]:
        return {}

    def list_models(self) -> list[str]:
        return ["instant"]

    def test_connection(self) -> str:
        return "instant provider"



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
