"""The calls rule_actions_cli.emulator.sagemaker adds to moto for the job families (ListTrainingJobsForHyperParameterTuningJob,
ListPipelineExecutionSteps), and the jobs its seeders create, checked against botocore's service model: every
request the function makes is valid for the model, every answer has only the model's members, of the model's types,
with its required members and enum values, in-process and over HTTP (moto server), pages included."""

from __future__ import annotations

import datetime as dt
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.exceptions import ClientError
from botocore.validate import ParamValidator
from moto import mock_aws

from rule_actions import registry
from rule_actions.effects.sagemaker import SageMaker
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.seeding import seeder

FAMILY = {family.name: family for family in registry.JOBS}


def seed(family: Any, detail: dict[str, Any]) -> None:
    """The job an event's detail names, as the replay's embedded account seeds it."""
    seeder(family)(family, "", detail, {}, region=REGION)

REGION = "us-east-1"
MODEL = botocore.session.get_session().get_service_model("sagemaker")
TUNING = "xgb-churn-hpo-1124"
EXECUTION = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/churn-training-pipeline/execution/k3j9x7a2b1c0"


def valid(operation: str, request: dict[str, Any], response: dict[str, Any]) -> None:
    """The request is valid input of the operation, the response (without ResponseMetadata) valid output."""
    op = MODEL.operation_model(operation)
    report = ParamValidator().validate(request, op.input_shape)
    assert not report.has_errors(), report.generate_report()
    answer = {k: v for k, v in response.items() if k != "ResponseMetadata"}
    if op.output_shape is None:  # an operation that answers nothing (StopProcessingJob...)
        assert answer == {}
        return
    report = ParamValidator().validate(answer, op.output_shape)
    assert not report.has_errors(), report.generate_report()
    _enums(answer, op.output_shape, operation)


def _enums(value: Any, shape: Any, where: str) -> None:
    """Every string of an enum shape is one of its values (ParamValidator does not check them)."""
    if shape.type_name == "structure":
        for key, item in value.items():
            _enums(item, shape.members[key], f"{where}.{key}")
    elif shape.type_name == "list":
        for index, item in enumerate(value):
            _enums(item, shape.member, f"{where}[{index}]")
    elif shape.type_name == "map":
        for key, item in value.items():
            _enums(item, shape.value, f"{where}[{key}]")
    elif shape.type_name == "string" and shape.enum:
        assert value in shape.enum, (where, value, shape.enum)


def seed_tuning(failed: int = 3, completed: int = 2) -> None:
    arn = moto_sagemaker.put_tuning_job(TUNING, "Failed", failure_reason="No training job succeeded after 5 attempts.")
    for i in range(1, failed + completed + 1):
        status = "Failed" if i <= failed else "Completed"
        moto_sagemaker.put_training_job(f"{TUNING}-{i:03d}-0a1b2c{i:02d}", status, tuning_job_arn=arn,
                                        failure_reason=f"AlgorithmError: trial {i}" if status == "Failed" else None)
    moto_sagemaker.put_training_job("not-a-trial", "Failed", failure_reason="ClientError: elsewhere")


def seed_steps(count: int = 3) -> None:
    moto_sagemaker.put_pipeline_execution(EXECUTION, "Failed")
    start = dt.datetime(2026, 11, 24, 14, 0, tzinfo=dt.UTC)
    for i in range(count):
        moto_sagemaker.put_pipeline_step(
            EXECUTION, f"step-{i}", "Failed" if i else "Succeeded", start_time=start + dt.timedelta(minutes=i),
            end_time=start + dt.timedelta(minutes=i, seconds=30), failure_reason="No training job succeeded" if i else None,
            metadata={"TrainingJob": {"Arn": f"arn:aws:sagemaker:us-east-1:123456789012:training-job/job-{i}"}})


@pytest.fixture(params=["in-process", "http"])
def sagemaker(request):
    """A SageMaker client on moto with the project's calls installed: in-process, or over HTTP (moto server)."""
    moto_sagemaker.install()
    if request.param == "in-process":
        with mock_aws():
            yield boto3.client("sagemaker", region_name=REGION)
    else:
        yield request.getfixturevalue("server_sagemaker")


