"""SpeechStream: finished sentences (and closed speak() calls) as the reply streams in,
and, once the reply is complete, exactly the words split_speech speaks: in order, none
twice, none lost, whatever the chunks."""

from __future__ import annotations

import random

import pytest

from companion_desktop.engine import speech_stream
from companion_desktop.engine.parse import parse_response
from companion_desktop.engine.speech import _CALL, MAX_PARTS, SpokenPart, split_speech
from companion_desktop.engine.speech_stream import (
    SpeechStream,
    remaining_speech,
    sentences,
    spoken_words,
    words_of,
)
from companion_desktop.engine.stream_text import StreamText
from tests.engine.test_stream_text import NAMES, REPLIES, counted


def texts(parts: list[SpokenPart]) -> list[str]:
    return [part.text for part in parts]


def final_words(visible: str) -> list[str]:
    return spoken_words(split_speech(visible)[1])


def stream_in(reply: str, rng: random.Random, largest: int = 8) -> tuple[SpeechStream, list]:
    """Feed ``reply`` in random chunks; (the stream, [(characters fed, new parts)])."""
    stream, at, steps = SpeechStream(), 0, []
    while at < len(reply):
        at = min(len(reply), at + rng.randint(1, largest))
        steps.append((at, stream.feed(reply[:at])))
    return stream, steps


# -- when a part is final --------------------------------------------------------------
def test_a_sentence_goes_out_once_the_next_one_begins():
    stream = SpeechStream()
    assert stream.feed("Oh!") == []
    assert stream.feed("Oh! ") == []  # what follows may still be "Oh! e.g. …"
    assert texts(stream.feed("Oh! T")) == ["Oh!"]
    assert stream.feed("Oh! That sounds wonderful. e.g. th") == []  # "e.g." ends nothing
    assert texts(stream.feed("Oh! That sounds wonderful. e.g. this one. Yes")) == [
        "That sounds wonderful. e.g. this one."]
    assert texts(stream.finish("Oh! That sounds wonderful. e.g. this one. Yes")) == ["Yes"]


def test_paragraphs_and_line_ends():
    stream = SpeechStream()
    assert texts(stream.feed("No full stop here\n\nNext")) == ["No full stop here"]
    assert texts(stream.feed("No full stop here\n\nNext line.\nand on. More")) == [
        "Next line. and on."]  # a lowercase line start continues the sentence


def test_an_action_or_aside_is_never_said_before_it_closes():
    stream = SpeechStream()
    assert stream.feed("*waves. Hi there") == []
    assert texts(stream.feed("*waves. Hi there* Hello. A")) == ["Hello."]
    assert stream.feed("*waves. Hi there* Hello. And (softly. Yes") == []
    assert texts(stream.feed("*waves. Hi there* Hello. And (softly. Yes) you. B")) == [
        "And you."]
    # an opener left on its line dies with the line
    stream = SpeechStream()
    assert stream.feed("I rate it 5 * 4 stars. Great! Really") == []
    assert texts(stream.feed("I rate it 5 * 4 stars. Great!\nNow")) == [
        "I rate it 5 4 stars. Great!"]


def test_code_is_never_said_and_ends_the_paragraph_before_it():
    stream = SpeechStream()
    assert texts(stream.feed("Try this:\n```py\nprint('Hi. There')")) == ["Try this:"]
    assert stream.feed("Try this:\n```py\nprint('Hi. There')\n``") == []
    reply = "Try this:\n```py\nprint('Hi. There')\n```\nRun it. Then tell me!"
    assert texts(stream.feed(reply)) == ["Run it."]
    assert texts(stream.finish(reply)) == ["Then tell me!"]


def test_a_call_goes_out_when_its_bracket_closes_with_its_rate_and_pitch():
    stream = SpeechStream()
    assert stream.feed('*smiles* speak("Welcome back! How was your day?"') == []
    assert stream.feed('*smiles* speak("Welcome back! How was your day?", rate=1.2') == []
    parts = stream.feed('*smiles* speak("Welcome back! How was your day?", rate=1.2, '
                        'pitch=0.9) *leans*')
    assert parts == [SpokenPart("Welcome back!", 1.2, 0.9),
                     SpokenPart("How was your day?", 1.2, 0.9)]
    # an unclosed call is final once the next call begins
    more = '*smiles* speak("Welcome back! How was your day?", rate=1.2, pitch=0.9) ' \
           '*leans* speak("never closed speak("Bye'
    assert texts(stream.feed(more)) == ["never closed"]
    assert texts(stream.finish(more)) == ["Bye"]


def char_by_char(reply: str) -> tuple[SpeechStream, list[str]]:
    stream, said = SpeechStream(), []
    for at in range(1, len(reply) + 1):
        said += texts(stream.feed(reply[:at]))
    return stream, said


