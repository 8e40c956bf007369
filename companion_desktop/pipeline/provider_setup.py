"""From saved settings (and command-line overrides) to a ready provider."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from companion_desktop.llm.base import ProviderConfig
from companion_desktop.pipeline.key_hold import held_message, held_url
from companion_desktop.storage.settings import LlmSettings

if TYPE_CHECKING:
    import httpx

# The registry (httpx) and the keyring load with the first provider set up, not before:
# with none saved, the app's first picture waits for neither.


class ProviderNotReady(Exception):
    """No usable provider: the message says what to set up."""


@dataclass(frozen=True)
class Overrides:
    provider: str | None = None
    base_url: str | None = None
    model: str | None = None


def provider_config(settings: LlmSettings, overrides: Overrides | None = None) -> ProviderConfig:
    """The provider to use: overrides first, then the saved settings, then the preset.
    ProviderNotReady when nothing usable is set, or when a key would go to an address a
    restored backup brought that the user has not confirmed (``key_hold``)."""
    o = overrides or Overrides()
    pid = o.provider or settings.provider
    if not pid:
        raise ProviderNotReady(
            "No language model is set up yet: open Settings > LLM Model, or pass "
            "--provider and --model (for example --provider ollama --model llama3.2)."
        )
    from companion_desktop.llm.keys import get_key
    from companion_desktop.llm.registry import SPECS

    spec = SPECS.get(pid)
    if spec is None:
        raise ProviderNotReady(f"unknown provider {pid!r}; known: {', '.join(sorted(SPECS))}")
    same = settings.provider == pid
    url = o.base_url or (settings.base_url if same else None) or spec.default_base_url
    if not url:
        raise ProviderNotReady(f"{spec.name} needs a base URL (--base-url, e.g. http://127.0.0.1:8080/v1).")
    model = o.model or (settings.model if same else None)
    if not model and spec.kind == "builtin":
        model = builtin_model()
    if not model:
        raise ProviderNotReady(f"Pick a model for {spec.name} (--model, or Settings > LLM Model).")
    key = get_key(pid)
    held = held_url(settings) if same and not o.base_url else None
    if held and key:  # a restored backup's address: no key until the user confirms it
        raise ProviderNotReady(held_message("llm", held))
    return ProviderConfig(provider_id=pid, base_url=url.rstrip("/"), model=model, api_key=key)


def open_provider(config: ProviderConfig, client: httpx.Client | None = None):  # noqa: ANN201
    """A provider for ``config`` (raises the llm package's AuthError when a key is missing)."""
    from companion_desktop.llm.registry import create_provider

    return create_provider(config, client)


def builtin_model() -> str:
    """The model her own mind runs when none is chosen (the preferred installed one);
    ProviderNotReady saying what to install when none is."""
    from companion_desktop.llm.mind.models import installed_models, runtime_problem

    problem = runtime_problem()
    found = installed_models()
    if problem or not found:
        from companion_desktop.llm.mind.models import DEFAULT

        raise ProviderNotReady(problem or "No model for her own mind is installed: pip "
                               "install " + " ".join(DEFAULT.dists) + ".")
    return found[0].id


def configure_mind(data_dir: Path, settings: LlmSettings) -> None:
    """Where her own mind keeps its joined model (the data folder's ``cache``) and how
    long it stays loaded without a call; nothing is loaded here."""
    from companion_desktop.llm.mind.host import HOST

    HOST.configure(Path(data_dir) / "cache", settings.mind_idle_minutes * 60)
