"""Showing her a photo from the chat window and the overlay: the paperclip (only the
system file dialog is replaced), real drag-and-drop events, the real clipboard, vision
gating, the privacy notice, refusals, and the photo reaching the model on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import threading
from datetime import timedelta
from types import SimpleNamespace

import pytest
from PIL import Image
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QFileDialog

from companion_desktop.llm.base import CancelToken
from companion_desktop.pipeline.runner import SHOW_ONLY_TEXT
from companion_desktop.pipeline.worker import ApprovalTicket
from companion_desktop.storage import keepsakes, repository
from companion_desktop.ui.chat.transcript import PHOTO_CAPTION
from companion_desktop.ui.settings import SettingsDialog
from tests.conftest import T0
from tests.ui.conftest import make_window, use_server
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = pytest.mark.qt

WAIT_MS = 8000
VISION_MODEL = "llava-test"


def write_photo(path, size=(640, 480), color=(200, 80, 120), fmt="JPEG"):
    Image.new("RGB", size, color).save(path, fmt)
    return path


@pytest.fixture
def vision_chat(qtbot, service, server):
    """The chat window talking to ``server`` through a (name-checked) vision model."""
    use_server(service, server, model=VISION_MODEL)
    window = make_window(qtbot, service)
    yield window
    window.shutdown()


def wait_ready(qtbot, window):
    qtbot.waitUntil(lambda: window.photo.prepared is not None, timeout=WAIT_MS)


def wait_idle(qtbot, window):
    qtbot.waitUntil(lambda: not window.busy, timeout=WAIT_MS)


def url_mime(*paths) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def drag_enter(widget, mime: QMimeData) -> QDragEnterEvent:
    event = QDragEnterEvent(QPoint(20, 20), Qt.DropAction.CopyAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)
    return event


def drop(widget, mime: QMimeData) -> QDropEvent:
    """A drop onto ``widget`` (Qt delivers it to whichever widget took the drag's enter)."""
    event = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QEvent.Type.Drop)
    QApplication.sendEvent(widget, event)
    return event


def drag_and_drop(widget, mime: QMimeData) -> QDropEvent:
    drag_enter(widget, mime)
    return drop(widget, mime)


def sent_images(server) -> list[Image.Image]:
    """The images in the last user message of each streamed chat request (data URLs)."""
    out = []
    for request in server.requests:
        if not request.get("stream"):
            continue
        content = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                url = part["image_url"]["url"]
                assert url.startswith("data:image/")
                out.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return out


def last_user_text(server) -> str:
    request = [r for r in server.requests if r.get("stream")][-1]
    content = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(p["text"] for p in content if p.get("type") == "text")


# ------------------------------------------------------------------ composer
def test_paperclip_stages_a_chip_and_the_photo_reaches_the_model(vision_chat, server, qtbot,
                                                                 tmp_path, monkeypatch):
    chat = vision_chat
    photo = write_photo(tmp_path / "beach day.jpg")
    asked = []

    def fake_dialog(parent, caption, folder, filters):
        asked.append(filters)
        return str(photo), filters

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(fake_dialog))
    assert chat.clip_button.toolTip() == "Show her a photo"
    qtbot.mouseClick(chat.clip_button, Qt.MouseButton.LeftButton)
    assert "*.heic" in asked[0] and "*.png" in asked[0]
    assert chat.chip.isVisible()
    wait_ready(qtbot, chat)
    assert chat.chip.name_label.text() == "beach day.jpg"
    assert "Ready" in chat.chip.status.text() and "640 × 480" in chat.chip.status.text()
    assert not chat.chip.thumb.pixmap().isNull()

    phases: list[tuple[str, str]] = []
    chat.backend.controller.phase.connect(
        lambda p: phases.append((p, chat.transcript.phase.text())))
    server.scripts.append(Script(reply_with_block("What a lovely beach!")))
    qtbot.keyClicks(chat.input, "Look where I was")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert not chat.chip.isVisible() and chat.photo.prepared is None
    wait_idle(qtbot, chat)

    [bubble] = chat.transcript.bubbles("user")
    assert bubble.text() == "Look where I was" and bubble.has_photo
    assert bubble.label.text() == "Look where I was"
    assert ("seeing", "Seeing…") in phases
    [seen] = sent_images(server)
    assert seen.size == (640, 480) and seen.format == "JPEG"
    assert "Look where I was" in last_user_text(server)
    assert [b.text() for b in chat.transcript.bubbles("her")] == ["What a lovely beach!"]


