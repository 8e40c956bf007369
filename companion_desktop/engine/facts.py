"""Facts she learns about the user: importance, normalization, dedup, extraction, cues.

Pure (standard library only). Facts are third-person sentences ("They live in Berlin").
Keyword lists are English, like the heuristics they build on.

Importance (``calculate_fact_importance``), starting from ``base`` (default 50):

==========================================  ======
signal                                      points
==========================================  ======
longer than 40 characters                   +5
longer than 80 characters                   +5 more
an emotional word (heuristics list)         +10
a personal detail (name, family, job, ...)  +15
personal details of two or more kinds       +5 more
strong sentiment, abs(s) >= 0.6             +10
moderate sentiment, 0.3 <= abs(s) < 0.6     +5
==========================================  ======

The result is an integer in 0..100 (the additions top out at +50).
"""

from __future__ import annotations

import re
import unicodedata

from .heuristics import EMOTIONAL_WORDS, analyze_message

__all__ = [
    "CATEGORIES",
    "DEDUP_COSINE",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_IMPORTANCE",
    "MAX_FACTS_PER_TURN",
    "MAX_FACTS_WITH_MODEL_MEMORY",
    "PERSONAL_DETAILS",
    "baseline_memory",
    "calculate_fact_importance",
    "extract_potential_facts",
    "is_duplicate",
    "memory_triggers",
    "normalize_fact",
]

DEFAULT_IMPORTANCE = 50
DEFAULT_CONFIDENCE = 0.8
MAX_IMPORTANCE = 100
#: Cosine similarity (of L2-normalized vectors) at or above which two facts are one.
DEDUP_COSINE = 0.9
CATEGORIES = ("user", "relationship", "shared_experience")
MAX_FACTS_PER_TURN = 2
MAX_FACTS_WITH_MODEL_MEMORY = 1

LENGTH_STEPS = (40, 80)  # characters; +5 above each
LENGTH_POINTS = 5
EMOTIONAL_POINTS = 10
PERSONAL_POINTS = 15
PERSONAL_EXTRA_POINTS = 5  # two or more kinds of personal detail
STRONG_SENTIMENT, STRONG_POINTS = 0.6, 10
MODERATE_SENTIMENT, MODERATE_POINTS = 0.3, 5

#: Kinds of personal detail and the words that reveal them (whole words, lowercase).
PERSONAL_DETAILS: dict[str, frozenset[str]] = {
    kind: frozenset(words.split())
    for kind, words in {
        "name": "name named called nickname",
        "family": "family mother mom mum father dad parents sister sisters brother brothers "
        "son sons daughter daughters kids children child baby grandma grandmother grandpa "
        "grandfather aunt uncle cousin cousins",
        "job": "job jobs work works worked working career boss office company employed "
        "profession colleague colleagues coworker coworkers engineer nurse teacher doctor",
        "home": "home live lives lived living house apartment flat hometown grew moved "
        "neighborhood neighbourhood from",
        "health": "health healthy sick illness ill hospital allergic allergy allergies "
        "diagnosed surgery medication disease therapy therapist injury asthma diabetes",
        "birthday": "birthday birthdays born anniversary",
        "partner": "partner wife husband boyfriend girlfriend spouse fiance fiancee fiancé "
        "fiancée married marriage engaged dating",
        "pet": "pet pets dog dogs cat cats puppy kitten hamster rabbit parrot",
        "school": "school university college degree student studies studying study major",
    }.items()
}

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().translate(_QUOTES))


def calculate_fact_importance(content: str, base: int = DEFAULT_IMPORTANCE) -> int:
    """Importance 0..100 of a fact: ``base`` plus the points of the module table."""
    words = set(_words(content))
    points = sum(LENGTH_POINTS for step in LENGTH_STEPS if len(content.strip()) > step)
    if words & EMOTIONAL_WORDS:
        points += EMOTIONAL_POINTS
    kinds = sum(1 for vocab in PERSONAL_DETAILS.values() if words & vocab)
    if kinds:
        points += PERSONAL_POINTS + (PERSONAL_EXTRA_POINTS if kinds >= 2 else 0)
    strength = abs(analyze_message(content).sentiment)
    if strength >= STRONG_SENTIMENT:
        points += STRONG_POINTS
    elif strength >= MODERATE_SENTIMENT:
        points += MODERATE_POINTS
    return int(max(0, min(MAX_IMPORTANCE, base + points)))


def _is_edge_junk(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch)[0] in "PS"


