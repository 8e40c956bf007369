"""The inline ``speak()`` syntax: what she says aloud, parsed out of the visible reply.

Her reply may wrap the words she says out loud in ``speak("…")`` or
``speak("…", rate=1.1, pitch=0.9)``; text outside ``speak()`` is shown but not spoken
(``*smiles*``). A reply without any ``speak()`` speaks every visible sentence except
``*actions*``, ``(asides)`` and code. The model's output is untrusted: quotes may be
straight, single or curly, escaped (``\\"``), missing or unterminated, and numbers may be
anything; nothing here raises, and the shown text never contains ``speak(``.

Standard library only.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

#: Bounds of the speed and pitch multipliers (1.0 = the voice's own).
MIN_FACTOR, MAX_FACTOR = 0.5, 2.0
#: At most this many spoken parts per reply (the rest is shown, not spoken).
MAX_PARTS = 64

#: ``speak(`` (a space before the bracket only when a quote follows: "speak (a bit)").
_CALL = re.compile(r"(?<![A-Za-z0-9_])speak(?:\(|\s+\((?=\s*[\"'“‘«„]))", re.IGNORECASE)
_LEFTOVER = re.compile(r"(speak)\(", re.IGNORECASE)
#: Opening quote -> the quotes that may close it.
_QUOTES = {'"': '"”', "'": "'’", "“": "”\"", "‘": "’'", "«": "»", "„": "“”\""}
#: What follows a closing quote: optional keyword arguments, then ")" or the end; while
#: streaming also an unfinished argument list at the end (", ra").
_TAIL_TEXT = r"\s*(?:,\s*(?P<args>(?:\w+\s*=\s*[^,()\s]*\s*,?\s*)*))?(?:\)|\Z)"
_TAIL = re.compile(_TAIL_TEXT)
_TAIL_STREAM = re.compile(_TAIL_TEXT + r"|\s*,[^()\n\"]*\Z")
_ARG = re.compile(r"(\w+)\s*=\s*['\"]?([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
_BARE_ARGS = re.compile(r",\s*(?:\w+\s*=\s*[-+.\d]+\s*,?\s*)+$")
_ESCAPES = {"n": " ", "t": " ", "r": " "}
_STREAM_PREFIX = re.compile(r"(?:^|(?<=[^A-Za-z0-9_]))s(?:p(?:e(?:a(?:k\s*)?)?)?)?\Z",
                            re.IGNORECASE)
_ACTION = re.compile(r"\*[^*\n]*\*|\([^()\n]*\)|\[[^\[\]\n]*\]")
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_URL = re.compile(r"https?://\S+")
_MARKUP = str.maketrans("", "", "*_`#~|<>[]{}()")


@dataclass(frozen=True)
class SpokenPart:
    """Words to say aloud with speed and pitch multipliers (each clamped to 0.5-2.0)."""

    text: str
    rate: float = 1.0
    pitch: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", _factor(self.rate))
        object.__setattr__(self, "pitch", _factor(self.pitch))


@dataclass
class _Result:
    shown: list[str] = field(default_factory=list)
    spoken: list[SpokenPart] = field(default_factory=list)
    calls: int = 0


def _factor(value: object) -> float:
    """A multiplier from untrusted input: 1.0 unless a finite number; then 0.5-2.0."""
    try:
        number = float(value)  # type: ignore[arg-type]  # any value: failures are caught
    except (TypeError, ValueError, OverflowError):
        return 1.0
    if number != number or number in (float("inf"), float("-inf")):
        return 1.0
    return min(MAX_FACTOR, max(MIN_FACTOR, number))


def _unescape(text: str) -> str:
    """``\\"`` -> ``"``, ``\\\\`` -> ``\\``, ``\\n`` -> space; a lone trailing ``\\`` dropped."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 < len(text):
                nxt = text[i + 1]
                out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _close_quote(text: str, start: int, closers: str, limit: int,
                 tail_rule: re.Pattern[str]) -> tuple[int, re.Match[str] | None]:
    """Index of the quote closing the string at ``start`` (before ``limit``), with its
    tail match when arguments and ``)`` follow; (-1, None) when it never closes.

    First choice: the first unescaped closer followed by ``, key=value`` arguments and
    ``)`` (or nothing up to ``limit``), so quotes and apostrophes inside are allowed.
    Second: the first closer not followed by a letter or digit (a missing bracket)."""
    fallback = -1
    i = start
    while i < limit:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch in closers:
            tail = tail_rule.match(text, i + 1, limit)
            if tail is not None:
                return i, tail
            if fallback < 0 and (i + 1 >= limit or not text[i + 1].isalnum()):
                fallback = i
        i += 1
    return fallback, None


def _options(args: str | None) -> tuple[float, float]:
    """``rate`` and ``pitch`` from ``rate=1.1, pitch=0.9`` (anything else ignored)."""
    values = {k.lower(): v for k, v in _ARG.findall(args or "")}
    return _factor(values.get("rate", 1.0)), _factor(values.get("pitch", 1.0))


