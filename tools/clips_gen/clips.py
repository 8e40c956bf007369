"""Every built-in motion, authored as key poses on the rig's channels (see ``rig``).

Conventions: she faces +Z, +X is her left. Hand targets are wrist positions from the
upper-arm joint in the chest frame with x outward, so ``B.`` keys mirror. Idles and the
talking/thinking loops wrap (the key at 0 is the key at the end); emotes start and end at
the neutral pose (arms down ~72 deg from horizontal, elbows soft, palms to the thighs).
"""

from __future__ import annotations

import math

from .curves import Curve
from .motion import Motion
from .rig import NEUTRAL_HAND, NEUTRAL_POLE

NH = tuple(float(v) for v in NEUTRAL_HAND)
NP = tuple(float(v) for v in NEUTRAL_POLE)


def hand(dx: float = 0.0, dy: float = 0.0, dz: float = 0.0) -> tuple[float, float, float]:
    """The neutral wrist target moved by (outward, up, forward) metres."""
    return (NH[0] + dx, NH[1] + dy, NH[2] + dz)


def wave_fn(duration: float, cycles: int, phase: float = 0.0):
    """sin over the loop, ``cycles`` whole periods in ``duration`` (seamless)."""
    def f(t: float) -> float:
        return math.sin(2 * math.pi * (cycles * t / duration + phase))
    return f


# -- poses ------------------------------------------------------------------------------
#: hands held together in front of the lower belly, fingers loosely laced
CLASPED = {"B.hand": (-0.050, -0.275, 0.150), "B.pole": (1.0, -0.35, -0.55), "B.roll": -25.0,
           "B.flex": 18.0, "B.dev": -12.0, "B.curl": 0.45, "B.icurl": 0.4, "B.thumb": 0.45}


def weight_shift(m: Motion, keys: list[tuple[float, float]], amount: float = 1.0) -> None:
    """Shift the weight between the feet: ``keys`` (time, -1 right .. +1 left foot).
    The standing hip rises, the upper body balances back over it, the head stays level.
    Added on top of the clip's own keys (a layer), so it never fights them."""
    curve = Curve(keys, m.duration if m.loop else None)

    def shift(t: float) -> dict[str, float]:
        w = curve(t) * amount
        return {"hips.x": 0.014 * w, "hips.roll": -2.2 * w, "torso.roll": 3.2 * w,
                "head.roll": -1.2 * w}
    m.layer(shift)


# -- idles ------------------------------------------------------------------------------
def idle_calm() -> Motion:
    d = 8.0
    m = Motion("idle_calm", "Calm", "idle", d, True,
               "Stands at ease, breathing, her weight drifting slowly from foot to foot.")
    weight_shift(m, [(0.0, 0.7), (1.6, 0.85), (3.6, -0.15), (5.0, -0.75), (6.6, -0.55)])
    m.delay("head.", 0.25).delay("L.", 0.3).delay("R.", 0.3)
    for t, p in ((0.0, 0.0), (2.4, 1.5), (4.4, -0.5), (6.4, 1.0)):
        m.key(t, {"head.pitch": p})
    for t, y in ((0.0, 2.0), (3.0, -1.5), (5.6, 1.0)):
        m.key(t, {"head.yaw": y})
    b = wave_fn(d, 2)
    m.key(0.0, {"B.hang": 0.8})
    m.layer(lambda t: {"B.sh.up": 0.8 * b(t), "torso.pitch": -0.4 * b(t),
                       "L.hand": (0.004 * b(t), 0.0, 0.0), "R.hand": (0.004 * b(t), 0.0, 0.0)})
    return m


