"""The text to show while a reply streams in, kept up to date chunk by chunk.

:class:`StreamText` gives, after every chunk, exactly
``speech_stream_text(visible_stream_text(raw, companion_name, user_name))`` of the reply
so far, without parsing the whole reply again each time (that made a 100 KB reply cost
tens of seconds of CPU). Three parts:

1. Reasoning tags are removed as they complete (the rules of ``parse.strip_reasoning``):
   the text outside them grows at its end ("stable"), except that a lone ``</think>``
   starts it again; a trailing fragment that may still become a tag is "volatile".
2. The stable text is committed a line at a time (in a long line, up to a word's end)
   once nothing after it can change what it shows: no block, fake turn, end marker,
   open reminder, held fragment or unclosed ``speak(`` in it, a plain character before
   the break. The shown text of ``head + tail`` is then the head's followed by the
   tail's, and the tail is worked out on its own behind a short stand-in for the head
   (:data:`_STAND_IN`). ``tests/engine/test_stream_text.py`` checks the equality at
   every chunk of many replies, split many ways.
3. When the stable text itself holds a reasoning tag (pieces joined around a removed
   tag) or a name has a line break, every chunk runs the original functions again:
   exact, at their cost, for hostile replies only (the reply cap bounds it).

Standard library only.
"""

from __future__ import annotations

import re

from .parse import (
    _CLOSE_REMINDER,
    _END_MARKERS,
    _INLINE_BLOCK_START,
    _LEADING_JUNK,
    _OPEN_REMINDER,
    _THINK_TAG,
    _fake_turn_start,
    _held_tail,
    _stream_block_start,
    extract_reminders,
    strip_name_prefix,
    tidy,
    visible_stream_text,
)
from .speech import (
    _STREAM_PREFIX,
    _clean_shown,
    calls_settled,
    speech_stream_text,
    stream_shown,
)

#: A complete first line put in front of the uncommitted tail: no role header, name
#: prefix or speaker, so the tail is read as the lines after a reply's first line; as long
#: as ``parse._held_tail``'s window, which behaves differently in shorter text.
_STAND_IN = "x" * 24 + "\n"
#: The head is committed once its text is that long too.
_MIN_HEAD = len(_STAND_IN)
#: A reasoning tag that may still complete (``parse._THINK_TAG`` cut short at the end).
_PARTIAL_TAG = re.compile(
    r"<\s*/?\s*(?:t(?:h(?:i(?:n(?:k(?:i(?:ng?)?)?)?)?)?)?|think(?:ing)?\s+)?\Z", re.I)
#: The character before a committed line break may not open or hold anything.
_OPENERS = "<[`{"
#: How far back ``parse._held_tail`` looks, plus the line break.
_HELD_WINDOW = 26
_SPEAK_AT_END = re.compile(r"speak[\s(]*\Z", re.I)
#: In a long line, a commit at a word's end is tried again after this many characters.
_MID_STEP = 64


