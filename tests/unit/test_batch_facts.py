"""What AWS Batch's service jobs say about their training jobs (rule_actions/jobs/batch_facts.py), from names and
event details alone: the names Batch gives (AWSBatch + the requested name + 32 hex; the cut of a requested name
past 23 characters is ASSUMED, AWS does not document it), the attempts and preemptions of an event's detail; and
the function's adapter (effects/batch.py) over a stubbed client."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from rule_actions.effects.batch import BatchServiceJobs
from rule_actions.jobs import batch_facts as facts

HEX = "88b610a69aa8380ca5b0a7aba3f81cb8"  # AWS's example's 32 characters
ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-job/"


@pytest.mark.parametrize("requested", ["a", "my-training-job", "x" * 22, "x" * 23])
def test_a_requested_name_of_up_to_23_characters_is_kept_whole(requested: str):
    # Given a requested name that fits beside AWSBatch and 32 hex characters in SageMaker's 63
    # When Batch names its training job
    name = facts.training_job_name(requested, HEX)
    # Then the name holds it whole, is at most 63 characters, and gives it back, uncut unless it reaches 63
    assert name == f"AWSBatch{requested}{HEX}" and len(name) <= facts.NAME_MAX
    assert facts.requested_name(name) == requested
    assert facts.may_be_cut(name) == (len(requested) == facts.KEPT_MAX)


@pytest.mark.parametrize("requested", ["x" * 24, "llm-pretrain-2026-11-24-08-00-00-303", "y" * 63])
def test_a_longer_requested_name_is_cut_to_its_first_23_characters(requested: str):
    # Given a requested name longer than 23 characters (ASSUMED cut: AWS does not document it)
    name = facts.training_job_name(requested, HEX)
    # Then the training job's name is 63 characters, keeping the requested name's beginning
    assert len(name) == facts.NAME_MAX and facts.requested_name(name) == requested[:facts.KEPT_MAX]
    assert facts.may_be_cut(name)


def test_a_name_from_an_arn_is_read_lower_cased_and_names_not_made_by_batch_are_none():
    # Given Batch-made names as their ARNs lower-case them, and names Batch did not make
    lowered = facts.training_job_name("My-Job", HEX).lower()
    # Then the lower-cased one gives the lower-cased requested name; the others None
    assert facts.requested_name(lowered) == "my-job"
    assert facts.requested_name("my-training-job") is None
    assert facts.requested_name("AWSBatchmy-run" + HEX[:31]) is None  # 31 hex after a letter that is none
    assert facts.requested_name("AWSBatch" + HEX) is None  # no requested name
    assert facts.requested_name("AWSBatch" + "x" * 24 + HEX) is None  # 64 characters: SageMaker allows no such name
    with pytest.raises(ValueError):
        facts.training_job_name("job", HEX.upper())


@pytest.mark.parametrize(("requested", "prefix", "expected"), [
    ("llm-pretrain", "llm-", True),
    ("llm-pretrain", "llm-pretrain", True),
    ("llm-pretrain", "cv-", False),
    ("llm-pretrain", "llm-pretrain-2", False),  # whole (12 characters): a longer prefix does not match
    ("llm-pretrain-2026-11-24-08-00", "llm-pretrain-2026-11-24", True),  # within the 23 kept
    ("llm-pretrain-2026-11-24-08-00", "llm-pretrain-2026-11-24-08", None),  # past the 23 kept: cannot tell
    ("llm-pretrain-2026-11-24-08-00", "llm-pretrain-2026-11-25-08", False),  # disagrees within the kept part
])
def test_a_prefix_is_matched_on_the_requested_name(requested: str, prefix: str, expected: bool | None):
    # Given the training job Batch made for `requested`
    name = facts.training_job_name(requested, HEX)
    # When a rule's prefix is matched on it; Then it is matched on the requested name, None when the cut decides
    assert facts.prefix_match(name, prefix) is expected
    # And a name Batch did not make is not judged here
    assert facts.prefix_match(requested, prefix) is None


def attempt(name: str, started: int | None = None, stopped: int | None = None, reason: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {"serviceResourceId": {"name": "TrainingJobArn", "value": ARN + name}}
    for key, value in (("startedAt", started), ("stoppedAt", stopped), ("statusReason", reason)):
        if value:
            entry[key] = value
    return entry


def test_attempts_are_each_training_job_once_oldest_first_the_preempted_ones_marked():
    # Given a detail listing two attempts out of order, a preempted one listed only in the preemption summary, and
    # a latest attempt listed nowhere else (its training job just created)
    detail = {
        "attempts": [attempt("b", 3000, 4000, "Received status from SageMaker: Stopped"), attempt("a", 1000, 2000)],
        "latestAttempt": attempt("c"),
        "preemptionSummary": {"preemptedAttemptCount": 2,
                              "recentPreemptedAttempts": [attempt("b", 3000, 4000), attempt("p", 500, 900)]},
        "status": "RUNNABLE", "statusReason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision",
    }
    # When its attempts are read
    found = facts.attempts(detail)
    # Then each training job once, by start (the one not started last), the preempted ones marked, reasons kept
    assert facts.training_job_arns(detail) == tuple(ARN + n for n in ("p", "a", "b", "c"))
    assert [a.preempted for a in found] == [True, False, True, False]
    assert found[2].status_reason == "Received status from SageMaker: Stopped" and found[3].started_at is None
    # And the count is the summary's, and the job waits for capacity
    assert facts.preemptions(detail) == 2 and facts.waiting_for_capacity(detail)


@pytest.mark.parametrize(("detail", "count", "waiting"), [
    ({"status": "RUNNING", "attempts": []}, 0, False),
    ({"status": "RUNNABLE", "preemptionSummary": {"recentPreemptedAttempts": [attempt("a"), attempt("b")]}}, 2, False),
    ({"status": "RUNNABLE", "statusReason": "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE - ..."}, 0, False),
    ({"status": "SCHEDULED", "statusReason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"}, 0, False),
    ({"status": "RUNNABLE", "attempts": "not a list", "latestAttempt": {"serviceResourceId": {"name": "Other",
                                                                                            "value": "x"}}}, 0, False),
])
def test_preemptions_and_waits_are_read_from_what_the_detail_holds(detail: dict[str, Any], count: int, waiting: bool):
    # Given details without a count, preempted, misconfigured, scheduled, or malformed
    # Then the count is what is there (listed attempts without a count), a wait for capacity is RUNNABLE's only
    assert facts.preemptions(detail) == count and facts.waiting_for_capacity(detail) is waiting
    assert facts.attempts({"attempts": "not a list", "latestAttempt": detail.get("latestAttempt")}) == ()


def test_arns_give_the_job_id_and_the_queue_name():
    job_arn = "arn:aws:batch:us-east-1:123456789012:service-job/4c7599ae-0a82-49aa-ba5a-4727fcce14a8"
    assert facts.job_id(job_arn) == "4c7599ae-0a82-49aa-ba5a-4727fcce14a8"
    assert facts.job_id("arn:aws:batch:us-east-1:123456789012:job/4c7599ae") == ""  # a container job's
    assert facts.queue_name("arn:aws:batch:us-east-1:123456789012:job-queue/gpu-training") == "gpu-training"
    assert facts.queue_name("gpu-training") == "gpu-training"
    assert facts.ended({"status": "FAILED"}) and not facts.ended({"status": "RUNNING"})


def stubbed() -> tuple[BatchServiceJobs, Stubber]:
    """The adapter over a real botocore client whose answers are stubbed (Stubber checks them against the model)."""
    made = boto3.client("batch", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s")
    return BatchServiceJobs(lambda: made), Stubber(made)


def described(status: str) -> dict[str, Any]:
    return {"jobId": "j-1", "jobName": "job", "jobQueue": "arn:aws:batch:us-east-1:123456789012:job-queue/q",
            "serviceJobType": "SAGEMAKER_TRAINING", "startedAt": 1, "status": status}


def test_the_adapter_terminates_with_the_reason_and_reads_a_refusal_for_an_ended_job():
    # Given Batch accepting a terminate, then refusing one for a job that has ended
    jobs, stub = stubbed()
    stub.add_response("terminate_service_job", {}, {"jobId": "j-1", "reason": "rule-actions: Budget"})
    stub.add_client_error("terminate_service_job", "ClientException", "Job has already completed")
    stub.add_response("describe_service_job", described("SUCCEEDED"), {"jobId": "j-1"})
    with stub:
        # When the adapter terminates twice; Then the first is done, the second says how the job ended
        assert jobs.terminate("j-1", "rule-actions: Budget") == "terminated"
        assert jobs.terminate("j-1", "rule-actions: Budget") == "already SUCCEEDED"


@pytest.mark.parametrize(("code", "status"), [("ClientException", "RUNNING"), ("ServerException", None)])
def test_the_adapter_raises_a_refusal_for_a_running_job_and_any_other_error(code: str, status: str | None):
    # Given Batch refusing a terminate of a running job, or failing
    jobs, stub = stubbed()
    stub.add_client_error("terminate_service_job", code, "refused")
    if status:
        stub.add_response("describe_service_job", described(status), {"jobId": "j-1"})
    with stub, pytest.raises(ClientError) as raised:
        jobs.terminate("j-1", "x" * 5000)
    # Then the caller sees the error itself
    assert raised.value.response["Error"]["Code"] == code


def test_the_adapter_cuts_a_long_reason_and_drops_the_response_metadata():
    jobs, stub = stubbed()
    stub.add_response("terminate_service_job", {}, {"jobId": "j-1", "reason": "r" * 1024})
    stub.add_response("describe_service_job", described("RUNNING"), {"jobId": "j-1"})
    with stub:
        assert jobs.terminate("j-1", "r" * 5000) == "terminated"
        assert jobs.describe("j-1") == described("RUNNING")
