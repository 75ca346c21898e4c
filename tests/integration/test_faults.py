"""Faults: moto plus errors injected into the handler's own clients, as AWS would answer them.

Each fault answers some attempts of one operation with an HTTP error response of the service's protocol
(SNS: query/XML; SageMaker and DynamoDB: JSON), so botocore parses a real ClientError and its standard retry
mode (the handler's clients: 3 attempts in all, within each call's time budget) retries throttling exactly as it would
against AWS. For each fault: the outcome, nothing lost (the failed action runs on redelivery, then once),
no duplicate of a done action, and ActionsFailed only when a retry can help.
"""

from __future__ import annotations

import io
import json

import boto3
import botocore.retries.standard
import pytest
from botocore.awsrequest import AWSResponse
from builders import REGION, SDK_ACTIONS, event, rule_config, rule_status

from rule_actions import handler
from rule_actions.handler import ActionsFailed

TABLE = "rule-actions-ledger"  # tests/integration/conftest.py
ATTEMPTS = 3  # rule_actions.effects.ATTEMPTS: standard mode, the first attempt and 2 retries
NOWHERE = "https://fault-injected.invalid/"


# --------------------------------------------------------------------------- fault injection


class _Raw(io.BytesIO):
    def stream(self, **_):
        while chunk := self.read(65536):
            yield chunk


class Fault:
    """Answers the next `failures` attempts (None: every attempt) of one operation of `client` with an AWS error.

    Registered first on `before-send`: botocore calls every before-send handler, so the failing request's URL is
    pointed nowhere, which makes moto's own stubber (registered after) leave it alone: a failed attempt never
    reaches the embedded service. The attempts that are let through go to moto unchanged.
    """

    def __init__(self, client, operation, code, message="Rate exceeded", status=400, failures=None):
        self.code, self.message, self.status = code, message, status
        self.remaining = failures
        self.attempts = 0  # every attempt botocore made, failed or let through
        self.injected = 0
        self.protocol = client.meta.service_model.protocol
        service = client.meta.service_model.service_id.hyphenize()
        client.meta.events.register_first(f"before-send.{service}.{operation}", self)

    def clear(self) -> None:
        self.remaining = 0

    def __call__(self, request, **_):
        self.attempts += 1
        if self.remaining is not None:
            if self.remaining <= 0:
                return None
            self.remaining -= 1
        self.injected += 1
        request.url = NOWHERE
        if self.protocol == "query":
            body = (
                '<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type>'
                f"<Code>{self.code}</Code><Message>{self.message}</Message></Error>"
                "<RequestId>f4a3c2e1-0000-4000-8000-000000000000</RequestId></ErrorResponse>"
            ).encode()
            headers = {"Content-Type": "text/xml", "x-amzn-RequestId": "f4a3c2e1-0000-4000-8000-000000000000"}
        else:
            body = json.dumps({"__type": self.code, "message": self.message}).encode()
            headers = {"Content-Type": "application/x-amz-json-1.1", "x-amzn-RequestId": "f4a3c2e1-0000-4000-8000-000000000000"}
        return AWSResponse(NOWHERE, self.status, headers, _Raw(body))


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    """Standard mode sleeps up to 20 s between throttled attempts; the attempts themselves are what matter here."""
    monkeypatch.setattr(botocore.retries.standard.ExponentialBackoff, "delay_amount", lambda self, context: 0)


# --------------------------------------------------------------------------- helpers


def issues_found(job="demo-job-001", action_json=SDK_ACTIONS, rule="VanishingGradient", **kwargs):
    return event(job=job, debug=[rule_status(rule, job=job)], debug_configs=[rule_config(rule, action_json)], **kwargs)


def outcomes(result):
    return [(a["kind"], a["outcome"]) for a in result["actions"]]


def failed_result(aws, raw):
    """Invoke expecting ActionsFailed; the outcomes it carries."""
    with pytest.raises(ActionsFailed) as err:
        aws.invoke(raw)
    return err.value.result, str(err.value)


