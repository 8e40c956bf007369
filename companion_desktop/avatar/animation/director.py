"""What her body does, moment to moment: idle cycle, thinking, talking, emotes.

The director sits between the conversation and the mixer. While idle she cycles
through the user's idle pool (never the same clip twice in a row, switching after
one or two loops, waiting while she talks, thinks, emotes or poses). From sending
until the first reply text she plays the optional thinking clip; while text
streams or she speaks she plays the built-in talking clip. The model's requested
action goes through the action gate before it plays as an emote. A move (walking,
sitting: ``play_move``) loops until ``stop_move`` or a turn takes over; ``facing``
turns her whole body (``avatar.animation.facing``). Numpy only; the clock for the gate
is passed in (seconds, monotonic).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from companion_desktop.avatar.animation.clip import Clip
from companion_desktop.avatar.animation.driver import AnimationDriver
from companion_desktop.avatar.animation.facing import Facing
from companion_desktop.avatar.animation.idle_cycle import IdleCycle, IdleState
from companion_desktop.avatar.animation.library import AnimationLibrary
from companion_desktop.avatar.animation.mixer import Mixer
from companion_desktop.avatar.vrm.pose import Pose
from companion_desktop.engine.action_gate import ActionGate, GateDecision

log = logging.getLogger(__name__)


class Director:
    """The runtime's animation hook (``director(pose, dt, time)``) plus turn events."""

    def __init__(self, library: AnimationLibrary, rng: random.Random, *,
                 pool: Callable[[], list[str]] | None = None,
                 thinking_clip: Callable[[], str | None] | None = None,
                 enabled: Callable[[], set[str]] | None = None) -> None:
        self.library = library
        self.mixer = Mixer()
        self.driver = AnimationDriver(self.mixer)
        self.idle = IdleCycle(rng, library.ids, library.builtin_idle_ids)
        self.pool = pool or (lambda: [])
        self.thinking_clip = thinking_clip or (lambda: None)
        self.enabled = enabled or (lambda: set(library.emote_ids))
        self.gate = ActionGate()
        self.talking = False
        self.thinking = False
        self.posing = False
        self.moving: str | None = None  # the move clip playing (walk, sit)
        self.facing = Facing()
        self._loops_seen = 0
        self._started = False

    def bind(self, runtime: object) -> None:
        self.driver.bind(runtime)

    # ------------------------------------------------------------ frame hook
    def __call__(self, pose: Pose, dt: float, time: float) -> None:
        if not self._started:
            self._started = True
            self.back_to_idle()
        self.driver(pose, dt, time)
        self.facing.apply(pose, dt)
        loops = self.mixer.base_loops
        if loops != self._loops_seen:
            self._loops_seen = loops
            if self._idling:
                state = IdleState(self.talking, self.thinking, self.mixer.playing_emote,
                                  self.posing)
                self.idle.set_pool(self.pool())
                nxt = self.idle.on_loop_finished(state)
                if nxt is not None:
                    self._play_base(nxt)

    @property
    def _idling(self) -> bool:
        return not (self.talking or self.thinking or self.moving)

    def _play_base(self, clip_id: str | None) -> bool:
        clip = self.library.find(clip_id) if clip_id else None
        if clip is None:
            return False
        self._loops_seen = 0
        played = self.mixer.play_base(clip)
        if played:
            self.moving = None
        return played

    # ------------------------------------------------------------ moves
    def play_move(self, clip_id: str) -> bool:
        """Loop a move (walk, sit) instead of her idles; refused while she talks, thinks
        or poses for a photo."""
        if self.talking or self.thinking or self.posing:
            return False
        if self.moving == clip_id:
            return True
        if not self._play_base(clip_id):
            return False
        self.moving = clip_id
        return True

    def stop_move(self) -> None:
        """Back to her idles, when a move still plays (a turn may have taken over)."""
        if self.moving:
            self.back_to_idle()

    # ------------------------------------------------------------ turn events
    def back_to_idle(self) -> None:
        self.talking = self.thinking = False
        self.moving = None
        self.idle.set_pool(self.pool())
        self._play_base(self.idle.start())

    def turn_started(self) -> None:
        """A message was sent: the thinking clip, when one is chosen, until text comes."""
        choice = self.thinking_clip()
        if choice and self._play_base(choice):
            self.thinking = True
        else:
            self.stop_move()

    def text_started(self) -> None:
        """Her reply is streaming (or she speaks): the built-in talking clip."""
        self.thinking = False
        if not self.talking and self._play_base(self.library.talking_id):
            self.talking = True

    def turn_ended(self) -> None:
        if self.talking or self.thinking:
            self.back_to_idle()

    def request_action(self, action: str | None, now: float) -> GateDecision:
        """The model's ``action``: played as an emote when the gate allows it."""
        decision = self.gate.decide(action, self.enabled(), now, photo_mode=self.posing,
                                    emote_playing=self.mixer.playing_emote)
        if decision.allowed:
            clip = self.library.find(action)
            if clip is None or not self.mixer.play_emote(clip):
                log.info("action %s could not play", action)
        return decision

    def play_emote(self, clip: Clip) -> bool:
        """Play ``clip`` once over the base (the Animations page's preview)."""
        return self.mixer.play_emote(clip)
