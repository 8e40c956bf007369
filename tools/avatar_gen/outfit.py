"""The outfit: a fitted dress (the bodice is the torso loft), a flared wavy skirt with a
white frill, puff sleeves with cuffs, a Peter Pan collar, a waist sash and ribbon bows."""

from __future__ import annotations

import numpy as np

from .body import neckline_y, torso_point
from .mathutil import normalize, pchip, smoothstep
from .meshkit import Part, Weights, grid_part, inner_layer, mirror_x, sweep
from .skeleton import Skeleton

_SKIRT = np.array(
    [  # y, half-width, front, back
        (0.945, 0.086, 0.062, 0.064),
        (0.905, 0.101, 0.072, 0.076),
        (0.850, 0.130, 0.094, 0.104),
        (0.780, 0.165, 0.128, 0.140),
        (0.680, 0.204, 0.168, 0.180),
        (0.580, 0.236, 0.200, 0.214),
    ]
)
SKIRT_TOP, SKIRT_HEM = 0.945, 0.580
SKIRT_COLS = 42
#: where the skirt's rows lie from its top (0) to the hem (1): close where it curves over
#: the hips, wider apart down the nearly straight flare
SKIRT_ROWS = np.array([0.0, 0.06, 0.14, 0.25, 0.39, 0.56, 0.77, 1.0])


def skirt_point(
    y: np.ndarray, phi: np.ndarray, scale: float = 1.0, wave: float = 1.0
) -> np.ndarray:
    a, f, b = (pchip(_SKIRT[::-1, 0], _SKIRT[::-1, k], y) for k in (1, 2, 3))
    amp = 0.075 * smoothstep(SKIRT_TOP - 0.02, SKIRT_HEM, y) * wave
    r = scale * (1.0 + amp * np.cos(14 * phi))
    s, c = np.sin(phi), np.cos(phi)
    x = a * r * s
    z = np.where(c >= 0, f, b) * r * c - 0.004
    return np.stack([x, np.broadcast_to(y, x.shape), z], -1)


SKIRT_CHAINS = 12
SKIRT_JOINT_Y = (0.885, 0.745, SKIRT_HEM)  # the root joint, the middle one, the tail at the hem


def add_skirt_joints(sk: Skeleton) -> list[list[int]]:
    """Spring joints down the skirt (children of the hips), 12 chains around her."""
    chains = []
    for k in range(SKIRT_CHAINS):
        phi = 2 * np.pi * (k + 0.5) / SKIRT_CHAINS
        parent, joints = sk.bone("hips"), []
        for j, y in enumerate(SKIRT_JOINT_Y):
            p = skirt_point(np.array(y), np.array(phi), wave=0.0)
            parent = sk.add(f"skirt_{k}_{j}", parent, p)
            joints.append(parent)
        chains.append(joints)
    return chains


def _skirt_weights(w: Weights, sk: Skeleton, p: np.ndarray, chains: list[list[int]]) -> np.ndarray:
    """Between the two nearest chains around, and along them downwards (hips at the waist)."""
    phi = np.mod(np.arctan2(p[:, 0], p[:, 2]), 2 * np.pi)
    pos = phi / (2 * np.pi) * SKIRT_CHAINS - 0.5
    k0 = np.floor(pos).astype(int)
    a = pos - k0
    out = np.zeros((len(p), w.bones))
    ys = -np.asarray(SKIRT_JOINT_Y[:-1])
    for k, frac in ((k0 % SKIRT_CHAINS, 1.0 - a), ((k0 + 1) % SKIRT_CHAINS, a)):
        for c in range(SKIRT_CHAINS):
            sel = k == c
            if sel.any():
                bones = [sk.bone("hips")] + chains[c][:-1]
                out[sel] += frac[sel, None] * w.chain(-p[sel, 1], ys, bones, [0.03, 0.05])
    return out


