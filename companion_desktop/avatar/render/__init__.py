"""Drawing the avatar with OpenGL 3.3 core: the only package that imports OpenGL.

- ``context``: ``OffscreenContext`` (EGL, no window), ``RenderUnavailable``, GL version.
- ``renderer``: ``Renderer`` (needs only a current context: EGL or a Qt widget's).
- ``camera``: ``Camera`` and ``frame_camera`` (numpy only).
- ``offscreen``: ``OffscreenRenderer``, ``render_image``, ``save_png``.

Importing this package imports nothing from OpenGL; import the modules you need.
"""
