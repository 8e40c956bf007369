"""The few EGL calls a windowless context needs, through ctypes (libEGL, e.g. glvnd).

Independent of PyOpenGL's platform choice. Displays tried in order: Mesa's surfaceless
platform, the first EGL device (NVIDIA headless), the default display. One display per
process is initialized and kept (``eglTerminate`` would end every context on it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading

from .errors import RenderUnavailable

EGL_NONE = 0x3038
EGL_EXTENSIONS = 0x3055
EGL_OPENGL_API = 0x30A2
EGL_RENDERABLE_TYPE = 0x3040
EGL_OPENGL_BIT = 0x0008
EGL_SURFACE_TYPE = 0x3033
EGL_PBUFFER_BIT = 0x0001
EGL_CONTEXT_MAJOR_VERSION = 0x3098
EGL_CONTEXT_MINOR_VERSION = 0x30FB
EGL_CONTEXT_OPENGL_PROFILE_MASK = 0x30FD
EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT = 0x0001
EGL_PLATFORM_SURFACELESS_MESA = 0x31DD
EGL_PLATFORM_DEVICE_EXT = 0x313F

_vp, _int, _uint = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint
_SIGNATURES = {
    "eglGetError": (_int, []),
    "eglGetProcAddress": (_vp, [ctypes.c_char_p]),
    "eglQueryString": (ctypes.c_char_p, [_vp, _int]),
    "eglGetDisplay": (_vp, [_vp]),
    "eglInitialize": (_uint, [_vp, ctypes.POINTER(_int), ctypes.POINTER(_int)]),
    "eglBindAPI": (_uint, [_uint]),
    "eglChooseConfig": (_uint, [_vp, ctypes.POINTER(_int), ctypes.POINTER(_vp), _int,
                                ctypes.POINTER(_int)]),
    "eglCreateContext": (_vp, [_vp, _vp, _vp, ctypes.POINTER(_int)]),
    "eglMakeCurrent": (_uint, [_vp, _vp, _vp, _vp]),
    "eglDestroyContext": (_uint, [_vp, _vp]),
    "eglGetCurrentContext": (_vp, []),
}


def _load_library():
    names = ["libEGL.so.1", ctypes.util.find_library("EGL")]
    if sys.platform == "win32":
        names = ["libEGL.dll"]
    for name in filter(None, names):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise RenderUnavailable("no EGL library (libEGL) on this system")


def _ints(*values: int):
    return (_int * (len(values) + 1))(*values, EGL_NONE)


class EglDisplay:
    """An initialized EGL display with desktop OpenGL bound."""

    def __init__(self) -> None:
        self.lib = _load_library()
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(self.lib, name)
            function.restype, function.argtypes = restype, argtypes
        self.display, self.platform = self._open()
        if not self.lib.eglBindAPI(EGL_OPENGL_API):
            raise RenderUnavailable("this EGL offers no desktop OpenGL (eglBindAPI failed)")

    def _extension(self, name: str, restype, *argtypes):
        address = self.lib.eglGetProcAddress(name.encode())
        return ctypes.CFUNCTYPE(restype, *argtypes)(address) if address else None

    def _candidates(self):
        client = self.lib.eglQueryString(None, EGL_EXTENSIONS) or b""
        get_platform = self._extension("eglGetPlatformDisplayEXT", _vp, _uint, _vp,
                                       ctypes.POINTER(_int))
        if get_platform and b"EGL_MESA_platform_surfaceless" in client:
            yield "surfaceless", lambda: get_platform(EGL_PLATFORM_SURFACELESS_MESA, None, None)
        query = self._extension("eglQueryDevicesEXT", _uint, _int, ctypes.POINTER(_vp),
                                ctypes.POINTER(_int))
        if get_platform and query and b"EGL_EXT_platform_device" in client:
            def first_device():
                devices, count = (_vp * 8)(), _int(0)
                if not query(8, devices, ctypes.byref(count)) or count.value < 1:
                    return None
                return get_platform(EGL_PLATFORM_DEVICE_EXT, devices[0], None)

            yield "device", first_device
        yield "default", lambda: self.lib.eglGetDisplay(None)

    def _open(self):
        reasons = []
        for name, get in self._candidates():
            display = get()
            if not display:
                reasons.append(f"{name}: no display (0x{self.lib.eglGetError():x})")
                continue
            major, minor = _int(), _int()
            if self.lib.eglInitialize(display, ctypes.byref(major), ctypes.byref(minor)):
                return display, name
            reasons.append(f"{name}: eglInitialize failed (0x{self.lib.eglGetError():x})")
        raise RenderUnavailable("no EGL display could be initialized (" + "; ".join(reasons) + ")")

    def create_context(self, major: int, minor: int) -> int:
        """A core-profile context of at least ``major.minor`` (not current yet)."""
        config, count = _vp(), _int(0)
        for attrs in (_ints(EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT),
                      _ints(EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT)):
            if self.lib.eglChooseConfig(self.display, attrs, ctypes.byref(config), 1,
                                        ctypes.byref(count)) and count.value > 0:
                break
        else:
            raise RenderUnavailable("no EGL config renders desktop OpenGL")
        attrs = _ints(EGL_CONTEXT_MAJOR_VERSION, major, EGL_CONTEXT_MINOR_VERSION, minor,
                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT)
        context = self.lib.eglCreateContext(self.display, config, None, attrs)
        if not context:
            raise RenderUnavailable(f"EGL could not create an OpenGL {major}.{minor} core "
                                    f"context (0x{self.lib.eglGetError():x})")
        return context

    def make_current(self, context) -> None:
        if not self.lib.eglMakeCurrent(self.display, None, None, context):
            raise RenderUnavailable(f"eglMakeCurrent failed (0x{self.lib.eglGetError():x})")

    def destroy_context(self, context) -> None:
        if self.lib.eglGetCurrentContext() == context:
            self.lib.eglMakeCurrent(self.display, None, None, None)
        self.lib.eglDestroyContext(self.display, context)


_SHARED: EglDisplay | None = None
_LOCK = threading.Lock()


def shared_display() -> EglDisplay:
    """The process's EGL display (made on first use)."""
    global _SHARED
    with _LOCK:
        if _SHARED is None:
            _SHARED = EglDisplay()
        return _SHARED
