"""The chat's line above a machine-made turn (her words follow it): the same line when
the turn happens and when the conversation is shown again later, where the stored turn
holds only the event text she was given."""

from __future__ import annotations

from companion_desktop.engine.proactive import EVENT_PREFIX as SPEAKING_FIRST
from companion_desktop.engine.screen_look import glance_label
from companion_desktop.pipeline.reminders import EVENT_PREFIX as REMINDER

SPOKE_FIRST_NOTICE = "💬 She spoke first"


def glance_line(label: str) -> str:
    return f"👁 She glanced at your screen ({label})"


def reminder_line(text: str) -> str:
    return f"⏰ Reminder: {text}"


def system_line(event_text: str) -> str:
    """The line for a stored system turn's ``event_text`` (other text as it is)."""
    label = glance_label(event_text)
    if label is not None:
        return glance_line(label)
    if event_text.startswith(SPEAKING_FIRST):
        return SPOKE_FIRST_NOTICE
    if event_text.startswith(REMINDER):
        return reminder_line(event_text[len(REMINDER):])
    return event_text
