"""Character cards read from their JSON: V1 (flat), V2 (``chara_card_v2``), V3
(``chara_card_v3``) and standalone World Info (lorebook) files, into one plain form.

Pure (standard library only). A card is untrusted: every text is made plain
(``untrusted_text.strip_controls``, newlines and tabs kept), each field has a length
limit and a lorebook an entry limit; going past one is a :class:`CardError` with a
one-line message, never a half-read card. Nothing in a card names a provider, key,
tool or setting, and nothing here reads one: only the fields below are taken.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from .lorebook import (
    DEFAULT_SCAN_DEPTH,
    DEFAULT_TOKEN_BUDGET,
    LOGICS,
    MAX_SCAN_DEPTH,
    MAX_TOKEN_BUDGET,
    Lorebook,
    LoreEntry,
)
from .untrusted_text import strip_controls

#: Longest text of each field, in characters.
LIMITS: dict[str, int] = {
    "name": 200, "nickname": 200, "description": 16_000, "personality": 4000, "scenario": 4000,
    "first_message": 8000, "greeting": 8000, "example_dialogue": 16_000,
    "system_prompt": 8000, "post_history": 4000, "creator_notes": 8000, "tag": 60,
    "creator": 200, "version": 100, "content": 8000, "key": 200, "entry_name": 200,
}  # fmt: skip
MAX_GREETINGS = 50
MAX_TAGS = 50
MAX_ENTRIES = 1000
MAX_KEYS = 50
#: Her name as the app keeps it (Settings > Character): a longer card name is cut.
NAME_CHARS = 60
SPECS = {"chara_card_v2": "V2", "chara_card_v3": "V3"}


_MACROS = (("<BOT>", "{{char}}"), ("<USER>", "{{user}}"), ("<bot>", "{{char}}"),
           ("<user>", "{{user}}"))
_TAG = re.compile(r"<(?!START>)(\s*/?\s*[^\W\d][^<>\n]{0,200})>", re.IGNORECASE)


def no_tags(text: str) -> str:
    """``text`` with the old macros as ``{{char}}``/``{{user}}`` and every ``<tag>`` but
    the example dialogue's ``<START>`` written ``(tag)``: card text can never open or
    close one of the prompt's layers. ``<3`` and ``->`` stay as they are."""
    for old, new in _MACROS:
        text = text.replace(old, new)
    return _TAG.sub(r"(\1)", text)


class CardError(ValueError):
    """Why a card cannot be read, as one line for the user."""


@dataclass(frozen=True)
class CharacterCard:
    """A card's fields, as plain text within ``LIMITS``; ``spec`` is V1, V2 or V3."""

    name: str
    description: str = ""
    personality: str = ""
    scenario: str = ""
    first_message: str = ""
    example_dialogue: str = ""
    system_prompt: str = ""
    post_history: str = ""
    creator_notes: str = ""
    alternate_greetings: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    creator: str = ""
    version: str = ""
    nickname: str = ""
    lorebook: Lorebook | None = None
    spec: str = "V1"


