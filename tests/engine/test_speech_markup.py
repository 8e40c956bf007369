"""The inline speak() syntax: shown text, spoken parts, streaming, the prompt layer."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_desktop.engine.speech import (
    MAX_PARTS,
    SpokenPart,
    speakable,
    speech_output_layer,
    speech_stream_text,
    split_speech,
)


def spoken(visible: str) -> list[str]:
    return [p.text for p in split_speech(visible)[1]]


@pytest.mark.parametrize(("visible", "shown", "said"), [
    ('*smiles* speak("Hello there!") *waves*', "*smiles* Hello there! *waves*",
     ["Hello there!"]),
    ("speak('Single quotes.')", "Single quotes.", ["Single quotes."]),
    ("speak(“Curly quotes.”) ok", "Curly quotes. ok", ["Curly quotes."]),
    ("speak(‘Curly single.’)", "Curly single.", ["Curly single."]),
    ("speak(no quotes at all) then", "no quotes at all then", ["no quotes at all"]),
    ('speak("He said \\"no\\" twice")', 'He said "no" twice', ['He said "no" twice']),
    ("speak('I'm here, it's fine')", "I'm here, it's fine", ["I'm here, it's fine"]),
    ('speak("She said "no", then left") after', 'She said "no", then left after',
     ['She said "no", then left']),
    ('A speak("one") B speak("two") C', "A one B two C", ["one", "two"]),
    ('Speak("Capital.")', "Capital.", ["Capital."]),
    ('speak ("spaced")', "spaced", ["spaced"]),
    ("speak()", "", []),
])
def test_calls_are_shown_as_their_words_and_spoken(visible, shown, said):
    assert split_speech(visible) == (shown, [SpokenPart(s) for s in said])


def test_rate_and_pitch_are_read_and_bounded():
    _, parts = split_speech('speak("a", rate=1.1, pitch=0.9) speak("b", pitch=9, rate=-3) '
                            'speak("c", rate=nan) speak(d, rate=1.5) speak("e", pitch=1e9)')
    assert [(p.text, p.rate, p.pitch) for p in parts] == [
        ("a", 1.1, 0.9), ("b", 0.5, 2.0), ("c", 1.0, 1.0), ("d", 1.5, 1.0), ("e", 1.0, 2.0)]
    assert SpokenPart("x", rate=float("inf"), pitch="loud") == SpokenPart("x")  # type: ignore
    assert split_speech('speak("Hi", rate=1.5') == ("Hi", [SpokenPart("Hi", 1.5)])  # no ")"


@pytest.mark.parametrize(("visible", "shown", "said"), [
    ('speak("never closed', "never closed", ["never closed"]),
    ('speak("Hi" *waves* speak("Bye")', "Hi *waves* Bye", ["Hi", "Bye"]),
    ('speak("Hi", she said', "Hi, she said", ["Hi"]),
    ("speak(no bracket", "no bracket", ["no bracket"]),
    ("speak(", "", []),
    ('speak("a" junk) tail', "a junk) tail", ["a"]),
])
def test_malformed_markup_stays_readable(visible, shown, said):
    assert split_speech(visible) == (shown, [SpokenPart(s) for s in said])


def test_only_speak_calls_are_spoken_when_present():
    visible = '*leans closer* speak("Can I tell you something?") (she hesitates) Later.'
    assert spoken(visible) == ["Can I tell you something?"]


def test_without_speak_every_sentence_but_actions_and_asides_is_spoken():
    visible = ("Oh! *smiles* You came back (I hoped you would). [note]\n\n"
               "Here is **bold** and `code` 😀 see https://example.com ok.\n\n"
               "```\nprint('no')\n```\n\n*only an action*")
    shown, parts = split_speech(visible)
    assert shown == visible
    assert [p.text for p in parts] == ["Oh! You came back .", "Here is bold and code see ok."]
    assert all((p.rate, p.pitch) == (1.0, 1.0) for p in parts)


def test_prose_that_mentions_speaking_is_not_markup():
    assert split_speech("I speak (a little) French.") == (
        "I speak (a little) French.", [SpokenPart("I speak French.")])
    assert split_speech("bespeak(x)")[0] == "bespeak (x)"


def test_spoken_text_drops_emoji_markdown_and_actions_inside_calls():
    assert spoken('speak("*giggles* Hi 😊 **there** (softly)!")') == ["Hi there !"]
    assert spoken('speak("😊")') == []
    assert speakable("Café naïve — 5 € + 3 = 8") == "Café naïve — 5 € + 3 = 8"


def test_parts_are_capped():
    visible = " ".join(f'speak("part {i}")' for i in range(MAX_PARTS + 10))
    shown, parts = split_speech(visible)
    assert len(parts) == MAX_PARTS and shown.endswith(f"part {MAX_PARTS + 9}")


@pytest.mark.parametrize(("partial", "shown"), [
    ('Hello speak("abc', "Hello abc"),
    ('Hello speak("abc"', "Hello abc"),
    ('Hello speak("abc", ra', "Hello abc"),
    ('Hello speak("abc") and', "Hello abc and"),
    ("Hello spe", "Hello "),
    ("Hello speak", "Hello "),
    ("Hello speak(", "Hello "),
    ("Hello s", "Hello "),
    ("yes", "yes"),
    ("Hello sky", "Hello sky"),
    ('speak("done") *smiles*', "done *smiles*"),
])
def test_streaming_text(partial, shown):
    assert speech_stream_text(partial) == shown


def test_streaming_converges_to_the_final_text():
    final = '*smiles* speak("Hi, I\'m Hana.", rate=1.1) *waves* speak("Nice to meet you!")'
    shown = split_speech(final)[0]
    for end in range(len(final) + 1):
        partial = speech_stream_text(final[:end])
        assert "speak" not in partial.lower()
    assert speech_stream_text(final) == shown


def test_the_prompt_layer_teaches_the_syntax():
    layer = speech_output_layer("Nova")
    assert layer.startswith("<speech_output_control>")
    assert layer.endswith("</speech_output_control>")
    assert 'speak("' in layer and "rate=" in layer and "0.5-2.0" in layer
    assert "emoji" in layer and '"Nova"' in layer
    example = re.search(r"Example: (.*)", layer).group(1)
    assert spoken(example) == ["Oh, you're back! How was your day?"]
    plain = speech_output_layer(None)
    assert "voice" not in plain.split("\n")[1] and len(plain) < 900
    assert "\n" not in speech_output_layer("A\nB " + "x" * 500).split("\n")[1][:200]


# -- properties ---------------------------------------------------------------------------
SYMBOLS = "speak(\")'“”‘’\\, =.*rate1x \n😀"
ALPHABET = st.sampled_from([*SYMBOLS, "speak(", "rate=1.2"])
TEXT = st.lists(ALPHABET, max_size=40).map("".join) | st.text(max_size=60)


def squeeze(text: str) -> str:
    return "".join(text.split())


def is_subsequence(small: list[str] | str, big: list[str] | str) -> bool:
    items = iter(big)
    return all(any(x == y for y in items) for x in small)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_split_never_raises_and_never_shows_speak(visible):
    shown, parts = split_speech(visible)
    assert "speak(" not in shown.lower()
    assert all(isinstance(p, SpokenPart) and p.text.strip() == p.text and p.text
               and 0.5 <= p.rate <= 2.0 and 0.5 <= p.pitch <= 2.0 for p in parts)
    assert is_subsequence(squeeze(" ".join(p.text for p in parts)), squeeze(shown))
    assert "speak(" not in speech_stream_text(visible).lower()


LETTERS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
WORD = st.builds(lambda a, b, p: a + (f"'{b}" if b else "") + p, LETTERS,
                 st.sampled_from(["", "m", "s", "ll"]), st.sampled_from(["", "!", "?", ".", ","]))
WORDS = st.lists(WORD, min_size=1, max_size=6).map(" ".join)
CALL = st.builds(lambda q, w, r: f"speak({q}{w}{q}{r})", st.sampled_from(['"', "'", ""]),
                 WORDS, st.sampled_from(["", ", rate=1.3", ", pitch=0.7, rate=9"]))
REPLY = st.lists(st.one_of(WORDS, CALL, WORDS.map(lambda w: f"*{w}*")), max_size=6).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(REPLY)
def test_spoken_words_are_a_subsequence_of_shown_words(visible):
    shown, parts = split_speech(visible)
    said = words(" ".join(p.text for p in parts))
    assert is_subsequence(said, words(shown))
    assert all(words(p.text) for p in parts)  # no part of punctuation only


def words(text: str) -> list[str]:
    """The words of ``text``, punctuation dropped (speech leaves markup symbols out)."""
    return [w for w in ("".join(ch for ch in word if ch.isalnum()) for word in text.split())
            if w]
