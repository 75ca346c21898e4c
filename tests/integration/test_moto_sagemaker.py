"""rule_actions_cli.emulator.sagemaker: StopTrainingJob and seeded training jobs in moto, in-process and over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.sagemaker.models import SageMakerModelBackend
from moto.sagemaker.responses import SageMakerResponse

from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.emulator.sagemaker import install, put_training_job, training_job_status

REGION = "us-east-1"
# What the SageMaker Python SDK puts in RuleParameters: a JSON list whose quotes are backslash-escaped.
SDK_ACTION_JSON = r'[{\"name\": \"stoptraining\", \"training_job_prefix\": \"demo-job-001\"}]'
PLAIN_ACTION_JSON = '[{"name": "email", "email_address": "ml-team@example.com"}]'

DEBUG_RULES = [
    {
        "RuleConfigurationName": "LossNotDecreasing",
        "RuleEvaluatorImage": "503895931360.dkr.ecr.us-east-1.amazonaws.com/sagemaker-debugger-rules:latest",
        "RuleParameters": {"rule_to_invoke": "LossNotDecreasing", "action_json": SDK_ACTION_JSON},
    }
]
PROFILER_RULES = [
    {
        "RuleConfigurationName": "LowGPUUtilization",
        "RuleEvaluatorImage": "503895931360.dkr.ecr.us-east-1.amazonaws.com/sagemaker-debugger-rules:latest",
        "RuleParameters": {"rule_to_invoke": "LowGPUUtilization", "action_json": PLAIN_ACTION_JSON},
    }
]
EVALUATED_AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
DEBUG_STATUSES = [
    {
        "RuleConfigurationName": "LossNotDecreasing",
        "RuleEvaluationJobArn": "arn:aws:sagemaker:us-east-1:123456789012:processing-job/exp-a-lossnotdecreasing",
        "RuleEvaluationStatus": "IssuesFound",
        "StatusDetails": "RuleEvaluationConditionMet: Evaluation of the rule LossNotDecreasing at step 500 resulted in the condition being met",
        "LastModifiedTime": EVALUATED_AT,
    }
]
PROFILER_STATUSES = [
    {
        "RuleConfigurationName": "LowGPUUtilization",
        "RuleEvaluationStatus": "NoIssuesFound",
        "LastModifiedTime": EVALUATED_AT,
    }
]


def _stopped_because(status: str) -> str:
    return f"The request was rejected because the training job is in status {status}."


@pytest.fixture
def sagemaker():
    """A SageMaker client on moto's in-process mock, with StopTrainingJob installed."""
    install()
    with mock_aws():
        yield boto3.client("sagemaker", region_name=REGION)


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


# --------------------------------------------------------------------------- StopTrainingJob in-process


def test_stop_in_progress_job_moves_it_to_stopping(sagemaker):
    # Given an InProgress training job
    arn = put_training_job("demo-job-001", "InProgress")
    before = sagemaker.describe_training_job(TrainingJobName="demo-job-001")

    # When it is stopped
    response = sagemaker.stop_training_job(TrainingJobName="demo-job-001")

    # Then the call succeeds with an empty body and the job is Stopping, with a fresh LastModifiedTime
    assert arn == "arn:aws:sagemaker:us-east-1:123456789012:training-job/demo-job-001"
    assert set(response) == {"ResponseMetadata"}
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    after = sagemaker.describe_training_job(TrainingJobName="demo-job-001")
    assert after["TrainingJobStatus"] == "Stopping"
    assert after["SecondaryStatus"] == "Stopping"
    assert after["LastModifiedTime"] >= before["LastModifiedTime"]
    assert before["TrainingJobStatus"] == "InProgress"
    assert training_job_status("demo-job-001") == "Stopping"


def test_stopping_a_stopping_job_is_rejected_with_its_status(sagemaker):
    # Given a job that has already been asked to stop
    put_training_job("demo-job-001", "InProgress")
    sagemaker.stop_training_job(TrainingJobName="demo-job-001")

    # When it is stopped again
    with pytest.raises(ClientError) as excinfo:
        sagemaker.stop_training_job(TrainingJobName="demo-job-001")

    # Then SageMaker's ValidationException names the current status, and the job stays Stopping
    assert _error(excinfo) == ("ValidationException", _stopped_because("Stopping"), 400)
    assert training_job_status("demo-job-001") == "Stopping"


@pytest.mark.parametrize("status", ["Completed", "Stopped", "Failed"])
def test_stopping_a_finished_job_is_rejected_with_its_status(sagemaker, status):
    # Given a job that has already finished
    put_training_job("finished-job", status)

    # When it is stopped
    with pytest.raises(ClientError) as excinfo:
        sagemaker.stop_training_job(TrainingJobName="finished-job")

    # Then the error names that status and the job keeps it
    assert _error(excinfo) == ("ValidationException", _stopped_because(status), 400)
    assert training_job_status("finished-job") == status