@pytest.mark.parametrize("request_", [
    {"HyperParameterTuningJobName": TUNING},
    {"HyperParameterTuningJobName": TUNING, "StatusEquals": "Failed", "MaxResults": 5, "SortBy": "CreationTime",
     "SortOrder": "Ascending"},  # what the function asks (effects/sagemaker.py)
    {"HyperParameterTuningJobName": TUNING, "StatusEquals": "Completed", "SortBy": "Status", "SortOrder": "Descending"},
    {"HyperParameterTuningJobName": TUNING, "SortBy": "Name", "MaxResults": 1},
])
def test_a_tuning_job_s_trials_are_listed_as_the_model_says(sagemaker, request_):
    seed_tuning()
    response = sagemaker.list_training_jobs_for_hyper_parameter_tuning_job(**request_)
    valid("ListTrainingJobsForHyperParameterTuningJob", request_, response)
    summaries = response["TrainingJobSummaries"]
    assert summaries and all(s["TuningJobName"] == TUNING and s["TrainingJobName"].startswith(TUNING) for s in summaries)
    if request_.get("StatusEquals") == "Failed":
        assert [s["FailureReason"] for s in summaries] == [f"AlgorithmError: trial {i}" for i in (1, 2, 3)]
    if request_.get("MaxResults") == 1:
        assert len(summaries) == 1 and response["NextToken"]


def test_trials_page_through_the_paginator_and_an_unknown_tuning_job_is_not_found(sagemaker):
    seed_tuning(failed=7, completed=5)
    pages = list(sagemaker.get_paginator("list_training_jobs_for_hyper_parameter_tuning_job").paginate(
        HyperParameterTuningJobName=TUNING, PaginationConfig={"PageSize": 5}))
    names = [s["TrainingJobName"] for page in pages for s in page["TrainingJobSummaries"]]
    assert len(pages) == 3 and len(names) == len(set(names)) == 12
    with pytest.raises(ClientError) as err:
        sagemaker.list_training_jobs_for_hyper_parameter_tuning_job(HyperParameterTuningJobName="nobody")
    code = err.value.response["Error"]["Code"]
    assert code in {e.name for e in MODEL.operation_model("ListTrainingJobsForHyperParameterTuningJob").error_shapes}


@pytest.mark.parametrize("request_", [
    {"PipelineExecutionArn": EXECUTION},
    {"PipelineExecutionArn": EXECUTION, "SortOrder": "Ascending"},  # what the function asks
    {"PipelineExecutionArn": EXECUTION, "SortOrder": "Descending", "MaxResults": 2},
])
def test_an_execution_s_steps_are_listed_as_the_model_says(sagemaker, request_):
    seed_steps()
    response = sagemaker.list_pipeline_execution_steps(**request_)
    valid("ListPipelineExecutionSteps", request_, response)
    names = [s["StepName"] for s in response["PipelineExecutionSteps"]]
    order = ["step-0", "step-1", "step-2"]
    expected = order if request_.get("SortOrder") == "Ascending" else order[::-1]
    assert names == expected[:request_.get("MaxResults", 3)]
    assert all(s["Metadata"]["TrainingJob"]["Arn"].endswith(s["StepName"].replace("step", "job"))
               for s in response["PipelineExecutionSteps"])


def test_steps_page_through_the_paginator_and_an_unknown_execution_is_not_found(sagemaker):
    seed_steps(count=7)
    pages = list(sagemaker.get_paginator("list_pipeline_execution_steps").paginate(
        PipelineExecutionArn=EXECUTION, SortOrder="Ascending", PaginationConfig={"PageSize": 3}))
    assert [len(p["PipelineExecutionSteps"]) for p in pages] == [3, 3, 1]
    with pytest.raises(ClientError) as err:
        sagemaker.list_pipeline_execution_steps(PipelineExecutionArn=EXECUTION.replace("k3j9", "zzzz"))
    code = err.value.response["Error"]["Code"]
    assert code in {e.name for e in MODEL.operation_model("ListPipelineExecutionSteps").error_shapes}


def test_the_function_s_calls_read_the_fills(sagemaker):
    # The adapter the function uses (effects/sagemaker.py) against the fills: its requests and their answers
    seed_tuning(failed=6)
    seed_steps()
    jobs = SageMaker(sagemaker)
    trials = jobs.failed_trials(TUNING, 5)
    assert [t["TrainingJobName"] for t in trials] == [f"{TUNING}-{i:03d}-0a1b2c{i:02d}" for i in range(1, 6)]
    assert [s["StepName"] for s in jobs.pipeline_steps(EXECUTION)] == ["step-0", "step-1", "step-2"]


