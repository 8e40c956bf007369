"""The familiarity system of relationship-system.md: a 0-100 score, five levels.

Pure (standard library only); the clock is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Familiarity:
    """The spec's ``UserRelationship`` row; ``scope`` is its guild id (None = global)."""

    scope: int | None = None
    score: float = 0.0
    total_interactions: int = 0
    positive_interactions: int = 0
    negative_interactions: int = 0
    avg_message_length: float = 0.0
    conversation_depth_avg: float = 0.0
    shared_references: dict[str, list[str]] = field(default_factory=dict)
    first_interaction_at: datetime | None = None
    last_interaction_at: datetime | None = None
