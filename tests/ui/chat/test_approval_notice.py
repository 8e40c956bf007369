"""The tool-approval notice with real widgets: the whole call is shown (a 5000-character
argument in full, scrollable), as plain text, with hidden characters made visible."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from companion_desktop.pipeline.tools import NOT_REVIEWED, ApprovalRequest
from companion_desktop.pipeline.worker import ApprovalTicket
from companion_desktop.ui.chat.transcript import Transcript

pytestmark = pytest.mark.qt


@pytest.fixture
def transcript(qtbot):
    view = Transcript()
    qtbot.addWidget(view)
    view.resize(760, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


def ask(transcript, arguments, **extra):
    request = ApprovalRequest("files", "write_file", arguments, NOT_REVIEWED["new"],
                              "Write a file.", **extra)
    return transcript.add_approval(ApprovalTicket(request))


def test_a_long_argument_is_shown_in_full_and_scrolls(transcript, qtbot, tmp_path):
    tail = "; rm -rf ~/  # the dangerous part, at the very end"
    content = "x" * 5000 + tail
    notice = ask(transcript, {"path": "notes.txt", "content": content})
    shown = notice.details.toPlainText()
    assert content in shown and '"path": "notes.txt"' in shown
    assert "Tool: write_file" in shown and "Server: files" in shown
    assert "What it does: Write a file." in shown
    assert "not reviewed" in notice.label.text()
    # the question's lines start at the same left edge as the call under them
    assert notice.label.alignment() & Qt.AlignmentFlag.AlignLeft
    qtbot.waitUntil(lambda: notice.details.verticalScrollBar().maximum() > 0)
    assert notice.details.height() <= 240  # the box scrolls instead of growing
    bar = notice.details.verticalScrollBar()
    bar.setValue(bar.maximum())
    assert notice.details.isReadOnly()
    qtbot.mouseClick(notice.buttons["Deny"], Qt.MouseButton.LeftButton)
    assert notice.ticket.answered and not notice.ticket.allowed
    assert "You said no" in notice.label.text() and content in notice.text()


def test_the_call_is_plain_text_and_hidden_characters_show(transcript, tmp_path):
    picture = tmp_path / "big.png"
    from PySide6.QtGui import QImage

    QImage(40, 40, QImage.Format.Format_RGB32).save(str(picture))
    markup = f'<img src="{picture}" width=3000 height=2000><b>x</b>'
    notice = ask(transcript, {"note": markup, "name": "evil\u202egnp.exe"})
    assert markup.replace('"', '\\"') in notice.details.toPlainText()  # JSON-escaped quotes
    assert "\\u202e" in notice.details.toPlainText()  # a right-to-left override, made visible
    assert "\u202e" not in notice.text()
    assert notice.width() < 1000 and notice.height() < 1000
