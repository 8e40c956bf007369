"""Text cut for a speech model: sentences, clauses, and the language a sentence's script says.

A neural voice reads one sentence at a time (its input is a few hundred phonemes at most)
and a phonemizer reads one clause at a time (espeak-ng drops the punctuation between
clauses, which the voice needs for its pauses and tune). Sentence ends are ``.``, ``!``,
``?`` and ``…`` before a space or the end (not after a few common abbreviations or
between digits), the Japanese ``。！？`` anywhere, and line breaks. A sentence that holds
kana or kanji is Japanese (:func:`is_japanese`); anything else is read in the language the
caller chose.

Standard library only.
"""

from __future__ import annotations

import re

#: Words after which a full stop does not end a sentence (compared in lower case).
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "approx", "no", "jr",
    "sr", "mt", "ft",
})
#: A sentence end: Western marks before white space or the end, Japanese marks anywhere.
_END = re.compile(r"(?:[.!?…]+[\"'”’)\]]*)(?=\s|$)|[。！？!?]+[」』）)]*|\n+")
#: Clause marks inside a sentence, with the punctuation a voice hears them as.
_CLAUSE = re.compile(r"\s*([,;:—–、，；：]|\.\.\.|…|[.!?。！？]+)\s*")
_CLAUSE_SOUND = {"、": ",", "，": ",", "；": ";", "：": ":", "–": "—", "...": "…", "。": ".",
                 "！": "!", "？": "?"}
#: Hiragana, katakana (full and half width), CJK ideographs and the iteration mark 々.
_JAPANESE = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                       r"\uff66-\uff9f\u3005]")


def is_japanese(text: str) -> bool:
    """True when ``text`` holds kana or kanji (it is then read as Japanese)."""
    return _JAPANESE.search(text) is not None


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order, each stripped, its end mark kept; empty pieces
    are left out. Line breaks always end a sentence."""
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(text):
        if match.group().startswith(".") and _abbreviation(text, match.start()):
            continue
        piece = text[start:match.end()].strip()
        start = match.end()
        if piece:
            sentences.append(piece)
    rest = text[start:].strip()
    if rest:
        sentences.append(rest)
    return [s for s in sentences if any(ch.isalnum() for ch in s)]


def _abbreviation(text: str, dot: int) -> bool:
    """True when the full stop at ``dot`` closes a known abbreviation or a single letter."""
    word = re.search(r"([A-Za-z.]+)$", text[:dot])
    if word is None:
        return False
    token = word.group(1).lower().strip(".")
    return token in ABBREVIATIONS or (len(token) == 1 and token.isalpha() and token != "i")


def split_clauses(sentence: str) -> list[tuple[str, str]]:
    """``sentence`` as (clause text, the punctuation after it) pairs; the punctuation is
    one of ``, ; : — … . ! ?`` (Japanese marks as their Western sound) or "" at the end
    without a mark. Clauses with no letters or digits are left out."""
    pairs: list[tuple[str, str]] = []
    start = 0
    for match in _CLAUSE.finditer(sentence):
        mark = match.group(1)
        if mark == "." and _abbreviation(sentence, match.start(1)):
            continue
        if mark in ".,:" and _between_digits(sentence, match.start(1), match.end(1)):
            continue  # 2.50, 1,000, 10:30
        clause = sentence[start:match.start()].strip()
        start = match.end()
        if any(ch.isalnum() for ch in clause):
            pairs.append((clause, _CLAUSE_SOUND.get(mark, mark[-1] if mark[0] in ".!?" else mark)))
    rest = sentence[start:].strip()
    if any(ch.isalnum() for ch in rest):
        pairs.append((rest, ""))
    return pairs


def _between_digits(text: str, start: int, end: int) -> bool:
    return 0 < start and end < len(text) and text[start - 1].isdigit() and text[end].isdigit()


def cut_words(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters (``limit`` >= 1), cut at spaces
    where one is near (a piece without spaces is cut where it reaches the limit)."""
    pieces: list[str] = []
    text = text.strip()
    while len(text) > limit:
        cut = text.rfind(" ", 0, limit + 1)
        cut = cut if cut > limit // 2 else limit
        pieces.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        pieces.append(text)
    return pieces
