"""pagerduty: an alert event of PagerDuty's Events API v2 (POST https://events.pagerduty.com/v2/enqueue, 202 on
success; 429 and 5xx retried by the webhook kind's transport, like any webhook's).

The secret holds {"routing_key"} (the integration key of an Events API v2 integration of a PagerDuty service) and,
optionally, "url": https://events.eu.pagerduty.com/v2/enqueue for an account in PagerDuty's EU service region; any
other URL only as plain http to a loopback address in a local replay (the replay's receiver, and the tests). The
request is not signed: the routing key in the body is what PagerDuty checks. The routing key is in the body only:
never in a log line, a result, an error or the stack's template.

    dedup_key   "rule-actions-" and the delivery id: one per job, trigger and webhook, so Lambda's retries and the
                trigger's repeats (a rule found again, the same outcome's events) update one alert at PagerDuty
    severity    info: a test; critical: the trigger stopped a job (someone must decide about it now); for a job's
                outcome, info when it Completed, warning when it was Stopped (not by this stack) or Interrupted
                (spot: it resumes), else error (Failed, a time limit reached); warning: a rule's finding that
                stopped nothing (a notification, watch mode, a budget's warning)
    payload     summary (the message's subject), source (the job's ARN), timestamp (the event's time), component
                (the job's name), group (its family), class (the trigger's label), custom_details (the trigger,
                the reason, the message's text, what was done, the cost), as bounded plain text
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from rule_actions.destinations.base import LOOPBACK, Destination, bounded, label
from rule_actions.ports import Occasion
from rule_actions.text import ARN_MAX, NAME_MAX, URL_MAX, cap, plain

ENQUEUE = "https://events.pagerduty.com/v2/enqueue"
ENDPOINTS = (ENQUEUE, "https://events.eu.pagerduty.com/v2/enqueue")  # the US and EU service regions
SEVERITIES = ("critical", "error", "warning", "info")
SUMMARY_MAX, DEDUP_MAX = 1024, 255  # the Events API v2's limits
OUTCOME_SEVERITY = {"Completed": "info", "Stopped": "warning", "Interrupted": "warning"}  # other outcomes: error


def severity(occasion: Occasion) -> str:
    """The alert's severity, from the trigger (the module's docstring says which)."""
    facts = occasion.facts
    if not facts.about_job:
        return "info"
    if any(result.stopped for result in occasion.stops):
        return "critical"
    if facts.type == "job_outcome":
        return OUTCOME_SEVERITY.get(str(facts.fields.get("outcome")), "error")
    return "warning"


def event(occasion: Occasion, delivery: str, routing_key: str) -> dict[str, Any]:
    """The Events API v2 trigger event of one trigger of one job."""
    message, job, facts = occasion.message, occasion.event, occasion.facts
    family = job.family.name if job.family else None
    details = {
        "trigger": label(occasion.trigger, facts), "type": facts.type, **facts.fields,
        "reason": facts.reason, "text": message.text,
        "actions_taken": [{key: action.get(key) for key in ("kind", "target", "outcome", "reason")}
                          for action in (result.as_dict() for result in occasion.stops)],
        "account": plain(job.account, 64) if facts.about_job else None, "region": plain(occasion.region, 64),
        "cost_usd": occasion.cost.usd if occasion.cost else None,
        "saved_usd": occasion.cost.saved_usd if occasion.cost else None,
    }
    payload = {
        "summary": cap(message.subject, SUMMARY_MAX) or "rule-actions",
        "source": plain(job.job_arn, ARN_MAX) if facts.about_job else "rule-actions",
        "severity": severity(occasion),
        **({"timestamp": plain(job.time, 64)} if job.time else {}),
        "component": plain(job.job_name, NAME_MAX) if facts.about_job else "rule-actions",
        "group": family or "rule-actions",
        "class": label(occasion.trigger, facts),
        "custom_details": bounded(details),
    }
    return {
        "routing_key": routing_key,
        "event_action": "trigger",
        "dedup_key": cap(f"rule-actions-{delivery}", DEDUP_MAX),
        "payload": payload,
        "client": "rule-actions",
        **({"client_url": cap(message.links[0][1], URL_MAX)} if message.links else {}),
        "links": [{"href": cap(url, URL_MAX), "text": cap(text, NAME_MAX)} for text, url in message.links],
    }


class PagerDuty(Destination):
    name = "pagerduty"
    doc = "Events API v2: its secret holds {\"routing_key\"}"
    secret_keys = ("routing_key",)
    secret_shape = "a non-empty routing_key"
    signed = False

    def url(self, secret: Mapping[str, Any]) -> Any:
        return secret.get("url", ENQUEUE)

    def refusal(self, url: str, loopback_http: bool) -> str | None:
        if url in ENDPOINTS or (loopback_http and urlsplit(url).hostname in LOOPBACK):
            return None
        return ("its url is not PagerDuty's Events API v2 (events.pagerduty.com, or events.eu.pagerduty.com for "
                "the EU service region): leave url out of the secret, or name one of those")

    def payload(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> dict[str, Any]:
        return event(occasion, delivery, str(secret["routing_key"]))

    # The replay's receiver: a secret with a routing key and a loopback url; its events checked as PagerDuty would.

    def receives(self, secret: Mapping[str, Any]) -> str | None:
        url = secret.get("url")
        return url if isinstance(url, str) and isinstance(secret.get("routing_key"), str) else None

    def problems(self, secret: Mapping[str, Any], body: Any) -> list[str]:
        """What PagerDuty would refuse (400) in an event, or route elsewhere (another routing key)."""
        if not isinstance(body, dict):
            return ["not a JSON object"]
        found = [] if body.get("routing_key") == secret.get("routing_key") else ["not this secret's routing_key"]
        payload = body.get("payload")
        if body.get("event_action") != "trigger":
            found.append("event_action is not trigger")
        if not (isinstance(body.get("dedup_key"), str) and 0 < len(body["dedup_key"]) <= DEDUP_MAX):
            found.append(f"dedup_key is not a string of 1 to {DEDUP_MAX} characters")
        if not isinstance(payload, dict):
            return [*found, "payload is not an object"]
        if not (isinstance(payload.get("summary"), str) and 0 < len(payload["summary"]) <= SUMMARY_MAX):
            found.append(f"payload.summary is not a string of 1 to {SUMMARY_MAX} characters")
        if not (isinstance(payload.get("source"), str) and payload["source"]):
            found.append("payload.source is missing")
        if payload.get("severity") not in SEVERITIES:
            found.append(f"payload.severity is not one of {', '.join(SEVERITIES)}")
        links = body.get("links", [])
        if not (isinstance(links, list) and all(isinstance(link, dict) and isinstance(link.get("href"), str)
                                                for link in links)):
            found.append("links are not objects with an href")
        return found

    def describe(self, body: Any) -> str | None:
        if not (isinstance(body, dict) and "routing_key" in body and isinstance(body.get("payload"), dict)):
            return None
        payload = body["payload"]
        return f"pagerduty  {payload.get('severity')}  {payload.get('class')}  {payload.get('summary')}"


DESTINATION = PagerDuty()
