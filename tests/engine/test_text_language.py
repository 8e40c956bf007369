"""Which language a piece of her reply is in: scripts first, then small words."""

from __future__ import annotations

import pytest

from companion_desktop.engine.text_language import text_language


@pytest.mark.parametrize(("text", "language"), [
    ("Oh, that sounds lovely! Tell me more about it.", "en"),
    ("I'm so happy you're back, how was your day?", "en"),
    ("Das klingt schön! Erzähl mir mehr davon.", "de"),
    ("Ich bin heute müde, aber es geht mir gut.", "de"),
    ("¡Qué bonito! Cuéntame más, por favor.", "es"),
    ("Estoy muy contenta de verte otra vez.", "es"),
    ("C'est très gentil, je suis contente pour toi.", "fr"),
    ("Che bello! Sono molto contenta per te.", "it"),
    ("Que bom! Estou muito feliz por você.", "pt"),
    ("Dat is heel leuk, ik ben blij voor je.", "nl"),
    ("おかえりなさい！今日はどうだった？", "ja"),
    ("今日は雨ですね。", "ja"),  # kanji with kana
    ("你今天过得怎么样？", "zh"),
    ("오늘 하루 어땠어요?", "ko"),
    ("Как прошёл твой день?", "ru"),
    ("Як пройшов твій день? Їжа була смачна.", "uk"),
])
def test_the_language_of_a_sentence(text: str, language: str) -> None:
    assert text_language(text) == language


@pytest.mark.parametrize("text", ["", "!!! ...", "42", "OK", "Hana", "Mmm…"])
def test_what_cannot_be_told_is_none(text: str) -> None:
    assert text_language(text) is None


def test_a_japanese_word_in_an_english_sentence_reads_as_japanese() -> None:
    """Kana anywhere: the sentence goes to a voice that can read it (an English voice
    would read kana as nothing at all)."""
    assert text_language("I love ラーメン so much!") == "ja"


def test_long_text_is_linear() -> None:
    import time

    text = "the quick brown fox jumps over the lazy dog " * 20_000
    started = time.perf_counter()
    assert text_language(text) == "en"
    assert time.perf_counter() - started < 2.0