def expire_in_progress_records():
    """Plays the passing of the failed invocation's time: its in-progress ledger records have expired."""
    ddb = boto3.client("dynamodb", region_name=REGION)
    for item in ddb.scan(TableName=TABLE)["Items"]:
        if item.get("status", {}).get("S") == "INPROGRESS":
            ddb.update_item(
                TableName=TABLE,
                Key={"id": item["id"]},
                UpdateExpression="SET in_progress_expiration = :past",
                ExpressionAttributeValues={":past": {"N": "0"}},
            )


def team(aws):
    aws.configure(notify={"emails": ["team@example.com"]})


# --------------------------------------------------------------------------- SNS


def test_publish_throttled_then_recovering_within_retries_sends_each_message_once(aws):
    # Given SNS throttles the next two Publish attempts
    team(aws)
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().notifier.client, "Publish", "Throttling", failures=2)

    # When the event arrives
    result = aws.invoke(issues_found())

    # Then botocore's retries absorb it: everything is done, each message delivered once
    assert outcomes(result) == [("stoptraining", "done"), ("email", "done"), ("notify", "done")]
    assert (fault.injected, fault.attempts) == (2, 4)  # email: 2 throttled + 1; notify: 1
    assert len(aws.inbox("ml@example.com")) == 1 and len(aws.inbox("team@example.com")) == 1
    assert len(aws.published) == 2


def test_publish_throttled_beyond_retries_fails_and_redelivery_sends_once(aws):
    # Given SNS throttles every Publish attempt
    team(aws)
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().notifier.client, "Publish", "Throttling")

    # When the event arrives
    result, message = failed_result(aws, issues_found())

    # Then the stop is done, both messages failed after every attempt, and the invocation fails for them only
    assert outcomes(result) == [("stoptraining", "done"), ("email", "failed"), ("notify", "failed")]
    assert all(a["reason"] == "Throttling: Rate exceeded" for a in result["actions"][1:])
    assert fault.attempts == 2 * ATTEMPTS and aws.published == []
    assert message.startswith("2 action(s) failed") and "stoptraining" not in message
    assert aws.status("demo-job-001") == "Stopping"

    # When SNS recovers and Lambda redelivers the event, twice
    fault.clear()
    retry = aws.invoke(issues_found())
    again = aws.invoke(issues_found())

    # Then the messages are sent once, the stop is not repeated
    assert outcomes(retry) == [("stoptraining", "duplicate"), ("email", "done"), ("notify", "done")]
    assert {o for _, o in outcomes(again)} == {"duplicate"}
    assert aws.calls.count("StopTrainingJob") == 1
    assert len(aws.inbox("ml@example.com")) == 1 and len(aws.inbox("team@example.com")) == 1


def test_publish_refused_without_retry_fails_at_once_and_redelivery_sends_once(aws):
    # Given the topic's KMS key is disabled: SNS refuses Publish with KMSDisabled (not retried by botocore)
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().notifier.client, "Publish", "KMSDisabled", "Invalid parameter: KMS key is disabled")

    # When the event arrives
    result, _ = failed_result(aws, issues_found())

    # Then one attempt, the email failed with the code, the stop done
    assert outcomes(result)[:2] == [("stoptraining", "done"), ("email", "failed")]
    assert result["actions"][1]["reason"].startswith("KMSDisabled:") and fault.attempts == 1

    # When the key is enabled again and the event redelivered
    fault.clear()
    retry = aws.invoke(issues_found())

    # Then the email goes out once
    assert outcomes(retry)[:2] == [("stoptraining", "duplicate"), ("email", "done")]
    assert len(aws.inbox("ml@example.com")) == 1


def test_subscribe_failing_for_an_action_json_endpoint_fails_only_that_message(aws):
    # Given SNS throttles every Subscribe (the endpoint named in action_json is subscribed on first use)
    team(aws)
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().notifier.client, "Subscribe", "Throttling")

    # When the event arrives
    result, _ = failed_result(aws, issues_found())

    # Then only the email failed (nothing published to it); the team was notified
    assert outcomes(result) == [("stoptraining", "done"), ("email", "failed"), ("notify", "done")]
    assert fault.attempts == ATTEMPTS and [to for to, _ in aws.published] == ["team"]

    # When redelivered after SNS recovers
    fault.clear()
    retry = aws.invoke(issues_found())

    # Then the email is sent once, the rest are duplicates
    assert outcomes(retry) == [("stoptraining", "duplicate"), ("email", "done"), ("notify", "duplicate")]
    assert len(aws.inbox("ml@example.com")) == 1 and len(aws.inbox("team@example.com")) == 1


