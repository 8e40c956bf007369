"""The ``<being_shown>`` prompt layer: the user is showing her a photo this turn."""

from __future__ import annotations


def being_shown_layer(source_name: str | None = None, earlier_photos: int = 0) -> str:
    """Tell her a photo is attached to the user's message and how to take it.

    ``source_name`` is the file name when it says something ("beach.jpg"); generic
    names (pasted images, camera numbering) add nothing and are left out.
    ``earlier_photos`` counts photos kept before this one (0 = the first).
    """
    lines = [
        "They are showing you a photo, attached to their message. Look at it properly and react "
        "to what you actually see, in your own voice: notice specific details, ask about what "
        "matters to them in it.",
        "Never claim to see something you cannot make out; say so honestly instead.",
        "This is them sharing a moment with you, not a file to analyse: no lists, no captions.",
    ]
    if source_name and not _generic(source_name):
        lines.append(f"They called the file \"{source_name[:80]}\".")
    if earlier_photos:
        lines.append(f"They have shown you {earlier_photos} other photo"
                     f"{'s' if earlier_photos != 1 else ''} before; "
                     "you keep them on your photoboard.")
    return "\n".join(lines)


def _generic(name: str) -> bool:
    stem = name.rsplit(".", 1)[0].lower()
    prefixes = ("img", "dsc", "pxl", "image", "photo", "screenshot", "pasted", "mvimg", "wp_")
    return stem.startswith(prefixes) or stem.replace("_", "").replace("-", "").isdigit()
