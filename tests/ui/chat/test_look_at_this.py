""""Look at this" under Xvfb with a real window manager: a window of another program showing
a large known pattern, the chat window placed over part of it, the eye button, the
preview strip's Send and Cancel, the deny-list, a capture failure, and the picture that
reaches the vision model on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import os

import pytest
from PIL import Image
from PySide6.QtCore import Qt

from companion_desktop.storage import keepsakes
from companion_desktop.storage.settings import ProactiveSettings, load_settings
from tests.ui.conftest import make_window, use_server
from tests.ui.desktop.x11_desktop import PatternWindow, start_window_manager

pytestmark = [pytest.mark.qt, pytest.mark.slow]

WAIT_MS = 10_000
VISION_MODEL = "llava-test"
RED, BLUE = (255, 0, 0), (0, 0, 255)
SHOTS = os.environ.get("SCREEN_SHOTS")  # a folder: the preview strip is saved there


@pytest.fixture(scope="module")
def xd():
    yield from start_window_manager()


@pytest.fixture
def pattern(xd):
    made: list[PatternWindow] = []

    def make(x=700, y=120, w=640, h=420, app="firefox", title="Train times - Firefox"):
        win = PatternWindow(xd, x, y, w, h, app, title)
        made.append(win)
        return win

    yield make
    for win in made:
        win.close()


@pytest.fixture
def eyes(qtbot, service, server, xd):
    """The chat window (a vision model on 127.0.0.1) at the top left of the screen."""
    use_server(service, server, model=VISION_MODEL)
    window = make_window(qtbot, service)
    window.move(40, 40)
    window.resize(900, 640)
    yield window
    window.shutdown()


def settled(qtbot, win: PatternWindow) -> None:
    """The window is managed and shown (its frame placed by the window manager)."""
    qtbot.waitUntil(lambda: win.client_box()[1] > 0, timeout=WAIT_MS)
    qtbot.wait(200)  # the server paints its background


def sent_picture(server) -> Image.Image:
    """The picture in the streamed chat request (an OpenAI image_url data URL)."""
    for request in server.requests:
        for message in request["messages"]:
            if isinstance(message.get("content"), list):
                for part in message["content"]:
                    if part.get("type") == "image_url":
                        data = part["image_url"]["url"].split(",", 1)[1]
                        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
    raise AssertionError("no picture in the request")


def near(pixel, colour, tolerance=40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


def look(qtbot, chat, mode="active") -> None:
    chat.screen_look.last_problem = None
    chat.look_at_screen(mode, settle_ms=0)
    qtbot.waitUntil(lambda: chat.photo.prepared is not None
                    or chat.screen_look.last_problem is not None, timeout=WAIT_MS)


def save_shot(chat, name: str) -> None:
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        chat.grab().save(os.path.join(SHOTS, name))


def test_the_eye_button_stages_a_preview_and_send_shows_her_the_window(
        eyes, server, pattern, qtbot):
    win = pattern()
    settled(qtbot, win)
    win.activate()
    qtbot.mouseClick(eyes.eye_button, Qt.MouseButton.LeftButton)  # her chat: the one before
    qtbot.waitUntil(lambda: eyes.photo.prepared is not None, timeout=WAIT_MS)
    image = eyes.photo.prepared
    assert image.screen == "Firefox" and image.keep is False
    assert eyes.chip.isVisible() and eyes.chip.send_button.isVisible()
    assert server.requests == []  # nothing has left the machine yet
    eyes.input.setPlainText("what do you think of this?")
    save_shot(eyes, "preview-strip.png")
    qtbot.mouseClick(eyes.chip.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not eyes.busy and len(server.requests) >= 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not eyes.busy, timeout=WAIT_MS)
    picture = sent_picture(server)
    frame = win.frame()
    assert picture.size == (frame[2] - frame[0], frame[3] - frame[1])  # the window, whole
    left, top, right, bottom = win.client_box()

    def at(x: int, y: int) -> tuple[int, int, int]:  # a screen point in the picture
        return picture.getpixel((x - frame[0], y - frame[1]))

    middle = (top + bottom) // 2
    assert near(at(left + 290, middle), RED)
    assert near(at(right - 60, middle), BLUE)
    chat_right = eyes.frameGeometry().right()
    assert chat_right > left + 60  # the chat window covers the pattern's left part...
    assert near(at(left + 30, middle), (128, 128, 128), 6)  # ...and is cut out, grey
    system = server.requests[0]["messages"][0]["content"]
    assert "untrusted" in system and "Firefox" in system
    from companion_desktop.ui.chat.notice import Notice

    texts = [n.text() for n in eyes.transcript.findChildren(Notice)]
    assert any("You showed her your screen (Firefox)" in t for t in texts)
    with eyes.service.db.read_session() as session:
        assert keepsakes.keepsake_count(session) == 0  # a screen picture is not kept


def test_cancel_sends_nothing(eyes, server, pattern, qtbot):
    win = pattern()
    settled(qtbot, win)
    win.activate()
    look(qtbot, eyes)
    assert eyes.photo.prepared is not None
    qtbot.mouseClick(eyes.chip.cancel_button, Qt.MouseButton.LeftButton)
    assert eyes.photo.prepared is None and not eyes.chip.isVisible()
    qtbot.wait(200)
    assert server.requests == []


def test_a_screen_sent_without_words_is_one_line_in_the_chat(eyes, server, pattern, qtbot):
    win = pattern()
    settled(qtbot, win)
    win.activate()
    look(qtbot, eyes)
    assert eyes.photo.prepared is not None and eyes.input.toPlainText() == ""
    qtbot.mouseClick(eyes.chip.send_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(server.requests) >= 1 and not eyes.busy, timeout=WAIT_MS)
    assert eyes.transcript.bubbles("user") == []  # the line says it, as the history will
    lines = [n.text() for n in eyes.transcript.notices("info")]
    assert lines.count("👁 You showed her your screen (Firefox)") == 1
    assert eyes.transcript.bubbles("her")  # and she answered


def test_a_denied_window_is_refused_and_blacked_out_in_a_full_capture(eyes, server, pattern,
                                                                        qtbot):
    win = pattern(x=1000, y=500, w=500, h=300, app="keepassxc", title="Passwords - KeePassXC")
    settled(qtbot, win)
    win.activate()
    with eyes.service.db.read_session() as session:
        assert "keepass" in load_settings(session, ProactiveSettings).window_deny
    look(qtbot, eyes, "active")
    assert eyes.photo.prepared is None
    assert "private list" in eyes.screen_look.last_problem
    look(qtbot, eyes, "full")
    image = eyes.photo.prepared
    assert image is not None and image.screen == "your screen"
    picture = Image.open(io.BytesIO(image.data)).convert("RGB")
    scale = picture.width / eyes.screen().geometry().width()
    left, top, right, bottom = win.client_box()
    for x, y in ((left + 60, top + 60), (right - 60, bottom - 60)):
        assert near(picture.getpixel((int(x * scale), int(y * scale))), (0, 0, 0), 10)
    save_shot(eyes, "preview-strip-full.png")


def test_a_capture_failure_says_so_and_typing_still_works(eyes, server, qtbot, monkeypatch):
    monkeypatch.delenv("DISPLAY")
    look(qtbot, eyes)
    assert eyes.photo.prepared is None and "X11 display" in eyes.screen_look.last_problem
    monkeypatch.undo()
    eyes.input.setPlainText("hello anyway")
    qtbot.keyClick(eyes.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(server.requests) >= 1 and not eyes.busy, timeout=WAIT_MS)
    assert "hello anyway" in server.user_messages()[-1]


def test_without_a_desktop_portal_wayland_gets_a_clear_line():
    from companion_desktop.ui.desktop.screen.capture import ScreenRefused
    from companion_desktop.ui.desktop.screen.portal import NO_PORTAL, portal_screenshot

    with pytest.raises(ScreenRefused, match="portal") as raised:
        portal_screenshot([])
    assert str(raised.value) == NO_PORTAL


def test_her_menu_and_the_hotkey_stage_the_window_and_bring_the_chat_up(
        eyes, server, pattern, qtbot):
    """From her right-click menu and from the hotkey's action: the window the user is in
    waits in the chat's preview strip (nothing sent), and the hidden chat comes up."""
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.desktop.side import Desktop

    host = AvatarHost(fps=30, seed=1)
    desk = Desktop(eyes.service, host, eyes, eyes.backend)
    qtbot.addWidget(desk.overlay)
    try:
        win = pattern()
        settled(qtbot, win)
        for trigger in ("menu", "hotkey"):
            eyes.hide()
            win.activate()
            qtbot.wait(200)
            eyes.screen_look.last_problem = None
            if trigger == "menu":
                action = next(a for a in desk.overlay.menu().actions()
                              if a.text() == "Look at this window")
                action.trigger()
            else:
                desk._hotkey("look_at_screen")
            qtbot.waitUntil(lambda: eyes.photo.prepared is not None
                            or eyes.screen_look.last_problem is not None, timeout=WAIT_MS)
            assert eyes.screen_look.last_problem is None, trigger
            assert eyes.photo.prepared.screen == "Firefox", trigger
            qtbot.waitUntil(eyes.isVisible, timeout=WAIT_MS)  # the chat came up to show it
            assert server.requests == []  # still nothing sent
            qtbot.mouseClick(eyes.chip.cancel_button, Qt.MouseButton.LeftButton)
            assert eyes.photo.prepared is None
    finally:
        desk.hotkeys.stop()
        host.release()


