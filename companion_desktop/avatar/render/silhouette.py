"""Edge lines: her silhouette smoothed from the geometry, for software GL.

A post pass has to guess where an edge runs from the finished pixels. The mesh knows:
an edge whose two faces turn opposite ways on screen is on her silhouette, and so is
an open edge of a face that is drawn. Each such edge, where the picture changes across
it, is walked pixel by pixel over the finished picture (depth-tested: hidden ones
change nothing), and each pixel it crosses takes, from its neighbour across the edge,
the exact share of its square that lies beyond the edge (``shaders/edges.comp.glsl``).
MToon outlines get the same from their hull, placed as ``shaders/outline.glsl`` draws
it, so both sides of the dark outline are placed to a fraction of a pixel.

The edges of a mesh are found on its first picture (``mesh_edges``). Per picture one
compute pass places every vertex on screen (``shaders/edge_places.comp.glsl``; a
primitive whose outline width comes from a texture has its own,
``edge_points.comp.glsl``), then one tests every edge of the model and lists the
silhouette ones the picture shows, and a last one, sized by that list (an indirect
dispatch), walks them. Walking in the testing pass left most invocations of a group
idle while a few walked (llvmpipe runs a group's invocations a vector at a time):
at the full shot of the overlay, the two passes cost a fifth less CPU than the
one. The lines cost about as much as the full-screen post pass, and follow the number
of edges (``bench --only edges``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from OpenGL import GL

from companion_desktop.avatar.vrm.frame import Frame

from .compute import Compute, Held, storage, supported
from .glcalls import GLCalls
from .gpu import GpuModel, GpuPrimitive, mirrored
from .material_table import MaterialTable
from .materials import SLOTS, MaterialParams
from .mesh_edges import mesh_edges
from .program import Program

__all__ = ["EdgeLines", "mesh_edges", "supported"]

_FLOAT = 4
#: Texture units of the passes (above the draw shaders' slots and buffers): the
#: picture's copy, the vertices' places on screen, the edges, the picture's depth, each
#: edge's primitive, the primitives' records; the first pass's vertex jobs and records.
PICTURE_UNIT, PLACES_UNIT, EDGES_UNIT, DEPTH_UNIT, SLOTS_UNIT, PARTS_UNIT = 15, 13, 14, 12, 11, 10
JOBS_UNIT, RECORDS_UNIT = 11, 10  # the first pass's (it reads no edges)
FOUND_BINDING = 7  # the storage buffer of the silhouette edges a picture shows
OUTLINE_UNIT = SLOTS.index("outline")
#: How far (metres) an edge is pulled towards the eye, so that it passes the
#: depth test on the surface it edges (which turns away steeply there: a head's within
#: a pixel of its silhouette lies up to about 2 cm nearer) but not behind an arm or
#: hair in front of it.
DEPTH_BIAS = 0.03


def _texture(calls: GLCalls, unit: int, target: int, texture: int) -> None:
    calls.active_texture(GL.GL_TEXTURE0 + unit)
    calls.bind_texture(target, texture)


def _textured(prim: GpuPrimitive, params: MaterialParams) -> bool:
    """True when ``prim``'s outline width comes from a texture (placed on its own)."""
    return params.has_outline and "outline" in params.textures and prim.has_uv


_GROUP = 64  # local_size_x of the compute passes
#: The found list's header before each picture: no work groups (x), one high and deep
#: (y, z), no edges.
_FOUND_HEADER = np.array([0, 1, 1, 0], np.uint32)


