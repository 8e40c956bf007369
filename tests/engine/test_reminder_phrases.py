"""The natural-phrase reminder fallback: the phrase table."""

from __future__ import annotations

import pytest

from companion_desktop.engine.parse import ReminderRequest
from companion_desktop.engine.reminder_phrases import natural_reminder

CASES = [
    ("remind me in 10 minutes to stretch", 600, "stretch"),
    ("Remind me to call mom in 2 hours", 7200, "call mom"),
    ("in 30 seconds remind me to check the oven", 30, "check the oven"),
    ("remind me in an hour", 3600, "your reminder"),
    ("remind me in a minute", 60, "your reminder"),
    ("can you remind me in one day to pay rent?", 86400, "pay rent"),
    ("remind me in half an hour to drink water please", 1800, "drink water"),
    ("remind me in 5 min to take the pizza out!", 300, "take the pizza out"),
    ("remind me in 3 sec", 3, "your reminder"),
    ("remind me in 2h to leave", 7200, "leave"),
    ("remind me in 2 d about the dentist", 172800, "the dentist"),
    ("remind me in 1.5 hours to move the car", 5400, "move the car"),
    ("remind me in an hour and a half to eat", 5400, "eat"),
    ("Hey, remind me that the laundry is done in 45 minutes.", 2700, "the laundry is done"),
    ("remind me in 20 minutes from now to call Sam", 1200, "call Sam"),
    ("remind me in ten minutes to stretch", 600, "stretch"),
    ("remind me in 1000 days to check", 365 * 86400, "check"),
    ("remind me in 0 seconds to blink", 1, "blink"),
]


@pytest.mark.parametrize("message,seconds,text", CASES)
def test_phrase_table(message, seconds, text):
    assert natural_reminder(message) == ReminderRequest(seconds, text)


@pytest.mark.parametrize("message", [
    "",
    "remind me to stretch",
    "in 10 minutes I'll stretch",
    "I was in a meeting for 10 minutes",
    "remind me in a moment",
    "remind me in 10 parsecs to fly",
    "do you remember me?",
])
def test_no_reminder(message):
    assert natural_reminder(message) is None
