"""Finding and starting helper programs (espeak-ng, npx, uvx, node) on every platform.

An app started from the macOS Finder gets a minimal PATH (no Homebrew), and the Windows
installers of espeak-ng do not add it to the PATH; :func:`find_program` also looks in the
places those installers use. :data:`NO_WINDOW` keeps a console window from flashing up
on Windows when a console program is started from the GUI. :func:`split_args` and
:func:`join_args` read and write a command's arguments with the platform's own rules
(Windows paths keep their backslashes).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

#: ``creationflags`` for :func:`subprocess.run` / ``Popen``: no console window on Windows.
NO_WINDOW: int = getattr(subprocess, "CREATE_NO_WINDOW", 0) if sys.platform == "win32" else 0


def extra_dirs(platform: str | None = None) -> list[Path]:
    """Folders searched after the PATH: Homebrew on macOS, the installers' on Windows."""
    platform = platform or sys.platform
    if platform == "darwin":
        return [Path("/opt/homebrew/bin"), Path("/usr/local/bin"), Path("/opt/local/bin")]
    if platform == "win32":
        roots = [os.environ.get(v) for v in ("ProgramFiles", "ProgramFiles(x86)", "ProgramW6432")]
        dirs = [Path(r) / "eSpeak NG" for r in roots if r]
        dirs += [Path(r) / "nodejs" for r in roots if r]
        home = Path.home()
        dirs += [home / ".local" / "bin", home / ".cargo" / "bin"]
        if appdata := os.environ.get("APPDATA"):
            dirs.append(Path(appdata) / "npm")
        return dirs
    return [Path("/usr/local/bin"), Path.home() / ".local" / "bin"]


def find_program(name: str, platform: str | None = None) -> str | None:
    """The full path of program ``name`` (or ``name`` itself when it is a path to an
    executable): the PATH first, then :func:`extra_dirs`. None when not found."""
    found = shutil.which(name)
    if found or os.path.dirname(name):
        return found
    search = os.pathsep.join(str(d) for d in extra_dirs(platform) if d.is_dir())
    return shutil.which(name, path=search) if search else None


def path_with(program: str, path: str | None) -> str:
    """``path`` (a PATH value) with the folder of ``program`` added at its end, so that a
    found script (``npx``) finds its interpreter (``node``) beside it."""
    folder = os.path.dirname(program)
    parts = [p for p in (path or "").split(os.pathsep) if p]
    if folder and folder not in parts:
        parts.append(folder)
    return os.pathsep.join(parts)


def split_args(text: str, platform: str | None = None) -> list[str]:
    """A command line's arguments: POSIX shell rules, or on Windows its own (double quotes
    group, backslashes are literal except before a quote). ValueError on an unclosed quote."""
    if (platform or sys.platform) != "win32":
        return shlex.split(text)
    return _split_windows(text)


def join_args(args: list[str], platform: str | None = None) -> str:
    """The inverse of :func:`split_args` for the same platform."""
    if (platform or sys.platform) != "win32":
        return shlex.join(args)
    return subprocess.list2cmdline(args)


def _split_windows(text: str) -> list[str]:
    """The argument rules of the Microsoft C runtime (CommandLineToArgvW)."""
    args: list[str] = []
    current: list[str] = []
    in_quotes = started = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            run = len(text[i:]) - len(text[i:].lstrip("\\"))
            i += run
            if i < len(text) and text[i] == '"':
                current.append("\\" * (run // 2))
                if run % 2:
                    current.append('"')
                    i += 1
            else:
                current.append("\\" * run)
            started = True
            continue
        if ch == '"':
            in_quotes, started = not in_quotes, True
        elif ch in " \t" and not in_quotes:
            if started:
                args.append("".join(current))
            current, started = [], False
        else:
            current.append(ch)
            started = True
        i += 1
    if in_quotes:
        raise ValueError("No closing quotation")
    if started:
        args.append("".join(current))
    return args
