"""`stop` on every job family, through the real handler against moto: a monitor rule's finding on a processing,
transform or tuning job or a pipeline execution (the state change a scheduled evaluation hands over) stops that job
once; a trial's stop may name its tuning job, a step job's its pipeline execution; every refusal is on its row."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.emulator.sagemaker import _backend

ACCOUNT, REGION = "123456789012", "us-east-1"
PIPELINE = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:pipeline/churn-pipeline"
EXECUTION = f"{PIPELINE}/execution/a1b2c3d4e5f6"
TUNING_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:hyper-parameter-tuning-job/churn-hpo"
FAMILIES = {  # detail-type, name member, ARN member, status member, running status, resource
    "processing": ("SageMaker Processing Job State Change", "ProcessingJobName", "ProcessingJobArn",
                   "ProcessingJobStatus", "InProgress", "processing-job"),
    "transform": ("SageMaker Transform Job State Change", "TransformJobName", "TransformJobArn", "TransformJobStatus",
                  "InProgress", "transform-job"),
    "tuning": ("SageMaker HyperParameter Tuning Job State Change", "HyperParameterTuningJobName",
               "HyperParameterTuningJobArn", "HyperParameterTuningJobStatus", "InProgress",
               "hyper-parameter-tuning-job"),
    "training": ("SageMaker Training Job State Change", "TrainingJobName", "TrainingJobArn", "TrainingJobStatus",
                 "InProgress", "training-job"),
}


def finding(family: str, name: str, status: str | None = None, rule: str = "StalledJob", mode: str = "act",
            action_json: Any = None, **detail: Any) -> dict[str, Any]:
    """A monitor rule's IssuesFound on a job of `family`, as the scheduled evaluation hands it over."""
    parameters = {"rule_to_invoke": rule, "mode": mode}
    if action_json is not None:
        parameters["action_json"] = json.dumps(action_json)
    if family == "pipeline":
        body = {"pipelineArn": PIPELINE, "pipelineExecutionArn": name,
                "currentPipelineExecutionStatus": status or "Executing"}
        detail_type = "SageMaker Model Building Pipeline Execution Status Change"
    else:
        detail_type, member, arn, status_member, running, resource = FAMILIES[family]
        body = {member: name, arn: f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:{resource}/{name.lower()}",
                status_member: status or running}
    body |= {"MonitorRuleEvaluationStatuses": [{"RuleConfigurationName": rule, "RuleEvaluationStatus": "IssuesFound",
                                                "StatusDetails": f"{rule} holds"}],
             "MonitorRuleConfigurations": [{"RuleConfigurationName": rule, "RuleParameters": parameters}], **detail}
    return {"version": "0", "id": f"evaluation-{family}-{name[-12:]}", "detail-type": detail_type,
            "source": "aws.sagemaker", "account": ACCOUNT, "time": "2026-11-25T10:00:00Z", "region": REGION,
            "resources": [], "detail": body}


def rows(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(a["kind"], a["target"], a["outcome"], a["reason"]) for a in result["actions"] if a["kind"] != "notify"]


def status(family: str, name: str) -> str:
    backend = _backend(ACCOUNT, REGION)
    if family == "pipeline":
        return moto_sagemaker._executions(backend)[name]["status"]
    jobs = {"processing": backend.processing_jobs, "transform": backend.transform_jobs,
            "tuning": backend.hyper_parameter_tuning_jobs, "training": backend.training_jobs}[family]
    job = jobs[name]
    return getattr(job, {"processing": "processing_job_status", "transform": "transform_job_status",
                         "tuning": "hyper_parameter_tuning_job_status", "training": "training_job_status"}[family])


def seed(family: str, name: str, state: str = "InProgress") -> None:
    put = {"processing": moto_sagemaker.put_processing_job, "transform": moto_sagemaker.put_transform_job,
           "tuning": moto_sagemaker.put_tuning_job, "training": moto_sagemaker.put_training_job,
           "pipeline": moto_sagemaker.put_pipeline_execution}[family]
    put(name, "Executing" if family == "pipeline" and state == "InProgress" else state)


NAMES = {"processing": "churn-preprocess-001", "transform": "churn-batch-001", "tuning": "churn-hpo",
         "pipeline": EXECUTION}


