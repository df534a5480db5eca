"""AgentGym's TODOList tool env (AgentBoard's todo tasks) over an offline Todoist sandbox."""
