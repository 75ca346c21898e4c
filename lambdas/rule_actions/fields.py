"""The declarations a configuration is made of (the ground floor).

The plug-in that owns a setting declares its field (`ALLOW_CROSS_JOB_STOP = Flag(...)` in kinds/stoptraining.py) and reads
its value back with `config[ALLOW_CROSS_JOB_STOP]`. config.py assembles every plug-in's fields into the
configuration: it reads them all (collecting every error before it fails), writes their canonical JSON and
states their JSON Schema, which `schemas/config.schema.json` publishes: one declaration, three uses.

    Flag       true or false
    Whole      a whole number in a range
    TextList   a list of non-empty strings, each matching a pattern when one is given
    ActionMap  name or glob -> actions (the action grammar, through the assembler's Context)
    Custom     a block read by a function of its owner, with its schema written beside it

A field reads a given value (an absent one is its default) and appends one error per problem, each naming the
field's path and quoting the value; it never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from rule_actions.records import Action, Invalid, Place
from rule_actions.text import quoted, unknown

T = TypeVar("T")
Actions = tuple[tuple[str, tuple[Action, ...]], ...]  # (key, its actions), in the file's order


class Context(Protocol):
    """What the assembler lends the fields that hold actions."""

    def actions(self, data: Any, path: str, place: Place) -> tuple[list[Action], list[Invalid]]: ...
    def action_dict(self, action: Action) -> dict[str, str]: ...
    def action_schema(self, place: Place) -> dict[str, Any]: ...

    def destinations(self) -> Mapping[str, str]:
        """The destinations a webhook's `format` may name, each with its words in the schema."""
        ...


def anchored(pattern: str) -> str:
    """A Python full-match pattern as a JSON Schema pattern, which searches: anchored at both ends, and nothing
    after the end (`$` alone would let Python's re, which validators use, accept a trailing newline)."""
    return f"^(?:{pattern})$(?![\\s\\S])"


class Field(Generic[T]):
    def __init__(self, key: str, default: T, doc: str):
        self.key, self.default, self.doc = key, default, doc

    def load(self, data: Mapping[str, Any], where: str, errors: list[str], ctx: Context) -> T:
        if self.key not in data:
            return self.default
        return self.read(data[self.key], f"{where}.{self.key}", errors, ctx)

    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> T:
        raise NotImplementedError

    def dump(self, value: T, ctx: Context) -> Any:
        return value

    def schema(self, ctx: Context) -> dict[str, Any]:
        raise NotImplementedError

    def described(self, ctx: Context) -> dict[str, Any]:
        """Its JSON Schema with its description and default."""
        return {**self.schema(ctx), "description": self.doc, "default": self.dump(self.default, ctx)}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r})"


class Flag(Field[bool]):
    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> bool:
        if isinstance(value, bool):
            return value
        errors.append(f"{where}: {quoted(value)} is not true or false")
        return self.default

    def schema(self, ctx: Context) -> dict[str, Any]:
        return {"type": "boolean"}


class Whole(Field[int]):
    def __init__(self, key: str, default: int, doc: str, low: int, high: int, unit: str):
        super().__init__(key, default, doc)
        self.low, self.high, self.unit = low, high, unit

    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> int:
        if isinstance(value, float) and value.is_integer():  # JSON has one number type: 2.0 is the whole number 2, as
            value = int(value)  # the schema's "integer" says
        if isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high:
            return value
        errors.append(f"{where}: {quoted(value)} is not a whole number of {self.unit} from {self.low} to {self.high}")
        return self.default

    def schema(self, ctx: Context) -> dict[str, Any]:
        return {"type": "integer", "minimum": self.low, "maximum": self.high}


class TextList(Field[tuple[str, ...]]):
    """A list of non-empty strings; with `pattern`, each must match it whole (`hint` says what it must be), as the
    schema says; `check`, when given, is what the validator asks instead (the pattern and more)."""

    def __init__(self, key: str, doc: str, pattern: str | None = None, hint: str = "",
                 check: Callable[[str], object] | None = None):
        super().__init__(key, (), doc)
        self.pattern, self.hint = pattern, hint
        self.check = check or (re.compile(pattern, re.ASCII).fullmatch if pattern else None)

    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> tuple[str, ...]:
        found = strings(value, where, errors)
        bad = [v for v in found if self.check and not self.check(v)]
        errors += [f"{where}: {quoted(v)} is not {self.hint}" for v in bad]
        return () if bad else tuple(found)

    def dump(self, value: tuple[str, ...], ctx: Context) -> list[str]:
        return list(value)

    def schema(self, ctx: Context) -> dict[str, Any]:
        item: dict[str, Any] = {"type": "string", "minLength": 1}
        if self.pattern:
            item["pattern"] = anchored(self.pattern)
        return {"type": "array", "items": item}


def strings(value: Any, where: str, errors: list[str]) -> tuple[str, ...]:
    """A list of non-empty strings, else () and an error naming the field and quoting the value."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        errors.append(f"{where}: {quoted(value)} is not a list of non-empty strings")
        return ()
    return tuple(value)


class ActionMap(Field[Actions]):
    """`key -> actions` in the file's order: `what` names a key ("rule name or glob"); `keys`, when given, are the
    only keys allowed. Values are action lists of the grammar for `place` (rules, job_outcomes)."""

    def __init__(self, key: str, default: Actions, doc: str, place: Place, what: str, keys: tuple[str, ...] = ()):
        super().__init__(key, default, doc)
        self.place, self.what, self.keys = place, what, keys

    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> Actions:
        if not isinstance(value, Mapping):
            errors.append(f"{where}: {quoted(value)} must be an object of {self.what} -> actions")
            return ()
        found = []
        for key, entries in value.items():
            path = f"{where}[{json.dumps(key)}]"
            if not isinstance(key, str) or not key:
                errors.append(f"{path}: a {self.what} must be a non-empty string")
                continue
            if self.keys and key not in self.keys:
                errors.append(f"{path}: {unknown(key, self.keys, self.what)}")
                continue
            if hasattr(entries, "entries"):  # rule_actions_sdk objects
                entries = entries.entries()
            actions, invalid = ctx.actions(entries, path, self.place)
            errors += [f"{bad.field}: {bad.reason}" for bad in invalid]
            found.append((key, tuple(dict.fromkeys(actions))))
        return tuple(found)

    def dump(self, value: Actions, ctx: Context) -> dict[str, list[dict[str, str]]]:
        return {key: [ctx.action_dict(action) for action in actions] for key, actions in value}

    def schema(self, ctx: Context) -> dict[str, Any]:
        keys: dict[str, Any] = {"enum": list(self.keys)} if self.keys else {"minLength": 1}
        return {"type": "object", "propertyNames": keys, "additionalProperties": ctx.action_schema(self.place)}


class Custom(Field[T]):
    """A block its owner reads with `reader(value, where, errors)`, writes with `writer`, and describes with
    `json_schema` (a dict, or a function of the context)."""

    def __init__(self, key: str, default: T, doc: str, reader: Callable[[Any, str, list[str]], T],
                 writer: Callable[[T], Any], json_schema: dict[str, Any] | Callable[[Context], dict[str, Any]]):
        super().__init__(key, default, doc)
        self.reader, self.writer, self.json_schema = reader, writer, json_schema

    def read(self, value: Any, where: str, errors: list[str], ctx: Context) -> T:
        return self.reader(value, where, errors)

    def dump(self, value: T, ctx: Context) -> Any:
        return self.writer(value)

    def schema(self, ctx: Context) -> dict[str, Any]:
        return self.json_schema(ctx) if callable(self.json_schema) else dict(self.json_schema)
