"""The one action grammar, shared by the SDK's `action_json` and by the stack's configuration.

An action list is a JSON object or a list of objects, each with a case-insensitive `name`; each kind
(kinds/<kind>.py) says which keys it takes and where it may be declared:

    stoptraining  [training_job_prefix]   stop the job (or the InProgress jobs starting with the prefix)
    email          endpoint               an email address
    sms            endpoint               an E.164 phone number
    notify                                the stack's team audience (configuration only)
    webhook        endpoint               a webhook declared in `webhooks`, by name (configuration only)

The configuration (`rules`, `job_outcomes`) may also write a bare name ("stoptraining", "notify").
`action_json` arrives in the SDK's escaped form (every `"` written as `\\"`) or as plain JSON. Values keep
their case.
"""

from __future__ import annotations

import json
from typing import Any

from rule_actions import kinds
from rule_actions.kinds import ACTION_JSON, EMAIL, JOB_OUTCOMES, NOTIFY, RULES, SMS, STOP, WEBHOOK
from rule_actions.kinds.email import EMAIL_RE
from rule_actions.kinds.sms import PHONE_RE
from rule_actions.kinds.stop import PREFIX_RE
from rule_actions.kinds.webhook import NAME_RE as WEBHOOK_NAME_RE
from rule_actions.records import Action, Invalid, show

__all__ = ["ACTION_JSON", "EMAIL", "EMAIL_RE", "JOB_OUTCOMES", "NOTIFY", "PHONE_RE", "PREFIX_RE", "RULES", "SMS",
           "STOP", "WEBHOOK", "WEBHOOK_NAME_RE", "Action", "Invalid", "as_dict", "decode_action_json", "endpoint_problem", "parse_action_json",
           "parse_entries", "parse_entry", "show"]


def as_dict(action: Action) -> dict[str, str]:
    """The grammar's object form of a valid action, keys in the SDK's order."""
    return kinds.get(action.kind).as_dict(action)


def endpoint_problem(kind: str, endpoint: Any) -> str | None:
    """Why an email/sms endpoint is unusable, or None."""
    return kinds.get(kind).endpoint_problem(endpoint)  # type: ignore[attr-defined]


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


def parse_entries(data: Any, path: str, place: str) -> tuple[list[Action], list[Invalid]]:
    """Parse an action object or list declared in `place` (action_json, rules or job_outcomes)."""
    configuration = place != ACTION_JSON
    if isinstance(data, list):
        entries = [(f"{path}[{i}]", entry) for i, entry in enumerate(data)]
    elif isinstance(data, dict) or (configuration and isinstance(data, str)):
        entries = [(path, data)]
    else:
        expected = "an action object, a name or a list of them" if configuration else "an object or a list"
        return [], [Invalid(path, f"must be {expected}, got {type(data).__name__} {show(data)}")]
    actions: list[Action] = []
    invalid: list[Invalid] = []
    for where, entry in entries:
        result = parse_entry(entry, where, place)
        (actions if isinstance(result, Action) else invalid).append(result)
    return actions, invalid


def parse_entry(entry: Any, where: str, place: str) -> Action | Invalid:
    """One entry: an object with `name`, or (in the configuration) a bare name."""
    if isinstance(entry, str) and place != ACTION_JSON:
        entry = {"name": entry}
    if not isinstance(entry, dict):
        return Invalid(where, f"must be an object with a name, got {type(entry).__name__} {show(entry)}")
    allowed = kinds.allowed_in(place)
    name = entry.get("name")
    if not isinstance(name, str):
        return Invalid(f"{where}.name", f"missing or not a string (one of {', '.join(allowed)})")
    kind = kinds.KINDS.get(name.lower())
    if kind is None or kind.name not in allowed:
        return Invalid(f"{where}.name", f"unknown action {show(name)}{_hint(kind, place)}; allowed: {', '.join(allowed)}")
    for key in entry:
        if key != "name" and key not in kind.keys:
            return Invalid(f"{where}.{key}", f"unknown key for {kind.name} (allowed: {', '.join(('name', *kind.keys))})",
                           kind.name)
    return kind.parse(entry, where)


def _hint(kind: kinds.Kind | None, place: str) -> str:
    if kind is None:
        return ""
    if place == ACTION_JSON:
        return f" ({kind.name} is only for the stack's configuration)"
    if place == JOB_OUTCOMES:
        return (f" ({kind.name} cannot be attached to a job outcome: the job has ended, or SageMaker is resuming "
                "it; attach it to a rule)")
    return ""


def parse_action_json(text: Any, path: str = "action_json") -> tuple[list[Action], list[Invalid]]:
    """Parse a rule's `action_json`. A string that cannot be decoded gives one Invalid for the whole list."""
    try:
        data = decode_action_json(text)
    except ValueError as err:
        return [], [Invalid(path, f"{show(text)} {err}")]
    return parse_entries(data, path, ACTION_JSON)
