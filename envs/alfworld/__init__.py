"""ALFWorld: the household text benchmark, with a native engine and the real one as a backend.

- `engine`: the rules of ALFWorld's PDDL domain and the text of its grammar, in pure Python.
- `generator`: games generated from ALFRED floor plans and fit rules; `generate(knobs, seed)`
  is the knob API the GenEnv simulator drives (knobs documented in `generator`).
- `expert`: a privileged planner with ReAct-style thoughts.
- `gamefile` / `export`: read and write ALFWorld's `game.tw-pddl` files.
- `textworld_backend`: the real engine (TextWorld + fast-downward), with the `alfworld` extra.
- `env`: the `alfworld` env (`AlfWorldEnv`).
"""
