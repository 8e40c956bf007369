"""Composition root: opens storage, builds services, wires the windows."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from datetime import datetime

#: Set to 1 to skip the first-run welcome (tests, scripted screenshots).
NO_WELCOME_ENV = "COMPANION_NO_WELCOME"


def run_gui(data_dir: str | None, fixed_now: datetime | None = None,
            end_process: bool = False) -> int:
    """Start the app and run it until she quits; its exit code. ``fixed_now`` pins the
    clock (``--now``); otherwise the real one. ``end_process``: the process is the app's
    own (the command line): a quit signal before anything is open ends it at once, and
    once everything is closed it ends without the interpreter's teardown of every module."""
    from companion_desktop.ui import shutdown  # no Qt in it: signals count from here

    previous = shutdown.watch_quit_signals(end_process)
    try:
        code = _run_gui(data_dir, fixed_now)
    finally:
        if not end_process:  # the app's own process keeps them to its end
            shutdown.restore_quit_signals(previous)
    if end_process:
        shutdown.end_process(code)
    return code


def _run_gui(data_dir: str | None, fixed_now: datetime | None) -> int:
    from PySide6.QtWidgets import QApplication

    from companion_desktop.storage.paths import resolve_data_dir
    from companion_desktop.ui.shutdown import holding, install_quit_signals, quit_requested
    from companion_desktop.ui.single_instance import bring_forward, claim

    folder = resolve_data_dir(data_dir)
    app = QApplication.instance()
    if app is None:
        choice = _choose_platform(folder)  # before Qt starts: it cannot change afterwards
        app = QApplication(sys.argv)
        _platform_chosen(app, choice)
    app.setApplicationName("companion-desktop")
    app.setApplicationDisplayName("companion-desktop")
    from companion_desktop.desktop_entry import APP_ID
    from companion_desktop.ui.app_icon import app_icon

    app.setDesktopFileName(APP_ID)  # Wayland's app id: the menu entry and its icon
    app.setWindowIcon(app_icon())
    install_quit_signals(app)
    if quit_requested():
        return 0  # before anything was opened
    holding()  # from here a quit signal is noted: what is opened is closed first
    instance = claim(folder)
    if instance is None:
        return 0  # she already runs on this folder: that app came forward
    first = _first_window(folder)  # before storage and the pipeline are imported
    try:
        return _open_and_run(app, folder, instance, first, fixed_now, bring_forward)
    finally:
        if first is not None:
            first.go()


def _choose_platform(folder):  # noqa: ANN001, ANN202
    """Qt's platform for this start (``ui.start.session``): XWayland in a Wayland session unless
    Settings > Display > "Use native Wayland windows" is on (read from the file: storage
    is not open yet)."""
    from companion_desktop.storage.quick_read import setting
    from companion_desktop.ui.start import session

    return session.apply(setting(folder, "display", "native_wayland", False) is True)


def _platform_chosen(app, choice) -> None:  # noqa: ANN001
    """Notes the platform Qt started on (``COMPANION_FRAME_STATS``) and, on native
    Wayland, drops Qt's warnings about what Wayland refuses (said once in Settings)."""
    from companion_desktop.ui.frame_stats import note, stats_path
    from companion_desktop.ui.start import session

    session.quiet_repeated_warnings()
    path = stats_path()
    if path:
        note(path, "platform", name=app.platformName(), why=choice.why,
             asked=choice.platform or os.environ.get(session.PLATFORM_ENV, ""))


def _first_window(folder):  # noqa: ANN001, ANN202
    """The chat window's frame (``ui.start.first_window``), shown and painted now, unless
    Settings > Display starts her hidden; None then."""
    from companion_desktop.storage.quick_read import setting

    if setting(folder, "display", "start_hidden", "no") != "no":
        return None
    from companion_desktop.ui.start.first_window import FirstWindow

    first = FirstWindow()
    _report_when_shown(first)
    first.show()
    _paint_now(first)
    return first


