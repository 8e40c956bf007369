"""Developer tool: a new Alembic revision written from the models' differences.

Apart from ``migrate`` (which the database opens with) because it opens a database itself.
"""

from __future__ import annotations

import re
from pathlib import Path

from .db import Database
from .migrate import alembic_config, known_revisions


def autogenerate_revision(data_dir: Path, message: str) -> None:
    """Developer tool: write ``versions/NNNN_<slug>.py`` from the models' differences.

    Opens (and upgrades) the database in ``data_dir``, then compares it with
    ``models.py``. The revision id is the file name without ``.py`` (at most
    32 characters, the width of ``alembic_version``). Review the file before
    committing it.
    """
    from alembic import command

    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:27].rstrip("_")
    rev_id = f"{len(known_revisions()) + 1:04d}_{slug}"
    db = Database.open(data_dir)
    try:
        with db.engine.connect() as conn, conn.begin():
            config = alembic_config(conn)
            config.set_main_option("file_template", "%%(rev)s")
            command.revision(config, message=message, autogenerate=True, rev_id=rev_id)
    finally:
        db.close()