def test_after_the_first_call_only_calls_are_said():
    reply = 'speak("Hi.") She looks away. Then back. speak("Bye.") Done. Really.'
    stream, said = char_by_char(reply)
    assert said == ["Hi.", "Bye."] and stream.finish(reply) == []


def test_plain_sentences_before_a_late_call_stay_said_and_nothing_is_said_twice():
    reply = 'The rain falls. Mia looks up. *smiles* speak("Hello again.") speak("Tea?")'
    stream, said = char_by_char(reply)
    # the plain sentences were final as far as anyone could tell; after the call only
    # calls are said, and the finished reply adds nothing twice
    assert said == ["The rain falls.", "Mia looks up.", "Hello again.", "Tea?"]
    assert stream.finish(reply) == []
    assert final_words(reply) == ["hello", "again", "tea"]


def test_at_most_max_parts_paragraphs_or_calls():
    paragraphs = "\n\n".join(f"Line {i}. More {i}." for i in range(MAX_PARTS + 6))
    calls = " ".join(f'speak("Call {i}.")' for i in range(MAX_PARTS + 6))
    for reply in (paragraphs, calls):
        stream, _ = stream_in(reply, random.Random(1), largest=30)
        stream.finish(reply)
        assert spoken_words(stream.said) == final_words(reply)
        assert len(split_speech(reply)[1]) == MAX_PARTS


def test_a_reply_that_starts_again_stops_until_it_is_complete():
    stream = SpeechStream()
    assert texts(stream.feed("Thinking out loud. Hmm")) == ["Thinking out loud."]
    assert stream.feed("Hello! How are you? I") == []  # a stray </think> dropped the start
    assert stream.feed("Hello! How are you? I am fine. Yes") == []
    assert texts(stream.finish("Hello! How are you? I am fine.")) == [
        "Hello! How are you? I am fine."]


# -- what is left at the end ----------------------------------------------------------
def test_remaining_speech():
    final = [SpokenPart("One two. Three four.", 1.2, 0.8), SpokenPart("Five six.")]
    assert remaining_speech([], final) == final
    assert remaining_speech([SpokenPart("One two.")], final) == [
        SpokenPart("Three four.", 1.2, 0.8), SpokenPart("Five six.")]  # mid-part
    said = [SpokenPart("One two."), SpokenPart("Three four."), SpokenPart("Five six.")]
    assert remaining_speech(said, final) == []
    # the parser cut a tail that was already said: nothing more, nothing again
    assert remaining_speech([*said, SpokenPart("User said hi.")], final) == []
    # the reading changed (a late speak()): resume after the last sentence said that
    # the final words hold
    assert remaining_speech([SpokenPart("Rain falls."), SpokenPart("Three four.")],
                            final) == [SpokenPart("Five six.")]
    # nothing said is in the final words: all of them, so none is lost
    assert remaining_speech([SpokenPart("Rain falls.")], final) == final


def test_sentences_and_words():
    assert sentences("Hi! How are you? e.g. fine. 1. Item") == [
        "Hi!", "How are you? e.g. fine.", "1. Item"]
    assert sentences('She said "no". Then left… Right?') == [
        'She said "no".', "Then left…", "Right?"]
    assert words_of("Oh — it's FINE, ok?") == ["oh", "its", "fine", "ok"]


# -- any reply, any chunks ---------------------------------------------------------------
PLAIN = ["Hello there!", "It is lovely to see you.", "How was your day?", "I made tea… want some?",
         "Dr. Smith said hi.", "e.g. this one.", "Wait, what?!", 'She said "no".',
         '"Really?" I asked.', "Look at item 1. It is red.", "I rate it 5 * 4 stars.",
         "Price: 3.50 dollars.", "Visit https://example.com/a. It helps.",
         "これはペンです。 そうです。", "Ünïcödé wörds here.", "**Bold move.** Nice.",
         "_quietly_ Yes.", "Oh 😀 wow.", "`code.` Done.", "I speak (softly) now.",
         "Unspeak(x) is no call.", "—", "ok"]
ACTIONS = ["*smiles*", "*waves. then winks*", "(softly)", "(she laughs. (a lot) really)",
           "[note. x]"]
OPEN = ["*tilts her head", "(unclosed aside. Still going.", "[open note. Yes"]
CODE = ["```python\nprint('x. Y')\n```", "```\nunclosed code. Here.", "``` inline fence ``` after.",
        "`` two ticks. ``"]
SEPARATORS = [" "] * 6 + ["\n", "\n\n", "  ", "\n \n", ""]
CALLS = ['speak("Welcome back! How was your day?")', "speak('I missed you.', rate=0.9, pitch=1.1)",
         "speak(“Curly quotes. Here.”)", 'speak("He said \\"no\\" twice.")',
         "speak(no quotes. at all)", 'speak("never closed. Still.', 'Speak ("spaced. Yes")',
         'speak("a" junk) tail.', "speak()", 'speak("Oh!", rate=1.5)',
         'speak("Hi", rate=1.1', "speak('It's fine. Really.')"]