def skirt_parts(sk: Skeleton, w: Weights, chains: list[list[int]]) -> list[Part]:
    phi = np.linspace(0.0, 2 * np.pi, SKIRT_COLS * 2 + 1)[None, :]
    y = SKIRT_TOP + (SKIRT_HEM - SKIRT_TOP) * SKIRT_ROWS[:, None]
    grid = skirt_point(y, phi)
    grid[:, -1] = grid[:, 0]
    skirt = grid_part("skirt", "Body", "Dress", grid, flip=True)
    skirt.weights = _skirt_weights(w, sk, skirt.pos, chains)
    lining = _lining(w, sk, grid[-1], _skirt_weights(w, sk, grid[-1], chains))
    # white frill under the hem: finer, deeper waves
    # grow and ripple are (nearly) linear down the frill: its top and bottom rows are enough
    fy = np.linspace(SKIRT_HEM + 0.012, SKIRT_HEM - 0.032, 2)[:, None]
    base = skirt_point(np.full_like(fy, SKIRT_HEM), phi, wave=1.0)
    grow = 1.0 + 0.09 * (SKIRT_HEM + 0.012 - fy) / 0.044
    ripple = 1.0 + 0.03 * np.cos(42 * phi) * (SKIRT_HEM + 0.012 - fy) / 0.044
    fgrid = base * np.stack([grow * ripple, np.ones_like(fy * phi), grow * ripple], -1)
    fgrid[..., 1] = np.broadcast_to(fy, fgrid.shape[:2])
    fgrid[:, -1] = fgrid[:, 0]
    frill = grid_part("frill", "Body", "Frill", fgrid, flip=True)
    frill.weights = _skirt_weights(w, sk, frill.pos, chains)
    # sash at the waist
    sy = np.linspace(0.958, 0.928, 3)[:, None]
    sphi = np.linspace(0.0, 2 * np.pi, 33)[None, :]
    sgrid = torso_point(sy, sphi, grow=0.0)
    bulge = np.array([0.0, 0.005, 0.0])[:, None, None]
    centre = np.array([0.0, 0.0, -0.004])
    sgrid = sgrid + normalize((sgrid - centre) * (1, 0, 1)) * (0.0035 + bulge)
    sgrid[:, -1] = sgrid[:, 0]
    sash = grid_part("sash", "Body", "Ribbon", sgrid, flip=True)
    sash.weights = w.chain(
        sash.pos[:, 1], [sk.pos("spine")[1]], [sk.bone("hips"), sk.bone("spine")], 0.03
    )
    return [skirt, lining, frill, sash]


def _lining(w: Weights, sk: Skeleton, hem: np.ndarray, hem_weights: np.ndarray) -> Part:
    """The skirt's underside: a disc across the hem, facing down. Looked at from below it
    is what shows inside the skirt (the legs come through it); from anywhere else it faces
    away and is not drawn. It closes the skirt, so the skirt is one-sided and the thighs and
    the bodice end inside it."""
    centre = np.array([0.0, SKIRT_HEM, -0.004])
    reach = np.array([1.0, 0.5, 0.0])[:, None, None]  # the rim, a ring halfway in, the centre
    grid = centre + (hem[None] - centre) * reach
    part = grid_part("skirt_lining", "Body", "Dress", grid, flip=True)
    rim = np.repeat(reach.ravel(), len(hem))
    hips = w.rigid(len(part.pos), sk.bone("hips"))
    part.weights = Weights.mix(hips, np.tile(hem_weights, (3, 1)), rim)
    return part


