"""The parametric environment policy and its RWR update (weighted maximum likelihood)."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from coevo.simulator.policies.parametric import ParametricPolicy

FAMILY = "function_calling"


def easy(knobs: dict) -> bool:
    return knobs["n_tools"] == 1 and knobs["n_args"] == 1


def test_sampling_follows_the_distribution() -> None:
    policy = ParametricPolicy([FAMILY])
    policy.logits[FAMILY]["n_tools"] = np.log(np.array([0.7, 0.15, 0.1, 0.05]))
    rng = random.Random(0)
    counts = Counter(policy.sample(rng)[1]["n_tools"] for _ in range(20000))
    assert counts[1] / 20000 == pytest.approx(0.7, abs=0.015)
    assert counts[8] / 20000 == pytest.approx(0.05, abs=0.01)


def test_proposals_are_deterministic_and_carry_their_knobs() -> None:
    policy = ParametricPolicy([FAMILY])
    a, b = policy.propose(5, seed=11), policy.propose(5, seed=11)
    assert [p.task.task_id for p in a] == [p.task.task_id for p in b]
    assert [p.task.task_id for p in policy.propose(5, seed=12)] != [p.task.task_id for p in a]
    for p in a:
        assert p.context["family"] == FAMILY and p.task.meta["knobs"] == p.context["knobs"]


def test_save_load_roundtrip_and_version(tmp_path) -> None:
    policy = ParametricPolicy([FAMILY])
    v0 = policy.version
    policy.logits[FAMILY]["phrasing"] = np.array([2.0, -1.0])
    assert policy.version != v0
    policy.save(tmp_path / "p.json")
    other = ParametricPolicy([FAMILY])
    other.load(tmp_path / "p.json")
    assert other.version == policy.version
    np.testing.assert_allclose(other.knob_probs(FAMILY, "phrasing"), policy.knob_probs(FAMILY, "phrasing"))
    (tmp_path / "bad.json").write_text('{"kind": "llm"}')
    with pytest.raises(ValueError):
        other.load(tmp_path / "bad.json")
    # a file saved before the family gained a knob is refused by name, not with a KeyError
    old = policy.to_json()
    del old["logits"][FAMILY]["tool"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    with pytest.raises(ValueError, match="function_calling.tool"):
        other.load(tmp_path / "old.json")


def _samples(policy: ParametricPolicy, n: int, seed: int) -> list:
    rng = random.Random(seed)
    return [policy.sample(rng) for _ in range(n)]


def test_rwr_moves_mass_toward_the_weighted_samples() -> None:
    initial = ParametricPolicy([FAMILY])
    drawn = _samples(initial, 400, 0)
    kept = [s for s in drawn if easy(s[1])]
    weights = np.ones(len(kept))
    new, stats = initial.fit_weighted(kept, weights, reference=initial, lr=0.5, steps=60, kl_coef=0.01, kl_cap=10.0)
    assert new.knob_probs(FAMILY, "n_tools")[0] > 0.8
    assert new.knob_probs(FAMILY, "n_args")[0] > 0.8
    # knobs the kept samples do not favour stay near uniform
    assert new.knob_probs(FAMILY, "phrasing") == pytest.approx([0.5, 0.5], abs=0.15)
    ll_before = np.mean([initial.log_prob(*s) for s in kept])
    ll_after = np.mean([new.log_prob(*s) for s in kept])
    assert ll_after > ll_before
    assert stats["scale"] == 1.0


def test_the_cap_limits_each_update_and_the_penalty_keeps_support() -> None:
    initial = ParametricPolicy([FAMILY])
    kept = [s for s in _samples(initial, 400, 1) if easy(s[1])]
    new, stats = initial.fit_weighted(
        kept, np.ones(len(kept)), reference=initial, lr=1.0, steps=200, kl_coef=0.05, kl_cap=0.2
    )
    assert stats["kl_step"] <= 0.2 + 1e-6 and stats["scale"] < 1.0
    assert new.kl_to(initial) == pytest.approx(stats["kl_step"])
    # the KL penalty to the initial distribution keeps every value reachable
    free, _ = initial.fit_weighted(
        kept, np.ones(len(kept)), reference=initial, lr=1.0, steps=400, kl_coef=0.5, kl_cap=100.0
    )
    assert free.knob_probs(FAMILY, "n_tools").min() > 0.01


def test_weights_decide_which_samples_count() -> None:
    initial = ParametricPolicy([FAMILY])
    drawn = _samples(initial, 300, 2)
    weights = np.array([1.0 if s[1]["phrasing"] == "natural" else 1e-6 for s in drawn])
    new, _ = initial.fit_weighted(drawn, weights, reference=initial, lr=0.5, steps=60, kl_coef=0.0, kl_cap=10.0)
    assert new.knob_probs(FAMILY, "phrasing")[1] > 0.9


def test_kl_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(0)
    ref = ParametricPolicy([FAMILY])
    policy = ref.with_vector(rng.normal(size=ref.vector().size))
    grad = policy._kl_grad(ref)
    theta = policy.vector()
    for i in rng.choice(theta.size, 6, replace=False):
        e = np.zeros_like(theta)
        e[i] = 1e-5
        numeric = (ref.with_vector(theta + e).kl_to(ref) - ref.with_vector(theta - e).kl_to(ref)) / 2e-5
        assert grad[i] == pytest.approx(numeric, abs=1e-6)


def test_empty_update_changes_nothing() -> None:
    initial = ParametricPolicy([FAMILY])
    new, stats = initial.fit_weighted([], [], reference=initial)
    assert new.version == initial.version and stats["steps"] == 0


def test_a_single_sample_concentrates_pi_env_unless_its_pull_is_scaled() -> None:
    """One in-band task and KL coefficient 0.3: averaged over the in-band samples alone, the
    fit puts over 0.9 on that task's value of every knob; scaled by the in-band share of a batch
    of ten (band_mass 0.1), the KL penalty keeps it below 0.8."""
    initial = ParametricPolicy([FAMILY])
    one = [
        (
            FAMILY,
            {
                "n_tools": 2,
                "n_args": 3,
                "signature": "full",
                "phrasing": "natural",
                "numbers": "words",
                "tool": "rent_car",
            },
        )
    ]
    kwargs = dict(reference=initial, lr=0.5, steps=400, kl_coef=0.3, kl_cap=100.0)
    alone, _ = initial.fit_weighted(one, [1.0], **kwargs)
    scaled, _ = initial.fit_weighted(one, [1.0], likelihood_scale=0.1, **kwargs)
    assert alone.knob_probs(FAMILY, "n_args")[2] > 0.9 and alone.knob_probs(FAMILY, "numbers")[1] > 0.9
    assert 0.4 < scaled.knob_probs(FAMILY, "n_args")[2] < 0.8 and 0.5 < scaled.knob_probs(FAMILY, "numbers")[1] < 0.8
