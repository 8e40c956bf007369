"""Face parts drawn as thin geometry on the face (eye whites, irises, lashes, brows, mouth)
and their morph targets: every expression is the same parts laid out in another shape.

An eye is described by its upper and lower lid curves over u (0 = inner corner, 1 = outer
corner); a state moves those curves, the lashes ride on the upper one and the iris is
clipped between them, so closing an eye collapses white and iris into the lash line.
The mouth is an opening between a top and a bottom curve plus a thin lip line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .head import face_point
from .mathutil import pchip, smoothstep
from .meshkit import Part, grid_part

X_IN, X_OUT = 0.021, 0.074
IRIS_C = (0.0478, 1.3212)
IRIS_R = (0.0158, 0.0218)
MOUTH_Y = 1.2625

_U5 = [0.0, 0.12, 0.35, 0.6, 0.85, 1.0]
TOP = pchip(_U5, [1.3180, 1.3355, 1.3465, 1.3480, 1.3405, 1.3270], np.linspace(0, 1, 41))
BOT = pchip(
    [0.0, 0.15, 0.45, 0.75, 0.92, 1.0],
    [1.3180, 1.3030, 1.2975, 1.2990, 1.3090, 1.3270],
    np.linspace(0, 1, 41),
)
U = np.linspace(0.0, 1.0, 41)
LIFT = {
    "white": 0.0004,
    "iris": 0.0010,
    "lower": 0.0011,
    "lash": 0.0016,
    "brow": 0.0009,
    "mouth": 0.0004,
    "lip": 0.0010,
}


@dataclass
class EyeState:
    top: np.ndarray
    bot: np.ndarray
    lash: float = 1.0  # lash thickness scale
    iris: float = 1.0  # iris size scale
    brow: tuple[float, float, float] = (1.3715, 1.3775, 1.3725)  # brow height inner, middle, outer
    brow_tilt: float = 0.0


@dataclass
class MouthState:
    width: float
    top: tuple[float, float, float]  # offsets from MOUTH_Y at u = 0, 0.25, 0.5 (symmetric)
    bot: tuple[float, float, float] | None = None  # None: closed (same as top)
    bottom_width: float = 1.0  # width of the bottom curve relative to the top


def _curve(u: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.interp(np.clip(u, 0, 1), U, values)


def _closed(points: tuple[float, float, float]) -> np.ndarray:
    return pchip([0.0, 0.5, 1.0], list(points), U)


def eye_states() -> dict[str, EyeState]:
    rest = EyeState(TOP, BOT)
    closed = _closed((1.3165, 1.3085, 1.3225))
    arch = _closed((1.3120, 1.3290, 1.3150))
    gap = 0.0035
    return {
        "rest": rest,
        "blink": EyeState(closed, closed, lash=0.9),
        "happy": EyeState(arch, arch, lash=0.85, brow=(1.3770, 1.3840, 1.3770)),
        "relaxed": EyeState(TOP + (BOT - TOP) * 0.42, BOT + 0.0015, brow=(1.3745, 1.3800, 1.3745)),
        "angry": EyeState(
            np.maximum(TOP - (0.0150 * (1 - U) + 0.0040 * U), BOT + gap),
            BOT + 0.0015,
            brow=(1.3590, 1.3700, 1.3785),
        ),
        "sad": EyeState(
            np.maximum(TOP - (0.0030 * (1 - U) + 0.0120 * U), BOT + gap),
            BOT + 0.0010,
            brow=(1.3890, 1.3800, 1.3650),
        ),
        "surprised": EyeState(
            TOP + 0.0035 * np.sin(np.pi * U),
            BOT - 0.0015 * np.sin(np.pi * U),
            iris=0.8,
            brow=(1.3820, 1.3880, 1.3830),
        ),
    }


def _x(u: np.ndarray) -> np.ndarray:
    return X_IN + u * (X_OUT - X_IN)


def _u_of_x(x: np.ndarray) -> np.ndarray:
    return (x - X_IN) / (X_OUT - X_IN)


# --- eye parts: each returns positions (left eye, +x) for a state -------------------------

WHITE_ROWS, WHITE_COLS = 7, 25


def white_positions(st: EyeState) -> np.ndarray:
    u = np.linspace(0, 1, WHITE_COLS)[None, :]
    s = np.linspace(0, 1, WHITE_ROWS)[:, None]
    y = _curve(u, st.bot) + s * (_curve(u, st.top) - _curve(u, st.bot))
    x = np.broadcast_to(_x(u), y.shape)
    return face_point(x, y, LIFT["white"])[0]


IRIS_RINGS, IRIS_SECTORS = 7, 28


def _iris_local() -> tuple[np.ndarray, np.ndarray]:
    r = np.linspace(0, 1, IRIS_RINGS)[:, None]
    a = np.linspace(0, 2 * np.pi, IRIS_SECTORS + 1)[None, :]
    return r * np.sin(a), r * np.cos(a)  # unit disc: (x to the outer side, y up)


def iris_positions(st: EyeState) -> np.ndarray:
    lx, ly = _iris_local()
    x = IRIS_C[0] + lx * IRIS_R[0] * st.iris
    y = IRIS_C[1] + ly * IRIS_R[1] * st.iris - (1 - st.iris) * 0.002
    u = _u_of_x(x)
    lo = _curve(u, st.bot) + 0.0004
    hi = _curve(u, st.top) - 0.0006
    y = np.clip(y, lo, np.maximum(lo, hi))
    return face_point(x, y, LIFT["iris"])[0]


def iris_uv() -> np.ndarray:
    lx, ly = _iris_local()
    return np.stack([0.5 + 0.5 * lx, 0.5 - 0.5 * ly], -1)


LASH_COLS = 34
_LASH_U = np.concatenate([np.linspace(-0.035, 1.0, LASH_COLS - 6), np.linspace(1.0, 1.16, 7)[1:]])


def lash_positions(st: EyeState) -> np.ndarray:
    u = _LASH_U
    base = _curve(u, st.top)
    wing = np.clip(u - 1.0, 0, None)
    base = base + wing * 0.035  # outer flick rises slightly
    x = _x(np.clip(u, -1, 1.0)) + wing * (X_OUT - X_IN) * 0.75
    x = np.where(u < 0, _x(u), x)
    taper = smoothstep(-0.035, 0.10, u) * (1.0 - 0.85 * smoothstep(0.98, 1.16, u))
    up = (0.0015 + 0.0026 * smoothstep(0.05, 0.85, u)) * taper * st.lash
    down = 0.0015 * taper * st.lash
    y = np.stack([base - down, base + up])
    return face_point(np.broadcast_to(x, y.shape), y, LIFT["lash"])[0]


LOWER_COLS = 14


def lower_half(s: np.ndarray) -> np.ndarray:
    """Half the lower lash stroke's thickness along it (s: 0 at its inner end, 1 at the
    eye's outer corner), metres."""
    return 0.7 * 0.00085 * np.sin(np.pi * np.clip(s, 0.0, 1.0)) ** 0.7