def test_stopping_an_unknown_job_gives_the_describe_not_found_error(sagemaker):
    # Given no job called "no-such-job" (but another one exists)
    put_training_job("demo-job-001", "InProgress")

    # When each of stop and describe is called for the missing job
    with pytest.raises(ClientError) as stop_error:
        sagemaker.stop_training_job(TrainingJobName="no-such-job")
    with pytest.raises(ClientError) as describe_error:
        sagemaker.describe_training_job(TrainingJobName="no-such-job")

    # Then stop raises exactly what describe raises for a missing job, and nothing else changed
    code, message, http_status = _error(stop_error)
    assert (code, http_status) == ("ValidationException", 400)
    assert message == "Could not find training job 'arn:aws:sagemaker:us-east-1:123456789012:training-job/no-such-job'."
    assert _error(describe_error) == (code, message, http_status)
    assert training_job_status("demo-job-001") == "InProgress"


def test_job_names_are_case_sensitive_for_stop(sagemaker):
    # Given a job with a mixed-case name
    put_training_job("Exp-MixedCase", "InProgress")

    # When the lower-cased name is stopped
    with pytest.raises(ClientError) as excinfo:
        sagemaker.stop_training_job(TrainingJobName="exp-mixedcase")

    # Then it is not found, and the real job is untouched
    assert _error(excinfo)[0] == "ValidationException"
    assert "exp-mixedcase" in _error(excinfo)[1]
    assert training_job_status("Exp-MixedCase") == "InProgress"


# --------------------------------------------------------------------------- seeded jobs


def test_describe_returns_rule_configurations_and_evaluation_statuses(sagemaker):
    # Given a job seeded with Debugger and Profiler rules and their evaluation statuses
    put_training_job(
        "exp-rules",
        "InProgress",
        debug_rule_configurations=DEBUG_RULES,
        profiler_rule_configurations=PROFILER_RULES,
        debug_rule_evaluation_statuses=DEBUG_STATUSES,
        profiler_rule_evaluation_statuses=PROFILER_STATUSES,
    )

    # When it is described through the API
    job = sagemaker.describe_training_job(TrainingJobName="exp-rules")

    # Then all four lists come back as set, action_json byte for byte (backslashes included)
    assert job["DebugRuleConfigurations"] == DEBUG_RULES
    assert job["ProfilerRuleConfigurations"] == PROFILER_RULES
    assert job["DebugRuleEvaluationStatuses"] == DEBUG_STATUSES
    assert job["ProfilerRuleEvaluationStatuses"] == PROFILER_STATUSES
    action_json = job["DebugRuleConfigurations"][0]["RuleParameters"]["action_json"]
    assert action_json.encode() == SDK_ACTION_JSON.encode()
    assert "\\" in action_json
    assert job["ProfilerRuleConfigurations"][0]["RuleParameters"]["action_json"] == PLAIN_ACTION_JSON
    assert job["TrainingJobStatus"] == "InProgress"
    assert job["SecondaryStatus"] == "Training"
    assert "TrainingEndTime" not in job  # an InProgress job has not ended


def test_caller_lists_do_not_alias_the_backend(sagemaker):
    # Given a job seeded from a list the caller keeps
    rules = [{"RuleConfigurationName": "R", "RuleEvaluatorImage": "img", "RuleParameters": {"action_json": "[]"}}]
    put_training_job("exp-alias", "InProgress", debug_rule_configurations=rules)

    # When the caller mutates its own list afterwards
    rules[0]["RuleParameters"]["action_json"] = "changed"

    # Then the job still describes what was put
    job = sagemaker.describe_training_job(TrainingJobName="exp-alias")
    assert job["DebugRuleConfigurations"][0]["RuleParameters"]["action_json"] == "[]"


def test_list_filters_by_status_and_name_and_keeps_name_case(sagemaker):
    # Given InProgress and finished jobs, some named "exp-...", with mixed-case names
    put_training_job("exp-Alpha", "InProgress")
    put_training_job("exp-BETA-01", "InProgress")
    put_training_job("exp-gamma", "Completed")
    put_training_job("exp-Delta", "Stopped")
    put_training_job("other-Run", "InProgress")

    # When InProgress jobs whose names contain "exp-" are listed
    summaries = sagemaker.list_training_jobs(StatusEquals="InProgress", NameContains="exp-")["TrainingJobSummaries"]

    # Then exactly the InProgress "exp-" jobs come back, names as written
    assert sorted(s["TrainingJobName"] for s in summaries) == ["exp-Alpha", "exp-BETA-01"]
    assert {s["TrainingJobStatus"] for s in summaries} == {"InProgress"}
    completed = sagemaker.list_training_jobs(StatusEquals="Completed")["TrainingJobSummaries"]
    assert [s["TrainingJobName"] for s in completed] == ["exp-gamma"]


