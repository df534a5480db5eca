"""What AgentGym's five tool envs (weather, todo, sheet, movie, academia) share: reading the
`Action: X with Action Input: Y` line, the tool-call record, AgentBoard's progress rate and the
env base class that presents a toolkit over HTTP (docs/toolusage.md)."""
