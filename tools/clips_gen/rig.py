"""Channels (named numbers) to a pose of the clip skeleton: local rotations of every bone
and the hips translation. Angles are degrees, distances metres at Hana's scale.

Sides are authored alike: ``L.*`` and ``R.*`` channels use outward-positive x, so the same
numbers give mirrored poses. Channels:

* ``hips.x/y/z``: hips offset from rest; ``hips.pitch/yaw/roll`` (see ``qmath.euler_deg``:
  pitch > 0 forward, yaw > 0 to her left, roll > 0 tilts to her left).
* ``torso.pitch/yaw/roll``: spread over spine, chest and upperChest.
* ``head.pitch/yaw/roll``: spread over neck and head.
* ``S.sh.up``, ``S.sh.fwd``: shoulder girdle raised / drawn forward.
* ``S.hand.x/y/z``: where the wrist goes, from the upper-arm joint, in the upperChest frame
  (x outward, y up, z forward); ``S.pole.x/y/z``: the way the elbow points. The arm is a
  two-bone IK chain: upper and lower arm follow.
* ``S.hang``: 0..1, how much the hand offset and pole follow gravity instead of the
  chest when the upper body tilts (1: a hanging arm stays vertical in a bow).
* ``S.roll``: forearm twist, > 0 turns the palm forward (supination) from the hanging
  palm-to-thigh; ``S.flex`` wrist bend toward the palm, ``S.dev`` toward the thumb.
* ``S.curl``, ``S.icurl`` (index), ``S.thumb``: 0 straight .. 1 fist; ``S.spread`` degrees.
* Legs are solved so the feet stay planted, flat on the floor, knees forward; the hips
  sink as much as needed so a leg is never overstretched. ``S.foot.x/y/z`` move a foot
  from where it stands at rest (x outward, y up: the lift of its sole above the floor, z
  forward); ``S.foot.pitch`` > 0 raises the toes (pivoting on the heel), < 0 raises the
  heel (pivoting on the ball of the foot, the toes staying flat): the sole never goes
  below its lift.
* ``ex.<name>``: expression weights 0..1.
"""

from __future__ import annotations

import math

import numpy as np

from . import qmath as qm
from .skeleton import NAMES, PARENT, REST, TIPS, offset

SIDES = (("L", "left", 1.0), ("R", "right", -1.0))
TORSO_SPLIT = (("spine", 0.3), ("chest", 0.35), ("upperChest", 0.35))
HEAD_SPLIT = (("neck", 0.4), ("head", 0.6))
PALM = np.array([0.0, -1.0, 0.0])  # palm normal of the T-pose (palms down)
MAX_REACH = 0.995  # of a limb's length
LEG_REACH = 0.999  # of the leg's length: knees never lock (about 5 degrees bent)
SOFT = 0.0006  # metres: how softly the hips sink to keep the legs within reach


def _neutral_arm() -> tuple[np.ndarray, np.ndarray]:
    """Hand offset and elbow pole of the relaxed arm: upper arm 72 deg down from
    horizontal and 6 deg forward, elbow bent 14 deg (left side; outward x)."""
    upper = REST["leftLowerArm"] - REST["leftUpperArm"]
    lower = REST["leftHand"] - REST["leftLowerArm"]
    r_upper = qm.chain(qm.axis_deg(qm.X, -6.0), qm.axis_deg(qm.Z, -72.0))
    r_lower = qm.mul(r_upper, qm.axis_deg(-qm.Y, 14.0))
    elbow = qm.rotate(r_upper, upper)
    hand = elbow + qm.rotate(r_lower, lower)
    axis = qm.unit(hand)
    # the pole is where the elbow points, across the shoulder-wrist line (a unit vector)
    return hand, qm.unit(elbow - axis * float(np.dot(elbow, axis)))


NEUTRAL_HAND, NEUTRAL_POLE = _neutral_arm()

