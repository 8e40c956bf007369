"""The familiarity system of relationship-system.md: a 0-100 score, five levels.

Pure (standard library only); the clock is passed in as a timezone-aware
``datetime`` and never read here. Every function returns new objects and leaves
its inputs untouched.

Units: ``score`` is points in [0, 100]; ``message_length`` is characters;
``conversation_turns`` is turns so far in the current session; ``sentiment`` is
in [-1, 1] (negative = hostile, positive = warm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone


@dataclass
class Familiarity:
    """The spec's ``UserRelationship`` row; ``scope`` is its guild id (None = global)."""

    scope: int | None = None
    score: float = 0.0
    total_interactions: int = 0
    positive_interactions: int = 0
    negative_interactions: int = 0
    avg_message_length: float = 0.0
    conversation_depth_avg: float = 0.0
    shared_references: dict[str, list[str]] = field(default_factory=dict)
    first_interaction_at: datetime | None = None
    last_interaction_at: datetime | None = None


LEVELS: tuple[str, ...] = ("stranger", "acquaintance", "friend", "good_friend", "close_friend")
LEVEL_NAMES: dict[str, str] = {
    "stranger": "Stranger",
    "acquaintance": "Acquaintance",
    "friend": "Friend",
    "good_friend": "Good Friend",
    "close_friend": "Close Friend",
}
LEVEL_EMOJI: dict[str, str] = {
    "stranger": "👋",
    "acquaintance": "🙂",
    "friend": "🤝",
    "good_friend": "😊",
    "close_friend": "💖",
}

SCORE_MIN = 0.0
SCORE_MAX = 100.0
POSITIVE_THRESHOLD = 0.2  # sentiment strictly above counts as positive
NEGATIVE_THRESHOLD = -0.2  # sentiment strictly below counts as negative

REFERENCE_TYPES: tuple[str, ...] = ("jokes", "nicknames", "memories")
MAX_REFERENCES_PER_TYPE = 10
MAX_REFERENCE_CHARS = 200

BASE_MODIFIERS: dict[str, str] = {
    "stranger": (
        "This is someone you don't know well yet. Be polite and welcoming, "
        "but keep some professional distance. Use more formal language."
    ),
    "acquaintance": (
        "This is someone you've chatted with a few times. "
        "Be friendly and warm, but still somewhat reserved."
    ),
    "friend": (
        "This is a friend! Be casual and warm. "
        "Use their name occasionally, show you remember past conversations."
    ),
    "good_friend": (
        "This is a good friend you know well. Be relaxed and personal. "
        "Reference things you've talked about before. Feel free to be playful."
    ),
    "close_friend": (
        "This is a close friend! Be very casual and familiar. "
        "Use inside jokes if you have any, be supportive and genuine. "
        "You can tease them gently and be more emotionally open."
    ),
}

# Levels whose prompt modifier mentions shared references (spec: 61+ only).
_REFERENCE_LEVELS = frozenset({"good_friend", "close_friend"})


def level_for_score(score: float) -> str:
    """Level id for a score in points (0-100).

    The spec's integer bands (Stranger 0-20, Acquaintance 21-40, Friend 41-60,
    Good Friend 61-80, Close Friend 81-100) are read as upper bounds for float
    scores: ``score <= 20`` stranger, ``<= 40`` acquaintance, ``<= 60`` friend,
    ``<= 80`` good_friend, else close_friend. So 20.0 is stranger and 20.01 is
    acquaintance. Scores below 0 are stranger; NaN is treated as 0 (stranger).
    """
    if math.isnan(score) or score <= 20:
        return "stranger"
    if score <= 40:
        return "acquaintance"
    if score <= 60:
        return "friend"
    if score <= 80:
        return "good_friend"
    return "close_friend"


def _to_float(value: object) -> float:
    """``value`` as a float; non-numbers and NaN become 0."""
    try:
        number = float(value)  # type: ignore[arg-type]  # any value: failures are caught
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(number) else number


def _clean_sentiment(sentiment: float) -> float:
    """Sentiment clamped to [-1, 1]; non-numbers and NaN become 0 (neutral)."""
    return max(-1.0, min(1.0, _to_float(sentiment)))


def _clean_count(value: int) -> int:
    """A non-negative whole count; negatives, infinities and non-numbers become 0."""
    number = _to_float(value)
    return int(number) if math.isfinite(number) and number > 0 else 0


def score_delta(sentiment: float, message_length: int, conversation_turns: int) -> float:
    """Score change in points for one interaction, in [-1, 1] (spec ``_calculate_score_delta``).

    sentiment*0.5 (clamped to [-1, 1] first) + min(0.3, message_length/500)
    + min(0.2, conversation_turns*0.05) + 0.1, clamped to [-1, 1].
    Negative lengths/turns count as 0; NaN sentiment counts as 0.
    """
    base = _clean_sentiment(sentiment) * 0.5
    length_bonus = min(0.3, _clean_count(message_length) / 500)
    depth_bonus = min(0.2, _clean_count(conversation_turns) * 0.05)
    total = base + length_bonus + depth_bonus + 0.1
    return max(-1.0, min(1.0, total))


def _copy_references(refs: dict[str, list[str]]) -> dict[str, list[str]]:
    return {key: list(values) for key, values in refs.items()}


