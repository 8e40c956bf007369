"""Her own words as the last guard (``voice.her_words``): what she said and when on the
capture's timeline, and whether a recognised utterance is made of her words."""

from __future__ import annotations

import pytest

from companion_desktop.voice.her_words import HerWords, said_by_her, words

HER = "Hello there! It is so good to see you again, I missed our talks so much."


def test_words_fold_case_and_split_scripts_without_spaces():
    assert words("It's SO good!") == ["it", "s", "so", "good"]
    assert words("こんにちは、元気?") == ["こ", "ん", "に", "ち", "は", "元", "気"]


@pytest.mark.parametrize("heard,hers", [
    ("It is so good to see you", True),  # a fragment of her sentence
    ("so good", True),
    ("hello, I missed our talk so much", True),  # a word misheard: still mostly hers
    ("Please remind me to water the plants tomorrow.", False),  # the user talking over her
    ("Stop, stop talking", False),
    ("good", True),
    ("good grief", False),  # two words: both must be hers
    ("", False),
])
def test_said_by_her(heard, hers):
    assert said_by_her(heard, [HER]) is hers


def test_nothing_she_said_means_nothing_is_hers():
    assert not said_by_her("It is so good to see you", [])


def test_what_she_said_when_on_the_capture_timeline():
    her = HerWords()
    her.said(16000, 32000, "first clip")  # 1 s in, 2 s long
    her.said(48000, 16000, "second clip")
    assert her.during(0, 15000) == []
    assert her.during(20000, 30000) == ["first clip"]
    assert her.during(40000, 50000) == ["first clip", "second clip"]  # the tail of the first
    assert her.during(48000 + 16000 + 20000, 100000) == []  # past the second one's tail
    her.cut(52000)  # barge-in: the rest of the second clip is never played
    assert her.during(52000 + 16000, 90000) == []
    her.said(10**8, 100, "")  # words are needed; and what is long past is forgotten
    assert her.during(0, 10**8 + 100) == []
