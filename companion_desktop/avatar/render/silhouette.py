"""Edge lines: her silhouette smoothed from the geometry, for software GL.

A post pass has to guess where an edge runs from the finished pixels. The mesh knows:
an edge whose two faces turn opposite ways on screen is on her silhouette, and so is
an open edge of a face that is drawn. Each such edge is drawn as a one-pixel line over
the finished picture (depth-tested, so hidden ones draw nothing); each pixel the line
crosses takes, from its neighbour across the edge, the share of its area that lies
beyond the true edge (``shaders/edges.*.glsl``). MToon outlines get the same from
their hull, placed as ``shaders/outline.glsl`` draws it, so both sides of the dark
outline line are placed to a fraction of a pixel.

The edges of a mesh are found once, on its first picture (``mesh_edges``): vertices
at the same position are one (a UV seam is no edge), and each edge keeps its two
faces. Per picture, compute shaders place the vertices and test every edge, and only
the edges on her silhouette where the picture changes across them become lines. On
llvmpipe that costs about as much as a full-screen post pass on a user's model, and
more on Hana, whose many small triangles have many edges (``bench --only edges``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np
from OpenGL import GL

from .gpu import GpuModel, GpuPrimitive
from .materials import SLOTS, MaterialParams
from .program import Program

_FLOAT = 4
#: Texture units of the passes (above the draw shaders' slots and buffers): the
#: picture's copy, the vertices' places on screen, the edges, the picture's depth, each
#: edge's primitive, the primitives' records.
PICTURE_UNIT, PLACES_UNIT, EDGES_UNIT, DEPTH_UNIT, SLOTS_UNIT, PARTS_UNIT = 15, 13, 14, 12, 11, 10
OUTLINE_UNIT = SLOTS.index("outline")
#: Edges between faces closer than this to one plane are no edges (``mesh_edges``).
FLAT_DEGREES = 1.0
#: How far (metres) an edge's band is pulled towards the eye, so that it passes the
#: depth test on the surface it edges (which turns away steeply there: a head's within
#: a pixel of its silhouette lies up to about 2 cm nearer) but not behind an arm or
#: hair in front of it.
DEPTH_BIAS = 0.03


def mesh_edges(indices: np.ndarray, positions: np.ndarray,
               flat_degrees: float = FLAT_DEGREES) -> np.ndarray:
    """(edges, 4) uint32: per edge ``c, a, b, d``, where ``a, b, c`` is a face in winding
    order whose edge is ``a -> b`` and ``b, a, d`` the face across it; ``d == c`` marks
    an open edge (no face across, or one wound the other way, or a third face on the
    edge: each is then its own open edge). Vertices at the same position count as one;
    degenerate faces are left out, and so are edges between faces less than
    ``flat_degrees`` from one plane (the diagonal of a flat quad): they can only be on
    the silhouette when both faces are seen edge-on, where the edges around them are."""
    faces = np.asarray(indices, np.int64).reshape(-1, 3)
    if not len(faces):
        return np.zeros((0, 4), np.uint32)
    points = np.ascontiguousarray(np.asarray(positions, np.float32))
    _unique, weld = np.unique(points, axis=0, return_inverse=True)
    weld = np.asarray(weld).reshape(-1)
    welded = weld[faces]
    keep = ((welded[:, 0] != welded[:, 1]) & (welded[:, 1] != welded[:, 2])
            & (welded[:, 0] != welded[:, 2]))
    faces, welded = faces[keep], welded[keep]
    triples = np.concatenate([faces[:, [0, 1, 2]], faces[:, [1, 2, 0]], faces[:, [2, 0, 1]]])
    ends = np.concatenate([welded[:, [0, 1]], welded[:, [1, 2]], welded[:, [2, 0]]])
    key = ends.min(axis=1) * (len(points) + 1) + ends.max(axis=1)
    order = np.argsort(key, kind="stable")
    key, triples, ends = key[order], triples[order], ends[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[starts, len(key)])
    pair = starts[counts == 2]  # exactly two faces: a pair when wound opposite ways
    pair = pair[(ends[pair, 0] == ends[pair + 1, 1]) & (ends[pair, 1] == ends[pair + 1, 0])]
    lone = np.ones(len(key), bool)
    lone[pair] = lone[pair + 1] = False
    first, second, single = triples[pair], triples[pair + 1], triples[lone]
    if flat_degrees > 0:  # faces this close to one plane turn away together
        p64 = points.astype(np.float64)
        a, b = p64[first[:, 0]], p64[first[:, 1]]
        one, two = np.cross(b - a, p64[first[:, 2]] - a), np.cross(a - b, p64[second[:, 2]] - b)
        sizes = np.linalg.norm(one, axis=1) * np.linalg.norm(two, axis=1)
        cosine = (one * two).sum(axis=1) / np.maximum(sizes, 1e-30)
        bent = cosine < np.cos(np.radians(flat_degrees))
        first, second = first[bent], second[bent]
    out = np.concatenate([
        np.stack([first[:, 2], first[:, 0], first[:, 1], second[:, 2]], axis=1),
        np.stack([single[:, 2], single[:, 0], single[:, 1], single[:, 2]], axis=1)])
    return out.astype(np.uint32)


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


class _Compute:
    """The entry points the edge lines need beyond OpenGL 3.3."""

    def __init__(self) -> None:
        self.dispatch = _entry("glDispatchCompute", _U, _U, _U)
        self.barrier = _entry("glMemoryBarrier", _U)
        self.bind_image = _entry("glBindImageTexture", _U, _U, _INT, ctypes.c_ubyte, _INT,
                                 _U, _U)

    def __bool__(self) -> bool:
        return None not in (self.dispatch, self.barrier, self.bind_image)


def supported() -> bool:
    """True when the current context runs compute shaders (OpenGL 4.3), which the
    edge lines need."""
    from .context import gl_version

    return gl_version() >= (4, 3) and bool(_Compute())


def _storage(data: np.ndarray | None, size: int = 0, usage: int = GL.GL_STATIC_DRAW) -> int:
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


def _texels(buffer: int, fmt: int) -> int:
    """A buffer texture reading ``buffer`` as ``fmt`` texels."""
    texture = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_BUFFER, texture)
    GL.glTexBuffer(GL.GL_TEXTURE_BUFFER, fmt, buffer)
    GL.glBindTexture(GL.GL_TEXTURE_BUFFER, 0)
    return texture


class _Raw:
    """Unchecked entry points for the per-picture calls (``glcalls``' way)."""

    def __init__(self) -> None:
        from OpenGL.raw.GL.VERSION import GL_1_1, GL_1_3, GL_2_0, GL_3_0

        from .glcalls import _entry as entry
        from .glcalls import _with_pointer

        self.use_program = entry(GL_2_0.glUseProgram)
        self.active_texture = entry(GL_1_3.glActiveTexture)
        self.bind_texture = entry(GL_1_1.glBindTexture)
        self.bind_buffer_base = entry(GL_3_0.glBindBufferBase)
        self.uniform_1ui = entry(GL_3_0.glUniform1ui)
        self.uniform_2f = entry(GL_2_0.glUniform2f)
        self.uniform_4i = entry(GL_2_0.glUniform4i)
        self.uniform_matrix_4fv = _with_pointer(GL_2_0.glUniformMatrix4fv, ctypes.c_int,
                                                ctypes.c_int, ctypes.c_ubyte, ctypes.c_void_p)

    def texture(self, unit: int, target: int, texture: int) -> None:
        self.active_texture(GL.GL_TEXTURE0 + unit)
        self.bind_texture(target, texture)


_RAW: _Raw | None = None  # made with the first EdgeLines (a context current)
_GROUP = 64  # local_size_x of both compute passes


class _Held:
    """A buffer and a buffer texture over it."""

    def __init__(self, data: np.ndarray | None, size: int, fmt: int, usage: int) -> None:
        self.buffer = _storage(data, size, usage)
        self.texture = _texels(self.buffer, fmt)

    def release(self) -> None:
        GL.glDeleteTextures(np.array([self.texture], np.uint32))
        GL.glDeleteBuffers(1, np.array([self.buffer], np.uint32))


class _Layout:
    """The whole model in one edge pass: every primitive's vertices' places in one
    buffer (from its ``base``: the surface's place of each vertex, followed by its
    hull's when the primitive is ``outlined``), every edge of the model in one list of
    place indices, each edge's primitive, and a record per primitive written each
    picture."""

    def __init__(self, prims: list[GpuPrimitive], outlined: tuple[bool, ...],
                 edges_of: Callable[[GpuPrimitive], np.ndarray]) -> None:
        self.outlined = outlined
        self.bases: list[int] = []
        lists, slots, total = [], [], 0
        for slot, (prim, hull) in enumerate(zip(prims, outlined, strict=True)):
            places = 2 if hull else 1
            self.bases.append(total)
            edges = edges_of(prim)
            if len(edges):
                lists.append(total + places * edges.astype(np.int64))
                slots.append(np.full(len(edges), slot, np.uint32))
            total += prim.vertex_count * places
        edges = np.concatenate(lists).astype(np.uint32) if lists else np.zeros((0, 4), np.uint32)
        self.count = len(edges)
        self.places = _Held(None, total * 16, GL.GL_RGBA32F, GL.GL_DYNAMIC_COPY)
        self.edges = _Held(edges, 0, GL.GL_RGBA32UI, GL.GL_STATIC_DRAW)
        self.slots = _Held(np.concatenate(slots) if slots else np.zeros(0, np.uint32), 0,
                           GL.GL_R32UI, GL.GL_STATIC_DRAW)
        self.parts = _Held(None, len(prims) * 16, GL.GL_RGBA32F, GL.GL_DYNAMIC_DRAW)

    def release(self) -> None:
        for held in (self.places, self.edges, self.slots, self.parts):
            held.release()


class EdgeLines:
    """The edge lines of one loaded model (context current for every call, OpenGL 4.3):
    ``begin`` a picture, ``add`` each primitive drawn, ``finish``.

    ``finish`` runs a compute pass per primitive drawn that places its vertices on
    screen (``edge_points.comp.glsl``), then one over every edge of the model that
    tests them and walks the silhouette ones the picture shows, pixel by pixel
    (``edges.comp.glsl``)."""

    def __init__(self, gpu: GpuModel) -> None:
        global _RAW
        if _RAW is None:
            _RAW = _Raw()
        self.gpu = gpu
        self.gl = _Compute()
        self._programs: dict[tuple, Program] = {}
        self._edges: dict[tuple, np.ndarray] = {}  # per index set
        self._slot = {id(prim): slot for slot, prim in enumerate(gpu.primitives)}
        self._layout: _Layout | None = None
        self._size = (1.0, 1.0)
        self._queue: list[tuple] = []
        self._textures = (0, 0, 0)  # the picture's copy, its depth, the picture

    def edges(self, prim: GpuPrimitive) -> np.ndarray:
        """``prim``'s edges (``mesh_edges``; found on first use, shared by primitives
        with its arrays)."""
        key = (prim.vertex_key, id(prim.primitive.indices))
        found = self._edges.get(key)
        if found is None:
            found = self._edges[key] = mesh_edges(prim.primitive.indices,
                                                  prim.primitive.positions)
        return found

    def _program(self, name: str, outline: bool = False, tex_outline: bool = False,
                 preskinned: bool = False) -> Program:
        key = (name, outline, tex_outline, preskinned)
        program = self._programs.get(key)
        if program is None:
            defines = {}
            if outline:
                defines["OUTLINE"] = 1
                if tex_outline:
                    defines["TEX_OUTLINE"] = 1
            if preskinned:
                defines["PRESKINNED"] = 1
            program = Program(name, None, defines)
            program.use()
            for sampler, unit in (("u_tex_outline", OUTLINE_UNIT), ("u_picture", PICTURE_UNIT),
                                  ("u_clips", PLACES_UNIT), ("u_edges", EDGES_UNIT),
                                  ("u_depth", DEPTH_UNIT), ("u_slots", SLOTS_UNIT),
                                  ("u_parts", PARTS_UNIT), ("u_out", 0)):
                program.set_int(sampler, unit)
            program.set_float("u_depth_bias", DEPTH_BIAS)
            GL.glUseProgram(0)
            self._programs[key] = program
        return program

    def begin(self, copy: int, depth: int, picture: int, width: int, height: int) -> None:
        """Start the lines of a picture of width x height pixels: ``picture`` is its
        colour texture (RGBA8), ``copy`` a copy of it, ``depth`` its depth texture."""
        self._queue = []
        self._textures = (copy, depth, picture)
        self._size = (float(width), float(height))

    def add(self, prim: GpuPrimitive, params: MaterialParams, slot: int,
            model_matrix: np.ndarray | None, front: float) -> None:
        """The silhouette lines of ``prim`` and, when its material (record ``slot``)
        has one, of its outline hull. ``model_matrix``: its node's world matrix, None
        when its vertices come from the skinning pass; ``front``: +1 when the faces
        drawn as front faces turn counter-clockwise on screen, -1 clockwise."""
        if len(self.edges(prim)):
            visible = (0.0 if params.double_sided else front, -front)
            self._queue.append((prim, params, slot, model_matrix, visible))

    def _current_layout(self) -> _Layout:
        """The layout for the outlines of this picture's primitives (made again when a
        material gains or loses its outline)."""
        outlined = [False] * len(self.gpu.primitives)
        layout = self._layout
        for prim, params, *_rest in self._queue:
            outlined[self._slot[id(prim)]] = params.has_outline
        if layout is not None and any(outlined[self._slot[id(prim)]]
                                      != layout.outlined[self._slot[id(prim)]]
                                      for prim, *_rest in self._queue):
            layout.release()
            layout = None
        if layout is None:
            layout = self._layout = _Layout(self.gpu.primitives, tuple(outlined), self.edges)
        return layout

    def finish(self, bind_material: Callable[[int], None]) -> None:
        """Place, test and walk the edges of everything added, writing the picture.
        ``bind_material(slot)`` binds a material's record."""
        if not self._queue:
            return
        c, raw = self.gl, _RAW
        copy, depth, picture = self._textures
        layout = self._current_layout()
        parts = np.zeros((len(self.gpu.primitives), 4), np.float32)
        for prim, params, slot, matrix, visible in self._queue:
            index = self._slot[id(prim)]
            parts[index] = (*visible, float(layout.outlined[index]), 1.0)
            if params.has_outline:
                bind_material(slot)
            self._place(prim, params, matrix, layout, layout.bases[index])
        GL.glBindBuffer(GL.GL_TEXTURE_BUFFER, layout.parts.buffer)
        GL.glBufferSubData(GL.GL_TEXTURE_BUFFER, 0, parts.nbytes, parts)
        GL.glBindBuffer(GL.GL_TEXTURE_BUFFER, 0)
        c.barrier(GL.GL_SHADER_STORAGE_BARRIER_BIT | GL.GL_TEXTURE_FETCH_BARRIER_BIT)
        program = self._program("edges.comp.glsl")
        raw.use_program(program.id)
        raw.uniform_2f(program.location("u_size"), *self._size)
        raw.uniform_1ui(program.location("u_count"), layout.count)
        for unit, target, texture in (
                (PICTURE_UNIT, GL.GL_TEXTURE_2D, copy), (DEPTH_UNIT, GL.GL_TEXTURE_2D, depth),
                (PLACES_UNIT, GL.GL_TEXTURE_BUFFER, layout.places.texture),
                (EDGES_UNIT, GL.GL_TEXTURE_BUFFER, layout.edges.texture),
                (SLOTS_UNIT, GL.GL_TEXTURE_BUFFER, layout.slots.texture),
                (PARTS_UNIT, GL.GL_TEXTURE_BUFFER, layout.parts.texture)):
            raw.texture(unit, target, texture)
        c.bind_image(0, picture, 0, GL.GL_FALSE, 0, GL.GL_WRITE_ONLY, GL.GL_RGBA8)
        c.dispatch(-(-layout.count // _GROUP), 1, 1)
        self._queue = []
        c.barrier(GL.GL_FRAMEBUFFER_BARRIER_BIT | GL.GL_TEXTURE_UPDATE_BARRIER_BIT
                  | GL.GL_PIXEL_BUFFER_BARRIER_BIT | GL.GL_TEXTURE_FETCH_BARRIER_BIT)
        raw.use_program(0)
        raw.active_texture(GL.GL_TEXTURE0)

    def _place(self, prim: GpuPrimitive, params: MaterialParams,
               matrix: np.ndarray | None, layout: _Layout, base: int) -> None:
        """The first pass for one primitive: its vertices on screen (and on its hull),
        into ``layout``'s places from ``base`` on. A rigid primitive's morph targets are
        not applied (the draw applies them)."""
        raw = _RAW
        preskinned = matrix is None
        outline = params.has_outline
        tex_outline = outline and "outline" in params.textures and prim.has_uv
        buffers = self.gpu.vertex_buffers(prim)
        if preskinned:
            skinned = prim.skinned_set
            stride = skinned.stride // _FLOAT
            positions = normals = skinned.buffer
            layout_floats = (stride, 0, stride, 3)
        else:
            positions = buffers["position"]
            normals = buffers.get("normal", positions)
            layout_floats = (3, 0, 3, 0)
        program = self._program("edge_points.comp.glsl", outline, tex_outline, preskinned)
        raw.use_program(program.id)
        raw.uniform_4i(program.location("u_layout"), *layout_floats)
        raw.uniform_1ui(program.location("u_count"), prim.vertex_count)
        raw.uniform_1ui(program.location("u_base"), base)
        if not preskinned:
            model = np.ascontiguousarray(matrix, np.float32)
            raw.uniform_matrix_4fv(program.location("u_model"), 1, 1, model.ctypes.data)
        for binding, buffer in ((0, positions), (1, normals), (3, layout.places.buffer)):
            raw.bind_buffer_base(GL.GL_SHADER_STORAGE_BUFFER, binding, buffer)
        if tex_outline:
            raw.bind_buffer_base(GL.GL_SHADER_STORAGE_BUFFER, 2, buffers["uv0"])
            raw.texture(OUTLINE_UNIT, GL.GL_TEXTURE_2D,
                        self.gpu.texture(params.textures["outline"].index, False))
        self.gl.dispatch(-(-prim.vertex_count // _GROUP), 1, 1)

    def release(self) -> None:
        for program in self._programs.values():
            program.release()
        self._programs.clear()
        if self._layout is not None:
            self._layout.release()
            self._layout = None
        self._edges = {}