def test_put_again_updates_status_and_only_the_rule_lists_given(sagemaker):
    # Given an InProgress job with rules, and another job created earlier
    put_training_job("exp-earlier", "Completed")
    first_arn = put_training_job("exp-job", "InProgress", debug_rule_configurations=DEBUG_RULES)

    # When it is put again as Completed with new evaluation statuses only
    second_arn = put_training_job("exp-job", "Completed", debug_rule_evaluation_statuses=DEBUG_STATUSES)

    # Then status, secondary status, listing and the new list change; the rules and other jobs stay
    assert second_arn == first_arn
    job = sagemaker.describe_training_job(TrainingJobName="exp-job")
    assert (job["TrainingJobStatus"], job["SecondaryStatus"]) == ("Completed", "Completed")
    assert "TrainingEndTime" in job
    assert job["DebugRuleConfigurations"] == DEBUG_RULES
    assert job["DebugRuleEvaluationStatuses"] == DEBUG_STATUSES
    assert "ProfilerRuleConfigurations" not in job
    assert sagemaker.list_training_jobs(StatusEquals="InProgress")["TrainingJobSummaries"] == []
    names = [s["TrainingJobName"] for s in sagemaker.list_training_jobs(NameContains="exp-")["TrainingJobSummaries"]]
    assert sorted(names) == ["exp-earlier", "exp-job"]


def test_put_with_explicit_secondary_status_then_back_to_in_progress_makes_it_stoppable(sagemaker):
    # Given a job put as Completed, then put back to InProgress with an explicit secondary status
    put_training_job("exp-restart", "Completed")
    put_training_job("exp-restart", "InProgress", secondary_status="Downloading")
    described = sagemaker.describe_training_job(TrainingJobName="exp-restart")

    # When it is stopped
    sagemaker.stop_training_job(TrainingJobName="exp-restart")

    # Then the explicit secondary status had been applied and the stop worked
    assert (described["TrainingJobStatus"], described["SecondaryStatus"]) == ("InProgress", "Downloading")
    assert "TrainingEndTime" not in described
    assert training_job_status("exp-restart") == "Stopping"


def test_put_rejects_an_unknown_status(sagemaker):
    # Given / When a status SageMaker does not have
    with pytest.raises(ValueError, match="Running"):
        put_training_job("exp-bad", "Running")

    # Then no job was created
    with pytest.raises(KeyError):
        training_job_status("exp-bad")


def test_install_twice_is_harmless(sagemaker):
    # Given install() already ran (fixture) and the registered methods
    backend_method = SageMakerModelBackend.stop_training_job
    response_method = SageMakerResponse.stop_training_job

    # When it runs again
    install()
    moto_sagemaker.install()

    # Then nothing was wrapped again and stop still behaves once
    assert SageMakerModelBackend.stop_training_job is backend_method
    assert SageMakerResponse.stop_training_job is response_method
    put_training_job("exp-twice", "InProgress")
    sagemaker.stop_training_job(TrainingJobName="exp-twice")
    with pytest.raises(ClientError) as excinfo:
        sagemaker.stop_training_job(TrainingJobName="exp-twice")
    assert _error(excinfo)[1] == _stopped_because("Stopping")


# --------------------------------------------------------------------------- server mode


def test_stop_over_http_against_threaded_moto_server(server_sagemaker):
    # Given an InProgress and a Completed job on a moto server in this process
    arn = put_training_job("demo-job-001", "InProgress", debug_rule_configurations=DEBUG_RULES)
    put_training_job("demo-job-done", "Completed")

    # When the InProgress job is stopped over HTTP, then stopped again, and the Completed one too
    response = server_sagemaker.stop_training_job(TrainingJobName="demo-job-001")
    with pytest.raises(ClientError) as again:
        server_sagemaker.stop_training_job(TrainingJobName="demo-job-001")
    with pytest.raises(ClientError) as completed:
        server_sagemaker.stop_training_job(TrainingJobName="demo-job-done")
    with pytest.raises(ClientError) as missing:
        server_sagemaker.stop_training_job(TrainingJobName="no-such-job")

    # Then the first call succeeds, the others carry SageMaker's code, message and HTTP 400
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    job = server_sagemaker.describe_training_job(TrainingJobName="demo-job-001")
    assert job["TrainingJobArn"] == arn
    assert (job["TrainingJobStatus"], job["SecondaryStatus"]) == ("Stopping", "Stopping")
    assert job["DebugRuleConfigurations"][0]["RuleParameters"]["action_json"] == SDK_ACTION_JSON
    assert _error(again) == ("ValidationException", _stopped_because("Stopping"), 400)
    assert _error(completed) == ("ValidationException", _stopped_because("Completed"), 400)
    assert _error(missing)[0] == "ValidationException"
    assert "no-such-job" in _error(missing)[1]
    listed = server_sagemaker.list_training_jobs(StatusEquals="Stopping")["TrainingJobSummaries"]
    assert [s["TrainingJobName"] for s in listed] == ["demo-job-001"]