def _parse_call(text: str, pos: int,
                streaming: bool = False) -> tuple[str, float, float, int]:
    """Parse one call whose argument starts at ``pos``: (words, rate, pitch, end index).

    A call never reaches past the next ``speak(``."""
    following = _CALL.search(text, pos)
    limit = following.start() if following else len(text)
    while pos < limit and text[pos] in " \t":
        pos += 1
    opener = text[pos] if pos < limit else ""
    if opener in _QUOTES:
        close, tail = _close_quote(text, pos + 1, _QUOTES[opener], limit,
                                   _TAIL_STREAM if streaming else _TAIL)
        if close < 0:
            return _unescape(text[pos + 1:limit]), 1.0, 1.0, limit
        if tail is None:
            return _unescape(text[pos + 1:close]), 1.0, 1.0, close + 1
        rate, pitch = _options(tail.group("args"))
        return _unescape(text[pos + 1:close]), rate, pitch, tail.end()
    end = text.find(")", pos, limit)
    body = text[pos:limit] if end < 0 else text[pos:end]
    args = _BARE_ARGS.search(body)
    rate, pitch = _options(args.group(0) if args else None)
    if args is not None:
        body = body[:args.start()]
    return body, rate, pitch, limit if end < 0 else end + 1


def speakable(text: str) -> str:
    """``text`` as a voice should say it: no *actions*, (asides), [notes], code, links,
    markdown symbols, emoji or control characters; whitespace collapsed."""
    text = _FENCE.sub(" ", text)
    text = _URL.sub(" ", text)
    previous = None
    while previous != text:  # nested asides: "(a (b) c)"
        previous, text = text, _ACTION.sub(" ", text)
    text = text.translate(_MARKUP)
    kept = (ch for ch in text if ch.isspace() or _keep(ch))
    return " ".join("".join(kept).split())


def _keep(ch: str) -> bool:
    """Letters, digits, punctuation, accents, maths and currency; not emoji or controls."""
    if "\ufe00" <= ch <= "\ufe0f":  # variation selectors (emoji presentation)
        return False
    category = unicodedata.category(ch)
    return category[0] in "LNPM" or category in ("Sm", "Sc")


def _clean_shown(text: str) -> str:
    """The shown text never contains ``speak(`` (a space is put before the bracket)."""
    return _LEFTOVER.sub(r"\1 (", text)


def _scan(visible: str, streaming: bool = False) -> _Result:
    result = _Result()
    pos = 0
    for _ in range(len(visible) + 1):
        match = _CALL.search(visible, pos)
        if match is None:
            break
        result.shown.append(visible[pos:match.start()])
        words, rate, pitch, pos = _parse_call(visible, match.end(), streaming)
        result.shown.append(words)
        result.calls += 1
        said = speakable(_clean_shown(words))
        if _has_words(said) and len(result.spoken) < MAX_PARTS:
            result.spoken.append(SpokenPart(said, rate, pitch))
    result.shown.append(visible[pos:])
    return result


def _paragraph_parts(shown: str) -> list[SpokenPart]:
    """Without any speak(): each paragraph's speakable sentences, in order."""
    parts = [speakable(p) for p in re.split(r"\n\s*\n", _FENCE.sub("\n\n", shown))]
    return [SpokenPart(p) for p in parts if _has_words(p)][:MAX_PARTS]


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def split_speech(visible: str) -> tuple[str, list[SpokenPart]]:
    """(text to show, parts to speak) for a finished reply's visible text.

    Every ``speak("x")`` is shown as ``x``; malformed markup is shown without the
    ``speak(`` wrapper. Without any ``speak()`` every visible sentence is spoken except
    actions, asides and code. Never raises."""
    result = _scan(visible if isinstance(visible, str) else "")
    shown = _clean_shown("".join(result.shown))
    if result.calls == 0:
        return shown, _paragraph_parts(shown)
    return shown, result.spoken


def calls_settled(text: str) -> bool:
    """True when nothing written after ``text`` (from a new line on) can change how its
    ``speak()`` calls read while streaming: the last one is closed by its bracket."""
    calls = list(_CALL.finditer(text))
    last = calls[-1] if calls else None
    if last is None:
        return True
    pos = last.end()
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    opener = text[pos] if pos < len(text) else ""
    if opener in _QUOTES:
        close, tail = _close_quote(text, pos + 1, _QUOTES[opener], len(text), _TAIL_STREAM)
        return close >= 0 and tail is not None and tail.group(0).endswith(")")
    return text.find(")", pos) >= 0


def stream_shown(partial: str) -> str:
    """The shown text of ``partial`` while streaming, before a trailing ``spe…`` is
    hidden and ``speak(`` wrappers cleaned (the first step of speech_stream_text)."""
    return "".join(_scan(partial, streaming=True).shown)


def speech_stream_text(partial: str) -> str:
    """The text to show while a reply streams in: completed calls as their words, an
    unfinished trailing ``speak("abc`` as ``abc``, and a trailing ``spe``/``speak``
    (the start of a call that may be coming) hidden."""
    if not isinstance(partial, str):
        return ""
    shown = stream_shown(partial)
    prefix = _STREAM_PREFIX.search(shown)
    if prefix is not None:
        shown = shown[:prefix.start()]
    return _clean_shown(shown)


def speech_output_layer(voice_name: str | None) -> str:
    """The ``<speech_output_control>`` prompt layer teaching the speak() syntax."""
    voice = " ".join(str(voice_name or "").split())[:60]
    heard = f" in the voice \"{voice}\"" if voice else ""
    return (
        "<speech_output_control>\n"
        f"Your replies are read aloud{heard}. Wrap the words you say out loud in "
        "speak(\"...\"); everything outside speak() is shown on screen but not spoken.\n"
        "Example: *tilts her head* speak(\"Oh, you're back! How was your day?\")\n"
        "Rules:\n"
        "- Keep each spoken part natural sentences you would really say.\n"
        "- No emoji, markdown, *actions* or (asides) inside speak(); put those outside.\n"
        "- Optional speed and pitch: speak(\"...\", rate=1.1, pitch=0.9), each 0.5-2.0 "
        "(1.0 is normal).\n"
        "- Write a double quote inside the words as \\\".\n"
        "</speech_output_control>"
    )
