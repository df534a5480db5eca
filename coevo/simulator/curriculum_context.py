"""The curriculum context: what the trainer tells the simulator about the alpha-curriculum.

One typed contract for both ways a trainer reaches a simulator: in process it is the object the
trainer hands over, over HTTP it is the body of `POST /admin/set_context`. The same model checks
both, so a wrong type or an out-of-range value is refused with the same message naming the field
(over HTTP with 422). The curriculum's defaults are defined here once; the trainer's config and
its curriculum maths (coevo.genenv.curriculum) take them from here.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

#: Paper defaults (GenEnv, Guo et al. 2025; beta as in its public config).
ALPHA = 0.5
BETA = 2.0
#: Half-width of the band around alpha (the paper's k_min).
BAND = 0.1
#: RWR inverse temperature (see coevo.genenv.curriculum).
LAMBDA = 10.0


class CurriculumContext(BaseModel):
    """Where the curriculum aims (alpha, band, beta, lam) and how the agent fares now.

    Strict (JSON true is not a number, a string is not a float) and closed (an unknown key is
    refused), as every admin payload. An LLM environment policy reads it to steer difficulty: it
    writes harder tasks when the agent's success is above alpha + band, easier ones below
    alpha - band."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    alpha: float = Field(ALPHA, gt=0, lt=1, description="The target success rate tasks are aimed at")
    band: float = Field(BAND, ge=0, le=1, description="Half-width of the band around alpha (k_min)")
    beta: float = Field(BETA, gt=0, description="Sharpness of R_env = exp(-beta (p_hat - alpha)^2)")
    lam: float = Field(LAMBDA, ge=0, description="The RWR weights' inverse temperature (lambda)")
    agent_success: float | None = Field(
        None, ge=0, le=1, description="The agent's latest success rate (None: not measured yet)"
    )

    def steer(self) -> str:
        """Which way the next tasks should move: "harder", "easier" or "same" ("" when the
        agent's success is not known)."""
        if self.agent_success is None:
            return ""
        if self.agent_success > self.alpha + self.band:
            return "harder"
        if self.agent_success < self.alpha - self.band:
            return "easier"
        return "same"
