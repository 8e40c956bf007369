"""Draw a ``VrmModel`` posed by a ``Frame`` with MToon-like shading. Needs only a current
OpenGL 3.3 core context (EGL offscreen, or the Qt widget's).

Draw order: OPAQUE, then MASK, then BLEND (sorted by MToon ``render_queue_offset``,
then back to front by primitive centroid); MToon outlines (inverted hull, front faces
culled) follow each primitive. Output is premultiplied, sRGB-encoded RGBA over a
(0, 0, 0, 0) clear, so a transparent window can composite it as it is.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np
from OpenGL import GL
from OpenGL.raw.GL.VERSION.GL_1_1 import glDrawElements as _raw_draw_elements

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import VrmModel

from .camera import Camera
from .context import require_gl33
from .gpu import GpuModel, GpuPrimitive
from .materials import SLOTS, SRGB_SLOTS, MaterialParams, material_params
from .program import Program
from .target import RenderTarget, clear_framebuffer, read_framebuffer, unpremultiply

MAX_ACTIVE_MORPHS = 32
_JOINT_UNIT, _MORPH_UNIT = len(SLOTS), len(SLOTS) + 1
_SAMPLERS = {f"u_tex_{slot}": unit for unit, slot in enumerate(SLOTS)}


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


class Renderer:
    """``load(model)`` once, then ``draw(frame, camera, width, height)`` per picture."""

    def __init__(self, samples: int = 4, lighting: Lighting | None = None,
                 normal_maps: bool = True):
        """``normal_maps`` False draws every material as if it had no normal texture
        (the shaders are then built without the normal-map code)."""
        require_gl33()
        self.samples = samples
        self.lighting = lighting or Lighting()
        self.normal_maps = normal_maps
        extra = {"NORMAL_MAPS": 1} if normal_maps else {}
        self.surface = Program("mtoon.vert.glsl", "mtoon.frag.glsl", extra)
        self.outline = Program("mtoon.vert.glsl", "mtoon.frag.glsl", {"OUTLINE": 1, **extra})
        for program in (self.surface, self.outline):
            program.use()
            for name, unit in _SAMPLERS.items():
                program.set_int(name, unit)
            program.set_int("u_joint_tbo", _JOINT_UNIT)
            program.set_int("u_morph_tbo", _MORPH_UNIT)
        GL.glUseProgram(0)
        self.gpu: GpuModel | None = None
        self.target: RenderTarget | None = None
        self._last_read: tuple[int, int, int] | None = None

    # -- model -------------------------------------------------------------------
    def load(self, model: VrmModel) -> None:
        """Upload ``model`` (replacing the previous one)."""
        if self.gpu is not None:
            self.gpu.release()
        self.gpu = GpuModel(model, normal_maps=self.normal_maps)

    # -- drawing -----------------------------------------------------------------
    def draw(self, frame: Frame, camera: Camera, width: int, height: int,
             target_fbo: int | None = None, background=None) -> None:
        """Draw one picture. ``target_fbo`` None draws into the renderer's own (MSAA)
        target, read back by ``read_rgba``; an int draws into that framebuffer (0 is
        the default one; a Qt widget passes its ``defaultFramebufferObject()``)."""
        if self.gpu is None:
            raise RuntimeError("Renderer.load(model) must come before draw()")
        if target_fbo is None:
            if self.target is None or (self.target.width, self.target.height) != (width, height):
                if self.target is not None:
                    self.target.release()
                self.target = RenderTarget(width, height, self.samples)
            fbo = self.target.draw_fbo
        else:
            fbo = target_fbo
        GL.glViewport(0, 0, width, height)
        GL.glDisable(GL.GL_FRAMEBUFFER_SRGB)  # the shaders encode sRGB themselves
        clear_framebuffer(fbo, _background(background))
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDepthFunc(GL.GL_LEQUAL)
        view = camera.view_matrix()
        self._frame_uniforms(view, camera.projection_matrix(width / height), camera)
        self.gpu.update_joints(frame.joint_matrices)
        params: dict[int | None, MaterialParams] = {}
        for prim in self._ordered(frame, view, params):
            self._draw_primitive(frame, prim, params[prim.material], outline=False)
            if params[prim.material].has_outline:
                self._draw_primitive(frame, prim, params[prim.material], outline=True)
        self._reset_state()
        if target_fbo is None:
            self.target.resolve()
            self._last_read = (self.target.resolve_fbo, width, height)
        else:
            self._last_read = (target_fbo, width, height)

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

    def _frame_uniforms(self, view: np.ndarray, proj: np.ndarray, camera: Camera) -> None:
        light = view[:3, :3].T @ np.asarray(self.lighting.direction, np.float32)
        light /= max(float(np.linalg.norm(light)), 1e-9)
        for program in (self.surface, self.outline):
            program.use()
            program.set_mat4("u_view", view)
            program.set_mat4("u_proj", proj)
            program.set_vec("u_eye", camera.eye)
            program.set_vec("u_light_dir", light)
            program.set_vec("u_light_color", self.lighting.color)
            program.set_vec("u_sky_color", self.lighting.sky)
            program.set_vec("u_ground_color", self.lighting.ground)
            program.set_float("u_toon_ambient", self.lighting.toon_ambient)

    def _ordered(self, frame: Frame, view: np.ndarray, params: dict) -> list[GpuPrimitive]:
        """Opaque, then mask, then blend (queue offset, then far to near)."""
        keyed = []
        for prim in self.gpu.primitives:
            if prim.material not in params:
                params[prim.material] = material_params(self.gpu.model, prim.material, frame)
            p = params[prim.material]
            depth = 0.0
            if p.alpha_mode == 2:
                depth = float((view @ self._world_centroid(frame, prim))[2])
            keyed.append(((p.alpha_mode, p.render_queue_offset if p.alpha_mode == 2 else 0,
                           depth), prim))
        keyed.sort(key=lambda item: item[0])  # stable: file order within a queue
        return [prim for _key, prim in keyed]

    @staticmethod
    def _world_centroid(frame: Frame, prim: GpuPrimitive) -> np.ndarray:
        if prim.skin is None:
            return frame.world[prim.node] @ prim.centroid
        matrices = frame.joint_matrices[prim.skin]
        blended = np.einsum("j,jab->ab", prim.joint_share[: len(matrices)], matrices)
        return blended @ prim.centroid

    def _draw_primitive(self, frame: Frame, prim: GpuPrimitive, p: MaterialParams,
                        outline: bool) -> None:
        program = self.outline if outline else self.surface
        program.use()
        self._pipeline_state(frame, prim, p, outline)
        program.set_mat4("u_model", frame.world[prim.node])
        program.set_int("u_skinned", prim.skin is not None)
        GL.glActiveTexture(GL.GL_TEXTURE0 + _JOINT_UNIT)
        joint_tex = self.gpu.joints[prim.skin][1] if prim.skin is not None else self.gpu.empty_tbo
        GL.glBindTexture(GL.GL_TEXTURE_BUFFER, joint_tex)
        self._morph_uniforms(program, frame, prim)
        self._material_uniforms(program, p, outline)
        program.set_int("u_normal_map", prim.has_tangents and "normal" in p.textures)
        program.set_float("u_normal_scale", p.normal_scale)
        if not prim.has_uv:
            GL.glVertexAttrib2f(2, 0.0, 0.0)
        if not prim.has_color:
            GL.glVertexAttrib4f(5, 1.0, 1.0, 1.0, 1.0)
        GL.glBindVertexArray(prim.vao)
        _raw_draw_elements(GL.GL_TRIANGLES, prim.index_count, GL.GL_UNSIGNED_INT,
                           ctypes.c_void_p(0))

    def _pipeline_state(self, frame: Frame, prim: GpuPrimitive, p: MaterialParams,
                        outline: bool) -> None:
        if outline or not p.double_sided:
            GL.glEnable(GL.GL_CULL_FACE)
            GL.glCullFace(GL.GL_FRONT if outline else GL.GL_BACK)
        else:
            GL.glDisable(GL.GL_CULL_FACE)
        mirrored = prim.skin is None and np.linalg.det(frame.world[prim.node][:3, :3]) < 0
        GL.glFrontFace(GL.GL_CW if mirrored else GL.GL_CCW)
        if p.alpha_mode == 2:
            GL.glEnable(GL.GL_BLEND)
            GL.glBlendFunc(GL.GL_ONE, GL.GL_ONE_MINUS_SRC_ALPHA)
            GL.glDepthMask(GL.GL_TRUE if p.zwrite else GL.GL_FALSE)
        else:
            GL.glDisable(GL.GL_BLEND)
            GL.glDepthMask(GL.GL_TRUE)

    def _morph_uniforms(self, program: Program, frame: Frame, prim: GpuPrimitive) -> None:
        count = 0
        if prim.target_count and prim.mesh < len(frame.morph_weights):
            index, weight = active_morphs(frame.morph_weights[prim.mesh], prim.target_count)
            count = len(index)
            program.set_int_array("u_morph_index", index)
            program.set_float_array("u_morph_weight", weight)
        program.set_int("u_morph_count", count)
        program.set_int("u_vertex_count", prim.vertex_count)
        program.set_int("u_morph_stride", prim.morph_stride)
        GL.glActiveTexture(GL.GL_TEXTURE0 + _MORPH_UNIT)
        GL.glBindTexture(GL.GL_TEXTURE_BUFFER, prim.morph_tex or self.gpu.empty_tbo)

    def _material_uniforms(self, program: Program, p: MaterialParams, outline: bool) -> None:
        for name in ("shading", "alpha_mode", "outline_mode"):
            program.set_int(f"u_{name}", getattr(p, name))
        for name in ("alpha_cutoff", "shading_shift", "shading_toony", "shift_texture_scale",
                     "gi_equalization", "rim_fresnel_power", "rim_lift", "rim_lighting_mix",
                     "uv_rotation", "outline_width", "outline_lighting_mix"):
            program.set_float(f"u_{name}", getattr(p, name))
        for name in ("base_color", "shade_color", "emissive", "rim_color", "matcap_factor",
                     "uv_scroll", "outline_color"):
            program.set_vec(f"u_{name}", getattr(p, name))
        program.set_mat3_array("u_uv", p.uv_matrices[: len(SLOTS) - 1])
        if outline:
            program.set_mat3_array("u_uv_outline", p.uv_matrices[-1:])
        for unit, slot in enumerate(SLOTS):
            ref = p.textures.get(slot)
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D,
                             self.gpu.texture(ref.index if ref else None, slot in SRGB_SLOTS))

    @staticmethod
    def _reset_state() -> None:
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)
        GL.glDepthMask(GL.GL_TRUE)
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glFrontFace(GL.GL_CCW)
        GL.glActiveTexture(GL.GL_TEXTURE0)

    # -- lifetime ----------------------------------------------------------------
    def release(self) -> None:
        """Free the model, the target and the programs (context current)."""
        if self.gpu is not None:
            self.gpu.release()
            self.gpu = None
        if self.target is not None:
            self.target.release()
            self.target = None
        self.surface.release()
        self.outline.release()
