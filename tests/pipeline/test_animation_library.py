"""AnimationService: uploads (refusals leave nothing behind), the idle pool, the prompt list."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.animation.library import AnimationLibrary, default_folder
from companion_desktop.pipeline import animations as anim
from companion_desktop.pipeline.animations import (
    AnimationNotFound,
    AnimationService,
    AnimationUploadError,
)
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import AnimationRow
from tests.conftest import SHARED_ASSETS

NOW = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)


BUILTINS = [
    {"id": "idle_breathe", "name": "Breathe", "kind": "idle", "file": "idle_breathe.vrma",
     "description": "breathing", "loop": True},
    {"id": "idle_sway", "name": "Sway", "kind": "idle", "file": "idle_sway.vrma"},
    {"id": "wave", "name": "Wave", "kind": "emote", "file": "wave.vrma",
     "description": "waves hello", "loop": False},
    {"id": "nod", "name": "Nod", "kind": "emote", "file": "nod.vrma", "description": "nods"},
    {"id": "talking", "name": "Talking", "kind": "talking", "file": "talking.vrma"},
    {"id": "thinking", "name": "Thinking", "kind": "thinking", "file": "thinking.vrma"},
]


def write_vrma(path: Path, seconds: float = 1.0,
               bones: tuple[str, ...] = ("hips", "spine")) -> Path:
    """A small valid .vrma: a chain of humanoid bones, the hips turning over ``seconds``."""
    import pygltflib as g

    times = np.array([0.0, seconds], dtype=np.float32)
    half = np.sin(np.pi / 8)
    quats = np.array([[0, 0, 0, 1], [0, half, 0, np.cos(np.pi / 8)]], dtype=np.float32)
    blob = times.tobytes() + quats.tobytes()
    nodes = [g.Node(name=bone, translation=[0.0, 1.0 if i == 0 else 0.1, 0.0],
                    children=[i + 1] if i + 1 < len(bones) else [])
             for i, bone in enumerate(bones)]
    gltf = g.GLTF2(
        asset=g.Asset(version="2.0", generator="companion-desktop tests"),
        scene=0, scenes=[g.Scene(nodes=[0])], nodes=nodes,
        buffers=[g.Buffer(byteLength=len(blob))],
        bufferViews=[g.BufferView(buffer=0, byteOffset=0, byteLength=8),
                     g.BufferView(buffer=0, byteOffset=8, byteLength=32)],
        accessors=[
            g.Accessor(bufferView=0, componentType=g.FLOAT, count=2, type=g.SCALAR,
                       min=[0.0], max=[seconds]),
            g.Accessor(bufferView=1, componentType=g.FLOAT, count=2, type=g.VEC4),
        ],
        animations=[g.Animation(
            name="turn",
            samplers=[g.AnimationSampler(input=0, output=1, interpolation="LINEAR")],
            channels=[g.AnimationChannel(sampler=0, target=g.AnimationChannelTarget(
                node=0, path="rotation"))],
        )],
        extensionsUsed=["VRMC_vrm_animation"],
        extensions={"VRMC_vrm_animation": {
            "specVersion": "1.0",
            "humanoid": {"humanBones": {bone: {"node": i} for i, bone in enumerate(bones)}},
        }},
    )
    gltf.set_binary_blob(blob)
    gltf.save_binary(str(path))
    return path


def make_library(folder: Path, clips=BUILTINS) -> AnimationLibrary:
    """A real AnimationLibrary over ``folder``: a manifest of ``clips`` and a small .vrma each."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "library.json").write_text(json.dumps({"clips": list(clips)}), encoding="utf-8")
    for clip in clips:
        write_vrma(folder / clip["file"])
    return AnimationLibrary(folder)


def write_png(path: Path) -> Path:
    from PIL import Image

    Image.new("RGBA", (4, 4), (255, 0, 0, 255)).save(path, format="PNG")
    return path


