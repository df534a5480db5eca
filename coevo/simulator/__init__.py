"""GenEnv's generative simulator as a domain: task families, the environment policies pi_env
(parametric knobs or an LLM), the task record, its scoring and validity gate, the base and
held-out tasks, the simulator's store tables and the curriculum contract.

Both sides stand on it: the env adapter (coevo.envs.simulator) serves it over the env protocol,
and the GenEnv trainer trains its policies and talks to it through that adapter, in process or
over HTTP, with one typed contract (curriculum_context.CurriculumContext). It draws base tasks
from other registered envs, so it sits above envs/ and below the server and the trainers.
"""
