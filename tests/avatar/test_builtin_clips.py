"""The built-in animations: the committed files are exactly what their generator writes,
and each is a valid VRM Animation (glTF binary, ``VRMC_vrm_animation`` 1.0) with a humanoid
skeleton, a seamless loop or a neutral start and end, and a duration in range."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "resources" / "animations"
GENERATOR = ROOT / "tools" / "make_builtin_clips.py"

IDLES = ("idle_calm", "idle_sway", "idle_look_around", "idle_stretch_light", "idle_hands")
EMOTES = ("wave", "nod", "shake_head", "bow", "cheer", "shy", "think_pose")
MOVES = ("walk", "sit")
REQUIRED_BONES = (
    "hips", "spine", "chest", "upperChest", "neck", "head",
    *(f"{s}{b}" for s in ("left", "right") for b in (
        "Shoulder", "UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot")),
)  # fmt: skip
DURATIONS = {"idle": (6.0, 12.0), "emote": (1.5, 3.5), "talking": (4.0, 12.0),
             "thinking": (4.0, 12.0), "move": (1.0, 12.0)}
COMPONENTS = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}


def manifest() -> list[dict]:
    return json.loads((FOLDER / "library.json").read_text(encoding="utf-8"))["clips"]


def read_glb(path: Path) -> tuple[dict, bytes]:
    data = path.read_bytes()
    magic, version, total = struct.unpack_from("<III", data, 0)
    assert magic == 0x46546C67 and version == 2 and total == len(data), path.name
    json_len, json_type = struct.unpack_from("<II", data, 12)
    assert json_type == 0x4E4F534A
    gltf = json.loads(data[20:20 + json_len])
    bin_len, bin_type = struct.unpack_from("<II", data, 20 + json_len)
    assert bin_type == 0x004E4942
    blob = data[28 + json_len:28 + json_len + bin_len]
    assert len(blob) == bin_len
    return gltf, blob


def accessor(gltf: dict, blob: bytes, index: int) -> np.ndarray:
    acc = gltf["accessors"][index]
    view = gltf["bufferViews"][acc["bufferView"]]
    assert acc["componentType"] == 5126  # float
    n = COMPONENTS[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    assert start + acc["count"] * n * 4 <= view.get("byteOffset", 0) + view["byteLength"]
    return np.frombuffer(blob, "<f4", acc["count"] * n, start).reshape(acc["count"], n)


def tracks(path: Path) -> tuple[dict, dict[tuple[int, str], tuple[np.ndarray, np.ndarray]]]:
    gltf, blob = read_glb(path)
    anim = gltf["animations"][0]
    out = {}
    for ch in anim["channels"]:
        sampler = anim["samplers"][ch["sampler"]]
        assert sampler.get("interpolation", "LINEAR") == "LINEAR"
        times = accessor(gltf, blob, sampler["input"])[:, 0]
        values = accessor(gltf, blob, sampler["output"])
        out[(ch["target"]["node"], ch["target"]["path"])] = (times, values)
    return gltf, out


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("animations")
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(out), "--quiet"], check=True,
                   cwd=ROOT, timeout=600)
    return out


def test_committed_files_equal_the_generator_output(generated):
    made = sorted(p.name for p in generated.iterdir())
    assert made == sorted(p.name for p in FOLDER.iterdir() if p.is_file())
    for name in made:
        assert (generated / name).read_bytes() == (FOLDER / name).read_bytes(), \
            f"{name} differs: run tools/make_builtin_clips.py"


def test_generator_is_deterministic(generated, tmp_path):
    subprocess.run([sys.executable, str(GENERATOR), "--out", str(tmp_path), "--quiet"],
                   check=True, cwd=ROOT, timeout=600)
    for p in generated.iterdir():
        assert (tmp_path / p.name).read_bytes() == p.read_bytes(), p.name


def test_library_lists_every_clip():
    clips = manifest()
    ids = [c["id"] for c in clips]
    assert len(ids) == len(set(ids))
    by_kind: dict[str, list[str]] = {}
    for c in clips:
        assert set(c) == {"id", "name", "kind", "file", "description", "loop"}
        assert c["name"] and c["description"] and "\n" not in c["description"]
        assert c["file"] == f"{c['id']}.vrma" and (FOLDER / c["file"]).is_file()
        assert c["loop"] is (c["kind"] != "emote")
        by_kind.setdefault(c["kind"], []).append(c["id"])
    assert sorted(by_kind["idle"]) == sorted(IDLES)
    assert sorted(by_kind["emote"]) == sorted(EMOTES)
    assert by_kind["talking"] == ["talking"]
    assert by_kind["thinking"] == ["thinking"]
    assert by_kind["move"] == list(MOVES)
    assert set(by_kind) == {"idle", "emote", "talking", "thinking", "move"}
    assert {p.name for p in FOLDER.glob("*.vrma")} == {c["file"] for c in clips}


@pytest.mark.parametrize("clip", manifest(), ids=lambda c: c["id"])
def test_clip_is_a_valid_vrm_animation(clip):
    gltf, by_target = tracks(FOLDER / clip["file"])
    assert gltf["asset"]["version"] == "2.0"
    assert "VRMC_vrm_animation" in gltf["extensionsUsed"]
    ext = gltf["extensions"]["VRMC_vrm_animation"]
    assert ext["specVersion"] == "1.0"
    bones = {name: b["node"] for name, b in ext["humanoid"]["humanBones"].items()}
    for bone in REQUIRED_BONES:
        assert bone in bones, bone
    nodes = gltf["nodes"]
    # a T-pose with identity rest rotations, no scale
    for name, node in bones.items():
        assert "rotation" not in nodes[node] and "scale" not in nodes[node], name
    hips_rest = np.array(nodes[bones["hips"]]["translation"])
    assert 0.5 < hips_rest[1] < 1.2
    left = _rest_world(nodes, bones["leftUpperArm"])
    left_hand = _rest_world(nodes, bones["leftHand"])
    assert left_hand[0] - left[0] > 0.3 and abs(left_hand[1] - left[1]) < 0.01  # T-pose, +X left
    # rotation channels on the bones, translation only on the hips (and expressions)
    expression_nodes = {e["node"] for e in ext.get("expressions", {}).get("preset", {}).values()}
    for (node, path), (times, values) in by_target.items():
        assert path in ("rotation", "translation")
        if path == "translation":
            assert node == bones["hips"] or node in expression_nodes
        else:
            assert node in bones.values()
            assert np.allclose(np.linalg.norm(values, axis=1), 1.0, atol=1e-4)
        assert times[0] == 0.0 and np.all(np.diff(times) > 0)
    for bone in REQUIRED_BONES:
        assert (bones[bone], "rotation") in by_target, bone
    assert (bones["hips"], "translation") in by_target
    for name in ext.get("expressions", {}).get("preset", {}):
        assert name not in ("lookUp", "lookDown", "lookLeft", "lookRight")
    # duration
    duration = max(float(t[-1]) for t, _ in by_target.values())
    low, high = DURATIONS[clip["kind"]]
    assert low <= duration <= high, (clip["id"], duration)
    assert all(float(t[-1]) == pytest.approx(duration, abs=1e-6) for t, _ in by_target.values())


def _rest_world(nodes: list[dict], index: int) -> np.ndarray:
    parent = {c: i for i, n in enumerate(nodes) for c in n.get("children", [])}
    pos = np.zeros(3)
    while index is not None:
        pos += np.array(nodes[index].get("translation", [0.0, 0.0, 0.0]))
        index = parent.get(index)
    return pos


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    """Degrees between two rotations (unit quaternions), exact for small angles."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    chord = min(float(np.linalg.norm(a - b)), float(np.linalg.norm(a + b)))
    return float(np.degrees(4.0 * np.arcsin(min(1.0, chord / 2.0))))


