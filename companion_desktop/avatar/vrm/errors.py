"""The one exception a model load raises: ``AvatarLoadError``, with a message for the user."""

from __future__ import annotations


class AvatarLoadError(Exception):
    """A file the app refuses to load as an avatar or scene.

    ``message`` is fit to show the user as is (it names the file and what is wrong).
    ``internal`` is True only when the loader itself failed unexpectedly on the file
    (a bug on our side, reported the same way so the app never crashes on a bad file).
    """

    def __init__(self, message: str, *, internal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.internal = internal

    def __str__(self) -> str:
        return self.message
