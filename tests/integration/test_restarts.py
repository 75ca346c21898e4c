"""The restart action through the handler on moto: a job stopped for a finding is copied once it has Stopped, the
copy resuming from the same checkpoint prefix; the loop guard, the limits and the jobs that are never restarted;
duplicate and concurrent deliveries make one copy. The copy's request is checked against botocore's model."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.validate import ParamValidator
from builders import REGION, event, job_arn, monitor_event

from rule_actions.kinds.restart import COPIED, OWN_TAGS
from rule_actions_cli.emulator import s3 as moto_s3

JOB = "llm-pretrain-2026-11-24-08-00-00-303"
BUCKET = "ml-checkpoints"
CHECKPOINT = f"s3://{BUCKET}/llm/{JOB}"
CONFIG = {"rules": {"StalledTraining": ["stoptraining", "restart"]}, "restart_checkpoints": [f"s3://{BUCKET}/llm"]}
MODEL = botocore.session.get_session().get_service_model("sagemaker")
T0 = datetime(2026, 11, 24, 8, 0, tzinfo=UTC)


def create(name: str = JOB, checkpoint: str | None = CHECKPOINT, tags: dict[str, str] | None = None,
           **members: Any) -> dict[str, Any]:
    """A training job as a user's CreateTrainingJob makes it (InProgress, Starting, in the embedded account)."""
    request: dict[str, Any] = {
        "TrainingJobName": name,
        "AlgorithmSpecification": {"TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/llm@sha256:"
                                                    + "a" * 64, "TrainingInputMode": "File"},
        "RoleArn": "arn:aws:iam::123456789012:role/SageMakerTraining",
        "OutputDataConfig": {"S3OutputPath": f"s3://{BUCKET}/output"},
        "ResourceConfig": {"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2, "VolumeSizeInGB": 100},
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
        "Tags": [{"Key": k, "Value": v} for k, v in (tags or {"team": "llm"}).items()],
        **members,
    }
    if checkpoint:
        request["CheckpointConfig"] = {"S3Uri": checkpoint, "LocalPath": "/opt/ml/checkpoints"}
    boto3.client("sagemaker", region_name=REGION).create_training_job(**request)
    return request


def stopped(name: str = JOB, secondary: str = "Stopped", status: str = "Stopped", **detail: Any) -> dict[str, Any]:
    """The state change SageMaker sends when the job has ended (its status put in the embedded account first)."""
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker

    moto_sagemaker.put_training_job(name, status, secondary_status=secondary)
    raw = event(job=name, status=status, secondary=secondary)
    raw["detail"].update({"TrainingTimeInSeconds": 3000, **detail})
    return raw


def described(name: str) -> dict[str, Any]:
    return boto3.client("sagemaker", region_name=REGION).describe_training_job(TrainingJobName=name)


def tags(name: str) -> dict[str, str]:
    arn = job_arn(name)
    found = boto3.client("sagemaker", region_name=REGION).list_tags(ResourceArn=arn)["Tags"]
    return {t["Key"]: t["Value"] for t in found}


def restart_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in result["actions"] if a["kind"] == "restart"]


def names() -> list[str]:
    pages = boto3.client("sagemaker", region_name=REGION).get_paginator("list_training_jobs").paginate()
    return sorted(j["TrainingJobName"] for page in pages for j in page["TrainingJobSummaries"])


