"""Does a new frame change a picture enough to draw it again?

Her idle motion (breathing, slow idle clips) often moves nothing on screen by as much
as half a pixel from one frame to the next. ``PictureGate`` remembers, per picture,
what it last showed: every node's projected position and every morph weight, the
material colours and texture transforms. A frame is drawn when a node has moved
``PIXEL_STEP`` pixels or more since, a morph weight changed by ``MORPH_STEP`` or more,
or any colour or texture transform changed; otherwise the picture on screen is within
half a pixel of it and drawing it would cost the same for no visible difference. Motion
stays smooth: every step she takes on screen is under ``PIXEL_STEP`` pixels, whatever
the frame rate it needs. Numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame

from .camera import Camera

PIXEL_STEP = 0.5  # pixels a node may move before the picture is drawn again
SMOOTH_STEP = 0.7  # pixels: a larger step between two pictures is counted (``steps_over``)
MORPH_STEP = 0.02  # change of a morph weight (0..1) that is drawn


@dataclass
class _Shown:
    pixels: np.ndarray
    morphs: np.ndarray
    colors: dict
    transforms: dict


def _morphs(frame: Frame) -> np.ndarray:
    if not frame.morph_weights:
        return np.zeros(0, np.float32)
    return np.concatenate([np.asarray(w, np.float32).ravel() for w in frame.morph_weights])


class PictureGate:
    """``changed(key, frame, camera, w, h)`` then ``shown(key)`` after drawing it."""

    def __init__(self) -> None:
        self._shown: dict[object, _Shown] = {}
        self._pending: dict[object, _Shown] = {}
        self._steps: dict[object, float] = {}
        self.largest_step = 0.0  # pixels a node moved between two shown pictures (max so far)
        self.steps = 0  # pictures shown after another of the same view (so far)
        self.steps_over = 0  # of them, those more than SMOOTH_STEP pixels from the last

    def changed(self, key: object, frame: Frame, camera: Camera, width: int, height: int) -> bool:
        """True when ``frame`` through ``camera`` differs visibly from the last picture
        shown for ``key`` (always True for the first)."""
        now = _Shown(camera.project(frame.world[:, :3, 3], width, height), _morphs(frame),
                     frame.material_colors, frame.texture_transforms)
        self._pending[key] = now
        last = self._shown.get(key)
        self._steps.pop(key, None)
        if last is None or last.pixels.shape != now.pixels.shape \
                or last.morphs.shape != now.morphs.shape:
            return True
        step = float(np.max(np.abs(now.pixels - last.pixels), initial=0.0))
        self._steps[key] = step
        if step >= PIXEL_STEP:
            return True
        if float(np.max(np.abs(now.morphs - last.morphs), initial=0.0)) >= MORPH_STEP:
            return True
        return not (_same(now.colors, last.colors) and _same(now.transforms, last.transforms))

    def shown(self, key: object) -> None:
        """The frame last passed to ``changed`` for ``key`` is now on screen."""
        if key in self._pending:
            self._shown[key] = self._pending.pop(key)
            step = self._steps.pop(key, None)
            if step is not None:
                self.largest_step = max(self.largest_step, step)
                self.steps += 1
                self.steps_over += int(step > SMOOTH_STEP)

    def forget(self, key: object) -> None:
        self._shown.pop(key, None)
        self._pending.pop(key, None)
        self._steps.pop(key, None)


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key, value in a.items():
        other = b[key]
        if isinstance(value, np.ndarray) or isinstance(other, np.ndarray):
            if not np.array_equal(np.asarray(value), np.asarray(other)):
                return False
        elif value != other:
            return False
    return True
