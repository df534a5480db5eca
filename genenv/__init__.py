"""GenEnv: agent GRPO on tasks from an environment policy trained by RWR with the alpha-curriculum reward."""
