"""PagerDuty through the real handler on the embedded AWS: the routing key read from Secrets Manager, the Events
API v2 event posted to a loopback receiver standing in for events.pagerduty.com (the secret's url, allowed in a
local run only), retried on 429 with one dedup key, refused when the secret is unusable; the routing key in no
result and no log line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import boto3
import jsonschema
import pytest
from builders import REGION, sample

from rule_actions.handler import ActionsFailed
from rule_actions.observability import logger
from rule_actions_cli.receiver import Expected, Receiver, Reply

KEY = "R0UTINGKEY-0123456789abcdef-not-real"
SECRET = "rule-actions/pagerduty"
PATH = "/v2/enqueue"
FAILED = sample("lifecycle-failed-algorithm-error.json")[5]
EVENT_V2 = jsonschema.Draft202012Validator(json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "pagerduty-event-v2.schema.json").read_text()))


@pytest.fixture
def pagerduty():
    """A receiver that checks events as PagerDuty would (this routing key, the event's shape) and answers 202."""
    with Receiver({PATH: Expected("pagerduty", {"routing_key": KEY})}) as running:
        yield running


@pytest.fixture
def logs():
    stream = io.StringIO()
    handler = logger.registered_handler
    previous, handler.stream = handler.stream, stream
    yield stream
    handler.stream = previous


def page_on_failed(aws, secret: dict) -> None:
    client = boto3.client("secretsmanager", region_name=REGION)
    client.create_secret(Name=SECRET, SecretString=json.dumps(secret))
    aws.configure(webhooks={"oncall": {"secret": SECRET, "format": "pagerduty"}},
                  job_outcomes={"Failed": [{"name": "webhook", "endpoint": "oncall"}]})
    detail = FAILED["detail"]
    aws.put_job(detail["TrainingJobName"], detail["TrainingJobStatus"], secondary_status=detail["SecondaryStatus"])


def webhook_result(result: dict) -> dict:
    [found] = [a for a in result["actions"] if a["kind"] == "webhook"]
    return found


def test_a_failed_job_pages_once_with_a_valid_event(aws, pagerduty, logs):
    # Given a pagerduty webhook on Failed whose secret holds the routing key and the receiver's url
    pagerduty.replies.append(Reply(202))
    page_on_failed(aws, {"routing_key": KEY, "url": pagerduty.url(PATH)})
    # When the Failed event arrives twice
    first, again = aws.invoke(FAILED), aws.invoke(FAILED)
    # Then PagerDuty got one event: valid, with this routing key, unsigned, error severity, for this job
    [received] = pagerduty.received
    assert received.valid
    body = received.json()
    EVENT_V2.validate(body)
    assert body["payload"]["severity"] == "error"
    assert body["payload"]["component"] == FAILED["detail"]["TrainingJobName"]
    assert "X-Rule-Actions-Signature" not in received.headers
    assert body["dedup_key"] == f"rule-actions-{received.headers['X-Rule-Actions-Delivery']}"
    assert webhook_result(first)["reason"] == "delivered to webhook oncall (pagerduty; HTTP 202)"
    assert webhook_result(again)["outcome"] == "duplicate"
    # and the routing key is in no result and no log line
    assert KEY not in json.dumps([first, again]) and KEY not in logs.getvalue()


def test_429_is_retried_with_the_same_dedup_key(aws, pagerduty):
    # Given PagerDuty throttling once (429), then accepting
    pagerduty.replies.extend([Reply(429, {"Retry-After": "0"}), Reply(202)])
    page_on_failed(aws, {"routing_key": KEY, "url": pagerduty.url(PATH)})
    # When the Failed event arrives
    result = aws.invoke(FAILED)
    # Then the event was posted twice, the same both times, and delivered at the second attempt
    assert len(pagerduty.received) == 2 and all(r.valid for r in pagerduty.received)
    assert pagerduty.received[0].body == pagerduty.received[1].body
    assert webhook_result(result)["reason"] == "delivered to webhook oncall (pagerduty; HTTP 202, attempt 2)"


@pytest.mark.parametrize(("secret", "said"), [
    ({"url": "http://127.0.0.1:9/v2/enqueue"}, "is not a JSON object with a non-empty routing_key"),
    ({"routing_key": KEY, "url": "https://events.example.com/v2/enqueue"}, "is not PagerDuty's Events API v2"),
])
def test_an_unusable_secret_fails_the_action_without_saying_the_key(aws, logs, secret, said):
    # Given a secret without a routing key, or naming a URL that is not PagerDuty's
    page_on_failed(aws, secret)
    # When the Failed event arrives
    with pytest.raises(ActionsFailed) as failure:
        aws.invoke(FAILED)
    # Then the webhook failed saying why, naming the secret, never the key or the URL
    found = webhook_result(failure.value.result)
    assert found["outcome"] == "failed" and said in found["reason"] and SECRET in found["reason"]
    assert KEY not in json.dumps(failure.value.result) and KEY not in logs.getvalue()
    assert "events.example.com" not in found["reason"]