def plain(value: Any, kind: str, what: str | None = None) -> str:
    """``value`` as plain text of at most ``LIMITS[kind]`` characters: non-strings are
    "" (numbers as text), controls dropped, CRLF as LF, NFC. CardError past the limit."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return ""
    text = unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n"))
    text = no_tags(strip_controls(text, keep="\n\t").strip())
    limit = LIMITS[kind]
    if len(text) > limit:
        raise CardError(f"The card's {what or kind.replace('_', ' ')} is {len(text):,} "
                        f"characters long; at most {limit:,} are read.")
    return text


def _texts(value: Any, kind: str, most: int, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    if len(value) > most:
        raise CardError(f"The card has {len(value):,} {what}; at most {most} are read.")
    found = (plain(v, kind, what) for v in value)
    return tuple(dict.fromkeys(t for t in found if t))


def _int(value: Any, default: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return default
    return int(max(low, min(high, value)))


def _bool(value: Any, default: bool = False) -> bool:
    return value if isinstance(value, bool) else default


def _logic(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(LOGICS):
        return LOGICS[value]
    if isinstance(value, str) and value.strip().lower().replace(" ", "_") in LOGICS:
        return value.strip().lower().replace(" ", "_")
    return "and_any"


def _entry(raw: Any, world_info: bool) -> LoreEntry | None:
    if not isinstance(raw, dict):
        return None
    found = raw.get("extensions")
    ext: dict[str, Any] = found if isinstance(found, dict) else {}
    if world_info:
        keys, secondary = raw.get("key"), raw.get("keysecondary")
        enabled = not _bool(raw.get("disable"))
        logic, order = raw.get("selectiveLogic"), raw.get("order")
        case, depth = raw.get("caseSensitive"), raw.get("scanDepth")
        name = raw.get("comment")
    else:
        keys, secondary = raw.get("keys"), raw.get("secondary_keys")
        enabled = _bool(raw.get("enabled"), True)
        logic = raw.get("selective_logic", ext.get("selectiveLogic"))
        order, case = raw.get("insertion_order"), raw.get("case_sensitive")
        depth = ext.get("scan_depth", ext.get("scanDepth"))
        name = raw.get("name") or raw.get("comment")
    return LoreEntry(
        content=plain(raw.get("content"), "content", "lorebook entry text"),
        keys=_texts(keys, "key", MAX_KEYS, "keys in one lorebook entry"),
        secondary_keys=_texts(secondary, "key", MAX_KEYS, "keys in one lorebook entry"),
        enabled=enabled, constant=_bool(raw.get("constant")),
        selective=_bool(raw.get("selective"), world_info), logic=_logic(logic),
        order=_int(order, 100, -100_000, 100_000), priority=_int(raw.get("priority"), 0, -1000,
                                                                  1000),
        case_sensitive=_bool(case), use_regex=_bool(raw.get("use_regex")),
        scan_depth=None if depth is None else _int(depth, DEFAULT_SCAN_DEPTH, 0, MAX_SCAN_DEPTH),
        name=plain(name, "entry_name", "lorebook entry name"),
    )


def lorebook_from_json(raw: Any, world_info: bool = False) -> Lorebook:
    """A card's ``character_book`` (or, with ``world_info``, a World Info file) as a
    Lorebook. Entries with no text are dropped; CardError past ``MAX_ENTRIES``."""
    if not isinstance(raw, dict):
        raise CardError("The lorebook is not a JSON object.")
    entries = raw.get("entries")
    if isinstance(entries, dict):  # World Info: {"0": {...}, "1": {...}}
        entries = list(entries.values())
    if not isinstance(entries, list):
        entries = []
    if len(entries) > MAX_ENTRIES:
        raise CardError(f"The lorebook has {len(entries):,} entries; at most {MAX_ENTRIES:,} "
                        "are read.")
    read = [_entry(e, world_info or "key" in e if isinstance(e, dict) else False)
            for e in entries]
    return Lorebook(
        entries=tuple(e for e in read if e is not None and e.content),
        scan_depth=_int(raw.get("scan_depth"), DEFAULT_SCAN_DEPTH, 0, MAX_SCAN_DEPTH),
        token_budget=_int(raw.get("token_budget"), DEFAULT_TOKEN_BUDGET, 50, MAX_TOKEN_BUDGET),
        recursive=_bool(raw.get("recursive_scanning")),
        name=plain(raw.get("name"), "entry_name", "lorebook name"),
    )


def is_world_info(raw: Any) -> bool:
    """Whether ``raw`` is a standalone World Info / lorebook file (not a card)."""
    return (isinstance(raw, dict) and isinstance(raw.get("entries"), (dict, list))
            and "spec" not in raw and "first_mes" not in raw and "data" not in raw)


def card_from_json(raw: Any) -> CharacterCard:
    """A V1, V2 or V3 card (as parsed JSON) in plain form; CardError says why not."""
    if not isinstance(raw, dict):
        raise CardError("This is not a character card (no JSON object).")
    spec = raw.get("spec")
    if spec in SPECS:
        data = raw.get("data")
        if not isinstance(data, dict):
            raise CardError(f"This {SPECS[spec]} card has no data.")
        version = SPECS[spec]
    elif spec is not None:
        raise CardError(f"This card's format ({plain(spec, 'tag', 'format')!r}) is not one "
                        "this app reads (V1, V2, V3).")
    elif "name" in raw and any(k in raw for k in ("description", "first_mes", "personality")):
        data, version = raw, "V1"
    else:
        raise CardError("This is not a character card: it has no name and description.")
    name = plain(data.get("name"), "name")
    if not name:
        raise CardError("The card has no name.")
    book = data.get("character_book")
    return CharacterCard(
        name=name,
        description=plain(data.get("description"), "description"),
        personality=plain(data.get("personality"), "personality"),
        scenario=plain(data.get("scenario"), "scenario"),
        first_message=plain(data.get("first_mes"), "first_message", "first message"),
        example_dialogue=plain(data.get("mes_example"), "example_dialogue", "example dialogue"),
        system_prompt=plain(data.get("system_prompt"), "system_prompt", "system prompt"),
        post_history=plain(data.get("post_history_instructions"), "post_history",
                           "post-history instructions"),
        creator_notes=plain(data.get("creator_notes"), "creator_notes", "creator notes"),
        alternate_greetings=_texts(data.get("alternate_greetings"), "greeting", MAX_GREETINGS,
                                   "alternate greetings"),
        tags=_texts(data.get("tags"), "tag", MAX_TAGS, "tags"),
        creator=plain(data.get("creator"), "creator"),
        version=plain(data.get("character_version"), "version", "character version"),
        nickname=plain(data.get("nickname"), "nickname"),
        lorebook=lorebook_from_json(book) if isinstance(book, dict) else None,
        spec=version,
    )
