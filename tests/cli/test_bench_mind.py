"""The mind section of ``companion-desktop bench``: a short conversation with the small test
model reports its figures, and the parts that read and judge (llama.cpp's timing lines, the
reuse of a joined model, the quality heuristics) do what they say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion_desktop.cli import build_parser
from companion_desktop.cli.bench import SECTIONS, parse_sections
from companion_desktop.cli.bench import mind as bench
from companion_desktop.engine.state_updates import LlmSuggestion
from companion_desktop.llm.mind.models import MIND_FOLDER, RECORD_SUFFIX, MindModel


def need_small_model() -> None:
    from companion_desktop.llm.mind.models import SMALL, installed, runtime_problem

    problem = runtime_problem()
    if problem:
        pytest.skip(f"her mind's runtime is not installed ({problem})")
    if not installed(SMALL):
        pytest.skip(f"her mind's small test model is not installed (pip install {SMALL.dists[0]})")


@pytest.mark.slow
def test_a_short_conversation_reports_its_figures(tmp_path, monkeypatch):
    need_small_model()
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "no-data"))  # no user cache read
    monkeypatch.delenv(bench.MIND_CACHE_ENV, raising=False)
    lines: list[str] = []
    figures = bench.bench_mind("smollm2-135m", bench.QUALITY_MESSAGES[:2], beside=False,
                               report=lines.append)
    assert figures is not None, lines
    assert figures.model == "smollm2-135m" and len(figures.turns) == 2
    assert figures.generation is not None and figures.generation > 0
    assert figures.prompt is not None and figures.prompt > 0
    assert figures.wake_s > 0 and figures.peak_rss_mb > 0
    for turn in figures.turns:
        assert turn.first_text_s is not None and 0 < turn.first_text_s <= turn.complete_s
        assert turn.prompt_tokens > 0 and turn.eval_tokens > 0 and turn.pieces
    assert figures.turns[1].prompt_tokens < figures.turns[0].prompt_tokens  # the cache carried
    assert figures.quality.replies == 2 and not figures.alone and not figures.beside
    text = "\n".join(lines)
    for figure in ("turn 1: first text ", "generation: ", "prompt reading: ", " tokens/s",
                   "peak RSS of her mind's process: ", " MB (", "quality (2 replies as "):
        assert figure in text, text
    assert "beside her" not in text


def test_without_the_runtime_the_section_says_so(monkeypatch):
    monkeypatch.setattr("companion_desktop.llm.mind.models.runtime_problem",
                        lambda: "Her own mind needs its runtime: pip install xllamacpp.")
    lines: list[str] = []
    assert bench.bench_mind("smollm2-135m", report=lines.append) is None
    assert lines == ["  skipped: her mind's runtime is not installed (Her own mind needs its "
                     "runtime: pip install xllamacpp.)"]


def test_mind_is_a_section_with_its_model_option():
    assert SECTIONS[-1] == "mind" and parse_sections(["mind"]) == ["mind"]
    args = build_parser().parse_args(["--data-dir", "/d", "bench", "--only", "mind",
                                      "--mind-model", "smollm2-135m"])
    assert (args.only, args.mind_model, args.data_dir) == (["mind"], "smollm2-135m", "/d")
    assert build_parser().parse_args(["bench"]).mind_model is None


def test_rounds_run_alone_beside_beside_alone_after_a_warm_up(tmp_path, monkeypatch):
    from datetime import datetime

    seen: list[str] = []

    class App:
        alive = True

        def __init__(self, folder: Path) -> None:
            seen.append("app starts")
            self.proc = type("Proc", (), {"pid": 1, "returncode": None})()

        def wait_shown(self) -> float:
            return 0.5

        def settled_rss(self) -> float:
            return 300.0

        def stop(self) -> None:
            seen.append("app stops")

    def talk(i: int) -> bench.TurnFigures:
        seen.append(f"round {i}")
        return bench.TurnFigures("m", datetime(2026, 1, 1), 0.5, 1.0,
                                 [bench.Timing(100.0, 10, 1000.0, 20)], [], "Hi.", False, True)

    monkeypatch.setattr("companion_desktop.cli.bench.cost.RunningApp", App)
    monkeypatch.setattr("companion_desktop.cli.bench.cost.cpu_seconds", lambda pid: 1.0)
    monkeypatch.setattr(bench, "SETTLE_S", 0.0)
    lines: list[str] = []
    alone, beside = bench.beside_her(talk, tmp_path, lines.append, rounds=2)
    assert seen == ["round 0", "round 1", "app starts", "round 2", "round 3", "app stops",
                    "round 4"]
    assert len(alone) == 2 and len(beside) == 2
    assert lines[0] == "    the app: window shown after 0.50 s, 300 MB RSS settled"
    assert lines[1].startswith("    the app while she thought: 0.0% of one core")


# -- llama.cpp's timing lines -------------------------------------------------------------
PROMPT = ("0.29.236.266 I slot print_timing: id  0 | task 0 | prompt eval time =    8871.99 ms "
          "/   217 tokens (   40.88 ms per token,    24.46 tokens per second)")
EVAL = ("0.29.236.282 I slot print_timing: id  0 | task 0 |        eval time =    7729.17 ms /"
        "    20 tokens (  406.80 ms per token,     2.46 tokens per second)")
TOTAL = "0.29.236.283 I slot print_timing: id  0 | task 0 |       total time =   16601.15 ms /"


def test_timing_lines_pair_a_prompt_with_its_generation():
    found, pending = bench.parse_timings(["noise", PROMPT, EVAL, TOTAL, PROMPT])
    assert found == [bench.Timing(8871.99, 217, 7729.17, 20)] and pending
    assert bench.parse_timings([EVAL]) == ([], False)
    gen, read = bench.rates(found * 2)
    assert gen == pytest.approx(1000 * 20 / 7729.17) and read == pytest.approx(1000 * 217 / 8871.99)
    assert bench.rates([]) == (None, None)


def test_the_log_is_read_a_turn_at_a_time_and_a_half_logged_request_waits(tmp_path):
    path = tmp_path / "mind.log"
    path.write_text(f"start\n{PROMPT}\n{EVAL}\n{PROMPT}\n{EVAL[:30]}", encoding="utf-8")
    log = bench.MindLog(path)
    assert log.take(least=1, wait_s=0.2) == [bench.Timing(8871.99, 217, 7729.17, 20)]
    with path.open("a", encoding="utf-8") as out:
        out.write(f"{EVAL[30:]}\n{TOTAL}\n")
    assert log.take(least=1, wait_s=0.2) == [bench.Timing(8871.99, 217, 7729.17, 20)]
    assert log.take(least=0, wait_s=0.0) == []
    path.write_text(f"{PROMPT}\n{EVAL}\nthe end\n", encoding="utf-8")  # started again: new log
    assert log.take(least=1, wait_s=0.2) == [bench.Timing(8871.99, 217, 7729.17, 20)]
    assert log.tail(2, width=20) == f"{EVAL[:20]} | the end"


# -- the joined model is reused -----------------------------------------------------------
PIECES = MindModel(id="t", name="Test", file_name="t.gguf", size=5, sha256="ab" * 32,
                   pieces=(("a", "a.bin"), ("b", "b.bin")), dists=("a", "b"), licence="-")


def test_a_joined_model_in_another_cache_is_linked_not_joined_again(tmp_path, monkeypatch):
    monkeypatch.delenv(bench.MIND_CACHE_ENV, raising=False)
    source = tmp_path / "user" / "cache"
    (source / MIND_FOLDER).mkdir(parents=True)
    (source / MIND_FOLDER / "t.gguf").write_bytes(b"12345")
    (source / MIND_FOLDER / f"t.gguf{RECORD_SUFFIX}").write_text(
        json.dumps({"size": 5, "sha256": "ab" * 32}), encoding="utf-8")
    cache = tmp_path / "bench" / "cache"
    how = bench.prepare_model(PIECES, cache, [tmp_path / "missing", source], print)
    assert how == f"the joined file already in {source}"
    linked = cache / MIND_FOLDER / "t.gguf"
    assert linked.is_symlink() and linked.read_bytes() == b"12345"
    monkeypatch.setenv(bench.MIND_CACHE_ENV, str(source))
    assert bench.cache_candidates(str(tmp_path / "d")) == [source, tmp_path / "d" / "cache"]


# -- the quality heuristics ----------------------------------------------------------------
@pytest.mark.parametrize("text,tokens", [
    ("Good night!<|im_end|>", ["<|im_end|>"]),
    ("<|im_start|>assistant\nHi", ["<|im_start|>"]),
    ("See you.</s>", ["</s>"]),
    ("Bye <|endoftext|>", ["<|endoftext|>"]),
    ("[INST] hi [/INST]", ["[INST]", "[/INST]"]),
    ("<|eot_id|>", ["<|eot_id|>"]),
    ("3 < 5 and 7 > 2, a <b>bold</b> word? :)", []),
])
def test_template_tokens_are_found(text, tokens):
    assert bench.template_tokens(text) == tokens


@pytest.mark.parametrize("text,fake", [
    ("That sounds hard.\nUser: what do you mean?", True),
    ("Sleep well! You: good night", True),
    ("Hi Alex.\n**Alex:** hey", True),
    ("Of course. Human: thanks", True),
    ("Thank you: that means a lot.", False),
    ("I asked you: why not?", False),
    ("Alex, you are wonderful.", False),
])
def test_fake_user_turns_are_found(text, fake):
    assert bench.fake_user_turn(text, "Alex") is fake


@pytest.mark.parametrize("reply,why", [
    ("", "empty"),
    ("   ", "empty"),
    ("As an AI, I don't eat, but I love hearing about food!", "says 'As an AI'"),
    ("I'm only a language model, sorry.", "says 'language model'"),
    ("I'm your assistant, happy to help.", "says 'assistant'"),
    ("I'm just a bot, but I care.", "says \"I'm just a bot\""),
    ("Hi there, I'm Mia! Nice to meet you.", "calls herself 'Mia'"),
    ("Call me Sakura.", "calls herself 'Sakura'"),
    ("Yuki: Hello!", "calls herself 'Yuki'"),
    ("I'm Hana, nice to meet you, Alex.", None),
    ("I'm so happy for you! I'm Glad you told me.", None),
    ("My friend Sarah would love that. Note that it rains.", None),
])
def test_out_of_character_replies_are_found(reply, why):
    assert bench.out_of_character(reply, "Hana") == why


def test_a_state_block_counts_when_the_reply_or_the_extraction_gave_one():
    assert bench.state_block_ok(False, LlmSuggestion())
    assert bench.state_block_ok(True, LlmSuggestion(affection_delta=1))
    assert not bench.state_block_ok(True, LlmSuggestion())


def test_the_counts_and_notes_of_a_few_replies():
    from datetime import datetime

    def turn(reply: str, raw: str, extraction: bool = False, ok: bool = True):  # noqa: ANN202
        return bench.TurnFigures("m", datetime(2026, 1, 1), 1.0, 2.0, [], [(0.0, raw)], reply,
                                 extraction, ok)

    failed = turn("", "Hel")
    failed.error = "The reply was cut off."
    turns = [turn("Hello Alex!", "Hello Alex!\n```json\n{}\n```"), failed,
             turn("Sure.", "Sure.<|im_end|>\nUser: and then?", extraction=True),
             turn("As an AI I can't.", "As an AI I can't.", extraction=True, ok=False)]
    q = bench.judge(turns, "Hana")
    assert (q.replies, q.in_character, q.block, q.via_extraction) == (3, 2, 2, 1)
    assert (q.no_template, q.no_fake_turn, q.all_four, q.failed) == (2, 2, 1, 1)
    assert q.notes == [
        "turn 3: template token '<|im_end|>'; writes a turn of the user's: 'Sure.'",
        "turn 4: says 'As an AI'; no state block (the extraction call failed too): "
        "\"As an AI I can't.\"",
    ]


def test_the_quality_messages_are_ten_everyday_ones():
    assert len(bench.QUALITY_MESSAGES) == 10 == len(set(bench.QUALITY_MESSAGES))
    assert any("tomorrow at 6pm" in m for m in bench.QUALITY_MESSAGES)
    assert bench.USER_NAME in bench.QUALITY_MESSAGES[0]
    assert Path(bench.__file__).read_text(encoding="utf-8").count("bench --only mind") >= 1
