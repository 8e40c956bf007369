"""Clean edges without a GPU: the post pass, the outline's least width, the edge error
and the ``bench --only edges`` table (EGL; llvmpipe is fine). The edge lines have
``test_edge_lines.py``."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.render.antialias import box_down, edge_error, edge_mask
from tests.avatar.render import scenes
from tests.conftest import SHARED_ASSETS


def _disc(size: int = 48, radius: float = 15.0) -> np.ndarray:
    """A hard-edged premultiplied disc: opaque orange inside, transparent outside, and a
    half-transparent blue square inside it (no partial alpha anywhere)."""
    y, x = np.mgrid[0:size, 0:size] + 0.5
    inside = (x - size / 2) ** 2 + (y - size / 2) ** 2 <= radius ** 2
    rgba = np.zeros((size, size, 4), np.uint8)
    rgba[inside] = (230, 120, 40, 255)
    rgba[20:28, 20:28] = (20, 30, 120, 128)
    return rgba


def _post(rgba: np.ndarray) -> np.ndarray:
    """``rgba`` (premultiplied, bottom row first) through a post target's pass."""
    from OpenGL import GL

    from companion_desktop.avatar.render.target import RenderTarget

    height, width = rgba.shape[:2]
    target = RenderTarget(width, height, aa="post")
    try:
        GL.glBindTexture(GL.GL_TEXTURE_2D, target.texture)  # put the picture in the target
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, 0, 0, width, height, GL.GL_RGBA,
                           GL.GL_UNSIGNED_BYTE, np.ascontiguousarray(rgba))
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        target._copy(target.copy_fbo, target.resolve_fbo)
        target.resolve()
        return target.read_rgba(premultiplied=True)[::-1]
    finally:
        target.release()


@pytest.mark.gl
def test_post_pass_softens_a_hard_silhouette_and_keeps_premultiplied_colour(gl):
    before = _disc()
    after = _post(before).astype(int)
    alpha = after[..., 3]
    assert ((alpha > 0) & (alpha < 255)).sum() > 40  # the rim got in-between alpha
    assert (after[..., :3] <= alpha[..., None]).all()  # colour never exceeds alpha
    assert np.array_equal(after[12:17, 21:27], before[12:17, 21:27])  # inside: untouched
    assert np.array_equal(after[:6], before[:6])  # far outside: untouched
    y, x = np.mgrid[0:48, 0:48] + 0.5
    coverage = np.clip(15.5 - np.hypot(x - 24, y - 24), 0, 1)  # roughly the true disc
    rim = (coverage > 0) & (coverage < 1)
    error = np.abs(alpha[rim] - 255 * coverage[rim]).mean()
    assert error < np.abs(before[..., 3][rim] - 255 * coverage[rim]).mean() * 0.8


def _outline_share(rgba: np.ndarray) -> float:
    """The share of the silhouette's rim pixels (drawn, beside a transparent one) that
    are the outline's dark colour rather than the blue body."""
    drawn = rgba[..., 3] > 0
    padded = np.pad(drawn, 1)
    beside_empty = ~padded[:-2, 1:-1] | ~padded[2:, 1:-1] | ~padded[1:-1, :-2] | ~padded[1:-1, 2:]
    rim = drawn & beside_empty
    dark = rgba[..., 2].astype(int) < 100  # the body is bright blue, the outline near black
    return float((dark & rim).sum() / max(rim.sum(), 1))


@pytest.mark.gl
def test_a_thin_outline_stays_a_connected_line(gl_context, gl, monkeypatch):
    from companion_desktop.avatar.render import renderer
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer

    material = scenes.mtoon_material("ball", (0.3, 0.5, 1.0), (0.2, 0.35, 0.9), outline=0.0005)
    model = scenes.single_mesh([scenes.sphere(0.5, segments=32, rings=20)], [material])
    offscreen = OffscreenRenderer(aa="none", context=gl_context)
    try:
        drawn = offscreen.render(model, width=64, height=64, shot="full")
        monkeypatch.setattr(renderer, "OUTLINE_LEAST_PIXELS", 0.0)
        thin = offscreen.render(model, width=64, height=64, shot="full")
    finally:
        offscreen.renderer.release()
    assert _outline_share(thin) < 0.5  # a 0.5 mm hull falls between pixels: dots at most
    assert _outline_share(drawn) > 0.9  # one pixel at least: the whole rim


def test_edge_error_on_a_known_pair():
    reference = np.zeros((8, 8, 4))
    reference[3, 3] = (60, 60, 60, 128)  # the one partly covered pixel
    mask = edge_mask(reference[..., 3])
    assert mask.sum() == 9 and mask[2:5, 2:5].all()
    picture = reference + 100.0  # off by 100 everywhere ...
    picture[2:5, 2:5] = reference[2:5, 2:5] + (36, 0, 0, 0)  # ... but 36 in one channel here
    assert edge_error(picture, reference) == (pytest.approx(9.0), 9)
    assert edge_error(reference, np.zeros((8, 8, 4))) == (0.0, 0)
    big = np.zeros((8, 8, 4))
    big[:4, :4] = 255
    assert np.array_equal(box_down(big, 4), [[[255.0] * 4, [0.0] * 4], [[0.0] * 4, [0.0] * 4]])


@pytest.mark.gl
def test_bench_edges_on_one_small_model():
    from companion_desktop.cli.bench.edges import run_edges_bench

    path = SHARED_ASSETS / "vrm0" / "sphere.vrm"
    if not path.is_file():
        pytest.skip("shared assets not present")
    lines: list[str] = []
    figures = run_edges_bench(rounds=1, models=[("sphere", path)], report=lines.append)
    assert lines[0].startswith("edges (340x640") and "sphere" in lines[-1]
    sphere = figures["sphere"]
    assert sphere["post"] < 0.8 * sphere["none"] and sphere["msaa"] < sphere["none"]
    assert sphere["lines"] < 0.5 * sphere["none"]  # llvmpipe has compute shaders
    assert sphere["none_ms"] > 0 and sphere["post_ms"] > 0 and sphere["lines_ms"] > 0
    assert "lines" in lines[1] and "lines x" in lines[1]


def test_auto_mode_names_the_same_software_rasterizers_as_the_app():
    from companion_desktop.avatar.render.antialias import SOFTWARE_RENDERERS, auto_mode
    from companion_desktop.ui.avatar.gl_probe import SOFTWARE_RENDERERS as APP_LIST

    assert SOFTWARE_RENDERERS == APP_LIST
    assert auto_mode("llvmpipe (LLVM 15.0.6, 256 bits)", compute=False) == "post"
    assert auto_mode("llvmpipe (LLVM 15.0.6, 256 bits)", compute=True) == "lines"
    assert auto_mode("NVIDIA GeForce RTX 4070/PCIe/SSE2") == "msaa"
