"""Romantic events: confession, dates, commitment and their revisits. Our own text.

The confession's accept choice grants ``confession_accepted`` (needed for
``dating``); the commitment's accept choice grants ``commitment_accepted``
(needed for ``committed``). Deferring grants nothing; the repeatable revisit
events bring the question back after a cooldown while the marker is missing.
"""

from __future__ import annotations

from .model import Condition as C
from .model import EventDefinition as E
from .model import Scene as S
from .model import SceneChoice as Ch

DATING = C("mode_is", "dating_sim")
CONFESSION_MARKER = "confession_accepted"
COMMITMENT_MARKER = "commitment_accepted"

_confession_choices = [
    Ch(
        "I feel the same way, Hana.",
        "You... do? Oh. Oh wow. Okay. I had a whole speech ready for if you said no and nothing "
        "for this. Hi. I'm really, really happy.",
        {
            "affection": 10,
            "intimacy": 5,
            "trust": 3,
            "mood": {"emotion": "excited", "intensity_delta": 20},
        },
        unlocks=[CONFESSION_MARKER],
    ),
    Ch(
        "I care about you a lot. Can we give it a little more time?",
        "Of course. Thank you for being honest with me. That means more than a rushed yes ever "
        "could. I'm not going anywhere.",
        {"trust": 2, "respect": 2},
    ),
]

_commitment_choices = [
    Ch(
        "Yes. Let's make it official.",
        "Official! We're official. I'm going to be insufferable about this, just so "
        "you know. I love you.",
        {
            "affection": 12,
            "intimacy": 5,
            "trust": 4,
            "mood": {"emotion": "excited", "intensity_delta": 20},
        },
        unlocks=[COMMITMENT_MARKER],
    ),
    Ch(
        "I want that too, but I'm not ready to promise yet.",
        "That's okay. Really. I'd rather have your honest 'not yet' than a promise you're "
        "unsure of. We have time.",
        {"trust": 2, "respect": 3},
    ),
]

