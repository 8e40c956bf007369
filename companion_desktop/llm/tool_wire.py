"""Tool calling on the wire: declarations for each API, the JSON-Schema subset Gemini
accepts, and the assembly of streamed tool-call pieces into :class:`ToolCall` objects.

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
#: How deep a tool's parameter schema is followed for Gemini (deeper parts become strings).
MAX_SCHEMA_DEPTH = 24

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


# -- Gemini's schema subset -------------------------------------------------------------
_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
_FORMATS = {"string": {"enum", "date-time"}, "number": {"float", "double"},
            "integer": {"int32", "int64"}}
_NUMBER_KEYS = ("minimum", "maximum")
_COUNT_KEYS = ("minItems", "maxItems")


def gemini_schema(schema: Any) -> dict[str, Any]:
    """``schema`` cut down to what Gemini accepts: local ``$ref``s inlined (cycles and
    depth past :data:`MAX_SCHEMA_DEPTH` become strings), ``allOf`` merged, nullable
    unions folded into ``nullable``, and only type, format (Gemini's few), description,
    nullable, enum (strings only), properties, required (listed properties only),
    items, anyOf and numeric bounds kept. Everything else ($schema,
    additionalProperties, $defs, default, examples, title...) is dropped."""
    defs: dict[str, Any] = {}
    if isinstance(schema, dict):
        for key in ("definitions", "$defs"):
            if isinstance(schema.get(key), dict):
                defs.update(schema[key])
    return _clean(schema, defs, 0, frozenset())


def _clean(node: Any, defs: dict[str, Any], depth: int, refs: frozenset[str]) -> dict[str, Any]:
    if not isinstance(node, dict) or depth >= MAX_SCHEMA_DEPTH:
        return {"type": "string"}
    node = _fold(node)
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/") else None
        if ref in refs or not isinstance(target, dict):
            return _described({"type": "string"}, node)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return _clean({**target, **rest}, defs, depth + 1, refs | {ref})
    out: dict[str, Any] = {}
    kind = node.get("type")
    if kind not in _TYPES:
        kind = _guess_type(node)
    if kind:
        out["type"] = kind
    _described(out, node)
    if node.get("nullable") is True:
        out["nullable"] = True
    fmt = node.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS.get(kind or "", ()):
        out["format"] = fmt
    _copy_bounds(out, node)
    enum = node.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        if kind == "string":
            out["enum"] = list(enum)
    if kind == "object":
        _clean_object(out, node, defs, depth, refs)
    elif kind == "array":
        out["items"] = _clean(node.get("items"), defs, depth + 1, refs)
    elif kind is None and isinstance(node.get("anyOf"), list):
        out["anyOf"] = [_clean(n, defs, depth + 1, refs) for n in node["anyOf"][:16]]
    return out


def _clean_object(
    out: dict[str, Any], node: dict[str, Any], defs: dict[str, Any], depth: int,
    refs: frozenset[str],
) -> None:
    props = node.get("properties")
    if isinstance(props, dict) and props:
        out["properties"] = {
            str(name): _clean(sub, defs, depth + 1, refs) for name, sub in props.items()
        }
        required = node.get("required")
        if isinstance(required, list):
            listed = [n for n in dict.fromkeys(required) if isinstance(n, str) and n in props]
            if listed:
                out["required"] = listed


def _fold(node: dict[str, Any]) -> dict[str, Any]:
    """``allOf`` merged in, ``const`` as a one-value enum, and ``type: [x, "null"]`` or
    ``anyOf: [x, {"type": "null"}]`` as ``x`` with ``nullable``."""
    node = dict(node)
    for part in node.pop("allOf", None) or []:
        if isinstance(part, dict):
            props = {**_dict(node.get("properties")), **_dict(part.get("properties"))}
            required = _list(node.get("required")) + _list(part.get("required"))
            node = {**part, **node, "properties": props, "required": required}
            if not props:
                node.pop("properties")
    if "const" in node and "enum" not in node:
        node["enum"] = [node.pop("const")]
    kind = node.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        node["type"] = kinds[0] if kinds else None
        if len(kinds) < len(kind):
            node["nullable"] = True
    branches = node.get("anyOf") or node.get("oneOf")
    if isinstance(branches, list):
        real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        node.pop("oneOf", None)
        node["anyOf"] = real
        if len(real) < len(branches):
            node["nullable"] = True
        if len(real) == 1 and isinstance(real[0], dict):
            merged = {**real[0], **{k: v for k, v in node.items() if k != "anyOf"}}
            return _fold(merged) if "anyOf" in real[0] or "allOf" in real[0] else merged
    return node


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _guess_type(node: dict[str, Any]) -> str | None:
    if isinstance(node.get("properties"), dict):
        return "object"
    if "items" in node:
        return "array"
    if isinstance(node.get("anyOf"), list) and node["anyOf"]:
        return None
    return "string"


def _described(out: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    if isinstance(node.get("description"), str) and node["description"]:
        out["description"] = node["description"]
    return out


def _copy_bounds(out: dict[str, Any], node: dict[str, Any]) -> None:
    for key in _NUMBER_KEYS:
        value = node.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
    for key in _COUNT_KEYS:
        value = node.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value


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
