"""The save file (spec "Data Export and Import"), validated with pydantic.

Keys are the spec's camelCase; unknown keys (``soulPrompt``, ``id``s,
``embedding`` arrays, 3.x's ``data.settings``) are ignored. Types are strict: a
string where a number belongs is an error and a bool is not a number. Ranges:
energy, trust, intimacy, comfort, respect, mood intensity 0-100; affection
0-1000; importance 0-100; confidence 0-1; relationshipScore 0-100; counts >= 0.
Dates are ISO-8601 strings; one without an offset is read as UTC, and one that
does not fit in UTC (year 1 at +23:59) is refused. Text is capped as the app caps
its own (a memory at 1000 characters, her name at 60: see ``savefile_fields.CAPS``); JSON
objects (extensions, snapshots, metadata) at ``savefile_fields.MAX_JSON_CHARS`` and nesting
at ``MAX_DEPTH``. The field types are in ``savefile_fields``; the models here.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    ValidationError,
    model_serializer,
)
from pydantic.alias_generators import to_camel

from ..engine.character import APP_MODES, default_personality
from .savefile_fields import (
    Affection,
    Arc,
    Causes,
    Count,
    Date,
    Emotion,
    EventId,
    EventType,
    FactText,
    Json,
    ModelName,
    Name,
    NonNegative,
    Outcome,
    Percent,
    Reference,
    Source,
    Stage,
    Stat,
    Summary,
    SystemPrompt,
    Topic,
    TurnText,
    Unit,
    Version,
    Whole,
    choice,
    day,
    show,
)

FACT_CATEGORIES = ("user", "relationship", "shared_experience")
TURN_ROLES = ("user", "assistant", "system")
SUPPORTED_VERSIONS = "2.x and 3.x"
_VERSION = re.compile(r"[23](\.\d+)*")
#: Deepest nesting of arrays and objects a save file may have (ours is 6 deep).
MAX_DEPTH = 32


class SaveFileError(Exception):
    """A save file that cannot be read; the message names the problem and where.

    ``problems`` lists every problem found (the message shows the first).
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


class _Model(BaseModel):
    """camelCase keys, strict types, unknown keys ignored; None-valued OMIT keys not written."""

    model_config = ConfigDict(
        extra="ignore", strict=True, alias_generator=to_camel, populate_by_name=True
    )
    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _drop_absent(self, handler: Any) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if v is not None or k not in self.OMIT_IF_NONE}


class MoodModel(_Model):
    OMIT_IF_NONE = frozenset({"secondary"})
    primary: Emotion
    intensity: Stat
    secondary: Emotion | None = None
    causes: Causes = []


class CharacterModel(_Model):
    OMIT_IF_NONE = frozenset({"savedDatingSimStage", "lastDecayAt"})
    name: Name
    system_prompt: SystemPrompt
    extensions: Json = {}
    mood: MoodModel
    energy: Stat
    affection: Affection
    trust: Stat
    intimacy: Stat
    comfort: Stat
    respect: Stat
    app_mode: Annotated[str, choice("app mode", APP_MODES)] = "dating_sim"
    relationship_stage: Stage
    saved_dating_sim_stage: Stage | None = None
    personality: Json = default_personality()
    last_interaction: Date | None = None
    last_decay_at: Date | None = None
    first_met: Date
    days_known: Count = 0
    total_interactions: Count
    current_streak: Count = 0
    longest_streak: Count = 0
    streak_last_date: Annotated[str, AfterValidator(day)] | None = None
    completed_events: list[EventId] = []
    created_at: Date
    updated_at: Date


class FactModel(_Model):
    OMIT_IF_NONE = frozenset({"source", "lastAccessed", "embeddingModel"})
    content: FactText
    category: Annotated[str, choice("fact category", FACT_CATEGORIES)]
    importance: Percent = 50.0
    confidence: Unit = 0.8
    source: Source | None = None
    reference_count: Count = 0
    created_at: Date
    last_accessed: Date | None = None
    embedding_model: ModelName | None = None  # read but never used: vectors are rebuilt


class SessionModel(_Model):
    """The web app's SessionSummary; ``id`` only links turns to it within one file."""

    OMIT_IF_NONE = frozenset({"id", "summary", "emotionalArc", "stateSnapshot", "endedAt"})
    id: Whole | None = None
    summary: Summary | None = None
    key_topics: list[Topic] = []
    emotional_arc: Arc | None = None
    state_snapshot: Json | None = None
    message_count: Count = 0
    started_at: Date
    ended_at: Date | None = None


