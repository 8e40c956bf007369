"""Her life on a real X11 desktop: openbox manages real windows of another program; she
lands on a window's top, rides along when it moves, falls when it closes or is minimised,
stays inside the work area (above a panel), and hides for a fullscreen window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from tests.ui.desktop.x11_desktop import start_window_manager, windows  # noqa: F401 - a fixture

pytestmark = [pytest.mark.qt, pytest.mark.slow]
INSET = 10  # the test overlay's feet are this far above its bottom


@pytest.fixture(scope="module")
def xd():
    yield from start_window_manager()


@pytest.fixture
def her(qtbot):
    """A frameless, always-on-top tool window standing in for the overlay."""
    widget = QWidget(None, Qt.WindowType.FramelessWindowHint | Qt.WindowType.Tool
                     | Qt.WindowType.WindowStaysOnTopHint)
    widget.resize(200, 300)
    qtbot.addWidget(widget)
    widget.move(300, 40)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture
def placement(xd, her, qtbot):
    from companion_desktop.ui.desktop.placement import Placement
    from companion_desktop.ui.desktop.x11 import DesktopX11

    desk = DesktopX11()
    if not desk.available:
        pytest.skip(desk.reason)
    place = Placement(her, desk, feet_inset=lambda: INSET)
    yield place
    place.set_gravity(False)
    desk.want("gravity", False)


def feet_y(widget) -> int:  # noqa: ANN001
    return widget.y() + widget.height() - INSET


def land_on(qtbot, place, y: int, wid: int | None = None) -> None:  # noqa: ANN001
    def landed():
        assert place.surface is not None and place.busy_reason is None
        assert place.surface.y == y and place.surface.wid == wid
        assert feet_y(place.widget) == y
    qtbot.waitUntil(landed, timeout=5000)


def drop(place, x: int, y: int) -> None:  # noqa: ANN001
    """The user drags her to (x, y) (her window's top-left) and lets go."""
    place.grabbed()
    place.widget.move(x, y)
    place.released()


def test_she_lands_on_a_window_top_rides_along_and_falls_when_it_closes(qtbot, windows,
                                                                    placement, xd):
    win = windows(200, 500, 600, 300, title="Notes")
    qtbot.waitUntil(lambda: win.frame()[1] > 0, timeout=3000)
    placement.set_gravity(True)
    assert placement.desk.running
    qtbot.waitUntil(lambda: any(w.title == "Notes" for w in placement.desk.windows()),
                    timeout=3000)
    left, top, right, _ = win.frame()
    drop(placement, 320, 50)
    land_on(qtbot, placement, top, win.win.id)
    assert left <= placement.widget.x() + 100 < right
    assert placement.surface_span() is not None

    qtbot.wait(100)
    reads = placement.desk.refreshes
    win.move(300, 600)  # she rides along
    qtbot.waitUntil(lambda: win.frame()[1] != top, timeout=3000)
    moved_left, moved_top, _, _ = win.frame()
    land_on(qtbot, placement, moved_top, win.win.id)
    assert placement.widget.x() == 320 + (moved_left - left)
    assert placement.desk.refreshes == reads  # a move is read from its event alone

    win.close()  # and falls to the bottom of the screen when it goes
    bottom = placement.desk.work_areas()[0].bottom
    land_on(qtbot, placement, bottom, None)


def test_she_falls_when_her_window_is_minimised_or_covered(qtbot, windows, placement):
    back = windows(100, 450, 700, 300, title="Back")
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: len(placement.desk.windows()) >= 1, timeout=3000)
    drop(placement, 300, 20)
    top = back.frame()[1]
    land_on(qtbot, placement, top, back.win.id)

    floor = placement.desk.work_areas()[0].bottom
    cover = windows(250, 300, 400, 400, title="Cover")  # opens over the spot she stands on
    land_on(qtbot, placement, floor, None)  # nothing left under her but the floor

    cover.close()
    drop(placement, 300, 20)
    land_on(qtbot, placement, top, back.win.id)
    back.minimise()
    land_on(qtbot, placement, floor, None)


def test_she_stays_inside_the_work_area_above_a_panel(qtbot, windows, placement, xd):
    panel = windows(0, 960, 1600, 40, title="Panel", kind="_NET_WM_WINDOW_TYPE_DOCK")
    panel.strut_bottom(40)
    placement.set_gravity(True)
    screen_h = xd.screen().height_in_pixels
    qtbot.waitUntil(lambda: placement.desk.work_areas()[0].bottom == screen_h - 40,
                    timeout=5000)
    assert all(w.title != "Panel" for w in placement.desk.windows())  # not a surface
    drop(placement, -150, 100)  # partly off the left edge
    land_on(qtbot, placement, screen_h - 40, None)
    assert placement.widget.x() >= 0


