"""The app's version: the installed package's metadata, else the source's ``__version__``.

Looked up only when asked (``--version``, the desktop files), so the app's start does not
scan the installed distributions.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata

from companion_desktop import __version__

DISTRIBUTION = "companion-desktop"


def app_version(distribution: str = DISTRIBUTION) -> str:
    """The installed distribution's version; ``__version__`` when it is not installed
    (a source tree on ``PYTHONPATH``, a bundle without its metadata)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return __version__


class VersionAction(argparse.Action):
    """``--version``: prints "companion-desktop X.Y.Z" and exits 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,  # noqa: ANN001
                 help="print the version and exit") -> None:  # noqa: A002
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        sys.stdout.write(f"{parser.prog} {app_version()}\n")
        parser.exit()
