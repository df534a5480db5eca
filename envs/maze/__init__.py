"""Maze as LMRL-Gym builds it and AgentGym's LMRL-Gym server (`agentenv-lmrlgym`) serves it.

- `env`: the `maze` env (`MazeEnv`); `agentgym`: AgentGym's Maze server profile.
- `layout`: the double-T maze, its starts and goal (data/double_t_maze.json).
- `game`: moves, walls and the observation text; `tasks`: the 25 games; `scoring`: the reward;
  `expert`: the shortest path.
"""
