"""``load_model(path)``: any glTF 2.0 / VRM 0.x / VRM 1.0 file into the one ``VrmModel``.

The kind is chosen by content, not by file extension: a ``VRMC_vrm`` extension makes a
1.0 avatar, ``VRM`` a 0.x avatar (converted to the 1.0 model here, once), anything else
a plain glTF scene (``.vrma`` animation files load this way too). An avatar whose
humanoid lacks a required bone is refused. Every refusal is an ``AvatarLoadError`` with a
message for the user; problems the app works around are listed in ``model.problems``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import AvatarLoadError
from .fields import as_dict
from .gltf import read_document
from .limits import DEFAULT_LIMITS, Limits
from .load_context import LoadContext
from .materials import read_materials
from .meshes import normalize_influences, read_meshes
from .model import REQUIRED_BONES, VrmModel
from .nodes import read_nodes, read_skins
from .textures import read_textures
from .vrm0 import apply_vrm0
from .vrm1 import apply_vrm1


def load_model(path: str | Path, *, limits: Limits | None = None) -> VrmModel:
    """Load a .vrm / .glb / .gltf / .vrma file; raises ``AvatarLoadError`` when refused."""
    source = Path(path).name or str(path)
    try:
        return _load(Path(path), limits or DEFAULT_LIMITS)
    except AvatarLoadError:
        raise
    except MemoryError as exc:
        raise AvatarLoadError(f"{source}: there is not enough memory to load it") from exc
    except RecursionError as exc:
        raise AvatarLoadError(f"{source}: its structure is nested too deeply") from exc
    except Exception as exc:  # a bug of ours on this file: still a refusal, never a crash
        raise AvatarLoadError(
            f"{source} could not be loaded ({type(exc).__name__}: {exc})", internal=True
        ) from exc


def _load(path: Path, limits: Limits) -> VrmModel:
    doc = read_document(path, limits)
    ctx = LoadContext.for_document(doc)
    nodes, roots = read_nodes(ctx)
    textures = read_textures(ctx)
    materials = read_materials(ctx, len(textures))
    meshes = read_meshes(ctx, len(materials))
    skins = read_skins(ctx, len(nodes))
    model = VrmModel(
        version="gltf", nodes=nodes, scene_roots=roots, meshes=meshes, skins=skins,
        materials=materials, textures=textures, source=str(path),
    )  # fmt: skip
    _check_skinned_joints(ctx, model)
    extensions = doc.extensions
    if isinstance(extensions.get("VRMC_vrm"), dict):
        apply_vrm1(ctx, model, as_dict(extensions["VRMC_vrm"]))
    elif isinstance(extensions.get("VRM"), dict):
        apply_vrm0(ctx, model, as_dict(extensions["VRM"]))
    if model.version != "gltf":
        missing = [bone for bone in REQUIRED_BONES if bone not in model.humanoid]
        if missing:
            raise AvatarLoadError(
                f"{doc.source} is missing the humanoid bones: {', '.join(missing)}; "
                "it cannot be used as an avatar"
            )
    model.problems = ctx.problems
    return model


def _check_skinned_joints(ctx: LoadContext, model: VrmModel) -> None:
    """Joint indices past a skin's joint list lose their weight (with a warning)."""
    for node in model.nodes:
        if node.mesh is None or node.skin is None:
            continue
        joint_count = len(model.skins[node.skin].joints)
        for p, primitive in enumerate(model.meshes[node.mesh].primitives):
            if primitive.joints is None or primitive.weights is None:
                continue
            bad = primitive.joints >= joint_count
            if not bad.any():
                continue
            ctx.warn(f"mesh {node.mesh} primitive {p} uses joints past the {joint_count} of "
                     f"skin {node.skin}", "those influences are dropped")
            weights = np.where(bad, 0.0, primitive.weights).astype(np.float32)
            joints = np.where(bad, 0, primitive.joints).astype(np.uint16)
            primitive.joints, primitive.weights = normalize_influences(joints, weights)
