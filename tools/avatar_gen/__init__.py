"""Procedural generator of Hana, the built-in VRM 1.0 avatar (see tools/make_default_avatar.py).

Everything here is the project's own code and data: geometry is built with numpy
(lofts, sweeps, superellipses), textures are drawn with numpy and written by our own
PNG encoder, and the glTF/VRM container is assembled by hand, so the output is the
same bytes on every run and every machine.
"""
