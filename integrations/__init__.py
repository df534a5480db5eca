"""Trainer integrations: coevo env servers driven by TRL, veRL and verifiers.

Each module adapts one trainer's multi-turn interface to coevo sessions over HTTP (through
coevo.client) and imports its trainer only when used, so coevo installs without any of them.
They sit at the trainers' level: client and core only, never server or env internals.
"""
