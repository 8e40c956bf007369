"""Local model servers the first run looks for, and what they offer.

Each kind listens on its usual port of 127.0.0.1 (tests pass other ports) and lists its
models in its own format: Ollama's ``/api/tags``; the OpenAI-style ``/v1/models`` of
LM Studio, llama.cpp's server, vLLM, Jan, KoboldCpp, LocalAI and GPT4All; KoboldCpp's
own ``/api/v1/model`` when its OpenAI side does not answer. Port 8080 is llama.cpp's and
LocalAI's: llama.cpp marks its models ``owned_by: llamacpp``, LocalAI answers
``/readyz``; any other server there is listed as an OpenAI-compatible server.
:func:`probe_all` asks every server at once, each with a short timeout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

#: Seconds one request of a probe may take (the first run must not keep anyone waiting).
PROBE_TIMEOUT_S = 1.5


@dataclass(frozen=True)
class Kind:
    """A kind of local server: its name, the provider preset it is set up with
    ("openai-compatible" when there is none) and its usual port."""

    name: str
    provider_id: str
    port: int


KINDS: dict[str, Kind] = {
    "ollama": Kind("Ollama", "ollama", 11434),
    "lmstudio": Kind("LM Studio", "lmstudio", 1234),
    "llamacpp": Kind("llama.cpp server", "llamacpp", 8080),  # or LocalAI: see probe()
    "vllm": Kind("vLLM", "vllm", 8000),
    "jan": Kind("Jan", "openai-compatible", 1337),
    "koboldcpp": Kind("KoboldCpp", "openai-compatible", 5001),
    "gpt4all": Kind("GPT4All", "openai-compatible", 4891),
}


@dataclass(frozen=True)
class LocalServer:
    """Where to look for one kind of server."""

    kind: str
    port: int
    host: str = "127.0.0.1"

    @property
    def root(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def name(self) -> str:
        return KINDS[self.kind].name

    @property
    def where(self) -> str:
        """``vLLM (:8000)``; port 8080 names both servers that use it."""
        name = "llama.cpp server or LocalAI" if self.kind == "llamacpp" else self.name
        return f"{name} (:{self.port})"


@dataclass(frozen=True)
class Found:
    """A server that answered: what to call it, how to set it up, and its models."""

    name: str
    provider_id: str
    base_url: str
    models: tuple[str, ...]


def default_servers(ports: Mapping[str, int] | None = None) -> tuple[LocalServer, ...]:
    """Every kind at its usual port; ``ports`` (kind -> port) moves some (tests)."""
    ports = ports or {}
    return tuple(LocalServer(kind, ports.get(kind, spec.port)) for kind, spec in KINDS.items())


def probe(server: LocalServer, timeout: float = PROBE_TIMEOUT_S) -> Found:
    """What ``server`` offers; httpx errors (or ValueError for an answer that is no
    model list) when nothing of its kind answers there."""
    kind = KINDS[server.kind]
    with httpx.Client(base_url=server.root, timeout=timeout, trust_env=False) as client:
        if server.kind == "ollama":
            return _found(server, kind.name, kind.provider_id, _names(_get(client, "/api/tags")))
        if server.kind == "koboldcpp":
            return _found(server, kind.name, kind.provider_id, _kobold_models(client))
        data = _get(client, "/v1/models")
        models = _names(data)
        if server.kind != "llamacpp":
            return _found(server, kind.name, kind.provider_id, models)
        if _owned_by(data, "llamacpp"):
            return _found(server, kind.name, kind.provider_id, models)
        if _answers(client, "/readyz"):
            return _found(server, "LocalAI", "openai-compatible", models)
        return _found(server, f"OpenAI-compatible server on :{server.port}",
                      "openai-compatible", models)


def probe_all(servers: Iterable[LocalServer], timeout: float = PROBE_TIMEOUT_S) -> list[Found]:
    """Every server that answered, in the order given; all are asked at once."""
    servers = list(servers)
    if not servers:
        return []

    def ask(server: LocalServer) -> Found | None:
        try:
            return probe(server, timeout)
        except (httpx.HTTPError, ValueError):
            return None

    with ThreadPoolExecutor(max_workers=len(servers), thread_name_prefix="probe") as pool:
        return [found for found in pool.map(ask, servers) if found is not None]


def _found(server: LocalServer, name: str, provider_id: str, models: list[str]) -> Found:
    return Found(name, provider_id, f"{server.root}/v1", tuple(models))


def _get(client: httpx.Client, path: str) -> Any:
    response = client.get(path)
    response.raise_for_status()
    return response.json()  # ValueError when it is not JSON


def _names(data: Any) -> list[str]:
    """Model names of an OpenAI-style list (``data[].id``) or Ollama's (``models[].name``);
    ValueError for anything else."""
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        names = [m.get("id") for m in data["data"] if isinstance(m, dict)]
    elif isinstance(data, dict) and isinstance(data.get("models"), list):
        names = [m.get("name") or m.get("model") for m in data["models"] if isinstance(m, dict)]
    else:
        raise ValueError("not a model list")
    return [str(name) for name in names if name]


def _owned_by(data: Any, owner: str) -> bool:
    return any(isinstance(m, dict) and m.get("owned_by") == owner for m in data.get("data", []))


def _answers(client: httpx.Client, path: str) -> bool:
    try:
        return client.get(path).status_code == 200
    except httpx.HTTPError:
        return False


def _kobold_models(client: httpx.Client) -> list[str]:
    """KoboldCpp's OpenAI list, else its own ``/api/v1/model`` (``{"result": name}``)."""
    try:
        return _names(_get(client, "/v1/models"))
    except (httpx.HTTPStatusError, ValueError):
        data = _get(client, "/api/v1/model")
    if not isinstance(data, dict) or not isinstance(data.get("result"), str):
        raise ValueError("not a KoboldCpp model answer")
    return [data["result"]] if data["result"] and data["result"] != "inactive" else []
