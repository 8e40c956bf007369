"""``companion-desktop bench``: figures, never pass/fail. Each section is its own module
(turns, recall, media, avatar, peer, cost, voice), imported when it runs."""

from __future__ import annotations

import argparse
from datetime import datetime

from companion_desktop.cli.common import CliError

#: ``bench --only`` choices, in the order a full run prints them.
SECTIONS = ("turns", "memory", "media", "avatar", "peer", "cost", "voice")


def parse_sections(only: list[str] | None) -> list[str]:
    """``--only`` values (repeatable, comma-separated) as sections in run order; raises
    ``CliError`` naming the choices for an unknown one."""
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
            from companion_desktop.cli.bench.turns import bench_turns

            bench_turns(turns)
        elif section == "memory":
            from companion_desktop.cli.bench.memory import run_memory_quality
            from companion_desktop.cli.bench.recall import bench_memory

            print("memory:")
            bench_memory()
            run_memory_quality()
        elif section == "media":
            from companion_desktop.cli.bench.media import run_media_bench

            run_media_bench()
        elif section == "avatar":
            from companion_desktop.cli.bench.avatar import run_avatar_bench

            run_avatar_bench()
        elif section == "peer":
            from companion_desktop.cli.bench.peer import run_peer_bench

            run_peer_bench(install=peer_install)
        elif section == "cost":
            from companion_desktop.cli.bench.cost import run_cost_bench

            run_cost_bench()
        elif section == "voice":
            from companion_desktop.cli.bench.voice import run_voice_bench

            run_voice_bench()
    return 0


def run(args: argparse.Namespace, now: datetime) -> int:
    """``companion-desktop bench``: the clock plays no part in the figures."""
    return run_bench(max(1, args.turns), args.only, args.peer_install)