def idle_sway() -> Motion:
    d = 6.0
    m = Motion("idle_sway", "Gentle sway", "idle", d, True,
               "Sways softly from side to side as if humming a tune, head following late.")
    sway = [(0.0, 0.0), (1.5, 1.0), (3.0, 0.0), (4.5, -1.0)]
    for t, w in sway:
        m.key(t, {"hips.x": 0.016 * w, "hips.roll": -1.5 * w, "hips.y": -0.004 - 0.004 * abs(w),
                  "torso.roll": 4.0 * w, "torso.yaw": 1.5 * w, "head.roll": 3.0 * w,
                  "head.yaw": -2.0 * w})
    m.delay("torso.", 0.15).delay("head.", 0.4)
    m.key(0.0, {"B.hang": 1.0})  # the arms hang plumb while the body sways
    return m


def idle_look_around() -> Motion:
    d = 12.0
    m = Motion("idle_look_around", "Look around", "idle", d, True,
               "Glances to her left, back, then to her right, as if something caught her eye.")
    keys = [  # t, head yaw, head pitch, head roll, torso yaw
        (0.0, 0.0, 0.0, 0.0, 0.0), (1.2, 0.0, 0.0, 0.0, 0.0),
        (2.0, 32.0, -3.0, 4.0, 6.0), (3.6, 34.0, -5.0, 3.0, 7.0), (4.4, 30.0, 2.0, 2.0, 6.0),
        (5.4, 0.0, 1.0, -1.0, 0.0), (6.6, 0.0, 0.0, 0.0, 0.0),
        (7.4, -26.0, -8.0, -5.0, -5.0), (9.2, -28.0, -6.0, -4.0, -5.0),
        (10.4, -2.0, 0.0, 0.0, -1.0),
    ]
    for t, yaw, pitch, roll, ty in keys:
        m.key(t, {"head.yaw": yaw, "head.pitch": pitch, "head.roll": roll, "torso.yaw": ty,
                  "hips.yaw": 0.3 * ty})
    m.delay("torso.", 0.2).delay("hips.", 0.3)
    weight_shift(m, [(0.0, 0.3), (3.0, 0.6), (8.5, -0.5)], 0.8)
    m.key(0.0, {"B.hang": 0.8})
    return m


def idle_stretch_light() -> Motion:
    d = 9.0
    m = Motion("idle_stretch_light", "Shoulder roll", "idle", d, True,
               "Rolls her shoulders up, back and down, then eases her neck to each side.")
    shoulder = [  # t, up, fwd (left shoulder leads, the right follows 0.25 s later)
        (0.0, 0.0, 0.0), (0.8, 5.0, 10.0), (1.6, 22.0, 3.0), (2.4, 14.0, -12.0),
        (3.3, 0.0, -4.0), (4.2, 0.0, 0.0)]
    for t, up, fwd in shoulder:
        m.key(t, {"L.sh.up": up, "L.sh.fwd": fwd, "R.sh.up": up, "R.sh.fwd": fwd})
    m.delay("R.sh", 0.25)
    neck = [(0.0, 0.0, 0.0), (3.0, 0.0, 0.0), (4.4, 14.0, 4.0), (5.4, 15.0, 5.0), (6.3, 0.0, 1.0),
            (7.3, -13.0, 4.0), (8.2, -1.0, 0.0)]
    for t, roll, pitch in neck:
        m.key(t, {"head.roll": roll, "head.pitch": pitch, "torso.roll": -0.2 * roll})
    for t, p in ((0.0, 0.0), (1.6, -2.0), (2.8, 1.5), (4.0, 0.0)):
        m.key(t, {"torso.pitch": p})
    weight_shift(m, [(0.0, 0.2), (4.5, -0.4)], 0.7)
    m.key(0.0, {"B.hang": 0.6})
    return m


