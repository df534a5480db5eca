"""Configurations that cannot learn are refused before any work starts, naming the setting."""

from __future__ import annotations

import pytest

from coevo.genenv.config import preset


def test_a_grpo_group_of_one_is_refused() -> None:
    with pytest.raises(ValueError, match="group of at least 2"):
        preset("ci", group_size=1).validated()


def test_a_band_no_group_can_reach_is_refused() -> None:
    # A group of 3 gives p_hat in {0, 1/3, 2/3, 1}: none within 0.1 of 0.5.
    with pytest.raises(ValueError, match="no task can ever be in band"):
        preset("ci", group_size=3, alpha=0.5, k_min=0.1).validated()
    # soft_band lets every task count (weighted by R_env): a fallback, so it is accepted.
    assert preset("ci", group_size=3, k_min=0.1, env_rwr_average="soft_band").validated().group_size == 3
    for name in ("ci", "cpu-demo", "paper"):
        preset(name).validated()


def test_scoring_on_a_split_the_agent_trains_on_is_refused() -> None:
    for split in ("generated", "base"):
        with pytest.raises(ValueError, match="simulator:heldout"):
            preset("ci", heldout=(f"simulator:{split}:10",)).validated()


def test_a_band_the_simulator_contract_refuses_is_refused_by_the_config() -> None:
    """The config hands the simulator a CurriculumContext each epoch: a k_min past 1 (every
    p_hat in band) would be refused then, so the config refuses it before any work."""
    with pytest.raises(ValueError, match="k_min: Input should be less than or equal to 1"):
        preset("ci", k_min=1.5).validated()
