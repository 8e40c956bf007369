"""A pose of a model: per-node local translation/rotation/scale, and the normalized humanoid.

The raw pose (``Pose.translation``, ``rotation``, ``scale``; shape (nodes, 3|4|3), float64)
starts at the rest pose of the file. Humanoid bones are also posed in *normalized* space,
as three-vrm's normalized humanoid: a bone rotation is given in world-aligned axes (glTF:
+Y up, the model facing +Z after ``root_rotation_y``), relative to the rest pose, and is
converted to the raw local rotation through the bone's parent rest world rotation ``P``::

    raw_local = P^-1 * q_normalized * P * rest_local

so a bone's world rotation becomes ``Q_ancestors * q * rest_world``: the same rotation
looks the same on any model, whatever the rest orientation of its bones. The hips get a
translation offset in the same world-aligned space (metres).

World matrices are computed by pointer doubling: every node's matrix is multiplied by the
matrix of its ancestor 1, 2, 4, ... levels up, so a tree of depth D takes ceil(log2(D + 2))
batched products over all nodes (tables of those ancestors are built at load).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from . import quat
from .frame import rotation_y
from .model import VrmModel

_EYE4 = np.eye(4)  # the identity row of world_from_locals (not made anew each frame)


class Skeleton:
    """What never changes about a model's node tree, cached for fast posing."""

    def __init__(self, model: VrmModel) -> None:
        nodes = model.nodes
        self.count = len(nodes)
        self.parents = np.array([-1 if n.parent is None else n.parent for n in nodes], np.int64)
        self.rest_translation = np.array([n.translation for n in nodes], np.float64).reshape(-1, 3)
        self.rest_rotation = quat.normalize(
            np.array([n.rotation for n in nodes], np.float64).reshape(-1, 4))
        self.rest_scale = np.array([n.scale for n in nodes], np.float64).reshape(-1, 3)
        self.root = rotation_y(model.root_rotation_y).astype(np.float64)
        self.root_quat = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), model.root_rotation_y)
        self.levels = _levels(self.parents)
        self.jumps = _jumps(self.parents)
        self.rest_world_rotation = self._rest_world_rotations()
        self.rest_world = world_from_locals(self, local_matrices(
            self.rest_translation, self.rest_rotation, self.rest_scale))
        self.bones: list[str] = [b for b in model.humanoid if 0 <= model.humanoid[b] < self.count]
        self.bone_index = {name: i for i, name in enumerate(self.bones)}
        self.bone_nodes = np.array([model.humanoid[b] for b in self.bones], np.int64)
        parent_rot = np.array(
            [self.rest_world_rotation[p] if p >= 0 else self.root_quat
             for p in self.parents[self.bone_nodes]], np.float64).reshape(-1, 4)
        self.bone_parent_rot = parent_rot
        self.bone_parent_rot_inv = quat.conjugate(parent_rot)
        # raw_local = P^-1 * q * (P * rest_local) is linear in q: one 4x4 map per bone
        self.bone_maps = quat.sandwich_maps(
            self.bone_parent_rot_inv,
            quat.multiply(parent_rot, self.rest_rotation[self.bone_nodes]))
        self.hips = model.humanoid.get("hips")
        self.hips_parent_world_inv = np.eye(4)
        if self.hips is not None and 0 <= self.hips < self.count:
            parent = self.parents[self.hips]
            parent_world = self.rest_world[parent] if parent >= 0 else self.root
            self.hips_parent_world_inv = np.linalg.inv(parent_world)
        else:
            self.hips = None
        self.skins = [(np.asarray(s.joints, np.int64), np.asarray(s.inverse_bind, np.float64))
                      for s in model.skins]
        self.hips_target = np.zeros(4)
        self.hips_target[3] = 1.0
        if self.hips is not None:
            self.hips_target[:3] = self.rest_world[self.hips, :3, 3]
        # hips translation = inverse parent rest world x (rest position + offset, 1)
        self.hips_rest_local = (self.hips_parent_world_inv @ self.hips_target)[:3]
        self.hips_offset_map = self.hips_parent_world_inv[:3, :3].copy()

    def _rest_world_rotations(self) -> np.ndarray:
        out = np.empty_like(self.rest_rotation)
        for nodes, parents in self.levels:
            parent_rot = np.where((parents < 0)[:, None], self.root_quat,
                                  out[np.maximum(parents, 0)])
            out[nodes] = quat.multiply(parent_rot, self.rest_rotation[nodes])
        return out