# --------------------------------------------------------------------------- the ledger (DynamoDB)


def test_ledger_throttled_then_recovering_within_retries_acts_once(aws):
    # Given DynamoDB throttles the next two PutItem attempts
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().ledger.client, "PutItem", "ProvisionedThroughputExceededException", failures=2)

    # When the event arrives
    result = aws.invoke(issues_found())

    # Then the retries absorb it
    assert outcomes(result)[:2] == [("stoptraining", "done"), ("email", "done")]
    assert fault.injected == 2 and aws.status("demo-job-001") == "Stopping"


def test_ledger_throttled_beyond_retries_acts_on_nothing_and_redelivery_acts_once(aws):
    # Given DynamoDB throttles every PutItem
    team(aws)
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().ledger.client, "PutItem", "ProvisionedThroughputExceededException")

    # When the event arrives
    result, _ = failed_result(aws, issues_found())

    # Then every action failed before anything was attempted
    assert {o for _, o in outcomes(result)} == {"failed"}
    assert all(
        a["reason"].startswith("ledger unavailable, not attempted: ProvisionedThroughputExceededException")
        for a in result["actions"]
    )
    assert fault.attempts == 3 * ATTEMPTS
    assert not {"StopTrainingJob", "ListTrainingJobs", "Publish", "Subscribe"} & set(aws.calls)
    assert aws.status("demo-job-001") == "InProgress"

    # When the table recovers and the event is redelivered twice
    fault.clear()
    first, second = aws.invoke(issues_found()), aws.invoke(issues_found())

    # Then each action is done once
    assert {o for _, o in outcomes(first)} == {"done"} and {o for _, o in outcomes(second)} == {"duplicate"}
    assert aws.calls.count("StopTrainingJob") == 1 and len(aws.published) == 2


def test_ledger_throttled_then_deleted_then_recreated_loses_nothing(aws):
    # Given the ledger table first throttles, then is deleted
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().ledger.client, "PutItem", "ProvisionedThroughputExceededException")
    throttled, _ = failed_result(aws, issues_found())
    fault.clear()
    ddb = boto3.client("dynamodb", region_name=REGION)
    ddb.delete_table(TableName=TABLE)
    deleted, _ = failed_result(aws, issues_found())

    # Then nothing was done in either delivery
    assert outcomes(throttled) == outcomes(deleted) == [("stoptraining", "failed"), ("email", "failed"), ("notify", "skipped")]
    assert all("ResourceNotFoundException" in a["reason"] for a in deleted["actions"][:2])
    assert aws.status("demo-job-001") == "InProgress" and aws.published == []

    # When the table is back (empty, as a restore to a point before the event would be)
    ddb.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    results = [aws.invoke(issues_found()) for _ in range(2)]

    # Then every action is done exactly once
    assert [o for _, o in outcomes(results[0])][:2] == ["done", "done"]
    assert [o for _, o in outcomes(results[1])][:2] == ["duplicate", "duplicate"]
    assert aws.calls.count("StopTrainingJob") == 1 and len(aws.inbox("ml@example.com")) == 1


def test_ledger_write_failing_after_the_action_blocks_the_repeat_while_the_record_is_in_progress(aws):
    # Given DynamoDB refuses every UpdateItem: the record of a done action cannot be marked COMPLETED
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().ledger.client, "UpdateItem", "ProvisionedThroughputExceededException")

    # When the event arrives
    result, _ = failed_result(aws, issues_found(action_json='[{"name": "email", "endpoint": "ml@example.com"}]'))

    # Then the email was sent (the action ran), the outcome is failed, the invocation fails; the team's notify,
    # skipped (no subscriber), stays skipped though its record could not be completed either
    assert outcomes(result) == [("email", "failed"), ("notify", "skipped")] and len(aws.inbox("ml@example.com")) == 1
    assert fault.attempts == 3 * ATTEMPTS  # the action's record, the notify's, and the order of the job's events

    # When Lambda redelivers within the invocation's time, even with the ledger healthy again
    fault.clear()
    retry, _ = failed_result(aws, issues_found(action_json='[{"name": "email", "endpoint": "ml@example.com"}]'))

    # Then the in-progress record holds the repeat back: nothing is sent twice
    assert outcomes(retry)[0] == ("email", "failed") and "in progress" in retry["actions"][0]["reason"]
    assert len(aws.inbox("ml@example.com")) == 1


