"""The privacy notice shown with the first photo sent to each provider.

Photos leave the machine only for the one request that shows them. The first
time a photo goes to a provider, the chat says where it goes: to a cloud
service, to a server on the local network, or nowhere (a server on this
computer). Each provider id gets its notice once; the ids already told are kept
in ``ImageSettings.privacy_noticed``.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from companion_desktop.llm.registry import SPECS, is_loopback_url
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import ImageSettings, load_settings, save_settings

MAX_REMEMBERED = 100  # provider ids kept in privacy_noticed (oldest dropped)
_LAN_SUFFIXES = (".local", ".lan", ".home", ".internal", ".home.arpa", ".localdomain")


def photo_notice(
    db: Database, provider_id: str, base_url: str | None, *, mark: bool = True
) -> str | None:
    """The notice for the first photo sent to ``provider_id`` at ``base_url`` (None:
    the preset's URL), or None when that provider was already noticed. With ``mark``
    the provider is recorded in the same transaction; ``mark=False`` only peeks."""
    key = (provider_id or "").strip()[:200]
    if mark:
        with db.session() as session:
            settings = load_settings(session, ImageSettings)
            if key in settings.privacy_noticed:
                return None
            remembered = [*settings.privacy_noticed, key][-MAX_REMEMBERED:]
            save_settings(session, ImageSettings(privacy_noticed=remembered))
    else:
        with db.read_session() as session:
            if key in load_settings(session, ImageSettings).privacy_noticed:
                return None
    return notice_text(key, base_url)


def notice_text(provider_id: str, base_url: str | None) -> str:
    """What the notice says for ``provider_id`` reached at ``base_url``."""
    spec = SPECS.get(provider_id)
    name = spec.name if spec else (provider_id or "your model provider")
    url = (base_url or "").strip() or (spec.default_base_url if spec else "")
    where = _where(url, local_preset=bool(spec and spec.local))
    host = urlsplit(url).hostname or url
    if where == "here":
        return f"This photo never leaves your computer: {name} runs here."
    if where == "network":
        return (
            f"This photo stays on your own network: {name} runs at {host}, not in the cloud. "
            "It is kept only on this computer afterwards."
        )
    shown = name if spec and not spec.local and not base_url else f"{name} ({host})"
    return (
        f"Photos you show her are sent to {shown} for that one reply, "
        "and kept only on this computer afterwards."
    )


def _where(url: str, *, local_preset: bool) -> str:
    """"here" (this computer), "network" (a private address) or "cloud"."""
    if not url:
        return "here" if local_preset else "cloud"
    if is_loopback_url(url):
        return "here"
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if not host:
        return "cloud"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        lan_name = "." not in host or host.endswith(_LAN_SUFFIXES)
        return "network" if lan_name else "cloud"
    if address.is_unspecified:
        return "here"  # 0.0.0.0 / :: reach this computer
    return "network" if address.is_private or address.is_link_local else "cloud"
