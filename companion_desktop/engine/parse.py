"""The response parser: the model's raw output to a visible reply, a state block and reminders.

Pure (standard library only); never raises on model output. Implements
"Response Parsing and Robustness" of the architecture spec, in this order:
reasoning removed, stop tokens cut, state block found (tolerant JSON, the last
balanced object that looks like a state block), fake turns cut, only the text
before the block kept, reminder tags taken out, whitespace tidied. Numbers,
emotions and ids are bounded by :func:`state_updates.sanitize_suggestion`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .state_updates import LlmSuggestion, sanitize_suggestion
from .tolerant_json import loads_tolerant, object_spans

#: Keys that only a state block has; one of them is enough to recognize it.
STRONG_KEYS = frozenset(
    {"mood_change", "affection_delta", "trust_delta", "intimacy_delta", "comfort_delta",
     "respect_delta", "new_memory", "triggered_event", "shared_reference"}
)
#: Every key of the state block. An object with only these keys is a state block too.
KNOWN_KEYS = STRONG_KEYS | {"action", "expression"}

REMINDER_MIN_SECONDS = 1
REMINDER_MAX_SECONDS = 365 * 86400
MAX_REMINDER_TEXT = 500

_THINK_TAG = re.compile(r"<\s*(/?)\s*think(?:ing)?\s*>", re.I)
_END_MARKERS = re.compile(
    r"</s>|<\|im_end\|>|<\|eot_id\|>|<\|eom_id\|>|<\|end\|>|<end_of_turn>|<\|endoftext\|>"
    r"|<\|end_of_text\|>|\[/?INST\]|<\|im_start\|>|<\|start_header_id\|>|<start_of_turn>"
    r"|<\|user\|>|<\|end_header_id\|>|<｜end▁of▁sentence｜>",
    re.I,
)
#: Role headers and stray tokens a server may leave in front of the reply.
_LEADING_JUNK = re.compile(
    r"\A(?:\s|<s>|<\|begin_of_text\|>|<\|im_start\|>[ \t]*assistant\b"
    r"|<\|start_header_id\|>[ \t]*assistant[ \t]*<\|end_header_id\|>|<start_of_turn>[ \t]*model\b"
    r"|<\|assistant\|>|assistant[ \t]*\n|</s>|<\|im_end\|>|<\|eot_id\|>|<\|end\|>|<end_of_turn>)+",
    re.I,
)
_FAKE_SPEAKERS = r"User|You|Human|They|Narrator|ユーザー?"
_LINE_START = r"^[ \t>*_]*"  # a line start, allowing quote marks and markdown emphasis
_FAKE_TURN = re.compile(
    rf"{_LINE_START}(?:(?:{_FAKE_SPEAKERS})[*_]*[ \t]*[:：]"
    r"|#{2,4}[ \t]*(?:Instruction|Input|Response)\b)",
    re.I | re.M,
)
_FENCE_BEFORE = re.compile(r"(?:```[ \t]*(?:json\w*)?|\bjson[ \t]*:?)[ \t]*\r?\n?[ \t]*\Z", re.I)
_KEY_NAMES = "|".join(sorted(STRONG_KEYS))
_INLINE_BLOCK_START = re.compile(rf"\{{\s*[\"']?(?:{_KEY_NAMES})")
_PARTIAL_KEY = re.compile(r"\{\s*[\"']?[a-z_]*\Z")
_REMINDER = re.compile(
    r"([ \t]*)\[reminder:[ \t]*(\d{1,12}(?:[.,]\d{1,6})?)[ \t]*([a-z]{1,8})[ \t]*\]"
    r"(.{0,1000}?)\[/reminder\]([ \t]*)",
    re.I | re.S,
)
_OPEN_REMINDER = re.compile(r"\[reminder:", re.I)
_CLOSE_REMINDER = re.compile(r"\[/reminder\]", re.I)
_UNIT_SECONDS: dict[str, int] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
}
#: Tokens that must not show while streaming; a trailing prefix of one is held back.
_HELD_TOKENS = ("<think>", "<thinking>", "</think>", "</thinking>", "[reminder:", "[/inst]",
                "[inst]", "</s>", "<end_of_turn>", "<start_of_turn>", "```")


@dataclass(frozen=True)
class ReminderRequest:
    """A reminder she set with ``[reminder:5min]text[/reminder]``: due in ``seconds``."""

    seconds: int
    text: str


@dataclass(frozen=True)
class ParsedReply:
    """A parsed model reply.

    ``text`` is the visible reply; ``block`` the raw JSON object found, or None;
    ``suggestion`` the sanitized block (empty without one); ``has_block`` whether a
    block was found (when not, the pipeline runs the extraction fallback).
    """

    text: str
    block: dict | None = None
    suggestion: LlmSuggestion = field(default_factory=LlmSuggestion)
    has_block: bool = False
    reminders: tuple[ReminderRequest, ...] = ()


def strip_reasoning(text: str) -> str:
    """``text`` without <think>/<thinking> blocks; a lone closer drops everything before it,
    an unterminated opener drops everything after it."""
    parts: list[str] = []
    pos, inside = 0, False
    for tag in _THINK_TAG.finditer(text):
        closing = bool(tag.group(1))
        if inside:
            if closing:
                inside, pos = False, tag.end()
        elif closing:
            parts, pos = [], tag.end()
        else:
            parts.append(text[pos : tag.start()])
            inside = True
    if not inside:
        parts.append(text[pos:])
    return "".join(parts)


def cut_stop_tokens(text: str) -> str:
    """``text`` without leading role headers, cut at the first end-of-turn marker."""
    text = _LEADING_JUNK.sub("", text, count=1)
    marker = _END_MARKERS.search(text)
    return text[: marker.start()] if marker else text


def looks_like_state(obj: object) -> bool:
    """A non-empty dict with a state-only key, or with only state keys."""
    if not isinstance(obj, dict) or not obj:
        return False
    keys = set(obj)
    return bool(keys & STRONG_KEYS) or keys <= KNOWN_KEYS


def _state_blocks(text: str) -> list[tuple[int, int, dict]]:
    """Every state block in ``text`` as (start, end, object), in order of their ends."""
    found: list[tuple[int, int, dict]] = []
    for start, end in object_spans(text):
        obj = loads_tolerant(text[start:end])
        if not isinstance(obj, dict):
            continue
        if looks_like_state(obj):
            found.append((start, end, obj))
            continue
        nested = [v for v in obj.values() if isinstance(v, dict) and looks_like_state(v)]
        if nested:  # a wrapper such as {"reply": "...", "state": {...}}
            found.append((start, end, nested[-1]))
    return found


def _first_line_end(text: str) -> int:
    first = len(text) - len(text.lstrip())
    end = text.find("\n", first)
    return len(text) if end < 0 else end


def _fake_turn_start(
    text: str, companion_name: str, user_name: str | None, protected: list[tuple[int, int, dict]]
) -> int:
    """Where the first fake turn on a later line starts (len(text) when none).

    Lines inside ``protected`` spans (state blocks) do not count.
    """
    patterns = [_FAKE_TURN]
    if user_name and user_name.strip():
        user = re.escape(user_name.strip())
        patterns.append(re.compile(rf"{_LINE_START}{user}[*_]*[ \t]*[:：]", re.I | re.M))
    if companion_name and companion_name.strip():
        name = re.escape(companion_name.strip())
        quoted = rf"{_LINE_START}{name}[*_]*[ \t]*[:：][ \t*_]*[\"“「]"
        patterns.append(re.compile(quoted, re.I | re.M))
    begin, best = _first_line_end(text), len(text)
    for pattern in patterns:
        pos = begin
        while (match := pattern.search(text, pos, best)) is not None:
            inside = next((e for s, e, _ in protected if s <= match.start() < e), None)
            if inside is None:
                best = match.start()
                break
            pos = inside
    return best


def strip_name_prefix(text: str, companion_name: str) -> str:
    """``text`` without a leading "Name:" (or "**Name:**") of her own name."""
    if not companion_name or not companion_name.strip():
        return text
    name = re.escape(companion_name.strip())
    return re.sub(rf"\A\s*[*_]*{name}[*_]*[ \t]*[:：][*_]*[ \t]*", "", text, count=1, flags=re.I)


def extract_reminders(text: str) -> tuple[str, tuple[ReminderRequest, ...]]:
    """``text`` without its reminder tags, and the reminders they asked for.

    Units: s/sec/second(s), m/min/minute(s), h/hr/hour(s), d/day(s); the delay is
    bounded to 1 second .. 365 days. A tag with an unknown unit is left as text;
    a tag with empty text is removed without a reminder.
    """
    found: list[ReminderRequest] = []

    def replace(match: re.Match[str]) -> str:
        unit = _UNIT_SECONDS.get(match.group(3).lower())
        if unit is None:
            return match.group(0)
        amount = float(match.group(2).replace(",", "."))
        seconds = int(min(REMINDER_MAX_SECONDS, max(REMINDER_MIN_SECONDS, round(amount * unit))))
        content = " ".join(match.group(4).split())[:MAX_REMINDER_TEXT].strip()
        if content:
            found.append(ReminderRequest(seconds, content))
        return " " if match.group(1) and match.group(5) else ""

    return _REMINDER.sub(replace, text), tuple(found)


def tidy(text: str) -> str:
    """Stripped, no trailing spaces on lines, at most one blank line in a row."""
    text = re.sub(r"[ \t]+(?=\r?\n)", "", text.replace("\r\n", "\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _block_cut(text: str, start: int) -> int:
    """Where the reply ends for a block at ``start``: before its fence or "json" label."""
    window = max(0, start - 40)
    label = _FENCE_BEFORE.search(text, window, start)
    return label.start() if label and label.end() == start else start


def _cut_failed_block(text: str) -> str:
    """``text`` without a state block that was cut off or cannot be read (with no usable
    block, an object opening with a state key is a failed attempt, not reply text)."""
    attempt = _INLINE_BLOCK_START.search(text)
    return text[: _block_cut(text, attempt.start())] if attempt else text


def parse_response(raw: str, companion_name: str = "", user_name: str | None = None) -> ParsedReply:
    """The visible reply, the state block (sanitized) and the reminders of one model output.

    The block is the last state block that is not part of a fake turn; the reply
    is the text before the first state block. When that text is empty, the text
    after the block stands in.
    """
    try:
        text = cut_stop_tokens(strip_reasoning(raw if isinstance(raw, str) else ""))
        blocks = _state_blocks(text)
        fake = _fake_turn_start(text, companion_name, user_name, blocks)
        blocks = [b for b in blocks if b[1] <= fake]
        block: dict | None = None
        if blocks:
            block, end = blocks[-1][2], blocks[-1][1]
            reply = text[: _block_cut(text, blocks[0][0])]
            if not reply.strip():
                reply = re.sub(r"\A\s*```", "", text[end:fake])
        else:
            reply = _cut_failed_block(text[:fake])
        reply, reminders = extract_reminders(strip_name_prefix(reply, companion_name))
        suggestion = sanitize_suggestion(block) if block is not None else LlmSuggestion()
        return ParsedReply(tidy(reply), block, suggestion, block is not None, reminders)
    except Exception:  # noqa: BLE001 - a parser bug must never break a turn
        return ParsedReply(tidy(raw) if isinstance(raw, str) else "")


def _stream_block_start(text: str) -> int:
    """Where a JSON block starts while streaming: a ``` fence that is not a code block
    in a named language, or a line starting with "{" outside code."""
    in_code, offset = False, 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        fence = line.find("```")
        if in_code:
            in_code = not stripped.startswith("```")
        elif fence >= 0:
            label_match = re.match(r"[^\s`]*", line[fence + 3 :])
            assert label_match is not None  # "*": it matches, the empty string at least
            label = label_match.group(0)
            complete = line.endswith("\n") or len(line) > fence + 3 + len(label)
            named = re.fullmatch(r"[A-Za-z][\w+#.-]*", label)
            if not (named and complete and not label.lower().startswith("json")):
                return offset + fence
            in_code = True
        elif stripped.startswith("{"):
            return offset
        offset += len(line)
    return len(text)


