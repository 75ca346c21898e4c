"""A restart of a training job AWS Batch made (issue 39, item 3): through Batch, never a CreateTrainingJob behind it.
After this stack's stop of it (TerminateServiceJob for a finding), its service job is submitted again to the same
queue with its request verbatim; a job Batch is retrying itself (preempted, requeued), one whose code failed, or
one whose service job was not terminated by this stack is not restarted, each said with its reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from builders import event as training_event
from builders import rule_status
from test_batch_family import ATTEMPT, QUEUE, QUEUE_ARN, SERVICE_JOB_ID, acted

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.records import StopNote
from rule_actions_cdk import plugins

CHECKPOINT = "s3://ml-checkpoints/llm/llm-pretrain-nov24"
PAYLOAD = json.dumps({"TrainingJobName": "llm-pretrain-nov24", "RoleArn": "arn:aws:iam::123456789012:role/train",
                      "CheckpointConfig": {"S3Uri": CHECKPOINT}, "StoppingCondition": {"MaxRuntimeInSeconds": 86400}})
CONFIG = {"batch_queues": [QUEUE], "restart_checkpoints": ["s3://ml-checkpoints/llm"],
          "rules": {"StalledTraining": ["stoptraining", "restart"]}}


class Jobs:
    """SageMaker: the attempt's description (its checkpoint, 2 h of training); CreateTrainingJob recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def describe(self, api, job_name):
        self.calls.append((api.describe, job_name))
        return {"TrainingJobName": job_name, "CheckpointConfig": {"S3Uri": CHECKPOINT}, "TrainingTimeInSeconds": 7200,
                "StoppingCondition": {"MaxRuntimeInSeconds": 86400}, "RoleArn": "arn:aws:iam::123456789012:role/t"}

    def tags(self, arn):
        return {"team": "llm"}

    def create(self, api, request):
        self.calls.append((api.create, request))
        return "created"

    def stop(self, api, key, token=None):
        self.calls.append((api.stop, key))
        return "stopped"


class Ledger:
    """The stop records and what follows them, kept."""

    def __init__(self) -> None:
        self.records: dict[str, StopNote] = {}

    def once(self, key, work):
        return work()

    def mark_stopped(self, job_arn, by, at=None, **figures):
        self.records[job_arn] = StopNote(by)

    def follow_stop(self, job_arn, action):
        note = self.records[job_arn]
        self.records[job_arn] = StopNote(note.by, (*note.then, action))

    def stop_record(self, job_arn):
        return self.records.get(job_arn)

    def stopped_by(self, job_arn):
        return None

    def restart_quota(self, account, limit):
        return True

    def saw(self, job_arn, progress):
        return None


class Batch:
    """AWS Batch: the service job running ATTEMPT in QUEUE, its status as set; SubmitServiceJob keyed by its
    clientToken (a repeat is the job submitted before)."""

    def __init__(self, status: str = "RUNNING", terminated: bool = False) -> None:
        self.status, self.terminated, self.calls = status, terminated, []  # type: ignore[var-annotated]
        self.submitted: dict[str, dict[str, Any]] = {}

    def job(self) -> dict[str, Any]:
        return {"jobId": SERVICE_JOB_ID, "jobName": "llm-pretrain-nov24", "jobQueue": QUEUE_ARN, "status": self.status,
                "isTerminated": self.terminated, "serviceRequestPayload": PAYLOAD, "serviceJobType": "SAGEMAKER_TRAINING",
                "retryStrategy": {"attempts": 3}, "schedulingPriority": 50, "shareIdentifier": "llm",
                "timeoutConfig": {"attemptDurationSeconds": 90000}, "tags": {"team": "llm", "aws:batch:x": "y"},
                "latestAttempt": {"serviceResourceId": {"name": "TrainingJobArn", "value": ATTEMPT.lower()}}}

    def running_job(self, training_job_arn, queues):
        self.calls.append(("ListServiceJobs", training_job_arn))
        return (QUEUE_ARN, self.job()) if self.status in ("RUNNING", "STARTING", "SCHEDULED") else None

    def job_of(self, training_job_arn, queues):
        self.calls.append(("ListServiceJobs", training_job_arn))
        return QUEUE_ARN, self.job()

    def describe(self, job_id):
        self.calls.append(("DescribeServiceJob", job_id))
        return self.job()

    def terminate(self, job_id, reason):
        self.calls.append(("TerminateServiceJob", job_id, reason))
        self.status, self.terminated = "FAILED", True
        return "terminated"

    def submit(self, request):
        self.calls.append(("SubmitServiceJob", request))
        token = request["clientToken"]
        found = "exists" if token in self.submitted else "submitted"
        self.submitted.setdefault(token, request)
        return found, f"job-{len(self.submitted)}"


