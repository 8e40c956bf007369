"""The picture gate: a frame is drawn again only when it changes the picture visibly."""

from __future__ import annotations

import numpy as np

from companion_desktop.avatar.render.camera import Camera
from companion_desktop.avatar.render.change import MORPH_STEP, PIXEL_STEP, SMOOTH_STEP, PictureGate
from companion_desktop.avatar.vrm.frame import Frame

CAMERA = Camera(eye=np.array([0, 1, 3], np.float32), target=np.array([0, 1, 0], np.float32))
W, H = 300, 450


def frame(x: float = 0.0, morph: float = 0.0, color=None) -> Frame:
    world = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))
    world[:, 1, 3] = (0.5, 1.0, 1.5)
    world[2, 0, 3] = x  # one node moves sideways
    colors = {} if color is None else {(0, "color"): np.array(color, np.float32)}
    return Frame(world, [], [np.array([morph, 0.0], np.float32)], colors)


def metres_per_pixel() -> float:
    a, b = CAMERA.project(np.array([[0, 1.5, 0], [1, 1.5, 0]], np.float32), W, H)
    return 1.0 / float(b[0] - a[0])


def shown(gate: PictureGate, f: Frame) -> bool:
    changed = gate.changed("view", f, CAMERA, W, H)
    if changed:
        gate.shown("view")
    return changed


def test_first_frame_is_always_drawn():
    assert shown(PictureGate(), frame())


def test_sub_pixel_motion_waits_until_it_adds_up_to_half_a_pixel():
    gate, step = PictureGate(), metres_per_pixel()
    assert shown(gate, frame())
    assert not shown(gate, frame(x=0.2 * step))
    assert not shown(gate, frame(x=0.4 * step))  # measured from what is on screen
    assert shown(gate, frame(x=(PIXEL_STEP + 0.05) * step))
    assert not shown(gate, frame(x=(PIXEL_STEP + 0.1) * step))


def test_morphs_and_colours_are_drawn():
    gate = PictureGate()
    assert shown(gate, frame())
    assert not shown(gate, frame(morph=MORPH_STEP / 2))
    assert shown(gate, frame(morph=MORPH_STEP * 1.5))
    assert shown(gate, frame(morph=MORPH_STEP * 1.5, color=(1, 0, 0, 1)))
    assert not shown(gate, frame(morph=MORPH_STEP * 1.5, color=(1, 0, 0, 1)))
    assert shown(gate, frame(morph=MORPH_STEP * 1.5, color=(1, 0.5, 0, 1)))


def test_a_frame_not_shown_does_not_count():
    gate, step = PictureGate(), metres_per_pixel()
    assert shown(gate, frame())
    assert gate.changed("view", frame(x=step), CAMERA, W, H)  # not drawn after all
    assert gate.changed("view", frame(x=step), CAMERA, W, H)
    gate.forget("view")
    assert gate.changed("view", frame(), CAMERA, W, H)


def test_steps_over_seven_tenths_of_a_pixel_are_counted():
    gate, step = PictureGate(), metres_per_pixel()
    assert shown(gate, frame())  # the first picture is no step
    assert (gate.steps, gate.steps_over) == (0, 0)
    assert shown(gate, frame(x=0.6 * step))
    assert shown(gate, frame(x=1.5 * step))  # 0.9 px on
    assert shown(gate, frame(x=2.1 * step))  # 0.6 px on
    assert (gate.steps, gate.steps_over) == (3, 1)
    assert gate.largest_step > SMOOTH_STEP
