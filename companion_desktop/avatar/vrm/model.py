"""The one avatar model the runtime knows: glTF scene data as numpy arrays plus VRM 1.0 concepts.

VRM 0.x files are converted into this model once, at load (``loader.load_model``):
expression names mapped to 1.0 presets, weights scaled to 0-1, spring bones and
colliders translated, MToon parameters mapped, and ``root_rotation_y`` set to pi
so a 0.x model (which faces -Z) faces +Z like a 1.0 model. No OpenGL, no Qt.

Conventions (glTF): metres, right-handed, +Y up, a VRM 1.0 model faces +Z.
Quaternions are ``(x, y, z, w)``. Matrices are 4x4 float32, column vectors
(``world = parent @ local``), stored row-major in numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

AlphaMode = Literal["OPAQUE", "MASK", "BLEND"]
OverrideMode = Literal["none", "block", "blend"]

#: VRM 1.0 preset expression names.
PRESET_EXPRESSIONS: tuple[str, ...] = (
    "happy", "angry", "sad", "relaxed", "surprised",
    "aa", "ih", "ou", "ee", "oh",
    "blink", "blinkLeft", "blinkRight",
    "lookUp", "lookDown", "lookLeft", "lookRight",
    "neutral",
)  # fmt: skip

#: VRM 1.0 humanoid bones (required ones first).
REQUIRED_BONES: tuple[str, ...] = (
    "hips", "spine", "head",
    "leftUpperLeg", "leftLowerLeg", "leftFoot", "rightUpperLeg", "rightLowerLeg", "rightFoot",
    "leftUpperArm", "leftLowerArm", "leftHand", "rightUpperArm", "rightLowerArm", "rightHand",
)  # fmt: skip
OPTIONAL_BONES: tuple[str, ...] = (
    "chest", "upperChest", "neck", "leftEye", "rightEye", "jaw",
    "leftShoulder", "rightShoulder", "leftToes", "rightToes",
    *(f"{side}{finger}{joint}" for side in ("left", "right")
      for finger in ("Thumb", "Index", "Middle", "Ring", "Little")
      for joint in (("Metacarpal", "Proximal", "Distal") if finger == "Thumb"
                    else ("Proximal", "Intermediate", "Distal"))),
)  # fmt: skip
HUMANOID_BONES: tuple[str, ...] = REQUIRED_BONES + OPTIONAL_BONES


@dataclass
class Sampler:
    """glTF sampler (GL enums); wrap 10497 = REPEAT."""

    mag_filter: int | None = None
    min_filter: int | None = None
    wrap_s: int = 10497
    wrap_t: int = 10497


@dataclass
class Texture:
    """A decoded image: ``pixels`` is (height, width, 4) uint8 RGBA, top row first."""

    name: str
    pixels: np.ndarray
    sampler: Sampler = field(default_factory=Sampler)
    placeholder: bool = False  # True when the image could not be read


@dataclass
class TextureRef:
    """A material's use of a texture, with KHR_texture_transform applied to the UVs."""

    index: int
    texcoord: int = 0
    offset: tuple[float, float] = (0.0, 0.0)
    scale: tuple[float, float] = (1.0, 1.0)
    rotation: float = 0.0


@dataclass
class MToon:
    """VRMC_materials_mtoon parameters (0.x values converted to 1.0 meaning)."""

    shade_color: np.ndarray = field(default_factory=lambda: np.array([0.9, 0.9, 0.9], np.float32))
    shade_multiply_texture: TextureRef | None = None
    shading_shift: float = 0.0  # -1..1
    shading_shift_texture: TextureRef | None = None
    shading_shift_texture_scale: float = 1.0
    shading_toony: float = 0.9  # 0..1
    gi_equalization: float = 0.9
    matcap_factor: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    matcap_texture: TextureRef | None = None
    parametric_rim_color: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    parametric_rim_fresnel_power: float = 5.0
    parametric_rim_lift: float = 0.0
    rim_multiply_texture: TextureRef | None = None
    rim_lighting_mix: float = 1.0
    outline_width_mode: Literal["none", "worldCoordinates", "screenCoordinates"] = "none"
    outline_width: float = 0.0  # metres (world) or fraction of screen height (screen)
    outline_width_multiply_texture: TextureRef | None = None
    outline_color: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    outline_lighting_mix: float = 1.0
    uv_animation_mask_texture: TextureRef | None = None
    uv_animation_scroll_x: float = 0.0  # UV units per second
    uv_animation_scroll_y: float = 0.0
    uv_animation_rotation: float = 0.0  # radians per second
    render_queue_offset: int = 0
    transparent_with_zwrite: bool = False


@dataclass
class Material:
    """A glTF PBR material reduced to what we draw, plus MToon when the model has it."""

    name: str = ""
    base_color: np.ndarray = field(default_factory=lambda: np.ones(4, np.float32))  # linear RGBA
    base_color_texture: TextureRef | None = None
    emissive: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    emissive_texture: TextureRef | None = None
    normal_texture: TextureRef | None = None
    normal_scale: float = 1.0  # glTF normalTexture.scale (VRM 0.x _BumpScale)
    alpha_mode: AlphaMode = "OPAQUE"
    alpha_cutoff: float = 0.5
    double_sided: bool = False
    unlit: bool = False  # KHR_materials_unlit
    mtoon: MToon | None = None


@dataclass
class MorphTarget:
    """Per-vertex deltas; arrays have the primitive's vertex count."""

    positions: np.ndarray  # (n, 3) float32
    normals: np.ndarray | None = None  # (n, 3) float32


