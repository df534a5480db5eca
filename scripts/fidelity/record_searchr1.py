"""Record Search-R1's own reply parsing and observation text on generated replies, once.

Runs the functions of a Search-R1 checkout (github PeterGriffinJin/Search-R1, not vendored:
pass its path) on adversarial replies and writes their inputs and outputs as the fixture
tests/searchqa/fixtures/searchr1.json, which pins envs/searchqa/actions.py to them.

    python scripts/fidelity/record_searchr1.py /path/to/Search-R1 [--replies 5000]

Needs torch (generation.py imports it); verl, datasets and the HTTP retriever are stubbed, since
the functions recorded never reach them.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "tests" / "searchqa" / "fixtures" / "searchr1.json"

WORDS = ["Paris", "who founded Velmora Works", "1843", "the author of The Silent Kraith", "Ann Lee", "x"]
FRAGMENTS = [
    "<search>",
    "</search>",
    "<answer>",
    "</answer>",
    "<SEARCH>",
    "</SEARCH>",
    "<Answer>",
    "</Answer>",
    "<think>",
    "</think>",
    "<information>",
    "</information>",
    "search[",
    "answer[",
    "]",
    " ",
    "\n",
    "<search >",
    "< search>",
    "</ search>",
    "<search/>",
    "<<search>>",
    "<search>>",
    "I think ",
    ".",
]
DOCS = [  # retrieval results as the Search-R1 retriever returns them (document.contents)
    {"contents": '"Velmora Works"\nVelmora Works is a shipping company founded in 1843 by Ann Lee.'},
    {"contents": '"Ann Lee"\nAnn Lee (born 1801) is a chemist.\nShe was born in Brisford.'},
    {"contents": "Untitled line\nno quotes around this title"},
    {"contents": "a passage without a title line"},
    {"contents": '""\n'},
]


def _stub(name: str, **attrs: Any) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


def load_searchr1(root: Path) -> tuple[Any, Any]:
    """(generation module, qa_search_test_merge module) imported from the checkout."""
    _stub("verl", DataProto=object)
    _stub("verl.utils")
    _stub("verl.utils.tracking", Tracking=object)
    _stub("verl.utils.hdfs_io", copy=None, makedirs=None)
    _stub("datasets")
    sys.path.insert(0, str(root))
    sys.path.insert(0, str(root / "scripts" / "data_process"))
    from search_r1.llm_agent import generation  # type: ignore[import-not-found]

    import qa_search_test_merge  # type: ignore[import-not-found]

    return generation, qa_search_test_merge


def replies(count: int, seed: int) -> list[str]:
    """Well-formed actions, near misses, and random tag soup, in that mix."""
    rng = random.Random(seed)
    shapes = [
        lambda w: f"<search>{w}</search>",
        lambda w: f"<answer>{w}</answer>",
        lambda w: f"<think>{w}</think>\n<search> {w} </search>",
        lambda w: f"<think>ok</think><answer> {w} </answer>",
        lambda w: f"<SEARCH>{w}</SEARCH>",
        lambda w: f"<Answer>{w}</Answer>",
        lambda w: f"search[{w}]",
        lambda w: f"answer[{w}]",
        lambda w: f"<search><answer>{w}</answer></search>",
        lambda w: f"<answer><search>{w}</search></answer>",
        lambda w: f"<answer>{w}</answer><search>{w}</search>",
        lambda w: f"<search>{w}</search><answer>{w}</answer>",
        lambda w: f"<answer>{w}</search></answer>",
        lambda w: f"<search>{w}</answer></search>",
        lambda w: f"<search>{w}",
        lambda w: f"{w}</answer>",
        lambda w: f"<search>{w}</SEARCH>",
        lambda w: f"<search>\n{w}\n</search> trailing <answer>{w}</answer>",
        lambda w: "<answer></answer>",
        lambda w: "<search></search>",
        lambda w: "<search>  </search>",
        lambda w: f"<search>{w}</search></search>",
        lambda w: f"<answer>a</answer><answer>{w}</answer>",
    ]
    out = []
    for _ in range(count):
        if rng.random() < 0.5:
            out.append(rng.choice(shapes)(rng.choice(WORDS)))
        else:
            out.append("".join(rng.choice(FRAGMENTS + WORDS) for _ in range(rng.randint(1, 10))))
    return out


def record(generation: Any, merge: Any, texts: list[str]) -> dict[str, Any]:
    manager = generation.LLMGenerationManager.__new__(generation.LLMGenerationManager)
    manager.tokenizer = types.SimpleNamespace(batch_decode=lambda xs, skip_special_tokens: list(xs))
    manager.config = types.SimpleNamespace(no_think_rl=False, topk=3)
    manager._batch_tokenize = lambda xs: None
    results = manager._passages2string([{"document": d} for d in DOCS[:2]])
    manager.batch_search = lambda queries: [results for _ in queries]
    _, cut = manager._postprocess_responses(texts)
    actions, contents = manager.postprocess_predictions(cut)
    observations, dones, valid, is_search = manager.execute_predictions(cut, "<pad>", [True] * len(cut))
    distinct = sorted(set(observations))  # three texts: invalid, search results, "" after an answer
    # "cut" (the reply as Search-R1 keeps it) is null where it is the whole reply
    cases = [
        {
            "reply": r,
            "cut": c if c != r else None,
            "action": a,
            "content": x,
            "observation": distinct.index(o),
            "done": bool(d),
            "valid": bool(v),
            "search": bool(s),
        }
        for r, c, a, x, o, d, v, s in zip(texts, cut, actions, contents, observations, dones, valid, is_search)
    ]
    passages = [
        {
            "contents": [d["contents"] for d in docs],
            "rendered": manager._passages2string([{"document": d} for d in docs]),
        }
        for docs in (DOCS[:1], DOCS[:2], DOCS[2:], DOCS, [])
    ]
    questions = ["Who founded Velmora Works?", "who founded velmora works", "  In what year?  ", "What is 1+1"]
    prompts = [{"question": q, "prompt": merge.make_prefix({"question": q}, template_type="base")} for q in questions]
    return {
        "search_results": results,
        "observations": distinct,
        "replies": cases,
        "passages": passages,
        "prompts": prompts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("searchr1", type=Path, help="a Search-R1 checkout")
    parser.add_argument("--replies", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--commit", default=None, help="the checkout's commit, when it is no git work tree")
    args = parser.parse_args()
    generation, merge = load_searchr1(args.searchr1)
    commit = (
        args.commit
        or subprocess.run(
            ["git", "-C", str(args.searchr1), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    )
    data = {
        "source": "PeterGriffinJin/Search-R1",
        "commit": commit or None,
        "seed": args.seed,
        **record(generation, merge, replies(args.replies, args.seed)),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(case, ensure_ascii=False) for case in data.pop("replies")]
    head = json.dumps(data, indent=1, ensure_ascii=False)[:-2]  # one reply a line keeps diffs readable
    OUT.write_text(head + ',\n "replies": [\n' + ",\n".join(lines) + "\n ]\n}\n")
    print(f"wrote {len(lines)} replies to {OUT}")


if __name__ == "__main__":
    main()
