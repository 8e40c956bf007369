"""Where the project's own resources live (the built-in avatar, animation clips)."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def default_avatar_path() -> Path:
    """Hana, the built-in VRM 1.0 avatar made by tools/make_default_avatar.py."""
    return RESOURCES / "avatar" / "hana.vrm"
