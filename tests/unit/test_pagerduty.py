"""PagerDuty (destinations/pagerduty.py): the Events API v2 event each trigger renders, checked against its schema
(schemas/pagerduty-event-v2.schema.json), its severity, its bounds, the URLs it posts to, the configuration that
names it, and what the replay's receiver checks of it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from builders import event, monitor_event, rule_status, sample
from planning import parse_event
from wording import occasion

from rule_actions import registry
from rule_actions.config import Config, ConfigError
from rule_actions.destinations.pagerduty import ENQUEUE, SUMMARY_MAX
from rule_actions.triggers.test import TestNotification
from rule_actions_cli.receiver import Expected, checked

REGION = "eu-west-1"
KEY = "R0UTINGKEY0123456789abcdef0123456"
SECRET = {"routing_key": KEY}
DELIVERY = "0123456789abcdef0123456789abcdef"
PAGERDUTY = registry.destinations()["pagerduty"]
EVENT_V2 = jsonschema.Draft202012Validator(json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "pagerduty-event-v2.schema.json").read_text()))
FAILED = sample("lifecycle-failed-algorithm-error.json")[5]


def rendered(parsed, trigger, taken=()) -> dict:
    """The body PagerDuty receives for a trigger of a parsed event, as the webhook kind writes it."""
    return json.loads(PAGERDUTY.body(occasion(parsed, trigger, REGION, taken), DELIVERY, SECRET))


def stop_of(job: str) -> dict:
    return {"kind": "stoptraining", "target": job, "outcome": "done", "reason": f"stopped {job}", "jobs": [job]}


def test_a_failed_job_renders_a_valid_trigger_event_from_its_message():
    # Given a training job's Failed outcome
    parsed = parse_event(FAILED)
    seen = occasion(parsed, parsed.outcome, REGION)
    # When its PagerDuty event is written
    body = rendered(parsed, parsed.outcome)
    # Then it follows the Events API v2 schema, carries the secret's routing key, says the message's subject, and names
    # the job as its source and component, its family as its group, the trigger as its class
    EVENT_V2.validate(body)
    assert body["routing_key"] == KEY and body["event_action"] == "trigger"
    payload = body["payload"]
    assert payload["summary"] == seen.message.subject
    assert payload["source"] == parsed.event.job_arn and payload["component"] == parsed.event.job_name
    assert (payload["group"], payload["class"], payload["severity"]) == ("training", "job:Failed", "error")
    assert payload["timestamp"] == FAILED["time"]
    assert payload["custom_details"]["reason"] == seen.facts.reason
    assert [link["href"] for link in body["links"]] == [url for _, url in seen.message.links]
    assert body["client_url"] == seen.message.links[0][1]


def test_the_dedup_key_is_one_per_job_trigger_and_webhook():
    # Given the same Failed outcome rendered twice (a retry, a repeated event) with its delivery id, and another id
    parsed = parse_event(FAILED)
    first, again = rendered(parsed, parsed.outcome), rendered(parsed, parsed.outcome)
    other = json.loads(PAGERDUTY.body(occasion(parsed, parsed.outcome, REGION), "f" * 32, SECRET))
    # Then the dedup key is the same for the same delivery (PagerDuty updates one alert) and differs for another
    assert first["dedup_key"] == again["dedup_key"] == f"rule-actions-{DELIVERY}"
    assert other["dedup_key"] != first["dedup_key"]


@pytest.mark.parametrize(("case", "severity"), [
    ("test", "info"), ("stopped", "critical"), ("finding", "warning"), ("watched", "warning"),
    ("Failed", "error"), ("Completed", "info"),
])
def test_severity_follows_the_trigger(case, severity):
    # Given a trigger of each kind: a test, a rule finding whose stop was done, one that stopped nothing, a monitor
    # rule in watch mode, a job that failed, one that completed
    issues = parse_event(event(debug=[rule_status("VanishingGradient")]))
    watching = parse_event(monitor_event("watch"))
    failed = parse_event(FAILED)
    completed = parse_event(sample("lifecycle-completed-no-issues.json")[-1])
    given = {
        "test": (issues, TestNotification("0f1e2d3c-4b5a-6978"), ()),
        "stopped": (issues, issues.rules[0], (stop_of("demo-job-001"),)),
        "finding": (issues, issues.rules[0], ()),
        "watched": (watching, watching.rules[0], ()),
        "Failed": (failed, failed.outcome, ()),
        "Completed": (completed, completed.outcome, ()),
    }[case]
    # When its event is written
    body = rendered(*given)
    # Then its severity is the documented one, and the event is valid
    EVENT_V2.validate(body)
    assert body["payload"]["severity"] == severity


def test_hostile_and_huge_text_is_bounded():
    # Given a failure reason of 100 KB with markup and control characters
    parsed = parse_event(FAILED)
    hostile = replace(parsed, event=replace(parsed.event, failure_reason=("<b>x</b>\u202e\n" * 20_000)))
    # When its event is written
    body = rendered(hostile, hostile.outcome)
    # Then it stays within the Events API's limits and the schema's bounds, and no control character is left
    EVENT_V2.validate(body)
    assert len(body["payload"]["summary"]) <= SUMMARY_MAX
    assert len(body["payload"]["custom_details"]["reason"]) <= 1024
    assert "\u202e" not in json.dumps(body, ensure_ascii=False)


@pytest.mark.parametrize(("url", "loopback", "refused"), [
    (ENQUEUE, False, False),
    ("https://events.eu.pagerduty.com/v2/enqueue", False, False),
    ("https://hooks.example.com/v2/enqueue", False, True),
    ("https://hooks.example.com/v2/enqueue", True, True),
    ("http://127.0.0.1:48788/v2/enqueue", True, False),
])
def test_only_pagerduty_s_endpoints_or_a_local_replay_s_receiver_are_posted_to(url, loopback, refused):
    # (plain http to a loopback address outside a local replay is the webhook kind's refusal: url_problem)
    problem = PAGERDUTY.refusal(url, loopback)
    assert bool(problem) is refused
    assert problem is None or "example.com" not in problem


def test_the_secret_names_the_url_only_to_override_it():
    assert PAGERDUTY.url({"routing_key": KEY}) == ENQUEUE
    assert PAGERDUTY.url({"routing_key": KEY, "url": "http://127.0.0.1:1/x"}) == "http://127.0.0.1:1/x"


def test_a_webhook_of_format_pagerduty_is_configured_and_an_unknown_format_lists_it():
    # Given a webhook of format pagerduty, and one of a format nobody offers
    hooks = {"oncall": {"secret": "rule-actions/pagerduty", "format": "pagerduty"}}
    config = Config.from_dict({"webhooks": hooks, "job_outcomes": {"Failed": [{"name": "webhook", "endpoint": "oncall"}]}})
    # Then the first is read, its destination reached through the configuration; the second is refused, naming it
    assert config.destination("pagerduty") is PAGERDUTY
    with pytest.raises(ConfigError) as refused:
        Config.from_dict({"webhooks": {"oncall": {"secret": "s", "format": "opsgenie"}}})
    assert "is not one of slack, teams, json, pagerduty" in str(refused.value)


def test_the_receiver_accepts_a_valid_event_and_refuses_another_key_or_shape():
    # Given the event of a failed job
    parsed = parse_event(FAILED)
    body = PAGERDUTY.body(occasion(parsed, parsed.outcome, REGION), DELIVERY, SECRET)
    expected = Expected("pagerduty", {**SECRET, "url": "http://127.0.0.1:1/v2/enqueue"})
    # When the replay's receiver checks it, then a copy with another routing key, then one without a summary
    valid, words = checked(expected, {}, body)
    other_key = json.dumps({**json.loads(body), "routing_key": "another"}).encode()
    broken = json.loads(body)
    del broken["payload"]["summary"]
    # Then only the first passes, and it is said as a checked payload, not a signature
    assert valid and words[0].startswith("payload ok")
    assert not checked(expected, {}, other_key)[0]
    assert not checked(expected, {}, json.dumps(broken).encode())[0]
    assert PAGERDUTY.describe(json.loads(body)).startswith("pagerduty  error  job:Failed  ")
