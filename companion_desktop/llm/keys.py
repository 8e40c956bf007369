"""API keys in the operating system's keyring (never in the database or logs).

Service ``companion-desktop``, user name = the provider id (or ``voice`` for the speech
server, ``hearing`` for the transcription server). One environment variable per
purpose wins over the keyring when set: ``COMPANION_API_KEY`` for the chat model,
``COMPANION_TTS_API_KEY`` for the speech server, ``COMPANION_STT_API_KEY`` for the
transcription server; none is ever sent to another. Without a usable keyring
(no backend, the ``fail`` backend, or any keyring error) reading falls back to the
environment and storing raises :class:`KeyStoreError`. No function here logs a key.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import replace

import keyring
import keyring.errors

from companion_desktop.llm.base import LlmError, ProviderConfig
from companion_desktop.llm.errors import key_problem

SERVICE = "companion-desktop"
#: The chat model's key (every provider id).
ENV_VAR = "COMPANION_API_KEY"
#: The keyring entry of the speech server's key (``storage.settings.VOICE_KEY_ID``).
TTS_KEY_ID = "voice"
TTS_ENV_VAR = "COMPANION_TTS_API_KEY"
#: The transcription server's (``storage.settings.HEARING_KEY_ID``, ``llm.transcription``).
STT_KEY_ID = "hearing"
STT_ENV_VAR = "COMPANION_STT_API_KEY"
#: Keyring entries whose environment variable is not the chat model's: every purpose
#: other than the chat model is listed here, so none ever falls back to its key.
ENV_VARS = {TTS_KEY_ID: TTS_ENV_VAR, STT_KEY_ID: STT_ENV_VAR}
NO_KEYRING = f"No system keyring is available; set {ENV_VAR} instead."

log = logging.getLogger("companion_desktop.llm.keys")


class KeyStoreError(LlmError):
    """The key could not be stored or removed (no keyring, or the keyring refused)."""

    retryable = False


#: The largest secret the Windows credential store keeps, in bytes (CRED_MAX_CREDENTIAL_BLOB_SIZE);
#: keyring writes the text as UTF-16, two bytes a character (four outside the BMP).
WINDOWS_MAX_SECRET_BYTES = 2560


def too_long_for_store(value: str, platform: str | None = None) -> str | None:
    """What to say when ``value`` cannot fit the system keyring (only Windows has a small
    limit), else None. The value itself is never quoted."""
    if (platform or sys.platform) != "win32":
        return None
    size = len(value.encode("utf-16-le"))
    if size <= WINDOWS_MAX_SECRET_BYTES:
        return None
    return (f"This secret is too long for the Windows credential store ({size} bytes; at most "
            f"{WINDOWS_MAX_SECRET_BYTES}, about {WINDOWS_MAX_SECRET_BYTES // 2} characters).")


def keyring_available() -> bool:
    """True when a real keyring backend is in use (not the ``fail`` one)."""
    try:
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring setup means "none"
        return False
    module = type(backend).__module__
    if module.startswith("keyring.backends.fail"):
        return False
    if module.startswith("keyring.backends.chainer"):
        return bool(getattr(backend, "backends", ()))
    return True


def env_var(key_id: str | None = None) -> str:
    """The environment variable that holds the key of ``key_id`` (None: the chat model)."""
    return ENV_VARS.get(key_id or "", ENV_VAR)


def no_keyring(key_id: str | None = None) -> str:
    """What to say when there is no keyring to keep the key of ``key_id``."""
    return f"No system keyring is available; set {env_var(key_id)} instead."


def env_key(key_id: str | None = None) -> str | None:
    """The key of ``key_id`` from its environment variable (:func:`env_var`) when set
    and not blank."""
    value = os.environ.get(env_var(key_id), "").strip()
    return value or None


class InvalidKeyError(KeyStoreError):
    """The key cannot be one (spaces, control characters, absurd length); nothing stored."""


def get_key(provider_id: str) -> str | None:
    """The key for ``provider_id``: its environment variable's, else the keyring's,
    else None."""
    from_env = env_key(provider_id)
    if from_env:
        return from_env
    if not keyring_available():
        return None
    try:
        stored = keyring.get_password(SERVICE, provider_id)
    except Exception as error:  # noqa: BLE001 - any keyring failure reads as "no key"
        log.warning("keyring could not be read for %s (%s)", provider_id, type(error).__name__)
        return None
    return (stored.strip() or None) if stored else None


def set_key(provider_id: str, key: str) -> None:
    """Store ``key`` (trimmed) for ``provider_id`` (a blank key deletes it).
    InvalidKeyError when it cannot be a key (see ``errors.key_problem``); KeyStoreError
    when the keyring fails."""
    key = key.strip()
    if not key:
        delete_key(provider_id)
        return
    problem = key_problem(key)
    if problem:
        raise InvalidKeyError(problem)
    if not keyring_available():
        raise KeyStoreError(no_keyring(provider_id))
    if long := too_long_for_store(key):
        raise KeyStoreError(f"{long} Set {env_var(provider_id)} instead.")
    try:
        keyring.set_password(SERVICE, provider_id, key)
    except Exception as error:  # noqa: BLE001 - reported without the key
        raise KeyStoreError(
            f"The system keyring refused to store the key ({type(error).__name__}); "
            f"set {env_var(provider_id)} instead."
        ) from None
    log.info("stored an API key for %s in the system keyring", provider_id)


def delete_key(provider_id: str) -> None:
    """Remove the stored key for ``provider_id`` (nothing stored is fine)."""
    _delete(provider_id, no_keyring(provider_id), "key")
    log.info("removed the API key for %s from the system keyring", provider_id)


def _delete(user: str, unavailable: str, what: str) -> None:
    """Remove keyring entry ``user``; KeyStoreError (``unavailable`` without a keyring, or
    naming ``what`` was refused, never its value). Nothing stored is fine."""
    if not keyring_available():
        raise KeyStoreError(unavailable)
    try:
        keyring.delete_password(SERVICE, user)
    except keyring.errors.PasswordDeleteError:
        return
    except Exception as error:  # noqa: BLE001 - reported without the secret
        raise KeyStoreError(
            f"The system keyring refused to remove the {what} ({type(error).__name__})."
        ) from None


def with_stored_key(config: ProviderConfig) -> ProviderConfig:
    """``config`` with its ``api_key`` filled from :func:`get_key` when it has none."""
    if config.api_key:
        return config
    key = get_key(config.provider_id)
    return replace(config, api_key=key) if key else config


# --- MCP server secrets: environment and header values of configured servers ---------

#: What an MCP secret is: a stdio server's environment variable or an HTTP header.
MCP_SECRET_KINDS = ("env", "header")
NO_MCP_KEYRING = "No system keyring is available to store MCP server secrets."


def mcp_username(server: str, kind: str, name: str) -> str:
    """The keyring user name of one MCP secret: ``mcp:{server}:{kind}:{name}``."""
    if kind not in MCP_SECRET_KINDS:
        raise ValueError(f"unknown MCP secret kind {kind!r}")
    return f"mcp:{server}:{kind}:{name}"


def get_mcp_secret(server: str, kind: str, name: str) -> str | None:
    """The stored value of env variable / header ``name`` of MCP ``server``, else None
    (also None without a usable keyring). Never logged."""
    user = mcp_username(server, kind, name)
    if not keyring_available():
        return None
    try:
        stored = keyring.get_password(SERVICE, user)
    except Exception as error:  # noqa: BLE001 - any keyring failure reads as "not stored"
        log.warning("keyring could not be read for %s (%s)", user, type(error).__name__)
        return None
    return (stored.strip() or None) if stored else None


def set_mcp_secret(server: str, kind: str, name: str, value: str) -> None:
    """Store ``value`` (trimmed; blank deletes it). KeyStoreError without a usable keyring."""
    user = mcp_username(server, kind, name)
    value = value.strip()
    if not value:
        delete_mcp_secret(server, kind, name)
        return
    if not keyring_available():
        raise KeyStoreError(NO_MCP_KEYRING)
    if long := too_long_for_store(value):
        raise KeyStoreError(long)
    try:
        keyring.set_password(SERVICE, user, value)
    except Exception as error:  # noqa: BLE001 - reported without the value
        raise KeyStoreError(
            f"The system keyring refused to store the value ({type(error).__name__})."
        ) from None
    log.info("stored %s in the system keyring", user)


def delete_mcp_secret(server: str, kind: str, name: str) -> None:
    """Remove one stored MCP secret (nothing stored is fine)."""
    user = mcp_username(server, kind, name)
    _delete(user, NO_MCP_KEYRING, "value")
    log.info("removed %s from the system keyring", user)
