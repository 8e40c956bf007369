"""An offscreen render target: a framebuffer to draw into, finished (multisampling
resolved, or the post pass run: ``antialias``) into a readable one.

Colour is RGBA8 holding premultiplied, sRGB-encoded values (the shaders encode), so
the picture can be composited over a desktop as it is; ``read_rgba`` returns it
straight (un-premultiplied) for PNG files, or premultiplied on request.
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL

from .antialias import FROM_COPY, MODES, READ_REACH, PostPass, Region, grown


def unpremultiply(rgba: np.ndarray) -> np.ndarray:
    """Straight-alpha uint8 RGBA from premultiplied uint8 RGBA (same shape)."""
    out = np.array(rgba, np.uint8, copy=True)
    alpha = out[..., 3]
    out[alpha == 0] = 0
    partial = (alpha > 0) & (alpha < 255)  # usually only the anti-aliased edges
    if partial.any():
        a = alpha[partial].astype(np.uint32)[:, None]
        rgb = (out[partial, :3].astype(np.uint32) * 255 + a // 2) // a
        out[partial, :3] = np.minimum(rgb, 255).astype(np.uint8)
    return out


def read_framebuffer(fbo: int, width: int, height: int) -> np.ndarray:
    """Raw RGBA8 pixels (height, width, 4) of ``fbo``, top row first. A multisampled
    framebuffer (a Qt widget's, say) is resolved into a temporary one first."""
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
    if int(GL.glGetIntegerv(GL.GL_SAMPLE_BUFFERS)) > 0:
        temporary = RenderTarget(width, height, samples=0)
        try:
            GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
            GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, temporary.resolve_fbo)
            GL.glBlitFramebuffer(0, 0, width, height, 0, 0, width, height,
                                 GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
            return read_framebuffer(temporary.resolve_fbo, width, height)
        finally:
            temporary.release()
            GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    if fbo:
        GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    data = GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
    pixels = np.frombuffer(data, np.uint8).reshape(height, width, 4)
    return np.ascontiguousarray(pixels[::-1])


def clear_framebuffer(fbo: int | None = None, rgba=(0.0, 0.0, 0.0, 0.0)) -> None:
    """Clear colour (premultiplied ``rgba``, transparent by default) and depth of ``fbo``
    (None: whatever framebuffer is bound), e.g. when there is nothing to draw."""
    if fbo is not None:
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glClearColor(*map(float, rgba))
    GL.glClearDepth(1.0)
    GL.glDepthMask(GL.GL_TRUE)
    GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)


