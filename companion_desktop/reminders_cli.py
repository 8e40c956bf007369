"""``companion-desktop reminders [--json]``: every reminder with its status.

Columns: id, text, trigger time (local zone), status: ``pending`` (not fired yet),
``fired`` (fired, not closed) or ``dismissed`` (fired and closed by the user).
"""

from __future__ import annotations

import argparse
from datetime import datetime

from companion_desktop.cli import print_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    reminders = sub.add_parser("reminders", help="list reminders (pending, fired, dismissed)")
    reminders.add_argument("--json", action="store_true",
                           help="print a JSON list (id, text, trigger_at, status)")


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
        with db.read_session() as session:
            rows = reminder_rows(store.all_reminders(session))
    finally:
        db.close()
    if args.json:
        print_json(rows)
    else:
        print(format_rows(rows))
    return 0
