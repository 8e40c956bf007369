"""What the edge lines (``silhouette``) need of OpenGL beyond 3.3: compute shaders and
image stores (OpenGL 4.3), found whichever platform PyOpenGL picked, the unchecked
entry points for the per-picture calls, and buffers read as buffer textures."""

from __future__ import annotations

import ctypes

import numpy as np
from OpenGL import GL


def _entry(name: str, *argtypes):  # noqa: ANN202
    """An OpenGL 4.3 entry point: PyOpenGL's, or (where PyOpenGL's platform is not the
    one that made the context current: GLX's beside an EGL context) the GL library's
    own export; None when neither has it."""
    function = getattr(GL, name, None)
    if function is not None and bool(function):
        return function
    from OpenGL import platform

    raw = getattr(getattr(platform.PLATFORM, "GL", None), name, None)
    if raw is None:
        return None
    raw.restype, raw.argtypes = None, list(argtypes)
    return raw


_U, _INT = ctypes.c_uint, ctypes.c_int


class Compute:
    """The entry points the edge lines need beyond OpenGL 3.3."""

    def __init__(self) -> None:
        self.dispatch = _entry("glDispatchCompute", _U, _U, _U)
        self.barrier = _entry("glMemoryBarrier", _U)
        self.bind_image = _entry("glBindImageTexture", _U, _U, _INT, ctypes.c_ubyte, _INT,
                                 _U, _U)
        self.dispatch_indirect = _entry("glDispatchComputeIndirect", ctypes.c_ssize_t)

    def __bool__(self) -> bool:
        return None not in (self.dispatch, self.barrier, self.bind_image,
                            self.dispatch_indirect)


def supported() -> bool:
    """True when the current context runs compute shaders (OpenGL 4.3), which the
    edge lines need."""
    from .context import gl_version

    return gl_version() >= (4, 3) and bool(Compute())


def storage(data: np.ndarray | None, size: int = 0, usage: int = GL.GL_STATIC_DRAW) -> int:
    """A new buffer holding ``data`` (or ``size`` bytes, undefined)."""
    buffer = int(GL.glGenBuffers(1))
    GL.glBindBuffer(GL.GL_SHADER_STORAGE_BUFFER, buffer)
    if data is not None:
        data = np.ascontiguousarray(data)
        GL.glBufferData(GL.GL_SHADER_STORAGE_BUFFER, max(data.nbytes, 16),
                        data if data.nbytes else None, usage)
    else:
        GL.glBufferData(GL.GL_SHADER_STORAGE_BUFFER, max(size, 16), None, usage)
    GL.glBindBuffer(GL.GL_SHADER_STORAGE_BUFFER, 0)
    return buffer


def texels(buffer: int, fmt: int) -> int:
    """A buffer texture reading ``buffer`` as ``fmt`` texels."""
    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_BUFFER, texture)
    GL.glTexBuffer(GL.GL_TEXTURE_BUFFER, fmt, buffer)
    GL.glBindTexture(GL.GL_TEXTURE_BUFFER, 0)
    return texture


class Held:
    """A buffer and a buffer texture over it."""

    def __init__(self, data: np.ndarray | None, size: int, fmt: int, usage: int) -> None:
        self.buffer = storage(data, size, usage)
        self.texture = texels(self.buffer, fmt)

    def release(self) -> None:
        GL.glDeleteTextures(np.array([self.texture], np.uint32))
        GL.glDeleteBuffers(1, np.array([self.buffer], np.uint32))