def test_the_reason_of_a_ledger_write_failing_after_the_action_does_not_claim_nothing_was_attempted(aws):
    # Given DynamoDB refuses every UpdateItem
    aws.put_job("demo-job-001")
    Fault(aws.effects().ledger.client, "UpdateItem", "ProvisionedThroughputExceededException")

    # When the event arrives and the stop runs
    result, _ = failed_result(aws, issues_found(action_json='[{"name": "stoptraining"}]'))

    # Then the job was stopped, and the reported reason must not say it was not attempted
    assert aws.status("demo-job-001") == "Stopping"
    assert "not attempted" not in result["actions"][0]["reason"]


def test_documented_window_a_done_action_whose_record_was_not_completed_repeats_after_the_record_expires(aws):
    # Given the ledger could not complete the record of a sent email (docs/security.md, "Exactly once": the one window)
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().ledger.client, "UpdateItem", "ProvisionedThroughputExceededException")
    only_email = issues_found(action_json='[{"name": "email", "endpoint": "ml@example.com"}]')
    failed_result(aws, only_email)
    fault.clear()

    # When the invocation's time has run out and Lambda redelivers
    expire_in_progress_records()
    retry = aws.invoke(only_email)
    again = aws.invoke(only_email)

    # Then the email is sent a second time, exactly once more, and then recorded
    assert outcomes(retry)[0] == ("email", "done") and outcomes(again)[0] == ("email", "duplicate")
    assert len(aws.inbox("ml@example.com")) == 2


def test_ledger_delete_failing_after_a_failed_action_loses_nothing(aws):
    # Given SNS refuses Publish and DynamoDB refuses DeleteItem (the failed action's record cannot be removed)
    aws.put_job("demo-job-001")
    effects = aws.effects()
    publish = Fault(effects.notifier.client, "Publish", "KMSDisabled", "Invalid parameter: KMS key is disabled")
    delete = Fault(effects.ledger.client, "DeleteItem", "ProvisionedThroughputExceededException")
    only_email = issues_found(action_json='[{"name": "email", "endpoint": "ml@example.com"}]')

    # When the event arrives and is redelivered at once after both recover
    first, _ = failed_result(aws, only_email)
    publish.clear()
    delete.clear()
    blocked, _ = failed_result(aws, only_email)

    # Then nothing was sent; the stale in-progress record makes the early retry fail (Lambda retries again)
    assert outcomes(first)[0] == ("email", "failed") and delete.attempts == ATTEMPTS
    assert "in progress" in blocked["actions"][0]["reason"] and aws.published == []

    # When the failed invocation's time has run out and the event is redelivered
    expire_in_progress_records()
    retry = aws.invoke(only_email)

    # Then the email is sent, once
    assert outcomes(retry)[0] == ("email", "done") and len(aws.inbox("ml@example.com")) == 1


def test_a_refusal_is_reported_as_decided_whatever_the_ledger_does_and_said_once_when_it_recovers(aws):
    # Given a rule whose only action is denied (a text to a number only action_json names), and DynamoDB throttling
    # every PutItem
    aws.configure(rules={})
    aws.put_job("demo-job-001")
    denied = issues_found(action_json='[{"name": "sms", "endpoint": "+15555550100"}]')
    fault = Fault(aws.effects().ledger.client, "PutItem", "ProvisionedThroughputExceededException")

    # When the event arrives
    throttled = aws.invoke(denied)

    # Then the refusal is reported as decided, with a note, and the invocation does not fail (nothing to retry)
    [action] = throttled["actions"]
    assert action["outcome"] == "denied" and fault.attempts == ATTEMPTS
    assert action["reason"].endswith("(not recorded as reported: ProvisionedThroughputExceededException: Rate exceeded)")

    # When the table recovers but a record cannot be completed (UpdateItem refused), then is left in progress
    fault.clear()
    update = Fault(aws.effects().ledger.client, "UpdateItem", "ProvisionedThroughputExceededException")
    unfinished = aws.invoke(denied)
    update.clear()
    held = aws.invoke(denied)

    # Then each is still a refusal, never failed
    assert [unfinished["actions"][0]["outcome"], held["actions"][0]["outcome"]] == ["denied", "denied"]
    assert held["actions"][0]["reason"].endswith("(its ledger record is in progress: reported here too)")

    # When that record's time has run out, and the event arrives twice more
    expire_in_progress_records()
    said, again = aws.invoke(denied), aws.invoke(denied)

    # Then the refusal is said once more, then a duplicate
    assert [said["actions"][0]["outcome"], again["actions"][0]["outcome"]] == ["denied", "duplicate"]
    assert "Publish" not in aws.calls and "Subscribe" not in aws.calls


