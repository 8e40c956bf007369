"""Client-side fallback for reminders asked for in plain words.

When the user writes "remind me in 10 minutes to stretch" and the model's reply
carries no ``[reminder:...]`` tag, :func:`natural_reminder` reads the request
itself. Pure: no clock, no I/O; the caller adds the delay to its own ``now``.

Accepted: "remind me in 10 minutes to stretch", "remind me to call mom in 2 hours",
"in 30 seconds remind me to drink water", "remind me in an hour", "remind me in
half an hour", "in an hour and a half". Units s/sec/second(s), m/min/minute(s),
h/hr/hour(s), d/day(s); amounts as digits (``1.5``, ``1,5``) or the words
a/an/one..twelve/fifteen/twenty/thirty/forty-five/sixty. The delay is bounded to
1 second .. 365 days like the tag's.
"""

from __future__ import annotations

import re

from companion_desktop.engine.parse import (
    MAX_REMINDER_TEXT,
    REMINDER_MAX_SECONDS,
    REMINDER_MIN_SECONDS,
    ReminderRequest,
)

DEFAULT_TEXT = "your reminder"

_WORDS: dict[str, float] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45, "forty five": 45,
    "sixty": 60, "ninety": 90, "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3,
}

_UNITS: dict[str, int] = {}
for _names, _unit_seconds in (
    (("s", "sec", "secs", "second", "seconds"), 1),
    (("m", "min", "mins", "minute", "minutes"), 60),
    (("h", "hr", "hrs", "hour", "hours"), 3600),
    (("d", "day", "days"), 86400),
):
    for _name in _names:
        _UNITS[_name] = _unit_seconds

_WORD_ALT = "|".join(
    sorted((re.escape(w).replace(r"\ ", r"\s+") for w in _WORDS), key=len, reverse=True)
)
_UNIT_ALT = "|".join(sorted(_UNITS, key=len, reverse=True))

_DURATION = re.compile(
    rf"""\b(?:in|after)\s+
    (?:
        (?P<half>half\s+(?:an?\s+)?)(?P<half_unit>{_UNIT_ALT})
      | (?P<amount>\d+(?:[.,]\d+)?|{_WORD_ALT})\s*(?P<unit>{_UNIT_ALT})
        (?P<and_half>\s+and\s+a\s+half)?
    )\b
    (?:\s+(?:from\s+now|time))?""",
    re.I | re.X,
)
_REMIND_ME = re.compile(r"\bremind\s+me\b", re.I)
_LEAD = re.compile(r"^(?:\s|[,:;.!-])*(?:(?:to|that|about|of|i\s+need\s+to|please)\b\s*)*", re.I)
_TRAIL = re.compile(r"(?:\s|[,:;.!?-])*"
                    r"(?:\bplease\b|\bok(?:ay)?\b|\bthanks?\b|\bthank\s+you\b)?(?:\s|[,:;.!?-])*$",
                    re.I)


def _seconds(match: re.Match[str]) -> int | None:
    if match.group("half"):
        amount, unit = 0.5, _UNITS[match.group("half_unit").lower()]
    else:
        raw = " ".join(match.group("amount").lower().split())
        if raw in _WORDS:
            amount = _WORDS[raw]
        else:
            try:
                amount = float(raw.replace(",", "."))
            except ValueError:
                return None
        if match.group("and_half"):
            amount += 0.5
        unit = _UNITS[match.group("unit").lower()]
    return int(min(REMINDER_MAX_SECONDS, max(REMINDER_MIN_SECONDS, round(amount * unit))))


def _clean(text: str) -> str:
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = _LEAD.sub("", text)
        text = _TRAIL.sub("", text).strip()
    return text[:MAX_REMINDER_TEXT].strip()


def natural_reminder(user_message: str) -> ReminderRequest | None:
    """The reminder ``user_message`` asks for in plain words, or None.

    Needs both "remind me" and a delay ("in 10 minutes"); the text is what is left
    after "remind me" once the delay is taken out ("to stretch" -> "stretch"),
    or "your reminder" when nothing is left.
    """
    if not user_message:
        return None
    remind = _REMIND_ME.search(user_message)
    if remind is None:
        return None
    duration = _DURATION.search(user_message)
    if duration is None:
        return None
    seconds = _seconds(duration)
    if seconds is None:
        return None
    if duration.start() >= remind.end():
        after = user_message[remind.end():duration.start()] + " " + user_message[duration.end():]
    else:
        after = user_message[max(remind.end(), duration.end()):]
    text = _clean(after) or DEFAULT_TEXT
    return ReminderRequest(seconds, text)
