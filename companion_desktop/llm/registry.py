"""The provider presets and the registry that builds providers from a configuration.

Each preset is a :class:`ProviderSpec`; a factory turns a :class:`ProviderConfig`
and an ``httpx.Client`` into a provider. :func:`register` adds or replaces one, so
tests can register a scripted fake provider and reach it through
:func:`create_provider` exactly as the app does.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urlsplit

import httpx

from companion_desktop.llm.anthropic import DEFAULT_BASE_URL as ANTHROPIC_URL
from companion_desktop.llm.anthropic import AnthropicProvider
from companion_desktop.llm.base import AuthError, ConfigError, Provider, ProviderConfig
from companion_desktop.llm.errors import SETTINGS_PAGE, key_problem
from companion_desktop.llm.google import DEFAULT_BASE_URL as GOOGLE_URL
from companion_desktop.llm.google import GoogleProvider
from companion_desktop.llm.openai_compat import OpenAICompatProvider

Kind = Literal["openai", "anthropic", "google", "builtin"]
ProviderFactory = Callable[[ProviderConfig, httpx.Client], Provider]
USER_AGENT = "companion-desktop/0.1"


@dataclass(frozen=True)
class ProviderSpec:
    """A provider preset. ``default_base_url`` is "" when the user must give one;
    ``local`` means it runs on the user's machine; ``vision`` that it accepts images."""

    id: str
    name: str
    kind: Kind
    default_base_url: str
    needs_key: bool
    local: bool = False
    vision: bool = False


#: Her own mind's preset: its address is the running mind's, set on each call.
BUILTIN_ID = "builtin"

PRESETS: tuple[ProviderSpec, ...] = (
    ProviderSpec(BUILTIN_ID, "Built-in (offline)", "builtin", "builtin://her-mind", False,
                 local=True),
    ProviderSpec("openai-compatible", "OpenAI-compatible server", "openai", "", False),
    ProviderSpec("openai", "OpenAI", "openai", "https://api.openai.com/v1", True, vision=True),
    ProviderSpec("anthropic", "Anthropic", "anthropic", ANTHROPIC_URL, True, vision=True),
    ProviderSpec("google", "Google Gemini", "google", GOOGLE_URL, True, vision=True),
    ProviderSpec("xai", "xAI", "openai", "https://api.x.ai/v1", True, vision=True),
    ProviderSpec("openrouter", "OpenRouter", "openai", "https://openrouter.ai/api/v1", True),
    ProviderSpec("deepseek", "DeepSeek", "openai", "https://api.deepseek.com/v1", True),
    ProviderSpec("ollama", "Ollama", "openai", "http://127.0.0.1:11434/v1", False, local=True),
    ProviderSpec("lmstudio", "LM Studio", "openai", "http://127.0.0.1:1234/v1", False, local=True),
    ProviderSpec("llamacpp", "llama.cpp server", "openai", "http://127.0.0.1:8080/v1", False,
                 local=True),
    ProviderSpec("vllm", "vLLM", "openai", "http://127.0.0.1:8000/v1", False, local=True),
)

#: Every registered spec by id, in registration order (presets first).
SPECS: dict[str, ProviderSpec] = {}
_FACTORIES: dict[str, ProviderFactory] = {}


def builtin_factory(spec: ProviderSpec) -> ProviderFactory:
    """The factory of the HTTP provider for ``spec.kind``."""
    if spec.kind == "anthropic":
        return lambda config, client: AnthropicProvider(config, client, spec.name)
    if spec.kind == "google":
        return lambda config, client: GoogleProvider(config, client, spec.name)
    if spec.kind == "builtin":  # its own client, for the mind on this machine
        return lambda config, client: _builtin_provider(config)
    if spec.kind == "openai":
        return lambda config, client: OpenAICompatProvider(
            config, client, spec.name,
            app_headers=spec.id == "openrouter", ollama_tags=spec.id == "ollama",
        )
    raise ValueError(f"unknown provider kind {spec.kind!r}")


def _builtin_provider(config: ProviderConfig) -> Provider:
    from companion_desktop.llm.mind.provider import BuiltinProvider  # loaded when chosen

    return BuiltinProvider(config)


def register(spec: ProviderSpec, factory: ProviderFactory | None = None) -> None:
    """Add (or replace) ``spec``; ``factory`` defaults to the built-in one for its kind."""
    _FACTORIES[spec.id] = factory or builtin_factory(spec)
    SPECS[spec.id] = spec


def unregister(provider_id: str) -> None:
    """Remove a registered provider (a preset comes back by registering it again)."""
    SPECS.pop(provider_id, None)
    _FACTORIES.pop(provider_id, None)


def get_spec(provider_id: str) -> ProviderSpec:
    """The spec for ``provider_id``; ConfigError when none is registered."""
    try:
        return SPECS[provider_id]
    except KeyError:
        raise ConfigError(
            f"Unknown provider '{provider_id}': pick one in {SETTINGS_PAGE}."
        ) from None


def resolve_config(config: ProviderConfig) -> ProviderConfig:
    """``config`` with the preset's base URL filled in and the key stripped.

    ConfigError without a base URL; AuthError when the provider needs a key and has none,
    or the key cannot be one (a line break or control character would otherwise end up
    in an error message, a non-ASCII one in a crash).
    """
    spec = get_spec(config.provider_id)
    base_url = (config.base_url or "").strip().rstrip("/") or spec.default_base_url
    if not base_url:
        raise ConfigError(f"{spec.name} needs a server URL: set it in {SETTINGS_PAGE}.")
    key = (config.api_key or "").strip() or None
    problem = key_problem(key) if key else None
    if problem:
        raise AuthError(f"{spec.name}: {problem} ({SETTINGS_PAGE} or COMPANION_API_KEY)")
    if spec.needs_key and not key:
        raise AuthError(
            f"{spec.name} needs an API key: set it in {SETTINGS_PAGE} or COMPANION_API_KEY."
        )
    return replace(config, base_url=base_url, api_key=key)


def create_provider(config: ProviderConfig, client: httpx.Client | None = None) -> Provider:
    """The provider for ``config`` (see :func:`resolve_config`), over ``client`` or a
    new one from :func:`make_client`."""
    resolved = resolve_config(config)
    return _FACTORIES[resolved.provider_id](resolved, client or make_client(resolved))


def is_loopback_url(url: str) -> bool:
    """True when ``url`` points at this machine (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make_client(config: ProviderConfig) -> httpx.Client:
    """An ``httpx.Client`` for ``config``: connect timeout ``connect_timeout`` s, read
    timeout ``stall_timeout`` s (a silent stream raises). Proxy settings from the
    environment apply, except to servers on this machine. Redirects are never followed:
    the key headers and the conversation would go wherever the server points."""
    timeout = httpx.Timeout(
        connect=config.connect_timeout,
        read=config.stall_timeout,
        write=config.stall_timeout,
        pool=config.connect_timeout,
    )
    return httpx.Client(
        timeout=timeout,
        headers={"User-Agent": USER_AGENT},
        follow_redirects=False,
        trust_env=not is_loopback_url(config.base_url),
    )


for _spec in PRESETS:
    register(_spec)
