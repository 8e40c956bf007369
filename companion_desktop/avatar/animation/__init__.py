"""Animation: .vrma loading and retargeting, clip sampling, the mixer, the idle cycle.

Numpy (and pygltflib through ``avatar.vrm``) only: no Qt, no OpenGL. Clips are in the
normalized humanoid space of ``avatar.vrm.pose`` (see ``clip``), so one clip fits any model.
"""

from .channels import ClipLoadError
from .clip import Clip, ClipPose, Track
from .driver import AnimationDriver
from .gltf_clip import NodeAnimation, load_gltf_animations, sample_node_animation
from .idle_cycle import IdleCycle, IdleState
from .library import AnimationLibrary, LibraryEntry
from .mixer import Mixer
from .pose_apply import apply_clip_pose
from .sampling import sample_clip, sample_track
from .vrma import load_vrma

__all__ = [
    "AnimationDriver", "AnimationLibrary", "Clip", "ClipLoadError", "ClipPose", "IdleCycle",
    "IdleState", "LibraryEntry", "Mixer", "NodeAnimation", "Track", "apply_clip_pose",
    "load_gltf_animations", "load_vrma", "sample_clip", "sample_node_animation",
    "sample_track",
]