class Checkpoints:
    def newest(self, s3_uri):
        return datetime(2026, 11, 22, 7, 50, tzinfo=UTC)


class Ports:
    def __init__(self, batch: Batch) -> None:
        self.jobs, self.ledger, self.batch, self.checkpoints = Jobs(), Ledger(), batch, Checkpoints()
        self.notifier, self.webhooks, self.region, self.prices, self.metrics, self.logs = (
            None, None, "us-east-1", None, None, None)

    def in_account(self, account, region):
        return self


def finding() -> dict[str, Any]:
    return training_event(job=ATTEMPT, debug=[rule_status("StalledTraining", job=ATTEMPT)])


def stopped() -> dict[str, Any]:
    return training_event(job=ATTEMPT, status="Stopped", secondary="Stopped", event_id="stopped-1")


def rows(result: dict[str, Any], kind: str = "restart") -> list[dict[str, Any]]:
    return [a for a in result["actions"] if a["kind"] == kind]


def created(ports: Ports) -> list[Any]:
    return [c for c in ports.jobs.calls if c[0] == "CreateTrainingJob"]


def test_a_stopped_batch_job_is_restarted_through_batch_with_its_request_verbatim():
    # Given the family on, restarts allowed, a rule that stops and restarts, a Batch-made job running
    batch = Batch()
    ports = Ports(batch)
    # When the rule finds the job stalled
    [will] = rows(acted(finding(), CONFIG, ports))
    # Then it is stopped through Batch and its restart noted, through Batch too
    assert [c[0] for c in batch.calls if c[0] == "TerminateServiceJob"] == ["TerminateServiceJob"]
    assert will["outcome"] == "done" and will["reason"].startswith("will restart through AWS Batch: SubmitServiceJob")
    assert ports.ledger.records[finding()["detail"]["TrainingJobArn"]].then
    # When the job has stopped (its service job terminated by the stop)
    [done] = rows(acted(stopped(), CONFIG, ports))
    # Then its service job is submitted again to its queue, its request verbatim, never a CreateTrainingJob
    [(_, request)] = [c for c in batch.calls if c[0] == "SubmitServiceJob"]
    assert request["jobQueue"] == QUEUE_ARN and request["serviceRequestPayload"] == PAYLOAD
    assert json.loads(request["serviceRequestPayload"])["CheckpointConfig"]["S3Uri"] == CHECKPOINT
    kept = {"serviceJobType", "retryStrategy", "schedulingPriority", "shareIdentifier", "timeoutConfig"}
    assert {k: request[k] for k in kept} == {k: batch.job()[k] for k in kept}
    assert request["jobName"] == "llm-pretrain-nov24-r1" and 1 <= len(request["clientToken"]) <= 64
    # its tags: the service job's (not aws:*) and the chain's, the chain rooted at the first service job
    assert request["tags"]["team"] == "llm" and "aws:batch:x" not in request["tags"]
    assert request["tags"]["rule-actions:chain"] == "llm-pretrain-nov24" and request["tags"]["rule-actions:attempt"] == "1"
    assert created(ports) == []
    assert done["outcome"] == "done" and "through AWS Batch: SubmitServiceJob of service job llm-pretrain-nov24-r1" \
        in done["reason"] and f"queue {QUEUE}" in done["reason"]


