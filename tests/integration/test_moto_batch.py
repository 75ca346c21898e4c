"""AWS Batch's service jobs in the embedded account (rule_actions_cli.emulator.batch: moto 5.2.5 has none of their
calls), through boto3 in-process: every raw answer is botocore's `batch` output shape (no member it lacks, each of
its type, required ones present, enums respected), the requests are valid input, the answers say what AWS Batch
says (a queue named or given by ARN, RUNNING jobs listed by default, newest first, paged), and TerminateServiceJob
terminates the job with its reason and stops its attempt's training job in moto's SageMaker; the function's adapter
(effects/batch.py) and the naming helpers (jobs/batch_facts.py) read what the emulator made."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.exceptions import ClientError
from botocore.validate import ParamValidator
from moto import mock_aws
from moto.server import ThreadedMotoServer
from shapes import conforms

from rule_actions.effects import client as function_client
from rule_actions.effects.batch import BatchServiceJobs
from rule_actions.jobs import batch_facts
from rule_actions_cli.emulator import batch as moto_batch
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

MODEL = botocore.session.get_session().get_service_model("batch")
REGION, ACCOUNT = "us-east-1", "123456789012"
QUEUE = "gpu-training"
QUEUE_ARN = f"arn:aws:batch:{REGION}:{ACCOUNT}:job-queue/{QUEUE}"
class Batch:
    """A boto3 Batch client whose raw answers are kept, by operation, and each request checked against the model."""

    def __init__(self) -> None:
        self.client = boto3.client("batch", region_name=REGION)
        self.raw: dict[str, list[Any]] = {}
        self.client.meta.events.register("before-parse.batch.*", self._keep)
        self.client.meta.events.register("before-call.batch.*", self._check)

    def _keep(self, operation_model: Any, response_dict: dict[str, Any], **_: Any) -> None:
        body = response_dict["body"]
        self.raw.setdefault(operation_model.name, []).append(json.loads(body) if body else {})

    def _check(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        request = json.loads(params["body"]) if params.get("body") else {}
        report = ParamValidator().validate(request, model.input_shape)
        assert not report.has_errors(), report.generate_report()


def payload(name: str = "llm-pretrain", **more: Any) -> str:
    """A SageMaker training request as the SDK queues it (json.dumps of CreateTrainingJob's arguments)."""
    return json.dumps({
        "TrainingJobName": name, "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/SageMakerRole",
        "AlgorithmSpecification": {"TrainingImage": "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch:2.5",
                                   "TrainingInputMode": "File"},
        "OutputDataConfig": {"S3OutputPath": "s3://ml-output/llm"},
        "ResourceConfig": {"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2, "VolumeSizeInGB": 500},
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
        "Tags": [{"Key": "team", "Value": "llm"}], **more})


@pytest.fixture
def batch() -> Iterator[Batch]:
    moto_batch.install()
    moto_sagemaker.install()
    with mock_aws():
        yield Batch()


def submit(batch: Batch, name: str = "llm-pretrain-job", queue: str = QUEUE, **more: Any) -> str:
    request = {"jobName": name, "jobQueue": queue, "serviceJobType": "SAGEMAKER_TRAINING",
               "serviceRequestPayload": payload(), "retryStrategy": {"attempts": 3},
               "timeoutConfig": {"attemptDurationSeconds": 86400}, "tags": {"project": "llm"}}
    answer = batch.client.submit_service_job(**{**request, **more})
    job_id: str = answer["jobId"]
    return job_id


def training_job(name: str) -> dict[str, Any]:
    found: dict[str, Any] = boto3.client("sagemaker", region_name=REGION).describe_training_job(TrainingJobName=name)
    return found


def test_every_answer_is_botocore_s_output_shape(batch):
    # Given a job submitted, an attempt started, preempted and requeued, a second attempt, and the job terminated
    job_id = submit(batch, shareIdentifier="llm", schedulingPriority=10,
                    preemptionConfiguration={"preemptionRetriesBeforeTermination": 3})
    batch.client.describe_service_job(jobId=job_id)  # SUBMITTED: no attempt, not started
    moto_batch.start_attempt(job_id)
    moto_batch.put_service_job(job_id, "RUNNING")
    moto_batch.put_service_job(job_id, "RUNNABLE", preempted=True, attempt_reason="Preempted by AWS Batch")
    moto_batch.start_attempt(job_id)
    batch.client.list_service_jobs(jobQueue=QUEUE, jobStatus="SCHEDULED")
    batch.client.describe_service_job(jobId=job_id)

    # When it is terminated, and described and listed afterwards
    batch.client.terminate_service_job(jobId=job_id, reason="rule-actions: StalledTraining")
    batch.client.describe_service_job(jobId=job_id)
    batch.client.list_service_jobs(jobQueue=QUEUE, filters=[{"name": "JOB_NAME", "values": ["llm-*"]}])

    # Then every raw answer of the four calls is its operation's output shape, and each was seen
    assert set(batch.raw) == {"SubmitServiceJob", "DescribeServiceJob", "TerminateServiceJob", "ListServiceJobs"}
    for operation, answers in batch.raw.items():
        for answer in answers:
            assert conforms(answer, MODEL.operation_model(operation).output_shape, operation) == []
    # And the last description holds what AWS Batch's does: both attempts, the preemption, the termination
    described = batch.raw["DescribeServiceJob"][-1]
    assert {"attempts", "latestAttempt", "preemptionSummary", "retryStrategy", "timeoutConfig", "tags",
            "serviceRequestPayload", "isTerminated", "statusReason", "startedAt", "stoppedAt"} <= set(described)


def test_a_submitted_job_is_described_as_submitted_with_its_queue_s_arn_and_its_request_verbatim(batch):
    # Given a job submitted to a queue named by its name
    job_id = submit(batch)
    # When it is described
    job = batch.client.describe_service_job(jobId=job_id)
    # Then it is SUBMITTED in the queue's ARN, its ARN a service job's, with its request as given and no attempt
    assert (job["status"], job["jobQueue"], job["jobName"], job["isTerminated"]) == (
        "SUBMITTED", QUEUE_ARN, "llm-pretrain-job", False)
    assert job["jobArn"] == f"arn:aws:batch:{REGION}:{ACCOUNT}:service-job/{job_id}"
    assert batch_facts.job_id(job["jobArn"]) == job_id and batch_facts.queue_name(job["jobQueue"]) == QUEUE
    assert job["serviceRequestPayload"] == payload() and job["tags"] == {"project": "llm"}
    assert job["attempts"] == [] and "latestAttempt" not in job and job["retryStrategy"] == {"attempts": 3}


def test_refusals_are_client_exceptions(batch):
    # An unknown job, a payload that is not a training request, retries out of range, a reused client token
    job_id = submit(batch, clientToken="token-1")
    for call in (lambda: batch.client.describe_service_job(jobId="no-such-job"),
                 lambda: batch.client.terminate_service_job(jobId="no-such-job", reason="r"),
                 lambda: batch.client.submit_service_job(jobName="j", jobQueue=QUEUE, serviceJobType="SAGEMAKER_TRAINING",
                                                         serviceRequestPayload="{not json"),
                 lambda: submit(batch, retryStrategy={"attempts": 11}),
                 lambda: submit(batch, clientToken="token-1"),
                 lambda: batch.client.list_service_jobs(maxResults=101)):
        with pytest.raises(ClientError) as raised:
            call()
        assert raised.value.response["Error"]["Code"] == "ClientException"
    # But the same token with another request is another job
    assert submit(batch, name="other-job", clientToken="token-1") != job_id


def test_an_attempt_is_a_training_job_named_as_batch_names_it_and_linked_to_the_job(batch):
    # Given a job whose request names its training job llm-pretrain
    job_id = submit(batch)
    # When Batch starts its attempt
    name = moto_batch.start_attempt(job_id)
    job = batch.client.describe_service_job(jobId=job_id)
    # Then the training job is AWSBatch + the requested name + 32 hex, in SageMaker, running what the request asks
    assert name.startswith("AWSBatchllm-pretrain") and len(name) == len("AWSBatchllm-pretrain") + 32
    assert batch_facts.requested_name(name) == "llm-pretrain" and batch_facts.prefix_match(name, "llm-") is True
    described = training_job(name)
    assert described["TrainingJobStatus"] == "InProgress" and described["ResourceConfig"]["InstanceCount"] == 2
    tags = boto3.client("sagemaker", region_name=REGION).list_tags(ResourceArn=described["TrainingJobArn"])["Tags"]
    assert {tag["Key"]: tag["Value"] for tag in tags} == {"team": "llm", "project": "llm"}
    # And the job lists it as its attempt and its latest one, SCHEDULED
    assert job["status"] == "SCHEDULED"
    assert batch_facts.training_job_arns(job) == (described["TrainingJobArn"],)
    assert job["latestAttempt"]["serviceResourceId"] == {"name": "TrainingJobArn", "value": described["TrainingJobArn"]}


def test_a_long_requested_name_is_cut_to_fit_sagemaker_s_63_characters(batch):
    # Given a job whose request names a training job of 40 characters (the SDK's base name and timestamp)
    requested = "llm-pretrain-2026-11-24-08-00-00-303-abc"
    job_id = batch.client.submit_service_job(
        jobName="long", jobQueue=QUEUE, serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(requested))["jobId"]
    # When Batch starts its attempt
    name = moto_batch.start_attempt(job_id)
    # Then its training job's name is 63 characters (the cut ASSUMED in batch_facts), which SageMaker accepted
    assert len(name) == batch_facts.NAME_MAX and training_job(name)["TrainingJobName"] == name
    assert name == batch_facts.training_job_name(requested, name[-batch_facts.SUFFIX_LENGTH:])  # one naming, twice
    assert batch_facts.may_be_cut(name) and requested.startswith(batch_facts.requested_name(name) or "?")
    # And a timeline may name the attempt's training job itself
    given = batch_facts.training_job_name(requested, "0" * batch_facts.SUFFIX_LENGTH)
    assert moto_batch.start_attempt(job_id, name=given) == given and training_job(given)["TrainingJobName"] == given
    # And a prefix past the kept part cannot be judged from the name alone
    assert batch_facts.prefix_match(name, "llm-pretrain-2026-11-24-08") is None
    assert batch_facts.prefix_match(name, "llm-") is True and batch_facts.prefix_match(name, "cv-") is False


def test_terminate_fails_the_job_with_its_reason_and_stops_its_training_job(batch):
    # Given a job running its attempt
    job_id = submit(batch)
    name = moto_batch.start_attempt(job_id)
    moto_batch.put_service_job(job_id, "RUNNING")
    # When it is terminated through the function's adapter, with a reason naming the rule
    jobs = BatchServiceJobs(lambda: function_client("batch", REGION))
    answer = jobs.terminate(job_id, "rule-actions: StalledTraining stopped it (no log line for 30 min)")
    job = jobs.describe(job_id)
    # Then the job FAILED with that reason, terminated, and its training job is stopping in SageMaker
    assert answer == "terminated"
    assert (job["status"], job["statusReason"], job["isTerminated"]) == (
        "FAILED", "rule-actions: StalledTraining stopped it (no log line for 30 min)", True)
    assert job["attempts"][0]["stoppedAt"] == job["stoppedAt"] and batch_facts.ended(job)
    assert training_job(name)["TrainingJobStatus"] == "Stopping"
    # And terminating it again changes nothing, and is no error
    assert jobs.terminate(job_id, "again") == "terminated" and jobs.describe(job_id) == job
    # And an unknown job is an error the caller sees
    with pytest.raises(ClientError):
        jobs.terminate("no-such-job", "r")


def test_a_terminated_job_is_found_by_its_attempt_and_resubmitted_once_with_its_request_verbatim(batch):
    # Given a job whose attempt was terminated (as a stop through Batch leaves it)
    job_id = submit(batch, shareIdentifier="llm", schedulingPriority=10)
    name = moto_batch.start_attempt(job_id)
    moto_batch.put_service_job(job_id, "RUNNING")
    jobs = BatchServiceJobs(lambda: function_client("batch", REGION))
    jobs.terminate(job_id, "rule-actions: StalledTraining stopped it")
    arn = training_job(name)["TrainingJobArn"]
    # When the function looks for its service job by the attempt: not running, but found whatever its status
    assert jobs.running_job(arn, (QUEUE,)) is None
    found = jobs.job_of(arn, (QUEUE,))
    assert found is not None and found[1]["jobId"] == job_id
    old = jobs.describe(job_id)
    # And submits it again, twice (a repeated event), with the same clientToken
    request = {"jobName": "llm-pretrain-job-r1", "jobQueue": old["jobQueue"], "serviceJobType": old["serviceJobType"],
               "serviceRequestPayload": old["serviceRequestPayload"], "retryStrategy": old["retryStrategy"],
               "shareIdentifier": old["shareIdentifier"], "schedulingPriority": old["schedulingPriority"],
               "timeoutConfig": old["timeoutConfig"], "tags": {"rule-actions:attempt": "1"},
               "clientToken": "restart-of-" + job_id[:20]}
    first, second = jobs.submit(request), jobs.submit(request)
    # Then one job is submitted: the repeat is refused by Batch and read as the job submitted before
    assert first[0] == "submitted" and second == ("exists", first[1])
    listed = batch.client.list_service_jobs(jobQueue=QUEUE, filters=[{"name": "JOB_NAME", "values": ["llm-*"]}])
    assert sorted(j["jobName"] for j in listed["jobSummaryList"]) == ["llm-pretrain-job", "llm-pretrain-job-r1"]
    # And the new job holds the request verbatim (its checkpoint the same) in the same queue, its settings kept
    new = jobs.describe(first[1])
    assert new["serviceRequestPayload"] == old["serviceRequestPayload"] == payload()
    assert {k: new[k] for k in ("jobQueue", "retryStrategy", "shareIdentifier", "schedulingPriority",
                                 "timeoutConfig")} == {k: old[k] for k in ("jobQueue", "retryStrategy",
                                                                           "shareIdentifier", "schedulingPriority",
                                                                           "timeoutConfig")}
    assert new["status"] == "SUBMITTED" and new["tags"] == {"rule-actions:attempt": "1"}


def test_a_preempted_attempt_is_counted_stopped_and_its_job_requeued(batch):
    # Given a job running its first attempt
    job_id = submit(batch)
    first = moto_batch.start_attempt(job_id)
    moto_batch.put_service_job(job_id, "RUNNING")
    # When Batch preempts it and requeues the job, then starts a second attempt
    moto_batch.put_service_job(job_id, "RUNNABLE", preempted=True, attempt_reason="Preempted by AWS Batch")
    requeued = batch.client.describe_service_job(jobId=job_id)
    second = moto_batch.start_attempt(job_id)
    job = batch.client.describe_service_job(jobId=job_id)
    # Then the requeued job is RUNNABLE, preempted once, its first training job stopping
    assert requeued["status"] == "RUNNABLE" and batch_facts.preemptions(requeued) == 1
    assert training_job(first)["TrainingJobStatus"] == "Stopping"
    # And the job has two attempts, the first preempted, oldest first; the second a new training job
    found = batch_facts.attempts(job)
    assert [a.training_job_arn.rpartition("/")[2].lower() for a in found] == [first.lower(), second.lower()]
    assert [a.preempted for a in found] == [True, False] and found[0].status_reason == "Preempted by AWS Batch"
    assert first != second and training_job(second)["TrainingJobStatus"] == "InProgress"


def test_list_answers_running_jobs_by_default_newest_first_in_pages(batch):
    # Given three jobs in the queue (two running) and one in another queue
    ids = [submit(batch, name=f"job-{n}") for n in range(3)]
    other = submit(batch, name="job-other", queue=f"arn:aws:batch:{REGION}:{ACCOUNT}:job-queue/cpu")
    for job_id in (ids[0], ids[2], other):
        moto_batch.put_service_job(job_id, "RUNNING")

    def names(**request: Any) -> list[str]:
        return [job["jobName"] for job in batch.client.list_service_jobs(**request)["jobSummaryList"]]

    # When the queue is listed (by name, by ARN), by status, by name, and in pages of one
    # Then only RUNNING jobs without a status; the status asked otherwise; a JOB_NAME filter ignores the status
    assert names(jobQueue=QUEUE) == names(jobQueue=QUEUE_ARN) and set(names(jobQueue=QUEUE)) == {"job-0", "job-2"}
    assert names(jobQueue=QUEUE, jobStatus="SUBMITTED") == ["job-1"]
    assert set(names(jobQueue=QUEUE, filters=[{"name": "JOB_NAME", "values": ["JOB-*"]}])) == {
        "job-0", "job-1", "job-2"}
    first = batch.client.list_service_jobs(jobQueue=QUEUE, maxResults=1)
    rest = batch.client.list_service_jobs(jobQueue=QUEUE, maxResults=1, nextToken=first["nextToken"])
    assert len(first["jobSummaryList"]) == len(rest["jobSummaryList"]) == 1 and "nextToken" not in rest
    assert {first["jobSummaryList"][0]["jobId"], rest["jobSummaryList"][0]["jobId"]} == {ids[0], ids[2]}


def test_the_adapter_lists_a_queue_s_jobs_of_one_status_every_page(batch):
    # Given 105 RUNNABLE jobs in the queue (more than a page), one RUNNING, one RUNNABLE in another queue
    ids = [submit(batch, name=f"wait-{n}") for n in range(105)]
    for job_id in ids:
        moto_batch.put_service_job(job_id, "RUNNABLE", status_reason="CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY")
    moto_batch.put_service_job(submit(batch, name="runs"), "RUNNING")
    moto_batch.put_service_job(submit(batch, name="elsewhere", queue="cpu"), "RUNNABLE")
    # When the function's adapter lists the queue's RUNNABLE jobs
    listed = BatchServiceJobs(lambda: function_client("batch", REGION)).listed(QUEUE, "RUNNABLE")
    # Then every page of that queue and status, as summaries with their creation time and reason
    assert sorted(job["jobId"] for job in listed) == sorted(ids)
    assert all(isinstance(job["createdAt"], int) and job["statusReason"].startswith("CAPACITY:") for job in listed)


def test_a_plain_replay_s_job_is_seeded_from_its_events_and_never_moved_back(batch):
    # Given a job's events (no SubmitServiceJob: a plain replay's): RUNNING with two attempts, then a late RUNNABLE
    # of its first attempt, then its end, then a late RUNNING
    arn = f"arn:aws:batch:{REGION}:{ACCOUNT}:service-job/seeded-1"
    attempt = {"serviceResourceId": {"name": "TrainingJobArn", "value": "arn:aws:sagemaker:x"}, "startedAt": 1}
    base = {"jobArn": arn, "jobId": "seeded-1", "jobName": "llm", "jobQueue": QUEUE_ARN,
            "serviceJobType": "SAGEMAKER_TRAINING", "createdAt": 1, "startedAt": 1}
    running = {**base, "status": "RUNNING", "attempts": [attempt, attempt], "latestAttempt": attempt}
    assert moto_batch.seed_service_job(running, region=REGION) == []
    # When the late ones arrive
    moto_batch.seed_service_job({**base, "status": "RUNNABLE", "attempts": [attempt],
                                 "statusReason": "CAPACITY:X"}, region=REGION)
    seen = batch.client.describe_service_job(jobId="seeded-1")
    moto_batch.seed_service_job({**running, "status": "SUCCEEDED"}, region=REGION)
    moto_batch.seed_service_job(running, region=REGION)
    # Then the job kept the state it reached, each time; it holds what the events said and nothing more
    assert seen["status"] == "RUNNING" and "statusReason" not in seen
    assert moto_batch.service_job("seeded-1", region=REGION)["status"] == "SUCCEEDED"
    assert "serviceRequestPayload" not in seen and seen["tags"] == {}
    # And a listing finds it by its queue's name (a stop's ListServiceJobs)
    assert moto_batch.seed_service_job({**running, "jobId": "seeded-2", "jobArn": arn[:-1] + "2"},
                                       region=REGION) == []
    assert [j["jobId"] for j in batch.client.list_service_jobs(jobQueue=QUEUE)["jobSummaryList"]] == ["seeded-2"]
    # And an unusable event is a problem, nothing seeded
    [problem] = moto_batch.seed_service_job({**base, "jobId": "seeded-3", "status": "DONE"}, region=REGION)
    assert "DONE" in problem and "not seeded" in problem


def test_the_calls_are_answered_by_a_moto_server_of_this_process(monkeypatch):
    # Given moto server on a free port, installed before its first Batch request, the function's client pointed at it
    moto_batch.install()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
        for key, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing")):
            monkeypatch.setenv(key, value)
        made = function_client("batch", REGION)
        # When a job is submitted and terminated over HTTP
        job_id = made.submit_service_job(jobName="over-http", jobQueue=QUEUE, serviceJobType="SAGEMAKER_TRAINING",
                                         serviceRequestPayload=payload())["jobId"]
        answer = BatchServiceJobs(lambda: made).terminate(job_id, "rule-actions: Budget")
        # Then the adapter reads it back terminated
        assert answer == "terminated"
        assert BatchServiceJobs(lambda: made).describe(job_id)["statusReason"] == "rule-actions: Budget"
    finally:
        server.stop()
