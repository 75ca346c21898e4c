"""The job families besides training through the real handler against moto (with the calls moto lacks filled by
rule_actions_cli.emulator.sagemaker): each sample lifecycle delivered as the stack's rule would deliver it, the jobs
SageMaker holds seeded from the events; exactly once per (job, trigger, action) through SageMaker's duplicates,
Lambda's retries and concurrent invocations; the reads each event costs."""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest
from builders import ACCOUNT, EVENTS, REGION

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.handler import ActionsFailed
from rule_actions_cdk import plugins
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.matcher import matches
from rule_actions_cli.seeding import seeder

TEAM = "team@example.com"
FAMILIES_CONFIG = {
    "notify": {"emails": [TEAM]},
    "job_outcomes": {"Failed": ["notify"]},
    "tuning_job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"], "Completed": ["notify"]},
    "processing_job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"]},
    "pipeline_outcomes": {"Failed": ["notify"], "CompletedWithFailures": ["notify"]},
    "transform_job_outcomes": {"Failed": ["notify"]},
    "pipeline_step_jobs_alert": False,
}
READS = {"DescribeHyperParameterTuningJob", "ListTrainingJobsForHyperParameterTuningJob", "DescribeProcessingJob",
         "ListPipelineExecutionSteps", "DescribeTrainingJob", "DescribeTransformJob", "DescribePipelineExecution",
         "ListProcessingJobs", "ListTrainingJobs", "ListTransformJobs", "ListHyperParameterTuningJobs"}


def lifecycle(path: str) -> list[dict[str, Any]]:
    return json.loads((EVENTS / path).read_text())


def seed(raw: dict[str, Any]) -> None:
    """The job the event names, as SageMaker holds it at that moment (the embedded account's seeding)."""
    family = registry.job_family(raw)
    assert seeder(family)(family, raw["detail-type"], raw["detail"], {}, account_id=ACCOUNT, region=REGION) == []


def deliver(aws, path: str, config: dict[str, Any] = FAMILIES_CONFIG) -> list[tuple[dict[str, Any], dict[str, Any], list[str]]]:
    """Every event of a lifecycle, seeded; the ones the configuration's pattern matches sent to the handler:
    (event, result, the AWS calls the handler made for it)."""
    aws.configure(**config)
    pattern = plugins.event_pattern(Config.from_dict(config))
    delivered = []
    for raw in lifecycle(path):
        seed(raw)
        if matches(pattern, raw):
            before = len(aws.calls)
            result = aws.invoke(raw)
            delivered.append((raw, result, aws.calls[before:]))
    return delivered


def seeded_end(aws, path: str) -> dict[str, Any]:
    """The families' configuration, every event of the lifecycle seeded: its last event (the family's end)."""
    aws.configure(**FAMILIES_CONFIG)
    events = lifecycle(path)
    for raw in events:
        seed(raw)
    return events[-1]


def outcomes(delivered) -> list[tuple[str, str, str]]:
    return [(r["job"], a["kind"], a["outcome"]) for _, r, _ in delivered for a in r["actions"]]


