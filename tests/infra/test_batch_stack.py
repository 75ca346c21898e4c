"""The stack with the AWS Batch family off and on (issue 39): off, no aws.batch pattern and no Batch grant whatever
batch_job_outcomes says; on, the rule matches the configured queues' service jobs beside SageMaker's events (a $or
of each source's pattern), and the function may terminate service jobs and read them, cdk-nag clean."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Template
from stack_helpers import ROOT, synthesize

from rule_actions.config import Config
from rule_actions_cdk.app import project_context
from rule_actions_cdk.plugins import event_pattern

CONFIG = json.loads((ROOT / "examples" / "batch-config.json").read_text())
OFF = {key: value for key, value in CONFIG.items() if key != "batch_queues"}
NO_RESTART = {**{key: value for key, value in CONFIG.items() if key != "restart_checkpoints"},
              "rules": {"StalledTraining": ["stoptraining", "notify"]}}


def context(config: dict[str, Any]) -> dict[str, Any]:
    return {**project_context(), "rule_actions": config}


@pytest.fixture(scope="module")
def on(tmp_path_factory) -> Template:
    return synthesize(context(CONFIG), tmp_path_factory.mktemp("cdk.out"))  # cdk-nag raises on a finding


@pytest.fixture(scope="module")
def off(tmp_path_factory) -> Template:
    return synthesize(context(OFF), tmp_path_factory.mktemp("cdk.out"))


@pytest.fixture(scope="module")
def no_restart(tmp_path_factory) -> Template:
    return synthesize(context(NO_RESTART), tmp_path_factory.mktemp("cdk.out"))


def rule_of(template: Template) -> dict[str, Any]:
    """The stack's rule (the monitor's schedule is a rule of its own, without a pattern)."""
    [rule] = [r for r in template.find_resources("AWS::Events::Rule").values() if "EventPattern" in r["Properties"]]
    return rule


def batch_statements(template: Template) -> list[dict[str, Any]]:
    return [s for policy in template.find_resources("AWS::IAM::Policy").values()
            for s in policy["Properties"]["PolicyDocument"]["Statement"] if "batch:" in json.dumps(s["Action"])]


def test_the_family_off_matches_no_batch_event_and_grants_no_batch_call(off):
    # Given the example's batch_job_outcomes without batch_queues
    rule = rule_of(off)
    # Then no aws.batch pattern, no Batch statement
    assert "aws.batch" not in json.dumps(rule["Properties"]["EventPattern"])
    assert batch_statements(off) == []
    assert "DescribeBatchTrainingJobs" not in json.dumps(off.find_resources("AWS::IAM::Policy"))


def test_the_family_on_matches_its_queues_and_grants_terminate_and_reads(on):
    rule = rule_of(on)
    pattern = rule["Properties"]["EventPattern"]
    assert pattern["$or"] == event_pattern(Config.from_dict(CONFIG))["$or"]
    assert pattern["source"] == ["aws.sagemaker", "aws.batch"]  # the rule's own, beside each alternative's
    [batch] = [branch for branch in pattern["$or"] if branch["source"] == ["aws.batch"]]
    assert batch["detail"]["jobQueue"] == [{"suffix": ":job-queue/gpu-training"}]
    found = {s["Sid"]: s for s in batch_statements(on)}
    assert found["TerminateBatchServiceJobs"]["Action"] == "batch:TerminateServiceJob"
    resource = json.dumps(found["TerminateBatchServiceJobs"]["Resource"])
    assert ":batch:" in resource and "service-job/*" in resource
    assert found["ReadBatchServiceJobs"]["Action"] == ["batch:DescribeServiceJob", "batch:ListServiceJobs"]
    assert found["ReadBatchServiceJobs"]["Resource"] == "*"
    describes = [s for policy in on.find_resources("AWS::IAM::Policy").values()  # the function's, the evaluator's
                 for s in policy["Properties"]["PolicyDocument"]["Statement"] if s.get("Sid") == "DescribeBatchTrainingJobs"]
    assert len(describes) == 2
    for describe in describes:
        assert describe["Action"] == "sagemaker:DescribeTrainingJob"
        assert "training-job/awsbatch*" in json.dumps(describe["Resource"])


def test_the_family_on_with_restarts_grants_submit_service_job_on_its_queues_only(on):
    # Given the example: the family on, StalledTraining's hung jobs restarted
    found = {s["Sid"]: s for s in batch_statements(on)}
    # Then SubmitServiceJob on the queue gpu-training (its quota shares) and a new service job, nothing broader
    submit = found["ResubmitBatchServiceJobs"]
    assert submit["Action"] == "batch:SubmitServiceJob"
    resources = json.dumps(submit["Resource"])
    assert ":job-queue/gpu-training\"" in resources and ":job-queue/gpu-training/quota-share/*" in resources
    assert ":service-job/*" in resources and "job-queue/*" not in resources
    assert found["TagResubmittedBatchServiceJobs"]["Action"] == "batch:TagResource"
    assert ":service-job/*" in json.dumps(found["TagResubmittedBatchServiceJobs"]["Resource"])
    # And PassRole for the request's role goes to SageMaker only
    passroles = [s for policy in on.find_resources("AWS::IAM::Policy").values()
                 for s in policy["Properties"]["PolicyDocument"]["Statement"] if s.get("Sid") == "PassRoleToRestartedJobs"]
    assert passroles and all(s["Condition"] == {"StringEquals": {"iam:PassedToService": ["sagemaker.amazonaws.com"]}}
                             for s in passroles)


def test_without_restarts_or_without_the_family_submit_service_job_is_not_granted(off, no_restart):
    for template in (off, no_restart):
        statements = json.dumps(template.find_resources("AWS::IAM::Policy"))
        assert "batch:SubmitServiceJob" not in statements and "batch:TagResource" not in statements
    assert {s["Sid"] for s in batch_statements(no_restart)} == {"TerminateBatchServiceJobs", "ReadBatchServiceJobs"}


# --- the sweep of waiting jobs: the schedule without `monitor`, and the evaluator's Batch reads ----------------------

SWEEP_ONLY = {"notify": CONFIG["notify"], "batch_queues": ["gpu-training"],
              "batch_job_outcomes": {"WaitingForCapacity": ["notify"]}, "batch_wait_alert_minutes": 30}
NO_WAIT_TOLD = {**SWEEP_ONLY, "batch_job_outcomes": {"Preempted": ["notify"]}}


@pytest.fixture(scope="module")
def sweep_only(tmp_path_factory) -> Template:
    return synthesize(context(SWEEP_ONLY), tmp_path_factory.mktemp("cdk.out"))


@pytest.fixture(scope="module")
def no_wait_told(tmp_path_factory) -> Template:
    return synthesize(context(NO_WAIT_TOLD), tmp_path_factory.mktemp("cdk.out"))


def schedule_rules(template: Template) -> list[dict[str, Any]]:
    return [r for r in template.find_resources("AWS::Events::Rule").values() if "ScheduleExpression" in r["Properties"]]


def role_statements(template: Template, role_id_part: str) -> list[dict[str, Any]]:
    """The statements of the policies attached to the roles whose logical id holds `role_id_part`."""
    roles = [logical for logical in template.find_resources("AWS::IAM::Role") if role_id_part in logical]
    return [s for policy in template.find_resources("AWS::IAM::Policy").values()
            if any(ref.get("Ref") in roles for ref in policy["Properties"]["Roles"])
            for s in policy["Properties"]["PolicyDocument"]["Statement"]]


def test_waits_told_without_monitor_rules_have_the_schedule_and_the_evaluator_lists_the_queues(sweep_only):
    # Given the family on with WaitingForCapacity actions and no monitor block
    [rule] = schedule_rules(sweep_only)
    # Then the schedule runs every 5 minutes, its evaluator may list (and stop through) Batch, nothing of SageMaker's
    # evaluation (no Search, no metrics, no logs)
    assert rule["Properties"]["ScheduleExpression"] == "rate(5 minutes)"
    assert rule["Properties"]["Description"] == "Runs the sweep of waiting Batch service jobs every 5 minute(s)"
    [target] = rule["Properties"]["Targets"]
    assert "rule_actions_evaluation" in json.dumps(target)
    statements = role_statements(sweep_only, "Evaluator")
    actions = json.dumps([s["Action"] for s in statements])
    assert "batch:ListServiceJobs" in actions and "batch:TerminateServiceJob" in actions
    assert "sagemaker:Search" not in actions and "cloudwatch:GetMetricData" not in actions
    assert "logs:FilterLogEvents" not in actions


def test_without_waits_told_no_schedule_is_made_for_batch(no_wait_told):
    # Given the family on without WaitingForCapacity actions, and no monitor block
    # Then no schedule, no evaluator: the events alone are read
    assert schedule_rules(no_wait_told) == []
    assert [r for r in no_wait_told.find_resources("AWS::IAM::Role") if "Evaluator" in r] == []
    assert "batch:ListServiceJobs" in json.dumps(batch_statements(no_wait_told))  # the function's own, as before


def test_with_monitor_rules_the_evaluator_has_the_batch_grants_too(on):
    # Given the example (monitor rules and Batch on): a finding's stop goes through Batch, and the sweep lists
    statements = role_statements(on, "Evaluator")
    actions = json.dumps([s["Action"] for s in statements])
    assert "batch:TerminateServiceJob" in actions and "batch:ListServiceJobs" in actions
    assert len(schedule_rules(on)) == 1
