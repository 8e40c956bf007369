"""Sentences, clauses and script for the neural voices (engine/speech_sentences.py)."""

from __future__ import annotations

from companion_desktop.engine.speech_sentences import (
    cut_words,
    is_japanese,
    split_clauses,
    split_sentences,
)


def test_sentences_end_at_marks_but_not_abbreviations_or_numbers():
    assert split_sentences("Hello there, how are you? I'm fine. Mr. Smith paid $2.50 today!") \
        == ["Hello there, how are you?", "I'm fine.", "Mr. Smith paid $2.50 today!"]
    assert split_sentences("Wait... what?! Really") == ["Wait...", "what?!", "Really"]
    assert split_sentences("line one\nline two") == ["line one", "line two"]
    assert split_sentences("  ...  ") == [] and split_sentences("") == []


def test_japanese_sentences_end_without_spaces():
    assert split_sentences("こんにちは。今日はいい天気ですね！ Nice, right?") == \
        ["こんにちは。", "今日はいい天気ですね！", "Nice, right?"]


def test_the_script_decides_the_language():
    assert is_japanese("こんにちは") and is_japanese("カタカナ") and is_japanese("東京")
    assert is_japanese("ｶﾀｶﾅ") and is_japanese("AIは便利")
    assert not is_japanese("Hello, world!") and not is_japanese("Ça va? Größe ñ")


def test_clauses_keep_their_punctuation():
    assert split_clauses("Hello there, how are you?") == [("Hello there", ","),
                                                           ("how are you", "?")]
    assert split_clauses("At 10:30, pay $1,000.50") == [("At 10:30", ","), ("pay $1,000.50", "")]
    assert split_clauses("Well; maybe — or not...") == [("Well", ";"), ("maybe", "—"),
                                                         ("or not", "…")]
    assert split_clauses("今日は、いい天気。") == [("今日は", ","), ("いい天気", ".")]
    assert split_clauses(", , !") == []


def test_long_text_is_cut_at_spaces():
    words = " ".join(["word"] * 50)
    pieces = cut_words(words, 42)
    assert all(len(p) <= 42 for p in pieces) and " ".join(pieces) == words
    assert cut_words("x" * 100, 40) == ["x" * 40, "x" * 40, "x" * 20]
