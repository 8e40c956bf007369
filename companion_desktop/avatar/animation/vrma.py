"""``load_vrma(path)``: a VRM Animation (.vrma, ``VRMC_vrm_animation`` 1.0) into a ``Clip``.

Retargeting follows three-vrm (``VRMAnimationLoaderPlugin`` + ``createVRMAnimationClip``).
The file's nodes hold its own rest pose (a "VRM T-pose" whose hierarchy may have any
rotation). For each humanoid bone, with ``P`` the rest world rotation of its nearest
humanoid parent bone present in the file (the hips' glTF parent for the hips, and for a
bone without such a parent) and ``C`` its own rest world rotation, an animated local
rotation ``a`` becomes the normalized rotation ``P * a * C^-1`` (world-aligned, relative to
the rest pose: what ``avatar.vrm.pose.Pose.set_bone_rotation`` takes). The hips'
translation is taken through the hips' parent world matrix into world metres and stored
as an offset from the file's rest hips position; ``Clip.hips_height`` is that rest
position's height (y), so samplers can scale it to any model.

Expressions: the X of a mapped node's translation is the weight (clamped to 0..1).
Look-at: the mapped node's rotation is the gaze direction (+Z is ahead); it is kept as a
quaternion track in ``Clip.look_at``. Channels on other nodes are dropped (like three-vrm);
channels the format forbids (scale, translation of a bone other than the hips, eyes, the
look* expressions) are ignored. The first animation is the clip.

Everything else is refused with a ``ClipLoadError`` before a clip exists: not glTF,
no ``VRMC_vrm_animation``, a missing or unknown ``specVersion``, no humanoid (or no hips),
no animation, files over ``max_bytes``, too many channels or keyframes, accessors out of
range, times not strictly increasing, or loading past ``deadline_s`` seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..vrm import quat
from ..vrm.errors import AvatarLoadError
from ..vrm.fields import as_dict, get, index_or_none
from ..vrm.gltf import read_document
from ..vrm.limits import MIB, Limits
from ..vrm.load_context import LoadContext
from ..vrm.model import HUMANOID_BONES, Node
from ..vrm.nodes import read_nodes
from ..vrm.pose import local_matrices
from .channels import MAX_KEYFRAMES, ClipLoadError, Deadline, animation_channels, fail
from .clip import Clip, Track
from .humanoid import HUMAN_PARENT
from .prescan import object_count

__all__ = ["ClipLoadError", "load_vrma", "SPEC_VERSIONS"]

SPEC_VERSIONS = ("1.0", "1.0-draft")
DEFAULT_MAX_BYTES = 25 * MIB
DEFAULT_DEADLINE_S = 60.0
NOT_ANIMATED_BONES = ("leftEye", "rightEye")
NOT_ANIMATED_EXPRESSIONS = ("lookUp", "lookDown", "lookLeft", "lookRight")
MIN_HIPS_HEIGHT = 1e-3  # metres; below it the hips translation cannot be scaled
#: glTF objects (nodes, accessors, channels...) in one file: real clips have a few hundred;
#: pygltflib needs about 0.5 ms for each, so this bounds decoding to a few seconds.
MAX_OBJECTS = 12_000


def vrma_limits(max_bytes: int) -> Limits:
    """The loader's caps, tightened for an animation file of at most ``max_bytes``."""
    return Limits(
        max_file_bytes=max_bytes, max_json_bytes=max_bytes,
        max_decoded_bytes=max(64 * MIB, 8 * max_bytes), max_accessor_count=3 * MAX_KEYFRAMES,
        max_nodes=4_000, max_meshes=256, max_primitives=256, max_accessors=4_000,
        max_materials=256, max_textures=256,
    )  # fmt: skip


