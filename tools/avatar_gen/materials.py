"""Hana's MToon materials (VRMC_materials_mtoon 1.0 with a KHR_materials_unlit fallback).

Colours are written here in sRGB hex and converted to the linear factors glTF wants.
Outline widths are world widths in metres. Every material but the frill's is one-sided: each
part is closed, lies on her, or carries an inside of its own where one can be seen
(``meshkit.inner_layer``; the skirt has a lining across its hem). The frill, a pleated strip
below the hem, is double-sided: an inside layer's outline, pushed inward, would show along
its lower edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from .mathutil import hex_rgb, srgb_to_linear


@dataclass(frozen=True)
class Look:
    name: str
    base: str  # sRGB hex
    shade: str  # sRGB hex (multiplied by the shade texture when there is one)
    texture: str | None = None  # texture key
    outline: float = 0.0  # metres; 0 = none
    outline_colour: str = "#000000"
    rim: str = "#000000"
    rim_power: float = 5.0
    rim_lift: float = 0.0
    toony: float = 0.9
    shift: float = 0.0
    double_sided: bool = False
    gi: float = 0.9
    blend: bool = False  # alpha-blended (its texture's alpha): a stroke on a wider strip


LOOKS: tuple[Look, ...] = (
    Look(
        "FaceSkin", "#FFFFFF", "#FBDDD8", "face", 0.0010, "#B77069", "#3A1F1E", 4.0, 0.0, 0.95, 0.25
    ),
    Look("Skin", "#FFEAE0", "#F5C3BE", None, 0.0012, "#B77069", "#3A1F1E", 4.0, 0.0, 0.95, -0.05),
    Look("EyeWhite", "#FFFFFF", "#F2F0FA", "eye_white", toony=1.0, shift=0.0),
    Look("Iris", "#FFFFFF", "#E2E2EA", "iris", toony=1.0, shift=0.0),
    Look("EyeLine", "#3B1F2E", "#2E1824", toony=1.0, shift=0.0),
    Look("Brow", "#B0617C", "#95506A", "brow", toony=1.0, shift=0.0, blend=True),
    Look("LowerLine", "#3B1F2E", "#2E1824", "lower_lash", toony=1.0, shift=0.0, blend=True),
    Look("Mouth", "#FFFFFF", "#E6DADA", "mouth", toony=1.0, shift=0.0),
    Look(
        "Hair",
        "#FFFFFF",
        "#D6A3D6",
        "hair",
        0.0022,
        "#8E4766",
        "#5A3448",
        3.5,
        0.05,
        0.92,
        -0.05,
    ),
    Look(
        "Dress",
        "#5665C4",
        "#39408E",
        None,
        0.0018,
        "#1D2154",
        "#2A2F6A",
        4.0,
        0.0,
        0.9,
        0.0,
    ),
    Look(
        "DressWhite",
        "#FBFBFF",
        "#C8CBE6",
        None,
        0.0015,
        "#5F6590",
        "#2A2A40",
        4.0,
        0.0,
        0.9,
        0.0,
    ),
    Look(
        "Ribbon",
        "#F2557F",
        "#B63468",
        None,
        0.0014,
        "#6E1838",
        "#5A1A30",
        4.0,
        0.0,
        0.9,
        0.0,
    ),
    Look(
        "Frill",
        "#FBFBFF",
        "#C8CBE6",
        None,
        0.0015,
        "#5F6590",
        "#2A2A40",
        4.0,
        0.0,
        0.9,
        0.0,
        double_sided=True,
    ),
    # no outline: the near-black line does not show against the dark brown shoe
    Look("Shoe", "#5A3433", "#35201F", None, 0.0, "#1A0D0C", "#4A3030", 3.0, 0.1, 0.85, 0.0),
)

MATERIAL_ORDER = tuple(look.name for look in LOOKS)
#: the order of a mesh's primitives, which is the order they are drawn in: what lies on top
#: first (bows and the collar over the dress, the skirt over the thighs and the bodice's
#: lower half), so that what it hides fails the depth test instead of being shaded twice
DRAW_ORDER = (
    "Ribbon",
    "DressWhite",
    "Frill",
    "Dress",
    "Skin",
    "Shoe",
    "FaceSkin",
    "EyeWhite",
    "Iris",
    "EyeLine",
    "LowerLine",
    "Brow",
    "Mouth",
    "Hair",
)


def material_json(look: Look, texture_index: dict[str, int]) -> dict:
    base = [*srgb_to_linear(hex_rgb(look.base)), 1.0]
    pbr: dict = {"baseColorFactor": base, "metallicFactor": 0.0, "roughnessFactor": 1.0}
    mtoon: dict = {
        "specVersion": "1.0",
        "transparentWithZWrite": False,
        "renderQueueOffsetNumber": 0,
        "shadeColorFactor": srgb_to_linear(hex_rgb(look.shade)),
        "shadingShiftFactor": look.shift,
        "shadingToonyFactor": look.toony,
        "giEqualizationFactor": look.gi,
        "matcapFactor": [0.0, 0.0, 0.0],
        "parametricRimColorFactor": srgb_to_linear(hex_rgb(look.rim)),
        "parametricRimFresnelPowerFactor": look.rim_power,
        "parametricRimLiftFactor": look.rim_lift,
        "rimLightingMixFactor": 1.0,
        "outlineWidthMode": "worldCoordinates" if look.outline > 0 else "none",
        "outlineWidthFactor": look.outline,
        "outlineColorFactor": srgb_to_linear(hex_rgb(look.outline_colour)),
        "outlineLightingMixFactor": 1.0,
        "uvAnimationScrollXSpeedFactor": 0.0,
        "uvAnimationScrollYSpeedFactor": 0.0,
        "uvAnimationRotationSpeedFactor": 0.0,
    }
    if look.texture:
        index = texture_index[look.texture]
        pbr["baseColorTexture"] = {"index": index, "texCoord": 0}
        mtoon["shadeMultiplyTexture"] = {"index": index, "texCoord": 0}
    return {
        "name": look.name,
        "pbrMetallicRoughness": pbr,
        "alphaMode": "BLEND" if look.blend else "OPAQUE",
        "doubleSided": look.double_sided,
        "emissiveFactor": [0.0, 0.0, 0.0],
        "extensions": {"KHR_materials_unlit": {}, "VRMC_materials_mtoon": mtoon},
    }
