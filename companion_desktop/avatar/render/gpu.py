"""GPU copies of a ``VrmModel``: vertex arrays, morph and joint texture buffers, textures.

Uploaded late (``GpuModel(model)`` with a context current) and freed by ``release()``.
Vertex layout: 0 position, 1 normal, 2 uv0, 3 joints (integer), 4 weights, 5 colour.
Morph targets of a primitive live in one RGBA32F texture buffer, target after target,
``stride`` texels per vertex (position delta, then normal delta when any target has
normals). Joint matrices of a skin live in an RGBA32F texture buffer, 4 texels (the
columns) per joint, rewritten every frame.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_2_0 import glVertexAttribPointer as _raw_attrib_pointer
from OpenGL.raw.GL.VERSION.GL_3_0 import glVertexAttribIPointer as _raw_attrib_ipointer

from companion_desktop.avatar.vrm.model import Primitive, VrmModel

from .bounds import is_skinned, mesh_instances

_FILTERS_WITH_MIPMAPS = {GL.GL_NEAREST_MIPMAP_NEAREST, GL.GL_LINEAR_MIPMAP_NEAREST,
                         GL.GL_NEAREST_MIPMAP_LINEAR, GL.GL_LINEAR_MIPMAP_LINEAR}
_WRAPS = {GL.GL_REPEAT, GL.GL_CLAMP_TO_EDGE, GL.GL_MIRRORED_REPEAT}


def _buffer(target: int, data: np.ndarray, usage: int = GL.GL_STATIC_DRAW) -> int:
    buf = int(GL.glGenBuffers(1))
    GL.glBindBuffer(target, buf)
    data = np.ascontiguousarray(data)
    GL.glBufferData(target, data.nbytes, data if data.nbytes else None, usage)
    return buf


def buffer_texture(data: np.ndarray, usage: int = GL.GL_STATIC_DRAW) -> tuple[int, int]:
    """(buffer, texture) for RGBA32F texels; ``data`` is float32 with 4 values per texel."""
    buf = _buffer(GL.GL_TEXTURE_BUFFER, np.asarray(data, np.float32).reshape(-1, 4), usage)
    tex = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_BUFFER, tex)
    GL.glTexBuffer(GL.GL_TEXTURE_BUFFER, GL.GL_RGBA32F, buf)
    GL.glBindTexture(GL.GL_TEXTURE_BUFFER, 0)
    return buf, tex


@dataclass
class GpuPrimitive:
    """One primitive as drawn by one node."""

    node: int
    mesh: int
    primitive: Primitive
    vao: int
    index_count: int
    vertex_count: int
    material: int | None
    skin: int | None  # None: rigid, drawn with the node's world matrix
    has_uv: bool
    has_color: bool
    centroid: np.ndarray  # (4,) homogeneous, in the primitive's space
    joint_share: np.ndarray | None  # (joints,) share of the skin weights per joint
    morph_tex: int = 0
    morph_stride: int = 1
    target_count: int = 0


class GpuModel:
    """Every GPU object of one model. Needs the context it was made in to be current."""

    def __init__(self, model: VrmModel):
        self.model = model
        self._buffers: list[int] = []
        self._textures: list[int] = []
        self._vaos: list[int] = []
        self._vertex_cache: dict[tuple, dict[str, int]] = {}
        self._image_cache: dict[tuple[int, bool], int] = {}
        self.max_texels = int(GL.glGetIntegerv(GL.GL_MAX_TEXTURE_BUFFER_SIZE))
        self.white = self._make_texture(np.full((1, 1, 4), 255, np.uint8), srgb=False)
        buf, self.empty_tbo = buffer_texture(np.zeros((1, 4), np.float32))
        self._buffers.append(buf)
        self._textures.append(self.empty_tbo)
        self.joints: list[tuple[int, int]] = []
        for skin in model.skins:
            buf, tex = buffer_texture(np.zeros((max(len(skin.joints), 1) * 4, 4), np.float32),
                                      GL.GL_DYNAMIC_DRAW)
            self._buffers.append(buf)
            self._textures.append(tex)
            self.joints.append((buf, tex))
        self.primitives = [
            self._upload_primitive(node, mesh, prim)
            for node, mesh in mesh_instances(model)
            for prim in model.meshes[mesh].primitives
            if len(prim.positions) and len(prim.indices)
        ]

    # -- vertex data -----------------------------------------------------------
    def _vertex_buffers(self, prim: Primitive) -> dict[str, int]:
        """One buffer per attribute array, shared by primitives that share arrays."""
        arrays = {"position": prim.positions, "normal": prim.normals, "uv0": prim.uv0,
                  "joints": prim.joints, "weights": prim.weights, "color": prim.colors}
        key = tuple(id(a) for a in arrays.values())
        if key not in self._vertex_cache:
            dtypes = {"joints": np.uint16}
            buffers = {
                name: _buffer(GL.GL_ARRAY_BUFFER, np.asarray(a, dtypes.get(name, np.float32)))
                for name, a in arrays.items() if a is not None
            }
            self._buffers.extend(buffers.values())
            self._vertex_cache[key] = buffers
        return self._vertex_cache[key]

    def _upload_primitive(self, node: int, mesh: int, prim: Primitive) -> GpuPrimitive:
        skinned = is_skinned(self.model, node, prim)
        buffers = self._vertex_buffers(prim)
        vao = int(GL.glGenVertexArrays(1))
        self._vaos.append(vao)
        GL.glBindVertexArray(vao)
        layout = {"position": (0, 3), "normal": (1, 3), "uv0": (2, 2), "weights": (4, 4),
                  "color": (5, 4)}
        for name, (location, size) in layout.items():
            if name in buffers:
                GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffers[name])
                GL.glEnableVertexAttribArray(location)
                _raw_attrib_pointer(location, size, GL.GL_FLOAT, GL.GL_FALSE, 0, ctypes.c_void_p(0))
        if "joints" in buffers:
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffers["joints"])
            GL.glEnableVertexAttribArray(3)
            _raw_attrib_ipointer(3, 4, GL.GL_UNSIGNED_SHORT, 0, ctypes.c_void_p(0))
        indices = np.ascontiguousarray(prim.indices, np.uint32)
        ibo = _buffer(GL.GL_ELEMENT_ARRAY_BUFFER, indices)  # recorded in the VAO
        self._buffers.append(ibo)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        centroid = np.append(prim.positions.mean(axis=0), 1.0).astype(np.float32)
        share = None
        skin = self.model.nodes[node].skin if skinned else None
        if skin is not None:
            count = len(self.model.skins[skin].joints)
            share = np.bincount(np.clip(prim.joints.astype(np.int64), 0, count - 1).ravel(),
                                weights=prim.weights.astype(np.float64).ravel(), minlength=count)
            share = (share / max(share.sum(), 1e-9)).astype(np.float32)
        gpu = GpuPrimitive(node, mesh, prim, vao, len(indices), len(prim.positions), prim.material,
                           skin, prim.uv0 is not None, prim.colors is not None, centroid, share)
        self._upload_morphs(gpu)
        return gpu

    def _upload_morphs(self, gpu: GpuPrimitive) -> None:
        targets = gpu.primitive.targets
        if not targets:
            return
        n = gpu.vertex_count
        stride = 2 if any(t.normals is not None for t in targets) else 1
        if len(targets) * n * stride > self.max_texels:
            stride = 1  # drop normal deltas before dropping targets
        keep = max(min(len(targets), self.max_texels // max(n * stride, 1)), 0)
        if keep == 0:
            return
        data = np.zeros((keep, n, stride, 4), np.float32)
        for t, target in enumerate(targets[:keep]):
            data[t, :, 0, :3] = target.positions
            if stride == 2 and target.normals is not None:
                data[t, :, 1, :3] = target.normals
        buf, tex = buffer_texture(data)
        self._buffers.append(buf)
        self._textures.append(tex)
        gpu.morph_tex, gpu.morph_stride, gpu.target_count = tex, stride, keep

    # -- per frame -------------------------------------------------------------
    def update_joints(self, joint_matrices: list[np.ndarray]) -> None:
        """Write each skin's (joints, 4, 4) matrices (row-major numpy) as columns."""
        for (buf, _tex), matrices in zip(self.joints, joint_matrices):
            if not len(matrices):
                continue
            columns = np.ascontiguousarray(np.asarray(matrices, np.float32).transpose(0, 2, 1))
            GL.glBindBuffer(GL.GL_TEXTURE_BUFFER, buf)
            GL.glBufferData(GL.GL_TEXTURE_BUFFER, columns.nbytes, columns, GL.GL_DYNAMIC_DRAW)
        GL.glBindBuffer(GL.GL_TEXTURE_BUFFER, 0)

    # -- textures ----------------------------------------------------------------
    def texture(self, index: int | None, srgb: bool) -> int:
        """The GL texture for model texture ``index`` (uploaded on first use)."""
        if index is None or not 0 <= index < len(self.model.textures):
            return self.white
        key = (index, srgb)
        if key not in self._image_cache:
            texture = self.model.textures[index]
            self._image_cache[key] = self._make_texture(texture.pixels, srgb, texture.sampler)
        return self._image_cache[key]

    def _make_texture(self, pixels: np.ndarray, srgb: bool, sampler=None) -> int:
        pixels = np.ascontiguousarray(pixels, np.uint8)
        if pixels.ndim != 3 or pixels.shape[2] != 4 or not pixels.size:
            pixels = np.full((1, 1, 4), 255, np.uint8)
        tex = int(GL.glGenTextures(1))
        self._textures.append(tex)
        GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        fmt = GL.GL_SRGB8_ALPHA8 if srgb else GL.GL_RGBA8
        h, w = pixels.shape[:2]
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, fmt, w, h, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels)
        GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
        min_filter = getattr(sampler, "min_filter", None) or GL.GL_LINEAR_MIPMAP_LINEAR
        if min_filter not in _FILTERS_WITH_MIPMAPS | {GL.GL_NEAREST, GL.GL_LINEAR}:
            min_filter = GL.GL_LINEAR_MIPMAP_LINEAR
        mag_filter = getattr(sampler, "mag_filter", None) or GL.GL_LINEAR
        wrap_s = getattr(sampler, "wrap_s", GL.GL_REPEAT)
        wrap_t = getattr(sampler, "wrap_t", GL.GL_REPEAT)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, int(min_filter))
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER,
                           int(mag_filter) if mag_filter in (GL.GL_NEAREST, GL.GL_LINEAR)
                           else GL.GL_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S,
                           int(wrap_s) if wrap_s in _WRAPS else GL.GL_REPEAT)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T,
                           int(wrap_t) if wrap_t in _WRAPS else GL.GL_REPEAT)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return tex

    # -- lifetime ----------------------------------------------------------------
    def release(self) -> None:
        """Delete every GL object (the context that made them must be current)."""
        if self._vaos:
            GL.glDeleteVertexArrays(len(self._vaos), np.array(self._vaos, np.uint32))
        if self._buffers:
            GL.glDeleteBuffers(len(self._buffers), np.array(self._buffers, np.uint32))
        if self._textures:
            GL.glDeleteTextures(np.array(self._textures, np.uint32))
        self._vaos, self._buffers, self._textures = [], [], []
        self._vertex_cache.clear()
        self._image_cache.clear()
        self.primitives = []