def _open_and_run(app, folder, instance, first, fixed_now, bring_forward) -> int:  # noqa: ANN001, C901, PLR0915
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.pipeline.facts import FactService
    from companion_desktop.pipeline.memory import FactMemory
    from companion_desktop.pipeline.tool_access import ToolAccess
    from companion_desktop.storage.db import Database, StorageError
    from companion_desktop.storage.settings import DisplaySettings, LlmSettings, load_settings
    from companion_desktop.ui.chat import (
        ChatBackend,  # no Qt in it
        ChatWindow,
    )
    from companion_desktop.ui.memory_worker import MemoryWorker
    from companion_desktop.ui.shutdown import quit_requested

    def clock() -> datetime:
        return fixed_now or datetime.now().astimezone()

    try:
        db = Database.open(folder)
    except StorageError as exc:
        instance.release()
        QMessageBox.critical(None, "companion-desktop", str(exc))
        return 1
    service = CompanionService(db)
    try:
        service.load(clock())  # first run: she is created (and decay resolved) before any window
        with db.read_session() as session:
            settings = load_settings(session, LlmSettings)
            display = load_settings(session, DisplaySettings)
    except StorageError as exc:
        QMessageBox.critical(None, "companion-desktop", str(exc))
        db.close()
        instance.release()
        return 1
    if quit_requested():  # during the steps above: no window, nothing else to close
        db.close()
        instance.release()
        return 0
    if display.yield_cpu:
        from companion_desktop.llm.mind.host import HOST

        HOST.prepare()  # her own mind is launched from a thread made before: it keeps priority
        yield_cpu()  # before her render, memory and turn threads start: they inherit it
    late: dict[str, object] = {}  # made after the window's first paint: animations, host

    def enabled_animations() -> list[tuple[str, str]]:
        animations = late.get("animations")
        return animations.enabled_for_prompt() if animations is not None else []

    facts = FactService(db)
    service.facts = facts  # the Memory page and the turn pipeline share one index
    tools = ToolAccess(db)  # MCP servers connect on first use, stay up until quit
    backend = ChatBackend(service, clock, animations=enabled_animations,
                          memory=FactMemory(facts), tools=tools)
    memory_worker = MemoryWorker(facts)
    memory_timer = QTimer(singleShot=True, interval=MEMORY_DELAY_MS)
    memory_timer.timeout.connect(memory_worker.restart)
    code = 1
    try:
        if not settings.provider and os.environ.get(NO_WELCOME_ENV) != "1":
            from companion_desktop.ui.settings.welcome import WelcomeDialog

            WelcomeDialog(service).exec()
        backend.connect()
        window = ChatWindow(service, clock, backend, avatar_later=True)
        window.backend_changed.connect(tools.forget)  # Settings > Tools may have changed
        window.memory_worker = memory_worker
        instance.activated.connect(lambda: bring_forward(window))

        def finish_start() -> Iterator[None]:
            """After the window's first picture, one part per turn of the event loop (a
            quit between parts goes ahead): her (the GL probe, the animation library, the
            host loading her model), the overlay, tray, voice and reminders."""
            software = _software_gl()  # every picture costs CPU there: edge lines, no MSAA
            yield
            animations = late["animations"] = _animations(db, service)
            yield
            host = _avatar_host(db, animations, aa="lines" if software else "msaa")
            late["host"] = host
            window.set_host(host)
            yield
            _prune_keepsakes(db)
            from companion_desktop.storage.backup import start_daily_backup

            start_daily_backup(db.path.parent)  # at most one a day, on its own thread
            for name in DESKTOP_IMPORTS:  # a second or more on a busy machine: in parts
                yield
                importlib.import_module(name)
            from companion_desktop.llm.neural_voice.speaking import configure as voice_home

            voice_home(db.path.parent)  # her natural voice's model cache and added voices
            from companion_desktop.ui.desktop import Desktop

            desktop = Desktop(service, host, window, backend)
            window.backend_changed.connect(desktop.rewire)
            window.backend_changed.connect(desktop.settings_applied)
            window.desktop = desktop
            if show_overlay:
                desktop.overlay.show()

        from PySide6.QtWidgets import QSystemTrayIcon

        from companion_desktop.desktop_entry import start_windows

        show_chat, show_overlay = start_windows(  # Settings > Display > At start
            display.start_hidden, _overlay_visible(db), QSystemTrayIcon.isSystemTrayAvailable())
        if show_chat:
            if first is not None:
                first.hand_over(window)  # the chat window takes its place, then it goes
                _after_first_paint(window, first.go)
            window.show()
            _report_when_shown(window, "chat_shown")
            _after_first_paint(window, lambda: _in_turns(window, finish_start()))
        else:
            if first is not None:  # the file said otherwise than storage: storage wins
                first.go()
            _in_turns(window, finish_start())
        memory_timer.start()  # the model loads once the window is up
        code = 0 if quit_requested() else app.exec()
        return code
    finally:
        memory_timer.stop()
        left = _shut_down(late.get("host"), memory_worker, backend, tools, db)
        instance.release()
        from companion_desktop.ui.shutdown import keep_running

        keep_running(code, left)


