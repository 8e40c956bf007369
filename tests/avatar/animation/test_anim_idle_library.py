"""The idle cycle's rules and the animation library (manifest, lazy loading, uploads)."""

from __future__ import annotations

import json
import random
from itertools import pairwise

import pytest

from companion_desktop.avatar.animation import (
    AnimationLibrary,
    Clip,
    ClipLoadError,
    IdleCycle,
    IdleState,
)
from tests.avatar.animation.vrma_files import simple_vrma

BUILTINS = ["idle_a", "idle_b", "idle_c", "idle_d", "idle_e"]
BUSY = [IdleState(talking=True), IdleState(thinking=True), IdleState(emoting=True),
        IdleState(posing=True)]


def _cycle(seed: int = 0, library: set[str] | None = None) -> tuple[IdleCycle, set[str]]:
    ids = set(BUILTINS) | {"up_1", "up_2"} if library is None else library
    return IdleCycle(random.Random(seed), lambda: ids, BUILTINS), ids


def _run(cycle: IdleCycle, loops: int, state: IdleState | None = None) -> list[str]:
    """The clip ids played over ``loops`` loop ends (the current clip at each)."""
    played = [cycle.start()]
    for _ in range(loops):
        nxt = cycle.on_loop_finished(state)
        if nxt is not None:
            played.append(nxt)
    return played


@pytest.mark.parametrize("seed", range(20))
def test_never_the_same_clip_twice_in_a_row(seed):
    cycle, _ = _cycle(seed)
    cycle.set_pool(["idle_a", "idle_b", "up_1"])
    played = _run(cycle, 60)
    assert all(a != b for a, b in pairwise(played))
    assert set(played) <= {"idle_a", "idle_b", "up_1"}
    assert len(set(played)) == 3


@pytest.mark.parametrize("seed", range(20))
def test_switches_after_one_or_two_loops(seed):
    cycle, _ = _cycle(seed)
    cycle.set_pool(BUILTINS)
    cycle.start()
    runs, loops = [], 0
    for _ in range(80):
        loops += 1
        if cycle.on_loop_finished() is not None:
            runs.append(loops)
            loops = 0
    assert set(runs) <= {1, 2}
    assert set(runs) == {1, 2}  # both happen over 80 loops


def test_one_clip_pool_keeps_looping_it():
    cycle, _ = _cycle()
    cycle.set_pool(["up_1"])
    assert cycle.start() == "up_1"
    assert all(cycle.on_loop_finished() is None for _ in range(10))
    assert cycle.next_clip("up_1") == "up_1"


@pytest.mark.parametrize("state", BUSY)
def test_waits_while_busy(state):
    cycle, _ = _cycle(3)
    cycle.set_pool(BUILTINS)
    first = cycle.start()
    assert all(cycle.on_loop_finished(state) is None for _ in range(10))
    assert cycle.current == first
    nxt = cycle.on_loop_finished(IdleState())  # free again: switches at this loop end
    assert nxt is not None and nxt != first


def test_unknown_and_deleted_ids_drop_out_at_read_time():
    library = set(BUILTINS) | {"up_1", "up_2"}
    cycle = IdleCycle(random.Random(1), lambda: library, BUILTINS)
    cycle.set_pool(["up_1", "up_2", "ghost"])
    assert cycle.pool() == ["up_1", "up_2"]
    library.discard("up_2")  # the upload was deleted
    assert cycle.pool() == ["up_1"]
    cycle.current = "up_2"
    assert cycle.on_loop_finished() == "up_1"  # the playing clip left: move on at once


def test_empty_pool_falls_back_to_the_builtin_idles():
    library = set(BUILTINS) | {"up_1"}
    cycle = IdleCycle(random.Random(2), lambda: library, BUILTINS)
    assert cycle.pool() == BUILTINS
    cycle.set_pool(["up_1"])
    library.discard("up_1")
    assert cycle.pool() == BUILTINS
    assert cycle.start() in BUILTINS


# -- the library ---------------------------------------------------------------------------

def _folder(tmp_path, clips):
    folder = tmp_path / "animations"
    folder.mkdir()
    for item in clips:
        if item.get("file", "").endswith(".vrma") and not item.get("missing"):
            simple_vrma(folder / item["file"], expression="happy")
    (folder / "library.json").write_text(json.dumps({"clips": clips}))
    return folder