def lower_positions(st: EyeState) -> np.ndarray:
    """The lower lash's strip along the outer half of the lower lid; its stroke lies a
    little below the lid line, and it closes to nothing with the eye."""
    s = np.linspace(0.0, 1.0, LOWER_COLS)
    u = 0.52 + 0.48 * s
    base = _curve(u, st.bot)
    half = lower_half(s)
    centre = base - 0.3 * half / 0.7  # as before: t below the lid line to 0.4 t above it
    strip = stroke_strip_half(half) * (np.abs(st.top - st.bot).max() > 1e-4)
    y = np.stack([centre - strip, centre + strip])
    return face_point(np.broadcast_to(_x(u), y.shape), y, LIFT["lower"])[0]


BROW_COLS = 16
#: Thin strokes (a brow, a lower lash) lie on strips wider than themselves and are drawn
#: in the strip's texture (``textures.stroke_texture``), alpha-blended. A strip at least
#: this half-height covers a pixel's height at the overlay's size, so the stroke's
#: filtered texture shows a thin line there, where a strip as thin as the stroke fell
#: between pixel centres and broke into dashes.
STROKE_STRIP_HALF = 0.0020
STROKE_MARGIN = 0.0004  # a strip's least margin beyond its stroke, each side


def stroke_strip_half(half: np.ndarray) -> np.ndarray:
    """Half the height of the strip a stroke of half-thickness ``half`` lies on."""
    return np.maximum(np.asarray(half) + STROKE_MARGIN, STROKE_STRIP_HALF)


