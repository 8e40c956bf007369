"""Whether the chosen model can see images, and what to tell the user when it can't.

:func:`can_show_images` combines the provider flag (``ProviderSpec.vision``: OpenAI,
Anthropic, Google, xAI) with a model-name check for every other provider (local
servers, OpenRouter, any OpenAI-compatible server), where it depends on the model
installed: LLaVA, gemma3, qwen2.5-vl, llama3.2-vision and similar. A text-only
model gets :func:`vision_refusal` (a prompt to switch) instead of a silent failure.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from companion_desktop.llm.base import LlmError
from companion_desktop.llm.errors import SETTINGS_PAGE
from companion_desktop.llm.registry import SPECS, is_loopback_url

#: Model-name pieces of vision models (matched case-insensitively anywhere in the id,
#: so OpenRouter's ``vendor/model`` and Ollama's ``model:tag`` forms both match).
VISION_PATTERNS: tuple[str, ...] = (
    r"llava",                      # llava, bakllava, llava-phi3, llava-llama3
    r"gemma-?3",                   # gemma3:4b, gemma-3-27b-it (text-only sizes below)
    r"qwen[\d.]*-?vl",             # qwen2.5-vl, qwen2.5vl, qwen2-vl, qwen-vl, qwen3-vl
    r"vision",                     # llama3.2-vision, granite3.2-vision, phi-3.5-vision
    r"-vl\b", r"-vl-", r"vlm",     # kimi-vl, internvl, smolvlm, cogvlm
    r"llama-?4",                   # llama4, llama-4-scout, llama-4-maverick
    r"minicpm-v", r"moondream", r"pixtral", r"internvl",
    r"mistral-small-?3\.[12]", r"mistral-small-?(2503|2506)",
    r"phi-?4-multimodal", r"multimodal",
    r"gpt-4o", r"gpt-4\.1", r"gpt-5", r"gpt-4-turbo", r"(^|/)o[134](-|$)",
    r"claude", r"gemini", r"grok-4", r"glm-4(\.\d)?v",
)
#: Text-only models whose names would match a pattern above.
TEXT_ONLY_PATTERNS: tuple[str, ...] = (
    r"gemma-?3[:\-_ ]?(1b|270m)",  # gemma3:1b, gemma-3-1b-it, gemma3:270m
    r"gemma-?3n",                  # gemma3n takes only text on local servers
    r"gemini-embedding", r"text-embedding",
)
_VISION = re.compile("|".join(VISION_PATTERNS), re.IGNORECASE)
_TEXT_ONLY = re.compile("|".join(TEXT_ONLY_PATTERNS), re.IGNORECASE)
#: Host name endings of servers on the user's own network.
_LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".home.arpa", ".internal")


def model_can_see(model: str | None) -> bool:
    """True when the model id names a vision model (see VISION_PATTERNS)."""
    name = (model or "").strip()
    if not name or _TEXT_ONLY.search(name):
        return False
    return bool(_VISION.search(name))


def can_show_images(provider_id: str, model: str | None) -> bool:
    """True when images may be sent: a provider flagged ``vision`` (its models all
    take images), or for any other provider a model id naming a vision model."""
    spec = SPECS.get(provider_id)
    if spec is not None and spec.vision:
        return True
    return model_can_see(model)


def provider_name(provider_id: str) -> str:
    """The provider's display name (its id when unregistered)."""
    spec = SPECS.get(provider_id)
    return spec.name if spec is not None else provider_id or "This provider"


def vision_refusal(provider_id: str, model: str | None) -> str:
    """The message shown instead of sending an image to a text-only model."""
    which = f"with {model.strip()}" if model and model.strip() else "with the chosen model"
    return (
        f"{provider_name(provider_id)} {which} can't see images. To show her photos, pick "
        "a vision model (for example llava, gemma3 or qwen2.5-vl on a local server, or "
        f"OpenAI, Anthropic, Google or xAI) in {SETTINGS_PAGE}."
    )


class VisionUnavailableError(LlmError):
    """The chosen model can't see images; the message says how to switch."""

    retryable = False

    @classmethod
    def for_model(cls, provider_id: str, model: str | None) -> VisionUnavailableError:
        return cls(vision_refusal(provider_id, model))


def require_vision(provider_id: str, model: str | None) -> None:
    """Raise VisionUnavailableError unless :func:`can_show_images`."""
    if not can_show_images(provider_id, model):
        raise VisionUnavailableError.for_model(provider_id, model)


def is_local_host(host: str) -> bool:
    """True for this machine or the user's own network: localhost, loopback, private
    and link-local addresses, and ``.local``-style host names."""
    host = host.strip().lower().rstrip(".")
    if not host:
        return False
    if host == "localhost" or host.endswith(_LOCAL_SUFFIXES):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def is_local_provider(provider_id: str, base_url: str | None) -> bool:
    """True when requests stay on this machine or network (photos never reach a cloud).

    The base URL decides when it names a host (a local preset pointed at a remote
    server is not local; the preset's own URL when ``base_url`` is empty); without
    one the preset's ``local`` flag does.
    """
    spec = SPECS.get(provider_id)
    url = (base_url or "").strip() or (spec.default_base_url if spec else "")
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        return is_loopback_url(url) or is_local_host(parts.hostname)
    return bool(spec and spec.local)
