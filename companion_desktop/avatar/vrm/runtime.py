"""The avatar's per-frame update: inputs in, a ``Frame`` out (numpy only, no GL, no Qt).

``AvatarRuntime.update(dt)`` runs three-vrm's order:

1. ``animation``: the hook (``animation(pose, dt, time)``) sets normalized bone rotations;
   breathing is added on top.
2. ``humanoid``: normalized rotations to raw local rotations, world matrices.
3. ``look_at``: eye bones or look expressions toward ``look_at_point``.
4. ``expressions``: resting face (mood) under flash, tap, emote and photo layers, faded
   by ``engine.mood_expression``; direct ``set_expression`` weights; blink; mouth ("aa");
   lip-sync visemes (aa ih ou ee oh), which no face's mouth override blocks.
   Then, only for a model with ``VRMC_node_constraint``, the ``constraints`` stage: roll,
   aim and rotation constraints in dependency order (``constraints.ConstraintSolver``).
5. ``spring``: spring bones in fixed steps, then the final world and joint matrices.

``changed`` tells whether the frame differs visibly from the previous one (the overlay
renders only then). Times are seconds, angles radians unless named ``_deg``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping

import numpy as np

from ...engine import mood_expression as mx
from . import quat
from .blink import Blinker
from .constraints import ConstraintSolver
from .expressions import MOUTH, ExpressionManager, ExpressionOutput
from .frame import Frame
from .look_at import LookAtController
from .model import VrmModel
from .pose import Pose
from .spring import SpringSimulator

AnimationHook = Callable[[Pose, float, float], None]
STAGES: tuple[str, ...] = ("animation", "humanoid", "look_at", "expressions", "spring")

BREATH_HZ = 0.25  # 15 breaths a minute
BREATH_DEG = {"spine": 0.35, "chest": 0.5, "upperChest": 0.5, "neck": -0.6}
SHOULDER_DEG = 0.6
#: Tap region -> (expression candidates, weight, hold seconds).
TAP_REACTIONS: dict[str, tuple[tuple[str, ...], float, float]] = {
    "head": (("happy", "relaxed", "joy", "fun"), 0.8, 1.2),
    "body": (("surprised",), 0.7, 1.0),
}
_EPS = 1e-6


class AvatarRuntime:
    """One avatar's live state. ``rng`` drives blinking (pass a seeded one in tests)."""

    def __init__(self, model: VrmModel, rng: random.Random, *, blink: bool = True,
                 breathing: bool = True, springs: bool = True,
                 animation: AnimationHook | None = None) -> None:
        self.model = model
        self.pose = Pose(model)
        self.expressions = ExpressionManager(model)
        self.available = frozenset(model.expressions)
        self.look = LookAtController(model)
        self.blinker = Blinker(rng, enabled=blink)
        self.constraints = ConstraintSolver(model.constraints, self.pose.skeleton)
        self.springs = SpringSimulator(model, self.pose)
        self.springs_enabled = springs
        self.breathing = breathing
        self.animation = animation
        self._flash, self._tap = mx.FlashState(), mx.FlashState()
        self.layers = mx.FaceLayers(flash=self._flash, tap=self._tap)
        self.face: dict[str, float] = {}
        self.manual: dict[str, float] = {}
        self.mouth = 0.0
        self.visemes: dict[str, float] = {}
        self._viseme_binds: dict[str, list[tuple[int, int, float]]] | None = None
        self.time = 0.0
        self.changed = True
        self.trace: list[str] | None = None  # set to a list to record the stages run
        #: set to a dict to get each stage's milliseconds in the last update (``frame``:
        #: the world and joint matrices, the ``Frame`` and ``changed``)
        self.timings: dict[str, float] | None = None
        self._mark: tuple[str, float] | None = None
        self._last: Frame | None = None
        self._breath_idx: np.ndarray | None = None
        self._moved: tuple[bool, np.ndarray] | None = None

    # -- inputs ---------------------------------------------------------------------
    def mood(self, emotion: str, intensity: float) -> None:
        """The resting face follows the mood (emotion name, intensity 0..100)."""
        self.layers.resting = mx.mood_expression_target(emotion, intensity, self.available)

    def flash(self, emotion: str, speaking: bool = False) -> bool:
        """A stronger, timed face for the model's ``expression``; False if none applies."""
        target = mx.flash_expression_target(emotion, self.available)
        if target is None:
            return False
        self._flash.start(target[0], target[1], speaking, self.time)
        return True

    def speaking_ended(self) -> None:
        """Speech is over: a speaking flash stops holding (after at least the normal hold)."""
        self._flash.speaking_ended(self.time)

    def set_mood_expressions_enabled(self, enabled: bool) -> None:
        """Settings > Display > Mood expressions: the resting face and the flash."""
        self.layers.mood_expressions_enabled = bool(enabled)

    def look_at_point(self, point: np.ndarray | None) -> None:
        """Where to look (world metres), or None for straight ahead."""
        self.look.look_at(point)

    def mouth_open(self, amount: float) -> None:
        """Lip sync: 0..1 drives "aa"."""
        self.mouth = min(1.0, max(0.0, float(amount)))

    def set_visemes(self, weights: Mapping[str, float] | None) -> None:
        """Lip sync: weights 0..1 of "aa", "ih", "ou", "ee", "oh" (others ignored; None or
        {} closes the mouth). A viseme the model lacks goes to "aa". Unlike ``mouth_open``,
        these are never blocked by a face's mouth override: she keeps talking while the
        flash or mood face shows."""
        bounded: dict[str, float] = {}
        for name, weight in (weights or {}).items():
            try:
                value = float(weight)
            except (TypeError, ValueError):
                continue
            target = name if name in self.available else "aa"
            if name in MOUTH and target in self.available and value == value and value > 0:
                bounded[target] = min(1.0, bounded.get(target, 0.0) + min(1.0, value))
        self.visemes = bounded

    def set_expression(self, name: str, weight: float) -> bool:
        """Direct control of one expression (0 removes it); False when the model lacks it."""
        if name not in self.available:
            return False
        if weight <= 0.0:
            self.manual.pop(name, None)
        else:
            self.manual[name] = min(1.0, float(weight))
        return True

    def tap(self, region: str) -> str | None:
        """A tap reaction ("head": happy/relaxed, "body": surprised); the expression used."""
        reaction = TAP_REACTIONS.get(region)
        if reaction is None:
            return None
        name = mx.pick_expression(reaction[0], self.available)
        if name is not None:
            self._tap.start(name, reaction[1], False, self.time, hold_s=reaction[2])
        return name

    def set_emote(self, weights: dict[str, float] | None) -> None:
        self.layers.emote = dict(weights) if weights else None

    def set_photo(self, weights: dict[str, float] | None) -> None:
        self.layers.photo = dict(weights) if weights else None

    def set_blink_enabled(self, enabled: bool) -> None:
        self.blinker.enabled = bool(enabled)

    def reset_springs(self) -> None:
        """Settle the spring bones at the next frame (after a teleport or a new clip)."""
        self.springs.initialized = False

    # -- update ---------------------------------------------------------------------
    def _stage(self, name: str | None) -> None:
        """Enter stage ``name`` (None: the update is over)."""
        if self.trace is not None and name is not None and name != "frame":
            self.trace.append(name)
        if self.timings is not None:
            now = time.perf_counter()
            if self._mark is not None:
                last, since = self._mark
                self.timings[last] = self.timings.get(last, 0.0) + (now - since) * 1000.0
            self._mark = (name, now) if name is not None else None

    def update(self, dt: float) -> Frame:
        """Advance ``dt`` seconds and return the posed frame."""
        dt = max(0.0, float(dt))
        self.time += dt
        pose = self.pose
        pose.reset()
        self._stage("animation")
        if self.animation is not None:
            self.animation(pose, dt, self.time)
        if self.breathing:
            self._breathe()
        self._stage("humanoid")
        pose.apply_humanoid()
        world = pose.world_matrices()
        self._stage("look_at")
        self.expressions.reset()
        self.look.update(pose, world, dt, self.expressions)
        self._stage("expressions")
        out = self._expressions(dt)
        if self.constraints:
            self._stage("constraints")
            self.constraints.apply(pose)
            world = pose.world_matrices()
        self._stage("spring")
        if self.springs_enabled:
            self.springs.update(pose, world, dt)
        self._stage("frame")
        # only the eyes (look-at) and the spring joints moved since ``world``
        world = pose.world_matrices_after(world, self._moved_nodes())
        frame = Frame(world.astype(np.float32), pose.joint_matrices(world), out.morph_weights,
                      out.material_colors, out.texture_transforms, time=self.time)
        self.changed = self._differs(frame)
        self._last = frame
        self._stage(None)
        return frame

    def _moved_nodes(self) -> np.ndarray:
        """The nodes the look-at and spring stages may turn after the world matrices of the
        humanoid (or constraints) stage: the eye bones and the simulated spring joints."""
        key = self.springs_enabled
        if self._moved is None or self._moved[0] != key:
            index = self.pose.skeleton.bone_index
            nodes = [int(self.pose.skeleton.bone_nodes[index[b]])
                     for b in ("leftEye", "rightEye") if b in index]
            if self.springs_enabled:
                nodes += self.springs.nodes.tolist()
            self._moved = (key, np.unique(np.array(nodes, np.int64)))
        return self._moved[1]

    def _breathe(self) -> None:
        """Tiny spine/chest/neck pitch and a shoulder lift on each inhale (no scale)."""
        if self._breath_idx is None:
            self._breath_idx, self._breath_axes, self._breath_deg = self._breath_bones()
        if not len(self._breath_idx):
            return
        s = math.sin(2.0 * math.pi * BREATH_HZ * self.time)
        half = np.where(self._breath_pitch, s, max(0.0, s)) * self._breath_half_rad
        turn = self._breath_xyz0 * np.sin(half)[:, None]
        turn[:, 3] = np.cos(half)
        normalized = self.pose.normalized
        normalized[self._breath_idx] = quat.multiply(turn, normalized[self._breath_idx])

    def _breath_bones(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        index = self.pose.skeleton.bone_index
        rows = [(index[b], (1.0, 0.0, 0.0), -d) for b, d in BREATH_DEG.items() if b in index]
        rows += [(index[b], (0.0, 0.0, 1.0), sign * SHOULDER_DEG)
                 for b, sign in (("leftShoulder", 1.0), ("rightShoulder", -1.0)) if b in index]
        axes = np.array([r[1] for r in rows], np.float64).reshape(-1, 3)
        degrees = np.array([r[2] for r in rows], np.float64)
        self._breath_pitch = axes[:, 0] != 0.0
        self._breath_half_rad = np.radians(degrees) * 0.5
        self._breath_xyz0 = np.concatenate([axes, np.zeros((len(rows), 1))], axis=1)
        return np.array([r[0] for r in rows], np.int64), axes, degrees

    def _expressions(self, dt: float) -> ExpressionOutput:
        ex = self.expressions
        target = self.layers.resolve(self.time)
        self.face = mx.compose_expression_weights(self.face, target, dt)
        for name, weight in self.face.items():
            ex.set(name, max(weight, ex.get(name)))
        for name, weight in self.manual.items():
            ex.set(name, weight)
        blink = self.blinker.update(dt)
        if ex.has("blink"):
            ex.set("blink", max(blink, ex.get("blink")))
        else:
            for name in ("blinkLeft", "blinkRight"):
                ex.set(name, max(blink, ex.get(name)))
        if self.mouth > 0.0:
            ex.set("aa", max(self.mouth, ex.get("aa")))
        for name, weight in self.visemes.items():
            ex.set(name, max(weight, ex.get(name)))
        out = ex.evaluate()
        if self.visemes:
            self._unblock_visemes(out.morph_weights)
        return out

    def _unblock_visemes(self, morphs: list[np.ndarray]) -> None:
        """Add back what a mouth override took from the lip-sync visemes (morphs only)."""
        applied = self.expressions.output_weights()
        index = self.expressions.index
        if self._viseme_binds is None:
            self._viseme_binds = {
                name: [(b.mesh, b.target, b.weight) for b in self.model.expressions[name]
                       .morph_binds if 0 <= b.mesh < len(morphs)
                       and 0 <= b.target < len(morphs[b.mesh])]
                for name in MOUTH if name in index}
        for name, weight in self.visemes.items():
            if self.model.expressions[name].is_binary:
                weight = float(weight > 0.5)
            missing = weight - float(applied[index[name]])
            if missing <= 1e-6:
                continue
            for mesh, target, bind in self._viseme_binds.get(name, ()):
                morphs[mesh][target] = min(1.0, max(0.0, morphs[mesh][target] + missing * bind))

    def _differs(self, frame: Frame) -> bool:
        last = self._last
        if last is None:
            return True
        if np.max(np.abs(frame.world - last.world), initial=0.0) > _EPS:
            return True
        for a, b in zip(frame.morph_weights, last.morph_weights, strict=True):
            if a.shape != b.shape or np.max(np.abs(a - b), initial=0.0) > _EPS:
                return True
        for key, color in frame.material_colors.items():
            if key not in last.material_colors or \
                    np.max(np.abs(color - last.material_colors[key])) > _EPS:
                return True
        return frame.texture_transforms != last.texture_transforms