def test_a_hung_job_stopped_for_a_finding_is_restarted_once_from_its_checkpoint(aws):
    # Given a running job with a checkpoint written at 08:40, and a rule that stops and restarts it
    create()
    moto_s3.put_checkpoint(CHECKPOINT, T0 + timedelta(minutes=40))
    aws.configure(**CONFIG)
    # When the monitor rule's finding arrives
    found = aws.invoke(monitor_event("act", job=JOB))
    # Then the job is stopped and the restart is noted, to follow once it has stopped
    stop, restart = found["actions"][0], restart_rows(found)[0]
    assert (stop["kind"], stop["outcome"]) == ("stoptraining", "done")
    assert restart["outcome"] == "done"
    assert restart["reason"].startswith(f"will restart as {JOB}-r1 from its checkpoint of 2026-11-24 08:40 UTC")
    assert f"{JOB}-r1" not in names()  # nothing is created while the job stops
    # When the job has Stopped
    ended = aws.invoke(stopped(TrainingEndTime=str(int((T0 + timedelta(minutes=75)).timestamp() * 1000))))
    # Then one copy is made, resuming from the same checkpoint prefix, its row saying what was kept
    row = restart_rows(ended)[0]
    assert row["outcome"] == "done", row
    assert row["jobs"] == [f"{JOB}-r1"]
    assert "at most 35 min of work lost" in row["reason"]
    copy = described(f"{JOB}-r1")
    assert copy["TrainingJobStatus"] == "InProgress"
    assert copy["CheckpointConfig"]["S3Uri"] == CHECKPOINT
    assert copy["ResourceConfig"]["InstanceCount"] == 2
    assert tags(f"{JOB}-r1") == {"team": "llm", "rule-actions:chain": JOB, "rule-actions:attempt": "1",
                                 "rule-actions:restarted-from": JOB,
                                 "rule-actions:checkpoint-at": "2026-11-24T08:40:00Z",
                                 "rule-actions:chain-seconds": "3000"}
    # And the Stopped outcome alerts nobody a second time, and a redelivery makes no second copy
    again = aws.invoke(stopped())
    assert [a["outcome"] for a in restart_rows(again)] == ["duplicate"]
    assert names().count(f"{JOB}-r1") == 1


def test_concurrent_deliveries_of_the_stopped_event_make_one_copy(aws, atomic_requests):
    # Given a job this stack stopped, a restart asked at its stop
    create()
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    aws.configure(**CONFIG)
    aws.invoke(monitor_event("act", job=JOB))
    # When its Stopped event is delivered four times at once
    aws.at_once(stopped())
    # Then one copy exists
    assert [n for n in names() if n.startswith(f"{JOB}-r")] == [f"{JOB}-r1"]


def test_a_copy_that_wrote_no_newer_checkpoint_is_not_restarted_and_says_both_times(aws):
    # Given the first copy, started from the checkpoint of 08:40, that hangs again with nothing newer written
    create(f"{JOB}-r1", tags={"team": "llm", "rule-actions:chain": JOB, "rule-actions:attempt": "1",
                              "rule-actions:checkpoint-at": "2026-11-24T08:40:00Z"})
    moto_s3.put_checkpoint(CHECKPOINT, T0 + timedelta(minutes=40))
    aws.configure(**CONFIG)
    # When the finding arrives
    found = aws.invoke(monitor_event("act", job=f"{JOB}-r1"))
    # Then it is stopped, not restarted, the reason naming both times, once
    assert found["actions"][0]["outcome"] == "done"
    row = restart_rows(found)[0]
    assert row["outcome"] == "skipped"
    assert "no progress: attempt 1 wrote no checkpoint newer than the one it started from (2026-11-24 08:40 UTC" in \
        row["reason"]
    again = aws.invoke(monitor_event("act", job=f"{JOB}-r1"))
    assert [a["outcome"] for a in restart_rows(again)] == ["duplicate"]


@pytest.mark.parametrize(("setup", "why"), [
    ({"checkpoint": None}, "it has no CheckpointConfig.S3Uri"),
    ({"checkpoint": "s3://other-bucket/x"}, "is not under restart_checkpoints"),
])
def test_a_job_without_a_usable_checkpoint_is_stopped_not_restarted(aws, setup, why):
    create(**setup)
    aws.configure(**CONFIG)
    found = aws.invoke(monitor_event("act", job=JOB))
    assert found["actions"][0]["outcome"] == "done"
    assert why in restart_rows(found)[0]["reason"]
    assert restart_rows(found)[0]["outcome"] in ("skipped", "denied")