def record_interaction(
    rel: Familiarity,
    sentiment: float,
    message_length: int,
    conversation_turns: int,
    now: datetime,
) -> Familiarity:
    """A new Familiarity after one interaction at ``now`` (the input is not changed).

    Score moves by :func:`score_delta` and stays in [0, 100]. Sentiment above
    0.2 counts as positive, below -0.2 as negative (exactly +-0.2 is neither).
    ``avg_message_length`` (characters) and ``conversation_depth_avg`` (turns)
    are running averages over all interactions.
    """
    clean_sentiment = _clean_sentiment(sentiment)
    length = _clean_count(message_length)
    turns = _clean_count(conversation_turns)
    old_score = rel.score if math.isfinite(rel.score) else SCORE_MIN
    new_score = old_score + score_delta(clean_sentiment, length, turns)
    n = max(0, rel.total_interactions) + 1
    return replace(
        rel,
        score=max(SCORE_MIN, min(SCORE_MAX, new_score)),
        total_interactions=n,
        positive_interactions=rel.positive_interactions
        + (1 if clean_sentiment > POSITIVE_THRESHOLD else 0),
        negative_interactions=rel.negative_interactions
        + (1 if clean_sentiment < NEGATIVE_THRESHOLD else 0),
        avg_message_length=(rel.avg_message_length * (n - 1) + length) / n,
        conversation_depth_avg=(rel.conversation_depth_avg * (n - 1) + turns) / n,
        shared_references=_copy_references(rel.shared_references),
        first_interaction_at=rel.first_interaction_at or now,
        last_interaction_at=now,
    )


def _normalize(text: str) -> str:
    """Whitespace collapsed to single spaces, stripped."""
    return " ".join(text.split())


def add_shared_reference(rel: Familiarity, reference_type: str, content: str) -> Familiarity:
    """A new Familiarity with ``content`` added to ``shared_references[reference_type]``.

    ``reference_type`` must be one of REFERENCE_TYPES (else ValueError). Content
    has its whitespace collapsed and is cut to 200 characters; empty content and
    duplicates (case- and whitespace-insensitive) leave the references unchanged.
    At most 10 per type are kept; the oldest are dropped first.
    """
    if reference_type not in REFERENCE_TYPES:
        raise ValueError(
            f"unknown shared reference type {reference_type!r}; "
            f"expected one of {', '.join(REFERENCE_TYPES)}"
        )
    refs = _copy_references(rel.shared_references)
    text = _normalize(str(content))[:MAX_REFERENCE_CHARS].rstrip()
    if not text:
        return replace(rel, shared_references=refs)
    items = refs.get(reference_type, [])
    key = text.casefold()
    if any(_normalize(item).casefold() == key for item in items):
        return replace(rel, shared_references=refs)
    items.append(text)
    refs[reference_type] = items[-MAX_REFERENCES_PER_TYPE:]
    return replace(rel, shared_references=refs)


def prompt_modifier(rel: Familiarity) -> str:
    """Relationship guidance for the system prompt, one line.

    The level's BASE_MODIFIERS text; for good_friend and close_friend only, it
    adds " You have inside jokes together: a, b." (jokes), " You sometimes call
    them: x." (nicknames) and, beyond the spec, " Things you share: m." (memories).
    """
    level = level_for_score(rel.score)
    text = BASE_MODIFIERS[level]
    if level in _REFERENCE_LEVELS:
        refs = rel.shared_references
        for ref_type, lead in (
            ("jokes", "You have inside jokes together"),
            ("nicknames", "You sometimes call them"),
            ("memories", "Things you share"),
        ):
            items = refs.get(ref_type) or []
            if items:
                text += f" {lead}: {', '.join(items)}."
    return text


def _aware(moment: datetime) -> datetime:
    """A naive datetime (as SQLite returns them) is taken to be UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def days_known(rel: Familiarity, now: datetime) -> int:
    """Whole days (rounded down, never negative) since the first interaction; 0 if none."""
    if rel.first_interaction_at is None:
        return 0
    return max(0, (_aware(now) - _aware(rel.first_interaction_at)).days)


def relationship_info(rel: Familiarity, now: datetime) -> dict:
    """The spec's ``get_relationship_info`` as a plain dict (timestamps as ISO-8601 or None)."""
    refs = {ref_type: list(rel.shared_references.get(ref_type, [])) for ref_type in REFERENCE_TYPES}
    for ref_type, items in rel.shared_references.items():
        refs.setdefault(ref_type, list(items))
    level = level_for_score(rel.score)
    first, last = rel.first_interaction_at, rel.last_interaction_at
    return {
        "level": level,
        "level_name": LEVEL_NAMES[level],
        "score": round(rel.score, 2),
        "total_interactions": rel.total_interactions,
        "positive_interactions": rel.positive_interactions,
        "negative_interactions": rel.negative_interactions,
        "days_known": days_known(rel, now),
        "avg_message_length": rel.avg_message_length,
        "conversation_depth_avg": rel.conversation_depth_avg,
        "shared_references": refs,
        "first_interaction_at": first.isoformat() if first else None,
        "last_interaction_at": last.isoformat() if last else None,
    }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def relationship_card(rel: Familiarity, now: datetime) -> str:
    """The spec's ``!relationship`` card as plain text (score rounded down)."""
    level = level_for_score(rel.score)
    score = math.floor(rel.score) if math.isfinite(rel.score) else 0
    lines = [
        "Your Relationship with Me",
        f"Level: {LEVEL_NAMES[level]} {LEVEL_EMOJI[level]}",
        f"Score: {score}/100",
        f"We've had {_plural(rel.total_interactions, 'conversation')} together!",
        f"- Positive vibes: {_plural(rel.positive_interactions, 'time')}",
        f"- Rough patches: {_plural(rel.negative_interactions, 'time')}",
        f"We've known each other for {_plural(days_known(rel, now), 'day')}.",
    ]
    return "\n".join(lines)
