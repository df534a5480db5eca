"""The backend table (coevo/models/data/backends.json) is what the factory builds from, so every
row must name a real policy class that takes the options the row lists, and a real install check."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from coevo.client.policies.factory import policy_class
from coevo.client.policies.local import ChatModelPolicy
from coevo.models.registry import BACKENDS, BACKENDS_FILE, load_object, registry


@pytest.mark.parametrize("name", list(registry().backends))
def test_every_row_names_a_policy_that_takes_its_options(name: str) -> None:
    row = registry().backends[name]
    cls = policy_class(name)
    assert isinstance(cls, type) and issubclass(cls, ChatModelPolicy)
    assert "from_model" in vars(cls), f"{cls.__name__} serves no in-memory model"
    params = inspect.signature(cls.__init__).parameters
    assert set(row.options) <= set(params), sorted(set(row.options) - set(params))
    if row.installed is not None:
        assert isinstance(row.is_installed(), bool)
        assert callable(load_object(row.installed))


def test_auto_and_the_fallback_name_backends_of_the_table() -> None:
    table = registry()
    assert BACKENDS == ("auto", *table.backends)
    assert set(table.auto) == {"cuda", "cpu"}
    assert table.in_memory_fallback in table.backends
    assert table.backends[table.in_memory_fallback].in_memory_on is None  # it must serve any device


def test_a_table_with_an_unknown_auto_entry_is_refused(tmp_path: Path) -> None:
    data = json.loads(BACKENDS_FILE.read_text())
    data["auto"]["cpu"] = ["tgi", "transformers"]
    bad = tmp_path / "backends.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="unknown backends"):
        registry(bad)


def test_a_new_backend_is_one_row(tmp_path: Path) -> None:
    data = json.loads(BACKENDS_FILE.read_text())
    data["backends"]["hf-copy"] = dict(data["backends"]["transformers"])
    path = tmp_path / "backends.json"
    path.write_text(json.dumps(data))
    table = registry(path)
    assert "hf-copy" in table.backends and table.backends["hf-copy"].is_installed()
    assert load_object(table.backends["hf-copy"].policy) is policy_class("transformers")