@pytest.mark.parametrize(("path", "job", "family", "matched", "reads"), [
    # a tuning job's message says what it cost: its trials listed (every page) besides its failed ones' reasons,
    # each trial described once for its own instance type and billed time (3 trials, then 5)
    ("tuning/lifecycle-tuning-every-trial-failed.json", "xgb-churn-hpo-1124", "tuning", 3,
     {"ListTrainingJobsForHyperParameterTuningJob": 2, "DescribeHyperParameterTuningJob": 1,
      "DescribeTrainingJob": 3}),
    ("tuning/lifecycle-tuning-completed-best-trial.json", "bert-lr-hpo-1124", "tuning", 2,
     {"DescribeHyperParameterTuningJob": 1, "ListTrainingJobsForHyperParameterTuningJob": 1,
      "DescribeTrainingJob": 5}),
    ("processing/lifecycle-processing-failed-exit-message.json", "churn-preprocess-2026-11-24-11-15-02-118",
     "processing", 3, {}),
    ("processing/lifecycle-processing-internal-error.json", "feature-eng-2026-11-24-11-40-45-009", "processing", 2,
     {"DescribeProcessingJob": 1}),
    ("pipelines/lifecycle-pipeline-parallel-steps-failed.json", "churn-training-pipeline/k3j9x7a2b1c0", "pipeline", 2,
     {"ListPipelineExecutionSteps": 1, "DescribeTrainingJob": 2}),
    ("pipelines/lifecycle-pipeline-processing-step-exit-message.json", "churn-features-pipeline/p5m1z8q4w6e2",
     "pipeline", 2, {"ListPipelineExecutionSteps": 1, "DescribeProcessingJob": 2, "ListProcessingJobs": 1}),
    ("pipelines/lifecycle-pipeline-tuning-step-failed.json", "churn-hpo-pipeline/r8t2y6u4i0o3", "pipeline", 3,
     {"ListPipelineExecutionSteps": 1, "DescribeHyperParameterTuningJob": 1,
      "ListTrainingJobsForHyperParameterTuningJob": 1}),
    ("transform/lifecycle-transform-failed.json", "churn-batch-scoring-2026-11-24-13-05-11-402", "transform", 3, {}),
])
def test_a_lifecycle_notifies_once_reading_only_when_its_message_goes_out(aws, path, job, family, matched, reads):
    # Given every family's outcomes notifying the team; When a lifecycle is delivered as the rule delivers it
    delivered = deliver(aws, path)

    # Then only its end invokes the function (its trials, steps and step jobs never do), once per copy
    assert len(delivered) == matched and {r["job_family"] for _, r, _ in delivered} == {family}
    assert all(r["training_job"] is None for _, r, _ in delivered)
    # And the team is told once, the copies are duplicates
    assert outcomes(delivered) == [(job, "notify", "done")] + [(job, "notify", "duplicate")] * (matched - 1)
    [message] = aws.inbox(TEAM)
    assert message["subject"].startswith("[rule-actions] ") and job in message["subject"]
    # And what the message needs is read once, on the event whose message goes out, and on its copies only
    # as the plan asks before the ledger answers (the same reads again: duplicates cost no action call)
    first = Counter(call for call in delivered[0][2] if call in READS)
    assert first == Counter(reads)
    for _, _, calls in delivered[1:]:
        assert not {"Publish", "Subscribe"} & set(calls)


def test_a_failed_tuning_job_s_message_carries_its_trials_own_reasons(aws):
    deliver(aws, "tuning/lifecycle-tuning-every-trial-failed.json")
    [message] = aws.inbox(TEAM)
    body = message["email"]
    assert "Failed training jobs (3) and why, in their own words:" in body
    assert body.count("label must be in [0,1] for logistic regression") == 3
    assert "xgb-churn-hpo-1124-001-5f2c8e1a" in body and "xgb-churn-hpo-1124-003-0c7e4f62" in body
    assert message["sms"].startswith("rule-actions: tuning job failed: xgb-churn-hpo-1124: xgboost.core.XGBoostError")


def test_a_hundred_trial_tuning_job_sends_one_message(aws):
    # Given a tuning job whose 100 trials all fail, job_outcomes notifying every training job that fails
    config = {**FAMILIES_CONFIG, "job_outcomes": {"Failed": ["notify"]}}
    template = lifecycle("tuning/lifecycle-tuning-every-trial-failed.json")
    trial = next(e for e in template if e["detail"].get("TrainingJobStatus") == "Failed")
    tuning_end = template[-1]
    events = []
    for i in range(1, 101):
        raw = copy.deepcopy(trial)
        name = f"xgb-churn-hpo-1124-{i:03d}-{i:08x}"
        raw["id"] = f"00000000-0000-4000-8000-{i:012d}"
        raw["detail"]["TrainingJobName"] = name
        raw["detail"]["TrainingJobArn"] = raw["resources"][0] = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{name}"
        events.append(raw)
    final = copy.deepcopy(tuning_end)
    final["detail"]["TrainingJobStatusCounters"]["NonRetryableError"] = 100

    # When every trial's Failed event reaches the function (as if the rule had matched them), then the tuning job's
    aws.configure(**config)
    for raw in events:
        seed(raw)
        [skipped] = aws.invoke(raw)["actions"]  # said on its row, never sent
        assert (skipped["trigger"], skipped["kind"], skipped["outcome"]) == ("job:Failed", "notify", "skipped")
        assert skipped["reason"].startswith("a trial of tuning job xgb-churn-hpo-1124: its tuning job reports for it")
    seed(final)
    result = aws.invoke(final)

    # Then one message, naming five of the hundred
    assert [(a["kind"], a["outcome"]) for a in result["actions"]] == [("notify", "done")]
    [message] = aws.inbox(TEAM)
    assert "Failed training jobs (5 of 100)" in message["email"]
    assert not matches(plugins.event_pattern(Config.from_dict(config)), events[0])  # and the rule matches none


