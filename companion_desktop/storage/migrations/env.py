"""Alembic environment for companion-desktop.

The app runs migrations from code (``storage.migrate.upgrade``), handing this
script an open connection in ``config.attributes["connection"]`` inside its own
transaction; there is no ``alembic.ini``. To write a new revision after changing
``storage/models.py``, from the repository root::

    .venv/bin/python -c "from pathlib import Path; \\
        from companion_desktop.storage import revisions; \\
        revisions.autogenerate_revision(Path('/tmp/companion-dev'), 'describe the change')"

then review ``versions/NNNN_describe_the_change.py`` (autogenerate does not see
CHECK constraints or expression indexes; add those by hand). Revisions are
numbered ``0001``, ``0002``, ... and use ``op.batch_alter_table`` for SQLite.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from companion_desktop.storage.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no connection given; use companion_desktop.storage.migrate")
    with create_engine(url).connect() as conn:
        _run(conn)


if context.is_offline_mode():
    raise RuntimeError("offline (--sql) migrations are not supported")
run_migrations_online()
