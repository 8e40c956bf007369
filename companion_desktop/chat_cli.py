"""``companion-desktop chat``: headless turns through the same pipeline as the window."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from companion_desktop.cli import CliError
from companion_desktop.llm.base import LlmError
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.provider_setup import Overrides, ProviderNotReady, open_provider, provider_config
from companion_desktop.pipeline.runner import TurnResult, TurnRunner
from companion_desktop.storage import savefile
from companion_desktop.storage.settings import LlmSettings, load_settings


class _Printer:
    """Streams the visible reply to stdout (human mode)."""

    def __init__(self) -> None:
        self.shown = 0

    def set_phase(self, phase: str) -> None:
        pass

    def on_text(self, visible: str) -> None:
        if len(visible) > self.shown and visible.startswith(visible[: self.shown]):
            sys.stdout.write(visible[self.shown:])
            sys.stdout.flush()
            self.shown = len(visible)


def _messages(args: argparse.Namespace) -> Iterator[str]:
    if args.message:
        yield from args.message
        return
    for line in sys.stdin:
        if line.strip():
            yield line.rstrip("\n")


def emit(data: dict[str, Any]) -> None:
    """One JSON object per line (JSON Lines), flushed so a reader sees each turn at once."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def result_json(result: TurnResult) -> dict[str, Any]:
    return {
        "reply": result.reply,
        "state": savefile.character_to_json(result.state),
        "applied": result.applied,
        "stage": result.stage,
        "stageChanged": result.stage_changed,
        "strain": result.strain,
        "mood": {"primary": result.mood.primary, "intensity": result.mood.intensity,
                 "causes": list(result.mood.causes)},
        "newMemory": result.new_memory,
        "usedExtraction": result.used_extraction,
        "events": result.events,
        "reminders": result.reminders,
    }


def run_chat(args: argparse.Namespace, now: datetime, service: CompanionService) -> int:
    fixed = now if args.now else None

    def clock() -> datetime:
        return fixed or datetime.now().astimezone()

    with service.db.read_session() as session:
        settings = load_settings(session, LlmSettings)
    try:
        config = provider_config(settings, Overrides(args.provider, args.base_url, args.model))
        provider = open_provider(config)
    except (ProviderNotReady, LlmError) as error:
        raise CliError(str(error)) from None
    runner = TurnRunner(service, provider, clock)
    try:
        for message in _messages(args):
            if message.strip() == "/relationship":
                print(service.relationship_text(clock()))
                continue
            printer = None if args.json else _Printer()
            try:
                result = runner.run(message, printer)
            except LlmError as error:
                if args.json:
                    emit({"error": str(error), "retryable": error.retryable})
                else:
                    print(f"companion-desktop: {error}", file=sys.stderr)
                return 1
            if args.json:
                emit(result_json(result))
            else:
                sys.stdout.write("\n")
    finally:
        runner.close()
    return 0
