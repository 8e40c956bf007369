"""Vision gating: which provider and model may be shown images, the message when not,
and whether a provider keeps photos on the user's own machine or network."""

from __future__ import annotations

import pytest

from companion_desktop.llm.base import LlmError
from companion_desktop.llm.registry import ProviderSpec, register, unregister
from companion_desktop.llm.vision import (
    VisionUnavailableError,
    can_show_images,
    is_local_provider,
    require_vision,
    vision_refusal,
)

VISION_MODELS = [
    "llava:13b", "bakllava", "llava-phi3:3.8b", "gemma3:4b", "gemma3:27b-it-qat",
    "google/gemma-3-12b-it", "qwen2.5vl:7b", "Qwen/Qwen2.5-VL-7B-Instruct", "qwen2-vl-7b",
    "qwen3-vl:8b", "llama3.2-vision:11b", "meta-llama/Llama-3.2-11B-Vision-Instruct",
    "llama4:scout", "meta-llama/llama-4-maverick", "minicpm-v:8b", "moondream",
    "pixtral-12b", "mistral-small3.1:24b", "mistral-small3.2", "mistral-small-3.1-24b",
    "granite3.2-vision", "openai/gpt-4o-mini", "openai/gpt-4.1", "openai/gpt-5",
    "anthropic/claude-sonnet-4", "google/gemini-2.5-flash", "OpenGVLab/InternVL3-8B",
    "phi-3.5-vision-instruct", "microsoft/phi-4-multimodal-instruct", "x-ai/grok-4",
    "openai/o3", "kimi-vl-a3b",
]
TEXT_MODELS = [
    "llama3.1:8b", "gemma3:1b", "gemma-3-1b-it", "gemma3:270m", "gemma3n:e4b",
    "gemma2:9b", "qwen2.5:7b", "mistral:7b", "deepseek-r1:14b", "phi4:14b",
    "deepseek/deepseek-chat", "", None,
]


@pytest.mark.parametrize("model", VISION_MODELS)
def test_vision_models_on_local_and_routing_providers(model) -> None:
    for provider_id in ("ollama", "lmstudio", "openrouter", "openai-compatible", "vllm"):
        assert can_show_images(provider_id, model), (provider_id, model)


@pytest.mark.parametrize("model", TEXT_MODELS)
def test_text_only_models_are_refused(model) -> None:
    for provider_id in ("ollama", "llamacpp", "openrouter", "deepseek", "unknown-id"):
        assert not can_show_images(provider_id, model), (provider_id, model)


@pytest.mark.parametrize("provider_id", ["openai", "anthropic", "google", "xai"])
def test_flagged_cloud_providers_see_with_any_model(provider_id) -> None:
    assert can_show_images(provider_id, "some-new-model-2031")
    assert can_show_images(provider_id, None)


def test_refusal_names_the_provider_model_and_where_to_switch() -> None:
    message = vision_refusal("ollama", "llama3.1:8b")
    assert message.startswith("Ollama with llama3.1:8b can't see images.")
    assert "llava, gemma3 or qwen2.5-vl" in message and "Settings > LLM Model" in message
    assert vision_refusal("mystery", "").startswith("mystery with the chosen model can't")


def test_require_vision_raises_a_final_error_with_the_refusal() -> None:
    require_vision("ollama", "llava:7b")
    require_vision("anthropic", "claude-x")
    with pytest.raises(VisionUnavailableError) as caught:
        require_vision("lmstudio", "qwen2.5-7b-instruct")
    error = caught.value
    assert isinstance(error, LlmError) and error.retryable is False
    assert error.message == vision_refusal("lmstudio", "qwen2.5-7b-instruct")
    assert VisionUnavailableError("custom").message == "custom"


@pytest.mark.parametrize("provider_id,base_url,local", [
    ("ollama", "", True),
    ("ollama", None, True),
    ("ollama", "http://127.0.0.1:11434/v1", True),
    ("ollama", "https://ollama.example.com/v1", False),
    ("openai-compatible", "http://192.168.1.20:8000/v1", True),
    ("openai-compatible", "http://10.0.0.5/v1", True),
    ("openai-compatible", "http://[::1]:8080/v1", True),
    ("openai-compatible", "http://localhost:1234/v1", True),
    ("openai-compatible", "http://studio.local:1234/v1", True),
    ("openai-compatible", "https://api.together.xyz/v1", False),
    ("openai-compatible", "http://8.8.8.8/v1", False),
    ("openai", "", False),
    ("anthropic", "https://api.anthropic.com/v1", False),
    ("unknown", "not a url", False),
])
def test_is_local_provider(provider_id, base_url, local) -> None:
    assert is_local_provider(provider_id, base_url) is local


def test_a_local_spec_without_an_http_url_is_local_by_its_flag() -> None:
    register(ProviderSpec("in-process", "In-process", "openai", "inproc://here", False,
                          local=True), lambda config, client: None)  # type: ignore[arg-type]
    try:
        assert is_local_provider("in-process", "")
        assert not can_show_images("in-process", "plain-model")
        assert can_show_images("in-process", "llava")
    finally:
        unregister("in-process")
