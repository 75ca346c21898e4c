"""The one action grammar, shared by the SDK's `action_json` and by the stack's configuration.

An action list is a JSON object or a list of objects, each with a case-insensitive `name`:

    stoptraining  [training_job_prefix]   stop the job (or the InProgress jobs starting with the prefix)
    email          endpoint               an email address
    sms            endpoint               an E.164 phone number
    notify                                the stack's team subscribers (configuration only)

The configuration may also write a bare name ("stoptraining", "notify"). `action_json` arrives in the SDK's
escaped form (every `"` written as `\\"`) or as plain JSON. Values keep their case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

STOP, EMAIL, SMS, NOTIFY = "stoptraining", "email", "sms", "notify"
KINDS = (STOP, EMAIL, SMS, NOTIFY)

# Keys each kind may carry besides `name`.
_KEYS = {STOP: ("training_job_prefix",), EMAIL: ("endpoint",), SMS: ("endpoint",), NOTIFY: ()}

# Everything the SDK's `^[a-z0-9]+[@]\w+[.]\w{2,3}$` accepts in ASCII, plus ordinary addresses (dotted local
# parts, sub-domains, long top-level domains). Non-ASCII is refused: SNS cannot deliver to it.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
EMAIL_RE = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}\.)+[A-Za-z0-9_]{{2,63}}", re.ASCII)
# E.164: a plus, a country code that does not start with 0, at most 15 digits in all.
PHONE_RE = re.compile(r"\+[1-9][0-9]{1,14}", re.ASCII)
# The training-job-name charset and length: a longer prefix matches no job, and ListTrainingJobs' NameContains
# refuses more than 63 characters (a permanent error on every delivery).
PREFIX_RE = re.compile(r"[A-Za-z0-9-]{1,63}", re.ASCII)


@dataclass(frozen=True)
class Action:
    """A valid action. `target` is the prefix (None: the job's own name), the endpoint, or None for notify."""

    kind: str
    target: str | None = None

    def as_dict(self) -> dict[str, str]:
        """The grammar's object form, keys in the SDK's order."""
        if self.kind == STOP:
            return {"name": STOP} if self.target is None else {"name": STOP, "training_job_prefix": self.target}
        if self.kind in (EMAIL, SMS):
            return {"endpoint": str(self.target), "name": self.kind}
        return {"name": self.kind}


@dataclass(frozen=True)
class Invalid:
    """An entry that cannot run: `field` is the path of the offending field, `reason` says why."""

    field: str
    reason: str
    kind: str = "action_json"  # the entry's kind when its name was understood
    target: str = ""


def show(value: Any, limit: int = 64) -> str:
    """A short, printable, ASCII rendering of an untrusted value for reasons and logs."""
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]  # never encode a huge string only to cut it
    try:
        text = json.dumps(value, default=lambda v: f"<{type(v).__name__}>")
    except (ValueError, RecursionError):  # a 5,000-digit integer, a structure nested too deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 4] + '..."'


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


def parse_entries(data: Any, path: str, *, configuration: bool) -> tuple[list[Action], list[Invalid]]:
    """Parse an action object or list. In configuration, bare names and `notify` are allowed."""
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
        result = parse_entry(entry, where, configuration=configuration)
        (actions if isinstance(result, Action) else invalid).append(result)
    return actions, invalid


def parse_entry(entry: Any, where: str, *, configuration: bool) -> Action | Invalid:
    """One entry: an object with `name`, or (configuration only) a bare name."""
    if isinstance(entry, str) and configuration:
        entry = {"name": entry}
    if not isinstance(entry, dict):
        return Invalid(where, f"must be an object with a name, got {type(entry).__name__} {show(entry)}")
    name = entry.get("name")
    if not isinstance(name, str):
        return Invalid(f"{where}.name", f"missing or not a string (one of {', '.join(_allowed(configuration))})")
    kind = name.lower()
    if kind not in _allowed(configuration):
        hint = " (notify is only for the stack's configuration)" if kind == NOTIFY else ""
        return Invalid(f"{where}.name", f"unknown action {show(name)}{hint}; allowed: {', '.join(_allowed(configuration))}")
    for key in entry:
        if key != "name" and key not in _KEYS[kind]:
            allowed = ", ".join(("name",) + _KEYS[kind])
            return Invalid(f"{where}.{key}", f"unknown key for {kind} (allowed: {allowed})", kind)
    if kind == STOP:
        return _stop(entry.get("training_job_prefix"), f"{where}.training_job_prefix")
    if kind == NOTIFY:
        return Action(NOTIFY)
    endpoint = entry.get("endpoint")
    field = f"{where}.endpoint"
    problem = endpoint_problem(kind, endpoint)
    if problem:
        return Invalid(field, problem, kind, endpoint if isinstance(endpoint, str) else "")
    return Action(kind, endpoint)


def _allowed(configuration: bool) -> tuple[str, ...]:
    return KINDS if configuration else (STOP, EMAIL, SMS)


def _stop(prefix: Any, field: str) -> Action | Invalid:
    if prefix is None:
        return Action(STOP)
    if not isinstance(prefix, str):
        return Invalid(field, f"must be a string, got {type(prefix).__name__} {show(prefix)}", STOP)
    if prefix == "":
        return Invalid(field, "is empty: it would match every training job", STOP)
    if not PREFIX_RE.fullmatch(prefix):
        return Invalid(field, f"{show(prefix)} is not a training job name prefix (letters, digits, '-'; at most 63)", STOP, prefix)
    return Action(STOP, prefix)


def endpoint_problem(kind: str, endpoint: Any) -> str | None:
    """Why an email/sms endpoint is unusable, or None."""
    if endpoint is None:
        return f"missing: {kind} needs an endpoint"
    if not isinstance(endpoint, str):
        return f"must be a string, got {type(endpoint).__name__} {show(endpoint)}"
    if kind == EMAIL and not (len(endpoint) <= 254 and EMAIL_RE.fullmatch(endpoint)):
        return f"{show(endpoint)} is not an email address"
    if kind == SMS and not PHONE_RE.fullmatch(endpoint):
        return f"{show(endpoint)} is not an E.164 phone number (like +15555550100)"
    return None


def parse_action_json(text: Any, path: str = "action_json") -> tuple[list[Action], list[Invalid]]:
    """Parse a rule's `action_json`. A string that cannot be decoded gives one Invalid for the whole list."""
    try:
        data = decode_action_json(text)
    except ValueError as err:
        return [], [Invalid(path, f"{show(text)} {err}")]
    return parse_entries(data, path, configuration=False)
