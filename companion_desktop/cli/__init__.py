"""Command-line entry: the app by default, headless subcommands otherwise.

Global options go before the subcommand: ``--data-dir DIR`` (default: the
platform's user data folder, or ``$COMPANION_DATA_DIR``) and ``--now ISO-8601``
(the clock for every time-based rule). Exit status: 0 ok, 1 a refused operation
or an unusable database (the message says why), 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import CliError, parse_now, print_json, terminal_text

__all__ = ["CliError", "build_parser", "main", "parse_now", "print_json", "use_utf8_streams"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion-desktop",
        description="A desktop AI companion. With no command, opens the app.",
    )
    from companion_desktop.version import VersionAction  # the installed metadata, when asked

    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("--data-dir", metavar="DIR", help="folder for the database and files")
    parser.add_argument("--now", metavar="ISO-8601", help="use this time as the current time")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    state = sub.add_parser("state", help="show her state (time decay is resolved first)")
    state.add_argument("--json", action="store_true", help="print JSON with the spec's field names")

    rel = sub.add_parser("relationship", help="show the relationship card")
    rel.add_argument("--json", action="store_true", help="print JSON")
    rel.add_argument("--tracking", choices=("on", "off"),
                     help="turn relationship tracking on or off")

    mode = sub.add_parser("mode", help="switch between Companion Mode and Dating Sim Mode")
    mode.add_argument("mode", choices=("companion", "dating_sim"))

    chat = sub.add_parser("chat", help="talk to her headless, through the real turn pipeline")
    chat.add_argument("--provider", help="provider id, e.g. ollama, openai, anthropic, google")
    chat.add_argument("--base-url", help="API root, including /v1 where the provider has one")
    chat.add_argument("--model", help="model name")
    said = chat.add_mutually_exclusive_group()
    said.add_argument("--message", action="append",
                      help="a message to send (repeatable); without it, one message per line "
                           "of stdin")
    said.add_argument("--audio", metavar="FILE",
                      help="say it: each utterance in this recording (WAV, FLAC, MP3) is heard "
                           "as from the microphone and sent as one turn")
    chat.add_argument("--json", action="store_true", help="print one JSON object per turn")
    chat.add_argument("--image", metavar="PATH",
                      help="show her this photo with the first message (alone when no message)")
    chat.add_argument("--screen", choices=("active", "full"),
                      help="show her your screen with the first message: the active window or "
                           "the whole screen (X11; the privacy deny-list applies; you are "
                           "asked before it is sent)")
    chat.add_argument("--yes", action="store_true",
                      help="with --screen: send the picture without asking first")
    chat.add_argument("--keep", action="store_true",
                      help="with --screen: keep the picture on the photoboard like a photo")

    bench = sub.add_parser("bench", help="print benchmark figures (never fails on timing)")
    bench.add_argument("--turns", type=int, default=200, help="turns to time (default 200)")
    bench.add_argument("--only", action="append", metavar="SECTION",
                       help="run only these sections (repeatable or comma-separated): turns, "
                            "memory, media, avatar, edges (antialiasing without a GPU), peer (our "
                            "renderer beside three-vrm), cost "
                            "(the app's CPU, memory and frames; a local model beside her), voice "
                            "(speech to text and her first audio), mind (her own mind: tokens/s, "
                            "first text, memory, beside her, a quality check)")
    bench.add_argument("--peer-install", action="store_true",
                       help="copy the three-vrm harness to the user cache and run npm there "
                            "(once; the peer section uses it afterwards)")
    bench.add_argument("--mind-model", metavar="ID",
                       help="the model the mind section runs (qwen2.5-1.5b, smollm2-135m; "
                            "default: the preferred installed one)")

    from companion_desktop.cli.avatar import add_parser as add_avatar_parser

    add_avatar_parser(sub)

    from companion_desktop.cli.animations import add_parser as add_animations_parser

    add_animations_parser(sub)

    from companion_desktop.cli.facts import add_parser as add_facts_parser

    add_facts_parser(sub)

    from companion_desktop.cli.reminders import add_parser as add_reminders_parser

    add_reminders_parser(sub)

    from companion_desktop.cli.backup import add_parser as add_backup_parser

    add_backup_parser(sub)

    from companion_desktop.cli.transcribe import add_parser as add_transcribe_parser

    add_transcribe_parser(sub)

    from companion_desktop.cli.speak import add_parser as add_speak_parser

    add_speak_parser(sub)

    from companion_desktop.cli.character import add_parser as add_character_parser

    add_character_parser(sub)

    export = sub.add_parser("export", help="write a save file (version 2.0)")
    export.add_argument("file", type=Path)

    imp = sub.add_parser("import", help="read a save file")
    imp.add_argument("file", type=Path)
    how = imp.add_mutually_exclusive_group(required=True)
    how.add_argument("--merge", dest="how", action="store_const", const="merge",
                     help="add what is new, keep what is here")
    how.add_argument("--replace", dest="how", action="store_const", const="replace",
                     help="replace everything here with the file's contents")
    return parser


def use_utf8_streams() -> None:
    """Read and write the terminal in UTF-8 whatever the locale (a Windows console's code
    page cannot show her replies); unencodable characters become replacements, not errors."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if reconfigure is not None and encoding != "utf8":
            reconfigure(encoding="utf-8", errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    use_utf8_streams()
    args = build_parser().parse_args(argv)
    try:
        now = parse_now(args.now)
        if args.command is None:
            from companion_desktop.app import run_gui

            return run_gui(args.data_dir, now if args.now else None, end_process=True)
        return handler(args.command)(args, now)
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if not _user_error(exc):
            raise
        print(terminal_text(f"companion-desktop: {exc}"), file=sys.stderr)  # names files
        return 1


#: Modules whose error classes are printed as one line (exit status 1). They are looked up
#: once raised, not imported here: the app's start must not wait for the save-file schema.
_USER_ERRORS = (
    ("companion_desktop.storage.errors", "StorageError"),
    ("companion_desktop.storage.savefile_schema", "SaveFileError"),
)


def _user_error(exc: BaseException) -> bool:
    """A CliError, StorageError or SaveFileError (a module not yet imported raised none)."""
    if isinstance(exc, CliError):
        return True
    for module, name in _USER_ERRORS:
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return True
    return False


Handler = Callable[[argparse.Namespace, datetime], int]
#: The commands of cli/state.py (the character and her save file).
STATE_COMMANDS = frozenset({"state", "relationship", "mode", "export", "import"})


def handler(command: str) -> Handler:
    """The function that runs ``command``; its module is imported now, when it is used
    (the app's start must not wait for the pipeline)."""
    if command in STATE_COMMANDS:
        from companion_desktop.cli.state import run
    elif command == "chat":
        from companion_desktop.cli.chat import run
    elif command == "bench":
        from companion_desktop.cli.bench import run
    elif command == "avatar":
        from companion_desktop.cli.avatar import run
    elif command == "animations":
        from companion_desktop.cli.animations import run
    elif command == "facts":
        from companion_desktop.cli.facts import run
    elif command == "reminders":
        from companion_desktop.cli.reminders import run
    elif command == "backup":
        from companion_desktop.cli.backup import run
    elif command == "transcribe":
        from companion_desktop.cli.transcribe import run
    elif command == "speak":
        from companion_desktop.cli.speak import run
    elif command == "character":
        from companion_desktop.cli.character import run
    else:
        raise CliError(f"unknown command {command!r}")
    return run
