"""The presets, provider creation from a configuration, clients, and registering a fake."""

from __future__ import annotations

import pytest

from companion_desktop.llm.anthropic import AnthropicProvider
from companion_desktop.llm.base import (
    AuthError,
    ChatMessage,
    ConfigError,
    ProviderConfig,
    ServerError,
)
from companion_desktop.llm.google import GoogleProvider
from companion_desktop.llm.openai_compat import OpenAICompatProvider
from companion_desktop.llm.registry import (
    PRESETS,
    SPECS,
    create_provider,
    is_loopback_url,
    make_client,
)
from tests.llm.conftest import KEY
from tests.llm.fake_provider import Script, scripted_provider

IDS = ["builtin", "openai-compatible", "openai", "anthropic", "google", "xai", "openrouter",
       "deepseek", "ollama", "lmstudio", "llamacpp", "vllm"]


def test_preset_ids_and_flags() -> None:
    assert [spec.id for spec in PRESETS] == IDS
    assert all(SPECS[i] == spec for i, spec in zip(IDS, PRESETS, strict=True))
    assert {i for i in IDS if SPECS[i].needs_key} == {
        "openai", "anthropic", "google", "xai", "openrouter", "deepseek"}
    assert {i for i in IDS if SPECS[i].local} == {"builtin", "ollama", "lmstudio", "llamacpp",
                                                   "vllm"}
    assert {i for i in IDS if SPECS[i].vision} == {"openai", "anthropic", "google", "xai"}
    assert SPECS["openai-compatible"].default_base_url == ""
    assert SPECS["ollama"].default_base_url == "http://127.0.0.1:11434/v1"
    assert SPECS["lmstudio"].default_base_url == "http://127.0.0.1:1234/v1"
    assert SPECS["llamacpp"].default_base_url == "http://127.0.0.1:8080/v1"
    assert SPECS["vllm"].default_base_url == "http://127.0.0.1:8000/v1"
    assert {SPECS[i].kind for i in IDS} == {"builtin", "openai", "anthropic", "google"}


@pytest.mark.parametrize("provider_id", IDS)
def test_each_preset_builds_its_provider_class(provider_id) -> None:
    model = "smollm2-135m" if provider_id == "builtin" else "m"  # her own mind's test model
    config = ProviderConfig(provider_id, "http://127.0.0.1:9/v1", model, api_key=KEY)
    provider = create_provider(config)
    expected = {"anthropic": AnthropicProvider, "google": GoogleProvider}.get(
        provider_id, OpenAICompatProvider)
    assert isinstance(provider, expected)
    assert provider.id == provider_id
    assert provider.name == SPECS[provider_id].name


def test_default_base_url_is_filled_in_and_the_key_trimmed() -> None:
    provider = create_provider(ProviderConfig("anthropic", "", "claude", api_key=f" {KEY}\n"))
    assert provider.config.base_url == SPECS["anthropic"].default_base_url != ""
    assert provider.config.api_key == KEY


@pytest.mark.parametrize("provider_id", ["openai", "anthropic", "google", "xai", "openrouter"])
def test_a_cloud_provider_without_a_key_is_refused_before_any_request(provider_id) -> None:
    with pytest.raises(AuthError) as caught:
        create_provider(ProviderConfig(provider_id, "", "m", api_key="  "))
    assert str(caught.value) == (
        f"{SPECS[provider_id].name} needs an API key: "
        "set it in Settings > LLM Model or COMPANION_API_KEY."
    )


def test_local_providers_need_no_key() -> None:
    assert create_provider(ProviderConfig("ollama", "", "llama3")).config.api_key is None


def test_missing_url_and_unknown_provider_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="needs a server URL"):
        create_provider(ProviderConfig("openai-compatible", "", "m"))
    with pytest.raises(ConfigError, match="Unknown provider 'nope'"):
        create_provider(ProviderConfig("nope", "http://127.0.0.1:1/v1", "m"))


def test_make_client_timeouts_and_proxy_policy() -> None:
    config = ProviderConfig("ollama", "http://localhost:11434/v1", "m",
                            connect_timeout=3.0, stall_timeout=12.0)
    with make_client(config) as client:
        assert client.timeout.connect == 3.0 and client.timeout.read == 12.0
        assert not client.trust_env
    with make_client(ProviderConfig("openai", "https://example.invalid/v1", "m")) as client:
        assert client.trust_env and client.timeout.read == 45.0
    assert is_loopback_url("http://127.0.0.2:1/v1") and is_loopback_url("http://[::1]:8/v1")
    assert not is_loopback_url("http://192.168.1.5:11434/v1")


def test_a_scripted_fake_goes_through_the_real_registry() -> None:
    script = Script(replies=["Hello there, friend!", ServerError("down")],
                    json_replies=[{"mood": "happy"}], chunk_size=5)
    with scripted_provider(script) as spec:
        assert SPECS[spec.id] is spec
        provider = create_provider(ProviderConfig(spec.id, "", "fake-model"))
        history = [ChatMessage("user", "hi")]
        assert list(provider.stream_chat("sys", history)) == ["Hello", " ther", "e, fr", "iend!"]
        with pytest.raises(ServerError):
            list(provider.stream_chat("sys", history))
        assert provider.complete_json("sys", history) == {"mood": "happy"}
        assert provider.list_models() == ["fake-model"]
        assert [c.method for c in script.calls] == ["stream_chat", "stream_chat", "complete_json"]
    assert "scripted" not in SPECS
    with pytest.raises(ConfigError):
        create_provider(ProviderConfig("scripted", "", "fake-model"))
