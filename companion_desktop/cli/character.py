"""``companion-desktop character import|export|show``: character cards.

``import FILE`` reads a card (PNG with a ``chara`` or ``ccv3`` chunk, a V1/V2/V3 JSON
card, a CHARX archive) or a World Info lorebook file, and makes her that character:
by default a new relationship (the current one is backed up first), with
``--keep-relationship`` the same relationship, stats and memories. ``export FILE.png``
writes her as a V3 card (with a V2 chunk) on a render of her avatar.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import CliError, print_json, terminal_text


def add_parser(sub: argparse._SubParsersAction) -> None:
    character = sub.add_parser("character", help="import or export a character card")
    actions = character.add_subparsers(dest="character_command", metavar="ACTION", required=True)
    imp = actions.add_parser("import", help="make her the character of a card (PNG, JSON, "
                                            "CHARX) or add a lorebook file to hers")
    imp.add_argument("file", type=Path)
    imp.add_argument("--keep-relationship", action="store_true",
                     help="keep the relationship, stats and memories (default: start a new "
                          "relationship; the current one is backed up first)")
    imp.add_argument("--greeting", type=int, default=0, metavar="N",
                     help="her first message: 0 the card's first message (default), N its "
                          "N-th alternate greeting")
    imp.add_argument("--json", action="store_true", help="print JSON")
    export = actions.add_parser("export", help="write her as a character card PNG (V3 and V2)")
    export.add_argument("file", type=Path)
    show = actions.add_parser("show", help="her card: greetings, tags, lorebook")
    show.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace, now: datetime) -> int:
    from companion_desktop.engine.card import CardError
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    try:
        if args.character_command == "import":
            from companion_desktop.storage.card_file import read_card_file

            found = read_card_file(args.file)  # read and checked whole before the database
            with Database.open(data_dir) as db:
                return _import(db, found, args, now)
        with Database.open(data_dir) as db:
            return _export(db, args.file, now) if args.character_command == "export" \
                else _show(db, args)
    except CardError as error:
        raise CliError(f"{args.file if hasattr(args, 'file') else 'card'}: {error}") from None


def _import(db, found, args: argparse.Namespace, now: datetime) -> int:  # noqa: ANN001
    from companion_desktop.storage.card_store import import_card

    done = import_card(db, found, args.keep_relationship, now, source=args.file.name,
                       greeting=max(0, args.greeting))
    if args.json:
        print_json({"name": done.name, "lorebookEntries": done.entries,
                    "newRelationship": done.new_relationship, "greeting": done.greeting,
                    "backup": str(done.backup) if done.backup else None,
                    "notes": list(done.notes), "lorebookOnly": found.card is None})
        return 0
    if found.card is None:
        print(terminal_text(f"Added the lorebook to {done.name}'s: {done.entries} entries now."))
        return 0
    how = ("a new relationship" if done.new_relationship
           else "the same relationship, stats and memories")
    print(terminal_text(f"She is now {done.name}, with {how}; lorebook: {done.entries} "
                        f"entries."))
    if done.backup is not None:
        print(terminal_text(f"The previous relationship is backed up in {done.backup}."))
    if done.greeting:
        print(terminal_text(f"{done.name}: {done.greeting}"))
    for note in done.notes:
        print(terminal_text(note), file=sys.stderr)
    return 0


def _export(db, path: Path, now: datetime) -> int:  # noqa: ANN001
    from companion_desktop.cli.offscreen_gl import use_available_context
    from companion_desktop.pipeline.card_export import card_picture, card_png

    if path.suffix.lower() != ".png":
        raise CliError(f"{path}: a card is written as a .png file")
    use_available_context()
    picture = card_picture(db)
    data = card_png(db, now, picture)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if picture.kind != "render":
        what = "her portrait" if picture.kind == "portrait" else "a plain image"
        print(terminal_text(f"Her avatar could not be rendered here ({picture.reason}); the "
                            f"card's image is {what}."), file=sys.stderr)
    print(terminal_text(f"Wrote {path} (a V3 card with a V2 chunk, {len(data):,} bytes)."))
    return 0


def _show(db, args: argparse.Namespace) -> int:  # noqa: ANN001
    from companion_desktop.storage.card_store import card_summary, load_card

    with db.read_session() as session:
        stored = load_card(session)
    summary = card_summary(stored)
    summary["lorebook"] = [{"name": e.name, "keys": e.keys, "enabled": e.enabled,
                            "constant": e.constant} for e in stored.lorebook]
    if args.json:
        print_json(summary)
        return 0
    if not stored.present and not stored.lorebook:
        print("No character card imported.")
        return 0
    print(terminal_text(f"Card: {stored.spec or '-'} from {stored.source_name or '-'}; "
                        f"tags: {', '.join(stored.tags) or '-'}"))
    for index, greeting in enumerate(stored.greetings()):
        print(terminal_text(f"Greeting {index}: {greeting[:100]}"))
    for entry in stored.lorebook:
        mark = "on " if entry.enabled else "off"
        print(terminal_text(f"[{mark}] {entry.name or '-'}: {', '.join(entry.keys) or '(always)'}"))
    return 0
