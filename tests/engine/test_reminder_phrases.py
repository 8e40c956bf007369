"""The natural-phrase reminder fallback: delays, and times and days in local time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_desktop.engine.parse import ReminderRequest
from companion_desktop.engine.reminder_phrases import natural_reminder

CASES = [
    ("remind me in 10 minutes to stretch", 600, "stretch"),
    ("Remind me to call mom in 2 hours", 7200, "call mom"),
    ("in 30 seconds remind me to check the oven", 30, "check the oven"),
    ("remind me in an hour", 3600, "your reminder"),
    ("remind me in a minute", 60, "your reminder"),
    ("can you remind me in one day to pay rent?", 86400, "pay rent"),
    ("remind me in half an hour to drink water please", 1800, "drink water"),
    ("remind me in 5 min to take the pizza out!", 300, "take the pizza out"),
    ("remind me in 3 sec", 3, "your reminder"),
    ("remind me in 2h to leave", 7200, "leave"),
    ("remind me in 2 d about the dentist", 172800, "the dentist"),
    ("remind me in 1.5 hours to move the car", 5400, "move the car"),
    ("remind me in an hour and a half to eat", 5400, "eat"),
    ("Hey, remind me that the laundry is done in 45 minutes.", 2700, "the laundry is done"),
    ("remind me in 20 minutes from now to call Sam", 1200, "call Sam"),
    ("remind me in ten minutes to stretch", 600, "stretch"),
    ("remind me in 1000 days to check", 365 * 86400, "check"),
    ("remind me in 0 seconds to blink", 1, "blink"),
]


@pytest.mark.parametrize("message,seconds,text", CASES)
def test_phrase_table(message, seconds, text):
    assert natural_reminder(message) == ReminderRequest(seconds, text)


NO_REMINDER = [
    "",
    "remind me to stretch",
    "in 10 minutes I'll stretch",
    "I was in a meeting for 10 minutes",
    "remind me in a moment",
    "remind me in 10 parsecs to fly",
    "do you remember me?",
]


@pytest.mark.parametrize("message", NO_REMINDER)
def test_no_reminder(message):
    assert natural_reminder(message) is None


# --- times and days, read in the user's local time -----------------------------------------

BERLIN = ZoneInfo("Europe/Berlin")
WED = datetime(2026, 12, 2, 13, 15, tzinfo=BERLIN)  # a Wednesday afternoon
FRI = datetime(2026, 12, 4, 8, 0, tzinfo=BERLIN)  # a Friday morning
LATE = datetime(2026, 12, 2, 23, 40, tzinfo=BERLIN)  # late on a Wednesday night
SPRING = datetime(2026, 3, 28, 12, 0, tzinfo=BERLIN)  # Saturday; clocks go forward tonight
AUTUMN = datetime(2026, 10, 24, 12, 0, tzinfo=BERLIN)  # Saturday; clocks go back tonight


def at(*wall: int) -> datetime:
    return datetime(*wall, tzinfo=BERLIN)


def seconds_until(now: datetime, target: datetime) -> int:
    """Real seconds between two instants (on the UTC time line)."""
    return round(target.timestamp() - now.timestamp())


ABSOLUTE = [
    # English
    (WED, "Can you remind me to call my mum tomorrow at 6pm?", at(2026, 12, 3, 18), "call my mum"),
    (WED, "remind me at 7:30 to take my pills", at(2026, 12, 2, 19, 30), "take my pills"),
    (WED, "remind me tonight to water the plants", at(2026, 12, 2, 20), "water the plants"),
    (WED, "remind me on Friday morning about the report", at(2026, 12, 4, 9), "the report"),
    (WED, "remind me next Monday to pay rent", at(2026, 12, 7, 9), "pay rent"),
    (WED, "remind me at 18:00 to cook", at(2026, 12, 2, 18), "cook"),
    (WED, "remind me at noon to eat", at(2026, 12, 3, 12), "eat"),
    (WED, "remind me at midnight to lock up", at(2026, 12, 3, 0), "lock up"),
    (WED, "remind me tomorrow morning to run", at(2026, 12, 3, 9), "run"),
    (WED, "remind me tomorrow afternoon to run", at(2026, 12, 3, 15), "run"),
    (WED, "remind me tomorrow evening to run", at(2026, 12, 3, 19), "run"),
    (WED, "remind me this evening to read", at(2026, 12, 2, 19), "read"),
    (WED, "remind me in the morning to run", at(2026, 12, 3, 9), "run"),
    (WED, "remind me tomorrow to pay the bill", at(2026, 12, 3, 9), "pay the bill"),
    (WED, "remind me at 7 to eat", at(2026, 12, 2, 19), "eat"),
    (WED, "remind me at 3 to eat", at(2026, 12, 2, 15), "eat"),
    (WED, "remind me at 10 to eat", at(2026, 12, 2, 22), "eat"),
    (WED, "remind me at 12 to eat", at(2026, 12, 3, 12), "eat"),
    (WED, "remind me at seven to eat", at(2026, 12, 2, 19), "eat"),
    (WED, "remind me at 07:30 to wake up", at(2026, 12, 3, 7, 30), "wake up"),
    (WED, "remind me at 9am to wake up", at(2026, 12, 3, 9), "wake up"),
    (WED, "remind me at 5 p.m. to leave", at(2026, 12, 2, 17), "leave"),
    (WED, "remind me around 5pm to leave", at(2026, 12, 2, 17), "leave"),
    (WED, "remind me at 6 o'clock to leave", at(2026, 12, 2, 18), "leave"),
    (WED, "remind me at half past six to leave", at(2026, 12, 2, 18, 30), "leave"),
    (WED, "remind me at quarter to 7 to leave", at(2026, 12, 2, 18, 45), "leave"),
    (WED, "remind me at 7 in the evening to call", at(2026, 12, 2, 19), "call"),
    (WED, "remind me at 8 in the morning to call", at(2026, 12, 3, 8), "call"),
    (WED, "remind me today at 9 to call", at(2026, 12, 2, 21), "call"),
    (WED, "remind me tomorrow at 7 to call", at(2026, 12, 3, 7), "call"),
    (WED, "remind me tomorrow at 6 to call", at(2026, 12, 3, 18), "call"),
    (WED, "remind me 6pm tomorrow to call", at(2026, 12, 3, 18), "call"),
    (WED, "Tomorrow at 6pm remind me to call mum", at(2026, 12, 3, 18), "call mum"),
    (WED, "remind me Friday at 6pm to call", at(2026, 12, 4, 18), "call"),
    (WED, "remind me this Friday to call", at(2026, 12, 4, 9), "call"),
    (WED, "remind me the day after tomorrow to call", at(2026, 12, 4, 9), "call"),
    (WED, "remind me at lunchtime to eat", at(2026, 12, 3, 12), "eat"),
    (WED, "remind me on December 24 to buy gifts", at(2026, 12, 24, 9), "buy gifts"),
    (WED, "remind me on the 24th of December at 6pm to call", at(2026, 12, 24, 18), "call"),
    (WED, "remind me on 2026-12-24 at 18:00 to call", at(2026, 12, 24, 18), "call"),
    (WED, "remind me on 1 December to renew", at(2027, 12, 1, 9), "renew"),  # next year
    (WED, "remind me at 6pm tomorrow, thanks!", at(2026, 12, 3, 18), "your reminder"),
    (WED, "remind me at 7 please", at(2026, 12, 2, 19), "your reminder"),
    (WED, "remind me to call Sam at work tomorrow", at(2026, 12, 3, 9), "call Sam at work"),
    (WED, "remind me tomorrow to tell Anna about the party on Friday", at(2026, 12, 3, 9),
     "tell Anna about the party on Friday"),  # the first day is the reminder's, not both
    (FRI, "remind me on Friday to call", at(2026, 12, 4, 9), "call"),  # today, still ahead
    (FRI, "remind me on Friday at 7am to call", at(2026, 12, 11, 7), "call"),  # already past
    (FRI, "remind me next Friday to call", at(2026, 12, 11, 9), "call"),
    (FRI, "remind me this Friday at 6pm to call", at(2026, 12, 4, 18), "call"),
    (LATE, "remind me at 7 to call", at(2026, 12, 3, 7), "call"),
    (LATE, "remind me at 6 to call", at(2026, 12, 3, 6), "call"),
    (LATE, "remind me at 11 to call", at(2026, 12, 3, 11), "call"),
    (LATE, "remind me at midnight to call", at(2026, 12, 3, 0), "call"),
    (LATE, "remind me tomorrow at midnight to call", at(2026, 12, 4, 0), "call"),
    (LATE, "remind me at 1 tonight to call", at(2026, 12, 3, 1), "call"),
    (LATE, "remind me at 23:50 to call", at(2026, 12, 2, 23, 50), "call"),
    (LATE, "remind me at 23:40 to call", at(2026, 12, 3, 23, 40), "call"),  # now: tomorrow
    (LATE, "remind me at 0:30 to call", at(2026, 12, 3, 0, 30), "call"),
    (LATE, "remind me in the morning to call", at(2026, 12, 3, 9), "call"),
    (WED, "I was late yesterday, remind me tomorrow at 7 to leave earlier", at(2026, 12, 3, 7),
     "leave earlier"),  # the time words after the request come first
    (WED, "Tomorrow, remind me at 6pm to call", at(2026, 12, 3, 18), "call"),
    # German
    (WED, "erinnere mich morgen um 18 Uhr an den Arzt", at(2026, 12, 3, 18), "den Arzt"),
    (WED, "erinnere mich am Freitag daran, die Miete zu zahlen", at(2026, 12, 4, 9),
     "die Miete zu zahlen"),
    (WED, "Erinnere mich heute Abend an die Pflanzen", at(2026, 12, 2, 19), "die Pflanzen"),
    (WED, "erinnere mich um halb 7 an das Essen", at(2026, 12, 2, 18, 30), "das Essen"),
    (WED, "erinnere mich um Viertel nach 8 an den Film", at(2026, 12, 2, 20, 15), "den Film"),
    (WED, "erinnere mich um 18:30 an den Film", at(2026, 12, 2, 18, 30), "den Film"),
    (WED, "erinnere mich um 7 Uhr morgens ans Laufen", at(2026, 12, 3, 7), "ans Laufen"),
    (WED, "kannst du mich morgen früh an den Termin erinnern?", at(2026, 12, 3, 9),
     "den Termin"),
    (WED, "Guten Morgen! Erinnere mich um 9 an den Anruf", at(2026, 12, 2, 21), "den Anruf"),
    (WED, "erinnere mich nächste Woche Montag an die Steuer", at(2026, 12, 7, 9), "die Steuer"),
    (WED, "erinnere mich nächsten Montag an die Steuer", at(2026, 12, 7, 9), "die Steuer"),
    (WED, "erinnere mich Freitagabend an das Kino", at(2026, 12, 4, 19), "das Kino"),
    (WED, "erinnere mich übermorgen an das Paket", at(2026, 12, 4, 9), "das Paket"),
    (WED, "erinnere mich um Mitternacht an das Feuerwerk", at(2026, 12, 3, 0), "das Feuerwerk"),
    (WED, "erinnere mich am 24.12. an die Geschenke", at(2026, 12, 24, 9), "die Geschenke"),
    (WED, "erinnere mich am 24. Dezember um 18 Uhr an die Kerzen", at(2026, 12, 24, 18),
     "die Kerzen"),
    (FRI, "erinnere mich am Freitag um 7 an den Müll", at(2026, 12, 4, 19), "den Müll"),
    (LATE, "erinnere mich um 1 nachts an den Ofen", at(2026, 12, 3, 1), "den Ofen"),
    (at(2026, 12, 3, 0, 30), "erinnere mich um 1 nachts an den Ofen", at(2026, 12, 3, 1),
     "den Ofen"),  # half an hour after midnight: in half an hour
    # Spanish
    (WED, "recuérdame mañana a las 6 de la tarde llamar a mi madre", at(2026, 12, 3, 18),
     "llamar a mi madre"),
    (WED, "recuérdame el viernes que tengo reunión", at(2026, 12, 4, 9), "tengo reunión"),
    (WED, "¿Me recuerdas mañana por la mañana que llame a mamá?", at(2026, 12, 3, 9),
     "llame a mamá"),
    (WED, "recuérdame esta noche regar las plantas", at(2026, 12, 2, 20), "regar las plantas"),
    (WED, "recuérdame a las 7 menos cuarto salir", at(2026, 12, 2, 18, 45), "salir"),
    (WED, "recuérdame a las 8 y media de la mañana correr", at(2026, 12, 3, 8, 30), "correr"),
    (WED, "recuérdame a la una comer", at(2026, 12, 2, 13, 0) + timedelta(days=1), "comer"),
    (WED, "recuérdame el próximo lunes pagar el alquiler", at(2026, 12, 7, 9),
     "pagar el alquiler"),
    (WED, "recuérdame al mediodía comer", at(2026, 12, 3, 12), "comer"),
    (WED, "recuérdame el 24 de diciembre comprar regalos", at(2026, 12, 24, 9), "comprar regalos"),
    (WED, "¿Puedes recordarme pasado mañana a las 18:00 de ir al banco, por favor?",
     at(2026, 12, 4, 18), "ir al banco"),
    (LATE, "recuérdame a las 10 de la noche sacar la basura", at(2026, 12, 3, 22),
     "sacar la basura"),
    # Japanese
    (WED, "明日の18時に母に電話することをリマインドして", at(2026, 12, 3, 18), "母に電話すること"),
    (WED, "明日の午後6時に薬を飲むことを思い出させて", at(2026, 12, 3, 18), "薬を飲むこと"),
    (WED, "明日の１８時に薬を飲むのを教えて", at(2026, 12, 3, 18), "薬を飲む"),
    (WED, "明日の朝に会議のことを教えて", at(2026, 12, 3, 9), "会議のこと"),
    (WED, "金曜日の夜に映画をリマインドして", at(2026, 12, 4, 20), "映画"),
    (WED, "来週の月曜日に家賃を払うことをリマインドして", at(2026, 12, 7, 9), "家賃を払うこと"),
    (WED, "今夜水やりをリマインドして", at(2026, 12, 2, 20), "水やり"),
    (WED, "午前7時30分にジョギングを知らせて", at(2026, 12, 3, 7, 30), "ジョギング"),
    (WED, "7時半に夕飯を作るってリマインドして", at(2026, 12, 2, 19, 30), "夕飯を作る"),
    (WED, "12月24日にプレゼントをリマインドしてください", at(2026, 12, 24, 9), "プレゼント"),
    (FRI, "金曜日の7時にゴミ出しをリマインドして", at(2026, 12, 4, 19), "ゴミ出し"),
    (FRI, "次の金曜日にゴミ出しをリマインドして", at(2026, 12, 11, 9), "ゴミ出し"),
]


@pytest.mark.parametrize("now,message,due,text", ABSOLUTE)
def test_times_and_days(now, message, due, text):
    assert natural_reminder(message, now) == ReminderRequest(seconds_until(now, due), text)


@pytest.mark.parametrize("now,message,seconds", [
    (WED, "Can you remind me to call my mum tomorrow at 6pm?", 28 * 3600 + 45 * 60),
    # 9:00 the next morning is 21 wall-clock hours away, but one hour is skipped tonight
    (SPRING, "remind me tomorrow at 9am to water the plants", 20 * 3600),
    (SPRING, "erinnere mich morgen um 9 Uhr an die Pflanzen", 20 * 3600),
    (SPRING, "remind me on Monday to call", 44 * 3600),
    # ...and one hour is repeated in autumn
    (AUTUMN, "remind me tomorrow at 9am to water the plants", 22 * 3600),
    (AUTUMN, "recuérdame mañana a las 9 de la mañana regar", 22 * 3600),
    (AUTUMN, "明日の午前9時に水やりをリマインドして", 22 * 3600),
    # 02:30 does not exist on 29 March: it is read as 03:30 summer time (01:30 UTC)
    (SPRING, "remind me tomorrow at 2:30am to check the clocks", 14 * 3600 + 30 * 60),
])
def test_daylight_saving_changes_are_counted(now, message, seconds):
    assert natural_reminder(message, now).seconds == seconds


def test_the_apps_clock_a_fixed_offset_follows_the_systems_rules(berlin):
    clock = SPRING.astimezone()  # what datetime.now().astimezone() gives: UTC+01:00, fixed
    assert isinstance(clock.tzinfo, timezone)
    assert natural_reminder("remind me tomorrow at 9am to x", clock).seconds == 20 * 3600
    # the UTC time the pipeline holds, once made local by its caller
    utc = SPRING.astimezone(timezone.utc)
    assert natural_reminder("remind me tomorrow at 9am to x", utc.astimezone()).seconds == 72000


def test_another_fixed_offset_is_kept_as_it_is(berlin):
    tokyo = datetime(2026, 3, 28, 20, 0, tzinfo=timezone(timedelta(hours=9)))
    assert natural_reminder("remind me tomorrow at 9am to x", tokyo).seconds == 13 * 3600


def test_a_naive_now_counts_wall_clock_time():
    now = datetime(2026, 3, 28, 12, 0)
    assert natural_reminder("remind me tomorrow at 9am to x", now).seconds == 21 * 3600


def test_seconds_run_up_to_the_minute_and_never_fire_early():
    now = datetime(2026, 12, 2, 13, 15, 20, 500000, tzinfo=BERLIN)
    assert natural_reminder("remind me at 13:16 to x", now).seconds == 40  # 39.5 s, rounded up


def test_a_date_more_than_a_year_ahead_is_bounded():
    request = natural_reminder("remind me on 2028-06-01 to renew the passport", WED)
    assert request == ReminderRequest(365 * 86400, "renew the passport")


@pytest.mark.parametrize("now,message", [
    (WED, "I was reminded at 6pm yesterday"),
    (WED, "Can you call my mum tomorrow at 6pm?"),  # no request
    (WED, "Ich gehe morgen um 18 Uhr zum Arzt"),
    (WED, "Mañana a las 6 llamo a mi madre"),
    (WED, "明日の18時に母に電話する"),
    (WED, "remind me what I said yesterday"),
    (WED, "remind me last Friday to call"),
    (WED, "remind me on 1 March 2020 to renew"),  # an explicit date in the past
    (WED, "remind me on 2026-12-01 at 9am to renew"),
    (WED, "remind me today at 9am to call"),  # today, and already past
    (LATE, "remind me tonight to call"),
    (LATE, "remind me this evening to call"),
    (WED, "remind me today to call"),  # today at 9:00 has passed
    (WED, "erinnere mich gestern an den Arzt"),
    (WED, "recuérdame ayer llamar"),
    (WED, "昨日の会議をリマインドして"),
    (WED, "remind me at 25:00 to call"),
    (WED, "remind me at 13pm to call"),
    (WED, "remind me on February 30 to call"),
    (WED, "erinnere mich um 25 Uhr an x"),
    (WED, "remind me to call my mum"),  # no time at all
    (WED, "remind me to buy 2 eggs"),
    (WED, "remind me to look at two options"),
    (WED, "erinnere mich an den Arzt"),
    (WED, "erinnere mich, um zwei Sachen zu kaufen"),
    (WED, "recuérdame llamar a mi madre"),
    (WED, "明日の天気を教えて"),  # "tell me tomorrow's weather" is a question, not a reminder
    (WED, "母に電話することをリマインドして"),
    (WED, "10分ごとにストレッチをリマインドして"),  # "every 10 minutes" is no delay
])
def test_no_reminder_at_a_time(now, message):
    assert natural_reminder(message, now) is None


@pytest.mark.parametrize("message", [
    "Can you remind me to call my mum tomorrow at 6pm?",
    "erinnere mich morgen um 18 Uhr an den Arzt",
    "recuérdame mañana a las 6 de la tarde llamar a mi madre",
    "明日の18時に母に電話することをリマインドして",
])
def test_without_now_only_delays_are_read(message):
    assert natural_reminder(message) is None


@pytest.mark.parametrize("message,seconds,text", CASES)
def test_delays_are_read_the_same_with_a_now(message, seconds, text):
    assert natural_reminder(message, WED) == ReminderRequest(seconds, text)


@pytest.mark.parametrize("message", NO_REMINDER)
def test_no_reminder_with_a_now_either(message):
    assert natural_reminder(message, WED) is None


@pytest.mark.parametrize("message,seconds,text", [
    ("erinnere mich in 10 Minuten an den Tee", 600, "den Tee"),
    ("Erinnere mich in einer halben Stunde daran, die Wäsche aufzuhängen", 1800,
     "die Wäsche aufzuhängen"),
    ("erinnere mich in zwei Tagen an das Paket", 172800, "das Paket"),
    ("kannst du mich in anderthalb Stunden an den Kuchen erinnern?", 5400, "den Kuchen"),
    ("recuérdame en 10 minutos sacar la pizza", 600, "sacar la pizza"),
    ("recuérdame dentro de una hora y media llamar a Ana", 5400, "llamar a Ana"),
    ("recuérdame en media hora que beba agua", 1800, "beba agua"),
    ("10分後にストレッチをリマインドして", 600, "ストレッチ"),
    ("1時間半後に洗濯物を教えて", 5400, "洗濯物"),
    ("３０秒後にお湯を知らせて", 30, "お湯"),
])
def test_delays_in_other_languages(message, seconds, text):
    assert natural_reminder(message) == ReminderRequest(seconds, text)
    assert natural_reminder(message, WED) == ReminderRequest(seconds, text)


FUZZ = settings(max_examples=300, deadline=None, derandomize=True)
NOWS = st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 1, 1),
                    timezones=st.just(BERLIN)).map(lambda now: now.replace(microsecond=0))


def due_after(now: datetime, request: ReminderRequest) -> datetime:
    return datetime.fromtimestamp(now.timestamp() + request.seconds, BERLIN)


def skipped(day: datetime, hour: int, minute: int) -> bool:
    """Whether ``hour:minute`` on ``day`` falls in the hour the clocks skip in spring."""
    wall = datetime(day.year, day.month, day.day, hour, minute, tzinfo=BERLIN)
    return wall.astimezone(timezone.utc).astimezone(BERLIN).replace(tzinfo=None) != \
        wall.replace(tzinfo=None)


@FUZZ
@given(now=NOWS, hour=st.sampled_from([*range(10), *range(13, 24)]),
       minute=st.integers(0, 59))
def test_a_24_hour_time_is_the_next_time_the_clock_shows_it(now, hour, minute):
    request = natural_reminder(f"remind me at {hour:02d}:{minute:02d} to stretch", now)
    assert request is not None and request.text == "stretch"
    assert 0 < request.seconds <= 25 * 3600
    due = due_after(now, request)
    if not skipped(due, hour, minute):
        assert (due.hour, due.minute) == (hour, minute)
        # and it is the first time: the day before at that time was not ahead
        earlier = datetime(due.year, due.month, due.day, hour, minute, tzinfo=BERLIN)
        assert seconds_until(now, earlier - timedelta(days=1)) <= 0


@FUZZ
@given(now=NOWS, hour=st.integers(1, 12), minute=st.integers(0, 59))
def test_an_hour_without_am_or_pm_is_read_by_the_rule(now, hour, minute):
    request = natural_reminder(f"remind me at {hour}:{minute:02d} to stretch", now)
    assert request is not None and 0 < request.seconds <= 25 * 3600
    due = due_after(now, request)
    if skipped(due, due.hour, due.minute):
        return
    readings = {12} if hour == 12 else {hour + 12} if hour <= 5 else {hour, hour + 12}
    assert due.hour in readings and due.minute == minute
    for other in readings:  # no other reading comes sooner
        for day in (now.date(), now.date() + timedelta(days=1)):
            wall = datetime(day.year, day.month, day.day, other, minute, tzinfo=BERLIN)
            assert not 0 < seconds_until(now, wall) < request.seconds
