"""Record API-Bank's own evaluator on the fidelity cases (run once, outside coevo's venv).

    python tests/apibank/record_original.py CASES.json /path/to/DAMO-ConvAI/api-bank OUT.json

CASES.json is written by `python -m tests.apibank.fidelity_fixtures dump` (inputs with their
text); the original's checkout is imported from its own folder (its code is never copied
here) in a venv with its requirements (`rouge==1.0.1`, `rank_bm25`, `nltk`, `numpy`,
`requests`, `tenacity`). Three sorts of case:

- `replies`: `Evaluator.evaluate` on an AI sample (ROUGE-L F of the `rouge` package, rounded
  to 4 places; 0 for an empty output, as the evaluator's main loop scores it).
- `replies_lv3`: lv3_evaluator.py's reply score (its `calculate_rouge_l_score` after the
  `User:`/`AI:` removal and strip its `test_json` applies; unrounded).
- `calls`: the main loop's path for an API sample: `get_api_call` on the output, then
  `Evaluator.evaluate` (a fresh ToolManager, the call, the API's `check_api_call_correctness`).
- `checks`: `check_api_call_correctness` alone on a result coevo's sandbox produced, for the
  APIs whose calls the original cannot run offline (ToolSearcher downloads a sentence encoder;
  Dictionary and Translate call web services; SearchEngine needs NLTK's punkt download).

Whatever raises out of the original is recorded as `"raises <Type>"` (the original's main
loop would stop there). Only the import of `sentence_transformers` and `googletrans` is
satisfied by empty stand-ins, so that ToolManager loads; no case runs them.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import types
from pathlib import Path
from typing import Any


def _stand_ins() -> None:
    """Importable names for the two modules ToolManager imports but no recorded case runs."""
    st = types.ModuleType("sentence_transformers")

    class _Unavailable:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError("no sentence encoder offline")

    st.SentenceTransformer = _Unavailable  # type: ignore[attr-defined]
    st.util = types.SimpleNamespace()  # type: ignore[attr-defined]
    gt = types.ModuleType("googletrans")
    gt.Translator = _Unavailable  # type: ignore[attr-defined]
    sys.modules.setdefault("sentence_transformers", st)
    sys.modules.setdefault("googletrans", gt)


def _outcome(fn: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the original's failure is the recorded outcome
        return f"raises {type(exc).__name__}"


def main(cases_path: str, original_dir: str, out_path: str) -> None:
    cases = json.loads(Path(cases_path).read_text())
    os.chdir(original_dir)  # ToolManager reads ./apis and ./init_database
    sys.path.insert(0, original_dir)
    _stand_ins()
    evaluator_module: Any = __import__("evaluator")
    tool_manager_module: Any = __import__("tool_manager")
    Sample, Evaluator = evaluator_module.Sample, evaluator_module.Evaluator
    get_api_call = evaluator_module.get_api_call

    def reply(case: dict[str, Any]) -> Any:
        if not case["hypothesis"]:
            return 0
        sample = Sample([], set(), {"role": "AI", "text": case["reference"]})
        return Evaluator([sample]).evaluate(0, case["hypothesis"])

    def call(case: dict[str, Any]) -> Any:
        sample = Sample([], set(), copy.deepcopy(case["truth"]))
        api_call = get_api_call(case["action"])
        if not api_call:
            return False
        correct = Evaluator([sample]).evaluate(0, api_call)[0]
        return bool(correct)

    manager = tool_manager_module.ToolManager()

    def check(case: dict[str, Any]) -> Any:
        cls = manager.get_api_by_name(case["api_name"])["class"]
        api = cls.__new__(cls)  # the checks read only their arguments; __init__ may need the net
        try:
            return bool(api.check_api_call_correctness(copy.deepcopy(case["response"]), copy.deepcopy(case["truth"])))
        except KeyError:
            return False  # Evaluator.evaluate's own rule

    lv3: Any = __import__("lv3_evaluator")

    def reply_lv3(case: dict[str, Any]) -> Any:
        # lv3_evaluator.test_json's own preprocessing of the prediction, then its scorer.
        hypothesis = case["hypothesis"].replace("User:", "").replace("AI:", "").strip()
        return lv3.calculate_rouge_l_score(case["reference"], hypothesis)

    results = {
        "replies": {c["id"]: _outcome(lambda c=c: reply(c)) for c in cases["replies"]},
        "replies_lv3": {c["id"]: _outcome(lambda c=c: reply_lv3(c)) for c in cases.get("replies_lv3", [])},
        "calls": {c["id"]: _outcome(lambda c=c: call(c)) for c in cases["calls"]},
        "checks": {c["id"]: _outcome(lambda c=c: check(c)) for c in cases["checks"]},
    }
    Path(out_path).write_text(json.dumps(results))


if __name__ == "__main__":
    main(*sys.argv[1:4])
