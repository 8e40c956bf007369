"""What every command of the command line shares: the one-line error, ``--now``, JSON
output, text fit for a terminal and the character service. Below every command module;
imports nothing of them."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the pipeline loads with the command that needs it, not with the app's start
    from companion_desktop.pipeline.companion import CompanionService


#: Characters never written to a terminal: C0 controls but tab and newline (ESC starts
#: screen clears, cursor moves and OSC 52 clipboard writes; CR overwrites the line), DEL,
#: C1 controls (single-byte CSI/OSC on some terminals) and the bidirectional overrides
#: and isolates that make text read differently from what it is.
_TERMINAL_UNSAFE = dict.fromkeys(
    [*(c for c in range(0x20) if c not in (0x09, 0x0A)), *range(0x7F, 0xA0),
     0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)


def terminal_text(text: str) -> str:
    """``text`` fit for a terminal: every control character but newline and tab dropped,
    so an escape sequence from the model (or a server) shows as inert text."""
    return text.translate(_TERMINAL_UNSAFE)


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 1."""


def parse_now(text: str | None) -> datetime:
    """``--now`` as an aware datetime in the local zone; the real clock when absent."""
    if text is None:
        return datetime.now().astimezone()
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise CliError(f"--now: {text!r} is not an ISO-8601 date and time, "
                       "e.g. 2026-03-10T09:30") from None
    return value.astimezone()


def print_json(data: object) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def open_service(args: argparse.Namespace) -> CompanionService:
    """The character service over the database in ``--data-dir``."""
    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.paths import resolve_data_dir

    return CompanionService(Database.open(resolve_data_dir(args.data_dir)))


def saved_settings(data_dir: Path, section: Any) -> Any:
    """The settings ``section`` (a ``storage.settings`` class) as saved in ``data_dir``'s
    database, or its defaults when there is no database (none is created here)."""
    from companion_desktop.storage.paths import DB_FILENAME
    from companion_desktop.storage.settings import load_settings

    if not (data_dir / DB_FILENAME).is_file():
        return section()
    from companion_desktop.storage.db import Database

    db = Database.open(data_dir)
    try:
        with db.session() as session:
            return load_settings(session, section)
    finally:
        db.close()


def progress_line(fraction: float, text: str, shown: list[int] = [-1]) -> None:  # noqa: B006
    """A first-use preparation's progress on stderr, one line per tenth."""
    step = int(fraction * 10)
    if step != shown[0]:
        shown[0] = step
        print(terminal_text(text), file=sys.stderr, flush=True)
