"""Heuristic reading of a user message and the baseline state deltas it implies.

Pure (standard library only). Keyword lists are English; a message that is mostly
non-Latin script gets sentiment 0 (spec "Heuristics Engine"). The baseline
follows the "Baseline heuristics" table of DESIGN.md exactly.

Keywords match whole words (``glad`` is not found in ``gladiator``); multi-word
phrases match consecutive words; emoticons and emoji match as substrings.
Negation: a keyword preceded within two words, in the same clause, by
not/never/no/don't/isn't/wasn't/didn't (and similar contractions) is negated. A
negated positive keyword counts as negative ("not happy"); a negated negative
keyword or a negated "thanks" counts as neither ("not bad", "no thanks"); a
negated compliment or insult does not count ("you're not stupid", "no thanks").
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from .character import clamp
from .state_updates import MoodChange, StateUpdates, round_half_away

__all__ = [
    "MessageAnalysis",
    "analyze_message",
    "calculate_baseline",
    "is_non_latin_dominant",
    "round_half_away",
]

POSITIVE_WORDS = frozenset(
    "happy glad great good nice love loved loving lovely awesome amazing wonderful "
    "fantastic excellent beautiful fun funny enjoy enjoyed enjoying excited exciting "
    "thank thanks grateful thankful appreciate appreciated cool perfect best brilliant "
    "yay hooray haha hehe lol cute sweet kind adorable delighted pleased proud "
    "relieved calm peaceful blessed lucky hope hopeful smile smiling laugh laughing "
    "better improved success won win winning superb incredible "
    "glorious cheerful joy joyful wow gorgeous comfortable cozy safe".split()
)
NEGATIVE_WORDS = frozenset(
    "sad sadly unhappy bad terrible awful horrible hate hated hating angry mad upset "
    "annoyed annoying frustrated frustrating tired exhausted lonely alone depressed "
    "depressing anxious worried worry scared afraid fear stressed stress hurt hurts "
    "pain painful cry crying cried miserable sick ill worst boring bored disappointed "
    "disappointing sorry fail failed failing failure lost lose losing broke broken "
    "ugh sucks awful dread dreading hopeless useless stupid cruel nervous problem "
    "problems wrong difficult struggling struggle grief died death".split()
)
POSITIVE_EMOTICONS: tuple[str, ...] = (
    ":)", ":-)", ":D", ":-D", "<3", "^^", "^_^", ";)", ";-)",
    "❤", "♥", "💕", "💖", "💗", "😊", "😀", "😃", "😄", "😁", "😆", "😍", "🥰",
    "😘", "☺", "🙂", "👍", "🎉", "✨", "😂", "🤗",
)
NEGATIVE_EMOTICONS: tuple[str, ...] = (
    ":(", ":-(", ":'(", "😢", "😭", "😞", "😔", "😟", "😠", "😡", "💔", "☹",
    "🙁", "😩", "😫", "😰", "😥", "😓", "👎",
)
#: Words that mark a personal or reflective topic; ``depth_markers`` counts distinct ones.
DEPTH_MARKERS = frozenset(
    "feel feeling feelings felt think thought thoughts believe belief because meaning "
    "life dream dreams fear fears hope hopes remember memory memories childhood family "
    "future past honestly truth realize realized struggle struggling purpose "
    "relationship relationships death regret regrets wonder wondering understand "
    "myself identity lonely loneliness grew parents mother father mom dad lost "
    "afraid trust secret important why".split()
)
EMOTIONAL_WORDS = frozenset(
    "feel feeling feelings felt emotion emotions emotional sad happy lonely scared "
    "afraid anxious anxiety worried depressed depression cry crying cried tears love "
    "hate hurt hurts heartbroken miss missed missing excited angry upset nervous "
    "stressed overwhelmed grief grieving ashamed embarrassed jealous proud grateful "
    "frustrated furious terrified miserable joy lost alone hopeless".split()
)
#: Compliment or thanks phrases (word sequences).
COMPLIMENT_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(p.split())
    for p in (
        "thank", "thanks", "thank you", "thx", "ty", "thankyou", "appreciate",
        "appreciate it", "grateful", "you're amazing", "you're sweet", "you're kind",
        "you're cute", "you're smart", "you're the best", "you are amazing",
        "you are sweet", "you are kind", "you are cute", "you are smart",
        "you are the best", "you're awesome", "you're wonderful", "you're beautiful",
        "you're adorable", "you're funny", "you're great", "love you", "well done",
        "proud of you", "good job", "great job", "nice job", "you rock", "so sweet",
        "so kind", "you look beautiful", "you look cute", "you're lovely",
        "you're brilliant",
    )
)
INSULT_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(p.split())
    for p in (
        "stupid", "idiot", "idiotic", "dumb", "useless", "shut up", "hate you",
        "annoying", "worthless", "pathetic", "moron", "loser", "you suck", "go away",
        "dummy", "brainless", "incompetent", "screw you", "piss off", "fuck you",
        "bitch", "hate talking to you",
    )
)
NEGATORS = frozenset(
    "not never no don't dont isn't isnt wasn't wasnt didn't didnt doesn't doesnt "
    "aren't arent weren't werent nor".split()
)
QUESTION_WORDS = frozenset(
    "what who where when why how do does did is are was were can could would will "
    "should which".split()
)

#: Positive words that count as neither when negated ("no thanks" is a polite refusal).
_POLITE_WORDS = frozenset({"thank", "thanks"})

DEEP_MARKERS = 3
DEEP_LENGTH = 200
MODERATE_LENGTH = 80
NEGATION_WINDOW = 2

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_CLAUSE_SPLIT = re.compile(r"[.!?;:,\n\u3002\uff01\uff1f\u3001]+")


@dataclass(frozen=True)
class MessageAnalysis:
    """What the heuristics read from one user message."""

    sentiment: float = 0.0  # -1..1
    depth: str = "shallow"  # "shallow" | "moderate" | "deep"
    depth_markers: int = 0
    emotional: bool = False
    question: bool = False
    compliment: bool = False  # compliment or thanks
    insult: bool = False
    non_latin: bool = False
    length: int = 0


def _is_latin(ch: str) -> bool:
    if ch.isascii():
        return True  # only called on letters; ASCII letters are Basic Latin
    return unicodedata.name(ch, "").startswith("LATIN")


def is_non_latin_dominant(text: str) -> bool:
    """True when more than half of the letters in ``text`` are not Latin script."""
    letters = 0
    non_latin = 0
    for ch in text:
        if ch.isalpha():
            letters += 1
            if not _is_latin(ch):
                non_latin += 1
    return letters > 0 and non_latin * 2 > letters


def _clauses(text: str) -> list[list[str]]:
    """Lowercase words per clause (punctuation ends a negation's reach)."""
    normalized = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return [_WORD.findall(c) for c in _CLAUSE_SPLIT.split(normalized)]


def _negated(words: list[str], index: int) -> bool:
    start = max(0, index - NEGATION_WINDOW)
    return any(w in NEGATORS for w in words[start:index])


def _find_phrase(clauses: list[list[str]], phrases: tuple[tuple[str, ...], ...]) -> bool:
    """Whether an un-negated phrase occurs in any clause."""
    for words in clauses:
        for i in range(len(words)):
            for phrase in phrases:
                if tuple(words[i : i + len(phrase)]) == phrase and not _negated(words, i):
                    return True
    return False


def _sentiment(text: str, clauses: list[list[str]]) -> float:
    pos = sum(text.count(e) for e in POSITIVE_EMOTICONS)
    neg = sum(text.count(e) for e in NEGATIVE_EMOTICONS)
    for words in clauses:
        for i, word in enumerate(words):
            if word in POSITIVE_WORDS:
                if _negated(words, i):
                    neg += word not in _POLITE_WORDS
                else:
                    pos += 1
            elif word in NEGATIVE_WORDS and not _negated(words, i):
                neg += 1
    total = pos + neg
    return (pos - neg) / total if total else 0.0


def _is_question(text: str, clauses: list[list[str]]) -> bool:
    if "?" in text or "\uff1f" in text:
        return True
    first = next((words[0] for words in clauses if words), "")
    return first.split("'")[0] in QUESTION_WORDS  # "what's" -> "what"


def analyze_message(text: str) -> MessageAnalysis:
    """Sentiment, depth, emotional content, question, compliment and insult of ``text``."""
    if not isinstance(text, str):
        text = ""
    clauses = _clauses(text)
    words = {w for c in clauses for w in c}
    markers = len(words & DEPTH_MARKERS)
    length = len(text)
    if markers >= DEEP_MARKERS or length > DEEP_LENGTH:
        depth = "deep"
    elif markers >= 1 or length > MODERATE_LENGTH:
        depth = "moderate"
    else:
        depth = "shallow"
    non_latin = is_non_latin_dominant(text)
    return MessageAnalysis(
        sentiment=0.0 if non_latin else _sentiment(text, clauses),
        depth=depth,
        depth_markers=markers,
        emotional=bool(words & EMOTIONAL_WORDS),
        question=_is_question(text, clauses),
        compliment=_find_phrase(clauses, COMPLIMENT_PHRASES),
        insult=_find_phrase(clauses, INSULT_PHRASES),
        non_latin=non_latin,
        length=length,
    )


#: Inclusive bounds of the baseline deltas.
BASELINE_CLAMPS: dict[str, tuple[int, int]] = {
    "affection": (-5, 10),
    "trust": (-3, 5),
    "intimacy": (-2, 5),
    "comfort": (-3, 3),
    "respect": (-2, 3),
}
BASELINE_ENERGY = -2
BASELINE_AFFECTION = 1


def baseline_mood(sentiment: float) -> MoodChange | None:
    """The mood strong sentiment sets: happy, content, anxious or sad; else None."""
    s = sentiment
    if s >= 0.6:
        emotion, cause = "happy", "a warm conversation"
    elif s >= 0.3:
        emotion, cause = "content", "a warm conversation"
    elif s <= -0.6:
        emotion, cause = "sad", "a difficult conversation"
    elif s <= -0.3:
        emotion, cause = "anxious", "a difficult conversation"
    else:
        return None
    return MoodChange(emotion, math.floor(abs(s) * 20), cause)


def calculate_baseline(analysis: MessageAnalysis) -> StateUpdates:
    """The baseline deltas of DESIGN.md "Baseline heuristics", clamped."""
    d = {"affection": BASELINE_AFFECTION, "trust": 0, "intimacy": 0, "comfort": 0, "respect": 0}

    def add(**deltas: int) -> None:
        for key, value in deltas.items():
            d[key] += value

    s = analysis.sentiment
    if s >= 0.3:
        add(affection=round_half_away(4 * s), trust=1, comfort=1)
    elif s <= -0.3:
        add(affection=round_half_away(5 * s), trust=-1, comfort=-2, respect=-1)
    if analysis.depth == "deep":
        add(affection=1, trust=2, intimacy=2, respect=1)
    elif analysis.depth == "moderate":
        add(trust=1, intimacy=1)
    if analysis.emotional:
        add(affection=1, trust=1, intimacy=1, comfort=1)
    if analysis.question:
        add(comfort=1, respect=1)
    if analysis.compliment:
        add(affection=2, respect=1)
    if analysis.insult:
        add(affection=-3, trust=-2, comfort=-2, respect=-2)
    out = {k: int(clamp(v, *BASELINE_CLAMPS[k])) for k, v in d.items()}
    return StateUpdates(
        mood_change=baseline_mood(s),
        energy_delta=BASELINE_ENERGY,
        affection_delta=out["affection"],
        trust_delta=out["trust"],
        intimacy_delta=out["intimacy"],
        comfort_delta=out["comfort"],
        respect_delta=out["respect"],
    )
