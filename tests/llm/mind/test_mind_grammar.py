"""The grammar that holds a small model to her reply format: a few sentences on one
line, then the JSON block on one line. Every string it allows (sampled from the grammar
itself, seeded) parses with its block; the small model's replies under it do too."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

import httpx
import pytest

from companion_desktop.engine.character import EMOTIONS
from companion_desktop.engine.parse import parse_response
from companion_desktop.engine.prompt import block_fields
from companion_desktop.engine.state_updates import LLM_CLAMPS, LlmSuggestion
from companion_desktop.llm.mind.grammar import ENDS, MAX_SENTENCES, block_grammar
from companion_desktop.llm.mind.host import MindHost
from companion_desktop.llm.mind.models import SMALL

SHAPES = [("dating_sim", True), ("dating_sim", False), ("companion", True),
          ("companion", False)]
#: A reply as the grammar shapes it: one line of words, the block on one line.
REPLY = re.compile(r"(?P<text>[^\n`{}]+)\n```json\n(?P<block>\{[^\n]*\})\n```")


# -- a sampler for the grammar (the subset of GBNF that block_grammar writes) -----------
@dataclass
class Node:
    kind: str  # lit, cls, ref, alt, seq, rep
    value: object = None
    items: tuple[Node, ...] = ()
    low: int = 0
    high: int = 0


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
#: What a negated character class draws from: printable ASCII, a tab, a few others.
_POOL = [chr(c) for c in range(32, 127)] + ["\t", "é", "ß", "日", "本", "—", "😊"]


class Grammar:
    def __init__(self, text: str) -> None:
        self.rules: dict[str, Node] = {}
        for line in text.splitlines():
            if line.strip():
                name, body = line.split(" ::= ", 1)
                self.text, self.at = body, 0
                self.rules[name] = self._alternatives()
                assert self.at == len(body), f"unread grammar: {body[self.at:]!r}"

    def _peek(self) -> str:
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1
        return self.text[self.at] if self.at < len(self.text) else ""

    def _alternatives(self) -> Node:
        options = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            options.append(self._sequence())
        return options[0] if len(options) == 1 else Node("alt", items=tuple(options))

    def _sequence(self) -> Node:
        items = []
        while self._peek() not in ("", "|", ")"):
            items.append(self._quantified(self._atom()))
        return Node("seq", items=tuple(items))

    def _atom(self) -> Node:
        char = self._peek()
        if char == '"':
            end = self.at + 1
            while self.text[end] != '"':
                end += 2 if self.text[end] == "\\" else 1
            literal, self.at = json.loads(self.text[self.at:end + 1]), end + 1
            return Node("lit", literal)
        if char == "[":
            return self._char_class()
        if char == "(":
            self.at += 1
            inner = self._alternatives()
            assert self._peek() == ")"
            self.at += 1
            return inner
        name = re.match(r"[a-z0-9_-]+", self.text[self.at:])
        assert name, f"unknown grammar at {self.text[self.at:]!r}"
        self.at += name.end()
        return Node("ref", name.group())

    def _char_class(self) -> Node:
        self.at += 1
        negated = self.text[self.at] == "^"
        self.at += negated
        chars: list[str] = []
        while self.text[self.at] != "]":
            char = self.text[self.at]
            if char == "\\":
                char = _ESCAPES.get(self.text[self.at + 1], self.text[self.at + 1])
                self.at += 1
            self.at += 1
            if self.text[self.at] == "-" and self.text[self.at + 1] != "]":
                last = self.text[self.at + 1]
                chars += [chr(c) for c in range(ord(char), ord(last) + 1)]
                self.at += 2
            else:
                chars.append(char)
        self.at += 1
        return Node("cls", (negated, frozenset(chars)))

    def _quantified(self, node: Node) -> Node:
        char = self.text[self.at] if self.at < len(self.text) else ""
        if char == "?":
            self.at += 1
            return Node("rep", items=(node,), low=0, high=1)
        if char == "{":
            end = self.text.index("}", self.at)
            low, _, high = self.text[self.at + 1:end].partition(",")
            self.at = end + 1
            return Node("rep", items=(node,), low=int(low), high=int(high or low))
        return node

    def sample(self, rng: random.Random, node: Node | None = None) -> str:
        node = node or self.rules["root"]
        if node.kind == "lit":
            return str(node.value)
        if node.kind == "ref":
            return self.sample(rng, self.rules[str(node.value)])
        if node.kind == "alt":
            return self.sample(rng, rng.choice(node.items))
        if node.kind == "seq":
            return "".join(self.sample(rng, item) for item in node.items)
        if node.kind == "rep":
            count = rng.choice([node.low, node.high, rng.randint(node.low, node.high),
                                min(node.high, node.low + 3)])
            return "".join(self.sample(rng, node.items[0]) for _ in range(count))
        negated, chars = node.value  # type: ignore[misc]
        allowed = [c for c in _POOL if c not in chars] if negated else sorted(chars)
        return rng.choice(allowed)


# -- checks -------------------------------------------------------------------------------
def keys(mode: str, animations: bool) -> list[str]:
    return [key for key, kind in block_fields(mode, animations) if kind != "null"]


def check_reply(raw: str, mode: str, animations: bool) -> LlmSuggestion:
    """``raw`` has her reply's shape, and its block parses with values in bounds."""
    shape = REPLY.fullmatch(raw)
    assert shape, f"not her reply's shape: {raw!r}"
    text = shape["text"]  # sentences, each ending in a run of end marks
    assert text[-1] in ENDS and 1 <= len(re.findall(f"[{ENDS}]+", text)) <= MAX_SENTENCES
    block = json.loads(shape["block"], strict=False)
    assert list(block) == keys(mode, animations)
    parsed = parse_response(raw, "Hana")
    assert parsed.has_block and parsed.block == block and parsed.text
    s = parsed.suggestion
    assert s.mood_change is not None and s.mood_change.emotion in EMOTIONS
    assert abs(s.mood_change.intensity_delta) <= LLM_CLAMPS["intensity_delta"]
    assert s.expression is None or s.expression in EMOTIONS
    for stat in ("affection", "trust", "intimacy", "comfort"):
        value = getattr(s, f"{stat}_delta")
        assert (value is None) is (mode == "companion")
        assert value is None or abs(value) <= LLM_CLAMPS[f"{stat}_delta"]
    assert ("action" in block) is animations
    assert s.triggered_event is None
    return s


