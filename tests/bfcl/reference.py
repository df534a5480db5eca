"""bfcl-eval's own checkers, loaded for comparison with ours.

`bfcl_eval.eval_checker.ast_eval.ast_checker` imports `bfcl_eval.constants.model_config` only for
MODEL_CONFIG_MAPPING (used by `convert_func_name` to know whether a model's tool names turn "."
into "_"); that module imports every provider handler and so the heavy pinned SDKs (openai,
anthropic, google-genai, ...), which we do not install. We put a one-attribute stand-in for that
single module in `sys.modules` while importing, so the checker functions themselves are the real,
unmodified ones. The multi-turn checker imports nothing heavy and is used as is.
"""

from __future__ import annotations

import sys
import types
from functools import lru_cache
from typing import Any

from coevo.envs.bfcl.tasks import Language

#: Model names handed to BFCL's checker: one keeps dotted names, one expects "_" for ".".
PLAIN_MODEL = "coevo-reference"
UNDERSCORE_MODEL = "coevo-reference-underscore"


@lru_cache(maxsize=1)
def ast_checker_module() -> Any:
    name = "bfcl_eval.constants.model_config"
    previous = sys.modules.get(name)
    stand_in = types.ModuleType(name)
    stand_in.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
        PLAIN_MODEL: types.SimpleNamespace(underscore_to_dot=False),
        UNDERSCORE_MODEL: types.SimpleNamespace(underscore_to_dot=True),
    }
    sys.modules[name] = stand_in
    try:
        from bfcl_eval.eval_checker.ast_eval import ast_checker
    finally:
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
    return ast_checker


def bfcl_single_turn_valid(
    docs: list[dict[str, Any]],
    decoded: list[dict[str, dict[str, Any]]],
    possible_answer: list[Any],
    category: str,
    language: Language,
    underscore_names: bool = False,
) -> tuple[bool, str]:
    """BFCL's verdict on a decoded answer; an exception inside BFCL counts as not valid."""
    from bfcl_eval.constants.enums import Language as BfclLanguage

    module = ast_checker_module()
    try:
        result = module.ast_checker(
            docs,
            decoded,
            possible_answer,
            BfclLanguage(language.value),
            category,
            UNDERSCORE_MODEL if underscore_names else PLAIN_MODEL,
        )
    except Exception as e:  # BFCL's runner would crash here; the answer is not scored correct
        return False, f"raised {type(e).__name__}"
    return bool(result["valid"]), str(result.get("error_type", ""))


def bfcl_multi_turn_valid(
    decoded: list[list[list[str]]],
    ground_truth: list[list[str]],
    entry: Any,
    model_name: str,
) -> bool:
    """BFCL's multi-turn verdict; `model_name` must be fresh (BFCL keys its instances by it)."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_checker, multi_turn_utils

    test_entry = {
        "id": entry.id,
        "initial_config": entry.initial_config,
        "involved_classes": entry.involved_classes,
    }
    try:
        result = multi_turn_checker.multi_turn_checker(decoded, ground_truth, test_entry, entry.category, model_name)
        return bool(result["valid"])
    finally:  # BFCL keeps every instance in its module globals; drop this run's
        stale = [k for k in vars(multi_turn_utils) if k.startswith(model_name.replace("-", "_"))]
        for key in stale:
            delattr(multi_turn_utils, key)