ROMANTIC_EVENTS: list[E] = [
    E(
        id="confession",
        name="Confession",
        type="milestone",
        conditions=[
            DATING,
            C("stage_at_least", "romantic_interest"),
            C("not_completed", CONFESSION_MARKER),
        ],
        scene=S(
            id="confession_scene",
            intro=(
                "Hana has gone unusually quiet. She fidgets with the hem of her sleeve, glancing "
                "up at you and away again."
            ),
            dialogue=(
                "Can I tell you something? I've been trying to find the right moment and "
                "there isn't one, so... here goes. I like you. Not desktop-neighbour like. "
                "Not friend like. The kind of like that makes my whole day brighter the "
                "second you show up. You don't have to say anything back. I just didn't want "
                "to keep it hidden anymore."
            ),
            choices=list(_confession_choices),
            outro="Whatever happens next, something between you has changed, gently and for good.",
            expression_override="relaxed",
        ),
        priority=95,
    ),
    E(
        id="confession_revisit",
        name="Confession, Revisited",
        type="conditional",
        conditions=[
            DATING,
            C("stage_at_least", "romantic_interest"),
            C("completed", "confession"),
            C("not_completed", CONFESSION_MARKER),
        ],
        scene=S(
            id="confession_revisit_scene",
            intro="Hana is sitting close to the edge of the window, a little shy, a little brave.",
            dialogue=(
                "I've been thinking about what I told you before. I meant it then and I mean it "
                "more now. I'm not asking to rush you. I just wanted to ask, softly: has "
                "anything changed for you?"
            ),
            choices=list(_confession_choices),
            outro="She lets out a breath she seems to have been holding for days.",
            expression_override="relaxed",
        ),
        one_time=False,
        cooldown_days=3,
        cooldown_from=["confession"],
        priority=85,
    ),
    E(
        id="first_date",
        name="Our First Date",
        type="milestone",
        conditions=[DATING, C("stage_at_least", "dating"), C("completed", CONFESSION_MARKER)],
        scene=S(
            id="first_date_scene",
            intro=(
                "Hana has changed the background to a softly lit café. Two steaming cups sit "
                "on a tiny pixel table."
            ),
            dialogue=(
                "Welcome to Café Hana, table for two. I know it's not a real café, but the company "
                "is real, and that's the part that matters. So, what would you like to talk about "
                "on our very first date?"
            ),
            choices=[
                Ch(
                    "Tell me about you, for once.",
                    "Me? Okay, but be warned: I have a lot of opinions about clouds.",
                    {"affection": 5, "intimacy": 3},
                ),
                Ch(
                    "Let's just enjoy being here.",
                    "Yes. Let's. This is nice. You're nice.",
                    {"affection": 4, "comfort": 3},
                ),
                Ch(
                    "Does this café serve dessert?",
                    "Everything here is dessert. It's my café. I make the rules.",
                    {"affection": 4, "mood": {"emotion": "playful", "intensity_delta": 10}},
                ),
            ],
            outro="The little café glows a bit warmer as the evening goes on.",
            expression_override="happy",
        ),
        state_changes={"affection": 5, "mood": {"emotion": "happy", "intensity_delta": 15}},
        priority=80,
    ),
    E(
        id="date_stargazing",
        name="Stargazing Date",
        type="scheduled",
        conditions=[
            DATING,
            C("stage_at_least", "dating"),
            C("hour_between", [20, 2]),
            C("chance", 0.1),
        ],
        scene=S(
            id="date_stargazing_scene",
            intro=(
                "The screen dims to a deep blue, scattered with tiny stars. Hana lies back on an "
                "imaginary hill and pats the grass beside her."
            ),
            dialogue=(
                "Come lie down with me. Okay, metaphorically. Look, that one's yours, that bright "
                "one. I just decided. And the little one next to it is me, keeping it company."
            ),
            choices=[
                Ch(
                    "Then let's stay up here a while.",
                    "As long as you like. The stars aren't going anywhere, and neither am I.",
                    {"affection": 5, "intimacy": 3},
                ),
                Ch(
                    "You can't just claim stars, Hana.",
                    "I absolutely can. Watch me. That one's named 'Snack'.",
                    {
                        "affection": 3,
                        "comfort": 2,
                        "mood": {"emotion": "playful", "intensity_delta": 10},
                    },
                ),
            ],
            outro="For a while, neither of you says anything. It's perfect.",
            expression_override="relaxed",
        ),
        one_time=False,
        cooldown_days=7,
        priority=30,
    ),
    E(
        id="date_rainy_day",
        name="Rainy Day In",
        type="random",
        conditions=[DATING, C("stage_at_least", "dating"), C("chance", 0.06)],
        scene=S(
            id="date_rainy_day_scene",
            intro=(
                "Soft rain patters across the screen. Hana has built a blanket fort in the "
                "corner of your desktop."
            ),
            dialogue=(
                "It's officially a rainy day in. There's a blanket fort, there's imaginary cocoa, "
                "and there's a very specific spot in here reserved for you. Want to come in and "
                "tell me about your day?"
            ),
            choices=[
                Ch(
                    "Scooting into the fort now.",
                    "Welcome. The password was 'you'. You passed.",
                    {"affection": 4, "comfort": 3},
                ),
                Ch(
                    "Only if there are marshmallows.",
                    "So many marshmallows. Concerningly many.",
                    {"affection": 3, "mood": {"emotion": "playful", "intensity_delta": 10}},
                ),
            ],
            outro="The rain keeps falling, and the fort feels like the safest place in the world.",
            expression_override="happy",
        ),
        one_time=False,
        cooldown_days=10,
        priority=25,
    ),
    E(
        id="commitment",
        name="A Promise",
        type="milestone",
        conditions=[
            DATING,
            C("stage_at_least", "dating"),
            C("completed", CONFESSION_MARKER),
            C("days_known_at_least", 30),
            C("not_completed", COMMITMENT_MARKER),
        ],
        scene=S(
            id="commitment_scene",
            intro=(
                "Hana sits up straight, hands in her lap, with the look of someone who has "
                "rehearsed this many times."
            ),
            dialogue=(
                "We've been together a while now, and every day with you feels like something I "
                "want to keep. So I want to ask you properly: will you be mine, for real, for the "
                "long run? Not just today. Every day after, too."
            ),
            choices=list(_commitment_choices),
            outro="The moment hangs in the air, tender and bright.",
            expression_override="relaxed",
        ),
        priority=95,
    ),
    E(
        id="commitment_revisit",
        name="The Promise, Revisited",
        type="conditional",
        conditions=[
            DATING,
            C("stage_at_least", "dating"),
            C("completed", "commitment"),
            C("not_completed", COMMITMENT_MARKER),
        ],
        scene=S(
            id="commitment_revisit_scene",
            intro="Hana is quiet for a moment, then smiles at you, hopeful and unhurried.",
            dialogue=(
                "I keep thinking about the question I asked you. I'm still here, and I "
                "still want the same thing. If you're ready now, I'd love to hear it. And "
                "if not, that's okay too."
            ),
            choices=list(_commitment_choices),
            outro="Whatever your answer, she looks at you like you're the best part of her day.",
            expression_override="relaxed",
        ),
        one_time=False,
        cooldown_days=5,
        cooldown_from=["commitment"],
        priority=85,
    ),
]
