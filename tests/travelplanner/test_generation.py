"""Generated queries follow the official element rules and are proven feasible by the expert."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from coevo.envs.travelplanner.budget import Unbudgetable, estimate_budgets, level_budget, round_to_hundreds
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.scoring import evaluate_plan
from coevo.envs.travelplanner.tasks import CELLS, cell_of, generate_task, spoken_date
from tests.travelplanner.tiny import query

SAMPLE = range(18)  # two tasks of every (level, days) cell


@pytest.fixture(scope="module")
def tasks(generated: Sandbox) -> list:
    return [generate_task(generated, 0, "validation", i) for i in SAMPLE]


def test_cells_cycle_over_levels_and_days() -> None:
    assert len(CELLS) == 9 and {cell_of(i) for i in range(9)} == {
        (l, d) for l in ("easy", "medium", "hard") for d in (3, 5, 7)
    }
    assert [cell_of(i) for i in range(45)].count(("hard", 7)) == 5


def test_elements_follow_the_official_rules(generated: Sandbox, tasks: list) -> None:
    for index, task in zip(SAMPLE, tasks):
        q = task.query
        assert (q.level, q.days) == cell_of(index)
        assert q.visiting_city_number == {3: 1, 5: 2, 7: 3}[q.days]
        first = date.fromisoformat(q.date[0])
        assert list(q.date) == [(first + timedelta(days=i)).isoformat() for i in range(q.days)]
        assert date(2022, 3, 1) <= first and date.fromisoformat(q.date[-1]) <= date(2022, 3, 31)
        org_state = generated.city_state[q.org]
        if q.days == 3:
            assert generated.city_state[q.dest] != org_state
        else:
            assert q.dest != org_state and len(generated.state_cities[q.dest]) > 3
        set_keys = [k for k, v in q.local_constraint.items() if v is not None]
        if q.level == "easy":
            assert q.people_number == 1 and set_keys == []
        elif q.level == "medium":
            assert 2 <= q.people_number <= 8 and len(set_keys) == 1 and set_keys[0] != "transportation"
        else:
            assert 2 <= q.people_number <= 8 and len(set_keys) == 3
        if q.constraint("cuisine"):
            assert len(q.constraint("cuisine")) == (2 if q.level == "medium" else 4)
        if q.people_number > 2 and q.constraint("room type"):
            assert q.constraint("room type") in ("private room", "entire room")
        budgets = estimate_budgets(
            generated,
            q.org,
            q.dest,
            q.days,
            q.date,
            people=None if q.level == "easy" else q.people_number,
            local_constraint=q.local_constraint if q.level == "hard" else None,
        )
        assert q.budget == level_budget(q.level, q.days, q.people_number, budgets) and q.budget % 100 == 0
        for fact in (q.org, q.dest, f"${q.budget:,}", spoken_date(q.date[0]), spoken_date(q.date[-1])):
            assert fact in q.query


def test_every_generated_query_has_a_passing_expert_plan(generated: Sandbox, tasks: list) -> None:
    for task in tasks:
        assert task.itinerary.cost <= task.query.budget
        evaluation = evaluate_plan(task.query, task.itinerary.plan(), generated)
        assert evaluation.final_pass, evaluation.to_dict()
        assert evaluation.cost == pytest.approx(task.itinerary.cost)


def test_tasks_are_deterministic_and_seeded(generated: Sandbox, tasks: list) -> None:
    assert generate_task(generated, 0, "validation", 4).query == tasks[4].query
    assert generate_task(generated, 1, "validation", 4).query != tasks[4].query
    assert generate_task(generated, 0, "test", 4).query != tasks[4].query


# ------------------------------------------------------------------ budget rules (tiny sandbox)
def test_budget_estimate_on_known_prices(tiny: Sandbox) -> None:
    dates = ("2022-03-01", "2022-03-02", "2022-03-03")
    budgets = estimate_budgets(tiny, "Springfield", "Rivertown", 3, dates)
    # flights 100/150 x2, listings 40..500 (avg 205) x3, meals 10..40 (avg 23) x9
    assert budgets == {"lowest": 410, "highest": 2160, "average": 1072}
    assert level_budget("easy", 3, 1, budgets) == 700
    pair = estimate_budgets(tiny, "Springfield", "Rivertown", 3, dates, people=2)  # drops the 1-person bunk
    assert level_budget("medium", 3, 2, pair) == round_to_hundreds((1237 + 530) / 2 * 2 * 0.75) == 1300


def test_budget_rejections(tiny: Sandbox) -> None:
    march_first = ("2022-03-01", "2022-03-02", "2022-03-03")
    estimate_budgets(tiny, "Springfield", "Rivertown", 3, march_first, 2, {"transportation": "no self-driving"})
    with pytest.raises(Unbudgetable):  # fewer than two flights on the first day
        estimate_budgets(tiny, "Springfield", "Rivertown", 3, ("2022-03-02",), 2, {"transportation": "no self-driving"})
    with pytest.raises(Unbudgetable):  # fewer than three shared rooms
        estimate_budgets(tiny, "Springfield", "Rivertown", 3, march_first, 1, {"room type": "shared room"})
    with pytest.raises(Unbudgetable):  # no flights at all
        estimate_budgets(tiny, "Springfield", "Lakeside", 3, march_first)
    assert round_to_hundreds(250) == 200 and round_to_hundreds(350) == 400  # Python's round, as officially


def test_the_expert_respects_each_constraint(tiny: Sandbox) -> None:
    from coevo.envs.travelplanner.expert import plan_for

    cheapest = plan_for(query(budget=5000), tiny)
    assert cheapest is not None and evaluate_plan(query(budget=5000), cheapest.plan(), tiny).final_pass
    for constraint in (
        {"room type": "private room"},
        {"transportation": "no flight"},
        {"house rule": "smoking"},
        {"cuisine": ["Indian", "Mexican"]},
        {"transportation": "no self-driving"},
    ):
        q = query(budget=5000, level="hard", local_constraint=constraint)
        itinerary = plan_for(q, tiny)
        assert itinerary is not None, constraint
        assert evaluate_plan(q, itinerary.plan(), tiny).final_pass, constraint
    assert plan_for(query(local_constraint={"room type": "shared room"}, people_number=1), tiny) is not None
    # The only shared room in Rivertown forbids visitors.
    impossible = query(local_constraint={"room type": "shared room", "house rule": "visitors"})
    assert plan_for(impossible, tiny) is None
