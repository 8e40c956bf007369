"""A scene being written stops when the turn's cancel token is set (Stop, or quitting):
the built-in scene plays at once instead of after the 15 s limit."""

from __future__ import annotations

import threading
import time

from companion_desktop.engine.events import EVENTS_BY_ID
from companion_desktop.llm.base import CancelToken, ProviderConfig
from companion_desktop.llm.registry import create_provider
from companion_desktop.pipeline.moments import MomentGenerator
from tests.conftest import T0
from tests.pipeline.test_runner import service  # noqa: F401 - the fixture
from tests.ui.scripted_provider import Script, ScriptedServer

EVENT = EVENTS_BY_ID["confession"]


def test_a_cancelled_turn_stops_the_scene_call(service):  # noqa: F811
    with ScriptedServer() as server:
        server.default = Script(first_delay=10.0)  # the model takes its time
        provider = create_provider(ProviderConfig("openai-compatible", server.base_url, "m"))
        state = service.load(T0).state
        cancel = CancelToken()
        cancelled_at: list[float] = []

        def stop_once_asked() -> None:  # Stop, once the server has the request
            deadline = time.monotonic() + 10.0
            while not server.requests and time.monotonic() < deadline:
                time.sleep(0.01)
            cancelled_at.append(time.monotonic())
            cancel.cancel()

        threading.Thread(target=stop_once_asked, daemon=True).start()
        moment = MomentGenerator(service.db).personalize(EVENT, provider, state, [], T0,
                                                         cancel=cancel)
        ended = time.monotonic()
        assert moment is EVENT  # the built-in scene
        assert len(server.requests) == 1  # it was asked, then abandoned
        assert cancelled_at and ended - cancelled_at[0] < 2.0  # not the 10 s reply


def test_an_already_cancelled_turn_asks_nothing(service):  # noqa: F811
    with ScriptedServer() as server:
        provider = create_provider(ProviderConfig("openai-compatible", server.base_url, "m"))
        cancel = CancelToken()
        cancel.cancel()
        state = service.load(T0).state
        assert MomentGenerator(service.db).personalize(EVENT, provider, state, [], T0,
                                                       cancel=cancel) is EVENT
        assert server.requests == []
