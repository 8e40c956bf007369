"""The system prompt builder and the extraction prompt."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from companion_desktop.engine.character import DATING_SIM_STAGES, EMOTIONS, new_character
from companion_desktop.engine.context_window import estimate_tokens
from companion_desktop.engine.modes import switch_mode
from companion_desktop.engine.parse import parse_response
from companion_desktop.engine.prompt import (
    OPTIONAL_LAYERS,
    PromptContext,
    build_extraction_prompt,
    build_system_prompt,
)
from companion_desktop.engine.prompt_words import (
    STAGE_GUIDANCE,
    energy_word,
    format_local_time,
    stat_phrase,
    time_since_words,
)

LOCAL = timezone(timedelta(hours=2))
NOW = datetime(2026, 3, 10, 14, 5, tzinfo=LOCAL)  # a Tuesday
MODIFIER = "This is a friend! Be casual and warm."
ALL_LAYERS = {name: f"{name} content here" for name in OPTIONAL_LAYERS}


def _state(mode: str = "dating_sim", **changes):
    defaults = {
        "relationship_stage": "friend",
        "last_interaction": NOW - timedelta(hours=3),
        "days_known": 12,
        "current_streak": 4,
        "affection": 240,
        "trust": 40,
    }
    state = new_character(NOW - timedelta(days=12)).copy(**{**defaults, **changes})
    return switch_mode(state, "companion", NOW) if mode == "companion" else state


def _ctx(state=None, **changes) -> PromptContext:
    base = {
        "state": state or _state(),
        "now": NOW,
        "session_started": NOW - timedelta(minutes=12),
        "familiarity_modifier": MODIFIER,
    }
    return PromptContext(**{**base, **changes})


def _tags(prompt: str) -> list[str]:
    """Opening tags of the top-level layers, in order."""
    return re.findall(r"^<([a-z_]+)>$", prompt, re.M)


def _layer(prompt: str, tag: str) -> str:
    match = re.search(rf"^<{tag}>\n(.*?)\n</{tag}>$", prompt, re.S | re.M)
    assert match, f"no <{tag}> layer"
    return match.group(1)


def _json_example(prompt: str) -> dict:
    match = re.search(r"```json\n(.*?)\n```", _layer(prompt, "instructions"), re.S)
    assert match
    return json.loads(match.group(1))


def test_dating_sim_layer_order_all_layers() -> None:
    prompt = build_system_prompt(
        _ctx(relevant_facts=("They have a cat named Miso",), optional_layers=ALL_LAYERS)
    )
    order = [
        "system", "character", "current_state", "memory", "character_lore", "active_window",
        "being_shown", "event",
        "speech_output_control", "avatar", "instructions", "mcp_tool_security",
    ]
    assert _tags(prompt) == order
    positions = [re.search(rf"^<{tag}>$", prompt, re.M).start() for tag in order]
    assert positions == sorted(positions)
    assert prompt.rstrip().endswith("</mcp_tool_security>")
    for tag in order:
        assert prompt.count(f"<{tag}>") == 1 and prompt.count(f"</{tag}>") == 1


def test_companion_layer_order_all_layers() -> None:
    prompt = build_system_prompt(
        _ctx(_state("companion"), relevant_facts=("They code in Rust",), optional_layers=ALL_LAYERS)
    )
    assert _tags(prompt) == [
        "system", "character", "state", "memory", "character_lore", "active_window",
        "being_shown", "event",
        "speech_output_control", "avatar", "instructions", "mcp_tool_security",
    ]
    assert "<current_state>" not in prompt


def test_minimal_dating_sim_prompt_has_only_the_fixed_layers() -> None:
    prompt = build_system_prompt(_ctx())
    assert _tags(prompt) == ["system", "character", "current_state", "instructions"]


@pytest.mark.parametrize("name", OPTIONAL_LAYERS)
def test_each_optional_layer_only_when_given_and_in_its_slot(name: str) -> None:
    without = build_system_prompt(_ctx())
    assert f"<{name}>" not in without
    prompt = build_system_prompt(_ctx(optional_layers={name: "  the layer text  "}))
    assert _layer(prompt, name) == "the layer text"
    tags = _tags(prompt)
    if name == "mcp_tool_security":
        assert tags[-1] == name
    else:
        assert tags.index(name) == tags.index("instructions") - 1
        assert tags.index(name) > tags.index("current_state")


def test_empty_optional_layer_is_left_out_and_wrapped_text_not_doubled() -> None:
    prompt = build_system_prompt(
        _ctx(optional_layers={"event": "   ", "avatar": "<avatar>\nwave: waves hello\n</avatar>"})
    )
    assert "<event>" not in prompt
    assert prompt.count("<avatar>") == 1
    assert _layer(prompt, "avatar") == "wave: waves hello"


def test_unknown_optional_layer_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown prompt layers"):
        build_system_prompt(_ctx(optional_layers={"being_shwon": "typo"}))


def test_system_layer_time_session_and_reminder() -> None:
    prompt = build_system_prompt(_ctx(next_reminder="in 10 minutes: stretch", user_name="Sam"))
    system = _layer(prompt, "system")
    assert "Tuesday 10 March 2026, 14:05" in system
    assert "12 minutes" in system
    assert "Next reminder: in 10 minutes: stretch" in system
    assert "[reminder:5min]" in system and "s, min, h, d" in system
    assert "Hana" in system and "Sam" in system
    assert "Next reminder" not in _layer(build_system_prompt(_ctx()), "system")


def test_character_layer() -> None:
    state = _state(name="Yui", system_prompt="You are Yui, a sleepy cat girl.")
    character = _layer(build_system_prompt(_ctx(state)), "character")
    assert character == "Name: Yui\nYou are Yui, a sleepy cat girl."


def test_current_state_layer_in_words() -> None:
    state = _state(energy=25)
    state.mood.primary, state.mood.intensity = "happy", 80
    state.mood.causes = ["they praised your drawing"]
    current = _layer(build_system_prompt(_ctx(state)), "current_state")
    assert "happy" in current and "strong" in current and "they praised your drawing" in current
    assert "tired" in current
    assert "3 hours ago" in current
    assert "friend" in current and "relaxed, warm" in current
    assert "affection a little warm (240)" in current and "trust some trust (40)" in current
    assert "12 days" in current and "streak: 4 days" in current


def test_first_conversation_wording() -> None:
    state = _state(last_interaction=None)
    assert "first conversation" in _layer(build_system_prompt(_ctx(state)), "current_state")


@pytest.mark.parametrize(
    ("minutes", "words"),
    [(2, "a few minutes"), (40, "40 minutes"), (90, "about an hour"), (180, "3 hours"),
     (30 * 60, "a day"), (49 * 60, "2 days"), (-5, "a few minutes")],
)
def test_time_since_words(minutes: int, words: str) -> None:
    assert time_since_words(NOW - timedelta(minutes=minutes), NOW) == words
    assert time_since_words(None, NOW) == "first conversation"


def test_time_since_accepts_naive_utc_from_storage() -> None:
    naive_utc = (NOW - timedelta(hours=3)).astimezone(timezone.utc).replace(tzinfo=None)
    assert time_since_words(naive_utc, NOW) == "3 hours"


@pytest.mark.parametrize(
    ("energy", "word"), [(0, "exhausted"), (14, "exhausted"), (29, "tired"), (30, "a bit low"),
                         (60, "fine"), (80, "full of energy"), (100, "full of energy")],
)
def test_energy_word(energy: int, word: str) -> None:
    assert energy_word(energy) == word


@pytest.mark.parametrize(
    ("stat", "value", "phrase"),
    [
        ("affection", 0, "none yet"),
        ("affection", 99, "none yet"),
        ("affection", 100, "a little warm"),
        ("affection", 1000, "devoted"),
        ("trust", 100, "complete trust"),
        ("comfort", 50, "relaxed"),
    ],
)
def test_stat_phrases_by_range(stat: str, value: int, phrase: str) -> None:
    assert stat_phrase(stat, value) == phrase


def test_format_local_time_is_locale_free() -> None:
    sunday = datetime(2026, 1, 4, 9, 3, tzinfo=LOCAL)
    assert format_local_time(sunday) == "Sunday 4 January 2026, 09:03"


def test_memory_layer_facts_and_at_most_three_triggered() -> None:
    prompt = build_system_prompt(
        _ctx(relevant_facts=("They have a cat named Miso", " "),
             triggered_memories=("m1", "m2", "m3", "m4", "m5"))
    )
    memory = _layer(prompt, "memory")
    assert "- They have a cat named Miso" in memory
    assert "- m1" in memory and "- m3" in memory and "m4" not in memory and "m5" not in memory


@pytest.mark.parametrize(("hours", "shown"), [(3, False), (6, False), (6.02, True), (30, True)])
def test_last_session_summary_only_after_six_hours(hours: float, shown: bool) -> None:
    state = _state(last_interaction=NOW - timedelta(hours=hours))
    prompt = build_system_prompt(_ctx(state, last_session_summary="talked about Kyoto"))
    assert ("talked about Kyoto" in prompt) is shown
    assert ("<memory>" in prompt) is shown


def test_no_summary_without_previous_interaction() -> None:
    prompt = build_system_prompt(_ctx(_state(last_interaction=None), last_session_summary="x"))
    assert "<memory>" not in prompt


@pytest.mark.parametrize("stage", DATING_SIM_STAGES)
def test_stage_guidance_for_each_stage(stage: str) -> None:
    prompt = build_system_prompt(_ctx(_state(relationship_stage=stage)))
    assert f"Stage guidance: {STAGE_GUIDANCE[stage]}" in _layer(prompt, "instructions")
    assert len(set(STAGE_GUIDANCE.values())) == 8


def test_familiarity_modifier_included_only_when_given() -> None:
    assert f"Familiarity: {MODIFIER}" in _layer(build_system_prompt(_ctx()), "instructions")
    assert "Familiarity:" not in build_system_prompt(_ctx(familiarity_modifier=None))
    companion = build_system_prompt(_ctx(_state("companion")))
    assert f"Relationship guidance: {MODIFIER}" in _layer(companion, "instructions")


def test_behaviour_follows_energy_and_mood() -> None:
    tired = _layer(build_system_prompt(_ctx(_state(energy=20))), "instructions")
    assert "short" in tired
    lively = _layer(build_system_prompt(_ctx(_state(energy=95))), "instructions")
    assert "lively" in lively and "tired" not in lively
    sad_state = _state()
    sad_state.mood.primary, sad_state.mood.intensity = "sad", 70
    assert "quieter" in _layer(build_system_prompt(_ctx(sad_state)), "instructions")


def test_dating_sim_json_block_keys_and_emotions() -> None:
    prompt = build_system_prompt(_ctx())
    example = _json_example(prompt)
    assert list(example) == [
        "mood_change", "affection_delta", "trust_delta", "intimacy_delta", "comfort_delta",
        "new_memory", "triggered_event", "shared_reference", "expression",
    ]
    assert set(example["mood_change"]) == {"emotion", "intensity_delta"}
    instructions = _layer(prompt, "instructions")
    assert all(emotion in instructions for emotion in EMOTIONS)
    assert '"jokes"|"nicknames"|"memories"' in instructions
    assert "only for a visible reaction in the moment" in instructions
    assert "reminder tag" in instructions


def test_action_field_only_when_animations_enabled() -> None:
    assert "action" not in _json_example(build_system_prompt(_ctx()))
    assert "action" in _json_example(build_system_prompt(_ctx(animations_enabled=True)))
    companion = _ctx(_state("companion"), animations_enabled=True)
    assert list(_json_example(build_system_prompt(companion))) == [
        "mood_change", "new_memory", "action", "expression",
    ]


def test_companion_mode_has_no_stats_and_no_relationship_deltas() -> None:
    prompt = build_system_prompt(_ctx(_state("companion")))
    assert list(_json_example(prompt)) == ["mood_change", "new_memory", "expression"]
    for word in ("affection", "trust", "intimacy", "comfort", "respect", "Stage",
                 "streak", "shared_reference", "triggered_event"):
        assert not re.search(rf"\b{word}\b", prompt), word
    state = _layer(prompt, "state")
    assert state.startswith("Mood: ") and "\nEnergy: " in state and state.count("\n") == 1
    assert "helpful" in _layer(prompt, "instructions")


def test_example_block_round_trips_through_the_parser() -> None:
    example = _json_example(build_system_prompt(_ctx(animations_enabled=True)))
    parsed = parse_response("Hi!\n```json\n" + json.dumps(example) + "\n```")
    assert parsed.text == "Hi!" and parsed.block == example
    assert parsed.suggestion.mood_change is not None


def test_typical_dating_sim_prompt_is_small() -> None:
    prompt = build_system_prompt(
        _ctx(next_reminder="in 10 minutes: stretch", animations_enabled=True, user_name="Sam")
    )
    assert estimate_tokens(prompt) < 900


def test_prompt_is_deterministic() -> None:
    assert build_system_prompt(_ctx()) == build_system_prompt(_ctx())


def test_extraction_prompt_dating_sim() -> None:
    system, user = build_extraction_prompt("I work at a bakery!", "How lovely.", "dating_sim")
    assert "ONLY a JSON object" in system
    for key in ("mood_change", "affection_delta", "trust_delta", "intimacy_delta",
                "comfort_delta", "new_memory"):
        assert key in system
    assert "respect_delta" not in system and "-20..20" in system and "-30..30" in system
    assert all(emotion in system for emotion in EMOTIONS)
    assert "I work at a bakery!" in user and "How lovely." in user


def test_extraction_prompt_companion() -> None:
    system, _user = build_extraction_prompt("hi", "hello", "companion")
    example = json.loads(re.search(r"^\{.*\}$", system, re.M).group(0))
    assert list(example) == ["mood_change", "new_memory"]
    assert not re.search(r"\baffection\b|_delta\b.*-20", system)


def test_extraction_prompt_limits_and_modes() -> None:
    _system, user = build_extraction_prompt("x" * 10_000, "y" * 10_000, "dating_sim")
    assert len(user) < 8_200
    with pytest.raises(ValueError):
        build_extraction_prompt("a", "b", "harem")