@pytest.mark.parametrize("path", ["pipelines/lifecycle-pipeline-parallel-steps-failed.json",
                                  "tuning/lifecycle-tuning-every-trial-failed.json",
                                  "transform/lifecycle-transform-failed.json"])
def test_a_failed_notification_is_retried_and_sent_once(aws, path):
    # Given SNS failing on the first delivery of the family's failure
    end = seeded_end(aws, path)
    failing = {"on": True}

    def fail_publish(**_):
        if failing["on"]:
            raise RuntimeError("SNS is down")

    aws.effects().notifier.client.meta.events.register("before-call.sns.Publish", fail_publish)

    # When it is delivered (the invocation fails: Lambda retries it), then retried, then delivered again
    with pytest.raises(ActionsFailed, match="job:Failed notify team"):
        aws.invoke(end)
    failing["on"] = False
    retried, again = aws.invoke(end), aws.invoke({**end, "id": "another-delivery"})

    # Then it was sent once
    assert [a["outcome"] for a in retried["actions"]] == ["done"]
    assert [a["outcome"] for a in again["actions"]] == ["duplicate"]
    assert len(aws.inbox(TEAM)) == 1


@pytest.mark.parametrize("path", ["pipelines/lifecycle-pipeline-parallel-steps-failed.json",
                                  "processing/lifecycle-processing-failed-exit-message.json",
                                  "tuning/lifecycle-tuning-every-trial-failed.json"])
def test_concurrent_deliveries_send_once(aws, path):
    end = seeded_end(aws, path)
    errors = aws.at_once(end)  # "in progress in a concurrent invocation": Lambda retries those

    assert len(aws.inbox(TEAM)) == 1
    assert all("in progress" in str(e) for e in errors)
    assert [a["outcome"] for a in aws.invoke(end)["actions"]] == ["duplicate"]


def test_a_step_s_job_that_cannot_be_described_is_named_and_the_message_goes(aws):
    # Given a failed execution whose steps name a training job SageMaker no longer knows
    aws.configure(**FAMILIES_CONFIG)
    events = lifecycle("pipelines/lifecycle-pipeline-parallel-steps-failed.json")
    for raw in events:
        if raw["detail"].get("TrainingJobName", "").endswith("lightgbm-z5x1c7v9b4"):
            continue  # never seeded: DescribeTrainingJob answers ValidationException
        seed(raw)
    result = aws.invoke(events[-1])
    assert [(a["kind"], a["outcome"]) for a in result["actions"]] == [("notify", "done")]
    body = aws.inbox(TEAM)[0]["email"]
    assert "Not read:   DescribeTrainingJob failed: ValidationException" in body
    assert "ValueError: could not convert string to float: 'Month-to-month'" in body


def test_unconfigured_outcomes_read_and_send_nothing(aws):
    # Given only training job outcomes: every other family is off
    config = {"notify": {"emails": [TEAM]}, "job_outcomes": {"Failed": ["notify"]}}
    aws.configure(**config)
    for path in ("tuning/lifecycle-tuning-every-trial-failed.json", "pipelines/lifecycle-pipeline-parallel-steps-failed.json",
                 "transform/lifecycle-transform-failed.json", "processing/lifecycle-processing-failed-exit-message.json"):
        raw = lifecycle(path)[-1]
        seed(raw)
        before = len(aws.calls)
        # When the end of each reaches the function anyway (no rule of this stack would send it)
        result = aws.invoke(raw)
        # Then nothing is planned, read or sent
        assert result["actions"] == [] and aws.calls[before:] == []
    assert aws.published == []


def test_malformed_events_of_every_family_are_reported_never_raised(aws):
    aws.configure(**FAMILIES_CONFIG)
    broken = []
    for path, member in (("tuning/lifecycle-tuning-every-trial-failed.json", "HyperParameterTuningJobStatus"),
                         ("processing/lifecycle-processing-internal-error.json", "ProcessingJobName"),
                         ("pipelines/lifecycle-pipeline-parallel-steps-failed.json", "pipelineExecutionArn"),
                         ("transform/lifecycle-transform-failed.json", "TransformJobArn")):
        raw = copy.deepcopy(lifecycle(path)[-1])
        raw["detail"][member] = ["not", "a", "string"]
        broken.append(raw)
    broken.append({**lifecycle("transform/lifecycle-transform-failed.json")[-1], "detail-type": "SageMaker Transform Job"})
    for raw in broken:
        result = aws.invoke(raw)
        assert result["actions"] == [] and result["ignored"]
    assert aws.published == []


