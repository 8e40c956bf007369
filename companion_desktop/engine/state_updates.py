"""State deltas: the heuristic baseline, the model's suggestion, and merging them.

Pure (standard library only). Deltas are integers in stat points.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from .character import MoodState, clamp
from .emotions import MAX_CAUSE_LENGTH, add_cause, normalize_emotion

#: Bounds of the model's suggestion after sanitizing ("Clamping" in the spec).
LLM_CLAMPS: dict[str, int] = {
    "intensity_delta": 30,
    "affection_delta": 20,
    "trust_delta": 10,
    "intimacy_delta": 10,
    "comfort_delta": 10,
    "respect_delta": 10,
}

ACTION_ID_PATTERN = r"^[a-z0-9_-]{1,64}$"
_ACTION_ID = re.compile(ACTION_ID_PATTERN)

MAX_MEMORY_LENGTH = 500
MAX_EVENT_ID_LENGTH = 64
MAX_REFERENCE_LENGTH = 200
SHARED_REFERENCE_TYPES: tuple[str, ...] = ("jokes", "nicknames", "memories")
_SINGULAR_REFERENCE_TYPES = {"joke": "jokes", "nickname": "nicknames", "memory": "memories"}

#: Bounds of merging (spec "State Merging", rules 2-4).
MIN_AFFECTION_CAP = 5
MIN_TRUST_CAP = 3
OTHER_STAT_MERGE_RANGE: tuple[int, int] = (-3, 5)

_RELATIONSHIP_KEYS: tuple[str, ...] = (
    "affection_delta",
    "trust_delta",
    "intimacy_delta",
    "comfort_delta",
    "respect_delta",
)
#: Strings a model writes when it means "nothing".
_NULL_WORDS = frozenset({"", "null", "none", "nil", "n/a", "na", "undefined", "false"})


@dataclass(frozen=True)
class MoodChange:
    """Set the mood to ``emotion`` (canonical) and move intensity by ``intensity_delta``."""

    emotion: str
    intensity_delta: int = 0
    cause: str | None = None


@dataclass(frozen=True)
class SharedReference:
    """An inside joke, nickname or shared memory (relationship-system.md)."""

    type: str  # "jokes" | "nicknames" | "memories"
    content: str


@dataclass(frozen=True)
class StateUpdates:
    """Deltas to apply for one turn (the baseline, or the merged result)."""

    mood_change: MoodChange | None = None
    energy_delta: int = 0
    affection_delta: int = 0
    trust_delta: int = 0
    intimacy_delta: int = 0
    comfort_delta: int = 0
    respect_delta: int = 0
    new_memory: str | None = None
    triggered_event: str | None = None
    action: str | None = None
    expression: str | None = None
    shared_reference: SharedReference | None = None


@dataclass(frozen=True)
class LlmSuggestion:
    """The model's JSON block after sanitizing; None means "not given"."""

    mood_change: MoodChange | None = None
    affection_delta: int | None = None
    trust_delta: int | None = None
    intimacy_delta: int | None = None
    comfort_delta: int | None = None
    respect_delta: int | None = None
    new_memory: str | None = None
    triggered_event: str | None = None
    action: str | None = None
    expression: str | None = None
    shared_reference: SharedReference | None = None


def round_half_away(x: float) -> int:
    """``x`` rounded to the nearest integer, halves away from zero (2.5 -> 3, -2.5 -> -3).

    Python's ``round`` rounds halves to even; the spec's ``Math.round`` does not.
    """
    magnitude = abs(x)
    whole = math.floor(magnitude)
    if magnitude - whole >= 0.5:
        whole += 1
    return int(whole) if x >= 0 else -int(whole)


def _number(value: object) -> float | int | None:
    """A finite number from an int, float or numeric string; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if not text or len(text) > 64:
            return None
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _bounded_int(value: object, limit: int) -> int | None:
    """``value`` as an int rounded half away from zero and clamped to ``±limit``."""
    number = _number(value)
    if number is None:
        return None
    if isinstance(number, float):
        number = round_half_away(number)
    return int(clamp(number, -limit, limit))


def _text(value: object, limit: int) -> str | None:
    """A stripped, non-empty string of at most ``limit`` characters, or None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.lower() in _NULL_WORDS:
        return None
    return text[:limit].rstrip() or None


def _mood_change(value: object) -> MoodChange | None:
    if isinstance(value, str):  # a bare emotion name ("mood_change": "happy")
        emotion = normalize_emotion(value)
        return MoodChange(emotion) if emotion else None
    if not isinstance(value, dict):
        return None
    emotion = normalize_emotion(value.get("emotion"))
    if emotion is None:
        return None
    delta = _bounded_int(value.get("intensity_delta"), LLM_CLAMPS["intensity_delta"])
    cause = _text(value.get("cause"), MAX_CAUSE_LENGTH)
    return MoodChange(emotion, delta or 0, cause)


