"""What she says while her reply is still streaming in: each finished sentence, at once.

:class:`SpeechStream` is fed the visible reply so far after every chunk (``StreamText.
visible``: the JSON block, reasoning and fake turns hidden, the ``speak()`` markup still
in it) and returns the spoken parts that have just become final, by the rules of
:func:`speech.split_speech`. A part is final only when nothing streamed later can change
how it reads:

- Once the reply has a ``speak()`` call, only calls are spoken (as in split_speech). A
  call is final when its bracket closes it (``speak("…", rate=1.1)``: its rate and pitch
  come last) or the next call begins; its words go out a sentence at a time.
- Before that (no call so far), a sentence is final when its end (``. ! ? …`` and any
  closing quotes or brackets) is followed by white space and the start of the next
  sentence (not a lowercase letter: "e.g. so" goes on), and no ``*action*``, ``(aside)``
  or ``[note]`` opened on its line can still close over it (they end with the line);
  a paragraph is final when the next one begins; nothing inside a code fence is spoken
  (the text before a fence is a finished paragraph).

A reply that speaks plain sentences and only later uses ``speak()`` changes its reading:
the whole reply then speaks only its calls. What was said cannot be taken back, so those
sentences stay said (a reply that starts plainly and keeps silent until its end would
make every plain reply wait for its last word, which is what streaming is for). After
the first call, only calls are said. :func:`remaining_speech` lines up what was said
with the final parts so that no word is said twice.

Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .speech import (
    _ACTION,
    _CALL,
    _QUOTES,
    _TAIL_STREAM,
    _URL,
    MAX_PARTS,
    SpokenPart,
    _clean_shown,
    _has_words,
    _parse_call,
    speakable,
    split_speech,
)

#: A sentence end: after a letter (not "1." of a list), optional closing quotes, then
#: its punctuation and any closing quotes, brackets or emphasis, before white space.
_SENTENCE_END = (r"(?<=[^\W\d_])[\"'”’)\]*_]*[.!?…。！？]+[\"'”’»)\]*_~]*(?=\s)")
_SENTENCE = re.compile(_SENTENCE_END)
#: A paragraph break (as split_speech splits paragraphs) or a sentence end.
_BREAK = re.compile(r"\n\s*\n|" + _SENTENCE_END)
_PARAGRAPH = re.compile(r"\n\s*\n")
_NON_SPACE = re.compile(r"\S")
#: The end of the text that may still become a ``speak(`` call.
_PARTIAL_CALL = re.compile(r"(?<![A-Za-z0-9_])s(?:p(?:e(?:a(?:k(?:\s*\(?\s*)?)?)?)?)?\Z",
                           re.IGNORECASE)
_FENCE_MARK = "```"
#: How far back a sentence end may start that later text completes (characters).
_LOOK_BACK = 64


class SpeechStream:
    """Feed the visible reply so far (it grows); :meth:`feed` returns the new parts.

    ``said`` holds every part returned so far, in order. Cost per feed: the text added
    plus the unfinished sentence (or call, or code fence), with C-speed scans.
    """

    def __init__(self) -> None:
        self.said: list[SpokenPart] = []
        self._head = ""          # the text read for good (what came before the parts said)
        self._pos = 0            # plain: what comes before is said, or never will be
        self._look = 0           # plain: where sentence ends are looked for next
        self._counted = False    # plain: the paragraph at _pos has counted as a part
        self._units = 0          # paragraphs (plain) or calls said: at most MAX_PARTS
        self._calls = False      # a speak() call came: only calls are spoken from now
        self._call_at = 0        # calls: where the next call is looked for
        self._call_scan = 0      # plain: where a first call is looked for
        self._close_scan = 0     # calls: where the last call's closing is looked for
        self._next_scan = 0      # calls: where a call after it is looked for
        self._lost = False       # the text changed behind what was read

    def feed(self, visible: str) -> list[SpokenPart]:
        """The parts of ``visible`` (the reply so far) that became final since the last
        feed, in order."""
        if self._lost or not isinstance(visible, str):
            return []
        if not visible.startswith(self._head):
            # The reply changed behind what was read (a stray "</think>" started it again):
            # nothing more is said while it streams; finish() says what the final text
            # still has after what was said.
            self._lost = True
            return []
        out: list[SpokenPart] = []
        if not self._calls:
            first = self._first_call(visible)
            if first is None:
                out = self._plain(visible)
                self._head = visible[:self._pos]
            else:
                self._calls, self._call_at = True, first
        if self._calls:
            out += self._settled_calls(visible)
            self._head = visible[:self._call_at]
        self.said += out
        return out

    def finish(self, final_visible: str) -> list[SpokenPart]:
        """The reply is complete: the parts of ``split_speech(final_visible)`` still to say
        after those already returned (see :func:`remaining_speech`)."""
        rest = remaining_speech(self.said, split_speech(final_visible)[1])
        self.said += rest
        self._lost = True  # nothing more comes
        return rest

    # -- plain sentences (no call so far) -----------------------------------------------
    def _first_call(self, text: str) -> int | None:
        match, self._call_scan = _call_from(text, self._call_scan)
        return None if match is None else match.start()

    def _plain(self, text: str) -> list[SpokenPart]:
        out: list[SpokenPart] = []
        while True:
            fence = text.find(_FENCE_MARK, self._pos)
            end = len(text) if fence < 0 else fence
            out += self._sentences_before(text, end)
            if fence < 0:
                return out
            # a fence ends the paragraph before it; its code is never spoken
            out += self._emit(text[self._pos:fence])
            self._counted = False
            closer = text.find(_FENCE_MARK, fence + len(_FENCE_MARK))
            if closer < 0:
                self._pos = self._look = fence  # wait for its end
                return out
            self._pos = self._look = closer + len(_FENCE_MARK)

    def _sentences_before(self, text: str, end: int) -> list[SpokenPart]:
        """Parts for the finished sentences and paragraphs between ``_pos`` and ``end``."""
        out: list[SpokenPart] = []
        look = max(self._pos, self._look)
        for brk in _BREAK.finditer(text, look, end):
            following = _NON_SPACE.search(text, brk.end(), end)
            if following is None:  # what comes next has not come yet
                self._look = brk.start()
                return out
            if brk.group().startswith("\n"):
                cut = following.start()  # the next paragraph has begun
            elif following.group().islower():
                continue  # "e.g. this": not a sentence end
            else:
                cut = brk.end()
                ended = "\n" in text[cut:following.start()]  # the line ended: asides too
                line = max(self._pos, text.rfind("\n", 0, cut) + 1)
                if not ended and _leaves_open(text[line:cut]):
                    continue
            out += self._emit(text[self._pos:cut])
            self._pos = cut
        self._look = max(self._pos, end - _LOOK_BACK)
        return out

    def _emit(self, piece: str) -> list[SpokenPart]:
        """The parts of ``piece`` (from ``_pos``), paragraph by paragraph: a paragraph
        counts once (MAX_PARTS), however many sentences it is said in."""
        out: list[SpokenPart] = []
        for index, block in enumerate(_PARAGRAPH.split(_clean_shown(piece))):
            if index:
                self._counted = False
            words = speakable(block)
            if not _has_words(words):
                continue
            if not self._counted:
                if self._units >= MAX_PARTS:
                    continue
                self._units += 1
                self._counted = True
            out.append(SpokenPart(words))
        return out

    # -- speak() calls -------------------------------------------------------------------
    def _settled_calls(self, text: str) -> list[SpokenPart]:
        out: list[SpokenPart] = []
        while True:
            match = _CALL.search(text, self._call_at)
            if match is None:
                return out
            following, self._next_scan = _call_from(text, max(match.end(), self._next_scan))
            if following is None and not self._closed(text, match.end()):
                self._call_at = match.start()
                return out
            words, rate, pitch, end = _parse_call(text, match.end())
            said = speakable(_clean_shown(words))
            if _has_words(said) and self._units < MAX_PARTS:
                self._units += 1
                out += [SpokenPart(s, rate, pitch) for s in sentences(said)]
            self._call_at = end if following is None else following.start()
            self._close_scan = self._next_scan = 0

    def _closed(self, text: str, body: int) -> bool:
        """Whether the last call (its words from ``body``) is closed by its bracket (what
        ``speech.calls_settled`` says of it), reading only what came since the last look:
        a closing quote whose arguments failed to read stays failed."""
        pos = body
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos >= len(text):
            return False
        closers = _QUOTES.get(text[pos])
        at = max(pos + 1, self._close_scan)
        if closers is None:  # speak(no quotes)
            self._close_scan = len(text)
            return text.find(")", at) >= 0
        while at < len(text):
            ch = text[at]
            if ch == "\\":
                at += 2
                continue
            if ch in closers:
                tail = _TAIL_STREAM.match(text, at + 1)
                if tail is not None:  # the first quote with arguments after it
                    self._close_scan = at
                    return tail.group(0).endswith(")")
            at += 1
        self._close_scan = min(at, len(text) - 1)  # an escape at the end is read again
        return False


def _call_from(text: str, start: int) -> tuple[re.Match[str] | None, int]:
    """The first ``speak(`` call at or after ``start``; and where to look next time when
    there is none (where the text may still end in the start of one)."""
    match = _CALL.search(text, start)
    if match is not None:
        return match, start
    partial = _PARTIAL_CALL.search(text, start)
    return None, partial.start() if partial is not None else len(text)


def _leaves_open(line: str) -> bool:
    """Whether an ``*action*``, ``(aside)`` or ``[note]`` opened in ``line`` (part of one
    line, from a clean start) may still close over what follows."""
    line = _URL.sub(" ", line)
    previous = None
    while previous != line:
        previous, line = line, _ACTION.sub(" ", line)
    return any(ch in line for ch in "*([")


def sentences(text: str) -> list[str]:
    """``text`` (speakable words) cut after each sentence end that a new sentence follows;
    the pieces that have words, white space trimmed."""
    pieces, start = [], 0
    for end in _SENTENCE.finditer(text):
        following = _NON_SPACE.search(text, end.end())
        if following is None or following.group().islower():
            continue
        pieces.append(text[start:end.end()].strip())
        start = end.end()
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if _has_words(piece)]


def _norm(token: str) -> str:
    return "".join(ch for ch in token.casefold() if ch.isalnum())


def words_of(text: str) -> list[str]:
    """The words of spoken ``text`` as compared here: case-folded, letters and digits only
    (punctuation alone is no word)."""
    return [word for word in map(_norm, text.split()) if word]


def spoken_words(parts: Sequence[SpokenPart]) -> list[str]:
    """Every word of ``parts``, in order (see :func:`words_of`)."""
    return [word for part in parts for word in words_of(part.text)]


def remaining_speech(said: Sequence[SpokenPart],
                     final: Sequence[SpokenPart]) -> list[SpokenPart]:
    """What is left to say of ``final`` (the finished reply's parts) after ``said``.

    Usually what was said is the start of the final words, and the rest follows them.
    When the final reply reads differently (the parser cut a fake user turn or a tail,
    a later ``speak()`` call made the plain sentences unspoken), what was said stays
    said, and no word is said twice: the rest starts after the longest run of the last
    sentences said that the final words still hold (the calls said after plain
    sentences), else where the two first differ (nothing said after that point is in the
    final words, so none of them is lost). Each part keeps its rate and pitch; the first
    may start mid-part."""
    heard = [words_of(part.text) for part in said]
    flat = [word for words in heard for word in words]
    final_words: list[str] = []
    owners: list[tuple[int, int]] = []  # (part, token) of each final word
    for index, part in enumerate(final):
        for token_index, token in enumerate(part.text.split()):
            if _norm(token):
                final_words.append(_norm(token))
                owners.append((index, token_index))
    same = 0
    while same < min(len(flat), len(final_words)) and flat[same] == final_words[same]:
        same += 1
    start = same
    if same < len(flat):  # the final reply reads differently from what was said
        begin = 0
        for words in heard:  # the runs of the last sentences said, longest first
            run, begin = flat[begin:], begin + len(words)
            at = _find(final_words, run)
            if at >= 0:
                start = max(same, at + len(run))
                break
    if start >= len(final_words):
        return []
    part_index, token_index = owners[start]
    first = final[part_index]
    tokens = first.text.split()
    rest = [SpokenPart(" ".join(tokens[token_index:]), first.rate, first.pitch)]
    return rest + list(final[part_index + 1:])


def _find(words: list[str], run: list[str]) -> int:
    """Where ``run`` (not empty) first stands in ``words``; -1."""
    if not run:
        return -1
    for at in range(len(words) - len(run) + 1):
        if words[at:at + len(run)] == run:
            return at
    return -1


#: Where a reply's first sentence may be cut so her voice starts sooner: after a comma,
#: semicolon, colon or dash that follows a word and comes before at least two more words.
_CLAUSE = re.compile(r"(?<=[^\W_])[,;:]\s+|\s+[—–]\s+")


def lead_clause(parts: Sequence[SpokenPart]) -> list[SpokenPart]:
    """``parts`` with the first one cut after its first clause ("Oh," then "that sounds
    lovely!"): a voice that takes about as long to synthesize as to speak starts with the
    short clause while it makes the rest. The words, their order and each piece's rate
    and pitch stay; a first part with no such clause stays whole."""
    if not parts:
        return []
    first, rest = parts[0], list(parts[1:])
    for match in _CLAUSE.finditer(first.text):
        head, tail = first.text[:match.end()].rstrip(), first.text[match.end():].lstrip()
        if len(words_of(tail)) >= 2 and words_of(head):
            return [SpokenPart(head, first.rate, first.pitch),
                    SpokenPart(tail, first.rate, first.pitch), *rest]
    return [first, *rest]
