"""The one avatar both windows show: model, runtime, and the frame clock.

``AvatarHost`` owns the loaded model and its ``AvatarRuntime``. One QTimer,
capped at the configured frame rate, advances the runtime while at least one
view is visible; views redraw only when the runtime reports a visible change.
Models load on a worker thread (``load_async``) with progress; a model that fails
to load leaves the last good one in place.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QThread, QTimer, Signal

from companion_desktop.avatar.vrm.frame import Frame, rest_frame
from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model
from companion_desktop.avatar.vrm.model import VrmModel
from companion_desktop.avatar.vrm.relaxed import relaxed_pose
from companion_desktop.avatar.vrm.runtime import AvatarRuntime

IDLE_FPS = 12  # frames a second while she only breathes and blinks
ACTIVE_HOLD_S = 2.5  # full frame rate this long after the last activity


class _Loader(QThread):
    loaded = Signal(object, str)  # VrmModel, path
    failed = Signal(str, str)  # message, path

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def run(self) -> None:
        try:
            model = load_model(self.path)
        except AvatarLoadError as error:
            self.failed.emit(str(error), str(self.path))
        except Exception as error:  # noqa: BLE001 - a bad file must never crash the app
            self.failed.emit(f"{self.path.name} could not be read: {error}", str(self.path))
        else:
            self.loaded.emit(model, str(self.path))


class AvatarHost(QObject):
    """Shared avatar state; views call ``attach``/``detach`` as they show and hide."""

    frame_changed = Signal()
    model_changed = Signal()
    loading = Signal(str)  # a path being loaded
    load_failed = Signal(str)  # the message

    def __init__(self, fps: int = 30, seed: int | None = None, director: object | None = None) -> None:
        super().__init__()
        self.director = director  # avatar.animation.director.Director, or None: relaxed pose
        self.model: VrmModel | None = None
        self.runtime: AvatarRuntime | None = None
        self.frame: Frame | None = None
        self.model_path: str | None = None
        self._rng = random.Random(seed)
        self._views: set[int] = set()
        self._loader: _Loader | None = None
        self._last = time.monotonic()
        self.look_provider: Callable[[], object] | None = None  # a world point, or None
        self._last_look = None
        self._active_until = 0.0
        self._paint_s: dict[int, float] = {}  # per view: smoothed seconds a picture takes
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.tick)
        self.set_fps(fps)

    # ---------------------------------------------------------------- model
    def set_model(self, model: VrmModel, path: str | None = None) -> None:
        self.model = model
        self.model_path = path
        self.runtime = AvatarRuntime(model, self._rng, animation=self.director or relaxed_pose)
        if self.director is not None:
            self.director.bind(self.runtime)
        self.frame = rest_frame(model)
        self._last = time.monotonic()
        self.poke()
        self.model_changed.emit()
        self.tick()

    def play_emote(self, clip: object) -> bool:
        """Play a clip once over her idle (the Animations page's preview)."""
        if self.director is None or self.runtime is None:
            return False
        self.poke(4.0)
        return self.director.play_emote(clip)

    def load_async(self, path: Path | str) -> None:
        """Load ``path`` on a worker thread; ``model_changed`` or ``load_failed`` follows."""
        path = Path(path)
        self.loading.emit(str(path))
        loader = _Loader(path)
        loader.loaded.connect(self._loaded)
        loader.failed.connect(lambda message, _p: self.load_failed.emit(message))
        loader.finished.connect(loader.deleteLater)
        self._loader = loader
        loader.start()

    def load_now(self, path: Path | str) -> None:
        """Load synchronously (start-up and tests); raises AvatarLoadError."""
        self.set_model(load_model(Path(path)), str(path))

    def _loaded(self, model: VrmModel, path: str) -> None:
        self.set_model(model, path)

    # ---------------------------------------------------------------- clock
    def set_fps(self, fps: int) -> None:
        self.fps = max(10, min(60, int(fps)))
        self.timer.setInterval(round(1000 / self.fps))

    def poke(self, seconds: float = ACTIVE_HOLD_S) -> None:
        """Something is happening (pointer, talking, a tap): full frame rate for a while."""
        self._active_until = max(self._active_until, time.monotonic() + seconds)

    def report_paint(self, view: QObject, seconds: float) -> None:
        """A view drew a picture in ``seconds``: slow drawing (software GL) slows the clock."""
        key = id(view)
        previous = self._paint_s.get(key, seconds)
        self._paint_s[key] = 0.8 * previous + 0.2 * seconds

    def _pace(self, now: float) -> None:
        """Idle (only breathing and blinking): drop to IDLE_FPS to spare the CPU. Never ask
        for pictures faster than the views can draw them (the GUI must stay responsive)."""
        fps = self.fps if now < self._active_until else min(self.fps, IDLE_FPS)
        drawing = sum(self._paint_s.get(v, 0.0) for v in self._views)
        interval = max(round(1000 / fps), round(2000 * drawing))
        if self.timer.interval() != interval:
            self.timer.setInterval(interval)

    def attach(self, view: QObject) -> None:
        self._views.add(id(view))
        if not self.timer.isActive():
            self._last = time.monotonic()
            self.timer.start()

    def detach(self, view: QObject) -> None:
        self._views.discard(id(view))
        self._paint_s.pop(id(view), None)
        if not self._views:
            self.timer.stop()

    def tick(self) -> None:
        """Advance the runtime by the real elapsed time (capped) and tell views to redraw."""
        if self.runtime is None:
            return
        now = time.monotonic()
        dt = min(0.1, max(0.0, now - self._last))
        self._last = now
        first = self.frame is None
        if self.look_provider is not None:
            target = self.look_provider()
            if target is not None and (self._last_look is None or
                                       float(np.max(np.abs(target - self._last_look))) > 1e-3):
                self.poke()
            self._last_look = target
            self.runtime.look_at_point(target)
        self._pace(now)
        self.frame = self.runtime.update(dt)
        if first or self.runtime.changed:
            self.frame_changed.emit()