@pytest.mark.parametrize("clip", [c for c in manifest() if c["loop"]], ids=lambda c: c["id"])
def test_loops_are_seamless(clip):
    """The last key is the first, and the motion runs on through the seam without a
    jolt: the turn over the frame before the seam matches the turn over the frame after."""
    _, by_target = tracks(FOLDER / clip["file"])
    h = 1.0 / 30.0
    for (node, path), track in by_target.items():
        times, values = track
        end = float(times[-1])
        assert np.array_equal(values[0], values[-1]), (node, path)
        if path == "rotation":
            before, first, after = (_sample(track, end - h), values[0].astype(np.float64),
                                    _sample(track, h))
            step_in = _mul(first, _conj(before))
            step_out = _mul(after, _conj(first))
            assert _angle(step_in, step_out) < 1.5, (clip["id"], node)
        else:
            before, after = _sample_vec(track, end - h), _sample_vec(track, h)
            accel = after - 2 * values[0] + before
            assert np.abs(accel).max() < 1e-3, (clip["id"], node, path)


def _conj(q: np.ndarray) -> np.ndarray:
    return np.array([-q[0], -q[1], -q[2], q[3]])


def test_motion_has_no_jumps():
    """No bone turns more than 30 degrees in one 30 fps frame (a pop, not a motion)."""
    for c in manifest():
        _, by_target = tracks(FOLDER / c["file"])
        for (node, path), track in by_target.items():
            if path != "rotation":
                continue
            times = np.arange(0.0, float(track[0][-1]) + 1e-9, 1.0 / 30.0)
            qs = [_sample(track, float(t)) for t in times]
            steps = [_angle(a, b) for a, b in pairwise(qs)]
            assert max(steps, default=0.0) < 30.0, (c["id"], node)