def test_dropping_a_photo_file_anywhere_highlights_then_stages_it(vision_chat, server, qtbot,
                                                                  tmp_path):
    chat = vision_chat
    photo = write_photo(tmp_path / "cat.png", (300, 200), fmt="PNG")
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a photo")

    assert not drag_enter(chat.transcript.viewport(), url_mime(text_file)).isAccepted()
    assert not chat.drop_hint.isVisible()
    entered = drag_enter(chat.input.viewport(), url_mime(photo))  # over the box: still the window's
    assert entered.isAccepted()
    assert chat.drop_hint.isVisible() and chat.drop_hint.text() == "Show her this photo"
    assert drop(chat.input.viewport(), url_mime(photo)).isAccepted()
    assert not chat.drop_hint.isVisible()
    assert chat.input.toPlainText() == ""  # no path typed into the box
    wait_ready(qtbot, chat)
    assert chat.chip.name_label.text() == "cat.png"

    assert chat.send_button.isEnabled()  # a photo alone may be sent
    server.scripts.append(Script(reply_with_block("Aww, a cat!")))
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    wait_idle(qtbot, chat)
    [bubble] = chat.transcript.bubbles("user")
    assert bubble.text() == SHOW_ONLY_TEXT and bubble.has_photo
    assert bubble.label.text() == PHOTO_CAPTION
    assert [im.size for im in sent_images(server)] == [(300, 200)]
    assert last_user_text(server) == SHOW_ONLY_TEXT


