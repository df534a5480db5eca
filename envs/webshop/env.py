"""The WebShop environment: WebShop's text-mode site over a shared catalog, index and goals.

A session holds only its page state (goal, keywords, result numbers, page, product, chosen
options, the current page text); products come from the shared SQL catalog on demand and
search from the shared memory-mapped index, so thousands of sessions fit in one small process.

Actions are WebShop's: `search[keywords]` (from any page, as in WebShop's text env) and
`click[value]` on a clickable of the current page. Arguments are lower-cased; anything else
leaves the page as it is with reward 0. Buying (`click[buy now]`) ends the episode with
WebShop's reward.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.base import (
    Env,
    ResetResult,
    StepResult,
    UnknownSplit,
    UnknownTask,
)
from coevo.envs.options import flag
from coevo.envs.webshop import agentgym, expert, pages
from coevo.envs.webshop.catalog import Catalog
from coevo.envs.webshop.nouns import SpacyNouns, nouns
from coevo.envs.webshop.pages import PAGE_SIZE
from coevo.envs.webshop.scoring import NounExtractor
from coevo.envs.webshop.scoring import reward as webshop_reward
from coevo.envs.webshop.search import Searcher
from coevo.envs.webshop.tasks import DEFAULT_PRODUCTS, Goal, GoalSet, Manifest, ensure_built

#: WebShop's action parser: name, then the argument in the outermost brackets.
_ACTION = re.compile(r"(.+)\[(.+)\]")
#: Our episode cap on the native routes: what ReAct-style WebShop evaluations allow. WebShop's
#: text env has none, and neither has AgentGym's shop server, so AgentGym sessions run uncapped.
DEFAULT_MAX_STEPS = 15
#: No cap: a step count no episode reaches.
_UNCAPPED = sys.maxsize


def step_cap(value: int | str | None) -> int | None:
    """The max_steps option: a positive step count, or 0 / "none" for no cap (WebShop's own)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "0")):
        return None
    if isinstance(value, bool):
        raise ValueError(f"max_steps is a step count (0 or none: no cap), not {value!r}")
    try:
        cap = int(value)
    except ValueError:
        raise ValueError(f"max_steps is a step count (0 or none: no cap), not {value!r}") from None
    if cap < 0:
        raise ValueError(f"max_steps is a step count (0 or none: no cap), not {value!r}")
    return cap or None


@dataclass
class WebShopData:
    """Everything sessions share: read-only."""

    folder: Path
    manifest: Manifest
    catalog: Catalog
    searcher: Searcher
    #: The native routes' goals (the goals option).
    goals: GoalSet
    #: The AgentGym routes' goals: AgentGym's shop server's list, its synthetic goals.
    agentgym_goals: GoalSet
    show_attrs: bool
    #: Title nouns for the type reward: the lexicon rule, or a user's spaCy pipeline (spacy_model).
    noun_of: NounExtractor = nouns
    #: The native routes' episode cap (the max_steps option); None: no cap.
    max_steps: int | None = DEFAULT_MAX_STEPS


def parse_action(action: str) -> tuple[str, str | None]:
    """WebShop's `parse_action`: ("search", "red shoes") for "search[red shoes]"."""
    match = _ACTION.match(action)
    if match is None:
        return action, None
    return match.group(1), match.group(2)


class WebShopEnv(Env):
    name = "webshop"
    #: 2: synthetic goals of WebShop's own files draw their price ceilings as AgentGym's server does.
    version = "2"
    action_format = "search[keywords] or click[value] (a button, product ASIN or option shown on the page)"
    #: The default cap (the max_steps option changes it; AgentGym sessions have none).
    max_steps = DEFAULT_MAX_STEPS
    default_split = "train"
    action_example = ("I should search for the product the instruction describes.", "search[red running shoes size 9]")
    agentgym_profile = agentgym.PROFILE
    heldout_splits = ("test",)
    cpu_heavy = True

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        products: int | str = DEFAULT_PRODUCTS,
        seed: int | str = 0,
        goals: str = "auto",
        db_url: str | None = None,
        show_attrs: bool | str = False,
        preload_index: bool | str = True,
        spacy_model: str | None = None,
        max_steps: int | str | None = DEFAULT_MAX_STEPS,
        **_: Any,
    ) -> WebShopData:
        """Open a built data directory (`data_dir`), or the default generated one, built on first use.

        goals: "human" (items_human_ins.json goals), "synthetic", or "auto" (human when built);
            the native routes' goals. AgentGym sessions serve the synthetic goals, AgentGym's list.
        preload_index: fault the memory-mapped index in at start (no first-touch stalls later).
        spacy_model: an installed spaCy pipeline (package name or folder) whose NOUN/PROPN tags the
            type reward uses, as WebShop does with en_core_web_sm; default: the lexicon rule.
        max_steps: the native routes' episode cap (default 15; 0 or "none": no cap, as in
            WebShop's text env). Sessions of the AgentGym routes are never capped.
        """
        cap = step_cap(max_steps)
        folder = Path(data_dir).expanduser() if data_dir else ensure_built(int(products), int(seed))
        manifest = Manifest.read(folder)
        catalog = Catalog(manifest.catalog_url(folder, db_url))
        kind = goals
        if kind == "auto":
            kind = "human" if manifest.human_goals else "synthetic"
        if kind == "human" and not manifest.human_goals:
            raise ValueError(f"{folder} has no human goals (build it with items_human_ins.json)")
        # Synthetic goals of WebShop's own files draw their price ceilings as AgentGym's shop
        # server does, so its index i is our task i; a generated catalog keeps its seeded draws.
        rule = "seeded" if manifest.source == "generated" else "agentgym"
        synthetic = GoalSet(folder, "synthetic", catalog, manifest.seed, rule)
        goal_set = synthetic if kind == "synthetic" else GoalSet(folder, kind, catalog, manifest.seed)
        noun_of: NounExtractor = SpacyNouns(spacy_model) if spacy_model else nouns
        noun_of("warm up")  # load the noun lexicon (or pipeline) now, not during the first purchase
        searcher = Searcher(folder / "index", preload=flag(preload_index))
        return WebShopData(folder, manifest, catalog, searcher, goal_set, synthetic, flag(show_attrs), noun_of, cap)

    def __init__(self, shared: Any = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.data: WebShopData = self.shared
        self.max_steps = _UNCAPPED if self.data.max_steps is None else self.data.max_steps
        self.goal: Goal | None = None
        self._clear_page_state()
        self.page: pages.Page | None = None

    def _clear_page_state(self) -> None:
        self.where = "index"  # index | results | item | sub | done
        self.keywords: str | None = None
        self.results: tuple[int, ...] = ()
        self.page_no = 1
        self.product_idx: int | None = None
        self.options: dict[str, str] = {}
        self.sub: str | None = None
        self.links: dict[str, int] = {}  # asin (lower-cased) -> product number, on a results page

    # ----------------------------------------------------------------- catalogue
    @property
    def goals(self) -> GoalSet:
        """The goals this session's tasks name: AgentGym's list on the AgentGym routes
        (its server loads synthetic goals only), the goals option's otherwise."""
        return self.data.agentgym_goals if self.agentgym else self.data.goals

    def splits(self) -> Mapping[str, int]:
        return {name: stop - start for name, (start, stop) in self.goals.ranges.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split not in self.goals.ranges:
            raise UnknownSplit(f"unknown split {split!r}; known: {sorted(self.goals.ranges)}")
        start, stop = self.goals.ranges[split]
        first = start + max(0, offset)
        last = stop if limit is None else min(stop, first + max(0, limit))
        return [str(i) for i in range(first, last)]

    def _position(self, task_id: str) -> int:
        if not task_id.isdigit() or int(task_id) >= self.goals.total:
            raise UnknownTask(f"unknown task id {task_id!r}: WebShop goals are 0..{self.goals.total - 1}")
        return int(task_id)

    def split_of(self, task_id: str) -> str:
        position = self._position(task_id)
        for name, (start, stop) in self.goals.ranges.items():
            if start <= position < stop:
                return name
        raise UnknownTask(f"unknown task id {task_id!r}")

    def describe_task(self, task_id: str) -> dict[str, Any]:
        goal = self.goals.at(self._position(task_id))
        return {"instruction": goal.instruction_text, "goal_type": goal.kind, "category": goal.product.category}

    # ----------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.goal = self.goals.at(self._position(task_id))
        # Set per episode: the AgentGym routes flag a session before they reset it.
        cap = None if self.agentgym else self.data.max_steps
        self.max_steps = _UNCAPPED if cap is None else cap
        self._clear_page_state()
        self.page = pages.search_page(self.goal.instruction_text)
        return ResetResult(self.page.observation, self._info())

    def _info(self, **extra: Any) -> dict[str, Any]:
        assert self.goal is not None and self.page is not None
        return {"task": self.goal.instruction_text, "available_actions": self.page.available_actions(), **extra}

    def _step(self, action: str) -> StepResult:
        assert self.page is not None
        name, arg = parse_action(action.strip())
        arg = arg.lower() if arg is not None else None
        if name == "search" and arg:
            self._search(arg, 1)
        elif name == "click" and arg is not None and arg in self.page.clickables and arg != "search":
            reward = self._click(arg)
            if reward is not None:
                return StepResult(self.page.observation, reward[0], True, info=self._info(valid=True, **reward[1]))
        else:
            return StepResult(self.page.observation, 0.0, False, info=self._info(valid=False))
        return StepResult(self.page.observation, 0.0, False, info=self._info(valid=True))

    # ----------------------------------------------------------------- pages
    def _instruction(self) -> str:
        assert self.goal is not None
        return self.goal.instruction_text

    def _search(self, keywords: str, page_no: int) -> None:
        if keywords != self.keywords:
            self.results = tuple(self.data.searcher.search(keywords))
        self.where, self.keywords, self.page_no = "results", keywords, page_no
        self.product_idx, self.options, self.sub = None, {}, None
        shown = self.results[(page_no - 1) * PAGE_SIZE : page_no * PAGE_SIZE]
        listed = self.data.catalog.listing(shown)
        self.links = {p.asin.lower(): idx for p, idx in zip(listed, shown)}
        self.page = pages.results_page(self._instruction(), page_no, len(self.results), listed)

    def _show_item(self) -> None:
        assert self.product_idx is not None
        product = self.data.catalog.product(self.product_idx)
        self.where, self.sub, self.links = "item", None, {}
        self.page = pages.item_page(self._instruction(), product.shown(), self.data.show_attrs)

    def _click(self, arg: str) -> tuple[float, dict[str, Any]] | None:
        """WebShop's click dispatch (SimServer.receive); returns (reward, details) on Buy Now."""
        assert self.page is not None and self.goal is not None
        if arg == pages.BUY_NOW.lower():
            assert self.product_idx is not None
            product = self.data.catalog.product(self.product_idx)
            total, details = webshop_reward(
                product.purchasable(), self.goal.spec(), product.price, self.options, self.data.noun_of
            )
            self.where = "done"
            self.page = pages.done_page(product.asin, self.options, total)
            return total, {"reward_details": details, "purchased": product.asin}
        if arg == pages.BACK_TO_SEARCH.lower():
            self._clear_page_state()
            self.page = pages.search_page(self._instruction())
        elif arg == pages.NEXT_PAGE.lower() and self.where == "results":
            assert self.keywords is not None
            self._search(self.keywords, self.page_no + 1)
        elif arg == pages.PREV_PAGE.lower() and self.where == "results":
            assert self.keywords is not None
            self._search(self.keywords, self.page_no - 1)
        elif arg == pages.PREV_PAGE.lower() and self.where == "sub":
            self._show_item()
        elif arg == pages.PREV_PAGE.lower() and self.where == "item":
            assert self.keywords is not None
            self._search(self.keywords, self.page_no)
        elif arg in {p.lower() for p in pages.SUB_PAGES}:
            assert self.product_idx is not None
            which = next(p for p in pages.SUB_PAGES if p.lower() == arg)
            product = self.data.catalog.product(self.product_idx)
            self.where, self.sub = "sub", which
            self.page = pages.sub_page(self._instruction(), product.shown(), which)
        else:
            if arg in self.links and self.where == "results":
                self.product_idx = self.links[arg]
            elif self.page.clickables.get(arg) is not None:
                self.options[self.page.clickables[arg]] = arg  # type: ignore[index]
            self._show_item()
        return None

    # ----------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        """The expert's next action (expert.py); None before reset, after buying, or when it gives up."""
        if self.goal is None or self.done or self.page is None:
            return None
        return expert.next_action(self)
