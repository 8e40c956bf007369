"""Every material of a model as the renderer needs it in one frame, recomputed only
when one of its inputs changed.

A material's parameters depend on the frame only through its expression colour binds
(``frame.material_colors``), its texture transform bind (``frame.texture_transforms``)
and, for MToon UV animation, the time. ``MaterialTable.update(frame)`` keys each
material on exactly those, so a still face costs no recomputation; ``records`` are the
packed uniform-block records (``uniforms.pack_material``), one per slot.
"""

from __future__ import annotations

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import VrmModel

from .materials import MaterialParams, material_params
from .uniforms import MATERIAL_FLOATS, pack_material


class MaterialTable:
    """Slots for the materials ``used`` by a model's primitives (None: the default)."""

    def __init__(self, model: VrmModel, used: list[int | None]) -> None:
        self.model = model
        self.ids: list[int | None] = list(dict.fromkeys(used))
        self._slot = {mid: i for i, mid in enumerate(self.ids)}
        self.params: list[MaterialParams] = [material_params(model, mid) for mid in self.ids]
        self._animated = [p.uv_animated for p in self.params]
        self._keys: list[object] = [None] * len(self.ids)
        self._versions = [0] * len(self.ids)
        self.records = [np.zeros(MATERIAL_FLOATS, np.float32) for _ in self.ids]

    def slot(self, material: int | None) -> tuple[int, MaterialParams]:
        index = self._slot[material]
        return index, self.params[index]

    def version(self, slot: int) -> int:
        """Bumped each time the slot's parameters are recomputed."""
        return self._versions[slot]

    def update(self, frame: Frame) -> "MaterialTable":
        colors: dict[int, list[tuple[str, bytes]]] = {}
        for (mat, kind), value in frame.material_colors.items():
            colors.setdefault(mat, []).append(
                (kind, np.asarray(value, np.float32).tobytes()))
        for i, mid in enumerate(self.ids):
            transform = frame.texture_transforms.get(mid) if mid is not None else None
            key = (tuple(sorted(colors.get(mid, ()))) if mid is not None else (),
                   None if transform is None else repr(transform),
                   frame.time if self._animated[i] else None)
            if key == self._keys[i]:
                continue
            self._keys[i] = key
            self.params[i] = material_params(self.model, mid, frame)
            pack_material(self.params[i], self.records[i])
            self._versions[i] += 1
        return self
