"""Her own words: the last guard against her voice being taken for the user's.

The echo canceller (``voice.echo``) removes her voice by its sound. It cannot when her
speakers lag more than it looks for (Bluetooth, a busy sound server), and while it settles
a fragment of her can slip through. Her words are known, though: :class:`HerWords` keeps
what she said and when, on the capture's timeline (samples heard so far), and
:func:`said_by_her` tells whether a recognised utterance that overlapped her voice is made
of her words. Such an utterance is dropped, not sent as a turn.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from companion_desktop.voice.audio import SAMPLE_RATE

#: Her voice can still be heard this long after its clip ended (speaker lag, the room).
TAIL_S = 0.8
#: What she said longer ago than this is forgotten (in seconds).
KEEP_S = 120.0
#: Share of the heard words that must be hers (all of them for one or two words).
SHARE = 0.6

_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def words(text: str) -> list[str]:
    """Case-folded words; scripts written without spaces give one word per character."""
    out: list[str] = []
    for word in _WORD.findall(text.casefold()):
        if _CJK.search(word):
            out.extend(ch for ch in word if ch.isalnum())
        else:
            out.append(word)
    return out


def said_by_her(heard: str, hers: Sequence[str]) -> bool:
    """True when ``heard`` is her words: at least :data:`SHARE` of its words (every one of
    one or two) are words of what she was saying (``hers``)."""
    heard_words = words(heard)
    if not heard_words or not hers:
        return False
    her_words = {w for text in hers for w in words(text)}
    shared = sum(1 for w in heard_words if w in her_words)
    need = len(heard_words) if len(heard_words) <= 2 else math.ceil(SHARE * len(heard_words))
    return shared >= need


class HerWords:
    """What she said and when, in samples of the capture stream."""

    def __init__(self) -> None:
        self._said: list[list] = []  # [start, end, text]

    def said(self, at: int, length: int, text: str) -> None:
        """She starts saying ``text`` (``length`` samples of audio) at capture sample ``at``."""
        keep = at - int(KEEP_S * SAMPLE_RATE)
        self._said = [s for s in self._said if s[1] > keep]
        if text.strip():
            self._said.append([at, at + max(0, length), text])

    def cut(self, at: int) -> None:
        """Her voice stopped at ``at`` (barge-in): nothing of it is heard after."""
        for entry in self._said:
            entry[1] = min(entry[1], at)

    def during(self, start: int, end: int) -> list[str]:
        """What she was saying between capture samples ``start`` and ``end`` (her voice's
        tail included)."""
        tail = int(TAIL_S * SAMPLE_RATE)
        return [text for s, e, text in self._said if s <= end and e + tail >= start]
