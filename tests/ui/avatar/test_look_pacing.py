"""Her eyes follow the pointer without keeping the app at its full frame rate: only a
pointer that moves counts as activity, not a look target that moves with her own sway
(which kept the idle app at 30 updates a second instead of 24)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QWidget

from companion_desktop.resources import default_avatar_path
from companion_desktop.ui.avatar import view as view_module
from companion_desktop.ui.avatar.host import IDLE_FPS, AvatarHost
from companion_desktop.ui.avatar.view import AvatarView


@pytest.fixture
def host(qtbot) -> AvatarHost:  # noqa: ARG001 - a QApplication first
    made = AvatarHost(fps=30, seed=1)
    made.load_now(default_avatar_path())
    made.timer.stop()  # ticked by hand
    yield made
    made.release()


def tick(host: AvatarHost, times: int = 3) -> None:
    for _ in range(times):
        host._last -= 1 / 30
        host.tick(force=True)


def test_a_look_target_that_moves_by_itself_lets_her_idle(host: AvatarHost) -> None:
    targets = iter(np.array([0.05 * i, 1.4, 2.0]) for i in range(100))
    host.look_provider = lambda: next(targets)
    host._active_until = 0.0
    host.timer.setInterval(round(1000 / host.fps))
    tick(host)
    assert host.timer.interval() == 1000 // IDLE_FPS  # 24 updates a second at least
    host.poke()  # activity: the full rate again
    tick(host)
    assert host.timer.interval() == 1000 // host.fps


class _Cursor:
    """Where the pointer is (the view reads ``QCursor.pos()``)."""

    at = QPoint(100, 100)

    @classmethod
    def pos(cls) -> QPoint:
        return QPoint(cls.at)


def _view(host: AvatarHost, qtbot, monkeypatch) -> tuple[QWidget, AvatarView]:  # noqa: ANN001
    """A full-shot view of ``host`` on a 340x486 widget (kept by the caller), the pointer
    read from ``_Cursor``."""
    monkeypatch.setattr(view_module, "QCursor", _Cursor)
    widget = QWidget()
    qtbot.addWidget(widget)
    widget.resize(340, 486)
    view = AvatarView(host, "full", widget)
    view.setGeometry(0, 0, 340, 486)
    assert view.render_camera() is not None
    return widget, view


def test_only_a_moving_pointer_keeps_her_active(host: AvatarHost, qtbot, monkeypatch) -> None:
    _widget, view = _view(host, qtbot, monkeypatch)
    first = view.pointer_target()  # the first look: the pointer is news
    assert first is not None and host._active_until > 0
    host._active_until = 0.0
    tick(host, 5)  # she moves; the pointer does not
    still = view.pointer_target()
    assert host._active_until == 0.0
    _Cursor.at = QPoint(160, 100)
    moved = view.pointer_target()
    assert host._active_until > 0.0
    assert float(np.linalg.norm(moved - still)) > 0.01  # her eyes follow it


def test_a_still_pointer_is_a_still_point_in_her_world(host: AvatarHost, qtbot,
                                                       monkeypatch) -> None:
    """Her look target is worked out again only when the pointer moves over the view,
    the view is resized or gets a new camera; while she sways it stays where it was."""
    _Cursor.at = QPoint(120, 90)
    _widget, view = _view(host, qtbot, monkeypatch)
    calls = []
    worked_out = view.look_target
    monkeypatch.setattr(view, "look_target", lambda pos: calls.append(pos) or worked_out(pos))
    first = view.pointer_target()
    head = view.head_point().copy()
    tick(host, 8)  # she sways; the pointer stays
    assert float(np.linalg.norm(view.head_point() - head)) > 1e-5
    assert view.pointer_target() is first and len(calls) == 1
    _Cursor.at = QPoint(121, 90)  # one pixel is news
    assert float(np.linalg.norm(view.pointer_target() - first)) > 1e-4 and len(calls) == 2
    view.camera = None  # a new framing (a resize or another model)
    assert view.render_camera() is not None
    view.pointer_target()
    assert len(calls) == 3
    view.setGeometry(0, 0, 300, 486)  # another size: the same pointer maps elsewhere
    view.render_camera()
    view.pointer_target()
    assert len(calls) == 4
