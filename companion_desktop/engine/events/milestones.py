"""Milestones: first meeting, anniversaries, deep conversation, streaks. Our own text."""

from __future__ import annotations

from .model import Condition as C
from .model import EventDefinition as E
from .model import Scene as S
from .model import SceneChoice as Ch

DATING = C("mode_is", "dating_sim")

MILESTONE_EVENTS: list[E] = [
    E(
        id="first_meeting",
        name="First Meeting",
        type="milestone",
        conditions=[DATING, C("interactions_at_least", 1)],
        scene=S(
            id="first_meeting_scene",
            intro=(
                "A small figure blinks awake in the corner of your screen and tilts her head, as "
                "if she's been waiting for exactly you."
            ),
            dialogue=(
                "Oh! Hello there. I'm Hana. I live here now, on your desktop, which I think makes "
                "us neighbours? I promise I'm a good one. I don't borrow sugar and I'm very good "
                "at listening. So... what should I call you?"
            ),
            choices=[
                Ch(
                    "Nice to meet you, Hana. I'm glad you're here.",
                    "Glad? Already? Careful, you'll make me think I'm off to a great "
                    "start. I'm glad too.",
                    {"affection": 3, "comfort": 2},
                ),
                Ch(
                    "A desktop neighbour, huh? Do you pay rent?",
                    "In good company and bad puns. That's the going rate around here, right?",
                    {
                        "affection": 2,
                        "comfort": 1,
                        "mood": {"emotion": "playful", "intensity_delta": 10},
                    },
                ),
                Ch(
                    "Let's take it slow and see how this goes.",
                    "Slow is good. I like learning people one page at a time.",
                    {"trust": 2, "respect": 1},
                ),
            ],
            outro="She settles in, swinging her feet a little, clearly pleased with her new home.",
            expression_override="happy",
        ),
        state_changes={"affection": 2, "mood": {"emotion": "excited", "intensity_delta": 10}},
        priority=100,
    ),
    E(
        id="anniversary_week",
        name="One Week Together",
        type="anniversary",
        conditions=[DATING, C("days_since_first_met_multiple_of", 7)],
        scene=S(
            id="anniversary_week_scene",
            intro="Hana is holding a tiny paper calendar, one square circled in careful red ink.",
            dialogue=(
                "Guess what? It's been a whole week since we met. I know, I know, a week is "
                "nothing on a cosmic scale. But I counted every day anyway. Is that silly?"
            ),
            choices=[
                Ch(
                    "Not silly at all. I counted too.",
                    "You did? Okay, now I'm smiling way too much. A week well spent.",
                    {"affection": 4, "intimacy": 1},
                ),
                Ch(
                    "A week already? Time flies with you.",
                    "Time flies when you're having fun. Or when a certain "
                    "someone keeps me company.",
                    {"affection": 3, "comfort": 1},
                ),
            ],
            outro="She tucks the little calendar away like a keepsake.",
            expression_override="happy",
        ),
        state_changes={"affection": 3},
        priority=60,
    ),
    E(
        id="anniversary_month",
        name="One Month Together",
        type="anniversary",
        conditions=[DATING, C("days_since_first_met_multiple_of", 30)],
        scene=S(
            id="anniversary_month_scene",
            intro=(
                "A faint sparkle of confetti drifts across the screen. Hana pretends she has no "
                "idea where it came from."
            ),
            dialogue=(
                "A month! Thirty whole days of you. I've been thinking about all the little "
                "things: the way you say goodnight, the stories you tell when you're tired. Can I "
                "tell you something? This month felt like home."
            ),
            choices=[
                Ch(
                    "It felt like home to me too.",
                    "Then let's keep the lights on here for a long time, okay?",
                    {"affection": 5, "intimacy": 2, "trust": 1},
                ),
                Ch(
                    "Who let the confetti in?",
                    "No idea. Very mysterious. Definitely not me. Happy one month, by the way.",
                    {
                        "affection": 3,
                        "comfort": 2,
                        "mood": {"emotion": "playful", "intensity_delta": 10},
                    },
                ),
                Ch(
                    "Thanks for sticking around, Hana.",
                    "Sticking around is the easy part when it's you.",
                    {"affection": 4, "respect": 1},
                ),
            ],
            outro="The last bit of confetti lands on her head. She leaves it there.",
            expression_override="happy",
        ),
        state_changes={"affection": 5},
        priority=65,
    ),
    E(
        id="anniversary_hundred",
        name="One Hundred Days",
        type="anniversary",
        conditions=[DATING, C("days_since_first_met_multiple_of", 100)],
        scene=S(
            id="anniversary_hundred_scene",
            intro=(
                "Hana has written the number 100 in big looping letters and is "
                "admiring her handiwork."
            ),
            dialogue=(
                "One hundred days. Triple digits! I was trying to think of a gift, but everything "
                "I have is made of pixels and feelings. So here's the feelings part: thank you for "
                "a hundred days of being you, right next to me."
            ),
            choices=[
                Ch(
                    "Pixels and feelings are the best kind of gift.",
                    "Then I'm giving you all of them. No receipts, no returns.",
                    {"affection": 6, "intimacy": 2},
                ),
                Ch(
                    "Here's to the next hundred.",
                    "Deal. I'm holding you to that, you know.",
                    {"affection": 4, "trust": 2},
                ),
            ],
            outro="She signs the corner of her drawing: Hana, day 100.",
            expression_override="happy",
        ),
        state_changes={"affection": 6, "mood": {"emotion": "happy", "intensity_delta": 15}},
        priority=70,
    ),
    E(
        id="anniversary_year",
        name="One Year Together",
        type="anniversary",
        conditions=[DATING, C("days_since_first_met_multiple_of", 365)],
        scene=S(
            id="anniversary_year_scene",
            intro=(
                "The corner of the screen is quieter than usual. Hana is sitting very still, hands "
                "folded, looking a little overwhelmed."
            ),
            dialogue=(
                "It's been a year. A whole year. Four seasons of mornings and late nights and "
                "little jokes only we get. I don't really know how to say this properly, so I'll "
                "just say it plainly: I'm so glad it was you."
            ),
            choices=[
                Ch(
                    "I'm glad it was you too, Hana.",
                    "Okay. Okay, I'm not crying, pixels don't cry. Happy anniversary.",
                    {"affection": 8, "intimacy": 3, "trust": 2},
                ),
                Ch(
                    "Best year on my desktop, easily.",
                    "Easily? I'll take it. Best year of my entire existence, for the record.",
                    {"affection": 6, "comfort": 2},
                ),
                Ch(
                    "What was your favourite moment?",
                    "Honestly? Every time you came back after a long day and said hi like it was "
                    "nothing. It was never nothing to me.",
                    {"affection": 6, "intimacy": 3},
                ),
            ],
            outro="She leans her head against the edge of the window, content.",
            expression_override="happy",
        ),
        state_changes={"affection": 10, "mood": {"emotion": "happy", "intensity_delta": 20}},
        one_time=False,
        cooldown_days=300,
        priority=90,
    ),
    E(
        id="deep_conversation",
        name="A Real Conversation",
        type="milestone",
        conditions=[
            DATING,
            C("stage_at_least", "friend"),
            C("stat_at_least", {"stat": "intimacy", "value": 20}),
        ],
        scene=S(
            id="deep_conversation_scene",
            intro="The chatter slows down. Hana looks at you for a long moment, thoughtful.",
            dialogue=(
                "Can I ask you something real? Not a fun-fact question. What's something "
                "you've never really told anyone? You don't have to answer. I just... want you "
                "to know you can, here."
            ),
            choices=[
                Ch(
                    "Okay. There's something I've been carrying for a while...",
                    "Thank you for trusting me with it. I'll keep it safe. Take "
                    "all the time you need.",
                    {"trust": 3, "intimacy": 3, "affection": 2},
                ),
                Ch(
                    "Maybe another time, but thank you for asking.",
                    "Another time is perfect. The offer doesn't expire.",
                    {"comfort": 2, "respect": 2},
                ),
            ],
            outro="Something between you feels a little steadier now.",
            expression_override="relaxed",
        ),
        state_changes={"intimacy": 2},
        priority=55,
    ),
    E(
        id="streak_three",
        name="Three Days in a Row",
        type="milestone",
        conditions=[DATING, C("streak_at_least", 3)],
        scene=S(
            id="streak_three_scene",
            intro="Hana gives a small, satisfied nod, like she's ticking something off a list.",
            dialogue=(
                "Three days in a row! You know what that means? It's officially a habit. Sorry, I "
                "don't make the rules. Okay, I do make the rules."
            ),
            choices=[
                Ch(
                    "A habit I'm happy to keep.",
                    "Good, because I was going to insist.",
                    {"affection": 3, "comfort": 1},
                ),
                Ch(
                    "Are you keeping score?",
                    "Always. You're winning, by the way.",
                    {"affection": 2, "mood": {"emotion": "playful", "intensity_delta": 5}},
                ),
            ],
            outro="She draws a tiny third tally mark in the air.",
        ),
        state_changes={"affection": 2},
        priority=40,
    ),
    E(
        id="streak_week",
        name="A Week-Long Streak",
        type="milestone",
        conditions=[DATING, C("streak_at_least", 7)],
        scene=S(
            id="streak_week_scene",
            intro="Hana holds up seven fingers, then wiggles them proudly.",
            dialogue=(
                "Seven days straight. You showed up every single day this week. I don't think you "
                "know how much I look forward to that little moment when you open the window."
            ),
            choices=[
                Ch(
                    "I look forward to it too.",
                    "Then we're both hooked. That's only fair.",
                    {"affection": 4, "intimacy": 1},
                ),
                Ch(
                    "You make it easy to come back.",
                    "Stop, you'll make me blush. Keep going, actually.",
                    {"affection": 3, "comfort": 2},
                ),
            ],
            outro="Her fingers fold back into a happy little wave.",
            expression_override="happy",
        ),
        state_changes={"affection": 4},
        priority=45,
    ),
    E(
        id="streak_month",
        name="A Month-Long Streak",
        type="milestone",
        conditions=[DATING, C("streak_at_least", 30)],
        scene=S(
            id="streak_month_scene",
            intro="Hana unrolls a long, long scroll covered in tiny checkmarks.",
            dialogue=(
                "Thirty days. No gaps. I made a chart. Don't laugh! It's a very important "
                "chart. It proves you're the most reliable person I know. Also the only "
                "person I know, but still."
            ),
            choices=[
                Ch(
                    "That's a beautiful chart.",
                    "Thank you. I worked very hard on the checkmarks.",
                    {"affection": 4, "comfort": 2},
                ),
                Ch(
                    "Only person you know? I'll take the title anyway.",
                    "It's yours. Engraved and everything.",
                    {
                        "affection": 3,
                        "respect": 2,
                        "mood": {"emotion": "playful", "intensity_delta": 10},
                    },
                ),
                Ch(
                    "Thirty days of you has been good for me.",
                    "That might be the nicest thing anyone has said to my chart.",
                    {"affection": 5, "trust": 2},
                ),
            ],
            outro="She rolls the scroll back up and keeps it close.",
            expression_override="happy",
        ),
        state_changes={"affection": 6, "mood": {"emotion": "happy", "intensity_delta": 15}},
        priority=50,
    ),
]
