"""Policies: what decides an agent's next message. See base.Policy for the protocol.

Heavy backends (transformers, torch) are imported only by the modules that need them, so
importing this package stays cheap for the expert and endpoint policies.
"""

from coevo.client.policies.base import Message, Policy, PolicyRequest, Sampling
from coevo.client.policies.expert import ExpertPolicy
from coevo.client.policies.factory import POLICY_HELP, make_policy
from coevo.client.policies.parsing import ParsedReply, canonical_action, parse_react
from coevo.client.policies.prompts import EnvPrompt, prompt_for, prompt_from_info
from coevo.client.policies.random_policy import RandomPolicy

__all__ = [
    "POLICY_HELP",
    "EnvPrompt",
    "ExpertPolicy",
    "Message",
    "ParsedReply",
    "Policy",
    "PolicyRequest",
    "RandomPolicy",
    "Sampling",
    "canonical_action",
    "make_policy",
    "parse_react",
    "prompt_for",
    "prompt_from_info",
]
