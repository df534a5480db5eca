"""Undoing torch's AdamW step from the optimizer's own state, for the pi_env update's KL cap.

The cap goes back to the weights before the step that crossed it. Keeping those weights means a
copy of every parameter before every step (14 GB at 7B in bf16, 28 GB in fp32); AdamW's step is
a function of state it already keeps, so it can be reversed in place instead:

    step:  p' = p (1 - lr wd) - lr m_hat / (sqrt(v_hat) + eps)
    undo:  p  = (p' + lr m_hat / (sqrt(v_hat) + eps)) / (1 - lr wd)

with m_hat, v_hat the bias-corrected moments after the step (the ones the step used). Extra
memory: one parameter-sized temporary at a time. In fp32 the weights come back exact to float
rounding (tested); in bf16 to within one rounding step of the weight, the precision bf16 weights
are stored at anyway.
"""

from __future__ import annotations

import math
from typing import Any


def undo_adamw_step(optimizer: Any) -> int:
    """Reverse the last `optimizer.step()` of a torch.optim.AdamW (or Adam without weight decay)
    in place; returns the number of parameters moved back. The moments are left as they are (the
    caller stops optimizing). Refuses amsgrad and maximize, whose steps this formula does not
    describe."""
    import torch

    moved = 0
    with torch.no_grad():
        for group in optimizer.param_groups:
            if group.get("amsgrad") or group.get("maximize"):
                raise ValueError("undo_adamw_step handles AdamW without amsgrad or maximize")
            beta1, beta2 = group["betas"]
            lr, eps, decay = float(group["lr"]), float(group["eps"]), float(group["weight_decay"])
            decoupled = isinstance(optimizer, torch.optim.AdamW) or group.get("decoupled_weight_decay", False)
            if decay and not decoupled:
                raise ValueError("undo_adamw_step cannot undo Adam's coupled weight decay")
            for param in group["params"]:
                state = optimizer.state.get(param)
                if not state or "exp_avg" not in state:
                    continue  # never stepped (no gradient reached it)
                step = float(state["step"])
                correction1 = 1 - beta1**step
                correction2 = math.sqrt(1 - beta2**step)
                exp_avg = state["exp_avg"].float()
                denom = (state["exp_avg_sq"].float().sqrt() / correction2).add_(eps)
                restored = param.float().addcdiv_(exp_avg, denom, value=lr / correction1)
                if decay:
                    restored.div_(1 - lr * decay)
                param.copy_(restored)
                moved += 1
    return moved