def sleeve_parts(sk: Skeleton, w: Weights) -> list[Part]:
    ua = sk.pos("leftUpperArm")
    x = np.linspace(0.068, 0.192, 7)
    r = pchip([0.068, 0.09, 0.125, 0.165, 0.192], [0.036, 0.047, 0.053, 0.046, 0.033], x)
    path = np.stack([x, np.full_like(x, ua[1] + 0.004), np.full_like(x, ua[2])], 1)
    cols = 20  # two points to each of the ten gathers
    grid = sweep(path, np.array([0.0, 0.0, 1.0]), r, r * 0.95, cols=cols)
    a = np.linspace(0, 2 * np.pi, cols + 1)
    gather = 1.0 + 0.06 * np.cos(10 * a)[None, :] * np.sin(np.pi * (x - 0.068) / 0.124)[:, None]
    centre = path[:, None, :]
    grid = centre + (grid - centre) * gather[..., None]
    grid[:, -1] = grid[:, 0]
    # closed at the shoulder (inside the bodice): with the arm down, that end opens
    grid[0] = grid[0].mean(0)
    bones = [sk.bone("leftShoulder"), sk.bone("leftUpperArm")]
    sleeve = grid_part("sleeve_L", "Body", "Dress", grid)
    sleeve.weights = w.chain(sleeve.pos[:, 0], [ua[0]], bones, 0.03)
    # its inside shows a little past the cuff, around the arm
    end = slice(len(x) - 3, len(x))
    inside_sleeve = inner_layer("sleeve_inside_L", sleeve, grid.shape[:2], end)
    cx = np.linspace(0.183, 0.203, 4)
    cr = np.array([0.033, 0.0345, 0.0345, 0.0325])
    cpath = np.stack([cx, np.full_like(cx, ua[1] + 0.002), np.full_like(cx, ua[2])], 1)
    cuff = grid_part(
        "cuff_L", "Body", "DressWhite", sweep(cpath, np.array([0, 0, 1.0]), cr, cr, cols=20)
    )
    cuff.weights = w.rigid(len(cuff.pos), sk.bone("leftUpperArm"))
    # the cuff's open end shows its inside around the arm
    inside = inner_layer("cuff_inside_L", cuff, (len(cx), 21), slice(0, len(cx)))
    mm = sk.mirror_map()
    parts = [sleeve, inside_sleeve, cuff, inside]
    return parts + [mirror_x(p, p.name.replace("_L", "_R"), mm) for p in parts]


def collar_part(sk: Skeleton, w: Weights) -> list[Part]:
    gap = 0.10
    t = np.linspace(0.0, 1.0, 41)
    phi = gap + t * (2 * np.pi - 2 * gap)
    d = np.minimum(phi - gap, 2 * np.pi - gap - phi)
    width = 0.036 * np.sqrt(1.0 - (1.0 - np.clip(d / 0.55, 0, 1)) ** 2) + 0.002
    rows = np.linspace(0.0, 1.0, 4)[:, None]
    top = neckline_y(phi)[None, :] + 0.006
    y = top - rows * width[None, :]
    grow = 0.0045 + 0.0025 * rows
    grid = torso_point(y, phi[None, :], grow=0.0)
    # lift off the body along the horizontal radial direction
    centre = np.array([0.0, 0.0, -0.01])
    radial = normalize((grid - centre) * (1, 0, 1))
    grid = grid + radial * grow[..., None]
    part = grid_part("collar", "Body", "DressWhite", grid, flip=True)
    names = ["chest", "upperChest", "neck"]
    part.weights = w.chain(
        part.pos[:, 1],
        [sk.pos("upperChest")[1], sk.pos("neck")[1]],
        [sk.bone(n) for n in names],
        [0.03, 0.02],
    )
    # its upper edge stands off the neckline: the inside shows there from above
    inside = inner_layer("collar_inside", part, grid.shape[:2], slice(0, 2), flip=True)
    return [part, inside]


