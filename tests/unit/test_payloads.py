"""What chat channels and webhooks receive: every payload checked against its schema (schemas/, and Slack's own
Block Kit models), for rule statuses, job outcomes and tests, with ordinary and hostile names; the signature;
which webhook URLs may be posted to."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from builders import event, monitor_event, rule_status, sample
from planning import parse_event
from slack_sdk.models.blocks import Block
from wording import chat, json_payload, render, thread_id, webhook_body

from rule_actions.destinations.slack import slack
from rule_actions.destinations.teams import teams
from rule_actions.kinds.webhook import sign, url_problem
from rule_actions.triggers.job_outcome import JobOutcome
from rule_actions.triggers.test import TestNotification
from rule_actions_cli.receiver import verify

REGION = "us-east-1"
SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
HOSTILE = "<!channel> *bold* `code` ```x``` [link](https://evil.example) <https://evil.example|click> &amp;\u202e\n"


def schema(name: str) -> jsonschema.protocols.Validator:
    validator = jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text()))
    validator.check_schema(validator.schema)
    return validator


CHAT, TEAMS, JSON_V1 = (schema(n) for n in ("chat-custom-notification.schema.json", "teams-workflow-message.schema.json",
                                             "webhook-json-v1.schema.json"))


def cases():
    """(id, event, trigger): a rule status, each kind of job outcome from the sample lifecycles, a monitor rule in
    watch mode, a test, and hostile names in a rule and a failure reason."""
    issues = parse_event(event(debug=[rule_status("VanishingGradient")]))
    failed = parse_event(sample("lifecycle-failed-algorithm-error.json")[5])
    hostile_rule = parse_event(event(debug=[rule_status(HOSTILE * 3, StatusDetails=HOSTILE * 50)]))
    hostile_failure = parse_event({**sample("lifecycle-failed-algorithm-error.json")[5]})
    hostile_failure = replace(hostile_failure, event=replace(hostile_failure.event, failure_reason=HOSTILE * 100))
    yield "rule IssuesFound", issues, issues.rules[0]
    yield "job:Failed", failed, failed.outcome
    yield "hostile rule", hostile_rule, hostile_rule.rules[0]
    yield "hostile failure reason", hostile_failure, hostile_failure.outcome
    # (a job name is letters, digits and "-": a surrogate in one is refused when the event is read)
    surrogate = parse_event(event(debug=[rule_status("Overfit\ud800")]))
    yield "lone surrogates", surrogate, surrogate.rules[0]
    watching = parse_event(monitor_event("watch"))
    yield "monitor rule in watch mode", watching, watching.rules[0]
    yield "test", issues, TestNotification("0f1e2d3c-4b5a-6978")


CASES = list(cases())
IDS = [case[0] for case in CASES]


@pytest.mark.parametrize(("label", "parsed", "trigger"), CASES, ids=IDS)
def test_chat_notification_follows_the_custom_notification_schema(label, parsed, trigger):
    payload = chat(render(parsed, trigger, REGION), parsed, trigger, REGION)
    CHAT.validate(payload)
    assert payload["metadata"]["threadId"] == thread_id(parsed, trigger)
    json.dumps(payload, ensure_ascii=False).encode("utf-8")  # SNS takes UTF-8: no lone surrogate survives


@pytest.mark.parametrize(("label", "parsed", "trigger"), CASES, ids=IDS)
def test_chat_markdown_cannot_be_broken_by_names(label, parsed, trigger):
    # Given names with markdown, mentions and links: when the notification is rendered
    content = chat(render(parsed, trigger, REGION), parsed, trigger, REGION)["content"]
    description = content["description"]
    # Then the untrusted text sits in one code block that nothing closes, with no angle bracket to start a link
    assert description.startswith("```\n") and description.endswith("\n```")
    assert "`" not in description[4:-4]
    for text in (description, content["title"]):
        assert "<" not in text and ">" not in text


def test_one_thread_per_training_job():
    first, later = (parse_event(e) for e in sample("lifecycle-stopped-after-issues.json")[7:9])
    other = parse_event(event(job="another-job"))
    assert thread_id(first, first.rules[0]) == thread_id(later, JobOutcome("Stopped"))
    assert thread_id(other, JobOutcome("Failed")) != thread_id(first, first.rules[0])


@pytest.mark.parametrize(("label", "parsed", "trigger"), CASES, ids=IDS)
def test_slack_payload_passes_slacks_block_kit_models(label, parsed, trigger):
    payload = slack(render(parsed, trigger, REGION))
    blocks = Block.parse_all(payload["blocks"])
    for block in blocks:
        block.validate_json()  # raises SlackObjectFormationError on a length or shape Slack refuses
    assert [b.type for b in blocks][:2] == ["header", "section"]
    # untrusted text only in plain_text objects (never parsed for mentions or links)
    for block in payload["blocks"]:
        for text in [block.get("text")] + [e.get("text") for e in block.get("elements", [])]:
            assert text is None or text["type"] == "plain_text"
    assert "<" not in payload["text"] and ">" not in payload["text"]


@pytest.mark.parametrize(("label", "parsed", "trigger"), CASES, ids=IDS)
def test_teams_payload_is_a_workflow_message_with_one_adaptive_card(label, parsed, trigger):
    TEAMS.validate(teams(render(parsed, trigger, REGION)))


@pytest.mark.parametrize(("label", "parsed", "trigger"), CASES, ids=IDS)
@pytest.mark.parametrize("fmt", ["slack", "teams", "json"])
def test_every_webhook_body_is_utf8_json(label, parsed, trigger, fmt):
    body = webhook_body(fmt, render(parsed, trigger, REGION), parsed, trigger, REGION, [], "c" * 32)
    assert isinstance(json.loads(body.decode("utf-8")), dict)


@pytest.mark.parametrize(("label", "parsed", "trigger"), CASES, ids=IDS)
def test_json_payload_follows_its_documented_schema(label, parsed, trigger):
    taken = [{"kind": "stoptraining", "target": "demo-job-001", "jobs": ["demo-job-001"], "origin": "config",
              "outcome": "done", "reason": "stopped demo-job-001", "trigger": "x", "rule": None}]
    payload = json_payload(render(parsed, trigger, REGION), parsed, trigger, REGION, taken, "0" * 32)
    JSON_V1.validate(payload)
    assert payload["test"] is isinstance(trigger, TestNotification)
    assert (payload["job"] is None) is isinstance(trigger, TestNotification)


def test_json_payload_of_a_failure_names_the_job_the_outcome_and_the_reason():
    parsed = parse_event(sample("lifecycle-failed-algorithm-error.json")[5])
    body = json.loads(webhook_body("json", render(parsed, parsed.outcome, REGION), parsed, parsed.outcome, REGION, [],
                                   "a" * 32))
    assert body["trigger"] == {"label": "job:Failed", "type": "job_outcome", "outcome": "Failed", "rule": None,
                               "rule_family": None, "rule_status": None, "watch": False, "warning": None}
    assert body["job"]["name"] == parsed.job_name and body["job"]["arn"] == parsed.job_arn
    assert body["reason"] == parsed.failure_reason
    assert [link["label"] for link in body["links"]] == ["Training job in the console", "Training job logs"]


WATCHED = [{"kind": "stoptraining", "target": "demo-job-001", "jobs": ["demo-job-001"], "origin": "config",
            "outcome": "watched", "reason": "watch mode: would stop demo-job-001; nothing was changed"}]


def test_a_watched_rule_is_said_in_the_json_payload():
    # Given a monitor rule in watch mode whose stop was watched, and the same rule acting
    watching = parse_event(monitor_event("watch"))
    acting = parse_event(monitor_event("act"))
    # When the json payload is written
    body = json.loads(webhook_body("json", render(watching, watching.rules[0], REGION, WATCHED), watching,
                                   watching.rules[0], REGION, WATCHED, "d" * 32))
    # Then its trigger says it watches, and its stop is in actions_taken as watched, saying what it would stop
    JSON_V1.validate(body)
    assert body["trigger"] == {"label": "StalledTraining", "type": "rule_status", "outcome": None,
                               "rule": "StalledTraining", "rule_family": "Monitor", "rule_status": "IssuesFound",
                               "watch": True, "warning": None}
    assert body["actions_taken"] == [{"kind": "stoptraining", "target": "demo-job-001", "outcome": "watched",
                                      "reason": "watch mode: would stop demo-job-001; nothing was changed"}]
    assert body["message"]["short"].endswith("in demo-job-001 (InProgress); would stop it (watch mode)")
    assert json.loads(webhook_body("json", render(acting, acting.rules[0], REGION), acting, acting.rules[0], REGION,
                                   [], "e" * 32))["trigger"]["watch"] is False


def test_a_watched_rule_is_said_in_chat_slack_and_teams():
    watching = parse_event(monitor_event("watch"))
    message = render(watching, watching.rules[0], REGION, WATCHED)
    # Then chat's summary and keywords, and the text of every chat format, say so
    payload = chat(message, watching, watching.rules[0], REGION)
    assert payload["metadata"]["summary"].endswith("in demo-job-001 (InProgress); would stop it (watch mode)")
    assert "watch mode" in payload["content"]["keywords"]
    line = "Watch mode: the rule would have stopped demo-job-001; nothing was stopped"
    for fmt in ("slack", "teams"):
        assert line in webhook_body(fmt, message, watching, watching.rules[0], REGION, WATCHED, "f" * 32).decode()
    assert line in payload["content"]["description"]


@pytest.mark.parametrize("fmt", ["slack", "teams", "json"])
def test_a_test_notification_says_so_in_every_format(fmt):
    parsed = parse_event(event())
    trigger = TestNotification("0f1e2d3c-4b5a-6978")
    body = webhook_body(fmt, render(parsed, trigger, REGION), parsed, trigger, REGION, [], "b" * 32).decode()
    assert "TEST notification" in body


# --- signing and URLs ------------------------------------------------------------------------------------------


def test_signature_is_hmac_sha256_over_timestamp_dot_body():
    # Given a key, a timestamp and a body: when signed
    signature = sign("key-1", 1763800000, b'{"a":1}')
    # Then it is the documented HMAC (computed independently here), and the receiver's check accepts it
    import hashlib
    import hmac

    assert signature == "sha256=" + hmac.new(b"key-1", b'1763800000.{"a":1}', hashlib.sha256).hexdigest()
    assert verify("key-1", "1763800000", b'{"a":1}', signature, now=1763800100)


@pytest.mark.parametrize(("key", "timestamp", "body", "now"), [
    ("key-2", "1763800000", b'{"a":1}', 1763800100),  # another key
    ("key-1", "1763800001", b'{"a":1}', 1763800100),  # another timestamp
    ("key-1", "1763800000", b'{"a":2}', 1763800100),  # another body
    ("key-1", "1763800000", b'{"a":1}', 1763800000 + 301),  # outside the replay window
])
def test_receiver_refuses_any_change_and_stale_requests(key, timestamp, body, now):
    assert not verify(key, timestamp, body, sign("key-1", 1763800000, b'{"a":1}'), now=now)


@pytest.mark.parametrize("url", ["https://hooks.slack.com/services/T0/B1/xyz", "https://example.com:8443/hook?x=1"])
def test_https_urls_are_accepted(url):
    assert url_problem(url, loopback_http=False) is None


@pytest.mark.parametrize("url", ["http://127.0.0.1:8787/hook", "http://[::1]:8787/hook", "http://localhost/hook"])
def test_plain_http_only_to_loopback_and_only_locally(url):
    assert url_problem(url, loopback_http=True) is None
    assert "only in a local replay" in url_problem(url, loopback_http=False)


@pytest.mark.parametrize("url", ["http://hooks.example.com/x", "ftp://127.0.0.1/x", "file:///etc/passwd",
                                 "https://user:pass@hooks.example.com/x", "https:///nohost", "https://h:port/x", "", None])
def test_other_urls_are_refused_without_being_quoted(url):
    problem = url_problem(url, loopback_http=True)
    assert problem
    assert not url or url not in problem
    assert "pass" not in problem and "hooks.example.com" not in problem


def test_every_format_bounds_a_huge_message_body():
    # Given a message whose body is 100 KB (a reason or an exit message as long as an event can make it)
    parsed = parse_event(sample("lifecycle-failed-algorithm-error.json")[5])
    message = render(parsed, parsed.outcome, REGION)._replace(body="Reason:\n  " + "x" * 100_000)
    # When each webhook body is written
    bodies = {fmt: webhook_body(fmt, message, parsed, parsed.outcome, REGION, [], "b" * 32)
              for fmt in ("slack", "teams", "json")}
    # Then none carries it whole: the text is cut at its bound, and the json body still follows its schema
    from rule_actions.destinations.base import BODY_MAX
    assert all(len(body) < BODY_MAX + 4_000 for body in bodies.values()), {f: len(b) for f, b in bodies.items()}
    JSON_V1.validate(json.loads(bodies["json"]))