def test_pasting_an_image_stages_it_and_text_still_pastes(vision_chat, qtbot, tmp_path):
    chat = vision_chat
    clipboard = QApplication.clipboard()
    clipboard.setText("plain words")
    chat.input.setFocus()
    qtbot.keyClick(chat.input, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert chat.input.toPlainText() == "plain words" and not chat.chip.isVisible()

    image = QImage(400, 300, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.darkCyan)
    clipboard.setImage(image)
    qtbot.keyClick(chat.input, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    wait_ready(qtbot, chat)
    assert chat.input.toPlainText() == "plain words"
    assert chat.chip.name_label.text() == "pasted image"
    assert (chat.photo.prepared.width, chat.photo.prepared.height) == (400, 300)

    copied = write_photo(tmp_path / "copied.jpg", (120, 90))  # a file copied in a file manager
    clipboard.setMimeData(url_mime(copied))
    qtbot.keyClick(chat.input, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    wait_ready(qtbot, chat)
    assert chat.chip.name_label.text() == "copied.jpg"  # one photo per message: replaced
    assert chat.photo.prepared.width == 120


def test_the_chip_x_removes_the_photo(vision_chat, server, qtbot, tmp_path):
    chat = vision_chat
    chat.stage_image(str(write_photo(tmp_path / "a.jpg")), "a.jpg")
    wait_ready(qtbot, chat)
    assert chat.send_button.isEnabled()
    qtbot.mouseClick(chat.chip.close_button, Qt.MouseButton.LeftButton)
    assert not chat.chip.isVisible() and chat.photo.prepared is None
    assert not chat.send_button.isEnabled()
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert server.requests == [] and chat.transcript.bubbles() == []


@pytest.mark.parametrize("kind", ["text renamed .png", "huge file"])
def test_unusable_files_are_refused_with_a_message(vision_chat, server, qtbot, tmp_path, kind):
    chat = vision_chat
    bad = tmp_path / "holiday.png"
    if kind == "huge file":
        with bad.open("wb") as handle:
            handle.truncate(40_000_000)  # sparse: refused by its size before reading
    else:
        bad.write_text("this is a shopping list, not a picture")
    drag_and_drop(chat.transcript.viewport(), url_mime(bad))
    qtbot.waitUntil(lambda: bool(chat.transcript.notices("error")), timeout=WAIT_MS)
    [error] = chat.transcript.notices("error")
    expected = "too large" if kind == "huge file" else "not a picture"
    assert expected in error.text()
    assert not chat.chip.isVisible() and not chat.photo.staged
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert server.requests == []


# ------------------------------------------------------------------ gating and privacy
def test_a_text_only_model_gets_a_switch_notice_and_the_photo_stays(chat, server, qtbot, tmp_path):
    chat.stage_image(str(write_photo(tmp_path / "a.jpg")), "a.jpg")
    wait_ready(qtbot, chat)
    qtbot.keyClicks(chat.input, "see this?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert server.requests == [] and chat.transcript.bubbles() == []
    [notice] = chat.transcript.notices("setup")
    assert "tiny-model" in notice.text() and "can't see images" in notice.text()
    assert chat.photo.prepared is not None and chat.chip.isVisible()
    assert chat.input.toPlainText() == "see this?"
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert len(chat.transcript.notices("setup")) == 1  # replaced, not piled up
    qtbot.mouseClick(notice.buttons["Open Settings"], Qt.MouseButton.LeftButton)
    dialog = chat.findChild(SettingsDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.reject()


def test_the_privacy_notice_comes_once_before_the_first_photo(vision_chat, server, qtbot, tmp_path):
    chat = vision_chat
    for name in ("one.jpg", "two.jpg"):
        chat.stage_image(str(write_photo(tmp_path / name)), name)
        wait_ready(qtbot, chat)
        server.scripts.append(Script(reply_with_block("Nice.")))
        qtbot.keyClick(chat.input, Qt.Key.Key_Return)
        wait_idle(qtbot, chat)
    info = [n for n in chat.transcript.notices("info") if "photo" in n.text().lower()]
    assert len(info) == 1
    assert "never leaves" in info[0].text()  # 127.0.0.1 is this machine
    rows = chat.transcript.rows
    assert rows.index(info[0]) < rows.index(chat.transcript.bubbles("user")[0])
    assert len(sent_images(server)) == 2


def test_show_image_sends_now_or_stays_staged_while_she_answers(vision_chat, server, qtbot,
                                                                tmp_path):
    chat = vision_chat
    problems: list[str] = []
    chat.photo_problem.connect(problems.append)
    server.scripts.append(Script(["word "] * 30, delay=0.05))
    qtbot.keyClicks(chat.input, "Tell me something")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert chat.busy
    chat.show_image(str(write_photo(tmp_path / "x.jpg")), "x.jpg", send_now=True)
    wait_ready(qtbot, chat)
    assert problems and "still answering" in problems[-1]
    assert chat.chip.isVisible()
    wait_idle(qtbot, chat)

    chat.photo.clear()
    data = io.BytesIO()
    Image.new("RGB", (90, 60), (0, 120, 0)).save(data, "PNG")
    server.scripts.append(Script(reply_with_block("Green!")))
    chat.show_image(data.getvalue(), "dropped image", send_now=True)
    qtbot.waitUntil(lambda: len(chat.transcript.bubbles("user")) == 2, timeout=WAIT_MS)
    wait_idle(qtbot, chat)
    assert chat.transcript.bubbles("user")[-1].text() == SHOW_ONLY_TEXT
    assert [im.size for im in sent_images(server)] == [(90, 60)]
    assert not chat.chip.isVisible()


def test_history_shows_the_kept_photo_of_a_turn(qtbot, service, server, tmp_path):
    use_server(service, server, model=VISION_MODEL)
    thumb = io.BytesIO()
    Image.new("RGB", (160, 120), (10, 20, 200)).save(thumb, "JPEG")
    with service.db.session() as session:
        sid = repository.start_session(session, T0 - timedelta(hours=2))
        repository.add_turn(session, sid, "user", "Hello", T0 - timedelta(hours=2))
        shown = repository.add_turn(session, sid, "user", SHOW_ONLY_TEXT, T0 - timedelta(hours=1))
        repository.add_turn(session, sid, "assistant", "So blue!", T0 - timedelta(hours=1))
        keepsakes.add_keepsake(session, service.db.path.parent, image=thumb.getvalue(),
                               thumbnail=thumb.getvalue(), mime_type="image/jpeg", width=160,
                               height=120, note="their blue wall", turn_id=shown,
                               created_at=T0 - timedelta(hours=1))
    window = make_window(qtbot, service)
    try:
        hello, photo = window.transcript.bubbles("user")
        assert not hello.has_photo and photo.has_photo
        assert photo.label.text() == PHOTO_CAPTION
    finally:
        window.shutdown()


# ------------------------------------------------------------------ tools
def test_a_tool_approval_is_answered_inline(vision_chat, qtbot):
    chat = vision_chat
    controller = chat.backend.controller
    long_text = "x" * 1000
    request = SimpleNamespace(server="files", tool="read_file",
                              arguments={"path": "/home/me/notes.txt", "extra": long_text})
    ticket = ApprovalTicket(request)
    result: list[bool] = []
    waiter = threading.Thread(target=lambda: result.append(ticket.wait(CancelToken(), timeout=5)))
    waiter.start()
    controller.approval_requested.emit(ticket)
    [notice] = chat.transcript.notices("ask")
    assert notice.text().startswith("She wants to use read_file from files.")
    assert "/home/me/notes.txt" in notice.text() and long_text in notice.text()  # nothing cut
    qtbot.mouseClick(notice.buttons["Allow"], Qt.MouseButton.LeftButton)
    waiter.join(5)
    assert result == [True] and ticket.allowed
    assert not notice.buttons["Allow"].isVisible() and "allowed" in notice.text()

    denied = ApprovalTicket(SimpleNamespace(server="web", tool="fetch", arguments={}))
    controller.approval_requested.emit(denied)
    second = chat.transcript.notices("ask")[-1]
    qtbot.mouseClick(second.buttons["Deny"], Qt.MouseButton.LeftButton)
    assert denied.answered and not denied.allowed and "said no" in second.text()

    stale = ApprovalTicket(SimpleNamespace(server="web", tool="fetch", arguments={"u": 1}))
    controller.approval_requested.emit(stale)
    third = chat.transcript.notices("ask")[-1]
    stopped = CancelToken()
    stopped.cancel()
    assert stale.wait(stopped) is False and stale.cancelled
    controller.tool_activity.emit("fetch", "declined")
    assert not third.buttons["Allow"].isEnabled() and not third.buttons["Deny"].isEnabled()
    assert not stale.answered


def test_tool_activity_shows_in_the_phase_line(vision_chat, server, qtbot):
    chat = vision_chat
    server.scripts.append(Script(["slow "] * 20, first_delay=0.6, delay=0.03))
    qtbot.keyClicks(chat.input, "what's the weather?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    chat.backend.controller.tool_activity.emit("weather lookup", "running")
    assert chat.transcript.phase.isVisible()
    assert chat.transcript.phase.text() == "Using weather lookup…"
    chat.backend.controller.tool_activity.emit("weather lookup", "done")
    assert chat.transcript.phase.text() == "Thinking…"
    wait_idle(qtbot, chat)


# ------------------------------------------------------------------ overlay
def test_a_photo_dropped_on_the_overlay_goes_to_show_image(qtbot, tmp_path):
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.overlay.window import DROP_HINT, OverlayWindow

    shown: list[tuple[object, str]] = []
    boards: list[bool] = []
    overlay = OverlayWindow(AvatarHost(fps=30, seed=1),
                            show_image=lambda s, n: shown.append((s, n)),
                            open_photoboard=lambda: boards.append(True))
    qtbot.addWidget(overlay)
    photo = write_photo(tmp_path / "sunset.jpg")
    assert drag_enter(overlay.view, url_mime(photo)).isAccepted()  # onto her: the view's window
    assert overlay.bubble.isVisibleTo(overlay) and overlay.bubble.label.text() == DROP_HINT
    drop(overlay.view, url_mime(photo))
    assert shown == [(str(photo), "sunset.jpg")]
    assert not overlay.bubble.isVisibleTo(overlay)

    mime = QMimeData()
    image = QImage(50, 40, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.red)
    mime.setImageData(image)
    drag_and_drop(overlay.view, mime)
    data, name = shown[-1]
    assert isinstance(data, bytes) and Image.open(io.BytesIO(data)).size == (50, 40)

    menu = overlay.menu()
    [action] = [a for a in menu.actions() if a.text() == "Photoboard…"]
    action.trigger()
    assert boards == [True]


def test_without_show_image_the_overlay_takes_no_drops(qtbot, tmp_path):
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.overlay.window import OverlayWindow

    overlay = OverlayWindow(AvatarHost(fps=30, seed=1))
    qtbot.addWidget(overlay)
    assert not overlay.acceptDrops()
    assert "Photoboard…" not in [a.text() for a in overlay.menu().actions()]
