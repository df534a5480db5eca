"""Wordle as LMRL-Gym plays it and AgentGym's LMRL-Gym server (`agentenv-lmrlgym`) serves it.

- `env`: the `wordle` env (`WordleEnv`); `agentgym`: AgentGym's Wordle server profile.
- `game`: LMRL-Gym's game: letter knowledge, the consistent words, a hidden word drawn anew
  from them at every guess.
- `tasks`: the tasks (seeds) and splits; `scoring`: the reward; `expert`: the solver.
"""
