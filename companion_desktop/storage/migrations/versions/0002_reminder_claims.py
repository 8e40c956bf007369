"""Reminder claims: which process is firing a reminder, and since when.

A process sets ``claimed_by``/``claimed_at`` before it asks the model, so a second
app or command on the same data folder leaves the reminder alone; the reply and
``executed`` are then written in one transaction. A claim whose process died (or
that is older than ``pipeline.reminders.CLAIM_TTL``) may be taken over.

Revision ID: 0002_reminder_claims
Revises: 0001_initial
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_reminder_claims"
down_revision: str | Sequence[str] | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("reminders", sa.Column("claimed_by", sa.String(length=100), nullable=True))
    op.add_column("reminders", sa.Column("claimed_at", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reminders") as batch:
        batch.drop_column("claimed_at")
        batch.drop_column("claimed_by")
