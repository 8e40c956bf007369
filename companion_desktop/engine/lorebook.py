"""Her lorebook: entries of character data put into the prompt when their keys come up.

Pure (standard library only); a timer for the regex budget is passed in. Semantics of
the character card formats' ``character_book`` and of standalone World Info files:

- an enabled entry is *triggered* when one of its primary keys appears in the last
  ``scan_depth`` messages (the entry's own depth, else the book's); a ``constant`` entry
  always is;
- with ``selective`` and secondary keys, ``logic`` decides as well: ``and_any`` (one
  secondary key too), ``and_all`` (every one), ``not_any`` (none), ``not_all`` (not all);
- keys match case-insensitively unless ``case_sensitive``; a key of letters and digits
  only matches whole words; a key written ``/pattern/flags`` (or any key of an entry with
  ``use_regex``) is a regular expression of a safe subset (:func:`safe_pattern`);
- with ``recursive`` the text of triggered entries is scanned too (at most
  ``MAX_RECURSION`` more passes);
- the triggered entries are kept, highest ``priority`` then highest ``order`` first,
  while their estimated tokens fit ``token_budget``, and written lowest ``order`` first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .context_window import estimate_tokens

LOGICS: tuple[str, ...] = ("and_any", "not_all", "not_any", "and_all")
#: Book defaults when a card gives none: messages scanned, tokens the entries may take.
DEFAULT_SCAN_DEPTH = 2
DEFAULT_TOKEN_BUDGET = 600
MAX_SCAN_DEPTH = 50
MAX_TOKEN_BUDGET = 8000
MAX_RECURSION = 2
#: Characters of the scanned messages a regular expression reads (the newest ones).
REGEX_TEXT_CHARS = 4000
#: Longest regex key, and the most repeats (``*``, ``+``, ``{m,n}``) and ``?`` in one.
MAX_PATTERN_CHARS, MAX_QUANTIFIERS, MAX_OPTIONALS = 200, 1, 4
#: Seconds all regular-expression keys of one turn may take; the rest count as unmatched.
REGEX_SECONDS = 0.25


@dataclass(frozen=True)
class LoreEntry:
    """One entry; ``order`` is the card's insertion order (higher: later in the prompt)."""

    content: str
    keys: tuple[str, ...] = ()
    secondary_keys: tuple[str, ...] = ()
    enabled: bool = True
    constant: bool = False
    selective: bool = False
    logic: str = "and_any"
    order: int = 100
    priority: int = 0
    case_sensitive: bool = False
    use_regex: bool = False
    scan_depth: int | None = None
    name: str = ""


@dataclass(frozen=True)
class Lorebook:
    entries: tuple[LoreEntry, ...] = ()
    scan_depth: int = DEFAULT_SCAN_DEPTH
    token_budget: int = DEFAULT_TOKEN_BUDGET
    recursive: bool = False
    name: str = ""


_REGEX_KEY = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)
_QUANT = re.compile(r"\*|\+|\{\d*,?\d*\}")


class UnsafePattern(ValueError):
    """A regex key outside the safe subset; the message says why, in one line."""


