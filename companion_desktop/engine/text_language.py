"""Which language a piece of her reply is written in, so it is read by a voice of that
language (an English sentence never with Japanese phonemes, German never with English ones).

Scripts decide first: kana means Japanese, Hangul Korean, Han without kana Chinese,
Cyrillic Russian (or Ukrainian with its own letters), Greek, Arabic, Hebrew, Thai,
Devanagari Hindi. Latin script is told apart by its small words ("the", "und", "que",
"les"...) and letters only some languages use (ß, ñ, ã...). A text too short or too mixed
to tell gives ``None``: the caller keeps the language it had (the settings' or the last
one). Standard library only; linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

#: Function words of the Latin-script languages told apart here (lower case), a word
#: counts for every language it is in.
_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("the and you are is to of it that this with for what have was your my "
                    "i'm it's don't can not be me so do how".split()),
    "de": frozenset("der die das und ist ich du nicht ein eine mit zu es auf den dem wir "
                    "sie mir dich was wie auch noch aber heute".split()),
    "es": frozenset("el la los las que y es en un una por para con no me te lo pero muy "
                    "qué cómo está estoy eres tu mi del al".split()),
    "fr": frozenset("le la les et est un une des du de je tu vous nous que qui pas pour "
                    "avec dans ce c'est mais très moi toi".split()),
    "it": frozenset("il lo la gli le e è un una che non per con di mi ti sono sei ma "
                    "molto come cosa questo anche".split()),
    "pt": frozenset("o a os as e é um uma que não para com de do da em eu você muito "
                    "mas como está estou isso".split()),
    "nl": frozenset("de het een en is ik je niet van dat met op te zijn wat hoe maar ook "
                    "heel jij mij".split()),
}
#: Letters that point to one language (each adds to its score).
_LETTERS = {"ß": "de", "ä": "de", "ö": "de", "ü": "de", "ñ": "es", "¿": "es", "¡": "es",
            "ã": "pt", "õ": "pt", "ç": "fr", "œ": "fr", "è": "fr", "ê": "fr", "à": "fr",
            "ì": "it", "ò": "it", "ĳ": "nl"}
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
#: At least this many recognised small words before a Latin-script guess is made.
MIN_WORDS = 1


def _script(ch: str) -> str | None:
    code = ord(ch)
    if 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF or 0xFF66 <= code <= 0xFF9D:
        return "kana"
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
        return "ko"
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF:
        return "han"
    if 0x0400 <= code <= 0x04FF:
        return "ru"
    if 0x0370 <= code <= 0x03FF:
        return "el"
    if 0x0600 <= code <= 0x06FF:
        return "ar"
    if 0x0590 <= code <= 0x05FF:
        return "he"
    if 0x0E00 <= code <= 0x0E7F:
        return "th"
    if 0x0900 <= code <= 0x097F:
        return "hi"
    if ch.isalpha():
        return "latin"
    return None


def text_language(text: str) -> str | None:
    """The language ``text`` is written in (an ISO 639-1 code), or None when it cannot
    be told (see the module)."""
    scripts = Counter(s for s in map(_script, text) if s is not None)
    if not scripts:
        return None
    if scripts["kana"]:
        return "ja"  # Japanese mixes kana with kanji (Han)
    top, count = scripts.most_common(1)[0]
    if top == "han":
        return "zh"
    if top == "ru":
        return "uk" if any(ch in "іїєґІЇЄҐ" for ch in text) else "ru"
    if top != "latin":
        return top if count * 2 >= sum(scripts.values()) else None
    return _latin_language(text)


def _latin_language(text: str) -> str | None:
    folded = unicodedata.normalize("NFC", text).casefold()
    words = [w.replace("’", "'") for w in _WORD.findall(folded.replace("’", "'"))]
    scores: Counter[str] = Counter()
    for word in words:
        for language, known in _WORDS.items():
            if word in known:
                scores[language] += 1
    for ch in folded:
        marked = _LETTERS.get(ch)
        if marked is not None:
            scores[marked] += 1
    if not scores:
        return None
    ranked = scores.most_common(2)
    best, best_score = ranked[0]
    if best_score < MIN_WORDS or (len(ranked) > 1 and ranked[1][1] == best_score):
        return None  # nothing known, or a tie: cannot tell
    return best