# --------------------------------------------------------------------------- SageMaker


def test_stop_throttled_then_recovering_within_retries_stops_once(aws):
    # Given SageMaker throttles the next two StopTrainingJob attempts
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().jobs.client, "StopTrainingJob", "ThrottlingException", failures=2)

    # When the event arrives
    result = aws.invoke(issues_found())

    # Then the third attempt stops the job, within one invocation
    assert outcomes(result)[0] == ("stoptraining", "done") and result["actions"][0]["jobs"] == ["demo-job-001"]
    assert (fault.injected, fault.attempts) == (2, 3) and aws.calls.count("StopTrainingJob") == 1
    assert aws.status("demo-job-001") == "Stopping"


def test_stop_throttled_beyond_retries_fails_and_redelivery_stops_once(aws):
    # Given SageMaker throttles every StopTrainingJob
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().jobs.client, "StopTrainingJob", "ThrottlingException")

    # When the event arrives
    result, message = failed_result(aws, issues_found())

    # Then the stop failed after every attempt, the email was still sent, the invocation fails for the stop
    assert outcomes(result)[:2] == [("stoptraining", "failed"), ("email", "done")]
    assert result["actions"][0]["reason"] == "ThrottlingException: Rate exceeded"
    assert fault.attempts == ATTEMPTS and aws.status("demo-job-001") == "InProgress"
    assert message.startswith("1 action(s) failed") and "stoptraining demo-job-001" in message

    # When the throttle clears and Lambda redelivers, twice
    fault.clear()
    retry, again = aws.invoke(issues_found()), aws.invoke(issues_found())

    # Then the job is stopped once and the email is not repeated
    assert outcomes(retry)[:2] == [("stoptraining", "done"), ("email", "duplicate")]
    assert outcomes(again)[:2] == [("stoptraining", "duplicate"), ("email", "duplicate")]
    assert fault.attempts == ATTEMPTS + 1 and aws.status("demo-job-001") == "Stopping"
    assert len(aws.inbox("ml@example.com")) == 1


def test_listing_throttled_for_a_prefix_stop_fails_and_redelivery_stops_once(aws):
    # Given a prefix stop (it lists the InProgress jobs) and SageMaker throttling every ListTrainingJobs
    aws.put_job("exp-a-1")
    fault = Fault(aws.effects().jobs.client, "ListTrainingJobs", "ThrottlingException")
    prefixed = issues_found(job="exp-a-1", action_json='[{"name": "stoptraining", "training_job_prefix": "exp-a-"}]')

    # When the event arrives, then again after the throttle clears
    first, _ = failed_result(aws, prefixed)
    fault.clear()
    retry = aws.invoke(prefixed)

    # Then the first attempt failed without stopping anything and the redelivery stopped the job once
    assert outcomes(first)[0] == ("stoptraining", "failed") and "StopTrainingJob" not in aws.calls[: aws.calls.index("ListTrainingJobs") + 1]
    assert outcomes(retry)[0] == ("stoptraining", "done") and retry["actions"][0]["jobs"] == ["exp-a-1"]
    assert aws.calls.count("StopTrainingJob") == 1