MANIFEST = [
    {"id": "idle_a", "name": "Calm", "kind": "idle", "file": "idle_a.vrma",
     "description": "standing calmly"},
    {"id": "wave", "name": "Wave", "kind": "emote", "file": "wave.vrma",
     "description": "waves hello"},
    {"id": "talk", "name": "Talking", "kind": "talking", "file": "talk.vrma"},
    {"id": "think", "name": "Thinking", "kind": "thinking", "file": "think.vrma"},
    {"id": "bad kind", "kind": "dance", "file": "x.vrma"},
    {"id": "escape", "kind": "idle", "file": "../outside.vrma"},
    {"id": "broken", "kind": "emote", "file": "broken.vrma", "missing": True},
]


def test_manifest_entries_and_lazy_loading(tmp_path):
    folder = _folder(tmp_path, MANIFEST)
    (folder / "broken.vrma").write_bytes(b"not a clip")
    calls = []

    def loader(path, **kwargs):
        calls.append(path.name)
        from companion_desktop.avatar.animation import load_vrma

        return load_vrma(path, **kwargs)

    library = AnimationLibrary(folder, loader=loader)
    assert library.ids() == {"idle_a", "wave", "talk", "think", "broken"}
    assert library.builtin_idle_ids == ["idle_a"]
    assert library.emote_ids == ["wave", "broken"]
    assert library.talking_id == "talk" and library.thinking_ids == ["think"]
    assert calls == []  # nothing parsed yet
    wave = library.get("wave")
    assert (wave.id, wave.name, wave.description, wave.loop) == \
        ("wave", "Wave", "waves hello", False)
    assert library.get("idle_a").loop
    assert library.get("wave") is wave and calls == ["wave.vrma", "idle_a.vrma"]
    with pytest.raises(ClipLoadError):
        library.get("broken")
    with pytest.raises(ClipLoadError):
        library.get("broken")
    assert calls.count("broken.vrma") == 1  # the failure is remembered, not re-parsed
    assert library.find("broken") is None and library.find("nope") is None
    with pytest.raises(KeyError):
        library.get("nope")
    entries = library.manifest_entries()
    assert [e.id for e in entries] == ["idle_a", "wave", "talk", "think", "broken"]
    assert entries[0].file == "idle_a.vrma" and entries[0].builtin


def test_uploads_and_reload(tmp_path):
    folder = _folder(tmp_path, MANIFEST[:2])
    library = AnimationLibrary(folder)
    upload = simple_vrma(tmp_path / "mine.vrma")
    library.add_file("upload_mine_1", upload, name="Mine")
    built = Clip(id="coded", name="Coded", duration=1.0)
    library.add_clip(built)
    assert {"upload_mine_1", "coded"} <= library.ids()
    assert library.get("upload_mine_1").name == "Mine"
    assert library.get("coded") is built
    first = library.get("idle_a")
    (folder / "library.json").write_text(json.dumps({"clips": MANIFEST[1:2]}))
    library.reload()
    assert "idle_a" not in library.ids() and "upload_mine_1" in library.ids()
    assert library.get("coded") is built
    assert library.get("wave") is not first
    assert library.remove("upload_mine_1") and not library.remove("upload_mine_1")
    assert "upload_mine_1" not in library.ids()


def test_missing_or_broken_manifest_gives_an_empty_library(tmp_path):
    assert AnimationLibrary(tmp_path / "none").ids() == set()
    (tmp_path / "library.json").write_text("{not json")
    assert AnimationLibrary(tmp_path).ids() == set()


def test_the_idle_cycle_reads_the_library(tmp_path):
    folder = _folder(tmp_path, MANIFEST[:2])
    library = AnimationLibrary(folder)
    library.add_file("up", simple_vrma(tmp_path / "up.vrma"))
    cycle = IdleCycle(random.Random(4), library.ids, library.builtin_idle_ids)
    cycle.set_pool(["up"])
    assert cycle.pool() == ["up"]
    library.remove("up")
    assert cycle.pool() == ["idle_a"]