@pytest.mark.parametrize(("mode", "animations"), SHAPES)
def test_the_grammar_names_every_field_but_the_event(mode: str, animations: bool) -> None:
    grammar = block_grammar(block_fields(mode, animations))
    assert "triggered_event" not in grammar
    named = re.findall(r'\\"([a-z_]+)\\": " \(', grammar)
    assert named == keys(mode, animations)
    assert set(Grammar(grammar).rules) >= {"root", "text", "sentence", "block", "int"}


@pytest.mark.parametrize(("mode", "animations"), SHAPES)
def test_every_reply_the_grammar_allows_parses(mode: str, animations: bool) -> None:
    grammar = Grammar(block_grammar(block_fields(mode, animations)))
    rng = random.Random(f"{mode}-{animations}")
    for _ in range(300):
        check_reply(grammar.sample(rng), mode, animations)


def test_numbers_have_no_leading_zero() -> None:
    """JSON has no 07: a block with one would not parse (and her turn would need the
    extraction call)."""
    grammar = Grammar(block_grammar(block_fields("dating_sim", False)))
    rng = random.Random(7)
    numbers = {grammar.sample(rng, grammar.rules["int"]) for _ in range(2000)}
    assert {"0", "-0", "7", "-7", "10", "99", "-99"} <= numbers
    assert not any(re.fullmatch(r"-?0\d", n) for n in numbers)


@pytest.mark.parametrize(("mode", "animations"), [("dating_sim", True), ("companion", False)])
def test_the_small_model_writes_her_reply_shape(mind: MindHost, mode: str,
                                                animations: bool) -> None:
    grammar = block_grammar(block_fields(mode, animations))
    system = ("You are Hana, a warm and playful companion. Reply in one or two short "
              "sentences, then the JSON block.")
    with mind.use(SMALL) as running:
        reply = httpx.post(f"{running.url}/v1/chat/completions", timeout=180, json={
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": "I finally finished my painting!"}],
            "grammar": grammar, "seed": 25, "temperature": 0.8, "repeat_penalty": 1.1})
    assert reply.status_code == 200, reply.text
    check_reply(reply.json()["choices"][0]["message"]["content"], mode, animations)
