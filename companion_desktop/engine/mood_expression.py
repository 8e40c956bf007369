"""The avatar's face from her mood: resting expression, flash, fades and layer priority.

Pure (standard library only). See "Mood State" in the architecture spec and the
"Mood expression candidates" table in DESIGN.md. Expression weights are 0..1,
intensities 0..100, times in seconds (the clock is passed in).

Face layers, lowest first: the resting face (from the mood), the flash (the model's
``expression`` suggestion), tap reactions, emotes, photo mode. An active higher layer
suppresses every lower one (:func:`resolve_layers`); :func:`compose_expression_weights`
then moves the shown weights toward the result, fading the old expression out fully
before the new one rises.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

#: emotion -> (expression candidates, VRM 1.0 names first then 0.x fallbacks; value 0..1).
MOOD_EXPRESSION_TABLE: dict[str, tuple[tuple[str, ...], float]] = {
    "happy": (("happy", "joy", "fun"), 0.60),
    "excited": (("happy", "surprised", "joy"), 0.70),
    "content": (("relaxed", "fun", "joy"), 0.40),
    "playful": (("happy", "fun", "joy"), 0.50),
    "affectionate": (("relaxed", "happy", "fun", "joy"), 0.50),
    "curious": (("surprised",), 0.30),
    "flustered": (("surprised", "happy", "joy"), 0.45),
    "sad": (("sad", "sorrow"), 0.60),
    "melancholy": (("sad", "sorrow", "relaxed"), 0.40),
    "anxious": (("sad", "surprised", "sorrow"), 0.35),
    "frustrated": (("angry",), 0.50),
    "neutral": ((), 0.0),
}

#: A flash is this many times the table value ...
FLASH_MULTIPLIER = 1.4
#: ... capped at this weight.
FLASH_CAP = 0.9
#: Seconds a flash holds at full weight; while she speaks it may hold up to the longer time.
FLASH_HOLD_S = 2.5
FLASH_HOLD_SPEAKING_S = 8.0
#: Seconds a flash takes to fade from its weight to 0 after the hold.
FLASH_FADE_S = 0.6
#: Default fade speed of composed weights, weight units per second.
FADE_PER_S = 4.0

#: Layer names, lowest priority first.
LAYERS: tuple[str, ...] = ("resting", "flash", "tap", "emote", "photo")

Target = tuple[str, float] | Mapping[str, float] | None


def pick_expression(candidates: tuple[str, ...], available: Collection[str]) -> str | None:
    """The first candidate the model has: exact name first, then ignoring case."""
    for name in candidates:
        if name in available:
            return name
    folded = {name.casefold(): name for name in available}
    for name in candidates:
        if name.casefold() in folded:
            return folded[name.casefold()]
    return None


def mood_expression_target(
    emotion: str, intensity: float, available: Collection[str]
) -> tuple[str, float] | None:
    """The resting face: ``(expression, table value x intensity / 100)``.

    ``intensity`` is clamped to 0..100. ``None`` for neutral, an unknown emotion, or a
    model with none of the candidates.
    """
    candidates, value = MOOD_EXPRESSION_TABLE.get(emotion, ((), 0.0))
    name = pick_expression(candidates, available)
    if name is None:
        return None
    return name, _clamp01(value * _clamp(intensity, 0.0, 100.0) / 100.0)


def flash_expression_target(emotion: str, available: Collection[str]) -> tuple[str, float] | None:
    """A flash: ``(expression, min(1.4 x table value, 0.9))``; neutral never flashes."""
    candidates, value = MOOD_EXPRESSION_TABLE.get(emotion, ((), 0.0))
    name = pick_expression(candidates, available)
    if name is None or value <= 0.0:
        return None
    return name, min(FLASH_MULTIPLIER * value, FLASH_CAP)


def _as_map(target: Target) -> dict[str, float]:
    if target is None:
        return {}
    if isinstance(target, tuple):
        name, weight = target
        return {name: _clamp01(weight)}
    return {name: _clamp01(weight) for name, weight in target.items()}


def compose_expression_weights(
    current: Mapping[str, float], target: Target, dt: float, fade_per_s: float = FADE_PER_S
) -> dict[str, float]:
    """One frame of fading ``current`` toward ``target`` (a name/weight pair, a mapping or None).

    Every expression not in the target fades to 0 first; expressions of the target only
    rise once no old one is left above 0 (they may fall at once). Each weight moves at most
    ``fade_per_s * dt``; results are within 0..1 and zero weights are dropped.
    """
    goal = _as_map(target)
    step = max(0.0, fade_per_s) * max(0.0, dt)
    out: dict[str, float] = {}
    old_left = False
    for name, weight in current.items():
        if name not in goal and _clamp01(weight) > 0.0:
            old_left = True  # this frame still fades it: the new one waits a frame
            weight = _snap(_clamp01(weight) - step)
            if weight > 0.0:
                out[name] = weight
    for name, want in goal.items():
        have = _clamp01(current.get(name, 0.0))
        if have > want:
            have = _snap(max(want, have - step))
        elif not old_left:
            have = min(want, have + step)
        if have > 0.0:
            out[name] = have
    return out


def resolve_layers(
    resting: Target = None,
    flash: Target = None,
    tap: Target = None,
    emote: Target = None,
    photo: Target = None,
) -> dict[str, float]:
    """The face target: the highest active layer (any weight > 0) wins.

    Lower layers are suppressed, except that an expression the winning layer itself shows
    keeps the stronger of its weights in the layers below (a happy flash fading out over a
    happy mood settles on the mood's weight instead of dipping to 0).
    """
    layers = [_as_map(layer) for layer in (resting, flash, tap, emote, photo)]
    for index in range(len(layers) - 1, -1, -1):
        top = layers[index]
        if any(weight > 0.0 for weight in top.values()):
            out = {name: weight for name, weight in top.items() if weight > 0.0}
            for lower in layers[:index]:
                for name in out:
                    out[name] = max(out[name], lower.get(name, 0.0))
            return out
    return {}


@dataclass
class FlashState:
    """A timed expression: holds its weight, then fades linearly to 0 over ``fade_s``.

    The hold is ``FLASH_HOLD_S``, or while she speaks up to ``FLASH_HOLD_SPEAKING_S``:
    :meth:`speaking_ended` shortens it (never below the normal hold). Times are seconds on
    the caller's clock.
    """

    name: str | None = None
    peak: float = 0.0
    start_time: float = 0.0
    hold_s: float = FLASH_HOLD_S
    fade_s: float = FLASH_FADE_S

    def start(self, name: str, weight: float, speaking: bool, now: float,
              hold_s: float | None = None) -> None:
        self.name, self.peak, self.start_time = name, _clamp01(weight), now
        self.hold_s = hold_s if hold_s is not None else (
            FLASH_HOLD_SPEAKING_S if speaking else FLASH_HOLD_S)

    def speaking_ended(self, now: float) -> None:
        """Speech is over: hold until now (at least the normal hold), not the full 8 s."""
        if self.name is not None:
            held = max(FLASH_HOLD_S, now - self.start_time)
            self.hold_s = min(self.hold_s, held)

    def clear(self) -> None:
        self.name, self.peak = None, 0.0

    def weight(self, now: float) -> float:
        """The flash weight at ``now`` (0 before the start and after the fade)."""
        if self.name is None:
            return 0.0
        age = now - self.start_time
        if age < 0.0:
            return 0.0
        if age <= self.hold_s:
            return self.peak
        if self.fade_s <= 0.0:
            return 0.0
        return _snap(self.peak * (1.0 - (age - self.hold_s) / self.fade_s))

    def active(self, now: float) -> bool:
        return self.weight(now) > 0.0

    def target(self, now: float) -> tuple[str, float] | None:
        weight = self.weight(now)
        return (self.name, weight) if self.name is not None and weight > 0.0 else None


@dataclass
class FaceLayers:
    """The face layer inputs and the ``mood_expressions_enabled`` switch in one place.

    ``resolve(now)`` gives the target for :func:`compose_expression_weights`; with mood
    expressions off, the resting face and the flash are both left out.
    """

    resting: tuple[str, float] | None = None
    flash: FlashState | None = None
    tap: FlashState | None = None
    emote: dict[str, float] | None = None
    photo: dict[str, float] | None = None
    mood_expressions_enabled: bool = True

    def resolve(self, now: float) -> dict[str, float]:
        mood_on = self.mood_expressions_enabled
        return resolve_layers(
            self.resting if mood_on else None,
            self.flash.target(now) if (mood_on and self.flash) else None,
            self.tap.target(now) if self.tap else None,
            self.emote,
            self.photo,
        )


def _clamp(value: float, low: float, high: float) -> float:
    if value != value:  # NaN
        return low
    return low if value < low else high if value > high else float(value)


def _snap(value: float) -> float:
    """Rounding noise (|x| < 1e-9) and negatives become 0."""
    return value if value > 1e-9 else 0.0


def _clamp01(value: float) -> float:
    return _clamp(value, 0.0, 1.0)
