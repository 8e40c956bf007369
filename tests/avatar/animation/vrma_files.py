"""Small VRM Animation (.vrma) files built in memory for the animation tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from companion_desktop.avatar.vrm import quat
from tests.avatar.loader.gltf_builder import SKELETON, GltfBuilder


def world_positions() -> dict[str, np.ndarray]:
    """Rest world positions of ``SKELETON`` (identity rotations, hips at y = 1)."""
    out: dict[str, np.ndarray] = {}
    for bone, (parent, translation) in SKELETON.items():
        base = out[parent] if parent is not None else np.zeros(3)
        out[bone] = base + np.asarray(translation, np.float64)
    return out


class VrmaBuilder:
    """A VRMA: the ``SKELETON`` T-pose under an optional root node, with any local rest
    rotations (translations chosen so the world T-pose stays the same)."""

    def __init__(self, *, rest: dict[str, np.ndarray] | None = None,
                 root_rotation: np.ndarray | None = None, root_scale: float = 1.0,
                 spec_version: Any = "1.0") -> None:
        self.b = GltfBuilder()
        self.nodes: dict[str, int] = {}
        self.world_rot: dict[str | None, np.ndarray] = {}
        rest = rest or {}
        root_q = quat.identity() if root_rotation is None else quat.normalize(root_rotation)
        self.root = self.b.node(name="root", rotation=root_q.tolist(),
                                scale=[root_scale] * 3)
        self.root_world = (quat.to_matrix(root_q) * root_scale, root_q)
        positions = world_positions()
        for bone, (parent, _) in SKELETON.items():
            parent_rot = self.world_rot[parent] if parent is not None else root_q
            parent_pos = positions[parent] if parent is not None else np.zeros(3)
            r = quat.normalize(rest.get(bone, quat.identity()))
            scale = 1.0 / root_scale
            offset = positions[bone] - parent_pos
            local_t = quat.rotate(quat.conjugate(parent_rot), offset) * scale
            index = self.b.node(root=False, name=bone, translation=local_t.tolist(),
                                rotation=r.tolist())
            holder = self.nodes[parent] if parent is not None else self.root
            self.b.json["nodes"][holder].setdefault("children", []).append(index)
            self.nodes[bone] = index
            self.world_rot[bone] = quat.multiply(parent_rot, r)
        self.ext: dict[str, Any] = {
            "humanoid": {"humanBones": {b: {"node": n} for b, n in self.nodes.items()}}}
        if spec_version is not None:
            self.ext["specVersion"] = spec_version
        self.b.json["extensions"] = {"VRMC_vrm_animation": self.ext}
        self.b.json["extensionsUsed"] = ["VRMC_vrm_animation"]
        self.channels: list[dict] = []
        self.samplers: list[dict] = []

    def expression(self, name: str, *, custom: bool = False) -> int:
        node = self.b.node(name=name)
        group = "custom" if custom else "preset"
        self.ext.setdefault("expressions", {}).setdefault(group, {})[name] = {"node": node}
        return node

    def look_at(self) -> int:
        node = self.b.node(name="lookAt", translation=[0.0, 1.5, 5.0])
        self.ext["lookAt"] = {"node": node, "offsetFromHeadBone": [0, 0.06, 0]}
        return node

    def channel(self, node: int | str, path: str, times, values,
                interpolation: str = "LINEAR") -> None:
        node = self.nodes[node] if isinstance(node, str) else node
        times = np.asarray(times, np.float32)
        values = np.asarray(values, np.float32)
        values = values.reshape(-1, values.shape[-1])
        sampler = {"input": self.b.accessor(times, min=[float(times.min())],
                                            max=[float(times.max())]),
                   "output": self.b.accessor(values), "interpolation": interpolation}
        self.samplers.append(sampler)
        self.channels.append({"sampler": len(self.samplers) - 1,
                              "target": {"node": node, "path": path}})

    def json(self) -> dict:
        doc = self.b.finish_json()
        if self.channels:
            doc["animations"] = [{"channels": self.channels, "samplers": self.samplers}]
        return doc

    def glb(self) -> bytes:
        from tests.avatar.loader.gltf_builder import make_glb

        return make_glb(self.json(), bytes(self.b.bin))

    def write(self, path: Path) -> Path:
        path.write_bytes(self.glb())
        return path


def simple_vrma(path: Path, *, duration: float = 2.0, angle_deg: float = 60.0,
                expression: str | None = None) -> Path:
    """leftUpperArm turning about +Z from 0 to ``angle_deg`` (and an expression 0 -> 1)."""
    v = VrmaBuilder()
    times = [0.0, duration]
    values = [quat.identity(), quat.from_axis_angle(np.array([0, 0, 1.0]),
                                                    np.radians(angle_deg))]
    v.channel("leftUpperArm", "rotation", times, values)
    if expression:
        node = v.expression(expression)
        v.channel(node, "translation", times, [[0, 0, 0], [1, 0, 0]])
    return v.write(path)
