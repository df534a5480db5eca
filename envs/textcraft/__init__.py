"""TextCraft: craft a Minecraft item from given recipes, as AgentGym's `agentenv-textcraft` serves it.

- `env`: the `textcraft` env (`TextCraftEnv`); `agentgym`: AgentGym's TextCraft server profile.
- `crafting`: the crafting tree (data/crafting_tree.json) and recipe matching.
- `game`: one episode's inventory and the action grammar (get, craft, inventory).
- `tasks`: the 544 tasks in AgentGym's index order (data/tasks.json) and the splits.
- `scoring`: the reward, 1 when the goal item is crafted.
- `expert`: the recipe planner.
"""
