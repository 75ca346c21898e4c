"""A monitor rule's parameters (`Param`): their ranges and units, how a configuration or a tag sets them (a tag gives
every value as text), and their JSON Schema; the parameters several rules share (WINDOW, PATIENCE) and every rule's
mode (MODE)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from rule_actions.contract import ACT, JOB_NAME_PREFIX, MODE_KEY, WATCH
from rule_actions.fields import anchored
from rule_actions.text import quoted

NAME_RE = re.compile(r"[^\s=]{1,255}")  # a metric name in a parameter (MetricDefinitions' Name, no spaces)


class Param(NamedTuple):
    """A rule parameter: a number from `low` to `high` in `unit` (whole when `whole`; above `low` when `positive`), a
    metric name (`text`), one of `choices`, a few `fractions` (each above 0 and below 1: a list, in a tag written
    0.5/0.8), or job name `prefixes` -> a number from `low` to `high` (an object; the configuration's only)."""

    key: str
    default: Any
    doc: str
    low: float = 0
    high: float = 0
    unit: str = ""
    whole: bool = False
    text: bool = False
    choices: tuple[str, ...] = ()
    positive: bool = False
    fractions: bool = False
    prefixes: bool = False

    def read(self, value: Any, from_tag: bool = False) -> tuple[Any, str | None]:
        """(the value, or None and why it is refused); a tag gives every value as text."""
        if self.fractions:
            return _fractions(value, from_tag)
        if self.prefixes:
            return self._prefixes(value, from_tag)
        if self.choices:
            if isinstance(value, str) and value in self.choices:
                return value, None
            return None, f"{quoted(value)} is not one of {', '.join(self.choices)}"
        if self.text:
            if isinstance(value, str) and (value == "" or NAME_RE.fullmatch(value)):
                return value, None
            return None, f"{quoted(value)} is not a metric name (up to 255 characters, no spaces or '=')"
        number = value
        if isinstance(value, str) and from_tag:
            try:
                number = float(value)
            except ValueError:
                number = None
        # (an int is compared as it is: one too large for a float must be refused, not raise OverflowError)
        if not _number(number, self.low, self.high, self.positive) or (self.whole and number != int(number)):
            kind = "a whole number" if self.whole else "a number"
            span = f"above {num(self.low)}, at most" if self.positive else f"from {num(self.low)} to"
            return None, f"{quoted(value)} is not {kind} {span} {num(self.high)}{_unit(self.unit)}"
        return (int(number) if self.whole else float(number)), None

    def _prefixes(self, value: Any, from_tag: bool) -> tuple[Any, str | None]:
        if from_tag:
            return None, "is set in the configuration only (a tag sets the job's own value)"
        if not isinstance(value, Mapping):
            return None, f"{quoted(value)} is not an object of job name prefix -> number"
        for prefix, number in value.items():
            if not (isinstance(prefix, str) and _PREFIX_RE.fullmatch(prefix)):
                return None, f"{quoted(prefix)} is not a job name prefix (letters, digits, '-'; at most 63)"
            if not _number(number, self.low, self.high, positive=True):
                return None, (f"[{quoted(prefix)}]: {quoted(number)} is not a number above {num(self.low)}, at most "
                              f"{num(self.high)}{_unit(self.unit)}")
        return {prefix: float(number) for prefix, number in value.items()}, None

    def schema(self) -> dict[str, Any]:
        if self.fractions:
            return {"type": "array", "maxItems": FRACTIONS_MAX, "default": list(self.default),
                    "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                    "description": f"{self.doc} ({', '.join(num(f) for f in self.default) or 'none'} by default; in "
                                   "a tag written with '/': 0.5/0.8)"}
        if self.prefixes:
            return {"type": "object", "propertyNames": {"pattern": anchored(JOB_NAME_PREFIX)},
                    "additionalProperties": {"type": "number", "exclusiveMinimum": self.low, "maximum": self.high},
                    "description": f"{self.doc} (none by default; the configuration's only)", "default": {}}
        if self.choices:
            return {"type": "string", "enum": list(self.choices), "description": self.doc, "default": self.default}
        if self.text:
            return {"type": "string", "anyOf": [{"maxLength": 0}, {"pattern": anchored(NAME_RE.pattern)}],
                    "description": self.doc, "default": self.default}
        bound = {"exclusiveMinimum": self.low} if self.positive else {"minimum": self.low}
        default = "none" if self.default is None else f"{num(self.default)}{_unit(self.unit)}"
        return {"type": "integer" if self.whole else "number", **bound, "maximum": self.high,
                "description": f"{self.doc} ({default} by default)", "default": self.default}


FRACTIONS_MAX = 5
_PREFIX_RE = re.compile(JOB_NAME_PREFIX, re.ASCII)


def _number(value: Any, low: float, high: float, positive: bool = False) -> bool:
    """A finite number (never a bool) in [low, high] ((low, high] when `positive`). An int is compared as it is: one
    too large for a float must be refused, not raise OverflowError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or (isinstance(value, float) and not math.isfinite(value)):
        return False
    return (low < value if positive else low <= value) and value <= high


def _fractions(value: Any, from_tag: bool) -> tuple[Any, str | None]:
    """A few fractions, each above 0 and below 1 (a list; a tag's text 0.5/0.8), sorted, each once."""
    items: Any = value
    if from_tag and isinstance(value, str):
        items = []
        for part in value.split("/"):
            try:
                items.append(float(part))
            except ValueError:
                items.append(part)
    problem = (f"{quoted(value)} is not a list of at most {FRACTIONS_MAX} fractions above 0 and below 1 (e.g. "
               "[0.5, 0.8]; in a tag 0.5/0.8)")
    if not isinstance(items, (list, tuple)) or len(items) > FRACTIONS_MAX \
            or not all(_number(f, 0, 1, positive=True) and f < 1 for f in items):
        return None, problem
    return tuple(sorted({float(f) for f in items})), None


def num(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return "/".join(num(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _unit(unit: str) -> str:
    return "" if not unit else ("%" if unit == "%" else f" {unit}")


# Shared by the rules over instance metrics: Debugger's window and patience count 500 ms samples; converted to time.
WINDOW = Param("window", 30, "Minutes of one-minute datapoints judged per host (Debugger: 500 samples of 500 ms, "
               "about 4 min, too few one-minute points for a p5)", 5, 180, "min", whole=True)
PATIENCE = Param("patience", 9, "Minutes skipped after training starts (Debugger: 1000 samples of 500 ms, 8 min 20 s)",
                 0, 120, "min", whole=True)


# Every rule has a mode. Its default depends on who turned the rule on (rules_of): watch for a rule the configuration
# turns on for every job, act for one a job's own tag attaches; a mode set in a tag or the configuration wins.
MODE = Param(MODE_KEY, WATCH, "act: the rule's stops stop the job; watch: each stop is reported as \"would stop "
             "<job>\" and nothing is stopped (the rule's messages go out). Default: watch for a rule this block turns "
             "on for every job; act for a rule a job's own tag attaches (rule-actions:<Rule>), unless a mode is set "
             f"here. A job's parameters tag ({MODE_KEY}={ACT} or {MODE_KEY}={WATCH}) wins over both",
             choices=(ACT, WATCH))

