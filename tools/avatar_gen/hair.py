"""Hair: a volume cap over the skull, front bangs, an ahoge, side locks, back panels and
long twin tails tied with ribbons. Every loose strand gets a spring-bone chain of joints
(children of the head) and is weighted smoothly along it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .head import CENTRE, radial_point, sphere_dir
from .mathutil import arc_length, bezier, normalize, pchip, resample
from .meshkit import Part, Weights, grid_part, inner_layer, sweep
from .outfit import bow_grids, bow_parts
from .skeleton import Skeleton

D = np.radians


@dataclass
class Chain:
    """A spring chain: joint node indices (root first, tail last) and its settings."""

    name: str
    joints: list[int]
    group: str  # bangs, ahoge, side, tail, back
    colliders: list[str] = field(default_factory=list)


def _hairline(phi: np.ndarray) -> np.ndarray:
    a = np.abs(np.angle(np.exp(1j * phi)))  # 0..pi from the front
    return D(
        pchip(
            [0, 30, 48, 62, 80, 100, 130, 160, 180],
            [57, 62, 72, 100, 116, 126, 131, 132, 132],
            np.degrees(a),
        )
    )


def cap_offset(theta: np.ndarray, phi: np.ndarray) -> np.ndarray:
    back = 0.5 * (1 - np.cos(phi))
    return 0.009 + 0.008 * np.cos(theta / 2) ** 4 + 0.006 * back * np.sin(theta) ** 2


def scalp(theta, phi, extra=0.0) -> np.ndarray:
    theta, phi = np.asarray(theta, np.float64), np.asarray(phi, np.float64)
    return radial_point(sphere_dir(theta, phi), cap_offset(theta, phi) + extra)


CAP_ROWS, CAP_COLS = 9, 32
CAP_INSIDE_ROWS = 5  # the rows nearest the hairline, whose underside shows from below


def cap_part(w: Weights, head: int) -> list[Part]:
    """The cap over the skull, one-sided, with an inside only along its edge (the rest of
    its underside lies on the head and is never seen)."""
    rows, cols = CAP_ROWS, CAP_COLS
    phi = np.linspace(0.0, 2 * np.pi, cols + 1)[None, :]
    s = np.linspace(0.0, 1.0, rows)[:, None] ** 0.9
    theta = s * _hairline(phi)
    grid = scalp(theta, np.broadcast_to(phi, theta.shape))
    grid[0] = grid[0].mean(0)
    grid[:, -1] = grid[:, 0]
    uv = np.stack(np.broadcast_arrays(phi / (2 * np.pi) * 6.0, s * 0.55), -1)
    part = grid_part("hair_cap", "Hair", "Hair", grid, uv=uv, flip=True)
    part.weights = w.rigid(len(part.pos), head)
    edge = slice(rows - CAP_INSIDE_ROWS, rows)
    inside = inner_layer("hair_cap_inside", part, (rows, cols + 1), edge, flip=True)
    return [part, inside]


def under_cap(p: np.ndarray, margin: float) -> np.ndarray:
    """True for points (in the unscaled head space) whose direction from the head centre is
    at least ``margin`` radians above the hairline: the cap covers them from every side."""
    d = normalize(np.asarray(p, np.float64) - CENTRE)
    theta = np.arccos(np.clip(d[:, 1], -1.0, 1.0))
    phi = np.arctan2(d[:, 0], d[:, 2])
    return theta < _hairline(phi) - margin


def _strand(
    name: str,
    path: np.ndarray,
    side: np.ndarray,
    half_w: np.ndarray,
    half_t: np.ndarray,
    bend: np.ndarray | float,
    cols: int,
    material: str = "Hair",
    twist_mod: float = 0.0,
) -> Part:
    """A closed tube along ``path``: its root and its tip are single points, so one-sided
    faces hide nothing (an open root would show the tube's inside from above)."""
    grid = sweep(path, side, half_w, half_t, cols=cols, bend=bend)
    if twist_mod:
        a = np.linspace(0, 2 * np.pi, cols + 1)[None, :, None]
        grid = path[:, None, :] + (grid - path[:, None, :]) * (1 + twist_mod * np.cos(7 * a))
        grid[:, -1] = grid[:, 0]
    t = arc_length(path) / arc_length(path)[-1]
    uv = np.stack(
        np.broadcast_arrays(np.linspace(0, 1, cols + 1)[None, :] * 0.5, 0.45 + 0.55 * t[:, None]),
        -1,
    )
    grid[0] = grid[0].mean(0)  # closed at the root
    grid[-1] = grid[-1].mean(0)  # and at the tip
    return grid_part(name, "Hair", material, grid, uv=uv)


def _fraction(path: np.ndarray) -> np.ndarray:
    """How far along ``path`` each of its points lies, 0 at the root and 1 at the tip."""
    return arc_length(path) / arc_length(path)[-1]


def _chain_nodes(
    sk: Skeleton, name: str, path: np.ndarray, ts: list[float], head: int
) -> list[int]:
    """Joints at fractions ``ts`` along ``path``. The path a strand's joints are placed on
    is sampled as finely as it always was, so the joints (and her springs) stay where they
    were whatever the mesh's own row count."""
    s = _fraction(path)
    joints, parent = [], head
    for k, t in enumerate(ts):
        p = np.array([np.interp(t, s, path[:, i]) for i in range(3)])
        parent = sk.add(f"{name}_{k}", parent, p)
        joints.append(parent)
    return joints


def _weigh(
    part: Part,
    w: Weights,
    s_rows: np.ndarray,
    ts: list[float],
    joints: list[int],
    head: int,
    blend: float,
) -> None:
    cols = len(part.pos) // len(s_rows)
    s = np.repeat(s_rows, cols)
    part.weights = w.chain(s, ts[:-1], [head] + joints[:-1], blend)


#: rows (points along the strand) and columns (around it) of each kind of strand's mesh
BANG_ROWS, BANG_COLS = 9, 6
AHOGE_ROWS, AHOGE_COLS = 10, 6
SIDE_ROWS, SIDE_COLS = 11, 8
BACK_ROWS, BACK_COLS = 8, 6
TAIL_ROWS, TAIL_COLS = 18, 16
JOINT_ROWS = 13  # a bang's path as its joints are placed on
#: How far a bang's root lies under the cap (metres; its joints stay where they were).
#: Lying on the cap, 0-2 mm from it, a bang's outline met the cap in slivers narrower than
#: a pixel at the overlay's size, dotted lines over her crown; from under the cap the
#: bangs come out towards her hairline, their outline whole.
BANG_ROOT_SINK = 0.008


def _taper(t: np.ndarray, root: float, peak_at: float, tip_power: float = 0.8) -> np.ndarray:
    rise = root + (1 - root) * np.sin(np.clip(t / peak_at, 0, 1) * np.pi / 2)
    fall = np.clip((1 - t) / (1 - peak_at), 0, 1) ** tip_power
    return np.where(t < peak_at, rise, fall)


def bangs(sk: Skeleton, w: Weights, head: int) -> tuple[list[Part], list[Chain]]:
    spec = [  # azimuth, tip polar angle, half-width, layer
        (-64, 104, 0.017, 0),
        (-47, 94, 0.019, 1),
        (-31, 88, 0.020, 0),
        (-15, 84, 0.019, 1),
        (0, 88, 0.020, 0),
        (15, 83, 0.019, 1),
        (31, 89, 0.020, 0),
        (47, 93, 0.019, 1),
        (64, 105, 0.017, 0),
    ]
    parts, chains = [], []
    for i, (az, tip, hw, layer) in enumerate(spec):

        def along(n: int, sink: float = 0.0, az=az, tip=tip, layer=layer):
            t = np.linspace(0, 1, n)
            theta = D(14 + (tip - 14) * t)
            phi = D(az * (0.45 + 0.5 * t + 0.05 * t * t)) - D(az) * 0.10 * t**3
            lift = 0.002 + 0.0018 * layer + 0.006 * np.clip((t - 0.55) / 0.45, 0, 1) ** 1.5
            lift = lift - sink * (1.0 - np.clip((t - 0.25) / 0.3, 0, 1))
            return resample(scalp(theta, phi, lift), n), phi, t

        path, phi, t = along(BANG_ROWS, BANG_ROOT_SINK)
        side = np.stack([np.cos(phi), np.zeros_like(phi), -np.sin(phi)], -1)
        half_w = hw * _taper(t, 0.75, 0.35, 0.9)
        half_t = 0.0035 * _taper(t, 0.9, 0.3, 0.5) + 0.0004
        part = _strand(
            f"bang_{i}", path, side, half_w, half_t, bend=0.35 * half_w, cols=BANG_COLS
        )
        ts = [0.45, 0.75, 1.0]
        joints = _chain_nodes(sk, f"hair_bang{i}", along(JOINT_ROWS)[0], ts, head)
        _weigh(part, w, _fraction(path), ts, joints, head, 0.08)
        parts.append(part)
        chains.append(Chain(f"bangs_{i}", joints, "bangs", ["head"]))
    return parts, chains


def ahoge(sk: Skeleton, w: Weights, head: int) -> tuple[list[Part], list[Chain]]:
    root = scalp(D(12), D(10), -0.004)
    ctrl = np.array(
        [root, root + (0.004, 0.035, 0.01), root + (0.01, 0.055, 0.045), root + (0.018, 0.03, 0.07)]
    )
    path = resample(bezier(ctrl, 40), AHOGE_ROWS)
    t = np.linspace(0, 1, AHOGE_ROWS)
    side = np.array([1.0, 0.0, 0.0])
    part = _strand(
        "ahoge",
        path,
        side,
        0.0075 * _taper(t, 0.8, 0.3, 0.8),
        0.0022 * _taper(t, 1, 0.3, 0.5) + 0.0003,
        0.0,
        cols=AHOGE_COLS,
    )
    ts = [0.2, 0.6, 1.0]
    joints = _chain_nodes(sk, "hair_ahoge", resample(bezier(ctrl, 40), 14), ts, head)
    _weigh(part, w, _fraction(path), ts, joints, head, 0.1)
    return [part], [Chain("ahoge", joints, "ahoge", [])]


def side_locks(sk: Skeleton, w: Weights, head: int) -> tuple[list[Part], list[Chain]]:
    parts, chains = [], []
    for sign, label in ((1.0, "L"), (-1.0, "R")):
        a = scalp(D(58), sign * D(70), 0.003)
        b = scalp(D(92), sign * D(78), 0.008)
        c = np.array([sign * 0.132, 1.24, 0.046])
        d = np.array([sign * 0.120, 1.135, 0.052])
        curve = bezier(np.array([a, b, c, d]), 60)
        path = resample(curve, SIDE_ROWS)
        t = np.linspace(0, 1, SIDE_ROWS)
        out = normalize((path - CENTRE) * (1, 0, 1))
        side = np.cross(np.array([0.0, 1.0, 0.0]), out)
        half_w = 0.018 * _taper(t, 0.7, 0.3, 0.7)
        part = _strand(
            f"side_lock_{label}",
            path,
            side,
            half_w,
            0.005 * _taper(t, 1, 0.3, 0.5) + 0.0005,
            0.35 * half_w,
            cols=SIDE_COLS,
        )
        ts = [0.22, 0.45, 0.68, 0.86, 1.0]
        joints = _chain_nodes(sk, f"hair_side_{label}", resample(curve, 18), ts, head)
        _weigh(part, w, _fraction(path), ts, joints, head, 0.07)
        parts.append(part)
        chains.append(Chain(f"side_{label}", joints, "side", ["head", "body", "arms"]))
    return parts, chains


def back_panels(sk: Skeleton, w: Weights, head: int) -> tuple[list[Part], list[Chain]]:
    parts, chains = [], []
    for i, az in enumerate((108, 124, 140, 156, 172, 188, 204, 220, 236, 252)):
        phi = D(az)
        layer = i % 2
        a = scalp(D(70), phi, 0.0)
        b = scalp(D(118), phi, 0.006 + 0.003 * layer)
        dirn = normalize((b - CENTRE) * (1, 0, 1))
        length = 0.20 - 0.05 * abs(i - 4.5) / 4.5
        c = b + dirn * 0.02 + (0, -0.06, 0)
        d = b + dirn * 0.03 + (0, -length, 0)
        curve = bezier(np.array([a, b, c, d]), 60)
        path = resample(curve, BACK_ROWS)
        t = np.linspace(0, 1, BACK_ROWS)
        side = np.stack([np.cos(phi), 0.0, -np.sin(phi)])
        half_w = 0.034 * _taper(t, 0.9, 0.35, 0.8)
        part = _strand(
            f"back_{i}",
            path,
            side,
            half_w,
            0.006 * _taper(t, 1, 0.3, 0.5) + 0.0006,
            0.3 * half_w,
            cols=BACK_COLS,
        )
        ts = [0.35, 0.6, 0.82, 1.0]
        joints = _chain_nodes(sk, f"hair_back{i}", resample(curve, 12), ts, head)
        _weigh(part, w, _fraction(path), ts, joints, head, 0.07)
        parts.append(part)
        chains.append(Chain(f"back_{i}", joints, "back", ["head", "body"]))
    return parts, chains


def twin_tails(sk: Skeleton, w: Weights, head: int) -> tuple[list[Part], list[Chain]]:
    parts, chains = [], []
    for sign, label in ((1.0, "L"), (-1.0, "R")):
        anchor = scalp(D(62), sign * D(118), 0.0)
        out = normalize((anchor - CENTRE) * (1, 0.2, 1))
        ctrl = np.array(
            [
                anchor - out * 0.01,
                anchor + out * 0.05 + (0, 0.01, 0),
                (sign * 0.205, 1.40, -0.125),
                (sign * 0.215, 1.20, -0.135),
                (sign * 0.200, 1.02, -0.125),
                (sign * 0.185, 0.92, -0.105),
                (sign * 0.200, 0.86, -0.085),
            ]
        )
        curve = bezier(ctrl, 120)
        path = resample(curve, TAIL_ROWS)
        t = np.linspace(0, 1, TAIL_ROWS)
        tan = normalize(np.gradient(path, axis=0))
        side = normalize(np.cross(tan, np.array([sign * 1.0, 0.0, 0.0])) + (0, 1e-3, 0))
        half_w = 0.05 * np.where(
            t < 0.045, 0.42, _taper(np.clip((t - 0.045) / 0.955, 0, 1), 0.45, 0.2, 0.75)
        )
        part = _strand(
            f"twin_tail_{label}",
            path,
            side,
            half_w,
            half_w * 0.78,
            0.0,
            cols=TAIL_COLS,
            twist_mod=0.07,
        )
        ts = [0.04, 0.2, 0.37, 0.54, 0.7, 0.85, 1.0]
        joints = _chain_nodes(sk, f"hair_tail_{label}", resample(curve, 24), ts, head)
        _weigh(part, w, _fraction(path), ts, joints, head, 0.05)
        parts.append(part)
        chains.append(Chain(f"tail_{label}", joints, "tail", ["head", "body", "arms", "hips"]))
        # the ribbon tying it
        fwd = normalize(out * (1, 0, 1))
        up = np.array([0.0, 1.0, 0.0])
        right = np.cross(up, fwd)
        grids = bow_grids(anchor + out * 0.014, right, up, fwd, 0.044)
        parts += bow_parts(f"hair_bow_{label}", "Hair", grids, lambda n: w.rigid(n, head))
    return parts, chains


def hair_parts(sk: Skeleton, w: Weights) -> tuple[list[Part], list[Chain]]:
    """All hair parts and their spring chains (joints are added to ``sk``)."""
    head = sk.bone("head")
    parts: list[Part] = []
    chains: list[Chain] = []
    for build in (bangs, ahoge, side_locks, back_panels, twin_tails):
        p, c = build(sk, w, head)
        parts += p
        chains += c
    # the cap last: the strands lying on it are drawn first and hide what they cover
    return parts + cap_part(w, head), chains
