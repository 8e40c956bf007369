"""Global hotkeys: keys that reach her whichever window has the focus.

``pynput`` (X11 through python-xlib's RECORD extension, a low-level hook on Windows, a
Quartz event tap on macOS) was chosen over ``keyboard`` (needs root on Linux) and
``global-hotkeys`` (Windows only): it is maintained, installs from the registry on all
three platforms, and reports key releases too, which push-to-talk needs. It observes keys
without taking them from other programs.

Its listener runs on its own thread, which never touches Qt: events cross to the GUI
thread through a socket pair watched by a ``QSocketNotifier``, and come out as signals.
Keys are written the way Qt's key-sequence editor shows them
("Ctrl+Alt+H", "F10"); :func:`to_pynput` turns one into pynput's form. Where the system
refuses (a Wayland session without X11, no display, a platform pynput cannot hook, or
macOS without the Accessibility permission) :attr:`GlobalHotkeys.problem` says why, in
words for Settings, and nothing is listened to.

Whenever the listener does not run (hotkeys off, or refused), the same keys still work
while one of her windows has the focus (:meth:`GlobalHotkeys.set_window_keys`: Qt
shortcuts on each of her windows), so Ctrl+Alt+K brings clicks back from the chat window
on any system.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)

#: Actions, in the order Settings lists them.
ACTIONS = ("toggle_overlay", "toggle_click_through", "push_to_talk", "toggle_dnd",
           "look_at_screen")
#: Qt key names and pynput's for the keys that are not one character.
_NAMED = {
    "Space": "space", "Tab": "tab", "Return": "enter", "Enter": "enter", "Esc": "esc",
    "Backspace": "backspace", "Del": "delete", "Ins": "insert", "Home": "home", "End": "end",
    "PgUp": "page_up", "PgDown": "page_down", "Left": "left", "Right": "right", "Up": "up",
    "Down": "down", "Pause": "pause", "Print": "print_screen", "ScrollLock": "scroll_lock",
    "Menu": "menu", "CapsLock": "caps_lock", "NumLock": "num_lock",
}
_MODIFIERS = {"Ctrl": "ctrl", "Alt": "alt", "Shift": "shift", "Meta": "cmd"}


class HotkeyError(ValueError):
    """A key combination that cannot be a global hotkey; the message says why."""


def to_pynput(combo: str) -> str:
    """"Ctrl+Alt+H" (Qt's portable text) as pynput's "<ctrl>+<alt>+h". HotkeyError for a
    combination without a main key, with several keys, or with a key pynput cannot name."""
    text = combo.strip()
    if not text:
        raise HotkeyError("No key chosen.")
    if "," in text:
        raise HotkeyError(f"{text!r}: one key combination only, not a sequence.")
    parts = text.split("+")
    if text.endswith("++"):  # "Ctrl++": the plus key
        parts = [*text[:-2].split("+"), "+"]
    *mods, key = parts
    out = []
    for mod in mods:
        if mod not in _MODIFIERS:
            raise HotkeyError(f"{text!r}: {mod!r} is not a modifier key.")
        out.append(f"<{_MODIFIERS[mod]}>")
    if key in _MODIFIERS or not key:
        raise HotkeyError(f"{text!r}: add a key besides the modifiers.")
    if len(key) == 1:
        out.append(key.lower())
    elif key in _NAMED:
        out.append(f"<{_NAMED[key]}>")
    elif key[0] == "F" and key[1:].isdigit() and 1 <= int(key[1:]) <= 20:
        out.append(f"<f{int(key[1:])}>")
    else:
        raise HotkeyError(f"{text!r}: the key {key!r} cannot be a global hotkey.")
    return "+".join(out)


def refusal() -> str | None:
    """Why global hotkeys cannot work in this session, before trying; None when they may."""
    session = os.environ.get("XDG_SESSION_TYPE", "").lower()
    from companion_desktop.ui.start.session import native_wayland

    if native_wayland():
        return ("Global hotkeys are off while her windows are native Wayland windows: "
                "Wayland lets no app read keys meant for other windows. The keys here work "
                "while her windows have the focus; the tray icon shows or hides her.")
    if os.name == "posix" and not _is_mac() and not os.environ.get("DISPLAY"):
        if session == "wayland" or os.environ.get("WAYLAND_DISPLAY"):
            return ("Global hotkeys are not available in this Wayland session: Wayland lets "
                    "no app read keys meant for other windows, and no X11 display (XWayland) "
                    "was found. The keys here work while her windows have the focus; the "
                    "tray icon shows or hides her.")
        return "Global hotkeys need a display (no DISPLAY is set)."
    return None


def _is_mac() -> bool:
    import sys

    return sys.platform == "darwin"


class GlobalHotkeys(QObject):
    """Listens for the configured keys while running. ``triggered(action)`` fires on the
    GUI thread for "toggle_overlay" and "toggle_click_through"; ``talk(down)`` for
    push-to-talk (True when its combination is complete, False when a key of it is let go).
    ``problem`` is None while listening, else why not (also None when no key is set).

    The listener thread never touches Qt: it writes one byte per event into a socket pair
    whose reading end a ``QSocketNotifier`` watches on the GUI thread (no polling)."""

    triggered = Signal(str)
    talk = Signal(bool)
    problem_changed = Signal(str)
    #: The app's listener (the last one started), for Settings to report on.
    current: GlobalHotkeys | None = None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._listener: Any = None
        self._watch: _KeyWatch | None = None
        self._notifier: QSocketNotifier | None = None
        self._talking = False
        self.bindings: dict[str, str] = {}
        self.problem: str | None = None
        self.windows: list[QWidget] = []  # her windows, for the keys while they have the focus
        self._shortcuts: list[QShortcut] = []

    @property
    def running(self) -> bool:
        return self._listener is not None

    def start(self, bindings: dict[str, str]) -> str | None:
        """Listen for ``bindings`` (action -> Qt key text; blank: none), replacing any
        earlier ones. Returns :attr:`problem`: None when listening (or nothing to listen
        for), else a sentence for Settings. Bad combinations are reported, not raised."""
        self.stop()
        GlobalHotkeys.current = self
        self.bindings = {a: k.strip() for a, k in bindings.items() if a in ACTIONS and k.strip()}
        self.problem = None
        if self.bindings:
            self.problem = self._start()
        if self.problem:
            log.warning("global hotkeys off: %s", self.problem)
            self.problem_changed.emit(self.problem)
        return self.problem

    def _start(self) -> str | None:
        why = refusal()
        if why:
            return why
        try:
            parsed = {a: to_pynput(k) for a, k in self.bindings.items()}
        except HotkeyError as error:
            return str(error)
        try:
            from pynput import keyboard
        except Exception as error:  # noqa: BLE001 - ImportError, or no X connection
            return f"Global hotkeys could not start: {_first_line(error)}"
        try:
            keys = {a: keyboard.HotKey.parse(k) for a, k in parsed.items()}
        except ValueError as error:
            return f"A hotkey could not be read: {error}"
        watch = _KeyWatch(keyboard, keys)
        listener = keyboard.Listener(on_press=watch.press, on_release=watch.release)
        watch.listener = listener
        try:
            listener.start()
            listener.wait()
        except Exception as error:  # noqa: BLE001 - the backend refused
            watch.close()
            return f"Global hotkeys could not start: {_first_line(error)}"
        if not listener.is_alive() or not getattr(listener, "IS_TRUSTED", True):
            listener.stop()
            watch.close()
            return ("Global hotkeys were refused by the system (on macOS, allow this app "
                    "under Privacy & Security > Accessibility, then restart it).")
        self._listener, self._watch = listener, watch
        self._notifier = QSocketNotifier(watch.reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._read)
        return None

    def set_window_keys(self, keys: dict[str, str]) -> None:
        """``keys`` (action -> Qt key text, as stored) while one of :attr:`windows` has
        the focus; ``triggered`` fires as for a global key. Only while the listener does
        not run (it hears keys in her windows too); push-to-talk is left to the windows'
        own key (it needs the release)."""
        for shortcut in self._shortcuts:
            shortcut.setEnabled(False)
            shortcut.deleteLater()
        self._shortcuts = []
        if self.running:
            return
        for action, text in keys.items():
            if action not in _CODES.values() or not text.strip():
                continue
            sequence = QKeySequence(text.strip(), QKeySequence.SequenceFormat.PortableText)
            if sequence.isEmpty():
                continue
            for window in self.windows:
                shortcut = QShortcut(sequence, window)
                shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
                shortcut.activated.connect(lambda a=action: self.triggered.emit(a))
                self._shortcuts.append(shortcut)

    def _read(self) -> None:
        watch = self._watch
        if watch is None:
            return
        try:
            data = watch.reader.recv(256)
        except (BlockingIOError, OSError):
            return
        for code in data.decode("ascii", "ignore"):
            if code in _CODES:
                self.triggered.emit(_CODES[code])
            elif code in "Tt" and self._talking != (code == "T"):
                self._talking = code == "T"
                self.talk.emit(self._talking)

    def stop(self) -> None:
        """Stop listening (at quit, or before new keys); safe to call again."""
        listener, self._listener = self._listener, None
        watch, self._watch = self._watch, None
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        if listener is not None:
            listener.stop()
            _wake_x_listener(listener)
            if listener is not threading.current_thread():
                listener.join(1.0)
        if watch is not None:
            watch.close()
        if self._talking:
            self._talking = False
            self.talk.emit(False)


#: Bytes the listener thread sends, and the action each stands for ("T"/"t": talk down/up).
_CODES = {"o": "toggle_overlay", "c": "toggle_click_through", "d": "toggle_dnd",
          "l": "look_at_screen"}
_SENDS = {"toggle_overlay": b"o", "toggle_click_through": b"c", "push_to_talk": b"T",
          "toggle_dnd": b"d", "look_at_screen": b"l"}


class _KeyWatch:
    """The listener thread's side (no Qt): pynput's HotKey state per action, and the
    writing end of the socket pair."""

    def __init__(self, keyboard: Any, keys: dict[str, list[Any]]) -> None:
        self.reader, self.writer = socket.socketpair()
        self.reader.setblocking(False)
        self.listener: Any = None
        self.hotkeys = [keyboard.HotKey(k, self._sender(_SENDS[a])) for a, k in keys.items()]
        self.talk_keys = set(keys.get("push_to_talk", ()))
        self.talking = False

    def _sender(self, code: bytes):  # noqa: ANN202
        def send() -> None:
            if code == b"T":
                self.talking = True
            self._send(code)
        return send

    def _send(self, code: bytes) -> None:
        try:
            self.writer.send(code)
        except OSError:
            pass  # closed at stop

    def press(self, key: Any) -> None:  # listener thread
        canonical = self.listener.canonical(key)
        for hotkey in self.hotkeys:
            hotkey.press(canonical)

    def release(self, key: Any) -> None:  # listener thread
        canonical = self.listener.canonical(key)
        for hotkey in self.hotkeys:
            hotkey.release(canonical)
        if self.talking and canonical in self.talk_keys:
            self.talking = False
            self._send(b"t")

    def close(self) -> None:
        for end in (self.writer, self.reader):
            end.close()


def _wake_x_listener(listener: Any) -> None:
    """pynput's X11 listener asks to stop on the connection its own thread is blocked
    reading, so it only ends at the next key or pointer event; the same request on its
    second connection ends it now."""
    display, context = getattr(listener, "_display_stop", None), getattr(listener, "_context", None)
    if display is None or context is None:
        return
    try:
        display.record_disable_context(context)
        display.flush()
    except Exception as error:  # noqa: BLE001 - already closed: the thread has ended
        log.debug("hotkey listener already stopped (%s)", type(error).__name__)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:200]