def test_a_window_with_its_own_shadow_is_stood_on_at_its_visible_top(qtbot, windows, placement):
    csd = windows(200, 400, 700, 400, title="Shadowed")
    csd.shadow(24)  # set before the desktop is first read
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: any(w.title == "Shadowed" for w in placement.desk.windows()),
                    timeout=3000)
    drop(placement, 400, 20)
    land_on(qtbot, placement, csd.frame()[1] + 24, csd.win.id)
    left = csd.frame()[0]
    reads = placement.desk.refreshes
    csd.move(260, 480)  # riding keeps the shadow out too
    qtbot.waitUntil(lambda: csd.frame()[0] != left, timeout=3000)
    land_on(qtbot, placement, csd.frame()[1] + 24, csd.win.id)
    assert placement.desk.refreshes == reads


def test_her_chat_window_is_a_surface_but_her_overlay_is_not(qtbot, placement):
    chat = QWidget()  # a normal window of this app, like her chat window
    chat.setWindowTitle("Chat")
    chat.setGeometry(250, 520, 700, 300)
    qtbot.addWidget(chat)
    chat.show()
    qtbot.waitExposed(chat)
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: any(w.title == "Chat" for w in placement.desk.windows()),
                    timeout=3000)
    # the frameless tool window standing in for her is not a surface
    assert [w.title for w in placement.desk.windows()] == ["Chat"]
    chat.activateWindow()
    drop(placement, 400, 20)
    top = placement.desk.windows()[0].box.top
    land_on(qtbot, placement, top, placement.desk.windows()[0].wid)
    assert placement.desk.active_window() is None  # her own window: nothing to report


def test_gravity_off_leaves_her_where_she_is_put(qtbot, windows, placement):
    windows(200, 500, 600, 300)
    placement.set_gravity(False)
    assert not placement.desk.running  # nothing reads the desktop
    drop(placement, 320, 50)
    qtbot.wait(700)
    assert placement.widget.pos().toTuple() == (320, 50)
    assert placement.surface is None


def test_she_hides_for_a_fullscreen_window_and_follows_the_app_rules(qtbot, windows, her):
    from companion_desktop.engine.proactive import ActiveWindow
    from companion_desktop.ui.desktop.life import ActiveWindows
    from companion_desktop.ui.desktop.out_of_way import FullscreenGuard
    from companion_desktop.ui.desktop.x11 import DesktopX11

    desk = DesktopX11()
    guard = FullscreenGuard(her, desk)
    guard.configure(True, [], [])
    seen = []
    ActiveWindows(desk, her).active_window_changed.connect(seen.append)
    video = windows(100, 100, 500, 300, app="videoplayer", title="A film")
    video.activate()
    qtbot.waitUntil(lambda: desk.active_window() == ("videoplayer", "A film", False),
                    timeout=3000)
    assert her.isVisible()
    qtbot.wait(100)
    reads = desk.refreshes
    video.retitle("A film - 0:42")  # a player's title ticking: only that title is read again
    qtbot.waitUntil(lambda: desk.active_window() == ("videoplayer", "A film - 0:42", False),
                    timeout=3000)
    assert desk.refreshes == reads
    video.fullscreen(True)
    qtbot.waitUntil(lambda: not her.isVisible(), timeout=3000)
    assert guard.hiding and desk.active_window()[2] is True
    assert seen[-1] == ActiveWindow("videoplayer", "A film - 0:42", fullscreen=True)
    video.fullscreen(False)
    qtbot.waitUntil(her.isVisible, timeout=3000)

    guard.configure(True, [], ["VideoPlayer"])  # never hide for it (any case)
    video.fullscreen(True)
    qtbot.waitUntil(lambda: desk.active_window() is not None and desk.active_window()[2],
                    timeout=3000)
    qtbot.wait(200)
    assert her.isVisible()

    video.fullscreen(False)
    editor = windows(300, 300, 400, 300, app="editor", title="Draft")
    guard.configure(True, ["editor"], [])  # always hide while the editor is active
    editor.activate()
    qtbot.waitUntil(lambda: not her.isVisible(), timeout=3000)
    video.activate()  # another, not fullscreen: she is back
    qtbot.waitUntil(her.isVisible, timeout=3000)
    guard.configure(False, [], [])
    assert not desk.running  # nothing wants the desktop any more


def test_without_x11_everything_stays_as_it_was(qtbot, her, monkeypatch):
    from companion_desktop.ui.desktop import x11 as desktop_x11
    from companion_desktop.ui.desktop import x11_probe
    from companion_desktop.ui.desktop.placement import Placement

    monkeypatch.delenv("DISPLAY", raising=False)
    reason = x11_probe.x11_unavailable_reason()
    assert reason in ("There is no X11 display.",
                      f"The app is not drawing on an X11 display here ({qt_platform()}).")
    desk = desktop_x11.DesktopX11()
    place = Placement(her, desk, feet_inset=lambda: INSET)
    place.set_gravity(True)
    assert not desk.running and not place.active
    her.move(320, 50)
    place.released()
    assert her.pos().toTuple() == (320, 50)
    assert desk.active_window() is None


