"""Executes API calls the way API-Bank's ToolManager does, on one session's databases.

A call goes through the same three stages as the original: the parameter names are checked
against the API's documented inputs, string arguments are converted to the documented types, and
the API runs; whatever it raises becomes the `exception` of the result dict
`{"api_name", "input", "output", "exception"}`. Failures of the first two stages (and missing
arguments) are not API results in API-Bank — its evaluator counts them as wrong calls — so they
come back as `CallResult.valid = False` with the message the original raises.
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from coevo.envs.apibank.database import SessionTables
from coevo.envs.apibank.specs import ApiSpec

#: APIs whose result dict has no "api_name" key in API-Bank (kept for exact output formats).
NO_API_NAME_KEY = frozenset({"CheckToken", "DeleteAccount", "ForgotPassword", "RegisterUser"})


class ApiException(Exception):
    """An exception an API raises on purpose; its text is the result's `exception`."""


class InvalidCall(Exception):
    """A call API-Bank rejects before the API runs (unknown tool, bad parameter name or type)."""


ApiFunction = Callable[..., Any]

#: level -> API name -> implementation. Filled by the `apis` modules through `implements`.
IMPLEMENTATIONS: dict[int, dict[str, ApiFunction]] = {12: {}, 3: {}}


def implements(name: str, *, level: int = 12) -> Callable[[ApiFunction], ApiFunction]:
    """Register the function that runs API `name`; its first argument is the CallContext."""

    def register(fn: ApiFunction) -> ApiFunction:
        IMPLEMENTATIONS[level][name] = fn
        return fn

    return register


@dataclass
class SessionState:
    """Everything one session's sandbox owns: its tables and the APIs' own small state."""

    tables: SessionTables
    seed: int = 0
    calls: int = 0
    #: Per-API scratch state (ForgotPassword's pending code, OpenBankAccount's accounts).
    memory: dict[str, Any] = field(default_factory=dict)


@dataclass
class CallContext:
    """What an API implementation may touch."""

    state: SessionState
    resources: Any
    #: Ids/tokens a recorded dialogue shows for this call, so replays stay consistent.
    hints: Mapping[str, Any]

    def read(self, table: str) -> Any:
        return self.state.tables.read(table)

    def write(self, table: str) -> Any:
        return self.state.tables.write(table)

    def rng(self) -> random.Random:
        """A generator fixed by (session seed, call number): same episode, same ids."""
        return random.Random(f"{self.state.seed}:{self.state.calls}")

    def check_token(self, token: str) -> str:
        """CheckToken's rule: the user whose token it is, or 'The token is invalid.'."""
        accounts = self.read("Account")
        for username, account in accounts.items():
            if account["token"] == token:
                return username
        raise ApiException("The token is invalid.")


@dataclass
class CallResult:
    result: dict[str, Any]
    #: False when API-Bank would reject the call before running it (see module docstring).
    valid: bool = True

    @property
    def output(self) -> Any:
        return self.result.get("output")

    @property
    def exception(self) -> str | None:
        return self.result.get("exception")


def coerce_arguments(spec: ApiSpec, arguments: Mapping[str, Any], parse_lists: bool = True) -> dict[str, Any]:
    """ToolManager.api_call's conversion of (string) arguments to the documented types.

    ToolManager passes list arguments on as the strings the call wrote (`parse_lists=False`,
    the official scoring); the recorded dialogues were made with them read as literals.
    """
    converted: dict[str, Any] = {}
    for key, value in arguments.items():
        if key not in spec.input_parameters:
            raise InvalidCall(f"invalid parameter name. parameter: {key}")
        kind = spec.input_parameters[key]["type"]
        if kind == "int":
            if isinstance(value, str) and not value.isdigit():
                raise InvalidCall(f"invalid parameter type. parameter: {value}")
            converted[key] = int(value)
        elif kind == "float":
            if isinstance(value, str) and not value.replace(".", "", 1).isdigit():
                raise InvalidCall("invalid parameter type.")
            converted[key] = float(value)
        elif kind in ("str", "dict"):
            converted[key] = value
        elif kind in ("list", "list(str)"):
            converted[key] = (
                parse_literal_list(value) if isinstance(value, str) and parse_lists else copy.deepcopy(value)
            )
        elif kind == "bool":
            converted[key] = value if isinstance(value, bool) else value == "True"
        else:
            raise InvalidCall("invalid parameter type.")
    return converted


