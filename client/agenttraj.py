"""AgentTraj files: AgentGym's trajectory format as JSONL, JSON, and Hugging Face datasets.

Each record is `{"item_id": str, "conversations": [{"from": "human"|"gpt", "value": str,
"loss": bool|None}], "reward": float, "success": int}`, plus coevo's optional provenance: "status", "env_version", "score_mode".
AgentGym ships its data as a JSON list;
we write JSONL (streamable, appendable) and read both. Records are validated on the way in,
so a malformed user file fails with the line that is wrong rather than deep inside training.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import datasets

_ROLES = {"human", "gpt", "system"}
#: Optional fields coevo adds to each record: its end status (coevo.end_status), and the env
#: version and scoring mode (coevo.score_mode) that scored it. AgentGym's readers ignore them.
PROVENANCE = ("status", "env_version", "score_mode")


class AgentTrajError(ValueError):
    """A record that is not AgentTraj-shaped."""


def validate_record(record: Mapping[str, Any], where: str = "record") -> dict[str, Any]:
    """Check one record and normalise it: loss defaults to True on gpt turns, None on the rest."""
    if not isinstance(record, Mapping):
        raise AgentTrajError(f"{where}: expected an object, got {type(record).__name__}")
    conversations = record.get("conversations")
    if not isinstance(conversations, list) or not conversations:
        raise AgentTrajError(f"{where}: 'conversations' must be a non-empty list")
    turns = []
    for i, turn in enumerate(conversations):
        if not isinstance(turn, Mapping):
            raise AgentTrajError(f"{where}: conversations[{i}] is not an object")
        role, value = turn.get("from"), turn.get("value")
        if role not in _ROLES:
            raise AgentTrajError(f"{where}: conversations[{i}].from is {role!r}; expected one of {sorted(_ROLES)}")
        if not isinstance(value, str):
            raise AgentTrajError(f"{where}: conversations[{i}].value must be a string")
        loss = turn.get("loss", True if role == "gpt" else None)
        if loss is not None and not isinstance(loss, bool):
            raise AgentTrajError(f"{where}: conversations[{i}].loss must be true, false or null")
        turns.append({"from": role, "loss": loss, "value": value})
    reward = record.get("reward", 1.0)
    if not isinstance(reward, (int, float)) or isinstance(reward, bool):
        raise AgentTrajError(f"{where}: 'reward' must be a number")
    success = record.get("success", 1 if reward > 0 else 0)
    checked: dict[str, Any] = {
        "item_id": str(record.get("item_id", where)),
        "conversations": turns,
        "reward": float(reward),
        "success": int(bool(success)),
    }
    for key in PROVENANCE:  # optional: kept when present, so a round trip loses nothing
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            raise AgentTrajError(f"{where}: {key!r} must be a string")
        if key in record:
            checked[key] = value
    return checked


def write_jsonl(path: str | Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Write records one per line; returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    return n


def iter_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Records of a JSONL file or of a JSON list (AgentGym's own files), validated."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AgentTrajError(f"{path}: not valid JSON: {exc}") from None
        for i, item in enumerate(items):
            yield validate_record(item, f"{path}[{i}]")
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AgentTrajError(f"{path}:{lineno}: not valid JSON: {exc}") from None
        yield validate_record(item, f"{path}:{lineno}")


def read_records(path: str | Path) -> list[dict[str, Any]]:
    return list(iter_records(path))


def to_hf_dataset(records: Iterable[Mapping[str, Any]]) -> datasets.Dataset:
    """The records as a `datasets.Dataset` with AgentGym's columns."""
    import datasets

    rows = [validate_record(r, f"record {i}") for i, r in enumerate(records)]
    features = datasets.Features(
        {
            "item_id": datasets.Value("string"),
            "conversations": [
                {"from": datasets.Value("string"), "loss": datasets.Value("bool"), "value": datasets.Value("string")}
            ],
            "reward": datasets.Value("float64"),
            "success": datasets.Value("int64"),
            **{key: datasets.Value("string") for key in PROVENANCE},
        }
    )
    rows = [row | {key: row.get(key) for key in PROVENANCE} for row in rows]
    return datasets.Dataset.from_list(rows, features=features)


def save_hf_dataset(path: str | Path, records: Iterable[Mapping[str, Any]]) -> datasets.Dataset:
    """Write the records with `Dataset.save_to_disk` (reload with `datasets.load_from_disk`)."""
    dataset = to_hf_dataset(records)
    dataset.save_to_disk(str(path))
    return dataset
