"""The first run's probes of local model servers, against real servers on 127.0.0.1
answering in each one's model-list format."""

from __future__ import annotations

import time

import pytest

from companion_desktop.llm.local_servers import (
    KINDS,
    LocalServer,
    default_servers,
    probe,
    probe_all,
)
from tests.llm.local_server_fakes import LocalServers, closed_port


@pytest.mark.parametrize("kind,probe_as,name,provider", [
    ("ollama", "ollama", "Ollama", "ollama"),
    ("lmstudio", "lmstudio", "LM Studio", "lmstudio"),
    ("llamacpp", "llamacpp", "llama.cpp server", "llamacpp"),
    ("localai", "llamacpp", "LocalAI", "openai-compatible"),
    ("vllm", "vllm", "vLLM", "vllm"),
    ("jan", "jan", "Jan", "openai-compatible"),
    ("gpt4all", "gpt4all", "GPT4All", "openai-compatible"),
])
def test_each_server_is_recognised_with_its_models(kind, probe_as, name, provider):
    with LocalServers() as servers:
        port = servers.add(kind, ["model-a", "model-b"])
        found = probe(LocalServer(probe_as, port))
    assert (found.name, found.provider_id) == (name, provider)
    assert found.base_url == f"http://127.0.0.1:{port}/v1"
    assert found.models == ("model-a", "model-b")


def test_another_server_on_8080_is_listed_as_openai_compatible():
    with LocalServers() as servers:
        port = servers.add("openai-generic", ["m"])
        found = probe(LocalServer("llamacpp", port))
    assert found.name == f"OpenAI-compatible server on :{port}"
    assert found.provider_id == "openai-compatible" and found.models == ("m",)


@pytest.mark.parametrize("kind", ["koboldcpp", "koboldcpp-native"])
def test_koboldcpp_through_either_of_its_apis(kind):
    with LocalServers() as servers:
        port = servers.add(kind, ["Tiefighter-13B"])
        found = probe(LocalServer("koboldcpp", port))
    assert found.name == "KoboldCpp" and found.provider_id == "openai-compatible"
    assert found.models == ("koboldcpp/Tiefighter-13B",)


def test_probe_all_asks_everyone_at_once_and_skips_the_silent():
    with LocalServers() as servers:
        ports = {kind: servers.add(kind, [f"{kind}-model"], delay_s=0.6)
                 for kind in ("ollama", "vllm", "jan", "gpt4all", "lmstudio")}
        ports["koboldcpp"] = closed_port()
        ports["llamacpp"] = closed_port()
        started = time.monotonic()
        found = probe_all(default_servers(ports), timeout=1.5)
        elapsed = time.monotonic() - started
    assert [f.name for f in found] == ["Ollama", "LM Studio", "vLLM", "Jan", "GPT4All"]
    assert elapsed < 1.5  # five 0.6 s answers, in parallel


def test_a_server_that_is_not_a_model_server_is_skipped():
    with LocalServers() as servers:
        port = servers.add("ollama", ["x"])  # answers /api/tags only: 404 for /v1/models
        assert probe_all([LocalServer("vllm", port)]) == []


def test_default_ports_are_the_servers_usual_ones():
    ports = {s.kind: s.port for s in default_servers()}
    assert ports == {"ollama": 11434, "lmstudio": 1234, "llamacpp": 8080, "vllm": 8000,
                     "jan": 1337, "koboldcpp": 5001, "gpt4all": 4891}
    assert set(ports) == set(KINDS)


def test_the_places_looked_at_name_every_server():
    from companion_desktop.llm.local_servers import LocalServer

    assert LocalServer("llamacpp", 8080).where == "llama.cpp server or LocalAI (:8080)"
    assert LocalServer("vllm", 8000).where == "vLLM (:8000)"
