"""ALFWorld as AgentGym's household server presents it (`agentenv-alfworld`), for its routes.

AgentGym serves ALFWorld's json_2.1.1 games (`put X in/on Y`, "You arrive at loc 12."), drops
the reset text's first paragraph (the TextWorld banner) and joins the rest with one newline,
and cuts a leading "You arrive at loc N. " from every step's text (its `process_ob`). Its task
indices are its mapping files' order: 2,420 train games (0-2419), then 200 evaluation games
(2420-2619), which land on our first held-out split.
"""

from __future__ import annotations

#: The dialect AgentGym's game files speak; its sessions play generated games in it.
DIALECT = "2.1.1"
#: AgentGym's index ranges (Env.agentgym_indices): its train mapping, then its test mapping.
INDICES: tuple[tuple[str, int], ...] = (("train", 0), ("valid_unseen", 2420))

_ARRIVE = "You arrive at loc "


def reset_text(observation: str) -> str:
    """The reset text without its first paragraph, the others joined by one newline."""
    return "\n".join(observation.split("\n\n")[1:])


def step_text(observation: str) -> str:
    """A step's text without a leading "You arrive at loc N. " (AgentGym's `process_ob`)."""
    if observation.startswith(_ARRIVE):
        return observation[observation.find(". ") + 2:]
    return observation
