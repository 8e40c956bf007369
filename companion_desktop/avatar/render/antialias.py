"""Smooth edges: multisampling on a GPU, edge lines (or a post pass) on software GL.

Four ways to draw a picture's edges (``MODES``):

- ``"msaa"``: 4 samples per pixel, resolved by a blit. The GPU default: cheap there.
- ``"lines"``: draw with one sample per pixel, then her silhouette's edges, found in
  the mesh, as one-pixel lines over the finished picture: each pixel a silhouette
  crosses takes its share of the neighbour across the edge (``silhouette``). The edge
  is where the geometry puts it, to a fraction of a pixel, outline included. Needs
  compute shaders (OpenGL 4.3, which Mesa's llvmpipe has); the software GL default.
- ``"post"``: draw with one sample per pixel, then one full-screen pass
  (``shaders/antialias.frag.glsl``) finds the staircase edges in the finished picture
  and blends each edge pixel with its neighbour by the share the true edge would take.
  On software GL (Mesa llvmpipe) every sample costs CPU time, and the pass costs a
  few per cent of a picture where multisampling costs more than the picture itself.
  It has to guess where an edge runs from the pixels, so it halves the jaggedness
  where the lines nearly remove it; software GL without OpenGL 4.3 uses it.
- ``"none"``: one sample per pixel, nothing else (jagged; for comparisons).

The pass reads and writes premultiplied, sRGB-encoded RGBA, alpha included, so her
silhouette against the transparent clear is smoothed like any other edge, and every
output pixel is a blend of input pixels: colour never exceeds alpha.

``auto_mode`` picks what the app uses: ``"lines"`` on software GL (``"post"`` where the
context has no compute shaders), else ``"msaa"``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from OpenGL import GL

from .program import Program

MODES = ("msaa", "lines", "post", "none")
#: The modes that draw with one sample and finish the picture from a copy of it.
FROM_COPY = ("lines", "post")

#: GL_RENDERER names of software rasterizers (the same list as ``ui/avatar/gl_probe.py``).
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swiftshader", "software rasterizer", "swrast")


def is_software(renderer: str | None) -> bool:
    """True for a software rasterizer's GL_RENDERER string."""
    return renderer is not None and any(name in renderer.lower() for name in SOFTWARE_RENDERERS)


def auto_mode(renderer: str | None = None, compute: bool | None = None) -> str:
    """The mode the app draws with: ``"lines"`` on software GL (``"post"`` without
    compute shaders), ``"msaa"`` on a GPU. ``renderer`` defaults to the current
    context's GL_RENDERER, ``compute`` to whether it runs compute shaders."""
    if renderer is None:
        name = GL.glGetString(GL.GL_RENDERER)
        renderer = name.decode(errors="replace") if isinstance(name, bytes) else str(name or "")
    if not is_software(renderer):
        return "msaa"
    if compute is None:
        from .silhouette import supported

        compute = supported()
    return "lines" if compute else "post"


def check_mode(aa: str) -> str:
    """``aa`` if it is one of ``MODES`` (or ``"auto"``), else ValueError."""
    if aa not in (*MODES, "auto"):
        raise ValueError(f"antialiasing must be auto, {', '.join(MODES)}; not {aa!r}")
    return aa


#: How far the pass reads from a pixel it writes (its search along an edge, and one more).
READ_REACH = 20

Region = tuple[int, int, int, int]  # x, y, width, height in GL window pixels (y up)


def grown(region: Region, by: int, width: int, height: int) -> Region:
    """``region`` grown by ``by`` pixels each way, clipped to width x height."""
    x, y, w, h = region
    x0, y0 = max(x - by, 0), max(y - by, 0)
    return x0, y0, min(x + w + by, width) - x0, min(y + h + by, height) - y0


class PostPass:
    """The post-pass program and an empty vertex array (context current for every call);
    one serves every target of a renderer.

    ``regions`` maps a framebuffer to the rectangle its last picture was drawn in (the
    renderer sets it, the target's ``resolve`` takes it): the pass works only there.
    """

    def __init__(self) -> None:
        self.program = Program("screen.vs.glsl", "antialias.frag.glsl")
        self.vao = int(GL.glGenVertexArrays(1))
        self.regions: dict[int, Region | None] = {}
        #: A framebuffer's edge lines (``silhouette``), called instead of the full pass
        #: with the textures of the picture's copy, its depth and the picture, and its
        #: width and height.
        self.lines: dict[int, Callable[[int, int, int, int, int], None]] = {}
        self.program.use()
        self.program.set_int("u_picture", 0)
        GL.glUseProgram(0)

    def run(self, texture: int, fbo: int, width: int, height: int,
            region: Region | None = None) -> None:
        """Redraw the edge pixels of ``fbo`` (width x height) from ``texture``, a copy
        of its picture (premultiplied RGBA), inside ``region`` (None: everywhere); the
        other pixels are left as they are."""
        x, y, w, h = region if region is not None else (0, 0, width, height)
        if w <= 0 or h <= 0:
            return
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
        GL.glViewport(0, 0, width, height)
        GL.glEnable(GL.GL_SCISSOR_TEST)
        GL.glScissor(x, y, w, h)
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glDisable(GL.GL_CULL_FACE)
        GL.glDisable(GL.GL_FRAMEBUFFER_SRGB)
        GL.glUseProgram(self.program.id)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glBindVertexArray(self.vao)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 3)
        GL.glBindVertexArray(0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glUseProgram(0)
        GL.glDisable(GL.GL_SCISSOR_TEST)
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)

    def release(self) -> None:
        self.program.release()
        if self.vao:
            GL.glDeleteVertexArrays(1, np.array([self.vao], np.uint32))
            self.vao = 0


def edge_mask(reference_alpha: np.ndarray) -> np.ndarray:
    """Edge pixels of a picture: where ``reference_alpha`` (uint8 or 0..255 floats) is
    strictly between 0 and 255 (partly covered), and their 8 neighbours."""
    alpha = np.asarray(reference_alpha, np.float64)
    partial = (alpha > 0.5) & (alpha < 254.5)
    grown = partial.copy()
    padded = np.pad(partial, 1)
    height, width = partial.shape
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            grown |= padded[dy:dy + height, dx:dx + width]
    return grown


def box_down(pixels: np.ndarray, factor: int) -> np.ndarray:
    """(h * factor, w * factor, c) pixels averaged in factor x factor boxes into
    (h, w, c) float64 (premultiplied pixels average correctly as they are)."""
    h, w = pixels.shape[0] // factor, pixels.shape[1] // factor
    channels = pixels.shape[2]
    boxes = np.asarray(pixels[: h * factor, : w * factor], np.float64)
    return boxes.reshape(h, factor, w, factor, channels).mean(axis=(1, 3))


def edge_error(picture: np.ndarray, reference: np.ndarray) -> tuple[float, int]:
    """(mean absolute difference, edge pixel count) between premultiplied RGBA
    ``picture`` and ``reference`` (same shape, 0..255), over the four channels of the
    edge pixels of ``reference`` (``edge_mask``): the mean of |picture - reference| over
    every R, G, B and A value of those pixels. (0.0, 0) when there are none."""
    picture = np.asarray(picture, np.float64)
    reference = np.asarray(reference, np.float64)
    if picture.shape != reference.shape or picture.ndim != 3 or picture.shape[2] != 4:
        raise ValueError(f"need two (h, w, 4) pictures, not {picture.shape} and {reference.shape}")
    mask = edge_mask(reference[..., 3])
    count = int(mask.sum())
    if not count:
        return 0.0, 0
    return float(np.abs(picture[mask] - reference[mask]).mean()), count
