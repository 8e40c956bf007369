"""Client-side fallback for reminders asked for in plain words.

When the user writes "remind me in 10 minutes to stretch" or "remind me tomorrow at
6pm to call my mum" and the model's reply carries no ``[reminder:...]`` tag,
:func:`natural_reminder` reads the request itself. Pure: no clock, no I/O. A delay
needs nothing else; a time of day or a day needs the caller's ``now``, an aware
datetime in the user's local time zone; the caller adds the seconds to its ``now``.

The request: "remind me" (English), "erinnere mich", "erinnerst du mich", "kannst du
mich ... erinnern" (German), "recuérdame", "recordarme", "me recuerdas" (Spanish),
"…をリマインドして", "…を思い出させて", "…を教えて", "…を知らせて" (Japanese; with 教えて,
知らせて and 通知して the time must end in に or 、, so "明日の天気を教えて" is no reminder).

Delays: "remind me in 10 minutes to stretch", "remind me to call mom in 2 hours",
"in 30 seconds remind me to drink water", "remind me in an hour", "remind me in half
an hour", "in an hour and a half". Units s/sec/second(s), m/min/minute(s),
h/hr/hour(s), d/day(s); amounts as digits (``1.5``, ``1,5``) or the words
a/an/one..twelve/fifteen/twenty/thirty/forty-five/sixty. Also "in 10 Minuten", "in
einer (halben) Stunde", "in zwei Tagen"; "en 10 minutos", "dentro de una hora", "en
media hora"; "10分後に", "1時間半後に".

Times and days, in the user's local time:

- clock times: "at 6pm", "at 6:30 p.m.", "at 18:00", "at 7", "at half past six",
  "at quarter to 7", "6pm", "18:00", "at noon", "at midday", "at midnight"; "um 18 Uhr",
  "um 18:30", "um halb 7" (6:30), "um Viertel nach 6", "18 Uhr", "um Mitternacht";
  "a las 6", "a las 6 y media", "a las 7 menos cuarto", "a la una", "al mediodía",
  "a medianoche"; "18時", "6時半", "午後6時", "午前7時30分", "18:00", "正午".
- days: "today", "tonight", "tomorrow", "the day after tomorrow", "on Friday", "this
  Friday", "next Friday", "Friday at 6", "on December 24", "on 24 December 2026",
  "2026-12-24"; "heute", "morgen", "übermorgen", "am Freitag", "nächsten Freitag",
  "nächste Woche Montag", "am 24. Dezember", "am 24.12."; "hoy", "mañana", "pasado
  mañana", "el viernes", "el próximo viernes", "el viernes que viene", "el 24 de
  diciembre"; "今日", "今夜", "明日", "明後日", "金曜日", "次の金曜日", "来週の月曜日",
  "12月24日".
- parts of the day: "in the morning/afternoon/evening", "at night", "this evening",
  "tomorrow morning", "Friday evening"; "heute Abend", "morgen früh", "am Nachmittag",
  "abends", "Freitagabend"; "por la mañana", "esta tarde", "esta noche", "de la tarde";
  "朝", "昼", "夕方", "夜", "明日の朝". Alone they stand for 9:00 (morning), 12:00 (noon,
  mittags, 昼), 15:00 (afternoon, tarde), 18:00 (夕方), 19:00 (evening, Abend) and 20:00
  (night, tonight, Nacht, noche, 夜).

How they are read:

- A day with no time is read at :data:`DEFAULT_HOUR` (9:00): "tomorrow", "on Friday".
- A time with no day is the next time it comes: one already past today means tomorrow.
- A weekday ("on Friday", "am Freitag", "el viernes", "金曜日") is the next such day;
  today when today is that day and the time is still ahead. "next Friday", "nächsten
  Freitag", "el próximo viernes", "次の金曜日" is the next such day after today, never
  today; "nächste Woche Montag" and "来週の月曜日" are that day of next week.
- A date with no year is the next time it comes; a day or date in the past
  ("yesterday", "gestern", "ayer", "昨日", "on 1 March 2020", "today at 9am" when it is
  10:00) gives no reminder.
- An hour with no am/pm, no 24-hour form (0, 13-23 or a leading zero: "07:30") and no
  part of the day: 12 is noon; 1-5 are afternoon hours (13-17); 6-11 are whichever of
  the morning and evening hour comes first ("at 7" at 13:15 is 19:00, at 20:00 it is
  7:00 tomorrow); on a later day 6 is 18:00 and 7-11 are morning hours. In English an
  hour said alone ends the phrase or comes before "to", "and", "in", "on", a day...
  ("at 7 to take my pills"; "look at 2 options" names no time). With a
  part of the day the hour is read in it ("at 7 in the evening" 19:00, "a las 10 de
  la noche" 22:00, "um 1 nachts" 1:00 the next morning); "midnight" is the end of the
  day it is said for.
- Where a message names two days or two times, the first after the request (before it
  in Japanese) is the reminder's and the other stays in its text.

The seconds run from ``now`` to that local wall-clock time, on the UTC time line, so a
daylight-saving change in between is counted: ``now`` in a zone (zoneinfo) follows that
zone's rules; a fixed offset that is the system's at ``now`` (what
``datetime.now().astimezone()`` gives) follows the system's rules; any other fixed
offset is kept as it is. The seconds are bounded to 1 second .. 365 days like the tag's.

The reminder's text is what is left after the request once the time words are taken
out ("to call my mum" -> "call my mum", "an den Arzt" -> "den Arzt", "que llame a mi
madre" -> "llame a mi madre"); in Japanese what comes before the request ("薬を飲むことを"
-> "薬を飲むこと"); "your reminder" when nothing is left.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from companion_desktop.engine.parse import (
    MAX_REMINDER_TEXT,
    REMINDER_MAX_SECONDS,
    REMINDER_MIN_SECONDS,
    ReminderRequest,
)

DEFAULT_TEXT = "your reminder"
#: The hour a day named with no time of day is read at ("tomorrow", "on Friday").
DEFAULT_HOUR = 9
#: Parts of the day: the minute of the day each stands for alone, and how an hour said
#: with it is read (see :func:`_read_hour`).
PERIODS: dict[str, tuple[int, str]] = {
    "morning": (9 * 60, "am"),
    "noon": (12 * 60, "noon"),
    "afternoon": (15 * 60, "pm"),
    "dusk": (18 * 60, "pm"),
    "evening": (19 * 60, "evening"),
    "night": (20 * 60, "night"),
}
#: An hour 6-11 with no am/pm on a later day is a morning hour from this hour on.
_MORNING_FROM = 7


def _alt(words: Mapping[str, object] | tuple[str, ...]) -> str:
    """A regex alternation of ``words``, longest first, spaces matching any spaces."""
    return "|".join(
        sorted((re.escape(w).replace(r"\ ", r"\s+") for w in words), key=len, reverse=True)
    )


# --- the parts a time phrase is made of --------------------------------------------------


@dataclass(frozen=True)
class _Day:
    offset: int | None = None  # days after today; below 0: in the past
    weekday: int | None = None  # 0 Monday .. 6 Sunday
    mode: str = "coming"  # weekday: "coming" (today while ahead), "next", "next_week"
    month: int = 0  # a date: month and day of the month, and its year if said
    mday: int = 0
    year: int | None = None


@dataclass(frozen=True)
class _Clock:
    hour: int  # 0..24 (24: the end of the day)
    minute: int = 0
    fixed: bool = False  # a 24-hour time already (am/pm said, 0, 13-24, a leading zero)


@dataclass(frozen=True)
class _Parts:
    day: _Day | None = None
    period: str | None = None
    clock: _Clock | None = None
    bad: bool = False  # a time that cannot be ("25:00", "13pm", "31 February")


_BAD = _Parts(bad=True)
_Handler = Callable[[re.Match[str]], _Parts]


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    parts: _Parts


def _number(raw: str, words: Mapping[str, int]) -> int:
    raw = " ".join(raw.lower().split())
    return words[raw] if raw in words else int(raw)


def _clock(hour: int, minute: int = 0, meridiem: str | None = None,
           leading_zero: bool = False) -> _Parts:
    """The clock part for ``hour:minute``; ``meridiem`` "am"/"pm" when said."""
    if not 0 <= minute <= 59:
        return _BAD
    if meridiem is not None:
        if not 0 <= hour <= 12:
            return _BAD
        return _Parts(clock=_Clock(hour % 12 + (12 if meridiem == "pm" else 0), minute, True))
    if hour > 24 or (hour == 24 and minute):
        return _BAD
    return _Parts(clock=_Clock(hour, minute, hour == 0 or hour >= 13 or leading_zero))


def _hm(hour: str, minute: str | None, words: Mapping[str, int],
        meridiem: str | None = None) -> _Parts:
    zero = len(hour) == 2 and hour.startswith(("0", "０"))
    return _clock(_number(hour, words), int(minute or 0), meridiem, zero)


def _before(hour: int) -> int:
    """The hour before ``hour`` on a 12-hour face ("quarter to one" is 12:45)."""
    return hour - 1 if hour != 1 else 12


def _with_period(parts: _Parts, period: str | None) -> _Parts:
    if period is None or parts.bad:
        return parts
    return _Parts(parts.day, period, parts.clock)


def _date(day: str, month: str, year: str | None, months: Mapping[str, int]) -> _Parts:
    number = _number(month, months)
    full = int(year) if year else None
    if full is not None and full < 100:
        full += 2000
    try:
        date(full or 2000, number, int(day))  # 2000: a leap year, so 29 February is a day
    except ValueError:
        return _BAD
    return _Parts(day=_Day(month=number, mday=int(day), year=full))


def _offset(days: int, period: str | None = None) -> _Parts:
    return _Parts(day=_Day(offset=days), period=period)


_PAST = _offset(-1)


def _weekday(number: int, mode: str, period: str | None = None) -> _Parts:
    return _Parts(day=_Day(weekday=number, mode=mode), period=period)


# --- English ------------------------------------------------------------------------------

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

_WORD_ALT = _alt(_WORDS)
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

_EN_HOURS = {w: int(n) for w, n in _WORDS.items() if w.isalpha() and len(w) > 2 and n <= 12}
_EN_HOUR = rf"\d{{1,2}}|{_alt(_EN_HOURS)}"
_EN_MER = r"[ap]\.?m\.?"
_EN_OCLOCK = r"o['’]?clock"
_EN_WEEKDAYS = {name: n for n, name in enumerate(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))}
_EN_WD = _alt(_EN_WEEKDAYS)
_EN_PERIODS = {"morning": "morning", "afternoon": "afternoon", "evening": "evening",
               "night": "night"}
_EN_PER = _alt(_EN_PERIODS)
_EN_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}
_EN_MON = _alt(_EN_MONTHS)
#: What may follow an hour said alone ("at 7 to take my pills", not "look at 2 options").
_EN_FOLLOW = (r"(?=\s*(?:$|[,.;:!?)]|(?:to|and|in|on|at|by|tomorrow|tonight|today|this|next"
              rf"|please|about|that|for|so|{_EN_WD})\b))")


def _en_meridiem(raw: str | None) -> str | None:
    return None if raw is None else ("am" if raw[0].lower() == "a" else "pm")


def _en_period(raw: str | None) -> str | None:
    return None if raw is None else _EN_PERIODS[raw.lower()]


def _en_clock(m: re.Match[str]) -> _Parts:
    if m["rel"]:
        hour = _number(m["rh"], _EN_HOURS)
        if m["rel"].lower() == "half":
            return _clock(hour, 30)
        if m["dir"].lower() == "to":
            return _clock(_before(hour), 45)
        return _clock(hour, 15)
    return _hm(m["h"] or m["h2"] or m["h3"], m["m"] or m["m2"], _EN_HOURS,
               _en_meridiem(m["mer"]))


def _en_weekday(m: re.Match[str]) -> _Parts:
    mod = (m["mod"] or "").lower()
    return _weekday(_EN_WEEKDAYS[m["wd"].lower()], "next" if mod == "next" else "coming",
                    _en_period(m["p"]))


_EN_TIMES: tuple[tuple[str, _Handler], ...] = (
    (rf"\b(?:at|around)\s+(?:about\s+|around\s+)?(?:"
     rf"(?P<rel>half|(?:a\s+)?quarter)\s+(?P<dir>past|after|to)\s+(?P<rh>{_EN_HOUR})"
     rf"|(?P<h>{_EN_HOUR})(?:[:.](?P<m>\d{{2}}))?\s*(?P<mer>{_EN_MER})(?:\s*{_EN_OCLOCK})?"
     rf"|(?P<h2>\d{{1,2}})[:.](?P<m2>\d{{2}})(?:\s*{_EN_OCLOCK})?"
     rf"|(?P<h3>{_EN_HOUR})(?:\s*{_EN_OCLOCK}|{_EN_FOLLOW}))(?!\w)", _en_clock),
    (rf"\b(?P<h>\d{{1,2}})(?:[:.](?P<m>\d{{2}}))?\s*(?P<mer>{_EN_MER})(?!\w)"
     rf"|\b(?P<h2>\d{{1,2}}):(?P<m2>\d{{2}})(?:\s*(?P<mer2>{_EN_MER}))?(?!\w)",
     lambda m: _hm(m["h"] or m["h2"], m["m"] or m["m2"], {},
                   _en_meridiem(m["mer"] or m["mer2"]))),
    (r"\b(?:at\s+|around\s+)?(?:(?P<noon>noon|midday|lunchtime)|midnight)\b",
     lambda m: _clock(12) if m["noon"] else _clock(24)),
    (rf"\b(?:the\s+)?day\s+after\s+tomorrow(?:\s+(?P<p>{_EN_PER}))?\b",
     lambda m: _offset(2, _en_period(m["p"]))),
    (rf"\b(?:tomorrow|tmrw)(?:\s+(?P<p>{_EN_PER}))?\b",
     lambda m: _offset(1, _en_period(m["p"]))),
    (r"\btonight\b", lambda m: _offset(0, "night")),
    (r"\b(?:later\s+)?today\b", lambda m: _offset(0)),
    (r"\bthis\s+(?P<p>morning|afternoon|evening)\b", lambda m: _offset(0, _en_period(m["p"]))),
    (rf"\b(?:yesterday|last\s+(?:night|week|month|year|{_EN_WD}))\b", lambda m: _PAST),
    (rf"(?:\b(?:on\s+)?(?P<mod>this\s+coming|this|next|coming)\s+|\bon\s+"
     rf"|\b(?=(?:{_EN_WD})\s+(?:{_EN_PER}|at)\b))"
     rf"(?P<wd>{_EN_WD})\b(?:\s+(?P<p>{_EN_PER})\b)?", _en_weekday),
    (rf"\b(?:in|during)\s+the\s+(?P<p>{_EN_PER})\b|\bat\s+(?P<n>night)\b",
     lambda m: _Parts(period=_en_period(m["p"] or m["n"]))),
    (rf"\b(?:on\s+)?(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+(?P<mon>{_EN_MON})\b"
     rf"(?:,?\s+(?P<y>\d{{4}})\b)?",
     lambda m: _date(m["d"], m["mon"], m["y"], _EN_MONTHS)),
    (rf"\b(?:on\s+)?(?P<mon>{_EN_MON})\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
     rf"(?:,?\s+(?P<y>\d{{4}})\b)?",
     lambda m: _date(m["d"], m["mon"], m["y"], _EN_MONTHS)),
    (r"\b(?:on\s+)?(?P<y>\d{4})-(?P<mon>\d{1,2})-(?P<d>\d{1,2})\b",
     lambda m: _date(m["d"], m["mon"], m["y"], {})),
)


# --- German -------------------------------------------------------------------------------

_DE_HOURS = {"ein": 1, "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "fuenf": 5,
             "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11,
             "zwölf": 12, "zwoelf": 12}
_DE_WORDS: dict[str, float] = {
    **{w: float(n) for w, n in _DE_HOURS.items()},
    "eine": 1, "einer": 1, "einem": 1, "fünfzehn": 15, "zwanzig": 20, "dreißig": 30,
    "dreissig": 30, "vierzig": 40, "fünfundvierzig": 45, "sechzig": 60, "neunzig": 90,
    "anderthalb": 1.5, "eineinhalb": 1.5, "ein paar": 3, "paar": 3,
}
_DE_UNITS: dict[str, int] = {
    **dict.fromkeys(("s", "sek", "sekunde", "sekunden"), 1),
    **dict.fromkeys(("min", "minute", "minuten"), 60),
    **dict.fromkeys(("h", "std", "stunde", "stunden"), 3600),
    **dict.fromkeys(("tag", "tage", "tagen"), 86400),
}
_DE_DURATION = re.compile(
    rf"""\b(?:in|nach)\s+
    (?:
        (?P<half>(?:einer|['’]?ner)\s+halben\s+)(?P<half_unit>stunde|minute)
      | (?P<amount>\d+(?:[.,]\d+)?|{_alt(_DE_WORDS)})\s*(?P<unit>{_alt(_DE_UNITS)})
        (?P<and_half>\s+und\s+(?:einer|eine)\s+halbe[n]?)?
    )\b""",
    re.I | re.X,
)
_DE_HALF_UNITS = {"stunde": 3600, "minute": 60}
_DE_REMIND = re.compile(
    r"\b(?:erinnere|erinner|erinnre)\s+mich\b|\berinnerst\s+du\s+mich\b"
    r"|\b(?:kannst|könntest|koenntest|würdest|wuerdest)\s+du\s+mich\b(?=.*\berinnern\b)",
    re.I | re.S,
)
_DE_PUNCT = r"[,:;.!?\-–]"
_DE_LEAD = re.compile(rf"^(?:\s|{_DE_PUNCT})*(?:(?:bitte|doch|mal|noch|daran|dran|an|dass)"
                      rf"\b(?:\s|,)*)*", re.I)
_DE_TRAIL = re.compile(rf"(?:\s|{_DE_PUNCT})*(?:\b(?:bitte|danke|erinnern|ok(?:ay)?)\b)?"
                       rf"(?:\s|{_DE_PUNCT})*$", re.I)
_DE_HOUR = rf"\d{{1,2}}|{_alt(_DE_HOURS)}"
_DE_WEEKDAYS = {"montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4,
                "samstag": 5, "sonnabend": 5, "sonntag": 6}
_DE_WD = _alt(_DE_WEEKDAYS)
_DE_NOUNS = {"früh": "morning", "frueh": "morning", "morgen": "morning",
             "vormittag": "morning", "mittag": "noon", "nachmittag": "afternoon",
             "abend": "evening", "nacht": "night"}
_DE_NOUN = _alt(_DE_NOUNS)
_DE_ADVERBS = {"morgens": "morning", "früh": "morning", "frueh": "morning",
               "vormittags": "morning", "mittags": "noon", "nachmittags": "afternoon",
               "abends": "evening", "nachts": "night"}
_DE_ADVERB = rf"{_alt(_DE_ADVERBS)}|in\s+der\s+nacht|am\s+(?:{_DE_NOUN})"
_DE_MONTHS = {
    "januar": 1, "jänner": 1, "jaenner": 1, "jan": 1, "februar": 2, "feb": 2, "märz": 3,
    "maerz": 3, "mär": 3, "april": 4, "apr": 4, "mai": 5, "juni": 6, "jun": 6, "juli": 7,
    "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9, "oktober": 10,
    "okt": 10, "november": 11, "nov": 11, "dezember": 12, "dez": 12,
}


def _de_period(raw: str | None) -> str | None:
    if raw is None:
        return None
    raw = " ".join(raw.lower().split())
    if raw == "in der nacht":
        return "night"
    if raw.startswith("am "):
        return _DE_NOUNS[raw[3:]]
    return _DE_ADVERBS.get(raw) or _DE_NOUNS[raw]


def _de_clock(m: re.Match[str]) -> _Parts:
    period = _de_period(m["p"])
    if m["rel"]:
        hour = _number(m["rh"], _DE_HOURS)
        rel = " ".join(m["rel"].lower().split())
        if rel == "halb":
            parts = _clock(_before(hour), 30)
        elif rel == "viertel nach":
            parts = _clock(hour, 15)
        else:  # viertel vor, dreiviertel
            parts = _clock(_before(hour), 45)
    else:
        parts = _hm(m["h"] or m["h2"] or m["h3"], m["m"] or m["m2"] or m["m3"], _DE_HOURS)
    return _with_period(parts, period)


def _de_weekday(m: re.Match[str]) -> _Parts:
    mod = (m["mod"] or "").lower()
    mode = "next_week" if m["nw"] else "next" if mod.startswith("n") else "coming"
    return _weekday(_DE_WEEKDAYS[m["wd"].lower()], mode, _de_period(m["p"] or m["p2"]))


_DE_TIMES: tuple[tuple[str, _Handler], ...] = (
    (rf"\b(?:um|gegen)\s+(?:ca\.?\s+|circa\s+|etwa\s+)?(?:"
     rf"(?P<rel>halb|viertel\s+nach|viertel\s+vor|dreiviertel)\s+(?P<rh>{_DE_HOUR})"
     rf"|(?P<h>{_DE_HOUR})(?:[:.](?P<m>\d{{2}}))?\s*uhr(?:\s+(?P<m2>\d{{1,2}}))?"
     rf"|(?P<h2>\d{{1,2}})(?:[:.](?P<m3>\d{{2}}))?"
     rf"|(?P<h3>{_alt(_DE_HOURS)})(?!\s+(?-i:[A-ZÄÖÜ])))(?!\w)"
     rf"(?:\s+(?P<p>{_DE_ADVERB})\b)?", _de_clock),
    (rf"\b(?P<h>\d{{1,2}})(?:[:.](?P<m>\d{{2}}))?\s*uhr\b(?:\s+(?P<m2>\d{{1,2}})\b)?"
     rf"(?:\s+(?P<p>{_DE_ADVERB})\b)?|\b(?P<h2>\d{{1,2}}):(?P<m3>\d{{2}})(?:\s*uhr)?\b",
     lambda m: _with_period(_hm(m["h"] or m["h2"], m["m"] or m["m2"] or m["m3"], {}),
                            _de_period(m["p"]))),
    (r"\b(?:um|gegen|zu)\s+(?P<noon>mittag)\b|\b(?:um\s+|gegen\s+)?mitternacht\b",
     lambda m: _clock(12) if m["noon"] else _clock(24)),
    (rf"\b(?:übermorgen|uebermorgen)(?:\s+(?P<p>{_DE_NOUN}))?\b",
     lambda m: _offset(2, _de_period(m["p"]))),
    (rf"(?<!guten\s)\bmorgen(?:\s+(?P<p>{_DE_NOUN}))?\b",
     lambda m: _offset(1, _de_period(m["p"]))),
    (rf"\bheute(?:\s+(?P<p>{_DE_NOUN}))?\b", lambda m: _offset(0, _de_period(m["p"]))),
    (rf"\b(?:vorgestern|gestern|letzte[nrsm]?\s+(?:woche|nacht|{_DE_WD}))\b", lambda m: _PAST),
    (rf"(?:\b(?P<nw>nächste|naechste|kommende)\s+woche\s+(?:am\s+)?"
     rf"|\b(?:am\s+)?(?P<mod>nächsten|naechsten|kommenden|diesen|diesem)\s+|\bam\s+"
     rf"|\b(?=(?:{_DE_WD})(?:(?:{_DE_NOUN})\b|\s+(?:um|gegen|{_DE_NOUN}|{_DE_ADVERB})\b)))"
     rf"(?P<wd>{_DE_WD})(?P<p>{_DE_NOUN})?\b(?:\s+(?P<p2>{_DE_NOUN}|{_DE_ADVERB})\b)?",
     _de_weekday),
    (rf"\b(?P<p>{_DE_ADVERB})\b", lambda m: _Parts(period=_de_period(m["p"]))),
    (rf"\b(?:am\s+)?(?P<d>\d{{1,2}})\.\s*(?P<mon>{_alt(_DE_MONTHS)})\b(?:\s+(?P<y>\d{{4}})\b)?",
     lambda m: _date(m["d"], m["mon"], m["y"], _DE_MONTHS)),
    (r"\b(?:am\s+)?(?P<d>\d{1,2})\.(?P<mon>\d{1,2})\.(?:(?P<y>\d{4}|\d{2})\b)?",
     lambda m: _date(m["d"], m["mon"], m["y"], {})),
)


# --- Spanish ------------------------------------------------------------------------------

_ES_HOURS = {"una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
             "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12}
_ES_WORDS: dict[str, float] = {
    **{w: float(n) for w, n in _ES_HOURS.items()},
    "un": 1, "quince": 15, "veinte": 20, "treinta": 30, "cuarenta y cinco": 45,
    "sesenta": 60, "noventa": 90, "un par de": 2, "unos": 2, "unas": 2,
}
_ES_UNITS: dict[str, int] = {
    **dict.fromkeys(("s", "seg", "segundo", "segundos"), 1),
    **dict.fromkeys(("min", "minuto", "minutos"), 60),
    **dict.fromkeys(("h", "hora", "horas"), 3600),
    **dict.fromkeys(("día", "días", "dia", "dias"), 86400),
}
_ES_DURATION = re.compile(
    rf"""\b(?:en|dentro\s+de)\s+
    (?:
        (?P<half>media\s+)(?P<half_unit>hora)
      | (?P<amount>\d+(?:[.,]\d+)?|{_alt(_ES_WORDS)})\s*(?P<unit>{_alt(_ES_UNITS)})
        (?P<and_half>\s+y\s+media)?
    )\b""",
    re.I | re.X,
)
_ES_HALF_UNITS = {"hora": 3600}
_ES_REMIND = re.compile(r"\brecu[eé]rd[ae]me\b|\brecordarme\b"
                        r"|\bme\s+(?:recuerdas|recordar[aá]s|puedes\s+recordar)\b", re.I)
_ES_PUNCT = r"[,:;.!?¿¡\-–]"
_ES_LEAD = re.compile(rf"^(?:\s|{_ES_PUNCT})*(?:(?:que|de|para|por\s+favor|porfa)\b\s*)*",
                      re.I)
_ES_TRAIL = re.compile(rf"(?:\s|{_ES_PUNCT})*(?:\b(?:por\s+favor|porfa|gracias|vale)\b)?"
                       rf"(?:\s|{_ES_PUNCT})*$", re.I)
_ES_HOUR = rf"\d{{1,2}}|{_alt(_ES_HOURS)}"
_ES_WEEKDAYS = {"lunes": 0, "martes": 1, "miércoles": 2, "miercoles": 2, "jueves": 3,
                "viernes": 4, "sábado": 5, "sabado": 5, "domingo": 6}
_ES_WD = _alt(_ES_WEEKDAYS)
_ES_PER = r"ma[ñn]ana|tarde|noche"
_ES_MONTHS = {
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7,
    "agosto": 8, "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11,
    "diciembre": 12,
}


def _es_period(raw: str | None) -> str | None:
    if raw is None:
        return None
    raw = raw.lower()
    return "afternoon" if raw == "tarde" else "night" if raw == "noche" else "morning"


def _es_clock(m: re.Match[str]) -> _Parts:
    hour = _number(m["h"], _ES_HOURS)
    minute = int(m["m"] or 0)
    if m["plus"]:
        plus = m["plus"].lower()
        minute = 30 if plus == "media" else 15 if plus == "cuarto" else int(plus)
    elif m["minus"]:
        minus = m["minus"].lower()
        hour, minute = _before(hour), 60 - (15 if minus == "cuarto" else int(minus))
    zero = len(m["h"]) == 2 and m["h"].startswith("0")
    return _with_period(_clock(hour, minute, None, zero), _es_period(m["p"]))


def _es_weekday(m: re.Match[str]) -> _Parts:
    if m["past"]:
        return _PAST
    mode = "next" if m["mod"] or m["next"] else "coming"
    return _weekday(_ES_WEEKDAYS[m["wd"].lower()], mode, _es_period(m["p"]))


_ES_TIMES: tuple[tuple[str, _Handler], ...] = (
    (rf"\ba\s+(?:eso\s+de\s+)?las?\s+(?P<h>{_ES_HOUR})(?:[:.](?P<m>\d{{2}}))?"
     rf"(?:\s+y\s+(?P<plus>media|cuarto|\d{{1,2}})|\s+menos\s+(?P<minus>cuarto|\d{{1,2}}))?"
     rf"(?:\s*(?:h|hs|horas|en\s+punto))?(?!\w)(?:\s+(?:de|por|en)\s+la\s+(?P<p>{_ES_PER}))?",
     _es_clock),
    (r"\b(?P<h>\d{1,2}):(?P<m>\d{2})(?:\s*(?:h|hs|horas))?(?!\w)",
     lambda m: _hm(m["h"], m["m"], {})),
    (r"\bal\s+(?P<noon>mediod[ií]a)\b|\ba\s+(?:la\s+)?medianoche\b",
     lambda m: _clock(12) if m["noon"] else _clock(24)),
    (rf"\bpasado\s+ma[ñn]ana(?:\s+(?:por|en)\s+la\s+(?P<p>{_ES_PER}))?\b",
     lambda m: _offset(2, _es_period(m["p"]))),
    (rf"(?<!la\s)\bma[ñn]ana(?:\s+(?:por|en)\s+la\s+(?P<p>{_ES_PER}))?\b",
     lambda m: _offset(1, _es_period(m["p"]))),
    (rf"\bhoy(?:\s+(?:por|en)\s+la\s+(?P<p>{_ES_PER}))?\b",
     lambda m: _offset(0, _es_period(m["p"]))),
    (rf"\besta\s+(?P<p>{_ES_PER})\b", lambda m: _offset(0, _es_period(m["p"]))),
    (r"\b(?:anteayer|ayer|anoche|antes\s+de\s+ayer)\b", lambda m: _PAST),
    (rf"(?:\b(?:el|este)\s+(?:(?P<mod>pr[oó]ximo)\s+)?|\b(?=(?:{_ES_WD})\s+(?:a\s+las?|por|en)\b))"
     rf"(?P<wd>{_ES_WD})\b(?:(?P<next>\s+que\s+viene|\s+pr[oó]ximo)|(?P<past>\s+pasado))?\b"
     rf"(?:\s+(?:por|en)\s+la\s+(?P<p>{_ES_PER})\b)?", _es_weekday),
    (rf"\b(?:por|en|de)\s+la\s+(?P<p>{_ES_PER})\b", lambda m: _Parts(period=_es_period(m["p"]))),
    (rf"\b(?:el\s+)?(?:d[ií]a\s+)?(?P<d>\d{{1,2}})\s+de\s+(?P<mon>{_alt(_ES_MONTHS)})\b"
     rf"(?:\s+(?:de|del)\s+(?P<y>\d{{4}})\b)?",
     lambda m: _date(m["d"], m["mon"], m["y"], _ES_MONTHS)),
)


# --- Japanese -----------------------------------------------------------------------------

_JA_WORDS: dict[str, float] = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
                               "八": 8, "九": 9, "十": 10}
_JA_UNITS: dict[str, int] = {"秒": 1, "分": 60, "時間": 3600, "日": 86400}
_JA_END = r"(?:には|に|、)?"
_JA_DURATION = re.compile(
    rf"(?P<amount>\d+(?:[.．]\d+)?|{_alt(_JA_WORDS)})\s*(?P<unit>秒|分|時間|日)"
    rf"(?P<and_half>半)?後(?:ぐらい|くらい)?{_JA_END}"
)
_JA_REMIND = re.compile(
    r"(?:リマインド(?:して)?|思い出させて|教えて|知らせて|お知らせして|通知して)"
    r"(?:ください|下さい|くれる|くれない|くれ|ほしい|欲しい|もらえる|ね)?"
)
#: Request words that also mean "tell me": the time must end in に or 、 with them.
_JA_STRICT = ("教え", "知らせ", "お知らせ", "通知")
_JA_PUNCT = r"[、。,.!?！？・]"
_JA_LEAD = re.compile(rf"^(?:\s|{_JA_PUNCT})*")
_JA_TRAIL = re.compile(rf"(?:\s|{_JA_PUNCT})*(?:のを|ように|って|(?<=て)と|を)?"
                       rf"(?:\s|{_JA_PUNCT})*$")
_JA_WEEKDAYS = {"月": 0, "火": 1, "水": 2, "木": 3, "金": 4, "土": 5, "日": 6}
_JA_NOUNS = {"朝": "morning", "昼": "afternoon", "夕方": "dusk", "夜": "night",
             "晩": "night", "午前中": "morning", "午後": "afternoon"}
_JA_PER = r"夕方|朝|昼|夜|晩"


def _ja_period(raw: str | None) -> str | None:
    return None if raw is None else _JA_NOUNS[raw]


def _ja_clock(m: re.Match[str]) -> _Parts:
    mer = m["mer"]
    minute = "30" if m.groupdict().get("half") else m["m"]
    if mer in ("午前", "午後"):
        return _hm(m["h"], minute, {}, "am" if mer == "午前" else "pm")
    return _with_period(_hm(m["h"], minute, {}), _ja_period(mer))


def _ja_weekday(m: re.Match[str]) -> _Parts:
    mod = m["mod"] or ""
    mode = "next_week" if mod.startswith("来週") else "next" if mod == "次の" else "coming"
    return _weekday(_JA_WEEKDAYS[m["wd"]], mode, _ja_period(m["p"]))


_JA_DAY_TAIL = rf"(?:の?(?P<p>{_JA_PER}))?(?:の|には|に|、)?"
_JA_TIMES: tuple[tuple[str, _Handler], ...] = (
    (rf"(?:(?P<mer>午前|午後|{_JA_PER})の?)?(?P<h>\d{{1,2}})\s*時(?!間)"
     rf"(?:(?P<m>\d{{1,2}})\s*分|(?P<half>半))?(?:ごろ|頃)?{_JA_END}", _ja_clock),
    (rf"(?:(?P<mer>午前|午後)の?)?(?P<h>\d{{1,2}})[:：](?P<m>\d{{2}})"
     rf"(?:ごろ|頃)?{_JA_END}", _ja_clock),
    (rf"(?:(?P<noon>正午|(?:お昼|昼)(?=[に、]))|真夜中){_JA_END}",
     lambda m: _clock(12) if m["noon"] else _clock(24)),
    (rf"(?:明後日|あさって){_JA_DAY_TAIL}", lambda m: _offset(2, _ja_period(m["p"]))),
    (rf"(?:明日|あした){_JA_DAY_TAIL}", lambda m: _offset(1, _ja_period(m["p"]))),
    (rf"(?:今日|きょう){_JA_DAY_TAIL}", lambda m: _offset(0, _ja_period(m["p"]))),
    (rf"(?:今夜|今晩){_JA_END}", lambda m: _offset(0, "night")),
    (rf"今朝{_JA_END}", lambda m: _offset(0, "morning")),
    (r"一昨日|おととい|昨日|きのう|昨夜|昨晩|先週", lambda m: _PAST),
    (rf"(?P<mod>来週の?|今週の?|次の|今度の)?(?P<wd>[月火水木金土日])曜(?:日)?{_JA_DAY_TAIL}",
     _ja_weekday),
    (r"(?:(?P<y>\d{4})年)?(?P<mon>\d{1,2})月(?P<d>\d{1,2})日(?:の|には|に|、)?",
     lambda m: _date(m["d"], m["mon"], m["y"], {})),
    (r"(?P<p>午前中|午後|夕方|朝|夜|晩)(?:には|に|、)",
     lambda m: _Parts(period=_ja_period(m["p"]))),
)


# --- reading a message --------------------------------------------------------------------


@dataclass(frozen=True)
class _Language:
    trigger: re.Pattern[str]
    duration: re.Pattern[str]
    words: Mapping[str, float]
    units: Mapping[str, int]
    half_units: Mapping[str, int]
    times: tuple[tuple[re.Pattern[str], _Handler], ...]
    lead: re.Pattern[str]
    trail: re.Pattern[str]
    text_after: bool = True  # the reminder's text follows the request (not in Japanese)


def _compiled(table: tuple[tuple[str, _Handler], ...],
              flags: int = re.I) -> tuple[tuple[re.Pattern[str], _Handler], ...]:
    return tuple((re.compile(pattern, flags), handler) for pattern, handler in table)


_LANGUAGES = (
    _Language(_REMIND_ME, _DURATION, _WORDS, _UNITS, _UNITS, _compiled(_EN_TIMES), _LEAD,
              _TRAIL),
    _Language(_DE_REMIND, _DE_DURATION, _DE_WORDS, _DE_UNITS, _DE_HALF_UNITS,
              _compiled(_DE_TIMES), _DE_LEAD, _DE_TRAIL),
    _Language(_ES_REMIND, _ES_DURATION, _ES_WORDS, _ES_UNITS, _ES_HALF_UNITS,
              _compiled(_ES_TIMES), _ES_LEAD, _ES_TRAIL),
    _Language(_JA_REMIND, _JA_DURATION, _JA_WORDS, _JA_UNITS, {}, _compiled(_JA_TIMES, 0),
              _JA_LEAD, _JA_TRAIL, text_after=False),
)


def _seconds(match: re.Match[str], language: _Language = _LANGUAGES[0]) -> int | None:
    groups = match.groupdict()
    if groups.get("half"):
        amount, unit = 0.5, language.half_units[match.group("half_unit").lower()]
    else:
        raw = " ".join(match.group("amount").lower().split())
        if raw in language.words:
            amount = language.words[raw]
        else:
            try:
                amount = float(raw.replace(",", ".").replace("．", "."))
            except ValueError:
                return None
        if groups.get("and_half"):
            amount += 0.5
        unit = language.units[match.group("unit").lower()]
    return int(min(REMINDER_MAX_SECONDS, max(REMINDER_MIN_SECONDS, round(amount * unit))))


def _clean(text: str, lead: re.Pattern[str] = _LEAD, trail: re.Pattern[str] = _TRAIL) -> str:
    text = " ".join(text.split())
    previous = None
    while previous != text:
        previous = text
        text = lead.sub("", text)
        text = trail.sub("", text).strip()
    return text[:MAX_REMINDER_TEXT].strip()


def _region(message: str, request: re.Match[str], language: _Language) -> tuple[int, int]:
    """Where the reminder's text is: after the request (before it in Japanese)."""
    return (request.end(), len(message)) if language.text_after else (0, request.start())


def _text(message: str, request: re.Match[str], spans: list[tuple[int, int]],
          language: _Language) -> str:
    """What the message says to be reminded of: its :func:`_region` without ``spans``,
    cleaned; DEFAULT_TEXT when nothing is left."""
    start, end = _region(message, request, language)
    pieces, position = [], start
    for span_start, span_end in sorted(spans):
        if span_end <= start or span_start >= end:
            continue
        pieces.append(message[position:max(position, span_start)])
        position = max(position, span_end)
    pieces.append(message[position:end])
    return _clean(" ".join(pieces), language.lead, language.trail) or DEFAULT_TEXT


def _hits(message: str, language: _Language) -> list[_Hit]:
    """The time words of ``message``: where two overlap, the one starting first (then the
    longer, then the one listed first) is kept."""
    found = []
    for index, (pattern, handler) in enumerate(language.times):
        for match in pattern.finditer(message):
            if match.end() > match.start():
                found.append((match.start(), -match.end(), index, match, handler))
    found.sort(key=lambda item: item[:3])
    hits: list[_Hit] = []
    for start, _end, _index, match, handler in found:
        if hits and start < hits[-1].end:
            continue
        hits.append(_Hit(start, match.end(), handler(match)))
    return hits


def _read_hour(hour: int, reading: str) -> int:
    """``hour`` (1-12, no am/pm) read in a part of the day; may be 24 or more (the next
    morning: "um 1 nachts")."""
    if reading == "am":
        return 0 if hour == 12 else hour
    if reading == "pm":
        return hour if hour == 12 else hour + 12
    if reading == "noon":
        return hour if hour >= 10 else hour + 12
    if reading == "evening":
        return 24 if hour == 12 else hour + 12
    return 24 if hour == 12 else 24 + hour if hour <= 4 else hour + 12  # night


def _minutes(clock: _Clock | None, period: str | None) -> list[int]:
    """The minutes of the day the words may mean, earliest first."""
    if clock is None:
        return [PERIODS[period][0] if period else DEFAULT_HOUR * 60]
    hour = clock.hour
    if clock.fixed or hour == 0 or hour > 12:
        hours = [hour]
    elif period is not None:
        hours = [_read_hour(hour, PERIODS[period][1])]
    elif hour == 12:
        hours = [12]
    elif hour <= 5:
        hours = [hour + 12]
    else:
        hours = [hour, hour + 12]
    return [h * 60 + clock.minute for h in hours]


def _local(now: datetime, day: date, minutes: int) -> datetime:
    """The wall-clock time ``minutes`` after the start of ``day`` in ``now``'s time zone."""
    wall = datetime(day.year, day.month, day.day) + timedelta(minutes=minutes)
    tz = now.tzinfo
    if isinstance(tz, timezone) and now.astimezone().utcoffset() == now.utcoffset():
        return wall.astimezone()  # the system's offset on that day
    return wall.replace(tzinfo=tz)


def _until(now: datetime, target: datetime) -> timedelta:
    """From ``now`` to ``target`` on the UTC time line (wall clocks when both are naive)."""
    if now.tzinfo is None or target.tzinfo is None:
        return target.replace(tzinfo=None) - now.replace(tzinfo=None)
    return target.astimezone(timezone.utc) - now.astimezone(timezone.utc)


def _target(day: _Day | None, minutes: list[int], now: datetime) -> datetime | None:
    today = now.date()

    def ahead(on: date) -> datetime | None:
        for minute in minutes:
            target = _local(now, on, minute)
            if _until(now, target) > timedelta(0):
                return target
        return None

    def later(on: date) -> datetime:
        morning = [m for m in minutes if m >= _MORNING_FROM * 60]
        return _local(now, on, morning[0] if morning else minutes[-1])

    if day is None:  # yesterday's too: "um 1 nachts" at 0:30 is today's 25:00 - 24 hours
        return next(filter(None, (ahead(today + timedelta(days=n)) for n in (-1, 0, 1))), None)
    if day.offset is not None:
        if day.offset < 0:
            return None
        on = today + timedelta(days=day.offset)
        return ahead(on) if day.offset == 0 else later(on)
    if day.weekday is not None:
        days = (day.weekday - today.weekday()) % 7
        if day.mode == "next_week":
            days = 7 - today.weekday() + day.weekday
        elif days == 0:
            found = ahead(today) if day.mode == "coming" else None
            if found is not None:
                return found
            days = 7
        return later(today + timedelta(days=days))
    year = day.year if day.year is not None else today.year
    for candidate in (year, year + 1):
        try:
            on = date(candidate, day.month, day.mday)
        except ValueError:
            continue
        if on > today:
            return later(on)
        found = ahead(on) if on == today else None
        if found is not None or day.year is not None:
            return found
    return None


def _absolute(message: str, request: re.Match[str], language: _Language,
              now: datetime) -> ReminderRequest | None:
    day: _Day | None = None
    period: str | None = None
    clock: _Clock | None = None
    used: list[_Hit] = []
    start, end = _region(message, request, language)
    hits = sorted(_hits(message, language), key=lambda hit: not start <= hit.start < end)
    for hit in hits:  # those with the reminder's text first ("yesterday ..., remind me ...")
        parts = hit.parts
        if parts.bad:
            return None
        if ((parts.day and day) or (parts.period and period) or (parts.clock and clock)):
            continue  # a second day or time: left in the text
        day, period, clock = day or parts.day, period or parts.period, clock or parts.clock
        used.append(hit)
    if not used:
        return None
    if not language.text_after and request.group().startswith(_JA_STRICT):
        if not any(message[hit.start:hit.end].endswith(("に", "、")) for hit in used):
            return None  # "明日の天気を教えて" asks about tomorrow, not for a reminder
    target = _target(day, _minutes(clock, period), now)
    if target is None:
        return None
    whole, rest = divmod(_until(now, target), timedelta(seconds=1))
    seconds = whole + (1 if rest else 0)
    if seconds < REMINDER_MIN_SECONDS:
        return None
    seconds = min(REMINDER_MAX_SECONDS, seconds)
    return ReminderRequest(seconds, _text(message, request, [(h.start, h.end) for h in used],
                                          language))


def asks_for_reminder(user_message: str) -> bool:
    """True when ``user_message`` asks to be reminded ("remind me", "erinnere mich",
    "recuérdame", "リマインドして"...), with or without a time."""
    return any(language.trigger.search(user_message) for language in _LANGUAGES)


def natural_reminder(user_message: str, now: datetime | None = None) -> ReminderRequest | None:
    """The reminder ``user_message`` asks for in plain words, or None.

    Needs a request ("remind me", "erinnere mich", "recuérdame", "リマインドして"...) and a
    delay ("in 10 minutes") or, when ``now`` (an aware datetime in the user's local time
    zone) is given, a time or day ("tomorrow at 6pm"); see the module's docstring. The
    text is what is left once the request and the time words are taken out ("to stretch"
    -> "stretch"), or "your reminder" when nothing is left.
    """
    if not user_message:
        return None
    for language in _LANGUAGES:
        request = language.trigger.search(user_message)
        if request is None:
            continue
        duration = language.duration.search(user_message)
        if duration is not None:
            seconds = _seconds(duration, language)
            if seconds is None:
                return None
            return ReminderRequest(seconds, _text(user_message, request,
                                                  [duration.span()], language))
        if now is None:
            return None
        return _absolute(user_message, request, language, now)
    return None
