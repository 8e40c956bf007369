"""The per-frame OpenGL calls, without PyOpenGL's argument wrappers and error checks.

Drawing a frame makes a few dozen calls per primitive; through PyOpenGL's checked
wrappers each costs microseconds of Python. ``GLCalls(...)`` (made with a context
current) holds the raw entry points: plain-number calls straight from
``OpenGL.raw``, and the calls that take arrays rebound to take a ``void *`` (a numpy
array's ``.ctypes.data``), so no array conversion runs per call. Set-up code keeps
using ``OpenGL.GL`` with its error checks.
"""

from __future__ import annotations

import ctypes
import sys

from OpenGL.raw.GL.VERSION import GL_1_0, GL_1_1, GL_1_3, GL_1_4, GL_1_5, GL_2_0, GL_3_0, GL_3_1

_FACTORY = getattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE) if sys.platform == "win32" \
    else ctypes.CFUNCTYPE
_INT, _UINT, _BOOL, _PTR = ctypes.c_int, ctypes.c_uint, ctypes.c_ubyte, ctypes.c_void_p
_SIZE = ctypes.c_ssize_t


def _entry(function):
    """The C entry point behind a PyOpenGL raw function (resolved now), called through
    a prototype of its own: PyOpenGL's function object runs its error check (a
    ``glGetError`` and a Python call) after every call."""
    load = getattr(function, "load", None)
    real = load() if callable(load) else function
    real = real if real is not None else function
    argtypes = getattr(real, "argtypes", None)
    if argtypes is None or not hasattr(real, "restype"):
        return real
    address = ctypes.cast(real, ctypes.c_void_p).value
    return _FACTORY(real.restype, *argtypes)(address)


def _with_pointer(function, *argtypes):
    """``function`` called through a prototype whose array argument is ``void *``."""
    address = ctypes.cast(_entry(function), ctypes.c_void_p).value
    return _FACTORY(None, *argtypes)(address)


class GLCalls:
    """Raw GL entry points for the draw loop; build it with a context current."""

    def __init__(self) -> None:
        self.use_program = _entry(GL_2_0.glUseProgram)
        self.active_texture = _entry(GL_1_3.glActiveTexture)
        self.bind_texture = _entry(GL_1_1.glBindTexture)
        self.enable = _entry(GL_1_0.glEnable)
        self.disable = _entry(GL_1_0.glDisable)
        self.cull_face = _entry(GL_1_0.glCullFace)
        self.front_face = _entry(GL_1_0.glFrontFace)
        self.blend_func = _entry(GL_1_0.glBlendFunc)
        self.depth_mask = _entry(GL_1_0.glDepthMask)
        self.bind_vertex_array = _entry(GL_3_0.glBindVertexArray)
        self.bind_buffer = _entry(GL_1_5.glBindBuffer)
        self.bind_buffer_range = _entry(GL_3_0.glBindBufferRange)
        self.uniform_1i = _entry(GL_2_0.glUniform1i)
        self.vertex_attrib_4f = _entry(GL_2_0.glVertexAttrib4f)
        self.vertex_attrib_2f = _entry(GL_2_0.glVertexAttrib2f)
        self.blend_func_separate = _entry(GL_1_4.glBlendFuncSeparate)
        self.uniform_matrix_4fv = _with_pointer(GL_2_0.glUniformMatrix4fv, _INT, _INT, _BOOL, _PTR)
        self.uniform_1iv = _with_pointer(GL_2_0.glUniform1iv, _INT, _INT, _PTR)
        self.uniform_1fv = _with_pointer(GL_2_0.glUniform1fv, _INT, _INT, _PTR)
        self.buffer_sub_data = _with_pointer(GL_1_5.glBufferSubData, _UINT, _SIZE, _SIZE, _PTR)
        self.buffer_data = _with_pointer(GL_1_5.glBufferData, _UINT, _SIZE, _PTR, _UINT)
        self.draw_elements = _with_pointer(GL_1_1.glDrawElements, _UINT, _INT, _UINT, _PTR)
        self.draw_arrays = _entry(GL_1_1.glDrawArrays)
        # the edge lines' passes (``silhouette``)
        self.bind_buffer_base = _entry(GL_3_0.glBindBufferBase)
        self.uniform_1ui = _entry(GL_3_0.glUniform1ui)
        self.uniform_2f = _entry(GL_2_0.glUniform2f)
        self.uniform_4i = _entry(GL_2_0.glUniform4i)
        self.copy_buffer_sub_data = _entry(GL_3_1.glCopyBufferSubData)
        self.read_pixels = _with_pointer(GL_1_0.glReadPixels, _INT, _INT, _INT, _INT, _UINT,
                                         _UINT, _PTR)
