"""With voice on, the runner hands her finished sentences to ``hooks.on_speech`` while the
reply streams (with her mood as the turn began); the saved turn and ``result.speech`` are
what they always were."""

from __future__ import annotations

from companion_desktop.engine.character import MoodState
from companion_desktop.engine.speech_stream import remaining_speech, spoken_words
from companion_desktop.storage.settings import VoiceSettings, load_settings, save_settings
from tests.pipeline.test_runner import (
    BLOCK,
    Hooks,
    Scripted,
    runner_for,
    service,  # noqa: F401 - fixture
    turns,
)

REPLY = ("Oh, you're back! I missed you so much. How was the hike? Tell me everything, "
         "the trail and the view.\n" + BLOCK)


class SpeechHooks(Hooks):
    def __init__(self) -> None:
        super().__init__()
        self.spoken: list[tuple[int, list, MoodState]] = []  # (texts seen, parts, mood)

    def on_speech(self, parts, mood) -> None:
        self.spoken.append((len(self.texts), list(parts), mood))


def voice(service, on: bool) -> None:
    with service.db.session() as session:
        settings = load_settings(session, VoiceSettings)
        settings.enabled = on
        save_settings(session, settings)


def test_sentences_are_handed_over_while_the_reply_streams(service):
    voice(service, True)
    mood = service.load(runner_for(service, Scripted()).clock()).state.mood
    hooks = SpeechHooks()
    result = runner_for(service, Scripted(REPLY)).run("I'm back from the hike!", hooks)
    assert hooks.spoken, "nothing was handed over while streaming"
    first_at = hooks.spoken[0][0]
    assert first_at < len(hooks.texts) // 2  # the first sentence went early
    streamed = [part for _, parts, _ in hooks.spoken for part in parts]
    assert [p.text for p in streamed][:2] == ["Oh, you're back!", "I missed you so much."]
    assert all(m == mood for _, _, m in hooks.spoken)  # the mood the turn began in
    # what streamed starts the final words; the saved turn is unchanged by it
    assert spoken_words(streamed) == spoken_words(result.speech)[:len(spoken_words(streamed))]
    assert spoken_words(result.speech)[-3:] == ["and", "the", "view"]
    assert turns(service)[-1].content == result.reply


def test_nothing_is_handed_over_with_voice_off_or_without_the_hook(service):
    voice(service, False)
    hooks = SpeechHooks()
    result = runner_for(service, Scripted(REPLY)).run("hi", hooks)
    assert hooks.spoken == [] and result.speech == []
    voice(service, True)
    result = runner_for(service, Scripted(REPLY)).run("hi", Hooks())  # no on_speech
    assert result.speech


def test_a_fake_user_turn_the_parser_cuts_is_never_handed_over(service):
    voice(service, True)
    hooks = SpeechHooks()
    reply = "Sure thing. I can help with that!\nUser: and what about me?\nMia: Nothing. Really."
    result = runner_for(service, Scripted(reply)).run("help?", hooks)
    streamed = [part for _, parts, _ in hooks.spoken for part in parts]
    assert spoken_words(result.speech) == ["sure", "thing", "i", "can", "help", "with", "that"]
    said = streamed + remaining_speech(streamed, result.speech)
    assert spoken_words(said) == spoken_words(result.speech)
