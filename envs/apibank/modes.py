"""The two ways the API-Bank env scores: as API-Bank's released evaluator does, or repaired.

`official` reproduces the judgments of API-Bank's `evaluator.py` (tests/apibank pins them to
the original's outputs on recorded cases): each call runs on freshly loaded databases (the
evaluator builds a new ToolManager per call), list arguments reach the API as the strings the
call wrote, DeleteMeeting's rule reads the missing `input['time']` and TimedSwitch's and
CancelTimedSwitch's read `input['name']` where the calls say `device_id` (always wrong), and replies
earn the `rouge` package's ROUGE-L F (case-sensitive, punctuation kept, sentences split on
".", rounded to 4 places) of the reply exactly as given, `AI:` prefix included. Level 3 follows
`lv3_evaluator.py`: no name check on calls, replies without `User:`/`AI:`, unrounded.

`corrected` is the env's repaired scoring: calls run on the session's sandbox (later calls see
earlier writes, as the dialogues were recorded), list arguments are read as literals,
DeleteMeeting compares `start_time`, the smart-device rules read `device_id`, and replies earn rouge-score's ROUGE-L F (lower-cased,
punctuation-free tokens) after a leading `AI:` is dropped.

Every step reports both: the selected mode's figure is the reward, the other is in `info`.
"""

from __future__ import annotations

from typing import Literal

ScoringMode = Literal["official", "corrected"]
MODES: tuple[ScoringMode, ...] = ("official", "corrected")
DEFAULT_MODE: ScoringMode = "official"


def scoring_mode(value: object) -> ScoringMode:
    """The `scoring` env option: `official` or `corrected` (any case)."""
    text = str(value).strip().lower()
    if text not in MODES:
        raise ValueError(f"scoring must be one of {', '.join(MODES)}, got {value!r}")
    return text


def other_mode(mode: ScoringMode) -> ScoringMode:
    return "corrected" if mode == "official" else "official"
