"""BIRD-SQL: text-to-SQL on real SQLite databases, scored by BIRD's execution accuracy.

- `env`: the `birdsql` env (`BirdSqlEnv`); `agentgym`: SQLGym's presentation on AgentGym's routes.
- `tasks`: BIRD's question files and databases; `generator`: the generated set in BIRD's layout.
- `sandbox`: read-only execution with a time limit and a row cap; `schema`: BIRD's schema records.
- `scoring`: execution accuracy; `expert`: the gold SQL replayed; `actions`: SQL out of a reply.
"""
