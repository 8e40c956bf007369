"""Gemini's subset of JSON Schema: a tool's parameter schema cut down to what the
Gemini API accepts.

Schemas come from MCP servers: untrusted. Local ``$ref``s are inlined, cycles and parts
deeper than :data:`MAX_SCHEMA_DEPTH` become ``{"type": "string"}``, and keywords Gemini
does not know are dropped.
"""

from __future__ import annotations

from typing import Any

#: How deep a tool's parameter schema is followed for Gemini (deeper parts become strings).
MAX_SCHEMA_DEPTH = 24

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
