"""The API-key field of a settings page: a masked line, a state line, a "Forget key" link.

A typed key goes to the system keyring (``keys.set_key``) only when the page saves, and
is never shown back: a saved key reads ``SAVED_KEY``. Which keyring entry the field
stands for is asked of the page each time (``key_id``; None while there is none), and
the page words the state line (``describe``), so one widget serves every page. A typed
key that cannot be one (a space or line break inside, a control character, absurd
length) is named on the state line at once, and ``problem()`` lets the page refuse to
save it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from companion_desktop.llm import keys
from companion_desktop.llm.errors import key_problem

SAVED_KEY = "•••• saved in the system keyring"
ERROR_COLOUR = "#a3263f"  # the settings pages' error colour (ui.style)


class KeyField(QWidget):
    """``key`` (password echo), ``key_state`` (what is stored) and ``forget_key``.

    ``key_id()`` names the keyring entry (None: nothing chosen yet, the field is blank);
    ``describe(saved)`` is the state line's text, ``saved`` True when the keyring (or
    the environment) holds a key for that entry.
    """

    def __init__(self, key_id: Callable[[], str | None], describe: Callable[[bool], str],
                 line_name: str, wrap_state: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key_id, self.describe = key_id, describe
        #: True while the page's address may not get the stored key (``held_url``).
        self.held: Callable[[], bool] = lambda: False
        self.key = QLineEdit(objectName=line_name)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_state = QLabel(objectName="keyState", wordWrap=wrap_state)
        self.forget_key = QPushButton("Forget key", objectName="linkButton")
        self.forget_key.clicked.connect(self.forget)
        self.key.textChanged.connect(self._typed_changed)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addWidget(self.key)
        line = QHBoxLayout()
        line.addWidget(self.key_state, 1)
        line.addWidget(self.forget_key)
        box.addLayout(line)

    def typed(self) -> str:
        """The key typed into the field now, stripped ("" when none)."""
        return self.key.text().strip()

    def problem(self) -> str | None:
        """Why the typed key cannot be saved (None when it can, or nothing is typed)."""
        typed = self.typed()
        return key_problem(typed) if typed else None

    def _typed_changed(self) -> None:
        problem = self.problem()
        if problem:
            self._state(problem, "error")
        elif self.key_state.property("kind") == "error":
            self.refresh()

    def _state(self, text: str, kind: str = "") -> None:
        """The state line: ``kind`` "error" shows it in the error colour."""
        self.key_state.setText(text)
        self.key_state.setProperty("kind", kind)
        self.key_state.setStyleSheet(f"color: {ERROR_COLOUR};" if kind == "error" else "")

    def value(self) -> str | None:
        """The typed key, else the stored one (None when neither or no entry is chosen,
        and no stored key while ``held()``: a restored backup's address not confirmed)."""
        key_id = self.key_id()
        if self.typed():
            return self.typed()
        return keys.get_key(key_id) if key_id and not self.held() else None

    def refresh(self) -> None:
        """Show whether a key is stored; blank state and no link while no entry is chosen."""
        key_id = self.key_id()
        if key_id is None:
            self._state("")
            self.forget_key.hide()
            return
        saved = keys.get_key(key_id) is not None
        self.key.setPlaceholderText("type a new key to replace it" if saved else "API key")
        self._state(self.describe(saved))
        self.forget_key.setVisible(saved and keys.env_key(key_id) is None)

    def forget(self) -> None:
        """Delete the stored key; a keyring failure is shown on the state line."""
        key_id = self.key_id()
        if key_id is None:
            return
        try:
            keys.delete_key(key_id)
        except keys.KeyStoreError as error:
            self._state(str(error), "error")
            return
        self.refresh()

    def store(self) -> None:
        """Write a typed key to the keyring, then clear the field (nothing typed: no-op).

        Raises ``keys.InvalidKeyError`` for a key that cannot be one (nothing is stored,
        the field keeps it to fix) and ``keys.KeyStoreError`` when the keyring refuses
        (the page words both).
        """
        key_id, key = self.key_id(), self.typed()
        if not key or key_id is None:
            return
        keys.set_key(key_id, key)
        self.key.clear()
        self.refresh()