def test_a_window_list_as_windows_or_macos_report_it_goes_through_the_same_plan(
        eyes, pattern, qtbot):
    """The Windows and macOS paths read the window list from the system (not run here);
    what they read goes through ``native.seen_windows`` and the same plan and grab."""
    from companion_desktop.engine.window_context import DEFAULT_DENY
    from companion_desktop.ui.desktop.screen import capture, native

    win = pattern()
    secret = pattern(x=1000, y=600, w=500, h=300, app="keepassxc", title="Passwords")
    settled(qtbot, win)
    settled(qtbot, secret)
    mine = eyes.frameGeometry()
    raw = [native.NativeWindow(1, os.getpid(), "python", "companion",
                               (mine.x(), mine.y(), mine.x() + mine.width(),
                                mine.y() + mine.height())),
           native.NativeWindow(7, 4242, "firefox", "Train times", win.frame()),
           native.NativeWindow(8, 4343, "KeePassXC", "Passwords", secret.frame()),
           native.NativeWindow(9, 4444, "Dock", "", (0, 0, 1920, 80), layer=20)]
    windows = native.seen_windows(raw, os.getpid())
    assert [(w.wid, w.own) for w in windows] == [(1, True), (7, False), (8, False)]
    assert not native.missing_permission(raw, os.getpid())
    assert native.missing_permission([native.NativeWindow(7, 4242, "Firefox", "", (0, 0, 9, 9))],
                                     os.getpid())

    shot = capture._planned("active", DEFAULT_DENY, None, [eyes], windows, windows[0])
    frame = win.frame()
    assert shot.label == "Firefox"  # her own active window gives way to the one before
    assert (shot.image.width(), shot.image.height()) == (frame[2] - frame[0], frame[3] - frame[1])
    left, top, _right, bottom = win.client_box()
    red = shot.image.pixelColor(left + 290 - frame[0], (top + bottom) // 2 - frame[1])
    assert near((red.red(), red.green(), red.blue()), RED)
    with pytest.raises(capture.ScreenRefused, match="private list"):
        capture._planned("active", DEFAULT_DENY, None, [eyes], windows, windows[2])
    full = capture._planned("full", DEFAULT_DENY, None, [eyes], windows, windows[1])
    assert full.hidden == ("KeePassXC",)
    left, top, right, bottom = secret.client_box()
    black = full.image.pixelColor((left + right) // 2, (top + bottom) // 2)
    assert (black.red(), black.green(), black.blue()) == (0, 0, 0)
    with pytest.raises(native.NoWindowList, match="window list"):
        native.window_list("linux")
