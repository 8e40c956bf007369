"""Her card's greetings after the import: the open greeting is rewritten in place when
another is chosen, an answered one never is, and a new relationship on the card she
already is backs up first and keeps her persona, card and lorebook."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.storage import repository
from companion_desktop.storage.backup import list_backups
from companion_desktop.storage.card_greeting import choose_greeting, open_greeting, start_again
from companion_desktop.storage.card_store import import_card, load_card
from tests.storage.card_samples import card_png, v2_card
from tests.storage.test_card_file import read as parsed

CHOICES = ("Oh! User, you came. Mind the wet paint.", "The tide is high today.",
           "You smell like rain.")


@pytest.fixture
def mira(db, now):
    import_card(db, parsed(card_png(chara=v2_card())), False, now, "mira.png")
    return db


def turns(db):
    with db.read_session() as session:
        return [(t.role, t.content) for t in repository.recent_turns(session)]


def test_her_open_greeting_offers_every_greeting_and_takes_the_chosen_one(mira):
    with mira.read_session() as session:
        found = open_greeting(session)
    assert found is not None and (found.index, found.choices) == (0, CHOICES)
    chosen = choose_greeting(mira, 2)
    assert chosen is not None and chosen.text == "You smell like rain." and chosen.index == 2
    assert turns(mira) == [("assistant", "You smell like rain.")]
    with mira.read_session() as session:
        assert open_greeting(session).index == 2 and load_card(session).greeting == 2
    with pytest.raises(ValueError, match="3 greetings"):
        choose_greeting(mira, 3)
    assert turns(mira) == [("assistant", "You smell like rain.")]


def test_an_answered_greeting_stays_and_the_choice_waits_for_the_next_start(mira, now):
    with mira.session() as session:
        repository.add_turn(session, None, "user", "Hi Mira", now + timedelta(seconds=5))
        assert open_greeting(session) is None
    assert choose_greeting(mira, 1) is None
    assert turns(mira) == [("assistant", CHOICES[0]), ("user", "Hi Mira")]
    with mira.read_session() as session:
        assert load_card(session).greeting == 1


def test_a_new_relationship_on_her_card_backs_up_and_greets_anew(mira, now, data_dir):
    with mira.session() as session:
        state = repository.load_or_create_character(session, now)
        state.affection = 300
        repository.save_character(session, state)
        repository.add_turn(session, None, "user", "I love the lighthouse", now)
    choose_greeting(mira, 1)
    later = now + timedelta(days=3)
    done = start_again(mira, later)
    assert done.restarted and done.new_relationship and done.greeting == CHOICES[1]
    assert done.backup in [b.path for b in list_backups(data_dir)]
    assert turns(mira) == [("assistant", CHOICES[1])]
    with mira.read_session() as session:
        state = repository.load_character(session)
        card = load_card(session)
        found = open_greeting(session)
    assert (state.name, state.affection) == ("Mira", 0)
    assert state.system_prompt.startswith("{{char}} is a lighthouse painter")
    assert card.present and len(card.lorebook) == 2
    assert found is not None and found.index == 1
