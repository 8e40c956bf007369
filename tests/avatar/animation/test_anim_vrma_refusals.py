"""Files ``load_vrma`` refuses: each with a clear message, never half-loaded, in bounded time."""

from __future__ import annotations

import copy
import json
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion_desktop.avatar.animation import ClipLoadError, load_vrma
from companion_desktop.avatar.vrm import quat
from tests.avatar.animation.conftest import VRMA_DIR
from tests.avatar.animation.vrma_files import VrmaBuilder, simple_vrma
from tests.avatar.loader.gltf_builder import make_glb, split_glb

Q0, Q1 = quat.identity().tolist(), quat.from_axis_angle(np.array([0, 0, 1.0]), 1.0).tolist()


def _base() -> VrmaBuilder:
    v = VrmaBuilder()
    v.channel("leftUpperArm", "rotation", [0.0, 1.0], [Q0, Q1])
    return v


def _write(tmp_path: Path, doc: dict, binary: bytes, name: str = "clip.vrma") -> Path:
    path = tmp_path / name
    path.write_bytes(make_glb(doc, binary))
    return path


def _edited(tmp_path: Path, edit: Callable[[dict], None]) -> Path:
    v = _base()
    doc = v.json()
    edit(doc)
    return _write(tmp_path, doc, bytes(v.b.bin))


def _ext(doc: dict) -> dict:
    return doc["extensions"]["VRMC_vrm_animation"]


def _accessor(doc: dict, role: str) -> dict:
    sampler = doc["animations"][0]["samplers"][0]
    return doc["accessors"][sampler[role]]