NEUTRAL: dict[str, float] = {
    "hips.x": 0.0, "hips.y": 0.0, "hips.z": 0.0,
    "hips.pitch": 0.0, "hips.yaw": 0.0, "hips.roll": 0.0,
    "torso.pitch": 0.0, "torso.yaw": 0.0, "torso.roll": 0.0,
    "head.pitch": 0.0, "head.yaw": 0.0, "head.roll": 0.0,
}
for _s, _, _ in SIDES:
    NEUTRAL.update({
        f"{_s}.sh.up": 0.0, f"{_s}.sh.fwd": 0.0,
        f"{_s}.hand.x": float(NEUTRAL_HAND[0]), f"{_s}.hand.y": float(NEUTRAL_HAND[1]),
        f"{_s}.hand.z": float(NEUTRAL_HAND[2]),
        f"{_s}.pole.x": float(NEUTRAL_POLE[0]), f"{_s}.pole.y": float(NEUTRAL_POLE[1]),
        f"{_s}.pole.z": float(NEUTRAL_POLE[2]),
        f"{_s}.roll": -8.0, f"{_s}.flex": 6.0, f"{_s}.dev": 0.0,
        f"{_s}.hang": 0.0,
        f"{_s}.curl": 0.28, f"{_s}.icurl": 0.22, f"{_s}.thumb": 0.3, f"{_s}.spread": 3.0,
        f"{_s}.foot.x": 0.0, f"{_s}.foot.y": 0.0, f"{_s}.foot.z": 0.0, f"{_s}.foot.pitch": 0.0,
    })


class Pose:
    """Local rotations (bone -> quaternion), the hips translation and expressions."""

    def __init__(self) -> None:
        self.local: dict[str, np.ndarray] = {n: qm.IDENTITY.copy() for n in NAMES}
        self.hips = REST["hips"].copy()
        self.expressions: dict[str, float] = {}
        self.world_rot: dict[str, np.ndarray] = {}
        self.world_pos: dict[str, np.ndarray] = {}

    def fk(self, bone: str) -> None:
        """World rotation/position of one bone from its parent's (parents first)."""
        parent = PARENT[bone]
        if parent is None:
            self.world_rot[bone] = self.local[bone]
            self.world_pos[bone] = self.hips.copy()
        else:
            self.world_rot[bone] = qm.mul(self.world_rot[parent], self.local[bone])
            self.world_pos[bone] = self.world_pos[parent] + qm.rotate(
                self.world_rot[parent], offset(bone))

    def set_world(self, bone: str, rotation: np.ndarray) -> None:
        """local = inverse(parent world) * world; then the bone's FK."""
        parent = PARENT[bone]
        parent_rot = self.world_rot[parent] if parent else qm.IDENTITY
        self.local[bone] = qm.normalize(qm.mul(qm.conj(parent_rot), rotation))
        self.fk(bone)

    def point(self, bone: str, rest_point: np.ndarray) -> np.ndarray:
        """Where a point fixed to ``bone`` (given at rest, world) is now."""
        return self.world_pos[bone] + qm.rotate(self.world_rot[bone], rest_point - REST[bone])


def _split(pose: Pose, ch: dict[str, float], prefix: str, split) -> None:
    for bone, share in split:
        pose.local[bone] = qm.euler_deg(share * ch[f"{prefix}.pitch"], share * ch[f"{prefix}.yaw"],
                                        share * ch[f"{prefix}.roll"])
        pose.fk(bone)


