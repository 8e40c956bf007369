"""Time-based events: mornings, late nights, weekends, coming back. Our own text."""

from __future__ import annotations

from .model import Condition as C
from .model import EventDefinition as E
from .model import Scene as S
from .model import SceneChoice as Ch

DATING = C("mode_is", "dating_sim")

TIME_BASED_EVENTS: list[E] = [
    E(
        id="morning_greeting",
        name="Good Morning",
        type="scheduled",
        conditions=[
            DATING,
            C("stage_at_least", "acquaintance"),
            C("hour_between", [6, 10]),
            C("chance", 0.25),
        ],
        scene=S(
            id="morning_greeting_scene",
            intro="Hana stretches with a huge yawn, hair sticking up on one side.",
            dialogue=(
                "Good morning! Or good 'is it morning already', depending on how you slept. Did "
                "you sleep okay? What's the plan for today?"
            ),
            choices=[
                Ch(
                    "Slept great. Big day ahead.",
                    "Then go get it. I'll be right here cheering, quietly, in the corner.",
                    {"affection": 2, "comfort": 1},
                ),
                Ch(
                    "Not enough sleep. Need coffee.",
                    "Coffee first, conversation second. I understand the rules.",
                    {"comfort": 2, "mood": {"emotion": "playful", "intensity_delta": 5}},
                ),
                Ch(
                    "Better now that you're here.",
                    "Morning flattery? Bold. I love it.",
                    {"affection": 3},
                ),
            ],
            outro="She smooths down her hair, ready for the day with you.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=1,
        priority=20,
    ),
    E(
        id="late_night_chat",
        name="Late Night Chat",
        type="scheduled",
        conditions=[
            DATING,
            C("stage_at_least", "friend"),
            C("hour_between", [23, 3]),
            C("chance", 0.25),
        ],
        scene=S(
            id="late_night_chat_scene",
            intro=(
                "The screen has gone soft and dim. Hana is wrapped in a blanket, speaking a little "
                "more quietly than usual."
            ),
            dialogue=(
                "It's really late, you know. I'm not scolding you, I like the late-night version "
                "of you. Everything feels more honest after midnight. What's keeping you up?"
            ),
            choices=[
                Ch(
                    "Just thinking about things.",
                    "Want to think out loud? I'm a very good late-night listener.",
                    {"intimacy": 2, "trust": 2},
                ),
                Ch(
                    "You, obviously.",
                    "Me? At this hour? You're dangerous after midnight.",
                    {"affection": 3, "mood": {"emotion": "playful", "intensity_delta": 10}},
                ),
                Ch(
                    "Nothing. I should sleep.",
                    "You should. Goodnight, then. I'll be here in the morning.",
                    {"comfort": 2, "respect": 1},
                ),
            ],
            outro="The night feels a little less lonely with her in it.",
            expression_override="relaxed",
        ),
        one_time=False,
        cooldown_days=2,
        priority=22,
    ),
    E(
        id="weekend_plans",
        name="Weekend Plans",
        type="scheduled",
        conditions=[DATING, C("weekday_in", [5]), C("hour_between", [9, 21]), C("chance", 0.3)],
        scene=S(
            id="weekend_plans_scene",
            intro="Hana bounces a little in place. It's Saturday and she clearly knows it.",
            dialogue=(
                "It's the weekend! Do you have big plans? Tiny plans? A heroic plan to do "
                "absolutely nothing? All valid. I just want to hear about it."
            ),
            choices=[
                Ch(
                    "Going out with friends.",
                    "Have so much fun. Tell me everything later, and I mean everything.",
                    {"affection": 2, "trust": 1},
                ),
                Ch(
                    "Doing absolutely nothing.",
                    "The finest plan. A classic. I'll help supervise the nothing.",
                    {"comfort": 2, "affection": 1},
                ),
            ],
            outro="She settles in, ready for a slower, sunnier kind of day.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=6,
        priority=18,
    ),
    E(
        id="sunday_slow_morning",
        name="Slow Sunday",
        type="scheduled",
        conditions=[
            DATING,
            C("stage_at_least", "friend"),
            C("weekday_in", [6]),
            C("hour_between", [8, 13]),
            C("chance", 0.3),
        ],
        scene=S(
            id="sunday_slow_morning_scene",
            intro="Hana is curled up with an oversized mug, clearly in no hurry whatsoever.",
            dialogue=(
                "Sundays are for slow mornings. No rushing allowed. Sit with me for a bit? We can "
                "talk about nothing in particular."
            ),
            choices=[
                Ch(
                    "Nothing in particular sounds perfect.",
                    "Good. I'll start. Clouds: overrated or underrated?",
                    {"comfort": 3, "affection": 1},
                ),
                Ch(
                    "I've got chores, but five minutes.",
                    "Five minutes of slow Sunday is still a slow Sunday.",
                    {"affection": 2, "respect": 1},
                ),
            ],
            outro="The morning drifts by, gentle and unhurried.",
            expression_override="relaxed",
        ),
        one_time=False,
        cooldown_days=6,
        priority=17,
    ),
    E(
        id="friday_evening",
        name="Friday Evening",
        type="scheduled",
        conditions=[DATING, C("weekday_in", [4]), C("hour_between", [17, 23]), C("chance", 0.3)],
        scene=S(
            id="friday_evening_scene",
            intro="Hana throws her arms up like she just crossed a finish line.",
            dialogue=(
                "You made it to Friday evening! The week is done, or at least the week has lost "
                "its power over you. How are you celebrating?"
            ),
            choices=[
                Ch(
                    "Takeout and a movie.",
                    "A timeless ritual. Pick something cosy for me too.",
                    {"affection": 2, "comfort": 2},
                ),
                Ch(
                    "Collapsing, mostly.",
                    "Honourable. Collapse away. You've earned it.",
                    {"comfort": 2, "trust": 1},
                ),
            ],
            outro="She does a tiny victory dance on your behalf.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=6,
        priority=16,
    ),
    E(
        id="welcome_back",
        name="Welcome Back",
        type="conditional",
        conditions=[DATING, C("stage_at_least", "acquaintance"), C("hours_away_at_least", 48)],
        scene=S(
            id="welcome_back_scene",
            intro="Hana looks up, and her whole face lights up when she sees you.",
            dialogue=(
                "You're back! I missed you. I kept thinking of things to tell you and then you "
                "weren't here, so now I have a whole backlog. Are you okay? How have you been?"
            ),
            choices=[
                Ch(
                    "Sorry, it's been a busy few days.",
                    "No need to apologise. I'm just happy you're here now.",
                    {"affection": 3, "comfort": 2},
                ),
                Ch(
                    "I missed you too.",
                    "You did? Okay, that fixes everything. Completely.",
                    {"affection": 4, "intimacy": 1},
                ),
            ],
            outro="She scoots a little closer, as if to make sure you don't vanish again.",
            expression_override="happy",
        ),
        state_changes={"mood": {"emotion": "happy", "intensity_delta": 10}},
        one_time=False,
        cooldown_days=2,
        priority=35,
    ),
]
