"""Image turns and spoken replies through the real runner and a real database."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from companion_desktop.llm.base import ProviderConfig, ServerError
from companion_desktop.llm.vision import VisionUnavailableError
from companion_desktop.pipeline.images import prepare_image_bytes
from companion_desktop.pipeline.runner import (
    PHASE_SEEING,
    PHASE_THINKING,
    SHOW_ONLY_TEXT,
    TurnRunner,
)
from companion_desktop.storage import keepsakes, repository
from companion_desktop.storage.models import TurnRow
from companion_desktop.storage.settings import VoiceSettings, load_settings, save_settings
from tests.conftest import T0
from tests.pipeline.test_runner import BLOCK, Hooks, Scripted, service  # noqa: F401 - fixture

NO_MEMORY_BLOCK = '```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5}}\n```'


class Vision(Scripted):
    """The scripted provider presenting itself as a vision-capable cloud model."""

    def __init__(self, *replies: str, provider_id: str = "openai", model: str = "gpt-4o", **kw):
        super().__init__(*replies, **kw)
        self.config = ProviderConfig(provider_id, "http://127.0.0.1:9/v1", model)


def photo(size=(2400, 1600), colour=(200, 90, 40)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "JPEG")
    return buffer.getvalue()


def kept_files(data_dir: Path) -> list[Path]:
    folder = data_dir / "keepsakes"
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.exists() else []


def test_image_turn_is_seen_sent_and_kept(service):
    provider = Vision("What a sunset! The orange sky is gorgeous.\n" + BLOCK)
    runner = TurnRunner(service, provider, lambda: T0)
    hooks = Hooks()
    image = prepare_image_bytes(photo(), "beach-trip.jpg")
    result = runner.run("Look where I was today", hooks, image=image)

    assert PHASE_SEEING in hooks.phases and PHASE_THINKING not in hooks.phases
    system, messages = provider.calls[0]
    assert "<being_shown>" in system and "beach-trip.jpg" in system
    assert messages[-1].content == "Look where I was today"
    assert len(messages[-1].images) == 1
    sent = messages[-1].images[0]
    assert sent.data == image.data and max(Image.open(io.BytesIO(sent.data)).size) == 1568

    assert result.keepsake is not None and result.keepsake.note == "They love hiking"
    with service.db.read_session() as session:
        rows = keepsakes.list_keepsakes(session, service.db.path.parent)
        user_turn = session.get(TurnRow, repository.last_turn_id(session, "user"))
    assert [k.id for k in rows] == [result.keepsake.id]
    assert rows[0].turn_id == user_turn.id and user_turn.meta["image"] == {"name": "beach-trip.jpg"}
    assert rows[0].image_path.read_bytes() == image.data
    assert Image.open(rows[0].thumbnail_path).size[0] <= 320


def test_photo_without_words_and_note_from_her_reply(service):
    provider = Vision("Aww, a sleepy cat. I love the little paws! " + NO_MEMORY_BLOCK)
    runner = TurnRunner(service, provider, lambda: T0)
    result = runner.run("  ", image=prepare_image_bytes(photo((300, 200)), "IMG_0042.jpg"))
    _system, messages = provider.calls[0]
    assert messages[-1].content == SHOW_ONLY_TEXT
    assert "IMG_0042" not in _system  # a camera file name says nothing
    assert result.keepsake.note == "Aww, a sleepy cat."
    # The next turn's history says a photo was shown.
    provider.replies.append("Sure! " + NO_MEMORY_BLOCK)
    runner.run("Did you like it?")
    history = provider.calls[1][1]
    assert history[-3].content.startswith(SHOW_ONLY_TEXT) and not history[-3].images


def test_text_only_model_refuses_before_anything_happens(service):
    provider = Vision("unused", provider_id="ollama", model="llama3.1:8b")
    runner = TurnRunner(service, provider, lambda: T0)
    with pytest.raises(VisionUnavailableError, match="can't see images"):
        runner.run("look", image=prepare_image_bytes(photo((64, 64))))
    assert provider.calls == []
    with service.db.read_session() as session:
        assert repository.count_session_turns(session, runner.session_id) == 0
        assert keepsakes.keepsake_count(session) == 0
    assert kept_files(service.db.path.parent) == []


def test_local_vision_model_by_name(service):
    provider = Vision("Nice! " + NO_MEMORY_BLOCK, provider_id="ollama", model="qwen2.5vl:7b")
    runner = TurnRunner(service, provider, lambda: T0)
    result = runner.run("look", image=prepare_image_bytes(photo((64, 64))))
    assert result.keepsake is not None


def test_failed_image_turn_keeps_nothing(service):
    provider = Vision("A long reply that breaks halfway through the stream", fail_after=14)
    runner = TurnRunner(service, provider, lambda: T0)
    with pytest.raises(ServerError):
        runner.run("look", image=prepare_image_bytes(photo((64, 64))))
    with service.db.read_session() as session:
        assert keepsakes.keepsake_count(session) == 0
        assert repository.count_session_turns(session, runner.session_id) == 0
    assert kept_files(service.db.path.parent) == []


def enable_voice(service, on: bool = True) -> None:
    with service.db.session() as session:
        settings = load_settings(session, VoiceSettings)
        settings.enabled = on
        save_settings(session, settings)


def test_spoken_reply_markup_is_parsed_out(service):
    enable_voice(service)
    reply = '*waves* speak("Hi there, welcome back!") speak("Missed you.", rate=9)\n' + BLOCK
    provider = Scripted(reply)
    runner = TurnRunner(service, provider, lambda: T0)
    hooks = Hooks()
    result = runner.run("Hello!", hooks)
    assert "<speech_output_control>" in provider.calls[0][0]
    assert "speak(" not in result.reply and "Hi there, welcome back!" in result.reply
    assert [p.text for p in result.speech] == ["Hi there, welcome back!", "Missed you."]
    assert result.speech[1].rate == 2.0  # the model's number is bounded
    assert all("speak(" not in text for text in hooks.texts)
    with service.db.read_session() as session:
        stored = repository.recent_turns(session, 2)
    assert stored[-1].content == result.reply


def test_voice_off_means_no_speech_layer_and_nothing_spoken(service):
    provider = Scripted('speak("Hi!") there\n' + BLOCK)
    result = TurnRunner(service, provider, lambda: T0).run("Hello!")
    assert "<speech_output_control>" not in provider.calls[0][0]
    assert result.speech == [] and "speak(" not in result.reply
