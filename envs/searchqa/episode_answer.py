"""Which answer an episode is scored on.

Search-R1 scores the whole decoded sequence, prompt included (`verl/utils/reward_score/qa_em.py`,
`extract_solution`): the last `<answer>...</answer>` in it, lower-case tags, content stripped,
and none at all when there are fewer than two (the prompt's own example `<answer> Beijing
</answer>` is the first). So an answer written inside a search query, or in a passage a search
returned, is scored when nothing later replaces it, and an answer reply's later `<answer>` wins
over the one its action parsed. `SCORING["search_r1"]` (the default) scores that answer at the
end of the episode; `SCORING["answer_step"]` is the stricter reading this env had before: only
the content of the `<answer>` action that ended the episode, and nothing when none did.
"""

from __future__ import annotations

import re

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)

#: The `scoring` option's values.
SEARCH_R1 = "search_r1"
ANSWER_STEP = "answer_step"
SCORING = (SEARCH_R1, ANSWER_STEP)


def last_answer(transcript: str) -> str | None:
    """The answer Search-R1 extracts from an episode's text (prompt, cut replies, observations)."""
    matches = _ANSWER.findall(transcript)
    return matches[-1].strip() if len(matches) >= 2 else None


def scoring_mode(value: str) -> str:
    if value not in SCORING:
        raise ValueError(f"scoring must be one of {', '.join(SCORING)}, not {value!r}")
    return value