def test_a_trial_a_pipeline_step_and_a_batch_job_are_never_copied(aws):
    aws.configure(**CONFIG, job_outcomes={"MaxRuntimeExceeded": ["restart"]})
    trial = stopped("xgb-hpo-1124-003-7f3a9c1e", secondary="MaxRuntimeExceeded",
                    TuningJobArn=f"arn:aws:sagemaker:{REGION}:123456789012:hyper-parameter-tuning-job/xgb-hpo-1124")
    step = stopped("pipelines-k3j9x7a2b1c0-TrainModel-AbCdEfGhIj", secondary="MaxRuntimeExceeded",
                   Tags={"sagemaker:pipeline-execution-arn": f"arn:aws:sagemaker:{REGION}:123456789012:pipeline/churn/"
                                                            "execution/k3j9x7a2b1c0"})
    batch = stopped("AWSBatchllm-pretrain" + "0123456789abcdef" * 2, secondary="MaxRuntimeExceeded")
    reasons = [restart_rows(aws.invoke(raw)) for raw in (trial, step, batch)]
    said = [rows[0]["reason"] if rows else "(no row)" for rows in reasons]
    assert "its tuning job retries its trials" in said[0]
    assert "the pipeline retries its steps" in said[1]
    assert "Batch owns its retries" in said[2]
    assert not any(n.endswith("-r1") for n in names())
    assert "CreateTrainingJob" not in aws.calls


def test_max_runtime_exceeded_is_relaunched_where_configured_and_the_chain_is_bounded(aws):
    # Given a job with a checkpoint that ran out of time
    create(StoppingCondition={"MaxRuntimeInSeconds": 7200})
    moto_s3.put_checkpoint(CHECKPOINT, T0 + timedelta(hours=1, minutes=55))
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"MaxRuntimeExceeded": ["restart"]},
                  max_restarts=2)
    # When its MaxRuntimeExceeded outcome arrives
    result = aws.invoke(stopped(secondary="MaxRuntimeExceeded", TrainingTimeInSeconds=7200))
    # Then it is relaunched at once, the copy's run time what is left of (1 + 2) x 2 h
    assert restart_rows(result)[0]["outcome"] == "done"
    assert described(f"{JOB}-r1")["StoppingCondition"]["MaxRuntimeInSeconds"] == 7200
    assert "attempt 1 of at most 2" in restart_rows(result)[0]["reason"]


def test_a_failure_of_the_users_code_is_never_restarted_a_capacity_error_is(aws):
    create()
    create(f"{JOB}-b")
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"Failed": ["restart"]})
    own = aws.invoke(stopped(status="Failed", secondary="Failed",
                             FailureReason="AlgorithmError: ModuleNotFoundError: No module named 'flash_attn'"))
    assert restart_rows(own)[0]["outcome"] == "skipped"
    assert "a failure of the job's own code is never restarted" in restart_rows(own)[0]["reason"]
    capacity = aws.invoke(stopped(f"{JOB}-b", status="Failed", secondary="Failed",
                                  FailureReason="CapacityError: Unable to provision requested ML compute capacity."))
    assert restart_rows(capacity)[0]["outcome"] == "done", restart_rows(capacity)
    assert f"{JOB}-b-r1" in names()


def test_a_person_s_stop_is_never_undone(aws):
    create()
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    aws.configure(**CONFIG)
    result = aws.invoke(stopped())  # nobody in this stack stopped it
    assert restart_rows(result) == []
    assert f"{JOB}-r1" not in names()


def test_watch_mode_says_what_the_restart_would_do(aws):
    create()
    moto_s3.put_checkpoint(CHECKPOINT, T0 + timedelta(minutes=40))
    aws.configure(**CONFIG)
    found = aws.invoke(monitor_event("watch", job=JOB))
    row = restart_rows(found)[0]
    assert row["outcome"] == "watched"
    assert f"would restart as {JOB}-r1 from its checkpoint of 2026-11-24 08:40 UTC" in row["reason"]


