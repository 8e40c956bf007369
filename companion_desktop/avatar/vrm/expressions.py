"""Expression weights to morph weights, material colours and texture transforms (VRM 1.0).

Weights are 0..1 per expression name (presets and custom alike). Each frame:

1. ``is_binary`` expressions output 1 when their weight is > 0.5, else 0.
2. Overrides: every expression with ``override_blink`` (``_look_at``, ``_mouth``) set to
   "block" and an output > 0 takes 1 from that category's multiplier, "blend" takes its
   output weight; the multiplier is floored at 0 and scales the blink (blink, blinkLeft,
   blinkRight), look-at (lookUp/Down/Left/Right) or mouth (aa ih ou ee oh) expressions.
   An expression never overrides its own category.
3. Morph weight of a target = its binds' weights x expression outputs, summed, clamped to
   0..1 (targets no expression binds keep the mesh's default weight).
4. Material colour = base + sum of (bind target - base) x output (floored at 0), for every
   bound (material, kind). Texture transform (scale, offset) = K + sum of (bind - K) x
   output, for every bound material, where K is the material's own KHR_texture_transform of
   its base colour texture (identity (1, 1)/(0, 0) without one), as three-vrm does: the
   result replaces the material's transform, and at weight 0 equals it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .model import Expression, Mesh, MToon, VrmModel

BLINK: tuple[str, ...] = ("blink", "blinkLeft", "blinkRight")
LOOK_AT: tuple[str, ...] = ("lookUp", "lookDown", "lookLeft", "lookRight")
MOUTH: tuple[str, ...] = ("aa", "ih", "ou", "ee", "oh")

_MODES = {"none": 0, "block": 1, "blend": 2}


@dataclass
class ExpressionOutput:
    morph_weights: list[np.ndarray]  # per mesh, (targets,) float32 in 0..1
    material_colors: dict[tuple[int, str], np.ndarray] = field(default_factory=dict)
    texture_transforms: dict[int, tuple[tuple[float, float], tuple[float, float]]] = field(
        default_factory=dict)


def _target_count(mesh: Mesh) -> int:
    return len(mesh.target_names) or (len(mesh.primitives[0].targets) if mesh.primitives else 0)


def material_base_color(model: VrmModel, material: int, kind: str) -> np.ndarray:
    """The (4,) RGBA value a colour bind starts from (alpha 1 for RGB properties)."""
    mat = model.materials[material]
    mtoon = mat.mtoon or MToon()
    rgb = {
        "color": None,
        "emissionColor": mat.emissive,
        "shadeColor": mtoon.shade_color,
        "matcapColor": mtoon.matcap_factor,
        "rimColor": mtoon.parametric_rim_color,
        "outlineColor": mtoon.outline_color,
    }.get(kind)
    if rgb is None:
        return np.asarray(mat.base_color, np.float64).reshape(4)
    return np.append(np.asarray(rgb, np.float64).reshape(3), 1.0)


def material_texture_transform(model: VrmModel, material: int) -> tuple[np.ndarray, np.ndarray]:
    """(scale, offset) a texture transform bind starts from: the base colour texture's
    KHR_texture_transform, or identity ((1, 1), (0, 0)) without one."""
    ref = model.materials[material].base_color_texture
    if ref is None:
        return np.ones(2), np.zeros(2)
    return np.asarray(ref.scale, np.float64), np.asarray(ref.offset, np.float64)


class ExpressionManager:
    """Holds expression weights by name and evaluates them for a frame."""

    def __init__(self, model: VrmModel) -> None:
        self.model = model
        self.names: list[str] = list(model.expressions)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.weights = np.zeros(len(self.names))
        exprs = [model.expressions[n] for n in self.names]
        self._binary = np.array([e.is_binary for e in exprs], bool)
        self._modes = {
            cat: np.array([_MODES.get(getattr(e, f"override_{cat}"), 0) for e in exprs], np.int8)
            for cat in ("blink", "look_at", "mouth")
        }
        self._members = {
            "blink": np.array([n in BLINK for n in self.names], bool),
            "look_at": np.array([n in LOOK_AT for n in self.names], bool),
            "mouth": np.array([n in MOUTH for n in self.names], bool),
        }
        modes = np.array([self._modes[c] for c in ("blink", "look_at", "mouth")])  # (3, E)
        members = np.array([self._members[c] for c in ("blink", "look_at", "mouth")])
        self._any_binary = bool(self._binary.any())
        self._block_others = ((modes == 1) & ~members).astype(np.float64)
        self._blend_others = ((modes == 2) & ~members).astype(np.float64)
        self._overriding = bool(self._block_others.any() or self._blend_others.any())
        self._member_rows = [np.nonzero(m)[0] for m in members]
        self._build_morphs(exprs)
        self._build_materials(exprs)

    def _build_morphs(self, exprs: list[Expression]) -> None:
        self._morph_base: list[np.ndarray] = []
        self._morph_matrix: list[np.ndarray | None] = []
        for m, mesh in enumerate(self.model.meshes):
            count = _target_count(mesh)
            base = np.resize(np.asarray(mesh.default_weights, np.float64), count) if count else \
                np.zeros(0)
            matrix = np.zeros((len(exprs), count))
            for e, expr in enumerate(exprs):
                for bind in expr.morph_binds:
                    if bind.mesh == m and 0 <= bind.target < count:
                        matrix[e, bind.target] += bind.weight
            bound = np.any(matrix != 0.0, axis=0)
            base = np.where(bound, 0.0, base)
            self._morph_base.append(base)
            self._morph_matrix.append(matrix if bound.any() else None)

    def _build_materials(self, exprs: list[Expression]) -> None:
        n_mat = len(self.model.materials)
        colors: dict[tuple[int, str], list[tuple[int, np.ndarray]]] = {}
        uv: dict[int, list[tuple[int, np.ndarray, np.ndarray]]] = {}
        for e, expr in enumerate(exprs):
            for bind in expr.material_color_binds:
                if 0 <= bind.material < n_mat:
                    target = np.resize(np.asarray(bind.target, np.float64), 4)
                    colors.setdefault((bind.material, bind.kind), []).append((e, target))
            for tb in expr.texture_transform_binds:
                if 0 <= tb.material < n_mat:
                    scale, offset = material_texture_transform(self.model, tb.material)
                    uv.setdefault(tb.material, []).append(
                        (e, np.asarray(tb.scale, np.float64) - scale,
                         np.asarray(tb.offset, np.float64) - offset))
        self._colors = []
        for (mat, kind), binds in colors.items():
            base = material_base_color(self.model, mat, kind)
            idx = np.array([e for e, _ in binds], np.int64)
            delta = np.array([t - base for _, t in binds])
            self._colors.append(((mat, kind), base, idx, delta))
        self._uv = [(mat, *material_texture_transform(self.model, mat),
                     np.array([b[0] for b in binds], np.int64),
                     np.array([b[1] for b in binds]), np.array([b[2] for b in binds]))
                    for mat, binds in uv.items()]

    # -- weights --------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.index

    def set(self, name: str, weight: float) -> bool:
        """Set an expression's weight (clamped to 0..1); False when the model lacks it."""
        i = self.index.get(name)
        if i is None:
            return False
        self.weights[i] = min(1.0, max(0.0, float(weight))) if weight == weight else 0.0
        return True

    def get(self, name: str) -> float:
        i = self.index.get(name)
        return 0.0 if i is None else float(self.weights[i])

    def reset(self) -> None:
        self.weights[:] = 0.0

    def output_weights(self) -> np.ndarray:
        """Per expression, the weight actually applied (binary rounding, overrides)."""
        w = self.weights
        out = np.where(self._binary, (w > 0.5).astype(np.float64), w) if self._any_binary \
            else w.copy()
        if not self._overriding:
            return out
        # per category: what the others' "block" (1 if shown) and "blend" (weight) take
        taken = self._block_others @ (out > 0.0).astype(np.float64) + self._blend_others @ out
        applied = out.copy()
        for rows, amount in zip(self._member_rows, taken.tolist(), strict=True):
            multiplier = max(0.0, 1.0 - amount)
            if multiplier < 1.0:
                applied[rows] *= multiplier
        return applied

    def applied(self, name: str) -> float:
        i = self.index.get(name)
        return 0.0 if i is None else float(self.output_weights()[i])

    # -- evaluation -----------------------------------------------------------------
    def evaluate(self) -> ExpressionOutput:
        w = self.output_weights()
        morphs = []
        for base, matrix in zip(self._morph_base, self._morph_matrix, strict=True):
            values = base if matrix is None else \
                np.minimum(np.maximum(base + w @ matrix, 0.0), 1.0)
            morphs.append(values.astype(np.float32))
        colors = {key: np.maximum(base + w[idx] @ delta, 0.0).astype(np.float32)
                  for key, base, idx, delta in self._colors}
        uv = {}
        for mat, base_scale, base_offset, idx, dscale, doffset in self._uv:
            scale = base_scale + w[idx] @ dscale
            off = base_offset + w[idx] @ doffset
            uv[mat] = ((float(scale[0]), float(scale[1])), (float(off[0]), float(off[1])))
        return ExpressionOutput(morphs, colors, uv)
