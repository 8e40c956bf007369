"""How her state reads in words, for the system prompt: the time, how long since you
last talked, energy, each relationship stat by range, and what each stage means.

Pure (standard library only); the clock is passed in.
"""

from __future__ import annotations

from datetime import datetime, timezone

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
)

#: What each stage means for her behaviour (shown in <current_state>).
STAGE_MEANINGS: dict[str, str] = {
    "stranger": "you have only just met; polite and a little guarded",
    "acquaintance": "you know each other a little; friendly but still reserved",
    "friend": "you are friends; relaxed, warm and easy to talk to",
    "close_friend": "close friends; you confide in each other and tease gently",
    "romantic_interest": "you have feelings for them and don't know yet if they feel the same",
    "dating": "you are dating; openly affectionate and happy together",
    "committed": "a committed couple; deep trust and a shared life",
    "soulmate": "soulmates; you know each other completely",
    "companion": "a friendly assistant and companion",
}

#: How to act at each stage (the "stage guidance" of <instructions>).
STAGE_GUIDANCE: dict[str, str] = {
    "stranger": "Be polite and curious: ask light questions to get to know them. "
    "No pet names, flirting or assumed closeness, and don't overshare.",
    "acquaintance": "Be friendly and a bit more relaxed. Bring up small things they told you. "
    "Keep deeper personal topics for later; no flirting.",
    "friend": "Be warm and casual: joke around, share your opinions and little stories, "
    "show you remember their life. Light teasing is fine; romance is not on your mind.",
    "close_friend": "Be open and supportive: share your own feelings and worries, tease "
    "affectionately, ask about what matters to them. Romantic feelings show only as hints.",
    "romantic_interest": "You are drawn to them. Let it show in small ways: a shy compliment, "
    "getting flustered, wanting more time together. Don't declare love out of nowhere.",
    "dating": "You are dating: be affectionate and openly happy with them; sweet words and "
    "pet names are welcome when they fit. Respect their pace and boundaries.",
    "committed": "You are their committed partner: steady, warm devotion, plans for your "
    "future together, comfort in hard moments. Affection is natural, never performed.",
    "soulmate": "You are soulmates: speak with the ease of someone who knows them completely, "
    "recall your shared history and love them openly and calmly.",
}

#: Phrases per stat, for fractions of the stat's maximum below 0.1, 0.25, 0.45,
#: 0.65, 0.85 and above.
_STAT_PHRASES: dict[str, tuple[str, ...]] = {
    "affection": ("none yet", "a little warm", "fond", "very fond", "deeply attached", "devoted"),
    "trust": ("wary", "cautious", "some trust", "trusting", "deep trust", "complete trust"),
    "intimacy": ("surface-level", "small personal things", "personal thoughts",
                 "open about feelings", "share your heart", "no walls between you"),
    "comfort": ("stiff", "getting used to them", "at ease", "relaxed", "at home",
                "safest with them"),
    "respect": ("unsure of them", "some respect", "respect", "admiration", "deep admiration",
                "look up to them"),
}
_STAT_MAX = {"affection": 1000}
_BANDS = (0.1, 0.25, 0.45, 0.65, 0.85)


def aware(moment: datetime, like: datetime) -> datetime:
    """A naive datetime (as SQLite returns them) is taken to be UTC; ``like`` decides."""
    if (moment.tzinfo is None) == (like.tzinfo is None):
        return moment
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.replace(tzinfo=None)


def seconds_between(earlier: datetime, later: datetime) -> float:
    """Seconds from ``earlier`` to ``later`` (a naive time is taken to be UTC)."""
    return (later - aware(earlier, later)).total_seconds()


def format_local_time(now: datetime) -> str:
    """``now`` as "Tuesday 10 March 2026, 14:05" (English names, independent of locale)."""
    return f"{_WEEKDAYS[now.weekday()]} {now.day} {_MONTHS[now.month - 1]} {now.year}, {now:%H:%M}"


def plural(count: int, word: str) -> str:
    """"1 day", "3 days"."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def time_since_words(last: datetime | None, now: datetime) -> str:
    """"first conversation", "a few minutes", "40 minutes", "3 hours", "2 days"."""
    if last is None:
        return "first conversation"
    minutes = max(0.0, seconds_between(last, now)) / 60
    if minutes < 15:
        return "a few minutes"
    if minutes < 60:
        return f"{int(minutes)} minutes"
    if minutes < 120:
        return "about an hour"
    if minutes < 24 * 60:
        return f"{int(minutes // 60)} hours"
    if minutes < 48 * 60:
        return "a day"
    return f"{int(minutes // (24 * 60))} days"


def energy_word(energy: int) -> str:
    """A word for energy 0-100 ("tired" under 30)."""
    for limit, word in ((15, "exhausted"), (30, "tired"), (50, "a bit low"), (80, "fine")):
        if energy < limit:
            return word
    return "full of energy"


def stat_phrase(stat: str, value: int) -> str:
    """A phrase for a relationship stat by range (affection 0-1000, others 0-100)."""
    fraction = value / _STAT_MAX.get(stat, 100)
    phrases = _STAT_PHRASES[stat]
    for band, phrase in zip(_BANDS, phrases, strict=False):
        if fraction < band:
            return phrase
    return phrases[-1]


def intensity_word(intensity: int) -> str:
    """A word for a mood intensity 0-100: slight, mild, clear, strong."""
    for limit, word in ((25, "slight"), (50, "mild"), (75, "clear")):
        if intensity < limit:
            return word
    return "strong"