def test_job_stopped_or_finished_by_someone_else_just_before_our_stop_never_fails_the_invocation(aws):
    # Given four running jobs, each of which moves on right before our StopTrainingJob reaches it
    moved_to = {"job-stopping": "Stopping", "job-stopped": "Stopped", "job-completed": "Completed", "job-failed": "Failed"}
    for job in moved_to:
        aws.put_job(job)
    aws.effects().jobs.client.meta.events.register_first(
        "before-parameter-build.sagemaker.StopTrainingJob",
        lambda params, **_: aws.put_job(params["TrainingJobName"], moved_to[params["TrainingJobName"]]),
    )

    for job, status in moved_to.items():
        # When the job's event arrives, and is redelivered
        first = aws.invoke(issues_found(job=job, action_json='[{"name": "stoptraining"}]'))
        retry = aws.invoke(issues_found(job=job, action_json='[{"name": "stoptraining"}]'))

        # Then SageMaker's "already Stopping/Stopped" is another stop's: skipped, saying who stopped it (said once:
        # the retry is a duplicate); a job that finished is skipped with its status (nothing recorded, so a retry
        # looks again: its live status, which says it ended, and when); neither fails the invocation nor counts as
        # a stop
        stop, again = first["actions"][0], retry["actions"][0]
        if status in ("Stopping", "Stopped"):
            assert (stop["outcome"], stop["jobs"], stop["reason"]) == (
                "skipped", [], f"nothing to stop: {job} is already {status}: not by this stack")
            assert again["outcome"] == "duplicate"
        else:
            assert (stop["outcome"], stop["reason"]) == ("skipped", f"nothing to stop: {job} is {status}")
            assert again["outcome"] == "skipped"
            assert again["reason"].startswith(f"nothing to stop: {job} is already {status} (at ")
        assert aws.status(job) == status
    # And each job is asked to stop once on its first delivery; on the redelivery only the job still Stopping is
    # asked again (its live status says it has not ended; SageMaker answers the same, reported as a duplicate): the
    # others' live status says they ended, and nothing asks SageMaker to stop them
    assert aws.calls.count("StopTrainingJob") == 4 + 1


@pytest.mark.parametrize(
    ("code", "message", "attempts"),
    [
        ("ThrottlingException", "Rate exceeded", ATTEMPTS),
        ("AccessDeniedException", "User is not authorized to perform: sagemaker:DescribeTrainingJob", 1),
    ],
)
def test_describe_failing_fails_the_action_json_part_and_config_actions_still_run(aws, code, message, attempts):
    # Given an event without rule configurations (action_json must be read), and DescribeTrainingJob failing
    team(aws)
    aws.put_job("demo-job-001", debug_rule_configurations=[rule_config("VanishingGradient", SDK_ACTIONS)])
    fault = Fault(aws.effects().jobs.client, "DescribeTrainingJob", code, message)
    bare = event(debug=[rule_status("VanishingGradient")])

    # When the event arrives
    result, failure = failed_result(aws, bare)

    # Then the action_json part failed with the code, the configuration's notify was done
    assert outcomes(result) == [("action_json", "failed"), ("notify", "done")]
    assert result["actions"][0]["reason"] == f"action_json unknown: DescribeTrainingJob failed: {code}: {message}"
    assert fault.attempts == attempts and aws.status("demo-job-001") == "InProgress"
    assert "1 action(s) failed" in failure

    # When SageMaker answers again and Lambda redelivers, twice
    fault.clear()
    retry, again = aws.invoke(bare), aws.invoke(bare)

    # Then the SDK's actions run once and the team is not notified twice
    assert outcomes(retry) == [("stoptraining", "done"), ("email", "done"), ("notify", "duplicate")]
    assert {o for _, o in outcomes(again)} == {"duplicate"}
    assert aws.status("demo-job-001") == "Stopping" and len(aws.inbox("team@example.com")) == 1
    assert len(aws.inbox("ml@example.com")) == 1


def test_describe_throttled_then_recovering_within_retries_reads_the_actions(aws):
    # Given DescribeTrainingJob throttled twice, and an event without rule configurations
    aws.put_job("demo-job-001", debug_rule_configurations=[rule_config("VanishingGradient", SDK_ACTIONS)])
    fault = Fault(aws.effects().jobs.client, "DescribeTrainingJob", "ThrottlingException", failures=2)

    # When the event arrives
    result = aws.invoke(event(debug=[rule_status("VanishingGradient")]))

    # Then the third attempt reads the action_json, and its actions run
    assert outcomes(result)[:2] == [("stoptraining", "done"), ("email", "done")] and fault.attempts == 3


# --------------------------------------------------------------------------- what never fails the invocation


