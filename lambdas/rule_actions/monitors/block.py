"""The configuration's `monitor` block (`MonitorSettings`): the stack-wide rules and their parameters, the schedule,
per-job tags, shards, regions, other families; read with every error named, written back, its JSON Schema (the
registry assembles the field from these and the rules' parameters, and imports this package only when a
configuration sets the block), and what it asks of the rest of the configuration."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from rule_actions.contract import REGION_NAME
from rule_actions.fields import anchored
from rule_actions.monitors.job import TRAINING
from rule_actions.monitors.rule import REFUSED, Monitor, parameters, params_of, refusal
from rule_actions.text import closest, quoted, unknown_keys


class MonitorSettings(NamedTuple):
    """The `monitor` block: stack-wide rules and their parameters, the schedule, per-job tags, shards, regions."""

    rules: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    every_minutes: int = 5
    job_tags: bool = True
    shards: int = 1
    regions: tuple[str, ...] = ()
    families: tuple[str, ...] = ()  # other families evaluated for the rules their jobs' tags attach


EVERY_MINUTES = (1, 60)
SHARDS = (1, 20)
REGION_RE = re.compile(REGION_NAME, re.ASCII)
KEYS = ("rules", "every_minutes", "job_tags", "shards", "regions", "families")



# ---------------------------------------------------------------- the configuration block


def read_settings(value: Any, where: str, errors: list[str], monitors: Mapping[str, Monitor]) -> MonitorSettings | None:
    """The `monitor` block: null (no evaluation), or the block checked (each error names its field and value)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be null (no evaluation) or an object with the keys "
                      f"{', '.join(KEYS)}")
        return None
    found = unknown_keys(value, KEYS, where)
    rules = _read_rules(value.get("rules", {}), f"{where}.rules", monitors, found)
    every = _whole(value.get("every_minutes", 5), f"{where}.every_minutes", EVERY_MINUTES, "minutes", found)
    shards = _whole(value.get("shards", 1), f"{where}.shards", SHARDS, "shards", found)
    job_tags = value.get("job_tags", True)
    if not isinstance(job_tags, bool):
        found.append(f"{where}.job_tags: {quoted(job_tags)} is not true or false")
    regions = value.get("regions", [])
    if not isinstance(regions, list) or not all(isinstance(r, str) and REGION_RE.fullmatch(r) for r in regions):
        found.append(f"{where}.regions: {quoted(regions)} is not a list of AWS region names (us-east-1)")
        regions = []
    families, others = value.get("families", []), other_families(monitors)
    if not isinstance(families, list) or not all(isinstance(f, str) and f in others for f in families):
        found.append(f"{where}.families: {quoted(families)} is not a list of job families from "
                     f"{', '.join(others)}")
        families = []
    errors += found
    if found:
        return None
    return MonitorSettings(rules, every, job_tags, shards, tuple(dict.fromkeys(regions)), tuple(dict.fromkeys(families)))


def other_families(monitors: Mapping[str, Monitor]) -> tuple[str, ...]:
    """The families besides training that some rule judges (what `families` may name), by name."""
    return tuple(sorted({family for rule in monitors.values() for family in rule.families} - {TRAINING}))


def evaluated_families(settings: MonitorSettings, monitors: Mapping[str, Monitor]) -> tuple[str, ...]:
    """The job families an evaluation lists: training (as ever), each family a configured rule judges, and those
    `families` names for the rules its jobs' tags attach; in that order."""
    judged = [f for name, _ in settings.rules for f in monitors[name].families]
    return tuple(dict.fromkeys([TRAINING, *judged, *settings.families]))


def write_settings(settings: MonitorSettings | None) -> Any:
    if settings is None:
        return None
    written = {"rules": {name: dict(params) for name, params in settings.rules},
               "every_minutes": settings.every_minutes, "job_tags": settings.job_tags, "shards": settings.shards,
               "regions": list(settings.regions)}
    return {**written, "families": list(settings.families)} if settings.families else written


