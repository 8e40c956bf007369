"""Tool calls on the three wire formats, against a real server on 127.0.0.1: the tools
offered, streamed calls assembled from fragments, bad arguments, and a full round
(assistant calls + tool results) serialized as each API documents."""

from __future__ import annotations

import json

import pytest

from companion_desktop.llm.base import (
    CancelledError,
    CancelToken,
    ChatMessage,
    InvalidReplyError,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from companion_desktop.llm.content import GEMINI_SKIP_SIGNATURE
from companion_desktop.llm.tool_wire import INVALID_ARGUMENTS_KEY
from tests.llm.provider_server import JsonReply, StreamReply
from tests.llm.wire_formats import (
    anthropic_stream,
    anthropic_tool_use_events,
    gemini_chunk,
    gemini_function_call_chunk,
    gemini_function_call_stream,
    gemini_stream,
    openai_chunk,
    openai_error,
    openai_stream,
    openai_tool_call_completion,
    openai_tool_call_events,
    sse,
)

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
GEMINI = "/v1beta/models/test-model:streamGenerateContent"
WEATHER = ToolSpec("weather", "Current weather for a city.", {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
})
CLOCK = ToolSpec("clock", "The time now.", {"type": "object", "properties": {}})
ASK = [ChatMessage("user", "Weather in Oslo, and the time?")]
CALLS = [("call_a", "weather", {"city": "Oslo", "units": "metric"}), ("call_b", "clock", {})]
ROUND = [
    ChatMessage("user", "Weather in Oslo, and the time?"),
    ChatMessage("assistant", "Let me look.", tool_calls=(
        ToolCall("call_a", "weather", {"city": "Oslo"}), ToolCall("call_b", "clock", {}),
    )),
    ChatMessage("tool", "", tool_results=(
        ToolResult("call_a", "weather", "Sunny, 21 C"),
        ToolResult("call_b", "clock", "clock server timed out", is_error=True),
    )),
]


# -- OpenAI-compatible ------------------------------------------------------------------
def test_openai_streamed_calls_come_after_the_text_with_parsed_arguments(
    provider_server, make_provider
) -> None:
    events = openai_tool_call_events(CALLS, texts=["Let me ", "check."], pieces=4)
    provider_server.on("POST", CHAT, StreamReply(events))
    items = list(make_provider("openai").stream_round("sys", ASK, [WEATHER, CLOCK]))

    assert items == [
        "Let me ", "check.",
        ToolCall("call_a", "weather", {"city": "Oslo", "units": "metric"}),
        ToolCall("call_b", "clock", {}),
    ]
    body = provider_server.requests[0].json
    assert body["tools"] == [
        {"type": "function", "function": {
            "name": "weather", "description": "Current weather for a city.",
            "parameters": WEATHER.parameters}},
        {"type": "function", "function": {
            "name": "clock", "description": "The time now.",
            "parameters": {"type": "object", "properties": {}}}},
    ]


def test_openai_fragments_interleaved_across_indexes_are_joined_per_index(
    provider_server, make_provider
) -> None:
    def delta(**call):
        return sse(openai_chunk({"tool_calls": [call]}))

    events = openai_stream([], finish=None, done=False) + [
        delta(index=1, id="second", function={"name": "clock", "arguments": ""}),
        delta(index=0, id="first", function={"name": "weather", "arguments": '{"ci'}),
        delta(index=1, function={"arguments": "{}"}),
        delta(index=0, function={"arguments": 'ty": "Rome"}'}),
        sse(openai_chunk({}, "tool_calls")), sse("[DONE]"),
    ]
    provider_server.on("POST", CHAT, StreamReply(events))
    items = list(make_provider("vllm").stream_round("", ASK, [WEATHER, CLOCK]))
    assert items == [ToolCall("first", "weather", {"city": "Rome"}),
                     ToolCall("second", "clock", {})]


def test_openai_whole_json_reply_with_tool_calls(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, JsonReply(openai_tool_call_completion(CALLS[:1])))
    items = list(make_provider("llamacpp").stream_round("", ASK, [WEATHER]))
    assert items == [ToolCall("call_a", "weather", {"city": "Oslo", "units": "metric"})]


@pytest.mark.parametrize("raw", ['{"city": "Oslo"', "[1, 2]", '"Oslo"'])
def test_openai_malformed_arguments_are_handed_on_for_an_error_result(
    provider_server, make_provider, raw
) -> None:
    events = openai_tool_call_events([("call_x", "weather", raw)], texts=["Hm."])
    provider_server.on("POST", CHAT, StreamReply(events))
    items = list(make_provider("openai").stream_round("", ASK, [WEATHER]))
    assert items == ["Hm.", ToolCall("call_x", "weather", {INVALID_ARGUMENTS_KEY: raw})]


def test_openai_round_trip_is_serialized_as_documented(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["Sunny in Oslo!"])))
    items = list(make_provider("openai").stream_round("sys", ROUND, [WEATHER, CLOCK]))
    assert items == ["Sunny in Oslo!"]

    sent = provider_server.requests[0].json["messages"]
    for call in sent[2]["tool_calls"]:
        call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    assert sent == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Weather in Oslo, and the time?"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "weather", "arguments": {"city": "Oslo"}}},
            {"id": "call_b", "type": "function", "function": {"name": "clock", "arguments": {}}},
        ]},
        {"role": "tool", "tool_call_id": "call_a", "content": "Sunny, 21 C"},
        {"role": "tool", "tool_call_id": "call_b", "content": "Error: clock server timed out"},
    ]


