"""Arithmetic questions with difficulty knobs: a short-answer family (exact match).

The agent reads an expression and replies with its integer value. Knobs:

- digits:     operand size (1, 2 or 3 digits).
- operands:   how many numbers (2, 3 or 4).
- operations: "+", "+-" or "+-*" (multiplication binds tighter, as usual).
- form:       "symbols" ("7 + 5") or "words" ("seven plus five").
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from coevo.simulator.families.base import TaskFamily
from coevo.simulator.families.function_calling import number_words
from coevo.simulator.task_record import SimTask

_WORDS = {"+": "plus", "-": "minus", "*": "times"}


def evaluate(numbers: list[int], ops: list[str]) -> int:
    """Value of n0 op0 n1 op1 n2 ... with * before + and -, computed without eval."""
    terms, signs = [numbers[0]], []
    for op, n in zip(ops, numbers[1:]):
        if op == "*":
            terms[-1] *= n
        else:
            signs.append(op)
            terms.append(n)
    total = terms[0]
    for sign, term in zip(signs, terms[1:]):
        total = total + term if sign == "+" else total - term
    return total


class ArithmeticFamily(TaskFamily):
    name = "arithmetic"
    knobs = {
        "digits": (1, 2, 3),
        "operands": (2, 3, 4),
        "operations": ("+", "+-", "+-*"),
        "form": ("symbols", "words"),
    }
    demo_knobs = {"digits": 1, "operands": 2, "operations": "+", "form": "symbols"}

    def _generate(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        self.check_knobs(knobs)
        low, high = 10 ** (knobs["digits"] - 1), 10 ** knobs["digits"] - 1
        numbers = [rng.randint(max(low, 1), high) for _ in range(knobs["operands"])]
        ops = [rng.choice(knobs["operations"]) for _ in range(knobs["operands"] - 1)]
        if knobs["form"] == "words":
            parts = [number_words(numbers[0])]
            for op, n in zip(ops, numbers[1:]):
                parts += [_WORDS[op], number_words(n)]
        else:
            parts = [str(numbers[0])]
            for op, n in zip(ops, numbers[1:]):
                parts += [op, str(n)]
        value = evaluate(numbers, ops)
        prompt = f"Compute {' '.join(parts)}. Reply with the number only."
        return SimTask(self.name, prompt, [str(value)], "exact", meta={"knobs": dict(knobs)})
