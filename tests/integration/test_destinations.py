"""Chat channels, webhooks and test notifications through the real handler on the embedded AWS, with a real HTTP
receiver on 127.0.0.1 that checks every signature: payloads against their schemas, retries (5xx, 429 with
Retry-After, timeouts), final failures (410, a redirect, a wrong key), each action once, and no URL or key in
any result or log line."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import boto3
import jsonschema
import pytest
from builders import ACCOUNT, REGION, sample
from moto.sns.models import sns_backends

from rule_actions.contract import ENV_CHAT_TOPIC_ARN, TEST_EVENT_KEY
from rule_actions.effects.webhook import HttpsWebhooks, WebhookFailed
from rule_actions.handler import ActionsFailed
from rule_actions.kinds.webhook import DeclaredWebhook
from rule_actions.observability import logger
from rule_actions_cli.receiver import Receiver, Reply

TEAM = "team@example.com"
KEY = "whsec-0123456789abcdef-not-a-real-key"
SECRET = "rule-actions/ml-alerts"
PATH = "/hooks/T0SECRET/B0SECRET/xyzsecretpath"
FAILED = sample("lifecycle-failed-algorithm-error.json")[5]
SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
SLACK_CHANNEL = {"workspace_id": "T0123ABCD", "channel_id": "C0123ABCD"}


def schema(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text()))


@pytest.fixture
def receiver():
    with Receiver({PATH: KEY}) as running:
        yield running


@pytest.fixture
def logs():
    """Every log line the handler writes during the test."""
    stream = io.StringIO()
    handler = logger.registered_handler
    previous, handler.stream = handler.stream, stream
    yield stream
    handler.stream = previous


def webhooks(aws, receiver, fmt: str = "json", url: str | None = None, key: str = KEY, **config) -> None:
    """The secret (in the embedded Secrets Manager) and a configuration that posts to it on Failed."""
    secret = json.dumps({"url": url or receiver.url(PATH), "signing_key": key})
    client = boto3.client("secretsmanager", region_name=REGION)
    try:
        client.create_secret(Name=SECRET, SecretString=secret)
    except client.exceptions.ResourceExistsException:
        client.put_secret_value(SecretId=SECRET, SecretString=secret)
    aws.configure(notify={"emails": [TEAM]}, webhooks={"ml-alerts": {"secret": SECRET, "format": fmt}},
                  job_outcomes={"Failed": ["notify", {"name": "webhook", "endpoint": "ml-alerts"}]}, **config)


def failed_job(aws) -> dict:
    detail = FAILED["detail"]
    aws.put_job(detail["TrainingJobName"], detail["TrainingJobStatus"], secondary_status=detail["SecondaryStatus"])
    return FAILED


def outcome_of(result: dict, kind: str, target: str | None = None) -> dict:
    [found] = [a for a in result["actions"] if a["kind"] == kind and (target is None or a["target"] == target)]
    return found


def invoke_failing(aws, raw) -> dict:
    with pytest.raises(ActionsFailed) as failure:
        aws.invoke(raw)
    return failure.value.result


# --- webhooks --------------------------------------------------------------------------------------------------


def test_a_failed_job_posts_one_signed_json_payload_and_repeats_are_duplicates(aws, receiver):
    # Given a json webhook on Failed: when the Failed event arrives twice
    webhooks(aws, receiver)
    first, again = aws.invoke(failed_job(aws)), aws.invoke(FAILED)

    # Then the receiver got one request, correctly signed, whose body follows the documented schema
    assert [r.valid for r in receiver.received] == [True]
    body = receiver.received[0].json()
    schema("webhook-json-v1.schema.json").validate(body)
    assert body["trigger"]["label"] == "job:Failed" and body["job"]["name"] == FAILED["detail"]["TrainingJobName"]
    assert receiver.received[0].headers["X-Rule-Actions-Delivery"] == body["id"]
    assert outcome_of(first, "webhook")["outcome"] == "done"
    assert outcome_of(first, "webhook")["reason"] == "delivered to webhook ml-alerts (json; HTTP 200)"
    assert outcome_of(again, "webhook")["outcome"] == "duplicate"


@pytest.mark.parametrize(("fmt", "check"), [
    ("slack", lambda body: body["blocks"][0]["type"] == "header"),
    ("teams", lambda body: schema("teams-workflow-message.schema.json").validate(body) is None),
])
def test_slack_and_teams_formats_are_posted_signed(aws, receiver, fmt, check):
    webhooks(aws, receiver, fmt=fmt)
    result = aws.invoke(failed_job(aws))
    assert outcome_of(result, "webhook")["outcome"] == "done"
    assert [r.valid for r in receiver.received] == [True]
    assert check(receiver.received[0].json())


def test_5xx_then_success_is_retried_within_the_invocation(aws, receiver):
    receiver.replies.extend([Reply(503), Reply(502)])
    webhooks(aws, receiver)
    result = aws.invoke(failed_job(aws))
    assert outcome_of(result, "webhook")["reason"] == "delivered to webhook ml-alerts (json; HTTP 200, attempt 3)"
    assert len(receiver.received) == 3 and all(r.valid for r in receiver.received)
    # one delivery id across the retries (receivers deduplicate on it)
    assert len({r.headers["X-Rule-Actions-Delivery"] for r in receiver.received}) == 1


def test_429_waits_as_long_as_retry_after_says(aws, receiver):
    receiver.replies.append(Reply(429, {"Retry-After": "1"}))
    webhooks(aws, receiver)
    started = time.monotonic()
    result = aws.invoke(failed_job(aws))
    assert outcome_of(result, "webhook")["outcome"] == "done"
    assert time.monotonic() - started >= 1.0
    assert len(receiver.received) == 2


def test_a_retry_after_beyond_the_functions_time_fails_at_once_for_lambda_to_retry(aws, receiver):
    receiver.replies.append(Reply(429, {"Retry-After": "3600"}))
    webhooks(aws, receiver)
    started = time.monotonic()
    result = invoke_failing(aws, failed_job(aws))
    reason = outcome_of(result, "webhook")["reason"]
    assert outcome_of(result, "webhook")["outcome"] == "failed"
    assert "HTTP 429" in reason and "Lambda retries the event" in reason
    assert time.monotonic() - started < 5
    assert outcome_of(result, "notify")["outcome"] == "done"  # every other action still ran, once


def test_410_gone_fails_for_good_with_a_clear_reason_and_the_rest_stays_exactly_once(aws, receiver):
    # Given a receiver that answers 410 Gone: when the event arrives, then again (Lambda's retry)
    receiver.replies.extend([Reply(410), Reply(410)])
    webhooks(aws, receiver)
    first = invoke_failing(aws, failed_job(aws))
    second = invoke_failing(aws, FAILED)

    # Then the webhook is failed (not retried within the invocation), saying the receiver removed it
    hook = outcome_of(first, "webhook")
    assert hook["outcome"] == "failed"
    assert "HTTP 410 Gone" in hook["reason"] and "removed this webhook" in hook["reason"]
    assert len(receiver.received) == 2  # one attempt per invocation
    # and the team's message went out once
    assert outcome_of(first, "notify")["outcome"] == "done"
    assert outcome_of(second, "notify")["outcome"] == "duplicate"


@pytest.mark.parametrize("status", [302, 307])
def test_a_redirect_is_not_followed(aws, receiver, status):
    # Given a receiver that redirects to another host (a second receiver)
    with Receiver({PATH: KEY}) as elsewhere:
        receiver.replies.append(Reply(status, {"Location": elsewhere.url(PATH)}))
        webhooks(aws, receiver)
        result = invoke_failing(aws, failed_job(aws))
    # Then nothing reaches the other host, and the reason says why
    assert elsewhere.received == []
    reason = outcome_of(result, "webhook")["reason"]
    assert f"HTTP {status}" in reason and "redirect, not followed" in reason


def test_a_wrong_signing_key_is_refused_by_the_receiver(aws, receiver):
    webhooks(aws, receiver, key="another-key")
    result = invoke_failing(aws, failed_job(aws))
    assert [r.valid for r in receiver.received] == [False]
    assert "HTTP 401" in outcome_of(result, "webhook")["reason"]


def test_after_a_final_failure_the_corrected_secret_is_read_at_once_not_after_the_cache(aws, receiver):
    # Given a secret with the wrong key: the delivery fails for good (401)
    webhooks(aws, receiver, key="another-key")
    invoke_failing(aws, failed_job(aws))
    # When someone corrects the secret and Lambda retries the event (within the cache's five minutes)
    boto3.client("secretsmanager", region_name=REGION).put_secret_value(
        SecretId=SECRET, SecretString=json.dumps({"url": receiver.url(PATH), "signing_key": KEY}))
    retry = aws.invoke(FAILED)
    # Then the retry reads the corrected secret and delivers
    assert outcome_of(retry, "webhook")["outcome"] == "done"
    assert [r.valid for r in receiver.received] == [False, True]


def test_a_slow_receiver_times_out_and_is_retried_then_fails():
    # Given a receiver slower than the timeout
    with Receiver({PATH: KEY}) as slow:
        slow.replies.extend([Reply(delay=1.0), Reply(delay=1.0)])
        hooks = HttpsWebhooks(lambda: None, loopback_http=True,
                              timeout=0.3, attempts=2, backoff=0.05)
        started = time.monotonic()
        with pytest.raises(WebhookFailed) as failure:
            hooks.post(DeclaredWebhook("ml-alerts", SECRET, "json"), slow.url(PATH), b"{}", {})
        elapsed = time.monotonic() - started
    assert str(failure.value) == "webhook ml-alerts: no answer within 0.3 s, after 2 attempts"
    assert elapsed < 1.5  # two short attempts, not two slow answers


def test_a_receiver_trickling_its_answer_fails_within_the_budget_and_every_other_action_happens(aws, receiver):
    # Given a webhook on Failed beside the team's notify, whose receiver answers one byte every 0.1 s, and deliveries
    # allowed 0.5 s per attempt and 1.5 s in all (the defaults, 5 s and 15 s, scaled down)
    webhooks(aws, receiver)
    receiver.replies.extend([Reply(trickle=0.1)] * 4)
    hooks = aws.effects().webhooks
    hooks.timeout, hooks.budget, hooks.backoff = 0.5, 1.5, 0.05

    # When the Failed event arrives
    started = time.monotonic()
    result = invoke_failing(aws, failed_job(aws))

    # Then the webhook is failed within its budget (Lambda retries the event), and the team was told
    assert time.monotonic() - started < 3
    webhook = outcome_of(result, "webhook")
    assert webhook["outcome"] == "failed" and "no answer within" in webhook["reason"]
    assert outcome_of(result, "notify")["outcome"] == "done"


@pytest.mark.parametrize(("secret", "expected"), [
    ("not json", "is not a JSON object with a url and a non-empty signing_key"),
    (json.dumps({"url": "http://hooks.example.com/x", "signing_key": KEY}), "its url's scheme is \"http\""),
])
def test_an_unusable_secret_fails_naming_the_secret_not_its_value(aws, receiver, secret, expected):
    webhooks(aws, receiver)
    boto3.client("secretsmanager", region_name=REGION).put_secret_value(SecretId=SECRET, SecretString=secret)
    result = invoke_failing(aws, failed_job(aws))
    reason = outcome_of(result, "webhook")["reason"]
    assert expected in reason and SECRET in reason
    assert KEY not in reason and "hooks.example.com" not in reason


def test_a_missing_secret_fails_with_the_aws_error(aws, receiver):
    aws.configure(webhooks={"ml-alerts": {"secret": "no/such/secret", "format": "json"}},
                  job_outcomes={"Failed": [{"name": "webhook", "endpoint": "ml-alerts"}]})
    result = invoke_failing(aws, failed_job(aws))
    assert "ResourceNotFoundException" in outcome_of(result, "webhook")["reason"]


def test_inside_lambda_plain_http_is_refused_even_to_loopback(aws, receiver, monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "rule-actions")
    webhooks(aws, receiver)
    result = invoke_failing(aws, failed_job(aws))
    assert "allowed only in a local replay" in outcome_of(result, "webhook")["reason"]
    assert receiver.received == []


def test_the_url_and_the_key_never_reach_a_result_or_a_log_line(aws, receiver, logs):
    # Given deliveries that succeed, are retried, and fail
    receiver.replies.extend([Reply(503), Reply(200), Reply(410)])
    webhooks(aws, receiver)
    aws.invoke(failed_job(aws))
    second = dict(FAILED, id="another-event", detail={**FAILED["detail"], "TrainingJobName": "other-job",
                                                       "TrainingJobArn": FAILED["detail"]["TrainingJobArn"] + "-2"})
    aws.put_job("other-job", "Failed", secondary_status="Failed")
    results = [invoke_failing(aws, second)]
    # Then neither the secret path nor the key appears anywhere
    written = logs.getvalue() + json.dumps(results)
    assert "webhook" in written
    for secret in (KEY, PATH, "xyzsecretpath", str(receiver.port)):
        assert secret not in written


# --- chat ------------------------------------------------------------------------------------------------------


@pytest.fixture
def chat_topic(aws, monkeypatch) -> str:
    arn = boto3.client("sns", region_name=REGION).create_topic(Name="rule-actions-chat")["TopicArn"]
    monkeypatch.setenv(ENV_CHAT_TOPIC_ARN, arn)
    return arn


def chat_messages(arn: str) -> list[dict]:
    return [json.loads(message) for _id, message, *_ in sns_backends[ACCOUNT][REGION].topics[arn].sent_notifications]


def test_notify_also_posts_the_custom_notification_to_the_chat_topic_and_nothing_personal(aws, chat_topic):
    # Given a Slack channel and a job outcome that notifies the team and emails one person
    aws.configure(notify={"emails": [TEAM]}, chat={"slack": [SLACK_CHANNEL]},
                  job_outcomes={"Failed": ["notify", {"name": "email", "endpoint": "lead@example.com"}]})
    result = aws.invoke(failed_job(aws))

    # Then team and chat are two actions, each done
    assert outcome_of(result, "notify", "team")["outcome"] == "done"
    assert outcome_of(result, "notify", "chat")["reason"].startswith("posted to the chat channels (message ")
    # the chat topic got exactly the team message, as a valid custom notification, in the job's thread
    [notification] = chat_messages(chat_topic)
    schema("chat-custom-notification.schema.json").validate(notification)
    assert FAILED["detail"]["TrainingJobName"] in notification["content"]["description"]
    # and the team topic's message carries it for HTTPS subscribers too
    team = [msg for to, msg in aws.published if to == "team"]
    assert json.loads(team[0]["https"]) == notification


def test_a_chat_outage_never_repeats_the_email(aws, chat_topic):
    aws.configure(notify={"emails": [TEAM]}, chat={"slack": [SLACK_CHANNEL]}, job_outcomes={"Failed": ["notify"]})
    boto3.client("sns", region_name=REGION).delete_topic(TopicArn=chat_topic)
    first = invoke_failing(aws, failed_job(aws))
    assert outcome_of(first, "notify", "chat")["outcome"] == "failed"
    boto3.client("sns", region_name=REGION).create_topic(Name="rule-actions-chat")
    second = aws.invoke(FAILED)
    assert outcome_of(second, "notify", "team")["outcome"] == "duplicate"
    assert outcome_of(second, "notify", "chat")["outcome"] == "done"
    assert len(aws.inbox(TEAM)) == 1


# --- test notifications ----------------------------------------------------------------------------------------


def request_for(request_id: str = "5e0c7a52-3f1b-4a7e", **extra) -> dict:
    return {TEST_EVENT_KEY: {"id": request_id, **extra}}


def test_a_test_notification_reaches_every_destination_once_and_consumes_no_real_record(aws, receiver, chat_topic):
    # Given the team, a chat channel and a webhook
    webhooks(aws, receiver, chat={"slack": [SLACK_CHANNEL]})

    # When a test is requested with an extra email, twice with one id, then with another
    result = aws.invoke(request_for(emails=["me@example.com"]))
    again = aws.invoke(request_for(emails=["me@example.com"]))
    other = aws.invoke(request_for("9d8c7b6a-5f4e-3d2c"))

    # Then each destination got one clearly marked test, reported on its own row
    assert {(a["kind"], a["target"], a["outcome"]) for a in result["actions"]} == {
        ("notify", "team", "done"), ("notify", "chat", "done"), ("webhook", "ml-alerts", "done"),
        ("email", "m***@example.com", "done")}
    assert result["test_notification"] == "5e0c7a52-3f1b-4a7e"
    assert {a["outcome"] for a in again["actions"]} == {"duplicate"}
    assert {a["outcome"] for a in other["actions"]} == {"done"}
    body = receiver.received[0].json()
    assert body["test"] is True and body["job"] is None
    assert "TEST notification" in chat_messages(chat_topic)[0]["content"]["title"]
    assert "TEST" in aws.inbox("me@example.com")[0]["subject"]
    # and the real event afterwards is acted on as if no test had been sent
    real = aws.invoke(failed_job(aws))
    assert {a["outcome"] for a in real["actions"]} == {"done"}


def test_a_test_notification_follows_the_allowlist_and_never_stops_anything(aws):
    aws.configure(notify={"emails": [TEAM]}, allowed_endpoints=["*@example.com"],
                  rules={"*": ["stoptraining", "notify"]})
    result = aws.invoke(request_for(emails=["me@elsewhere.org", "not-an-address"], sms=["+15555550100"]))
    outcomes = {(a["kind"], a["outcome"]) for a in result["actions"]}
    assert ("email", "denied") in outcomes and ("email", "invalid") in outcomes and ("sms", "denied") in outcomes
    assert all(a["kind"] != "stoptraining" for a in result["actions"])


def test_a_failed_destination_is_reported_not_raised(aws, receiver):
    receiver.replies.append(Reply(410))
    webhooks(aws, receiver)
    result = aws.invoke(request_for())  # no ActionsFailed: the caller reads each outcome
    assert outcome_of(result, "webhook")["outcome"] == "failed"


@pytest.mark.parametrize(("request_body", "field"), [
    ({"id": "x"}, "id"), ({"id": "5e0c7a52-3f1b-4a7e", "emails": "me@example.com"}, "emails"),
    ({"id": "5e0c7a52-3f1b-4a7e", "stop": True}, TEST_EVENT_KEY),
])
def test_a_malformed_test_request_is_ignored_naming_the_field(aws, request_body, field):
    result = aws.invoke({TEST_EVENT_KEY: request_body})
    assert result["actions"] == [] and field in result["ignored"]


@pytest.mark.parametrize(("value", "expected"), [("2", 2.0), ("0", 0.0), ("-5", 0.0), (None, None), ("soon", None)])
def test_retry_after_in_seconds(value, expected):
    from rule_actions.effects.webhook import _retry_after

    assert _retry_after(value) == expected


def test_retry_after_as_an_http_date():
    from email.utils import formatdate

    from rule_actions.effects.webhook import _retry_after

    assert 8 <= _retry_after(formatdate(time.time() + 10, usegmt=True)) <= 10


def test_retries_stop_before_the_invocations_time_runs_out():
    # Given an invocation with 6 s left (5 s are kept for the other actions and the ledger) and a failing receiver
    from rule_actions_cli.embedded import LocalContext

    with Receiver({PATH: KEY}) as failing:
        failing.replies.extend([Reply(503)] * 10)
        hooks = HttpsWebhooks(lambda: None, loopback_http=True, attempts=10)
        hooks.register(LocalContext("f", "arn", remaining_millis=6_000))
        started = time.monotonic()
        with pytest.raises(WebhookFailed) as failure:
            hooks.post(DeclaredWebhook("ml-alerts", SECRET, "json"), failing.url(PATH), b"{}", {})
    # Then it gives up within the second it had, saying Lambda retries the event
    assert time.monotonic() - started < 1.5
    assert "Lambda retries the event" in str(failure.value)
