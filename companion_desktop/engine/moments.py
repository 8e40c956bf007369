"""Generated moments (spec "Generated Moments"): the prompt, memory selection and validation.

The chat model may rewrite a scene's intro, dialogue, choice lines (and their
responses) and outro. Structure never changes: the static scene is the template,
so choices keep their count and order and every state change, next scene, unlock
and completion record comes from it. Output that breaks a rule is rejected and the
built-in scene plays. Pure: standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .card_text import fill_macros
from .events.model import (
    MAX_CHOICE,
    MAX_DIALOGUE,
    MAX_NARRATION,
    MAX_RESPONSE,
    EventDefinition,
    Scene,
)

MAX_MEMORIES = 8
MEMORY_POOL = 40
RECENT_MESSAGES = 4
TIMEOUT_S = 15.0
_FIRST = {"shared_experience": 0, "relationship": 1}


def pick_memories(facts: Sequence[tuple[str, str, float]]) -> list[str]:
    """Up to 8 of the 40 most important (content, category, importance) facts, shared
    experiences and relationship facts first."""
    top = sorted(facts, key=lambda f: -f[2])[:MEMORY_POOL]
    ranked = sorted(top, key=lambda f: (_FIRST.get(f[1], 2), -f[2]))
    return [content for content, _category, _importance in ranked[:MAX_MEMORIES]]


def moment_prompt(event: EventDefinition, *, name: str, persona: str, mode: str, stage: str,
                  mood: str, days_known: int, conversations: int, memories: Sequence[str],
                  recent_messages: Sequence[str]) -> tuple[str, str]:
    """(system, user) asking for the scene rewritten as one JSON object."""
    scene = event.scene
    if scene is None:
        raise ValueError(f"event {event.id!r} has no scene to write")
    template = {
        "intro": scene.intro, "dialogue": scene.dialogue, "outro": scene.outro,
        "choices": [{"text": c.text, "response": c.response} for c in scene.choices],
    }
    system = (
        f"You write one short scene for {name}, a desktop companion. Persona: "
        f"{fill_macros(persona, name, None)[:1500]}\n"
        "Rewrite the template's lines in her voice for this moment. Keep the same number of "
        "choices in the same order and the same meaning for each choice. Mention shared history "
        "only from the memories given; never invent past events. Write in the language of the "
        "recent messages. Reply with only a JSON object with the keys intro, dialogue, outro and "
        f"choices (a list of {{text, response}}). Limits: intro/outro {MAX_NARRATION} characters, "
        f"dialogue {MAX_DIALOGUE}, choice text {MAX_CHOICE}, response {MAX_RESPONSE}."
    )
    context = {
        "event": event.name, "mode": mode, "stage": stage, "mood": mood,
        "days_known": days_known, "conversations": conversations,
        "memories": list(memories)[:MAX_MEMORIES],
        "recent_messages": list(recent_messages)[-RECENT_MESSAGES:],
        "template": template,
    }
    return system, json.dumps(context, ensure_ascii=False)


def _text(value: Any, limit: int) -> str | None:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > limit:
        return None
    return value.strip()


def apply_written_scene(event: EventDefinition, written: Any) -> EventDefinition | None:
    """The event with the model's lines on the template's structure, or None when the
    output fails validation (missing dialogue, a missing intro/outro the template has,
    a different number of choices, or text over the caps)."""
    scene = event.scene
    if scene is None or not isinstance(written, dict):
        return None
    dialogue = _text(written.get("dialogue"), MAX_DIALOGUE)
    if dialogue is None:
        return None
    parts: dict[str, str | None] = {}
    for key in ("intro", "outro"):
        if getattr(scene, key):
            parts[key] = _text(written.get(key), MAX_NARRATION)
            if parts[key] is None:
                return None
        else:
            parts[key] = None
    lines = written.get("choices")
    if not isinstance(lines, list) or len(lines) != len(scene.choices):
        return None
    choices = []
    for template, line in zip(scene.choices, lines, strict=True):
        if not isinstance(line, dict):
            return None
        text, response = (_text(line.get("text"), MAX_CHOICE),
                          _text(line.get("response"), MAX_RESPONSE))
        if text is None or response is None:
            return None
        choices.append(replace(template, text=text, response=response))
    new_scene: Scene = replace(scene, dialogue=dialogue, intro=parts["intro"], outro=parts["outro"],
                               choices=choices)
    return replace(event, scene=new_scene)
