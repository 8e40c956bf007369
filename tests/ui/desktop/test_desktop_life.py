"""Desktop life through the app's own overlay (her real picture, the real Desktop wiring)
under openbox: dragged and let go over a window she falls onto its top and the place is
saved; Settings > Desktop > On the desktop turns each behaviour on and off."""

from __future__ import annotations

import os
import subprocess

import pytest
from PySide6.QtCore import QPoint, Qt

from companion_desktop.engine.proactive import ActiveWindow
from companion_desktop.storage.settings import (
    AvatarSettings,
    DesktopLifeSettings,
    ProactiveSettings,
    load_settings,
    save_settings,
)
from tests.ui.desktop.x11_desktop import XWindow, start_window_manager
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - the app's overlay and chat, wired

pytestmark = [pytest.mark.qt, pytest.mark.slow, pytest.mark.gl]


@pytest.fixture(scope="module")
def xd():
    yield from start_window_manager()


def drag(qtbot, overlay, by: QPoint) -> None:  # noqa: ANN001
    view = overlay.view
    start = view.rect().center()
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(view, start + by)
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=start + by)


def test_let_go_over_a_window_she_lands_on_its_top(xd, desktop, qtbot, service):  # noqa: F811
    notes = XWindow(xd, 500, 700, 760, 260, app="notes", title="Notes")
    try:
        life, overlay = desktop.life, desktop.overlay
        assert life.desk.running, life.desk.reason
        assert life.walker is not None and life.walker.enabled  # she may walk on surfaces
        qtbot.waitUntil(lambda: any(w.title == "Notes" for w in life.desk.windows()),
                        timeout=3000)
        top = notes.frame()[1]
        overlay.move(720, 0)
        drag(qtbot, overlay, QPoint(20, 10))
        assert life.placement.busy_reason == "falling"

        def landed():
            assert life.placement.surface is not None
            assert life.placement.surface.wid == notes.win.id
            assert overlay.y() + overlay.height() - overlay.feet_inset() == top
            assert life.placement.busy_reason is None
        qtbot.waitUntil(landed, timeout=5000)
        qtbot.wait(300)  # the landing bounce is over
        with service.db.read_session() as session:
            saved = load_settings(session, AvatarSettings)
        assert tuple(saved.positions.values())[0] == (overlay.x(), overlay.y())
        # her lowest opaque pixel is what stands on the window: not the window's bottom
        assert 0 < overlay.feet_inset() < overlay.height() // 4
        shots = os.environ.get("COMPANION_SHOTS")
        if shots:
            qtbot.wait(500)
            subprocess.run(["import", "-window", "root", f"{shots}/desk_on_window.png"],
                           check=False, timeout=20)

        notes.move(420, 740)  # the window moves: she rides along
        qtbot.waitUntil(lambda: notes.frame()[1] != top, timeout=3000)  # moved by the WM
        qtbot.waitUntil(lambda: overlay.y() + overlay.height() - overlay.feet_inset()
                        == notes.frame()[1], timeout=3000)
        overlay.set_scale(overlay.scale * 0.8)  # scrolled smaller: still standing there
        qtbot.waitUntil(lambda: overlay.y() + overlay.height() - overlay.feet_inset()
                        == notes.frame()[1], timeout=3000)
        assert life.placement.surface.wid == notes.win.id
    finally:
        notes.close()


def test_hiding_for_fullscreen_follows_settings_and_keeps_her_saved_as_shown(
        xd, desktop, qtbot, service):  # noqa: F811
    overlay = desktop.overlay
    video = XWindow(xd, 100, 100, 600, 400, app="mpv", title="A film")
    try:
        video.activate()
        video.fullscreen(True)
        qtbot.waitUntil(lambda: not overlay.isVisible(), timeout=3000)
        overlay.settings_changed.emit()  # anything saved meanwhile keeps her "shown"
        with service.db.read_session() as session:
            assert load_settings(session, AvatarSettings).overlay_visible is True
        with service.db.session() as session:
            save_settings(session, DesktopLifeSettings(never_hide=["mpv"]))
        desktop.settings_applied()
        qtbot.waitUntil(overlay.isVisible, timeout=3000)
        with service.db.session() as session:
            save_settings(session, DesktopLifeSettings(gravity=False, hide_fullscreen=False))
        desktop.settings_applied()
        assert desktop.life.desk.running  # speaking first (on in Dating Sim Mode) waits
        assert desktop.talk.speaker.windows is desktop.life.windows
        assert desktop.life.windows.active_window() == ActiveWindow("mpv", "A film", True)
        with service.db.session() as session:
            save_settings(session, ProactiveSettings(speak_first=False))
        desktop.settings_applied()
        assert not desktop.life.desk.running  # all off: the desktop is not read at all
        assert not desktop.life.walker.enabled  # no gravity, no surface to walk along
        assert desktop.life.windows.active_window() is None
    finally:
        video.close()


def test_the_settings_section_saves_and_explains(qtbot, service):
    from companion_desktop.ui.settings.desktop.page import DesktopPage

    page = DesktopPage(service)
    qtbot.addWidget(page)
    section = page.desktop_life
    assert section.gravity.isChecked() and section.hide_fullscreen.isChecked()
    section.gravity.setChecked(False)
    section.always.setText(" steam,, Zoom , steam\n")
    section.never.setText("mpv")
    page.apply()
    with service.db.read_session() as session:
        saved = load_settings(session, DesktopLifeSettings)
    assert saved.gravity is False and saved.hide_fullscreen is True
    assert saved.always_hide == ["steam", "Zoom"] and saved.never_hide == ["mpv"]
    again = DesktopPage(service)
    qtbot.addWidget(again)
    assert again.desktop_life.always.text() == "steam, Zoom"
    assert not again.desktop_life.gravity.isChecked()
    status = again.desktop_life.status.text()
    if os.environ.get("DISPLAY") and os.environ.get("QT_QPA_PLATFORM", "xcb") == "xcb":
        assert status == "Works on this desktop."
    else:
        assert status.startswith("Not available here:")
