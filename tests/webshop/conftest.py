"""Small WebShop catalogs built once per test session (generated, and from WebShop-format files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coevo.envs.webshop.records import option_value
from coevo.envs.webshop.tasks import build, generate

GENERATED_PRODUCTS = 400
FILE_PRODUCTS = 200


@pytest.fixture(scope="session")
def generated_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("webshop") / "generated"
    build(folder, products=GENERATED_PRODUCTS, seed=7)
    return folder


def write_webshop_files(folder: Path, n: int, seed: int) -> dict[str, list[dict]]:
    """WebShop's three data files for a generated catalog, with human goals for every 3rd product."""
    folder.mkdir(parents=True, exist_ok=True)
    records, ins, human = [], {}, {}
    for i, (record, instruction) in enumerate(generate(n, seed)):
        records.append(record)
        ins[record["asin"]] = {k: instruction[k] for k in ("attributes", "instruction", "instruction_attributes")}
        if i % 3 == 0:
            options = [option_value(v[0]["value"]) for v in record["customization_options"].values()]
            human[record["asin"]] = [
                {
                    "asin": record["asin"],
                    "instruction": f"i need {record['query']} that is {instruction['instruction_attributes'][0]}.",
                    "attributes": instruction["attributes"],
                    "options": options,
                    "instruction_attributes": instruction["instruction_attributes"][:1],
                    "instruction_options": options,
                },
                # WebShop skips human goals without attributes
                {
                    "asin": record["asin"],
                    "instruction": "anything",
                    "instruction_attributes": [],
                    "instruction_options": [],
                },
            ]
    # WebShop's loader skips "nan" and duplicate ASINs
    records.insert(5, {**records[0], "name": "a duplicate"})
    records.insert(9, {**records[1], "asin": "nan"})
    (folder / f"items_shuffle_{n}.json").write_text(json.dumps(records))
    (folder / f"items_ins_v2_{n}.json").write_text(json.dumps(ins))
    (folder / "items_human_ins.json").write_text(json.dumps(human))
    return {"records": records}


@pytest.fixture(scope="session")
def files_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("webshop-files")
    write_webshop_files(root / "data", FILE_PRODUCTS, seed=3)
    build(root / "built", data=root / "data", seed=3)
    return root / "built"
