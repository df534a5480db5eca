"""Record thefuzz 0.19.0's token_set_ratio (WebShop's pin) on generated attribute/option pairs, once.

Run it with a throwaway interpreter that has exactly WebShop's pin and no python-Levenshtein
(so thefuzz falls back to difflib, as `pip install -r requirements.txt` of WebShop leaves it):

    python -m venv /tmp/fuzz && /tmp/fuzz/bin/pip install thefuzz==0.19.0
    /tmp/fuzz/bin/python scripts/fidelity/record_thefuzz.py [--pairs 3000]

writes tests/webshop/fixtures/thefuzz_0_19_0.json, which pins envs/webshop/fuzzy.py to it.
"""

from __future__ import annotations

import argparse
import json
import random
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "webshop" / "fixtures" / "thefuzz_0_19_0.json"

WORDS = [
    "travel",
    "case",
    "machine",
    "wash",
    "fleece",
    "lined",
    "kangaroo",
    "pocket",
    "dark",
    "gray",
    "grey",
    "navy",
    "blue",
    "x-large",
    "xl",
    "small",
    "pack",
    "of",
    "2",
    "12",
    "oz",
    "ounce",
    "sugar",
    "free",
    "gluten",
    "long",
    "lasting",
    "easy",
    "to",
    "clean",
    "high",
    "definition",
    "women's",
    "men's",
    "the",
    "a",
    "3.4",
    "fl",
    "heavy",
    "duty",
    "non-slip",
    "wireless",
    "bluetooth",
    "hair",
    "extensions",
]
JOINERS = [" ", " ", " ", "_", "-", ", ", "/", " & ", ".", "  "]
ODD = ["é", "ü", "ñ", "©", "ß", "’", "–", "…", "中", "ı", "Σ", "\u00a0", "_", "__", "!", "(", ")"]


def phrase(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 5))]
    out = words[0]
    for word in words[1:]:
        out += rng.choice(JOINERS) + word
    if rng.random() < 0.25:
        at = rng.randint(0, len(out))
        out = out[:at] + rng.choice(ODD) + out[at:]
    if rng.random() < 0.2:
        out = out.upper() if rng.random() < 0.5 else out.title()
    return out


def variant(rng: random.Random, text: str) -> str:
    """A near copy: another joiner, dropped or swapped words, a typo."""
    kind = rng.randrange(5)
    if kind == 0:
        return text.replace(" ", rng.choice(JOINERS))
    if kind == 1:
        words = text.split()
        rng.shuffle(words)
        return " ".join(words)
    if kind == 2 and len(text) > 3:
        at = rng.randrange(len(text))
        return text[:at] + text[at + 1 :]
    if kind == 3:
        return text + " " + rng.choice(WORDS)
    return phrase(rng)


def pairs(count: int, seed: int) -> list[list[object]]:
    rng = random.Random(seed)
    out: list[list[object]] = [["travel case", "travel_case"], ["", "x"], ["é", "e"], ["___", "_"]]
    while len(out) < count:
        a = phrase(rng)
        b = variant(rng, a) if rng.random() < 0.7 else phrase(rng)
        if rng.random() < 0.05:  # WebShop passes (name, value) tuples for synthetic goal options
            out.append([["color", a], b])
        else:
            out.append([a, b])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Using slow pure-python SequenceMatcher": the point here
        import thefuzz
        from thefuzz import fuzz
    if thefuzz.__version__ != "0.19.0" or fuzz.SequenceMatcher.__module__ != "difflib":
        raise SystemExit(
            f"need thefuzz 0.19.0 on difflib, have {thefuzz.__version__} on {fuzz.SequenceMatcher.__module__}"
        )
    cases = []
    for a, b in pairs(args.pairs, args.seed):
        left = tuple(a) if isinstance(a, list) else a
        cases.append([a, b, fuzz.token_set_ratio(left, b)])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    body = ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases)
    OUT.write_text(
        '{"source": "thefuzz 0.19.0 (difflib SequenceMatcher)", "seed": %d,\n'
        ' "columns": ["a (a list is a tuple)", "b", "token_set_ratio"],\n "cases": [\n%s\n]}\n' % (args.seed, body)
    )
    print(f"wrote {len(cases)} pairs to {OUT}")


if __name__ == "__main__":
    main()