def sparse_file(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def db(data_dir):
    database = Database.open(data_dir)
    yield database
    database.close()


@pytest.fixture
def library(tmp_path) -> AnimationLibrary:
    return make_library(tmp_path / "builtin")


@pytest.fixture
def service(db, data_dir, library) -> AnimationService:
    return AnimationService(db, data_dir, library, clock=lambda: NOW)


def rows(db) -> dict[str, AnimationRow]:
    with db.read_session() as session:
        return {row.id: row for row in session.query(AnimationRow)}


def uploads_left(service: AnimationService) -> list[str]:
    folder = service.data_dir / "animations"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def assert_nothing_saved(service: AnimationService) -> None:
    assert uploads_left(service) == []
    assert [r for r in rows(service.db).values() if r.kind == "upload"] == []


# ------------------------------------------------------------------ refusals
def test_too_big_is_refused_before_reading(service, tmp_path, monkeypatch):
    big = sparse_file(tmp_path / "huge.vrma", 26 * 1024 * 1024)

    def never(*_a, **_k):
        raise AssertionError("the loader must not read an oversized file")

    monkeypatch.setattr(anim, "load_vrma", never)
    with pytest.raises(AnimationUploadError) as refused:
        service.upload(big)
    assert str(refused.value) == "huge.vrma is 26.0 MB; animations can be at most 25 MB"
    assert_nothing_saved(service)


def test_not_a_vrma_file_is_refused(service, tmp_path):
    png = write_png(tmp_path / "photo.png")
    with pytest.raises(AnimationUploadError, match=r"photo\.png is not a VRM animation; "
                                                   r"choose a \.vrma file"):
        service.upload(png)
    assert_nothing_saved(service)


def test_missing_file_is_refused(service, tmp_path):
    with pytest.raises(AnimationUploadError, match="no such file"):
        service.upload(tmp_path / "gone.vrma")
    assert_nothing_saved(service)


def test_png_renamed_vrma_is_refused_with_the_loaders_message(service, tmp_path):
    fake = write_png(tmp_path / "fake.vrma")
    with pytest.raises(AnimationUploadError) as refused:
        service.upload(fake)
    assert str(refused.value).startswith("fake.vrma is not a glTF")  # the loader's message
    assert_nothing_saved(service)


def test_corrupt_vrma_is_refused(service, tmp_path):
    good = write_vrma(tmp_path / "good.vrma").read_bytes()
    broken = tmp_path / "broken.vrma"
    broken.write_bytes(good[:20] + b"\x00" * 7 + good[40:60])
    with pytest.raises(AnimationUploadError) as refused:
        service.upload(broken)
    assert str(refused.value).startswith("broken.vrma")
    assert_nothing_saved(service)


def test_glb_without_the_animation_extension_is_refused(service, tmp_path):
    import pygltflib as g

    plain = g.GLTF2(asset=g.Asset(version="2.0"), nodes=[g.Node(name="hips")])
    plain.save_binary(str(tmp_path / "plain.vrma"))
    with pytest.raises(AnimationUploadError, match="VRMC_vrm_animation"):
        service.upload(tmp_path / "plain.vrma")
    assert_nothing_saved(service)


def test_loader_timeout_is_refused(service, tmp_path, monkeypatch):
    path = write_vrma(tmp_path / "slow.vrma", bones=("hips", "spine", "chest", "neck", "head"))
    monkeypatch.setattr(anim, "UPLOAD_DEADLINE_S", 1e-9)  # past before the first check
    with pytest.raises(AnimationUploadError) as refused:
        service.upload(path)
    assert "took too long" in str(refused.value)
    assert_nothing_saved(service)


def test_a_failing_database_write_leaves_no_file(service, tmp_path, monkeypatch):
    path = write_vrma(tmp_path / "wave.vrma")

    def refuse(*_a, **_k):
        raise ValueError("disk said no")

    monkeypatch.setattr(anim.store, "add_upload", refuse)
    with pytest.raises(ValueError, match="disk said no"):
        service.upload(path)
    assert_nothing_saved(service)


# ------------------------------------------------------------------ uploads
def test_good_upload_lands_once(service, tmp_path):
    path = write_vrma(tmp_path / "Happy Dance!.vrma")
    entry = service.upload(path)
    assert entry.id == "upload_happy_dance_1" and entry.kind == "upload"
    assert entry.name == "Happy Dance!" and entry.enabled and not entry.in_idle_pool
    assert uploads_left(service) == ["upload_happy_dance_1.vrma"]
    assert (service.data_dir / "animations" / "upload_happy_dance_1.vrma").read_bytes() == \
        path.read_bytes()
    assert [r.id for r in rows(service.db).values() if r.kind == "upload"] == [entry.id]
    again = service.upload(path)
    assert again.id == "upload_happy_dance_2"
    clip = service.clip(entry.id)
    assert clip.id == entry.id and clip.duration == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["idle_loop.vrma", "test.vrma"])
def test_shared_vrma_assets_upload_and_load(service, name):
    path = SHARED_ASSETS / "vrma" / name
    if not path.is_file():
        pytest.skip("shared assets not present")
    entry = service.upload(path)
    clip = service.clip(entry.id)
    assert clip.id == entry.id and clip.name == entry.name and clip.duration > 0
    assert clip.bone_rotations
    service.update(entry.id, name="Renamed")
    assert service.clip(entry.id).name == "Renamed"


def test_upload_copies_and_records_its_file_path(service, tmp_path):
    entry = service.upload(write_vrma(tmp_path / "wave.vrma"))
    assert entry.id == "upload_wave_1"
    assert uploads_left(service) == ["upload_wave_1.vrma"]
    assert service.entry("upload_wave_1").file_path == "animations/upload_wave_1.vrma"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_an_upload_is_private_whatever_the_umask(service, tmp_path):
    old = os.umask(0o022)
    try:
        service.upload(write_vrma(tmp_path / "wave.vrma"))
    finally:
        os.umask(old)
    folder = service.data_dir / "animations"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "upload_wave_1.vrma").stat().st_mode) == 0o600


