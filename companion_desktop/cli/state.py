"""``companion-desktop state|relationship|mode|export|import``: her character and its save
file (the parser is in ``cli/__init__.py``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime

from companion_desktop.cli.common import CliError, open_service, print_json, terminal_text
from companion_desktop.engine.character import RELATIONSHIP_STATS, CharacterState
from companion_desktop.pipeline.companion import MODE_NAMES, STAGE_NAMES, stat_bar
from companion_desktop.storage import savefile
from companion_desktop.storage.db import Database
from companion_desktop.storage.paths import resolve_data_dir
from companion_desktop.storage.savefile_text import export_text, import_text


def cmd_state(args: argparse.Namespace, now: datetime) -> int:
    loaded = open_service(args).load(now)
    if args.json:
        print_json(savefile.character_to_json(loaded.state))
    else:
        print(terminal_text(format_state(loaded.state)))  # her mood causes came from the model
    return 0


def format_state(state: CharacterState) -> str:
    mood = state.mood
    causes = f" (because: {', '.join(mood.causes)})" if mood.causes else ""
    lines = [
        f"{state.name} · {MODE_NAMES[state.app_mode]}",
        f"Stage: {STAGE_NAMES[state.relationship_stage]}"
        + (f" (saved Dating Sim stage: {STAGE_NAMES[state.saved_dating_sim_stage]})"
           if state.saved_dating_sim_stage else ""),
        f"Mood: {mood.primary}, intensity {mood.intensity}/100{causes}",
        stat_bar("energy", state.energy),
    ]
    if state.app_mode == "dating_sim":
        lines.extend(stat_bar(stat, getattr(state, stat)) for stat in RELATIONSHIP_STATS)
    last = (state.last_interaction.astimezone().strftime("%Y-%m-%d %H:%M")
            if state.last_interaction else "never")
    lines.append(
        f"Known {state.days_known} day{'s' * (state.days_known != 1)} · "
        f"{state.total_interactions} interaction{'s' * (state.total_interactions != 1)} · "
        f"streak {state.current_streak} (longest {state.longest_streak}) · last talk {last}"
    )
    return "\n".join(lines)


def cmd_relationship(args: argparse.Namespace, now: datetime) -> int:
    service = open_service(args)
    if args.tracking:
        service.set_tracking(args.tracking == "on")
    if args.json:
        print_json(service.relationship(now))
    else:
        print(service.relationship_text(now))
    return 0


def cmd_mode(args: argparse.Namespace, now: datetime) -> int:
    state = open_service(args).set_mode(args.mode, now)
    print(f"{MODE_NAMES[state.app_mode]}; stage: {STAGE_NAMES[state.relationship_stage]}")
    return 0


def cmd_export(args: argparse.Namespace, now: datetime) -> int:
    db = Database.open(resolve_data_dir(args.data_dir))
    summary = savefile.write_save_file(db, args.file, now)
    print(export_text(summary))
    return 0


def cmd_import(args: argparse.Namespace, now: datetime) -> int:
    if not args.file.is_file():
        raise CliError(f"{args.file}: no such file")
    save = savefile.read_save_file(args.file)
    db = Database.open(resolve_data_dir(args.data_dir))
    summary = savefile.import_save(db, save, args.how, now)
    print(f"{args.file}: {import_text(summary)}")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace, datetime], int]] = {
    "state": cmd_state,
    "relationship": cmd_relationship,
    "mode": cmd_mode,
    "export": cmd_export,
    "import": cmd_import,
}


def run(args: argparse.Namespace, now: datetime) -> int:
    return COMMANDS[args.command](args, now)