EDITS: dict[str, tuple[Callable[[dict], None], str]] = {
    "no specVersion": (lambda d: _ext(d).pop("specVersion"), "no specVersion"),
    "unknown specVersion": (lambda d: _ext(d).update(specVersion="2.0"), "'2.0'"),
    "wrong extension": (lambda d: d.update(extensions={"VRMC_vrm": _ext(d)}),
                        "no VRMC_vrm_animation"),
    "no extension": (lambda d: d.pop("extensions"), "not a VRM Animation"),
    "no humanoid": (lambda d: _ext(d).pop("humanoid"), "no humanoid bone mapping"),
    "empty humanoid": (lambda d: _ext(d)["humanoid"].update(humanBones={}),
                       "no humanoid bone mapping"),
    "bones on missing nodes": (
        lambda d: _ext(d)["humanoid"].update(humanBones={"hips": {"node": 999}}),
        "no humanoid bone mapping"),
    "no hips": (lambda d: _ext(d)["humanoid"]["humanBones"].pop("hips"), "no hips"),
    "no animation": (lambda d: d.pop("animations"), "no animation"),
    "channel on missing node": (
        lambda d: d["animations"][0]["channels"][0]["target"].update(node=500),
        "node 500"),
    "missing sampler": (lambda d: d["animations"][0]["channels"][0].update(sampler=7),
                        "sampler 7"),
    "unknown interpolation": (
        lambda d: d["animations"][0]["samplers"][0].update(interpolation="BEZIER"),
        "'BEZIER'"),
    "accessor out of range": (lambda d: d["bufferViews"][0].update(byteOffset=10_000_000),
                              "outside buffer"),
    "more outputs than keyframes": (lambda d: _accessor(d, "output").update(count=50),
                                    "50 output values for 2 keyframes"),
    "accessor reads past its view": (
        lambda d: (_accessor(d, "input").update(count=3), _accessor(d, "output").update(count=3)),
        "past the end of bufferView"),
    "absurd keyframe count": (lambda d: _accessor(d, "input").update(count=10**9),
                              "must be a whole number"),
    "times not float": (lambda d: _accessor(d, "input").update(componentType=5123),
                        "not float"),
    "unknown path": (lambda d: d["animations"][0]["channels"][0]["target"]
                     .update(path="skew"), "'skew'"),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_broken_file_is_refused_with_a_message(tmp_path, case):
    edit, words = EDITS[case]
    path = _edited(tmp_path, edit)
    with pytest.raises(ClipLoadError) as info:
        load_vrma(path)
    assert "clip.vrma" in str(info.value)
    assert words in str(info.value)


def test_time_rules(tmp_path):
    v = VrmaBuilder()
    v.channel("leftUpperArm", "rotation", [0.0, 1.0, 1.0], [Q0, Q1, Q0])
    with pytest.raises(ClipLoadError, match="strictly increasing"):
        load_vrma(v.write(tmp_path / "same.vrma"))
    v = VrmaBuilder()
    v.channel("leftUpperArm", "rotation", [0.5, 0.2], [Q0, Q1])
    with pytest.raises(ClipLoadError, match="strictly increasing"):
        load_vrma(v.write(tmp_path / "back.vrma"))
    v = VrmaBuilder()
    v.channel("leftUpperArm", "rotation", [-1.0, 1.0], [Q0, Q1])
    with pytest.raises(ClipLoadError, match="negative"):
        load_vrma(v.write(tmp_path / "negative.vrma"))
    v = VrmaBuilder()
    v.channel("leftUpperArm", "rotation", [0.0, float("nan")], [Q0, Q1])
    with pytest.raises(ClipLoadError, match="not finite"):
        load_vrma(v.write(tmp_path / "nan.vrma"))


def _noise(seed: int, size: int = 4096) -> bytes:
    """Fixed bytes that look random (the same every run)."""
    return np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes()


def test_not_gltf_truncated_and_empty(tmp_path):
    good = simple_vrma(tmp_path / "good.vrma").read_bytes()
    cases = {
        "random.vrma": (_noise(11), "not a glTF"),
        # noise whose first byte could start JSON is no glTF either, whatever follows
        "brace.vrma": (b"{" + _noise(12), "not a glTF"),
        "spaced.vrma": (b" \r\n\t{" + _noise(13), "not a glTF"),
        "bom.vrma": (b"\xef\xbb\xbf{" + _noise(14), "not a glTF"),
        "broken json.vrma": (b'{"asset": ', "not a glTF"),
        "text.vrma": (b"hello, not an animation", "not a glTF"),
        "truncated.vrma": (good[: len(good) // 2], "truncated"),
        "header.vrma": (good[:16], "truncated"),
        "empty.vrma": (b"", "empty"),
        "json.vrma": (b"[1, 2, 3]", "not a glTF"),
    }
    said = {}
    for name, (data, words) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ClipLoadError, match=words) as info:
            load_vrma(path)
        said[name] = str(info.value).replace(name, "FILE")
    noise = {said[name] for name in ("random.vrma", "brace.vrma", "spaced.vrma", "bom.vrma")}
    assert len(noise) == 1, noise  # one message for noise, whatever its first byte
    with pytest.raises(ClipLoadError, match="no such file"):
        load_vrma(tmp_path / "missing.vrma")


def test_size_caps(tmp_path):
    path = simple_vrma(tmp_path / "small.vrma")
    with pytest.raises(ClipLoadError, match="MiB"):
        load_vrma(path, max_bytes=100)
    v = VrmaBuilder()
    for bone in list(v.nodes)[:3]:
        v.channel(bone, "rotation", [0.0, 1.0], [Q0, Q1])
    doc = v.json()
    anim = doc["animations"][0]
    anim["channels"] = anim["channels"] * 4000  # 12 000 channels on 3 samplers
    with pytest.raises(ClipLoadError, match="channels"):
        load_vrma(_write(tmp_path, doc, bytes(v.b.bin)))


def test_object_count_bounds_decoding_time(tmp_path):
    """pygltflib needs ~0.5 ms per JSON object: a small file of 100 000 tiny channels is
    refused before decoding; one just under the cap still loads in seconds."""
    v = VrmaBuilder()
    v.channel("hips", "rotation", [0.0, 1.0], [Q0, Q1])
    doc = v.json()
    channels = doc["animations"][0]["channels"]
    doc["animations"][0]["channels"] = channels * 100_000
    start = time.perf_counter()
    with pytest.raises(ClipLoadError, match="glTF objects"):
        load_vrma(_write(tmp_path, doc, bytes(v.b.bin), "flood.vrma"))
    assert time.perf_counter() - start < 2.0
    doc["animations"][0]["channels"] = channels * 5_000
    start = time.perf_counter()
    assert load_vrma(_write(tmp_path, doc, bytes(v.b.bin), "busy.vrma")).duration == 1.0
    assert time.perf_counter() - start < 15.0


def test_deadline(tmp_path):
    path = simple_vrma(tmp_path / "slow.vrma")
    with pytest.raises(ClipLoadError, match="took too long"):
        load_vrma(path, deadline_s=0.0)
    assert load_vrma(path, deadline_s=30.0).duration == pytest.approx(2.0)


def test_forbidden_channels_are_ignored_not_half_applied(tmp_path):
    """Scale on a bone, translation on a non-hips bone and eye bones are not part of a
    VRMA: they are dropped, the rest of the clip loads."""
    v = VrmaBuilder()
    v.channel("leftUpperArm", "rotation", [0.0, 1.0], [Q0, Q1])
    v.channel("leftUpperArm", "scale", [0.0, 1.0], [[1, 1, 1], [2, 2, 2]])
    v.channel("spine", "translation", [0.0, 1.0], [[0, 0, 0], [0, 1, 0]])
    clip = load_vrma(v.write(tmp_path / "extra.vrma"))
    assert set(clip.bone_rotations) == {"leftUpperArm"}
    assert clip.hips_translation is None


def test_large_clip_loads_quickly(tmp_path):
    """About 22 MB of keyframes (every bone, 60 s at 1 kHz... as CUBICSPLINE) well under
    the 60 s cap."""
    v = VrmaBuilder()
    keys = 60_000
    times = np.linspace(0.0, 60.0, keys, dtype=np.float32)
    values = np.tile(np.array(Q1, np.float32), (keys * 3, 1))
    for bone in list(v.nodes)[:7]:
        v.channel(bone, "rotation", times, values, interpolation="CUBICSPLINE")
    path = v.write(tmp_path / "big.vrma")
    assert 15 * 1024 * 1024 < path.stat().st_size < 25 * 1024 * 1024
    start = time.perf_counter()
    clip = load_vrma(path)
    assert time.perf_counter() - start < 10.0
    assert clip.duration == pytest.approx(60.0)


# -- fuzzing ---------------------------------------------------------------------------

FUZZ = settings(max_examples=200, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _seed_bytes() -> bytes:
    path = VRMA_DIR / "test.vrma"
    if path.is_file():
        return path.read_bytes()
    with tempfile.TemporaryDirectory() as folder:  # no shared assets: a built clip
        return simple_vrma(Path(folder) / "seed.vrma", expression="happy").read_bytes()


SEED = _seed_bytes()


def _load_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.vrma"
        path.write_bytes(data)
        try:
            clip = load_vrma(path, deadline_s=30.0)
        except ClipLoadError as exc:
            assert str(exc)
            assert not exc.internal, str(exc)  # every refusal comes from a check
            return
        assert clip.duration >= 0.0  # loaded whole


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(SEED) - 1), st.integers(0, 255)),
                min_size=1, max_size=12))
