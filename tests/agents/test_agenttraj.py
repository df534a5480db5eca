"""AgentTraj files: JSONL and JSON lists in, JSONL and Hugging Face datasets out, bad records rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coevo.client.agenttraj import AgentTrajError, read_records, save_hf_dataset, validate_record, write_jsonl

RECORD = {
    "item_id": "alfworld_3",
    "conversations": [
        {"from": "human", "loss": None, "value": "instructions"},
        {"from": "gpt", "loss": False, "value": "OK."},
        {"from": "human", "loss": None, "value": "You are in a room."},
        {"from": "gpt", "loss": True, "value": "Thought: look.\nAction: look"},
    ],
    "reward": 1.0,
    "success": 1,
}


def test_jsonl_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    assert write_jsonl(path, [RECORD, {**RECORD, "item_id": "alfworld_4", "reward": 0.0, "success": 0}]) == 2
    back = read_records(path)
    assert back[0] == RECORD and back[1]["success"] == 0


def test_agentgym_json_lists_are_read_and_defaults_filled(tmp_path: Path) -> None:
    path = tmp_path / "agentgym.json"
    minimal = {
        "item_id": "webshop_1",
        "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "Action: x"}],
    }
    path.write_text(json.dumps([minimal]))
    (record,) = read_records(path)
    assert record["conversations"][0]["loss"] is None and record["conversations"][1]["loss"] is True
    assert record["reward"] == 1.0 and record["success"] == 1  # AgentTraj without rewards: expert data


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"conversations": []}, "non-empty list"),
        ({"conversations": [{"from": "robot", "value": "x"}]}, "from is 'robot'"),
        ({"conversations": [{"from": "gpt", "value": 3}]}, "value must be a string"),
        ({"conversations": [{"from": "gpt", "value": "x", "loss": "yes"}]}, "loss must be"),
        ({"conversations": [{"from": "gpt", "value": "x"}], "reward": "high"}, "'reward' must be a number"),
    ],
)
def test_malformed_records_name_the_problem(record: dict, message: str) -> None:
    with pytest.raises(AgentTrajError, match=message):
        validate_record(record)


def test_bad_jsonl_line_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(RECORD) + "\n{not json\n")
    with pytest.raises(AgentTrajError, match=r"bad.jsonl:2: not valid JSON"):
        read_records(path)


def test_hugging_face_dataset_round_trip(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    saved = save_hf_dataset(tmp_path / "ds", [RECORD])
    loaded = datasets.load_from_disk(str(tmp_path / "ds"))
    # AgentGym's columns, then coevo's provenance (null where a record has none).
    assert loaded.column_names == [
        "item_id",
        "conversations",
        "reward",
        "success",
        "status",
        "env_version",
        "score_mode",
    ]
    assert loaded[0] == saved[0] == {**RECORD, "status": None, "env_version": None, "score_mode": None}
    tagged = {**RECORD, "status": "success", "env_version": "1", "score_mode": "decoder=lenient"}
    assert save_hf_dataset(tmp_path / "tagged", [tagged])[0] == tagged
