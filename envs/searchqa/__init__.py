"""SearchQA: Bamboogle-style two-hop questions answered with a search tool over an offline corpus.

- `env`: the `searchqa` env (`SearchQAEnv`); `agentgym`: AgentGym's search-server presentation.
- `tasks`: the task source: the generated world, its questions, and the benchmarks' question files.
- `scoring`: the reward, normalized exact match (token F1 alongside).
- `expert`: the privileged next action, read off the passages retrieved.
- `corpus`: the corpus build and its BM25 index; `actions`: Search-R1's tags and texts.
"""
