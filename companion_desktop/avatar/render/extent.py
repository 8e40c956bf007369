"""Where on the picture a posed model can be, from a few spheres instead of every vertex.

At load, every vertex is put in a box of each joint that moves it: the box is fixed in
the model's bind space, so in any pose that joint's skinning matrix carries it along (a
vertex blended between joints lies between its boxes' images, so together they hold
it). An unskinned primitive gets one box in its node's space. Morph targets grow a box by
the most they can move a vertex, outlines by their width. Per picture the boxes' corners
are projected: a few hundred points, not the model's tens of thousands.

The post antialiasing pass (``antialias``) runs only inside this rectangle.
"""

from __future__ import annotations

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import VrmModel

from .bounds import is_skinned, mesh_instances

_CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], np.float32)


def _morph_reach(primitive) -> np.ndarray:  # noqa: ANN001 - vrm.model.Primitive
    """Per vertex: the farthest its morph targets can move it (weights up to 1 each)."""
    reach = np.zeros(len(primitive.positions), np.float32)
    for target in primitive.targets:
        if target.positions is not None and len(target.positions) == len(reach):
            reach += np.linalg.norm(target.positions, axis=1)
    return reach


class ScreenExtent:
    """Boxes around a model's vertices; ``rectangle`` projects them for one picture."""

    def __init__(self, model: VrmModel, outline: float = 0.0):
        """``outline``: the widest world-space outline of its materials (metres)."""
        self._skins: list[tuple[int, np.ndarray, slice]] = []  # skin, joint ids, its boxes
        self._nodes: list[int] = []  # node of each unskinned box, after the joints' boxes
        joint_boxes: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        node_boxes: list[tuple[np.ndarray, np.ndarray]] = []
        for node, mesh in mesh_instances(model):
            for primitive in model.meshes[mesh].primitives:
                points = np.asarray(primitive.positions, np.float64)
                if not len(points):
                    continue
                reach = (_morph_reach(primitive) + outline)[:, None]
                if is_skinned(model, node, primitive):
                    skin = model.nodes[node].skin
                    joints = np.asarray(primitive.joints, np.int64)
                    rows, slots = np.nonzero(np.asarray(primitive.weights) > 0)
                    owner = joints[rows, slots]
                    for joint in np.unique(owner):
                        mine = rows[owner == joint]
                        joint_boxes.append((skin, int(joint),
                                            (points[mine] - reach[mine]).min(axis=0),
                                            (points[mine] + reach[mine]).max(axis=0)))
                else:
                    self._nodes.append(node)
                    node_boxes.append(((points - reach).min(axis=0), (points + reach).max(axis=0)))
        joint_boxes.sort(key=lambda box: box[:2])
        low = [box[2] for box in joint_boxes] + [box[0] for box in node_boxes]
        high = [box[3] for box in joint_boxes] + [box[1] for box in node_boxes]
        low_ = np.array(low, np.float32).reshape(-1, 1, 3)
        size = np.array(high, np.float32).reshape(-1, 1, 3) - low_
        corners = low_ + size * _CORNERS  # (boxes, 8, 3)
        self._corners = np.concatenate([corners, np.ones((*corners.shape[:2], 1), np.float32)],
                                       axis=2)  # homogeneous
        start = 0
        for skin in sorted({box[0] for box in joint_boxes}):
            ids = np.array([box[1] for box in joint_boxes if box[0] == skin], np.int64)
            self._skins.append((skin, ids, slice(start, start + len(ids))))
            start += len(ids)

    def rectangle(self, frame: Frame, view: np.ndarray, proj: np.ndarray, width: int,
                  height: int, pad: int = 0) -> tuple[int, int, int, int] | None:
        """(x, y, w, h) in GL window pixels (y up) holding the model in this picture,
        grown by ``pad`` and clipped to it; None when the model may reach behind the
        camera (use the whole picture), (0, 0, 0, 0) when it has no vertices."""
        if not len(self._corners):
            return (0, 0, 0, 0)
        parts = []
        for skin, ids, _boxes in self._skins:
            if skin >= len(frame.joint_matrices) or ids.max() >= len(frame.joint_matrices[skin]):
                return None
            parts.append(frame.joint_matrices[skin][ids])
        if self._nodes:
            parts.append(frame.world[self._nodes])
        matrices = np.concatenate(parts).astype(np.float32)  # one per box, bind -> world
        to_clip = (np.asarray(proj, np.float32) @ np.asarray(view, np.float32))[None] @ matrices
        clip = np.matmul(self._corners, to_clip.transpose(0, 2, 1)).reshape(-1, 4)
        if not clip[:, 3].min() > 1e-6:
            return None
        ndc = clip[:, :2] / clip[:, 3:]
        size = np.array((width, height), np.float64)
        low = np.floor((ndc.min(axis=0) + 1.0) * 0.5 * size) - pad
        high = np.ceil((ndc.max(axis=0) + 1.0) * 0.5 * size) + pad
        x0, y0 = (int(v) for v in np.maximum(low, 0))
        x1, y1 = int(min(high[0], width)), int(min(high[1], height))
        if x1 <= x0 or y1 <= y0:
            return (0, 0, 0, 0)
        return (x0, y0, x1 - x0, y1 - y0)
