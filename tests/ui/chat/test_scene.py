"""The scene window: choices record the event, markers and the state change."""

from __future__ import annotations

from companion_desktop.engine.events import CONFESSION_MARKER, EVENTS_BY_ID
from companion_desktop.storage.events import event_history
from tests.conftest import T0


def test_confession_accept_grants_the_marker(qtbot, service):
    from companion_desktop.ui.chat.scene import SceneDialog

    event = EVENTS_BY_ID["confession"]
    accept = next(i for i, c in enumerate(event.scene.choices) if CONFESSION_MARKER in c.unlocks)
    dialog = SceneDialog(event, service, lambda: T0)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.dialogue.text() == event.scene.dialogue
    with qtbot.waitSignal(dialog.finished_with):
        dialog.choices[accept].click()
    assert (dialog.response.isVisible()
            and dialog.response.text() == event.scene.choices[accept].response)
    assert all(not b.isEnabled() for b in dialog.choices)
    state = service.load(T0).state
    assert CONFESSION_MARKER in state.completed_events and "confession" in state.completed_events
    with service.db.read_session() as session:
        assert "confession" in event_history(session)
    dialog.accept()


def test_defer_leaves_the_stage_locked(qtbot, service):
    from companion_desktop.ui.chat.scene import SceneDialog

    event = EVENTS_BY_ID["confession"]
    defer = next(i for i, c in enumerate(event.scene.choices) if CONFESSION_MARKER not in c.unlocks)
    dialog = SceneDialog(event, service, lambda: T0)
    qtbot.addWidget(dialog)
    dialog.choices[defer].click()
    assert CONFESSION_MARKER not in service.load(T0).state.completed_events


def test_closing_without_a_choice_records_it_as_seen(qtbot, service):
    from companion_desktop.ui.chat.scene import SceneDialog

    event = next(iter(EVENTS_BY_ID.values()))
    dialog = SceneDialog(event, service, lambda: T0)
    qtbot.addWidget(dialog)
    dialog.reject()
    assert event.id in service.load(T0).state.completed_events


def test_a_turn_that_fires_an_event_opens_its_scene(qtbot, chat, server):
    from PySide6.QtCore import Qt

    from tests.ui.scripted_provider import Script, reply_with_block

    server.scripts.append(Script(reply_with_block("Oh, hello! It's lovely to meet you.",
                                                  affection_delta=2)))
    chat.input.setPlainText("Hi! I'm new here.")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: getattr(chat, "_scene_dialog", None) is not None, timeout=15000)
    dialog = chat._scene_dialog
    assert dialog.isVisible() and dialog.choices
    with qtbot.waitSignal(dialog.finished_with):
        dialog.choices[0].click()
    assert dialog.moment.id in chat.service.load(T0).state.completed_events
    dialog.accept()
