"""A pipeline's failure message tells the real cause (issue 25, item 4), without AWS: the FailedSteps reader on fake
ports (a processing step's ExitMessage behind a generic reason, a job named lower-cased in its ARN found by its
real name, the execution's own reason when no step failed, this stack's stop record of a step's job) and the words
the pipeline family makes of what it read (the step's type from its metadata, every member botocore knows)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import botocore.session
import jsonschema
import pytest
from botocore.exceptions import ClientError
from test_job_families import PIPELINE_FAILED, TEAM, words

from rule_actions.jobs import pipelines as family
from rule_actions.jobs.common import PROCESSING, TRAINING, generic
from rule_actions.readers.failed_steps import FailedStepsReader
from rule_actions.records import FailedSteps, StepFailure, StepFailures

JSON_V1 = jsonschema.Draft202012Validator(json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "webhook-json-v1.schema.json").read_text()))
EXECUTION = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/churn/execution/k3j9x7a2b1c0"
PROCESSING_ARN = "arn:aws:sagemaker:us-east-1:123456789012:processing-job/pipelines-k3j9x7a2b1c0-prep-q7w2e9r4t1"
# SageMaker lower-cases the name in the ARN: the job is pipelines-k3j9x7a2b1c0-TrainModel-m3n8b2v6c0
TRAINING_ARN = "arn:aws:sagemaker:us-east-1:123456789012:training-job/pipelines-k3j9x7a2b1c0-trainmodel-m3n8b2v6c0"
REAL_NAME = "pipelines-k3j9x7a2b1c0-TrainModel-m3n8b2v6c0"
GENERIC = "AlgorithmError: See job logs for more information"
EXIT = ("Traceback (most recent call last):\n  File \"/opt/ml/processing/input/code/prep.py\", line 41\n"
        "FileNotFoundError: [Errno 2] No such file or directory: '/opt/ml/processing/input/data/churn.csv'")
CONFIG = {**TEAM, "pipeline_outcomes": {"Failed": ["notify"]}}


def not_found(operation: str) -> ClientError:
    return ClientError({"Error": {"Code": "ValidationException", "Message": "Requested resource not found."}},
                       operation)


class Jobs:
    """SageMaker as the reader sees it: the steps, the jobs by their real names, every call counted."""

    def __init__(self, steps: list[dict[str, Any]], jobs: dict[str, dict[str, Any]],
                 execution: dict[str, Any] | None = None):
        self.steps, self.jobs, self.execution, self.calls = steps, jobs, execution or {}, []

    def pipeline_steps(self, arn):
        self.calls.append(("ListPipelineExecutionSteps", arn))
        return self.steps

    def describe(self, api, name):
        self.calls.append((api.describe, name))
        if api.describe == "DescribePipelineExecution":
            return self.execution
        if name not in self.jobs:
            raise not_found(api.describe)
        return self.jobs[name]

    def real_name(self, api, lowered, fragment):
        self.calls.append((api.list, fragment))
        return next((name for name in self.jobs if fragment in name and name.lower() == lowered), None)

    def failed_trials(self, name, limit):
        self.calls.append(("ListTrainingJobsForHyperParameterTuningJob", name))
        return []


class Ledger:
    def __init__(self, stops: dict[str, str] | None = None, broken: bool = False):
        self.stops, self.broken, self.reads = stops or {}, broken, 0

    def stopped_by(self, arn):
        self.reads += 1
        if self.broken:
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow"}},
                              "GetItem")
        return self.stops.get(arn)


class Ports:
    def __init__(self, jobs: Jobs, ledger: Ledger | None = None):
        self.jobs, self.ledger = jobs, ledger or Ledger()


def step(name: str, member: str, arn: str, status: str = "Failed", reason: str = "") -> dict[str, Any]:
    return {"StepName": name, "StepStatus": status, "FailureReason": reason, "Metadata": {member: {"Arn": arn}}}


def need(limit: int = family.STEPS_DESCRIBED) -> FailedSteps:
    base = family._steps_need(EXECUTION)
    return FailedSteps(base.execution_arn, base.jobs, limit, base.tuning, base.execution, base.find_names)


# ------------------------------------------------------------------------------------------------ generic reasons


@pytest.mark.parametrize(("reason", "expected"), [
    ("", True), ("AlgorithmError: See job logs for more information", True), ("ClientError: See job logs.", True),
    ("  ", True), ("AlgorithmError: ValueError: bad label", False), ("InternalServerError: We encountered an "
                                                                     "internal error. Please try again.", False),
])
def test_a_reason_that_only_points_at_the_logs_is_generic(reason, expected):
    assert generic(reason) is expected


def test_a_traceback_s_cause_is_its_last_line_even_when_only_frames_precede_it():
    from rule_actions.jobs.common import essence

    # Given an exit message whose other lines are all a traceback's frames; Then its cause is its last line
    assert essence(EXIT) == "FileNotFoundError: [Errno 2] No such file or directory: '/opt/ml/processing/input/data/churn.csv'"
    assert essence("ClientError: one line") == "ClientError: one line"


# ------------------------------------------------------------------------------------------------ the reader


def test_a_processing_step_s_generic_reason_is_read_with_its_exit_message():
    # Given a failed processing step whose job says only "See job logs", its ExitMessage the traceback
    jobs = Jobs([step("prep", "ProcessingJob", PROCESSING_ARN, reason="Job failed")],
                {"pipelines-k3j9x7a2b1c0-prep-q7w2e9r4t1": {"FailureReason": GENERIC, "ExitMessage": EXIT}})

    # When the steps are read
    [found] = FailedStepsReader().read(need(), Ports(jobs))

    # Then the step has both, from one describe
    assert (found.job_reason, found.exit_message, found.unread) == (GENERIC, EXIT, "")
    assert [c[0] for c in jobs.calls] == ["ListPipelineExecutionSteps", "DescribeProcessingJob"]


def test_a_step_job_named_lower_cased_in_its_arn_is_found_by_its_real_name_with_one_listing():
    # Given a failed training step whose job has capitals its ARN lost (DescribeTrainingJob by the ARN's name: not
    # found)
    jobs = Jobs([step("TrainModel", "TrainingJob", TRAINING_ARN, reason="No training job succeeded after 1 attempts.")],
                {REAL_NAME: {"FailureReason": "AlgorithmError: ValueError: could not convert 'Month-to-month'"}})

    # When the steps are read
    [found] = FailedStepsReader().read(need(), Ports(jobs))

    # Then one listing, by the generated head of its name (no capitals in it), finds the job; it is described by
    # that name
    assert jobs.calls[1:] == [("DescribeTrainingJob", "pipelines-k3j9x7a2b1c0-trainmodel-m3n8b2v6c0"),
                              ("ListTrainingJobs", "pipelines-k3j9x7a2b1c0-"), ("DescribeTrainingJob", REAL_NAME)]
    assert found.job_name == REAL_NAME and "Month-to-month" in found.job_reason and found.unread == ""


def test_a_step_job_found_at_once_costs_no_listing_and_a_gone_one_is_named():
    # Given one step job described at once, and one that no listing finds either
    gone = TRAINING_ARN.replace("trainmodel", "gone")
    jobs = Jobs([step("prep", "ProcessingJob", PROCESSING_ARN), step("train", "TrainingJob", gone)],
                {"pipelines-k3j9x7a2b1c0-prep-q7w2e9r4t1": {"FailureReason": "ClientError: no input"}})

    # When the steps are read
    first, second = FailedStepsReader().read(need(), Ports(jobs))

    # Then the first costs one describe; the second says what failed and that no job has that name
    assert first.job_reason == "ClientError: no input" and first.job_name == ""
    assert [c[0] for c in jobs.calls].count("ListProcessingJobs") == 0
    assert second.unread.startswith("DescribeTrainingJob failed: ValidationException: Requested resource not found.;")
    assert "no job named pipelines-k3j9x7a2b1c0-gone-m3n8b2v6c0 in any case" in second.unread


def test_an_execution_that_failed_before_any_step_is_described_once_and_only_then():
    # Given an execution whose steps never failed (one succeeded), and one whose step failed
    early = Jobs([{"StepName": "prep", "StepStatus": "Succeeded", "Metadata": {}}], {},
                 execution={"FailureReason": "Pipeline parameter InputData is not a valid S3 URI: churn.csv"})
    late = Jobs([step("prep", "ProcessingJob", PROCESSING_ARN)],
                {"pipelines-k3j9x7a2b1c0-prep-q7w2e9r4t1": {"FailureReason": "ClientError: no input"}})

    # When each is read
    found_early, found_late = FailedStepsReader().read(need(), Ports(early)), FailedStepsReader().read(need(), Ports(late))

    # Then only the first describes its execution, once, and says its reason
    assert list(found_early) == [] and found_early.execution_reason.startswith("Pipeline parameter InputData")
    assert [c for c in early.calls if c[0] == "DescribePipelineExecution"] == [("DescribePipelineExecution", EXECUTION)]
    assert not [c for c in late.calls if c[0] == "DescribePipelineExecution"] and found_late.execution_reason == ""


def test_the_execution_s_describe_that_fails_is_named_and_the_steps_are_kept():
    class Failing(Jobs):
        def describe(self, api, name):
            raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, api.describe)

    found = FailedStepsReader().read(need(), Ports(Failing([], {})))
    assert list(found) == [] and found.execution_unread == "DescribePipelineExecution failed: AccessDeniedException: no"


def test_a_step_job_this_stack_stopped_carries_its_stop_record_and_the_reads_are_bounded():
    # Given three failed or stopped training steps, the first two jobs stopped by this stack, at most 2 described
    arns = [TRAINING_ARN.replace("trainmodel", f"t{i}") for i in range(3)]
    jobs = Jobs([step(f"t{i}", "TrainingJob", arn, status="Stopped" if i == 1 else "Failed")
                 for i, arn in enumerate(arns)],
                {arn.rpartition("/")[2]: {"FailureReason": ""} for arn in arns})
    ledger = Ledger({arns[0]: "rule StalledTraining of job pipelines-k3j9x7a2b1c0-t0-m3n8b2v6c0",
                     arns[1]: "rule LowGPUUtilization of job pipelines-k3j9x7a2b1c0-t1-m3n8b2v6c0"})

    # When the steps are read
    found = FailedStepsReader().read(need(limit=2), Ports(jobs, ledger))

    # Then each described step knows who stopped its job; the third is neither described nor looked up
    assert [f.stopped_by for f in found] == [ledger.stops[arns[0]], ledger.stops[arns[1]], ""]
    assert [f.status for f in found] == ["Failed", "Stopped", "Failed"] and ledger.reads == 2


def test_a_stop_record_that_cannot_be_read_is_named_on_its_step_and_the_rest_goes_on():
    jobs = Jobs([step("prep", "ProcessingJob", PROCESSING_ARN)],
                {"pipelines-k3j9x7a2b1c0-prep-q7w2e9r4t1": {"FailureReason": GENERIC, "ExitMessage": EXIT}})
    [found] = FailedStepsReader().read(need(), Ports(jobs, Ledger(broken=True)))
    assert found.exit_message == EXIT
    assert found.unread == "this stack's stop record could not be read (ProvisionedThroughputExceededException)"


# ------------------------------------------------------------------------------------------------ the words


def answer(found: StepFailures):
    return lambda n: found if isinstance(n, FailedSteps) else None


def test_the_message_says_the_exit_message_behind_a_generic_reason_and_who_stopped_a_step_s_job():
    # Given a processing step whose job said only "See job logs", and a training step whose job this stack stopped
    found = StepFailures([
        StepFailure("prep", "ProcessingJob", "Job failed", PROCESSING_ARN, GENERIC, exit_message=EXIT),
        StepFailure("TrainModel", "TrainingJob", "Training job was stopped", TRAINING_ARN,
                    "Training job stopped", status="Stopped", job_name=REAL_NAME,
                    stopped_by="rule StalledTraining of job " + REAL_NAME),
    ])

    # When its message is worded
    message, _, body = words(PIPELINE_FAILED, CONFIG, answer(found))

    # Then the cause is the exit message's last line, the generic reason said after it; the stopped step says who
    assert "Failed and stopped steps (2):" in message.body
    assert ("      Reason:     FileNotFoundError: [Errno 2] No such file or directory: "
            "'/opt/ml/processing/input/data/churn.csv'  (the job's exit message)") in message.body
    assert f"      Job said:   {GENERIC}" in message.body
    assert "  - TrainModel (Training; stopped)" in message.body
    assert f"      Job:        {REAL_NAME}" in message.body and f"#/jobs/{REAL_NAME}" in message.body
    assert f"      Stopped by rule-actions: rule StalledTraining of job {REAL_NAME}" in message.body
    assert message.body.index("Failure reason:\n  prep (Processing): FileNotFoundError") >= 0
    assert "TrainModel (Training)" not in message.body.split("\n\n")[1]  # a stopped step is no failure's cause
    # And the json format carries the new fields
    steps = body["job"]["details"]["failed_steps"]
    assert steps[0]["cause"] == EXIT and steps[0]["exit_message"] == EXIT and steps[1]["status"] == "Stopped"
    assert steps[1]["stopped_by"].startswith("rule StalledTraining") and steps[1]["job_name"] == REAL_NAME
    JSON_V1.validate(body)


def test_an_execution_that_failed_before_any_step_says_its_own_reason():
    found = StepFailures([], execution_reason="Pipeline parameter InputData is not a valid S3 URI")
    message, _, body = words(PIPELINE_FAILED, CONFIG, answer(found))
    assert "Failure reason:\n  Pipeline parameter InputData is not a valid S3 URI" in message.body
    assert "Failed steps: none listed\n  (the execution failed before any step did: its own reason is above)" in \
        message.body
    assert body["job"]["details"]["execution_reason"] == "Pipeline parameter InputData is not a valid S3 URI"
    assert body["reason"] == "Pipeline parameter InputData is not a valid S3 URI"
    JSON_V1.validate(body)
    # And one that cannot be described says so, the message still goes
    message, _, body = words(PIPELINE_FAILED, CONFIG, answer(StepFailures(
        [], execution_unread="DescribePipelineExecution failed: ThrottlingException: slow")))
    assert "Steps not read: DescribePipelineExecution failed: ThrottlingException: slow" in message.body
    JSON_V1.validate(body)


def test_every_step_type_the_api_s_metadata_names_is_worded():
    # Given every member of a step's metadata in botocore's model (ListPipelineExecutionSteps has no type member)
    model = botocore.session.get_session().get_service_model("sagemaker")
    members = list(model.shape_for("PipelineExecutionStepMetadata").members)
    assert "StepType" not in model.shape_for("PipelineExecutionStep").members
    # Then each names a step type
    assert [m for m in members if m not in family.STEP_JOBS and m not in family.OTHER_STEPS] == []
    found = StepFailures([StepFailure("deploy", "Endpoint", "Endpoint creation failed")])
    message, _, _ = words(PIPELINE_FAILED, CONFIG, answer(found))
    assert "  - deploy (Endpoint)" in message.body


def test_the_need_asks_for_the_execution_and_real_names():
    built = family._steps_need(EXECUTION)
    assert built.execution is not None and built.execution.describe == "DescribePipelineExecution"
    assert built.find_names and dict(built.jobs)["TrainingJob"] == TRAINING
    assert dict(built.jobs)["ProcessingJob"] == PROCESSING
