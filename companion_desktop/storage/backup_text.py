"""How a backup's size and time read to a person, the same in Settings > Data and in
``companion-desktop backup list``."""

from __future__ import annotations

from datetime import datetime


def size_text(n: int) -> str:
    """``512 B``, ``3.4 KB``, ``12.0 MB``, ``1.2 GB``."""
    if n < 1024:
        return f"{n} B"
    for unit, scale in (("KB", 2**10), ("MB", 2**20), ("GB", 2**30)):
        if n < scale * 1024 or unit == "GB":
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def when_text(moment: datetime) -> str:
    """The local date and time, to the minute: ``2026-03-10 09:30``."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def made_text(manifest: dict) -> str:
    """When an archive was made (its manifest's ``created_at``) as :func:`when_text`
    writes it, in local time like the list of backups; ``?`` when unreadable."""
    try:
        return when_text(datetime.fromisoformat(str(manifest.get("created_at"))))
    except ValueError:
        return "?"
