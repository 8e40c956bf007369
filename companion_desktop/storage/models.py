"""SQLAlchemy 2.0 models: the whole local database.

Every change to these classes needs an Alembic revision in
``storage/migrations/versions``; ``tests/storage`` checks that the migrated
schema matches these models. Times are stored as UTC ISO-8601 text (sortable,
readable in any SQLite tool) and come back timezone-aware.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator


class UtcDateTime(TypeDecorator[datetime]):
    """Aware datetime <-> ``YYYY-MM-DDTHH:MM:SS.ffffff+00:00`` text."""

    impl = String(40)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> str | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database; pass an aware one")
        return value.astimezone(timezone.utc).isoformat(timespec="microseconds")

    def process_result_value(self, value: str | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


class Base(DeclarativeBase):
    pass


class CharacterRow(Base):
    """The single companion record (id is always 1)."""

    __tablename__ = "character_state"
    __table_args__ = (
        CheckConstraint("id = 1", name="single_row"),
        CheckConstraint("energy BETWEEN 0 AND 100", name="energy_range"),
        CheckConstraint("affection BETWEEN 0 AND 1000", name="affection_range"),
        CheckConstraint("trust BETWEEN 0 AND 100", name="trust_range"),
        CheckConstraint("intimacy BETWEEN 0 AND 100", name="intimacy_range"),
        CheckConstraint("comfort BETWEEN 0 AND 100", name="comfort_range"),
        CheckConstraint("respect BETWEEN 0 AND 100", name="respect_range"),
        CheckConstraint("mood_intensity BETWEEN 0 AND 100", name="mood_intensity_range"),
        CheckConstraint("app_mode IN ('companion', 'dating_sim')", name="app_mode_known"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    system_prompt: Mapped[str] = mapped_column(Text)
    extensions: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    mood_primary: Mapped[str] = mapped_column(String(32))
    mood_intensity: Mapped[int] = mapped_column(Integer)
    mood_secondary: Mapped[str | None] = mapped_column(String(32))
    mood_causes: Mapped[list[str]] = mapped_column(JSON, default=list)
    energy: Mapped[int] = mapped_column(Integer)
    affection: Mapped[int] = mapped_column(Integer)
    trust: Mapped[int] = mapped_column(Integer)
    intimacy: Mapped[int] = mapped_column(Integer)
    comfort: Mapped[int] = mapped_column(Integer)
    respect: Mapped[int] = mapped_column(Integer)
    app_mode: Mapped[str] = mapped_column(String(16))
    relationship_stage: Mapped[str] = mapped_column(String(32))
    saved_dating_sim_stage: Mapped[str | None] = mapped_column(String(32))
    personality: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    last_interaction: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_decay_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    first_met: Mapped[datetime] = mapped_column(UtcDateTime)
    days_known: Mapped[int] = mapped_column(Integer)
    total_interactions: Mapped[int] = mapped_column(Integer)
    current_streak: Mapped[int] = mapped_column(Integer)
    longest_streak: Mapped[int] = mapped_column(Integer)
    streak_last_date: Mapped[str | None] = mapped_column(String(10))
    completed_events: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class FactRow(Base):
    """Something she knows; ``embedding`` is float32 bytes made by ``embedding_model``."""

    __tablename__ = "facts"
    __table_args__ = (
        CheckConstraint(
            "category IN ('user', 'relationship', 'shared_experience')", name="category_known"
        ),
        CheckConstraint("importance BETWEEN 0 AND 100", name="importance_range"),
        CheckConstraint("confidence BETWEEN 0 AND 1", name="confidence_range"),
        Index("ix_facts_category", "category"),
        Index("ix_facts_importance", "importance"),
        Index("ix_facts_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content: Mapped[str] = mapped_column(Text)
    category: Mapped[str] = mapped_column(String(32))
    importance: Mapped[float] = mapped_column(Float, default=50)
    confidence: Mapped[float] = mapped_column(Float, default=0.8)
    source: Mapped[str | None] = mapped_column(Text)
    reference_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_accessed: Mapped[datetime | None] = mapped_column(UtcDateTime)
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    embedding_model: Mapped[str | None] = mapped_column(String(200))


class SessionRow(Base):
    """One app run; ``summary`` is filled on a later start from its topic words."""

    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_started_at", "started_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    summary: Mapped[str | None] = mapped_column(Text)
    key_topics: Mapped[list[str]] = mapped_column(JSON, default=list)
    emotional_arc: Mapped[str | None] = mapped_column(Text)
    state_snapshot: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    message_count: Mapped[int] = mapped_column(Integer, default=0)


class TurnRow(Base):
    """One message: the user's, hers, or a system event's."""

    __tablename__ = "conversation_turns"
    __table_args__ = (
        CheckConstraint("role IN ('user', 'assistant', 'system')", name="role_known"),
        Index("ix_turns_session_id", "session_id"),
        Index("ix_turns_created_at", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int | None] = mapped_column(
        ForeignKey("sessions.id", ondelete="SET NULL")
    )
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    meta: Mapped[dict[str, Any] | None] = mapped_column("metadata", JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class CompletedEventRow(Base):
    """An event that played, with the choice taken and what it changed."""

    __tablename__ = "completed_events"
    __table_args__ = (
        Index("ix_completed_events_event_id", "event_id"),
        Index("ix_completed_events_completed_at", "completed_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[str] = mapped_column(String(100))
    event_type: Mapped[str | None] = mapped_column(String(32))
    choice_index: Mapped[int | None] = mapped_column(Integer)
    outcome: Mapped[str | None] = mapped_column(Text)
    state_changes: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    completed_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ReminderRow(Base):
    """A promise to remind the user; fired by the poller once ``trigger_at`` passes."""

    __tablename__ = "reminders"
    __table_args__ = (
        Index("ix_reminders_session_id", "session_id"),
        Index("ix_reminders_trigger_at", "trigger_at"),
        Index("ix_reminders_executed_trigger_at", "executed", "trigger_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    trigger_at: Mapped[datetime] = mapped_column(UtcDateTime)
    content: Mapped[str] = mapped_column(Text)
    executed: Mapped[bool] = mapped_column(Boolean, default=False)
    dismissed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    session_id: Mapped[int | None] = mapped_column(
        ForeignKey("sessions.id", ondelete="SET NULL")
    )
    #: The process firing it right now ("host:pid:token") and since when; None when idle.
    claimed_by: Mapped[str | None] = mapped_column(String(100))
    claimed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class RelationshipRow(Base):
    """The familiarity record of relationship-system.md (``UserRelationship``).

    ``scope`` is the spec's guild id: NULL is the global relationship the desktop
    uses. One row per scope (NULL counted as one scope).
    """

    __tablename__ = "familiarity"
    __table_args__ = (
        CheckConstraint("relationship_score BETWEEN 0 AND 100", name="score_range"),
        Index("ux_familiarity_scope", text("coalesce(scope, -1)"), unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    scope: Mapped[int | None] = mapped_column(Integer)
    relationship_score: Mapped[float] = mapped_column(Float, default=0.0)
    total_interactions: Mapped[int] = mapped_column(Integer, default=0)
    positive_interactions: Mapped[int] = mapped_column(Integer, default=0)
    negative_interactions: Mapped[int] = mapped_column(Integer, default=0)
    avg_message_length: Mapped[float] = mapped_column(Float, default=0.0)
    conversation_depth_avg: Mapped[float] = mapped_column(Float, default=0.0)
    shared_references: Mapped[dict[str, list[str]]] = mapped_column(JSON, default=dict)
    first_interaction_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_interaction_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class KeepsakeRow(Base):
    """A photo she was shown: files live in the data folder, paths are relative to it."""

    __tablename__ = "keepsake_photos"
    __table_args__ = (Index("ix_keepsakes_created_at", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_path: Mapped[str] = mapped_column(Text)
    thumbnail_path: Mapped[str] = mapped_column(Text)
    mime_type: Mapped[str] = mapped_column(String(64))
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    note: Mapped[str | None] = mapped_column(Text)
    turn_id: Mapped[int | None] = mapped_column(
        ForeignKey("conversation_turns.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AnimationRow(Base):
    """An animation library entry: a built-in clip or an uploaded .vrma."""

    __tablename__ = "animation_library"
    __table_args__ = (
        CheckConstraint("kind IN ('idle', 'emote', 'upload')", name="kind_known"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    kind: Mapped[str] = mapped_column(String(16))
    file_path: Mapped[str | None] = mapped_column(Text)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    in_idle_pool: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class SettingsRow(Base):
    """One typed settings section (validated by ``storage.settings``) as JSON."""

    __tablename__ = "settings"

    section: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
