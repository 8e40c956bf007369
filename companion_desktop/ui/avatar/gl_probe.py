"""Is OpenGL here a software rasterizer (llvmpipe, softpipe, SwiftShader)?

On software GL every picture costs real CPU time, so the app turns off
multisampling and idles at a lower frame rate there.
"""

from __future__ import annotations

from PySide6.QtGui import QOffscreenSurface, QOpenGLContext

SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swiftshader", "software rasterizer", "swrast")
GL_RENDERER = 0x1F01


def renderer_name() -> str | None:
    """The GL_RENDERER string of a throwaway context (None when none can be made)."""
    context = QOpenGLContext()
    if not context.create():
        return None
    surface = QOffscreenSurface()
    surface.setFormat(context.format())
    surface.create()
    try:
        if not context.makeCurrent(surface):
            return None
        name = context.functions().glGetString(GL_RENDERER)
        context.doneCurrent()
        return str(name) if name else None
    finally:
        surface.destroy()


def is_software(name: str | None) -> bool:
    return name is not None and any(s in name.lower() for s in SOFTWARE_RENDERERS)
