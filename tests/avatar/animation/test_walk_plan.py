"""The walk plan with the clock and the random source passed in: when she sets off, how
far and which way she goes, turning at the ends of her surface, never leaving it, never
starting while busy and stopping the moment she is, sitting on window tops."""

from __future__ import annotations

import itertools
import random

import pytest

from companion_desktop.avatar.animation.walk_plan import SIT, WALK, WalkPlan

SPAN = (100.0, 700.0)
SPEED = 100.0  # px/s
DT = 1 / 30


def run(plan: WalkPlan, start: float, seconds: float, x: float, span=SPAN, busy=None,
        on_window=False):
    """Tick at 30 Hz; every step, with her feet where the plan put them."""
    steps, now = [], start
    while now < start + seconds:
        step = plan.update(now, x, span, busy(now) if callable(busy) else busy, SPEED,
                           on_window=on_window)
        if step.x is not None:
            x = step.x
        steps.append((now, step))
        now += DT
    return steps, x


def first_walk(plan: WalkPlan, x: float = 400.0, **kw):
    """Idle until the first walk starts; (time it started, steps from then)."""
    steps, x = run(plan, 0.0, 400.0, x, **kw)
    started = next(t for t, s in steps if s.clip == WALK)
    return started, [(t, s) for t, s in steps if t >= started], x


def test_the_first_walk_waits_a_random_interval_within_the_bounds():
    starts = set()
    for seed in range(12):
        plan = WalkPlan(random.Random(seed), interval=(60.0, 240.0))
        first = plan.update(0.0, 400.0, SPAN, None, SPEED)
        assert not first.moving and first.clip is None and first.x is None
        assert 60.0 <= first.wake_at <= 240.0  # the caller may sleep until then
        started, _, _ = first_walk(plan)
        assert 60.0 <= started <= 240.0 + DT
        starts.add(round(started))
    assert len(starts) >= 8  # random, not fixed


def test_she_walks_a_few_seconds_at_the_pace_then_stops_and_rests():
    plan = WalkPlan(random.Random(4), walk_seconds=(3.0, 5.0))
    _, steps, _ = first_walk(plan, x=400.0, span=(0.0, 5000.0))
    walking = list(itertools.takewhile(lambda ts: ts[1].clip == WALK, steps))
    duration = walking[-1][0] - walking[0][0]
    assert 3.0 - 0.1 <= duration <= 5.0 + 0.1
    xs = [s.x for _, s in walking]
    travelled = abs(xs[-1] - xs[0])
    assert travelled == pytest.approx(SPEED * duration, rel=0.05)
    assert all(s.moving for _, s in walking)
    after = [s for t, s in steps[len(walking):] if t < walking[-1][0] + 30.0]
    assert after and all(s.clip is None and not s.moving and s.facing == 0 for s in after)
    assert 60.0 <= after[0].wake_at - walking[-1][0] <= 240.0 + 1.0


def test_she_turns_at_the_ends_and_never_leaves_the_span():
    plan = WalkPlan(random.Random(1), interval=(1.0, 2.0), walk_seconds=(20.0, 20.0))
    steps, _ = run(plan, 0.0, 60.0, 150.0, span=(100.0, 400.0))
    xs = [s.x for _, s in steps if s.x is not None]
    assert min(xs) >= 100.0 and max(xs) <= 400.0
    facings = [s.facing for _, s in steps if s.clip == WALK]
    flips = sum(1 for a, b in itertools.pairwise(facings) if a != b)
    assert flips >= 4  # 20 s at 100 px/s over 300 px: several turns
    assert any(abs(x - 100.0) < 1e-6 for x in xs) and any(abs(x - 400.0) < 1e-6 for x in xs)
    # she faces the way she goes
    moving = [(a, b) for (_, a), (_, b) in itertools.pairwise(steps)
              if a.x is not None and b.x is not None and b.x != a.x and b.clip == WALK]
    assert all((b.x - a.x) * a.facing > 0 for a, b in moving)
    # at an end she stands while she turns round
    turns = [i for i, ((_, a), (_, b)) in enumerate(itertools.pairwise(steps))
             if a.clip == WALK and b.clip == WALK and a.facing != b.facing]
    i = turns[0] + 1
    held = [s.x for _, s in steps[i:i + 15]]
    assert max(held) - min(held) < 1e-6


