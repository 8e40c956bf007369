"""Widgets that must behave the same on every platform: MCP arguments keep Windows paths,
fixed-pitch text uses the system's own fixed font, the overlay stays shown on macOS."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QFontMetrics

from companion_desktop.storage.settings import McpServerEntry
from companion_desktop.ui.chat.transcript import Notice
from companion_desktop.ui.settings.tools.editor import Draft, ServerEditor

pytestmark = pytest.mark.qt


def editor(qtbot, args: list[str]) -> ServerEditor:
    widget = ServerEditor(Draft(McpServerEntry(name="files", command="node", args=args)), [])
    qtbot.addWidget(widget)
    return widget


def test_windows_paths_in_mcp_arguments_keep_their_backslashes(qtbot, monkeypatch):
    """The editor branches on the platform: Windows command-line rules there."""
    monkeypatch.setattr(sys, "platform", "win32")
    args = [r"C:\Program Files\srv\index.js", "--root", r"C:\Users\me\notes"]
    dialog = editor(qtbot, args)
    assert dialog.args.text() == r'"C:\Program Files\srv\index.js" --root C:\Users\me\notes'
    dialog.args.setText(r"C:\tools\srv.js --root D:\data\x")
    assert dialog.edited().entry.args == [r"C:\tools\srv.js", "--root", r"D:\data\x"]


def test_posix_arguments_unchanged(qtbot):
    dialog = editor(qtbot, ["-y", "a b"])
    assert dialog.args.text() == "-y 'a b'"
    dialog.args.setText("--x 'open")
    with pytest.raises(ValueError, match="check the quotes"):
        dialog.edited()


def test_fixed_pitch_text_uses_the_systems_fixed_font(qtbot):
    card = Notice("Affection  ███░░ 42", "card")
    qtbot.addWidget(card)
    system = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    assert card.label.font().family() == system.family()
    metrics = QFontMetrics(card.label.font())
    assert metrics.horizontalAdvance("iiii") == metrics.horizontalAdvance("WWWW")


def test_overlay_window_stays_shown_when_the_app_is_not_frontmost(qtbot):
    """Qt's attribute for macOS tool windows (ignored elsewhere, so only its presence can be
    checked here)."""
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.overlay.window import OverlayWindow

    overlay = OverlayWindow(AvatarHost())
    qtbot.addWidget(overlay)
    assert overlay.windowFlags() & Qt.WindowType.Tool
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_MacAlwaysShowToolWindow)
