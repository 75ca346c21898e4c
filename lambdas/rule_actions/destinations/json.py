"""json: ours, versioned (JSON_VERSION; docs/destinations.md, "The json payload", documents every field; `job.family`,
`job.details`, `trigger.watch`, `trigger.warning` and `cost` were added to version 1, as it allows)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rule_actions import cost as costs
from rule_actions.cost import JobCost
from rule_actions.destinations.base import BODY_MAX, Destination, bounded, label
from rule_actions.ports import Occasion
from rule_actions.records import JobEvent, Message, Result, Trigger, TriggerFacts
from rule_actions.text import ARN_MAX, NAME_MAX, SMS_MAX, SUBJECT_MAX, URL_MAX, cap, plain

JSON_VERSION = "1"


def json_payload(message: Message, event: JobEvent, trigger: Trigger, facts: TriggerFacts, region: str,
                 stops: Iterable[Result], delivery: str, cost: JobCost | None = None) -> dict[str, Any]:
    """Our own format, version JSON_VERSION: every field is documented in docs/destinations.md ("The json payload");
    its bounds ("Bounds"): whatever an event or a described job holds, no text field is longer than they say."""
    family = event.family
    stops = list(stops)
    job = None if not facts.about_job else {
        "name": plain(event.job_name, NAME_MAX), "arn": plain(event.job_arn, ARN_MAX),
        "status": plain(event.job_status, 64),
        "secondary_status": plain(event.secondary_status, 64) if event.secondary_status else None,
        "account": plain(event.account, 64), "region": plain(region, 64),
        "family": family.name if family else None,
        "details": bounded(family.json_details(event)) if family else None,
    }
    return {
        "version": JSON_VERSION,
        "source": "rule-actions",
        "id": delivery,
        "test": not facts.about_job,
        "time": plain(event.time, 64) or None,
        "trigger": bounded({"label": label(trigger, facts), "type": facts.type, **facts.fields,
                            "watch": facts.watch, "warning": facts.warning}, NAME_MAX),
        "job": job,
        "reason": bounded(facts.reason),
        "message": {"subject": cap(message.subject, SUBJECT_MAX), "text": cap(message.text, BODY_MAX),
                    "short": cap(message.short, SMS_MAX)},
        "actions_taken": [bounded({key: action.get(key) for key in ("kind", "target", "outcome", "reason")})
                          for action in (result.as_dict() for result in stops)],
        "links": [{"label": cap(label_, NAME_MAX), "url": cap(url, URL_MAX)} for label_, url in message.links],
        "cost": bounded(costs.payload(cost, any(event.job_name in r.stopped for r in stops)))
        if facts.about_job else None,
    }


def _cost(cost: Any) -> str:
    """What a json body says the job cost, in a few words."""
    if not isinstance(cost, dict):
        return ""
    if cost.get("usd") is None:
        return "  cost unknown"
    untils: dict[Any, str] = {"stop": " until the stop", "now": " so far", "end": " in all"}
    until = untils.get(cost.get("until"), "")
    saved = f", saved at most ${cost['saved_usd']:,.2f}" if cost.get("saved_usd") is not None else ""
    return f"  cost ${cost['usd']:,.2f}{until}{saved}"


class Json(Destination):
    name = "json"
    doc = "ours, version 1"

    def payload(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> dict[str, Any]:
        return json_payload(occasion.message, occasion.event, occasion.trigger, occasion.facts, occasion.region,
                            occasion.stops, delivery, occasion.cost)

    def describe(self, body: Any) -> str | None:
        if not (isinstance(body, dict) and body.get("source") == "rule-actions"):
            return None
        job = body.get("job") or {}
        family = job.get("family")
        name = job.get("name") or "no job (test)"
        name = f"{family}:{name}" if family and family != "training" else name  # as the table names other families
        warning = body["trigger"].get("warning")
        said = body["trigger"]["label"] + (f" (warning at {warning * 100:g}%)" if isinstance(warning, (int, float))
                                           else "")
        return f"json v{body.get('version')}  {said}  {name}{_cost(body.get('cost'))}"


DESTINATION = Json()
