"""companion-desktop: a desktop AI companion with a 3D VRM avatar."""

__version__ = "0.1.0"
