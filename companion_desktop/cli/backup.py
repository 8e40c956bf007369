"""``companion-desktop backup create|list|restore|review``: full backups of the data folder.

``restore`` refuses while the app is running on the folder (the database is open
there): quit it first, or restore from Settings > Data in the app, which swaps the
backup in when it next starts. A restore brings tool servers back turned off and holds
the key addresses it changed (``storage.restore_trust``); it says so, and ``review``
lists what is still waiting (``--confirm`` confirms the addresses).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import print_json, terminal_text
from companion_desktop.storage.backup_text import made_text, size_text, when_text
from companion_desktop.storage.paths import resolve_data_dir


def add_parser(sub: argparse._SubParsersAction) -> None:
    backup = sub.add_parser(
        "backup", help="make, list and restore full backups (database, photos, clips, model)")
    actions = backup.add_subparsers(dest="backup_command", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="write a backup archive (zip)")
    create.add_argument("file", nargs="?", type=Path,
                        help="where to write it (default: the data folder's backups/)")
    listing = actions.add_parser("list", help="the backups in the data folder's backups/")
    listing.add_argument("--json", action="store_true", help="print JSON")
    restore = actions.add_parser(
        "restore", help="replace everything here with a backup (the app must not be running)")
    restore.add_argument("file", type=Path)
    review = actions.add_parser(
        "review", help="what a restore left turned off or waiting for your confirmation")
    review.add_argument("--confirm", action="store_true",
                        help="send your keys to the addresses the restore brought")
    review.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace, now: datetime) -> int:
    from companion_desktop.pipeline import key_hold
    from companion_desktop.storage import backup, backup_restore

    data_dir = resolve_data_dir(args.data_dir)
    if args.backup_command == "create":
        made = backup.create_backup(data_dir, args.file, now=now)
        print(f"Backed up {data_dir} to {made.path} ({size_text(made.size)}).")
    elif args.backup_command == "list":
        found = backup.list_backups(data_dir, now)
        if args.json:
            print_json([{"path": str(b.path), "createdAt": b.created_at.isoformat(),
                         "reason": b.reason, "size": b.size, "automatic": b.automatic,
                         "damaged": b.problem} for b in found])
            return 0
        for item in found:
            why = "damaged" if item.problem else item.reason
            print(f"{when_text(item.created_at)}  {why:<22} {size_text(item.size):>9}  "
                  f"{terminal_text(item.path.name)}")
        total = backup.space_used(data_dir)
        print(f"{len(found)} backup{'s' * (len(found) != 1)}, {size_text(total)} in "
              f"{terminal_text(str(backup.backup_dir(data_dir)))}")
        for item in found:
            if item.problem:
                print(terminal_text(item.problem), file=sys.stderr)
    elif args.backup_command == "review":
        return _review(data_dir, args, now)
    else:
        done = backup_restore.restore_backup(data_dir, args.file, now=now)
        print(terminal_text(f"Restored {args.file} (made {made_text(done.manifest)}) into "
                            f"{data_dir}."))
        if done.previous is not None:
            print(terminal_text(f"What was there before is in {done.previous.path}."))
        lines = key_hold.restore_lines(done.review)
        if lines:
            print("To keep you safe, a restored backup runs nothing and gets none of your "
                  "keys on its word:")
            for line in lines:
                print(f"  - {terminal_text(line)}")
            print(f"Confirm the addresses with `{key_hold.CONFIRM_COMMAND}`.")
    return 0


def _review(data_dir: Path, args: argparse.Namespace, now: datetime) -> int:
    from companion_desktop.pipeline import key_hold
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.restore_trust import URL_SECTIONS

    with Database.open(data_dir) as db, db.session() as session:
        confirmed = key_hold.confirm(session, now=now) if args.confirm else []
        lines = key_hold.review_lines(session)
    if args.json:
        print_json({"confirmed": [{"section": s, "url": u} for s, u in confirmed],
                    "waiting": lines})
        return 0
    for section, url in confirmed:
        print(terminal_text(f"Confirmed: your key may go to {URL_SECTIONS[section][1]} at "
                            f"{url}."))
    for line in lines:
        print(terminal_text(line))
    if not lines and not confirmed:
        print("Nothing is waiting: no restored address or tool server needs your review.")
    return 0
