"""Body: torso and neck (one loft, dress below the neckline, skin above), arms, hands,
legs with knee socks, and shoes. Every part is skinned with smooth joint blends."""

from __future__ import annotations

import numpy as np

from .mathutil import pchip, smoothstep
from .meshkit import Part, Weights, grid_part, mirror_x, sweep
from .skeleton import Skeleton, finger_tip

# torso sections: y, half-width, front depth, back depth, centre z
_TORSO = np.array(
    [
        (0.712, 0.000, 0.000, 0.000, 0.000),
        (0.722, 0.060, 0.040, 0.050, 0.000),
        (0.745, 0.104, 0.064, 0.080, -0.004),
        (0.790, 0.116, 0.070, 0.086, -0.004),
        (0.850, 0.103, 0.064, 0.072, -0.002),
        (0.920, 0.080, 0.056, 0.058, 0.000),
        (0.975, 0.086, 0.060, 0.058, -0.004),
        (1.030, 0.094, 0.070, 0.060, -0.006),
        (1.070, 0.098, 0.068, 0.062, -0.008),
        (1.110, 0.102, 0.056, 0.058, -0.010),
        (1.140, 0.086, 0.048, 0.050, -0.012),
        (1.160, 0.046, 0.036, 0.040, -0.012),
        (1.180, 0.032, 0.030, 0.032, -0.012),
        (1.275, 0.029, 0.028, 0.030, -0.008),
    ]
)
TORSO_COLS = 32
#: the bodice's rows from the crotch (0) to the neckline (1): it starts inside the skirt, which
#: (closed by its lining) hides everything below its top from every side
BODICE_ROWS = np.linspace(0.45, 1.0, 13)


def torso_section(y: np.ndarray):
    return [pchip(_TORSO[:, 0], _TORSO[:, k], y) for k in range(1, 5)]


def neckline_y(phi: np.ndarray) -> np.ndarray:
    """Height of the round neckline around the body (phi = 0 at the front)."""
    return 1.152 - 0.058 * ((1.0 + np.cos(phi)) / 2.0) ** 3.5


def torso_point(y: np.ndarray, phi: np.ndarray, grow: float = 0.0) -> np.ndarray:
    a, f, b, zc = torso_section(y)
    s, c = np.sin(phi), np.cos(phi)
    n = 2.3
    x = (a + grow) * np.sign(s) * np.abs(s) ** (2 / n)
    depth = np.where(c >= 0, f, b) + grow
    z = zc + depth * np.sign(c) * np.abs(c) ** (2 / n)
    return np.stack([x, np.broadcast_to(y, x.shape), z], -1)


def _torso_weights(w: Weights, sk: Skeleton, p: np.ndarray) -> np.ndarray:
    names = ["hips", "spine", "chest", "upperChest", "neck", "head"]
    knots = [sk.pos(n)[1] for n in names[1:]]
    base = w.chain(p[:, 1], knots, [sk.bone(n) for n in names], [0.035, 0.04, 0.04, 0.03, 0.02])
    for side, sign in (("left", 1.0), ("right", -1.0)):
        t = 0.7 * smoothstep(0.055, 0.095, sign * p[:, 0]) * smoothstep(1.07, 1.115, p[:, 1])
        base = Weights.mix(base, w.rigid(len(p), sk.bone(side + "Shoulder")), t)
    return base


def torso_parts(sk: Skeleton, w: Weights) -> list[Part]:
    phi = np.linspace(0.0, 2 * np.pi, TORSO_COLS + 1)
    neck = neckline_y(phi)
    lo = BODICE_ROWS[:, None]
    y_dress = 0.712 + (neck[None, :] - 0.712) * lo
    hi = np.linspace(0.0, 1.0, 9)[:, None]
    y_skin = neck[None, :] + (1.275 - neck[None, :]) * hi
    parts = []
    for name, mat, ys in (("bodice", "Dress", y_dress), ("neck", "Skin", y_skin)):
        grid = torso_point(ys, phi[None, :])
        grid[:, -1] = grid[:, 0]
        uv = np.stack(np.broadcast_arrays(phi[None, :] / (2 * np.pi), (1.3 - ys) / 0.6), -1)
        part = grid_part(name, "Body", mat, grid, uv=uv)
        part.weights = _torso_weights(w, sk, part.pos)
        parts.append(part)
    return parts


