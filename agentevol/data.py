"""Training examples from AgentTraj records: chat-template tokens, assistant-only labels, weights.

Each conversation is rendered with the model's own chat template — the same text the policy is
prompted with at rollout time — and cut into segments at assistant turns, so the labels cover
exactly the assistant replies whose `loss` is true (their end-of-turn token included: the model
must learn to stop) and nothing the env or the prompt wrote.

The weight of an example is what the learning objective gives its trajectory: its reward
(the paper's reward-weighted log-likelihood), or 1 for trajectories that pass the reward filter.
The filter is AgentGym's: explored trajectories with reward >= the threshold, at most one per
instruction (the highest reward; ties go to the lowest sample index, then the earlier record).
"""

from __future__ import annotations

import json

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coevo.client.agenttraj import validate_record

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

_ROLE = {"human": "user", "gpt": "assistant", "system": "system"}
IGNORE = -100


class TemplateError(ValueError):
    """The chat template renders an earlier turn differently once later turns follow it."""


@dataclass
class Example:
    item_id: str
    input_ids: list[int]
    labels: list[int]
    weight: float

    @property
    def trained_tokens(self) -> int:
        return sum(1 for t in self.labels if t != IGNORE)


def to_messages(record: Mapping[str, Any]) -> tuple[list[dict[str, str]], list[bool]]:
    """Chat messages of an AgentTraj record and, per message, whether it is trained on."""
    messages, trained = [], []
    for turn in record["conversations"]:
        messages.append({"role": _ROLE[turn["from"]], "content": turn["value"]})
        trained.append(turn["from"] == "gpt" and bool(turn.get("loss", True)))
    return messages, trained


def _render(tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, str]], generation_prompt: bool) -> str:
    if not messages:
        return ""
    return str(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt))


def tokenize_record(
    tokenizer: PreTrainedTokenizerBase, record: Mapping[str, Any], max_length: int, weight: float = 1.0
) -> Example | None:
    """Token ids and labels (IGNORE outside trained assistant replies), cut to `max_length`
    from the start; None when nothing trainable is left."""
    messages, trained = to_messages(record)
    last_trained = max((i for i, t in enumerate(trained) if t), default=-1)
    if last_trained < 0:
        return None
    ids: list[int] = []
    labels: list[int] = []
    done_text = ""

    def add(text: str, learn: bool) -> None:
        if not text:
            return
        piece = tokenizer(text, add_special_tokens=False)["input_ids"]
        ids.extend(piece)
        labels.extend(piece if learn else [IGNORE] * len(piece))

    for i in range(last_trained + 1):
        if messages[i]["role"] != "assistant":
            continue
        prefix = _render(tokenizer, messages[:i], generation_prompt=True)
        full = _render(tokenizer, messages[: i + 1], generation_prompt=False)
        if not prefix.startswith(done_text) or not full.startswith(prefix):
            raise TemplateError(
                "the chat template does not render conversations incrementally (an earlier turn changes when "
                "later turns follow), so assistant tokens cannot be located"
            )
        add(prefix[len(done_text) :], False)
        add(full[len(prefix) :], trained[i])
        done_text = full
        if len(ids) >= max_length:
            break
    ids, labels = ids[:max_length], labels[:max_length]
    if all(label == IGNORE for label in labels):
        return None
    return Example(str(record.get("item_id", "")), ids, labels, float(weight))


#: The BC stage's rule (also D_s's under the filter objective): every demonstration with a
#: positive reward counts once.
BC_OBJECTIVE = "bc"


def objective_weight(reward: float, objective: str, threshold: float) -> float:
    """How much a trajectory counts: its reward (clipped at 0), 1/0 through the reward filter
    (reward >= threshold), or 1/0 for a demonstration (reward > 0)."""
    if objective == "filter":
        return 1.0 if reward >= threshold else 0.0
    if objective == BC_OBJECTIVE:
        return 1.0 if reward > 0 else 0.0
    return max(0.0, float(reward))


def instruction_of(item_id: str) -> tuple[str, int]:
    """The instruction an AgentTraj item id played and its sample index: exploration writes
    `ENV_TASK#K` for sample K; ids without a `#K` suffix are sample 0."""
    head, sep, tail = item_id.rpartition("#")
    return (head, int(tail)) if sep and tail.isdigit() else (item_id, 0)


def filter_explored(records: Iterable[Mapping[str, Any]], threshold: float) -> list[dict[str, Any]]:
    """AgentGym's filter on explored trajectories: reward >= threshold, and one trajectory per
    instruction — the highest reward, ties to the lowest sample index, then the earlier record —
    in the order the instructions first appear."""
    best: dict[str, tuple[tuple[float, int, int], dict[str, Any]]] = {}
    for position, raw in enumerate(records):
        record = validate_record(raw, f"record {position}")
        if record["reward"] < threshold:
            continue
        instruction, sample = instruction_of(record["item_id"])
        rank = (-record["reward"], sample, position)
        if instruction not in best or rank < best[instruction][0]:
            best[instruction] = (rank, record)
    return [record for _, record in best.values()]


def distinct_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Records once each by instruction and conversation (the same reply to the same instruction,
    explored in two iterations, counts once), the first kept, in order."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for raw in records:
        record = dict(raw)
        key = (
            instruction_of(str(record.get("item_id", "")))[0],
            json.dumps(record.get("conversations"), sort_keys=True),
        )
        if key not in seen:
            seen.add(key)
            kept.append(record)
    return kept


def build_examples(
    tokenizer: PreTrainedTokenizerBase,
    records: Iterable[Mapping[str, Any]],
    *,
    max_length: int,
    objective: str = "reward_weighted",
    threshold: float = 0.0,
) -> list[Example]:
    """Validated, weighted, tokenized examples; zero-weight trajectories are left out (they add
    no gradient under either objective)."""
    examples = []
    for i, raw in enumerate(records):
        record = validate_record(raw, f"record {i}")
        weight = objective_weight(record["reward"], objective, threshold)
        if weight <= 0.0:
            continue
        example = tokenize_record(tokenizer, record, max_length, weight)
        if example is not None:
            examples.append(example)
    return examples


def learning_examples(
    tokenizer: PreTrainedTokenizerBase,
    demonstrations: Sequence[Mapping[str, Any]],
    explored: Sequence[Mapping[str, Any]],
    *,
    max_length: int,
    objective: str,
    threshold: float,
) -> list[Example]:
    """An iteration's training set from D_s and D_m. reward_weighted: both, each weighted by its
    reward (the paper); filter: D_s as in BC plus AgentGym's selection of D_m, weight 1."""
    if objective != "filter":
        return build_examples(tokenizer, [*demonstrations, *explored], max_length=max_length, objective=objective)
    kept = filter_explored(explored, threshold)
    return [
        *build_examples(tokenizer, demonstrations, max_length=max_length, objective=BC_OBJECTIVE),
        *build_examples(tokenizer, kept, max_length=max_length, objective="filter", threshold=threshold),
    ]


def dataset_rows(examples: Sequence[Example]) -> list[dict[str, Any]]:
    return [{"input_ids": e.input_ids, "labels": e.labels, "weight": e.weight} for e in examples]
