"""Tolerant JSON for model output: balanced ``{...}`` objects found in prose, and JSON5-ish
text (comments, trailing commas, single quotes, bare keys, Python literals) read as JSON.

Pure (standard library only); never raises on model output, and linear in the text.
"""

from __future__ import annotations

import json

#: How many times a scan restarts after an object left open (a stray "{" in prose).
MAX_SCAN_RESTARTS = 16


def _skip_string(text: str, i: int) -> int:
    """Index just past the double-quoted string opening at ``i`` (or len(text))."""
    n = len(text)
    i += 1
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            return i + 1
        i += 1
    return n


def _skip_comment(text: str, i: int) -> int:
    """Index past a // or /* */ comment at ``i``; ``i`` itself when there is none."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    return i


def object_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of balanced top-level {...} objects; strings and comments respected.

    An object left open at the end (a stray "{" in prose) restarts the scan just
    after it, a bounded number of times.
    """
    spans: list[tuple[int, int]] = []
    start, n = 0, len(text)
    for _ in range(MAX_SCAN_RESTARTS + 1):
        depth, opened, i = 0, -1, start
        while i < n:
            if depth == 0:
                i = text.find("{", i)
                if i < 0:
                    break
                depth, opened, i = 1, i, i + 1
                continue
            ch = text[i]
            if ch == '"':
                i = _skip_string(text, i)
                continue
            if ch == "/":
                after = _skip_comment(text, i)
                if after != i:
                    i = after
                    continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    spans.append((opened, i + 1))
            i += 1
        if depth == 0:
            break
        start = opened + 1
    return sorted(set(spans), key=lambda span: span[1])


def _normalize_json(s: str) -> str:
    """JSON5-ish text made strict: comments, trailing commas, single quotes,
    bare keys, Python literals and leading plus signs fixed outside strings."""
    out: list[str] = []
    last_sig = -1  # index in ``out`` of the last non-whitespace piece
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        piece = ch
        if ch == '"':
            end = _skip_string(s, i)
            piece, i = s[i:end], end
        elif ch == "'":
            end = s.find("'", i + 1)
            end = n if end < 0 else end
            piece, i = json.dumps(s[i + 1 : end]), end + 1
        elif ch == "/" and _skip_comment(s, i) != i:
            i = _skip_comment(s, i)
            continue
        elif ch.isalpha() or ch == "_":
            end = i
            while end < n and (s[end].isalnum() or s[end] == "_"):
                end += 1
            word = s[i:end]
            rest = s[end : end + 40].lstrip()
            literal = {"True": "true", "False": "false", "None": "null", "undefined": "null"}
            piece = json.dumps(word) if rest.startswith(":") else literal.get(word, word)
            i = end
        elif ch == "+" and i + 1 < n and (s[i + 1].isdigit() or s[i + 1] == "."):
            i += 1
            continue
        else:
            i += 1
            if ch in "}]" and last_sig >= 0 and out[last_sig] == ",":
                out[last_sig] = ""
        out.append(piece)
        if not piece.isspace():
            last_sig = len(out) - 1
    return "".join(out)


def loads_tolerant(text: str) -> object | None:
    """The JSON value in ``text`` (see :func:`_normalize_json`), or None."""
    try:
        return json.loads(text, strict=False)
    except Exception:  # noqa: BLE001 - ValueError, RecursionError on hostile input
        pass
    try:
        return json.loads(_normalize_json(text), strict=False)
    except Exception:  # noqa: BLE001
        return None