def brow_half(u: np.ndarray) -> np.ndarray:
    """Half the brow stroke's thickness along it (u: 0 inner end, 1 outer end), metres."""
    return 0.0016 * (1.0 - 0.6 * u) * np.sin(np.pi * np.clip(u * 0.9 + 0.05, 0, 1)) ** 0.4 + 0.0003


def brow_positions(st: EyeState) -> np.ndarray:
    u = np.linspace(0.0, 1.0, BROW_COLS)
    x = 0.023 + u * 0.052
    mid = pchip([0.0, 0.5, 1.0], list(st.brow), u)
    half = stroke_strip_half(brow_half(u))
    y = np.stack([mid - half, mid + half])
    return face_point(np.broadcast_to(x, y.shape), y, LIFT["brow"])[0]


# --- mouth ------------------------------------------------------------------------------

MOUTH_COLS, MOUTH_ROWS = 19, 6


def mouth_states() -> dict[str, MouthState]:
    """Mouth shapes (metres): width, and top/bottom curve offsets at u = 0, 0.25, 0.5."""
    return {
        "rest": MouthState(0.0180, (0.0017, 0.0003, -0.0002)),
        "aa": MouthState(0.0265, (0.0005, 0.0028, 0.0034), (0.0005, -0.0165, -0.0235), 0.80),
        "ih": MouthState(0.0300, (0.0012, 0.0017, 0.0017), (0.0012, -0.0045, -0.0058), 0.88),
        "ou": MouthState(0.0135, (0.0003, 0.0028, 0.0036), (0.0003, -0.0085, -0.0115), 0.78),
        "ee": MouthState(0.0310, (0.0022, 0.0022, 0.0019), (0.0022, -0.0080, -0.0100), 0.78),
        "oh": MouthState(0.0200, (0.0003, 0.0042, 0.0050), (0.0003, -0.0145, -0.0190), 0.86),
        "happy": MouthState(0.0300, (0.0055, 0.0022, 0.0012), (0.0055, -0.0075, -0.0125), 0.72),
        "relaxed": MouthState(0.0230, (0.0036, 0.0010, 0.0000)),
        "angry": MouthState(0.0210, (-0.0032, -0.0006, 0.0006), (-0.0032, -0.0042, -0.0058), 0.85),
        "sad": MouthState(0.0160, (-0.0030, -0.0002, 0.0009)),
        "surprised": MouthState(0.0145, (0.0003, 0.0038, 0.0046), (0.0003, -0.0095, -0.0125), 0.78),
    }


def _sym(points: tuple[float, float, float], u: np.ndarray) -> np.ndarray:
    a, b, c = points
    return pchip([0.0, 0.25, 0.5, 0.75, 1.0], [a, b, c, b, a], u)


def mouth_positions(st: MouthState) -> np.ndarray:
    u = np.linspace(0.0, 1.0, MOUTH_COLS)[None, :]
    s = np.linspace(0.0, 1.0, MOUTH_ROWS)[:, None]
    top = MOUTH_Y + _sym(st.top, u)
    bot = MOUTH_Y + _sym(st.bot if st.bot else st.top, u)
    y = top + s * (bot - top)
    width = st.width * (1.0 + s * (st.bottom_width - 1.0))
    x = (u - 0.5) * width
    return face_point(x, y, LIFT["mouth"])[0]


LIP_COLS = 21


def lip_positions(st: MouthState) -> np.ndarray:
    u = np.linspace(-0.03, 1.03, LIP_COLS)
    top = MOUTH_Y + _sym(st.top, np.clip(u, 0, 1))
    taper = smoothstep(-0.03, 0.12, u) * smoothstep(1.03, 0.88, u)
    th = 0.0010 * taper + 0.0001
    y = np.stack([top - th, top + th])
    x = np.broadcast_to((u - 0.5) * st.width, y.shape)
    return face_point(x, y, LIFT["lip"])[0]