@pytest.mark.parametrize("family", list(NAMES))
def test_a_finding_stops_the_job_of_every_family_once(aws, family):
    # Given a running job of the family and a rule whose finding stops it
    aws.configure(rules={"StalledJob": ["stop"]})
    name = NAMES[family]
    seed(family, name)
    # When the finding arrives, and again (the next run finds it still)
    first = aws.invoke(finding(family, name))
    again = aws.invoke(finding(family, name))
    # Then the job is stopped through its family's own call, once; the second time is a duplicate
    shown = "churn-pipeline/a1b2c3d4e5f6" if family == "pipeline" else name
    [(kind, target, outcome, reason)] = rows(first)
    assert (kind, target, outcome) == ("stop", shown, "done"), reason
    assert reason.startswith(f"stopped {shown}")
    # and its row says what SageMaker does then, for its family (docs/attaching-actions.md "What SageMaker does then")
    said = {"processing": None, "transform": "SageMaker stores no output of a stopped transform job",
            "tuning": "SageMaker stops its running trials too, and launches no more",
            "pipeline": "does not interrupt a running Callback or Lambda step"}[family]
    assert said is None or said in reason, reason
    assert status(family, name) == "Stopping"
    assert [r[2] for r in rows(again)] == ["duplicate"]
    call = {"processing": "StopProcessingJob", "transform": "StopTransformJob",
            "tuning": "StopHyperParameterTuningJob", "pipeline": "StopPipelineExecution"}[family]
    assert aws.calls.count(call) == 1


def test_a_pipeline_execution_s_stop_says_what_a_callback_or_lambda_step_does(aws):
    aws.configure(rules={"StalledJob": ["stop"]})
    seed("pipeline", EXECUTION)
    [(_, _, outcome, reason)] = rows(aws.invoke(finding("pipeline", EXECUTION)))
    assert outcome == "done" and "does not interrupt a running Callback or Lambda step" in reason


@pytest.mark.parametrize("family", list(NAMES))
def test_a_job_that_is_not_running_is_not_stopped(aws, family):
    # Given a job the event shows Completed (Succeeded for a pipeline execution)
    aws.configure(rules={"StalledJob": ["stop"]})
    name = NAMES[family]
    ended = "Succeeded" if family == "pipeline" else "Completed"
    seed(family, name, ended)
    # When a finding on it arrives
    [(kind, _, outcome, reason)] = rows(aws.invoke(finding(family, name, status=ended)))
    # Then the stop is skipped on its row, saying why, and nothing is called
    assert (kind, outcome) == ("stop", "skipped") and f"is {ended}; only a" in reason
    assert not [c for c in aws.calls if c.startswith("Stop")]


@pytest.mark.parametrize("family", list(NAMES))
def test_a_job_outside_the_stack_s_scope_is_not_stopped(aws, family):
    # Given a configuration that acts only on other names
    key = {"processing": "processing_job_prefixes", "transform": "transform_job_prefixes",
           "tuning": "tuning_job_prefixes", "pipeline": "pipeline_prefixes"}[family]
    aws.configure(rules={"StalledJob": ["stop"]}, **{key: ["fraud-"]})
    name = NAMES[family]
    seed(family, name)
    # When a finding on one of its jobs arrives anyway (the evaluation keeps to the scope; a replay may not)
    result = aws.invoke(finding(family, name))
    # Then nothing is stopped: the event's row says it is out of scope, naming the key
    assert rows(result) == [] and key in result["ignored"], result
    assert status(family, name) in ("InProgress", "Executing")
    assert not [c for c in aws.calls if c.startswith("Stop")]


@pytest.mark.parametrize(("owner", "key"), [("tuning_job", "tuning_job_prefixes"),
                                            ("pipeline_execution", "pipeline_prefixes")])
def test_an_owner_outside_its_family_s_scope_is_not_stopped(aws, owner, key):
    # Given a job in scope whose tuning job or pipeline execution is not
    aws.configure(rules={"StalledJob": [{"name": "stop", "job": owner}]}, **{key: ["fraud-"]})
    arn = moto_sagemaker.put_tuning_job("churn-hpo", "InProgress")
    seed("pipeline", EXECUTION)
    moto_sagemaker.put_training_job("churn-hpo-001-0a1b2c3d", "InProgress", tuning_job_arn=arn)
    # When a finding on the job arrives
    result = aws.invoke(finding("training", "churn-hpo-001-0a1b2c3d", TuningJobArn=arn,
                                Tags={"sagemaker:pipeline-execution-arn": EXECUTION}))
    # Then the owner's stop is denied on its row, naming its family's prefixes
    [(kind, _, outcome, reason)] = rows(result)
    assert (kind, outcome) == ("stop", "denied") and f"outside the stack's scope ({key}: fraud-)" in reason
    assert status("tuning", "churn-hpo") == "InProgress" and status("pipeline", EXECUTION) == "Executing"