def _tube_along_x(
    x: np.ndarray, y: float, z: float, radius: np.ndarray, flat: float, cols: int
) -> np.ndarray:
    path = np.stack([x, np.full_like(x, y), np.full_like(x, z)], 1)
    return sweep(path, np.array([0.0, 0.0, 1.0]), radius, radius * flat, cols=cols)


def arm_parts(sk: Skeleton, w: Weights) -> list[Part]:
    sh, ua, la, ha = (sk.pos("left" + n) for n in ("Shoulder", "UpperArm", "LowerArm", "Hand"))
    # the arm starts inside the puff sleeve (which covers it from the shoulder to the cuff)
    x = np.concatenate(
        [np.linspace(0.16, 0.29, 5), np.linspace(0.30, 0.34, 3), np.linspace(0.36, 0.522, 5)]
    )
    r = pchip(
        [0.062, 0.10, 0.20, 0.29, 0.33, 0.40, 0.50, 0.522],
        [0.029, 0.030, 0.026, 0.0225, 0.0228, 0.0215, 0.0172, 0.0165],
        x,
    )
    z = np.interp(x, [ua[0], la[0], ha[0]], [ua[2], la[2], ha[2]])
    path = np.stack([x, np.full_like(x, ua[1]), z], 1)
    grid = sweep(path, np.array([0.0, 0.0, 1.0]), r, r * 0.92, cols=12)
    arm = grid_part("arm_L", "Body", "Skin", grid)
    bones = [sk.bone("left" + n) for n in ("Shoulder", "UpperArm", "LowerArm", "Hand")]
    arm.weights = w.chain(arm.pos[:, 0], [ua[0], la[0], ha[0]], bones, [0.02, 0.035, 0.018])
    parts = [arm] + hand_parts(sk, w)
    mm = sk.mirror_map()
    return parts + [mirror_x(p, p.name.replace("_L", "_R"), mm) for p in parts]


def _ellipsoid(centre, semi, rows: int, cols: int, power: float = 2.0) -> np.ndarray:
    th = np.linspace(0.0, np.pi, rows)[:, None]
    ph = np.linspace(0.0, 2 * np.pi, cols + 1)[None, :]
    e = 2.0 / power

    def sp(v):
        return np.sign(v) * np.abs(v) ** e

    x = sp(np.sin(th)) * sp(np.cos(ph))
    y = sp(np.cos(th)) * np.ones_like(ph)
    z = sp(np.sin(th)) * sp(np.sin(ph))
    grid = np.stack([x, y, z], -1) * np.asarray(semi) + np.asarray(centre)
    grid[:, -1] = grid[:, 0]
    grid[0] = grid[0].mean(0)
    grid[-1] = grid[-1].mean(0)
    return grid


def hand_parts(sk: Skeleton, w: Weights) -> list[Part]:
    hand = sk.pos("leftHand")
    palm_grid = _ellipsoid((0.549, hand[1] - 0.001, -0.001), (0.038, 0.0125, 0.033), 8, 10, 2.6)
    palm = grid_part("palm_L", "Body", "Skin", palm_grid)
    hb = sk.bone("leftHand")
    palm.weights = w.rigid(len(palm.pos), hb)
    parts = [palm]
    for finger, radius in (
        ("Index", 0.0066),
        ("Middle", 0.0069),
        ("Ring", 0.0064),
        ("Little", 0.0057),
        ("Thumb", 0.0078),
    ):
        joints = (
            ["Metacarpal", "Proximal", "Distal"]
            if finger == "Thumb"
            else ["Proximal", "Intermediate", "Distal"]
        )
        pts = [sk.pos("left" + finger + j) for j in joints] + [finger_tip("left", finger)]
        start = pts[0] - (pts[1] - pts[0]) * (0.25 if finger == "Thumb" else 0.35)
        ctrl = np.array([start] + pts)
        seg = np.linalg.norm(np.diff(ctrl, axis=0), axis=1)
        s_ctrl = np.concatenate([[0], np.cumsum(seg)])
        s = np.concatenate(
            [
                np.linspace(0, s_ctrl[-1] - radius, 5),
                s_ctrl[-1] - radius * (1 - np.sin(np.linspace(0, np.pi / 2, 3)[1:])),
            ]
        )
        s = np.minimum(s, s_ctrl[-1])
        path = np.stack([np.interp(s, s_ctrl, ctrl[:, i]) for i in range(3)], 1)
        rad = radius * (1.0 - 0.18 * s / s_ctrl[-1])
        tip = s > s_ctrl[-1] - radius
        rad = np.where(
            tip, rad * np.sqrt(np.clip(1 - ((s - (s_ctrl[-1] - radius)) / radius) ** 2, 0, 1)), rad
        )
        side = np.array([0.0, 0.0, 1.0]) if finger != "Thumb" else np.array([0.0, 1.0, 0.0])
        grid = sweep(path, side, rad, rad * 0.9, cols=4)
        part = grid_part(f"finger_{finger}_L", "Body", "Skin", grid)
        bones = [hb] + [sk.bone("left" + finger + j) for j in joints]
        part.weights = w.chain(
            np.repeat(s, grid.shape[1]), s_ctrl[1:4], bones, [0.004, 0.005, 0.004]
        )
        parts.append(part)
    return parts