@pytest.mark.parametrize(("operation", "seed", "request_"), [
    ("DescribeHyperParameterTuningJob",
     lambda: moto_sagemaker.put_tuning_job(TUNING, "Completed", training_job_status_counters={
         "Completed": 4, "InProgress": 0, "RetryableError": 0, "NonRetryableError": 1, "Stopped": 0},
         objective_status_counters={"Succeeded": 4, "Pending": 0, "Failed": 1}),
     {"HyperParameterTuningJobName": TUNING}),
    ("DescribeProcessingJob",
     lambda: moto_sagemaker.put_processing_job("prep-1", "Failed", failure_reason="AlgorithmError: x",
                                               exit_message="Traceback...", training_job_arn=None),
     {"ProcessingJobName": "prep-1"}),
    ("DescribeTransformJob",
     lambda: moto_sagemaker.put_transform_job("batch-1", "Failed", failure_reason="ClientError: y"),
     {"TransformJobName": "batch-1"}),
    ("DescribeTrainingJob",
     lambda: moto_sagemaker.put_training_job(f"{TUNING}-001-0a1b2c3d", "Failed", failure_reason="AlgorithmError: z",
                                             tuning_job_arn=f"arn:aws:sagemaker:us-east-1:123456789012:hyper-parameter-tuning-job/{TUNING}"),
     {"TrainingJobName": f"{TUNING}-001-0a1b2c3d"}),
])
def test_the_seeded_jobs_are_described_with_what_the_function_reads(sagemaker, operation, seed, request_):
    # moto's own describes, on the jobs the seeders make: the members the families read are there, of their types
    seed()
    response = getattr(sagemaker, botocore.xform_name(operation))(**request_)
    shape = MODEL.operation_model(operation).output_shape
    for key, value in response.items():
        if key != "ResponseMetadata" and value is not None:
            assert key in shape.members, key
    read = {"DescribeHyperParameterTuningJob": ("TrainingJobStatusCounters", "ObjectiveStatusCounters"),
            "DescribeProcessingJob": ("FailureReason", "ExitMessage"), "DescribeTransformJob": ("FailureReason",),
            "DescribeTrainingJob": ("FailureReason", "TuningJobArn")}[operation]
    assert all(response.get(key) for key in read)


def _statuses(sagemaker: Any, operation: str, key: str, member: str) -> str:
    request = {("PipelineExecutionArn" if operation == "DescribePipelineExecution" else member): key}
    answer = getattr(sagemaker, botocore.xform_name(operation))(**request)
    valid(operation, request, answer)
    return answer[member.replace("Name", "Status").replace("Arn", "Status")]


STOPS = [  # (the stop, its request, the describe that shows it, the status member's request key, seed)
    ("StopProcessingJob", {"ProcessingJobName": "prep-1"}, "DescribeProcessingJob", "ProcessingJobName",
     lambda status: moto_sagemaker.put_processing_job("prep-1", status)),
    ("StopTransformJob", {"TransformJobName": "batch-1"}, "DescribeTransformJob", "TransformJobName",
     lambda status: moto_sagemaker.put_transform_job("batch-1", status)),
    ("StopHyperParameterTuningJob", {"HyperParameterTuningJobName": TUNING}, "DescribeHyperParameterTuningJob",
     "HyperParameterTuningJobName", lambda status: moto_sagemaker.put_tuning_job(TUNING, status)),
    ("StopPipelineExecution", {"PipelineExecutionArn": EXECUTION, "ClientRequestToken": "t" * 32},
     "DescribePipelineExecution", "PipelineExecutionArn",
     lambda status: moto_sagemaker.put_pipeline_execution(EXECUTION, "Executing" if status == "InProgress" else status)),
]


@pytest.mark.parametrize(("operation", "request_", "describe", "member", "seed"), STOPS, ids=[s[0] for s in STOPS])
def test_a_running_job_of_each_family_stops_as_the_model_says(sagemaker, operation, request_, describe, member, seed):
    # Given a running job of the family
    seed("InProgress")
    # When it is stopped with a request valid for the model
    answer = getattr(sagemaker, botocore.xform_name(operation))(**request_)
    # Then the answer is the model's, and the job is Stopping (the describe valid too)
    valid(operation, request_, answer)
    key = request_[member]
    assert _statuses(sagemaker, describe, key, member) == "Stopping"


