"""She walks along her surface now and then: ``avatar.animation.walk_plan`` on Qt timers.

``Walker(placement, player, clock, rng)`` asks the placement where she stands and moves
her feet; the player loops the walk or sit clip and turns her. While she walks (or turns
at a surface's end) a precise timer moves her ``MOVES_PER_S`` times a second, by the
elapsed time at the walk clip's pace scaled to her size on screen; otherwise that timer
is stopped and one single-shot timer waits for the next planned walk (minutes away), or
looks twice a second while she sits whether she has become busy.

The placement (the overlay's, see ``Placement``) gives ``surface_span()`` (left x, right
x, y of the surface her feet are on, screen pixels, or None), ``feet_x()``,
``move_feet_to(x)`` and ``busy_reason`` (dragged, falling: why she may not walk, or
None). Optional: ``on_window_top`` (bool: she may sit there), ``avatar_height_px()``
(her standing height on screen; her pace follows it) and ``set_sitting(seat_px)``
(she sits: lower her by ``seat_px`` so the edge meets her seat; None: standing again).

The player (``DirectorPlayer`` for the app's animation director) gives ``play(clip_id)
-> bool``, ``stop()``, ``face(direction)`` (-1 screen left, 0 the viewer, +1 right),
``current`` (the move playing: another clip taking over ends the walk) and
``busy_reason`` (talking, thinking, photo mode). ``busy`` (a callable, optional)
adds more reasons (listening).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QObject, Qt, QTimer

from companion_desktop.avatar.animation.facing import SIDE_YAW_DEG
from companion_desktop.avatar.animation.walk_plan import (
    SIT,
    SIT_SEAT_HEIGHTS,
    WALK_SPEED_HEIGHTS,
    Step,
    WalkPlan,
)

MOVES_PER_S = 30  # how often her position changes while she walks
SIT_POLL_MS = 500  # while she sits: how often to look whether she became busy
DEFAULT_HEIGHT_PX = 300.0  # her height on screen when the placement does not say


class Placement(Protocol):
    def surface_span(self) -> tuple[int, int, int] | None: ...
    def feet_x(self) -> int: ...
    def move_feet_to(self, x: int) -> None: ...

    @property
    def busy_reason(self) -> str | None: ...


class Player(Protocol):
    def play(self, clip_id: str) -> bool: ...
    def stop(self) -> None: ...


class DirectorPlayer:
    """The walker's player for ``avatar.animation.director.Director`` (its ``play_move``,
    ``stop_move`` and ``facing``); ``poke`` (the avatar host's) keeps her frame rate up
    while she walks."""

    def __init__(self, director: object, poke: Callable[[float], None] | None = None) -> None:
        self.director = director
        self.poke = poke

    def play(self, clip_id: str) -> bool:
        if self.poke is not None:
            self.poke(2.0)
        return bool(self.director.play_move(clip_id))

    def stop(self) -> None:
        self.director.stop_move()
        self.director.facing.face(0)

    def face(self, direction: int) -> None:
        self.director.facing.face(direction)
        if self.poke is not None:
            self.poke(2.0)

    @property
    def current(self) -> str | None:
        """The move clip playing now (None: something else took over)."""
        return self.director.moving

    @property
    def busy_reason(self) -> str | None:
        d = self.director
        if d.talking:
            return "talking"
        if d.thinking:
            return "thinking"
        if d.posing:
            return "photo mode"
        return None


class Walker(QObject):
    """Runs a ``WalkPlan`` for one placement and player (see the module docstring)."""

    def __init__(self, placement: Placement, player: Player,
                 clock: Callable[[], float] = time.monotonic, rng: random.Random | None = None,
                 *, busy: Callable[[], str | None] | None = None, plan: WalkPlan | None = None,
                 enabled: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.placement, self.player, self.clock = placement, player, clock
        self.plan = plan or WalkPlan(rng or random.Random())
        self.busy = busy
        self.enabled = enabled
        self.playing: str | None = None
        self.facing = 0
        self.moves = 0  # times her feet were moved (tests, stats)
        self._sent: int | None = None  # the x we last moved her feet to
        self.frame_timer = QTimer(self)
        self.frame_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.frame_timer.setInterval(round(1000 / MOVES_PER_S))
        self.frame_timer.timeout.connect(self.tick)
        self.wake_timer = QTimer(self)
        self.wake_timer.setSingleShot(True)
        self.wake_timer.timeout.connect(self.tick)

    # ---------------------------------------------------------------- control
    def start(self) -> None:
        """Begin planning (the first walk is minutes away)."""
        if self.enabled:
            self.tick()

    def set_enabled(self, on: bool) -> None:
        """The "She walks around now and then" switch: off stops her at once."""
        self.enabled = bool(on)
        if self.enabled:
            self.tick()
        else:
            self._apply(self.plan.stop(self.clock()))
            self.frame_timer.stop()
            self.wake_timer.stop()

    def interrupt(self) -> None:
        """Stop walking or sitting now (she was grabbed, a turn began)."""
        if self.playing is not None:
            self._apply(self.plan.stop(self.clock()))

    @property
    def walking(self) -> bool:
        return self.frame_timer.isActive()

    # ---------------------------------------------------------------- ticks
    def tick(self) -> None:
        if not self.enabled:
            return
        now = self.clock()
        surface = self.placement.surface_span()
        span = (float(surface[0]), float(surface[1])) if surface is not None else None
        current = getattr(self.player, "current", self.playing)
        if self.playing is not None and current != self.playing:  # a turn took over
            self.playing = None
            self.plan.stop(now)
        feet = self.placement.feet_x()
        if self._sent is not None and feet != self._sent and self.plan.x is not None:
            self.plan.x += feet - self._sent  # her surface moved (a window dragged)
        step = self.plan.update(now, float(feet), span, self.busy_reason(), self.speed(),
                                on_window=bool(getattr(self.placement, "on_window_top", False)))
        self._apply(step)

    def busy_reason(self) -> str | None:
        for source in (self.placement, self.player):
            reason = getattr(source, "busy_reason", None)
            if reason:
                return str(reason)
        return self.busy() if self.busy is not None else None

    def height_px(self) -> float:
        measure = getattr(self.placement, "avatar_height_px", None)
        height = measure() if callable(measure) else None
        return float(height) if height and height > 0 else DEFAULT_HEIGHT_PX

    def speed(self) -> float:
        """Pixels a second: the walk clip's pace at her size, seen three-quarters on."""
        return WALK_SPEED_HEIGHTS * math.sin(math.radians(SIDE_YAW_DEG)) * self.height_px()

    def _apply(self, step: Step) -> None:
        if step.clip != self.playing:
            self._switch(step.clip)
            if step.clip is not None and self.playing is None:  # the player refused
                step = self.plan.stop(self.clock())
        if step.facing != self.facing and hasattr(self.player, "face"):
            self.player.face(step.facing)
        self.facing = step.facing
        if step.x is not None:
            x = round(step.x)
            if x != self._sent:
                self.placement.move_feet_to(x)
                self.moves += 1
            self._sent = x
        else:
            self._sent = None
        self._pace(step)

    def _switch(self, clip: str | None) -> None:
        sitting = getattr(self.placement, "set_sitting", None)
        if self.playing == SIT and callable(sitting):
            sitting(None)
        if clip is None:
            self.player.stop()
            self.playing = None
            return
        self.playing = clip if self.player.play(clip) else None
        if self.playing == SIT and callable(sitting):
            sitting(round(SIT_SEAT_HEIGHTS * self.height_px()))

    def _pace(self, step: Step) -> None:
        """Frequent ticks while she walks; otherwise one wake-up when the next thing is due."""
        if step.moving:
            self.wake_timer.stop()
            if not self.frame_timer.isActive():
                self.frame_timer.start()
            return
        self.frame_timer.stop()
        wait = max(0.0, step.wake_at - self.clock())
        ms = min(SIT_POLL_MS, round(1000 * wait)) if self.playing == SIT else round(1000 * wait)
        self.wake_timer.start(max(1, min(ms, 2**31 - 1)))
