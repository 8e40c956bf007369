"""VRM 0.x ``materialProperties`` (Unity MToon / Unlit shaders) into the 1.0 ``Material``.

Entry ``i`` describes glTF material ``i`` (as UniVRM writes and three-vrm reads them).
For ``VRM/MToon`` the base material is rebuilt from the 0.x properties and an ``MToon``
attached, following three-vrm's ``VRMMaterialsV0CompatPlugin``:

* colours ``_Color``, ``_ShadeColor``, ``_EmissionColor``, ``_RimColor``, ``_OutlineColor``
  are sRGB in 0.x: RGB goes through the sRGB EOTF to linear (alpha stays);
* ``_ShadeToony``/``_ShadeShift`` (t, s): toony = lerp(t, 1, 0.5 + 0.5 s),
  shading_shift = -s - (1 - toony);
* gi_equalization = 1 - ``_IndirectLightIntensity`` (default 0.1);
* ``_OutlineWidthMode`` 0 none / 1 world / 2 screen, ``_OutlineWidth`` x 0.01 (cm -> m, and
  % -> fraction of the screen); outline lighting mix is ``_OutlineLightingMix`` when
  ``_OutlineColorMode`` is 1 (mixed), else 0;
* ``_UvAnimScrollY`` changes sign (Unity's UV origin is bottom-left); ``_UvAnimRotation``
  (turns per second in 0.x) x 2 pi -> radians per second;
* ``_BlendMode`` 0 opaque, 1 cutout (MASK, ``_Cutoff``), 2 transparent (BLEND),
  3 transparent with z-write (falls back to the keyword map when absent);
  ``_CullMode`` 0 -> double sided; render queues of transparent materials become offsets
  -9..0 (z-write: 0..9) by rank, as three-vrm does;
* ``_MainTex`` vector (offset x, offset y, scale x, scale y) becomes a texture transform
  with the V offset flipped (1 - scale y - offset y), applied to every MToon texture.
``VRM/UnlitTexture|Cutout|Transparent|TransparentZWrite`` become unlit materials; other
shaders (``VRM_USE_GLTFSHADER``) keep the glTF material.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .fields import as_dict, as_float, as_int, as_list, as_str, index_or_none
from .load_context import LoadContext
from .model import AlphaMode, Material, MToon, TextureRef

UNLIT_SHADERS: dict[str, AlphaMode] = {
    "VRM/UnlitTexture": "OPAQUE", "VRM/UnlitCutout": "MASK",
    "VRM/UnlitTransparent": "BLEND", "VRM/UnlitTransparentZWrite": "BLEND",
}  # fmt: skip


def srgb_to_linear(values: Any) -> np.ndarray:
    """The sRGB EOTF on each value (what Unity's ``Color.linear`` does)."""
    c = np.asarray(values, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((np.maximum(c, 0) + 0.055) / 1.055) ** 2.4)


class _Props:
    """Typed access to one ``materialProperties`` entry."""

    def __init__(self, raw: dict) -> None:
        self.floats = as_dict(raw.get("floatProperties"))
        self.vectors = as_dict(raw.get("vectorProperties"))
        self.textures = as_dict(raw.get("textureProperties"))
        self.keywords = as_dict(raw.get("keywordMap"))
        self.render_queue = as_int(raw.get("renderQueue"), -1)

    def number(self, key: str, default: float) -> float:
        return as_float(self.floats.get(key), default)

    def vector(self, key: str, default: tuple[float, ...]) -> np.ndarray:
        value = as_list(self.vectors.get(key))
        numbers = [as_float(v, math.nan) for v in value[: len(default)]]
        if len(numbers) < len(default) or not all(math.isfinite(n) for n in numbers):
            return np.array(default, np.float64)
        return np.array(numbers, np.float64)

    def color(self, key: str, default: tuple[float, ...]) -> np.ndarray:
        """A 0.x colour with its RGB converted to linear (float32)."""
        value = self.vector(key, default)
        value[:3] = srgb_to_linear(value[:3])
        return value.astype(np.float32)

    def blend_mode(self) -> int:
        if "_BlendMode" in self.floats:
            return as_int(self.floats["_BlendMode"], 0)
        if self.keywords.get("_ALPHABLEND_ON"):
            return 3 if self.number("_ZWrite", 0) == 1 else 2
        return 1 if self.keywords.get("_ALPHATEST_ON") else 0


def apply_material_properties(ctx: LoadContext, materials: list[Material], entries: Any,
                              texture_count: int) -> None:
    entries = [e if isinstance(e, dict) else {} for e in as_list(entries)]
    props = [_Props(e) for e in entries]
    queues = _render_queue_offsets(entries, props)
    for i, (entry, prop) in enumerate(zip(entries, props, strict=True)):
        if i >= len(materials):
            ctx.warn(f"VRM 0.x materialProperties has an entry ({i}) without a glTF material",
                     "it is ignored")
            break
        shader = as_str(entry.get("shader"))
        if shader == "VRM/MToon":
            _apply_mtoon(ctx, materials[i], prop, texture_count, queues.get(i, 0))
        elif shader in UNLIT_SHADERS:
            materials[i].unlit = True
            materials[i].alpha_mode = UNLIT_SHADERS[shader]


def _apply_mtoon(ctx: LoadContext, material: Material, p: _Props, texture_count: int,
                 queue_offset: int) -> None:
    st = p.vector("_MainTex", (0.0, 0.0, 1.0, 1.0))
    scale = (float(st[2]), float(st[3]))
    offset = (float(st[0]), float(1.0 - st[3] - st[1]))

    def ref(key: str) -> TextureRef | None:
        value = p.textures.get(key)
        if value is None:
            return None
        index = index_or_none(value, texture_count)
        if index is None:
            ctx.warn(f"material {material.name!r} {key} uses texture {value!r}, which does "
                     "not exist", "drawn without it")
            return None
        return TextureRef(index, 0, offset, scale)

    blend = p.blend_mode()
    material.alpha_mode = ("OPAQUE", "MASK", "BLEND", "BLEND")[blend if 0 <= blend <= 3 else 0]
    material.alpha_cutoff = p.number("_Cutoff", 0.5)
    material.double_sided = p.number("_CullMode", 2) == 0
    material.base_color = p.color("_Color", (1.0, 1.0, 1.0, 1.0))
    material.base_color_texture = ref("_MainTex")
    material.emissive = p.color("_EmissionColor", (0.0, 0.0, 0.0))[:3]
    material.emissive_texture = ref("_EmissionMap")
    material.normal_texture = ref("_BumpMap")
    material.normal_scale = p.number("_BumpScale", 1.0)
    shift, toony = p.number("_ShadeShift", 0.0), p.number("_ShadeToony", 0.9)
    toony = toony + (1.0 - toony) * (0.5 + 0.5 * shift)
    shift = -shift - (1.0 - toony)
    color_mode = p.number("_OutlineColorMode", 0)
    mode = as_int(p.number("_OutlineWidthMode", 0), 0)
    matcap = ref("_SphereAdd")
    material.mtoon = MToon(
        shade_color=p.color("_ShadeColor", (0.97, 0.81, 0.86))[:3],
        shade_multiply_texture=ref("_ShadeTexture"),
        shading_shift=shift,
        shading_toony=toony,
        gi_equalization=1.0 - p.number("_IndirectLightIntensity", 0.1),
        matcap_factor=np.ones(3, np.float32) if matcap else np.zeros(3, np.float32),
        matcap_texture=matcap,
        parametric_rim_color=p.color("_RimColor", (0.0, 0.0, 0.0))[:3],
        parametric_rim_fresnel_power=p.number("_RimFresnelPower", 1.0),
        parametric_rim_lift=p.number("_RimLift", 0.0),
        rim_multiply_texture=ref("_RimTexture"),
        rim_lighting_mix=p.number("_RimLightingMix", 0.0),
        outline_width_mode=("none", "worldCoordinates", "screenCoordinates")[
            mode if 0 <= mode <= 2 else 0],
        outline_width=0.01 * p.number("_OutlineWidth", 0.0),
        outline_width_multiply_texture=ref("_OutlineWidthTexture"),
        outline_color=p.color("_OutlineColor", (0.0, 0.0, 0.0))[:3],
        outline_lighting_mix=p.number("_OutlineLightingMix", 1.0) if color_mode == 1 else 0.0,
        uv_animation_mask_texture=ref("_UvAnimMaskTexture"),
        uv_animation_scroll_x=p.number("_UvAnimScrollX", 0.0),
        uv_animation_scroll_y=-p.number("_UvAnimScrollY", 0.0),
        uv_animation_rotation=p.number("_UvAnimRotation", 0.0) * 2.0 * math.pi,
        render_queue_offset=queue_offset,
        transparent_with_zwrite=blend == 3,
    )  # fmt: skip


def _render_queue_offsets(entries: list[dict], props: list[_Props]) -> dict[int, int]:
    """Transparent MToon render queues ranked into 1.0 offsets (-9..0, z-write 0..9)."""
    plain: dict[int, list[int]] = {}
    zwrite: dict[int, list[int]] = {}
    for i, (entry, p) in enumerate(zip(entries, props, strict=True)):
        if entry.get("shader") != "VRM/MToon" or p.render_queue < 0:
            continue
        blend = p.blend_mode()
        if blend in (2, 3):
            (zwrite if blend == 3 else plain).setdefault(p.render_queue, []).append(i)
    offsets: dict[int, int] = {}
    for rank, queue in enumerate(sorted(plain)):
        for i in plain[queue]:
            offsets[i] = min(max(rank - len(plain) + 1, -9), 0)
    for rank, queue in enumerate(sorted(zwrite)):
        for i in zwrite[queue]:
            offsets[i] = min(max(rank, 0), 9)
    return offsets