def test_assistant_calls_without_text_send_null_content(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["ok"])))
    history = [ROUND[0], ChatMessage("assistant", "", tool_calls=ROUND[1].tool_calls), ROUND[2]]
    list(make_provider("openai").stream_round("", history, [WEATHER, CLOCK]))
    assert provider_server.requests[0].json["messages"][1]["content"] is None


def test_cut_history_drops_unpaired_calls_and_results(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["ok"])))
    orphan = ChatMessage("tool", "", tool_results=(ToolResult("gone", "weather", "old"),))
    unanswered = ChatMessage("assistant", "Checking.", tool_calls=(ToolCall("c9", "clock", {}),))
    history = [orphan, ChatMessage("user", "Hi"), unanswered, ChatMessage("user", "Well?")]
    list(make_provider("openai").stream_round("", history, [CLOCK]))
    assert provider_server.requests[0].json["messages"] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Checking."},
        {"role": "user", "content": "Well?"},
    ]


def test_text_only_requests_carry_no_tools_key_and_hide_calls(
    provider_server, make_provider
) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_tool_call_events(CALLS, texts=["Hi"])))
    assert list(make_provider("openai").stream_chat("", ASK)) == ["Hi"]
    assert "tools" not in provider_server.requests[0].json


def test_a_server_refusing_tools_is_asked_again_without_them(
    provider_server, make_provider
) -> None:
    refusal = openai_error("registry.ollama.ai/library/gemma2:2b does not support tools")
    provider_server.on("POST", CHAT, JsonReply(refusal, 400), StreamReply(openai_stream(["Hi!"])))
    assert list(make_provider("ollama").stream_round("", ASK, [WEATHER])) == ["Hi!"]
    first, second = provider_server.requests
    assert "tools" in first.json and "tools" not in second.json


def test_stop_during_a_tool_round_yields_no_calls(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_tool_call_events(CALLS, texts=["a"]),
                                                 delay_s=0.02))
    token = CancelToken()
    received = []
    with pytest.raises(CancelledError):
        for item in make_provider("openai").stream_round("", ASK, [WEATHER], token):
            received.append(item)
            token.cancel()
    assert received == ["a"]


# -- Anthropic --------------------------------------------------------------------------
def test_anthropic_tool_use_blocks_become_calls_after_the_text(
    provider_server, make_provider
) -> None:
    events = anthropic_tool_use_events(CALLS, texts=["Checking", "..."], pieces=5)
    provider_server.on("POST", MESSAGES, StreamReply(events))
    items = list(make_provider("anthropic").stream_round("sys", ASK, [WEATHER, CLOCK]))
    assert items == [
        "Checking", "...",
        ToolCall("call_a", "weather", {"city": "Oslo", "units": "metric"}),
        ToolCall("call_b", "clock", {}),
    ]
    assert provider_server.requests[0].json["tools"] == [
        {"name": "weather", "description": "Current weather for a city.",
         "input_schema": WEATHER.parameters},
        {"name": "clock", "description": "The time now.",
         "input_schema": {"type": "object", "properties": {}}},
    ]