def idle_hands() -> Motion:
    d = 10.0
    m = Motion("idle_hands", "Hands together", "idle", d, True,
               "Holds her hands loosely in front of her, fidgeting a little as she shifts.")
    m.key(0.0, CLASPED)
    lift = [(0.0, 0.0), (2.5, 0.012), (4.0, 0.0), (6.5, 0.018), (8.0, 0.004)]
    for t, y in lift:
        m.key(t, {"B.hand": (CLASPED["B.hand"][0], CLASPED["B.hand"][1] + y,
                             CLASPED["B.hand"][2] + 0.5 * y)})
    for t, c in ((0.0, 0.45), (3.0, 0.55), (4.2, 0.4), (7.0, 0.5)):
        m.key(t, {"B.curl": c})
    for t, c in ((0.0, 0.45), (2.6, 0.3), (3.4, 0.55), (6.0, 0.4), (7.2, 0.6)):
        m.key(t, {"B.thumb": c})
    weight_shift(m, [(0.0, -0.5), (2.0, -0.7), (5.0, 0.6), (7.5, 0.5)])
    for t, yaw, pitch in ((0.0, -3.0, 3.0), (3.0, 4.0, 5.0), (6.0, 2.0, 1.0), (8.0, -4.0, 4.0)):
        m.key(t, {"head.yaw": yaw, "head.pitch": pitch, "torso.pitch": 1.0})
    m.delay("head.", 0.3)
    return m


# -- emotes -----------------------------------------------------------------------------
def wave() -> Motion:
    d = 3.0
    m = Motion("wave", "Wave", "emote", d, False,
               "Raises her right hand beside her face and waves hello with a smile.")
    up = {"R.hand": (0.19, 0.06, 0.10), "R.pole": (0.5, -1.0, 0.0), "R.roll": 75.0,
          "R.flex": -10.0, "R.curl": 0.08, "R.icurl": 0.05, "R.thumb": 0.15, "R.spread": 6.0,
          "R.sh.up": 4.0}
    m.key(0.55, {**up, "R.hand": (0.19, 0.03, 0.09)})
    for i, t in enumerate((0.75, 1.05, 1.35, 1.65, 1.95, 2.2)):
        s = 1.0 if i % 2 == 0 else -1.0
        m.key(t, {**up, "R.hand": (0.195 + 0.035 * s, 0.06 - 0.008 * s, 0.10),
                  "R.dev": 14.0 * s})
    m.key(2.45, {**up, "R.hand": (0.19, 0.01, 0.09), "R.dev": 0.0})
    m.delay("R.dev", 0.08)
    m.hold(0.45, 2.35, {"head.roll": -6.0, "head.yaw": -4.0, "torso.roll": 2.0, "hips.x": 0.006})
    m.key(0.0, {"ex.happy": 0.0}).key(0.5, {"ex.happy": 0.8}).key(2.4, {"ex.happy": 0.8})
    m.key(0.35, {"L.hand": hand(0.01, 0.0, 0.0)})
    return m


def nod() -> Motion:
    d = 1.8
    m = Motion("nod", "Nod", "emote", d, False, "Nods twice: yes, I see.")
    for t, p in ((0.0, 0.0), (0.15, -3.0), (0.45, 16.0), (0.75, 2.0), (1.05, 10.0), (1.4, 0.0)):
        m.key(t, {"head.pitch": p, "torso.pitch": 0.15 * p})
    m.delay("torso.", 0.06)
    m.key(0.3, {"ex.happy": 0.35}).key(1.4, {"ex.happy": 0.35})
    return m


def shake_head() -> Motion:
    d = 2.0
    m = Motion("shake_head", "Shake head", "emote", d, False,
               "Shakes her head: no, not really.")
    for t, y in ((0.0, 0.0), (0.25, 16.0), (0.6, -16.0), (0.95, 13.0), (1.3, -8.0), (1.6, 0.0)):
        m.key(t, {"head.yaw": y, "head.roll": -0.15 * y, "torso.yaw": -0.12 * y})
    m.delay("torso.", 0.08)
    m.hold(0.2, 1.6, {"head.pitch": 4.0})
    return m