def test_she_comes_back_when_her_screen_goes_away(qtbot, placement):
    """A screen that went away leaves her where no screen is: she comes back onto the
    nearest one, with gravity onto its floor, without it inside the work area."""
    placement.set_gravity(False)
    placement.widget.move(2600, 300)  # where a second monitor was
    placement.screens_changed()
    geometry = placement.widget.geometry()
    screen = placement.widget.screen().availableGeometry()
    assert screen.contains(geometry.center())
    placement.set_gravity(True)
    placement.widget.move(2600, 300)
    placement.screens_changed()
    land_on(qtbot, placement, placement.desk.work_areas()[0].bottom, None)
    geometry = placement.widget.geometry()
    assert screen.left() <= geometry.left() and geometry.right() <= screen.right()


def qt_platform() -> str:
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication.platformName()


class Player:
    """The walker's player, recording what it was asked to play."""

    def __init__(self) -> None:
        self.played: list[str] = []
        self.current: str | None = None
        self.busy_reason = None

    def play(self, clip_id: str) -> bool:
        self.played.append(clip_id)
        self.current = clip_id
        return True

    def stop(self) -> None:
        self.current = None


def walker_for(placement, **plan):  # noqa: ANN001, ANN003, ANN201
    import random

    from companion_desktop.avatar.animation.walk_plan import WalkPlan
    from companion_desktop.ui.desktop.walker import Walker

    walk = WalkPlan(random.Random(3), interval=(0.05, 0.05), walk_seconds=(1.0, 1.0), **plan)
    walker = Walker(placement, Player(), plan=walk, parent=placement)
    placement.avatar_height = lambda: 280
    return walker


def test_she_walks_along_the_window_top_she_stands_on(qtbot, windows, placement):
    win = windows(200, 500, 700, 300, title="Long")
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: len(placement.desk.windows()) == 1, timeout=3000)
    drop(placement, 400, 20)
    top = win.frame()[1]
    land_on(qtbot, placement, top, win.win.id)
    walker = walker_for(placement, sit_chance=0.0)
    start = placement.feet_x()
    walker.start()
    qtbot.waitUntil(lambda: abs(placement.feet_x() - start) > 20, timeout=5000)
    assert walker.player.played[0] == "walk"
    left, _, right, _ = win.frame()
    assert left <= placement.feet_x() < right and feet_y(placement.widget) == top
    drop(placement, 600, 20)  # picked up: she stops walking
    assert placement.busy_reason is None or placement.busy_reason == "falling"
    walker.set_enabled(False)


def test_she_sits_on_the_edge_and_rides_along_seated(qtbot, windows, placement):
    win = windows(200, 500, 700, 300, title="Seat")
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: len(placement.desk.windows()) == 1, timeout=3000)
    drop(placement, 400, 20)
    land_on(qtbot, placement, win.frame()[1], win.win.id)
    assert placement.on_window_top
    walker = walker_for(placement, sit_chance=1.0, sit_seconds=(30.0, 30.0))
    walker.start()
    qtbot.waitUntil(lambda: walker.player.current == "sit", timeout=5000)
    seat = placement.seat
    assert seat > 0  # seated at once, or when her landing bounce ends
    qtbot.waitUntil(lambda: feet_y(placement.widget) == win.frame()[1] + seat, timeout=3000)
    win.move(260, 560)
    qtbot.waitUntil(lambda: win.frame()[1] == 560, timeout=3000)  # the window manager moved it
    qtbot.waitUntil(lambda: feet_y(placement.widget) == 560 + seat, timeout=3000)
    placement.set_gravity(True)  # settings applied again: she stays seated where she is
    assert placement.surface.wid == win.win.id and placement.busy_reason is None
    assert placement.seat == seat and feet_y(placement.widget) == win.frame()[1] + seat
    walker.set_enabled(False)
    assert placement.seat == 0 and feet_y(placement.widget) == win.frame()[1]


def test_seated_during_her_landing_bounce_she_stays_seated(qtbot, windows, placement):
    """The walker may seat her while she still bounces from a fall: the bounce ends seated."""
    win = windows(200, 500, 700, 300, title="Bounce")
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: len(placement.desk.windows()) == 1, timeout=3000)
    drop(placement, 400, 20)
    top = win.frame()[1]
    qtbot.waitUntil(lambda: placement.surface is not None and placement._fall is not None,
                    timeout=5000)  # down on the edge, still bouncing
    placement.set_sitting(40)
    qtbot.waitUntil(lambda: placement._fall is None, timeout=5000)
    assert feet_y(placement.widget) == top + 40


def test_the_desktop_changing_elsewhere_does_not_restart_her_fall(qtbot, windows, placement):
    """Desktop events during a fall (another window opening, a title) keep the fall going;
    restarting it at every event could keep her in the air."""
    win = windows(200, 500, 700, 300, title="Below")
    placement.set_gravity(True)
    qtbot.waitUntil(lambda: len(placement.desk.windows()) == 1, timeout=3000)
    drop(placement, 400, 20)
    assert placement.busy_reason == "falling"
    started = placement._fall[2]
    windows(1200, 100, 200, 150, title="Elsewhere")  # not under her
    for _ in range(5):
        placement._desk_changed()
    assert placement._fall is None or placement._fall[2] == started
    land_on(qtbot, placement, win.frame()[1], win.win.id)