class RenderTarget:
    """Framebuffers of ``width`` x ``height`` pixels: ``draw_fbo`` to draw into, then
    ``resolve()`` leaves the finished picture in ``resolve_fbo``.

    ``aa`` says how edges are smoothed (``antialias.MODES``): ``"msaa"`` draws with
    ``samples`` per pixel (falling back to one when the driver offers fewer), ``"lines"``
    and ``"post"`` draw with one, and ``resolve()`` copies the picture into a texture
    and draws the renderer's edge lines over it (``"lines"``, when the renderer left
    them in ``post.lines``) or runs the post pass (``post``: a shared
    ``antialias.PostPass``, else the target makes its own), ``"none"`` draws with one.
    ``aa`` None: ``"msaa"`` when ``samples`` > 1, else ``"none"``."""

    def __init__(self, width: int, height: int, samples: int = 4, aa: str | None = None,
                 post: PostPass | None = None):
        if width < 1 or height < 1:
            raise ValueError(f"render target size must be positive, not {width}x{height}")
        self.width, self.height = int(width), int(height)
        aa = aa or ("msaa" if samples > 1 else "none")
        if aa not in MODES:
            raise ValueError(f"render target antialiasing must be one of {MODES}, not {aa!r}")
        self.aa = aa
        samples = samples if aa == "msaa" else 0
        self.samples = min(int(samples), int(GL.glGetIntegerv(GL.GL_MAX_SAMPLES)))
        self.samples = self.samples if self.samples > 1 else 0
        self._renderbuffers: list[int] = []
        self._framebuffers: list[int] = []
        self._textures: list[int] = []
        self.texture = 0  # the post pass's input (aa "post")
        self.colour = self.depth = 0  # aa "lines": the picture's textures, which they use
        self._post, self._own_post = post, False
        self.resolve_fbo = self._framebuffer(0, textures=aa == "lines")
        self.draw_fbo = self._framebuffer(self.samples) if self.samples else self.resolve_fbo
        self.copy_fbo = 0  # aa "lines", "post": the finished picture's copy, which they read
        if aa in FROM_COPY:
            self.copy_fbo = self._framebuffer(0, texture=True)
            if self._post is None:
                self._post, self._own_post = PostPass(), True

    def _framebuffer(self, samples: int, texture: bool = False, textures: bool = False) -> int:
        """A framebuffer with colour and depth renderbuffers; ``texture``: only a colour
        texture, which the post pass reads (bilinear, clamped); ``textures``: colour and
        depth textures (``colour``, ``depth``), which the edge lines read and write."""
        fbo = int(GL.glGenFramebuffers(1))
        self._framebuffers.append(fbo)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
        attachments = [(GL.GL_RGBA8, GL.GL_COLOR_ATTACHMENT0),
                       (GL.GL_DEPTH24_STENCIL8, GL.GL_DEPTH_STENCIL_ATTACHMENT)]
        if textures:
            self.colour = self._texture(GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
            self.depth = self._texture(GL.GL_DEPTH_COMPONENT24, GL.GL_DEPTH_COMPONENT,
                                       GL.GL_UNSIGNED_INT)
            GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0,
                                      GL.GL_TEXTURE_2D, self.colour, 0)
            GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_ATTACHMENT,
                                      GL.GL_TEXTURE_2D, self.depth, 0)
            attachments = []
        if texture:
            self.texture = self._texture(GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE,
                                         GL.GL_LINEAR)
            GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0,
                                      GL.GL_TEXTURE_2D, self.texture, 0)
            attachments = []
        for fmt, attachment in attachments:
            rbo = int(GL.glGenRenderbuffers(1))
            self._renderbuffers.append(rbo)
            GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, rbo)
            if samples:
                GL.glRenderbufferStorageMultisample(GL.GL_RENDERBUFFER, samples, fmt,
                                                    self.width, self.height)
            else:
                GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, fmt, self.width, self.height)
            GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, attachment, GL.GL_RENDERBUFFER, rbo)
        status = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        if status != GL.GL_FRAMEBUFFER_COMPLETE:
            self.release()
            raise RuntimeError(f"framebuffer incomplete (0x{int(status):x}, {samples} samples)")
        return fbo

    def _texture(self, internal: int, fmt: int, kind: int, filtering: int = GL.GL_NEAREST) -> int:
        """A width x height texture, clamped at its edges (``filtering``: nearest, read
        texel by texel, or linear)."""
        texture = int(GL.glGenTextures(1))
        self._textures.append(texture)
        GL.glBindTexture(GL.GL_TEXTURE_2D, texture)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, internal, self.width, self.height, 0, fmt, kind,
                        None)
        for name, value in ((GL.GL_TEXTURE_MIN_FILTER, filtering),
                            (GL.GL_TEXTURE_MAG_FILTER, filtering),
                            (GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE),
                            (GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, name, value)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return texture

    def resolve(self) -> None:
        """Finish the picture in ``resolve_fbo``: resolve the samples, or run the post
        pass or draw the edge lines; nothing to do without antialiasing. Both copy the
        picture into a texture (a plain memory copy on software GL) and redraw only
        edge pixels."""
        if self.aa in FROM_COPY:
            region = self._post.regions.pop(self.draw_fbo, None)
            lines = self._post.lines.pop(self.draw_fbo, None)
            if region is not None and (region[2] <= 0 or region[3] <= 0):
                return  # nothing was drawn
            whole = (0, 0, self.width, self.height)
            # The lines read and write wherever her edges are: the whole picture is
            # copied for them (the pass works only in ``region``).
            self._copy(self.resolve_fbo, self.copy_fbo,
                       whole if lines is not None else
                       grown(region or whole, READ_REACH, self.width, self.height))
            if lines is not None and self.colour:
                lines(self.texture, self.depth, self.colour, self.width, self.height)
                return
            self._post.run(self.texture, self.resolve_fbo, self.width, self.height, region)
            return
        if self.draw_fbo == self.resolve_fbo:
            return
        self._copy(self.draw_fbo, self.resolve_fbo)

    def _copy(self, source: int, target: int, region: Region | None = None) -> None:
        x, y, w, h = region or (0, 0, self.width, self.height)
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, source)
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, target)
        GL.glBlitFramebuffer(x, y, x + w, y + h, x, y, x + w, y + h,
                             GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)

    def read_rgba(self, premultiplied: bool = False) -> np.ndarray:
        """(height, width, 4) uint8, top row first; straight alpha unless ``premultiplied``."""
        pixels = read_framebuffer(self.resolve_fbo, self.width, self.height)
        return pixels if premultiplied else unpremultiply(pixels)

    def release(self) -> None:
        if self._framebuffers:
            GL.glDeleteFramebuffers(len(self._framebuffers),
                                    np.array(self._framebuffers, np.uint32))
        if self._renderbuffers:
            GL.glDeleteRenderbuffers(len(self._renderbuffers),
                                     np.array(self._renderbuffers, np.uint32))
        if self._textures:
            GL.glDeleteTextures(len(self._textures), np.array(self._textures, np.uint32))
        if self._own_post and self._post is not None:
            self._post.release()
        self._framebuffers, self._renderbuffers, self._textures = [], [], []
        self._post, self._own_post = None, False


_CALLS = None  # glcalls.GLCalls, made on the first read-back


def read_bgra(fbo: int, width: int, height: int) -> np.ndarray:
    """Premultiplied pixels of single-sampled ``fbo`` as (height, width, 4) uint8 in
    B, G, R, A byte order (Qt's ``Format_ARGB32_Premultiplied`` on little-endian
    machines), in GL's row order: bottom row first, unless the picture was drawn with
    ``flip_y``. One copy, straight into the returned array."""
    global _CALLS
    if _CALLS is None:
        from .glcalls import GLCalls

        _CALLS = GLCalls()
    out = np.empty((height, width, 4), np.uint8)
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
    if fbo:
        GL.glReadBuffer(GL.GL_COLOR_ATTACHMENT0)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 4)
    _CALLS.read_pixels(0, 0, width, height, GL.GL_BGRA, GL.GL_UNSIGNED_BYTE, out.ctypes.data)
    return out
