"""A card's import: parsed and checked whole, then one transaction; a new relationship
backs up first; nothing but her persona, card and lorebook changes."""

from __future__ import annotations

import json
import struct

import pytest

from companion_desktop.engine.card import CardError
from companion_desktop.storage import repository
from companion_desktop.storage.backup import list_backups
from companion_desktop.storage.card_store import StoredCard, current_card, import_card, load_card
from companion_desktop.storage.settings import LlmSettings, load_settings, save_settings
from tests.storage.card_samples import (
    SIGNATURE,
    card_png,
    ihdr,
    png_chunk,
    text_chunk,
    v2_card,
    world_info,
)
from tests.storage.test_card_file import read as parsed


@pytest.fixture
def lived(db, now):
    """She has lived a little: stats, a turn, a provider setting."""
    with db.session() as session:
        state = repository.load_or_create_character(session, now)
        state.affection, state.total_interactions = 120, 9
        repository.save_character(session, state)
        sid = repository.start_session(session, now)
        repository.add_turn(session, sid, "user", "hello Hana", now)
        save_settings(session, LlmSettings(provider="openai", model="gpt-x"), now)
    return db


def test_a_new_relationship_backs_up_first_and_starts_with_her_greeting(lived, now, data_dir):
    done = import_card(lived, parsed(card_png(chara=v2_card())), False, now, "mira.png",
                       greeting=2)
    assert done.backup is not None and [b.path for b in list_backups(data_dir)] == [done.backup]
    with lived.read_session() as session:
        state = repository.load_character(session)
        turns = repository.recent_turns(session)
        llm = load_settings(session, LlmSettings)
        card = load_card(session)
    assert (state.name, state.affection, state.total_interactions) == ("Mira", 0, 0)
    assert state.system_prompt.startswith("{{char}} is a lighthouse painter")
    assert [(t.role, t.content) for t in turns] == [("assistant", "You smell like rain.")]
    assert (llm.provider, llm.model) == ("openai", "gpt-x")  # no other setting changes
    assert card.present and card.tags == ["sea", "painter"] and len(card.lorebook) == 2
    assert card.portrait() is not None and card.portrait().startswith(SIGNATURE)


def test_keeping_the_relationship_keeps_stats_and_memories(lived, now, data_dir):
    done = import_card(lived, parsed(card_png(chara=v2_card())), True, now)
    assert done.backup is None and done.greeting == ""
    with lived.read_session() as session:
        state = repository.load_character(session)
        turns = repository.recent_turns(session)
    assert (state.name, state.affection, state.total_interactions) == ("Mira", 120, 9)
    assert [t.content for t in turns] == ["hello Hana"]


def test_a_refused_card_writes_nothing(lived, now, data_dir):
    too_long = v2_card(description="x" * 12_000, personality="y" * 4000, scenario="z" * 4000)
    with pytest.raises(CardError, match="her persona holds at most"):
        import_card(lived, parsed(card_png(chara=too_long)), False, now)
    with lived.read_session() as session:
        assert repository.load_character(session).name == "Hana"
        assert not load_card(session).present
    assert list_backups(data_dir) == []


def test_a_decompression_bomb_image_keeps_the_card_but_not_the_picture(lived, now):
    bomb = (SIGNATURE + ihdr(60_000, 60_000) + text_chunk(b"chara", v2_card())
            + png_chunk(b"IDAT", b"\x78\x9c" + b"\0" * 64) + png_chunk(b"IEND", b""))
    done = import_card(lived, parsed(bomb), True, now)
    assert done.name == "Mira" and "60000x60000" in done.notes[0]
    with lived.read_session() as session:
        assert load_card(session).portrait() is None


def test_world_info_adds_to_her_lorebook_only(lived, now):
    import_card(lived, parsed(card_png(chara=v2_card())), True, now)
    done = import_card(lived, parsed(json.dumps(world_info()).encode()), True, now)
    assert done.entries == 4 and done.name == "Mira"
    with lived.read_session() as session:
        assert [e.name for e in load_card(session).lorebook] == [
            "lighthouse", "kraken", "storm", "gulls"]


def test_the_saved_card_reads_back_as_a_card(lived, now):
    import_card(lived, parsed(card_png(chara=v2_card())), True, now)
    with lived.read_session() as session:
        card = current_card(session, now)
    assert (card.name, card.personality, card.scenario) == (
        "Mira", "calm, teasing, loyal", "{{user}} visits her studio.")
    with lived.session() as session:  # the persona edited in Settings: it all goes out
        state = repository.load_character(session)
        state.system_prompt = "Mira paints."
        repository.save_character(session, state)
    with lived.read_session() as session:
        card = current_card(session, now)
    assert (card.description, card.personality) == ("Mira paints.", "")


def test_stored_card_validates_its_limits():
    with pytest.raises(ValueError):
        StoredCard(lorebook=[{"content": "x"}] * 1001)
    assert struct  # the chunk writer above is the test's own


def test_a_charx_icon_is_her_portrait_and_its_other_files_are_named_as_unused(lived, now):
    from tests.storage.card_samples import charx, tiny_png, v3_card

    extra = {"assets/background/images/beach.png": tiny_png(8, 8),
             "assets/emotion/images/happy.png": tiny_png(8, 8)}
    found = parsed(charx(v3_card(name="Xia"), icon=tiny_png(16, 16), extra=extra))
    assert found.unused_assets == 2
    done = import_card(lived, found, True, now, "xia.charx")
    assert done.notes == ("The card's 2 other files are not used (backgrounds, expressions): "
                          "her 3D avatar stays as it is.",)
    with lived.read_session() as session:
        assert load_card(session).portrait() is not None
    plain = parsed(charx(v3_card(name="Xia"), icon=tiny_png(16, 16)))
    assert plain.unused_assets == 0 and import_card(lived, plain, True, now).notes == ()
