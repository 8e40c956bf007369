"""Session summaries from the most frequent topic words of the user's messages.

Pure (standard library only); no model call (spec "Memory System", tier 3). A topic
word is a word of three or more letters that is not a stopword; plurals fold onto
their singular ("dogs" and "dog" count together). A word keeps its capital only when
every occurrence away from a sentence start is capitalized ("Seattle", not "Hiking").
The same word list serves the keyword fallback of memory retrieval (``keywords``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["STOPWORDS", "fold_plural", "keywords", "summarize_session", "topic_words"]

MAX_TOPICS = 5
MIN_WORD_LETTERS = 3

STOPWORDS = frozenset(
    """
    a about above after again against all almost also although always am among an and
    another any anyone anything anyway are aren't around as at away back be because been
    before being below between both but by can can't cannot could couldn't day days did
    didn't do does doesn't doing don't done down during each either else enough even ever
    every everyone everything few for from get gets getting give go goes going gone gonna
    good got gotta had hadn't has hasn't have haven't having he her here hers herself him
    himself his how however i i'd i'll i'm i've if in into is isn't it it's its itself
    just keep kind know knew last least less let let's like liked likes little lol lot
    lots made make makes making many may maybe me mean might mine more most much must my
    myself need needs never new next nice no nobody none nor not nothing now of off oh ok
    okay on once one only or other others our ours ourselves out over own pretty probably
    quite rather really right said same say saying says see seem seems she should shouldn't
    since so some someone something sometimes soon still stuff such sure take tell than
    thank thanks that that's the their theirs them themselves then there there's these
    they they're thing things think this those though thought through time times to today
    together tomorrow too took toward try trying um under until up upon us use used very
    want wanted wants was wasn't way we we're well went were weren't what what's whatever
    when where whether which while who whom whose why will with within without won't
    would wouldn't yeah yes yesterday yet you you'd you'll you're you've your yours
    yourself yourselves hey hello hi bye hmm haha hehe yep nope feel feels felt tonight
    week weeks year years bit near far lately really quite
    """.split()
)
#: Words ending in "s" that are not plurals (or whose singular would mislead).
_NOT_PLURAL = frozenset(
    "news series species physics mathematics politics economics glasses pants jeans "
    "clothes always perhaps various famous nervous serious previous gas bus plus this "
    "yes its has was does goes analysis basis crisis thesis tennis chess lens".split()
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_SENTENCE = re.compile(r"[^.!?\n\u3002\uff01\uff1f]+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'"})


def fold_plural(word: str) -> str:
    """A simple English singular of a lowercase word: "cities" -> "city", "dogs" -> "dog"."""
    if word in _NOT_PLURAL or len(word) <= MIN_WORD_LETTERS or not word.endswith("s"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("ss", "sh", "ch", "x", "z")):
        return word[:-2]
    if word.endswith(("ss", "us", "is")):
        return word
    return word[:-1]


def topic_words(text: str) -> Iterable[tuple[str, str, bool]]:
    """``(key, surface, sentence_start)`` of each topic word of ``text``, in order."""
    for sentence in _SENTENCE.finditer(text.translate(_QUOTES)):
        for i, m in enumerate(_WORD.finditer(sentence.group(0))):
            surface = m.group(0)
            lower = surface.lower()
            if len(lower) < MIN_WORD_LETTERS or lower in STOPWORDS or "'" in lower:
                continue
            yield fold_plural(lower), surface, i == 0


def keywords(text: str) -> set[str]:
    """The folded topic words of ``text`` (for keyword overlap)."""
    return {key for key, _, _ in topic_words(text)}


def _display(key: str, capitalized: list[bool]) -> str:
    if capitalized and all(capitalized):
        return key[:1].upper() + key[1:]
    return key


def _join(topics: list[str]) -> str:
    if len(topics) == 1:
        return topics[0]
    return ", ".join(topics[:-1]) + " and " + topics[-1]


def summarize_session(
    turns: list[tuple[str, str]], max_topics: int = MAX_TOPICS
) -> tuple[str, list[str]]:
    """("Talked about hiking, Seattle and work.", topics) from the user's turns.

    Topics rank by count, then by first appearance; at most ``max_topics``. Turns are
    ``(role, text)``; only ``role == "user"`` counts. No topics -> ``("", [])``.
    """
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    capitals: dict[str, list[bool]] = {}
    for role, text in turns:
        if role != "user" or not text:
            continue
        for key, surface, starts_sentence in topic_words(text):
            counts[key] += 1
            first_seen.setdefault(key, len(first_seen))
            if not starts_sentence:
                capitals.setdefault(key, []).append(surface[0].isupper())
    ranked = sorted(counts, key=lambda k: (-counts[k], first_seen[k]))[: max(0, max_topics)]
    topics = [_display(k, capitals.get(k, [])) for k in ranked]
    if not topics:
        return "", []
    return f"Talked about {_join(topics)}.", topics
