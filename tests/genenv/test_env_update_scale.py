"""The LLM pi_env update at GPU scale, checked on CPU: the KL cap's rollback without a copy of the
weights, the dtype and reference-placement choices, and each process's share of a step."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("transformers")

from coevo.genenv.adamw_undo import undo_adamw_step  # noqa: E402
from coevo.genenv.env_update import (  # noqa: E402
    LLMExample,
    _my_rows,
    reference_placement,
    update_dtype,
    update_llm,
)

GB = 2**30


def test_undo_reverses_an_adamw_step_with_weight_decay() -> None:
    import torch

    torch.manual_seed(0)
    layer = torch.nn.Linear(16, 8)
    optimizer = torch.optim.AdamW(layer.parameters(), lr=1e-2, weight_decay=0.1)
    x = torch.randn(4, 16)
    for _ in range(3):  # the undo must use the bias corrections of the step it reverses
        optimizer.zero_grad()
        layer(x).pow(2).sum().backward()
        optimizer.step()
    before = [p.detach().clone() for p in layer.parameters()]
    optimizer.zero_grad()
    layer(x).pow(2).sum().backward()
    optimizer.step()
    moved = max((p - b).abs().max().item() for p, b in zip(layer.parameters(), before))
    assert moved > 1e-3  # the step did move the weights
    assert undo_adamw_step(optimizer) == 2
    assert max((p - b).abs().max().item() for p, b in zip(layer.parameters(), before)) < 1e-6


def test_undo_refuses_steps_it_cannot_describe() -> None:
    import torch

    layer = torch.nn.Linear(2, 2)
    optimizer = torch.optim.AdamW(layer.parameters(), amsgrad=True)
    with pytest.raises(ValueError, match="amsgrad"):
        undo_adamw_step(optimizer)


def test_dtype_and_reference_placement_choices() -> None:
    assert update_dtype("auto", "cuda", True) == "bfloat16"
    assert update_dtype("auto", "cuda", False) == "float32"
    assert update_dtype("auto", "cpu", False) == "float32"
    assert update_dtype("bfloat16", "cpu", False) == "bfloat16"  # asked for: honoured
    with pytest.raises(ValueError, match="dtype"):
        update_dtype("fp16", "cuda", True)
    # 7B in bf16 on an 80 GB card: 13.5 GB of weights loaded, gradients and AdamW's moments (40.5 GB)
    # to come at the first step, 8 GB for activations: the reference (13.5 GB) fits beside them
    # only on a card with 62 GB free
    seven_b, to_come = int(13.5 * GB), int(40.5 * GB) + 8 * GB
    assert reference_placement("auto", "cuda", 66 * GB, seven_b, to_come) == "device"
    assert reference_placement("auto", "cuda", 60 * GB, seven_b, to_come) == "cpu_offload"
    assert reference_placement("device", "cuda", 1 * GB, seven_b, 8 * GB) == "device"
    assert reference_placement("cpu_offload", "cuda", 80 * GB, seven_b, 8 * GB) == "cpu_offload"
    assert reference_placement("cpu_offload", "cpu", None, seven_b, 8 * GB) == "device"  # nothing to offload to
    with pytest.raises(ValueError, match="placement"):
        reference_placement("disk", "cuda", None, 1, 1)


def test_each_process_takes_its_share_of_a_step_and_none_is_idle() -> None:
    batch = [5, 1, 7, 3, 2]
    shares = [_my_rows(batch, r, 2) for r in range(2)]
    assert shares == [[5, 7, 2], [1, 3]] and sorted(shares[0] + shares[1]) == sorted(batch)
    assert [_my_rows([4, 9], r, 3) for r in range(3)] == [[4], [9], [4]]  # more processes than rows


def _examples() -> list[LLMExample]:
    messages = [{"role": "user", "content": "Write a task."}]
    outputs = ["add 2 and 3", "multiply 4 by 5", "subtract 1 from 9", "divide 8 by 2"]
    return [LLMExample(messages, text, 1.0 + i) for i, text in enumerate(outputs)]


def _weights(directory: Path) -> dict:
    from safetensors.torch import load_file

    state: dict = {}
    for shard in sorted(directory.glob("*.safetensors")):
        state.update(load_file(str(shard)))
    return state


def _max_difference(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max((a[k].float() - b[k].float()).abs().max().item() for k in a)


def _update(model: Path, out: Path, *, steps: int, kl_cap: float) -> dict[str, float]:
    return update_llm(
        model,
        model,
        out,
        _examples(),
        lr=1e-2,
        steps=steps,
        batch_size=4,
        kl_coef=0.1,
        kl_cap=kl_cap,
        prefix="",
        seed=3,
        dtype="float32",
    )


def test_the_cap_goes_back_to_the_weights_before_the_step_that_crossed_it(tmp_path: Path) -> None:
    """Capped after k steps, the saved model is the k-step model of the same seed (the step past
    the cap undone, not kept); capped at once, it is the starting model."""
    from coevo.models.tiny import build_tiny_model

    model = build_tiny_model(tmp_path / "model", seed=2)
    # The KL to the starting policy is measured before each step: of the 1-step and 2-step weights.
    one_step_kl = _update(model, tmp_path / "two", steps=2, kl_cap=1e9)["kl_step"]  # measured, never reached
    free = _update(model, tmp_path / "free", steps=3, kl_cap=1e9)
    assert free["steps"] == 3 and free["capped"] == 0 and free["kl_step"] > one_step_kl > 0
    # A cap between them: step 2's check crosses it, and the step that made those weights is undone.
    capped = _update(model, tmp_path / "capped", steps=6, kl_cap=(one_step_kl + free["kl_step"]) / 2)
    assert capped["capped"] == 1.0 and capped["steps"] == 1.0
    one = _update(model, tmp_path / "one", steps=1, kl_cap=float("inf"))
    assert one["steps"] == 1.0
    assert _max_difference(_weights(tmp_path / "capped"), _weights(tmp_path / "one")) < 1e-5
    assert _max_difference(_weights(tmp_path / "free"), _weights(tmp_path / "one")) > 1e-3
    # the cap crossed at the first check: the first step is undone as well
    at_once = _update(model, tmp_path / "at-once", steps=4, kl_cap=1e-12)
    assert at_once["capped"] == 1.0 and at_once["steps"] == 0.0
    assert _max_difference(_weights(tmp_path / "at-once"), _weights(model)) < 1e-5


def test_bf16_weights_are_trained_and_saved_in_bf16(tmp_path: Path) -> None:
    import torch

    from coevo.models.tiny import build_tiny_model

    model = build_tiny_model(tmp_path / "model", seed=2)
    stats = update_llm(
        model,
        model,
        tmp_path / "out",
        _examples(),
        lr=5e-2,
        steps=2,
        batch_size=2,
        kl_coef=0.1,
        kl_cap=float("inf"),
        prefix="",
        dtype="bfloat16",
        reference="cpu_offload",
    )
    assert stats["steps"] == 2 and stats["kl_ref"] > 0
    saved = _weights(tmp_path / "out")
    assert {t.dtype for t in saved.values()} == {torch.bfloat16}
    assert _max_difference(saved, _weights(model)) > 1e-3