@pytest.mark.parametrize(("operation", "request_", "describe", "member", "seed"), STOPS, ids=[s[0] for s in STOPS])
def test_a_finished_job_of_each_family_refuses_a_stop_and_the_function_says_its_status(sagemaker, operation, request_,
                                                                                      describe, member, seed):
    # Given a job that completed (a pipeline execution that succeeded)
    ended = "Succeeded" if operation == "StopPipelineExecution" else "Completed"
    seed(ended)
    # When it is stopped directly, and through the function's SageMaker adapter
    with pytest.raises(ClientError) as refused:
        getattr(sagemaker, botocore.xform_name(operation))(**request_)
    from rule_actions.jobs.common import PIPELINE_EXECUTION, PROCESSING, TRANSFORM
    from rule_actions.jobs.common import TUNING as TUNING_API

    api = {"StopProcessingJob": PROCESSING, "StopTransformJob": TRANSFORM, "StopHyperParameterTuningJob": TUNING_API,
           "StopPipelineExecution": PIPELINE_EXECUTION}[operation]
    said = SageMaker(sagemaker).stop(api, request_[member], request_.get("ClientRequestToken"))
    # Then SageMaker's refusal is a model error, and the adapter answers with the job's status, not an error
    assert refused.value.response["Error"]["Code"] in {e.name for e in MODEL.operation_model(operation).error_shapes} | {
        "ValidationException"}
    assert said == ended


def test_a_pipeline_stop_repeated_with_its_token_is_the_same_call(sagemaker):
    moto_sagemaker.put_pipeline_execution(EXECUTION, "Executing")
    request = {"PipelineExecutionArn": EXECUTION, "ClientRequestToken": "a" * 40}
    first = sagemaker.stop_pipeline_execution(**request)
    again = sagemaker.stop_pipeline_execution(**request)
    assert first["PipelineExecutionArn"] == again["PipelineExecutionArn"] == EXECUTION
    with pytest.raises(ClientError):  # another token is another call: the execution is no longer Executing
        sagemaker.stop_pipeline_execution(PipelineExecutionArn=EXECUTION, ClientRequestToken="b" * 40)


def test_a_seeded_execution_is_described_with_its_failure_reason_as_the_model_says(sagemaker):
    # Given an execution seeded as failed before any step ran (its events carry no FailureReason: seeded apart)
    moto_sagemaker.put_pipeline_execution(EXECUTION, "Executing", display_name="nightly-2026-11-24")
    moto_sagemaker.put_pipeline_execution(EXECUTION, "Failed", failure_reason="Step train: parameter Epochs is no int")

    # When the function's adapter describes it (effects/sagemaker.py, the execution's JobApi)
    request_ = {"PipelineExecutionArn": EXECUTION}
    response = sagemaker.describe_pipeline_execution(**request_)

    # Then the answer is the model's, with the seeded reason and status
    valid("DescribePipelineExecution", request_, response)
    assert (response["PipelineExecutionStatus"], response["FailureReason"]) == (
        "Failed", "Step train: parameter Epochs is no int")
    assert response["PipelineExecutionDisplayName"] == "nightly-2026-11-24"
    from rule_actions.jobs.common import PIPELINE_EXECUTION
    assert SageMaker(sagemaker).describe(PIPELINE_EXECUTION, EXECUTION)["FailureReason"].startswith("Step train")
    # And an execution nothing seeded is still moto's to answer (not found)
    with pytest.raises(ClientError):
        sagemaker.describe_pipeline_execution(PipelineExecutionArn=EXECUTION.replace("k3j9", "zzzz"))


