"""How a save file's import and export read to a person, the same in Settings > Data and
in ``companion-desktop import`` / ``export``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.storage.backup_text import size_text

if TYPE_CHECKING:
    from companion_desktop.storage.savefile import ExportSummary
    from companion_desktop.storage.savefile_import import ImportSummary

#: (one, many) names of each kind.
KIND_NAMES = {"facts": ("memory", "memories"), "sessions": ("session", "sessions"),
              "turns": ("message", "messages"), "completed_events": ("event", "events")}


def describe_counts(counts: dict[str, int]) -> str:
    """"3 memories, 2 sessions, 40 messages, 1 event" (kinds with none left out)."""
    parts = []
    for kind in ("facts", "sessions", "turns", "completed_events"):
        n = counts.get(kind, 0)
        if n:
            parts.append(f"{n} {KIND_NAMES[kind][n != 1]}")
    if counts.get("character"):
        parts.insert(0, "her state")
    return ", ".join(parts) or "nothing"


def export_text(summary: ExportSummary) -> str:
    """``Wrote PATH (12.0 KB): her state, 3 memories.`` for a ``savefile.ExportSummary``."""
    return (f"Wrote {summary.path} ({size_text(summary.size_bytes)}): "
            f"{describe_counts(summary.counts)}.")


def import_text(summary: ImportSummary) -> str:
    """What an import did (a ``savefile.ImportSummary``): what came in, what was already
    here, and what happened to her state."""
    text = f"Imported ({summary.mode}): {describe_counts(summary.imported)}."
    skipped = sum(n for kind, n in summary.skipped.items()
                  if kind not in ("character", "relationship"))
    if skipped:
        text += f" {skipped} already here (skipped)."
    if summary.mode == "merge" and summary.skipped.get("character"):
        text += " Her current state was kept."
    if summary.mode == "replace":
        text += " What was here before is in a backup."
    return text
