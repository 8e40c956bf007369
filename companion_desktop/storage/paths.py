"""Where the data folder and the database file live."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

#: The database file's name inside the data folder.
DB_FILENAME = "companion.sqlite3"
#: Environment variable that picks the data folder when ``--data-dir`` is not given.
DATA_DIR_ENV = "COMPANION_DATA_DIR"
APP_NAME = "companion-desktop"


def resolve_data_dir(
    cli_value: str | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The data folder: ``--data-dir``, else ``$COMPANION_DATA_DIR``, else the platform's.

    The platform default is ``platformdirs.user_data_dir("companion-desktop")``
    (``~/.local/share/companion-desktop`` on Linux). ``~`` is expanded; empty
    values count as unset. The folder is not created here (``Database.open`` does).
    """
    env = os.environ if environ is None else environ
    for value in (cli_value, env.get(DATA_DIR_ENV)):
        if value:
            return Path(value).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
