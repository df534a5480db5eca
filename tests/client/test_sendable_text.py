"""Policy replies reach the env even when a model decodes characters the protocol refuses.

The server answers 422 invalid_text to NUL and lone surrogates on every front (no store can hold
them). A model's decoded reply can contain NUL (TRL's GRPO example on a tiny model did), so the
client marks each such character with U+FFFD instead of losing the step.
"""

from __future__ import annotations

from coevo import wire
from coevo.client import calls


def test_refused_characters_become_replacement_marks() -> None:
    assert wire.sendable_text("go\x00 north\ud800") == "go\ufffd north\ufffd"
    assert wire.sendable_text("fine \U0001f600 text") == "fine \U0001f600 text"  # a real pair is kept


def test_step_and_batch_step_send_sendable_actions() -> None:
    assert calls.step("s1", "a\x00b").body == {"action": "a\ufffdb"}
    body = calls.batch_step([("s1", "x\udc80"), ("s2", "ok")]).body
    assert body == {"items": [{"session_id": "s1", "action": "x\ufffd"}, {"session_id": "s2", "action": "ok"}]}
