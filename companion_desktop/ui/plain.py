"""Text that did not come from this program's own code is shown as plain text.

A model's reply, a server's error, a fact, a file or tool name: Qt would read any of
them as rich text when it looks like HTML (QLabel, tooltips and QMessageBox default
to ``AutoText``), so ``<img src="/a/local.png" width=3000>`` would load a local file
and blow the widget up. Every widget that shows such text goes through here:

- ``plain(label)`` / ``plain_label(text, ...)``: a QLabel that never renders markup;
- ``plain_tip(text)``: a tooltip string Qt shows literally;
- ``escape(text)``: for text composed into our own rich text;
- ``ask_yes_no(parent, title, text)``: a Yes/No question whose text is plain;
- ``ask_choice(parent, title, text, info, choices)``: a question with named buttons.
"""

from __future__ import annotations

import html
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

L = TypeVar("L", QLabel, QMessageBox)


def plain(widget: L) -> L:
    """``widget`` (a QLabel or QMessageBox) set to show its text literally; returned."""
    widget.setTextFormat(Qt.TextFormat.PlainText)
    return widget


def plain_label(text: str = "", **kwargs: object) -> QLabel:
    """A QLabel (``kwargs`` as QLabel takes them) that shows ``text`` literally."""
    label = plain(QLabel(**kwargs))  # type: ignore[arg-type]
    label.setText(text)
    return label


def escape(text: object) -> str:
    """``text`` safe inside our own rich text (&, <, >, quotes escaped)."""
    return html.escape(str(text))


def plain_tip(text: object) -> str:
    """A tooltip that shows ``text`` literally (Qt reads tooltips that look like HTML
    as rich text; such text is escaped, line breaks kept)."""
    value = str(text)
    if not GuiQt.mightBeRichText(value):
        return value
    return GuiQt.convertFromPlainText(value, GuiQt.WhiteSpaceMode.WhiteSpaceNormal)


def yes_no_box(parent: QWidget | None, title: str, text: str) -> QMessageBox:
    """A Yes/No question (No is the default) that shows ``text`` literally."""
    box = plain(QMessageBox(QMessageBox.Icon.Question, title, text,
                            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                            parent))
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box


def ask_yes_no(parent: QWidget | None, title: str, text: str) -> bool:
    """Ask ``text`` (shown literally) and wait; True when the user says Yes."""
    return yes_no_box(parent, title, text).exec() == QMessageBox.StandardButton.Yes


def ask_choice(parent: QWidget | None, title: str, text: str, info: str,
               choices: list[tuple[str, QMessageBox.ButtonRole]]) -> int | None:
    """Ask ``text`` (with ``info`` below it, both shown literally) with one button per
    ``(label, role)`` and Cancel; the index of the choice (the first is the default), or
    None when cancelled."""
    box = plain(QMessageBox(parent))
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    box.setInformativeText(info)
    buttons = [box.addButton(label, role) for label, role in choices]
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(buttons[0])
    box.exec()
    clicked = box.clickedButton()
    return next((i for i, b in enumerate(buttons) if b is clicked), None)