def test_the_copy_s_request_is_valid_for_botocore_and_has_no_read_only_member(aws):
    # Given a job with tags, a VPC, instance groups, spot and a warm pool, stopped for MaxWaitTimeExceeded
    create(tags={"team": "llm", "aws:cloudformation:stack-name": "x"},
           ResourceConfig={"InstanceGroups": [{"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2,
                                               "InstanceGroupName": "gpus"}], "VolumeSizeInGB": 100,
                           "KeepAlivePeriodInSeconds": 1800},
           VpcConfig={"SecurityGroupIds": ["sg-0abc"], "Subnets": ["subnet-0abc"]},
           EnableManagedSpotTraining=True,
           StoppingCondition={"MaxRuntimeInSeconds": 7200, "MaxWaitTimeInSeconds": 10800},
           RetryStrategy={"MaximumRetryAttempts": 2}, Environment={"NCCL_DEBUG": "INFO"},
           ExperimentConfig={"ExperimentName": "llm", "RunName": "run-1"})
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    calls: list[dict[str, Any]] = []
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"MaxWaitTimeExceeded": ["restart"]})
    aws.effects().jobs.client.meta.events.register(
        "provide-client-params.sagemaker.CreateTrainingJob", lambda params, **_: calls.append(dict(params)))
    # When it is relaunched
    result = aws.invoke(stopped(secondary="MaxWaitTimeExceeded"))
    assert restart_rows(result)[0]["outcome"] == "done", restart_rows(result)
    # Then its request is valid input of CreateTrainingJob, made only of members Create takes and Describe returns
    request = calls[0]
    shape = MODEL.operation_model("CreateTrainingJob").input_shape
    report = ParamValidator().validate(request, shape)
    assert not report.has_errors(), report.generate_report()
    assert set(request) <= {*COPIED, "TrainingJobName", "Tags"}
    assert "SelectedInstanceType" not in request["ResourceConfig"]
    assert "RunName" not in request["ExperimentConfig"]
    keys = {t["Key"] for t in request["Tags"]}
    assert not any(k.startswith("aws:") for k in keys) and set(OWN_TAGS) <= keys
    assert request["VpcConfig"] == {"SecurityGroupIds": ["sg-0abc"], "Subnets": ["subnet-0abc"]}
    assert request["EnableManagedSpotTraining"] is True
    reason = restart_rows(result)[0]["reason"]
    assert "the copy is a spot job again" in reason and "warm pool" in reason


def test_a_name_of_63_characters_gives_a_copy_name_of_63_characters_the_same_each_time(aws):
    name = "a" * 30 + "-" + "b" * 32  # 63
    create(name, checkpoint=f"s3://{BUCKET}/llm/{name}")
    moto_s3.put_checkpoint(f"s3://{BUCKET}/llm/{name}", T0)
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"MaxRuntimeExceeded": ["restart"]})
    row = restart_rows(aws.invoke(stopped(name, secondary="MaxRuntimeExceeded")))[0]
    assert row["outcome"] == "done", row
    assert len(row["jobs"][0]) == 63 and row["jobs"][0].endswith("-r1")
    assert row["jobs"][0] in names()


# ---------------------------------------------------------------- warm pools


def pooled_finding(**extra: Any) -> dict[str, Any]:
    raw = monitor_event("act", job=JOB)
    raw["detail"]["ResourceConfig"] = {"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2, "VolumeSizeInGB": 100,
                                       "KeepAlivePeriodInSeconds": 1800}
    return raw


def keep_alive(name: str) -> int:
    return described(name)["ResourceConfig"].get("KeepAlivePeriodInSeconds", 0)


