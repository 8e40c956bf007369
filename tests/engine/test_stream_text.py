"""StreamText: after every chunk, exactly what the whole-reply functions give
(``speech_stream_text(visible_stream_text(raw, name))``), at a cost that grows with the
reply, not with its square."""

from __future__ import annotations

import random

import pytest

from companion_desktop.engine import stream_text
from companion_desktop.engine.parse import visible_stream_text
from companion_desktop.engine.speech import speech_stream_text
from companion_desktop.engine.stream_text import StreamText

BLOCK = ('```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 10}, '
         '"affection_delta": 4, "action": "wave", "expression": "smile", '
         '"new_memory": "They love hiking"}\n```')
REPLIES = [
    "I love hiking too! Where did you go?\n" + BLOCK,
    "Oh, that sounds wonderful.\n\nTell me everything — the trail, the weather, the view "
    "from the top.\nI'd love to hear it all.\n\n" + BLOCK + "\nUser: and then?",
    '*smiles* speak("Welcome back! How was your day?") *leans closer*\n'
    'speak("I missed you.", rate=0.9, pitch=1.1) (quietly)\n' + BLOCK,
    "<think>They seem tired. Keep it short and warm.\nMaybe ask about sleep.</think>\n"
    "You sound tired. Did you sleep at all?\n" + BLOCK,
    "Of course! [reminder:10min]Stretch your legs[/reminder] I'll nudge you in ten "
    "minutes.\nAnd drink some water [reminder:2 h]water[/reminder] too.\n" + BLOCK,
    "Mia: Here's a tiny script:\n```python\nprint('hi')\n```\nRun it and tell me! <3\n"
    "<avatar>wave</avatar> <remind>tomorrow</remind>\n" + BLOCK,
    "Hmm, let me see <|im_end|> this should not show",
    "Sure thing.\nYou: what about me?\nMia: \"nothing\"",
    "Long line " * 60 + "and a last word.\n\n" + "Another long line, " * 40 + "end.",
    'speak("I speak French, and speak softly") — she said.\n' * 12,
    "</think>Only this part after a stray closer.\nStill going.\n" + BLOCK,
    "A stray { brace and a [bracket] and a `tick` and a < sign\n" * 20 + '{"trust_delta": 2}',
]
NAMES = ["Mia", "", "Speak"]


def shown_by_old_path(raw: str, name: str) -> str:
    return speech_stream_text(visible_stream_text(raw, name))


def assert_same_at_every_step(reply: str, sizes: list[int], name: str) -> None:
    stream, raw, at, step = StreamText(name), "", 0, 0
    while at < len(reply):
        chunk = reply[at:at + sizes[step % len(sizes)]]
        at, step, raw = at + len(chunk), step + 1, raw + chunk
        assert stream.feed(chunk) == shown_by_old_path(raw, name), (name, raw)
        # the text before speak() is read (what decides what she says) is exact too
        assert stream.visible == visible_stream_text(raw, name), (name, raw)
    assert stream.text == shown_by_old_path(reply, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reply", REPLIES, ids=range(len(REPLIES)))
def test_the_same_text_as_the_whole_reply_functions_at_every_step(reply, name):
    rng = random.Random(len(reply))
    splits = [[1], [3], [7, 1, 2], [10], [64]]
    splits += [[rng.randint(1, 30) for _ in range(50)] for _ in range(3)]
    for sizes in splits:
        assert_same_at_every_step(reply, sizes, name)


def test_every_two_piece_split_of_a_reply():
    reply = REPLIES[2]
    for cut in range(1, len(reply)):
        stream = StreamText("Mia")
        stream.feed(reply[:cut])
        assert stream.feed(reply[cut:]) == shown_by_old_path(reply, "Mia")


PIECES = ["Hello there!", "She smiles.", "*tilts her head*", "(softly)", 'speak("Hi, you!")',
          'speak("Oh?", rate=1.1)', "spe", "speak", 'speak("unclosed',
          "[reminder:5min]tea[/reminder]", "[reminder:2 h]call", "[/reminder]",
          "<think>hmm</think>", "<think>", "</think>", "<thi", "nk>", "<3", "[laughs]", "{curly}",
          "```python\nx = 1\n```", "```", "User: hi",
          "Mia:", "## Response", "<|im_end|>", "<|", "</s>", "json", '{"mood_change": 1}', BLOCK,
          "é", "🙂", "\t", "\r\n", "I love you so much,", "and", "Yuki", "_", ">", "**Mia:**"]


@pytest.mark.parametrize("seed", range(6))
def test_random_replies_and_splits(seed):
    rng = random.Random(seed)
    for _ in range(12):
        parts = []
        for _ in range(rng.randint(3, 80)):
            parts.append(rng.choice(PIECES))
            parts.append(rng.choice([" "] * 8 + ["", "\n", "\n\n", "  "]))
        sizes = [rng.choice([1, 2, 3, 5, 8, 13, 40]) for _ in range(30)]
        assert_same_at_every_step("".join(parts), sizes, rng.choice(NAMES + ["Yuki"]))


def test_a_stray_closer_later_in_the_reply_starts_it_again():
    stream = StreamText("Mia")
    for line in ["First line that is long enough to commit.\n", "Second line, same.\n"] * 3:
        stream.feed(line)
    assert stream.text.startswith("First line")
    assert stream.feed("</think>Only this.") == "Only this."


def counted(monkeypatch, module=stream_text,
            names=("visible_stream_text", "speech_stream_text", "_pre_tidy_if_whole",
                   "stream_shown", "tidy")) -> dict[str, int]:
    """Count the characters ``module`` (StreamText's) hands to the whole-text functions
    and checks ``names``."""
    seen = {"chars": 0}

    def counting(function):
        def wrapper(text, *args):
            seen["chars"] += len(text)
            return function(text, *args)
        return wrapper

    for name in names:
        monkeypatch.setattr(module, name, counting(getattr(module, name)))
    return seen


@pytest.mark.parametrize("kind", ["paragraphs", "voice", "one endless line", "reasoning"])
def test_a_100_kb_reply_in_10_character_chunks_costs_linear_work(monkeypatch, kind):
    unit = {
        "paragraphs": "She laughed softly and looked out of the window for a while. " * 3 + "\n\n",
        "voice": '*smiles* speak("That sounds lovely, tell me more!") [laughs] <3 you.\n',
        "one endless line": "I love you so much, ",
        "reasoning": "<think>Let me think about this. </think>An answer line, friend.\n",
    }[kind]
    reply = (unit * (100_000 // len(unit) + 1))[:100_000] + "\n" + BLOCK
    seen = counted(monkeypatch)
    stream = StreamText("Mia")
    for at in range(0, len(reply), 10):
        stream.feed(reply[at:at + 10])
    assert stream.text == shown_by_old_path(reply, "Mia")
    # the old path read the whole reply at every chunk: len² / 20 = 500 million characters
    assert seen["chars"] < 40 * len(reply), seen  # about 12 times here
