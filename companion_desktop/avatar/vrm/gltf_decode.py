"""pygltflib's objects from parsed glTF JSON, quickly.

``GLTF2.from_dict`` (dataclasses-json) works out every field's type again for every
object it builds: a clip of 400 objects took 150 ms, and a clip is loaded when she first
plays it. :func:`to_gltf2` builds the same objects from a decoder planned once per class
from pygltflib's type hints, with the same rules as ``from_dict(obj, infer_missing=True)``:

- a missing field takes its default (or its default factory's value), else None;
- a field given None stays None; keys that are not fields are left out;
- a field of a dataclass type is decoded from its dict (None, in a list too, stays None);
- ``Optional[X]``, ``List[X]`` and ``Dict[str, Any]`` decode their items as X (a dict's
  values pass as they are, in a new dict);
- an ``int``, ``float``, ``str`` or ``bool`` that is not already one is converted with
  the type (``float(1)``, ``str(5)``, ``int("x")`` raising ValueError);
- any other type (pygltflib's ``Attributes``) keeps the JSON value as it is.

A type hint outside these shapes (a later pygltflib) makes :func:`to_gltf2` use
``from_dict`` itself. Malformed input raises what ``from_dict`` raises for it
(TypeError, ValueError or AttributeError).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from typing import Any, Union

from pygltflib import GLTF2

Decode = Callable[[Any], Any]


class _Unplanned(Exception):
    """A type hint this module does not decode itself."""


_PRIMITIVES = (int, float, str, bool)
_PLANS: dict[type, Decode] = {}


def to_gltf2(obj: dict[str, Any]) -> GLTF2:
    """``GLTF2.from_dict(obj, infer_missing=True)``, planned once per class."""
    try:
        decode = _dataclass(GLTF2)
    except _Unplanned:
        return GLTF2.from_dict(obj, infer_missing=True)
    return decode(obj)


def _dataclass(cls: type) -> Decode:
    """Decode a dict into ``cls``; an instance passes as it is."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    fields: list[tuple[str, Any, Any, Decode]] = []

    def decode(kvs: Any) -> Any:
        if isinstance(kvs, cls):
            return kvs
        given = {key: value for key, value in kvs.items()}
        kwargs = {}
        for name, default, factory, field_decode in fields:
            if name in given:
                value = given[name]
            elif default is not dataclasses.MISSING:
                value = default
            elif factory is not dataclasses.MISSING:
                value = factory()
            else:
                value = None
            kwargs[name] = None if value is None else field_decode(value)
        return cls(**kwargs)

    _PLANS[cls] = decode  # before its fields: a class that refers to itself
    try:
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if field.init:
                fields.append((field.name, field.default, field.default_factory,
                               _field(hints[field.name])))
    except BaseException:
        _PLANS.pop(cls, None)
        raise
    return decode


def _field(hint: Any) -> Decode:
    """A field's value (never None here) as ``_decode_dataclass`` decodes it."""
    if dataclasses.is_dataclass(hint):
        inner = _dataclass(hint)  # type: ignore[arg-type]
        return lambda value: value if dataclasses.is_dataclass(value) else inner(value)
    if hint in _PRIMITIVES:
        return _primitive(hint)
    return _item(hint)


def _item(hint: Any) -> Decode:
    """A value of type ``hint`` inside a generic (``_decode_type``); may be None."""
    if hint is Any:
        return _same
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Union:
        others = [arg for arg in args if arg is not type(None)]
        if len(args) != 2 or len(others) != 1:
            raise _Unplanned(hint)
        inner = _item(others[0])
        return lambda value: None if value is None else inner(value)
    if origin is list and len(args) == 1:
        each = _item(args[0])
        return lambda value: None if value is None else [each(item) for item in value]
    if origin is dict and args == (str, Any):
        return lambda value: (None if value is None else
                              {str(key): item for key, item in value.items()})
    if origin is not None:
        raise _Unplanned(hint)
    if dataclasses.is_dataclass(hint):
        inner = _dataclass(hint)  # type: ignore[arg-type]
        return lambda value: None if value is None else inner(value)
    if hint in _PRIMITIVES:
        return _primitive(hint)
    if isinstance(hint, type):
        return _same  # pygltflib's Attributes: the JSON value as it is
    raise _Unplanned(hint)


def _primitive(kind: type) -> Decode:
    return lambda value: value if isinstance(value, kind) else kind(value)


def _same(value: Any) -> Any:
    return value
