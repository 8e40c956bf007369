"""The local recogniser's guards on what the decoder writes: the length an utterance can
hold, and a phrase the decoder repeats at the end instead of stopping."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.voice.stt import drop_trailing_repeats, token_budget


@pytest.mark.parametrize("text,kept", [
    ("What is the weather like today? What is the weather like today? What is the weather",
     "What is the weather like today?"),
    ("What is the winner like today? What is the winner like today?",
     "What is the winner like today?"),
    ("Hello, air Hello, air Hello, air Hello,", "Hello, air"),
    ("Well, what is it like? What is it like? what is it LIKE", "Well, what is it like?"),
    ("ha ha ha ha ha ha ha", "ha"),
])
def test_a_loop_at_the_end_keeps_one_copy(text, kept):
    assert drop_trailing_repeats(text) == kept


@pytest.mark.parametrize("text", [
    "", "Yes", "no, no, no", "I said hello and hello", "the cat sat on the cat sat",
    "Please remind me to water the plants tomorrow morning.",
    "We went round and round and round the park.", "今日はいい天気ですね。今日はいい天気ですね。",
])
def test_what_people_say_is_left_alone(text):
    assert drop_trailing_repeats(text) == text


def test_the_decoder_gets_tokens_by_the_length_of_the_audio():
    second = np.zeros(16000, np.float32)
    assert token_budget(second[:0]) == 10
    assert token_budget(second) == 16
    assert token_budget(np.concatenate([second] * 8)) == 58  # 8 s: room for ~40 words
