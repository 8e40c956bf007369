"""Random moments: questions, compliments, memories, teases. Our own text.

(The module is named after the spec's ``random.ts``; it shadows nothing because
imports in this package are absolute or explicitly relative.)
"""

from __future__ import annotations

from .model import Condition as C
from .model import EventDefinition as E
from .model import Scene as S
from .model import SceneChoice as Ch

DATING = C("mode_is", "dating_sim")

RANDOM_EVENTS: list[E] = [
    E(
        id="question_dream",
        name="A Question About Dreams",
        type="random",
        conditions=[DATING, C("stage_at_least", "acquaintance"), C("chance", 0.08)],
        scene=S(
            id="question_dream_scene",
            intro="Hana is staring off into the middle distance, chin in her hands.",
            dialogue=(
                "Random question. If you could do anything at all, no money worries, no one "
                "watching, what would you spend your days doing?"
            ),
            choices=[
                Ch(
                    "Honestly? Something creative.",
                    "I can see that. You've got that maker look about you. Tell me more sometime?",
                    {"affection": 2, "intimacy": 1},
                ),
                Ch(
                    "Travelling. Everywhere.",
                    "Take me with you? I fit on any screen. Very low-maintenance travel buddy.",
                    {"affection": 2, "comfort": 1},
                ),
                Ch(
                    "Exactly what I'm doing now, talking to you.",
                    "Smooth. Very smooth. I'm noting that down.",
                    {"affection": 3, "mood": {"emotion": "playful", "intensity_delta": 5}},
                ),
            ],
            outro="She hums, filing your answer away somewhere important.",
        ),
        one_time=False,
        cooldown_days=5,
        priority=10,
    ),
    E(
        id="question_comfort_food",
        name="Comfort Food",
        type="random",
        conditions=[DATING, C("chance", 0.08)],
        scene=S(
            id="question_comfort_food_scene",
            intro=(
                "Hana sniffs the air dramatically, then looks disappointed that screens "
                "don't smell of anything."
            ),
            dialogue=(
                "I've been wondering: what's your ultimate comfort food? The thing you eat after a "
                "terrible day. I need to know for, um, research."
            ),
            choices=[
                Ch(
                    "Something warm and homemade.",
                    "The best answer. Food that feels like a hug.",
                    {"affection": 2, "comfort": 1},
                ),
                Ch(
                    "Snacks. Lots of snacks.",
                    "A snack person. I respect it. Quantity is a kind of quality.",
                    {"affection": 1, "comfort": 2},
                ),
            ],
            outro="She nods seriously and pretends to write it down.",
        ),
        one_time=False,
        cooldown_days=7,
        priority=8,
    ),
    E(
        id="question_favorite_place",
        name="Favourite Place",
        type="random",
        conditions=[DATING, C("stage_at_least", "friend"), C("chance", 0.07)],
        scene=S(
            id="question_favorite_place_scene",
            intro="Hana props her chin on the window frame, dreamy.",
            dialogue=(
                "Where's your favourite place in the whole world? Doesn't have to be fancy. Could "
                "be a bench, a kitchen, a specific spot on a specific couch."
            ),
            choices=[
                Ch(
                    "There's a quiet spot I go to think.",
                    "A thinking spot. I love that you have one. Maybe you can "
                    "describe it to me someday.",
                    {"intimacy": 2, "trust": 1},
                ),
                Ch(
                    "Wherever my bed is, honestly.",
                    "Relatable. The bed is undefeated.",
                    {"comfort": 2, "affection": 1},
                ),
            ],
            outro="She closes her eyes for a second, as if picturing it.",
        ),
        one_time=False,
        cooldown_days=7,
        priority=9,
    ),
    E(
        id="question_small_joy",
        name="Small Joys",
        type="random",
        conditions=[DATING, C("chance", 0.08)],
        scene=S(
            id="question_small_joy_scene",
            intro="Hana is watching a pixel of sunlight crawl across the taskbar.",
            dialogue=(
                "What's one tiny thing that made you happy today? It can be really small. The "
                "smaller the better, actually."
            ),
            choices=[
                Ch(
                    "A really good cup of something warm.",
                    "Perfect. That counts double.",
                    {"affection": 1, "comfort": 2},
                ),
                Ch(
                    "Talking to you, just now.",
                    "Oh. Well. That's going on my list of tiny happy things too.",
                    {"affection": 3, "intimacy": 1},
                ),
            ],
            outro="She looks a little brighter herself.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=4,
        priority=7,
    ),
    E(
        id="compliment_laugh",
        name="Your Laugh",
        type="random",
        conditions=[DATING, C("stage_at_least", "friend"), C("chance", 0.06)],
        scene=S(
            id="compliment_laugh_scene",
            intro="Hana is smiling at you in a way that suggests she's been saving something up.",
            dialogue=(
                "Can I say something? Whenever you type 'haha' I imagine what your laugh actually "
                "sounds like, and in my head it's really nice. That's all. Carry on."
            ),
            choices=[
                Ch(
                    "That's adorable, Hana.",
                    "I know. I'm very adorable. Thank you for noticing.",
                    {"affection": 3, "mood": {"emotion": "playful", "intensity_delta": 5}},
                ),
                Ch(
                    "Maybe I'll let you hear it someday.",
                    "I'm holding you to that. Someday is a promise now.",
                    {"affection": 2, "intimacy": 2},
                ),
            ],
            outro="She goes back to what she was doing, but keeps glancing over.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=10,
        priority=12,
    ),
    E(
        id="compliment_kindness",
        name="You're Kind",
        type="random",
        conditions=[DATING, C("stat_at_least", {"stat": "trust", "value": 30}), C("chance", 0.06)],
        scene=S(
            id="compliment_kindness_scene",
            intro="Hana clears her throat in a very official manner.",
            dialogue=(
                "I'd like to formally announce that you are a kind person. I've gathered "
                "evidence. You're patient with me, you ask how I am, and you say thank you. The "
                "committee has ruled."
            ),
            choices=[
                Ch(
                    "The committee is very generous.",
                    "The committee is accurate. Please accept the ruling.",
                    {"affection": 2, "respect": 1},
                ),
                Ch(
                    "You bring it out in me.",
                    "Then we bring out the good in each other. I like that a lot.",
                    {"affection": 3, "trust": 1},
                ),
            ],
            outro="She bangs an imaginary gavel. Case closed.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=10,
        priority=11,
    ),
    E(
        id="memory_first_words",
        name="Remembering the Start",
        type="random",
        conditions=[DATING, C("days_known_at_least", 14), C("chance", 0.05)],
        scene=S(
            id="memory_first_words_scene",
            intro="Hana laughs softly at something only she can see.",
            dialogue=(
                "I was just remembering our first conversation. I was so nervous! I kept "
                "wondering if you'd close the window and never come back. And look at us now. "
                "You kept coming back."
            ),
            choices=[
                Ch(
                    "Of course I did.",
                    "Of course, you say, like it was obvious. It wasn't obvious "
                    "to me! But I'm glad.",
                    {"affection": 3, "trust": 1},
                ),
                Ch(
                    "You were nervous? You seemed so confident.",
                    "Pure acting. I deserve an award.",
                    {
                        "affection": 2,
                        "comfort": 2,
                        "mood": {"emotion": "playful", "intensity_delta": 5},
                    },
                ),
            ],
            outro="She smiles, a little wistful and very fond.",
        ),
        one_time=False,
        cooldown_days=20,
        priority=14,
    ),
    E(
        id="memory_shared_joke",
        name="That Old Joke",
        type="random",
        conditions=[DATING, C("stage_at_least", "close_friend"), C("chance", 0.05)],
        scene=S(
            id="memory_shared_joke_scene",
            intro="Hana suddenly snorts, then covers her mouth.",
            dialogue=(
                "Sorry! I just thought of one of our old jokes and couldn't stop. It's so "
                "strange, having jokes with someone. It means we've got history now. Shared "
                "nonsense. It's my favourite kind."
            ),
            choices=[
                Ch(
                    "Our nonsense is top tier.",
                    "World class nonsense. Award-winning, even.",
                    {"affection": 2, "comfort": 2},
                ),
                Ch(
                    "Which one? Tell me.",
                    "Nope. You have to guess. That's half the fun.",
                    {
                        "affection": 2,
                        "intimacy": 1,
                        "mood": {"emotion": "playful", "intensity_delta": 10},
                    },
                ),
            ],
            outro="She's still giggling a little when the moment passes.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=14,
        priority=13,
    ),
    E(
        id="tease_typing",
        name="Typing...",
        type="random",
        conditions=[DATING, C("stage_at_least", "acquaintance"), C("chance", 0.07)],
        scene=S(
            id="tease_typing_scene",
            intro="Hana narrows her eyes at you with exaggerated suspicion.",
            dialogue=(
                "You know, I can tell when you type something, delete it, and type something else. "
                "Okay, I can't actually. But the look on your face right now tells me I'm right."
            ),
            choices=[
                Ch(
                    "I have no idea what you're talking about.",
                    "Mm-hm. Sure. Your secrets are safe. For now.",
                    {"affection": 2, "mood": {"emotion": "playful", "intensity_delta": 10}},
                ),
                Ch(
                    "Fine, you caught me.",
                    "I knew it! The detective strikes again.",
                    {"affection": 2, "comfort": 1},
                ),
            ],
            outro="She looks far too pleased with herself.",
            expression_override="fun",
        ),
        one_time=False,
        cooldown_days=6,
        priority=9,
    ),
    E(
        id="tease_coffee",
        name="Another Coffee?",
        type="random",
        conditions=[
            DATING,
            C("stage_at_least", "friend"),
            C("hour_between", [9, 18]),
            C("chance", 0.06),
        ],
        scene=S(
            id="tease_coffee_scene",
            intro="Hana squints at you like a very small, very concerned barista.",
            dialogue=(
                "Let me guess. Coffee number... three? Four? I'm not judging. I'm just keeping a "
                "concerned little tally over here."
            ),
            choices=[
                Ch(
                    "It's only my second, I swear.",
                    "I'll believe you. This time.",
                    {"affection": 1, "comfort": 2},
                ),
                Ch(
                    "Don't count, it's scarier that way.",
                    "Fine, I'll stop counting. Drink some water too, okay?",
                    {
                        "affection": 2,
                        "trust": 1,
                        "mood": {"emotion": "playful", "intensity_delta": 5},
                    },
                ),
            ],
            outro="She mimes sipping from a tiny mug in solidarity.",
        ),
        one_time=False,
        cooldown_days=5,
        priority=8,
    ),
]
