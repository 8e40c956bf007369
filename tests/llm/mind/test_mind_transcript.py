"""The conversation as her mind last read it (``Transcript``): a request follows the last
one while the conversation goes on from it, and starts afresh (``fresh_history``) when
the pipeline's window slid, a reply was cut, or it would not fit the model's context."""

from __future__ import annotations

import random

import pytest

from companion_desktop.engine.context_window import REPLY_RESERVE
from companion_desktop.llm.base import ChatMessage, ProviderConfig, ToolSpec
from companion_desktop.llm.mind.models import SMALL
from companion_desktop.llm.mind.provider import BuiltinProvider, Transcript, fresh_history
from tests.llm.mind.mind_parts import need_small

SYSTEM = "<system>\nYou are Hana.\n</system>"


def exchange(n: int) -> list[tuple[str, str]]:
    return [("user", f"message {n}"), ("assistant", f"reply {n}")]


def test_follows_after_one_exchange() -> None:
    last = Transcript(SYSTEM, [("user", "hi")], [], reply="Hello!\n```json\n{}\n```")
    after = [("user", "hi"), ("assistant", "Hello!"), ("user", "how are you?")]
    assert last.follows(SYSTEM, after)
    assert last.follows(SYSTEM, [*exchange(0), *after])  # older turns before it: still
    assert not last.follows(SYSTEM + " ", after)  # another system message
    assert not Transcript(SYSTEM, [("user", "hi")], []).follows(SYSTEM, after)  # cut reply
    assert not last.follows(SYSTEM, after[:2])  # no new message of theirs
    assert not last.follows(SYSTEM, [("user", "hi"), ("user", "??"), ("user", "how?")])
    assert not last.follows(SYSTEM, [("user", "hey"), ("assistant", "Hello!"),
                                     ("user", "how are you?")])


def test_stops_following_when_the_window_slides() -> None:
    sent = [*exchange(1), *exchange(2), ("user", "message 3")]
    last = Transcript(SYSTEM, sent, [], reply="reply 3 raw")
    grown = [*sent, ("assistant", "reply 3"), ("user", "message 4")]
    assert last.follows(SYSTEM, grown)
    assert not last.follows(SYSTEM, grown[2:])  # the oldest exchange dropped


@pytest.mark.parametrize(("length", "kept"), [(0, 0), (2, 2), (4, 2), (6, 2), (8, 4),
                                              (10, 4), (12, 6), (20, 10)])