def bow() -> Motion:
    d = 3.0
    m = Motion("bow", "Bow", "emote", d, False,
               "A polite bow from the hips, hands together in front, then upright again.")
    hands_front = {"B.hand": (-0.045, -0.33, 0.12), "B.pole": (1.0, -0.3, -0.5),
                   "B.roll": -20.0, "B.flex": 12.0, "B.dev": -8.0}
    m.key(0.5, {**hands_front, "hips.pitch": 0.0, "torso.pitch": 0.0})
    m.hold(1.1, 1.8, {**hands_front, "hips.pitch": 14.0, "torso.pitch": 20.0,
                      "head.pitch": 8.0, "hips.z": -0.03, "B.hang": 0.7})
    m.key(0.5, {"B.hang": 0.0}).key(2.5, {"B.hang": 0.0})
    m.key(2.5, {**hands_front, "hips.pitch": 0.0, "torso.pitch": 0.0})
    m.key(0.5, {"hips.z": 0.0}).key(2.4, {"hips.z": 0.0}).key(0.5, {"head.pitch": 0.0})
    m.key(2.4, {"head.pitch": -1.0})
    m.delay("head.", 0.12)
    return m


def cheer() -> Motion:
    d = 3.0
    m = Motion("cheer", "Cheer", "emote", d, False,
               "Both arms up with a little bounce: yay!")
    up = {"B.hand": (0.16, 0.36, 0.06), "B.pole": (1.0, 0.0, -0.4), "B.roll": 60.0,
          "B.flex": -5.0, "B.curl": 0.1, "B.icurl": 0.08, "B.thumb": 0.1, "B.spread": 8.0}
    # anticipation: a little dip, arms drawn back
    m.key(0.3, {"hips.y": -0.022, "B.hand": hand(0.02, 0.02, -0.03), "head.pitch": 4.0})
    # the arms swing up in front
    m.key(0.55, {"B.hand": (0.12, -0.04, 0.24), "B.pole": (0.8, -1.0, -0.3), "B.roll": 30.0,
                 "hips.y": -0.008})
    m.key(0.8, {**up, "hips.y": 0.0, "head.pitch": -6.0})
    # two bounces
    m.key(1.1, {**up, "hips.y": -0.018, "B.hand": (0.15, 0.31, 0.07)})
    m.key(1.4, {**up, "hips.y": 0.0})
    m.key(1.7, {**up, "hips.y": -0.015, "B.hand": (0.15, 0.32, 0.07)})
    m.key(2.0, {**up, "hips.y": -0.004, "head.pitch": -4.0})
    # down again out to the sides
    m.key(2.3, {"B.hand": (0.34, 0.0, 0.12), "B.pole": (0.3, -1.0, -0.6), "B.roll": 25.0,
                "B.flex": 0.0, "B.curl": 0.15, "B.icurl": 0.12, "B.thumb": 0.18, "B.spread": 6.0})
    m.key(2.6, {"B.hand": (0.20, -0.26, 0.12), "B.pole": (0.5, -1.0, -0.6), "B.roll": 0.0,
                "B.flex": 3.0, "B.curl": 0.22, "B.icurl": 0.18, "B.thumb": 0.25, "B.spread": 4.0})
    m.key(0.5, {"ex.happy": 1.0, "ex.aa": 0.5}).key(2.0, {"ex.happy": 1.0, "ex.aa": 0.4})
    m.key(0.25, {"ex.aa": 0.0})
    m.delay("L.", 0.04)
    return m


