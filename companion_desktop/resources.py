"""Where the package's built-in data lives (the built-in avatar, animation clips).

The files are package data in ``companion_desktop/builtin/`` and are found with
``importlib.resources``, so an installed wheel or a frozen bundle has them as well as a
checkout. Callers get real file paths (the loaders read with ``open``); when the package
is not a folder on disk (a zip import) the folder is extracted once for the process.
"""

from __future__ import annotations

import atexit
import contextlib
from functools import cache
from importlib import resources
from pathlib import Path

PACKAGE = "companion_desktop"
BUILTIN = "builtin"


@cache
def builtin_dir() -> Path:
    """The folder of built-in data on disk (``companion_desktop/builtin``)."""
    traversable = resources.files(PACKAGE) / BUILTIN
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
