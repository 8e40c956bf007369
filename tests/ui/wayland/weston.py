"""A real Wayland compositor for tests: weston with its headless backend, the pixman
(CPU) renderer, XWayland and its debug protocol (which lets ``weston-screenshooter``
take pictures of the screen), in a private ``XDG_RUNTIME_DIR``.

The desktop is one plain colour (``DESKTOP_RGB``), so a picture shows what is drawn
over it; no panel, no screen blanking."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
from PIL import Image

SIZE = (1280, 800)
DESKTOP_RGB = (42, 111, 151)
SOCKET = "wayland-companion-test"
CONFIG = f"""[core]
idle-time=0
[shell]
background-color=0xff{DESKTOP_RGB[0]:02x}{DESKTOP_RGB[1]:02x}{DESKTOP_RGB[2]:02x}
panel-position=none
"""
TOOLS = ("weston", "Xwayland", "weston-screenshooter", "weston-debug")


def missing_tools() -> list[str]:
    """The programs these tests need that are not installed."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


class Weston:
    """One compositor; ``session`` is the environment a Wayland session gives its apps
    (``WAYLAND_DISPLAY``, ``XDG_SESSION_TYPE``, ``XDG_RUNTIME_DIR`` and XWayland's
    ``DISPLAY``). ``stop()`` always ends it."""

    def __init__(self, work: Path, timeout: float = 30.0) -> None:
        self.work = work
        self.runtime = work / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.runtime.chmod(0o700)  # whatever the umask: the compositor insists
        self.shots = work / "shots"
        self.shots.mkdir()
        config = work / "weston.ini"
        config.write_text(CONFIG)
        self.log = work / "weston.log"
        env = {key: value for key, value in os.environ.items()
               if key not in ("DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET")}
        env["XDG_RUNTIME_DIR"] = str(self.runtime)
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                ["weston", "--backend=headless-backend.so", "--use-pixman", "--xwayland",
                 "--debug", f"--socket={SOCKET}", f"--width={SIZE[0]}", f"--height={SIZE[1]}",
                 f"--config={config}"],
                env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            self.display = self._wait_display(timeout)
        except BaseException:
            self.stop()
            raise
        self.session = {"WAYLAND_DISPLAY": SOCKET, "XDG_SESSION_TYPE": "wayland",
                        "XDG_RUNTIME_DIR": str(self.runtime), "DISPLAY": self.display,
                        "QT_QPA_PLATFORM": None}

    def _wait_display(self, timeout: float) -> str:
        """XWayland's display (":N", from weston's log) once the socket is there."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.log.read_text(errors="replace")
            found = re.search(r"xserver listening on display (:\d+)", text)
            if found and (self.runtime / SOCKET).exists():
                return found.group(1)
            if self.proc.poll() is not None:
                raise RuntimeError(f"weston ended ({self.proc.returncode}): {text[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"weston did not start within {timeout} s: {text[-2000:]}")
            time.sleep(0.05)

    def screenshot(self, name: str) -> np.ndarray:
        """A picture of the whole screen as (height, width, 3) uint8 RGB, also kept as
        ``shots/NAME.png``."""
        before = set(self.shots.glob("wayland-screenshot-*.png"))
        env = {**os.environ, "XDG_RUNTIME_DIR": str(self.runtime), "WAYLAND_DISPLAY": SOCKET}
        subprocess.run(["weston-screenshooter"], cwd=self.shots, env=env, check=True,
                       timeout=30, capture_output=True)
        (new,) = set(self.shots.glob("wayland-screenshot-*.png")) - before
        kept = new.rename(self.shots / f"{name}.png")
        return np.asarray(Image.open(kept).convert("RGB"))

    def toplevels(self) -> list[tuple[int, str, tuple[int, int, int, int]]]:
        """The native Wayland top-level windows on the screen, from weston's scene graph
        (its debug protocol): (client pid, title, (left, top, right, bottom))."""
        env = {**os.environ, "XDG_RUNTIME_DIR": str(self.runtime), "WAYLAND_DISPLAY": SOCKET}
        graph = subprocess.run(["weston-debug", "scene-graph"], env=env, capture_output=True,
                               text=True, timeout=30).stdout
        found = re.findall(r"role xdg_toplevel, PID (\d+), .*?top-level window '(.*?)' .*?\n"
                           r"\s*position: \((-?\d+), (-?\d+)\) -> \((-?\d+), (-?\d+)\)", graph)
        return [(int(pid), title, (int(a), int(b), int(c), int(d)))
                for pid, title, a, b, c, d in found]

    def wait_desktop(self, timeout: float = 30.0) -> None:
        """Until the desktop's colour is drawn (its shell is a client that starts late)."""
        deadline = time.monotonic() + timeout
        while not is_desktop(self.screenshot("desktop")[SIZE[1] // 2, SIZE[0] // 2]):
            assert time.monotonic() < deadline, "weston's desktop was not drawn"
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def is_desktop(pixels: np.ndarray, tolerance: int = 3) -> np.ndarray:
    """Which pixels (..., 3) are the desktop's colour."""
    return (np.abs(pixels.astype(int) - np.array(DESKTOP_RGB)) <= tolerance).all(axis=-1)