def safe_pattern(pattern: str) -> str:
    """``pattern`` when it is in the safe subset, else UnsafePattern: at most
    ``MAX_PATTERN_CHARS`` characters, no backreference or lookaround, no quantified
    group, at most ``MAX_QUANTIFIERS`` repeats and ``MAX_OPTIONALS`` ``?``; so matching
    stays about linear in the text (no nested or stacked repeats that backtrack)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsafePattern(f"a regex key is longer than {MAX_PATTERN_CHARS} characters")
    plain = re.sub(r"\\.", "x", pattern)  # escapes as one plain character
    plain = re.sub(r"\[[^\]]*\]", "x", plain)  # classes as one plain character
    if re.search(r"\\[1-9]|\(\?[=!<P]", pattern) or "(?<" in pattern:
        raise UnsafePattern("a regex key uses a backreference or lookaround")
    if re.search(r"\)\s*(?:[*+]|\{\d)", plain):
        raise UnsafePattern("a regex key repeats a group (it could backtrack forever)")
    if len(_QUANT.findall(plain)) > MAX_QUANTIFIERS:
        raise UnsafePattern("a regex key has more than one repeat (it could backtrack forever)")
    if plain.count("?") > MAX_OPTIONALS + plain.count("(?"):
        raise UnsafePattern("a regex key has too many optional parts")
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        raise UnsafePattern(f"a regex key is not a valid pattern ({error})") from None
    return pattern


def regex_of(key: str, use_regex: bool) -> tuple[str, bool] | None:
    """(pattern, ignore case) when ``key`` is a regex key, else None."""
    found = _REGEX_KEY.match(key)
    if found and set(found.group(2)) <= set("gimsuy"):
        return found.group(1), "i" in found.group(2)
    return (key, False) if use_regex else None


@dataclass
class _Scan:
    text: str
    folded: str
    timer: Callable[[], float] | None
    deadline: float | None = None
    cache: dict[tuple[str, bool, bool], bool] = field(default_factory=dict)


def _key_found(key: str, entry: LoreEntry, scan: _Scan) -> bool:
    key = key.strip()
    if not key:
        return False
    memo = (key, entry.case_sensitive, entry.use_regex)
    if memo in scan.cache:
        return scan.cache[memo]
    regex = regex_of(key, entry.use_regex)
    if regex is not None:
        found = _regex_found(regex[0], regex[1] or not entry.case_sensitive, scan)
    elif re.fullmatch(r"[A-Za-z0-9_]+", key):
        flags = 0 if entry.case_sensitive else re.IGNORECASE
        found = re.search(rf"\b{re.escape(key)}\b", scan.text, flags) is not None
    elif entry.case_sensitive:
        found = key in scan.text
    else:
        found = key.casefold() in scan.folded
    scan.cache[memo] = found
    return found


def _regex_found(pattern: str, ignore_case: bool, scan: _Scan) -> bool:
    if scan.timer is not None:
        now = scan.timer()
        if scan.deadline is None:
            scan.deadline = now + REGEX_SECONDS
        elif now > scan.deadline:
            return False
    try:
        compiled = re.compile(safe_pattern(pattern), re.IGNORECASE if ignore_case else 0)
    except UnsafePattern:
        return False
    return compiled.search(scan.text[-REGEX_TEXT_CHARS:]) is not None


def _triggered(entry: LoreEntry, scan: _Scan) -> bool:
    if not entry.enabled or not entry.content.strip():
        return False
    if entry.constant:
        return True
    if not any(_key_found(k, entry, scan) for k in entry.keys):
        return False
    secondary = [k for k in entry.secondary_keys if k.strip()]
    if not entry.selective or not secondary:
        return True
    hits = [_key_found(k, entry, scan) for k in secondary]
    return {
        "and_any": any(hits), "and_all": all(hits),
        "not_any": not any(hits), "not_all": not all(hits),
    }.get(entry.logic, any(hits))


def _scan_for(messages: Sequence[str], depth: int, timer: Callable[[], float] | None,
              extra: str = "") -> _Scan:
    text = "\n".join(messages[-depth:]) if depth > 0 else ""
    if extra:
        text = f"{text}\n{extra}"
    return _Scan(text, text.casefold(), timer)


def select_entries(book: Lorebook, messages: Sequence[str], token_budget: int | None = None,
                   timer: Callable[[], float] | None = None) -> list[LoreEntry]:
    """The entries to put into this turn's prompt, in prompt order (see the module).

    ``messages``: the conversation's texts, oldest first, the user's new message last.
    ``token_budget`` (tokens) lowers the book's own; ``timer`` (seconds, monotonic)
    bounds the time regex keys take to ``REGEX_SECONDS``.
    """
    budget = min(book.token_budget, token_budget) if token_budget else book.token_budget
    chosen: dict[int, LoreEntry] = {}
    deadline: list[float | None] = [None]
    added = ""
    for _pass in range(1 + (MAX_RECURSION if book.recursive else 0)):
        scans: dict[int, _Scan] = {}
        new = False
        for index, entry in enumerate(book.entries):
            if index in chosen:
                continue
            depth = entry.scan_depth if entry.scan_depth is not None else book.scan_depth
            depth = max(0, min(MAX_SCAN_DEPTH, depth))
            if depth not in scans:
                scans[depth] = _scan_for(messages, depth, timer, added)
                scans[depth].deadline = deadline[0]
            scan = scans[depth]
            if _triggered(entry, scan):
                chosen[index] = entry
                new = True
            deadline[0] = scan.deadline if scan.deadline is not None else deadline[0]
        if not new:
            break
        added = "\n".join(e.content for e in chosen.values())
    ranked = sorted(chosen.items(), key=lambda item: (-item[1].priority, -item[1].order, item[0]))
    kept: list[tuple[int, LoreEntry]] = []
    used = 0
    for index, entry in ranked:
        cost = estimate_tokens(entry.content)
        if used + cost > budget:
            continue
        used += cost
        kept.append((index, entry))
    kept.sort(key=lambda item: (item[1].order, item[0]))
    return [entry for _, entry in kept]
