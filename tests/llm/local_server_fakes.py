"""Real HTTP servers on 127.0.0.1 answering as each local model server does when asked
for its models (bodies as those servers send them), for the first run's probes."""

from __future__ import annotations

import socket
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from tests.llm.provider_server import JsonReply, ProviderServer, RawReply, Reply
from tests.llm.wire_formats import ollama_tags


def _models(ids: list[str], owner: str, **extra: Any) -> dict[str, Any]:
    return {"object": "list", "data": [
        {"id": i, "object": "model", "created": 1700000000, "owned_by": owner, **extra}
        for i in ids]}


@dataclass
class SlowReply(Reply):
    """``reply`` after ``delay_s`` seconds of silence."""

    reply: Reply
    delay_s: float

    def send(self, handler: Any, server: ProviderServer) -> None:
        if not server.stopping.wait(self.delay_s):
            self.reply.send(handler, server)


def routes(kind: str, models: list[str]) -> dict[str, Reply]:
    """What a server of ``kind`` answers (GET path -> reply)."""
    if kind == "ollama":
        return {"/api/tags": JsonReply(ollama_tags(models))}
    if kind == "llamacpp":  # llama.cpp's server: both lists, owned_by "llamacpp"
        body = _models(models, "llamacpp", meta={"n_ctx_train": 4096})
        body["models"] = [{"name": m, "model": m, "type": "model"} for m in models]
        return {"/v1/models": JsonReply(body), "/health": JsonReply({"status": "ok"})}
    if kind == "localai":
        return {"/v1/models": JsonReply({"object": "list", "data": [
            {"id": m, "object": "model"} for m in models]}), "/readyz": RawReply("OK")}
    if kind == "openai-generic":
        return {"/v1/models": JsonReply(_models(models, "someone"))}
    if kind == "koboldcpp":  # its OpenAI side and its own API
        name = f"koboldcpp/{models[0]}"
        return {"/v1/models": JsonReply(_models([name], "koboldcpp")),
                "/api/v1/model": JsonReply({"result": name})}
    if kind == "koboldcpp-native":  # an older KoboldCpp: only its own API
        return {"/api/v1/model": JsonReply({"result": f"koboldcpp/{models[0]}"})}
    owners = {"vllm": "vllm", "lmstudio": "organization_owner", "jan": "jan", "gpt4all": "GPT4All"}
    return {"/v1/models": JsonReply(_models(models, owners[kind]))}


class LocalServers(ExitStack):
    """``add(kind, models)`` starts one server; its port is returned."""

    def add(self, kind: str, models: list[str], delay_s: float = 0.0) -> int:
        server = self.enter_context(ProviderServer())
        for path, reply in routes(kind, models).items():
            server.on("GET", path, SlowReply(reply, delay_s) if delay_s else reply)
        return int(server.url.rsplit(":", 1)[1])


def closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (just released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
