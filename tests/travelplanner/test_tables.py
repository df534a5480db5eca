"""Tables laid out like pandas' DataFrame.to_string(index=False)."""

from __future__ import annotations

import pytest

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.records import Accommodation, Attraction, Flight, Restaurant
from coevo.envs.travelplanner.tables import render_table


def test_layout_rules_without_pandas() -> None:
    text = render_table(("Name", "Price", "Rating"), [("A", 10, 4.5), ("Long name", 200, 3.25)])
    assert text.splitlines() == [
        "     Name  Price  Rating",
        "        A     10    4.50",
        "Long name    200    3.25",
    ]
    # Six decimals, then zeros trimmed column-wide (at least one decimal kept).
    assert render_table(("x",), [(42.2773242,), (1.0,)]).splitlines()[1:] == ["42.277324", " 1.000000"]
    assert render_table(("x",), [(1049.0,), (2.0,)]).splitlines()[1:] == ["1049.0", "   2.0"]


def test_matches_pandas_on_every_table(generated: Sandbox) -> None:
    pd = pytest.importorskip("pandas")
    samples = [
        (Flight.COLUMNS, generated.flights("Chicago", "New York", "2022-03-10")),
        (Accommodation.COLUMNS, generated.accommodations("Austin")),
        (Restaurant.COLUMNS, generated.restaurants("Boston")),
        (Attraction.COLUMNS, generated.attractions("Seattle")),
    ]
    for columns, rows in samples:
        assert rows
        frame = pd.DataFrame([list(r) for r in rows], columns=list(columns))
        assert render_table(columns, rows) == frame.to_string(index=False)
