"""Emotion names: map free-form model output onto the twelve canonical emotions.

Pure (standard library only). See "Emotion normalization" in the architecture
spec: compound and free-form names ("grateful|cared-for", "nervous") map to the
canonical set; unknown ones are dropped (``None``).
"""

from __future__ import annotations

import re

from .character import EMOTIONS, MAX_MOOD_CAUSES

#: Longest mood cause kept, in characters.
MAX_CAUSE_LENGTH = 120

_CANONICAL = frozenset(EMOTIONS)

#: Free-form name -> canonical emotion. Keys are in the normalized form of
#: :func:`_key` (lowercase ASCII words separated by single spaces).
_SYNONYMS_BY_EMOTION: dict[str, tuple[str, ...]] = {
    "happy": (
        "joy", "joyful", "joyous", "glad", "cheerful", "cheery", "delighted", "grateful",
        "thankful", "pleased", "elated", "overjoyed", "jubilant", "merry", "blissful",
        "bliss", "ecstatic", "upbeat", "sunny", "smiling", "smile", "laughing", "proud",
        "happiness", "gleeful", "glee", "beaming", "touched", "moved", "relieved",
        "appreciative", "appreciated", "hopeful", "optimistic", "good", "great",
    ),
    "excited": (
        "thrilled", "eager", "enthusiastic", "hyped", "hype", "pumped", "stoked",
        "energetic", "energized", "excitement", "exhilarated", "giddy", "psyched",
        "keen", "amazed", "surprised", "astonished", "awed", "impressed", "animated",
    ),
    "anxious": (
        "nervous", "worried", "worry", "scared", "afraid", "uneasy", "stressed", "stress",
        "fearful", "fear", "frightened", "tense", "panicked", "panic", "panicky",
        "apprehensive", "concerned", "jittery", "on edge", "restless", "insecure",
        "overwhelmed", "anxiety", "terrified", "alarmed", "uncomfortable", "unsure",
        "uncertain", "hesitant", "timid",
    ),
    "content": (
        "calm", "relaxed", "peaceful", "satisfied", "cared for", "safe", "serene",
        "comfortable", "cozy", "cosy", "at ease", "tranquil", "settled", "secure",
        "fulfilled", "mellow", "chill", "contented", "contentment", "comforted",
        "reassured", "soothed", "at peace", "gentle", "supported", "understood",
    ),
    "frustrated": (
        "angry", "annoyed", "irritated", "mad", "upset", "anger", "furious", "irate",
        "irked", "exasperated", "aggravated", "resentful", "bitter", "grumpy", "cranky",
        "indignant", "offended", "pouty", "pouting", "sulky", "sulking", "jealous",
        "envious", "impatient", "fed up", "disgusted", "frustration", "livid", "cross",
    ),
    "curious": (
        "interested", "intrigued", "wondering", "inquisitive", "curiosity", "fascinated",
        "puzzled", "confused", "thoughtful", "pondering", "contemplative", "questioning",
        "attentive", "engaged", "inquiring", "perplexed", "bemused", "skeptical",
        "sceptical", "focused", "interest",
    ),
    "affectionate": (
        "loving", "warm", "tender", "caring", "fond", "love", "loved", "adoring",
        "adoration", "romantic", "smitten", "devoted", "sweet", "cuddly", "affection",
        "in love", "warmhearted", "compassionate", "protective", "sympathetic",
        "empathetic", "supportive", "attached", "doting", "infatuated", "yearning",
    ),
    "playful": (
        "teasing", "tease", "mischievous", "silly", "cheeky", "amused", "goofy", "funny",
        "whimsical", "flirty", "flirtatious", "impish", "sassy", "smug", "jokey",
        "joking", "joke", "humorous", "lighthearted", "light hearted", "bubbly",
        "naughty", "coy", "witty", "fun", "entertained", "giggly", "giggling",
    ),
    "melancholy": (
        "wistful", "nostalgic", "lonely", "pensive", "bittersweet", "melancholic",
        "longing", "reflective", "somber", "sombre", "gloomy", "blue", "forlorn",
        "homesick", "loneliness", "nostalgia", "moody", "brooding", "subdued",
        "resigned", "dreamy", "missing", "wistfulness", "bored",
    ),
    "flustered": (
        "embarrassed", "shy", "blushing", "bashful", "blush", "sheepish", "awkward",
        "abashed", "self conscious", "red faced", "flushed", "shyness",
        "embarrassment", "startled", "caught off guard", "tongue tied", "speechless",
    ),
    "sad": (
        "sorrow", "unhappy", "down", "hurt", "crying", "depressed", "sorrowful",
        "sadness", "heartbroken", "miserable", "grief", "grieving", "tearful", "teary",
        "weeping", "cry", "disappointed", "dejected", "despondent", "downcast",
        "devastated", "hopeless", "gutted", "low", "sorry", "regretful", "ashamed",
        "guilty", "lost", "defeated", "discouraged", "heartache", "pained", "wounded",
    ),
    "neutral": (
        "okay", "ok", "fine", "normal", "none", "neutrality", "indifferent", "meh",
        "default", "plain", "blank", "composed", "stoic", "steady",
        "alright", "so so", "nothing",
    ),
}

