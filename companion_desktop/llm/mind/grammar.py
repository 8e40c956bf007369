"""A GBNF grammar that holds a small model to her reply format: her words, then the block.

llama.cpp samples only what a grammar allows, so a 1.5B model cannot forget the JSON block
or mangle it: her words (a few sentences on one line; no backticks or braces, which would
open a block early, and no angle brackets: a small model otherwise starts by echoing the
prompt's <tags>), then
``\\n```json\\n{`` and the block's fields in the prompt's order, each value of its kind
(``engine.prompt.block_fields``), on one line: a CPU writes about ten tokens a second, and
the block's line breaks and indents cost a fifth of its tokens. A field that is always
null (``triggered_event``: the app runs events) is left out. Strings are short; numbers
are one or two digits (the app bounds them anyway).
"""

from __future__ import annotations

import json

from companion_desktop.engine.character import EMOTIONS

#: Her words before the block: at most this many sentences of at most MAX_SENTENCE
#: characters, on one line (a small model that may start a new line soon writes the
#: user's next message itself, or rambles for a minute). Three, as her rules ask: on a
#: CPU each sentence is seconds of waiting, and with five a small model wrote five.
MAX_SENTENCES = 3
MAX_SENTENCE = 240
#: What ends a sentence (Latin and CJK punctuation).
ENDS = ".!?。！？…"
MAX_STRING = 200
_VALUES = {
    "delta": "int",
    "text": '"null" | string',
    "null": '"null"',
    "emotion": '"null" | "\\"" emotion "\\""',
    "action": '"null" | "\\"" [a-z0-9_-]{1,64} "\\""',
    "reference": '"null" | "{\\"type\\": \\"" reftype "\\", \\"content\\": " string "}"',
    "mood": '"{\\"emotion\\": \\"" emotion "\\", \\"intensity_delta\\": " int "}"',
}


def _literal(text: str) -> str:
    return json.dumps(text)  # a GBNF literal is a double-quoted string, JSON-escaped


def block_grammar(fields: list[tuple[str, str]]) -> str:
    """The grammar for a reply whose block has ``fields`` ((key, kind) in order)."""
    fields = [(key, kind) for key, kind in fields if kind != "null"]
    lines = []
    for index, (key, kind) in enumerate(fields):
        comma = ", " if index else ""
        lines.append(f"{_literal(f'{comma}{json.dumps(key)}: ')} ({_VALUES[kind]})")
    emotions = " | ".join(_literal(e) for e in EMOTIONS)
    return "\n".join([
        'root ::= text "\\n```json\\n{" block "}\\n```"',
        f"text ::= sentence{{1,{MAX_SENTENCES}}}",
        f'sentence ::= " "? [^`{{}}<>\\n{ENDS}]{{1,{MAX_SENTENCE}}} [{ENDS}]{{1,3}}',
        "block ::= " + " ".join(f"field{i}" for i in range(len(fields))),
        *(f"field{i} ::= {line}" for i, line in enumerate(lines)),
        f"emotion ::= {emotions}",
        'reftype ::= "jokes" | "nicknames" | "memories"',
        'int ::= "-"? ([0-9] | [1-9] [0-9])',  # JSON: no leading zero
        f'string ::= "\\"" ([^"\\\\\\n] | "\\\\" ["\\\\/nt]){{0,{MAX_STRING}}} "\\""',
    ]) + "\n"
