"""A key goes only to an address the user chose: one a restored backup brought waits.

``storage.restore_trust`` marks each server URL a restore changed (the chat model's,
the speech server's, the transcription server's) in its settings section's
``unconfirmed_url``. While the section's ``base_url`` is still that URL, no key is sent
there, from the keyring or the environment: a call that would carry one is refused
with :func:`held_message`, which says what changed and how to confirm it (Settings,
or ``companion-desktop backup review --confirm``). A call with no key to send goes
ahead. An address the user gives for one call (``--base-url``) is theirs: it is not
held. A provider's own preset address (OpenAI's for the OpenAI provider) is never
held: a key for that provider belongs there.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from companion_desktop.storage.restore_trust import URL_SECTIONS, Review, server_what
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    SettingsSection,
    load_settings,
    save_settings,
)

#: Where each section's address is confirmed in the app.
PAGES = {"llm": "Settings > LLM Model", "voice": "Settings > Voice", "hearing": "Settings > Voice"}
CONFIRM_COMMAND = "companion-desktop backup review --confirm"


def held_url(settings: SettingsSection) -> str | None:
    """The address of ``settings`` (an LLM, voice or hearing section) that gets no key
    until confirmed, else None."""
    url = getattr(settings, "unconfirmed_url", None)
    if not url or url != getattr(settings, "base_url", None):
        return None
    provider = getattr(settings, "provider", None)
    if provider:
        from companion_desktop.llm.registry import SPECS

        spec = SPECS.get(provider)
        preset = spec.default_base_url if spec is not None else None
        if preset and url.rstrip("/") == preset.rstrip("/"):
            return None
    return url


def held_message(section: str, url: str) -> str:
    """Why no key goes to ``url`` (a held address of ``section``), and how to confirm it."""
    what = URL_SECTIONS[section][1]
    return (f"A restored backup set the address of {what} to {url}. Your key is not sent "
            f"there until you confirm that address: {PAGES[section]}, or "
            f"`{CONFIRM_COMMAND}`.")


def confirm(session: Session, sections: tuple[str, ...] = tuple(URL_SECTIONS),
            now: datetime | None = None) -> list[tuple[str, str]]:
    """Confirm the held addresses of ``sections``; returns (section, url) confirmed."""
    done = []
    for section in sections:
        model = URL_SECTIONS[section][0]
        settings = load_settings(session, model)
        url = held_url(settings)
        if getattr(settings, "unconfirmed_url", None) is not None:
            save_settings(session, settings.model_copy(update={"unconfirmed_url": None}), now)
        if url:
            done.append((section, url))
    return done


def held_addresses(session: Session) -> list[tuple[str, str]]:
    """(section, url) of every address waiting to be confirmed."""
    found = []
    for section, (model, _what) in URL_SECTIONS.items():
        url = held_url(load_settings(session, model))
        if url:
            found.append((section, url))
    return found


def servers_off(session: Session) -> list[McpServerEntry]:
    """The MCP servers a restore brought back turned off and not turned on since."""
    return [e for e in load_settings(session, McpSettings).servers if e.restored_off]


def _url_line(section: str, url: str, before: str | None = None) -> str:
    was = f" (it was {before} here)" if before else ""
    return f"Your key is not sent to {URL_SECTIONS[section][1]} at {url}{was} until you confirm it."


def _server_line(name: str, what: str) -> str:
    return (f"The tool server {name!r} is turned off; it runs {what!r}. Turn it on in "
            "Settings > Tools if you trust it.")


def review_lines(session: Session) -> list[str]:
    """What a restore left for the user to review, a line each (none: nothing left)."""
    lines = [_url_line(section, url) for section, url in held_addresses(session)]
    return lines + [_server_line(e.name, server_what(e)) for e in servers_off(session)]


def restore_lines(review: Review) -> list[str]:
    """What a restore just held, a line each (as :func:`review_lines` says it)."""
    lines = []
    for item in review.urls:
        model = URL_SECTIONS[item.section][0]
        fields = {"base_url": item.after, "unconfirmed_url": item.after}
        if item.provider:
            fields["provider"] = item.provider
        if held_url(model.model_validate(fields)):
            lines.append(_url_line(item.section, item.after, item.before))
    return lines + [_server_line(server.name, server.what) for server in review.servers]
