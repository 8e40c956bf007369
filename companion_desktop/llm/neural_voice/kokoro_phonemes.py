"""espeak-ng's IPA as Kokoro's phonemes, and phonemes as the model's token ids.

Kokoro v1.0 was trained on misaki's phoneme set, which writes English diphthongs and
affricates as one symbol each. :data:`ENGLISH` is our own table from espeak-ng's US
English IPA to those symbols (applied longest match first): ``eɪ`` A, ``aɪ`` I, ``aʊ`` W,
``ɔɪ`` Y, ``oʊ`` O, ``dʒ`` ʤ, ``tʃ`` ʧ, ``r`` ɹ, the r-coloured vowels spelled out
(``ɚ`` əɹ, ``ɜː`` ɜɹ), the flap ``ɾ`` as misaki's T, syllabic consonants as ``ᵊ`` + the
consonant, the pronoun I stressed (unstressed, the voices swallow it at a sentence's
start). Stress marks and punctuation are kept; espeak-ng's length mark ``ː`` is dropped, as
misaki's US set has none: heard back by Whisper (97 words), dropping it took jf_tebukuro
from 16 word errors to 10 and jf_alpha from 13 to 11, and changed no other voice.
British English (``en-gb``, not measured) keeps ``ː``, ``ɒ`` and writes ``əʊ`` as Q.
Other languages pass through with only the common fixes (ties, ``g``). Whatever the
vocabulary lacks is dropped by :func:`token_ids`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: espeak-ng US English IPA -> misaki symbols (multi-symbol keys first when applied).
ENGLISH: dict[str, str] = {
    "ʔn̩": "tᵊn", "n̩": "ᵊn", "l̩": "ᵊl", "m̩": "ᵊm",
    "ɜːɹ": "ɜɹ", "ɜː": "ɜɹ", "ɝ": "ɜɹ", "ɚ": "əɹ",
    "oːɹ": "ɔɹ", "oː": "ɔ",
    "eɪ": "A", "aɪ": "I", "aʊ": "W", "ɔɪ": "Y", "oʊ": "O", "əʊ": "O",
    "dʒ": "ʤ", "tʃ": "ʧ",
    "ɾ": "T", "ʔ": "t", "r": "ɹ", "ɐ": "ə", "ɒ": "ɑ", "ɬ": "l", "x": "k", "ç": "k",
    "e": "A", "ʲ": "", "ː": "",
}
#: British English keeps its long vowels and its own "oh" (misaki's GB symbols).
ENGLISH_GB: dict[str, str] = {**ENGLISH, "əʊ": "Q", "ɜː": "ɜː", "ɜːɹ": "ɜːɹ", "ɒ": "ɒ",
                              "ː": "ː"}
#: Fixes for every language: the plain g espeak-ng sometimes writes, typographic marks.
COMMON: dict[str, str] = {"g": "ɡ", "'": "ˈ", ",": ",", "‘": "", "’": ""}
#: The pronoun "I" alone (espeak-ng leaves it unstressed; the voices then swallow it).
_LONE_I = re.compile(r"(?<!\S)I(?=[\s,.!?;:…—]|$)")
#: The most token ids one model call takes (the model's context is 512 with the two pads).
MAX_TOKENS = 510


def _apply(text: str, table: Mapping[str, str]) -> str:
    """``text`` with every key of ``table`` replaced, longest key first at each place."""
    longest = max((len(k) for k in table), default=1)
    out: list[str] = []
    i = 0
    while i < len(text):
        for size in range(min(longest, len(text) - i), 0, -1):
            piece = text[i:i + size]
            if piece in table:
                out.append(table[piece])
                i += size
                break
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def to_kokoro(ipa: str, language: str = "en") -> str:
    """Kokoro phonemes for espeak-ng ``ipa`` read in ``language`` (``en``/``en-us``/
    ``en-gb``/... get :data:`ENGLISH`; others only :data:`COMMON`)."""
    text = _apply(ipa, COMMON)
    if language.lower().startswith("en"):
        table = ENGLISH_GB if language.lower() == "en-gb" else ENGLISH
        text = _LONE_I.sub("ˈI", _apply(text, table))
    return " ".join(text.split())


def token_ids(phonemes: str, vocab: Mapping[str, int]) -> list[int]:
    """The ids of the symbols of ``phonemes`` that ``vocab`` has (the rest is dropped)."""
    return [vocab[ch] for ch in phonemes if ch in vocab]


def split_tokens(ids: list[int], space_id: int | None, limit: int = MAX_TOKENS) -> list[list[int]]:
    """``ids`` in runs of at most ``limit``, cut after a space where one is in the second
    half of a run (a word is never cut when it can be helped)."""
    runs: list[list[int]] = []
    while len(ids) > limit:
        cut = limit
        if space_id is not None:
            for at in range(limit - 1, limit // 2, -1):
                if ids[at] == space_id:
                    cut = at + 1
                    break
        runs.append(ids[:cut])
        ids = ids[cut:]
    if ids:
        runs.append(ids)
    return runs
