"""GLSL 330 programs built from the ``shaders/`` files, with cached uniform setters.

Every program sees ``common.glsl`` and ``blocks.glsl`` (the frame and material uniform
blocks, bound to ``FRAME_BINDING`` and ``MATERIAL_BINDING``). The setters go through
PyOpenGL's checked wrappers (set-up time); per-frame code uses ``glcalls``.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
from OpenGL import GL

SHADER_DIR = Path(__file__).resolve().parent / "shaders"
FRAME_BINDING, MATERIAL_BINDING = 0, 1
_BLOCKS = {"FrameBlock": FRAME_BINDING, "MaterialBlock": MATERIAL_BINDING}


class ShaderError(RuntimeError):
    """A shader failed to compile or link; the message holds the driver's log."""


def shader_source(name: str, defines: dict[str, object] | None = None) -> str:
    """``#version 330 core``, the defines, ``common.glsl``, ``blocks.glsl``, (for a
    vertex shader, ``*.vert.glsl``, also ``skinning.glsl`` and ``outline.glsl``), then
    the named file."""
    lines = ["#version 430 core" if name.endswith(".comp.glsl") else "#version 330 core"]
    lines += [f"#define {key} {value}" for key, value in (defines or {}).items()]
    shared = ("common.glsl", "blocks.glsl", "skinning.glsl", "outline.glsl") \
        if name.endswith((".vert.glsl", ".comp.glsl")) else ("common.glsl", "blocks.glsl")
    parts = [_read(part) for part in (*shared, name)]
    return "\n".join(lines) + "\n" + "\n".join(parts)


_SOURCES: dict[str, str] = {}


def _read(name: str) -> str:
    if name not in _SOURCES:
        _SOURCES[name] = (SHADER_DIR / name).read_text(encoding="utf-8")
    return _SOURCES[name]


def _compile(kind: int, source: str, name: str) -> int:
    shader = GL.glCreateShader(kind)
    GL.glShaderSource(shader, source)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        log = GL.glGetShaderInfoLog(shader)
        GL.glDeleteShader(shader)
        text = log.decode(errors="replace") if isinstance(log, bytes) else str(log)
        raise ShaderError(f"{name}: {text}")
    return shader


class Program:
    """A linked program; ``set(name, value)`` picks the glUniform call by value type."""

    def __init__(self, vertex: str, fragment: str | None, defines: dict[str, object] | None = None,
                 varyings: tuple[str, ...] = ()):
        """``fragment`` None with ``varyings``: a transform feedback program that writes
        those vertex outputs, interleaved, into one buffer. ``vertex`` a ``*.comp.glsl``
        (and ``fragment`` None): a compute program (OpenGL 4.3)."""
        kind = GL.GL_COMPUTE_SHADER if vertex.endswith(".comp.glsl") else GL.GL_VERTEX_SHADER
        shaders = [_compile(kind, shader_source(vertex, defines), vertex)]
        if fragment is not None:
            shaders.append(_compile(GL.GL_FRAGMENT_SHADER, shader_source(fragment, defines),
                                    fragment))
        self.id = GL.glCreateProgram()
        for shader in shaders:
            GL.glAttachShader(self.id, shader)
        if varyings:
            names = (ctypes.c_char_p * len(varyings))(*(v.encode() for v in varyings))
            GL.glTransformFeedbackVaryings(self.id, len(varyings),
                                           ctypes.cast(names,
                                                       ctypes.POINTER(ctypes.POINTER(GL.GLchar))),
                                           GL.GL_INTERLEAVED_ATTRIBS)
        GL.glLinkProgram(self.id)
        for shader in shaders:
            GL.glDetachShader(self.id, shader)
            GL.glDeleteShader(shader)
        if not GL.glGetProgramiv(self.id, GL.GL_LINK_STATUS):
            log = GL.glGetProgramInfoLog(self.id)
            GL.glDeleteProgram(self.id)
            raise ShaderError(f"link {vertex} + {fragment}: {log}")
        self._locations: dict[str, int] = {}
        for block, binding in _BLOCKS.items():
            index = GL.glGetUniformBlockIndex(self.id, block)
            if index != GL.GL_INVALID_INDEX:
                GL.glUniformBlockBinding(self.id, index, binding)

    def use(self) -> None:
        GL.glUseProgram(self.id)

    def location(self, name: str) -> int:
        loc = self._locations.get(name)
        if loc is None:
            loc = self._locations[name] = GL.glGetUniformLocation(self.id, name)
        return loc

    def set_int(self, name: str, value: int) -> None:
        loc = self.location(name)
        if loc >= 0:
            GL.glUniform1i(loc, int(value))

    def set_float(self, name: str, value: float) -> None:
        loc = self.location(name)
        if loc >= 0:
            GL.glUniform1f(loc, float(value))

    def set_vec(self, name: str, value) -> None:
        loc = self.location(name)
        if loc < 0:
            return
        v = np.asarray(value, np.float32).reshape(-1)
        (GL.glUniform2f, GL.glUniform3f, GL.glUniform4f)[len(v) - 2](loc, *map(float, v))

    def set_mat4(self, name: str, matrix: np.ndarray) -> None:
        """A row-major numpy 4x4 (column-vector convention)."""
        loc = self.location(name)
        if loc >= 0:
            GL.glUniformMatrix4fv(loc, 1, GL.GL_TRUE, np.ascontiguousarray(matrix, np.float32))

    def set_mat3_array(self, name: str, matrices: np.ndarray) -> None:
        loc = self.location(name)
        if loc >= 0:
            m = np.ascontiguousarray(matrices, np.float32).reshape(-1, 3, 3)
            GL.glUniformMatrix3fv(loc, len(m), GL.GL_TRUE, m)

    def set_int_array(self, name: str, values) -> None:
        loc = self.location(name)
        if loc >= 0 and len(values):
            GL.glUniform1iv(loc, len(values), np.ascontiguousarray(values, np.int32))

    def set_float_array(self, name: str, values) -> None:
        loc = self.location(name)
        if loc >= 0 and len(values):
            GL.glUniform1fv(loc, len(values), np.ascontiguousarray(values, np.float32))

    def release(self) -> None:
        if self.id:
            GL.glDeleteProgram(self.id)
            self.id = 0
