"""BabyAI: AgentGym's text version of BabyAI's minigrid levels.

- `env`: the `babyai` env (`BabyAIEnv`); `agentgym`: AgentGym's BabyAI server's fields.
- `tasks`: AgentGym's item index -> (level, seed) mapping and the splits.
- `view`: the text view of an observation and the macro-action table; `game`: one episode.
- `scoring`: the reward and end rule; `expert`: BabyAI's bot, in text actions.
"""