class _Layout:
    """The whole model in two passes.

    Places: every primitive's vertices' places in one buffer (from its ``base``: the
    surface's place of each vertex, followed by its hull's when it is ``outlined``).
    The vertices of every primitive but the ``textured`` ones (outline width from a
    texture: placed one by one) are placed by one pass, from ``sources``: each
    skinned vertex set's output is copied there every picture (``copies``), rigid
    primitives' own vertices once; ``jobs`` says per vertex where from and where to.

    Edges: every edge of the model in one list of place indices, each edge's
    primitive (``slots``), and a record per primitive written each picture."""

    def __init__(self, prims: list[GpuPrimitive], outlined: tuple[bool, ...],
                 textured: tuple[bool, ...],
                 edges_of: Callable[[GpuPrimitive], np.ndarray]) -> None:
        self.outlined, self.textured = outlined, textured
        self.bases: list[int] = []
        lists, slots, jobs, total = [], [], [], 0
        sets: dict[int, int] = {}  # skinned set (id) -> where it starts in sources (floats)
        self.copies: list[tuple[int, int, int]] = []  # (buffer, offset, bytes)
        rigid: list[np.ndarray] = []
        end = 0  # floats in sources so far
        for slot, (prim, hull, own) in enumerate(zip(prims, outlined, textured, strict=True)):
            places = 2 if hull else 1
            self.bases.append(total)
            edges = edges_of(prim)
            if len(edges):
                lists.append(total + places * edges.astype(np.int64))
                slots.append(np.full(len(edges), slot, np.uint32))
            count = prim.vertex_count
            if len(edges) and not own:
                skinned = prim.skinned_set if prim.skin is not None else None
                if skinned is not None:
                    stride = skinned.stride // _FLOAT
                    start = sets.get(id(skinned))
                    if start is None:
                        start = sets[id(skinned)] = end
                        self.copies.append((skinned.buffer, start * _FLOAT, count * skinned.stride))
                        end += count * stride
                else:
                    stride, start = 6, end
                    data = prim.primitive
                    normals = data.normals if data.normals is not None and len(data.normals) \
                        == count else np.zeros((count, 3), np.float32)
                    rigid.append((start, np.hstack([data.positions, normals]).astype(np.float32)))
                    end += count * 6
                local = np.arange(count, dtype=np.int64)
                jobs.append(np.stack([np.full(count, slot), start + stride * local,
                                      total + places * local, np.zeros(count, np.int64)], axis=1))
            total += count * places
        edges = np.concatenate(lists).astype(np.uint32) if lists else np.zeros((0, 4), np.uint32)
        self.count = len(edges)
        self.places = Held(None, total * 16, GL.GL_RGBA32F, GL.GL_DYNAMIC_COPY)
        self.edges = Held(edges, 0, GL.GL_RGBA32UI, GL.GL_STATIC_DRAW)
        self.slots = Held(np.concatenate(slots) if slots else np.zeros(0, np.uint32), 0,
                           GL.GL_R32UI, GL.GL_STATIC_DRAW)
        self.parts = Held(None, len(prims) * 16, GL.GL_RGBA32F, GL.GL_DYNAMIC_DRAW)
        job_list = np.concatenate(jobs).astype(np.uint32) if jobs else np.zeros((0, 4), np.uint32)
        self.jobs_count = len(job_list)
        self.jobs = Held(job_list, 0, GL.GL_RGBA32UI, GL.GL_STATIC_DRAW)
        self.records = Held(None, len(prims) * 5 * 16, GL.GL_RGBA32F, GL.GL_DYNAMIC_DRAW)
        # the silhouette edges a picture shows: a header (the walk's work groups, their
        # count) and at most two entries an edge (its surface's and its hull's)
        self.found = storage(None, _FOUND_HEADER.nbytes + 8 * self.count, GL.GL_DYNAMIC_COPY)
        self.sources = storage(None, max(end, 1) * _FLOAT, GL.GL_DYNAMIC_COPY)
        GL.glBindBuffer(GL.GL_SHADER_STORAGE_BUFFER, self.sources)
        for start, data in rigid:
            GL.glBufferSubData(GL.GL_SHADER_STORAGE_BUFFER, start * _FLOAT, data.nbytes, data)
        GL.glBindBuffer(GL.GL_SHADER_STORAGE_BUFFER, 0)

    def release(self) -> None:
        for held in (self.places, self.edges, self.slots, self.parts, self.jobs, self.records):
            held.release()
        GL.glDeleteBuffers(2, np.array([self.sources, self.found], np.uint32))