def leg_parts(sk: Skeleton, w: Weights) -> list[Part]:
    ul, ll, ft = (sk.pos("left" + n) for n in ("UpperLeg", "LowerLeg", "Foot"))
    # the thigh starts inside the skirt, above its lining
    y = np.concatenate(
        [[0.65, 0.60, 0.55, 0.50], np.linspace(0.47, 0.37, 4), np.linspace(0.34, 0.055, 8)]
    )
    r = pchip(
        [0.055, 0.08, 0.12, 0.20, 0.30, 0.36, 0.43, 0.48, 0.60, 0.72, 0.795],
        [0.024, 0.0235, 0.0245, 0.031, 0.0395, 0.0405, 0.0375, 0.041, 0.053, 0.060, 0.063],
        y,
    )
    z = pchip([0.055, 0.2, 0.33, 0.43, 0.6, 0.795], [-0.008, -0.008, -0.006, 0.002, 0.0, 0.0], y)
    x = np.interp(y, [ft[1], ll[1], ul[1], 0.8], [ft[0], ll[0], ul[0], ul[0]])
    path = np.stack([x, y, z], 1)
    bones = [sk.bone(n) for n in ("hips", "leftUpperLeg", "leftLowerLeg", "leftFoot")]
    parts = []
    sock_top = 0.465
    for name, mat, sel, grow in (
        ("thigh_L", "Skin", y >= sock_top - 1e-9, 0.0),
        ("sock_L", "DressWhite", y <= sock_top + 0.02, 0.0012),
    ):
        idx = np.nonzero(sel)[0]
        grid = sweep(path[idx], np.array([1.0, 0.0, 0.0]), r[idx] + grow, r[idx] + grow, cols=12)
        part = grid_part(name, "Body", mat, grid, flip=False)
        part.weights = w.chain(-part.pos[:, 1], [-ul[1], -ll[1], -ft[1]], bones, [0.02, 0.04, 0.02])
        parts.append(part)
    cy = np.linspace(sock_top + 0.004, sock_top - 0.024, 5)
    cr = np.interp(cy, y[::-1], r[::-1]) + np.array([0.0018, 0.0034, 0.0036, 0.0034, 0.0018])
    cuff_grid = sweep(
        np.stack([np.interp(cy, y[::-1], x[::-1]), cy, np.interp(cy, y[::-1], z[::-1])], 1),
        np.array([1.0, 0.0, 0.0]),
        cr,
        cr,
        cols=12,
    )
    cuff = grid_part("sock_cuff_L", "Body", "DressWhite", cuff_grid)
    cuff.weights = w.chain(-cuff.pos[:, 1], [-ul[1], -ll[1], -ft[1]], bones, [0.02, 0.04, 0.02])
    parts += [cuff, shoe_part(sk, w)]
    mm = sk.mirror_map()
    return parts + [mirror_x(p, p.name.replace("_L", "_R"), mm) for p in parts]


def shoe_part(sk: Skeleton, w: Weights) -> Part:
    ft, toes = sk.pos("leftFoot"), sk.pos("leftToes")
    grid = _ellipsoid((ft[0], 0.040, 0.030), (0.039, 0.046, 0.102), 11, 16, 2.6)
    y, z = grid[..., 1], grid[..., 2]
    # lower toe box, flat sole
    height = pchip([-0.08, 0.0, 0.05, 0.09, 0.14], [1.0, 1.0, 0.62, 0.52, 0.45], z)
    grid[..., 1] = np.where(y > 0.040, 0.040 + (y - 0.040) * height, y)
    grid[..., 1] = np.maximum(grid[..., 1], 0.0)
    part = grid_part("shoe_L", "Body", "Shoe", grid)
    fb, tb = sk.bone("leftFoot"), sk.bone("leftToes")
    part.weights = w.chain(part.pos[:, 2], [toes[2] - 0.02], [fb, tb], [0.02])
    return part