def test_a_job_s_real_name_is_found_from_its_lower_cased_one_with_one_listing(sagemaker):
    # Given a processing job and a training job whose names have capitals, and others sharing their fragment
    moto_sagemaker.put_processing_job("pipelines-k3j9x7a2b1c0-Prep-q7w2e9r4t1", "Failed")
    moto_sagemaker.put_processing_job("pipelines-k3j9x7a2b1c0-other-a1b2c3d4e5", "Failed")
    moto_sagemaker.put_training_job("pipelines-k3j9x7a2b1c0-TrainModel-m3n8b2v6c0", "Failed")
    jobs = SageMaker(sagemaker)
    from rule_actions.jobs.common import PROCESSING, TRAINING

    # When the adapter looks each up by its lower-cased name and the generated head of it
    calls: list[str] = []
    sagemaker.meta.events.register("before-call.sagemaker.*", lambda model, **_: calls.append(model.name))
    found = [jobs.real_name(PROCESSING, "pipelines-k3j9x7a2b1c0-prep-q7w2e9r4t1", "pipelines-k3j9x7a2b1c0-"),
             jobs.real_name(TRAINING, "pipelines-k3j9x7a2b1c0-trainmodel-m3n8b2v6c0", "pipelines-k3j9x7a2b1c0-"),
             jobs.real_name(TRAINING, "pipelines-k3j9x7a2b1c0-gone-m3n8b2v6c0", "pipelines-k3j9x7a2b1c0-")]

    # Then each is its name as created (one listing each), and a job no listing has is None
    assert found == ["pipelines-k3j9x7a2b1c0-Prep-q7w2e9r4t1", "pipelines-k3j9x7a2b1c0-TrainModel-m3n8b2v6c0", None]
    assert calls == ["ListProcessingJobs", "ListTrainingJobs", "ListTrainingJobs"]
    request_ = {"NameContains": "pipelines-k3j9x7a2b1c0-", "SortBy": "CreationTime", "SortOrder": "Descending",
                "MaxResults": 100}
    valid("ListProcessingJobs", request_, sagemaker.list_processing_jobs(**request_))


def test_a_tuning_job_s_best_is_its_best_completed_trial_and_a_warm_start_s_overall_best_its_parents_too(sagemaker):
    # Given a parent tuning job and its warm start, maximizing eval:f1, and their trials as their events say them
    # (epoch-millisecond strings, FinalMetricDataList), none of the tuning events naming a best job
    config = {"Strategy": "Bayesian", "HyperParameterTuningJobObjective": {"Type": "Maximize", "MetricName": "eval:f1"},
              "ResourceLimits": {"MaxNumberOfTrainingJobs": 5, "MaxParallelTrainingJobs": 2}}
    warm = {"ParentHyperParameterTuningJobs": [{"HyperParameterTuningJobName": "bert-1117"}],
            "WarmStartType": "IdenticalDataAndAlgorithm"}
    seed(FAMILY["tuning"], {"HyperParameterTuningJobName": "bert-1117", "HyperParameterTuningJobStatus": "InProgress",
                            "HyperParameterTuningJobConfig": config})
    child = moto_sagemaker.put_tuning_job("bert-1124", "InProgress", config=config, warm_start_config=warm)
    parent = moto_sagemaker.put_tuning_job("bert-1117", "InProgress")

    def trial(tuning_arn: str, name: str, value: float) -> None:
        seed(FAMILY["training"], {
            "TrainingJobName": name, "TrainingJobArn": f"arn:aws:sagemaker:{REGION}:123456789012:training-job/{name}",
            "TrainingJobStatus": "Completed", "TuningJobArn": tuning_arn, "CreationTime": "1795514660000",
            "TrainingStartTime": "1795514860000", "TrainingEndTime": "1795516500000",
            "HyperParameters": {"lr": "3e-05", "_tuning_objective_metric": "\"eval:f1\""},
            "FinalMetricDataList": [{"MetricName": "eval:f1", "Value": value, "Timestamp": "1795516500000"}]})

    # When their trials complete
    trial(parent, "bert-1117-009-3c5e7a9b", 0.8802)
    trial(child, "bert-1124-001-0a1b2c3d", 0.8577)
    trial(child, "bert-1124-004-e08a5c37", 0.8731)
    trial(child, "bert-1124-005-5b91c7fd", 0.8102)
    moto_sagemaker.put_tuning_job("bert-1124", "Completed")

    # Then the warm start's best is its own best trial, its overall best the parent's, as the model says them
    request_ = {"HyperParameterTuningJobName": "bert-1124"}
    response = sagemaker.describe_hyper_parameter_tuning_job(**request_)
    valid("DescribeHyperParameterTuningJob", request_, {k: v for k, v in response.items() if v is not None})
    assert response["BestTrainingJob"]["TrainingJobName"] == "bert-1124-004-e08a5c37"
    assert response["BestTrainingJob"]["FinalHyperParameterTuningJobObjectiveMetric"]["Value"] == 0.8731
    assert response["BestTrainingJob"]["TunedHyperParameters"] == {"lr": "3e-05"}
    assert response["OverallBestTrainingJob"]["TrainingJobName"] == "bert-1117-009-3c5e7a9b"
    assert sagemaker.describe_hyper_parameter_tuning_job(HyperParameterTuningJobName="bert-1117")[
        "BestTrainingJob"]["TrainingJobName"] == "bert-1117-009-3c5e7a9b"