def test_anthropic_malformed_partial_json(provider_server, make_provider) -> None:
    events = anthropic_tool_use_events([("toolu_1", "weather", '{"city": Oslo}')])
    provider_server.on("POST", MESSAGES, StreamReply(events))
    items = list(make_provider("anthropic").stream_round("", ASK, [WEATHER]))
    assert items == [ToolCall("toolu_1", "weather", {INVALID_ARGUMENTS_KEY: '{"city": Oslo}'})]


def test_anthropic_round_trip_is_serialized_as_documented(provider_server, make_provider) -> None:
    provider_server.on("POST", MESSAGES, StreamReply(anthropic_stream(["Sunny!"])))
    history = [*ROUND, ChatMessage("user", "Thanks! And tomorrow?")]
    assert list(make_provider("anthropic").stream_round("sys", history, [WEATHER])) == ["Sunny!"]
    assert provider_server.requests[0].json["messages"] == [
        {"role": "user", "content": "Weather in Oslo, and the time?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "call_a", "name": "weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "call_b", "name": "clock", "input": {}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "Sunny, 21 C",
             "is_error": False},
            {"type": "tool_result", "tool_use_id": "call_b",
             "content": "clock server timed out", "is_error": True},
            {"type": "text", "text": "Thanks! And tomorrow?"},
        ]},
    ]


def test_anthropic_text_request_has_no_tools_key(provider_server, make_provider) -> None:
    provider_server.on("POST", MESSAGES, StreamReply(anthropic_stream(["Hi"])))
    assert list(make_provider("anthropic").stream_round("", ASK, [])) == ["Hi"]
    assert "tools" not in provider_server.requests[0].json


# -- Gemini -----------------------------------------------------------------------------
def test_gemini_function_calls_with_and_without_ids(provider_server, make_provider) -> None:
    chunks = [gemini_chunk([{"text": "Sure."}]),
              gemini_function_call_chunk("weather", {"city": "Oslo"}, call_id="call_a"),
              gemini_function_call_chunk("clock", {}, finish="STOP")]
    events = [sse(c, newline="\r\n") for c in chunks]
    provider_server.on("POST", GEMINI, StreamReply(events))
    items = list(make_provider("google").stream_round("", ASK, [WEATHER, CLOCK]))

    assert items[:2] == ["Sure.", ToolCall("call_a", "weather", {"city": "Oslo"})]
    made_up = items[2]
    assert made_up.name == "clock" and made_up.arguments == {}
    assert made_up.id.startswith("call_") and made_up.id != "call_a"


def test_gemini_tools_are_declared_in_its_schema_subset(provider_server, make_provider) -> None:
    provider_server.on("POST", GEMINI, StreamReply(gemini_stream(["ok"])))
    loose = ToolSpec("note", "Save a note.", {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "additionalProperties": False, "title": "NoteArgs",
        "properties": {"text": {"type": "string", "default": "", "examples": ["hi"]}},
        "required": ["text", "missing"],
    })
    list(make_provider("google").stream_round("", ASK, [loose, CLOCK]))
    assert provider_server.requests[0].json["tools"] == [{"functionDeclarations": [
        {"name": "note", "description": "Save a note.", "parameters": {
            "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "clock", "description": "The time now."},
    ]}]


def test_gemini_round_trip_sends_signatures_ids_and_responses(
    provider_server, make_provider
) -> None:
    events = gemini_function_call_stream(CALLS, signature="c2lnLTE=", with_ids=False)
    provider_server.on("POST", GEMINI, StreamReply(events), StreamReply(gemini_stream(["Done"])))
    provider = make_provider("google")
    calls = list(provider.stream_round("", ASK, [WEATHER, CLOCK]))
    results = (ToolResult(calls[0].id, "weather", "Sunny"),
               ToolResult(calls[1].id, "clock", "no clock", is_error=True))
    history = [*ASK, ChatMessage("assistant", "", tool_calls=tuple(calls)),
               ChatMessage("tool", "", tool_results=results)]
    assert list(provider.stream_round("", history, [WEATHER, CLOCK])) == ["Done"]

    contents = provider_server.requests[1].json["contents"]
    assert contents[1:] == [
        {"role": "model", "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Oslo", "units": "metric"}},
             "thoughtSignature": "c2lnLTE="},
            {"functionCall": {"name": "clock", "args": {}}},
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "weather", "response": {"content": "Sunny"}}},
            {"functionResponse": {"name": "clock", "response": {"error": "no clock"}}},
        ]},
    ]


