"""An offscreen render target: a multisampled framebuffer resolved into a readable one.

Colour is RGBA8 holding premultiplied, sRGB-encoded values (the shaders encode), so
the picture can be composited over a desktop as it is; ``read_rgba`` returns it
straight (un-premultiplied) for PNG files, or premultiplied on request.
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL


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
    """Framebuffers of ``width`` x ``height`` pixels; ``samples`` > 1 asks for MSAA and
    falls back to a single-sampled one when the driver offers fewer samples."""

    def __init__(self, width: int, height: int, samples: int = 4):
        if width < 1 or height < 1:
            raise ValueError(f"render target size must be positive, not {width}x{height}")
        self.width, self.height = int(width), int(height)
        self.samples = min(int(samples), int(GL.glGetIntegerv(GL.GL_MAX_SAMPLES)))
        self.samples = self.samples if self.samples > 1 else 0
        self._renderbuffers: list[int] = []
        self._framebuffers: list[int] = []
        self.resolve_fbo = self._framebuffer(0)
        self.draw_fbo = self._framebuffer(self.samples) if self.samples else self.resolve_fbo

    def _framebuffer(self, samples: int) -> int:
        fbo = int(GL.glGenFramebuffers(1))
        self._framebuffers.append(fbo)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
        for fmt, attachment in ((GL.GL_RGBA8, GL.GL_COLOR_ATTACHMENT0),
                                (GL.GL_DEPTH24_STENCIL8, GL.GL_DEPTH_STENCIL_ATTACHMENT)):
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

    def resolve(self) -> None:
        """Copy the multisampled picture into the readable framebuffer."""
        if self.draw_fbo == self.resolve_fbo:
            return
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self.draw_fbo)
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, self.resolve_fbo)
        GL.glBlitFramebuffer(0, 0, self.width, self.height, 0, 0, self.width, self.height,
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
        self._framebuffers, self._renderbuffers = [], []


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