NARRATION = ["The rain falls outside.", "Mia looks up from her book.", "Night settles in.",
             "Quiet wind.\n\nA clock ticks."]


def join(rng: random.Random, pieces: list[str]) -> str:
    return "".join(piece + rng.choice(SEPARATORS) for piece in pieces)


def plain_reply(rng: random.Random) -> str:
    pool = PLAIN * 4 + ACTIONS + OPEN + CODE
    return join(rng, [rng.choice(pool) for _ in range(rng.randint(1, 40))])


def call_reply(rng: random.Random) -> str:
    """Calls from the start (only closed actions before the first)."""
    lead = [rng.choice(ACTIONS)] if rng.random() < 0.5 else []
    pool = CALLS * 3 + ACTIONS + PLAIN + OPEN
    return join(rng, [*lead, rng.choice(CALLS), *(rng.choice(pool)
                                                   for _ in range(rng.randint(0, 25)))])


def assert_exact(reply: str, rng: random.Random, largest: int) -> None:
    """At every step what was said starts the final words; at the end it is all of them."""
    want = final_words(reply)
    stream, steps = stream_in(reply, rng, largest)
    said: list[SpokenPart] = []
    for at, parts in steps:
        said += parts
        got = spoken_words(said)
        assert got == want[:len(got)], (reply, reply[:at], got)
    stream.finish(reply)
    assert spoken_words(stream.said) == want, reply


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("make", [plain_reply, call_reply], ids=["plain", "calls"])
def test_any_reply_in_any_chunks_says_exactly_the_final_words(make, seed):
    rng = random.Random(seed)
    for _ in range(25):
        reply = make(rng)
        for largest in (1, 4, 12, 60):
            assert_exact(reply, rng, largest)


@pytest.mark.parametrize("seed", range(4))
def test_a_late_call_keeps_what_was_said_and_adds_each_final_word_once(seed):
    rng = random.Random(200 + seed)
    for _ in range(25):
        narration = join(rng, rng.sample(NARRATION, rng.randint(1, 3)))
        reply = narration + call_reply(rng)
        stream, steps = stream_in(reply, rng, rng.choice([1, 5, 20]))
        call = _CALL.search(reply)
        assert call is not None
        # said before the first call was there to see: plain sentences
        before = [part for at, parts in steps if at <= call.end() for part in parts]
        stream.finish(reply)
        assert spoken_words(stream.said) == spoken_words(before) + final_words(reply), reply


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reply", REPLIES, ids=range(len(REPLIES)))
def test_through_stream_text_the_words_of_the_parsed_reply(reply, name):
    """Raw chunks -> StreamText.visible -> SpeechStream; finished with the parsed reply."""
    rng = random.Random(len(reply))
    for _ in range(3):
        view, stream, at = StreamText(name), SpeechStream(), 0
        while at < len(reply):
            size = rng.randint(1, 12)
            view.feed(reply[at:at + size])
            at += size
            stream.feed(view.visible)
        final = parse_response(reply, companion_name=name).text
        stream.finish(final)
        assert spoken_words(stream.said) == final_words(final)


def test_a_long_reply_costs_linear_work(monkeypatch):
    seen = counted(monkeypatch, speech_stream, ("speakable", "_leaves_open", "_clean_shown"))
    unit = ("She laughed softly and looked out of the window (for a while). Then she "
            "spoke. *smiles* I rate it 5 * 4 stars. ")
    for reply in ((unit * 400)[:48_000], 'speak("' + (unit * 400)[:48_000] + '")'):
        stream = SpeechStream()
        for at in range(4, len(reply) + 4, 4):
            stream.feed(reply[:at])
        stream.finish(reply)
        assert spoken_words(stream.said) == final_words(reply)
        assert seen["chars"] < 20 * len(reply), seen
        seen["chars"] = 0


def test_the_first_clause_leads_and_every_word_stays():
    from companion_desktop.engine.speech_stream import lead_clause

    def texts(*parts: str) -> list[str]:
        return [p.text for p in lead_clause([SpokenPart(t) for t in parts])]

    assert texts("Oh, that sounds lovely!", "Tell me more.") == [
        "Oh,", "that sounds lovely!", "Tell me more."]
    assert texts("Note: bring an umbrella.") == ["Note:", "bring an umbrella."]
    assert texts("Yes — I think so.") == ["Yes —", "I think so."]
    assert texts("Welcome back!") == ["Welcome back!"]  # no clause: whole
    assert texts("Well, hi.") == ["Well, hi."]  # one word after it: whole
    assert texts("3,000 people came.") == ["3,000 people came."]  # a number, not a clause
    assert lead_clause([]) == []
    slow = lead_clause([SpokenPart("So, here we go again.", rate=0.8, pitch=1.2)])
    assert [(p.rate, p.pitch) for p in slow] == [(0.8, 1.2), (0.8, 1.2)]