SYNONYMS: dict[str, str] = {
    name: emotion for emotion, names in _SYNONYMS_BY_EMOTION.items() for name in names
}

#: Compound separators between alternatives ("grateful|cared-for", "nervous, shy").
_PART_SPLIT = re.compile(r"[|/,;+&]|\band\b|\bor\b")
#: Anything that is not an ASCII letter separates words ("sad-ish", "cared_for").
_NON_LETTERS = re.compile(r"[^a-z]+")
#: A word right after one of these is skipped ("not happy" maps to nothing).
_NEGATIONS = frozenset({"not", "no", "never", "un", "non"})


def _key(text: str) -> str:
    """Lowercase ASCII words separated by single spaces."""
    return _NON_LETTERS.sub(" ", text.lower()).strip()


def _lookup(key: str) -> str | None:
    if key in _CANONICAL:
        return key
    return SYNONYMS.get(key)


def _match_part(part: str) -> str | None:
    """The emotion of one alternative: the whole phrase, then word pairs, then words."""
    key = _key(part)
    if not key:
        return None
    found = _lookup(key)
    if found is not None:
        return found
    words = key.split(" ")
    for i in range(len(words) - 1):
        if i > 0 and words[i - 1] in _NEGATIONS:
            continue
        found = _lookup(f"{words[i]} {words[i + 1]}")
        if found is not None:
            return found
    for i, word in enumerate(words):
        if word in _NEGATIONS or (i > 0 and words[i - 1] in _NEGATIONS):
            continue
        found = _lookup(word)
        if found is not None:
            return found
    return None


def normalize_emotion(name: object) -> str | None:
    """The canonical emotion for ``name``, or None when it is unknown or not a string.

    The whole value is tried first (a canonical name before a synonym), then each
    alternative of a compound value in order ("grateful|cared-for" -> happy),
    and inside an alternative each word ("sad-ish" -> sad). The first that maps wins.
    """
    if not isinstance(name, str):
        return None
    text = name.strip().lower()[:200]
    if not text:
        return None
    found = _lookup(_key(text))
    if found is not None:
        return found
    for part in _PART_SPLIT.split(text):
        found = _match_part(part)
        if found is not None:
            return found
    return None


def add_cause(causes: list[str], cause: str | None) -> list[str]:
    """A new causes list with ``cause`` appended, keeping the last five.

    ``cause`` is stripped and cut to 120 characters; an empty or non-string cause
    leaves the list as it was. A cause already in the list moves to the end
    instead of appearing twice.
    """
    kept = [c for c in causes if isinstance(c, str)]
    if isinstance(cause, str):
        text = cause.strip()[:MAX_CAUSE_LENGTH].strip()
        if text:
            kept = [c for c in kept if c != text]
            kept.append(text)
    return kept[-MAX_MOOD_CAUSES:]
