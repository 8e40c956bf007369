"""Her mood in her voice: a little faster when excited or happy, slower when sad.

:func:`mood_rate` is a speed multiplier for her voice, applied on top of the user's speed
setting and any ``speak(rate=…)`` (the product is clamped to 0.5-2.0 where the voice is
made). It is 1.0 for a neutral mood and moves at most :data:`MAX_SHIFT` (10 %) away from
it, in proportion to the mood's intensity (0-100).

Standard library only.
"""

from __future__ import annotations

#: The largest change of speed a mood makes (at intensity 100).
MAX_SHIFT = 0.10

#: Each emotion's change of speed at intensity 100 (+0.10 = 10 % faster).
MOOD_RATE_SHIFT: dict[str, float] = {
    "excited": 0.10,
    "happy": 0.06,
    "playful": 0.06,
    "flustered": 0.05,
    "anxious": 0.04,
    "curious": 0.03,
    "frustrated": 0.03,
    "neutral": 0.0,
    "content": -0.02,
    "affectionate": -0.03,
    "melancholy": -0.08,
    "sad": -0.10,
}


def mood_rate(emotion: object, intensity: object) -> float:
    """The speed multiplier for ``emotion`` (a canonical name; anything else is neutral)
    at ``intensity`` (0-100, clamped; not a number counts as 0): 0.9-1.1."""
    shift = MOOD_RATE_SHIFT.get(emotion, 0.0) if isinstance(emotion, str) else 0.0
    try:
        strength = float(intensity)  # type: ignore[arg-type]  # any value: failures are caught
    except (TypeError, ValueError, OverflowError):
        return 1.0
    if strength != strength:
        return 1.0
    strength = min(100.0, max(0.0, strength))
    return 1.0 + max(-MAX_SHIFT, min(MAX_SHIFT, shift)) * strength / 100.0


def voice_rate(mood: object) -> float:
    """:func:`mood_rate` of a mood object (``primary`` and ``intensity``, as
    ``character.MoodState``); 1.0 for None."""
    if mood is None:
        return 1.0
    return mood_rate(getattr(mood, "primary", None), getattr(mood, "intensity", 0))
