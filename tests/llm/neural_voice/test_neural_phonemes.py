"""espeak-ng IPA to Kokoro's symbols and ids (kokoro_phonemes.py), and the real espeak-ng."""

from __future__ import annotations

import pytest

from companion_desktop.llm.neural_voice.espeak_ipa import EspeakPhonemizer
from companion_desktop.llm.neural_voice.kokoro_phonemes import (
    MAX_TOKENS,
    split_tokens,
    to_kokoro,
    token_ids,
)
from companion_desktop.llm.wav import TtsError
from tests.llm.neural_voice.conftest import needs_espeak


@pytest.mark.parametrize(("ipa", "kokoro"), [
    ("həlˈoʊ ðˈɛɹ", "həlˈO ðˈɛɹ"),
    ("nˈaɪs tə mˈiːt juː", "nˈIs tə mˈit ju"),
    ("dʒˈʌdʒᵻz tʃˈuːz", "ʤˈʌʤᵻz ʧˈuz"),
    ("bɹˈaʊn bˈɔɪ mˈeɪd", "bɹˈWn bˈY mˈAd"),
    ("wˈɜːld bˈɛɾɚ", "wˈɜɹld bˈɛTəɹ"),
    ("bˈʌʔn̩ fˈoːɹ", "bˈʌtᵊn fˈɔɹ"),
    ("aɪ θˈɪŋk soʊ, aɪ.", "ˈI θˈɪŋk sO, ˈI."),
    ("ɡʊd gʊd", "ɡʊd ɡʊd"),
])
def test_english_ipa_becomes_misaki_symbols(ipa, kokoro):
    assert to_kokoro(ipa, "en") == kokoro


def test_other_languages_keep_their_ipa():
    assert to_kokoro("bɔ̃ʒˈuʁ mɛʁsˈi", "fr") == "bɔ̃ʒˈuʁ mɛʁsˈi"
    assert to_kokoro("ɡutn̩ taːk", "de") == "ɡutn̩ taːk"


def test_ids_drop_what_the_vocabulary_lacks_and_runs_cut_at_spaces():
    vocab = {"a": 1, "b": 2, " ": 16, ".": 4}
    assert token_ids("ab zq.", vocab) == [1, 2, 16, 4]
    ids = ([1] * 9 + [16]) * 120
    runs = split_tokens(ids, 16)
    assert [len(r) for r in runs] == [510, 510, 180] and sum(runs, []) == ids
    assert all(r[-1] == 16 for r in runs[:-1])
    assert split_tokens([1] * 1000, None) == [[1] * MAX_TOKENS, [1] * 490]


@needs_espeak
def test_espeak_reads_clauses_with_their_punctuation():
    ipa = EspeakPhonemizer().sentence_ipa("Hello there, how are you?", "en-us")
    assert ipa.count(",") == 1 and ipa.endswith("?") and "\n" not in ipa
    assert to_kokoro(ipa).startswith("həlˈO")
    text = '-v xx "; rm -rf / `id`'  # read as text, never as options or a shell
    assert EspeakPhonemizer().sentence_ipa(text, "en-us")


def test_a_missing_espeak_or_a_strange_voice_is_a_clear_error():
    with pytest.raises(TtsError, match="espeak-ng is not installed"):
        EspeakPhonemizer("/nonexistent/espeak-ng").clause_ipa("hello", "en-us")
    with pytest.raises(TtsError, match="no voice"):
        EspeakPhonemizer().clause_ipa("hello", "--path=/etc")
