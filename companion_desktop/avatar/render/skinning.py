"""The skinning pass: every skinned vertex morphed and skinned once per frame.

Without it each draw skins its vertices again: the surface and the outline pass, and
each window that shows her. Here a transform feedback pass (rasteriser off) writes
world-space positions, normals and tangents into one buffer per vertex set, and the
draws read them (shader variant ``PRESKINNED``), so a frame costs one skinning however
many times she is drawn. Primitives that share their vertex arrays (VRoid exports
often do) share the output too.
"""

from __future__ import annotations

import ctypes

import numpy as np
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_2_0 import glVertexAttribPointer as _raw_attrib_pointer

from companion_desktop.avatar.vrm.frame import Frame

from .glcalls import GLCalls
from .gpu import GpuModel, GpuPrimitive
from .program import Program

_FLOAT = 4


class SkinnedSet:
    """One vertex set's skinned copy: ``owner`` runs the pass, every user draws it."""

    def __init__(self, owner: GpuPrimitive, tangents: bool) -> None:
        self.owner = owner
        self.tangents = tangents
        self.stride = (10 if tangents else 6) * _FLOAT
        self.buffer = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.buffer)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, owner.vertex_count * self.stride, None,
                        GL.GL_DYNAMIC_COPY)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)


def _draw_vao(prim: GpuPrimitive, skinned: SkinnedSet, buffers: dict[str, int]) -> int:
    """A vertex array reading position/normal/tangent from the skinned buffer and the
    rest (UV, colour) from the primitive's own buffers; same index buffer."""
    vao = int(GL.glGenVertexArrays(1))
    GL.glBindVertexArray(vao)
    GL.glBindBuffer(GL.GL_ARRAY_BUFFER, skinned.buffer)
    fields = [(0, 3, 0), (1, 3, 3)] + ([(6, 4, 6)] if skinned.tangents else [])
    for location, size, offset in fields:
        GL.glEnableVertexAttribArray(location)
        _raw_attrib_pointer(location, size, GL.GL_FLOAT, GL.GL_FALSE, skinned.stride,
                            ctypes.c_void_p(offset * _FLOAT))
    for name, (location, size) in {"uv0": (2, 2), "color": (5, 4)}.items():
        if name in buffers:
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffers[name])
            GL.glEnableVertexAttribArray(location)
            _raw_attrib_pointer(location, size, GL.GL_FLOAT, GL.GL_FALSE, 0, ctypes.c_void_p(0))
    GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, prim.ibo)
    GL.glBindVertexArray(0)
    GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
    return vao


class SkinningPass:
    """Sets up the skinned copies of ``gpu``'s skinned primitives; ``run(frame)``."""

    def __init__(self, gpu: GpuModel, calls: GLCalls) -> None:
        self.gpu = gpu
        self.calls = calls
        self.sets: list[SkinnedSet] = []
        self._programs: dict[tuple, Program] = {}
        self._vaos: list[int] = []
        by_key: dict[tuple, SkinnedSet] = {}
        for prim in gpu.primitives:
            if prim.skin is None:
                continue
            key = (prim.vertex_key, prim.skin, prim.morph_key)
            skinned = by_key.get(key)
            if skinned is None:
                skinned = by_key[key] = SkinnedSet(prim, prim.has_tangents)
                self.sets.append(skinned)
            prim.skinned_set = skinned
            prim.draw_vao = _draw_vao(prim, skinned, gpu.vertex_buffers(prim))
            self._vaos.append(prim.draw_vao)
        self._frame: Frame | None = None

    def _program(self, morphs: bool, tangents: bool) -> Program:
        key = (morphs, tangents)
        program = self._programs.get(key)
        if program is None:
            defines = {"SKINNED": 1}
            if morphs:
                defines["MORPHS"] = 1
            if tangents:
                defines["NORMAL_MAP"] = 1
            varyings = ("tf_position", "tf_normal") + (("tf_tangent",) if tangents else ())
            program = Program("skin.vert.glsl", None, defines, varyings)
            program.use()
            program.set_int("u_joint_tbo", 0)
            program.set_int("u_morph_tbo", 1)
            program.loc_model = program.location("u_model")
            program.loc_morph = tuple(program.location(n) for n in (
                "u_morph_count", "u_vertex_count", "u_morph_stride", "u_morph_index",
                "u_morph_weight"))
            self._programs[key] = program
        return program

    def run(self, frame: Frame, morph_uniforms) -> None:  # noqa: ANN001
        """Skin every set for ``frame``; ``morph_uniforms(program, frame, prim, unit)``
        sets a primitive's morph uniforms."""
        self._frame = frame
        if not self.sets:
            return
        c, gpu = self.calls, self.gpu
        GL.glEnable(GL.GL_RASTERIZER_DISCARD)
        for skinned in self.sets:
            prim = skinned.owner
            program = self._program(prim.target_count > 0, skinned.tangents)
            c.use_program(program.id)
            model = np.ascontiguousarray(frame.world[prim.node], np.float32)
            c.uniform_matrix_4fv(program.loc_model, 1, 1, model.ctypes.data)
            c.active_texture(GL.GL_TEXTURE0)
            c.bind_texture(GL.GL_TEXTURE_BUFFER, gpu.joints[prim.skin][1])
            if prim.target_count:
                morph_uniforms(program, frame, prim, 1)
            GL.glBindBufferBase(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, skinned.buffer)
            GL.glBeginTransformFeedback(GL.GL_POINTS)
            c.bind_vertex_array(prim.vao)
            c.draw_arrays(GL.GL_POINTS, 0, prim.vertex_count)
            GL.glEndTransformFeedback()
        GL.glBindBufferBase(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0)
        GL.glDisable(GL.GL_RASTERIZER_DISCARD)
        c.bind_vertex_array(0)

    def done_for(self, frame: Frame) -> bool:
        """True when the last ``run`` was for this very frame object."""
        return frame is self._frame

    def release(self) -> None:
        for program in self._programs.values():
            program.release()
        self._programs.clear()
        if self._vaos:
            GL.glDeleteVertexArrays(len(self._vaos), np.array(self._vaos, np.uint32))
        if self.sets:
            GL.glDeleteBuffers(len(self.sets), np.array([s.buffer for s in self.sets], np.uint32))
        self._vaos, self.sets = [], []