def test_a_completed_tuning_job_names_the_best_trial_sagemaker_keeps(aws):
    # Given the completed lifecycle, whose tuning events name no best job (as SageMaker's do); When it is delivered
    deliver(aws, "tuning/lifecycle-tuning-completed-best-trial.json")

    # Then its one message names the best trial, read from the tuning job (the embedded account keeps the trial
    # that completed with the best eval:f1, as SageMaker does): before, it said "Best job: none"
    [message] = aws.inbox(TEAM)
    assert "Best job:       bert-lr-hpo-1124-004-e08a5c37 (eval:f1 = 0.8731)" in message["email"]
    assert "none (no training job reached its objective)" not in message["email"]


def test_a_processing_step_s_exit_message_is_its_cause_and_its_job_is_found_by_its_real_name(aws):
    # Given a processing step whose job (capitals in its name, lower-cased in every ARN) says only "See job logs"
    deliver(aws, "pipelines/lifecycle-pipeline-processing-step-exit-message.json")

    # Then the message names the job by its real name and gives the exit message's last line as the cause
    [message] = aws.inbox(TEAM)
    body = message["email"]
    assert "  - Preprocess (Processing)" in body
    assert "      Job:        pipelines-p5m1z8q4w6e2-Preprocess-h4k8s2d6f0" in body
    assert ("      Reason:     ValueError: could not convert string to float: ' '  (the job's exit message)") in body
    assert "      Job said:   AlgorithmError: See job logs for more information" in body
    assert "Not read" not in body
    assert message["sms"].startswith("rule-actions: pipeline execution failed: churn-features-pipeline/p5m1z8q4w6e2: "
                                     "Preprocess (Processing): ValueError")


def test_an_execution_that_failed_before_any_step_says_its_own_reason(aws):
    # Given an execution that failed before any step failed (its steps listed, none failed; its own FailureReason
    # only DescribePipelineExecution has)
    events = lifecycle("pipelines/lifecycle-pipeline-parallel-steps-failed.json")
    end = events[-1]
    aws.configure(**FAMILIES_CONFIG)
    seed(events[0])
    moto_sagemaker.put_pipeline_execution(end["detail"]["pipelineExecutionArn"], "Failed", account_id=ACCOUNT,
                                          region=REGION, failure_reason="ParameterValidation: InputData is no S3 URI")

    # When its Failed event reaches the function
    before = len(aws.calls)
    result = aws.invoke(end)

    # Then one message says the execution's own reason, read with one describe after the listing
    assert [(a["kind"], a["outcome"]) for a in result["actions"]] == [("notify", "done")]
    assert [c for c in aws.calls[before:] if c in READS] == ["ListPipelineExecutionSteps", "DescribePipelineExecution"]
    body = aws.inbox(TEAM)[0]["email"]
    assert "Failure reason:\n  ParameterValidation: InputData is no S3 URI" in body
    assert "Failed steps: none listed" in body


def test_a_step_job_this_stack_stopped_is_said_on_its_step(aws):
    # Given the parallel lifecycle, one of whose training jobs this stack stopped (the ledger's stop record)
    events = lifecycle("pipelines/lifecycle-pipeline-parallel-steps-failed.json")
    aws.configure(**FAMILIES_CONFIG)
    for raw in events:
        seed(raw)
    job = "pipelines-k3j9x7a2b1c0-train-xgboost-m3n8b2v6c0"
    aws.effects().ledger.mark_stopped(f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{job}",
                                      f"rule StalledTraining of {job}")

    # When the execution's Failed event reaches the function
    aws.invoke(events[-1])

    # Then that step says who stopped its job; the other step says nothing of a stop
    body = aws.inbox(TEAM)[0]["email"]
    assert body.count("Stopped by rule-actions:") == 1
    xgboost = body[body.index("  - train-xgboost"):body.index("  - train-lightgbm")]
    assert f"Stopped by rule-actions: rule StalledTraining of {job}" in xgboost