def test_a_repeated_stopped_event_submits_once():
    batch = Batch()
    ports = Ports(batch)
    acted(finding(), CONFIG, ports)
    # When the Stopped event is delivered twice
    first = rows(acted(stopped(), CONFIG, ports))
    second = rows(acted(stopped(), CONFIG, ports))
    # Then both submissions carry the same token, and Batch holds one job for it
    tokens = [c[1]["clientToken"] for c in batch.calls if c[0] == "SubmitServiceJob"]
    assert len(set(tokens)) == 1 and len(batch.submitted) == 1
    assert "submitted already" in second[0]["reason"] and "submitted already" not in first[0]["reason"]


def test_a_preempted_and_requeued_batch_job_is_not_restarted():
    # Given a finding on an attempt Batch has just preempted (its service job requeued, RUNNABLE)
    batch = Batch(status="RUNNABLE")
    ports = Ports(batch)
    # When the rule's stop and restart are acted on
    result = acted(finding(), CONFIG, ports)
    # Then nothing is stopped nor submitted, and the restart says Batch retries the job itself
    [row] = rows(result)
    assert row["outcome"] == "skipped" and "RUNNABLE" in row["reason"] and "retries it itself" in row["reason"]
    assert not [c for c in batch.calls if c[0] in ("TerminateServiceJob", "SubmitServiceJob")]
    assert created(ports) == []


def test_a_stopped_batch_job_whose_service_job_was_not_terminated_is_not_restarted():
    # Given this stack's stop noted with a restart, but the service job requeued by Batch (not terminated)
    batch = Batch()
    ports = Ports(batch)
    acted(finding(), CONFIG, ports)
    batch.status, batch.terminated = "RUNNABLE", False
    # When the job has stopped
    [row] = rows(acted(stopped(), CONFIG, ports))
    # Then it is not restarted: Batch retries it
    assert row["outcome"] == "skipped" and "retries it itself" in row["reason"]
    assert not [c for c in batch.calls if c[0] == "SubmitServiceJob"] and created(ports) == []


def test_a_batch_job_whose_code_failed_is_not_restarted():
    batch = Batch(status="FAILED")
    ports = Ports(batch)
    failed = training_event(job=ATTEMPT, status="Failed", secondary="Failed", FailureReason="AlgorithmError: boom")
    failed["detail"]["FailureReason"] = "AlgorithmError: ModuleNotFoundError"
    result = acted(failed, {**CONFIG, "job_outcomes": {"Failed": ["restart"]}}, ports)
    assert [r["outcome"] for r in rows(result)] == ["skipped"]
    assert not [c for c in batch.calls if c[0] == "SubmitServiceJob"] and created(ports) == []


def test_with_the_family_off_a_batch_made_job_is_never_restarted():
    batch = Batch()
    ports = Ports(batch)
    config = {key: value for key, value in CONFIG.items() if key != "batch_queues"}
    [row] = rows(acted(finding(), config, ports))
    assert row["outcome"] == "skipped" and "never restarted behind Batch's back" in row["reason"]
    assert not [c for c in batch.calls if c[0] == "SubmitServiceJob"] and created(ports) == []


# --- least privilege ------------------------------------------------------------------------------------------------


def grants(config: dict[str, Any]) -> dict[str, Any]:
    return {g.sid: g for g in plugins.job_grants(Config.from_dict(config))}