def two_bone(root: np.ndarray, target: np.ndarray, len1: float, len2: float,
             pole: np.ndarray, reach: float = MAX_REACH
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directions (upper, lower) of a two-bone chain from ``root`` reaching ``target``
    with the joint toward ``pole``; also the bend-plane normal ``upper x lower``."""
    to = target - root
    dist = float(np.linalg.norm(to))
    axis = to / max(dist, 1e-9)
    dist = min(max(dist, abs(len1 - len2) + 1e-4), reach * (len1 + len2))
    side = pole - axis * float(np.dot(pole, axis))
    side = qm.unit(side)
    cos_a = (len1 * len1 + dist * dist - len2 * len2) / (2 * len1 * dist)
    a = math.acos(max(-1.0, min(1.0, cos_a)))
    upper = axis * math.cos(a) + side * math.sin(a)
    joint = root + upper * len1
    lower = qm.unit(root + axis * dist - joint)
    normal = qm.unit(np.cross(upper, lower))
    if float(np.linalg.norm(np.cross(upper, lower))) < 1e-6:  # straight: any normal
        normal = qm.unit(np.cross(upper, side))
    return upper, lower, normal


def _limb(pose: Pose, upper: str, lower: str, end: str, target: np.ndarray, pole: np.ndarray,
          hinge: np.ndarray, twist: float, reach: float = MAX_REACH) -> None:
    """Solve upper/lower by IK. ``hinge``: the rest axis the joint bends about (a positive
    turn about it bends the lower bone the natural way); ``twist``: lower bone roll."""
    d0 = qm.unit(REST[lower] - REST[upper])
    d1 = qm.unit(REST[end] - REST[lower])
    len1 = float(np.linalg.norm(REST[lower] - REST[upper]))
    len2 = float(np.linalg.norm(REST[end] - REST[lower]))
    u, f, n = two_bone(pose.world_pos[upper], target, len1, len2, pole, reach)
    # the bend normal n = u x f; a positive turn about the hinge h bends d toward h x d,
    # so h must map onto n (h x d ~ n x u ~ the forearm's side)
    pose.set_world(upper, qm.from_basis(d0, hinge, u, n))
    r_up = pose.world_rot[upper]
    f_local = qm.rotate(qm.conj(r_up), f)
    theta = math.atan2(float(np.dot(hinge, np.cross(d1, f_local))), float(np.dot(d1, f_local)))
    bend = qm.axis_angle(hinge, theta)
    pose.local[lower] = qm.normalize(qm.mul(bend, qm.axis_angle(d1, twist)))
    pose.fk(lower)


def _fingers(pose: Pose, side: str, sign: float, ch: dict[str, float], s: str) -> None:
    curl, icurl, thumb, spread = (ch[f"{s}.curl"], ch[f"{s}.icurl"], ch[f"{s}.thumb"],
                                  ch[f"{s}.spread"])
    for finger, c, fan in (("Index", icurl, 1.0), ("Middle", curl, 0.0),
                           ("Ring", curl, -0.6), ("Little", curl, -1.2)):
        for joint, k in (("Proximal", 70.0), ("Intermediate", 90.0), ("Distal", 60.0)):
            bone = f"{side}{finger}{joint}"
            d = _bone_dir(bone)
            q = qm.axis_deg(np.cross(d, PALM), k * c)
            if joint == "Proximal":
                q = qm.mul(q, qm.axis_deg(-sign * qm.Y, fan * spread))
            pose.local[bone] = q
    for joint, k in (("Metacarpal", 20.0), ("Proximal", 30.0), ("Distal", 40.0)):
        bone = f"{side}Thumb{joint}"
        d = _bone_dir(bone)
        axis = qm.unit(np.cross(d, PALM) + (0.0 if joint != "Metacarpal" else -0.6 * sign) * qm.Y)
        pose.local[bone] = qm.axis_deg(axis, k * thumb)


def _bone_dir(bone: str) -> np.ndarray:
    """Rest direction of a finger bone, toward the next joint (or the fingertip)."""
    for joint, nxt in (("Metacarpal", "Proximal"), ("Proximal", "Intermediate"),
                       ("Intermediate", "Distal"), ("Proximal", "Distal")):
        if bone.endswith(joint) and bone[: -len(joint)] + nxt in REST:
            return qm.unit(REST[bone[: -len(joint)] + nxt] - REST[bone])
    return qm.unit(TIPS[bone] - REST[bone])


def solve(ch: dict[str, float]) -> Pose:
    """The pose for one set of channel values (missing channels: neutral)."""
    c = dict(NEUTRAL)
    c.update(ch)
    pose = Pose()
    pose.hips = REST["hips"] + np.array([c["hips.x"], c["hips.y"], c["hips.z"]])
    pose.local["hips"] = qm.euler_deg(c["hips.pitch"], c["hips.yaw"], c["hips.roll"])
    pose.fk("hips")
    _legs(pose, c)
    _split(pose, c, "torso", TORSO_SPLIT)
    _split(pose, c, "head", HEAD_SPLIT)
    r_chest = pose.world_rot["upperChest"]
    tilt = _swing(r_chest)
    for s, side, sign in SIDES:
        shoulder = qm.chain(qm.axis_deg(sign * qm.Z, c[f"{s}.sh.up"]),
                            qm.axis_deg(-sign * qm.Y, c[f"{s}.sh.fwd"]))
        pose.local[f"{side}Shoulder"] = shoulder
        pose.fk(f"{side}Shoulder")
        pose.fk(f"{side}UpperArm")
        hand = np.array([sign * c[f"{s}.hand.x"], c[f"{s}.hand.y"], c[f"{s}.hand.z"]])
        pole = qm.unit(np.array([sign * c[f"{s}.pole.x"], c[f"{s}.pole.y"], c[f"{s}.pole.z"]]))
        r_arm = qm.mul(qm.slerp(qm.IDENTITY, qm.conj(tilt), c[f"{s}.hang"]), r_chest)
        target = pose.world_pos[f"{side}UpperArm"] + qm.rotate(r_arm, hand)
        _limb(pose, f"{side}UpperArm", f"{side}LowerArm", f"{side}Hand", target,
              qm.rotate(r_arm, pole), -sign * qm.Y, math.radians(-sign * c[f"{s}.roll"]))
        pose.local[f"{side}Hand"] = qm.chain(qm.axis_deg(-sign * qm.Z, c[f"{s}.flex"]),
                                             qm.axis_deg(-sign * qm.Y, c[f"{s}.dev"]))
        pose.fk(f"{side}Hand")
        _fingers(pose, side, sign, c, s)
    pose.expressions = {k[3:]: min(1.0, max(0.0, v)) for k, v in c.items()
                        if k.startswith("ex.")}
    return pose


def _swing(q: np.ndarray) -> np.ndarray:
    """The part of a rotation that tilts the vertical (no turn about it)."""
    up = qm.rotate(q, qm.Y)
    axis = np.cross(qm.Y, up)
    s = float(np.linalg.norm(axis))
    if s < 1e-9:
        return qm.IDENTITY.copy()
    return qm.axis_angle(axis / s, math.atan2(s, float(up[1])))


#: points of the sole from the ankle (the foot joint) at rest, metres: heel, ball, toe tip
HEEL = np.array([0.0, -REST["leftFoot"][1], -0.045])
BALL = np.array([0.0, -REST["leftFoot"][1], REST["leftToes"][2] - REST["leftFoot"][2]])


def _foot(c: dict[str, float], s: str, side: str, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """The ankle target and the foot's world rotation for one side's foot channels."""
    pitch = c[f"{s}.foot.pitch"]
    shift = np.array([sign * c[f"{s}.foot.x"], c[f"{s}.foot.y"], c[f"{s}.foot.z"]])
    if pitch == 0.0:
        return REST[f"{side}Foot"] + shift, qm.IDENTITY
    rot = qm.axis_deg(-qm.X, pitch)  # toes up for pitch > 0
    pivot = HEEL if pitch > 0.0 else BALL
    # the pivot stays where it was at rest (lifted by foot.y): the ankle turns about it
    ankle = pivot - qm.rotate(rot, pivot)
    return REST[f"{side}Foot"] + shift + ankle, rot


def _legs(pose: Pose, c: dict[str, float]) -> None:
    """Feet where the foot channels put them (planted at rest); sink the hips if a leg
    would overstretch."""
    len1 = float(np.linalg.norm(REST["leftLowerLeg"] - REST["leftUpperLeg"]))
    len2 = float(np.linalg.norm(REST["leftFoot"] - REST["leftLowerLeg"]))
    reach = LEG_REACH * (len1 + len2)
    feet = {side: _foot(c, s, side, sign) for s, side, sign in SIDES}
    needs = [0.0]
    for side in ("left", "right"):
        hip = pose.point("hips", REST[f"{side}UpperLeg"])
        to = hip - feet[side][0]
        # lowering the hips by dy brings the hip within reach when |to - dy Y| <= reach
        horiz = min(to[0] ** 2 + to[2] ** 2, 0.9 * reach * reach)
        needs.append(to[1] - math.sqrt(reach * reach - horiz))
    # a smooth maximum (log-sum-exp, SOFT metres wide): the knees never snap
    top = max(needs)
    drop = top + SOFT * math.log(sum(math.exp((n - top) / SOFT) for n in needs))
    pose.hips = pose.hips - np.array([0.0, drop, 0.0])
    pose.fk("hips")
    for s, side, sign in SIDES:
        pose.fk(f"{side}UpperLeg")
        pole = np.array([sign * 0.12, 0.0, 1.0])
        target, rot = feet[side]
        _limb(pose, f"{side}UpperLeg", f"{side}LowerLeg", f"{side}Foot", target,
              pole, qm.X, 0.0, reach=1.0 - 1e-6)
        pose.set_world(f"{side}Foot", rot)
        # heel up: the toes stay flat on the floor
        pose.set_world(f"{side}Toes", qm.IDENTITY if c[f"{s}.foot.pitch"] < 0.0 else rot)
