"""The one action grammar, shared by the SDK's `action_json`, the stack's configuration and test requests.

An action list is a JSON object or a list of objects, each with a case-insensitive `name`; each kind
(kinds/<kind>.py, through the registry) says which keys it takes and where it may be declared:

    stoptraining  [training_job_prefix]   stop the training job (or the InProgress jobs starting with the prefix)
    stop           [job]                  stop the job the trigger is about, whatever its family (or its owner:
                                          job tuning_job | pipeline_execution)
    email          endpoint               an email address
    sms            endpoint               an E.164 phone number
    notify                                the stack's team audience (configuration only)
    webhook        endpoint               a webhook declared in `webhooks`, by name (configuration only)

The configuration (`rules`, `job_outcomes`) may also write a bare name ("stoptraining", "notify").
`action_json` arrives in the SDK's escaped form (every `"` written as `\\"`) or as plain JSON. Values keep
their case.

A training job's tag cannot hold JSON (SageMaker allows only letters, digits, spaces and _ . : / = + - @ in a tag
value), so a tag writes the same list in its tag form: entries separated by spaces, each `name` or `name=value`,
the value being the kind's one key (`stoptraining=exp-` for a prefix, `email=a@example.com`, `sms=+15555550100`).
`tag_entries` turns it into the list of objects `action_json` would hold, which the grammar then checks as any
action_json.
"""

from __future__ import annotations

import json
from typing import Any

from rule_actions import registry
from rule_actions.fields import anchored
from rule_actions.records import Action, Invalid, Place
from rule_actions.text import quoted, unknown


def as_dict(action: Action) -> dict[str, str]:
    """The grammar's object form of a valid action, keys in the SDK's order."""
    return registry.kind(action.kind).as_dict(action)


def endpoint_problem(kind: str, endpoint: Any) -> str | None:
    """Why an endpoint of `kind` (email, sms) is unusable, or None."""
    problem: str | None = registry.kind(kind).endpoint_problem(endpoint)  # type: ignore[attr-defined]  # (email, sms)
    return problem


def decode_action_json(text: Any) -> Any:
    """Decode an `action_json` parameter: plain JSON, the SDK's backslash-escaped form, or a JSON string of either."""
    if not isinstance(text, str):
        raise ValueError(f"must be a string, got {type(text).__name__}")
    for _ in range(2):  # a JSON string holding the list is decoded once more
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            try:
                value = json.loads(text.replace('\\"', '"'))
            except json.JSONDecodeError as err:
                raise ValueError(f"is not JSON ({err.msg} at position {err.pos})") from None
            except (ValueError, RecursionError) as err:  # too many digits, nested too deep
                raise ValueError(f"is not usable JSON ({type(err).__name__})") from None
        if not isinstance(value, str):
            return value
        text = value
    raise ValueError("is a JSON string nested more than once")


def parse_entries(data: Any, path: str, place: Place) -> tuple[list[Action], list[Invalid]]:
    """Parse an action object or list declared in `place` (action_json, rules or job_outcomes)."""
    configuration = place != Place.ACTION_JSON
    if isinstance(data, list):
        entries = [(f"{path}[{i}]", entry) for i, entry in enumerate(data)]
    elif isinstance(data, dict) or (configuration and isinstance(data, str)):
        entries = [(path, data)]
    else:
        expected = "an action object, a name or a list of them" if configuration else "an object or a list"
        return [], [Invalid(path, f"must be {expected}, got {type(data).__name__} {quoted(data)}")]
    actions: list[Action] = []
    invalid: list[Invalid] = []
    for where, entry in entries:
        result = parse_entry(entry, where, place)
        if isinstance(result, Action):
            actions.append(result)
        else:
            invalid.append(result)
    return actions, invalid


def parse_entry(entry: Any, where: str, place: Place) -> Action | Invalid:
    """One entry: an object with `name`, or (in the configuration) a bare name."""
    if isinstance(entry, str) and place != Place.ACTION_JSON:
        entry = {"name": entry}
    if not isinstance(entry, dict):
        return Invalid(where, f"must be an object with a name, got {type(entry).__name__} {quoted(entry)}")
    allowed = registry.allowed_in(place)
    name = entry.get("name")
    if not isinstance(name, str):
        return Invalid(f"{where}.name", f"missing or not a string (one of {', '.join(allowed)})")
    kind = registry.KINDS.get(name.lower())
    if kind is None or kind.name not in allowed:
        return Invalid(f"{where}.name", f"unknown action {quoted(name)}{_hint(kind, place)}; allowed: {', '.join(allowed)}")
    for key in entry:
        if key != "name" and key not in kind.keys:
            return Invalid(f"{where}.{key}", unknown(key, ("name", *kind.keys), f"key for {kind.name}"), kind.name)
    return kind.parse(entry, where)


