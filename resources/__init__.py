"""The built-in data: Hana, her clips, the memory calibration pairs and the app's icons.

This folder is the top-level ``resources/`` of a checkout and installs as the package
``companion_desktop.resources`` (``setup.py``, ``pyproject.toml``); its files are found
with ``importlib.resources``, so an installed wheel or a frozen bundle has them as well as
a checkout. Callers get real file paths (the loaders read with ``open``); when the
package is not a folder on disk (a zip import) the folder is extracted once for the
process. ``tools/`` writes Hana and the clips here.
"""

from __future__ import annotations

import atexit
import contextlib
from functools import cache
from importlib import resources
from pathlib import Path

PACKAGE = "companion_desktop.resources"


@cache
def builtin_dir() -> Path:
    """The folder of built-in data on disk (``resources/`` in a checkout)."""
    traversable = resources.files(PACKAGE)
    if isinstance(traversable, Path):
        return traversable
    stack = contextlib.ExitStack()  # zip import: extract once, removed at exit
    atexit.register(stack.close)
    return Path(stack.enter_context(resources.as_file(traversable)))


def default_avatar_path() -> Path:
    """Hana, the built-in VRM 1.0 avatar made by tools/make_default_avatar.py."""
    return builtin_dir() / "avatar" / "hana.vrm"


def builtin_clips_dir() -> Path:
    """The built-in .vrma clips and their manifest ``library.json``."""
    return builtin_dir() / "animations"


def memory_pairs_path() -> Path:
    """The labelled fact/question pairs that calibrate memory retrieval."""
    return builtin_dir() / "memory_pairs.json"


def icons_dir() -> Path:
    """The app's icons in the freedesktop layout (``hicolor/<size>/apps/<id>.png|svg``)."""
    return builtin_dir() / "icons" / "hicolor"
