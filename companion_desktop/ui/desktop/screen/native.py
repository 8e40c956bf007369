"""The window list on Windows and macOS for "look at this": which windows are shown,
top-most first, with their application, title and frame, and which one is active, so the
deny-list and the cut-out of her own windows work there as on X11 (``capture``).

Windows: ``EnumWindows`` (top-most first) over visible, not minimised, not cloaked
windows; the frame from DWM's extended frame bounds (else ``GetWindowRect``); the
application is the process's executable name (``QueryFullProcessImageNameW``); the
active window is ``GetForegroundWindow``. Qt makes the process DPI-aware, so these are
device pixels: they are divided by the screen's device pixel ratio (one ratio for all
screens: a mixed-DPI desktop may frame a window a little off).

macOS: ``CGWindowListCopyWindowInfo`` (on-screen windows, front to back, desktop
elements left out), ordinary windows only (layer 0); the application is the owner's
name, the frame is in points as Qt's; the active window is the front-most one. Without
the Screen Recording permission macOS gives no other application's window titles (and
a picture of the wallpaper only), so a list where no other window has a title is taken
as "no permission" and the look is refused with where to grant it.

Both are written from the systems' documentation and are not run by the tests here
(the README says so); what they return goes through :func:`seen_windows`, which is.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import PureWindowsPath
from typing import Any

from companion_desktop.engine.screen_look import Rect, SeenWindow

MAX_TITLE = 1024
MAC_PERMISSION = ("I can't see your windows: macOS needs to let me record the screen "
                  "(System Settings > Privacy & Security > Screen Recording). You can still "
                  "type.")


class NoWindowList(RuntimeError):
    """The system gave no window list; ``str()`` says why, for the user."""


@dataclass(frozen=True)
class NativeWindow:
    """One window as the system reports it: id (HWND or CGWindowID), owner process,
    application name, title, frame (left, top, right, bottom) and layer (macOS)."""

    wid: int
    pid: int
    app: str
    title: str
    box: Rect
    layer: int = 0


def seen_windows(raw: list[NativeWindow], own_pid: int, scale: float = 1.0
                 ) -> list[SeenWindow]:
    """The capture's window list from the system's (same order: top-most first):
    ordinary (layer 0), not empty, frames divided by ``scale``; windows of process
    ``own_pid`` are hers."""
    out = []
    for w in raw:
        left, top, right, bottom = (int(round(v / scale)) for v in w.box)
        if w.layer != 0 or right <= left or bottom <= top:
            continue
        out.append(SeenWindow(w.app, w.title[:MAX_TITLE], (left, top, right, bottom),
                              w.pid == own_pid, w.wid))
    return out


def missing_permission(raw: list[NativeWindow], own_pid: int) -> bool:
    """True when other applications' ordinary windows are listed but none has a title
    (macOS without Screen Recording)."""
    others = [w for w in raw if w.layer == 0 and w.pid != own_pid]
    return bool(others) and not any(w.title for w in others)


def window_list(platform: str = sys.platform) -> tuple[list[NativeWindow], int | None]:
    """(the windows, top-most first; the active window's id or None) on ``platform``;
    NoWindowList where it cannot be read."""
    try:
        if platform == "win32":
            return _win32_windows()
        if platform == "darwin":
            windows = _quartz_windows()
            return windows, next((w.wid for w in windows if w.layer == 0), None)
    except (OSError, AttributeError, ValueError) as error:
        raise NoWindowList(f"I couldn't read your window list ({error}). You can still "
                           "type.") from None
    raise NoWindowList("I can't read the window list on this system. You can still type.")


# ------------------------------------------------------------------ Windows
def _win32_windows() -> tuple[list[NativeWindow], int | None]:
    import ctypes
    from ctypes import wintypes

    user32 = ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined]
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    dwmapi = ctypes.WinDLL("dwmapi")  # type: ignore[attr-defined]
    enum_proc = ctypes.WINFUNCTYPE(  # type: ignore[attr-defined]
        wintypes.BOOL, wintypes.HWND, wintypes.LPARAM)
    hwnd, rect_p = wintypes.HWND, ctypes.POINTER(wintypes.RECT)
    user32.EnumWindows.argtypes = [enum_proc, wintypes.LPARAM]
    for name in ("IsWindowVisible", "IsIconic", "GetWindowTextLengthW"):
        getattr(user32, name).argtypes = [hwnd]
    user32.GetWindowTextW.argtypes = [hwnd, wintypes.LPWSTR, ctypes.c_int]
    user32.GetWindowRect.argtypes = [hwnd, rect_p]
    user32.GetWindowThreadProcessId.argtypes = [hwnd, ctypes.POINTER(wintypes.DWORD)]
    user32.GetWindowThreadProcessId.restype = wintypes.DWORD
    user32.GetForegroundWindow.restype = hwnd
    dwmapi.DwmGetWindowAttribute.argtypes = [hwnd, wintypes.DWORD, ctypes.c_void_p,
                                             wintypes.DWORD]
    dwmapi.DwmGetWindowAttribute.restype = ctypes.c_long
    kernel32.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
    kernel32.OpenProcess.restype = wintypes.HANDLE
    kernel32.QueryFullProcessImageNameW.argtypes = [wintypes.HANDLE, wintypes.DWORD,
                                                    wintypes.LPWSTR,
                                                    ctypes.POINTER(wintypes.DWORD)]
    kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
    extended_frame, cloaked_attr, query_limited = 9, 14, 0x1000
    found: list[NativeWindow] = []

    def visit(handle: Any, _param: Any) -> bool:
        if not handle or not user32.IsWindowVisible(handle) or user32.IsIconic(handle):
            return True
        cloaked = wintypes.DWORD(0)
        if dwmapi.DwmGetWindowAttribute(handle, cloaked_attr, ctypes.byref(cloaked),
                                        ctypes.sizeof(cloaked)) == 0 and cloaked.value:
            return True  # on another virtual desktop, or a suspended app's window
        rect = wintypes.RECT()
        if dwmapi.DwmGetWindowAttribute(handle, extended_frame, ctypes.byref(rect),
                                        ctypes.sizeof(rect)) != 0 \
                and not user32.GetWindowRect(handle, ctypes.byref(rect)):
            return True
        length = min(int(user32.GetWindowTextLengthW(handle)), MAX_TITLE)
        title = ctypes.create_unicode_buffer(length + 1)
        user32.GetWindowTextW(handle, title, length + 1)
        pid = wintypes.DWORD(0)
        user32.GetWindowThreadProcessId(handle, ctypes.byref(pid))
        found.append(NativeWindow(int(handle), int(pid.value), "", title.value,
                                  (rect.left, rect.top, rect.right, rect.bottom)))
        return True

    def app_of(pid: int) -> str:
        process = kernel32.OpenProcess(query_limited, False, pid)
        if not process:
            return ""
        try:
            size = wintypes.DWORD(1024)
            path = ctypes.create_unicode_buffer(1024)
            if kernel32.QueryFullProcessImageNameW(process, 0, path, ctypes.byref(size)):
                return PureWindowsPath(path.value).stem
            return ""
        finally:
            kernel32.CloseHandle(process)

    callback = enum_proc(visit)  # kept alive for the whole call
    user32.EnumWindows(callback, 0)
    apps = {pid: app_of(pid) for pid in {w.pid for w in found}}
    foreground = user32.GetForegroundWindow()
    return [replace(w, app=apps[w.pid]) for w in found], int(foreground) if foreground else None


# -------------------------------------------------------------------- macOS
def _quartz_windows() -> list[NativeWindow]:
    import ctypes
    import ctypes.util

    def framework(name: str) -> Any:
        return ctypes.CDLL(ctypes.util.find_library(name)
                           or f"/System/Library/Frameworks/{name}.framework/{name}")

    cg, cf = framework("CoreGraphics"), framework("CoreFoundation")
    p, i64, utf8 = ctypes.c_void_p, ctypes.c_int64, 0x08000100

    class Point(ctypes.Structure):
        _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]

    class Size(ctypes.Structure):
        _fields_ = [("width", ctypes.c_double), ("height", ctypes.c_double)]

    class CGRect(ctypes.Structure):
        _fields_ = [("origin", Point), ("size", Size)]

    cg.CGWindowListCopyWindowInfo.argtypes = [ctypes.c_uint32, ctypes.c_uint32]
    cg.CGWindowListCopyWindowInfo.restype = p
    cg.CGRectMakeWithDictionaryRepresentation.argtypes = [p, ctypes.POINTER(CGRect)]
    cg.CGRectMakeWithDictionaryRepresentation.restype = ctypes.c_bool
    cf.CFArrayGetCount.argtypes, cf.CFArrayGetCount.restype = [p], ctypes.c_long
    cf.CFArrayGetValueAtIndex.argtypes = [p, ctypes.c_long]
    cf.CFArrayGetValueAtIndex.restype = p
    cf.CFDictionaryGetValue.argtypes, cf.CFDictionaryGetValue.restype = [p, p], p
    cf.CFStringCreateWithCString.argtypes = [p, ctypes.c_char_p, ctypes.c_uint32]
    cf.CFStringCreateWithCString.restype = p
    cf.CFStringGetCString.argtypes = [p, ctypes.c_char_p, ctypes.c_long, ctypes.c_uint32]
    cf.CFStringGetCString.restype = ctypes.c_bool
    cf.CFNumberGetValue.argtypes, cf.CFNumberGetValue.restype = [p, ctypes.c_int, p], ctypes.c_bool
    cf.CFRelease.argtypes = [p]
    keys = {name: cf.CFStringCreateWithCString(None, name.encode(), utf8)
            for name in ("kCGWindowNumber", "kCGWindowOwnerPID", "kCGWindowOwnerName",
                         "kCGWindowName", "kCGWindowBounds", "kCGWindowLayer")}

    def text(entry: Any, key: str) -> str:
        value = cf.CFDictionaryGetValue(entry, keys[key])
        out = ctypes.create_string_buffer(4 * MAX_TITLE)
        if value and cf.CFStringGetCString(value, out, len(out), utf8):
            return out.value.decode("utf-8", "replace")
        return ""

    def number(entry: Any, key: str) -> int:
        value, out = cf.CFDictionaryGetValue(entry, keys[key]), i64(0)
        return int(out.value) if value and cf.CFNumberGetValue(value, 4, ctypes.byref(out)) else 0

    on_screen_only, no_desktop = 1, 16
    array = cg.CGWindowListCopyWindowInfo(on_screen_only | no_desktop, 0)
    if not array:
        raise OSError("the window server gave no list")
    found = []
    try:
        for index in range(cf.CFArrayGetCount(array)):
            entry = cf.CFArrayGetValueAtIndex(array, index)
            rect = CGRect()
            bounds = cf.CFDictionaryGetValue(entry, keys["kCGWindowBounds"])
            if not bounds or not cg.CGRectMakeWithDictionaryRepresentation(bounds,
                                                                           ctypes.byref(rect)):
                continue
            left, top = rect.origin.x, rect.origin.y
            box = (int(left), int(top), int(left + rect.size.width), int(top + rect.size.height))
            found.append(NativeWindow(number(entry, "kCGWindowNumber"),
                                      number(entry, "kCGWindowOwnerPID"),
                                      text(entry, "kCGWindowOwnerName"),
                                      text(entry, "kCGWindowName"), box,
                                      number(entry, "kCGWindowLayer")))
    finally:
        cf.CFRelease(array)
        for key in keys.values():
            cf.CFRelease(key)
    return found