def load_vrma(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES,
              deadline_s: float | None = DEFAULT_DEADLINE_S, clip_id: str | None = None,
              name: str | None = None, loop: bool = True) -> Clip:
    """Load a .vrma file into a normalized ``Clip`` (id and name default to the file stem).

    Raises ``ClipLoadError`` (message fit for the user) for anything refused.
    """
    path = Path(path)
    source = path.name or str(path)
    try:
        clip = _load(path, max_bytes, Deadline(deadline_s, source))
    except ClipLoadError:
        raise
    except AvatarLoadError as exc:
        raise ClipLoadError(exc.message) from None
    except MemoryError:
        raise ClipLoadError(f"{source}: there is not enough memory to load it") from None
    except RecursionError:
        raise ClipLoadError(f"{source}: its structure is nested too deeply") from None
    except Exception as exc:  # a bug of ours on this file: still a refusal, never a crash
        raise ClipLoadError(
            f"{source} could not be loaded as an animation ({type(exc).__name__}: {exc})",
            internal=True,
        ) from exc
    clip.id = clip_id or path.stem
    clip.name = name or path.stem
    clip.loop = loop
    return clip


def _load(path: Path, max_bytes: int, deadline: Deadline) -> Clip:
    try:
        size = path.stat().st_size if path.is_file() else None
    except OSError:
        size = None  # read_document says what is wrong
    if size is not None and size > max_bytes:
        raise ClipLoadError(f"{path.name} is {size / MIB:.1f} MiB; animations over "
                            f"{max_bytes / MIB:g} MiB are refused")
    count = object_count(path, max_bytes)
    if count is not None and count > MAX_OBJECTS:
        raise ClipLoadError(f"{path.name} has {count} glTF objects (nodes, accessors, animation "
                            f"channels...); an animation may have at most {MAX_OBJECTS}")
    doc = read_document(path, vrma_limits(max_bytes))
    ext = doc.extensions.get("VRMC_vrm_animation")
    if not isinstance(ext, dict):
        raise fail(doc, "it is not a VRM Animation (it has no VRMC_vrm_animation extension)")
    version = ext.get("specVersion")
    if version is None:
        raise fail(doc, "its VRMC_vrm_animation extension has no specVersion")
    if version not in SPEC_VERSIONS:
        raise fail(doc, f"its VRMC_vrm_animation specVersion is {version!r}; only "
                        f"{' and '.join(SPEC_VERSIONS)} are supported")
    animations = list(doc.gltf.animations or [])
    if not animations:
        raise fail(doc, "it holds no animation")
    deadline.check()
    ctx = LoadContext.for_document(doc)
    nodes, _ = read_nodes(ctx)
    bones = _humanoid(doc, ext, len(nodes))
    expressions = _expressions(ext, len(nodes))
    look_node = index_or_none(get(as_dict(ext.get("lookAt")), "node"), len(nodes))
    world = _rest_world(nodes)
    retarget = _Retarget(nodes, world, bones)
    clip = Clip(id=path.stem, name=path.stem, duration=0.0, hips_height=retarget.hips_height)
    wanted = set(bones.values()) | set(expressions) | ({look_node} - {None})
    by_node = {node: bone for bone, node in bones.items()}
    for channel in animation_channels(doc, ctx.accessors, animations[0], deadline,
                                      node_count=len(nodes), wanted=wanted):
        track = channel.track
        clip.duration = max(clip.duration, float(track.times[-1]))
        if channel.node is None or channel.node not in wanted:
            continue
        bone = by_node.get(channel.node)
        if bone is not None:
            if bone in NOT_ANIMATED_BONES:
                continue
            if channel.path == "rotation":
                clip.bone_rotations[bone] = retarget.rotation(bone, track)
            elif channel.path == "translation" and bone == "hips":
                clip.hips_translation = retarget.hips_translation(track)
        elif channel.node in expressions and channel.path == "translation":
            clip.expressions[expressions[channel.node]] = _weight_track(track)
        elif channel.node == look_node and channel.path == "rotation":
            clip.look_at = track
    deadline.check()
    return clip


def _humanoid(doc: Any, ext: dict, node_count: int) -> dict[str, int]:
    human_bones = as_dict(as_dict(ext.get("humanoid")).get("humanBones"))
    bones: dict[str, int] = {}
    for name, bone in human_bones.items():
        node = index_or_none(get(as_dict(bone), "node"), node_count)
        if name in HUMANOID_BONES and node is not None and node not in bones.values():
            bones[name] = node
    if not bones:
        raise fail(doc, "it has no humanoid bone mapping (VRMC_vrm_animation.humanoid)")
    if "hips" not in bones:
        raise fail(doc, "its humanoid bone mapping has no hips bone")
    return bones


