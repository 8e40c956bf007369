"""SQLAlchemy models, Alembic migrations, repositories and the save file."""