def _held_tail(text: str) -> int:
    """Start of a trailing fragment that may grow into a hidden token (len(text) if none)."""
    tail_from = max(text.rfind(ch, len(text) - 24) for ch in "<[`{")
    if tail_from < 0:
        return len(text)
    while tail_from > 0 and text[tail_from] == "`" and text[tail_from - 1] == "`":
        tail_from -= 1
    tail = text[tail_from:].lower()
    if tail.startswith("{"):
        return tail_from if _PARTIAL_KEY.match(tail) else len(text)
    if any(token.startswith(tail) for token in _HELD_TOKENS):
        return tail_from
    if tail.startswith("<|") and "|>" not in tail:
        return tail_from
    return tail_from if tail.startswith("[reminder:") and "]" not in tail else len(text)


def visible_stream_text(
    partial: str, companion_name: str = "", user_name: str | None = None
) -> str:
    """What to show while a reply streams in: no reasoning, stop tokens, JSON block,
    fake turns or reminder tags, and no trailing fragment of one. Linear in the text."""
    try:
        text = cut_stop_tokens(strip_reasoning(partial if isinstance(partial, str) else ""))
        text = text[: _stream_block_start(text)]
        inline = _INLINE_BLOCK_START.search(text)
        text = text[: inline.start()] if inline else text
        text = text[: _fake_turn_start(text, companion_name, user_name, [])]
        text, _ = extract_reminders(strip_name_prefix(text, companion_name))
        closers = [m.start() for m in _CLOSE_REMINDER.finditer(text)]
        last_close = closers[-1] if closers else -1
        for match in _OPEN_REMINDER.finditer(text):
            if match.start() > last_close:  # opened, not closed yet
                text = text[: match.start()]
                break
        text = text[: _held_tail(text)]
    except Exception:  # noqa: BLE001 - never break the stream view
        text = ""
    text = tidy(text)
    for token in ("<think>", "```json"):  # last guard, e.g. tags joined across removals
        cut = text.find(token)
        text = text if cut < 0 else text[:cut].rstrip()
    return text
