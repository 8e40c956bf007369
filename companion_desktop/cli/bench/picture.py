"""What one picture of both windows costs, measured inside one process
(``companion-desktop bench --only cost`` runs it as a child process and prints its line).

The app's own parts: an ``AvatarHost`` with the antialiasing the app uses on this
machine's GL, her built-in model, an overlay-sized view (340 x 486, her whole figure,
transparent, as the overlay's view at its default size) and the chat window's portrait
(280 x 300, hips up, on its background colour), both shown. Each timed picture asks both
views for a new picture of the next frame (1/30 s later) and lets Qt paint them: CPU time
of every thread of the process (the software rasterizer's included) and wall time, the
medians of ``--pictures`` after 10 untimed ones. One JSON line on stdout.

It uses only the host's and views' long-standing calls, so the same file run with an
older checkout first on PYTHONPATH measures that checkout (a before/after pair).
"""

from __future__ import annotations

import inspect
import json
import os
import statistics
import sys
import time

OVERLAY = (340, 486)  # the overlay's view at scale 1 (its window is 340 x 640)
PORTRAIT = (280, 300)  # the chat window's portrait


def measure(pictures: int = 60) -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QWidget

    from companion_desktop.resources import default_avatar_path
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.avatar.view import AvatarView

    app = QApplication.instance() or QApplication(sys.argv[:1])
    options = ({"aa": _app_aa()} if "aa" in inspect.signature(AvatarHost).parameters
               else {"samples": 0 if _software() else 4})
    host = AvatarHost(fps=30, seed=1, **options)
    host.load_now(default_avatar_path())
    overlay = QWidget()
    overlay.setWindowFlags(Qt.WindowType.FramelessWindowHint)
    overlay.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
    overlay.resize(*OVERLAY)
    whole = AvatarView(host, "full", overlay)
    whole.setGeometry(0, 0, *OVERLAY)
    chat = QWidget()
    chat.resize(*PORTRAIT)
    portrait = AvatarView(host, "upper", chat, background=(0.965, 0.933, 0.98, 1.0))
    portrait.setGeometry(0, 0, *PORTRAIT)
    chat.move(100, 100)
    overlay.move(600, 100)
    overlay.show()
    chat.show()
    end = time.monotonic() + 15
    while len(host.showing()) < 2 and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    if len(host.showing()) < 2:
        return {"error": "the two views never showed (no display, or a covered screen)"}
    host.timer.stop()

    def picture() -> None:
        for view in (whole, portrait):
            view.picture_wanted = True
        host._last -= 1 / 30  # the next frame, 1/30 s on
        host.tick()
        app.processEvents()

    for _ in range(10):
        picture()
    cpu, wall = [], []
    for _ in range(pictures):
        c0, w0 = time.process_time(), time.perf_counter()
        picture()
        cpu.append(1000 * (time.process_time() - c0))
        wall.append(1000 * (time.perf_counter() - w0))
    model = host.model
    triangles = sum(len(p.indices) // 3 for mesh in model.meshes for p in mesh.primitives)
    result = {"cpu_ms": round(statistics.median(cpu), 2),
              "wall_ms": round(statistics.median(wall), 2),
              "renders": getattr(host.gl, "drawn", None), "pictures": pictures + 10,
              "triangles": triangles, "options": options,
              "renderer": getattr(host.gl, "renderer_name", "")}
    host.release()
    return result


def _software() -> bool:
    from companion_desktop.ui.avatar.gl_probe import is_software, renderer_name

    try:
        return is_software(renderer_name())
    except Exception:  # noqa: BLE001 - a probe must never stop the bench
        return False


def _app_aa() -> str:
    """What the app draws edges with here: edge lines on software GL (the post pass in a
    checkout from before them), multisampling on a GPU."""
    if not _software():
        return "msaa"
    from companion_desktop.avatar.render import antialias

    return "lines" if "lines" in antialias.MODES else "post"


def line(result: dict) -> str:
    """The bench's line for ``result``."""
    if "error" in result:
        return f"  a picture of both windows: not measured ({result['error']})"
    renders = result.get("renders")
    shared = (f", {renders} renders for {result['pictures']} pictures" if renders is not None
              else "")
    return (f"  a picture of both windows (overlay {OVERLAY[0]}x{OVERLAY[1]} + portrait "
            f"{PORTRAIT[0]}x{PORTRAIT[1]}, in one process): {result['cpu_ms']:.1f} ms of CPU "
            f"(all threads), {result['wall_ms']:.1f} ms wall; {result['triangles']} triangles"
            f"{shared}")


def run_in_child(timeout: float = 120.0) -> dict:
    """``measure()`` in a child process (its own GL context and Qt application)."""
    import subprocess

    env = {**os.environ}
    env.setdefault("QT_QPA_PLATFORM", "xcb")
    try:
        done = subprocess.run([sys.executable, "-m", "companion_desktop.cli.bench.picture"],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {timeout:.0f} s"}
    for text in reversed(done.stdout.splitlines()):
        if text.startswith("{"):
            return json.loads(text)
    return {"error": (done.stderr.strip().splitlines() or ["it printed nothing"])[-1]}


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 60)), flush=True)