def _hint(kind: Any, place: Place) -> str:
    if kind is None:
        return ""
    if place == Place.ACTION_JSON:
        return f" ({kind.name} is only for the stack's configuration)"
    if place == Place.JOB_OUTCOMES:
        return (f" ({kind.name} cannot be attached to a job outcome: the job has ended, or SageMaker is resuming "
                "it; attach it to a rule)")
    return ""


def parse_action_json(text: Any, path: str = "action_json") -> tuple[list[Action], list[Invalid]]:
    """Parse a rule's `action_json`. A string that cannot be decoded gives one Invalid for the whole list."""
    try:
        data = decode_action_json(text)
    except ValueError as err:
        return [], [Invalid(path, f"{quoted(text)} {err}")]
    return parse_entries(data, path, Place.ACTION_JSON)


def tag_entries(text: str) -> list[dict[str, str]]:
    """The action objects a tag's value declares (`stoptraining email=a@example.com`); every entry becomes an
    object, so that what the grammar refuses is reported where action_json's would be (`action_json[1].endpoint`).
    A value in JSON (an action_json copied as is) is decoded as action_json."""
    if text.strip().startswith(("[", "{")):
        try:
            data = decode_action_json(text)
            return data if isinstance(data, list) else [data]
        except ValueError:
            pass
    entries = []
    for item in text.split():
        name, sep, value = item.partition("=")
        kind = registry.KINDS.get(name.lower())
        key = kind.keys[0] if kind is not None and len(kind.keys) == 1 else "endpoint"
        entries.append({"name": name, key: value} if sep else {"name": name})
    return entries


def tag_form(action: Action) -> str:
    """An action in the tag form (the inverse of tag_entries for a valid action)."""
    kind = registry.kind(action.kind)
    bare = action.target is None or not kind.keys or len(kind.as_dict(action)) == 1  # (its default: no key written)
    return action.kind if bare else f"{action.kind}={action.target}"


def _insensitive(name: str) -> str:
    """A JSON Schema pattern matching `name` in any case (the grammar lower-cases names)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in name)


def action_reference(place: Place) -> dict[str, Any]:
    """Where the configuration's JSON Schema defines the action lists of `place` (schema_definitions)."""
    return {"$ref": f"#/$defs/{place}"}


def schema_definitions() -> dict[str, Any]:
    """The action lists of each configuration place, for the configuration's JSON Schema `$defs`."""
    return {str(place): action_schema(place) for place in Place if place != Place.ACTION_JSON}


def action_schema(place: Place) -> dict[str, Any]:
    """The JSON Schema of an action list declared in `place`, from the kinds' declarations."""
    variants: list[dict[str, Any]] = []
    bare = []
    for name in registry.allowed_in(place):
        kind = registry.kind(name)
        variants.append({"type": "object", "additionalProperties": False, "required": ["name", *kind.required],
                         "properties": {"name": {"type": "string", "pattern": anchored(_insensitive(name))},
                                        **kind.key_schemas}})
        if not kind.required:
            bare.append(_insensitive(name))
    if bare and place != Place.ACTION_JSON:
        variants.append({"type": "string", "pattern": anchored("|".join(bare))})
    entry = {"anyOf": variants}
    return {"description": f"Actions ({', '.join(registry.allowed_in(place))}): one, or a list.",
            "anyOf": [entry, {"type": "array", "items": entry}]}


class ActionGrammar:
    """The grammar as the ports.Grammar plug-ins are handed."""

    def action_json(self, text: Any) -> tuple[list[Action], list[Invalid]]:
        return parse_action_json(text)

    def entry(self, entry: Any, where: str, place: Place) -> Action | Invalid:
        return parse_entry(entry, where, place)

    def tag_entries(self, text: str) -> list[dict[str, str]]:
        return tag_entries(text)


GRAMMAR = ActionGrammar()