class TurnModel(_Model):
    OMIT_IF_NONE = frozenset({"sessionId", "metadata"})
    session_id: Whole | None = None
    role: Annotated[str, choice("turn role", TURN_ROLES)]
    content: TurnText
    metadata: Json | None = None
    created_at: Date


class CompletedEventModel(_Model):
    OMIT_IF_NONE = frozenset({"eventType", "choiceIndex", "outcome", "stateChanges"})
    event_id: EventId
    event_type: EventType | None = None
    choice_index: Count | None = None
    outcome: Outcome | None = None
    state_changes: Json | None = None
    completed_at: Date


class RelationshipModel(_Model):
    """Ours, not the web app's: the familiarity record (scope null = global)."""

    scope: Whole | None = None
    relationship_score: Percent = 0.0
    total_interactions: Count = 0
    positive_interactions: Count = 0
    negative_interactions: Count = 0
    avg_message_length: NonNegative = 0.0
    conversation_depth_avg: NonNegative = 0.0
    shared_references: dict[Topic, list[Reference]] = {}
    first_interaction_at: Date | None = None
    last_interaction_at: Date | None = None


class SaveData(_Model):
    OMIT_IF_NONE = frozenset({"character", "relationship"})
    character: CharacterModel | None = None
    facts: list[FactModel] = []
    sessions: list[SessionModel] = []
    conversation_turns: list[TurnModel] = []
    completed_events: list[CompletedEventModel] = []
    relationship: RelationshipModel | None = None


class SaveFile(_Model):
    """A whole save file; ``version`` is "2.x" or "3.x"."""

    version: str
    exported_at: Date | None = None
    app_version: Version | None = None
    data: SaveData


def check_version(raw: dict[str, Any]) -> None:
    """Refuse a missing, non-string or unsupported ``version`` before anything else."""
    if "version" not in raw:
        raise SaveFileError(f"save file has no version (this app reads {SUPPORTED_VERSIONS})")
    version = raw["version"]
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise SaveFileError(
            f"unknown save file version {show(version)} (this app reads {SUPPORTED_VERSIONS})"
        )


def parse_save(raw: Any) -> SaveFile:
    """Validate decoded JSON; raises SaveFileError naming the first problem."""
    if not isinstance(raw, dict):
        raise SaveFileError(f"a save file is a JSON object (got {show(raw)})")
    check_version(raw)
    check_depth(raw)
    try:
        return SaveFile.model_validate(raw)
    except ValidationError as error:
        raise SaveFileError(describe(error), problems(error)) from None
    except RecursionError:
        raise SaveFileError(f"save file is nested deeper than {MAX_DEPTH} levels") from None


def check_depth(raw: Any) -> None:
    """Refuse arrays and objects nested deeper than ``MAX_DEPTH`` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(raw, 1)]
    while stack:
        value, depth = stack.pop()
        children = (value.values() if isinstance(value, dict)
                    else value if isinstance(value, list) else ())
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > MAX_DEPTH:
                    raise SaveFileError(f"save file is nested deeper than {MAX_DEPTH} levels")
                stack.append((child, depth + 1))


_MESSAGES = {
    "missing": "is missing",
    "string_type": "must be text (got {got})",
    "bool_type": "must be true or false (got {got})",
    "list_type": "must be a list (got {got})",
    "dict_type": "must be an object (got {got})",
    "model_type": "must be an object (got {got})",
    "model_attributes_type": "must be an object (got {got})",
}


def _problem(problem: Any) -> str:
    template = _MESSAGES.get(problem["type"])
    message = template.format(got=show(problem.get("input"))) if template else problem["msg"]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in problem["loc"])
    return f"{where.lstrip('.') or 'save file'}: {message}"


def problems(error: ValidationError) -> list[str]:
    """Every problem as ``data.facts[3].importance: must be between 0 and 100 (got 150)``."""
    return [_problem(problem) for problem in error.errors()]


def describe(error: ValidationError) -> str:
    """The first problem, plus how many more there are."""
    found = problems(error)
    text = found[0]
    if len(found) > 1:
        more = len(found) - 1
        text += f" (and {more} more problem{'s' if more > 1 else ''})"
    return text
