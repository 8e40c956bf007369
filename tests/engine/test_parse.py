"""The response parser: realistic model outputs, reminders, streaming, and properties."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_desktop.engine.parse import (
    ParsedReply,
    ReminderRequest,
    extract_reminders,
    parse_response,
    visible_stream_text,
)
from companion_desktop.engine.state_updates import LLM_CLAMPS, LlmSuggestion
from companion_desktop.engine.tolerant_json import loads_tolerant

BLOCK = '{"mood_change": {"emotion": "happy", "intensity_delta": 10}, "affection_delta": 5}'
FENCED = f"```json\n{BLOCK}\n```"
STATE = {"mood_change": {"emotion": "happy", "intensity_delta": 10}, "affection_delta": 5}

# (name, raw model output, expected visible text, expected block or None)
CASES = [
    ("plain fenced block", f"Hey! I missed you.\n\n{FENCED}", "Hey! I missed you.", STATE),
    ("bare fence", f"Hi!\n```\n{BLOCK}\n```", "Hi!", STATE),
    ("unfenced on its own line", f"Hi!\n{BLOCK}", "Hi!", STATE),
    ("JSON in prose", f"Sure, here you go {BLOCK} and that's it", "Sure, here you go", STATE),
    ("json label line", f"Hello!\njson\n{BLOCK}", "Hello!", STATE),
    (
        "llama3 eot then junk",
        f"Good morning, sunshine!\n{FENCED}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
        "tell me more<|eot_id|>",
        "Good morning, sunshine!",
        STATE,
    ),
    (
        "llama3 reply cut at eot before its block",
        f"Good morning!<|eot_id|>assistant\n\n{FENCED}",
        "Good morning!",
        None,
    ),
    (
        "leaked role header",
        f"<|start_header_id|>assistant<|end_header_id|>\n\nHi there!\n{FENCED}",
        "Hi there!",
        STATE,
    ),
    ("chatml im_end", f"Hi!\n{FENCED}<|im_end|>\n<|im_start|>user\nmore", "Hi!", STATE),
    (
        "gemma end_of_turn",
        f"Hello~\n{FENCED}<end_of_turn>\n<start_of_turn>user\nhey",
        "Hello~",
        STATE,
    ),
    ("llama2 </s> and [INST]", "Hi!</s>[INST] next question [/INST] answer", "Hi!", None),
    ("phi <|end|>", f"Okay!\n{FENCED}<|end|><|user|>hm", "Okay!", STATE),
    ("leading </s> is ignored", f"</s>Hello!\n{FENCED}", "Hello!", STATE),
    (
        "qwen think block",
        "<think>\nThe user greets me. I should be warm.\n</think>\n\n"
        f"Hi! How was your day?\n{FENCED}",
        "Hi! How was your day?",
        STATE,
    ),
    (
        "thinking tag with a decoy block inside",
        f'<thinking>maybe {{"affection_delta": 20}}?</thinking>Hello!\n{FENCED}',
        "Hello!",
        STATE,
    ),
    (
        "lone </think>: everything before was reasoning",
        f"The user said hi, I'll be cheerful.\n</think>\n\nHiya!\n{FENCED}",
        "Hiya!",
        STATE,
    ),
    ("unterminated think", "Sure.\n<think>hmm, what should I", "Sure.", None),
    (
        "roleplay model writes the user's next line",
        "*smiles* That's wonderful news!\nUser: thanks! what about you?\n"
        f'Hana: "I\'m fine"\n{FENCED}',
        "*smiles* That's wonderful news!",
        None,
    ),
    (
        "fake turn after the block is dropped with the tail",
        f"Of course!\n{FENCED}\nUser: great",
        "Of course!",
        STATE,
    ),
    ("narrator tail", "I'm so happy.\nNarrator: She twirls around.", "I'm so happy.", None),
    ("they tail", "See you!\nThey: bye", "See you!", None),
    ("markdown user tail", "See you!\n**User:** bye", "See you!", None),
    ("alpaca tail", "Sure!\n### Instruction:\nWrite more", "Sure!", None),
    ("user name tail", "Night, Sam!\nSam: night", "Night, Sam!", None),
    ("her own name on a later line with a quote", 'Hm.\nHana: "Well then."', "Hm.", None),
    ("her name later without a quote stays", "Hm.\nHana: me!", "Hm.\nHana: me!", None),
    ("first-line name prefix stripped", f"Hana: Hi there!\n{FENCED}", "Hi there!", STATE),
    ("bold name prefix stripped", "**Hana:** Hi there!", "Hi there!", None),
    ("'You:' on the first line stays", "You: the best.", "You: the best.", None),
    (
        "trailing commas and comments",
        'Yay!\n```json\n{\n  // how I feel\n'
        '  "mood_change": {"emotion": "excited", "intensity_delta": 8,},\n'
        '  /* stats */ "affection_delta": 3,\n'
        '  "new_memory": "They love cats // and dogs",\n}\n```',
        "Yay!",
        {
            "mood_change": {"emotion": "excited", "intensity_delta": 8},
            "affection_delta": 3,
            "new_memory": "They love cats // and dogs",
        },
    ),
    (
        "python-style and bare keys",
        "Hi {mood_change: {'emotion': 'happy', 'intensity_delta': +5}, "
        "'action': None, expression: True}",
        "Hi",
        {
            "mood_change": {"emotion": "happy", "intensity_delta": 5},
            "action": None,
            "expression": True,
        },
    ),
    (
        "two objects, only the last is the state",
        f'My cat is {{"name": "Miso", "age": 3}} in JSON, haha.\n{FENCED}',
        'My cat is {"name": "Miso", "age": 3} in JSON, haha.',
        STATE,
    ),
    (
        "two state objects: the last is the block, text stops at the first",
        'Hi! {"mood_change": {"emotion": "sad"}}\n{"affection_delta": 2}',
        "Hi!",
        {"affection_delta": 2},
    ),
    (
        "text after the block dropped",
        f"Bye for now!\n{FENCED}\nP.S. this is outside the block\n[reminder:1h]x[/reminder]",
        "Bye for now!",
        STATE,
    ),
    ("block first, reply after", f"{FENCED}\nHello there!", "Hello there!", STATE),
    ("braces and quotes in strings", 'Ok.\n{"new_memory": "They wrote \\"}{\\" on a sign"}', "Ok.",
     {"new_memory": 'They wrote "}{" on a sign'}),
    ("stray brace in prose before the block", f"Look :-{{ haha\n{FENCED}", "Look :-{ haha", STATE),
    (
        "wrapper object",
        '{"reply": "hi", "state": {"mood_change": {"emotion": "happy"}}}',
        "",
        {"mood_change": {"emotion": "happy"}},
    ),
    ("code with unrelated keys is not a block", 'Use:\n```json\n{"action": "click", "x": 1}\n```',
     'Use:\n```json\n{"action": "click", "x": 1}\n```', None),
    ("cut-off block hidden", 'Hi!\n```json\n{"mood_change": {"emotion": "hap', "Hi!", None),
    ("cut-off bare block hidden", 'Hi!\n{"mood_change": {"emot', "Hi!", None),
    ("unreadable block hidden", 'Hi!\n```json\n{"mood_change": {x: y!!}}\n```', "Hi!", None),
    ("cut-off inline block hidden", 'Hi! {"affection_delta": 3, "new_mem', "Hi!", None),
    ("no block at all", "Just words.", "Just words.", None),
    ("empty", "", "", None),
    ("whitespace tidy", "  Line one.\n\n\n\n\nLine two.   \n  ", "Line one.\n\nLine two.", None),
]


@pytest.mark.parametrize(
    ("raw", "text", "block"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_parse_cases(raw: str, text: str, block: dict | None) -> None:
    parsed = parse_response(raw, companion_name="Hana", user_name="Sam")
    assert parsed.text == text
    assert parsed.block == block
    assert parsed.has_block is (block is not None)


def test_clamping_and_normalization_via_sanitize() -> None:
    raw = (
        "I'm overwhelmed!\n```json\n"
        '{"mood_change": {"emotion": "grateful|cared-for", "intensity_delta": 99}, '
        '"affection_delta": 500, "trust_delta": -50, "intimacy_delta": "7", "comfort_delta": 2.5, '
        '"respect_delta": 40, "action": "Wave!!", "expression": "nervous", '
        '"shared_reference": {"type": "joke", "content": "the coffee incident"}}\n```'
    )
    s = parse_response(raw).suggestion
    assert (s.mood_change.emotion, s.mood_change.intensity_delta) == ("happy", 30)
    assert (s.affection_delta, s.trust_delta, s.intimacy_delta, s.comfort_delta) == (20, -10, 7, 3)
    assert s.respect_delta == 10
    assert s.action is None and s.expression == "anxious"
    assert (s.shared_reference.type, s.shared_reference.content) == ("jokes", "the coffee incident")


def test_no_block_gives_empty_suggestion() -> None:
    parsed = parse_response("Hello!")
    assert parsed.suggestion == LlmSuggestion() and not parsed.has_block
    assert parsed == ParsedReply("Hello!")


@pytest.mark.parametrize(
    ("tag", "seconds"),
    [
        ("[reminder:30s]x[/reminder]", 30), ("[reminder:45 sec]x[/reminder]", 45),
        ("[reminder:2 seconds]x[/reminder]", 2), ("[reminder:5min]x[/reminder]", 300),
        ("[reminder:5m]x[/reminder]", 300), ("[reminder:10 minutes]x[/reminder]", 600),
        ("[reminder:1 minute]x[/reminder]", 60), ("[reminder:2h]x[/reminder]", 7200),
        ("[reminder:1.5 hr]x[/reminder]", 5400), ("[reminder:3 hours]x[/reminder]", 10800),
        ("[Reminder: 1 HOUR]x[/REMINDER]", 3600), ("[reminder:1d]x[/reminder]", 86400),
        ("[reminder:2 days]x[/reminder]", 172800), ("[reminder:0s]x[/reminder]", 1),
        ("[reminder:9999d]x[/reminder]", 365 * 86400), ("[reminder:0,5h]x[/reminder]", 1800),
    ],
)
def test_reminder_units_and_bounds(tag: str, seconds: int) -> None:
    parsed = parse_response(f"Okay! {tag} I'll remind you.")
    assert parsed.reminders == (ReminderRequest(seconds, "x"),)
    assert parsed.text == "Okay! I'll remind you."


def test_reminders_removed_from_text_and_collected_in_order() -> None:
    raw = (
        "Sure![reminder:10min] stretch  your\nlegs [/reminder]\n"
        "[reminder:2h]drink water[/reminder]\nSee you soon.\n" + FENCED
    )
    parsed = parse_response(raw)
    assert parsed.reminders == (
        ReminderRequest(600, "stretch your legs"),
        ReminderRequest(7200, "drink water"),
    )
    assert parsed.text == "Sure!\n\nSee you soon."
    assert parsed.has_block


@pytest.mark.parametrize(
    "malformed",
    ["[reminder:5 parsecs]x[/reminder]", "[reminder:soon]x[/reminder]", "[reminder:5min]x",
     "[reminder]x[/reminder]"],
)
def test_malformed_reminder_left_as_text(malformed: str) -> None:
    parsed = parse_response(f"Hmm {malformed}")
    assert parsed.reminders == ()
    assert parsed.text == f"Hmm {malformed}"


def test_empty_reminder_removed_without_request() -> None:
    text, reminders = extract_reminders("Ok [reminder:5min]  [/reminder] done")
    assert (text, reminders) == ("Ok done", ())


def test_loads_tolerant() -> None:
    assert loads_tolerant('{"a": 1,}') == {"a": 1}
    relaxed = "{'a': 'x', b: None, c: True, d: +2}"
    assert loads_tolerant(relaxed) == {"a": "x", "b": None, "c": True, "d": 2}
    assert loads_tolerant('{"url": "http://x.y/*z*/"}') == {"url": "http://x.y/*z*/"}
    assert loads_tolerant("[1, 2,]") == [1, 2]
    assert loads_tolerant("{") is None
    assert loads_tolerant("[" * 100_000) is None


# --- streaming -----------------------------------------------------------------------

STREAM_CASES = [
    ("Hello the", "Hello the"),
    ("<think>planning", ""),
    ("<think>planning</think>Hi", "Hi"),
    ("reasoning...</think>\nHi", "Hi"),
    ("Hi!\n```", "Hi!"),
    ("Hi!\n``", "Hi!"),
    ("Hi!\n```js", "Hi!"),
    ("Hi!\n```json\n{\"mood", "Hi!"),
    ("Hi!\n{\"mood_change\"", "Hi!"),
    ("Hi! {\"mood_ch", "Hi!"),
    ("Hi!\n```python\nx = {1: 2}\n```\nDone", "Hi!\n```python\nx = {1: 2}\n```\nDone"),
    ("Done!<|eot_id|>junk", "Done!"),
    ("Done!<|eot", "Done!"),
    ("Done! <", "Done!"),
    ("I love you <3", "I love you <3"),
    ("Sure [reminder:5min]stretch", "Sure"),
    ("Sure [remi", "Sure"),
    ("Sure [reminder:5min]stretch[/reminder] ok", "Sure ok"),
    ("Hana: Hi", "Hi"),
    ("Hi\nUser: hey", "Hi"),
]


@pytest.mark.parametrize(("partial", "shown"), STREAM_CASES)
def test_visible_stream_text(partial: str, shown: str) -> None:
    assert visible_stream_text(partial, "Hana") == shown


def test_stream_never_flashes_the_block() -> None:
    raw = (
        "<think>ok</think>Hello! Nice to see you.\n[reminder:5min]tea[/reminder]\n"
        f"{FENCED}<|eot_id|>"
    )
    final = parse_response(raw).text
    for end in range(len(raw) + 1):
        shown = visible_stream_text(raw[:end])
        assert "{" not in shown and "`" not in shown and "think" not in shown and "<|" not in shown
        assert "reminder" not in shown
        assert final.startswith(shown) or shown.startswith("Hello! Nice")
    assert visible_stream_text(raw) == final


# --- properties ----------------------------------------------------------------------

_PIECES = st.sampled_from([
    "{", "}", "[", "]", '"', "'", "\\", ",", ":", "```", "```json\n", "\n", " ", "//", "/*", "*/",
    "<think>", "</think>", "<thinking>", "<|eot_id|>", "</s>", "User:", "Hana: \"", "[reminder:",
    "5min]", "[/reminder]", '"mood_change"', '"affection_delta"', "1e999", "-500", "NaN", "null",
    '{"emotion": "happy"}', "true", "hi", "ä", "日本", "\u0130",
])
_ADVERSARIAL = st.lists(_PIECES, max_size=40).map("".join)


def _within_clamps(s: LlmSuggestion) -> bool:
    values = {key: getattr(s, key) for key in LLM_CLAMPS if key != "intensity_delta"}
    if s.mood_change is not None:
        values["intensity_delta"] = s.mood_change.intensity_delta
    return all(
        v is None or (isinstance(v, int) and abs(v) <= LLM_CLAMPS[k]) for k, v in values.items()
    )


@settings(max_examples=300)
@given(st.one_of(st.text(), _ADVERSARIAL), st.sampled_from(["", "Hana", ".*("]))
def test_parse_never_raises_and_clamps(raw: str, name: str) -> None:
    parsed = parse_response(raw, companion_name=name, user_name=name or None)
    assert isinstance(parsed.text, str)
    assert _within_clamps(parsed.suggestion)
    assert parsed.has_block is (parsed.block is not None)
    for reminder in parsed.reminders:
        assert 1 <= reminder.seconds <= 365 * 86400 and reminder.text


@settings(max_examples=300)
@given(st.one_of(st.text(), _ADVERSARIAL))
def test_stream_never_raises_or_shows_tags(partial: str) -> None:
    shown = visible_stream_text(partial, "Hana")
    assert "```json" not in shown and "<think>" not in shown


HOSTILE_BOUND_S = 2.0  # per call; each takes well under 0.2 s, a quadratic scan far more


def _timed(call, *args):
    started = time.perf_counter()
    result = call(*args)
    elapsed = time.perf_counter() - started
    assert elapsed < HOSTILE_BOUND_S, f"{call.__name__} took {elapsed:.2f} s"
    return result


@pytest.mark.parametrize("raw", [
    "{" * 50_000, '{"a":' * 5_000, '"' * 50_000, "[reminder:1s]" * 5_000, "<think>" * 10_000,
    "User:\n" * 10_000, "Hi there. " + '{"mood_change": ' * 5_000,
], ids=["braces", "nested-keys", "quotes", "reminder-tags", "think-tags", "fake-turns",
        "open-block"])
def test_hostile_sizes_are_fast_and_safe(raw: str) -> None:
    parsed = _timed(parse_response, raw, "Hana")
    shown = _timed(visible_stream_text, raw, "Hana")
    assert isinstance(parsed.text, str) and len(parsed.text) <= len(raw)
    assert not parsed.has_block and parsed.block is None  # nothing here is a valid block
    assert parsed.suggestion == LlmSuggestion()
    assert parsed.reminders == ()  # no reminder tag here is complete
    assert "<think>" not in parsed.text and "<think>" not in shown
    assert len(shown) <= len(raw)


def test_hostile_inputs_keep_the_reply_before_them() -> None:
    assert parse_response("<think>" * 10_000, "Hana").text == ""
    assert parse_response("User:\n" * 10_000, "Hana").text == "User:"
    raw = "Hi there. " + '{"mood_change": ' * 5_000
    assert _timed(parse_response, raw, "Hana").text == "Hi there."
    assert _timed(visible_stream_text, raw, "Hana") == "Hi there."
