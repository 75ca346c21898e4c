"""What email and sms share: an endpoint of one person, reached through the stack's topic; the endpoint policy.

Policy (`deny`): an endpoint must match `allowed_endpoints` when it is set. When it is empty, any email address
may receive messages (SNS asks the address to confirm its subscription first, so nobody gets a message they did
not accept), but a text goes only to a number the configuration itself names, unless `allow_any_sms` is true: a
text needs no consent and is billed to the account, and anyone who can start a training job writes action_json.

The endpoint is subscribed on first use with the filter policy {"to": [endpoint]}, and each message carries
to=<endpoint>, so a person receives only the messages addressed to them. While an email subscription waits
for its confirmation the action is skipped, and a later event of the job sends it once confirmed.

The team (`notify`: the emails and numbers the stack subscribes with to=team) is declared here, where every kind
that checks an endpoint reads it; the notify kind owns it.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Any

from rule_actions.contract import Outcome
from rule_actions.fields import Custom, Flag, TextList, anchored, strings
from rule_actions.kinds.base import Kind
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import Action, Done, Invalid, JobEvent, NothingDone, Planned
from rule_actions.text import quoted, unknown_keys

# Everything the SDK's `^[a-z0-9]+[@]\w+[.]\w{2,3}$` accepts in ASCII, plus ordinary addresses (dotted local
# parts, sub-domains, long top-level domains). Non-ASCII is refused: SNS cannot deliver to it.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
EMAIL = rf"{_ATOM}(?:\.{_ATOM})*@(?:{_LABEL}\.)+[A-Za-z0-9_]{{2,63}}"
EMAIL_RE = re.compile(EMAIL, re.ASCII)
# E.164: a plus, a country code that does not start with 0, at most 15 digits in all.
PHONE = r"\+[1-9][0-9]{1,14}"
PHONE_RE = re.compile(PHONE, re.ASCII)


def email_problem(endpoint: str) -> str | None:
    if len(endpoint) <= 254 and EMAIL_RE.fullmatch(endpoint):
        return None
    return f"{quoted(endpoint)} is not an email address"


def phone_problem(endpoint: str) -> str | None:
    if PHONE_RE.fullmatch(endpoint):
        return None
    return f"{quoted(endpoint)} is not an E.164 phone number (like +15555550100)"


PROBLEMS = {"email": email_problem, "sms": phone_problem}  # the team's lists: emails (email), sms (sms)
SCHEMAS: dict[str, dict[str, Any]] = {"email": {"type": "string", "maxLength": 254, "pattern": anchored(EMAIL)},
           "sms": {"type": "string", "pattern": anchored(PHONE)}}
TEAM_KEYS = {"emails": "email", "sms": "sms"}


def _team(value: Any, where: str, errors: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if value is None:
        return (), ()
    if not isinstance(value, Mapping):
        errors.append(f"{where}: {quoted(value)} must be an object with the keys emails, sms")
        return (), ()
    strays = unknown_keys(value, TEAM_KEYS, where)
    if strays:
        errors += strays
        return (), ()
    found: dict[str, tuple[str, ...]] = {}
    for key, kind in TEAM_KEYS.items():
        found[key] = strings(value.get(key, []), f"{where}.{key}", errors)
        errors += [f"{where}.{key}: {problem}" for problem in map(PROBLEMS[kind], found[key]) if problem]
    return found["emails"], found["sms"]


TEAM: Custom[tuple[tuple[str, ...], tuple[str, ...]]] = Custom(
    "notify", ((), ()),
    "The team: emails and sms (E.164) numbers the stack subscribes to the team topic (filter to=team) and to the "
    "ops topic (alarms); emails must confirm. `notify` actions reach them.",
    _team, lambda team: {"emails": list(team[0]), "sms": list(team[1])},
    {"type": ["object", "null"], "additionalProperties": False,
     "properties": {"emails": {"type": "array", "items": SCHEMAS["email"], "default": [],
                               "description": "The team's email addresses (each confirms its subscription first)."},
                    "sms": {"type": "array", "items": SCHEMAS["sms"], "default": [],
                            "description": "The team's phone numbers (E.164, e.g. +15555550100)."}}},
)
ALLOWED_ENDPOINTS = TextList(
    "allowed_endpoints", "Globs every email address and number must match (case-insensitive); empty: any email "
    "address (it confirms first), and texts only to numbers this configuration names unless allow_any_sms.",
    hint="")
ALLOW_ANY_SMS = Flag("allow_any_sms", False, "With allowed_endpoints empty, let action_json text any number "
                     "(texts are billed to the account and need no consent).")


def allowed(config: Any, endpoint: str) -> bool:
    patterns = config[ALLOWED_ENDPOINTS]
    if not patterns:
        return True
    folded = endpoint.casefold()
    return any(fnmatch.fnmatchcase(folded, pattern.casefold()) for pattern in patterns)


def named(config: Any) -> frozenset[str]:
    """Every email address and phone number the configuration itself names (case folded, as allowed_endpoints
    compares them): the deployer's own, whatever a rule's action_json says."""
    emails, sms = config[TEAM]
    found = [*emails, *sms, *(str(d.action.target) for d in config.declared if d.action.kind in PROBLEMS)]
    return frozenset(endpoint.casefold() for endpoint in found)


class EndpointKind(Kind):
    keys = ("endpoint",)
    required = ("endpoint",)
    # The configuration flag that lets any endpoint of this kind receive messages while allowed_endpoints is
    # empty; None: any endpoint may (its recipients confirm first).
    any_endpoint_flag: Flag | None = None

    def problem(self, endpoint: str) -> str | None:
        return PROBLEMS[self.name](endpoint)

    def endpoint_problem(self, endpoint: Any) -> str | None:
        if endpoint is None:
            return f"missing: {self.name} needs an endpoint"
        if not isinstance(endpoint, str):
            return f"must be a string, got {type(endpoint).__name__} {quoted(endpoint)}"
        return self.problem(endpoint)

    def as_dict(self, action: Action) -> dict[str, str]:
        return {"endpoint": str(action.target), "name": self.name}

    def identity(self, target: str) -> str:
        """Two targets with one identity are one recipient (the allowlist's case rules)."""
        return target.casefold()

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        endpoint = entry.get("endpoint")
        problem = self.endpoint_problem(endpoint)
        if problem:
            return Invalid(f"{where}.endpoint", problem, self.name, endpoint if isinstance(endpoint, str) else "")
        return Action(self.name, endpoint)

    def deny(self, target: str, event: JobEvent, config: Configured) -> str | None:
        if not allowed(config, target):
            return f"{target} is not in allowed_endpoints"
        flag = self.any_endpoint_flag
        if (flag and not config[ALLOWED_ENDPOINTS] and not config[flag]
                and self.identity(target) not in named(config)):
            return (f"{target} is not a number the configuration names: texts go only to those and to "
                    f"allowed_endpoints ({flag.key} is false; texts are billed to the account)")
        return None

    def preview(self, item: Planned) -> str:
        return f"would send to {item.target}"

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        if ports.notifier.ensure_subscription(self.name, item.target) == ports.notifier.PENDING:
            return NothingDone(
                Outcome.SKIPPED,
                f"{self.name} subscription pending confirmation: {item.target} must confirm the AWS Notification "
                "message first; this message is sent on a later event of the job once confirmed",
            )
        message_id = ports.notifier.publish(item.target, occasion.message)
        return Done(f"sent to {item.target} (message {message_id})")

    def check_config(self, config: Configured, where: str) -> list[str]:
        return [f"{d.where}: {d.action.target} is not in allowed_endpoints" for d in self.declared(config)
                if not allowed(config, str(d.action.target))]
