"""Plans as JSON, Python literals and the official text form."""

from __future__ import annotations

import json

import pytest

from coevo.envs.travelplanner.plans import PlanFormatError, parse_plan, render_text
from tests.travelplanner.tiny import plan

OFFICIAL_TEXT = """Travel Plan:
Day 1:
Current City: from Springfield to Rivertown
Transportation: Flight Number: F0000001, from Springfield to Rivertown, Departure Time: 08:00, Arrival Time: 09:30
Breakfast: -
Attraction: River Museum, Rivertown
Lunch: Blue Spoon, Rivertown
Dinner: Red Fork, Rivertown
Accommodation: Sunny Loft Downtown, Rivertown

Day 2:
Current City: Rivertown
Transportation: -
Breakfast: Green Bowl, Rivertown
Attraction: Old Mill Park, Rivertown;City Zoo, Rivertown.
Lunch: Golden Grill, Rivertown
Dinner: Tea House, Rivertown
Accommodation: Sunny Loft Downtown, Rivertown

Day 3:
Current City: from Rivertown to Springfield
Transportation: Flight Number: F0000003, from Rivertown to Springfield, Departure Time: 20:00, Arrival Time: 21:30
Breakfast: -
Attraction: -
Lunch: -
Dinner: -
Accommodation: -
"""


def test_json_forms() -> None:
    p = plan()
    assert parse_plan(json.dumps(p)) == p
    assert parse_plan(json.dumps({"plan": p})) == p
    assert parse_plan("Here it is:\n```json\n" + json.dumps(p, indent=2) + "\n```") == p
    assert parse_plan(str(p + [{}, {}])) == p + [{}, {}]  # the official annotations' Python literal


def test_official_text_form_is_converted_like_the_official_postprocessing() -> None:
    assert parse_plan(OFFICIAL_TEXT) == plan()


def test_text_form_fills_missing_fields_and_strips_dollars() -> None:
    days = parse_plan("Day 1:\nCurrent City: from A to B\nTransportation: Taxi; Cost: $50\n")
    assert days == [
        {
            "days": 1,
            "current_city": "from A to B",
            "transportation": "Taxi; Cost: 50",
            "breakfast": "-",
            "attraction": "-",
            "lunch": "-",
            "dinner": "-",
            "accommodation": "-",
        }
    ]


def test_render_text_round_trips() -> None:
    assert parse_plan(render_text(plan())) == plan()


@pytest.mark.parametrize("text", ["I could not find a plan.", "[1, 2]", '{"days": 1}', "[{'a': 1", ""])
def test_unreadable_plans_raise(text: str) -> None:
    with pytest.raises(PlanFormatError):
        parse_plan(text)