def _levels(parents: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Node indices grouped by depth (roots first), each with its parents' indices."""
    depth = np.full(len(parents), -1, np.int64)
    for start in range(len(parents)):
        chain: list[int] = []
        node = start
        while node >= 0 and depth[node] < 0 and len(chain) <= len(parents):
            chain.append(node)
            node = parents[node]
        base = depth[node] if node >= 0 else -1
        for offset, member in enumerate(reversed(chain)):
            depth[member] = base + 1 + offset
    levels = []
    for d in range(int(depth.max()) + 1 if len(depth) else 0):
        nodes = np.nonzero(depth == d)[0]
        levels.append((nodes, parents[nodes]))
    return levels


def _jumps(parents: np.ndarray) -> list[np.ndarray]:
    """Ancestor tables for pointer doubling over ``n + 2`` rows: the nodes, then ``n`` (the
    root rotation, parent of every root) and ``n + 1`` (the identity, its own parent).
    Table k holds each row's ancestor ``2^k`` steps up (stopping at ``n + 1``)."""
    n = len(parents)
    up = np.append(np.where(parents >= 0, parents, n), [n + 1, n + 1]).astype(np.intp)
    jumps = []
    for _ in range(n + 2):
        if np.all(up == n + 1):
            break
        jumps.append(up)
        up = up[up]
    return jumps


def local_matrices(t: np.ndarray, r: np.ndarray, s: np.ndarray,
                   out: np.ndarray | None = None) -> np.ndarray:
    """(n, 4, 4) local matrices from translations, quaternions and scales; ``out`` (at
    least n rows, bottom rows already (0, 0, 0, 1)) is filled and returned when given."""
    n = len(t)
    if out is None:
        out = np.zeros((n, 4, 4), np.float64)
        out[:, 3, 3] = 1.0
    np.multiply(quat.to_matrix(r), s[:, None, :], out=out[:n, :3, :3])
    out[:n, :3, 3] = t
    return out


def world_from_locals(skeleton: Skeleton, locals_: np.ndarray) -> np.ndarray:
    """(n, 4, 4) world matrices, the root rotation on top (pointer doubling, see the module
    docstring). ``locals_`` may hold two spare rows (n + 2 in all) that this overwrites."""
    n = skeleton.count
    if len(locals_) == n + 2:
        rows = locals_
    else:
        rows = np.empty((n + 2, 4, 4))
        rows[:n] = locals_
    rows[n] = skeleton.root
    rows[n + 1] = _EYE4
    for up in skeleton.jumps:
        rows = np.matmul(rows.take(up, axis=0), rows)
    return rows[:n]


class Pose:
    """Mutable pose state of one model (see the module docstring for the spaces)."""

    def __init__(self, model: VrmModel, skeleton: Skeleton | None = None) -> None:
        self.model = model
        self.skeleton = skeleton or Skeleton(model)
        self.normalized = quat.identity(len(self.skeleton.bones))
        self.hips_offset = np.zeros(3)
        self._rows = np.zeros((self.skeleton.count + 2, 4, 4))
        self._rows[:, 3, 3] = 1.0
        self._changed = self._rows.copy()  # local matrices of changed nodes (scratch)
        self._plans: dict[bytes, Subtree] = {}
        self._bone_rows: dict[tuple[str, ...], np.ndarray] = {}
        self.reset()

    # -- raw pose -------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the rest pose; normalized rotations identity, no hips offset."""
        sk = self.skeleton
        self.translation = sk.rest_translation.copy()
        self.rotation = sk.rest_rotation.copy()
        self.scale = sk.rest_scale.copy()
        self.normalized[:] = quat.IDENTITY
        self.hips_offset[:] = 0.0

    def set_local_rotation(self, node: int, rotation: np.ndarray) -> None:
        """Set a node's raw local rotation (x, y, z, w)."""
        self.rotation[node] = quat.normalize(rotation)

    # -- normalized humanoid --------------------------------------------------------
    def has_bone(self, bone: str) -> bool:
        return bone in self.skeleton.bone_index

    def set_bone_rotation(self, bone: str, rotation: np.ndarray) -> None:
        """A humanoid bone's rotation in normalized space; ignored for a missing bone."""
        index = self.skeleton.bone_index.get(bone)
        if index is not None:
            self.normalized[index] = quat.normalize(rotation)

    def set_bone_rotations(self, rotations: Mapping[str, np.ndarray]) -> None:
        for bone, rotation in rotations.items():
            self.set_bone_rotation(bone, rotation)

    def bone_rotation(self, bone: str) -> np.ndarray:
        """The normalized rotation of a bone (identity for a missing one)."""
        index = self.skeleton.bone_index.get(bone)
        return quat.identity() if index is None else self.normalized[index].copy()

    def set_hips_offset(self, offset: np.ndarray) -> None:
        """Hips translation from rest, metres, in the world-aligned normalized space."""
        self.hips_offset[:] = offset

    def apply_humanoid(self, bones: Iterable[str] | None = None) -> None:
        """Write normalized rotations (and the hips offset) into the raw local pose."""
        sk = self.skeleton
        if bones is None:
            idx: np.ndarray | slice = slice(None)
            count = len(sk.bones)
        else:
            bones = tuple(bones)
            rows = self._bone_rows.get(bones)  # the same few bones every frame (the eyes)
            if rows is None:
                rows = self._bone_rows[bones] = np.array(
                    [sk.bone_index[b] for b in bones if b in sk.bone_index], np.int64)
            idx, count = rows, len(rows)
        if count:
            self.rotation[sk.bone_nodes[idx]] = np.matmul(
                sk.bone_maps[idx], self.normalized[idx][:, :, None])[:, :, 0]
        if sk.hips is not None and (bones is None or "hips" in bones):
            # the hips' rest position plus the offset, into its parent's rest space
            self.translation[sk.hips] = sk.hips_rest_local + sk.hips_offset_map @ self.hips_offset

    # -- matrices -------------------------------------------------------------------
    def local_matrices(self) -> np.ndarray:
        return local_matrices(self.translation, self.rotation, self.scale)

    def world_matrices(self) -> np.ndarray:
        """(nodes, 4, 4) float64 world matrices of the current raw pose (a new array)."""
        rows = local_matrices(self.translation, self.rotation, self.scale, out=self._rows)
        return world_from_locals(self.skeleton, rows)

    def world_matrices_after(self, world: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """``world_matrices()`` when, since ``world`` came from it, only the local pose of
        ``nodes`` (sorted, unique) changed: their rows and their descendants' are computed
        again (``Subtree``) from the local matrices kept from that call (a new array; the
        same numbers up to rounding)."""
        if not len(nodes):
            return world.copy()
        key = nodes.tobytes()
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = Subtree(self.skeleton, nodes)
        local_matrices(self.translation[nodes], self.rotation[nodes], self.scale[nodes],
                       out=self._changed)
        self._rows[nodes] = self._changed[:len(nodes)]
        return plan.world(self._rows, world)

    def joint_matrices(self, world: np.ndarray) -> list[np.ndarray]:
        """Per skin: (joints, 4, 4) float32 ``world[joint] @ inverse_bind``."""
        return [np.matmul(world.take(joints, axis=0), ibm).astype(np.float32) if len(joints)
                else np.zeros((0, 4, 4), np.float32) for joints, ibm in self.skeleton.skins]


def world_rotation(world: np.ndarray, node: int) -> np.ndarray:
    """The rotation quaternion of a world matrix (scale divided out)."""
    return quat.from_matrix(world[node, :3, :3])


def normalized_world_rotation(pose: Pose, world: np.ndarray, node: int) -> np.ndarray:
    """How far a node's world rotation has turned from its rest (world-aligned, unit quat)."""
    return quat.multiply(world_rotation(world, node),
                         quat.conjugate(pose.skeleton.rest_world_rotation[node]))



class Subtree:
    """Some nodes and everything below them, posed again over an unchanged rest of the tree.

    Its rows are the subtree's nodes, then the world matrices it hangs from (the parents
    outside it; the root rotation for a root), then the identity; each row's parent is
    the row above it, those outside hang from the identity. Pointer doubling over these
    rows (as ``world_from_locals``) gives the subtree's world matrices in
    ``ceil(log2(depth + 2))`` batched products.
    """

    def __init__(self, skeleton: Skeleton, nodes: np.ndarray) -> None:
        parents = skeleton.parents
        inside = np.zeros(skeleton.count, bool)
        inside[nodes] = True
        while True:  # add the children of rows inside until nothing is added
            below = (parents >= 0) & inside[np.maximum(parents, 0)] & ~inside
            if not below.any():
                break
            inside |= below
        self.nodes = np.nonzero(inside)[0]
        row = {int(node): i for i, node in enumerate(self.nodes.tolist())}
        outside = sorted({int(parents[n]) for n in self.nodes if int(parents[n]) not in row})
        count = len(self.nodes)
        identity = count + len(outside)
        up = [row[p] if p in row else count + outside.index(p)
              for p in parents[self.nodes].tolist()] + [identity] * (len(outside) + 1)
        self.outside = np.array([max(p, 0) for p in outside], np.int64)
        self.root_rows = [count + k for k, p in enumerate(outside) if p < 0]
        self.root = skeleton.root
        self.jumps = _jumps_over(np.array(up, np.intp), identity)
        self._rows = np.zeros((identity + 1, 4, 4))
        self._rows[identity] = np.eye(4)

    def world(self, locals_: np.ndarray, world: np.ndarray) -> np.ndarray:
        """A copy of ``world`` with the subtree's rows computed from ``locals_`` (all nodes)."""
        count = len(self.nodes)
        rows = self._rows
        rows[:count] = locals_.take(self.nodes, axis=0)
        rows[count:-1] = world.take(self.outside, axis=0)
        for k in self.root_rows:
            rows[k] = self.root
        for up in self.jumps:
            rows = np.matmul(rows.take(up, axis=0), rows)
        out = world.copy()
        out[self.nodes] = rows[:count]
        return out


def _jumps_over(up: np.ndarray, top: int) -> list[np.ndarray]:
    """Ancestor tables for pointer doubling: table k holds each row's ancestor ``2^k``
    steps up ``up`` (row ``top`` is its own parent)."""
    jumps = []
    for _ in range(len(up)):
        if np.all(up == top):
            break
        jumps.append(up)
        up = up[up]
    return jumps