def test_stoptraining_refuses_another_family_s_job_and_names_stop(aws):
    aws.configure(rules={"StalledJob": ["stoptraining"]})
    seed("processing", NAMES["processing"])
    [(kind, _, outcome, reason)] = rows(aws.invoke(finding("processing", NAMES["processing"])))
    assert (kind, outcome) == ("stoptraining", "denied") and "use stop" in reason
    assert status("processing", NAMES["processing"]) == "InProgress"


def test_stop_on_a_training_job_keeps_its_phase_rules(aws):
    # Given a training job uploading its model, and one training
    aws.configure(rules={"StalledJob": ["stop"]})
    moto_sagemaker.put_training_job("upload-1", "InProgress", secondary_status="Uploading")
    moto_sagemaker.put_training_job("train-1", "InProgress")
    # When findings on both arrive
    uploading = rows(aws.invoke(finding("training", "upload-1", SecondaryStatus="Uploading")))
    training = rows(aws.invoke(finding("training", "train-1", SecondaryStatus="Training")))
    # Then only the training one is stopped
    assert [(k, o) for k, _, o, _ in uploading] == [("stop", "skipped")] and "could lose the model" in uploading[0][3]
    assert [(k, o) for k, _, o, _ in training] == [("stop", "done")]
    assert status("training", "train-1") == "Stopping" and status("training", "upload-1") == "InProgress"


def test_a_trial_s_stop_may_name_its_tuning_job_which_stops_its_running_trials(aws):
    # Given a tuning job with two running trials, and a rule that stops a trial's tuning job
    aws.configure(rules={"StalledJob": [{"name": "stop", "job": "tuning_job"}]})
    arn = moto_sagemaker.put_tuning_job("churn-hpo", "InProgress")
    for trial in ("churn-hpo-001-0a1b2c3d", "churn-hpo-002-0a1b2c3e"):
        moto_sagemaker.put_training_job(trial, "InProgress", tuning_job_arn=arn)
    # When a finding on the first trial arrives
    result = aws.invoke(finding("training", "churn-hpo-001-0a1b2c3d", TuningJobArn=arn))
    # Then the tuning job is stopped (its status read first), and SageMaker stops its running trials with it
    assert [(k, t, o) for k, t, o, _ in rows(result)] == [("stop", "churn-hpo", "done")]
    assert rows(result)[0][3].endswith("(SageMaker stops its running trials too, and launches no more)")
    assert "DescribeHyperParameterTuningJob" in aws.calls
    assert status("tuning", "churn-hpo") == "Stopping"
    assert status("training", "churn-hpo-002-0a1b2c3e") == "Stopping"


def test_a_job_without_a_tuning_job_has_no_tuning_job_to_stop(aws):
    aws.configure(rules={"StalledJob": [{"name": "stop", "job": "tuning_job"}]})
    moto_sagemaker.put_training_job("solo-1", "InProgress")
    [(kind, _, outcome, reason)] = rows(aws.invoke(finding("training", "solo-1")))
    assert (kind, outcome) == ("stop", "skipped") and "was not launched by a tuning job" in reason
    assert status("training", "solo-1") == "InProgress"


def test_a_step_job_s_stop_may_name_its_pipeline_execution(aws):
    # Given a processing job a pipeline step launched (its tag names the execution), the execution running
    aws.configure(rules={"StalledJob": [{"name": "stop", "job": "pipeline_execution"}]})
    seed("pipeline", EXECUTION)
    seed("processing", "pipelines-a1b2-Preprocess-x")
    # When a finding on the step's job arrives
    result = aws.invoke(finding("processing", "pipelines-a1b2-Preprocess-x",
                                Tags={"sagemaker:pipeline-execution-arn": EXECUTION}))
    # Then the execution is stopped (with a client request token), and the step's job is left to it
    assert [(k, t, o) for k, t, o, _ in rows(result)] == [("stop", "churn-pipeline/a1b2c3d4e5f6", "done")]
    assert status("pipeline", EXECUTION) == "Stopping"
    assert moto_sagemaker._executions(_backend(ACCOUNT, REGION))[EXECUTION]["token"]


