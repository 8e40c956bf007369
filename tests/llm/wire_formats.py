"""The providers' wire formats, as the real APIs send them, for scripting ProviderServer.

OpenAI-compatible ``chat.completion.chunk`` events ending in ``data: [DONE]``,
Anthropic's named Messages API events, Gemini's CRLF-separated ``alt=sse`` events, plus
the matching non-streamed bodies, model lists and error bodies.
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
