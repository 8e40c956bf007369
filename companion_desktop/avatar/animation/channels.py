"""glTF animation channels read into ``Track``s, every size and value checked first.

Shared by the VRM Animation loader (``vrma``) and plain glTF clips (``gltf_clip``). The
document itself is read by ``avatar.vrm.gltf.read_document`` and its accessors by
``avatar.vrm.accessors.AccessorReader`` (bounds-checked, size-capped by ``Limits``); this
module adds the animation rules of glTF 2.0: keyframe times are finite, non-negative and
strictly increasing float scalars, and each output accessor holds exactly one value (three
for CUBICSPLINE: in-tangent, value, out-tangent) per keyframe of its path's width.
A broken channel is a ``ClipLoadError`` naming the channel; nothing is half-loaded.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..vrm.accessors import AccessorReader
from ..vrm.errors import AvatarLoadError
from ..vrm.fields import as_list, as_str, get, index_or_none
from ..vrm.gltf import Document
from .clip import Track

INTERPOLATIONS = ("LINEAR", "STEP", "CUBICSPLINE")
#: Components per keyframe of each target path ("weights" has one per morph target).
PATH_WIDTH = {"translation": 3, "rotation": 4, "scale": 3}
MAX_CHANNELS = 10_000  # per animation
MAX_KEYFRAMES = 2_000_000  # per channel (a 60 s clip at 30 fps has 1 800)
MAX_TOTAL_VALUES = 50_000_000  # floats over all channels of one animation


class ClipLoadError(Exception):
    """A file refused as an animation; ``message`` names the file and says why.

    ``internal`` is True only when the loader itself failed unexpectedly on the file (a
    bug on our side, still reported as a refusal so a bad file never crashes the app).
    """

    def __init__(self, message: str, *, internal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.internal = internal

    def __str__(self) -> str:
        return self.message


@dataclass
class Channel:
    """One animation channel: ``node`` (None when it targets nothing), ``path``, its track."""

    index: int
    node: int | None
    path: str
    track: Track


class Deadline:
    """Raises ``ClipLoadError("... took too long")`` once ``seconds`` have passed."""

    def __init__(self, seconds: float | None, source: str) -> None:
        self.end = None if seconds is None else time.monotonic() + max(0.0, float(seconds))
        self.seconds = seconds
        self.source = source

    def check(self) -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise ClipLoadError(
                f"{self.source}: loading took too long (over {self.seconds:g} s); it is refused")


def fail(doc: Document, message: str) -> ClipLoadError:
    return ClipLoadError(f"{doc.source}: {message}")


def animation_channels(doc: Document, reader: AccessorReader, animation: Any,
                       deadline: Deadline, *, node_count: int,
                       wanted: set[int] | None = None) -> Iterator[Channel]:
    """The channels of one glTF ``animation`` (a pygltflib object), in file order.

    Channels whose node is not in ``wanted`` (when given) are still checked but not decoded.
    ``deadline`` is checked before each channel.
    """
    channels = as_list(get(animation, "channels"))
    samplers = as_list(get(animation, "samplers"))
    if len(channels) > MAX_CHANNELS:
        raise fail(doc, f"its animation has {len(channels)} channels; at most "
                        f"{MAX_CHANNELS} are allowed")
    total = 0
    for i, channel in enumerate(channels):
        deadline.check()
        target = get(channel, "target")
        path = as_str(get(target, "path"))
        node_value = get(target, "node")
        node = index_or_none(node_value, node_count)
        if node_value is not None and node is None:
            raise fail(doc, f"animation channel {i} targets node {node_value!r}, which does "
                            "not exist")
        if path not in PATH_WIDTH and path != "weights":
            raise fail(doc, f"animation channel {i} has an unknown target path {path!r}")
        s = index_or_none(get(channel, "sampler"), len(samplers))
        if s is None:
            raise fail(doc, f"animation channel {i} uses sampler {get(channel, 'sampler')!r}, "
                            "which does not exist")
        decode = node is not None and (wanted is None or node in wanted)
        track = read_sampler(doc, reader, samplers[s], f"animation channel {i}", path,
                             decode=decode)
        total += track.values.size
        if total > MAX_TOTAL_VALUES:
            raise fail(doc, f"its animation holds more than {MAX_TOTAL_VALUES} keyframe values; "
                            "it is refused as too large")
        yield Channel(i, node, path, track)


def read_sampler(doc: Document, reader: AccessorReader, sampler: Any, what: str, path: str,
                 *, decode: bool = True) -> Track:
    """A sampler as a ``Track`` (float64). With ``decode`` False only the sizes and times
    are checked and ``values`` is an empty array of the right rank."""
    interpolation = get(sampler, "interpolation", "LINEAR")
    if interpolation not in INTERPOLATIONS:
        raise fail(doc, f"{what} has an unknown interpolation {interpolation!r}")
    try:
        times = _times(doc, reader, get(sampler, "input"), what)
        out_index = get(sampler, "output")
        out_count = reader.count(out_index, f"{what} output")
        per_key = 3 if interpolation == "CUBICSPLINE" else 1
        width = PATH_WIDTH.get(path)
        if width is None:  # weights: one value per morph target
            if out_count % (len(times) * per_key):
                raise fail(doc, f"{what}: its {out_count} weight values do not divide into "
                                f"its {len(times)} keyframes")
            width = out_count // (len(times) * per_key)
        else:
            rows = len(times) * per_key
            if out_count != rows:
                raise fail(doc, f"{what} has {out_count} output values for {len(times)} "
                                f"keyframes; {rows} were expected")
        if not decode:
            shape = (0, 3, width) if per_key == 3 else (0, width)
            return Track(times, np.zeros(shape), interpolation, quaternion=path == "rotation")
        raw = reader.read(out_index, f"{what} output")
    except AvatarLoadError as exc:
        raise ClipLoadError(str(exc)) from None
    if PATH_WIDTH.get(path) is not None and raw.shape[1] != width:
        raise fail(doc, f"{what} output has {raw.shape[1]} components; {path} needs {width}")
    if path == "weights" and raw.shape[1] != 1:
        raise fail(doc, f"{what} weights output is not a SCALAR accessor")
    values = np.asarray(raw, np.float64).reshape(len(times), per_key, width)
    if not np.all(np.isfinite(values)):
        raise fail(doc, f"{what} output holds values that are not finite numbers")
    values = values[:, 0, :] if per_key == 1 else values
    return Track(times, values, interpolation, quaternion=path == "rotation")


def _times(doc: Document, reader: AccessorReader, index: Any, what: str) -> np.ndarray:
    count = reader.count(index, f"{what} input")
    if count > MAX_KEYFRAMES:
        raise fail(doc, f"{what} has {count} keyframes; at most {MAX_KEYFRAMES} are allowed")
    if reader.component_type(index, f"{what} input") != 5126:
        raise fail(doc, f"{what}: its keyframe times are not float numbers")
    raw = reader.read(index, f"{what} input")
    if raw.shape[1] != 1:
        raise fail(doc, f"{what}: its keyframe times are not a SCALAR accessor")
    times = raw[:, 0].astype(np.float64)
    if not np.all(np.isfinite(times)) or times.min() < 0.0:
        raise fail(doc, f"{what} has keyframe times that are negative or not finite")
    if len(times) > 1 and not np.all(np.diff(times) > 0.0):
        raise fail(doc, f"{what}: its keyframe times are not strictly increasing")
    return times
