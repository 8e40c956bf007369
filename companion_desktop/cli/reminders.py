"""``companion-desktop reminders [--json] [--fire]``: every reminder with its status.

Columns: id, text, trigger time (local zone), status: ``pending`` (not fired yet),
``fired`` (fired, not closed) or ``dismissed`` (fired and closed by the user).

``--fire`` fires what is due now through the configured model, exactly as the
window's poller does (``ReminderService.fire``: claimed, then her reply and the
executed mark in one transaction), e.g. from a scheduler while the app is closed.
One line per reminder (with ``--json`` an object ``{id, text, status, reply}``):
status ``fired``, ``pending`` (the model call failed; it stays due; exit status 1)
or ``elsewhere`` (the app or another process fired it meanwhile).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from companion_desktop.cli.common import CliError, print_json, terminal_text


def add_parser(sub: argparse._SubParsersAction) -> None:
    reminders = sub.add_parser("reminders", help="list reminders (pending, fired, dismissed)")
    reminders.add_argument("--json", action="store_true",
                           help="print a JSON list (id, text, trigger_at, status); with --fire, "
                                "one JSON object per reminder fired (id, text, status, reply)")
    reminders.add_argument("--fire", action="store_true",
                           help="fire the reminders that are due now through the language model")
    reminders.add_argument("--provider", help="with --fire: provider id (default: the saved one)")
    reminders.add_argument("--base-url", help="with --fire: API root, including /v1 where needed")
    reminders.add_argument("--model", help="with --fire: model name")


def status_of(record: object) -> str:
    if getattr(record, "dismissed", False):
        return "dismissed"
    if getattr(record, "executed", False):
        return "fired"
    return "pending"


def reminder_rows(records: list) -> list[dict[str, object]]:
    return [
        {"id": r.id, "text": r.content,
         "trigger_at": r.trigger_at.astimezone().isoformat(timespec="seconds"),
         "status": status_of(r)}
        for r in records
    ]


def format_rows(rows: list[dict[str, object]]) -> str:
    if not rows:
        return "No reminders."
    id_width = max(2, max(len(str(r["id"])) for r in rows))
    lines = [f"{'id':>{id_width}}  {'when':<19}  {'status':<9}  text"]
    for r in rows:
        when = datetime.fromisoformat(str(r["trigger_at"])).strftime("%Y-%m-%d %H:%M:%S")
        lines.append(f"{r['id']:>{id_width}}  {when:<19}  {r['status']:<9}  {r['text']}")
    return "\n".join(lines)


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    from companion_desktop.storage import reminders as store
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.paths import resolve_data_dir

    db = Database.open(resolve_data_dir(args.data_dir))
    try:
        if args.fire:
            return fire_due(args, db, now if args.now else None)
        with db.read_session() as session:
            rows = reminder_rows(store.all_reminders(session))
    finally:
        db.close()
    if args.json:
        print_json(rows)
    else:
        print(terminal_text(format_rows(rows)))  # her reminders' text came from the model
    return 0


def fire_due(args: argparse.Namespace, db: Any, fixed: datetime | None) -> int:
    from companion_desktop.llm.base import LlmError
    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.pipeline.provider_setup import (
        Overrides,
        ProviderNotReady,
        open_provider,
        provider_config,
    )
    from companion_desktop.pipeline.reminders import ReminderService
    from companion_desktop.pipeline.runner import TurnRunner
    from companion_desktop.storage.settings import LlmSettings, load_settings

    def clock() -> datetime:
        return fixed or datetime.now().astimezone()

    reminders = ReminderService(db, clock)
    due = reminders.due()
    if not due:
        if not args.json:
            print("Nothing is due.")
        return 0
    with db.read_session() as session:
        settings = load_settings(session, LlmSettings)
    try:
        provider = open_provider(
            provider_config(settings, Overrides(args.provider, args.base_url, args.model)))
    except (ProviderNotReady, LlmError) as error:
        raise CliError(terminal_text(str(error))) from None
    runner = TurnRunner(CompanionService(db), provider, clock)
    failed = 0
    try:
        for record in due:
            result = reminders.fire(record, runner)
            if result is not None:
                status = "fired"
            elif any(r.id == record.id for r in reminders.due()):
                status = "pending"  # the model call failed: it stays due
                failed += 1
            else:
                status = "elsewhere"  # another process fired it or is firing it
            _report(args.json, record.id, record.content, status, result.reply if result else None)
    finally:
        runner.close()
    return 1 if failed else 0


_SAID = {"pending": "not fired (still due)", "elsewhere": "fired by another process"}


def _report(as_json: bool, reminder_id: int, text: str, status: str, reply: str | None) -> None:
    if as_json:
        line = json.dumps({"id": reminder_id, "text": text, "status": status, "reply": reply},
                          ensure_ascii=False)
    else:
        line = terminal_text(f"⏰ {text}: {reply or _SAID.get(status, '')}")
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
