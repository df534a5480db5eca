"""ALFWorld: the household text benchmark, with a native engine and the real one as a backend.

- `env`: the `alfworld` env (`AlfWorldEnv`).
- `tasks`: the task source: ALFWorld's splits, generated games, knob-addressed games, and the
  real game files under a data folder.
- `scoring`: the six task types' goal conditions and `won`, the check that gives the reward.
- `expert`: a privileged planner with ReAct-style thoughts.
- `engine`: the rules of ALFWorld's PDDL domain and the text of its grammar, in pure Python.
- `generator`: games generated from ALFRED floor plans and fit rules; `generate(knobs, seed)`
  is the knob API the GenEnv simulator drives (knobs documented in `generator`).
- `gamefile` / `export`: read and write ALFWorld's `game.tw-pddl` files.
- `textworld_backend`: the real engine (TextWorld + fast-downward), with the `alfworld` extra.
"""
