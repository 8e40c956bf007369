"""The app on the Linux desktop: its id, and the XDG autostart entry ("Start with my
computer" in Settings > Display). No Qt here.

The autostart entry is ``$XDG_CONFIG_HOME/autostart/<APP_ID>.desktop`` (``~/.config``
when the variable is unset or not absolute, as the XDG base directory spec says). Its
``Exec`` runs the same program that runs now, with ``--data-dir`` when the data folder is
not the platform's default. Windows and macOS have no XDG autostart: callers ask
:func:`autostart_supported` first and say so instead.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from companion_desktop.storage.paths import APP_NAME, resolve_data_dir

#: The reverse-DNS id of the desktop entry, icon and metainfo (packaging/linux/).
APP_ID = "io.github.companion_desktop.CompanionDesktop"
#: The window class Qt gives her windows on X11 (the application name): the desktop
#: entry's ``StartupWMClass``, so the dock groups her windows under the entry.
WM_CLASS = APP_NAME
#: Characters that make an ``Exec`` argument need double quotes (Desktop Entry spec).
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def autostart_supported(platform: str | None = None) -> bool:
    """Whether this system reads XDG autostart entries (Linux and the BSDs)."""
    platform = sys.platform if platform is None else platform
    return platform.startswith(("linux", "freebsd", "openbsd", "netbsd"))


def config_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME`` when set to an absolute path, else ``~/.config``."""
    env = os.environ if environ is None else environ
    value = env.get("XDG_CONFIG_HOME", "")
    if value and Path(value).is_absolute():
        return Path(value)
    return Path(env.get("HOME") or Path.home()) / ".config"


def autostart_path(environ: Mapping[str, str] | None = None) -> Path:
    return config_home(environ) / "autostart" / f"{APP_ID}.desktop"


def launch_command() -> list[str]:
    """The program that runs now, as a command: the bundle's executable, the
    ``companion-desktop`` script beside this interpreter (a virtual environment) or on
    PATH, else this interpreter with ``-m companion_desktop``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    beside = Path(sys.executable).with_name(APP_NAME)
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which(APP_NAME)
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "companion_desktop"]


def quote_exec(args: Sequence[str]) -> str:
    """``args`` as a Desktop Entry ``Exec`` value: reserved characters quoted, ``%``
    doubled, and the value's own backslash escaping applied on top."""
    parts = []
    for arg in args:
        if not arg or _RESERVED & set(arg):
            inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
            arg = f'"{inner}"'
        parts.append(arg.replace("%", "%%"))
    return " ".join(parts).replace("\\", "\\\\")


def autostart_command(data_dir: Path | None, command: Sequence[str] | None = None) -> list[str]:
    """The command the entry runs: ``--data-dir`` only for a folder other than the default."""
    args = list(command or launch_command())
    default = resolve_data_dir(None, environ={})
    if data_dir is not None and Path(data_dir).expanduser().resolve() != default.resolve():
        args += ["--data-dir", str(Path(data_dir).expanduser().resolve())]
    return args


def autostart_entry(args: Sequence[str]) -> str:
    """The text of the autostart ``.desktop`` file for the command ``args``."""
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Name=companion-desktop",
        "Comment=Your desktop companion, started with your computer",
        f"Exec={quote_exec(args)}",
        f"Icon={APP_ID}",
        "Terminal=false",
        "Categories=Utility;",
        f"StartupWMClass={WM_CLASS}",
        "X-GNOME-Autostart-enabled=true",
        "",
    ])


def set_autostart(on: bool, data_dir: Path | None = None,
                  environ: Mapping[str, str] | None = None,
                  command: Sequence[str] | None = None) -> Path:
    """Write (``on``) or remove the autostart entry; its path. OSError when the folder
    cannot be written. The file is replaced whole, never left half written."""
    path = autostart_path(environ)
    if not on:
        path.unlink(missing_ok=True)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_text(autostart_entry(autostart_command(data_dir, command)), encoding="utf-8")
    os.replace(partial, path)
    return path


def autostart_enabled(environ: Mapping[str, str] | None = None) -> bool:
    return autostart_path(environ).is_file()


def start_windows(start_hidden: str, overlay_visible: bool,
                  tray_available: bool) -> tuple[bool, bool]:
    """(show the chat window, show her overlay) at start for Settings > Display > At
    start: "no" the chat window (and her overlay as she was left), "overlay" only her,
    "tray" neither. Without a system tray "tray" shows her overlay instead, so she can
    always be reached."""
    if start_hidden == "overlay" or (start_hidden == "tray" and not tray_available):
        return False, True
    if start_hidden == "tray":
        return False, False
    return True, overlay_visible
