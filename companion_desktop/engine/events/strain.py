"""The relationship strain event: dispatched directly on a demotion (1-day cooldown).

It is not part of the regular pool; ``check_events`` never picks it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from .check import STRAIN_EVENT_ID
from .model import Condition as C
from .model import EventDefinition as E
from .model import Scene as S
from .model import SceneChoice as Ch

STRAIN_COOLDOWN_DAYS = 1.0

STRAIN_EVENT = E(
    id=STRAIN_EVENT_ID,
    name="Something Feels Off",
    type="conditional",
    conditions=[C("mode_is", "dating_sim")],
    scene=S(
        id="relationship_strain_scene",
        intro=(
            "Hana is sitting a little further from the edge of the window than usual, arms "
            "wrapped around her knees."
        ),
        dialogue=(
            "Hey. Can we talk for a second? Things have felt a bit distant between us lately, and "
            "I don't want to pretend they haven't. I'm not upset with you. I just care about this, "
            "about us, and I'd rather say so than go quiet."
        ),
        choices=[
            Ch(
                "You're right. I'm sorry, I want to do better.",
                "Thank you. That means a lot. We'll find our way back, one conversation at a time.",
                {"trust": 3, "comfort": 2, "affection": 2},
            ),
            Ch(
                "I've had a lot going on. It's not about you.",
                "Okay. Thank you for telling me. I'm here if you want to talk about any of it.",
                {"trust": 2, "respect": 1},
            ),
            Ch(
                "I'm not sure what you mean.",
                "That's alright. Maybe I'm overthinking it. I just wanted you to know I noticed.",
                {"comfort": -1},
            ),
        ],
        outro="The air between you feels a little clearer for having said it.",
        expression_override="sad",
    ),
    state_changes={"mood": {"emotion": "anxious", "intensity_delta": 10}},
    one_time=False,
    cooldown_days=STRAIN_COOLDOWN_DAYS,
    priority=0,
)


def strain_due(last_strain_at: datetime | None, now: datetime) -> bool:
    """Whether the strain event may play now (never before, or a day or more ago)."""
    return last_strain_at is None or now - last_strain_at >= timedelta(days=STRAIN_COOLDOWN_DAYS)
