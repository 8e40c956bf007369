"""Defensive reads of parsed glTF JSON (pygltflib objects or plain extension dicts).

A malformed optional value falls back to its default; a malformed reference that the
loader cannot do without raises ``AvatarLoadError`` naming what was wrong.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import AvatarLoadError


def get(obj: Any, key: str, default: Any = None) -> Any:
    """``obj[key]`` for dicts, ``obj.key`` for pygltflib objects; ``default`` when absent/None."""
    if obj is None:
        return default
    value = obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
    return default if value is None else value


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def as_int(value: Any, default: int) -> int:
    """An integer (integral floats accepted), else ``default``."""
    if is_int(value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return default


FLOAT32_MAX = float(np.finfo(np.float32).max)


def as_float(value: Any, default: float) -> float:
    """A finite float (within float32 range), else ``default``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        return default
    try:
        result = float(value)
    except OverflowError:
        return default
    return result if math.isfinite(result) and abs(result) <= FLOAT32_MAX else default


def as_str(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def as_bool(value: Any, default: bool = False) -> bool:
    return value if isinstance(value, bool) else default


def as_vec(value: Any, size: int, default: Any) -> np.ndarray:
    """A float32 vector of ``size`` finite numbers (extra entries dropped), else ``default``."""
    if isinstance(value, (list, tuple)) and len(value) >= size:
        numbers = [as_float(v, math.nan) for v in value[:size]]
        if all(math.isfinite(n) for n in numbers):
            return np.array(numbers, np.float32)
    return np.array(default, np.float32)


def as_pair(value: Any, default: tuple[float, float]) -> tuple[float, float]:
    """Two finite numbers as Python floats (full precision), else ``default``."""
    if isinstance(value, (list, tuple)) and len(value) >= 2:
        x, y = as_float(value[0], math.nan), as_float(value[1], math.nan)
        if math.isfinite(x) and math.isfinite(y):
            return (x, y)
    return default


def as_xyz(value: Any, default: Any) -> np.ndarray:
    """A VRM 0.x ``{x, y, z}`` object as a float32 vector, else ``default``."""
    if isinstance(value, dict):
        base = np.array(default, np.float32)
        return np.array(
            [as_float(value.get(k), float(base[i])) for i, k in enumerate("xyz")], np.float32
        )
    return np.array(default, np.float32)


def index_or_none(value: Any, count: int) -> int | None:
    """A valid index into a list of ``count`` items, else None."""
    if is_int(value) and 0 <= int(value) < count:
        return int(value)
    return None


def require_index(value: Any, count: int, what: str, source: str) -> int:
    """A valid index or a load error naming ``what`` (for references the loader needs)."""
    index = index_or_none(value, count)
    if index is None:
        raise AvatarLoadError(f"{source}: {what} refers to {value!r}, which does not exist")
    return index


def require_count(value: Any, what: str, source: str, low: int, high: int) -> int:
    if not is_int(value) or not low <= int(value) <= high:
        raise AvatarLoadError(
            f"{source}: {what} is {value!r}; it must be a whole number from {low} to {high}"
        )
    return int(value)