def parse_literal_list(text: str) -> Any:
    """A list argument written as a Python or JSON literal (never evaluated as code)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    try:
        return json.loads(text.replace("'", '"'))
    except json.JSONDecodeError as exc:
        raise InvalidCall(f"{exc}") from None


def _missing_arguments(name: str, fn: ApiFunction, given: Mapping[str, Any]) -> str | None:
    """Python's TypeError text for a call that lacks required arguments, as the original raises."""
    params = list(inspect.signature(fn).parameters.values())[1:]  # drop the context
    missing = [
        p.name
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in given
    ]
    if not missing:
        return None
    quoted = [f"'{m}'" for m in missing]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    plural = "s" if len(missing) > 1 else ""
    return f"{name}.call() missing {len(missing)} required positional argument{plural}: {listed}"


def input_record(fn: ApiFunction, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
    """The result's `input`: every declared parameter (defaults included), then extra keywords."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    if not params:
        return None
    record: dict[str, Any] = {}
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            record.update({k: v for k, v in arguments.items() if k not in record})
        elif p.name in arguments:
            record[p.name] = arguments[p.name]
        elif p.default is not inspect.Parameter.empty:
            record[p.name] = p.default
    return record


def execute(
    catalogue: Mapping[str, ApiSpec],
    level: int,
    state: SessionState,
    resources: Any,
    name: str,
    arguments: Mapping[str, Any],
    hints: Mapping[str, Any] | None = None,
    parse_lists: bool = True,
) -> CallResult:
    """Run one API call on a session and return API-Bank's result dict."""
    if name not in catalogue:
        return CallResult(
            {"api_name": name, "input": dict(arguments), "output": None, "exception": "invalid tool name."}, valid=False
        )
    spec = catalogue[name]
    fn = IMPLEMENTATIONS[level][name]
    try:
        converted = coerce_arguments(spec, arguments, parse_lists)
    except (InvalidCall, ValueError) as exc:
        return CallResult(
            {"api_name": name, "input": dict(arguments), "output": None, "exception": str(exc)}, valid=False
        )
    missing = _missing_arguments(name, fn, converted)
    if missing:
        return CallResult({"api_name": name, "input": converted, "output": None, "exception": missing}, valid=False)
    record = input_record(fn, converted)
    context = CallContext(state, resources, hints or {})
    try:
        output, exception = fn(context, **converted), None
    except Exception as exc:  # noqa: BLE001 - API-Bank turns every exception into the result text
        output, exception = None, str(exc)
    finally:
        state.calls += 1
    result: dict[str, Any] = {} if name in NO_API_NAME_KEY else {"api_name": name}
    result.update({"input": record, "output": output, "exception": exception})
    return CallResult(result)


def hints_from_record(name: str, recorded: Mapping[str, Any] | None) -> dict[str, Any]:
    """Random values a recorded result shows, so replaying it reproduces later references."""
    output = (recorded or {}).get("output")
    if name == "AppointmentRegistration" and isinstance(output, str):
        return {"appointment_id": output}
    if name == "RegisterUser" and isinstance(output, dict) and isinstance(output.get("token"), str):
        return {"token": output["token"]}
    return {}


class SandboxSession:
    """One session's sandbox: its own database view and API state over shared resources."""

    def __init__(self, resources: Any, level: int, seed: int = 0, parse_lists: bool = True) -> None:
        from coevo.envs.apibank.specs import catalogue

        self.resources = resources
        self.level = 3 if level == 3 else 12
        self.catalogue = catalogue(self.level)
        self.state = SessionState(SessionTables(resources.tables), seed=seed)
        #: False: list arguments stay strings, as ToolManager passes them (official scoring).
        self.parse_lists = parse_lists

    def call(self, name: str, arguments: Mapping[str, Any], hints: Mapping[str, Any] | None = None) -> CallResult:
        return execute(self.catalogue, self.level, self.state, self.resources, name, arguments, hints, self.parse_lists)

    def fresh(self, parse_lists: bool = True) -> SandboxSession:
        """A session on the initial databases (what a new ToolManager sees), same seed."""
        return SandboxSession(self.resources, self.level, seed=self.state.seed, parse_lists=parse_lists)

    def fork(self) -> SandboxSession:
        """An independent copy of this session (copies only the tables it has written)."""
        clone = SandboxSession.__new__(SandboxSession)
        clone.resources, clone.level, clone.catalogue = self.resources, self.level, self.catalogue
        clone.parse_lists = self.parse_lists
        tables = self.state.tables
        owned = {name: tables.read(name) for name in tables.written}
        clone.state = SessionState(
            SessionTables(self.resources.tables, owned),
            seed=self.state.seed,
            calls=self.state.calls,
            memory=dict(self.state.memory),
        )
        return clone