def shy() -> Motion:
    d = 3.4
    m = Motion("shy", "Shy", "emote", d, False,
               "Cups her blushing cheeks in her hands with a flustered smile, looking down "
               "bashfully.")
    face = {"B.hand": (-0.02, 0.03, 0.135), "B.pole": (0.3, -1.0, 0.2), "B.roll": 35.0,
            "B.flex": -25.0, "B.curl": 0.15, "B.icurl": 0.1, "B.thumb": 0.2,
            "B.sh.up": 6.0, "B.sh.fwd": 6.0}
    m.key(0.55, face)
    m.hold(0.8, 2.3, {**face, "head.pitch": 14.0, "head.roll": 8.0, "head.yaw": 6.0,
                      "torso.pitch": 4.0, "torso.yaw": 4.0})
    m.key(0.55, {"head.pitch": 6.0})
    m.key(1.6, {**face, "B.hand": (-0.018, 0.035, 0.14), "head.roll": 10.0})
    m.key(2.8, {"B.hand": hand(-0.01, 0.05, 0.03), "B.pole": NP, "B.roll": -4.0, "B.flex": 4.0,
                "B.curl": 0.25, "B.icurl": 0.2, "B.thumb": 0.28, "B.sh.up": 1.0, "B.sh.fwd": 1.0})
    m.key(0.4, {"ex.happy": 0.8}).key(2.6, {"ex.happy": 0.7})
    m.key(0.5, {"ex.relaxed": 0.3}).key(2.6, {"ex.relaxed": 0.2})
    m.delay("head.", 0.1)
    return m


def think_pose() -> Motion:
    d = 3.2
    m = Motion("think_pose", "Think", "emote", d, False,
               "Brings her right hand to her chin and ponders, looking up, then lets it drop.")
    chin = {"R.hand": (-0.065, 0.01, 0.14), "R.pole": (0.3, -1.0, 0.1), "R.roll": 10.0,
            "R.flex": -30.0, "R.dev": 10.0, "R.curl": 0.7, "R.icurl": 0.35, "R.thumb": 0.2}
    support = {"L.hand": (-0.11, -0.18, 0.15), "L.pole": (1.0, -0.6, -0.3), "L.roll": -30.0,
               "L.flex": 8.0, "L.curl": 0.35}
    m.key(0.7, {**chin, **support})
    m.hold(0.9, 2.4, {**chin, **support, "head.pitch": -8.0, "head.yaw": 10.0, "head.roll": 6.0,
                      "torso.yaw": -3.0})
    m.key(1.6, {**chin, "R.icurl": 0.45, "head.pitch": -10.0})
    m.key(0.6, {"head.pitch": 0.0})
    m.delay("head.", 0.15).delay("L.", 0.12)
    return m


# -- talking / thinking loops -----------------------------------------------------------
def talking() -> Motion:
    d = 8.0
    m = Motion("talking", "Talking", "talking", d, True,
               "Small nods, tilts and an open-handed gesture while she speaks.")
    head = [  # t, pitch, yaw, roll
        (0.0, 1.0, 0.0, 0.0), (0.7, 4.0, 3.0, -2.0), (1.4, 0.0, 4.0, -3.0), (2.2, 3.0, -2.0, 1.0),
        (3.0, -1.0, -4.0, 3.0), (3.8, 3.5, -1.0, 2.0), (4.6, 0.5, 3.0, -1.0),
        (5.4, 4.0, 5.0, -3.0), (6.3, 0.0, 1.0, 0.0), (7.2, 3.0, -2.0, 1.5)]
    for t, p, y, r in head:
        m.key(t, {"head.pitch": p, "head.yaw": y, "head.roll": r})
    for t, p, y in ((0.0, 1.0, 0.0), (2.0, 1.5, -2.0), (4.0, 0.5, 1.0), (6.0, 2.0, 2.0)):
        m.key(t, {"torso.pitch": p, "torso.yaw": y})
    m.delay("torso.", 0.3)
    gesture = {"R.hand": (0.08, -0.22, 0.21), "R.pole": (0.3, -1.0, -0.4), "R.roll": 70.0,
               "R.flex": -12.0, "R.curl": 0.15, "R.icurl": 0.1, "R.thumb": 0.15, "R.spread": 5.0}
    m.key(0.0, {"R.hand": hand(0.0, 0.01, 0.01), "R.pole": NP, "R.roll": -5.0, "R.flex": 6.0,
                "R.curl": 0.28, "R.icurl": 0.22, "R.thumb": 0.3, "R.spread": 3.0})
    m.key(1.0, gesture)
    # beats: the open hand lifts and drops a little with the words
    m.key(1.5, {**gesture, "R.hand": (0.09, -0.185, 0.22), "R.flex": -4.0})
    m.key(2.1, {**gesture, "R.hand": (0.07, -0.235, 0.20), "R.flex": -15.0})
    m.key(2.8, {**gesture, "R.hand": (0.09, -0.20, 0.21), "R.flex": -6.0})
    m.key(3.8, {"R.hand": hand(0.0, 0.01, 0.01), "R.pole": NP, "R.roll": -5.0, "R.flex": 6.0,
                "R.curl": 0.28, "R.icurl": 0.22, "R.thumb": 0.3, "R.spread": 3.0})
    lg = {"L.hand": (0.08, -0.23, 0.20), "L.pole": (0.3, -1.0, -0.4), "L.roll": 60.0,
          "L.flex": -8.0, "L.curl": 0.2, "L.spread": 4.0}
    m.key(0.0, {"L.hand": hand(0.0, 0.0, 0.0), "L.pole": NP, "L.roll": -8.0, "L.flex": 6.0,
                "L.curl": 0.28, "L.spread": 3.0})
    m.key(4.2, {"L.hand": hand(0.0, 0.0, 0.0), "L.pole": NP, "L.roll": -8.0, "L.flex": 6.0,
                "L.curl": 0.28, "L.spread": 3.0})
    m.key(5.0, lg)
    m.key(5.8, {**lg, "L.hand": (0.09, -0.20, 0.21), "L.flex": -2.0})
    m.key(6.6, {**lg, "L.hand": (0.07, -0.245, 0.19), "L.flex": -12.0})
    m.key(7.4, {"L.hand": hand(0.0, 0.0, 0.0), "L.pole": NP, "L.roll": -8.0, "L.flex": 6.0,
                "L.curl": 0.28, "L.spread": 3.0})
    weight_shift(m, [(0.0, 0.3), (4.0, -0.3)], 0.6)
    return m


