"""One settings value read at start, before SQLAlchemy is imported (stdlib sqlite3 only).

The app shows its first window before storage opens; whether it shows a window at all
is a setting (Settings > Display > At start). This reads it read-only, straight from the
file: a missing file, table, section or key, a locked or broken database all give
``default``. Storage proper opens later and is the only writer.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from .paths import DB_FILENAME


def setting(data_dir: Path, section: str, key: str, default: object = None) -> object:
    """The stored ``section``'s ``key``, else ``default`` (never raises)."""
    path = Path(data_dir).expanduser() / DB_FILENAME
    if not path.is_file():
        return default
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.2)
    except (sqlite3.Error, ValueError, OSError):
        return default
    try:
        row = connection.execute("SELECT data FROM settings WHERE section = ?",
                                 (section,)).fetchone()
        data = json.loads(row[0]) if row and isinstance(row[0], (str, bytes)) else None
    except (sqlite3.Error, ValueError, TypeError):
        return default
    finally:
        connection.close()
    return data.get(key, default) if isinstance(data, dict) else default
