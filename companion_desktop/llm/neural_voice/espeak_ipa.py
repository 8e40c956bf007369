"""Phonemes (IPA) from the espeak-ng program, a clause at a time, its punctuation kept.

``espeak-ng -q --ipa -v VOICE`` reads the text on stdin (never a shell, never an argument
that could be taken for an option; started as the offline backend starts it) and prints
IPA with stress marks; it drops the punctuation between clauses, so each clause is read
on its own and its mark put back
(:func:`~companion_desktop.engine.speech_sentences.split_clauses`). Tie and joiner marks
are removed, so an affricate is two symbols (``dʒ``) and a diphthong two (``oʊ``).
Neural voices (Kokoro, Piper) map these symbols to their own ids.
"""

from __future__ import annotations

import re

from companion_desktop.engine.speech_sentences import split_clauses
from companion_desktop.llm.tts import EspeakBackend
from companion_desktop.llm.wav import TtsError

#: espeak-ng voice names: letters, digits and ``-_+`` (``en-us``, ``en-gb-x-rp``).
_VOICE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+-]{0,40}$")
#: Tie bars, the zero-width joiner and the non-joiner espeak-ng puts inside phonemes.
_TIES = str.maketrans("", "", "\u0361\u035c\u200d\u200c")
class EspeakPhonemizer:
    """IPA for text in one espeak-ng voice (``en-us`` by default)."""

    def __init__(self, executable: str = "espeak-ng") -> None:
        self._espeak = EspeakBackend(executable)

    def available(self) -> bool:
        """True when the espeak-ng program can be found."""
        return self._espeak.available()

    def clause_ipa(self, text: str, voice: str) -> str:
        """The IPA of ``text`` (one clause) in ``voice``: words separated by single spaces,
        espeak-ng's own clause breaks as spaces. TtsError when espeak-ng is missing or
        fails."""
        if not _VOICE.match(voice):
            raise TtsError(f"espeak-ng has no voice \"{voice[:40]}\".")
        done = self._espeak.run(["-q", "--ipa", "-v", voice], text.encode("utf-8"))
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise TtsError(f"espeak-ng could not read the text in voice {voice}: "
                           f"{said[0][:200] if said else 'no details given'}.")
        return " ".join(done.stdout.decode("utf-8", "replace").translate(_TIES).split())

    def sentence_ipa(self, sentence: str, voice: str) -> str:
        """The IPA of ``sentence``, its clauses joined by their punctuation and a space
        (``həlˈoʊ ðˈɛɹ, hˌaʊ ɑːɹ juː?``). Empty for a sentence without words."""
        parts = []
        for clause, mark in split_clauses(sentence):
            ipa = self.clause_ipa(clause, voice)
            if ipa:
                parts.append(ipa + mark)
        return " ".join(parts)
