"""The frame and material uniform blocks (``shaders/blocks.glsl``), packed as std140.

A picture uploads one ``FrameBlock``; every material of the model lives in one buffer
of ``MaterialBlock`` records, written only when a material's values change (an
expression colour, a texture transform, MToon UV animation), and each draw binds its
record's range. Pure numpy packing; ``UniformBuffers`` does the GL part.
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL

from .materials import SLOTS, MaterialParams
from .program import FRAME_BINDING, MATERIAL_BINDING

FRAME_FLOATS = 16 + 16 + 5 * 4  # two mat4, five vec4
MATERIAL_FLOATS = 9 * 4 + len(SLOTS) * 12  # nine vec4, one mat3 (three vec4) per slot


def pack_frame(view: np.ndarray, proj: np.ndarray, eye, light_dir, light_color, sky,
               ground, toon_ambient: float, outline_least: float = 0.0) -> np.ndarray:
    """FrameBlock as float32 (row-major numpy matrices become GLSL's column-major).
    ``outline_least``: the narrowest an outline may be drawn, in NDC units across the
    picture's height (2 / height is one pixel)."""
    out = np.zeros(FRAME_FLOATS, np.float32)
    out[0:16] = np.asarray(view, np.float32).T.reshape(-1)
    out[16:32] = np.asarray(proj, np.float32).T.reshape(-1)
    for i, value in enumerate((eye, light_dir, light_color, sky, ground)):
        out[32 + 4 * i: 35 + 4 * i] = np.asarray(value, np.float32).reshape(-1)[:3]
    out[32 + 4 * 3 + 3] = toon_ambient
    out[32 + 3] = outline_least
    return out


def pack_material(p: MaterialParams, out: np.ndarray | None = None) -> np.ndarray:
    """MaterialBlock as float32 (see the field comments in ``blocks.glsl``)."""
    out = np.zeros(MATERIAL_FLOATS, np.float32) if out is None else out
    v = out[:36].reshape(9, 4)
    v[0] = p.base_color[:4]
    v[1, :3], v[1, 3] = p.shade_color, p.alpha_cutoff
    v[2, :3], v[2, 3] = p.emissive, p.normal_scale
    v[3, :3], v[3, 3] = p.rim_color, p.rim_fresnel_power
    v[4, :3], v[4, 3] = p.matcap_factor, p.rim_lift
    v[5, :3], v[5, 3] = p.outline_color, p.outline_lighting_mix
    v[6] = (p.shading_shift, p.shading_toony, p.shift_texture_scale, p.gi_equalization)
    v[7] = (p.rim_lighting_mix, p.uv_rotation, p.outline_width, float(p.outline_mode))
    v[8, :2], v[8, 2:] = p.uv_scroll, 0.0
    columns = np.zeros((len(SLOTS), 3, 4), np.float32)  # std140: a mat3 is 3 padded columns
    columns[:, :, :3] = np.asarray(p.uv_matrices, np.float32).transpose(0, 2, 1)
    out[36:] = columns.reshape(-1)
    return out


class UniformBuffers:
    """The two block buffers of one renderer (context current for every call)."""

    def __init__(self, calls) -> None:  # noqa: ANN001 - glcalls.GLCalls
        self.calls = calls
        align = int(GL.glGetIntegerv(GL.GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT)) or 256
        record = MATERIAL_FLOATS * 4
        self.stride = -(-record // align) * align
        self.frame_ubo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, self.frame_ubo)
        GL.glBufferData(GL.GL_UNIFORM_BUFFER, FRAME_FLOATS * 4, None, GL.GL_DYNAMIC_DRAW)
        self.material_ubo = int(GL.glGenBuffers(1))
        self._materials = np.zeros(0, np.uint8)  # what the GPU holds
        GL.glBindBuffer(GL.GL_UNIFORM_BUFFER, 0)

    def set_frame(self, block: np.ndarray) -> None:
        c = self.calls
        c.bind_buffer(GL.GL_UNIFORM_BUFFER, self.frame_ubo)
        c.buffer_sub_data(GL.GL_UNIFORM_BUFFER, 0, block.nbytes, block.ctypes.data)
        c.bind_buffer_range(GL.GL_UNIFORM_BUFFER, FRAME_BINDING, self.frame_ubo, 0, block.nbytes)

    def set_materials(self, records: list[np.ndarray]) -> None:
        """One packed record per material slot; uploads only when something changed."""
        data = np.zeros((max(len(records), 1), self.stride), np.uint8)
        for i, record in enumerate(records):
            data[i, : record.nbytes] = record.view(np.uint8)
        if data.shape == self._materials.shape and np.array_equal(data, self._materials):
            return
        c = self.calls
        c.bind_buffer(GL.GL_UNIFORM_BUFFER, self.material_ubo)
        if data.shape != self._materials.shape:
            c.buffer_data(GL.GL_UNIFORM_BUFFER, data.nbytes, data.ctypes.data, GL.GL_DYNAMIC_DRAW)
        else:
            c.buffer_sub_data(GL.GL_UNIFORM_BUFFER, 0, data.nbytes, data.ctypes.data)
        self._materials = data

    def bind_material(self, slot: int) -> None:
        self.calls.bind_buffer_range(GL.GL_UNIFORM_BUFFER, MATERIAL_BINDING, self.material_ubo,
                                     slot * self.stride, MATERIAL_FLOATS * 4)

    def release(self) -> None:
        GL.glDeleteBuffers(2, np.array([self.frame_ubo, self.material_ubo], np.uint32))
        self.frame_ubo = self.material_ubo = 0
