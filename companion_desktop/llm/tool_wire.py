"""Tool calling on the wire: declarations for each API (Gemini's parameter schemas cut
down by :mod:`~companion_desktop.llm.gemini_schema`, whose names are importable from
here too) and the assembly of streamed tool-call pieces into :class:`ToolCall` objects.

Model output is untrusted. Arguments that are not a JSON object (unparsable text, a
list, a number) become ``{INVALID_ARGUMENTS_KEY: <the raw text, at most 500
characters>}`` so the tool loop can answer the call with an error result and let the
model try again; a call is never dropped for bad arguments. At most
:data:`MAX_TOOL_CALLS` calls are kept per reply, names are cut to
:data:`MAX_NAME_CHARS` and argument text beyond :data:`MAX_ARGUMENT_CHARS` is invalid.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion_desktop.llm.base import ToolCall, ToolSpec
from companion_desktop.llm.gemini_schema import (  # noqa: F401 - MAX_SCHEMA_DEPTH re-exported
    MAX_SCHEMA_DEPTH,
    gemini_schema,
)

#: The only key of the arguments of a call whose arguments were not a JSON object.
INVALID_ARGUMENTS_KEY = "__invalid_arguments__"
#: How much of the raw argument text is kept under INVALID_ARGUMENTS_KEY, in characters.
RAW_PREVIEW_CHARS = 500
#: The longest argument text parsed, in characters (about 256 KiB).
MAX_ARGUMENT_CHARS = 256 * 1024
#: The most tool calls kept from one reply; later ones are ignored.
MAX_TOOL_CALLS = 64
#: The longest tool name kept, in characters.
MAX_NAME_CHARS = 128

_call_numbers = itertools.count(1)


def make_call_id() -> str:
    """A call id for APIs that give none (``call_<n>``, unique in this process)."""
    return f"call_{next(_call_numbers)}"


def invalid_arguments(raw: str) -> dict[str, Any]:
    """The arguments standing for unusable ones: the raw text, cut to 500 characters."""
    return {INVALID_ARGUMENTS_KEY: raw[:RAW_PREVIEW_CHARS]}


def parse_arguments(raw: Any) -> dict[str, Any]:
    """A call's arguments from JSON text (or an already-parsed value): a dict, ``{}`` for
    nothing or blank text, else :func:`invalid_arguments`."""
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return invalid_arguments(json.dumps(raw, default=str))
    if not raw.strip():
        return {}
    if len(raw) > MAX_ARGUMENT_CHARS:
        return invalid_arguments(raw)
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return invalid_arguments(raw)
    return value if isinstance(value, dict) else invalid_arguments(raw)


# -- declarations -----------------------------------------------------------------------
def object_schema(parameters: Any) -> dict[str, Any]:
    """``parameters`` as an object schema (APIs refuse anything else at the root)."""
    if not isinstance(parameters, dict) or not parameters:
        return {"type": "object", "properties": {}}
    if parameters.get("type") != "object":
        return {**parameters, "type": "object"}
    return parameters


def openai_tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Chat-completions ``tools``: ``{"type": "function", "function": {...}}`` each."""
    return [
        {"type": "function", "function": {
            "name": t.name, "description": t.description,
            "parameters": object_schema(t.parameters),
        }}
        for t in tools
    ]


def anthropic_tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Messages API ``tools``: ``{"name", "description", "input_schema"}`` each."""
    return [
        {"name": t.name, "description": t.description,
         "input_schema": object_schema(t.parameters)}
        for t in tools
    ]


def gemini_tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Gemini ``tools``: one ``functionDeclarations`` list; ``parameters`` in Gemini's
    schema subset, left out for a tool without parameters (Gemini refuses an object
    schema with no properties)."""
    declarations = []
    for tool in tools:
        declaration: dict[str, Any] = {"name": tool.name, "description": tool.description}
        schema = gemini_schema(object_schema(tool.parameters))
        if schema.get("properties"):
            declaration["parameters"] = schema
        declarations.append(declaration)
    return [{"functionDeclarations": declarations}] if declarations else []


# -- streamed calls ---------------------------------------------------------------------
@dataclass
class _Pending:
    order: tuple[int, int]
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    size: int = 0
    given: Any = None


class ToolCallAssembler:
    """Collects one reply's tool calls from stream pieces, keyed by the stream's index
    (OpenAI ``index``, Anthropic block ``index``, Gemini part order).

    ``start`` opens (or updates) a call; ``add`` appends argument text; :meth:`calls`
    gives the finished calls in index order (arrival order within one index).
    """

    def __init__(self) -> None:
        self._pending: dict[int, _Pending] = {}
        self._keys: dict[int, int] = {}
        self._seq = itertools.count()

    def start(
        self, index: int, call_id: Any = None, name: Any = None, given: Any = None
    ) -> None:
        """A call at stream ``index``; a new id at an index already holding another id
        starts a separate call (servers that reuse one index for parallel calls)."""
        key = self._keys.get(index)
        call = self._pending.get(key) if key is not None else None
        new_id = call_id if isinstance(call_id, str) else ""
        if call is None or (new_id and call.id and new_id != call.id):
            if len(self._pending) >= MAX_TOOL_CALLS:
                self._keys[index] = -1
                return
            key = next(self._seq)
            self._keys[index] = key
            call = self._pending[key] = _Pending(order=(index, key))
        if new_id and not call.id:
            call.id = new_id[:MAX_NAME_CHARS]
        if isinstance(name, str) and name and not call.name:
            call.name = name[:MAX_NAME_CHARS]
        if given is not None:
            call.given = given

    def add(self, index: int, fragment: Any) -> None:
        """Append argument text to the call at ``index`` (opening it when needed)."""
        if not isinstance(fragment, str) or not fragment:
            return
        if index not in self._keys:
            self.start(index)
        call = self._pending.get(self._keys[index])
        if call is None or call.size > MAX_ARGUMENT_CHARS:
            return
        call.fragments.append(fragment)
        call.size += len(fragment)

    def calls(self) -> list[ToolCall]:
        """The finished calls, in index order; ids made up where the API gave none."""
        done = []
        for call in sorted(self._pending.values(), key=lambda c: c.order):
            if call.fragments:
                arguments = parse_arguments("".join(call.fragments))
            else:
                arguments = parse_arguments(call.given)
            done.append(ToolCall(id=call.id or make_call_id(), name=call.name,
                                 arguments=arguments))
        return done
