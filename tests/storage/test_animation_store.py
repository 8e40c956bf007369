"""The animation library rows: built-in sync keeps user edits, validation, uploads."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.storage import animations as store
from companion_desktop.storage.animations import AnimationNotFound, AnimationSettings
from companion_desktop.storage.settings import load_settings, save_settings

MANIFEST = [
    {"id": "idle_breathe", "name": "Breathe", "kind": "idle", "file": "idle_breathe.vrma",
     "description": "standing and breathing", "loop": True},
    {"id": "idle_sway", "name": "Sway", "kind": "idle", "file": "idle_sway.vrma"},
    {"id": "wave", "name": "Wave", "kind": "emote", "file": "wave.vrma",
     "description": "waves hello", "loop": False},
    {"id": "nod", "name": "Nod", "kind": "emote", "file": "nod.vrma", "description": "nods"},
    {"id": "talking", "name": "Talking", "kind": "talking", "file": "talking.vrma"},
    {"id": "thinking", "name": "Thinking", "kind": "thinking", "file": "thinking.vrma"},
]


def entries(db):
    with db.read_session() as session:
        return {e.id: e for e in store.list_entries(session)}


def test_sync_inserts_idles_and_emotes_with_their_defaults(db, now):
    with db.session() as session:
        store.sync_builtins(session, MANIFEST, now)
    found = entries(db)
    assert set(found) == {"idle_breathe", "idle_sway", "wave", "nod"}  # no talking/thinking
    assert found["idle_breathe"].in_idle_pool and not found["idle_breathe"].enabled
    assert found["wave"].enabled and not found["wave"].in_idle_pool
    assert found["wave"].description == "waves hello" and found["wave"].kind == "emote"
    assert found["wave"].file_path == "wave.vrma" and found["wave"].builtin
    assert found["wave"].created_at == now


def test_list_orders_idles_emotes_uploads(db, now):
    with db.session() as session:
        store.add_upload(session, "upload_a_1", "A", "", "animations/upload_a_1.vrma", now)
        store.sync_builtins(session, MANIFEST, now + timedelta(seconds=1))
        kinds = [e.kind for e in store.list_entries(session)]
    assert kinds == ["idle", "idle", "emote", "emote", "upload"]


def test_sync_keeps_user_edits_and_drops_builtins_gone_from_manifest(db, now):
    with db.session() as session:
        store.sync_builtins(session, MANIFEST, now)
        store.update_entry(session, "wave", name="Big wave", description="waves both arms",
                           enabled=False)
        store.update_entry(session, "idle_breathe", in_idle_pool=False)
        store.add_upload(session, "upload_spin_1", "Spin", "spins", "animations/x.vrma", now)
    changed = [dict(m, name="New name", description="new") if m["id"] == "wave" else m
               for m in MANIFEST if m["id"] != "nod"]
    with db.session() as session:
        store.sync_builtins(session, changed, now + timedelta(days=1))
    found = entries(db)
    assert "nod" not in found
    assert (found["wave"].name, found["wave"].description, found["wave"].enabled) == (
        "Big wave", "waves both arms", False)
    assert found["idle_breathe"].in_idle_pool is False
    assert found["upload_spin_1"].name == "Spin"  # uploads are never touched by a sync


def test_update_validates_name_and_description(db, now):
    with db.session() as session:
        store.sync_builtins(session, MANIFEST, now)
    with db.session() as session:
        with pytest.raises(ValueError, match="needs a name"):
            store.update_entry(session, "wave", name="   ")
        with pytest.raises(ValueError, match="at most 60 characters"):
            store.update_entry(session, "wave", name="x" * 61)
        with pytest.raises(ValueError, match="at most 200 characters"):
            store.update_entry(session, "wave", description="y" * 201)
        with pytest.raises(ValueError, match="only idles and uploads"):
            store.update_entry(session, "wave", in_idle_pool=True)
        with pytest.raises(AnimationNotFound, match="no animation 'nope'"):
            store.update_entry(session, "nope", name="x")
        entry = store.update_entry(session, "wave", name="  " + "n" * 60 + " ",
                                   description="d" * 200)
    assert entry.name == "n" * 60
    assert entries(db)["wave"].description == "d" * 200


def test_upload_round_trip_and_delete(db, now):
    with db.session() as session:
        added = store.add_upload(session, "upload_dance_1", "Dance", "a little dance",
                                 "animations/upload_dance_1.vrma", now)
    assert added.kind == "upload" and added.enabled and not added.in_idle_pool
    assert not added.builtin
    assert entries(db)["upload_dance_1"] == added
    with db.session() as session:
        with pytest.raises(ValueError, match="already in use"):
            store.add_upload(session, "upload_dance_1", "Again", "", "x", now)
    with db.session() as session:
        removed = store.delete_upload(session, "upload_dance_1")
    assert removed == added
    assert "upload_dance_1" not in entries(db)


def test_upload_refuses_bad_ids_and_names(db, now):
    with db.session() as session:
        for bad in ("", "Upper", "has space", "x" * 65):
            with pytest.raises(ValueError, match="not a valid animation id"):
                store.add_upload(session, bad, "Name", "", "f", now)
        with pytest.raises(ValueError, match="needs a name"):
            store.add_upload(session, "ok_id", "", "", "f", now)
    assert entries(db) == {}


def test_builtins_cannot_be_deleted(db, now):
    with db.session() as session:
        store.sync_builtins(session, MANIFEST, now)
    with db.session() as session:
        with pytest.raises(ValueError, match="built in and cannot be deleted"):
            store.delete_upload(session, "wave")
        with pytest.raises(AnimationNotFound):
            store.delete_upload(session, "missing")
    assert "wave" in entries(db)


def test_thinking_clip_setting_round_trip(db, now):
    with db.read_session() as session:
        assert load_settings(session, AnimationSettings).thinking_clip is None
    with db.session() as session:
        save_settings(session, AnimationSettings(thinking_clip="thinking"), now)
    with db.read_session() as session:
        assert load_settings(session, AnimationSettings).thinking_clip == "thinking"