def test_submit_service_job_is_granted_only_with_the_family_on_and_restarts_allowed_scoped_to_its_queues():
    # Given the family on and restarts allowed
    found = grants(CONFIG)
    # Then SubmitServiceJob on the configured queue (and its quota shares) and the new service job, nothing else
    submit = found["ResubmitBatchServiceJobs"]
    assert submit.actions == ("batch:SubmitServiceJob",)
    names = [getattr(r, "name", r) for r in submit.resources]
    assert QUEUE in names and f"{QUEUE}/quota-share/*" in names and "*" in names
    assert [getattr(r, "resource", "") for r in submit.resources] == ["job-queue", "job-queue", "service-job"]
    assert found["TagResubmittedBatchServiceJobs"].actions == ("batch:TagResource",)
    # and the restart's PassRole, to SageMaker only, covers the request's RoleArn
    passrole = {g.sid: g for k in registry.KINDS.values() for g in k.stack_parts(Config.from_dict(CONFIG))
                if hasattr(g, "sid")}["PassRoleToRestartedJobs"]
    assert passrole.conditions == (("StringEquals", "iam:PassedToService", ("sagemaker.amazonaws.com",)),)


@pytest.mark.parametrize("config", [
    {key: value for key, value in CONFIG.items() if key != "batch_queues"},  # the family off
    {"batch_queues": [QUEUE], "rules": {"StalledTraining": ["stoptraining"]}},  # restarts off
])
def test_submit_service_job_is_not_granted_with_the_family_or_restarts_off(config):
    found = grants(config)
    assert "ResubmitBatchServiceJobs" not in found and "TagResubmittedBatchServiceJobs" not in found
    assert "batch:SubmitServiceJob" not in json.dumps([g.actions for g in found.values()])


# --- the requested name past the 23 characters a Batch-made name keeps ---------------------------------------------

LONG = "llm-pretrain-2026-11-24-a-long-run-nam-1"  # 40 characters: Batch keeps its first 23 (assumed)
LONG_ATTEMPT = "AWSBatch" + LONG[:23] + "9f0e1d2c3b4a59687766554433221100"


class LongBatch(Batch):
    """The service job of LONG_ATTEMPT, its request naming LONG."""

    def job(self) -> dict[str, Any]:
        return {**super().job(), "serviceRequestPayload": json.dumps({"TrainingJobName": LONG}),
                "latestAttempt": {"serviceResourceId": {"name": "TrainingJobArn", "value": LONG_ATTEMPT.lower()}}}


@pytest.mark.parametrize(("prefix", "matched"), [
    ("llm-pretrain-2026-11-24-a-long", True),  # agrees past character 23
    ("llm-pretrain-2026-11-24-b-other", False),  # agrees with the kept 23, differs past them
])
def test_a_prefix_longer_than_the_kept_name_is_judged_on_the_whole_requested_name(prefix, matched):
    # Given a Batch-made job of a 40-character requested name, its name keeping 23, and a longer prefix
    assert len(LONG) == 40 and len(LONG_ATTEMPT) == 63 and prefix[:23] == LONG[:23]
    batch = LongBatch()
    ports = Ports(batch)
    config = {"batch_queues": [QUEUE], "training_job_prefixes": [prefix], "rules": {"StalledTraining": ["stoptraining"]}}
    # When a rule's finding on it arrives
    result = acted(training_event(job=LONG_ATTEMPT, debug=[rule_status("StalledTraining", job=LONG_ATTEMPT)]), config,
                   ports)
    # Then its request is read (DescribeServiceJob) and the whole requested name decides
    assert ("DescribeServiceJob", SERVICE_JOB_ID) in batch.calls
    if matched:
        assert "ignored" not in result and [r["outcome"] for r in rows(result, "stoptraining")] == ["done"]
    else:
        assert "training_job_prefixes" in result["ignored"] and LONG in result["ignored"]
        assert not [c for c in batch.calls if c[0] == "TerminateServiceJob"]


def test_a_prefix_the_kept_name_decides_reads_nothing():
    batch = LongBatch()
    ports = Ports(batch)
    for prefix in ("llm-pretrain", "sft-"):  # covered, or not, by the kept 23 characters alone
        acted(training_event(job=LONG_ATTEMPT, status="Completed", secondary="Completed"),
              {"batch_queues": [QUEUE], "training_job_prefixes": [prefix], "job_outcomes": {"Completed": ["notify"]}},
              ports)
    assert not [c for c in batch.calls if c[0] == "DescribeServiceJob"]