def _shared_reference(value: object) -> SharedReference | None:
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if not isinstance(kind, str):
        return None
    kind = kind.strip().lower()
    kind = _SINGULAR_REFERENCE_TYPES.get(kind, kind)
    if kind not in SHARED_REFERENCE_TYPES:
        return None
    content = _text(value.get("content"), MAX_REFERENCE_LENGTH)
    return SharedReference(kind, content) if content else None


def _action(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text in ("null", "none") or not _ACTION_ID.fullmatch(text):
        return None
    return text


def sanitize_suggestion(block: object) -> LlmSuggestion:
    """The model's parsed JSON block made safe; never raises.

    Anything missing, of the wrong type or unknown becomes None ("not given").
    Numbers may be ints, floats or numeric strings ("+5", "3.7"); they are rounded
    half away from zero and clamped to :data:`LLM_CLAMPS`. Booleans, NaN and
    infinities are rejected. An unknown mood emotion drops the mood change.
    """
    if not isinstance(block, dict):
        return LlmSuggestion()
    try:
        deltas = {key: _bounded_int(block.get(key), LLM_CLAMPS[key]) for key in _RELATIONSHIP_KEYS}
        return LlmSuggestion(
            mood_change=_mood_change(block.get("mood_change")),
            new_memory=_text(block.get("new_memory"), MAX_MEMORY_LENGTH),
            triggered_event=_text(block.get("triggered_event"), MAX_EVENT_ID_LENGTH),
            action=_action(block.get("action")),
            expression=normalize_emotion(block.get("expression")),
            shared_reference=_shared_reference(block.get("shared_reference")),
            **deltas,
        )
    except Exception:  # noqa: BLE001 - untrusted input must never break a turn
        return LlmSuggestion()


def _capped(value: int | None, fallback: int, low: int, high: int) -> int:
    return fallback if value is None else int(clamp(value, low, high))


def merge_updates(
    baseline: StateUpdates, suggestion: LlmSuggestion, non_latin: bool = False
) -> StateUpdates:
    """The baseline combined with the sanitized suggestion (spec "State Merging").

    1. The suggestion's mood change replaces the baseline mood.
    2. Affection is capped at ``±max(2 * |baseline|, 5)``.
    3. Trust is capped at ``±max(2 * |baseline|, 3)``.
    4. Intimacy, comfort and respect are clamped to -3..5.
    5. Energy always comes from the baseline.
    6. new_memory, triggered_event, action, expression and shared_reference pass through.

    A delta the suggestion does not give keeps the baseline's value. When
    ``non_latin`` is true (mostly non-Latin message), steps 2-4 are skipped and the
    suggestion's deltas apply as given.
    """
    big = 10**9
    if non_latin:
        aff_cap = trust_cap = big
        low, high = -big, big
    else:
        aff_cap = max(2 * abs(baseline.affection_delta), MIN_AFFECTION_CAP)
        trust_cap = max(2 * abs(baseline.trust_delta), MIN_TRUST_CAP)
        low, high = OTHER_STAT_MERGE_RANGE
    s = suggestion
    return StateUpdates(
        mood_change=s.mood_change if s.mood_change is not None else baseline.mood_change,
        energy_delta=baseline.energy_delta,
        affection_delta=_capped(s.affection_delta, baseline.affection_delta, -aff_cap, aff_cap),
        trust_delta=_capped(s.trust_delta, baseline.trust_delta, -trust_cap, trust_cap),
        intimacy_delta=_capped(s.intimacy_delta, baseline.intimacy_delta, low, high),
        comfort_delta=_capped(s.comfort_delta, baseline.comfort_delta, low, high),
        respect_delta=_capped(s.respect_delta, baseline.respect_delta, low, high),
        new_memory=s.new_memory if s.new_memory is not None else baseline.new_memory,
        triggered_event=s.triggered_event
        if s.triggered_event is not None
        else baseline.triggered_event,
        action=s.action if s.action is not None else baseline.action,
        expression=s.expression if s.expression is not None else baseline.expression,
        shared_reference=s.shared_reference
        if s.shared_reference is not None
        else baseline.shared_reference,
    )


def apply_mood_change(mood: MoodState, change: MoodChange | None) -> MoodState:
    """A new mood with ``change`` applied; an unchanged copy when there is none.

    The primary emotion becomes ``change.emotion`` (the old primary, when
    different, becomes the secondary), intensity moves by the delta within 0-100,
    and the cause joins the last five causes. A change whose emotion is not
    canonical (after :func:`normalize_emotion`) is ignored.
    """
    copy = replace(mood, causes=list(mood.causes))
    if change is None:
        return copy
    emotion = normalize_emotion(change.emotion)
    if emotion is None:
        return copy
    delta = change.intensity_delta if isinstance(change.intensity_delta, int) else 0
    return MoodState(
        primary=emotion,
        intensity=int(clamp(int(mood.intensity) + delta, 0, 100)),
        secondary=mood.primary if mood.primary != emotion else mood.secondary,
        causes=add_cause(mood.causes, change.cause),
    )
