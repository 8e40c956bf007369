"""A motion being authored: key poses on named channels (see ``rig``), additive layers,
and baking into per-bone keyframes.

``m.key(t, {...})`` sets channel values at a time; a value may be a triple for the
``.x/.y/.z`` channels of a vector (``"L.hand": (x, y, z)``), and a ``B.`` prefix keys
both sides (``"B.curl": 0.6``). Emotes start and end at the neutral pose: every keyed
channel gets neutral keys at 0 and at the end unless given. Loops wrap: the key at the
end is the key at 0. ``m.layer(fn)`` adds ``fn(t) -> {channel: offset}`` on top (small
secondary motion); ``m.delay(prefix, seconds)`` lets a body part follow late.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import qmath as qm
from .curves import Curve
from .rig import NEUTRAL, solve
from .skeleton import NAMES, REST

FPS = 30


def expand(values: dict[str, object]) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, value in values.items():
        names = [f"L.{name[2:]}", f"R.{name[2:]}"] if name.startswith("B.") else [name]
        for n in names:
            if isinstance(value, (tuple, list, np.ndarray)):
                for axis, v in zip("xyz", value, strict=True):
                    out[f"{n}.{axis}"] = float(v)
            else:
                out[n] = float(value)
    for n in out:
        if n not in NEUTRAL and not n.startswith("ex."):
            raise KeyError(f"unknown channel {n}")
    return out


@dataclass
class Baked:
    """Sampled motion: ``times`` (frames,), ``rotations`` bone -> (frames, 4),
    ``hips`` (frames, 3) absolute hips translation, ``expressions`` name -> (frames,)."""

    times: np.ndarray
    rotations: dict[str, np.ndarray]
    hips: np.ndarray
    expressions: dict[str, np.ndarray] = field(default_factory=dict)


class Motion:
    def __init__(self, id: str, name: str, kind: str, duration: float, loop: bool,
                 description: str) -> None:
        if abs(duration * FPS - round(duration * FPS)) > 1e-9:
            raise ValueError("duration must be a whole number of frames")
        self.id, self.name, self.kind = id, name, kind
        self.duration, self.loop, self.description = float(duration), loop, description
        self.keys: dict[str, dict[float, float]] = {}
        self.delays: dict[str, float] = {}
        self.layers: list[Callable[[float], dict[str, float]]] = []

    def key(self, t: float, values: dict[str, object]) -> "Motion":
        if not 0.0 <= t <= self.duration + 1e-9:
            raise ValueError(f"{self.id}: key at {t} outside 0..{self.duration}")
        for n, v in expand(values).items():
            self.keys.setdefault(n, {})[round(t, 6)] = v
        return self

    def hold(self, t0: float, t1: float, values: dict[str, object]) -> "Motion":
        return self.key(t0, values).key(t1, values)

    def delay(self, prefix: str, seconds: float) -> "Motion":
        self.delays[prefix] = seconds
        return self

    def layer(self, fn: Callable[[float], dict[str, object]]) -> "Motion":
        self.layers.append(fn)
        return self

    # -- evaluation -------------------------------------------------------------------
    def curves(self) -> dict[str, Curve]:
        out = {}
        for n, keys in self.keys.items():
            k = dict(keys)
            rest = 0.0 if n.startswith("ex.") else NEUTRAL[n]
            delay = max((d for p, d in self.delays.items() if n.startswith(p)), default=0.0)
            if self.loop:
                if 0.0 not in k:
                    raise ValueError(f"{self.id}: looping channel {n} needs a key at 0")
                k.pop(round(self.duration, 6), None)
            else:  # a late (delayed) channel still comes to rest by the end
                end = round(self.duration - delay, 6)
                if max(k) > end + 1e-9:
                    raise ValueError(f"{self.id}: {n} has a key after {end} s (its delay)")
                k.setdefault(0.0, rest)
                k.setdefault(end, rest)
            out[n] = Curve(sorted(k.items()), self.duration if self.loop else None, delay)
        for s in ("L", "R"):
            self._reach_curves(s, out)
        return out

    def _reach_curves(self, s: str, out: dict[str, Curve]) -> None:
        """Hand targets are keyed as points but interpolated as a direction from the
        shoulder (a unit vector) and an elbow bend: a straight arm that starts to bend
        does not snap, and the hand travels in arcs around the shoulder."""
        names = [f"{s}.hand.{a}" for a in "xyz"]
        if not any(n in out for n in names):
            return
        delay = max((out[n].delay for n in names if n in out), default=0.0)
        times = sorted({t for n in names for t in self.keys.get(n, {})} |
                       ({0.0, round(self.duration - delay, 6)} if not self.loop else set()))
        if self.loop:
            times = [t for t in times if t < self.duration - 1e-9]
        rows = []
        for t in times:
            v = np.array([out[n](t + delay) if n in out else NEUTRAL[n] for n in names])
            rows.append((t, qm.unit(v), _bend(float(np.linalg.norm(v)))))
        period = self.duration if self.loop else None
        for i, a in enumerate("xyz"):
            out[f"{s}.reach.{a}"] = Curve([(t, d[i]) for t, d, _ in rows], period, delay)
        out[f"{s}.reach.bend"] = Curve([(t, b) for t, _, b in rows], period, delay)

    def channels(self, t: float, curves: dict[str, Curve] | None = None) -> dict[str, float]:
        curves = curves if curves is not None else self.curves()
        ch = {n: c(t) for n, c in curves.items() if ".reach." not in n}
        for s in ("L", "R"):
            if f"{s}.reach.bend" in curves:
                d = np.array([curves[f"{s}.reach.{a}"](t) for a in "xyz"])
                dist = _distance(curves[f"{s}.reach.bend"](t))
                for a, v in zip("xyz", qm.unit(d) * dist, strict=True):
                    ch[f"{s}.hand.{a}"] = float(v)
        for fn in self.layers:
            for n, v in expand(fn(t)).items():
                ch[n] = ch.get(n, 0.0 if n.startswith("ex.") else NEUTRAL[n]) + v
        return ch

    def frames(self) -> int:
        return int(round(self.duration * FPS)) + 1

    def bake(self) -> Baked:
        curves = self.curves()
        count = self.frames()
        times = np.array([i / FPS for i in range(count)])
        rotations = {b: np.zeros((count, 4)) for b in NAMES}
        hips = np.zeros((count, 3))
        expr_names = sorted({n[3:] for n in curves if n.startswith("ex.")} |
                            {n[3:] for fn in self.layers for n in expand(fn(0.0))
                             if n.startswith("ex.")})
        expressions = {n: np.zeros(count) for n in expr_names}
        for i, t in enumerate(times):
            pose = solve(self.channels(t, curves))
            for b in NAMES:
                rotations[b][i] = pose.local[b]
            hips[i] = pose.hips
            for n in expr_names:
                expressions[n][i] = pose.expressions.get(n, 0.0)
        for b, q in rotations.items():
            rotations[b] = _continuous(q)
        if self.loop:  # seamless: the last frame is the first
            for arr in (*rotations.values(), hips, *expressions.values()):
                arr[-1] = arr[0]
        return Baked(times, rotations, hips, expressions)


_UPPER = float(np.linalg.norm(REST["leftLowerArm"] - REST["leftUpperArm"]))
_LOWER = float(np.linalg.norm(REST["leftHand"] - REST["leftLowerArm"]))


def _bend(distance: float) -> float:
    """Elbow bend (radians, 0 straight) that puts the wrist ``distance`` from the shoulder."""
    c = (_UPPER ** 2 + _LOWER ** 2 - distance ** 2) / (2 * _UPPER * _LOWER)
    return math.pi - math.acos(max(-1.0, min(1.0, c)))


def _distance(bend: float) -> float:
    return math.sqrt(_UPPER ** 2 + _LOWER ** 2 + 2 * _UPPER * _LOWER * math.cos(bend))


def _continuous(q: np.ndarray) -> np.ndarray:
    """Unit quaternions with w >= 0 at the first key and no sign flips between keys."""
    q = np.array([qm.normalize(v) for v in q])
    if q[0, 3] < 0.0:
        q[0] = -q[0]
    for i in range(1, len(q)):
        if float(np.dot(q[i], q[i - 1])) < 0.0:
            q[i] = -q[i]
    return q
