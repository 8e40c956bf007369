"""How the chat tells of a screen shown to her: the line above the turn, from its meta."""

from __future__ import annotations

from typing import Any


def screen_label(meta: dict[str, Any] | None) -> str | None:
    """What a stored user turn showed of the screen ("Firefox"), None for other turns."""
    image = (meta or {}).get("image")
    screen = image.get("screen") if isinstance(image, dict) else None
    return str(screen) if screen is not None else None


def screen_line(label: str) -> str:
    """The chat's line for a screen shown to her: "You showed her your screen (Firefox)"."""
    what = "your screen" if label == "your screen" else f"your screen ({label})"
    return f"👁 You showed her {what}"
