"""The overlay over a real GL context (Xvfb): her picture, click-through, taps, drag,
scale, and talking through the same pipeline as the chat window."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent

from companion_desktop.resources import default_avatar_path
from companion_desktop.storage.settings import AvatarSettings, load_settings
from tests.conftest import SHARED_ASSETS, T0
from tests.ui.conftest import use_server
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = [
    pytest.mark.gl,
    pytest.mark.qt,
    pytest.mark.skipif(not os.environ.get("DISPLAY"),
                       reason="needs an X display (Xvfb) for OpenGL windows"),
]


def model_path():
    if default_avatar_path().is_file():
        return default_avatar_path()
    godette = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"
    if godette.is_file():
        return godette
    pytest.skip("no avatar model available")


@pytest.fixture
def desktop(qtbot, service, server):
    import random

    from companion_desktop.app import _animations
    from companion_desktop.avatar.animation.director import Director
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.chat.backend import ChatBackend
    from companion_desktop.ui.chat.window import ChatWindow
    from companion_desktop.ui.desktop.side import Desktop

    use_server(service, server)
    animations = _animations(service.db, service)
    director = Director(animations.library, random.Random(1), pool=animations.idle_pool,
                        thinking_clip=animations.thinking_clip,
                        enabled=lambda: {i for i, _ in animations.enabled_for_prompt()})
    host = AvatarHost(fps=30, seed=1, director=director)
    host.load_now(model_path())
    backend = ChatBackend(service, lambda: T0, animations=animations.enabled_for_prompt)
    backend.connect()
    chat = ChatWindow(service, lambda: T0, backend, host)
    qtbot.addWidget(chat)
    desk = Desktop(service, host, chat, backend)
    qtbot.addWidget(desk.overlay)
    desk.overlay.show()
    qtbot.waitExposed(desk.overlay)
    view = desk.overlay.view
    qtbot.waitUntil(lambda: view.alpha_mask() is not None and view.alpha_mask().any(),
                    timeout=15000)
    yield desk
    chat.shutdown()


def test_she_is_drawn_on_a_transparent_window(desktop):
    mask = desktop.overlay.view.alpha_mask()
    height, width = mask.shape
    assert not mask[0, 0] and not mask[0, -1] and not mask[-1, 0] and not mask[-1, -1]
    assert mask[height // 3 : 2 * height // 3, width // 3 : 2 * width // 3].any()


def test_clicks_pass_through_empty_space(desktop, qtbot):
    overlay = desktop.overlay
    overlay.update_mask()
    region = overlay.mask()
    assert not region.isEmpty()
    assert not region.contains(QPoint(2, 2))  # a corner: the desktop gets the click
    # the shape sits where she is drawn: the view's opaque pixels, in window coordinates
    mask = overlay.view.alpha_mask()
    ys, xs = mask.nonzero()
    offset = overlay.view.pos()
    assert offset.y() > 0  # the view sits below the bubble area
    bounds = region.boundingRect()
    assert abs(bounds.top() - (ys.min() + offset.y())) <= 1
    assert abs(bounds.bottom() - (ys.max() + offset.y())) <= 1
    assert abs(bounds.left() - (xs.min() + offset.x())) <= 1
    middle = QPoint(int(xs[len(xs) // 2]) + offset.x(), int(ys[len(ys) // 2]) + offset.y())
    assert region.contains(middle)
    # her outline, not her bounding box: a transparent pixel inside the box (beside an arm,
    # between the legs) lets the click through
    gap = transparent_inside_box(mask)
    assert gap is not None, "her picture fills its bounding box: no gap to test"
    assert not region.contains(QPoint(gap[1] + offset.x(), gap[0] + offset.y()))
    overlay.set_click_through(False)
    assert overlay.mask().isEmpty()


def transparent_inside_box(mask):
    """(row, column) of a pixel inside the opaque pixels' bounding box whose 5x5
    neighbourhood is all transparent, or None."""
    ys, xs = mask.nonzero()
    box = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    padded = np.pad(box, 2)
    near = np.zeros_like(box)
    for dy in range(5):
        for dx in range(5):
            near |= padded[dy : dy + box.shape[0], dx : dx + box.shape[1]]
    rows, cols = np.nonzero(~near)
    if not len(rows):
        return None
    pick = len(rows) // 2
    return int(rows[pick] + ys.min()), int(cols[pick] + xs.min())


def test_tap_on_her_head_gets_a_reaction(desktop):
    view = desktop.overlay.view
    head = view.head_pixel()
    assert head is not None and view.rect().contains(head)
    assert desktop.overlay.tap(head) == "head"
    assert desktop.host.runtime.layers.tap.active(desktop.host.runtime.time)
    assert desktop.overlay.tap(QPoint(1, 1)) is None


def test_drag_moves_and_remembers_per_screen_arrangement(desktop, qtbot, service):
    overlay = desktop.overlay
    start = overlay.pos()
    view = overlay.view
    target = view.rect().center()
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=target)
    qtbot.mouseMove(view, target + QPoint(40, 30))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=target + QPoint(40, 30))
    assert overlay.pos() != start
    with service.db.read_session() as session:
        saved = load_settings(session, AvatarSettings)
    assert tuple(saved.positions.values())[0] == (overlay.x(), overlay.y())


def test_scroll_scales_her(desktop, service):
    overlay = desktop.overlay
    before = overlay.size()
    event = QWheelEvent(QPointF(50, 50), QPointF(overlay.mapToGlobal(QPoint(50, 50))), QPoint(0, 0),
                        QPoint(0, 120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    overlay.eventFilter(overlay.view, event)
    assert overlay.width() > before.width() and overlay.height() > before.height()
    with service.db.read_session() as session:
        assert load_settings(session, AvatarSettings).scale == pytest.approx(overlay.scale)


def test_talking_from_the_overlay_shows_in_both_windows(desktop, qtbot, server):
    server.scripts.append(Script(reply_with_block("Hi! I'm right here with you.",
                                                  affection_delta=2),
                                 delay=0.02))
    overlay, chat = desktop.overlay, desktop.chat
    overlay.show_input()
    qtbot.keyClicks(overlay.input, "hello from the desktop")
    qtbot.keyClick(overlay.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not chat.busy and chat.pending is None, timeout=15000)
    assert "I'm right here with you." in overlay.bubble.label.text()
    texts = [b.text() for b in chat.transcript.bubbles()]
    assert "hello from the desktop" in texts and "Hi! I'm right here with you." in texts
    assert desktop.host.runtime.mouth == 0.0  # she stopped talking


def test_tap_on_her_body(desktop):
    view = desktop.overlay.view
    mask = view.alpha_mask()
    ys, xs = mask.nonzero()
    body = QPoint(int(xs[len(xs) * 3 // 4]), int(ys[len(ys) * 3 // 4]))  # lower half: dress, legs
    assert desktop.overlay.tap(body) == "body"


def test_menu_offers_what_a_user_needs(desktop):
    names = [a.text() for a in desktop.overlay.menu().actions() if a.text()]
    for needed in ("Open chat", "Settings…", "Always on top", "Photo mode…", "Hide", "Quit"):
        assert needed in names


def test_photo_mode_saves_a_transparent_png(desktop, qtbot, tmp_path):
    from PIL import Image

    from companion_desktop.ui.overlay.photo_mode import PhotoDialog

    dialog = PhotoDialog(desktop.host)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.view.camera is not None, timeout=10000)
    dialog.face.setCurrentText("happy")
    assert desktop.host.runtime.layers.photo == {"happy": 1.0}
    dialog.yaw.setValue(30)
    assert dialog.view.camera_override is not None
    path = dialog.save(str(tmp_path / "photo.png"))
    rgba = Image.open(path)
    assert rgba.mode == "RGBA"
    alpha = rgba.getchannel("A")
    assert alpha.getpixel((0, 0)) == 0 and alpha.getextrema()[1] == 255
    dialog.close()
    assert desktop.host.runtime.layers.photo is None


def test_model_page_keeps_the_last_good_model(desktop, qtbot, tmp_path, service):
    from companion_desktop.ui.settings.model_section import ModelSection

    section = ModelSection(service, desktop.host)
    qtbot.addWidget(section)
    good = desktop.host.model
    bad = tmp_path / "broken.vrm"
    bad.write_bytes(b"glTF" + b"\x00" * 30)
    section.load(bad)
    qtbot.waitUntil(lambda: "stays" in section.status.text(), timeout=10000)
    assert desktop.host.model is good and "broken.vrm" in section.status.text()
    godette = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"
    if not godette.is_file():
        return
    section.load(godette)
    qtbot.waitUntil(lambda: desktop.host.model is not good, timeout=15000)
    assert "0.x" in section.report.toPlainText()
    with service.db.read_session() as session:
        assert load_settings(session, AvatarSettings).model_path == str(godette)


def test_her_action_plays_as_an_emote_and_thinking_talking_follow_the_turn(desktop, qtbot, server):
    import json

    block = {"mood_change": {"emotion": "happy", "intensity_delta": 5}, "action": "wave"}
    server.scripts.append(Script(["Hello ", "there!", "\n```json\n" + json.dumps(block) + "\n```"],
                                 delay=0.05))
    director = desktop.host.director
    desktop.send("hi!")
    qtbot.waitUntil(lambda: director.talking, timeout=10000)
    assert director.mixer.base_clip.id == director.library.talking_id
    qtbot.waitUntil(lambda: not desktop.chat.busy and desktop.chat.pending is None, timeout=15000)
    assert not director.talking
    assert director.mixer.playing_emote and director.mixer.emote_clip.id == "wave"
    system = [r for r in server.requests if r.get("stream")][-1]["messages"][0]["content"]
    assert "<avatar>" in system and "wave" in system


def test_a_due_reminder_fires_as_a_system_event_in_both_windows(desktop, qtbot, server, service):
    from datetime import timedelta

    from companion_desktop.storage import reminders as store

    with service.db.session() as session:
        store.add_reminder(session, T0 - timedelta(minutes=1), "stretch your legs",
                           T0 - timedelta(hours=1), None)
    server.scripts.append(Script(reply_with_block("Time to stretch your legs!", affection_delta=5)))
    desktop.poller.poll()
    qtbot.waitUntil(lambda: any("stretch your legs" in n.text()
                                for n in desktop.chat.transcript.notices()),
                    timeout=15000)
    assert "Time to stretch your legs!" in desktop.overlay.bubble.label.text()
    with service.db.read_session() as session:
        assert store.due_reminders(session, T0) == []  # fired, so not due again
    prompt = [r for r in server.requests if r.get("stream")][-1]["messages"][0]["content"]
    assert "<event>" in prompt and "stretch your legs" in prompt
    notice = next(n for n in desktop.chat.transcript.notices() if "stretch your legs" in n.text())
    notice.buttons["Dismiss"].click()
    with service.db.read_session() as session:
        assert [r.dismissed for r in store.all_reminders(session)] == [True]


def test_hidden_or_covered_views_draw_nothing(desktop, qtbot):
    from PySide6.QtWidgets import QLabel, QWidget

    from companion_desktop.ui.avatar.view import AvatarView

    host, overlay = desktop.host, desktop.overlay
    qtbot.waitUntil(lambda: host.pictures > 0, timeout=10000)
    shown = host.pictures
    qtbot.waitUntil(lambda: host.pictures > shown + 2, timeout=10000)  # she idles: pictures flow
    overlay.hide()
    assert not host.timer.isActive()  # no view left: the clock stops
    stopped = host.pictures
    for _ in range(5):
        host.tick(force=True)  # even a forced frame draws nothing for a hidden window
    qtbot.wait(300)
    assert host.pictures == stopped
    # a view under another widget is not drawn either
    holder = QWidget()
    qtbot.addWidget(holder)
    holder.resize(200, 300)
    view = AvatarView(host, "upper", holder)
    view.setGeometry(0, 0, 200, 300)
    cover = QLabel("on top", holder)
    cover.setAutoFillBackground(True)
    cover.setGeometry(0, 0, 200, 300)
    holder.show()
    qtbot.waitExposed(holder)
    cover.raise_()
    assert host.showing() == []
    before = host.pictures
    for _ in range(5):
        host.tick(force=True)
    assert host.pictures == before
    cover.hide()
    qtbot.waitUntil(lambda: host.showing() == [view], timeout=5000)
    host.tick(force=True)
    assert host.pictures == before + 1


def test_her_clock_stands_still_while_no_view_is_seen(desktop, qtbot):
    from PySide6.QtWidgets import QLabel

    host, overlay = desktop.host, desktop.overlay
    qtbot.waitUntil(lambda: host.pictures > 0, timeout=10000)
    cover = QLabel("covering her", overlay)
    cover.setAutoFillBackground(True)
    cover.setGeometry(overlay.rect())
    cover.show()
    cover.raise_()
    assert host.showing() == []
    ticks, clock = host.ticks, host.runtime.time
    host.tick()
    assert host.ticks == ticks and host.runtime.time == clock  # no update, no picture
    assert host.timer.interval() >= 500  # it only looks now and then
    cover.hide()
    qtbot.waitUntil(lambda: host.runtime.time > clock, timeout=5000)


def test_she_bypasses_a_window_manager_that_cannot_keep_her_above(qtbot):
    """``bypass_wm`` (an X11 window manager without ``_NET_WM_STATE_ABOVE``, as some
    compositors run for XWayland): on top means override-redirect too; off, neither."""
    from PySide6.QtCore import Qt

    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.overlay import OverlayWindow

    bypass = Qt.WindowType.X11BypassWindowManagerHint
    top = Qt.WindowType.WindowStaysOnTopHint
    overlay = OverlayWindow(AvatarHost(fps=30, seed=1), bypass_wm=True)
    qtbot.addWidget(overlay)
    assert overlay.windowFlags() & bypass and overlay.windowFlags() & top
    overlay.set_always_on_top(False)
    assert not overlay.windowFlags() & bypass and not overlay.windowFlags() & top
    overlay.set_always_on_top(True)
    assert overlay.windowFlags() & bypass and overlay.windowFlags() & top
    assert overlay.windowFlags() & Qt.WindowType.Tool  # still no taskbar entry
    plain = OverlayWindow(AvatarHost(fps=30, seed=1))
    qtbot.addWidget(plain)
    assert plain.windowFlags() & top and not plain.windowFlags() & bypass
