"""The field types of the save file: strict numbers with ranges, capped text, dates,
known choices and size-bounded JSON objects, each refusing with a message that says why.
The models built from them are in ``savefile_schema``."""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime, timezone
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, PlainSerializer
from pydantic_core import PydanticCustomError

from ..engine.character import EMOTIONS, MAX_MOOD_CAUSES, STAGES
from ..engine.emotions import MAX_CAUSE_LENGTH
from ..engine.familiarity import MAX_REFERENCE_CHARS

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Numbers beyond this are refused (SQLite integers and doubles stay exact below it).
_LARGEST = 2**53
#: Longest JSON rendering of one free-form object (extensions, snapshots, metadata).
MAX_JSON_CHARS = 100_000
#: Longest text per kind of field, as the app caps its own: a memory 1000 characters
#: (``pipeline.facts.MAX_CONTENT``), her name 60 (Settings > Character), ids as their columns.
CAPS = {
    "name": 60, "system_prompt": 20_000, "fact": 1000, "source": 200, "model": 200,
    "summary": 4000, "topic": 100, "arc": 1000, "turn": 100_000, "event_id": 100,
    "event_type": 32, "outcome": 1000, "reference": MAX_REFERENCE_CHARS, "version": 100,
}  # fmt: skip


def show(value: Any) -> str:
    """A short JSON-ish rendering of a bad value for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _error(kind: str, template: str, value: Any) -> PydanticCustomError:
    return PydanticCustomError(kind, template, {"got": show(value)})


def _fmt(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _number(low: float | None, high: float | None, kind: str = "float") -> BeforeValidator:
    """Strict number check with range; ``kind``: float, round (to int) or whole (int only)."""

    def check(value: Any) -> float | int:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _error("number_type", "must be a number (got {got})", value)
        got = {"got": show(value), "low": _fmt(low or 0), "high": _fmt(high or 0)}
        if not math.isfinite(value) or abs(value) > _LARGEST:
            raise PydanticCustomError("number_type", "must be a finite number (got {got})", got)
        if high is not None and low is not None and not low <= value <= high:
            raise PydanticCustomError("range", "must be between {low} and {high} (got {got})", got)
        if low is not None and value < low:
            raise PydanticCustomError("range", "must be {low} or more (got {got})", got)
        if kind == "whole" and not float(value).is_integer():
            raise PydanticCustomError("whole", "must be a whole number (got {got})", got)
        return float(value) if kind == "float" else int(round(value))

    return BeforeValidator(check)


def choice(what: str, allowed: tuple[str, ...]) -> BeforeValidator:
    """Text that must be one of ``allowed`` (``what`` names it in the message)."""
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise _error("string_type", "must be text (got {got})", value)
        if value not in allowed:
            raise PydanticCustomError(
                "unknown_value",
                "unknown {what} {got} (expected one of {allowed})",
                {"what": what, "got": show(value), "allowed": ", ".join(allowed)},
            )
        return value

    return BeforeValidator(check)


def _text(cap: str) -> AfterValidator:
    """Refuse text longer than ``CAPS[cap]`` characters."""
    limit = CAPS[cap]

    def check(value: str) -> str:
        if len(value) > limit:
            raise PydanticCustomError(
                "too_long", "must be at most {limit} characters (got {n})",
                {"limit": limit, "n": len(value)},
            )  # fmt: skip
        return value

    return AfterValidator(check)


def _json_object(value: dict[str, Any]) -> dict[str, Any]:
    """Refuse a free-form object whose JSON is longer than ``MAX_JSON_CHARS``."""
    try:
        size = len(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        raise PydanticCustomError("json", "is not plain JSON", {}) from None
    if size > MAX_JSON_CHARS:
        raise PydanticCustomError(
            "too_long", "must be at most {limit} characters of JSON (got {n})",
            {"limit": MAX_JSON_CHARS, "n": size},
        )  # fmt: skip
    return value


def _parse_date(value: Any) -> datetime:
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise _error("date", "not an ISO-8601 date (got {got})", value) from None
    else:
        raise _error("date", "must be a date string (got {got})", value)
    parsed = parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed
    try:
        parsed.astimezone(timezone.utc)  # stored in UTC: it must fit there
    except OverflowError:
        raise _error("date", "is out of range in UTC (got {got})", value) from None
    return parsed


def day(value: str) -> str:
    """A calendar day written YYYY-MM-DD."""
    try:
        if not _DAY.fullmatch(value):
            raise ValueError(value)
        date.fromisoformat(value)
    except ValueError:
        raise _error("date", "must be a day YYYY-MM-DD (got {got})", value) from None
    return value


Stat = Annotated[int, _number(0, 100, "round")]
Affection = Annotated[int, _number(0, 1000, "round")]
Count = Annotated[int, _number(0, None, "whole")]
Whole = Annotated[int, _number(None, None, "whole")]
Percent = Annotated[float, _number(0, 100)]
Unit = Annotated[float, _number(0, 1)]
NonNegative = Annotated[float, _number(0, None)]
Date = Annotated[
    datetime,
    BeforeValidator(_parse_date),
    PlainSerializer(lambda d: d.isoformat(), return_type=str, when_used="json"),
]
Emotion = Annotated[str, choice("emotion", EMOTIONS)]
Stage = Annotated[str, choice("relationship stage", STAGES)]
Causes = Annotated[
    list[str],
    AfterValidator(lambda causes: [c[:MAX_CAUSE_LENGTH] for c in causes[-MAX_MOOD_CAUSES:]]),
]
Json = Annotated[dict[str, Any], AfterValidator(_json_object)]
# ``str`` capped at ``CAPS[...]`` characters, one type for each kind of text field.
Name = Annotated[str, _text("name")]
SystemPrompt = Annotated[str, _text("system_prompt")]
FactText = Annotated[str, _text("fact")]
Source = Annotated[str, _text("source")]
ModelName = Annotated[str, _text("model")]
Summary = Annotated[str, _text("summary")]
Topic = Annotated[str, _text("topic")]
Arc = Annotated[str, _text("arc")]
TurnText = Annotated[str, _text("turn")]
EventId = Annotated[str, _text("event_id")]
EventType = Annotated[str, _text("event_type")]
Outcome = Annotated[str, _text("outcome")]
Reference = Annotated[str, _text("reference")]
Version = Annotated[str, _text("version")]