def test_gemini_native_ids_are_sent_back_and_foreign_calls_get_the_stand_in(
    provider_server, make_provider
) -> None:
    events = gemini_function_call_stream(CALLS[:1], with_ids=True)
    provider_server.on("POST", GEMINI, StreamReply(events), StreamReply(gemini_stream(["ok"])))
    provider = make_provider("google")
    (call,) = list(provider.stream_round("", ASK, [WEATHER]))
    foreign = ToolCall("toolu_9", "clock", {})
    history = [*ASK, ChatMessage("assistant", "", tool_calls=(call,)),
               ChatMessage("tool", "", tool_results=(ToolResult(call.id, "weather", "Sunny"),)),
               ChatMessage("user", "time?"), ChatMessage("assistant", "", tool_calls=(foreign,)),
               ChatMessage("tool", "", tool_results=(ToolResult("toolu_9", "clock", "noon"),))]
    list(provider.stream_round("", history, [WEATHER]))

    contents = provider_server.requests[1].json["contents"]
    assert contents[1]["parts"] == [{"functionCall": {
        "name": "weather", "args": {"city": "Oslo", "units": "metric"}, "id": "call_a"},
        "thoughtSignature": GEMINI_SKIP_SIGNATURE}]
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "weather", "response": {"content": "Sunny"},
                              "id": "call_a"}},
        {"text": "time?"},
    ]
    assert contents[3]["parts"] == [{"functionCall": {"name": "clock", "args": {}},
                                     "thoughtSignature": GEMINI_SKIP_SIGNATURE}]
    assert contents[4] == {"role": "user", "parts": [
        {"functionResponse": {"name": "clock", "response": {"content": "noon"}}}]}


def test_gemini_malformed_function_call_is_a_clear_error(provider_server, make_provider) -> None:
    events = [sse(gemini_chunk([{"text": ""}], "MALFORMED_FUNCTION_CALL"), newline="\r\n")]
    provider_server.on("POST", GEMINI, StreamReply(events))
    with pytest.raises(InvalidReplyError, match="could not form a tool call"):
        list(make_provider("google").stream_round("", ASK, [WEATHER]))


def test_gemini_non_object_args_are_invalid(provider_server, make_provider) -> None:
    events = gemini_function_call_stream([("", "weather", '["Oslo"]')])
    provider_server.on("POST", GEMINI, StreamReply(events))
    (call,) = list(make_provider("google").stream_round("", ASK, [WEATHER]))
    assert call.arguments == {INVALID_ARGUMENTS_KEY: '["Oslo"]'}


# -- pieces -----------------------------------------------------------------------------
def test_gemini_schema_inlines_refs_folds_nullables_and_drops_the_rest() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "title": "Args", "additionalProperties": False,
        "$defs": {
            "Place": {"type": "object", "title": "Place", "properties": {
                "name": {"type": "string", "minLength": 1},
                "near": {"$ref": "#/$defs/Place"},
            }, "required": ["name"]},
        },
        "properties": {
            "place": {"$ref": "#/$defs/Place", "description": "Where"},
            "when": {"type": "string", "format": "date-time"},
            "link": {"type": "string", "format": "uri"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 14},
            "unit": {"const": "metric"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "tags": {"type": "array", "maxItems": 5},
            "mode": {"allOf": [{"enum": ["a", "b"], "type": "string"}], "title": "Mode"},
            "value": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        },
        "required": ["place", "place", "ghost"],
    }
    from companion_desktop.llm.tool_wire import gemini_schema

    place = {"type": "object", "properties": {"name": {"type": "string"},
                                              "near": {"type": "string"}},
             "required": ["name"]}
    assert gemini_schema(schema) == {
        "type": "object",
        "properties": {
            "place": {**place, "description": "Where"},
            "when": {"type": "string", "format": "date-time"},
            "link": {"type": "string"},
            "note": {"type": "string", "nullable": True},
            "days": {"type": "integer", "nullable": True, "minimum": 1, "maximum": 14},
            "unit": {"type": "string", "enum": ["metric"]},
            "level": {"type": "integer"},
            "tags": {"type": "array", "maxItems": 5, "items": {"type": "string"}},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "value": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        },
        "required": ["place"],
    }


