"""When she walks or sits on the surface she stands on, and where her feet go: the
decisions, without Qt (``ui.walker`` runs them on a timer).

Now and then while she is idle (every ``interval`` seconds, drawn at random) she walks
a few seconds (``walk_seconds``) along her surface at the walk clip's pace, turns where
the surface ends (stands, faces the other way, walks on) and stops; on a window's top
she sometimes sits a while instead (``sit_chance``, ``sit_seconds``). Nothing starts
while she is busy (talking, thinking, listening, posing for a photo, dragged, falling:
any reason at all), and a walk or a sit ends the moment she becomes busy or her surface
goes away; the next one is planned from then. Her feet never leave the span given.

``update(now, feet_x, span, busy, speed)`` once per tick (``now`` in seconds from the
clock passed to the caller, ``span`` = (left, right) in screen pixels or None, ``speed``
in pixels a second) answers a ``Step``: where her feet go, which clip plays, which way
she faces, and whether the caller needs frequent ticks (``moving``) or may sleep until
``wake_at``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

WALK = "walk"
SIT = "sit"
#: how fast the floor passes under her feet in the walk clip, in her standing heights a
#: second (tools/clips_gen/moves.py: WALK_SPEED m/s at Hana's 1.59 m)
WALK_SPEED_HEIGHTS = 0.333
#: how high the edge she sits on is above her lowest point, in her standing heights
#: (tools/clips_gen/moves.py: SEAT_HEIGHT at Hana's 1.59 m)
SIT_SEAT_HEIGHTS = 0.236
MAX_DT = 0.1  # seconds: a stalled tick never jumps her further than this much walking


@dataclass(frozen=True)
class Step:
    """What the caller does now. ``x``: her feet's new x (None: leave her where she is);
    ``clip``: WALK, SIT or None (her idles); ``facing``: -1 screen left, 0 the viewer,
    +1 screen right; ``moving``: tick often (she walks or turns); ``wake_at``: when the
    next update matters otherwise."""

    x: float | None
    clip: str | None
    facing: int
    moving: bool
    wake_at: float


class WalkPlan:
    """The state machine; ``rng`` is a ``random.Random`` (seed it in tests)."""

    def __init__(self, rng: random.Random, *, interval: tuple[float, float] = (60.0, 240.0),
                 walk_seconds: tuple[float, float] = (3.0, 9.0), sit_chance: float = 0.3,
                 sit_seconds: tuple[float, float] = (20.0, 90.0),
                 retry: tuple[float, float] = (15.0, 45.0), turn_seconds: float = 0.6,
                 min_room: float = 40.0) -> None:
        for low, high in (interval, walk_seconds, sit_seconds, retry):
            if not 0.0 < low <= high:
                raise ValueError("each range needs 0 < low <= high")
        self.rng = rng
        self.interval, self.walk_seconds, self.retry = interval, walk_seconds, retry
        self.sit_chance, self.sit_seconds = sit_chance, sit_seconds
        self.turn_seconds, self.min_room = turn_seconds, min_room
        self.state = "idle"  # idle | walking | turning | sitting
        self.clip: str | None = None
        self.direction = 1  # +1 toward screen right
        self.facing = 0
        self.left_to_walk = 0.0  # pixels
        self.until = 0.0  # end of a turn or a sit
        self.x: float | None = None  # her feet while walking (sub-pixel)
        self.wake_at: float | None = None
        self._last: float | None = None

    # ---------------------------------------------------------------- public
    def update(self, now: float, feet_x: float, span: tuple[float, float] | None,
               busy: str | None, speed: float, *, on_window: bool = False) -> Step:
        dt = 0.0 if self._last is None else min(MAX_DT, max(0.0, now - self._last))
        self._last = now
        if self.wake_at is None:
            self.wake_at = now + self._draw(self.interval)
        if self.state != "idle" and (busy or span is None):
            return self._rest(now, self.retry)
        if self.state == "idle":
            return self._idle(now, feet_x, span, busy, speed, on_window)
        if self.state == "sitting":
            if now >= self.until:
                return self._rest(now, self.interval)
            return self._step(None)
        assert span is not None
        left, right = span
        x = min(max(self.x if self.x is not None else feet_x, left), right)
        if self.state == "turning":
            if now < self.until:
                self.x = x
                return self._step(x)
            self.state = "walking"
        return self._walk(now, x, left, right, speed * dt)

    def stop(self, now: float) -> Step:
        """End what she does now (she is busy, or walking was switched off)."""
        return self._rest(now, self.retry if self.state != "idle" else self.interval)

    # ---------------------------------------------------------------- states
    def _idle(self, now: float, feet_x: float, span: tuple[float, float] | None,
              busy: str | None, speed: float, on_window: bool) -> Step:
        assert self.wake_at is not None
        if now < self.wake_at:
            return self._step(None)
        if busy or span is None or span[1] - span[0] < self.min_room or speed <= 0.0:
            self.wake_at = now + self._draw(self.retry)  # try again a little later
            return self._step(None)
        left, right = span
        if on_window and self.rng.random() < self.sit_chance:
            self.state, self.clip, self.facing = "sitting", SIT, 0
            self.until = now + self._draw(self.sit_seconds)
            self.wake_at = self.until
            return self._step(None)
        room_right, room_left = right - feet_x, feet_x - left
        if room_right < self.min_room / 2:
            self.direction = -1
        elif room_left < self.min_room / 2:
            self.direction = 1
        else:  # more often toward the side with more room
            share = room_right / max(1.0, room_right + room_left)
            self.direction = 1 if self.rng.random() < 0.25 + 0.5 * share else -1
        self.state, self.clip, self.facing = "walking", WALK, self.direction
        self.left_to_walk = speed * self._draw(self.walk_seconds)
        self.x = min(max(feet_x, left), right)
        self._last = now
        return self._step(self.x)

    def _walk(self, now: float, x: float, left: float, right: float, distance: float) -> Step:
        distance = min(distance, self.left_to_walk)
        self.left_to_walk -= distance
        x += self.direction * distance
        if x >= right or x <= left:  # the end of her surface: stand, turn round
            x = min(max(x, left), right)
            self.direction = -self.direction
            self.state, self.facing = "turning", self.direction
            self.until = now + self.turn_seconds
        self.x = x
        if self.left_to_walk <= 1e-6 and self.state == "walking":
            self._rest(now, self.interval)
            return Step(x, None, 0, False, self.wake_at or now)
        return self._step(x)

    def _rest(self, now: float, after: tuple[float, float]) -> Step:
        self.state, self.clip, self.facing, self.x = "idle", None, 0, None
        self.left_to_walk = 0.0
        self.wake_at = now + self._draw(after)
        return self._step(None)

    def _step(self, x: float | None) -> Step:
        moving = self.state in ("walking", "turning")
        wake = self.until if self.state == "sitting" else (self.wake_at or 0.0)
        return Step(x, self.clip, self.facing, moving, wake)

    def _draw(self, bounds: tuple[float, float]) -> float:
        return self.rng.uniform(*bounds)
