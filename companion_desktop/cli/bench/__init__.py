"""``companion-desktop bench``: figures, never pass/fail. Each section is its own module
(turns, recall, media, avatar, edges, peer, cost, voice, mind), imported when it runs."""

from __future__ import annotations

import argparse
from datetime import datetime

from companion_desktop.cli.common import CliError

#: ``bench --only`` choices, in the order a full run prints them.
SECTIONS = ("turns", "memory", "media", "avatar", "edges", "peer", "cost", "voice", "mind")


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


def run_bench(turns: int = 200, only: list[str] | None = None, peer_install: bool = False,
              mind_model: str | None = None, data_dir: str | None = None) -> int:
    """The sections asked for, in order. ``mind_model``: the model of the mind section (None:
    the preferred installed one); ``data_dir``: a data folder whose cache may hold her
    joined model already (``--data-dir``)."""
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
        elif section == "edges":
            from companion_desktop.cli.bench.edges import run_edges_bench

            run_edges_bench()
        elif section == "peer":
            from companion_desktop.cli.bench.peer import run_peer_bench

            run_peer_bench(install=peer_install)
        elif section == "cost":
            from companion_desktop.cli.bench.cost import run_cost_bench

            run_cost_bench()
        elif section == "voice":
            from companion_desktop.cli.bench.voice import run_voice_bench

            run_voice_bench()
        elif section == "mind":
            from companion_desktop.cli.bench.mind import run_mind_bench

            run_mind_bench(mind_model, data_dir)
    return 0


def run(args: argparse.Namespace, now: datetime) -> int:
    """``companion-desktop bench``: the clock plays no part in the figures."""
    return run_bench(max(1, args.turns), args.only, args.peer_install,
                     getattr(args, "mind_model", None), getattr(args, "data_dir", None))