class StreamText:
    """Feed the reply's chunks in order; each :meth:`feed` returns the text to show.

    ``text`` is the last result; ``visible`` is the reply so far before the ``speak()``
    markup is read (``visible_stream_text(raw, companion_name, user_name)``: what decides
    what is spoken). Amortised cost per chunk: the chunk plus the current unfinished line
    (or block), not the whole reply.
    """

    def __init__(self, companion_name: str = "", user_name: str | None = None) -> None:
        self.name = companion_name if isinstance(companion_name, str) else ""
        self.user = user_name
        self.text = ""
        self.visible = ""
        self._raw = ""
        # reasoning removal (parse.strip_reasoning, incrementally)
        self._inside = False   # inside <think>…
        self._covered = 0      # raw[:covered] is accounted for in the stable text
        self._resume = 0       # the first "<" that may still become a tag
        self._stable = ""      # text outside tags, up to self._resume
        self._volatile = ""    # text after self._resume (shown while it is no tag)
        self._last_lt = -1     # the last "<" in the stable text
        self._slow = any(ch in (self.name + (user_name or "")) for ch in "\r\n")
        self._starts = _line_starts(self.name, user_name)
        self._word_char = next(c for c in "qzjvw" if not self._starts or
                               not self._starts.match(c))
        self._reset_head()

    # -- public --------------------------------------------------------------------------
    def feed(self, chunk: str) -> str:
        """Add ``chunk`` (any split of the reply); the text to show now."""
        if not chunk:
            return self.text
        self._raw += chunk
        grown_from = len(self._stable)
        if self._strip_reasoning():
            grown_from = 0
            self._reset_head()
        if not self._slow:
            self._slow = self._joined_tag(grown_from)
        if self._slow:  # exact, at the original functions' cost
            self.visible = visible_stream_text(self._raw, self.name, self.user)
            self.text = speech_stream_text(self.visible)
            return self.text
        self._commit(grown_from)
        self.text = self._shown()
        return self.text

    # -- 1. reasoning tags ---------------------------------------------------------------
    def _strip_reasoning(self) -> bool:
        """Bring the stable/volatile text up to date (the rules of
        ``parse.strip_reasoning``); True when the stable text started again."""
        raw, restarted = self._raw, False
        for tag in _THINK_TAG.finditer(raw, self._resume):
            closing = bool(tag.group(1))
            if self._inside:
                if closing:
                    self._inside, self._covered = False, tag.end()
            elif closing:  # a lone closer drops everything before it
                self._stable, self._covered, restarted = "", tag.end(), True
                self._last_lt = -1
            else:
                self._add_stable(raw[self._covered:tag.start()])
                self._inside = True
            self._resume = tag.end()
        self._resume = _first_open_tag(raw, self._resume)
        if not self._inside and self._resume > self._covered:
            self._add_stable(raw[self._covered:self._resume])
            self._covered = self._resume
        self._volatile = "" if self._inside else raw[self._resume:]
        return restarted

    def _add_stable(self, text: str) -> None:
        at = text.rfind("<")
        if at >= 0:
            self._last_lt = len(self._stable) + at
        self._stable += text

    def _joined_tag(self, grown_from: int) -> bool:
        """True when the stable text holds a reasoning tag taking in its new part (pieces
        joined around a removed tag: "<thi" + "<think>…</think>" + "nk>")."""
        start = grown_from
        before = self._last_lt if self._last_lt < grown_from else \
            self._stable.rfind("<", 0, grown_from)
        if before >= 0 and _PARTIAL_TAG.match(self._stable[before:grown_from]):
            start = before
        return _THINK_TAG.search(self._stable, start) is not None

    # -- 2. committed head ---------------------------------------------------------------
    def _reset_head(self) -> None:
        self._committed = 0      # stable[:committed] is the head
        self._head_visible = ""  # its visible text (before speak() is read)
        self._stand_in = _STAND_IN  # what stands in for the head before the tail
        self._keep = len(_STAND_IN) - 1  # the stand-in's length in the shown text
        self._said_before = "x"  # stands in for the head before the tail's speech
        self._head_end = ""      # the end of the head's shown text (before speak())
        self._head_said = ""     # its speak() calls read (speech.stream_shown)
        self._head_clean = ""    # that with _clean_shown applied
        self._pre_tail = ""      # the head's last pre-tidy characters (held-tail window)
        self._next_mid_try = 0   # mid-line commits are tried as the line grows

    def _commit(self, grown_from: int) -> None:
        """Commit the stable text up to the last new line break that allows it, else
        (in a long line) up to a word's end."""
        stable = self._stable
        start = max(self._committed, grown_from)
        end = stable.rfind("\n", start)
        while end >= start:
            if self._try_commit(stable[self._committed:end + 1], False):
                return
            end = stable.rfind("\n", start, end)
        if self._starts is None or len(stable) < self._next_mid_try:
            return
        cut = stable.rfind(" ", start + 1)
        while cut > self._committed and stable[cut - 1].isspace():
            cut = stable.rfind(" ", start + 1, cut - 1)
        if cut <= self._committed or not self._try_commit(stable[self._committed:cut], True):
            # tried again once the uncommitted text is half as long again
            pending = len(stable) - self._committed
            self._next_mid_try = len(stable) + max(_MID_STEP, pending // 2)

    def _try_commit(self, lines: str, mid: bool) -> bool:
        first = self._committed == 0
        text = lines if first else self._stand_in + lines
        pre = _pre_tidy_if_whole(text, self.name, self.user, self._starts if mid else None)
        if pre is None:
            return False
        window = (self._pre_tail + pre[0 if first else len(self._stand_in):])[-_HELD_WINDOW:]
        line = pre if mid else pre[:-1].rstrip(" \t")  # tidy drops spaces before a break
        last = line[-1] if line else ""
        if not last or last.isspace() or last in _OPENERS or "<|" in window:
            return False
        if first and len(pre) < _MIN_HEAD:
            return False
        shown = tidy(pre)
        added = shown if first else shown[self._keep:]
        if "<think>" in pre or "```json" in pre or not calls_settled(added):
            return False
        head_end = (self._head_end + added)[-40:]
        if _SPEAK_AT_END.search(head_end):
            return False
        said_added = stream_shown(added)
        said = self._head_said + said_added
        if not said or _STREAM_PREFIX.search(said, max(0, len(said.rstrip()) - 6)):
            return False  # a trailing "spe…" would hide
        if mid and _is_word(said[-1]) != _is_word(head_end[-1]):
            return False  # one stand-in character serves both
        self._committed += len(lines)
        self._head_visible += added
        self._head_end, self._head_said, self._pre_tail = head_end, said, window
        self._head_clean += _clean_shown(said_added)
        if mid:
            self._said_before = self._word_char if _is_word(last) else "."
            self._stand_in = _STAND_IN + self._said_before
            self._keep = len(self._stand_in)
        else:
            self._stand_in, self._keep, self._said_before = _STAND_IN, len(_STAND_IN) - 1, "x"
        self._next_mid_try = 0
        return True

    def _shown(self) -> str:
        tail = self._stable[self._committed:] + self._volatile
        if self._committed == 0:
            self.visible = visible_stream_text(tail, self.name, self.user)
            return speech_stream_text(self.visible)
        rest = visible_stream_text(self._stand_in + tail, self.name, self.user)[self._keep:]
        self.visible = self._head_visible + rest
        if rest:
            return self._head_clean + speech_stream_text(self._said_before + rest)[1:]
        return self._head_clean  # a head never ends in a hidden "spe…"


def _is_word(ch: str) -> bool:
    """Whether ``ch`` counts as a word character for speech's look-behinds."""
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _line_starts(name: str, user: str | None) -> re.Pattern[str] | None:
    """The first characters a fake-turn speaker can start with (``parse._FAKE_TURN`` and
    the name patterns), or None when a name starts with a character the patterns may
    skip (then no line is committed before its end)."""
    firsts = ["u", "y", "h", "t", "n", "ユ", "#"]
    for who in (name, user or ""):
        who = who.strip()
        if who:
            if who[0] in " \t>*_":
                return None
            firsts.append(who[0])
    return re.compile("[" + "".join(re.escape(ch) for ch in firsts) + "]", re.I)


def _first_open_tag(raw: str, start: int) -> int:
    """The first "<" at or after ``start`` that may still grow into a reasoning tag
    (len(raw) when none)."""
    at = raw.find("<", start)
    while at >= 0:
        if _PARTIAL_TAG.match(raw, at):
            return at
        at = raw.find("<", at + 1)
    return len(raw)


def _pre_tidy_if_whole(text: str, name: str, user: str | None,
                       starts: re.Pattern[str] | None = None) -> str | None:
    """``visible_stream_text``'s text before tidying, when ``text`` passes through whole:
    nothing cut, held or left open in it, and nothing in it that later text could join.
    ``text`` ends in a line break; or, with ``starts`` (see :func:`_line_starts`), at a
    word's end inside a line whose start no fake turn, block or fence can take. None
    when it does not pass."""
    mid = starts is not None
    if text.endswith("\n") == mid or _THINK_TAG.search(text):
        return None
    junk = _LEADING_JUNK.match(text)
    if junk is not None and junk.end() >= len(text):
        return None
    body = _LEADING_JUNK.sub("", text, count=1)
    if _END_MARKERS.search(body) or _INLINE_BLOCK_START.search(body):
        return None
    # a block, or inside code at the end
    if _stream_block_start(body + ("\n{" if mid else "{")) != len(body) + mid:
        return None
    if _fake_turn_start(body, name, user, []) != len(body):
        return None
    named = strip_name_prefix(body, name)
    if starts is not None:
        line = body[body.rfind("\n") + 1:]
        lead = line.lstrip(" \t>*_")
        if "`" in line or not lead or line.lstrip()[0] == "{" or starts.match(lead):
            return None
        # the spaces that follow would join a reminder tag or "Name:" ending here
        if body[-1] == "]" or strip_name_prefix(body + " ", name) != named + " ":
            return None
    pre, _ = extract_reminders(named)
    closers = [m.start() for m in _CLOSE_REMINDER.finditer(pre)]
    last_close = closers[-1] if closers else -1
    if any(m.start() > last_close for m in _OPEN_REMINDER.finditer(pre)):
        return None
    if _held_tail(pre) != len(pre) or pre.endswith("\n") == mid:
        return None
    return pre