def test_a_stop_not_followed_by_a_restart_releases_the_job_s_warm_pool_once_it_has_stopped(aws):
    # Given a job that keeps a warm pool, and a rule that only stops
    create(ResourceConfig={"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2, "VolumeSizeInGB": 100,
                           "KeepAlivePeriodInSeconds": 1800})
    aws.configure(rules={"StalledTraining": ["stoptraining"]})
    # When it is stopped for a finding, then its Stopped event (carrying its resources) arrives
    found = aws.invoke(pooled_finding())
    assert "its warm pool (kept 30 min) is released once it has stopped" in found["actions"][0]["reason"]
    assert keep_alive(JOB) == 1800
    ended = aws.invoke(stopped(ResourceConfig={"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2,
                                               "KeepAlivePeriodInSeconds": 1800}))
    # Then the pool is released (KeepAlivePeriodInSeconds 0), said on its own row, once
    row = next(a for a in ended["actions"] if a["kind"] == "release_warm_pool")
    assert row["outcome"] == "done" and "released its warm pool (kept 30 min after the job ended)" in row["reason"]
    assert keep_alive(JOB) == 0
    again = aws.invoke(stopped(ResourceConfig={"KeepAlivePeriodInSeconds": 1800}))
    assert [a["outcome"] for a in again["actions"] if a["kind"] == "release_warm_pool"] == ["duplicate"]


def test_a_restart_keeps_the_pool_for_its_copy(aws):
    create(ResourceConfig={"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2, "VolumeSizeInGB": 100,
                           "KeepAlivePeriodInSeconds": 1800})
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    aws.configure(**CONFIG)
    aws.invoke(pooled_finding())
    ended = aws.invoke(stopped(ResourceConfig={"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 2,
                                               "KeepAlivePeriodInSeconds": 1800}))
    kinds = [(a["kind"], a["outcome"]) for a in ended["actions"]]
    assert kinds == [("restart", "done"), ("release_warm_pool", "skipped")]
    assert f"kept for {JOB}-r1, the restart's copy" in ended["actions"][1]["reason"]
    assert "may be reused by the copy" in ended["actions"][0]["reason"]
    assert keep_alive(JOB) == 1800


def test_with_release_warm_pools_false_the_stop_says_the_pool_stays_billed(aws):
    create()
    aws.configure(rules={"StalledTraining": ["stoptraining"]}, release_warm_pools=False)
    found = aws.invoke(pooled_finding())
    assert "its warm pool stays billed for up to 30 min after it stops (release_warm_pools is false)" in \
        found["actions"][0]["reason"]


# ---------------------------------------------------------------- the edges


def test_the_loop_guard_lists_the_job_s_own_prefix_not_a_sibling_s(aws):
    # Given the copy of job-1 whose checkpoint folder has nothing newer, and job-10 beside it writing newer ones
    create(f"{JOB}-r1", checkpoint=f"s3://{BUCKET}/llm/job-1",
           tags={"rule-actions:chain": JOB, "rule-actions:attempt": "1",
                 "rule-actions:checkpoint-at": "2026-11-24T08:40:00Z"})
    moto_s3.put_checkpoint(f"s3://{BUCKET}/llm/job-1", T0 + timedelta(minutes=40))
    moto_s3.put_checkpoint(f"s3://{BUCKET}/llm/job-10", T0 + timedelta(hours=3))
    aws.configure(**CONFIG)
    row = restart_rows(aws.invoke(monitor_event("act", job=f"{JOB}-r1")))[0]
    assert row["outcome"] == "skipped" and "no progress" in row["reason"]


def test_a_capacity_error_at_start_is_relaunched_with_nothing_in_its_checkpoint_yet(aws):
    create()
    boto3.client("s3", region_name=REGION).create_bucket(Bucket=BUCKET)
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"Failed": ["restart"]})
    row = restart_rows(aws.invoke(stopped(status="Failed", secondary="Failed",
                                          FailureReason="CapacityError: Unable to provision requested ML compute "
                                                        "capacity. Please retry using a different ML instance type.")))[0]
    assert row["outcome"] == "done", row
    assert f"restarted as {JOB}-r1 from scratch (nothing in its checkpoint yet" in row["reason"]


