"""The one avatar both windows show: model, runtime, the frame clock and her pictures.

``AvatarHost`` owns the loaded model and its ``AvatarRuntime``. One precise QTimer
advances the runtime while at least one view is visible and exposed. A showing view
gets a new picture only when the frame moves what it shows by half a pixel or more
(``avatar.render.change.PictureGate``); then one offscreen OpenGL context
(``AvatarGL``) draws it and hands it over (``view.set_picture``). Nothing is drawn for a hidden,
minimised or fully covered view; while no view shows, her clock stands still (the timer
only looks twice a second whether one shows again), and it stops with the last view.

Pacing: ``fps`` (Settings > Display, 10-60) while something happens (pointer,
talking, a tap), ``IDLE_FPS`` while she only breathes and moves through her idle
clips: enough for smooth motion, at a fraction of the cost. When pictures take
longer than the frame interval (slow software GL), the clock stretches to what the
machine can draw instead of queueing work.

Models load on a worker thread (``load_async``) with progress; a model that fails to
load leaves the last good one in place. A load asked for while another runs supersedes
it: the latest request wins, the older thread runs to its end (a running thread is
never dropped) and its result is ignored. ``COMPANION_FRAME_STATS`` names a file where
the host appends, once a second, a JSON line of how many pictures it has produced
(for ``companion-desktop bench``). Once a quit signal came nothing more is drawn (her
first picture, textures uploading one at a time, stops there: the quit goes ahead).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal

from companion_desktop.avatar.render.camera import view_within
from companion_desktop.avatar.render.change import PictureGate
from companion_desktop.avatar.vrm.frame import Frame, rest_frame
from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model
from companion_desktop.avatar.vrm.model import VrmModel
from companion_desktop.avatar.vrm.relaxed import relaxed_pose
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.ui.frame_stats import note, stats_path
from companion_desktop.ui.shutdown import quit_requested

log = logging.getLogger(__name__)
IDLE_FPS = 24  # frames a second while she only breathes, blinks and idles
ACTIVE_HOLD_S = 2.5  # full frame rate this long after the last activity
HIDDEN_POLL_MS = 500  # while every view is attached but unseen: look again this often
#: A view shows a part of another view's picture when its own framing is at least this
#: share of its size there. Then it shows her at that picture's scale, never enlarged:
#: between this and 1 it shows a little more of her (her head where its framing puts it,
#: more of her below); from 1 up, its own framing, scaled down.
SHARE_MIN_SCALE = 0.75


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

    def __init__(self, fps: int = 30, seed: int | None = None, director: object | None = None,
                 samples: int = 4, aa: str | None = None) -> None:
        super().__init__()
        self.director = director  # avatar.animation.director.Director, or None: relaxed pose
        self.samples = samples  # multisampling of her pictures (0 on software GL)
        self.aa = aa  # msaa, lines (software GL; post without compute shaders), post, none;
        # None: msaa with ``samples``
        self.model: VrmModel | None = None
        self.runtime: AvatarRuntime | None = None
        self.frame: Frame | None = None
        self.model_path: str | None = None
        self.gl = None  # AvatarGL, made on the first picture
        self.gl_error: str | None = None
        self.pictures = 0  # pictures produced (ticks that drew at least one view)
        self.ticks = 0  # frames evaluated while a view showed (motion updates)
        self._rng = random.Random(seed)
        self._views: list[object] = []
        self._loaders: set[_Loader] = set()  # every thread still loading (kept until done)
        self._latest: _Loader | None = None  # the one whose result counts
        self._last = time.monotonic()
        #: A world point to look at, or None; called every tick. It calls ``poke`` when
        #: what it follows moves (the pointer), not when its point does: the point may
        #: move with her own sway, which is no reason for the full frame rate.
        self.look_provider: Callable[[], object] | None = None
        self._active_until = 0.0
        self._draw_s = 0.0  # smoothed seconds a tick spends drawing (averaged over all ticks)
        self.gate = PictureGate()  # draws only frames that change a picture visibly
        self.share = True  # a view may show a crop of another's picture (see _shares)
        self._crops: dict[tuple, tuple[float, float, float, float] | None] = {}
        self._following: set[int] = set()  # ids of views showing another's picture now
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self.tick)
        self.set_fps(fps)
        self._stats_path = stats_path()
        if self._stats_path:
            self._stats = QTimer(self, interval=1000, timeout=self._write_stats)
            self._stats.start()

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
        self.tick(force=True)

    def play_emote(self, clip: object) -> bool:
        """Play a clip once over her idle (the Animations page's preview)."""
        if self.director is None or self.runtime is None:
            return False
        self.poke(4.0)
        return self.director.play_emote(clip)

    def load_async(self, path: Path | str) -> None:
        """Load ``path`` on a worker thread; ``model_changed`` or ``load_failed`` follows,
        unless a later ``load_async`` came first (then only the later one reports)."""
        path = Path(path)
        self.loading.emit(str(path))
        if self._stats_path:  # bench and tests see when a load began
            note(self._stats_path, "model_loading", model=str(path))
        loader = _Loader(path)
        loader.loaded.connect(self._loaded)  # queued to this (the GUI) thread
        loader.failed.connect(self._failed)
        loader.finished.connect(self._loader_done)
        self._loaders.add(loader)
        self._latest = loader
        loader.start()

    @property
    def loading_now(self) -> bool:
        """A load asked for last is still running."""
        return self._latest is not None

    def _loaded(self, model: VrmModel, path: str) -> None:
        if quit_requested():
            return  # her first picture would only delay the quit
        if self.sender() is self._latest:
            self._latest = None
            self.set_model(model, path)

    def _failed(self, message: str, _path: str) -> None:
        if self.sender() is self._latest:
            self._latest = None
            self.load_failed.emit(message)

    def _loader_done(self) -> None:
        """A loading thread has ended: now it may go (deleted later, on this thread)."""
        loader = self.sender()
        if loader in self._loaders and loader.wait(1000):  # finished: it is ending now
            self._loaders.discard(loader)
            loader.deleteLater()

    def loaders(self) -> list[QThread]:
        """The loading threads still kept (running, or ended and not yet let go)."""
        return list(self._loaders)

    def wait_loaders(self, wait_ms: int) -> bool:
        """Wait at most ``wait_ms`` for every loading thread (at quit); True when none
        runs any more. A model load cannot be interrupted: one still running is kept."""
        end = time.monotonic() + max(0, wait_ms) / 1000
        self._latest = None  # nothing loaded from now on is shown
        for loader in list(self._loaders):
            if not loader.wait(max(0, round(1000 * (end - time.monotonic())))):
                return False
        return True

    def load_now(self, path: Path | str) -> None:
        """Load synchronously (start-up and tests); raises AvatarLoadError."""
        self.set_model(load_model(Path(path)), str(path))

    # ---------------------------------------------------------------- clock
    def set_fps(self, fps: int) -> None:
        self.fps = max(10, min(60, int(fps)))
        self.timer.setInterval(round(1000 / self.fps))

    def poke(self, seconds: float = ACTIVE_HOLD_S) -> None:
        """Something is happening (pointer, talking, a tap): full frame rate for a while."""
        self._active_until = max(self._active_until, time.monotonic() + seconds)

    def _pace(self, now: float) -> None:
        """Full rate while active, IDLE_FPS otherwise; drawing never takes more than half
        of the GUI thread's time (keeps it responsive on slow software GL)."""
        fps = self.fps if now < self._active_until else min(self.fps, IDLE_FPS)
        interval = max(1000 // fps, round(2000 * self._draw_s))  # at least fps a second
        current = self.timer.interval()
        if abs(interval - current) > max(2, 0.1 * current):  # setInterval restarts the timer
            self.timer.setInterval(interval)

    def attach(self, view: QObject) -> None:
        if view not in self._views:
            self._views.append(view)
        if not self.timer.isActive():
            self._last = time.monotonic()
            self.timer.start()
        view.picture_wanted = True

    def detach(self, view: QObject) -> None:
        if view in self._views:
            self._views.remove(view)
        if self.gl is not None:
            self.gl.forget(id(view))
        self.gate.forget(id(view))
        if not self._views:
            self.timer.stop()

    def showing(self) -> list[object]:
        """Views whose pictures someone can see now (visible, exposed, not covered)."""
        return [v for v in self._views if v.is_showing()]

    def tick(self, force: bool = False) -> None:
        """Advance the runtime by the real elapsed time (capped); draw the showing views
        when the frame changed (or a view needs its first picture)."""
        if self.runtime is None or quit_requested():
            return
        now = time.monotonic()
        showing = self.showing()
        if not showing and not force:  # minimised or covered: nobody sees her, nothing runs
            self._last = now
            if self.timer.interval() != HIDDEN_POLL_MS:
                self.timer.setInterval(HIDDEN_POLL_MS)
            return
        dt = min(0.1, max(0.0, now - self._last))
        self._last = now
        if self.look_provider is not None:  # (it pokes when the pointer moves)
            self.runtime.look_at_point(self.look_provider())
        self.frame = self.runtime.update(dt)
        changed = force or self.runtime.changed
        self.ticks += 1
        shares = self._shares(showing)
        views = [v for v in showing if v not in shares
                 and (v.picture_wanted or (changed and self._moved(v)))]
        for follower, (source, _rect) in shares.items():
            if follower.picture_wanted and source not in views:
                views.append(source)  # a follower's first picture: its source draws now
        started = time.perf_counter()
        if views:
            self._draw(views, shares)
        # average drawing time per tick (0 for ticks that drew nothing): the duty cycle
        self._draw_s = 0.9 * self._draw_s + 0.1 * (time.perf_counter() - started)
        self._pace(now)
        if changed:
            self.frame_changed.emit()

    def _moved(self, view) -> bool:  # noqa: ANN001
        """The frame differs visibly from the picture ``view`` shows (``PictureGate``)."""
        camera = view.render_camera()
        if camera is None:
            return False
        width, height = view.picture_size()
        return self.gate.changed(id(view), self.frame, camera, width, height)

    def _shares(self, showing: list[object]) -> dict:
        """{follower: (source, crop)}: showing views that show a crop of another showing
        view's picture instead of a picture of their own. The chat portrait (hips up) is a
        part of the overlay's whole-body picture, at about the same scale, when both show:
        one render serves both windows. A view with its own camera (photo mode) or a
        source with a background never shares; neither does a crop that would be enlarged
        by more than 1 / SHARE_MIN_SCALE (a small overlay: the portrait draws itself)."""
        shares: dict = {}
        if self.share:
            sources = [v for v in showing if v.shot == "full" and v.background is None
                       and v.camera_override is None]
            for view in showing:
                if view in sources or view.shot != "upper" or view.camera_override is not None:
                    continue
                for source in sources:
                    rect = self._crop(source, view)
                    if rect is not None:
                        shares[view] = (source, rect)
                        break
        following = {id(v) for v in shares}
        for view in showing:
            if id(view) in self._following - following:
                view.picture_wanted = True  # back to pictures of its own
        self._following = following
        return shares

    def _crop(self, source, view) -> tuple[float, float, float, float] | None:  # noqa: ANN001
        outer, inner = source.render_camera(), view.render_camera()
        if outer is None or inner is None:
            return None
        outer_size, inner_size = source.picture_size(), view.picture_size()
        key = (id(outer), id(inner), outer_size, inner_size)
        if key not in self._crops:
            if len(self._crops) > 16:
                self._crops.clear()
            self._crops[key] = _unenlarged(view_within(outer, outer_size, inner, inner_size),
                                           outer_size, inner_size)
        return self._crops[key]

    def _draw(self, views: list[object], shares: dict | None = None) -> None:
        if self.gl is None and self.gl_error is None:
            from companion_desktop.ui.avatar.gl import AvatarGL

            try:
                self.gl = AvatarGL(self.samples, self.aa)
            except Exception as error:  # noqa: BLE001 - no GL 3.3: say so, keep the app running
                self.gl_error = f"Her 3D view needs OpenGL 3.3: {error}"
                log.warning(self.gl_error)
        if self.gl is not None and not self.gl.prepare(self.model, stop=quit_requested):
            return  # a quit came while her textures were being uploaded
        drew = False
        for view in views:
            if self.gl is None:
                view.set_picture(None, self.gl_error)
                continue
            width, height = view.picture_size()
            camera = view.render_camera()
            if camera is None:
                continue
            wanted, view.picture_wanted = view.picture_wanted, False
            try:
                pixels = self.gl.picture(id(view), self.model, self.frame, camera, width, height,
                                         view.background, same_frame=drew)
            except Exception as error:  # noqa: BLE001 - a driver error must not kill the app
                log.warning("drawing her failed: %s", error)
                view.set_picture(None, f"Her 3D view failed: {error}")
                continue
            if wanted:  # drawn on request: record what it shows
                self.gate.changed(id(view), self.frame, camera, width, height)
            self.gate.shown(id(view))
            view.set_picture(pixels)
            for follower, (source, rect) in (shares or {}).items():
                if source is view:
                    follower.picture_wanted = False
                    follower.set_picture(pixels, crop=rect)
            drew = True
        if drew:
            self.pictures += 1

    def _write_stats(self) -> None:
        """One JSON line: pictures and motion updates so far, the largest on-screen step
        between two pictures in the last second (pixels), the steps so far and how many
        of them were over ``SMOOTH_STEP`` pixels, drawing time, views."""
        note(self._stats_path, "frames", pictures=self.pictures, ticks=self.ticks,
             largest_step_px=round(self.gate.largest_step, 3), steps=self.gate.steps,
             steps_over=self.gate.steps_over, views=len(self.showing()),
             draw_ms=round(1000 * self._draw_s, 2), interval_ms=self.timer.interval())
        self.gate.largest_step = 0.0

    def release(self) -> None:
        """Free the GL context (at quit)."""
        self.timer.stop()
        if self.gl is not None:
            self.gl.release()
            self.gl = None


def _unenlarged(rect: tuple[float, float, float, float] | None, outer: tuple[int, int],
                inner: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """The part of a picture of size ``outer`` that a view of size ``inner`` shows, given
    where its own framing lies (``rect``): that framing when it is at least the view's
    size; when smaller (down to SHARE_MIN_SCALE), a rectangle of the view's size, centred
    across and starting at the framing's top, moved inside the picture; else None."""
    if rect is None:
        return None
    x, y, width, height = rect
    if width >= inner[0]:
        return rect
    if width < SHARE_MIN_SCALE * inner[0] or inner[0] > outer[0] or inner[1] > outer[1]:
        return None
    x = min(max(0, round(x + (width - inner[0]) / 2)), outer[0] - inner[0])
    y = min(max(0, round(y)), outer[1] - inner[1])  # whole pixels: copied as they are
    return (float(x), float(y), float(inner[0]), float(inner[1]))

