"""Caps that keep loading a hostile or broken file bounded in memory and time.

Every size is checked before anything of that size is allocated; the decoded-bytes
budget counts every array and image the loader creates for one file.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import AvatarLoadError

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Load caps. Defaults fit the largest real avatars with a wide margin."""

    max_file_bytes: int = 512 * MIB  # the .vrm/.glb/.gltf file, and each sibling file
    max_json_bytes: int = 64 * MIB  # the GLB JSON chunk (a .gltf may hold data: URIs)
    max_decoded_bytes: int = 2048 * MIB  # all arrays and pixels made for one file
    max_vertices: int = 10_000_000  # per primitive
    max_accessor_count: int = 50_000_000  # elements in one accessor (indices may exceed vertices)
    max_gltf_objects: int = 60_000  # JSON objects pygltflib decodes (~0.5 ms each)
    max_nodes: int = 20_000
    max_meshes: int = 10_000
    max_primitives: int = 50_000  # over all meshes
    max_accessors: int = 200_000
    max_morph_targets: int = 2_000  # per primitive
    max_materials: int = 10_000
    max_textures: int = 10_000
    max_image_pixels: int = 8192 * 8192  # per image; larger ones get a placeholder
    max_joints: int = 4_096  # per skin
    max_spring_joints: int = 100_000


DEFAULT_LIMITS = Limits()


class Budget:
    """Counts the bytes the loader allocates for one file and refuses past the cap."""

    def __init__(self, limit: int, source: str) -> None:
        self.limit = limit
        self.used = 0
        self.source = source

    def take(self, nbytes: int, what: str) -> None:
        if nbytes < 0 or self.used + nbytes > self.limit:
            raise AvatarLoadError(
                f"{self.source}: {what} would need {nbytes / MIB:.0f} MiB more memory, "
                f"past the {self.limit / MIB:.0f} MiB this app allows for one model"
            )
        self.used += nbytes
