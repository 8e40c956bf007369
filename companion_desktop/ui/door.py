"""A room's door: the names other rooms may use, loaded when first asked for.

Each room of ``ui/`` (chat, photos, voice, overlay, desktop) names in its
``__init__.py`` what it offers the others; they import those names from the room,
never from its modules (an import-linter contract in ``pyproject.toml`` says so). A name
loads its module on first use, so importing a room costs no more than the modules
actually used: the app's first picture waits for nothing it does not show.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def door(package: str,
         names: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` offering ``names`` (name -> module
    of the package that defines it)."""

    def getattr_(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    def dir_() -> list[str]:
        return sorted(names)

    return getattr_, dir_
