"""The walker on real Qt timers moving a real overlay-sized window: at least 24 moves a
second while she walks, no frame timer at all while she is idle (one wake-up minutes
away), a stop the moment she is busy or switched off, sitting, and the app's director as
the player. The walking switch in Settings saves."""

from __future__ import annotations

import random
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from companion_desktop.avatar.animation.walk_plan import SIT, WALK, WalkPlan
from companion_desktop.storage.settings import WalkingSettings, load_settings
from companion_desktop.ui.desktop.walker import MOVES_PER_S, DirectorPlayer, Walker

pytestmark = pytest.mark.qt


class WindowPlacement:
    """Stands a real top-level window's bottom centre on a surface."""

    def __init__(self, window: QWidget, span=(100, 1400, 900)) -> None:
        self.window, self.span = window, span
        self.busy_reason: str | None = None
        self.on_window_top = False
        self.calls: list[tuple[float, int]] = []
        self.seat: list[int | None] = []

    def surface_span(self):
        return self.span

    def feet_x(self) -> int:
        return self.window.x() + self.window.width() // 2

    def move_feet_to(self, x: int) -> None:
        self.calls.append((time.monotonic(), x))
        self.window.move(x - self.window.width() // 2, self.span[2] - self.window.height())

    def avatar_height_px(self) -> float:
        return self.window.height() * 0.9

    def set_sitting(self, seat_px):
        self.seat.append(seat_px)


class Recorder:
    """A player that records what it was asked to play."""

    def __init__(self) -> None:
        self.log: list[object] = []
        self.current: str | None = None

    def play(self, clip_id: str) -> bool:
        self.log.append(clip_id)
        self.current = clip_id
        return True

    def stop(self) -> None:
        self.log.append("stop")
        self.current = None

    def face(self, direction: int) -> None:
        self.log.append(("face", direction))


@pytest.fixture
def window(qtbot):
    w = QWidget(None, Qt.WindowType.FramelessWindowHint | Qt.WindowType.Tool)
    w.resize(300, 450)
    w.move(600, 900 - 450)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def soon_plan(**kw) -> WalkPlan:
    return WalkPlan(random.Random(7), interval=kw.pop("interval", (0.05, 0.05)), **kw)


def test_walking_moves_the_window_at_least_24_times_a_second(qtbot, window):
    placement, player = WindowPlacement(window), Recorder()
    walker = Walker(placement, player, time.monotonic, plan=soon_plan(walk_seconds=(30.0, 30.0)))
    walker.start()
    qtbot.waitUntil(lambda: walker.walking, timeout=2000)
    assert player.log[0] == WALK and {("face", 1), ("face", -1)} & set(player.log[1:2])
    start_x, t0 = window.x(), time.monotonic()
    qtbot.wait(1500)
    moves = [c for c in placement.calls if c[0] >= t0 + 0.25]  # the last 1.25 s
    rate = len(moves) / (moves[-1][0] - moves[0][0])
    print(f"moves per second while walking: {rate:.1f}")
    assert rate >= 24.0, rate
    assert walker.frame_timer.interval() == round(1000 / MOVES_PER_S)
    assert window.x() != start_x  # the real window moved
    travelled = abs(moves[-1][1] - moves[0][1]) / (moves[-1][0] - moves[0][0])
    assert travelled == pytest.approx(walker.speed(), rel=0.25)
    assert 50.0 < walker.speed() < 150.0  # a slow stroll for a 405 px tall avatar


def test_idle_has_no_frame_timer_only_a_wake_up_minutes_away(qtbot, window):
    placement, player = WindowPlacement(window), Recorder()
    walker = Walker(placement, player, time.monotonic, random.Random(1))
    walker.start()
    qtbot.wait(300)
    assert not walker.frame_timer.isActive()
    assert walker.wake_timer.isSingleShot() and walker.wake_timer.remainingTime() >= 59_000
    assert placement.calls == [] and player.log == []


def test_a_walk_ends_back_at_idle_with_the_frame_timer_stopped(qtbot, window):
    placement, player = WindowPlacement(window), Recorder()
    plan = soon_plan(walk_seconds=(0.5, 0.5))
    walker = Walker(placement, player, time.monotonic, plan=plan)
    walker.start()
    qtbot.waitUntil(lambda: walker.walking, timeout=2000)
    plan.interval = (120.0, 120.0)  # the next one far away
    qtbot.waitUntil(lambda: not walker.walking, timeout=3000)
    assert player.log[-2:] == ["stop", ("face", 0)] and walker.playing is None
    assert not walker.frame_timer.isActive() and walker.wake_timer.remainingTime() > 100_000


def test_busy_or_switched_off_stops_her_at_once(qtbot, window):
    placement, player = WindowPlacement(window), Recorder()
    walker = Walker(placement, player, time.monotonic, plan=soon_plan(walk_seconds=(30.0, 30.0)))
    walker.start()
    qtbot.waitUntil(lambda: walker.walking, timeout=2000)
    placement.busy_reason = "dragged"
    qtbot.waitUntil(lambda: not walker.walking, timeout=200)
    assert "stop" in player.log
    count = len(placement.calls)
    qtbot.wait(300)
    assert len(placement.calls) == count  # never moved while dragged
    placement.busy_reason = None
    walker.plan.wake_at = 0.0
    walker.tick()
    assert walker.walking
    walker.set_enabled(False)
    assert not walker.frame_timer.isActive() and not walker.wake_timer.isActive()
    assert player.current is None


def test_sitting_lowers_her_by_the_seat_and_only_polls_slowly(qtbot, window):
    placement, player = WindowPlacement(window), Recorder()
    placement.on_window_top = True
    walker = Walker(placement, player, time.monotonic,
                    plan=soon_plan(sit_chance=1.0, sit_seconds=(30.0, 30.0)))
    walker.start()
    qtbot.waitUntil(lambda: walker.playing == SIT, timeout=2000)
    assert placement.seat == [round(0.236 * 405)]
    assert not walker.frame_timer.isActive() and walker.wake_timer.interval() == 500
    placement.busy_reason = "falling"
    qtbot.waitUntil(lambda: walker.playing is None, timeout=1500)
    assert placement.seat[-1] is None and player.log[-1] == "stop"


def test_the_director_as_player_a_turn_ends_the_walk(qtbot, window):
    from companion_desktop.avatar.animation.director import Director
    from companion_desktop.avatar.animation.library import AnimationLibrary

    director = Director(AnimationLibrary(), random.Random(0))
    director.back_to_idle()
    placement = WindowPlacement(window)
    pokes: list[float] = []
    walker = Walker(placement, DirectorPlayer(director, pokes.append), time.monotonic,
                    plan=soon_plan(walk_seconds=(30.0, 30.0)))
    walker.start()
    qtbot.waitUntil(lambda: walker.walking, timeout=2000)
    assert director.moving == WALK and director.mixer.base_clip.id == WALK
    assert abs(director.facing.target) > 0 and pokes
    director.text_started()  # she starts to speak
    qtbot.waitUntil(lambda: not walker.walking, timeout=500)
    assert director.talking and director.mixer.base_clip.id == "talking"
    assert director.facing.target == 0.0


def test_walking_switch_is_on_by_default_and_saves(qtbot, service):
    from companion_desktop.ui.settings.desktop.walking_section import WalkingSection

    section = WalkingSection(service)
    qtbot.addWidget(section)
    assert section.enabled.isChecked() and section.enabled.text().startswith("She walks")
    section.enabled.setChecked(False)
    section.apply()
    with service.db.read_session() as session:
        assert load_settings(session, WalkingSettings).enabled is False
    again = WalkingSection(service)
    qtbot.addWidget(again)
    assert not again.enabled.isChecked()


def test_when_her_surface_moves_under_her_she_walks_on_from_there(qtbot, window):
    placement, player = WindowPlacement(window), Recorder()
    walker = Walker(placement, player, time.monotonic, plan=soon_plan(walk_seconds=(30.0, 30.0)))
    walker.start()
    qtbot.waitUntil(lambda: walker.walking, timeout=2000)
    qtbot.wait(200)
    before, t0 = placement.feet_x(), time.monotonic()
    window.move(window.x() + 80, window.y())  # the window she stands on was dragged
    qtbot.wait(150)
    walked = walker.speed() * (time.monotonic() - t0) + 8
    assert abs(placement.feet_x() - (before + 80)) < walked < 60  # no jump back