def test_fresh_history_keeps_the_newest_half_in_whole_exchanges(length: int,
                                                                kept: int) -> None:
    history = [m for n in range(length // 2) for m in exchange(n)]
    fresh = fresh_history(history)
    assert fresh == history[len(history) - kept:]
    assert not fresh or fresh[0][0] == "user"


def test_fresh_history_starts_at_their_message() -> None:
    """Her messages without one of theirs between (a reminder, an event) stay with the
    message they followed."""
    history = [*exchange(1), *exchange(2), ("assistant", "a reminder went off")]
    assert fresh_history(history) == history[2:]
    assert fresh_history([("assistant", "welcome back")]) == [("assistant", "welcome back")]
    rng = random.Random(25)
    for _ in range(200):
        history = [(rng.choice(["user", "assistant"]), str(i))
                   for i in range(rng.randint(0, 16))]
        fresh = fresh_history(history)
        assert fresh == history[len(history) - len(fresh):]  # a suffix...
        assert len(fresh) >= min(2, len(history))  # ...with at least the last exchange
        assert not fresh or fresh[0][0] == "user" or fresh == history


@pytest.fixture
def provider() -> BuiltinProvider:
    need_small()  # (the provider is made for an installed model; nothing is started)
    return BuiltinProvider(ProviderConfig("builtin", "builtin://her-mind", SMALL.id))


def request(provider: BuiltinProvider, context: str, plain: list[tuple[str, str]],
            tools: list[ToolSpec] | None = None) -> dict:
    provider.prepare_turn(f"<context>\n{context}\n</context>", [("expression", "emotion")])
    messages = [ChatMessage(role, text) for role, text in plain]  # type: ignore[arg-type]
    return provider.chat_body(SYSTEM, messages, stream=True, tools=tools)


def test_a_request_continues_the_last_one(provider: BuiltinProvider) -> None:
    first = request(provider, "now: noon", [("user", "hi")])
    assert first["cache_prompt"] is True and "expression" in first["grammar"]
    assert first["messages"] == [{"role": "system", "content": SYSTEM},
                                 {"role": "system", "content": "<context>\nnow: noon\n</context>"},
                                 {"role": "user", "content": "hi"}]
    provider.transcript.reply = 'Hello!\n```json\n{"expression": null}\n```'  # as streamed
    second = request(provider, "now: 12:01", [("user", "hi"), ("assistant", "Hello!"),
                                              ("user", "how are you?")])
    assert second["messages"] == [
        *first["messages"],
        {"role": "assistant", "content": 'Hello!\n```json\n{"expression": null}\n```'},
        {"role": "system", "content": "<context>\nnow: 12:01\n</context>"},
        {"role": "user", "content": "how are you?"}]
    assert provider.transcript.sent == [("user", "hi"), ("assistant", "Hello!"),
                                        ("user", "how are you?")]
    assert provider.transcript.reply == ""  # until this reply is complete


def test_a_slid_window_or_a_cut_reply_starts_afresh(provider: BuiltinProvider) -> None:
    request(provider, "c0", [("user", "message 0")])
    provider.transcript.reply = "reply 0 raw"
    request(provider, "c1", [*exchange(0), ("user", "message 1")])
    assert provider.transcript.sent == [*exchange(0), ("user", "message 1")]  # followed
    provider.transcript.reply = "reply 1 raw"
    slid = [*exchange(1), ("user", "message 2")]  # the pipeline's window lost exchange 0
    body = request(provider, "c2", slid)
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("system", SYSTEM), *exchange(1), ("system", "<context>\nc2\n</context>"),
        ("user", "message 2")]  # her reply as saved, not as written: a new transcript
    assert provider.transcript.sent == slid

    cut = [*slid, ("assistant", "reply 2"), ("user", "message 3")]  # reply 2 was stopped
    body = request(provider, "c3", cut)
    assert [m["content"] for m in body["messages"]] == [
        SYSTEM, "message 2", "reply 2", "<context>\nc3\n</context>", "message 3"]


def test_a_transcript_too_long_for_the_model_starts_afresh(provider: BuiltinProvider) -> None:
    first, second = "word " * 700, "more " * 700  # 875 tokens each
    assert 875 < SMALL.context - REPLY_RESERVE < 2 * 875
    request(provider, "c1", [("user", first)])
    provider.transcript.reply = "reply raw"
    body = request(provider, "c2", [("user", first), ("assistant", "reply"), ("user", second)])
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("system", SYSTEM), ("user", first), ("assistant", "reply"),
        ("system", "<context>\nc2\n</context>"), ("user", second)]  # fresh: the raw is gone
    assert provider.transcript.sent == [("user", first), ("assistant", "reply"),
                                        ("user", second)]


def test_a_call_with_tools_is_sent_as_it_is(provider: BuiltinProvider) -> None:
    tool = ToolSpec("search", "Search the web.", {"type": "object", "properties": {}})
    body = request(provider, "c1", [("user", "find it")], tools=[tool])
    assert "grammar" not in body and body["tools"]
    assert provider.transcript == Transcript()  # nothing remembered


def test_her_mind_leaves_a_core_for_her_drawing(monkeypatch):
    """Both cores of two, else all but one; four at most."""
    from companion_desktop.llm.mind import serve

    for cores, threads in ((1, 1), (2, 2), (3, 2), (4, 3), (16, 4)):
        monkeypatch.setattr(serve.os, "cpu_count", lambda cores=cores: cores)
        assert serve.default_threads() == threads
