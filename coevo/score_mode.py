"""The name of a scoring mode: the env options that decide how an env scores, written canonically.

Beside the env's version, an env's options decide what an episode earns (BFCL's `decoder`,
API-Bank's and SearchQA's `scoring`), so they travel with every score: a server announces its
own in /info, trajectories and their exports carry it, and `coevo rescore` names its score
columns by it. "" is the env's defaults.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def score_mode(options: Mapping[str, Any]) -> str:
    """`options` as "key=value,..." in key order (values that are not text as JSON)."""
    return ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in sorted(options.items()))
