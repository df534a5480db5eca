"""The generative environment simulator as an env: a thin adapter that serves coevo.simulator
(task generation from pi_env, scoring, replay from the store) over the env protocol."""