def test_delete_removes_file_and_row_and_refuses_builtins(service, tmp_path):
    entry = service.upload(write_vrma(tmp_path / "spin.vrma"))
    service.delete(entry.id)
    assert_nothing_saved(service)
    with pytest.raises(ValueError, match="cannot be deleted"):
        service.delete("wave")
    with pytest.raises(AnimationNotFound):
        service.delete(entry.id)


def test_slug_ids_fit_the_action_id_pattern():
    import re

    for stem in ("Hello World", "ÜBER~~cool", "", "a" * 200, "--"):
        animation_id = f"upload_{anim.slug(stem)}_12"
        assert re.fullmatch(r"[a-z0-9_-]{1,64}", animation_id), animation_id


# ------------------------------------------------------------ pool and prompt
def real_upload(service, tmp_path, name: str):
    """Upload a small real .vrma named ``name`` through the real loader check."""
    return service.upload(write_vrma(tmp_path / f"{name}.vrma"))


def test_idle_pool_defaults_to_builtin_idles(service):
    assert service.idle_pool() == ["idle_breathe", "idle_sway"]


def test_idle_pool_drops_a_deleted_upload_and_falls_back_when_empty(service, tmp_path):
    dance = real_upload(service, tmp_path, "dance")
    service.update(dance.id, in_idle_pool=True)
    service.update("idle_breathe", in_idle_pool=False)
    service.update("idle_sway", in_idle_pool=False)
    assert service.idle_pool() == [dance.id]
    service.delete(dance.id)
    assert service.idle_pool() == ["idle_breathe", "idle_sway"]  # empty pool -> built-ins


def test_idle_pool_checks_the_library_at_read_time(service, tmp_path, db,
                                                   data_dir):
    dance = real_upload(service, tmp_path, "dance")
    service.update(dance.id, in_idle_pool=True)
    service.update("idle_sway", in_idle_pool=False)
    (data_dir / "animations" / f"{dance.id}.vrma").unlink()  # the file vanished
    assert service.idle_pool() == ["idle_breathe"]
    smaller = AnimationService(db, data_dir, make_library(
        tmp_path / "smaller", [b for b in BUILTINS if b["id"] != "idle_breathe"]))
    assert smaller.idle_pool() == ["idle_sway"]  # idle_breathe left the manifest


def test_enabled_for_prompt_lists_only_enabled(service, tmp_path):
    assert service.enabled_for_prompt() == [("wave", "waves hello"), ("nod", "nods")]
    spin = real_upload(service, tmp_path, "spin")
    service.update("wave", enabled=False)
    service.update(spin.id, description="spins around once")
    assert service.enabled_for_prompt() == [("nod", "nods"), (spin.id, "spins around once")]
    service.update(spin.id, enabled=False, description="")
    service.update("nod", description="")
    assert service.enabled_for_prompt() == [("nod", "Nod")]  # the name stands in


def test_thinking_clip_choice(service, tmp_path):
    assert service.thinking_clip() is None
    ids = [cid for cid, _ in service.thinking_choices()]
    assert ids[:6] == [b["id"] for b in BUILTINS]
    assert not {"walk", "sit"} & set(ids)  # her moves are never the thinking clip
    service.set_thinking_clip("thinking")
    assert service.thinking_clip() == "thinking"
    spin = real_upload(service, tmp_path, "spin")
    service.set_thinking_clip(spin.id)
    assert service.thinking_clip() == spin.id
    service.delete(spin.id)
    assert service.thinking_clip() is None  # it left the library
    with pytest.raises(AnimationNotFound):
        service.set_thinking_clip("nope")


def test_clip_for_builtin_comes_from_the_library(service):
    assert service.clip("wave").id == "wave"
    with pytest.raises(AnimationNotFound):
        service.clip("nope")


def test_uploads_are_registered_in_the_library(service, db, data_dir, tmp_path):
    """The mixer, idle cycle and action gate look clips up by id in the library."""
    entry = service.upload(write_vrma(tmp_path / "spin.vrma"))
    assert entry.id in service.library
    assert service.clip(entry.id).name == "Spin"
    service.update(entry.id, name="Spin around", description="turns once")
    clip = service.clip(entry.id)
    assert (clip.id, clip.name, clip.description) == (entry.id, "Spin around", "turns once")
    restarted = AnimationService(db, data_dir, make_library(tmp_path / "again"))
    assert entry.id not in restarted.library
    restarted.list_entries()  # the first read syncs: uploads join the library
    assert entry.id in restarted.library
    assert restarted.clip(entry.id).name == "Spin around"
    restarted.delete(entry.id)
    assert entry.id not in restarted.library


def test_real_builtin_manifest_syncs(db, data_dir):
    """The shipped manifest gives seven emotes and five idles."""
    assert (default_folder() / "library.json").is_file()
    service = AnimationService(db, data_dir)
    kinds = [e.kind for e in service.list_entries()]
    assert kinds.count("emote") == 7 and kinds.count("idle") == 5
