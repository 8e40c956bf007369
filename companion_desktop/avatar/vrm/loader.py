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

from . import vrm0, vrm1
from .errors import AvatarLoadError
from .fields import as_dict, as_list
from .gltf import read_document
from .limits import DEFAULT_LIMITS, Limits
from .load_context import LoadContext
from .materials import read_materials
from .meshes import normalize_influences, read_meshes
from .model import REQUIRED_BONES, VrmModel
from .nodes import read_nodes, read_skins
from .textures import read_textures

__all__ = ["AvatarLoadError", "Limits", "load_model"]

#: Extensions whose data the loader reads (or safely ignores: VRMC_vrm_animation clips).
SUPPORTED_EXTENSIONS = {
    "KHR_materials_unlit", "KHR_texture_transform", "KHR_materials_emissive_strength",
    "KHR_mesh_quantization", "EXT_texture_webp", "VRM", "VRMC_vrm", "VRMC_springBone",
    "VRMC_springBone_extended_collider", "VRMC_materials_mtoon", "VRMC_node_constraint",
    "VRMC_vrm_animation",
}  # fmt: skip
#: Geometry compression we cannot decode: the meshes would be empty, so refuse.
COMPRESSION_EXTENSIONS = ("KHR_draco_mesh_compression", "EXT_meshopt_compression")


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
    _check_extensions(ctx)
    nodes, roots = read_nodes(ctx)
    kind, ext = _vrm_extension(ctx)
    humanoid = _humanoid(ctx, kind, ext, len(nodes))  # refuse early, before decoding
    textures = read_textures(ctx)
    materials = read_materials(ctx, len(textures))
    meshes = read_meshes(ctx, len(materials))
    skins = read_skins(ctx, len(nodes))
    model = VrmModel(
        version="gltf", nodes=nodes, scene_roots=roots, meshes=meshes, skins=skins,
        materials=materials, textures=textures, source=str(path),
    )  # fmt: skip
    _check_skinned_joints(ctx, model)
    if kind == "1.0":
        vrm1.apply_vrm1(ctx, model, ext)
    elif kind == "0.x":
        vrm0.apply_vrm0(ctx, model, ext)
    model.humanoid = humanoid
    model.problems = ctx.problems
    return model


def _vrm_extension(ctx: LoadContext) -> tuple[str, dict]:
    """("1.0", VRMC_vrm), ("0.x", VRM) or ("gltf", {}), by content."""
    extensions = ctx.doc.extensions
    if isinstance(extensions.get("VRMC_vrm"), dict):
        return "1.0", extensions["VRMC_vrm"]
    if isinstance(extensions.get("VRM"), dict):
        return "0.x", extensions["VRM"]
    return "gltf", {}


def _humanoid(ctx: LoadContext, kind: str, ext: dict, node_count: int) -> dict[str, int]:
    """The humanoid (1.0 bone names); an avatar without every required bone is refused."""
    if kind == "gltf":
        return {}
    reader = vrm1.read_humanoid if kind == "1.0" else vrm0.read_humanoid
    humanoid = reader(ctx, as_dict(ext.get("humanoid")), node_count)
    missing = [bone for bone in REQUIRED_BONES if bone not in humanoid]
    if missing:
        raise ctx.fail(
            f"the avatar is missing the humanoid bones: {', '.join(missing)}; "
            "it cannot be used as an avatar"
        )
    return humanoid


def _check_extensions(ctx: LoadContext) -> None:
    used = [e for e in as_list(ctx.doc.gltf.extensionsUsed) if isinstance(e, str)]
    required = [e for e in as_list(ctx.doc.gltf.extensionsRequired) if isinstance(e, str)]
    compressed = [e for e in COMPRESSION_EXTENSIONS if e in used or e in required]
    if compressed:
        raise ctx.fail(f"its meshes are compressed with {compressed[0]}, which this app "
                       "cannot read; export the model without mesh compression")
    unknown = [e for e in required if e not in SUPPORTED_EXTENSIONS]
    if unknown:
        ctx.warn(f"the file requires extensions this app does not support: {', '.join(unknown)}",
                 "loaded without them; parts of the model may look wrong")


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