def _shut_down(host, memory_worker, backend, tools, db) -> list[tuple[str, object]]:  # noqa: ANN001
    """Stop everything within QUIT_WAIT_S and close the database; the threads still
    running (steps that cannot be interrupted), with their names."""
    from companion_desktop.ui.shutdown import (
        LOAD_WAIT_MS,
        Deadline,
        PoolThreads,
        drain_pool,
        interrupt_tools,
    )

    deadline = Deadline()
    if backend.controller is not None:  # everyone is asked first, then waited for
        backend.controller.stop()
    memory_worker.requestInterruption()
    interrupt_tools()
    left: list[tuple[str, object]] = []
    if host is not None:  # none when she quit before the first paint
        if not host.wait_loaders(min(LOAD_WAIT_MS, deadline.ms())):
            left += [("avatar model load", loader) for loader in host.loaders()]
        host.release()
    if not memory_worker.stop(deadline.ms()):
        left.append(("memory model", memory_worker))
    if not backend.shutdown(deadline.ms()):
        worker = sys.modules.get("companion_desktop.pipeline.worker")
        left += [("turn pipeline", thread) for thread, _ in getattr(worker, "LEFT_RUNNING", [])]
    tools.close()
    mind = sys.modules.get("companion_desktop.llm.mind.host")
    if mind is not None:  # her own mind's process ends with her
        mind.HOST.stop()
    if not drain_pool(deadline):
        left.append(("background jobs", PoolThreads()))
    db.close()
    return left


MEMORY_DELAY_MS = 1500
#: The niceness she runs at when Settings > Display > "Let other programs go first" is
#: on: under contention a program at the default priority gets ~10x her share of a core
#: (a local model beside her kept 90% of its tokens/s instead of 75% in our bench).
YIELD_NICE = 10


def yield_cpu(nice: int = YIELD_NICE) -> int | None:
    """Lower this thread's CPU priority to ``nice`` (threads started later inherit it);
    the niceness now, or None where the platform has no ``os.nice``. Never raises, and
    never raises the priority (that needs privileges)."""
    if not hasattr(os, "nice"):
        return None
    try:
        current = os.nice(0)
        return os.nice(nice - current) if current < nice else current
    except OSError:
        return None


#: What her desktop (overlay, tray, voice, reminders) imports, heaviest parts first; each
#: is imported on its own turn of the event loop, so a quit is not kept waiting.
DESKTOP_IMPORTS = ("keyring", "httpx", "companion_desktop.llm.keys", "PySide6.QtMultimedia",
                   "companion_desktop.ui.voice.output", "companion_desktop.pipeline.reminders",
                   "companion_desktop.ui.voice.avatar_link", "companion_desktop.ui.desktop.side",
                   "companion_desktop.llm.neural_voice.speaking")


def _in_turns(owner, steps: Iterator[None]) -> None:  # noqa: ANN001
    """Run ``steps`` (a generator) one part per turn of the event loop, on ``owner``'s
    thread, until it ends or a quit signal comes."""
    from PySide6.QtCore import QTimer

    from companion_desktop.ui.shutdown import quit_requested

    def turn() -> None:
        if quit_requested():
            steps.close()
            return
        try:
            next(steps)
        except StopIteration:
            return
        QTimer.singleShot(0, owner, turn)

    turn()


#: The longest the overlay, tray and reminders wait for the chat window's first paint (ms).
FIRST_PAINT_WAIT_MS = 2000


