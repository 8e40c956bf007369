"""The providers' wire formats, as the real APIs send them, for scripting ProviderServer.

OpenAI-compatible ``chat.completion.chunk`` events ending in ``data: [DONE]``,
Anthropic's named Messages API events, Gemini's CRLF-separated ``alt=sse`` events, plus
the matching non-streamed bodies, model lists and error bodies.

Tool calls (for scripting a tool-calling server)::

    calls = [("call_a", "weather", {"city": "Oslo"}), ("call_b", "time", "{}")]
    openai_tool_call_events(calls, texts=["Let me check."])   # streamed, fragments split
    openai_tool_call_completion(calls)                        # one JSON body
    anthropic_tool_use_events(calls, texts=["Checking."])     # tool_use blocks
    gemini_function_call_stream(calls, texts=["Sure."])       # functionCall parts

Arguments are a dict (sent as JSON) or a string sent as it is (to script malformed
JSON); ``pieces`` is how many fragments each call's argument text is cut into.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


# -- OpenAI-compatible ------------------------------------------------------------------
def sse(data: Any, event: str | None = None, newline: str = "\n") -> str:
    """One SSE event; ``data`` is JSON-encoded unless it is already a string."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}{newline}" if event else ""
    return f"{head}data: {text}{newline}{newline}"