def test_a_narrow_surface_moves_her_nowhere():
    plan = WalkPlan(random.Random(2), interval=(1.0, 2.0), min_room=40.0)
    steps, _ = run(plan, 0.0, 30.0, 110.0, span=(100.0, 120.0))
    assert all(s.clip is None and s.x is None for _, s in steps)


def test_never_starts_while_busy_and_tries_again_later():
    plan = WalkPlan(random.Random(3), interval=(60.0, 60.0), retry=(15.0, 45.0))
    steps, _ = run(plan, 0.0, 200.0, 400.0, busy="talking")
    assert all(s.clip is None and s.x is None for _, s in steps)
    wakes = sorted({round(s.wake_at, 3) for _, s in steps})
    assert wakes[0] == 60.0
    gaps = [b - a for a, b in itertools.pairwise(wakes)]
    assert gaps and all(15.0 - DT <= g <= 45.0 + DT for g in gaps)


def test_stops_the_moment_she_becomes_busy_or_loses_her_surface():
    for trouble in ("busy", "no surface"):
        plan = WalkPlan(random.Random(5), interval=(1.0, 1.0), walk_seconds=(8.0, 8.0))
        steps, x = run(plan, 0.0, 3.0, 400.0)
        assert steps[-1][1].clip == WALK
        if trouble == "busy":
            step = plan.update(3.0, x, SPAN, "dragged", SPEED)
        else:
            step = plan.update(3.0, x, None, None, SPEED)
        assert step.clip is None and step.x is None and not step.moving and step.facing == 0
        assert 3.0 + 15.0 <= step.wake_at <= 3.0 + 45.0


def test_a_stalled_tick_does_not_teleport_her():
    plan = WalkPlan(random.Random(6), interval=(1.0, 1.0), walk_seconds=(9.0, 9.0))
    _, x = run(plan, 0.0, 2.0, 400.0, span=(0.0, 5000.0))
    step = plan.update(2.0 + 5.0, x, (0.0, 5000.0), None, SPEED)  # 5 s without a tick
    assert abs(step.x - x) <= SPEED * 0.1 + 1e-6


def test_on_a_window_top_she_sometimes_sits_a_while():
    sat = walked = 0
    for seed in range(40):
        plan = WalkPlan(random.Random(seed), interval=(1.0, 1.0), sit_chance=0.3,
                        sit_seconds=(20.0, 30.0))
        steps, _ = run(plan, 0.0, 2.0, 400.0, on_window=True)
        clips = {s.clip for _, s in steps} - {None}
        if clips == {SIT}:
            sat += 1
            sitting = [s for _, s in steps if s.clip == SIT]
            assert all(s.x is None and s.facing == 0 and not s.moving for s in sitting)
            end = plan.until
            assert 21.0 <= end <= 31.0
            more, _ = run(plan, 2.0, 40.0, 400.0, on_window=True)
            assert next(s.clip for t, s in more if t > end + DT) is None
        elif clips == {WALK}:
            walked += 1
    assert 5 <= sat <= 25 and sat + walked == 40
    plan = WalkPlan(random.Random(0), interval=(1.0, 1.0), sit_chance=1.0)
    steps, _ = run(plan, 0.0, 3.0, 400.0, on_window=False)  # on the panel: never sits
    assert SIT not in {s.clip for _, s in steps}


def test_bad_ranges_are_refused():
    with pytest.raises(ValueError):
        WalkPlan(random.Random(0), interval=(0.0, 10.0))
    with pytest.raises(ValueError):
        WalkPlan(random.Random(0), walk_seconds=(9.0, 3.0))
