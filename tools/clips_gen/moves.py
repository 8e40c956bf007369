"""Her moves on the desktop: an in-place walk cycle and sitting on a window's top edge.

Both are loops of kind ``move`` (never in the idle pool; the walking controller plays
them). The walk treads in place (the overlay carries her along): each foot slides back on
the floor at a steady speed while it bears her weight (``WALK_SPEED`` metres a second at
Hana's size) and swings forward in an arc, heel first, rolling off the ball of the foot;
the hips bob twice a cycle and sway over the standing foot, the pelvis turns with the
stride and the chest against it, the arms swing opposite to the legs. ``sit`` sits on an
edge at ``SEAT_HEIGHT`` metres above her lowest point (thighs level over the edge, shins
hanging, hands on the edge beside her hips), breathing, her feet swinging a little.
Everything is a function of the loop's phase, so the loops join seamlessly.
"""

from __future__ import annotations

import math

from .curves import smoothstep
from .motion import Motion
from .rig import NEUTRAL_HAND

WALK_PERIOD = 1.2  # seconds for two steps
STANCE = 0.6  # share of the cycle a foot is on the floor
STRIDE = 0.19  # metres each way from under the hip
LIFT = 0.045  # metres the swinging foot's sole clears the floor
#: how fast the floor passes under her feet (m/s at Hana's size, 1.43 m tall)
WALK_SPEED = 2 * STRIDE / (STANCE * WALK_PERIOD)
SEAT_HEIGHT = 0.375  # metres from her lowest point (the dangling toes) to the edge

NH = tuple(float(v) for v in NEUTRAL_HAND)


def _foot(phase: float) -> dict[str, float]:
    """One foot's channels at ``phase`` (0: heel strike in front; 0..STANCE on the floor)."""
    p = phase % 1.0
    if p < STANCE:  # on the floor, sliding back at the floor's speed
        s = p / STANCE
        z = STRIDE * (1.0 - 2.0 * s)
        if p < 0.12:  # the heel strikes, the toes come down
            pitch = 12.0 * (1.0 - smoothstep(p / 0.12))
        elif p > 0.4:  # the heel rises, rolling onto the ball of the foot
            pitch = -24.0 * smoothstep((p - 0.4) / (STANCE - 0.4)) ** 1.5
        else:
            pitch = 0.0
        return {"z": z, "y": 0.0, "pitch": pitch}
    s = (p - STANCE) / (1.0 - STANCE)  # swinging forward
    # a cubic that leaves and meets the floor at the floor's own speed (no skid, no kink)
    m = -2.0 * STRIDE * (1.0 - STANCE) / STANCE
    s2, s3 = s * s, s * s * s
    z = ((2 * s3 - 3 * s2 + 1) * -STRIDE + (s3 - 2 * s2 + s) * m
         + (-2 * s3 + 3 * s2) * STRIDE + (s3 - s2) * m)
    y = LIFT * math.sin(math.pi * s ** 0.8) ** 2  # highest early in the swing
    pitch = -24.0 + 36.0 * smoothstep(s)
    return {"z": z, "y": y, "pitch": pitch}


def walk() -> Motion:
    d = WALK_PERIOD
    m = Motion("walk", "Walk", "move", d, True,
               "A slow, easy walk on the spot: the overlay carries her along.")
    tau = 2 * math.pi

    def step(t: float) -> dict[str, object]:
        ph = t / d + 0.3 + 4 / 36  # the loop starts where every joint moves evenly
        left, right = _foot(ph), _foot(ph + 0.5)
        sway = math.sin(tau * (ph - 0.05))  # +1: the weight on her left foot
        bob = -math.cos(2 * tau * (ph - 0.06))  # +1: high over the standing foot
        turn = math.cos(tau * ph)  # +1: her left foot forward
        arm = math.cos(tau * (ph - 0.04))  # the arms follow a little late
        out: dict[str, object] = {
            "L.foot.z": left["z"], "L.foot.y": left["y"], "L.foot.pitch": left["pitch"],
            "R.foot.z": right["z"], "R.foot.y": right["y"], "R.foot.pitch": right["pitch"],
            "L.foot.x": -0.012, "R.foot.x": -0.012,
            "hips.y": -0.042 + 0.006 * bob, "hips.x": 0.010 * sway, "hips.z": 0.004,
            "hips.roll": -2.0 * sway, "hips.yaw": -5.0 * turn, "hips.pitch": 2.0,
            "torso.yaw": 8.0 * turn, "torso.roll": 2.4 * sway, "torso.pitch": 1.5 + 0.6 * bob,
            "head.yaw": -2.5 * turn, "head.roll": -0.8 * sway, "head.pitch": -1.0 - 0.6 * bob,
        }
        for s, sign in (("L", -1.0), ("R", 1.0)):  # the arm swings with the other leg
            a = sign * arm  # +1: this hand forward
            fwd = 0.10 * a if a > 0 else 0.075 * a
            out[f"{s}.hand"] = (-0.012 + 0.006 * abs(a), 0.012 * a * a + 0.01 * max(0.0, a),
                                fwd)
            out[f"{s}.flex"] = 3.0 * a
        return out

    m.layer(step)
    m.key(0.0, {"B.hang": 1.0, "B.curl": 0.38, "B.icurl": 0.3, "B.thumb": 0.35})
    return m


def sit() -> Motion:
    d = 8.0
    m = Motion("sit", "Sit on the edge", "move", d, True,
               "Sits on the top edge of a window, legs dangling, hands on the edge beside "
               "her, swinging her feet a little.")
    tau = 2 * math.pi
    seat = {"hips.y": -0.345, "hips.z": -0.03, "hips.pitch": -6.0, "torso.pitch": 9.0,
            "head.pitch": 2.0,
            "B.foot.z": 0.38, "B.foot.y": -0.015, "B.foot.x": 0.01, "B.foot.pitch": -15.0,
            "B.hand": (0.125, -0.385, 0.02), "B.pole": (0.2, 0.0, -1.0), "B.roll": -2.0,
            "B.flex": -40.0, "B.curl": 0.42, "B.icurl": 0.35, "B.thumb": 0.25,
            "B.sh.up": 5.0, "B.hang": 0.0}
    m.key(0.0, seat)

    def idle(t: float) -> dict[str, object]:
        ph = t / d
        kick_l = math.sin(tau * 2 * ph) * (0.6 + 0.4 * math.sin(tau * ph))
        kick_r = math.sin(tau * (2 * ph + 0.45)) * (0.6 - 0.4 * math.sin(tau * ph))
        look = math.sin(tau * (ph + 0.1))
        return {"L.foot.z": 0.035 * kick_l, "L.foot.pitch": -6.0 * kick_l,
                "L.foot.y": 0.025 * max(0.0, kick_l),
                "R.foot.z": 0.035 * kick_r, "R.foot.pitch": -6.0 * kick_r,
                "R.foot.y": 0.025 * max(0.0, kick_r),
                "head.yaw": 7.0 * look, "head.roll": 3.0 * math.sin(tau * (ph + 0.35)),
                "head.pitch": 1.5 * math.sin(tau * 2 * ph), "torso.roll": 1.2 * look,
                "torso.yaw": 1.5 * look}

    m.layer(idle)
    return m


MOVES = (walk, sit)
