"""Small immutable values that repositories hand out instead of ORM rows.

Times are timezone-aware (UTC) datetimes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class TurnRecord:
    """One message. ``role`` is user, assistant or system; ``meta`` is free-form JSON."""

    id: int
    session_id: int | None
    role: str
    content: str
    created_at: datetime
    meta: dict[str, Any] | None = None


@dataclass(frozen=True)
class SessionRecord:
    """One app run; ``message_count`` is the turns counted when it ended (or imported)."""

    id: int
    started_at: datetime
    ended_at: datetime | None = None
    summary: str | None = None
    key_topics: tuple[str, ...] = ()
    emotional_arc: str | None = None
    state_snapshot: dict[str, Any] | None = None
    message_count: int = 0


@dataclass(frozen=True)
class FactRecord:
    """Something she knows. importance 0-100, confidence 0-1; the vector is not carried."""

    id: int
    content: str
    category: str
    importance: float
    confidence: float
    created_at: datetime
    source: str | None = None
    reference_count: int = 0
    last_accessed: datetime | None = None
    embedding_model: str | None = None
    has_embedding: bool = False


@dataclass(frozen=True)
class ReminderRecord:
    """A reminder she promised; ``executed`` once fired, ``dismissed`` once the user closed it."""

    id: int
    trigger_at: datetime
    content: str
    created_at: datetime
    executed: bool = False
    dismissed: bool = False
    session_id: int | None = None