def normalize_fact(text: str) -> str:
    """NFKC, lowercase, one space between words, punctuation and symbols cut from the ends."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    text = " ".join(text.split())
    start, end = 0, len(text)
    while start < end and _is_edge_junk(text[start]):
        start += 1
    while end > start and _is_edge_junk(text[end - 1]):
        end -= 1
    return text[start:end]


def is_duplicate(a_text: str, b_text: str, cosine: float | None,
                 threshold: float = DEDUP_COSINE) -> bool:
    """Same normalized text, or a cosine similarity of ``threshold`` (the spec's 0.9,
    for its model's scale) or more."""
    if normalize_fact(a_text) == normalize_fact(b_text):
        return True
    return cosine is not None and cosine >= threshold


# --- person conversion --------------------------------------------------------------

_FIRST_TO_THIRD = {
    "i": "they", "me": "them", "my": "their", "mine": "theirs", "myself": "themselves",
    "i'm": "they're", "i've": "they've", "i'll": "they'll", "i'd": "they'd",
}
_SECOND_TO_THIRD = {
    "you": "they", "your": "their", "yours": "theirs", "yourself": "themselves",
    "you're": "they're", "you've": "they've", "you'll": "they'll", "you'd": "they'd",
}
#: Words after which "you" is a subject ("they"); elsewhere it is an object ("them").
_CLAUSE_OPENERS = frozenset(
    "and but that because when if so since while where as or though although".split()
)
_I_AM = re.compile(r"\b(?:i|you) (am|are|was|were)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def _convert(text: str, table: dict[str, str]) -> str:
    """First or second person to third: "my dad" -> "their dad", "calls you" -> "calls them"."""
    past = ("was", "were")
    text = _I_AM.sub(
        lambda m: "they were" if m.group(1).lower() in past else "they are",
        text.translate(_QUOTES),
    )
    out: list[str] = []
    pos = 0
    previous = ""
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        lower = word.lower()
        new = table.get(lower, word)
        if lower == "you" and previous and previous not in _CLAUSE_OPENERS:
            new = "them"
        out.append(text[pos : m.start()] + new)
        pos = m.end()
        previous = lower
    return "".join(out) + text[pos:]


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:-")
    if not text:
        return ""
    return text[0].upper() + text[1:]


# --- extraction ---------------------------------------------------------------------

#: Where a captured phrase ends: punctuation, or a conjunction that starts a new clause.
_END = r"(?=\s*(?:[.!?,;:\n()]|\band\b|\bbut\b|\bbecause\b|\bso\b|\bwhich\b|\bwhere\b|$))"
_PHRASE = r"(?P<x>[^.!?,;:\n()]{1,60}?)" + _END
_NAME = r"(?P<x>[^\W\d_]+(?:[ -](?-i:[A-Z])[^\W\d_]+)?)"
_CLAUSE = r"(?P<x>[^.!?,;:\n]{3,120}?)(?=\s*(?:[.!?,;:\n]|\bbut\b|\bbecause\b|\bso\b|$))"

#: (pattern on the user's message, third-person template, whether ``x`` is a name)
_USER_PATTERNS: tuple[tuple[re.Pattern[str], str, bool], ...] = tuple(
    (re.compile(p, re.IGNORECASE), out, is_name)
    for p, out, is_name in (
        (r"\bmy name is " + _NAME, "Their name is {x}", True),
        (r"\b(?:call me|i go by) " + _NAME, "They go by {x}", True),
        (r"\bi work (?P<prep>at|for|as|in) " + _PHRASE, "They work {prep} {x}", False),
        (r"\bi live in " + _PHRASE, "They live in {x}", False),
        (r"\bi grew up in " + _PHRASE, "They grew up in {x}", False),
        (r"\b(?:i'm|i am|i come) from " + _PHRASE, "They are from {x}", False),
        (r"\bmy (?P<fav>favou?rite) (?P<what>[^\W\d_]+(?: [^\W\d_]+)?) is " + _PHRASE,
         "Their {fav} {what} is {x}", False),
        (r"\bi have an? (?P<what>dog|cat|puppy|kitten|rabbit|hamster|parrot|pet \w+) "
         r"(?:named|called) " + _NAME, "They have a {what} named {x}", True),
    )
)
_REPLY_PATTERNS = (
    re.compile(r"\byou mentioned(?: that)? " + _CLAUSE, re.IGNORECASE),
    re.compile(r"\bi(?:'ll| will) remember(?: that)? " + _CLAUSE, re.IGNORECASE),
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've)\b", re.IGNORECASE)


def _title(name: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in name.split())


def _user_facts(message: str) -> list[str]:
    found: list[tuple[int, str]] = []
    text = message.translate(_QUOTES)
    for pattern, template, is_name in _USER_PATTERNS:
        for m in pattern.finditer(text):
            parts = {k: (v or "").strip() for k, v in m.groupdict().items()}
            if not parts["x"]:
                continue
            parts["x"] = _title(parts["x"]) if is_name else _convert(parts["x"], _FIRST_TO_THIRD)
            found.append((m.start(), _sentence(template.format(**parts))))
    return [fact for _, fact in sorted(found)]


def _reply_facts(reply: str) -> list[str]:
    out = []
    for pattern in _REPLY_PATTERNS:
        for m in pattern.finditer(reply.translate(_QUOTES)):
            clause = m.group("x").strip()
            if _SECOND_PERSON.search(clause):  # "I'll remember that!" says nothing of them
                out.append(_sentence(_convert(clause, _SECOND_TO_THIRD)))
    return out


def extract_potential_facts(
    user_message: str, reply: str, model_wrote_memory: bool
) -> list[tuple[str, str]]:
    """Pattern facts of one turn as ``(content, category)``, user's message first.

    At most ``MAX_FACTS_PER_TURN`` (2), or ``MAX_FACTS_WITH_MODEL_MEMORY`` (1) when the
    model already wrote a memory; duplicates (same normalized text) are dropped.
    """
    limit = MAX_FACTS_WITH_MODEL_MEMORY if model_wrote_memory else MAX_FACTS_PER_TURN
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for fact in _user_facts(user_message or "") + _reply_facts(reply or ""):
        key = normalize_fact(fact)
        if len(key) < 6 or key in seen:
            continue
        seen.add(key)
        out.append((fact, "user"))
        if len(out) >= limit:
            break
    return out


#: First words after "I'm" that describe a passing state, not a fact about the user.
_PASSING = frozenset(
    "fine ok okay good great alright well here back sorry sure not just so really very "
    "glad happy sad tired going gonna doing trying thinking wondering kidding joking "
    "still also too bit little kind sort about done busy home on in at with the "
    "feeling getting looking".split()
)
_VAGUE_OBJECTS = frozenset("it that this you them him her those these".split())
_BASELINE = re.compile(r"\b(?P<verb>i'm|i am|i like|i love)\s+" + _PHRASE, re.IGNORECASE)


def baseline_memory(user_message: str) -> str | None:
    """The heuristic stand-in memory: "I'm a nurse" -> "They are a nurse", else None.

    The first "I'm ..." / "I am ..." / "I like ..." / "I love ..." clause that is not a
    passing state ("I'm fine", "I'm a bit tired") or a vague object ("I like it").
    """
    for m in _BASELINE.finditer((user_message or "").translate(_QUOTES)):
        verb = m.group("verb").lower()
        words = m.group("x").split()
        lowered = [w.lower() for w in words]
        if verb in ("i'm", "i am"):
            if lowered[0] in ("a", "an"):
                lowered = lowered[1:]
            if not lowered or lowered[0] in _PASSING:
                continue
            head = "They are"
        else:
            if lowered[0] in _VAGUE_OBJECTS:
                continue
            head = "They like" if verb == "i like" else "They love"
        return _sentence(f"{head} {_convert(' '.join(words), _FIRST_TO_THIRD)}")
    return None


# --- triggered-memory cues -------------------------------------------------------------

_CUE = re.compile(
    r"\b(?:do you remember|remember when|remember the time|that time)\s+"
    r"(?:when\s+|that time\s+|the time\s+|how\s+|that\s+)?(?P<cue>[^.!?\n]+)",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"[^.!?\n]+")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_NOT_NAMES = frozenset({"I", "I'm", "I've", "I'll", "I'd", "OK", "Ok"})


def _names(text: str) -> list[str]:
    """Runs of capitalized words that do not start a sentence ("New York"), not "I"."""
    names: list[str] = []
    for sentence in _SENTENCES.finditer(text):
        run: list[str] = []
        for i, m in enumerate(_NAME_WORD.finditer(sentence.group(0))):
            word = m.group(0)
            if i > 0 and word[0].isupper() and word not in _NOT_NAMES:
                run.append(word.removesuffix("'s"))
                continue
            if run:
                names.append(" ".join(run))
            run = []
        if run:
            names.append(" ".join(run))
    return names


def memory_triggers(text: str) -> list[str]:
    """Cues for triggered memories: "remember when ..." phrases, then names; no repeats."""
    text = (text or "").translate(_QUOTES)
    cues = [m.group("cue").strip() for m in _CUE.finditer(text)]
    cues += _names(text)
    seen: set[str] = set()
    out = []
    for cue in cues:
        key = cue.casefold()
        if cue and key not in seen:
            seen.add(key)
            out.append(cue)
    return out
