"""Text other programs wrote, made plain before she or the user sees it (pure).

Window titles and MCP servers' error output may carry terminal escape sequences,
control and format characters (bidi overrides, zero-width spaces, soft hyphens),
look-alike spaces and brackets that imitate the prompt's ``<tags>``. ``strip_controls``
drops what is not visible text; ``one_line`` also collapses whitespace; ``normalised``
is the form a window line is both checked and sent in (NFKC, so fullwidth letters and
brackets become plain ones); ``neutral_brackets`` turns every angle bracket and its
look-alikes into parentheses, so no text can open or close a tag.
"""

from __future__ import annotations

import re
import unicodedata

#: Terminal escape sequences: CSI (``ESC [ ... m``, also the one-byte CSI), OSC (``ESC ]
#: ... BEL``) and the two-character escapes. Dropped whole, not just their ESC.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -~]?"
)
#: Invisible characters outside Unicode's C categories (default-ignorable code points:
#: the combining grapheme joiner, Hangul fillers, Khmer vowels, variation selectors).
_INVISIBLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0]
    + list(range(0x180B, 0x1810)) + list(range(0xFE00, 0xFE10)) + list(range(0xE0100, 0xE01F0))
)
#: Angle brackets and their look-alikes (after NFKC), each with its neutral stand-in.
_OPENERS = "<‹«≪˂˱ᐸ〈《⟨⟪❬❮❰⦓⦕⧼﹤＜"
_CLOSERS = ">›»≫˃˲ᐳ〉》⟩⟫❭❯❱⦔⦖⧽﹥＞"
_BRACKETS = str.maketrans({**dict.fromkeys(_OPENERS, "("), **dict.fromkeys(_CLOSERS, ")")})


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch).startswith("C") or ord(ch) in _INVISIBLE


def strip_controls(text: str, keep: str = "") -> str:
    """``text`` without escape sequences, control, format, private-use and unassigned
    characters and other invisible ones; whitespace becomes a plain space, except the
    characters in ``keep`` (e.g. ``"\\n"``), which stay as they are."""
    text = _ESCAPES.sub("", text)
    out = []
    for ch in text:
        if ch in keep:
            out.append(ch)
        elif ch.isspace():
            out.append(" ")
        elif not _hidden(ch):
            out.append(ch)
    return "".join(out)


def one_line(text: str) -> str:
    """``text`` as one plain line: :func:`strip_controls`, whitespace runs as one space."""
    return " ".join(strip_controls(text).split())


def neutral_brackets(text: str) -> str:
    """``text`` with ``<``, ``>`` and every look-alike (fullwidth, small, mathematical,
    CJK, guillemets) turned into ``(`` and ``)``."""
    return text.translate(_BRACKETS)


def normalised(text: str) -> str:
    """The form a window line is checked and sent in: NFKC (fullwidth and compatibility
    forms made plain), :func:`one_line`, :func:`neutral_brackets`."""
    return neutral_brackets(one_line(unicodedata.normalize("NFKC", text)))


def cut(line: str, limit: int) -> str:
    """``line`` cut to ``limit`` characters (at least 1), ending in "…" when cut."""
    limit = max(1, limit)
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
