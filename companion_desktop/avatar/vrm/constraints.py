"""VRMC_node_constraint 1.0: roll, aim and rotation constraints (three-vrm's maths), numpy only.

A constraint turns its *destination* node from the destination's rest local rotation
``R_d`` toward a target computed from its *source* node, then blends by ``weight``
(0..1, ``slerp(R_d, target, weight)``). Rest rotations are the file's (bind) pose.

- rotation: ``target = R_d * (R_s^-1 * q_s)``: the source's local turn from its rest.
- roll: the source's turn from rest, expressed in the destination's rest frame
  (``delta = R_d^-1 * q_s * R_s^-1 * R_d``), keeps only its twist about ``rollAxis``
  (X, Y or Z of the destination): ``target = R_d * from_to(delta * axis, axis) * delta``.
- aim: the destination's ``aimAxis`` (+-X, +-Y, +-Z, local) points at the source's world
  position: ``a0 = P * R_d * axis`` (``P``: parent world rotation), ``a1`` = direction
  from the destination to the source (world), ``target = P^-1 * from_to(a0, a1) * P * R_d``.

Order: a constraint runs after every constraint whose destination is its source or an
ancestor of the source, and, for aim, the destination's parent or one of its ancestors
(three-vrm's ``VRMNodeConstraintManager``). Constraints in a dependency cycle cannot be
ordered; ``order_constraints`` returns them apart and the solver leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from . import quat
from .pose import Pose, Skeleton, local_matrices

ConstraintKind = Literal["roll", "aim", "rotation"]
KINDS: tuple[ConstraintKind, ...] = ("roll", "aim", "rotation")
ROLL_AXES: dict[str, tuple[float, float, float]] = {
    "X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
AIM_AXES: dict[str, tuple[float, float, float]] = {
    "PositiveX": (1.0, 0.0, 0.0), "NegativeX": (-1.0, 0.0, 0.0),
    "PositiveY": (0.0, 1.0, 0.0), "NegativeY": (0.0, -1.0, 0.0),
    "PositiveZ": (0.0, 0.0, 1.0), "NegativeZ": (0.0, 0.0, -1.0),
}  # fmt: skip
_MIN_AIM_M = 1e-6  # closer than this (metres), the aim has no direction: rest rotation


@dataclass(frozen=True)
class NodeConstraint:
    """One node's constraint. ``axis``: roll "X"/"Y"/"Z", aim "PositiveX".."NegativeZ",
    rotation "" (unused). ``weight`` 0..1. Node indices are into ``VrmModel.nodes``."""

    kind: ConstraintKind
    destination: int
    source: int
    axis: str = ""
    weight: float = 1.0


def _ancestors(node: int, parents: np.ndarray | list[int]) -> list[int]:
    """``node`` and its ancestors, node first (stops on a malformed parent loop)."""
    out: list[int] = []
    while 0 <= node < len(parents) and node not in out:
        out.append(node)
        node = int(parents[node])
    return out


def dependency_nodes(c: NodeConstraint, parents: np.ndarray | list[int]) -> set[int]:
    """Nodes whose constraints must run before ``c`` (see the module docstring)."""
    nodes = set(_ancestors(c.source, parents))
    if c.kind == "aim" and 0 <= c.destination < len(parents):
        nodes.update(_ancestors(int(parents[c.destination]), parents))
    return nodes


def order_constraints(constraints: list[NodeConstraint], parents: np.ndarray | list[int]
                      ) -> tuple[list[NodeConstraint], list[NodeConstraint]]:
    """``(ordered, cyclic)``: a valid run order of the constraints outside any dependency
    cycle, and those in one (a constraint that depends on itself included)."""
    by_destination: dict[int, list[int]] = {}
    for i, c in enumerate(constraints):
        by_destination.setdefault(c.destination, []).append(i)
    edges = [sorted({j for node in dependency_nodes(c, parents)
                     for j in by_destination.get(node, ())}) for c in constraints]
    cyclic = {i for i in range(len(constraints)) if _reaches(edges, i, i)}
    ordered: list[int] = []
    done: set[int] = set(cyclic)
    for start in range(len(constraints)):
        _visit(edges, start, done, ordered)
    return [constraints[i] for i in ordered], [constraints[i] for i in sorted(cyclic)]


def _reaches(edges: list[list[int]], start: int, goal: int) -> bool:
    seen: set[int] = set()
    stack = list(edges[start])
    while stack:
        i = stack.pop()
        if i == goal:
            return True
        if i not in seen:
            seen.add(i)
            stack.extend(edges[i])
    return False


def _visit(edges: list[list[int]], start: int, done: set[int], ordered: list[int]) -> None:
    """Depth-first post-order without recursion (the graph here has no cycles left)."""
    stack = [(start, iter(edges[start]))]
    if start in done:
        return
    done.add(start)
    while stack:
        node, children = stack[-1]
        child = next((c for c in children if c not in done), None)
        if child is None:
            stack.pop()
            ordered.append(node)
        else:
            done.add(child)
            stack.append((child, iter(edges[child])))


@dataclass
class _Step:
    """A constraint with what never changes about it (rest quaternions, node chains)."""

    c: NodeConstraint
    axis: np.ndarray  # (3,) float64, destination local
    dst_rest: np.ndarray  # (4,) R_d
    src_term: np.ndarray  # (4,) roll: R_s^-1 * R_d; rotation: R_s^-1
    parent_chain: list[int]  # aim: the destination's ancestors, root first
    source_chain: list[int]  # aim: the source and its ancestors, root first


class ConstraintSolver:
    """Applies a model's constraints to a ``Pose`` in dependency order (cycles left out)."""

    def __init__(self, constraints: list[NodeConstraint], skeleton: Skeleton) -> None:
        self.skeleton = skeleton
        count = skeleton.count
        valid = [c for c in constraints if isinstance(c, NodeConstraint) and c.kind in KINDS
                 and 0 <= c.source < count and 0 <= c.destination < count
                 and c.source != c.destination]
        ordered, self.dropped = order_constraints(valid, skeleton.parents)
        self.steps = [self._prepare(c) for c in ordered]

    def __len__(self) -> int:
        return len(self.steps)

    def _prepare(self, c: NodeConstraint) -> _Step:
        rest = self.skeleton.rest_rotation
        table = ROLL_AXES if c.kind == "roll" else AIM_AXES
        axis = np.array(table.get(c.axis, (1.0, 0.0, 0.0)), np.float64)
        src_inv = quat.conjugate(rest[c.source])
        src_term = quat.multiply(src_inv, rest[c.destination]) if c.kind == "roll" else src_inv
        parents = self.skeleton.parents
        parent_chain = _ancestors(int(parents[c.destination]), parents)[::-1]
        source_chain = _ancestors(c.source, parents)[::-1]
        return _Step(c, axis, rest[c.destination].copy(), src_term, parent_chain, source_chain)

    def apply(self, pose: Pose) -> None:
        """Write each destination's local rotation into ``pose.rotation`` (in place)."""
        for step in self.steps:
            c = step.c
            if c.kind == "rotation":
                target = quat.multiply(step.dst_rest,
                                       quat.multiply(step.src_term, pose.rotation[c.source]))
            elif c.kind == "roll":
                target = self._roll(step, pose.rotation[c.source])
            else:
                target = self._aim(step, pose)
            weight = min(1.0, max(0.0, float(c.weight)))
            pose.rotation[c.destination] = quat.slerp(step.dst_rest, target, weight)

    @staticmethod
    def _roll(step: _Step, source: np.ndarray) -> np.ndarray:
        delta = quat.multiply(quat.conjugate(step.dst_rest),
                              quat.multiply(source, step.src_term))
        swing_back = quat.from_unit_vectors(quat.rotate(delta, step.axis), step.axis)
        return quat.multiply(step.dst_rest, quat.multiply(swing_back, delta))

    def _aim(self, step: _Step, pose: Pose) -> np.ndarray:
        parent = self._chain_world(pose, step.parent_chain)
        source = self._chain_world(pose, step.source_chain)
        head = parent[:3, :3] @ pose.translation[step.c.destination] + parent[:3, 3]
        direction = source[:3, 3] - head
        if float(np.linalg.norm(direction)) < _MIN_AIM_M:
            return step.dst_rest
        parent_rot = quat.from_matrix(parent[:3, :3])
        aim = quat.rotate(parent_rot, quat.rotate(step.dst_rest, step.axis))
        turn = quat.from_unit_vectors(aim, direction)
        local_turn = quat.multiply(quat.conjugate(parent_rot), quat.multiply(turn, parent_rot))
        return quat.multiply(local_turn, step.dst_rest)

    def _chain_world(self, pose: Pose, chain: list[int]) -> np.ndarray:
        """The world matrix at the end of ``chain`` (root first) under the current pose."""
        world = self.skeleton.root.copy()
        if chain:
            locals_ = local_matrices(pose.translation[chain], pose.rotation[chain],
                                     pose.scale[chain])
            for local in locals_:
                world = world @ local
        return world