@pytest.mark.parametrize("clip", [c for c in manifest() if not c["loop"]], ids=lambda c: c["id"])
def test_emotes_start_and_end_at_the_same_arms_down_pose(clip):
    gltf, by_target = tracks(FOLDER / clip["file"])
    bones = {n: b["node"] for n, b in
             gltf["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"].items()}
    reference = tracks(FOLDER / "wave.vrma")[1]
    for bone, node in bones.items():
        _, values = by_target[(node, "rotation")]
        assert _angle(values[0], values[-1]) < 0.05, bone
        ref = reference[(node, "rotation")][1][0]
        assert _angle(values[0], ref) < 0.05, bone  # every emote shares the neutral pose
    # arms down: the upper arm points 60..80 degrees below horizontal at start and end
    for side, sign in (("left", 1.0), ("right", -1.0)):
        q = by_target[(bones[f"{side}UpperArm"], "rotation")][1][0]
        shoulder = by_target[(bones[f"{side}Shoulder"], "rotation")][1][0]
        chest = [by_target[(bones[b], "rotation")][1][0] for b in
                 ("hips", "spine", "chest", "upperChest")]
        world = _chain(*chest, shoulder, q)
        d = _rotate(world, np.array([sign, 0.0, 0.0]))
        down = np.degrees(np.arcsin(-d[1]))
        assert 60.0 < down < 80.0, (clip["id"], side, down)


def _chain(*qs: np.ndarray) -> np.ndarray:
    out = np.array([0.0, 0.0, 0.0, 1.0])
    for q in qs:
        out = _mul(out, np.asarray(q, np.float64))
    return out


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    u, w = q[:3], q[3]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


@pytest.mark.parametrize("clip", [c for c in manifest() if c["kind"] == "idle"],
                         ids=lambda c: c["id"])
def test_idles_keep_the_arms_down(clip):
    gltf, by_target = tracks(FOLDER / clip["file"])
    bones = {n: b["node"] for n, b in
             gltf["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"].items()}
    for side, sign in (("left", 1.0), ("right", -1.0)):
        chain = ("hips", "spine", "chest", "upperChest", f"{side}Shoulder", f"{side}UpperArm")
        times = by_target[(bones["hips"], "rotation")][0]
        for t in np.linspace(0.0, float(times[-1]), 25):
            world = _chain(*(_sample(by_target[(bones[b], "rotation")], t) for b in chain))
            d = _rotate(world, np.array([sign, 0.0, 0.0]))
            assert np.degrees(np.arcsin(-d[1])) > 35.0, (clip["id"], side, t)


def _sample(track: tuple[np.ndarray, np.ndarray], t: float) -> np.ndarray:
    times, values = track
    i = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 1))
    if i == len(times) - 1:
        return values[-1].astype(np.float64)
    s = (t - times[i]) / (times[i + 1] - times[i])
    q = values[i] * (1 - s) + values[i + 1] * s
    return q / np.linalg.norm(q)


def test_every_clip_loads_with_the_project_loader():
    from companion_desktop.avatar.animation.vrma import load_vrma

    for c in manifest():
        clip = load_vrma(FOLDER / c["file"], clip_id=c["id"], name=c["name"], loop=c["loop"])
        low, high = DURATIONS[c["kind"]]
        assert low <= clip.duration <= high, c["id"]
        for bone in REQUIRED_BONES:
            assert bone in clip.bone_rotations, (c["id"], bone)
        assert clip.hips_translation is not None
        assert clip.hips_height == pytest.approx(0.806, abs=0.01)


def test_loaded_clips_pose_like_the_authored_keys():
    """Through the project's loader and sampler, a clip gives back its own keys (the
    skeleton's identity rest rotations make the file's locals the normalized rotations)."""
    from companion_desktop.avatar.animation import sampling
    from companion_desktop.avatar.animation.vrma import load_vrma

    for c in manifest():
        path = FOLDER / c["file"]
        gltf, by_target = tracks(path)
        bones = {n: b["node"] for n, b in
                 gltf["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"].items()}
        clip = load_vrma(path, loop=c["loop"])
        hips_rest = np.array(gltf["nodes"][bones["hips"]]["translation"])
        times = by_target[(bones["head"], "rotation")][0]
        for t in times[1:-1:7]:
            pose = sampling.sample_clip(clip, float(t), clip.hips_height)
            for bone in ("head", "leftUpperArm", "rightLowerArm", "spine"):
                expected = _sample(by_target[(bones[bone], "rotation")], float(t))
                assert _angle(pose.rotations[bone], expected) < 0.1, (c["id"], bone, t)
            hips = _sample_vec(by_target[(bones["hips"], "translation")], float(t))
            assert np.allclose(pose.hips_offset, hips - hips_rest, atol=1e-4), (c["id"], t)


def _sample_vec(track: tuple[np.ndarray, np.ndarray], t: float) -> np.ndarray:
    times, values = track
    i = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2))
    s = min(1.0, max(0.0, (t - times[i]) / (times[i + 1] - times[i])))
    return values[i] * (1 - s) + values[i + 1] * s