def settings_schema(monitors: Mapping[str, Monitor]) -> dict[str, Any]:
    """The block's JSON Schema, the rules' parameters with their ranges."""
    rule_schemas = {name: {"type": "object", "additionalProperties": False, "description": rule.summary,
                           "properties": {p.key: p.schema() for p in params_of(rule)}}
                    for name, rule in monitors.items()}
    return {
        "type": ["object", "null"], "additionalProperties": False,
        "properties": {
            "rules": {"type": "object", "additionalProperties": False, "properties": rule_schemas, "default": {},
                      "description": "Rule name -> its parameters ({} for the defaults): evaluated on every running "
                                     "job in scope (but those tagged rule-actions:opt-out=true)."},
            "every_minutes": {"type": "integer", "minimum": EVERY_MINUTES[0], "maximum": EVERY_MINUTES[1],
                              "description": "How often the evaluation runs (5 by default).", "default": 5},
            "job_tags": {"type": "boolean", "description": "Also evaluate the rules a job's tags attach "
                                                           "(rule-actions:<Rule>), with their actions and "
                                                           "parameters (true). A job tagged rule-actions:opt-out="
                                                           "true is skipped by the stack-wide rules either way.",
                         "default": True},
            "shards": {"type": "integer", "minimum": SHARDS[0], "maximum": SHARDS[1],
                       "description": "Runs per schedule tick, each evaluating its share of the jobs (1).", "default": 1},
            "regions": {"type": "array", "items": {"type": "string", "pattern": anchored(REGION_RE.pattern)},
                        "description": "Organization mode: the regions evaluated in each member account (default: "
                                       "the central region).", "default": []},
            "families": {"type": "array", "items": {"type": "string", "enum": list(other_families(monitors))},
                         "description": "Other job families whose running jobs are evaluated for the rules their "
                                        "tags attach (rule-actions:<Rule>), besides training jobs and the families "
                                        "a rule in `rules` judges (none by default).", "default": []},
        },
    }


def _read_rules(value: Any, where: str, monitors: Mapping[str, Monitor],
                errors: list[str]) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object of rule name -> parameters")
        return ()
    found = []
    for name, given in value.items():
        path = f"{where}[{json.dumps(name)}]"
        if name not in monitors:
            near = None if name in REFUSED else closest(name, monitors)  # a Debugger rule's name is no typo
            errors.append(f"{path}: {quoted(name)} {refusal(name)}; "
                          + (f"did you mean {quoted(near)}?" if near else f"rules: {', '.join(monitors)}"))
            continue
        if not isinstance(given, Mapping):
            errors.append(f"{path}: {quoted(given)} must be an object of parameter -> value ({{}} for the defaults)")
            continue
        params, problems = parameters(monitors[name], given, path)
        errors += problems
        found.append((name, tuple((key, params[key]) for key in given if key in params)))
    return tuple(found)


def _whole(value: Any, where: str, bounds: tuple[int, int], unit: str, errors: list[str]) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and bounds[0] <= value <= bounds[1]:
        return value
    errors.append(f"{where}: {quoted(value)} is not a whole number of {unit} from {bounds[0]} to {bounds[1]}")
    return bounds[0]



def check(settings: MonitorSettings, organization: Any, where: str, config: Any,
          monitors: Mapping[str, Monitor]) -> list[str]:
    """What the block asks of the rest of the configuration: organization mode evaluates the listed accounts (an
    organization id alone names none), only organization mode evaluates other regions, and each configured rule's
    own checks (a budget needs a way of knowing prices)."""
    found = [error for name, given in settings.rules
             for error in monitors[name].check_config(dict(given), config, f"{where}.monitor.rules[{json.dumps(name)}]")]
    if organization is None:
        return found + ([f"{where}.monitor.regions: only organization mode evaluates other regions (one account: the "
                         "stack's own region); remove it"] if settings.regions else [])
    if not organization.accounts:
        return [*found, f"{where}.monitor: organization mode evaluates the jobs of organization.accounts, which lists "
                        "none (an organization id alone names no account to evaluate)"]
    return found

