"""Glances through the real runner: the picture reaches a model on 127.0.0.1 once, is never
kept, and glances share speaking first's daily cap (the clock passed in)."""

from __future__ import annotations

import io
from datetime import timedelta

from PIL import Image

from companion_desktop.pipeline.glance import Glances
from companion_desktop.pipeline.proactive import SpeakFirst
from companion_desktop.storage import keepsakes
from tests.conftest import T0
from tests.pipeline.test_proactive_turns import Clock, configure, setup  # noqa: F401 - fixture


def png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 200), (255, 0, 0)).save(buffer, "PNG")
    return buffer.getvalue()


def test_a_glance_is_sent_once_and_counts_toward_the_daily_cap(setup):  # noqa: F811
    db, server, clock, runner, _windows = setup
    from companion_desktop.llm.base import ProviderConfig
    from companion_desktop.llm.registry import create_provider

    runner.provider = create_provider(ProviderConfig("openai-compatible", server.base_url,
                                                     "llava-test"))
    configure(db, glance=True, glance_minutes=10, daily_cap=2, gap_minutes=30)
    glances = Glances(SpeakFirst(db, clock), clock)
    idle = timedelta(seconds=5)
    assert glances.verdict(idle, False).kind == "glance"
    glances.tried()
    result = glances.glance(runner, png(), "Firefox")
    assert result is not None and result.keepsake is None
    request = server.requests[-1]
    assert "untrusted" in request["messages"][0]["content"]
    assert any(isinstance(m["content"], list) for m in request["messages"])
    with db.read_session() as session:
        assert keepsakes.keepsake_count(session) == 0
    assert glances.verdict(idle, False).why == "too soon"  # the gap, shared
    clock.now = T0 + timedelta(minutes=31)
    assert glances.verdict(idle, False).kind == "glance"
    glances.tried()
    assert glances.glance(runner, png(), "Firefox") is not None
    clock.now = T0 + timedelta(minutes=62)
    assert glances.verdict(idle, False).why == "daily cap reached"
    configure(db, glance=False)
    assert glances.verdict(idle, False).why == "off"


def test_a_text_only_model_is_never_sent_the_picture(setup):  # noqa: F811
    db, server, clock, runner, _windows = setup
    configure(db, glance=True)
    before = len(server.requests)
    assert Glances(SpeakFirst(db, clock), clock).glance(runner, png(), "Firefox") is None
    assert len(server.requests) == before
