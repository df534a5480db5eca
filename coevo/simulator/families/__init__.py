"""Procedural task families: generators whose difficulty is set by discrete knobs."""

from __future__ import annotations

from coevo.simulator.families.base import TaskFamily, family_names, get_family

__all__ = ["TaskFamily", "family_names", "get_family"]
