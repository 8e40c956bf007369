"""``COMPANION_FRAME_STATS``: where the app notes its pictures for ``bench`` (no Qt, no
numpy: the composition root imports it before the first paint)."""

from __future__ import annotations

import json
import os
import time

FRAME_STATS_ENV = "COMPANION_FRAME_STATS"


def stats_path() -> str | None:
    """The file named by ``COMPANION_FRAME_STATS``, or None when it is not set."""
    return os.environ.get(FRAME_STATS_ENV) or None


def note(path: str, event: str, **values: object) -> None:
    """Append one JSON line ``{"event": event, "time": time.time(), **values}``."""
    try:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"event": event, "time": time.time(), **values}) + "\n")
    except OSError:
        pass
