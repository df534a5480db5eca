"""The stateful multi-turn APIs (file system, trading bot, ...) that ship in bfcl-eval.

`ApiWorld` holds one episode's instances, loaded from the entry's initial config exactly as
BFCL's executor loads them, and runs calls on them: only public methods of the involved
instances are reachable (a later class wins a shared method name, as in BFCL), results are
turned into strings the way BFCL does (dicts as JSON), and any failure becomes an
"Error during execution: ..." result instead of an exception. Calls arrive already parsed
(`calls.Call`, literal arguments only); nothing is evaluated.

Two guards keep one request from tying up a server worker, neither reachable by BFCL's answers:
`MathAPI.power` refuses results beyond a million bits, and `precision` arguments (mpmath digits)
are capped at 10,000.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.envs.bfcl.calls import Call, parse_ground_truth_call

#: Method names BFCL's executor refuses to run, whatever class would own them.
BLOCKED_NAMES = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
MAX_POWER_BITS = 1_000_000
MAX_PRECISION = 10_000
#: Classes whose methods set process-wide state (MathAPI.logarithm sets mpmath's precision
#: before computing): their calls run one at a time, so concurrent sessions stay deterministic.
_GLOBAL_STATE_CLASSES = frozenset({"MathAPI"})
_global_state_lock = threading.Lock()

_class_lock = threading.Lock()
_classes: dict[str, type] = {}
_public_methods: dict[str, tuple[str, ...]] = {}


def api_class(class_name: str) -> type:
    """The API class BFCL names `class_name`, imported from bfcl_eval on first use."""
    cls = _classes.get(class_name)
    if cls is None:
        from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING

        if class_name not in CLASS_FILE_PATH_MAPPING:
            raise KeyError(f"unknown BFCL API class {class_name!r}")
        cls = getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[class_name]), class_name)
        with _class_lock:
            _classes[class_name] = cls
    return cls


def _methods_of(class_name: str, instance: Any) -> tuple[str, ...]:
    names = _public_methods.get(class_name)
    if names is None:
        names = tuple(
            name for name, _ in inspect.getmembers(instance, predicate=inspect.ismethod) if not name.startswith("_")
        )
        with _class_lock:
            _public_methods[class_name] = names
    return names


def _stateless(class_name: str) -> bool:
    from bfcl_eval.constants.executable_backend_config import STATELESS_CLASSES

    return class_name in STATELESS_CLASSES


def format_result(value: Any) -> str:
    """BFCL's result text: strings as they are, dicts as JSON (else str), anything else str()."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def _guard(method: str, kwargs: Mapping[str, Any]) -> str | None:
    precision = kwargs.get("precision")
    if isinstance(precision, (int, float)) and precision > MAX_PRECISION:
        return f"precision above {MAX_PRECISION} digits is not supported"
    if method == "power":
        base, exponent = kwargs.get("base"), kwargs.get("exponent")
        if isinstance(base, (int, float)) and isinstance(exponent, (int, float)):
            magnitude = abs(exponent) * math.log2(abs(base)) if abs(base) > 1 else 0.0
            if magnitude > MAX_POWER_BITS:
                return f"result would exceed {MAX_POWER_BITS} bits"
    return None


_mutable_defaults: dict[Any, tuple[tuple[int, str, Any], ...]] = {}


def _fill_mutable_defaults(method: Any, args: tuple, kwargs: dict[str, Any]) -> None:
    """Pass a fresh copy of every list/dict default the call leaves out.

    Some API methods declare `tags: List[str] = []` and later mutate the stored list; left alone,
    that one default object would be shared by every episode in the process, so one session's
    calls could change another's state. Arguments are deep-copied for the same reason (the
    ground truth's own argument lists must not end up inside a world).
    """
    func = method.__func__
    defaults = _mutable_defaults.get(func)
    if defaults is None:
        params = list(inspect.signature(method).parameters.values())
        defaults = tuple(
            (i, p.name, p.default) for i, p in enumerate(params) if isinstance(p.default, (list, dict, set))
        )
        with _class_lock:
            _mutable_defaults[func] = defaults
    for index, name, default in defaults:
        if index >= len(args) and name not in kwargs:
            kwargs[name] = copy.deepcopy(default)