def bow_grids(
    centre, right, up, fwd, size: float, rows: int = 6, cols: int = 10
) -> list[np.ndarray]:
    """A ribbon bow (two wings, a knot, two tails) in the frame (right, up, fwd); ``rows`` and
    ``cols`` are the points across and around each wing and the knot (fewer on small bows)."""
    c, r, u, f = (np.asarray(v, np.float64) for v in (centre, right, up, fwd))
    out = []

    def place(local):
        return c + local[..., :1] * r + local[..., 1:2] * u + local[..., 2:3] * f

    th = np.linspace(0.0, np.pi, rows)[:, None]
    ph = np.linspace(0.0, 2 * np.pi, cols + 1)[None, :]
    for sign in (1.0, -1.0):
        x = np.sin(th) * np.cos(ph)
        y = np.cos(th) * np.ones_like(ph)
        z = np.sin(th) * np.sin(ph)
        lx = sign * (0.55 + 0.55 * x) * size  # from the knot outward
        pinch = 0.35 + 0.65 * smoothstep(0.0, 0.9, np.abs(lx) / size)
        ly = y * 0.62 * size * pinch + 0.08 * size * np.abs(lx) / size
        lz = z * 0.16 * size * (0.6 + 0.4 * pinch) - 0.1 * size * (np.abs(lx) / size) ** 2
        g = place(np.stack([lx, ly, lz], -1))
        g[:, -1] = g[:, 0]
        g[0], g[-1] = g[0].mean(0), g[-1].mean(0)
        out.append(g if sign > 0 else g[:, ::-1])
    knot = np.stack(
        [
            np.sin(th) * np.cos(ph) * 0.2 * size,
            np.cos(th) * np.ones_like(ph) * 0.3 * size,
            np.sin(th) * np.sin(ph) * 0.2 * size + 0.05 * size,
        ],
        -1,
    )
    g = place(knot)
    g[:, -1] = g[:, 0]
    g[0], g[-1] = g[0].mean(0), g[-1].mean(0)
    out.append(g)
    for sign in (1.0, -1.0):
        s = np.linspace(0.0, 1.0, 4)
        path = np.stack(
            [sign * (0.05 + 0.45 * s) * size, -(0.1 + 1.15 * s) * size, -0.05 * size * s], 1
        )
        grid = sweep(place(path), f, (0.2 - 0.04 * s) * size, 0.035 * size, cols=6)
        out.append(grid)
    return out


def bow_parts(prefix: str, mesh: str, grids: list[np.ndarray], weights) -> list[Part]:
    """Ribbon parts of a bow's grids (``bow_grids``), weighted by ``weights(vertex_count)``;
    each tail also gets an inside at its cut end, the one opening of a bow."""
    parts = []
    for k, g in enumerate(grids):
        part = grid_part(f"{prefix}_{k}", mesh, "Ribbon", g)
        part.weights = weights(len(part.pos))
        parts.append(part)
        if k >= 3:
            end = slice(len(g) - 2, len(g))
            parts.append(inner_layer(f"{prefix}_{k}_inside", part, g.shape[:2], end))
    return parts


def chest_bow(sk: Skeleton, w: Weights) -> list[Part]:
    y = neckline_y(np.array(0.0)) - 0.006
    p = torso_point(np.array(y), np.array(0.0))
    centre = p + np.array([0.0, 0.0, 0.014])
    grids = bow_grids(centre, (1, 0, 0), (0, 1, 0), (0, 0.25, 0.97), 0.03)
    return bow_parts("chest_bow", "Body", grids, lambda n: w.rigid(n, sk.bone("upperChest")))


def shoe_bows(sk: Skeleton, w: Weights) -> list[Part]:
    """Small ribbon bows on the instep of both shoes."""
    parts = []
    for side in ("left", "right"):
        x = sk.pos(side + "Foot")[0]
        fwd = normalize(np.array([0.0, 0.75, 0.66]))
        up = np.cross(fwd, np.array([1.0, 0.0, 0.0]))
        grids = bow_grids((x, 0.0715, 0.056), (1.0, 0.0, 0.0), up, fwd, 0.017, 5, 8)
        for i, g in enumerate(grids[:3]):  # wings and knot; no tails on a shoe
            part = grid_part(f"shoe_bow_{side}_{i}", "Body", "Ribbon", g)
            part.weights = w.rigid(len(part.pos), sk.bone(side + "Foot"))
            parts.append(part)
    return parts