def test_restarts_are_refused_in_organization_mode_and_outside_training_job_outcomes():
    from rule_actions.config import Config, ConfigError

    with pytest.raises(ConfigError, match="restart is not available in organization mode yet"):
        Config.from_dict({**CONFIG, "organization": {"org_id": "o-a1b2c3d4e5", "accounts": ["111122223333"],
                                                     "central_account": "123456789012", "central_region": REGION}})
    with pytest.raises(ConfigError, match="restart relaunches training jobs"):
        Config.from_dict({"restart_checkpoints": [f"s3://{BUCKET}/llm"],
                          "processing_job_outcomes": {"Failed": ["restart"]}})


def test_the_stopped_outcome_s_own_message_tells_what_became_of_the_restart(aws):
    # Given a rule that stops and restarts, and job_outcomes.Stopped that tells the team
    create()
    moto_s3.put_checkpoint(CHECKPOINT, T0 + timedelta(minutes=40))
    aws.configure(**CONFIG, notify={"emails": ["ml@example.com"]}, job_outcomes={"Stopped": ["notify"]})
    aws.invoke(monitor_event("act", job=JOB))
    # When the job has Stopped
    ended = aws.invoke(stopped())
    # Then the restart is made first, and the outcome's message (news: the copy) goes out, saying what was kept
    assert [(a["kind"], a["outcome"]) for a in ended["actions"]] == [("restart", "done"), ("notify", "done")]
    message = aws.inbox("ml@example.com")[-1]
    assert message["subject"].endswith(f"training job restarted: {JOB}")
    body = message["default"] if "default" in message else json.dumps(message)
    assert "was stopped by this stack, for a rule's finding" in body
    assert f"restarted as {JOB}-r1 from its checkpoint of 2026-11-24 08:40 UTC" in body
    # And its text message names the copy, before its cost when that is known (docs/restarts.md)
    assert re.fullmatch(rf"rule-actions: training job stopped: {JOB}; restarted as {JOB}-r1(; cost \$[0-9.,]+)?",
                        message["sms"]), message["sms"]


def test_a_plain_stop_s_outcome_alerts_no_second_time(aws):
    create()
    aws.configure(rules={"StalledTraining": ["stoptraining"]}, job_outcomes={"Stopped": ["notify"]},
                  notify={"emails": ["ml@example.com"]})
    aws.invoke(monitor_event("act", job=JOB))
    ended = aws.invoke(stopped())
    assert [(a["kind"], a["outcome"]) for a in ended["actions"]] == [("notify", "skipped")]


def test_chain_tags_on_a_job_of_another_name_are_not_trusted(aws):
    # Given a first job tagged by hand as if it were attempt 3 of another team's chain
    create(tags={"rule-actions:chain": "other-team-job", "rule-actions:attempt": "3",
                 "rule-actions:checkpoint-at": "2030-01-01T00:00:00Z"})
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"MaxRuntimeExceeded": ["restart"]},
                  max_restarts=3)
    # When it runs out of time
    row = restart_rows(aws.invoke(stopped(secondary="MaxRuntimeExceeded")))[0]
    # Then it is a first job: its own copy, attempt 1, neither the other chain's name nor its limits or mark
    assert row["outcome"] == "done" and row["jobs"] == [f"{JOB}-r1"], row
    assert tags(f"{JOB}-r1")["rule-actions:chain"] == JOB


def test_a_job_of_the_copy_s_name_that_is_no_copy_fails_the_restart(aws):
    # Given a job already named as the copy would be, not made by a restart of this job
    create()
    create(f"{JOB}-r1", tags={"team": "squatter"})
    moto_s3.put_checkpoint(CHECKPOINT, T0)
    aws.configure(restart_checkpoints=[f"s3://{BUCKET}/llm"], job_outcomes={"MaxRuntimeExceeded": ["restart"]})
    # When the job runs out of time
    from rule_actions.handler import ActionsFailed

    with pytest.raises(ActionsFailed) as failed:
        aws.invoke(stopped(secondary="MaxRuntimeExceeded"))
    # Then the restart fails, naming the job in the way (Lambda retries; nothing is reported as restarted)
    row = restart_rows(failed.value.result)[0]
    assert row["outcome"] == "failed" and f"a job named {JOB}-r1 exists and is no copy of {JOB}" in row["reason"]
