"""Write a baked motion as a VRM Animation: glTF 2.0 binary (GLB) with
``VRMC_vrm_animation`` 1.0. Deterministic: the same motion gives the same bytes.

Nodes are the skeleton (``skeleton.BONES``, hips the root, identity rest rotations) and
one node per animated expression (its translation.x is the weight). Every bone gets a
rotation channel, the hips a translation channel; keys are the 30 fps samples with the
ones that linear interpolation reproduces (within a tiny tolerance) left out.
"""

from __future__ import annotations

import json
import math
import struct

import numpy as np

from .motion import Baked
from .skeleton import CHILDREN, NAMES, offset

GENERATOR = "companion_desktop tools/make_builtin_clips.py"
ROT_TOL = math.radians(0.02)  # radians
POS_TOL = 5e-5  # metres
EXPR_TOL = 1e-3
DIGITS = 6  # values are rounded before float32: the same bytes on any machine


def _reduce(values: np.ndarray, error) -> list[int]:
    """Indices of the keys to keep: greedy, so that interpolating linearly between kept
    keys stays within tolerance of every sample (``error(a, b, s, v)``: (m,) errors)."""
    n = len(values)
    keep = [0]
    i = 0
    while i < n - 1:
        j = i + 1
        while j + 1 < n:
            k = np.arange(i + 1, j + 1)
            if np.any(error(values[i], values[j + 1], (k - i) / (j + 1 - i), values[k])):
                break
            j += 1
        keep.append(j)
        i = j
    return keep


def _rot_bad(a, b, s, v) -> np.ndarray:
    """True where slerp(a, b, s) is farther than ROT_TOL from v (unit quaternions)."""
    d = float(np.dot(a, b))
    if d < 0.0:
        b, d = -b, -d
    theta = math.acos(min(1.0, d))
    if theta < 1e-6:
        q = a[None, :] + (b - a)[None, :] * s[:, None]
    else:
        q = (np.sin((1 - s) * theta)[:, None] * a
             + np.sin(s * theta)[:, None] * b) / math.sin(theta)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    dots = np.minimum(1.0, np.abs(np.sum(q * v, axis=1)))
    return 2.0 * np.arccos(dots) > ROT_TOL


def _lin_bad(tol):
    def bad(a, b, s, v) -> np.ndarray:
        return np.max(np.abs(a + (b - a) * s[:, None] - v), axis=1) > tol
    return bad


def _round(values: np.ndarray) -> np.ndarray:
    out = np.round(np.asarray(values, np.float64), DIGITS)
    out[out == 0.0] = 0.0  # no negative zeros
    return out.astype("<f4")


class _Writer:
    def __init__(self) -> None:
        self.blob = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []
        self._inputs: dict[tuple[int, ...], int] = {}

    def accessor(self, data: np.ndarray, kind: str, minmax: bool = False) -> int:
        raw = data.tobytes()
        while len(self.blob) % 4:
            self.blob.append(0)
        self.views.append({"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(raw)})
        self.blob.extend(raw)
        acc = {"bufferView": len(self.views) - 1, "componentType": 5126,
               "count": int(data.shape[0]), "type": kind}
        if minmax:
            acc["min"] = [float(data.min())]
            acc["max"] = [float(data.max())]
        self.accessors.append(acc)
        return len(self.accessors) - 1

    def input(self, times: np.ndarray, keep: list[int]) -> int:
        key = tuple(keep)
        if key not in self._inputs:
            self._inputs[key] = self.accessor(_round(times[keep]), "SCALAR", minmax=True)
        return self._inputs[key]


def write(baked: Baked, name: str) -> bytes:
    """The .vrma bytes of a baked motion."""
    index = {b: i for i, b in enumerate(NAMES)}
    nodes: list[dict] = []
    for b in NAMES:
        node: dict = {"name": b, "translation": [float(v) for v in _round(offset(b))]}
        if CHILDREN[b]:
            node["children"] = [index[c] for c in CHILDREN[b]]
        nodes.append(node)
    expr_nodes = {}
    for e in baked.expressions:
        expr_nodes[e] = len(nodes)
        nodes.append({"name": f"Expression_{e}"})
    w = _Writer()
    channels, samplers = [], []

    def add(node: int, path: str, values: np.ndarray, ok) -> None:
        keep = _reduce(values, ok)
        kind = {"rotation": "VEC4", "translation": "VEC3"}[path]
        inp = w.input(baked.times, keep)
        out = w.accessor(_round(values[keep]), kind)
        samplers.append({"input": inp, "output": out, "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": node, "path": path}})

    add(index["hips"], "translation", baked.hips, _lin_bad(POS_TOL))
    for b in NAMES:
        add(index[b], "rotation", baked.rotations[b], _rot_bad)
    for e, weights in baked.expressions.items():
        xyz = np.zeros((len(weights), 3))
        xyz[:, 0] = weights
        add(expr_nodes[e], "translation", xyz, _lin_bad(EXPR_TOL))

    ext: dict = {"specVersion": "1.0",
                 "humanoid": {"humanBones": {b: {"node": index[b]} for b in NAMES}}}
    if expr_nodes:
        ext["expressions"] = {"preset": {e: {"node": n} for e, n in expr_nodes.items()}}
    gltf = {
        "asset": {"version": "2.0", "generator": GENERATOR},
        "extensionsUsed": ["VRMC_vrm_animation"],
        "extensions": {"VRMC_vrm_animation": ext},
        "scene": 0,
        "scenes": [{"nodes": [index["hips"], *expr_nodes.values()]}],
        "nodes": nodes,
        "animations": [{"name": name, "channels": channels, "samplers": samplers}],
        "accessors": w.accessors,
        "bufferViews": w.views,
        "buffers": [{"byteLength": len(w.blob)}],
    }
    return glb(gltf, bytes(w.blob))


def glb(gltf: dict, blob: bytes) -> bytes:
    text = json.dumps(gltf, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    total = 12 + 8 + len(text) + 8 + len(blob)
    return (struct.pack("<III", 0x46546C67, 2, total)
            + struct.pack("<II", len(text), 0x4E4F534A) + text
            + struct.pack("<II", len(blob), 0x004E4942) + blob)
