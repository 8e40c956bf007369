"""glTF materials (and VRMC_materials_mtoon 1.0) into ``Material``/``MToon``.

Factors are linear, as glTF stores them. ``KHR_materials_emissive_strength`` is
multiplied into ``emissive``; ``KHR_materials_unlit`` sets ``unlit``;
``KHR_texture_transform`` on any texture reference fills its offset, scale, rotation
(and may override its texcoord). A reference to a missing texture is dropped with a warning.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import as_bool, as_dict, as_float, as_int, as_pair, as_str, as_vec, get, index_or_none
from .load_context import LoadContext
from .model import Material, MToon, TextureRef

ALPHA_MODES = ("OPAQUE", "MASK", "BLEND")
OUTLINE_MODES = ("none", "worldCoordinates", "screenCoordinates")


def texture_ref(ctx: LoadContext, info: Any, texture_count: int, what: str) -> TextureRef | None:
    """A texture reference (``textureInfo``) with KHR_texture_transform applied."""
    if info is None:
        return None
    value = get(info, "index")
    index = index_or_none(value, texture_count)
    if index is None:
        ctx.warn(f"{what} uses texture {value!r}, which does not exist", "drawn without it")
        return None
    ref = TextureRef(index=index, texcoord=max(as_int(get(info, "texCoord", 0), 0), 0))
    transform = as_dict(as_dict(get(info, "extensions")).get("KHR_texture_transform"))
    if transform:
        ref.offset = as_pair(transform.get("offset"), (0.0, 0.0))
        ref.scale = as_pair(transform.get("scale"), (1.0, 1.0))
        ref.rotation = as_float(transform.get("rotation"), 0.0)
        if "texCoord" in transform:
            ref.texcoord = max(as_int(transform.get("texCoord"), ref.texcoord), 0)
    return ref


def read_materials(ctx: LoadContext, texture_count: int) -> list[Material]:
    return [
        read_material(ctx, i, raw, texture_count)
        for i, raw in enumerate(ctx.doc.gltf.materials or [])
    ]


def read_material(ctx: LoadContext, i: int, raw: Any, texture_count: int) -> Material:
    what = f"material {i}"
    pbr = get(raw, "pbrMetallicRoughness")
    extensions = as_dict(get(raw, "extensions"))
    strength = as_float(as_dict(extensions.get("KHR_materials_emissive_strength")).get(
        "emissiveStrength"), 1.0)  # fmt: skip
    alpha_mode = get(raw, "alphaMode", "OPAQUE")
    if alpha_mode not in ALPHA_MODES:
        ctx.warn(f"{what} has an unknown alphaMode {alpha_mode!r}", "drawn opaque")
        alpha_mode = "OPAQUE"
    material = Material(
        name=as_str(get(raw, "name"), f"material{i}"),
        base_color=as_vec(get(pbr, "baseColorFactor"), 4, (1, 1, 1, 1)),
        base_color_texture=texture_ref(ctx, get(pbr, "baseColorTexture"), texture_count, what),
        emissive=as_vec(get(raw, "emissiveFactor"), 3, (0, 0, 0)) * np.float32(strength),
        emissive_texture=texture_ref(ctx, get(raw, "emissiveTexture"), texture_count, what),
        normal_texture=texture_ref(ctx, get(raw, "normalTexture"), texture_count, what),
        normal_scale=as_float(get(get(raw, "normalTexture"), "scale"), 1.0),
        alpha_mode=alpha_mode,
        alpha_cutoff=as_float(get(raw, "alphaCutoff"), 0.5),
        double_sided=as_bool(get(raw, "doubleSided")),
        unlit="KHR_materials_unlit" in extensions,
    )  # fmt: skip
    mtoon = extensions.get("VRMC_materials_mtoon")
    if isinstance(mtoon, dict):
        material.mtoon = read_mtoon(ctx, mtoon, texture_count, f"{what} MToon")
    return material


def read_mtoon(ctx: LoadContext, ext: dict, texture_count: int, what: str) -> MToon:
    """VRMC_materials_mtoon 1.0 fields (absent ones keep the ``MToon`` defaults)."""
    default = MToon()

    def ref(key: str) -> TextureRef | None:
        return texture_ref(ctx, ext.get(key), texture_count, f"{what} {key}")

    def number(key: str, fallback: float) -> float:
        return as_float(ext.get(key), fallback)

    mode = ext.get("outlineWidthMode", "none")
    shift_texture = as_dict(ext.get("shadingShiftTexture"))
    return MToon(
        shade_color=as_vec(ext.get("shadeColorFactor"), 3, default.shade_color),
        shade_multiply_texture=ref("shadeMultiplyTexture"),
        shading_shift=number("shadingShiftFactor", default.shading_shift),
        shading_shift_texture=ref("shadingShiftTexture"),
        shading_shift_texture_scale=as_float(shift_texture.get("scale"), 1.0),
        shading_toony=number("shadingToonyFactor", default.shading_toony),
        gi_equalization=number("giEqualizationFactor", default.gi_equalization),
        matcap_factor=as_vec(ext.get("matcapFactor"), 3, default.matcap_factor),
        matcap_texture=ref("matcapTexture"),
        parametric_rim_color=as_vec(ext.get("parametricRimColorFactor"), 3,
                                    default.parametric_rim_color),
        parametric_rim_fresnel_power=number("parametricRimFresnelPowerFactor",
                                            default.parametric_rim_fresnel_power),
        parametric_rim_lift=number("parametricRimLiftFactor", default.parametric_rim_lift),
        rim_multiply_texture=ref("rimMultiplyTexture"),
        rim_lighting_mix=number("rimLightingMixFactor", default.rim_lighting_mix),
        outline_width_mode=mode if mode in OUTLINE_MODES else "none",
        outline_width=number("outlineWidthFactor", default.outline_width),
        outline_width_multiply_texture=ref("outlineWidthMultiplyTexture"),
        outline_color=as_vec(ext.get("outlineColorFactor"), 3, default.outline_color),
        outline_lighting_mix=number("outlineLightingMixFactor", default.outline_lighting_mix),
        uv_animation_mask_texture=ref("uvAnimationMaskTexture"),
        uv_animation_scroll_x=number("uvAnimationScrollXSpeedFactor", 0.0),
        uv_animation_scroll_y=number("uvAnimationScrollYSpeedFactor", 0.0),
        uv_animation_rotation=number("uvAnimationRotationSpeedFactor", 0.0),
        render_queue_offset=as_int(ext.get("renderQueueOffsetNumber"), 0),
        transparent_with_zwrite=as_bool(ext.get("transparentWithZWrite")),
    )  # fmt: skip
