"""Reading the SQL out of an agent's reply.

SQLGym's client (AgentGym's `SqlGymEnvClient.step`) sends the server what follows the last
"```sql" up to the next "```", stripped; a reply without a fence is sent whole. The native
routes read a reply the same way, so a reply written for SQLGym works on both; the AgentGym
routes receive what the client already cut and run it as it is, as SQLGym's server does.
"""

from __future__ import annotations


def extract_sql(reply: str) -> str:
    """The SQL SQLGym's client would send for `reply`."""
    return reply.split("```sql")[-1].split("```")[0].strip()
