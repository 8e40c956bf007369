"""What one material draws with in one frame: shader parameters as plain numbers.

Pure numpy: the frame's colour overrides (expressions), texture transforms and time
(MToon UV animation) are folded into the material's values here, so the renderer only
copies them into uniforms. Colours are linear; angles are radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import Material, MToon, TextureRef, VrmModel

#: Texture slots, in the order of the fragment shader's ``u_uv`` array (outline last).
SLOTS: tuple[str, ...] = ("base", "shade", "shift", "rim", "matcap", "emissive", "mask", "normal",
                          "outline")
#: Slots holding colours (sampled from sRGB textures); the others hold data.
SRGB_SLOTS = frozenset({"base", "shade", "rim", "matcap", "emissive"})

SHADING_MTOON, SHADING_UNLIT, SHADING_LIT = 0, 1, 2
ALPHA_MODES = {"OPAQUE": 0, "MASK": 1, "BLEND": 2}
OUTLINE_MODES = {"none": 0, "worldCoordinates": 1, "screenCoordinates": 2}


def _rgb(values) -> np.ndarray:
    return np.asarray(values, np.float32).reshape(-1)[:3].copy()


@dataclass
class MaterialParams:
    """Everything the shaders need for one material (see ``shaders/mtoon.frag.glsl``)."""

    shading: int = SHADING_LIT
    alpha_mode: int = 0
    alpha_cutoff: float = 0.5
    double_sided: bool = False
    base_color: np.ndarray = field(default_factory=lambda: np.ones(4, np.float32))
    shade_color: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    emissive: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    shading_shift: float = 0.0
    shading_toony: float = 0.9
    shift_texture_scale: float = 0.0
    gi_equalization: float = 0.9
    rim_color: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    rim_fresnel_power: float = 5.0
    rim_lift: float = 0.0
    rim_lighting_mix: float = 1.0
    matcap_factor: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    uv_scroll: np.ndarray = field(default_factory=lambda: np.zeros(2, np.float32))
    uv_rotation: float = 0.0
    outline_mode: int = 0
    outline_width: float = 0.0
    outline_color: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    outline_lighting_mix: float = 1.0
    render_queue_offset: int = 0
    zwrite: bool = True
    normal_scale: float = 1.0  # glTF normalTexture.scale: multiplies the map's X and Y, -10..10
    uv_animated: bool = False  # MToon UV animation speeds are set (the UVs move with time)
    textures: dict[str, TextureRef] = field(default_factory=dict)  # slot -> texture
    uv_matrices: np.ndarray = field(
        default_factory=lambda: np.tile(np.eye(3, dtype=np.float32), (len(SLOTS), 1, 1))
    )

    @property
    def has_outline(self) -> bool:
        return self.shading == SHADING_MTOON and self.outline_mode != 0 and self.outline_width > 0


def uv_matrix(offset, scale, rotation: float) -> np.ndarray:
    """KHR_texture_transform as a 3x3 matrix: translation @ rotation @ scale."""
    c, s = math.cos(rotation), math.sin(rotation)
    t = np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1]], np.float32)
    r = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]], np.float32)
    k = np.array([[scale[0], 0, 0], [0, scale[1], 0], [0, 0, 1]], np.float32)
    return (t @ r @ k).astype(np.float32)


def _texture_slots(material: Material) -> dict[str, TextureRef | None]:
    mtoon = material.mtoon or MToon()
    return {
        "base": material.base_color_texture,
        "shade": mtoon.shade_multiply_texture,
        "shift": mtoon.shading_shift_texture,
        "rim": mtoon.rim_multiply_texture,
        "matcap": mtoon.matcap_texture,
        "emissive": material.emissive_texture,
        "mask": mtoon.uv_animation_mask_texture,
        "normal": material.normal_texture,
        "outline": mtoon.outline_width_multiply_texture,
    }


def _apply_mtoon(params: MaterialParams, mtoon: MToon, time: float) -> None:
    params.shading = SHADING_MTOON
    params.shade_color = _rgb(mtoon.shade_color)
    params.shading_shift = float(mtoon.shading_shift)
    params.shading_toony = float(np.clip(mtoon.shading_toony, 0.0, 1.0))
    params.shift_texture_scale = float(mtoon.shading_shift_texture_scale)
    params.gi_equalization = float(np.clip(mtoon.gi_equalization, 0.0, 1.0))
    params.rim_color = _rgb(mtoon.parametric_rim_color)
    params.rim_fresnel_power = float(mtoon.parametric_rim_fresnel_power)
    params.rim_lift = float(mtoon.parametric_rim_lift)
    params.rim_lighting_mix = float(mtoon.rim_lighting_mix)
    params.matcap_factor = _rgb(mtoon.matcap_factor)
    params.uv_scroll = np.array(
        [mtoon.uv_animation_scroll_x * time, mtoon.uv_animation_scroll_y * time], np.float32
    )
    params.uv_rotation = float(mtoon.uv_animation_rotation * time)
    params.uv_animated = any(float(v) != 0.0 for v in (
        mtoon.uv_animation_scroll_x, mtoon.uv_animation_scroll_y, mtoon.uv_animation_rotation))
    params.outline_mode = OUTLINE_MODES.get(mtoon.outline_width_mode, 0)
    params.outline_width = max(float(mtoon.outline_width), 0.0)
    params.outline_color = _rgb(mtoon.outline_color)
    params.outline_lighting_mix = float(mtoon.outline_lighting_mix)
    params.render_queue_offset = int(mtoon.render_queue_offset)
    params.zwrite = bool(mtoon.transparent_with_zwrite)


def normal_scale(material: Material) -> float:
    """The normal map's strength: ``material.normal_scale`` when the loader provides it
    (glTF ``normalTexture.scale``, VRM 0.x ``_BumpScale``), else 1; bounded to -10..10."""
    value = getattr(material, "normal_scale", 1.0)
    try:
        value = float(value)
    except (TypeError, ValueError):
        return 1.0
    return float(np.clip(value, -10.0, 10.0)) if math.isfinite(value) else 1.0


_OVERRIDES = {
    "emissionColor": "emissive",
    "shadeColor": "shade_color",
    "rimColor": "rim_color",
    "outlineColor": "outline_color",
    "matcapColor": "matcap_factor",
}


def material_params(model: VrmModel, index: int | None,
                    frame: Frame | None = None) -> MaterialParams:
    """The parameters of material ``index`` (None: glTF's default material) in ``frame``."""
    if index is None or not 0 <= index < len(model.materials):
        return MaterialParams()
    material = model.materials[index]
    time = frame.time if frame is not None else 0.0
    params = MaterialParams(
        shading=SHADING_UNLIT if material.unlit else SHADING_LIT,
        alpha_mode=ALPHA_MODES.get(material.alpha_mode, 0),
        alpha_cutoff=float(material.alpha_cutoff),
        double_sided=bool(material.double_sided),
        base_color=np.asarray(material.base_color, np.float32).reshape(-1)[:4].copy(),
        emissive=_rgb(material.emissive),
    )
    params.normal_scale = normal_scale(material)
    if material.mtoon is not None:
        _apply_mtoon(params, material.mtoon, time)
    with_zwrite = material.mtoon is not None and material.mtoon.transparent_with_zwrite
    params.zwrite = with_zwrite or params.alpha_mode != ALPHA_MODES["BLEND"]
    if frame is not None:
        for (mat, kind), value in frame.material_colors.items():
            if mat != index:
                continue
            value = np.asarray(value, np.float32).reshape(-1)
            if kind == "color":
                params.base_color = np.resize(value, 4).astype(np.float32)
                if len(value) < 4:
                    params.base_color[3] = material.base_color[3]
            elif kind in _OVERRIDES:
                setattr(params, _OVERRIDES[kind], value[:3].copy())
    override = frame.texture_transforms.get(index) if frame is not None else None
    for slot, ref in _texture_slots(material).items():
        if ref is None or not 0 <= ref.index < len(model.textures):
            continue
        params.textures[slot] = ref
        scale, offset = (override if override is not None else (ref.scale, ref.offset))
        params.uv_matrices[SLOTS.index(slot)] = uv_matrix(offset, scale, ref.rotation)
    if "shift" not in params.textures:
        params.shift_texture_scale = 0.0
    if "matcap" not in params.textures:
        params.matcap_factor = np.zeros(3, np.float32)
    return params
