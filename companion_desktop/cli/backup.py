"""``companion-desktop backup create|list|restore``: full backups of the data folder.

``restore`` refuses while the app is running on the folder (the database is open
there): quit it first, or restore from Settings > Data in the app, which swaps the
backup in when it next starts.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import print_json
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


def run(args: argparse.Namespace, now: datetime) -> int:
    from companion_desktop.storage import backup, backup_restore

    data_dir = resolve_data_dir(args.data_dir)
    if args.backup_command == "create":
        made = backup.create_backup(data_dir, args.file, now=now)
        print(f"Backed up {data_dir} to {made.path} ({size_text(made.size)}).")
    elif args.backup_command == "list":
        found = backup.list_backups(data_dir)
        if args.json:
            print_json([{"path": str(b.path), "createdAt": b.created_at.isoformat(),
                         "reason": b.reason, "size": b.size, "automatic": b.automatic}
                        for b in found])
            return 0
        for item in found:
            print(f"{when_text(item.created_at)}  {item.reason:<22} {size_text(item.size):>9}  "
                  f"{item.path.name}")
        total = backup.space_used(data_dir)
        print(f"{len(found)} backup{'s' * (len(found) != 1)}, {size_text(total)} in "
              f"{backup.backup_dir(data_dir)}")
    else:
        done = backup_restore.restore_backup(data_dir, args.file, now=now)
        print(f"Restored {args.file} (made {made_text(done.manifest)}) into {data_dir}.")
        if done.previous is not None:
            print(f"What was there before is in {done.previous.path}.")
    return 0