def _after_first_paint(window, then) -> None:  # noqa: ANN001
    """Run ``then`` once, just after ``window`` first paints (or FIRST_PAINT_WAIT_MS after
    now, when no paint comes): what is not in the first picture does not delay it."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    done = []

    def run() -> None:
        if not done:
            done.append(True)
            then()

    class _FirstPaint(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802, ANN001
            if event.type() == QEvent.Type.Paint:
                window.removeEventFilter(self)
                QTimer.singleShot(0, window, run)  # after this paint reaches the screen
            return False

    window._after_first_paint = _FirstPaint(window)
    window.installEventFilter(window._after_first_paint)
    QTimer.singleShot(FIRST_PAINT_WAIT_MS, window, run)


def _prune_keepsakes(db) -> None:  # noqa: ANN001
    """Photo files a failed turn left without a row are removed before any turn runs."""
    from companion_desktop.storage.keepsakes import prune_orphan_files

    try:
        with db.session() as session:
            prune_orphan_files(session, db.path.parent)
    except Exception:  # noqa: BLE001 - housekeeping must never stop the app
        pass


def _paint_now(window, wait_s: float = 0.5) -> None:  # noqa: ANN001
    """Let ``window`` (just shown) reach the screen before the work that follows blocks
    the event loop: events are handled until it has painted, at most ``wait_s``."""
    import time

    from PySide6.QtCore import QEvent, QEventLoop, QObject
    from PySide6.QtWidgets import QApplication

    painted: list[bool] = []

    class _Painted(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802, ANN001
            if event.type() == QEvent.Type.Paint:
                painted.append(True)
            return False

    watcher = _Painted(window)
    window.installEventFilter(watcher)
    end = time.monotonic() + wait_s
    while not painted and time.monotonic() < end:
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        if not painted:
            time.sleep(0.005)
    QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)  # the flush
    window.removeEventFilter(watcher)


def _report_when_shown(window, name: str = "window_shown") -> None:  # noqa: ANN001
    """With ``COMPANION_FRAME_STATS`` set, note ``name`` when ``window`` first paints
    ("window_shown": the first window; "chat_shown": the chat window itself)."""
    from PySide6.QtCore import QEvent, QObject

    from companion_desktop.ui.frame_stats import note, stats_path

    path = stats_path()
    if not path:
        return

    class _FirstPaint(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802, ANN001
            if event.type() == QEvent.Type.Paint:
                window.removeEventFilter(self)
                note(path, name)
            return False

    window._first_paint = _FirstPaint(window)
    window.installEventFilter(window._first_paint)


def _software_gl() -> bool:
    from companion_desktop.ui.avatar.gl_probe import is_software, renderer_name

    try:
        return is_software(renderer_name())
    except Exception:  # noqa: BLE001 - a probe must never stop the app
        return False


def _animations(db, service):  # noqa: ANN001, ANN202
    """One animation library and service for the whole app (uploads reach her at once)."""
    from companion_desktop.avatar.animation.library import AnimationLibrary
    from companion_desktop.pipeline.animations import AnimationService

    animations = AnimationService(db, db.path.parent, AnimationLibrary())
    try:
        animations.sync()
    except Exception:  # noqa: BLE001 - a broken manifest must not stop the app
        pass
    service.animations = animations
    return animations


def _avatar_host(db, animations, aa: str = "msaa"):  # noqa: ANN001, ANN202
    """The shared avatar, loading her saved model (or Hana) in the background."""
    import random

    from companion_desktop.avatar.animation.director import Director
    from companion_desktop.resources import default_avatar_path
    from companion_desktop.storage.settings import AvatarSettings, load_settings
    from companion_desktop.ui.avatar.host import AvatarHost

    with db.read_session() as session:
        settings = load_settings(session, AvatarSettings)
    director = Director(
        animations.library, random.Random(),
        pool=animations.idle_pool, thinking_clip=animations.thinking_clip,
        enabled=lambda: {ident for ident, _ in animations.enabled_for_prompt()},
    )
    host = AvatarHost(settings.fps, director=director, aa=aa)
    fallback = default_avatar_path()
    path = settings.model_path or str(fallback)

    def failed(message: str) -> None:
        if host.model is None and host.model_path is None and path != str(fallback):
            host.load_async(fallback)  # her saved model broke: Hana stands in

    host.load_failed.connect(failed)
    host.load_async(path)
    return host


def _overlay_visible(db) -> bool:  # noqa: ANN001
    from companion_desktop.storage.settings import AvatarSettings, load_settings

    with db.read_session() as session:
        return load_settings(session, AvatarSettings).overlay_visible
