"""Shader variants: one program per combination of what a draw actually uses.

A software rasteriser (Mesa llvmpipe) runs every line of a shader for every pixel,
whichever way a uniform ``if`` goes, and samples every bound texture. So the MToon
shaders are compiled per variant, with defines naming the shading model, alpha mode,
the textures present, and the optional terms (UV animation, rim/matcap, emission,
vertex colour, normal map, outline, morphs, and whether the vertices come from the
skinning pass already in world space); code for the rest is left out.
The picture is the same as the all-in-one shader's: an absent texture reads as white,
an absent term adds zero.
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL

from .materials import SHADING_MTOON, SHADING_UNLIT, SLOTS, MaterialParams
from .program import Program

_VERTEX_SLOTS = ("outline",)
_JOINT_UNIT, _MORPH_UNIT = len(SLOTS), len(SLOTS) + 1
SAMPLER_UNITS = {f"u_tex_{slot}": unit for unit, slot in enumerate(SLOTS)}
SAMPLER_UNITS.update(u_joint_tbo=_JOINT_UNIT, u_morph_tbo=_MORPH_UNIT)
JOINT_UNIT, MORPH_UNIT = _JOINT_UNIT, _MORPH_UNIT


def _nonzero(values) -> bool:
    return bool(np.any(np.abs(np.asarray(values, np.float32)) > 0.0))


def variant_key(p: MaterialParams, *, outline: bool, skinned: bool, morphs: bool,
                normal_map: bool, vertex_color: bool,
                specialize: bool = True) -> tuple[tuple[str, int], ...]:
    """The defines of the program that draws one primitive with material ``p``.
    ``specialize`` False gives the all-in-one variant (every texture slot read, white
    where absent; every term computed; skinning in the draw), the reference that the
    specialised variants must match pixel for pixel."""
    if not specialize:
        return _generic_key(p, outline=outline, skinned=skinned, morphs=morphs,
                            normal_map=normal_map)
    defines: dict[str, int] = {"SHADING": p.shading, "ALPHA_MODE": p.alpha_mode}
    fragment_slots = [s for s in SLOTS if s not in _VERTEX_SLOTS and s != "normal"]
    for slot in fragment_slots:
        if slot in p.textures:
            defines[f"TEX_{slot.upper()}"] = 1
    if outline:
        defines["OUTLINE"] = 1
        if "outline" in p.textures:
            defines["TEX_OUTLINE"] = 1
    if p.shading == SHADING_MTOON:
        if p.uv_animated or "mask" in p.textures:
            defines["UV_ANIM"] = 1
        if _nonzero(p.rim_color) or ("matcap" in p.textures and _nonzero(p.matcap_factor)):
            defines["RIM"] = 1
            power = float(p.rim_fresnel_power)
            if power.is_integer() and 1 <= power <= 8:
                defines["RIM_POW"] = int(power)
    if p.shading != SHADING_UNLIT and _nonzero(p.emissive):
        defines["EMISSIVE"] = 1
    if vertex_color and p.shading != SHADING_MTOON:
        defines["VERTEX_COLOR"] = 1
    if normal_map and "normal" in p.textures:
        defines["NORMAL_MAP"] = 1
    if skinned:
        defines["PRESKINNED"] = 1  # morphs and joints done by the skinning pass
    if morphs:
        defines["MORPHS"] = 1
    base, shade = p.textures.get("base"), p.textures.get("shade")
    if (base is not None and shade is not None and base.index == shade.index
            and np.array_equal(p.uv_matrices[0], p.uv_matrices[1])):
        defines["SHADE_IS_BASE"] = 1
    if "RIM" not in defines:
        defines.pop("TEX_RIM", None)
        defines.pop("TEX_MATCAP", None)
    if "EMISSIVE" not in defines:
        defines.pop("TEX_EMISSIVE", None)
    return tuple(sorted(defines.items()))


def _generic_key(p: MaterialParams, *, outline: bool, skinned: bool, morphs: bool,
                 normal_map: bool) -> tuple[tuple[str, int], ...]:
    defines: dict[str, int] = {"SHADING": p.shading, "ALPHA_MODE": p.alpha_mode,
                               "UV_ANIM": 1, "RIM": 1, "EMISSIVE": 1, "VERTEX_COLOR": 1}
    for slot in SLOTS:
        if slot not in ("normal", "outline"):
            defines[f"TEX_{slot.upper()}"] = 1
    if outline:
        defines["OUTLINE"] = 1
        if "outline" in p.textures:
            defines["TEX_OUTLINE"] = 1
    if normal_map and "normal" in p.textures:
        defines["NORMAL_MAP"] = 1
    if skinned:
        defines["SKINNED"] = 1
    if morphs:
        defines["MORPHS"] = 1
    return tuple(sorted(defines.items()))


class ProgramCache:
    """Programs by variant key, built on first use (context current)."""

    def __init__(self) -> None:
        self._programs: dict[tuple, Program] = {}

    def get(self, key: tuple[tuple[str, int], ...]) -> Program:
        program = self._programs.get(key)
        if program is None:
            program = Program("mtoon.vert.glsl", "mtoon.frag.glsl", dict(key))
            program.use()
            for name, unit in SAMPLER_UNITS.items():
                program.set_int(name, unit)
            program.loc_model = program.location("u_model")
            program.loc_morph = tuple(program.location(n) for n in (
                "u_morph_count", "u_vertex_count", "u_morph_stride", "u_morph_index",
                "u_morph_weight"))
            GL.glUseProgram(0)
            self._programs[key] = program
        return program

    def __len__(self) -> int:
        return len(self._programs)

    def release(self) -> None:
        for program in self._programs.values():
            program.release()
        self._programs.clear()
