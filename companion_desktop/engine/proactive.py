"""Speaking first: when she may start a conversation (pure rules, the clock passed in).

Two moments: a greeting when the user comes back after a long absence, and now and then
a remark when they have been at the computer a long while without talking to her. Both
are opt-in (on by default in Dating Sim Mode only), never during "do not disturb" or
while the active window is fullscreen, at most ``daily_cap`` a day and ``gap`` apart.
A failed try (the model call failed) counts toward the gap, and failures in a row back
off (:func:`retry_wait`), so a broken model is not asked every minute.

Also the small contract the desktop layer (X11) fulfils for window awareness and
fullscreen: :class:`ActiveWindow` and :class:`ActiveWindowSource`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Protocol


@dataclass(frozen=True)
class ActiveWindow:
    """The window that has the focus: ``app`` its application (the X11 class, e.g.
    "firefox"; "" when unknown), ``title`` its title, ``fullscreen`` whether it fills
    its screen (a game, a video)."""

    app: str
    title: str
    fullscreen: bool = False


class ActiveWindowSource(Protocol):
    """Tells which window is active now; None when unknown (no X11, nothing focused).

    The desktop layer's implementation is a QObject that also emits
    ``active_window_changed(object)`` (an ActiveWindow or None) when it changes; the rules
    here only ask at the moment they decide, so the signal is optional for them."""

    def active_window(self) -> ActiveWindow | None: ...


#: Idle less than this: the user is at the computer (typing or moving the mouse).
PRESENT_IDLE = timedelta(minutes=2)
#: Idle this long ends a stretch "at the computer" (a coffee break does not).
BREAK = timedelta(minutes=15)
#: A return is greeted only this soon after it (not an hour later, after a game).
GREET_WITHIN = timedelta(minutes=10)
#: Every speaking-first event text starts so (how the daily cap counts them).
EVENT_PREFIX = "Speaking first: "

#: The longest wait after failed tries in a row, and the shortest after one.
MAX_RETRY_WAIT = timedelta(hours=12)
MIN_RETRY_WAIT = timedelta(minutes=30)
BACKING_OFF = "backing off after a failed try"

GREETING = "greeting"
REMARK = "remark"


@dataclass(frozen=True)
class Limits:
    """The user's numbers (Settings > Desktop > Speaking first)."""

    absence: timedelta = timedelta(hours=2)
    silence: timedelta = timedelta(minutes=45)
    daily_cap: int = 3
    gap: timedelta = timedelta(minutes=90)


def speak_first_on(choice: bool | None, mode: str) -> bool:
    """The user's choice, or the mode's default when they made none (None): on in
    Dating Sim Mode, off in Companion Mode."""
    return choice if choice is not None else mode == "dating_sim"


class Presence:
    """Follows the user's idle time, sampled now and then: when a long absence ended,
    and since when they have been at the computer without a break."""

    def __init__(self, absence: timedelta = Limits.absence) -> None:
        self.absence = absence
        self.away_from: datetime | None = None  # start of an absence long enough to greet
        self.returned_at: datetime | None = None  # the end of the last such absence
        self.away_for: timedelta | None = None  # how long it was
        self.present_since: datetime | None = None
        self.idle = timedelta(0)

    def observe(self, now: datetime, idle: timedelta) -> None:
        """One sample: ``idle`` is the time since the user's last key or mouse input."""
        self.idle = max(idle, timedelta(0))
        last_input = now - self.idle
        if self.idle >= self.absence:
            self.away_from = self.away_from or last_input
        if self.idle >= BREAK:
            self.present_since = None
            return
        if self.idle >= PRESENT_IDLE:
            return
        if self.away_from is not None:
            self.returned_at, self.away_for = last_input, last_input - self.away_from
            self.away_from = None
        if self.present_since is None:
            self.present_since = last_input

    @property
    def present(self) -> bool:
        return self.present_since is not None and self.idle < PRESENT_IDLE

    def greeted(self) -> None:
        """The return was answered (greeted, or the user spoke first)."""
        self.returned_at = self.away_for = None


