"""Record AgentGym's WebShop goal list (index -> goal) on a small WebShop-format catalog, once.

AgentGym's shop server (agentenv-webshop, commit 3ef9235) makes `WebAgentTextEnv` with
`num_products=1000` and no `human_goals`, so its `SimServer` loads synthetic goals: its own
`load_products`, then its `get_synthetic_goals` (which seeds `random.seed(233)` and draws each
product's price ceiling in catalog order), then `random.seed(233); random.shuffle(goals)`;
`/reset {"session_id": i}` is goal i of that list. This script runs AgentGym's two functions
unchanged from a checkout on a catalog made by our generator (with a few edge cases edited
in) and writes the catalog and the goals they give to tests/webshop/fixtures/agentgym_goals.json,
which pins coevo's AgentGym goal mapping. Nothing of AgentGym is copied: its modules are
imported from the checkout, and the third-party modules they import but these two functions
never call (spaCy and its model, pyserini, flask, ...) are stubbed.

    git -C AgentGym archive HEAD agentenv-webshop/webshop/web_agent_site | tar -x -C /tmp/ag
    PYTHONPATH=. python scripts/fidelity/record_agentgym_goals.py /tmp/ag/agentenv-webshop/webshop
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

from coevo.envs.webshop.tasks import generate_range

OUT = Path(__file__).resolve().parents[2] / "tests" / "webshop" / "fixtures" / "agentgym_goals.json"
AGENTGYM_COMMIT = "3ef9235"


def _stub(name: str, **attrs: Any) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module


def _stub_unused_dependencies() -> None:
    """Modules AgentGym's engine and goal import at the top; load_products and the goal list
    call none of them (tqdm and rich's print only wrap a loop and print)."""
    _stub("spacy", load=lambda name: None)  # goal.py loads en_core_web_lg at import, for rewards
    _stub("thefuzz", fuzz=None)
    _stub("rich", print=print)
    _stub("cleantext")
    _stub("tqdm", tqdm=lambda iterable, total=None: iterable)
    _stub("rank_bm25", BM25Okapi=None)
    _stub("flask", render_template_string=None)
    _stub("pyserini")
    _stub("pyserini.search")
    _stub("pyserini.search.lucene", LuceneSearcher=None)


def catalog(products: int, seed: int) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """items_shuffle records and items_ins_v2 entries: our generator's, with edge cases edited in."""
    records, ins = [], {}
    for record, instruction in generate_range(0, products, seed):
        pricing = record["pricing"].split("$")[1:]
        if len(pricing) == 2:
            # A range's price is a draw (AgentGym's from the clock-seeded global state, ours
            # seeded): keep each range below one multiple of 10 so both give the same ceilings.
            low = float(pricing[0])
            high = min(float(pricing[1]), (int(low // 10) + 1) * 10 - 0.01)
            record["pricing"] = f"${low:.2f}${high:.2f}"
        records.append(record)
        ins[record["asin"]] = {k: instruction[k] for k in ("attributes", "instruction", "instruction_attributes")}
    # Fewer than four multiples of 10 above the price: three, two (other draws from the shared
    # random stream) and one (no ceiling, no draw).
    for i, price in ((3, "$965.00"), (5, "$975.50"), (7, "$985.00")):
        records[i]["pricing"] = price
    ins[records[9]["asin"]]["instruction"] = None  # no instruction: no goals and no draw
    records.insert(12, {**records[2], "name": "a duplicate ASIN, skipped"})
    return records, ins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("webshop", type=Path, help="AgentGym's agentenv-webshop/webshop folder (holds web_agent_site)")
    parser.add_argument("--products", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    _stub_unused_dependencies()
    sys.path.insert(0, str(args.webshop.resolve()))
    from web_agent_site.engine import engine, goal  # AgentGym's own modules

    records, ins = catalog(args.products, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        shuffle_path, ins_path = Path(tmp) / "items_shuffle.json", Path(tmp) / "items_ins_v2.json"
        shuffle_path.write_text(json.dumps(records))
        ins_path.write_text(json.dumps(ins))
        engine.DEFAULT_ATTR_PATH = str(ins_path)
        engine.HUMAN_ATTR_PATH = str(ins_path)  # read and unused without human goals
        random.seed(0)  # AgentGym seeds with the clock; the edited ranges make it irrelevant
        all_products, _, prices, _ = engine.load_products(str(shuffle_path), num_products=1000, human_goals=None)
        goals = goal.get_goals(all_products, prices, None)
    random.seed(233)  # SimServer: fix the shuffle of the goal list
    random.shuffle(goals)

    fixture = {
        "agentgym_commit": AGENTGYM_COMMIT,
        "how": "AgentGym's load_products(num_products=1000, human_goals=None), get_goals(..., None), "
        "then random.seed(233); random.shuffle(goals), on the records and ins below",
        "items_shuffle": records,
        "items_ins_v2": ins,
        "goals": [
            {
                "index": i,
                "asin": g["asin"],
                "instruction_text": g["instruction_text"],
                "price_upper": g["price_upper"],
                "goal_options": g["goal_options"],
            }
            for i, g in enumerate(goals)
        ],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"{len(goals)} goals of {len(all_products)} products -> {OUT}")


if __name__ == "__main__":
    main()
