"""One render serves both windows: while the overlay shows her whole, the chat window's
portrait (hips up) is a crop of the overlay's picture, not a second render. Real GL
(Xvfb), the real chat window and overlay."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage

from companion_desktop.avatar.render.camera import Camera, view_within
from tests.ui.overlay.test_overlay import desktop, pytestmark  # noqa: F401 - fixture, GL marks


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
    raw = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes())
    return raw.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width()].copy()


def both_showing(desktop, qtbot):  # noqa: ANN001
    chat = desktop.chat
    chat.show()
    qtbot.waitExposed(chat)
    portrait = chat.avatar_view
    qtbot.waitUntil(lambda: portrait in desktop.host.showing()
                    and desktop.overlay.view in desktop.host.showing(), timeout=10000)
    return portrait


def test_the_portrait_is_a_crop_of_the_overlay_and_costs_no_render(desktop, qtbot):
    host = desktop.host
    portrait = both_showing(desktop, qtbot)
    host.tick(force=True)
    assert portrait.shows_crop
    drawn, pictures = host.gl.drawn, host.pictures
    for _ in range(4):
        host.tick(force=True)
    assert host.pictures == pictures + 4
    assert host.gl.drawn == drawn + 4  # one render a picture for two windows
    # at the overlay's default size her framing there is a little smaller than the
    # portrait: it shows her at the overlay's scale, never enlarged (pixel for pixel)
    overlay = desktop.overlay.view
    x, y, width, height = host._crop(overlay, portrait)
    assert (width, height) == portrait.picture_size()
    shown = pixels(portrait.picture())
    whole = pixels(overlay.picture())
    part = whole[round(y):round(y) + round(height), round(x):round(x) + round(width)]
    assert np.abs(shown.astype(int) - part.astype(int)).max() <= 1
    # her head near the top of the portrait, as in its own framing
    head = overlay.render_camera().project(overlay.head_point()[None], *overlay.picture_size())[0]
    assert 0.1 < (head[1] - y) / height < 0.45 and 0.35 < (head[0] - x) / width < 0.65
    assert shown[int(head[1] - y), int(head[0] - x), 3] == 255
    host.share = False  # the portrait draws itself again, in its own framing
    host.tick(force=True)
    assert not portrait.shows_crop
    assert host.gl.drawn == drawn + 6


def test_without_the_overlay_the_portrait_draws_itself(desktop, qtbot):
    host = desktop.host
    portrait = both_showing(desktop, qtbot)
    host.tick(force=True)
    assert portrait.shows_crop
    desktop.overlay.hide()
    drawn = host.gl.drawn
    host.tick(force=True)  # its first picture of its own comes at once
    assert not portrait.shows_crop and host.gl.drawn == drawn + 1
    assert pixels(portrait.picture())[..., 3].max() == 255
    desktop.overlay.show()
    qtbot.waitUntil(lambda: desktop.overlay.view in host.showing(), timeout=10000)
    host.tick(force=True)
    assert portrait.shows_crop


def test_a_small_overlay_is_not_enlarged_into_the_portrait(desktop, qtbot):
    from companion_desktop.ui.avatar.host import SHARE_MIN_SCALE

    host = desktop.host
    portrait = both_showing(desktop, qtbot)
    overlay_view = desktop.overlay.view
    host.tick(force=True)
    rect = host._crop(overlay_view, portrait)
    assert rect is not None and rect[2] >= SHARE_MIN_SCALE * portrait.picture_size()[0]
    desktop.overlay.set_scale(0.5)  # half size: a crop would be enlarged about twice
    qtbot.waitUntil(lambda: overlay_view.height() < 400, timeout=5000)
    host.tick(force=True)
    assert not portrait.shows_crop


def test_view_within_is_the_inner_cameras_rectangle_in_the_outer_picture():
    outer = Camera(eye=np.array([0, 1, 4], np.float32), target=np.array([0, 1, 0], np.float32))
    # the same camera at half the distance sees the middle half of the picture
    inner = Camera(eye=np.array([0, 1, 2], np.float32), target=np.array([0, 1, 0], np.float32))
    x, y, w, h = view_within(outer, (400, 800), inner, (400, 800))
    assert (round(x), round(y), round(w), round(h)) == (100, 200, 200, 400)
    # moved up by a quarter of the outer view's height at that depth
    half = 4 * np.tan(np.radians(15))
    up = Camera(eye=np.array([0, 1 + half / 2, 2], np.float32),
                target=np.array([0, 1 + half / 2, 0], np.float32))
    assert round(view_within(outer, (400, 800), up, (400, 800))[1]) == 0
    # a camera looking another way, or a rectangle beyond the picture: no crop
    turned = Camera(eye=np.array([2, 1, 2], np.float32), target=np.array([0, 1, 0], np.float32))
    assert view_within(outer, (400, 800), turned, (400, 800)) is None
    wide = Camera(eye=np.array([0, 1, 6], np.float32), target=np.array([0, 1, 0], np.float32))
    assert view_within(outer, (400, 800), wide, (400, 800)) is None
