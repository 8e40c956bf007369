"""Other programs' window properties, read as EWMH and ICCCM define them.

Any program can write anything into its own window's properties: a title of the wrong type
or format, an atom number the X server never made. What does not have the type and format
the specs give is treated as absent (never turned into text with ``str``), and an atom
without a name is passed over.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_TITLE = 500  # characters of a title kept
NORMAL_TYPE = "_NET_WM_WINDOW_TYPE_NORMAL"
#: The window types EWMH defines; any other (a later spec's, a desktop's own) is passed over.
EWMH_TYPES = frozenset(f"_NET_WM_WINDOW_TYPE_{kind}" for kind in (
    "DESKTOP", "DOCK", "TOOLBAR", "MENU", "UTILITY", "SPLASH", "DIALOG", "DROPDOWN_MENU",
    "POPUP_MENU", "TOOLTIP", "NOTIFICATION", "COMBO", "DND", "NORMAL"))
#: Where a title is, in order, and the types each may have: EWMH's _NET_WM_NAME is UTF-8;
#: ICCCM's WM_NAME is STRING (Latin-1) or COMPOUND_TEXT (UTF8_STRING is common too).
TITLE_SOURCES = (("_NET_WM_NAME", ("UTF8_STRING",)),
                 ("WM_NAME", ("STRING", "COMPOUND_TEXT", "UTF8_STRING")))


def window_type(names: Iterable[str]) -> str:
    """A window's type from its _NET_WM_WINDOW_TYPE ``names`` (in order of preference): the
    first one EWMH defines; NORMAL when it names none (EWMH: unknown types are ignored, a
    window without a type is NORMAL)."""
    return next((name for name in names if name in EWMH_TYPES), NORMAL_TYPE)


def decode_text(raw: bytes, kind: str) -> str | None:
    """The text of a format-8 property of type ``kind`` (its first string where it holds a
    NUL-separated list); None for a type that is not text, or compound text that switches
    to other character sets (ISO 2022 escapes, not decoded here)."""
    raw = raw.split(b"\0", 1)[0]
    if kind == "UTF8_STRING":
        return raw.decode("utf-8", "replace")
    if kind == "STRING" or (kind == "COMPOUND_TEXT" and b"\x1b" not in raw):
        return raw.decode("latin-1")  # compound text starts in ASCII and Latin-1
    return None


class WindowProps:
    """Reads properties over one python-xlib ``display``; atom numbers and names are
    cached (they do not change while the X server runs)."""

    def __init__(self, display) -> None:  # noqa: ANN001 - an Xlib display
        self._display = display
        self._names: dict[int, str] = {}

    def atom(self, name: str) -> int:
        return self._display.get_atom(name)

    def name(self, atom: int) -> str | None:
        """The atom's name; None for a number the X server never made."""
        from Xlib import error

        atom = int(atom)
        if atom not in self._names:
            try:
                self._names[atom] = self._display.get_atom_name(atom)
            except error.XError:  # BadAtom: any client may write any number
                return None
        return self._names[atom]

    def names(self, atoms: Iterable[int] | None) -> list[str]:
        """The names of ``atoms`` in their order, those without one left out."""
        named = (self.name(atom) for atom in atoms or ())
        return [name for name in named if name is not None]

    def _reply(self, window, name: str):  # noqa: ANN001, ANN202
        """The property's reply (value, format, type); None when absent or the window is gone."""
        from Xlib import X, error

        try:
            return window.get_full_property(self.atom(name), X.AnyPropertyType)
        except (error.XError, error.BadWindow):
            return None

    def values(self, window, name: str):  # noqa: ANN001, ANN201
        """A 32-bit property's values (numbers, windows, atoms: every EWMH list the desktop
        reads is one); None when absent, gone, or of another format."""
        reply = self._reply(window, name)
        return reply.value if reply is not None and reply.format == 32 else None

    def title(self, window) -> str:  # noqa: ANN001
        """The window's title, at most MAX_TITLE characters: _NET_WM_NAME when it is UTF-8
        text, else WM_NAME when it is text; "" when neither is."""
        for name, kinds in TITLE_SOURCES:
            reply = self._reply(window, name)
            if reply is None or reply.format != 8:
                continue
            kind = self.name(reply.property_type)
            text = decode_text(bytes(reply.value), kind) if kind in kinds else None
            if text is not None:
                return text[:MAX_TITLE]
        return ""
