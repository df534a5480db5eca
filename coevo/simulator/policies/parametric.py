"""The parametric environment policy: a learnable distribution over task-generator knobs.

pi_env(family, knobs) = Cat(family; softmax(theta_F)) * prod_k Cat(knob_k; softmax(theta_{family,k})).
It is trained by reward-weighted regression, i.e. weighted maximum likelihood of the knob
settings that produced well-calibrated tasks, with a KL penalty to the initial distribution
and a cap on how far one update may move (`fit_weighted`).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from coevo.simulator.families import get_family
from coevo.simulator.policies.base import Proposal

FAMILY_KEY = "__family__"


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max())
    return z / z.sum()


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    mask = p > 0
    return float(np.sum(p[mask] * (np.log(p[mask]) - np.log(q[mask]))))


class ParametricPolicy:
    kind = "parametric"

    def __init__(self, families: Sequence[str], logits: Mapping[str, Any] | None = None) -> None:
        if not families:
            raise ValueError("at least one task family is needed")
        self.families = list(families)
        self.knob_values = {f: {k: list(v) for k, v in get_family(f).knobs.items()} for f in self.families}
        self.logits: dict[str, Any] = {FAMILY_KEY: np.zeros(len(self.families))}
        for f, knobs in self.knob_values.items():
            self.logits[f] = {k: np.zeros(len(v)) for k, v in knobs.items()}
        if logits is not None:
            self._set_logits(logits)

    # ------------------------------------------------------------------ parameters
    def _set_logits(self, logits: Mapping[str, Any]) -> None:
        fam = np.asarray(logits[FAMILY_KEY], dtype=float)
        if fam.shape != (len(self.families),):
            raise ValueError("family logits do not match the families")
        self.logits[FAMILY_KEY] = fam
        for f, knobs in self.knob_values.items():
            missing = sorted(set(knobs) - set(logits.get(f, {})))
            if missing:
                raise ValueError(
                    f"the logits have no {f}.{', '.join(missing)} (saved before the family "
                    f"gained that knob?); knobs now: {', '.join(knobs)}"
                )
            for k, values in knobs.items():
                arr = np.asarray(logits[f][k], dtype=float)
                if arr.shape != (len(values),):
                    raise ValueError(f"logits for {f}.{k} do not match its {len(values)} values")
                self.logits[f][k] = arr

    def vector(self) -> np.ndarray:
        parts = [self.logits[FAMILY_KEY]]
        for f, knobs in self.knob_values.items():
            parts += [self.logits[f][k] for k in knobs]
        return np.concatenate(parts)

    def with_vector(self, vec: np.ndarray) -> ParametricPolicy:
        out = ParametricPolicy(self.families)
        i = len(self.families)
        out.logits[FAMILY_KEY] = vec[:i].copy()
        for f, knobs in self.knob_values.items():
            for k, values in knobs.items():
                out.logits[f][k] = vec[i : i + len(values)].copy()
                i += len(values)
        return out

    def copy(self) -> ParametricPolicy:
        return self.with_vector(self.vector())

    @property
    def version(self) -> str:
        raw = np.round(self.vector(), 8).tobytes()
        return "param-" + hashlib.sha256(raw).hexdigest()[:16]

    # ------------------------------------------------------------------ distribution
    def family_probs(self) -> np.ndarray:
        return _softmax(self.logits[FAMILY_KEY])

    def knob_probs(self, family: str, knob: str) -> np.ndarray:
        return _softmax(self.logits[family][knob])

    def sample(self, rng: random.Random, family: str | None = None) -> tuple[str, dict[str, Any]]:
        if family is None:
            family = rng.choices(self.families, weights=self.family_probs().tolist())[0]
        elif family not in self.knob_values:
            raise KeyError(f"family {family!r} is not served by this policy ({self.families})")
        knobs = {
            k: rng.choices(values, weights=self.knob_probs(family, k).tolist())[0]
            for k, values in self.knob_values[family].items()
        }
        return family, knobs

    def log_prob(self, family: str, knobs: Mapping[str, Any], with_family: bool = True) -> float:
        lp = math.log(self.family_probs()[self.families.index(family)]) if with_family else 0.0
        for k, values in self.knob_values[family].items():
            lp += math.log(self.knob_probs(family, k)[values.index(knobs[k])])
        return lp

    def kl_to(self, other: ParametricPolicy) -> float:
        """KL(self || other) of the full factorised distribution."""
        p_f, q_f = self.family_probs(), other.family_probs()
        total = _kl(p_f, q_f)
        for i, f in enumerate(self.families):
            total += p_f[i] * sum(_kl(self.knob_probs(f, k), other.knob_probs(f, k)) for k in self.knob_values[f])
        return total

    def marginals(self) -> dict[str, Any]:
        out: dict[str, Any] = {FAMILY_KEY: dict(zip(self.families, self.family_probs().round(4).tolist()))}
        for f, knobs in self.knob_values.items():
            out[f] = {
                k: {str(v): p for v, p in zip(values, self.knob_probs(f, k).round(4).tolist())}
                for k, values in knobs.items()
            }
        return out

    # ------------------------------------------------------------------ EnvPolicy
    def propose(self, count: int, seed: int, family: str | None = None) -> list[Proposal]:
        proposals = []
        for i in range(count):
            rng = random.Random(f"{seed}:{i}")
            fam, knobs = self.sample(rng, family)
            context = {"family": fam, "knobs": knobs}
            try:
                task = get_family(fam).generate(knobs, rng)
                proposals.append(Proposal(context, json.dumps(context, sort_keys=True), task))
            except Exception as exc:  # a generator bug must show up in the validity rate
                proposals.append(
                    Proposal(context, json.dumps(context, sort_keys=True), None, f"{type(exc).__name__}: {exc}")
                )
        return proposals

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "version": self.version, "marginals": self.marginals()}

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> dict[str, Any]:
        logits: dict[str, Any] = {FAMILY_KEY: self.logits[FAMILY_KEY].tolist()}
        for f, knobs in self.knob_values.items():
            logits[f] = {k: self.logits[f][k].tolist() for k in knobs}
        return {"kind": self.kind, "families": self.families, "logits": logits}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ParametricPolicy:
        if data.get("kind") != cls.kind:
            raise ValueError(f"not a parametric policy file (kind={data.get('kind')!r})")
        return cls(data["families"], data["logits"])

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1))
        tmp.replace(path)

    def load(self, path: str | Path) -> None:
        other = ParametricPolicy.from_json(json.loads(Path(path).read_text()))
        if other.families != self.families:
            raise ValueError(f"policy file serves {other.families}, this simulator {self.families}")
        self._set_logits(other.logits)

    # ------------------------------------------------------------------ RWR
    def weighted_log_likelihood_grad(
        self, samples: Sequence[tuple[str, Mapping[str, Any]]], weights: Sequence[float]
    ) -> np.ndarray:
        """d/dtheta of sum_i w_i log pi(x_i) / sum_i w_i, as a flat vector (softmax: onehot - p)."""
        w = np.asarray(weights, dtype=float)
        w = w / w.sum()
        grad = self.with_vector(np.zeros_like(self.vector()))
        fam_p = self.family_probs()
        for (family, knobs), wi in zip(samples, w):
            fi = self.families.index(family)
            grad.logits[FAMILY_KEY] += wi * (np.eye(len(self.families))[fi] - fam_p)
            for k, values in self.knob_values[family].items():
                onehot = np.eye(len(values))[values.index(knobs[k])]
                grad.logits[family][k] += wi * (onehot - self.knob_probs(family, k))
        return grad.vector()

    def fit_weighted(
        self,
        samples: Sequence[tuple[str, Mapping[str, Any]]],
        weights: Sequence[float],
        *,
        reference: ParametricPolicy,
        lr: float = 0.5,
        steps: int = 50,
        kl_coef: float = 0.05,
        kl_cap: float = 0.5,
        likelihood_scale: float = 1.0,
    ) -> tuple[ParametricPolicy, dict[str, float]]:
        """One RWR update: gradient ascent on likelihood_scale * the weighted log-likelihood minus
        kl_coef * KL(pi || reference), then a line search back toward the current policy so that
        KL(new || current) <= kl_cap. Returns the new policy and update statistics."""
        if not samples:
            return self.copy(), {"steps": 0, "kl_step": 0.0, "kl_ref": self.kl_to(reference), "scale": 0.0}
        current = self.vector()
        theta = current.copy()
        for _ in range(steps):
            policy = self.with_vector(theta)
            grad = likelihood_scale * policy.weighted_log_likelihood_grad(samples, weights)
            grad -= kl_coef * policy._kl_grad(reference)
            theta = theta + lr * grad
        step = theta - current
        scale = 1.0
        if self.with_vector(theta).kl_to(self) > kl_cap:
            lo, hi = 0.0, 1.0
            for _ in range(40):
                mid = (lo + hi) / 2
                if self.with_vector(current + mid * step).kl_to(self) > kl_cap:
                    hi = mid
                else:
                    lo = mid
            scale = lo
        new = self.with_vector(current + scale * step)
        return new, {"steps": steps, "kl_step": new.kl_to(self), "kl_ref": new.kl_to(reference), "scale": scale}

    def _kl_grad(self, reference: ParametricPolicy) -> np.ndarray:
        """d/dtheta KL(pi || ref) for the factorised softmax, knob terms weighted by p(family)."""
        grad = self.with_vector(np.zeros_like(self.vector()))
        p_f, q_f = self.family_probs(), reference.family_probs()
        # Family term, including how p(family) scales each family's knob KL.
        per_family = np.array(
            [
                sum(_kl(self.knob_probs(f, k), reference.knob_probs(f, k)) for k in self.knob_values[f])
                for f in self.families
            ]
        )
        g = np.log(p_f / q_f) + per_family
        grad.logits[FAMILY_KEY] = p_f * (g - np.dot(p_f, g))
        for i, f in enumerate(self.families):
            for k in self.knob_values[f]:
                p, q = self.knob_probs(f, k), reference.knob_probs(f, k)
                d = np.log(p / q)
                grad.logits[f][k] = p_f[i] * p * (d - np.dot(p, d))
        return grad.vector()
