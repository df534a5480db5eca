"""The trainers' configuration base, in TRL's style: a dataclass whose every field carries its
help in `metadata`, checks in `__post_init__`, named presets, one command-line flag per field
generated from the class, and one serialisation (to_dict / from_dict).

AgentEvol's and GenEnv's configs subclass it, so both trainers read their options the same way:
`--field value`, `--field=value`, `--flag` / `--no-flag` for booleans, comma lists for list and
tuple fields, `k=v` pairs (repeatable) for dict fields, and `--set field=value` as another
spelling of any of them. Field metadata beyond "help": "secret" (written as None by to_dict),
"env" (an environment variable the command line falls back to).
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, TypeVar

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")
NONE = ("none", "null", "")

Config = TypeVar("Config", bound="TrainerConfig")


@dataclass
class TrainerConfig:
    #: Named settings applied over the defaults by `from_preset` (the subclass's own).
    PRESETS: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: Command-line spellings that name a field ({"env": "envs"}: `--env alfworld`).
    ALIASES: ClassVar[Mapping[str, str]] = {}
    #: Fields a resumed run may change (they do not change results: more epochs, URLs, threads);
    #: any other difference from the directory's saved config refuses the resume.
    RESUMABLE_CHANGES: ClassVar[frozenset[str]] = frozenset()
    #: `--list-options`' help sections, in order: {title: field names} (TRL groups its configs'
    #: options the same way); every field belongs to exactly one.
    SECTIONS: ClassVar[Mapping[str, Sequence[str]]] = {}

    def __post_init__(self) -> None:
        self._normalise()
        self.check()

    def check(self) -> None:
        """Refuse bad settings with a ValueError that names the field (subclasses extend it)."""

    def validated(self: Config) -> Config:
        """Check again (after fields were set one by one) and return self."""
        self._normalise()
        self.check()
        return self

    def _normalise(self) -> None:
        """Sequences in the field's own type: a bare string is a comma list, a list given for a
        tuple field (JSON has no tuples) becomes a tuple."""
        for name, kind in self.field_types().items():
            value, origin = getattr(self, name), typing.get_origin(_without_none(kind))
            if origin in (list, tuple) and isinstance(value, str):
                value = [item.strip() for item in value.split(",") if item.strip()]
            if origin is tuple and isinstance(value, list):
                value = tuple(value)
            elif origin is list and isinstance(value, tuple):
                value = list(value)
            setattr(self, name, value)

    # ------------------------------------------------------------------ presets and changes
    @classmethod
    def from_preset(cls: type[Config], name: str | None, **overrides: Any) -> Config:
        """The defaults, then preset `name` (None: none), then `overrides`; checked."""
        if name is not None and name not in cls.PRESETS:
            raise ValueError(f"unknown preset {name!r}; presets: {', '.join(cls.PRESETS)}")
        return cls(**{**(cls.PRESETS[name] if name else {}), **overrides})

    def replace(self: Config, **changes: Any) -> Config:
        """A copy with `changes`, checked."""
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready values; secret fields (tokens) as None, never written out."""
        data = dataclasses.asdict(self)
        for f in fields(self):
            if f.metadata.get("secret"):
                data[f.name] = None
        return data

    @classmethod
    def from_dict(cls: type[Config], data: Mapping[str, Any]) -> Config:
        """The config `to_dict` wrote (lists back to tuples where the field is a tuple)."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields: {', '.join(sorted(unknown))}")
        return cls(**dict(data))

    @classmethod
    def load(cls: type[Config], path: str | os.PathLike[str]) -> Config:
        with open(path) as f:
            return cls.from_dict(json.load(f))

    # ------------------------------------------------------------------ the command line
    @classmethod
    def field_types(cls) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        return {f.name: hints[f.name] for f in fields(cls)}

    @classmethod
    def parse_value(cls, name: str, raw: str) -> Any:
        """The command-line string `raw` as field `name`'s type."""
        kind = cls.field_types()[name]
        flag = f"--{name}"
        if _is_optional(kind):
            if raw.strip().lower() in NONE:
                return None
            kind = _without_none(kind)
        origin = typing.get_origin(kind)
        if kind is bool:
            if raw.strip().lower() in TRUE:
                return True
            if raw.strip().lower() in FALSE:
                return False
            raise ValueError(f"{flag} wants true or false, got {raw!r}")
        if origin in (list, tuple):
            items = [item.strip() for item in raw.split(",") if item.strip()]
            return items if origin is list else tuple(items)
        if origin is dict:
            pairs = [p.split("=", 1) if "=" in p else p.split(":", 1) for p in raw.split(",") if p.strip()]
            if any(len(pair) != 2 for pair in pairs):
                raise ValueError(f"{flag} wants KEY=VALUE pairs, got {raw!r}")
            return {k.strip(): v.strip() for k, v in pairs}
        try:
            return kind(raw)
        except ValueError:
            raise ValueError(f"{flag} wants a {kind.__name__}, got {raw!r}") from None

    @classmethod
    def option_name(cls, flag: str) -> tuple[str, bool]:
        """The field a flag names (without its dashes), and whether it is a `--no-` negation."""
        types_ = cls.field_types()
        name = flag.replace("-", "_")
        name = cls.ALIASES.get(name, name)
        if name not in types_ and name.startswith("no_") and name[3:] in types_ and _is_bool(types_[name[3:]]):
            return name[3:], True
        if name not in types_:
            known = ", ".join(f"--{n.replace('_', '-')}" for n in types_)
            raise ValueError(f"unknown option --{flag}; {cls.__name__} options: {known}")
        return name, False

    @classmethod
    def parse_args(cls, args: Sequence[str], environ: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The fields `args` set, as {field: value}: `--field value`, `--field=value`, bare
        `--flag` (true) and `--no-flag` for booleans, `--set field=value`; a dict field's pairs
        add up over repeated flags. Fields with an "env" variable in their metadata fall back
        to it (from `environ`) when no flag sets them."""
        types_ = cls.field_types()
        out: dict[str, Any] = {}

        def put(name: str, value: Any) -> None:
            if isinstance(value, dict) and isinstance(out.get(name), dict):
                value = {**out[name], **value}
            out[name] = value

        i = 0
        while i < len(args):
            arg = args[i]
            if not arg.startswith("--"):
                raise ValueError(f"unexpected argument {arg!r}")
            key, eq, value = arg[2:].partition("=")
            if key == "set":  # --set field=value (GenEnv's spelling before the generated flags)
                if not eq:
                    if i + 1 == len(args):
                        raise ValueError("--set needs field=value")
                    value, i = args[i + 1], i + 1
                field_key, sep, field_value = value.partition("=")
                if not sep:
                    raise ValueError(f"--set takes field=value, got {value!r}")
                try:
                    name, _ = cls.option_name(field_key.strip())
                except ValueError:
                    raise ValueError(f"unknown config field {field_key.strip()!r} in --set {value}; fields: "
                                     f"{', '.join(sorted(types_))}") from None  # fmt: skip
                put(name, cls.parse_value(name, field_value.strip()))
                i += 1
                continue
            name, negated = cls.option_name(key)
            if negated:
                put(name, False)
            elif eq:
                put(name, cls.parse_value(name, value))
            elif _is_bool(types_[name]) and (i + 1 == len(args) or args[i + 1].startswith("--")):
                put(name, True)
            else:
                if i + 1 == len(args):
                    raise ValueError(f"--{key} needs a value")
                put(name, cls.parse_value(name, args[i + 1]))
                i += 1
            i += 1
        environ = os.environ if environ is None else environ
        for f in fields(cls):
            variable = f.metadata.get("env")
            if variable and f.name not in out and environ.get(variable):
                out[f.name] = cls.parse_value(f.name, environ[variable])
        return out

    @classmethod
    def describe_options(cls) -> str:
        """The commands' --list-options: one line per option with its default and help, under
        the class's section headings."""
        by_name = {f.name: f for f in fields(cls)}
        blocks = []
        for title, names in cls.sections().items():
            blocks.append("\n".join([f"{title}:", *(_describe(by_name[n]) for n in names)]))
        return "\n\n".join(blocks)

    @classmethod
    def sections(cls) -> dict[str, list[str]]:
        """{section: field names} in the order --list-options shows them; fields no section
        names go under "other" (a test keeps every config's "other" empty)."""
        known = {f.name for f in fields(cls)}
        unknown = [n for names in cls.SECTIONS.values() for n in names if n not in known]
        if unknown:
            raise ValueError(f"{cls.__name__}.SECTIONS names no such fields: {', '.join(unknown)}")
        out = {title: list(names) for title, names in cls.SECTIONS.items()}
        placed = {n for names in out.values() for n in names}
        rest = [f.name for f in fields(cls) if f.name not in placed]
        if rest:
            out["other"] = rest
        return out


def _describe(f: dataclasses.Field[Any]) -> str:
    default = f.default if f.default_factory is MISSING else f.default_factory()
    shown = "null" if f.metadata.get("secret") else json.dumps(default)
    variable = f" [env {f.metadata['env']}]" if f.metadata.get("env") else ""
    return f"  --{f.name.replace('_', '-')} (default {shown}){variable}: {f.metadata.get('help', '')}"


def _is_optional(kind: Any) -> bool:
    return typing.get_origin(kind) in (typing.Union, types.UnionType) and type(None) in typing.get_args(kind)


def _without_none(kind: Any) -> Any:
    if not _is_optional(kind):
        return kind
    return next(a for a in typing.get_args(kind) if a is not type(None))


def _is_bool(kind: Any) -> bool:
    return _without_none(kind) is bool