def _run(method: Any, args: tuple, kwargs: dict[str, Any]) -> str:
    try:
        return format_result(method(*args, **kwargs))
    except Exception as e:  # the API's own failures are results the agent must see
        return f"Error during execution: {e}"


class ApiWorld:
    """One episode's API instances and the method-name table that reaches them."""

    __slots__ = ("instances", "_owner")

    def __init__(self, involved_classes: Sequence[str], initial_config: Mapping[str, Any], long_context: bool) -> None:
        self.instances: dict[str, Any] = {}
        self._owner: dict[str, str] = {}
        for class_name in involved_classes:
            instance = api_class(class_name)()
            if not _stateless(class_name):
                instance._load_scenario(copy.deepcopy(initial_config.get(class_name, {})), long_context=long_context)
            self.instances[class_name] = instance
            for method in _methods_of(class_name, instance):
                self._owner[method] = class_name

    def method(self, name: str) -> Any | None:
        owner = self._owner.get(name)
        return None if owner is None else getattr(self.instances[owner], name)

    def execute(self, call: Call) -> str:
        """Run one call; always returns BFCL's result text, never raises."""
        if call.error is not None:
            return f"Error during execution: {call.error}"
        if call.name.split(".")[-1] in BLOCKED_NAMES:
            return f"Error during execution: Function call {call.name} is not allowed."
        method = self.method(call.name)
        if method is None:
            return f"Error during execution: name '{call.name.split('.')[0]}' is not defined"
        refused = _guard(call.name, call.kwargs)
        if refused is not None:
            return f"Error during execution: {refused}"
        args, kwargs = copy.deepcopy(call.args), copy.deepcopy(call.kwargs)
        _fill_mutable_defaults(method, args, kwargs)
        if self._owner[call.name] in _GLOBAL_STATE_CLASSES:
            with _global_state_lock:
                return _run(method, args, kwargs)
        return _run(method, args, kwargs)

    def public_state(self) -> dict[str, dict[str, Any]]:
        """A deep copy of every instance's public attributes (what BFCL's state check compares)."""
        return {
            name: {k: copy.deepcopy(v) for k, v in vars(inst).items() if not k.startswith("_")}
            for name, inst in self.instances.items()
        }

    def state_differences(self, expected: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
        """Attributes whose value differs from `expected` (BFCL's `state_checker`), by class."""
        missing = object()
        out: dict[str, list[str]] = {}
        for class_name, attrs in expected.items():
            instance = self.instances[class_name]
            diff = [k for k, v in attrs.items() if getattr(instance, k, missing) != v]
            if diff:
                out[class_name] = diff
        return out

    def keyword_form(self, call: Call) -> Call:
        """The same call with positional arguments named from the method's signature (the
        expert speaks keyword arguments only, like every agent)."""
        if not call.args:
            return call
        method = self.method(call.name)
        if method is None:
            raise KeyError(f"no method {call.name!r} in {sorted(self.instances)}")
        bound = inspect.signature(method).bind(*call.args, **call.kwargs)
        return Call(call.name, dict(bound.arguments))


@dataclass(frozen=True)
class TurnTruth:
    """What the ground truth leaves behind after one turn."""

    calls: tuple[Call, ...]
    results: tuple[str, ...]
    state: dict[str, dict[str, Any]]


def ground_truth_trajectory(
    answer: Sequence[Sequence[str]],
    involved_classes: Sequence[str],
    initial_config: Mapping[str, Any],
    long_context: bool,
) -> tuple[TurnTruth, ...]:
    """Run the ground-truth calls turn by turn on fresh instances, keeping results and state."""
    world = ApiWorld(involved_classes, initial_config, long_context)
    turns = []
    for turn in answer:
        calls = tuple(world.keyword_form(parse_ground_truth_call(text)) for text in turn)
        results = tuple(world.execute(c) for c in calls)
        turns.append(TurnTruth(calls, results, world.public_state()))
    return tuple(turns)
