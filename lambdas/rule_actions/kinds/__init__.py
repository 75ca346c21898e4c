"""The action kinds, one module each; this registry is the only list of them.

Adding a kind: a module with a `Kind` subclass (kinds/base.py says what it holds) and its line below, plus its
IAM in infra/construct.py when it calls a new AWS API.
"""

from __future__ import annotations

from rule_actions.kinds import email, notify, sms, stop, webhook
from rule_actions.kinds.base import ACTION_JSON, JOB_OUTCOMES, PLACES, RULES, Kind, NotDone

KINDS: dict[str, Kind] = {kind.name: kind for kind in (stop.KIND, email.KIND, sms.KIND, notify.KIND, webhook.KIND)}
STOP, EMAIL, SMS, NOTIFY, WEBHOOK = stop.KIND.name, email.KIND.name, sms.KIND.name, notify.KIND.name, webhook.KIND.name

__all__ = [
    "ACTION_JSON",
    "EMAIL",
    "JOB_OUTCOMES",
    "KINDS",
    "NOTIFY",
    "PLACES",
    "RULES",
    "SMS",
    "STOP",
    "WEBHOOK",
    "Kind",
    "NotDone",
    "allowed_in",
    "get",
]


def get(name: str) -> Kind:
    return KINDS[name]


def allowed_in(place: str) -> tuple[str, ...]:
    """The kinds that may be declared in `place` (action_json, rules, job_outcomes)."""
    return tuple(name for name, kind in KINDS.items() if place in kind.places)