def thinking() -> Motion:
    d = 8.0
    m = Motion("thinking", "Thinking", "thinking", d, True,
               "Hand near her chin, looking up and aside while she thinks it over.")
    chin = {"R.hand": (-0.065, 0.01, 0.14), "R.pole": (0.3, -1.0, 0.1), "R.roll": 10.0,
            "R.flex": -30.0, "R.dev": 10.0, "R.curl": 0.7, "R.icurl": 0.35, "R.thumb": 0.2}
    support = {"L.hand": (-0.11, -0.18, 0.15), "L.pole": (1.0, -0.6, -0.3), "L.roll": -30.0,
               "L.flex": 8.0, "L.curl": 0.35}
    m.key(0.0, {**chin, **support})
    for t, icurl in ((0.0, 0.35), (0.4, 0.5), (0.8, 0.35), (1.2, 0.5), (1.6, 0.35),
                     (4.5, 0.35), (4.9, 0.5), (5.3, 0.35)):
        m.key(t, {"R.icurl": icurl})
    head = [(0.0, -8.0, 12.0, 6.0), (2.5, -10.0, 14.0, 7.0), (3.6, -6.0, 2.0, 2.0),
            (4.6, -9.0, -8.0, -3.0), (6.4, -10.0, -6.0, -2.0), (7.4, -8.0, 8.0, 4.0)]
    for t, p, y, r in head:
        m.key(t, {"head.pitch": p, "head.yaw": y, "head.roll": r, "torso.yaw": -0.2 * y})
    m.delay("torso.", 0.3)
    weight_shift(m, [(0.0, 0.5), (4.0, 0.3)], 0.7)
    return m


IDLES = (idle_calm, idle_sway, idle_look_around, idle_stretch_light, idle_hands)
EMOTES = (wave, nod, shake_head, bow, cheer, shy, think_pose)
LOOPS = (talking, thinking)


def all_motions() -> list[Motion]:
    from .moves import MOVES  # noqa: PLC0415 - moves builds on this module

    return [f() for f in (*IDLES, *EMOTES, *LOOPS, *MOVES)]