def test_gemini_schema_survives_hostile_input() -> None:
    from companion_desktop.llm.tool_wire import MAX_SCHEMA_DEPTH, gemini_schema

    deep: dict = {"type": "string"}
    for _ in range(MAX_SCHEMA_DEPTH + 10):
        deep = {"type": "object", "properties": {"x": deep}}
    result = gemini_schema(deep)
    depth = 0
    while "properties" in result:
        result, depth = result["properties"]["x"], depth + 1
    assert depth <= MAX_SCHEMA_DEPTH and result == {"type": "string"}
    weird = {"type": "object", "properties": {"a": 5, "b": {"$ref": "http://x/y"},
                                              "c": {"allOf": "nope", "type": "boolean"}},
             "required": "a"}
    assert gemini_schema(weird) == {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "boolean"}}}


def test_assembler_bounds_calls_names_and_argument_size() -> None:
    from companion_desktop.llm.tool_wire import (
        MAX_ARGUMENT_CHARS,
        MAX_NAME_CHARS,
        MAX_TOOL_CALLS,
        ToolCallAssembler,
    )

    calls = ToolCallAssembler()
    for index in range(MAX_TOOL_CALLS + 5):
        calls.start(index, f"id{index}", "n" * (MAX_NAME_CHARS + 50))
        calls.add(index, '{"i": %d}' % index)
    done = calls.calls()
    assert len(done) == MAX_TOOL_CALLS
    assert done[-1] == ToolCall(f"id{MAX_TOOL_CALLS - 1}", "n" * MAX_NAME_CHARS,
                                {"i": MAX_TOOL_CALLS - 1})

    big = ToolCallAssembler()
    big.start(0, "big", "weather")
    big.add(0, '{"text": "')
    for _ in range(3):
        big.add(0, "x" * MAX_ARGUMENT_CHARS)
    (call,) = big.calls()
    assert list(call.arguments) == [INVALID_ARGUMENTS_KEY]
    assert len(call.arguments[INVALID_ARGUMENTS_KEY]) == 500


def test_assembler_splits_a_reused_index_with_a_new_id() -> None:
    from companion_desktop.llm.tool_wire import ToolCallAssembler

    calls = ToolCallAssembler()
    calls.start(0, "a", "weather")
    calls.add(0, '{"city": "Oslo"}')
    calls.start(0, "b", "clock")
    calls.add(0, "")
    calls.add(0, "{}")
    assert calls.calls() == [ToolCall("a", "weather", {"city": "Oslo"}),
                             ToolCall("b", "clock", {})]


@pytest.mark.parametrize("raw,expected", [
    (None, {}), ("", {}), ("  ", {}), ({"a": 1}, {"a": 1}), ('{"a": [1]}', {"a": [1]}),
    ("null", {INVALID_ARGUMENTS_KEY: "null"}), (7, {INVALID_ARGUMENTS_KEY: "7"}),
    ("[" * 5000 + "]" * 5000, {INVALID_ARGUMENTS_KEY: "[" * 500}),
])
def test_parse_arguments(raw, expected) -> None:
    from companion_desktop.llm.tool_wire import parse_arguments

    assert parse_arguments(raw) == expected


def test_fake_provider_scripts_tool_rounds() -> None:
    from companion_desktop.llm.base import ProviderConfig
    from companion_desktop.llm.registry import create_provider
    from tests.llm.fake_provider import Script, scripted_provider

    call = ToolCall("c1", "weather", {"city": "Oslo"})
    script = Script(replies=[["Let me look.", call], ["Sunny!", call]], chunk_size=5)
    with scripted_provider(script) as spec:
        provider = create_provider(ProviderConfig(spec.id, "", "fake-model"))
        assert list(provider.stream_round("s", ASK, [WEATHER])) == ["Let m", "e loo", "k.", call]
        assert list(provider.stream_chat("s", ASK)) == ["Sunny", "!"]
    assert [c.method for c in script.calls] == ["stream_round", "stream_chat"]
    assert script.calls[0].tools == [WEATHER] and script.calls[1].tools == []
