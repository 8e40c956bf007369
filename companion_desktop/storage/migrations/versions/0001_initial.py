"""Initial schema: character, memory, sessions, events, reminders, familiarity, media, settings.

Times are UTC ISO-8601 text (``String(40)``, see ``models.UtcDateTime``).

Revision ID: 0001_initial
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _time(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.String(length=40), nullable=nullable)


def _ranges(*columns: str, low: int = 0, high: int = 100) -> list[sa.CheckConstraint]:
    return [
        sa.CheckConstraint(f"{column} BETWEEN {low} AND {high}", name=f"{column}_range")
        for column in columns
    ]


def upgrade() -> None:
    op.create_table(
        "character_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=False),
        sa.Column("extensions", sa.JSON(), nullable=False),
        sa.Column("mood_primary", sa.String(length=32), nullable=False),
        sa.Column("mood_intensity", sa.Integer(), nullable=False),
        sa.Column("mood_secondary", sa.String(length=32), nullable=True),
        sa.Column("mood_causes", sa.JSON(), nullable=False),
        sa.Column("energy", sa.Integer(), nullable=False),
        sa.Column("affection", sa.Integer(), nullable=False),
        sa.Column("trust", sa.Integer(), nullable=False),
        sa.Column("intimacy", sa.Integer(), nullable=False),
        sa.Column("comfort", sa.Integer(), nullable=False),
        sa.Column("respect", sa.Integer(), nullable=False),
        sa.Column("app_mode", sa.String(length=16), nullable=False),
        sa.Column("relationship_stage", sa.String(length=32), nullable=False),
        sa.Column("saved_dating_sim_stage", sa.String(length=32), nullable=True),
        sa.Column("personality", sa.JSON(), nullable=False),
        _time("last_interaction", nullable=True),
        _time("last_decay_at", nullable=True),
        _time("first_met"),
        sa.Column("days_known", sa.Integer(), nullable=False),
        sa.Column("total_interactions", sa.Integer(), nullable=False),
        sa.Column("current_streak", sa.Integer(), nullable=False),
        sa.Column("longest_streak", sa.Integer(), nullable=False),
        sa.Column("streak_last_date", sa.String(length=10), nullable=True),
        sa.Column("completed_events", sa.JSON(), nullable=False),
        _time("created_at"),
        _time("updated_at"),
        sa.CheckConstraint("id = 1", name="single_row"),
        *_ranges("energy", "trust", "intimacy", "comfort", "respect", "mood_intensity"),
        *_ranges("affection", high=1000),
        sa.CheckConstraint("app_mode IN ('companion', 'dating_sim')", name="app_mode_known"),
        sa.PrimaryKeyConstraint("id"),
    )

    op.create_table(
        "facts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("reference_count", sa.Integer(), nullable=False),
        _time("created_at"),
        _time("last_accessed", nullable=True),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_model", sa.String(length=200), nullable=True),
        sa.CheckConstraint(
            "category IN ('user', 'relationship', 'shared_experience')", name="category_known"
        ),
        *_ranges("importance"),
        *_ranges("confidence", high=1),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_facts_category", "facts", ["category"])
    op.create_index("ix_facts_importance", "facts", ["importance"])
    op.create_index("ix_facts_created_at", "facts", ["created_at"])

    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        _time("started_at"),
        _time("ended_at", nullable=True),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("key_topics", sa.JSON(), nullable=False),
        sa.Column("emotional_arc", sa.Text(), nullable=True),
        sa.Column("state_snapshot", sa.JSON(), nullable=True),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_sessions_started_at", "sessions", ["started_at"])

    op.create_table(
        "conversation_turns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("metadata", sa.JSON(), nullable=True),
        _time("created_at"),
        sa.CheckConstraint("role IN ('user', 'assistant', 'system')", name="role_known"),
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_turns_session_id", "conversation_turns", ["session_id"])
    op.create_index("ix_turns_created_at", "conversation_turns", ["created_at"])

    op.create_table(
        "completed_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.String(length=100), nullable=False),
        sa.Column("event_type", sa.String(length=32), nullable=True),
        sa.Column("choice_index", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.Column("state_changes", sa.JSON(), nullable=True),
        _time("completed_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_completed_events_event_id", "completed_events", ["event_id"])
    op.create_index("ix_completed_events_completed_at", "completed_events", ["completed_at"])

    op.create_table(
        "reminders",
        sa.Column("id", sa.Integer(), nullable=False),
        _time("trigger_at"),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("executed", sa.Boolean(), nullable=False),
        sa.Column("dismissed", sa.Boolean(), nullable=False),
        _time("created_at"),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_reminders_session_id", "reminders", ["session_id"])
    op.create_index("ix_reminders_trigger_at", "reminders", ["trigger_at"])
    op.create_index(
        "ix_reminders_executed_trigger_at", "reminders", ["executed", "trigger_at"]
    )

    op.create_table(
        "familiarity",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.Integer(), nullable=True),
        sa.Column("relationship_score", sa.Float(), nullable=False),
        sa.Column("total_interactions", sa.Integer(), nullable=False),
        sa.Column("positive_interactions", sa.Integer(), nullable=False),
        sa.Column("negative_interactions", sa.Integer(), nullable=False),
        sa.Column("avg_message_length", sa.Float(), nullable=False),
        sa.Column("conversation_depth_avg", sa.Float(), nullable=False),
        sa.Column("shared_references", sa.JSON(), nullable=False),
        _time("first_interaction_at", nullable=True),
        _time("last_interaction_at", nullable=True),
        sa.CheckConstraint("relationship_score BETWEEN 0 AND 100", name="score_range"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ux_familiarity_scope", "familiarity", [sa.text("coalesce(scope, -1)")], unique=True
    )

    op.create_table(
        "keepsake_photos",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("file_path", sa.Text(), nullable=False),
        sa.Column("thumbnail_path", sa.Text(), nullable=False),
        sa.Column("mime_type", sa.String(length=64), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("turn_id", sa.Integer(), nullable=True),
        _time("created_at"),
        sa.ForeignKeyConstraint(["turn_id"], ["conversation_turns.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_keepsakes_created_at", "keepsake_photos", ["created_at"])

    op.create_table(
        "animation_library",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("file_path", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("in_idle_pool", sa.Boolean(), nullable=False),
        _time("created_at"),
        sa.CheckConstraint("kind IN ('idle', 'emote', 'upload')", name="kind_known"),
        sa.PrimaryKeyConstraint("id"),
    )

    op.create_table(
        "settings",
        sa.Column("section", sa.String(length=64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        _time("updated_at"),
        sa.PrimaryKeyConstraint("section"),
    )


def downgrade() -> None:
    for table in (
        "settings",
        "animation_library",
        "keepsake_photos",
        "familiarity",
        "reminders",
        "completed_events",
        "conversation_turns",
        "sessions",
        "facts",
        "character_state",
    ):
        op.drop_table(table)
