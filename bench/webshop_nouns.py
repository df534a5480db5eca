"""WebShop's type reward with our noun rule vs spaCy's tagger, on random purchases.

WebShop's `get_type_reward` keeps the NOUN/PROPN tokens of both titles from spaCy's
`en_core_web_sm`; envs/webshop/nouns.py replaces the tagger with a lexicon rule (the official
model is not on PyPI). This measures how often the two agree: per title (the noun lists), and per
purchase (title_score and r_type), over purchases of three kinds: the goal product itself, another
product of the goal's query (same product type), and a product drawn at random.

    PYTHONPATH=$PYTHONPATH:/path/with/model python bench/webshop_nouns.py --json \
        --spacy-model en_core_web_sm [--products 2000] [--purchases 3000]

Needs spaCy and an English pipeline importable under --spacy-model; nothing here downloads one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import time
from collections import defaultdict
from dataclasses import replace
from typing import Any

import spacy

from coevo.envs.webshop import nouns as noun_rule
from coevo.envs.webshop import scoring
from coevo.envs.webshop.catalog import Catalog
from coevo.envs.webshop.tasks import ensure_built


def spacy_nouns(nlp: Any, cache: dict[str, list[str]], title: str) -> list[str]:
    """WebShop's extraction: lower-cased text of tokens tagged PNOUN, NOUN or PROPN."""
    if title not in cache:
        cache[title] = [t.text.lower() for t in nlp(title) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]
    return cache[title]


def measure(products: int, purchases: int, model: str, seed: int) -> dict[str, Any]:
    module = importlib.import_module(model)
    nlp = module.load()
    folder = ensure_built(products, 0)
    catalog = Catalog(f"sqlite:///{folder / 'catalog.sqlite'}")
    items = [catalog.product(i) for i in range(len(catalog))]
    by_query: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        by_query[item.query].append(i)
    cache: dict[str, list[str]] = {}
    titles = sorted({item.title for item in items})
    same_titles = sum(noun_rule.nouns(t) == spacy_nouns(nlp, cache, t) for t in titles)
    rng = random.Random(seed)
    kinds = ("same product", "same query", "random")
    counts = {k: {"purchases": 0, "title_score_agree": 0, "r_type_agree": 0} for k in kinds}
    original = scoring.nouns
    for n in range(purchases):
        kind = kinds[n % 3]
        g = rng.randrange(len(items))
        p = (
            g
            if kind == "same product"
            else rng.choice(by_query[items[g].query])
            if kind == "same query"
            else rng.randrange(len(items))
        )
        bought = items[p].purchasable()
        goal = scoring.GoalSpec(items[g].title, items[g].query, items[g].product_category, items[g].attributes, {}, 1e9)
        ours = scoring.type_reward(bought, goal)
        scoring.nouns = lambda title: spacy_nouns(nlp, cache, title)  # type: ignore[assignment]
        try:
            theirs = scoring.type_reward(replace(bought), goal)
        finally:
            scoring.nouns = original
        row = counts[kind]
        row["purchases"] += 1
        row["title_score_agree"] += ours["title_score"] == theirs["title_score"]
        row["r_type_agree"] += ours["r_type"] == theirs["r_type"]
    total = {
        key: sum(row[key] for row in counts.values()) for key in ("purchases", "title_score_agree", "r_type_agree")
    }
    return {
        "products": len(items),
        "spacy": spacy.__version__,
        "model": model,
        "model_version": nlp.meta.get("version"),
        "titles": len(titles),
        "titles_same_nouns": same_titles,
        "by_kind": counts,
        "total": total,
        "r_type_agreement": round(total["r_type_agree"] / total["purchases"], 4),
        "title_score_agreement": round(total["title_score_agree"] / total["purchases"], 4),
        "noun_list_agreement": round(same_titles / len(titles), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--spacy-model", default="en_core_web_sm")
    parser.add_argument("--products", type=int, default=2000)
    parser.add_argument("--purchases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    result = measure(args.products, args.purchases, args.spacy_model, args.seed)
    result["seconds"] = round(time.perf_counter() - start, 1)
    if args.json:
        print(json.dumps(result))
    else:
        json.dump(result, sys.stdout, indent=2)
        print()


if __name__ == "__main__":
    main()
