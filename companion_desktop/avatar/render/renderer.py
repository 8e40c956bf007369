"""Draw a ``VrmModel`` posed by a ``Frame`` with MToon-like shading. Needs only a current
OpenGL 3.3 core context (EGL offscreen, or the Qt widget's).

Draw order: OPAQUE, then MASK, then BLEND (sorted by MToon ``render_queue_offset``,
then back to front by primitive centroid); MToon outlines (inverted hull, front faces
culled) follow each primitive. Output is premultiplied, sRGB-encoded RGBA over a
(0, 0, 0, 0) clear, so a transparent window can composite it as it is.

Per frame the renderer does as little as it can: each draw uses a shader variant
compiled for what its material has (``variants``), material values live in a uniform
buffer written only when they change (``uniforms``), GL state is changed only when it
differs, and the draw loop calls OpenGL's entry points directly (``glcalls``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from OpenGL import GL

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import VrmModel

from .antialias import FROM_COPY, PostPass, auto_mode, check_mode
from .camera import Camera
from .compute import supported
from .context import require_gl33
from .extent import ScreenExtent
from .glcalls import GLCalls
from .gpu import GpuModel, GpuPrimitive, mirrored
from .material_table import MaterialTable
from .materials import SLOTS, SRGB_SLOTS, MaterialParams
from .silhouette import EdgeLines
from .skinning import SkinningPass
from .target import RenderTarget, clear_framebuffer, read_framebuffer, unpremultiply
from .uniforms import UniformBuffers, pack_frame
from .variants import JOINT_UNIT, MORPH_UNIT, ProgramCache, variant_key

MAX_ACTIVE_MORPHS = 32
#: MToon outlines are drawn at least this wide, in pixels of the picture shown: a hull
#: thinner than a pixel falls between pixel centres and breaks into dots.
OUTLINE_LEAST_PIXELS = 1.0


@dataclass
class Lighting:
    """A key directional light given in *camera* space (towards the light: up, left,
    in front), its linear colour, and a sky/ground hemisphere ambient (linear)."""

    direction: np.ndarray = field(default_factory=lambda: np.array([-0.4, 0.6, 0.5], np.float32))
    color: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    sky: np.ndarray = field(default_factory=lambda: np.array([0.42, 0.43, 0.47], np.float32))
    ground: np.ndarray = field(default_factory=lambda: np.array([0.24, 0.22, 0.21], np.float32))
    toon_ambient: float = 0.3  # MToon takes this share of the ambient (shade stays visible)


def active_morphs(weights: np.ndarray, count: int, limit: int = MAX_ACTIVE_MORPHS):
    """(indices, weights) of the non-zero weights among the first ``count``, at most
    ``limit`` of them (the largest by magnitude)."""
    w = np.asarray(weights, np.float32)[:count]
    index = np.flatnonzero(np.abs(w) > 1e-6)
    if len(index) > limit:
        index = index[np.argsort(-np.abs(w[index]), kind="stable")[:limit]]
    return index.astype(np.int32), w[index]


def _background(color) -> tuple[float, float, float, float]:
    """Premultiplied clear colour from RGB(A), either 0..1 floats or 0..255 ints."""
    if color is None:
        return (0.0, 0.0, 0.0, 0.0)
    c = np.asarray(color, np.float32).reshape(-1)
    c = c / 255.0 if c.max(initial=0.0) > 1.0 else c
    rgba = np.append(c[:3], c[3] if len(c) > 3 else 1.0)
    return (*map(float, rgba[:3] * rgba[3]), float(rgba[3]))


class _State:
    """The GL state the draw loop sets, remembered so unchanged state is not set again."""

    def __init__(self, calls: GLCalls) -> None:
        self.calls = calls
        self.reset()

    def reset(self) -> None:
        self.values: dict[object, object] = {}

    def set(self, key: object, value: object, apply) -> None:  # noqa: ANN001
        if self.values.get(key, self) != value:
            self.values[key] = value
            apply(value)

    def texture(self, unit: int, target: int, texture: int) -> None:
        if self.values.get(("tex", unit)) != (target, texture):
            self.values[("tex", unit)] = (target, texture)
            self.calls.active_texture(GL.GL_TEXTURE0 + unit)
            self.calls.bind_texture(target, texture)


class Renderer:
    """``load(model)`` once, then ``draw(frame, camera, width, height)`` per picture."""

    def __init__(self, samples: int = 4, lighting: Lighting | None = None,
                 normal_maps: bool = True, specialize: bool = True, aa: str | None = None):
        """``aa``: how its targets smooth edges (``antialias.MODES``; ``"auto"``: what the
        app uses with this context's GL, ``antialias.auto_mode``); None: multisampling with
        ``samples`` (none when ``samples`` < 2). ``normal_maps`` False draws every material
        as if it had no normal texture (the shaders are then built without the normal-map
        code). ``specialize`` False
        draws with the all-in-one shader and skins in every draw: slower, the same
        picture (the reference the tests hold the fast path to)."""
        require_gl33()
        self.specialize = specialize
        self.samples = samples
        aa = aa or ("msaa" if samples > 1 else "none")
        self.aa = auto_mode() if check_mode(aa) == "auto" else aa
        if self.aa == "lines" and not (specialize and supported()):
            self.aa = "post"  # the lines need compute shaders and the skinning pass
        self.post: PostPass | None = None  # made with the first "post" target
        self.lighting = lighting or Lighting()
        self.normal_maps = normal_maps
        self.calls = GLCalls()
        self.programs = ProgramCache()
        self.uniforms = UniformBuffers(self.calls)
        self._state = _State(self.calls)
        self.gpu: GpuModel | None = None
        self.extent: ScreenExtent | None = None
        self._screen_outline = 0.0
        self.materials: MaterialTable | None = None
        self.skinning: SkinningPass | None = None
        self.edges: EdgeLines | None = None
        self.target: RenderTarget | None = None
        self._last_read: tuple[int, int, int] | None = None
        self._variants: dict[tuple, object] = {}

    # -- model -------------------------------------------------------------------
    def load(self, model: VrmModel) -> None:
        """Upload ``model`` (replacing the previous one)."""
        if self.gpu is not None:
            self.edges.release()
            self.skinning.release()
            self.gpu.release()
        self.gpu = GpuModel(model, normal_maps=self.normal_maps)
        self.edges = EdgeLines(self.gpu, self.calls)
        self.skinning = SkinningPass(self.gpu, self.calls)
        self.materials = MaterialTable(model, [p.material for p in self.gpu.primitives])
        params = [self.materials.slot(p.material)[1] for p in self.gpu.primitives]
        widths = {mode: max((p.outline_width for p in params
                             if p.has_outline and p.outline_mode == mode), default=0.0)
                  for mode in (1, 2)}
        self.extent = ScreenExtent(model, outline=widths[1])
        self._screen_outline = widths[2]  # fraction of the picture's height
        self._variants.clear()

    # -- drawing -----------------------------------------------------------------
    def draw(self, frame: Frame, camera: Camera, width: int, height: int,
             target_fbo: int | None = None, background=None, flip_y: bool = False,
             same_frame: bool = False, pixel_scale: float = 1.0) -> None:
        """Draw one picture. ``target_fbo`` None draws into the renderer's own target
        (``new_target``: its antialiasing), read back by ``read_rgba``; an int draws into
        that framebuffer (0 is the default one; a Qt widget passes its
        ``defaultFramebufferObject()``; a ``new_target``'s ``draw_fbo``, then its
        ``resolve()``, for the edge lines or the post pass).
        ``flip_y`` draws upside down, so that a read-back comes top row first.
        ``same_frame`` says ``frame`` was drawn just before, unchanged (another window
        showing the same moment): its skinning pass is then reused. ``pixel_scale``: drawn
        pixels per pixel of the picture finally shown (4 for a reference drawn at 4x the
        size and averaged down), so outlines keep their least width in shown pixels."""
        if self.gpu is None:
            raise RuntimeError("Renderer.load(model) must come before draw()")
        if target_fbo is None:
            if self.target is None or (self.target.width, self.target.height) != (width, height):
                if self.target is not None:
                    self.target.release()
                self.target = self.new_target(width, height)
            fbo = self.target.draw_fbo
        else:
            fbo = target_fbo
        self._state.reset()
        GL.glViewport(0, 0, width, height)
        GL.glDisable(GL.GL_FRAMEBUFFER_SRGB)  # the shaders encode sRGB themselves
        clear_framebuffer(fbo, _background(background))
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDepthFunc(GL.GL_LEQUAL)
        view = camera.view_matrix()
        proj = camera.projection_matrix(width / height)
        if flip_y:
            proj = proj.copy()
            proj[1] *= -1.0
        least = 2.0 * OUTLINE_LEAST_PIXELS * pixel_scale / height
        self._frame_block(view, proj, camera, least)
        if self.post is not None:  # the post pass works where she can be, and no further
            pad = 2 + int(np.ceil(OUTLINE_LEAST_PIXELS * pixel_scale
                                  + self._screen_outline * height))
            self.post.regions[fbo] = self.extent.rectangle(frame, view, proj, width, height, pad)
        if not (same_frame and self.skinning.done_for(frame)):
            self.gpu.update_joints(frame.joint_matrices)
            if self.specialize:
                self.skinning.run(frame, self._morph_uniforms)
            self._state.reset()
        table = self.materials.update(frame)
        self.uniforms.set_materials(table.records)
        ordered = self._ordered(frame, view, table)
        for index, prim in ordered:
            slot, params = table.slot(prim.material)
            self._draw_primitive(frame, index, prim, slot, params, False, flip_y)
            if params.has_outline:
                self._draw_primitive(frame, index, prim, slot, params, True, flip_y)
        self._reset_state()
        if self.aa == "lines" and self.post is not None:
            self.post.lines[fbo] = lambda *textures_and_size: self._draw_edges(
                frame, ordered, table, flip_y, *textures_and_size)
        if target_fbo is None:
            self.target.resolve()
            self._last_read = (self.target.resolve_fbo, width, height)
        else:
            self._last_read = (target_fbo, width, height)

    def new_target(self, width: int, height: int) -> RenderTarget:
        """A render target of this renderer's antialiasing (its post pass shared)."""
        if self.aa in FROM_COPY and self.post is None:
            self.post = PostPass()
        return RenderTarget(width, height, self.samples, aa=self.aa, post=self.post)

    @staticmethod
    def clear(target_fbo: int | None = None, background=None) -> None:
        """Clear a framebuffer to transparent (or ``background``) when there is nothing
        to draw; ``target_fbo`` None clears the one bound now. Needs no loaded model."""
        clear_framebuffer(target_fbo, _background(background))

    def read_rgba(self, premultiplied: bool = False) -> np.ndarray:
        """The last picture, (height, width, 4) uint8, top row first; straight alpha
        (for PNG files) unless ``premultiplied``."""
        if self._last_read is None:
            raise RuntimeError("nothing drawn yet")
        fbo, width, height = self._last_read
        if fbo == getattr(self.target, "resolve_fbo", None):
            return self.target.read_rgba(premultiplied)
        pixels = read_framebuffer(fbo, width, height)
        return pixels if premultiplied else unpremultiply(pixels)

    def read_pixel(self, x: int = 0, y: int = 0) -> np.ndarray:
        """One pixel (4 uint8, premultiplied RGBA) of the last picture, GL's row order
        (y up). Waits for the picture to finish: a cheap way to time a frame."""
        if self._last_read is None:
            raise RuntimeError("nothing drawn yet")
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self._last_read[0])
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
        data = GL.glReadPixels(int(x), int(y), 1, 1, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
        return np.frombuffer(data, np.uint8)[:4].copy()

    def _frame_block(self, view: np.ndarray, proj: np.ndarray, camera: Camera,
                     outline_least: float = 0.0) -> None:
        light = view[:3, :3].T @ np.asarray(self.lighting.direction, np.float32)
        light /= max(float(np.linalg.norm(light)), 1e-9)
        lighting = self.lighting
        self.uniforms.set_frame(pack_frame(view, proj, camera.eye, light, lighting.color,
                                           lighting.sky, lighting.ground, lighting.toon_ambient,
                                           outline_least))

    def _ordered(self, frame: Frame, view: np.ndarray, table: MaterialTable):
        """(index, primitive): opaque, then mask, then blend (queue offset, then far to
        near); file order within a queue."""
        keyed = []
        for index, prim in enumerate(self.gpu.primitives):
            p = table.slot(prim.material)[1]
            depth = 0.0
            if p.alpha_mode == 2:
                depth = float((view @ self._world_centroid(frame, prim))[2])
            keyed.append(((p.alpha_mode, p.render_queue_offset if p.alpha_mode == 2 else 0,
                           depth), index, prim))
        keyed.sort(key=lambda item: item[0])
        return [(index, prim) for _key, index, prim in keyed]

    @staticmethod
    def _world_centroid(frame: Frame, prim: GpuPrimitive) -> np.ndarray:
        if prim.skin is None:
            return frame.world[prim.node] @ prim.centroid
        matrices = frame.joint_matrices[prim.skin]
        blended = np.einsum("j,jab->ab", prim.joint_share[: len(matrices)], matrices)
        return blended @ prim.centroid

    def _program(self, index: int, prim: GpuPrimitive, slot: int, params: MaterialParams,
                 outline: bool):
        cache_key = (index, outline, slot, self.materials.version(slot))
        program = self._variants.get(cache_key)
        if program is None:
            skinned = prim.skin is not None
            key = variant_key(params, outline=outline, skinned=skinned,
                              morphs=prim.target_count > 0 and not (skinned and self.specialize),
                              normal_map=prim.has_tangents and self.normal_maps,
                              vertex_color=prim.has_color, specialize=self.specialize)
            program = self._variants[cache_key] = self.programs.get(key)
        return program

    def _draw_primitive(self, frame: Frame, index: int, prim: GpuPrimitive, slot: int,
                        p: MaterialParams, outline: bool, flip_y: bool) -> None:
        c, state = self.calls, self._state
        program = self._program(index, prim, slot, p, outline)
        state.set("program", program.id, c.use_program)
        self._pipeline_state(frame, prim, p, outline, flip_y)
        preskinned = prim.skin is not None and self.specialize
        if not preskinned:  # skinned ones come from the skinning pass, in world space
            model = np.ascontiguousarray(frame.world[prim.node], np.float32)
            c.uniform_matrix_4fv(program.loc_model, 1, 1, model.ctypes.data)
            if prim.skin is not None:
                state.texture(JOINT_UNIT, GL.GL_TEXTURE_BUFFER, self.gpu.joints[prim.skin][1])
            if prim.target_count:
                self._morph_uniforms(program, frame, prim)
        self.uniforms.bind_material(slot)
        for unit, name in enumerate(SLOTS):
            ref = p.textures.get(name)
            if ref is not None:
                state.texture(unit, GL.GL_TEXTURE_2D,
                              self.gpu.texture(ref.index, name in SRGB_SLOTS))
            elif not self.specialize:
                state.texture(unit, GL.GL_TEXTURE_2D, self.gpu.white)
        if not prim.has_uv:
            c.vertex_attrib_2f(2, 0.0, 0.0)
        if not prim.has_color:
            c.vertex_attrib_4f(5, 1.0, 1.0, 1.0, 1.0)
        state.set("vao", prim.draw_vao if preskinned else prim.vao, c.bind_vertex_array)
        c.draw_elements(GL.GL_TRIANGLES, prim.index_count, GL.GL_UNSIGNED_INT, None)

    def _pipeline_state(self, frame: Frame, prim: GpuPrimitive, p: MaterialParams,
                        outline: bool, flip_y: bool) -> None:
        c, state = self.calls, self._state
        if outline or not p.double_sided:
            state.set("cull", True, lambda _v: c.enable(GL.GL_CULL_FACE))
            state.set("cull_face", GL.GL_FRONT if outline else GL.GL_BACK, c.cull_face)
        else:
            state.set("cull", False, lambda _v: c.disable(GL.GL_CULL_FACE))
        turned = mirrored(prim, frame.world)
        state.set("front", GL.GL_CW if turned != flip_y else GL.GL_CCW, c.front_face)
        if p.alpha_mode == 2:
            state.set("blend", True,
                      lambda _v: (c.enable(GL.GL_BLEND),
                                  c.blend_func(GL.GL_ONE, GL.GL_ONE_MINUS_SRC_ALPHA)))
            state.set("depth_mask", GL.GL_TRUE if p.zwrite else GL.GL_FALSE, c.depth_mask)
        else:
            state.set("blend", False, lambda _v: c.disable(GL.GL_BLEND))
            state.set("depth_mask", GL.GL_TRUE, c.depth_mask)

    def _morph_uniforms(self, program, frame: Frame, prim: GpuPrimitive,  # noqa: ANN001
                        unit: int = MORPH_UNIT) -> None:
        c = self.calls
        count_loc, vertex_loc, stride_loc, index_loc, weight_loc = program.loc_morph
        count = 0
        if prim.mesh < len(frame.morph_weights):
            index, weight = active_morphs(frame.morph_weights[prim.mesh], prim.target_count)
            count = len(index)
            if count:
                c.uniform_1iv(index_loc, count, index.ctypes.data)
                c.uniform_1fv(weight_loc, count, weight.ctypes.data)
        c.uniform_1i(count_loc, count)
        c.uniform_1i(vertex_loc, prim.vertex_count)
        c.uniform_1i(stride_loc, prim.morph_stride)
        self._state.texture(unit, GL.GL_TEXTURE_BUFFER, prim.morph_tex or self.gpu.empty_tbo)

    def _draw_edges(self, frame: Frame, ordered, table: MaterialTable, flip_y: bool,
                    *textures_and_size: int) -> None:
        """Her silhouette's edge lines over the finished picture (``silhouette``)."""
        self.edges.draw(frame, ordered, table, flip_y, *textures_and_size,
                        bind_material=self.uniforms.bind_material)
        self._state.reset()

    def _reset_state(self) -> None:
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)
        GL.glDepthMask(GL.GL_TRUE)
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glFrontFace(GL.GL_CCW)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        self._state.reset()

    # -- lifetime ----------------------------------------------------------------
    def release(self) -> None:
        """Free the model, the target and the programs (context current)."""
        if self.gpu is not None:
            self.edges.release()
            self.skinning.release()
            self.gpu.release()
            self.gpu = None
        if self.target is not None:
            self.target.release()
            self.target = None
        if self.post is not None:
            self.post.release()
            self.post = None
        self.programs.release()
        self.uniforms.release()
        self._variants.clear()