# --- assembling parts with morphs -------------------------------------------------------

EXPRESSIONS = (
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blinkLeft",
    "blinkRight",
)


@dataclass
class _Spec:
    name: str
    material: str
    fn: object
    rows: int
    uv: np.ndarray | None = None
    bone: str = "head"
    morphs: dict = field(default_factory=dict)


def _normals(points: np.ndarray) -> np.ndarray:
    """The face's own normal under each point of a decal (decals may be degenerate at rest)."""
    return face_point(points[..., 0], points[..., 1])[1]


def _grid_uv(rows: int, cols: int) -> np.ndarray:
    u, v = np.meshgrid(np.linspace(0, 1, cols), np.linspace(1, 0, rows))
    return np.stack([u, v], -1)


def eye_parts(side: str, w, head_bone: int, eye_bone: int) -> list[Part]:
    """One eye's white, iris, lashes and brow with all expression morphs (built for +x)."""
    states = eye_states()
    own_blink = "blinkLeft" if side == "left" else "blinkRight"
    per_expr = {e: states[e] for e in ("happy", "angry", "sad", "relaxed", "surprised")}
    per_expr[own_blink] = states["blink"]
    specs = [
        ("eye_white", "EyeWhite", white_positions, _grid_uv(WHITE_ROWS, WHITE_COLS), head_bone),
        ("iris", "Iris", iris_positions, iris_uv(), eye_bone),
        ("lash", "EyeLine", lash_positions, _grid_uv(2, LASH_COLS), head_bone),
        ("lower_lash", "LowerLine", lower_positions, _grid_uv(2, LOWER_COLS), head_bone),
        ("brow", "Brow", brow_positions, _grid_uv(2, BROW_COLS), head_bone),
    ]
    parts = []
    sign = 1.0 if side == "left" else -1.0
    for name, mat, fn, uv, bone in specs:
        rest = fn(states["rest"])
        part = grid_part(
            f"{name}_{side}", "Face", mat, rest, uv=uv, keep_degenerate=True, nrm=_normals(rest)
        )
        part.weights = w.rigid(len(part.pos), bone)
        for expr in EXPRESSIONS:
            delta = np.zeros_like(part.pos)
            if expr in per_expr and not (name == "brow" and expr.startswith("blink")):
                delta = (fn(per_expr[expr]) - rest).reshape(-1, 3)
            part.morphs[expr] = delta
        if sign < 0:
            part.pos = part.pos * (-1, 1, 1)
            part.nrm = part.nrm * (-1, 1, 1)
            part.tri = part.tri[:, ::-1].copy()
            part.morphs = {k: v * (-1, 1, 1) for k, v in part.morphs.items()}
        parts.append(part)
    return parts


def mouth_parts(w, head_bone: int) -> list[Part]:
    states = mouth_states()
    parts = []
    for name, mat, fn, uv in (
        ("mouth", "Mouth", mouth_positions, None),
        ("lip_line", "EyeLine", lip_positions, _grid_uv(2, LIP_COLS)),
    ):
        rest = fn(states["rest"])
        if uv is None:
            uu, vv = np.meshgrid(np.linspace(0, 1, MOUTH_COLS), np.linspace(0, 1, MOUTH_ROWS))
            uv = np.stack([uu, vv], -1)
        # the mouth grid runs top to bottom, so its winding is flipped to face +Z
        part = grid_part(
            name,
            "Face",
            mat,
            rest,
            uv=uv,
            keep_degenerate=True,
            nrm=_normals(rest),
            flip=name == "mouth",
        )
        part.weights = w.rigid(len(part.pos), head_bone)
        for expr in EXPRESSIONS:
            delta = np.zeros_like(part.pos)
            if expr in states:
                delta = (fn(states[expr]) - rest).reshape(-1, 3)
            part.morphs[expr] = delta
        parts.append(part)
    return parts