@dataclass
class Primitive:
    """Triangles (mode 4) with their vertex attributes; indices are uint32."""

    positions: np.ndarray  # (n, 3) float32
    normals: np.ndarray  # (n, 3) float32, made from faces when the file has none
    indices: np.ndarray  # (m,) uint32, m % 3 == 0
    uv0: np.ndarray | None = None  # (n, 2) float32
    uv1: np.ndarray | None = None
    tangents: np.ndarray | None = None  # (n, 4) float32, xyz + handedness w
    colors: np.ndarray | None = None  # (n, 4) float32
    joints: np.ndarray | None = None  # (n, 4) uint16, indices into the skin's joints
    weights: np.ndarray | None = None  # (n, 4) float32, rows sum to 1
    material: int | None = None
    targets: list[MorphTarget] = field(default_factory=list)


@dataclass
class Mesh:
    name: str
    primitives: list[Primitive]
    target_names: list[str] = field(default_factory=list)
    default_weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))


@dataclass
class Node:
    """A scene node with its rest (bind-time) local transform."""

    name: str
    parent: int | None = None
    children: list[int] = field(default_factory=list)
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    rotation: np.ndarray = field(default_factory=lambda: np.array([0, 0, 0, 1], np.float32))
    scale: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    mesh: int | None = None
    skin: int | None = None


@dataclass
class Skin:
    joints: list[int]  # node indices
    inverse_bind: np.ndarray  # (len(joints), 4, 4) float32
    skeleton: int | None = None


@dataclass
class MorphBind:
    mesh: int
    target: int
    weight: float  # 0..1


@dataclass
class MaterialColorBind:
    material: int
    kind: Literal["color", "emissionColor", "shadeColor", "matcapColor", "rimColor", "outlineColor"]
    target: np.ndarray  # (4,) RGBA, linear


@dataclass
class TextureTransformBind:
    material: int
    scale: tuple[float, float] = (1.0, 1.0)
    offset: tuple[float, float] = (0.0, 0.0)


@dataclass
class Expression:
    """A face (or other) expression: what 1.0 weight does, and what it overrides."""

    name: str  # a 1.0 preset name, or the custom name
    preset: bool
    morph_binds: list[MorphBind] = field(default_factory=list)
    material_color_binds: list[MaterialColorBind] = field(default_factory=list)
    texture_transform_binds: list[TextureTransformBind] = field(default_factory=list)
    is_binary: bool = False
    override_blink: OverrideMode = "none"
    override_look_at: OverrideMode = "none"
    override_mouth: OverrideMode = "none"


@dataclass
class RangeMap:
    """Look-at range map: input angle (degrees) up to ``input_max`` -> output ``scale``."""

    input_max: float = 90.0
    output_scale: float = 10.0


@dataclass
class LookAt:
    type: Literal["bone", "expression"] = "bone"
    offset_from_head: np.ndarray = field(default_factory=lambda: np.array([0, 0.06, 0], np.float32))
    horizontal_inner: RangeMap = field(default_factory=RangeMap)
    horizontal_outer: RangeMap = field(default_factory=RangeMap)
    vertical_down: RangeMap = field(default_factory=RangeMap)
    vertical_up: RangeMap = field(default_factory=RangeMap)


@dataclass
class SpringJoint:
    """One joint of a spring chain; forces per second, radius in metres."""

    node: int
    hit_radius: float = 0.0
    stiffness: float = 1.0
    gravity_power: float = 0.0
    gravity_dir: np.ndarray = field(default_factory=lambda: np.array([0, -1, 0], np.float32))
    drag_force: float = 0.5


@dataclass
class Collider:
    node: int
    shape: Literal["sphere", "capsule"]
    offset: np.ndarray  # (3,) in the node's space
    radius: float
    tail: np.ndarray | None = None  # capsule end, node space


@dataclass
class SpringChain:
    name: str
    joints: list[SpringJoint]
    collider_groups: list[int] = field(default_factory=list)
    center: int | None = None


@dataclass
class ColliderGroup:
    name: str
    colliders: list[int]  # indices into VrmModel.colliders


@dataclass
class Problem:
    """Something wrong with a file, and what the app does about it."""

    severity: Literal["warning", "error"]
    message: str
    action: str


@dataclass
class Meta:
    name: str = ""
    version: str = ""
    authors: list[str] = field(default_factory=list)
    license: str = ""


@dataclass
class VrmModel:
    """A loaded avatar (or plain glTF scene)."""

    version: Literal["0.x", "1.0", "gltf"]
    nodes: list[Node]
    scene_roots: list[int]
    meshes: list[Mesh] = field(default_factory=list)
    skins: list[Skin] = field(default_factory=list)
    materials: list[Material] = field(default_factory=list)
    textures: list[Texture] = field(default_factory=list)
    humanoid: dict[str, int] = field(default_factory=dict)  # bone name -> node index
    expressions: dict[str, Expression] = field(default_factory=dict)
    look_at: LookAt | None = None
    first_person: dict[int, str] = field(default_factory=dict)  # mesh index -> annotation
    springs: list[SpringChain] = field(default_factory=list)
    colliders: list[Collider] = field(default_factory=list)
    collider_groups: list[ColliderGroup] = field(default_factory=list)
    meta: Meta = field(default_factory=Meta)
    problems: list[Problem] = field(default_factory=list)
    root_rotation_y: float = 0.0  # radians applied above the scene (pi for VRM 0.x)
    source: str = ""
    constraints: list = field(default_factory=list)  # NodeConstraint (constraints.py)
