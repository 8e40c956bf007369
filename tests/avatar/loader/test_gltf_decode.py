"""The planned glTF decoder builds what ``GLTF2.from_dict(obj, infer_missing=True)`` builds
(every field, its value and its type) for real files and for damaged JSON, and raises
the same kinds of error where that does."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
import warnings
from pathlib import Path
from typing import Any

import pygltflib
import pytest
from pygltflib import GLTF2

from companion_desktop.avatar.vrm.errors import AvatarLoadError
from companion_desktop.avatar.vrm.gltf import _split_glb, read_document
from companion_desktop.avatar.vrm.gltf_decode import to_gltf2
from companion_desktop.avatar.vrm.limits import Limits
from companion_desktop.resources import builtin_clips_dir, default_avatar_path
from tests.avatar.loader.gltf_builder import make_glb, minimal_avatar
from tests.conftest import SHARED_ASSETS

ERRORS = (TypeError, ValueError, AttributeError, KeyError, OverflowError)


def _json_of(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    if data[:4] == b"glTF":
        chunk, _binary = _split_glb(memoryview(data), path.name, Limits())
        return json.loads(bytes(chunk))
    return json.loads(data)


def _reference(obj: dict[str, Any]) -> GLTF2:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return GLTF2.from_dict(obj, infer_missing=True)


def _plain(value: Any) -> Any:
    """Objects as (type name, fields) trees: equal when every value and type is."""
    if dataclasses.is_dataclass(value):
        return (type(value).__name__,
                {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)})
    if isinstance(value, pygltflib.Attributes):  # not a dataclass: compared by its fields
        return ("Attributes", _plain(vars(value)))
    if isinstance(value, dict):
        return ("dict", {key: _plain(item) for key, item in value.items()})
    if isinstance(value, list):
        return ("list", [_plain(item) for item in value])
    return (type(value).__name__, value)


def _files() -> list[Path]:
    files = [default_avatar_path(), *sorted(builtin_clips_dir().glob("*.vrma"))]
    if SHARED_ASSETS.is_dir():
        files += sorted(path for path in SHARED_ASSETS.rglob("*")
                        if path.suffix.lower() in (".vrm", ".vrma", ".glb", ".gltf"))
    return files


def test_real_files_decode_as_from_dict() -> None:
    files = _files()
    assert len(files) > 10  # Hana and her clips at least
    for path in files:
        obj = _json_of(path)
        assert _plain(to_gltf2(obj)) == _plain(_reference(obj)), path.name


def test_shared_files_are_among_them() -> None:
    if not SHARED_ASSETS.is_dir():
        pytest.skip(f"the shared assets are not at {SHARED_ASSETS}")
    assert any(path.is_relative_to(SHARED_ASSETS) for path in _files())


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            found += _paths(item, (*path, index))
    return found


def _trimmed(obj: dict[str, Any], keep: int = 8) -> dict[str, Any]:
    """The document with at most ``keep`` items in each list (its shapes, less of each)."""
    if isinstance(obj, dict):
        return {key: _trimmed(value, keep) for key, value in obj.items()}
    if isinstance(obj, list):
        return [_trimmed(value, keep) for value in obj[:keep]]
    return obj


REPLACEMENTS = [None, 0, 1, 2.5, -1, True, False, "x", "3", [], [1, 2], {}, {"a": 1}, [None],
                [{}], "2.0", float("inf")]


def test_damaged_json_decodes_or_fails_as_from_dict() -> None:
    """Values swapped for others of any type, one to three at a time, in 300 copies of
    Hana and her clips, cut short (seeded): both decoders give equal objects, or both
    raise one of the errors the loader turns into a refusal."""
    rng = random.Random(27)
    sources = [_trimmed(_json_of(path)) for path in [default_avatar_path(),
                                                     *sorted(builtin_clips_dir().glob("*.vrma"))[:3]]]
    failed = 0
    for _ in range(300):
        obj = copy.deepcopy(rng.choice(sources))
        places = _paths(obj)[1:]
        for _ in range(rng.randint(1, 3)):
            *parents, last = rng.choice(places)
            node = obj
            try:
                for key in parents:
                    node = node[key]
                node[last] = copy.deepcopy(rng.choice(REPLACEMENTS))
            except (KeyError, IndexError, TypeError):
                continue  # an earlier swap removed the place
        try:
            expected = _plain(_reference(obj))
        except ERRORS as error:
            failed += 1
            with pytest.raises(ERRORS):
                to_gltf2(obj)
            assert isinstance(error, ERRORS)
            continue
        assert _plain(to_gltf2(obj)) == expected
    assert 0 < failed < 300  # both kinds were tried


def test_defaults_conversions_and_none() -> None:
    gltf = to_gltf2({"asset": {"version": "2.0"}, "scene": 0.0,
                     "nodes": [None, {"name": 5, "rotation": [0, 0, 0, 1], "extras": {"k": [1]}}],
                     "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "_ID": 1}}]}]})
    assert gltf.scene == 0 and isinstance(gltf.scene, int)
    assert gltf.nodes[0] is None
    node = gltf.nodes[1]
    assert node.name == "5" and node.rotation == [0.0, 0.0, 0.0, 1.0]
    assert all(isinstance(x, float) for x in node.rotation)
    assert node.children == [] and node.extras == {"k": [1]}
    assert gltf.meshes[0].primitives[0].attributes == {"POSITION": 0, "_ID": 1}
    assert gltf.meshes[0].primitives[0].targets == []


def test_an_infinite_index_is_a_refusal(tmp_path: Path) -> None:
    """``"scene": 1e400`` reads as infinity, which no index can be: a clear refusal (it
    escaped the loader as an OverflowError before)."""
    builder = minimal_avatar("1.0")
    doc = builder.finish_json()
    doc["scene"] = 987654321
    glb = make_glb(doc, bytes(builder.bin))
    path = tmp_path / "inf.vrm"
    path.write_bytes(glb.replace(b"987654321", b"1e400    "))  # the same length
    with pytest.raises(AvatarLoadError, match="malformed"):
        read_document(path, Limits())
