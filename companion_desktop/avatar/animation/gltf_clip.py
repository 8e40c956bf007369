"""Plain glTF animations (non-VRM scenes): node TRS and morph weight channels.

``load_gltf_animations(path)`` reads every animation of a .glb/.gltf (or any glTF-based
file) with the avatar loader's checked document and accessor reading; each becomes a
``NodeAnimation`` of per-node channels. ``sample_node_animation(anim, t)`` gives, for every
animated node, its full local ``(translation, rotation, scale)`` at ``t`` seconds (paths
the animation leaves alone keep the node's rest value) and the morph weights of nodes
with a weights channel. Interpolation follows glTF 2.0 (see ``sampling``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..vrm import quat
from ..vrm.errors import AvatarLoadError
from ..vrm.fields import as_str, get
from ..vrm.gltf import read_document
from ..vrm.limits import DEFAULT_LIMITS, Limits
from ..vrm.load_context import LoadContext
from ..vrm.nodes import read_nodes
from .channels import ClipLoadError, Deadline, animation_channels
from .clip import Track
from .sampling import sample_track

Transform = tuple[np.ndarray, np.ndarray, np.ndarray]  # translation (3,), rotation (4,), scale (3,)


@dataclass
class NodeAnimation:
    """One glTF animation: ``channels[node][path]`` tracks, and the animated nodes' rests."""

    name: str
    duration: float  # seconds: the last keyframe time over all channels
    channels: dict[int, dict[str, Track]] = field(default_factory=dict)
    rest: dict[int, Transform] = field(default_factory=dict)


def load_gltf_animations(model_path: str | Path, *, limits: Limits | None = None,
                         deadline_s: float | None = 60.0) -> list[NodeAnimation]:
    """Every animation of the file (maybe none); ``ClipLoadError`` for a broken one."""
    path = Path(model_path)
    source = path.name or str(path)
    deadline = Deadline(deadline_s, source)
    try:
        doc = read_document(path, limits or DEFAULT_LIMITS)
        ctx = LoadContext.for_document(doc)
        nodes, _ = read_nodes(ctx)
        out = []
        for a, raw in enumerate(doc.gltf.animations or []):
            anim = NodeAnimation(name=as_str(get(raw, "name"), f"animation {a}"), duration=0.0)
            for channel in animation_channels(doc, ctx.accessors, raw, deadline,
                                              node_count=len(nodes)):
                anim.duration = max(anim.duration, float(channel.track.times[-1]))
                if channel.node is None:
                    continue
                anim.channels.setdefault(channel.node, {})[channel.path] = channel.track
                node = nodes[channel.node]
                anim.rest[channel.node] = (
                    node.translation.astype(np.float64), node.rotation.astype(np.float64),
                    node.scale.astype(np.float64))
            out.append(anim)
        return out
    except ClipLoadError:
        raise
    except AvatarLoadError as exc:
        raise ClipLoadError(exc.message) from None
    except (MemoryError, RecursionError) as exc:
        raise ClipLoadError(f"{source}: its animations cannot be read ({type(exc).__name__})") \
            from None
    except Exception as exc:  # a bug of ours on this file: still a refusal, never a crash
        raise ClipLoadError(f"{source}: its animations could not be read "
                            f"({type(exc).__name__}: {exc})", internal=True) from exc


def animation_time(anim: NodeAnimation, t: float, loop: bool = True) -> float:
    """``t`` wrapped into the animation (loop) or held at its ends."""
    if anim.duration <= 0.0:
        return 0.0
    return float(t) % anim.duration if loop else min(max(float(t), 0.0), anim.duration)


def sample_node_animation(anim: NodeAnimation, t: float, *, loop: bool = True
                          ) -> tuple[dict[int, Transform], dict[int, np.ndarray]]:
    """``({node: (translation, rotation, scale)}, {node: morph weights})`` at ``t`` seconds.

    Rotations are unit quaternions (x, y, z, w); every array is float64 and finite.
    """
    t = animation_time(anim, t, loop)
    transforms: dict[int, Transform] = {}
    weights: dict[int, np.ndarray] = {}
    for node, paths in anim.channels.items():
        rest_t, rest_r, rest_s = anim.rest[node]
        if "weights" in paths:
            weights[node] = sample_track(paths["weights"], t)
        if not paths.keys() & {"translation", "rotation", "scale"}:
            continue
        translation = sample_track(paths["translation"], t) if "translation" in paths \
            else rest_t.copy()
        rotation = sample_track(paths["rotation"], t) if "rotation" in paths \
            else quat.normalize(rest_r)
        scale = sample_track(paths["scale"], t) if "scale" in paths else rest_s.copy()
        transforms[node] = (translation, rotation, scale)
    return transforms, weights