class EdgeLines:
    """The edge lines of one loaded model (context current for every call, OpenGL 4.3):
    ``begin`` a picture, ``add`` each primitive drawn, ``finish``.

    ``finish`` places the vertices of the primitives drawn on screen
    (``edge_places.comp.glsl``, ``edge_points.comp.glsl``), then tests every edge of
    the model and lists the silhouette ones the picture shows, then walks those, pixel
    by pixel (``edges.comp.glsl``, its two parts)."""

    def __init__(self, gpu: GpuModel, calls: GLCalls) -> None:
        self.gpu = gpu
        self.calls = calls
        self.gl = Compute()
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
                 preskinned: bool = False, find: bool = False) -> Program:
        key = (name, outline, tex_outline, preskinned, find)
        program = self._programs.get(key)
        if program is None:
            defines = {"FIND": 1} if find else {}
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
                                  ("u_parts", PARTS_UNIT), ("u_jobs", JOBS_UNIT),
                                  ("u_records", RECORDS_UNIT), ("u_out", 0)):
                program.set_int(sampler, unit)
            program.set_float("u_depth_bias", DEPTH_BIAS)
            GL.glUseProgram(0)
            self._programs[key] = program
        return program

    def draw(self, frame: Frame, ordered: list[tuple[int, GpuPrimitive]], table: MaterialTable,
             flip_y: bool, copy: int, depth: int, picture: int, width: int, height: int, *,
             bind_material: Callable[[int], None]) -> None:
        """The lines of every primitive ``ordered`` (as the renderer drew them, their
        materials in ``table``) over the finished picture: ``begin``, ``add``, ``finish``."""
        self.begin(copy, depth, picture, width, height)
        for _index, prim in ordered:
            slot, params = table.slot(prim.material)
            matrix = None if prim.skin is not None else frame.world[prim.node]
            self.add(prim, params, slot, matrix,
                     -1.0 if mirrored(prim, frame.world) != flip_y else 1.0)
        self.finish(bind_material)

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
        material gains or loses its outline, or its outline width texture)."""
        count = len(self.gpu.primitives)
        layout = self._layout
        outlined = list(layout.outlined) if layout is not None else [False] * count
        textured = list(layout.textured) if layout is not None else [False] * count
        for prim, params, *_rest in self._queue:
            index = self._slot[id(prim)]
            outlined[index] = params.has_outline
            textured[index] = _textured(prim, params)
        if layout is not None and (tuple(outlined), tuple(textured)) != (layout.outlined,
                                                                         layout.textured):
            layout.release()
            layout = None
        if layout is None:
            layout = self._layout = _Layout(self.gpu.primitives, tuple(outlined),
                                            tuple(textured), self.edges)
        return layout

    def finish(self, bind_material: Callable[[int], None]) -> None:
        """Place, test and walk the edges of everything added, writing the picture.
        ``bind_material(slot)`` binds a material's record."""
        if not self._queue:
            return
        c, raw = self.gl, self.calls
        copy, depth, picture = self._textures
        layout = self._current_layout()
        parts = np.zeros((len(self.gpu.primitives), 4), np.float32)
        records = np.zeros((len(self.gpu.primitives), 5, 4), np.float32)
        for prim, params, slot, matrix, visible in self._queue:
            index = self._slot[id(prim)]
            parts[index] = (*visible, float(layout.outlined[index]), 1.0)
            if layout.textured[index]:
                bind_material(slot)
                self._place(prim, params, matrix, layout, layout.bases[index])
                continue
            if matrix is not None:
                records[index, :4] = np.asarray(matrix, np.float32).T
            records[index, 4] = (params.outline_width, float(params.outline_mode),
                                 float(layout.outlined[index]), float(matrix is not None))
        for held, data in ((layout.parts, parts), (layout.records, records)):
            GL.glBindBuffer(GL.GL_TEXTURE_BUFFER, held.buffer)
            GL.glBufferSubData(GL.GL_TEXTURE_BUFFER, 0, data.nbytes, data)
        GL.glBindBuffer(GL.GL_TEXTURE_BUFFER, 0)
        self._place_all(layout)
        c.barrier(GL.GL_SHADER_STORAGE_BARRIER_BIT | GL.GL_TEXTURE_FETCH_BARRIER_BIT)
        for unit, target, texture in (
                (PICTURE_UNIT, GL.GL_TEXTURE_2D, copy), (DEPTH_UNIT, GL.GL_TEXTURE_2D, depth),
                (PLACES_UNIT, GL.GL_TEXTURE_BUFFER, layout.places.texture),
                (EDGES_UNIT, GL.GL_TEXTURE_BUFFER, layout.edges.texture),
                (SLOTS_UNIT, GL.GL_TEXTURE_BUFFER, layout.slots.texture),
                (PARTS_UNIT, GL.GL_TEXTURE_BUFFER, layout.parts.texture)):
            _texture(raw, unit, target, texture)
        # every edge tested, the ones to walk listed; then only those walked, so that no
        # invocation idles while a neighbour walks (llvmpipe runs them a vector at a time)
        raw.bind_buffer(GL.GL_SHADER_STORAGE_BUFFER, layout.found)
        raw.buffer_sub_data(GL.GL_SHADER_STORAGE_BUFFER, 0, _FOUND_HEADER.nbytes,
                            _FOUND_HEADER.ctypes.data)
        raw.bind_buffer(GL.GL_SHADER_STORAGE_BUFFER, 0)
        raw.bind_buffer_base(GL.GL_SHADER_STORAGE_BUFFER, FOUND_BINDING, layout.found)
        c.bind_image(0, picture, 0, GL.GL_FALSE, 0, GL.GL_WRITE_ONLY, GL.GL_RGBA8)
        for find in (True, False):
            program = self._program("edges.comp.glsl", find=find)
            raw.use_program(program.id)
            raw.uniform_2f(program.location("u_size"), *self._size)
            if find:
                raw.uniform_1ui(program.location("u_count"), layout.count)
                c.dispatch(-(-layout.count // _GROUP), 1, 1)
                c.barrier(GL.GL_SHADER_STORAGE_BARRIER_BIT | GL.GL_COMMAND_BARRIER_BIT)
            else:
                raw.bind_buffer(GL.GL_DISPATCH_INDIRECT_BUFFER, layout.found)
                c.dispatch_indirect(0)
                raw.bind_buffer(GL.GL_DISPATCH_INDIRECT_BUFFER, 0)
        self._queue = []
        c.barrier(GL.GL_FRAMEBUFFER_BARRIER_BIT | GL.GL_TEXTURE_UPDATE_BARRIER_BIT
                  | GL.GL_PIXEL_BUFFER_BARRIER_BIT | GL.GL_TEXTURE_FETCH_BARRIER_BIT)
        raw.use_program(0)
        raw.active_texture(GL.GL_TEXTURE0)

    def _place_all(self, layout: _Layout) -> None:
        """The first pass for every primitive but the textured ones, at once."""
        if not layout.jobs_count:
            return
        raw = self.calls
        for buffer, offset, size in layout.copies:  # the skinning pass's output, this picture
            raw.bind_buffer(GL.GL_COPY_READ_BUFFER, buffer)
            raw.bind_buffer(GL.GL_COPY_WRITE_BUFFER, layout.sources)
            raw.copy_buffer_sub_data(GL.GL_COPY_READ_BUFFER, GL.GL_COPY_WRITE_BUFFER, 0, offset,
                                     size)
        raw.bind_buffer(GL.GL_COPY_READ_BUFFER, 0)
        raw.bind_buffer(GL.GL_COPY_WRITE_BUFFER, 0)
        program = self._program("edge_places.comp.glsl")
        raw.use_program(program.id)
        raw.uniform_1ui(program.location("u_count"), layout.jobs_count)
        raw.bind_buffer_base(GL.GL_SHADER_STORAGE_BUFFER, 0, layout.sources)
        raw.bind_buffer_base(GL.GL_SHADER_STORAGE_BUFFER, 3, layout.places.buffer)
        _texture(raw, JOBS_UNIT, GL.GL_TEXTURE_BUFFER, layout.jobs.texture)
        _texture(raw, RECORDS_UNIT, GL.GL_TEXTURE_BUFFER, layout.records.texture)
        self.gl.dispatch(-(-layout.jobs_count // _GROUP), 1, 1)

    def _place(self, prim: GpuPrimitive, params: MaterialParams,
               matrix: np.ndarray | None, layout: _Layout, base: int) -> None:
        """The first pass for one primitive: its vertices on screen (and on its hull),
        into ``layout``'s places from ``base`` on. A rigid primitive's morph targets are
        not applied (the draw applies them)."""
        raw = self.calls
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
            _texture(raw, OUTLINE_UNIT, GL.GL_TEXTURE_2D,
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