def _expressions(ext: dict, node_count: int) -> dict[int, str]:
    """node -> expression name (preset and custom; the look* presets are left out)."""
    out: dict[int, str] = {}
    groups = as_dict(ext.get("expressions"))
    for group in ("preset", "custom"):
        for name, expression in as_dict(groups.get(group)).items():
            node = index_or_none(get(as_dict(expression), "node"), node_count)
            if node is not None and name not in NOT_ANIMATED_EXPRESSIONS:
                out.setdefault(node, name)
    return out


def _rest_world(nodes: list[Node]) -> np.ndarray:
    """(n, 4, 4) rest world matrices of the file's own hierarchy (parents checked acyclic)."""
    local = local_matrices(
        np.array([n.translation for n in nodes], np.float64).reshape(-1, 3),
        quat.normalize(np.array([n.rotation for n in nodes], np.float64).reshape(-1, 4)),
        np.array([n.scale for n in nodes], np.float64).reshape(-1, 3))
    world = np.empty_like(local)
    done = np.zeros(len(nodes), bool)
    for start in range(len(nodes)):
        chain = []
        node: int | None = start
        while node is not None and not done[node]:
            chain.append(node)
            node = nodes[node].parent
        above = world[node] if node is not None else np.eye(4)
        for member in reversed(chain):
            above = above @ local[member]
            world[member] = above
            done[member] = True
    return world


class _Retarget:
    """The rest-pose rotations and positions the retargeting formulas need."""

    def __init__(self, nodes: list[Node], world: np.ndarray, bones: dict[str, int]) -> None:
        self.bones = bones
        self.world_rot = {bone: quat.from_matrix(world[node, :3, :3])
                          for bone, node in bones.items()}
        hips = bones["hips"]
        parent = nodes[hips].parent
        self.hips_parent = world[parent] if parent is not None else np.eye(4)
        self.hips_parent_rot = quat.from_matrix(self.hips_parent[:3, :3])
        self.rest_hips = world[hips, :3, 3].copy()
        height = float(self.rest_hips[1])
        self.scalable = height >= MIN_HIPS_HEIGHT
        self.hips_height = height if self.scalable else 1.0

    def parent_rotation(self, bone: str) -> np.ndarray:
        parent = HUMAN_PARENT.get(bone)
        while parent is not None and parent not in self.world_rot:
            parent = HUMAN_PARENT.get(parent)
        return self.hips_parent_rot if parent is None else self.world_rot[parent]

    def rotation(self, bone: str, track: Track) -> Track:
        """``P * a * C^-1`` for every keyframe (and tangent: the map is linear)."""
        p = self.parent_rotation(bone)
        c_inv = quat.conjugate(self.world_rot[bone])
        values = quat.multiply(quat.multiply(p, track.values), c_inv)
        if track.interpolation != "CUBICSPLINE":
            values = quat.normalize(values)
        return Track(track.times, values, track.interpolation, quaternion=True)

    def hips_translation(self, track: Track) -> Track | None:
        """World-space offsets from the rest hips position (tangents: linear part only)."""
        if not self.scalable:
            return None
        m = self.hips_parent
        if track.interpolation == "CUBICSPLINE":
            values = track.values @ m[:3, :3].T
            values[:, 1, :] += m[:3, 3] - self.rest_hips
        else:
            values = track.values @ m[:3, :3].T + (m[:3, 3] - self.rest_hips)
        return Track(track.times, values, track.interpolation)


def _weight_track(track: Track) -> Track:
    """The X of a translation track as a weight track (values clamped to 0..1)."""
    if track.interpolation == "CUBICSPLINE":
        values = track.values[:, :, :1].copy()
        values[:, 1, :] = np.clip(values[:, 1, :], 0.0, 1.0)
    else:
        values = np.clip(track.values[:, :1], 0.0, 1.0)
    return Track(track.times, values, track.interpolation)
