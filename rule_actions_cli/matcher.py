"""EventBridge event-pattern matching, for replaying sample events against the stack's rule locally.

Follows the documented semantics (EventBridge user guide: "Event pattern syntax", "Comparison
operators for use in event patterns in Amazon EventBridge", "Arrays in Amazon EventBridge event
patterns", "Matching null values and empty strings ...") and, where the guide is silent, the README
and rule compiler of aws/event-ruler, the engine behind EventBridge:

- a pattern is an object; a list is a leaf (a non-empty list of matchers, OR-ed); an object
  descends into the event; all fields AND-ed; ``$or`` (a list of >= 2 objects) is AND-ed with its
  siblings and matches when any alternative does;
- arrays in the event are flattened: a leaf matches when any element matches, and an object
  pattern over an array of objects matches when one element matches all of it (event-ruler's
  "array-consistent" matching: fields from different elements are never combined);
- only scalars are leaf values: a field holding an object (or only objects, or an empty array)
  does not ``exists``, so ``exists: false`` matches it;
- numbers compare by value (event-ruler compiles ``[300]`` to a numeric-equality matcher as well
  as the literal), booleans are never numbers, strings never match numeric operators.
"""

from __future__ import annotations

import ipaddress
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

_ARRAY = (list, tuple)
_MISSING = object()  # a field that is not in the event, or an object reached through a non-object
_NUMERIC_LIMIT = 5.0e9  # event-ruler: numeric matching covers -5.0e9..+5.0e9
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {"=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


Test = Callable[[Any, Any], bool]  # an operator's test: (its argument, an event's value) -> matches
Check = Callable[[Any, str], None]  # an operator's validation: (its argument, its path) -> raises InvalidPattern


class InvalidPattern(ValueError):
    """The pattern is not one EventBridge would accept; the message starts with the path."""


# ---------------------------------------------------------------------------------------- matching


def matches(pattern: Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    """True when ``event`` would be selected by the EventBridge ``pattern`` (validated first)."""
    validate(pattern)
    if not isinstance(event, Mapping):
        raise TypeError(f"event must be a JSON object, got {type(event).__name__}")
    return _match_object(pattern, event)


def _match_object(pattern: Mapping[str, Any], node: Any) -> bool:
    """``node`` is an event object, or _MISSING when the pattern's parent is absent from the event."""
    for key, spec in pattern.items():
        if key == "$or":
            ok = any(_match_object(alternative, node) for alternative in spec)
        else:
            child = node.get(key, _MISSING) if isinstance(node, Mapping) else _MISSING
            ok = _match_nested(spec, child) if isinstance(spec, Mapping) else _match_leaf(spec, child)
        if not ok:
            return False
    return True


def _match_nested(pattern: Mapping[str, Any], value: Any) -> bool:
    objects = [item for item in _flatten(value) if isinstance(item, Mapping)]
    if not objects:  # absent, a scalar, or no object in the array: every field below is absent
        return _match_object(pattern, _MISSING)
    return any(_match_object(pattern, obj) for obj in objects)


def _match_leaf(matchers: list[Any], value: Any) -> bool:
    values = [item for item in _flatten(value) if not isinstance(item, Mapping)]
    return any(_accepts(matcher, values) for matcher in matchers)


def _flatten(value: Any) -> Iterator[Any]:
    if value is _MISSING:
        return
    if isinstance(value, _ARRAY):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _accepts(matcher: Any, values: list[Any]) -> bool:
    if not isinstance(matcher, Mapping):
        return any(_equals(matcher, value) for value in values)
    ((name, argument),) = matcher.items()
    if name == "exists":
        exists: bool = bool(values) == argument
        return exists
    test = _TESTS[name]
    return any(test(argument, value) for value in values)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equals(expected: Any, actual: Any) -> bool:
    if _is_number(expected):
        return _is_number(actual) and expected == actual
    return type(expected) is type(actual) and expected == actual


def _prefix(argument: Any, value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if isinstance(argument, Mapping):
        return value.lower().startswith(argument["equals-ignore-case"].lower())
    return value.startswith(argument)


def _suffix(argument: Any, value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if isinstance(argument, Mapping):
        return value.lower().endswith(argument["equals-ignore-case"].lower())
    return value.endswith(argument)


def _equals_ignore_case(argument: Any, value: Any) -> bool:
    candidates = argument if isinstance(argument, _ARRAY) else [argument]
    return isinstance(value, str) and any(value.lower() == c.lower() for c in candidates)


def _wildcard(argument: Any, value: Any) -> bool:
    candidates = argument if isinstance(argument, _ARRAY) else [argument]
    return isinstance(value, str) and any(_wildcard_regex(c).fullmatch(value) for c in candidates)


def _numeric(argument: list[Any], value: Any) -> bool:
    return _is_number(value) and all(
        _COMPARE[argument[i]](value, argument[i + 1]) for i in range(0, len(argument), 2)
    )


def _cidr(argument: str, value: Any) -> bool:
    if not isinstance(value, str):  # ip_address() would read the number 5 as 0.0.0.5
        return False
    try:
        return ipaddress.ip_address(value) in ipaddress.ip_network(argument, strict=False)
    except ValueError:
        return False


def _anything_but(argument: Any, value: Any) -> bool:
    if isinstance(argument, Mapping):
        ((name, inner),) = argument.items()
        return not _TESTS[name](inner, value)
    excluded = argument if isinstance(argument, _ARRAY) else [argument]
    return not any(_equals(x, value) for x in excluded)


_TESTS: dict[str, Test] = {
    "prefix": _prefix,
    "suffix": _suffix,
    "equals-ignore-case": _equals_ignore_case,
    "wildcard": _wildcard,
    "numeric": _numeric,
    "cidr": _cidr,
    "anything-but": _anything_but,
}


@lru_cache(maxsize=256)
def _wildcard_regex(text: str) -> re.Pattern[str]:
    """``*`` is any sequence; ``\\*`` a literal star; ``\\\\`` a literal backslash (validated before)."""
    parts, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            parts.append(re.escape(text[i + 1]))
            i += 2
        else:
            parts.append(".*" if text[i] == "*" else re.escape(text[i]))
            i += 1
    return re.compile("".join(parts), re.DOTALL)


# -------------------------------------------------------------------------------------- validation


def validate(pattern: Any) -> None:
    """Raise InvalidPattern, naming the path (``detail.TrainingJobName[0]``) and the fault."""
    if not isinstance(pattern, Mapping):
        raise InvalidPattern(f"<pattern>: must be a JSON object, got {_kind(pattern)}")
    _check_object(pattern, "")


def _fail(path: str, problem: str) -> InvalidPattern:
    return InvalidPattern(f"{path or '<pattern>'}: {problem}")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _check_object(node: Mapping[str, Any], path: str) -> None:
    if not node:
        raise _fail(path, "empty objects are not allowed")
    for key, spec in node.items():
        if not isinstance(key, str):
            raise _fail(path, f"field names must be strings, got {key!r}")
        where = f"{path}.{key}" if path else key
        if key == "$or":
            if not isinstance(spec, _ARRAY) or len(spec) < 2:
                raise _fail(where, "$or must be a list of at least 2 objects")
            for i, alternative in enumerate(spec):
                if not isinstance(alternative, Mapping):
                    raise _fail(f"{where}[{i}]", f"$or alternatives must be objects, got {_kind(alternative)}")
                _check_object(alternative, f"{where}[{i}]")
        elif isinstance(spec, Mapping):
            _check_object(spec, where)
        elif isinstance(spec, _ARRAY):
            if not spec:
                raise _fail(where, "empty lists are not allowed")
            for i, matcher in enumerate(spec):
                _check_matcher(matcher, f"{where}[{i}]")
        else:
            raise _fail(where, f"must be an object or a list of matchers, got {_kind(spec)} {spec!r}")


def _check_matcher(matcher: Any, path: str) -> None:
    if matcher is None or isinstance(matcher, (str, bool)):
        return
    if _is_number(matcher):
        return _check_number(matcher, path, limit=None)
    if not isinstance(matcher, Mapping):
        raise _fail(path, f"a matcher must be a string, number, true, false, null or an operator object, got {_kind(matcher)}")
    if len(matcher) != 1:
        raise _fail(path, f"an operator object must have exactly one key, got {sorted(matcher)}")
    ((name, argument),) = matcher.items()
    check = _CHECKS.get(name)
    if check is None:
        raise _fail(path, f"unknown operator {name!r} (known: {', '.join(sorted(_CHECKS))})")
    check(argument, f"{path}.{name}")


def _check_number(value: Any, path: str, limit: float | None = _NUMERIC_LIMIT) -> None:
    if not _is_number(value) or not math.isfinite(value):
        raise _fail(path, f"must be a number, got {_kind(value)} {value!r}")
    if limit is not None and not -limit <= value <= limit:
        raise _fail(path, f"{value!r} is outside the numeric range -5.0e9..5.0e9")


def _check_string(value: Any, path: str, non_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise _fail(path, f"must be a string, got {_kind(value)} {value!r}")
    if non_empty and not value:
        raise _fail(path, "must not be empty")


def _check_strings(value: Any, path: str, each: Check = _check_string) -> None:
    """A string, or a non-empty list of strings."""
    if isinstance(value, _ARRAY):
        if not value:
            raise _fail(path, "empty lists are not allowed")
        for i, item in enumerate(value):
            each(item, f"{path}[{i}]")
    else:
        each(value, path)


def _check_affix(argument: Any, path: str) -> None:  # prefix / suffix
    if isinstance(argument, Mapping):
        if list(argument) != ["equals-ignore-case"]:
            raise _fail(path, f"only {{'equals-ignore-case': ...}} may be nested here, got {sorted(argument)}")
        return _check_string(argument["equals-ignore-case"], f"{path}.equals-ignore-case")
    _check_string(argument, path)


def _check_wildcard(text: Any, path: str) -> None:
    _check_string(text, path)
    i = 0
    while i < len(text):
        if text[i] == "\\":
            if i + 1 == len(text) or text[i + 1] not in "*\\":
                raise _fail(path, f"backslash at {i} must escape '*' or '\\' in {text!r}")
            i += 2
            continue
        if text.startswith("**", i):
            raise _fail(path, f"consecutive wildcard characters at {i} are not allowed in {text!r}")
        i += 1


def _check_numeric(argument: Any, path: str) -> None:
    if not isinstance(argument, _ARRAY) or len(argument) not in (2, 4):
        raise _fail(path, f"must be [op, number] or [lower-op, number, upper-op, number], got {argument!r}")
    for i in range(0, len(argument), 2):
        if argument[i] not in _COMPARE:
            raise _fail(f"{path}[{i}]", f"unknown comparison {argument[i]!r} (known: {', '.join(_COMPARE)})")
        _check_number(argument[i + 1], f"{path}[{i + 1}]")
    if len(argument) == 4:
        if argument[0] not in (">", ">=") or argument[2] not in ("<", "<="):
            raise _fail(path, f"a range must be a lower bound ('>' or '>=') then an upper bound ('<' or '<='), got {argument!r}")
        if not argument[1] < argument[3]:
            raise _fail(path, f"the lower bound {argument[1]!r} must be below the upper bound {argument[3]!r}")


def _check_exists(argument: Any, path: str) -> None:
    if not isinstance(argument, bool):
        raise _fail(path, f"must be true or false, got {_kind(argument)} {argument!r}")


def _check_cidr(argument: Any, path: str) -> None:
    _check_string(argument, path)
    try:
        ipaddress.ip_network(argument, strict=False)
    except ValueError as error:
        raise _fail(path, f"not an IPv4/IPv6 CIDR block: {error}") from None


def _check_anything_but(argument: Any, path: str) -> None:
    if isinstance(argument, Mapping):
        if len(argument) != 1 or next(iter(argument)) not in _ANYTHING_BUT_FORMS:
            raise _fail(path, f"must nest exactly one of {', '.join(_ANYTHING_BUT_FORMS)}, got {sorted(argument)}")
        ((name, inner),) = argument.items()
        return _ANYTHING_BUT_FORMS[name](inner, f"{path}.{name}")
    if isinstance(argument, str) or _is_number(argument):
        return _check_matcher(argument, path)
    if not isinstance(argument, _ARRAY) or not argument:
        raise _fail(path, f"must be a string, a number or a non-empty list of them, got {_kind(argument)} {argument!r}")
    if not (all(isinstance(x, str) for x in argument) or all(_is_number(x) for x in argument)):
        raise _fail(path, f"a list must hold only strings or only numbers, got {argument!r}")


_ANYTHING_BUT_FORMS: dict[str, Check] = {
    "prefix": lambda value, path: _check_string(value, path, non_empty=True),
    "suffix": lambda value, path: _check_string(value, path, non_empty=True),
    "equals-ignore-case": _check_strings,
    "wildcard": lambda value, path: _check_strings(value, path, each=_check_wildcard),
}

_CHECKS: dict[str, Check] = {
    "prefix": _check_affix,
    "suffix": _check_affix,
    "equals-ignore-case": _check_string,
    "wildcard": _check_wildcard,
    "numeric": _check_numeric,
    "exists": _check_exists,
    "cidr": _check_cidr,
    "anything-but": _check_anything_but,
}