def test_byte_mutations_raise_only_clip_load_error(edits):
    data = bytearray(SEED)
    for offset, value in edits:
        data[offset] = value
    _load_bytes(bytes(data))


@FUZZ
@given(st.integers(0, len(SEED)), st.binary(max_size=64))
def test_cut_and_spliced_files_raise_only_clip_load_error(cut, tail):
    _load_bytes(SEED[:cut] + tail)


JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**10),
                        st.floats(allow_nan=True), st.text(max_size=8),
                        st.lists(st.integers(-1, 5), max_size=3), st.just({}))


@FUZZ
@given(st.data())
def test_json_mutations_raise_only_clip_load_error(data):
    doc, binary = split_glb(SEED)
    doc = copy.deepcopy(doc)
    paths = []

    def walk(node, trail):
        if isinstance(node, dict):
            for key, value in node.items():
                paths.append((*trail, key))
                walk(value, (*trail, key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                paths.append((*trail, i))
                walk(value, (*trail, i))

    walk(doc, ())
    for _ in range(data.draw(st.integers(1, 4))):
        trail = data.draw(st.sampled_from(paths))
        target = doc
        try:
            for key in trail[:-1]:
                target = target[key]
            target[trail[-1]] = data.draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    chunk = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary:
        chunk += struct.pack("<II", len(binary), 0x004E4942) + binary
    _load_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(chunk)) + chunk)