def test_outcomes_a_retry_cannot_help_never_fail_the_invocation_even_with_every_service_down(aws):
    # Given a done stop and email (healthy services), then SageMaker and SNS down
    aws.configure(allowed_endpoints=["*@example.com"])
    aws.put_job("demo-job-001")
    aws.put_job("other-team-job")
    aws.invoke(issues_found())
    effects = aws.effects()
    faults = [
        Fault(effects.jobs.client, op, "ServiceUnavailable", "down", status=503)
        for op in ("StopTrainingJob", "ListTrainingJobs", "DescribeTrainingJob")
    ] + [Fault(effects.notifier.client, op, "InternalError", "down", status=500) for op in ("Publish", "Subscribe")]
    mixed = (
        '[{"name": "stoptraining", "training_job_prefix": "other-team"}, '  # denied (cross-job)
        '{"name": "email", "endpoint": "x@evil.test"}, '  # denied (allowed_endpoints)
        '{"name": "email", "endpoint": "not-an-email"}, '  # invalid
        '{"name": "stoptraining"}, '  # duplicate of the done stop
        '{"name": "email", "endpoint": "ml@example.com"}]'  # duplicate of the done email
    )

    # When the same job's rule fires with these actions, and a replayed copy and a Completed-job copy arrive
    result = aws.invoke(issues_found(action_json=mixed))
    replayed = aws.invoke(issues_found(**{"replay-name": "outage-replay"}))
    completed = aws.invoke(issues_found(rule="Overfit", status="Completed", action_json='[{"name": "stoptraining"}]'))

    # Then no invocation failed, no faulty service was even called, and each outcome says why (the team's notify,
    # skipped for want of a subscriber, was said by the first delivery)
    assert sorted(outcomes(result)) == sorted(
        [("stoptraining", "denied"), ("email", "denied"), ("email", "invalid"), ("stoptraining", "duplicate"),
         ("email", "duplicate"), ("notify", "duplicate")]
    )
    assert outcomes(replayed) == [("stoptraining", "skipped"), ("email", "skipped"), ("notify", "duplicate")]
    assert {o for _, o in outcomes(completed)} == {"skipped"}
    assert sum(f.attempts for f in faults) == 0
    assert aws.status("other-team-job") == "InProgress"


def test_a_transient_error_on_one_action_fails_only_the_invocation_that_had_it(aws):
    # Given one throttled Publish (beyond retries) during the first of two different jobs' events
    team(aws)
    for job in ("job-a", "job-b"):
        aws.put_job(job)
    fault = Fault(aws.effects().notifier.client, "Publish", "Throttling", failures=ATTEMPTS)
    only_notify = lambda job: event(job=job, debug=[rule_status("Overfit", job=job)], debug_configs=[rule_config("Overfit")])  # noqa: E731

    # When both jobs' events arrive, then the first is redelivered
    first, _ = failed_result(aws, only_notify("job-a"))
    second = aws.invoke(only_notify("job-b"))
    retry = aws.invoke(only_notify("job-a"))

    # Then job-a's notify failed and was done on redelivery; job-b was unaffected; one message per job
    assert outcomes(first) == [("notify", "failed")] and outcomes(second) == [("notify", "done")]
    assert outcomes(retry) == [("notify", "done")] and fault.injected == ATTEMPTS
    subjects = sorted(m["subject"] for m in aws.inbox("team@example.com"))
    assert subjects == ["[rule-actions] Overfit issues found in job-a", "[rule-actions] Overfit issues found in job-b"]


def test_an_injected_fault_is_what_the_handler_sees_and_never_reaches_moto(aws):
    # Given (the premise of every test above) one non-retryable error injected on the handler's own client
    aws.put_job("demo-job-001")
    fault = Fault(aws.effects().jobs.client, "StopTrainingJob", "ValidationException", "no", failures=1)

    # When the event arrives
    result, _ = failed_result(aws, issues_found(action_json='[{"name": "stoptraining"}]'))

    # Then the handler reports exactly that error, after one attempt, and moto never ran the request
    assert result["actions"][0]["reason"] == "ValidationException: no" and fault.attempts == 1
    assert aws.status("demo-job-001") == "InProgress"
    assert handler.runtime()[1].jobs.client is aws.effects().jobs.client