@dataclass(frozen=True)
class Verdict:
    """``kind`` GREETING, REMARK or None; ``why`` in words (for logs and tests)."""

    kind: str | None
    why: str


def retry_wait(failures: int, gap: timedelta) -> timedelta:
    """How long after the last of ``failures`` failed tries in a row the next may start:
    nothing after none; after one the gap (at least MIN_RETRY_WAIT), doubled for each
    further failure, at most MAX_RETRY_WAIT."""
    if failures <= 0:
        return timedelta(0)
    wait = max(gap, MIN_RETRY_WAIT) * 2 ** min(failures - 1, 16)
    return max(min(wait, MAX_RETRY_WAIT), MIN_RETRY_WAIT)


def decide(now: datetime, presence: Presence, limits: Limits, *, enabled: bool,
           dnd: bool, fullscreen: bool, busy: bool, last_chat: datetime | None,
           sent_today: int, last_sent: datetime | None, failures: int = 0,
           last_failed: datetime | None = None) -> Verdict:
    """Whether she speaks first now, and how. ``last_chat``: the user's last message;
    ``sent_today``/``last_sent``: her speaking-first events today and the last one;
    ``failures``/``last_failed``: her failed tries in a row since then, and the last."""
    backing_off = last_failed is not None and now - last_failed < retry_wait(failures, limits.gap)
    blocked = [(not enabled, "off"), (dnd, "do not disturb"), (fullscreen, "fullscreen"),
               (busy, "busy"), (sent_today >= limits.daily_cap, "daily cap reached"),
               (last_sent is not None and now - last_sent < limits.gap, "too soon"),
               (backing_off, BACKING_OFF)]
    for hit, why in blocked:
        if hit:
            return Verdict(None, why)
    returned = presence.returned_at
    if returned is not None and (last_chat is None or last_chat < returned):
        if presence.present and now - returned <= GREET_WITHIN:
            return Verdict(GREETING, "back after a long absence")
    quiet_since = [t for t in (presence.present_since, last_chat, last_sent) if t is not None]
    if presence.present and presence.present_since is not None and \
            all(now - t >= limits.silence for t in quiet_since):
        return Verdict(REMARK, "a long silence at the computer")
    return Verdict(None, "nothing to say")


def away_words(away: timedelta | None) -> str:
    """"about 3 hours", "about a day", "2 days"."""
    hours = (away or timedelta(0)).total_seconds() / 3600
    if hours < 1.5:
        return "about an hour"
    if hours < 20:
        return f"about {round(hours)} hours"
    if hours < 36:
        return "about a day"
    return f"{round(hours / 24)} days"


def event_text(kind: str, away: timedelta | None = None) -> str:
    """The ``<event>`` text of a speaking-first moment (saved as the system turn)."""
    if kind == GREETING:
        return (f"{EVENT_PREFIX}the user is back at the computer after {away_words(away)} "
                "away. Greet them warmly in one or two sentences.")
    if kind == REMARK:
        return (f"{EVENT_PREFIX}the user has been at the computer for a long while without "
                "talking to you. Say one short, light thing or ask a small question; "
                "don't press them to answer.")
    raise ValueError(f"unknown speaking-first kind {kind!r}")


def start_of_day(now: datetime) -> datetime:
    """Local midnight of ``now``'s day (the daily cap's day), with midnight's own UTC
    offset, which on a daylight-saving day is not ``now``'s. ``now`` in a zone
    (zoneinfo) follows that zone's rules; a fixed offset that is the system's at ``now``
    (what ``datetime.now().astimezone()`` gives, the app's clock) follows the system's
    rules; any other fixed offset is kept as it is."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0, fold=0)
    if isinstance(now.tzinfo, timezone) and now.astimezone().utcoffset() == now.utcoffset():
        return midnight.replace(tzinfo=None).astimezone()  # the system's offset at midnight
    return midnight
