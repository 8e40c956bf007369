"""Photos shown to her: preparing one, the photoboard that keeps them, their widgets.

What other rooms may use is offered here (``ui.door``); they never import this room's
modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.ui.door import door

if TYPE_CHECKING:
    from .photoboard import PhotoboardWindow
    from .shown_image import (
        DropTarget,
        PhotoChip,
        PhotoStage,
        Source,
        as_path_or_bytes,
        choose_image_file,
        image_from_mime,
        mime_has_image,
        paperclip_icon,
    )
    from .viewer import kept_thumbnails
    from .widgets import DropHint, rounded_pixmap

__all__ = [
    "as_path_or_bytes", "choose_image_file", "DropHint", "DropTarget", "image_from_mime",
    "kept_thumbnails", "mime_has_image", "paperclip_icon", "PhotoboardWindow", "PhotoChip",
    "PhotoStage", "rounded_pixmap", "Source",
]
__getattr__, __dir__ = door(__name__, {
    "as_path_or_bytes": "shown_image",
    "choose_image_file": "shown_image",
    "DropHint": "widgets",
    "DropTarget": "shown_image",
    "image_from_mime": "shown_image",
    "kept_thumbnails": "viewer",
    "mime_has_image": "shown_image",
    "paperclip_icon": "shown_image",
    "PhotoboardWindow": "photoboard",
    "PhotoChip": "shown_image",
    "PhotoStage": "shown_image",
    "rounded_pixmap": "widgets",
    "Source": "shown_image",
})
