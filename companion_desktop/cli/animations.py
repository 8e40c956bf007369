"""``companion-desktop animations [--json]``: the animation library as Settings shows it.

The built-in idles and emotes are synced from the clip manifest into the database
first (keeping the user's edits), then every entry is listed: id, name, kind,
whether she may use it, and whether it is in her idle pool.
"""

from __future__ import annotations

import argparse
from datetime import datetime

from companion_desktop.cli.common import print_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    animations = sub.add_parser("animations",
                                help="list the animation library (built-ins and uploads)")
    animations.add_argument("--json", action="store_true",
                            help="print a JSON list (id, name, kind, enabled, in_idle_pool)")


def library_rows(service: object) -> list[dict[str, object]]:
    """One dict per entry, in the page's order."""
    return [
        {"id": e.id, "name": e.name, "kind": e.kind, "enabled": e.enabled,
         "in_idle_pool": e.in_idle_pool, "description": e.description}
        for e in service.list_entries()  # type: ignore[attr-defined]
    ]


def format_rows(rows: list[dict[str, object]], pool: list[str]) -> str:
    if not rows:
        return "No animations yet: the built-in clips are missing and nothing was uploaded."
    width = max(len(str(r["id"])) for r in rows)
    name_width = max(len(str(r["name"])) for r in rows)
    lines = [f"{'id':<{width}}  {'name':<{name_width}}  {'kind':<6}  companion can use  idle pool"]
    for r in rows:
        use = "yes" if r["enabled"] else "no"
        idle = "yes" if r["in_idle_pool"] else "-" if r["kind"] == "emote" else "no"
        lines.append(f"{r['id']:<{width}}  {r['name']:<{name_width}}  {r['kind']:<6}  "
                     f"{use:<17}  {idle}")
    lines.append(f"Idle cycle: {', '.join(pool) if pool else '(no idle clips)'}")
    return "\n".join(lines)


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    """List the library; ``now`` (``--now``) stamps built-ins added by the sync."""
    from companion_desktop.pipeline.animations import AnimationService, default_library
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.paths import resolve_data_dir

    data_dir = resolve_data_dir(args.data_dir)
    db = Database.open(data_dir)
    try:
        clock = (lambda: now) if now is not None else None
        service = AnimationService(db, data_dir, default_library(), clock=clock)
        service.sync()
        rows = library_rows(service)
        if args.json:
            print_json(rows)
        else:
            print(format_rows(rows, service.idle_pool()))
    finally:
        db.close()
    return 0