def openai_chunk(
    delta: dict[str, Any], finish: str | None = None, model: str = "test-model"
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1700000000,
        "model": model, "system_fingerprint": "fp_test",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def openai_stream(
    texts: list[str], *, reasoning: Sequence[str] = (), finish: str | None = "stop",
    done: bool = True, model: str = "test-model",
) -> list[str]:
    """The events of a streamed chat completion: role, reasoning, content, finish, [DONE]."""
    events = [sse(openai_chunk({"role": "assistant", "content": ""}, model=model))]
    events += [sse(openai_chunk({"reasoning_content": r}, model=model)) for r in reasoning]
    events += [sse(openai_chunk({"content": t}, model=model)) for t in texts]
    if finish:
        events.append(sse(openai_chunk({}, finish, model=model)))
    if done:
        events.append(sse("[DONE]"))
    return events


def openai_completion(content: str, model: str = "test-model") -> dict[str, Any]:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def openai_models(ids: list[str]) -> dict[str, Any]:
    return {"object": "list", "data": [
        {"id": i, "object": "model", "created": 1700000000, "owned_by": "test"} for i in ids
    ]}


def openai_error(
    message: str, kind: str = "invalid_request_error", code: Any = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def ollama_tags(names: list[str]) -> dict[str, Any]:
    return {"models": [
        {"name": n, "model": n, "modified_at": "2025-01-01T00:00:00Z", "size": 1000,
         "digest": "0" * 64, "details": {"format": "gguf", "family": "llama"}} for n in names
    ]}


# -- Anthropic --------------------------------------------------------------------------
def anthropic_stream(
    texts: list[str], *, thinking: Sequence[str] = (), stop: bool = True,
    model: str = "claude-test",
) -> list[str]:
    """The Messages API event stream, optionally with a thinking block first."""
    usage = {"input_tokens": 25, "output_tokens": 1}
    events = [sse({"type": "message_start", "message": {
        "id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage}}, "message_start")]
    index = 0
    if thinking:
        events.append(sse({"type": "content_block_start", "index": 0,
                           "content_block": {"type": "thinking", "thinking": ""}},
                          "content_block_start"))
        events += [sse({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "thinking_delta", "thinking": t}},
                       "content_block_delta") for t in thinking]
        events.append(sse({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "signature_delta", "signature": "c2ln"}},
                          "content_block_delta"))
        events.append(sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        index = 1
    events.append(sse({"type": "content_block_start", "index": index,
                       "content_block": {"type": "text", "text": ""}}, "content_block_start"))
    events.append(sse({"type": "ping"}, "ping"))
    events += [sse({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": t}}, "content_block_delta")
               for t in texts]
    events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(sse({"type": "message_delta",
                       "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                       "usage": {"output_tokens": 15}}, "message_delta"))
    if stop:
        events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def anthropic_message(text: str, model: str = "claude-test") -> dict[str, Any]:
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 25, "output_tokens": 9},
    }


def anthropic_models(ids: list[str]) -> dict[str, Any]:
    data = [{"type": "model", "id": i, "display_name": i, "created_at": "2025-01-01T00:00:00Z"}
            for i in ids]
    return {"data": data, "has_more": False,
            "first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None}


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


# -- Google Gemini ----------------------------------------------------------------------
def gemini_chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-test",
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}}


def gemini_stream(
    texts: list[str], *, thoughts: Sequence[str] = (), finish: str | None = "STOP",
) -> list[str]:
    """``alt=sse`` events (CRLF-separated, as the API sends them); the last one finishes."""
    chunks = [gemini_chunk([{"text": t, "thought": True}]) for t in thoughts]
    chunks += [gemini_chunk([{"text": t}]) for t in texts]
    if finish:
        if chunks and texts:
            last = chunks[-1]["candidates"][0]
            last["finishReason"] = finish
        else:
            chunks.append(gemini_chunk([{"text": ""}], finish))
    return [sse(c, newline="\r\n") for c in chunks]


def gemini_response(text: str, finish: str = "STOP") -> dict[str, Any]:
    return gemini_chunk([{"text": text}], finish)


def gemini_models(models: dict[str, list[str]]) -> dict[str, Any]:
    """``{id: supportedGenerationMethods}`` as the models list (names get ``models/``)."""
    return {"models": [
        {"name": f"models/{name}", "displayName": name, "supportedGenerationMethods": methods}
        for name, methods in models.items()
    ]}


def gemini_error(code: int, message: str, status: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


# -- tool calls -------------------------------------------------------------------------
#: A scripted call: (id, name, arguments as a dict or as raw argument text).
ScriptedCall = tuple[str, str, "dict[str, Any] | str"]


def argument_text(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def split_text(text: str, pieces: int) -> list[str]:
    """``text`` cut into ``pieces`` nearly equal fragments (no empty ones)."""
    pieces = max(1, min(pieces, len(text))) if text else 1
    step = -(-len(text) // pieces) if text else 1
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def openai_tool_call_events(
    calls: Sequence[ScriptedCall], *, texts: Sequence[str] = (), pieces: int = 3,
    finish: str | None = "tool_calls", done: bool = True, model: str = "test-model",
) -> list[str]:
    """A streamed reply making ``calls`` after ``texts``: per call one delta with its
    ``index``, ``id``, name and empty arguments, then the argument text in ``pieces``
    fragments (index only), as OpenAI streams them."""
    events = openai_stream(list(texts), finish=None, done=False, model=model)
    for index, (call_id, name, arguments) in enumerate(calls):
        first = {"index": index, "id": call_id, "type": "function",
                 "function": {"name": name, "arguments": ""}}
        events.append(sse(openai_chunk({"tool_calls": [first]}, model=model)))
        for fragment in split_text(argument_text(arguments), pieces):
            delta = {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}
            events.append(sse(openai_chunk(delta, model=model)))
    if finish:
        events.append(sse(openai_chunk({}, finish, model=model)))
    if done:
        events.append(sse("[DONE]"))
    return events


def openai_tool_call_completion(
    calls: Sequence[ScriptedCall], content: str | None = None, model: str = "test-model"
) -> dict[str, Any]:
    """A whole (non-streamed) chat completion whose message makes ``calls``."""
    body = openai_completion(content or "", model)
    choice = body["choices"][0]
    choice["message"] = {"role": "assistant", "content": content, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": argument_text(a)}}
        for i, n, a in calls
    ]}
    choice["finish_reason"] = "tool_calls"
    return body


def anthropic_tool_use_events(
    calls: Sequence[ScriptedCall], *, texts: Sequence[str] = (), pieces: int = 3,
    stop: bool = True, model: str = "claude-test",
) -> list[str]:
    """The Messages API stream of a reply with a text block (when ``texts``) and one
    ``tool_use`` block per call, its input in ``input_json_delta`` fragments;
    ``stop_reason`` "tool_use"."""
    events = anthropic_stream(list(texts), stop=False, model=model)
    events = events[:-1] if texts else events[:1]  # drop message_delta (and an empty text)
    first = 1 if texts else 0
    for offset, (call_id, name, arguments) in enumerate(calls):
        index = first + offset
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        events.append(sse({"type": "content_block_start", "index": index,
                           "content_block": block}, "content_block_start"))
        for fragment in split_text(argument_text(arguments), pieces):
            delta = {"type": "input_json_delta", "partial_json": fragment}
            events.append(sse({"type": "content_block_delta", "index": index,
                               "delta": delta}, "content_block_delta"))
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(sse({"type": "message_delta",
                       "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                       "usage": {"output_tokens": 40}}, "message_delta"))
    if stop:
        events.append(sse({"type": "message_stop"}, "message_stop"))
    return events


def gemini_function_call_part(
    name: str, args: Any, *, call_id: str | None = None, signature: str | None = None
) -> dict[str, Any]:
    """One ``functionCall`` part (``id`` and ``thoughtSignature`` only when given)."""
    call: dict[str, Any] = {"name": name, "args": args}
    if call_id:
        call["id"] = call_id
    part: dict[str, Any] = {"functionCall": call}
    if signature:
        part["thoughtSignature"] = signature
    return part


def gemini_function_call_chunk(
    name: str, args: Any, *, call_id: str | None = None, signature: str | None = None,
    finish: str | None = None,
) -> dict[str, Any]:
    """A GenerateContentResponse carrying one whole function call."""
    part = gemini_function_call_part(name, args, call_id=call_id, signature=signature)
    return gemini_chunk([part], finish)


def gemini_function_call_stream(
    calls: Sequence[ScriptedCall], *, texts: Sequence[str] = (), finish: str | None = "STOP",
    signature: str | None = None, with_ids: bool = False,
) -> list[str]:
    """``alt=sse`` events: ``texts`` then one chunk per call (Gemini sends calls whole;
    string arguments are parsed, as Gemini's ``args`` is an object). The first call's
    part carries ``signature``; ids are sent only ``with_ids``."""
    chunks = [gemini_chunk([{"text": t}]) for t in texts]
    for n, (call_id, name, arguments) in enumerate(calls):
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
        chunks.append(gemini_function_call_chunk(
            name, args, call_id=call_id if with_ids else None,
            signature=signature if n == 0 else None,
        ))
    if finish:
        chunks = chunks or [gemini_chunk([{"text": ""}])]
        chunks[-1]["candidates"][0]["finishReason"] = finish
    return [sse(c, newline="\r\n") for c in chunks]