def test_an_owner_named_only_by_a_job_s_own_actions_is_refused(aws):
    # Given a configuration that never names an owner, and a tag's actions that do
    aws.configure(rules={"StalledJob": ["notify"]})
    seed("pipeline", EXECUTION)
    seed("processing", "pipelines-a1b2-Preprocess-x")
    event = finding("processing", "pipelines-a1b2-Preprocess-x", action_json=[{"name": "stop",
                                                                              "job": "pipeline_execution"}],
                    Tags={"sagemaker:pipeline-execution-arn": EXECUTION})
    # When the finding arrives
    [(kind, _, outcome, reason)] = rows(aws.invoke(event))
    # Then the stack refuses (it grants no StopPipelineExecution), saying how to allow it
    assert (kind, outcome) == ("stop", "denied") and 'stop_owners: ["pipeline_execution"]' in reason
    assert status("pipeline", EXECUTION) == "Executing"


def test_stop_owners_lets_a_job_s_own_actions_name_its_pipeline_execution(aws):
    # Given a configuration that allows a job's own actions to stop its pipeline execution
    aws.configure(rules={"StalledJob": ["notify"]}, stop_owners=["pipeline_execution"])
    seed("pipeline", EXECUTION)
    seed("processing", "pipelines-a1b2-Preprocess-x")
    event = finding("processing", "pipelines-a1b2-Preprocess-x", action_json=[{"name": "stop",
                                                                              "job": "pipeline_execution"}],
                    Tags={"sagemaker:pipeline-execution-arn": EXECUTION})
    # When the finding arrives
    [(kind, target, outcome, _)] = rows(aws.invoke(event))
    # Then the execution is stopped
    assert (kind, target, outcome) == ("stop", "churn-pipeline/a1b2c3d4e5f6", "done")
    assert status("pipeline", EXECUTION) == "Stopping"


def test_an_unknown_owner_is_refused_naming_the_field(aws):
    aws.configure(rules={"StalledJob": ["notify"]})
    seed("processing", NAMES["processing"])
    result = aws.invoke(finding("processing", NAMES["processing"], action_json=[{"name": "stop", "job": "parent"}]))
    bad = [a for a in result["actions"] if a["outcome"] == "invalid"]
    assert bad and "action_json[0].job" in bad[0]["reason"] and "tuning_job, pipeline_execution" in bad[0]["reason"]


def test_the_stopped_outcome_of_a_job_this_stack_stopped_does_not_alert_again(aws):
    # Given a processing job this stack stopped, and Stopped outcomes that notify
    aws.configure(rules={"StalledJob": ["stop"]}, processing_job_outcomes={"Stopped": ["notify"]},
                  notify={"emails": ["team@example.com"]})
    name = NAMES["processing"]
    seed("processing", name)
    aws.invoke(finding("processing", name))
    # When its Stopped outcome arrives
    detail_type, member, arn, status_member, _, resource = FAMILIES["processing"]
    stopped = {"version": "0", "id": "stopped-1", "detail-type": detail_type, "source": "aws.sagemaker",
               "account": ACCOUNT, "time": "2026-11-25T10:05:00Z", "region": REGION, "resources": [],
               "detail": {member: name, arn: f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:{resource}/{name}",
                          status_member: "Stopped"}}
    result = aws.invoke(stopped)
    # Then its outcome says this stack stopped it instead of alerting a second time
    [row] = [a for a in result["actions"] if a["trigger"] == "job:Stopped"]
    assert row["outcome"] != "done" and "StalledJob" in row["reason"], row


LATE = {**NAMES, "training": "churn-train-001"}


@pytest.mark.parametrize("ended", ["Completed", "Stopped"])
@pytest.mark.parametrize("family", list(LATE))
def test_a_late_finding_about_a_job_that_has_ended_stops_nothing(aws, family, ended):
    # Given a job of the family that has ended (completed, or stopped by its owner), and a finding sent while it ran
    # that arrives only now (EventBridge keeps no order)
    aws.configure(rules={"StalledJob": ["stop"]})
    name = LATE[family]
    status_now = "Succeeded" if family == "pipeline" and ended == "Completed" else ended
    seed(family, name, status_now)
    # When the finding arrives, and again
    first, again = aws.invoke(finding(family, name)), aws.invoke(finding(family, name))
    # Then the stop is skipped, naming the status the job has (its live one) and when; said once; nothing is
    # stopped and the job keeps its status
    shown = "churn-pipeline/a1b2c3d4e5f6" if family == "pipeline" else name
    running = "Executing" if family == "pipeline" else "InProgress"
    [(kind, _, outcome, reason)] = rows(first)
    assert (kind, outcome) == ("stop", "skipped"), reason
    assert reason.startswith(f"nothing to stop: {shown} is already {status_now}")
    assert reason.endswith(f"; this event showed it {running}")
    assert [r[2] for r in rows(again)] == ["duplicate"]
    assert not [c for c in aws.calls if c.startswith("Stop")]
    assert status(family, name) == status_now
