"""``companion-desktop chat``: headless turns through the same pipeline as the window."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion_desktop.cli.common import CliError, open_service, terminal_text
from companion_desktop.llm.base import LlmError
from companion_desktop.llm.vision import can_show_images
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.image_privacy import photo_notice
from companion_desktop.pipeline.images import ImageRefused, PreparedImage, prepare_image_file
from companion_desktop.pipeline.provider_setup import (
    Overrides,
    ProviderNotReady,
    configure_mind,
    open_provider,
    provider_config,
)
from companion_desktop.pipeline.runner import SHOW_ONLY_TEXT, TurnResult, TurnRunner
from companion_desktop.pipeline.tool_access import ToolAccess
from companion_desktop.storage import savefile
from companion_desktop.storage.settings import HearingSettings, LlmSettings, load_settings

if TYPE_CHECKING:
    from companion_desktop.voice.stt import Transcript


class _Printer:
    """Streams the visible reply to stdout (human mode), without control characters."""

    def __init__(self) -> None:
        self.shown = 0

    def set_phase(self, phase: str) -> None:
        pass

    def on_text(self, visible: str) -> None:
        if len(visible) > self.shown:
            sys.stdout.write(terminal_text(visible[self.shown:]))
            sys.stdout.flush()
            self.shown = len(visible)


def _messages(args: argparse.Namespace) -> Iterator[str]:
    if args.message:
        yield from args.message
        return
    if getattr(args, "image", None) or getattr(args, "screen", None):  # a picture alone
        yield SHOW_ONLY_TEXT
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
        "speech": [{"text": p.text, "rate": p.rate, "pitch": p.pitch} for p in result.speech],
        "keepsake": ({"id": result.keepsake.id, "path": str(result.keepsake.image_path),
                      "note": result.keepsake.note} if result.keepsake else None),
        "toolCalls": result.tool_calls,
    }


def run(args: argparse.Namespace, now: datetime) -> int:
    return run_chat(args, now, open_service(args))


def run_chat(args: argparse.Namespace, now: datetime, service: CompanionService) -> int:
    fixed = now if args.now else None

    def clock() -> datetime:
        return fixed or datetime.now().astimezone()

    with service.db.read_session() as session:
        settings = load_settings(session, LlmSettings)
    configure_mind(service.db.path.parent, settings)  # used only by the built-in provider
    try:
        config = provider_config(settings, Overrides(args.provider, args.base_url, args.model))
        provider = open_provider(config)
    except (ProviderNotReady, LlmError) as error:
        raise CliError(terminal_text(str(error))) from None
    image = _prepared(args.image) if getattr(args, "image", None) else None
    if getattr(args, "screen", None):
        from companion_desktop.cli.chat_screen import screen_picture

        image = screen_picture(service, args.screen, keep=args.keep, ask=not args.yes)
    heard = _heard(args.audio, service) if getattr(args, "audio", None) else None
    tools = ToolAccess(service.db)  # the MCP servers of Settings > Tools, as in the window
    runner = TurnRunner(service, provider, clock, tools=tools)
    try:
        for message, transcript in _turns(args, heard):
            if transcript is None and message.strip() == "/relationship":
                print(terminal_text(service.relationship_text(clock())))
                continue
            printer = None if args.json else _Printer()
            notice = _notice(service, config) if image is not None else None
            if notice and not args.json:
                print(terminal_text(notice), file=sys.stderr)
            if transcript is not None and not args.json:
                print(f"(heard) {terminal_text(message)}", file=sys.stderr, flush=True)
            try:
                result = runner.run(message, printer, image=image)
            except LlmError as error:
                if args.json:
                    emit({"error": str(error), "retryable": error.retryable})
                else:
                    shown = terminal_text(str(error))
                    print(f"companion-desktop: {shown}", file=sys.stderr)
                return 1
            image = None  # the photo goes with the first message only
            if args.json:
                emit({**result_json(result), **({"notice": notice} if notice else {}),
                      **({"heard": heard_json(transcript)} if transcript else {})})
            else:
                sys.stdout.write("\n")
    finally:
        runner.close()
        tools.close()
    return 0


def _turns(args: argparse.Namespace,
           heard: list[Transcript] | None) -> Iterator[tuple[str, Transcript | None]]:
    """(message, what was heard) per turn: the spoken ones with ``--audio``, else typed."""
    if heard is not None:
        yield from ((transcript.text.strip(), transcript) for transcript in heard)
    else:
        yield from ((message, None) for message in _messages(args))


def heard_json(transcript: Transcript) -> dict[str, Any]:
    return {"text": transcript.text.strip(), "language": transcript.language,
            "seconds": round(transcript.seconds, 3),
            "audioSeconds": round(transcript.audio_seconds, 3), "backend": transcript.backend}


def _heard(path: str, service: CompanionService) -> list[Transcript]:
    """The spoken turns in the audio file at ``path``, heard and recognised as the
    microphone's are (Settings > Voice > Hearing; hands-free); CliError when it cannot be
    read, recognition cannot run, or nobody speaks in it (then nothing is sent or saved)."""
    from companion_desktop.pipeline.hearing import recognise_recording
    from companion_desktop.voice.audio import AudioFileError, load_audio
    from companion_desktop.voice.stt import SttError
    from companion_desktop.voice.vad import VadUnavailable

    with service.db.read_session() as session:
        settings = load_settings(session, HearingSettings)
    shown: list[int] = []

    def progress(fraction: float, text: str) -> None:  # the model's first-use assembly
        if not shown or int(fraction * 10) != shown[-1]:
            shown.append(int(fraction * 10))
            print(terminal_text(text), file=sys.stderr, flush=True)

    try:
        heard = recognise_recording(load_audio(path), settings,
                                    Path(service.db.path).parent / "cache", progress)
    except (AudioFileError, SttError, VadUnavailable) as error:
        raise CliError(terminal_text(str(error))) from None
    if not heard:
        raise CliError(f"No speech was heard in {terminal_text(str(path))}; nothing was sent.")
    return heard


def _prepared(path: str) -> PreparedImage:
    try:
        return prepare_image_file(path)
    except ImageRefused as error:
        raise CliError(str(error)) from None


def _notice(service: CompanionService, config: object) -> str | None:
    """The first-photo privacy notice, shown once per provider like the window does
    (not spent on a model that cannot see the photo anyway)."""
    if not can_show_images(config.provider_id, config.model):  # type: ignore[attr-defined]
        return None
    return photo_notice(service.db, config.provider_id, config.base_url)  # type: ignore[attr-defined]
