"""The stacks of a configuration with every job family on (examples/families-config.json, under prefixes, and in
organization mode): one rule whose pattern is the registry's whole (a branch per family), the IAM statements each
family's reads need and nothing more (a family's stop only when the configuration can ask for it), cdk-nag clean,
and the member stack forwarding and granting every family."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import ROOT, arn, synthesize

from rule_actions.config import Config
from rule_actions_cdk.app import build_app, project_context
from rule_actions_cdk.plugins import event_pattern

FAMILIES = json.loads((ROOT / "examples" / "families-config.json").read_text())
PREFIXED = {**FAMILIES, "tuning_job_prefixes": ["hpo-"], "processing_job_prefixes": ["prep-"],
            "pipeline_prefixes": ["churn-"], "transform_job_prefixes": ["batch-"], "training_job_prefixes": ["exp-"]}
ORGANIZATION = {"org_id": "o-a1b2c3d4e5", "accounts": ["111122223333"], "central_account": "123456789012",
                "central_region": "us-east-1"}


def context(config: dict[str, Any]) -> dict[str, Any]:
    return {**project_context(), "rule_actions": config}


@pytest.fixture(scope="module")
def prefixed(tmp_path_factory) -> Template:
    return synthesize(context(PREFIXED), tmp_path_factory.mktemp("cdk.out"))  # cdk-nag raises on a finding


def statements(template: Template) -> list[dict[str, Any]]:
    return [s for policy in template.find_resources("AWS::IAM::Policy").values()
            for s in policy["Properties"]["PolicyDocument"]["Statement"] if "sagemaker" in json.dumps(s)]


def actions_of(statement: dict[str, Any]) -> list[str]:
    found = statement["Action"]
    return [found] if isinstance(found, str) else found


def test_the_rule_s_pattern_is_the_registry_s_a_branch_per_family(prefixed):
    [rule] = prefixed.find_resources("AWS::Events::Rule").values()
    pattern = rule["Properties"]["EventPattern"]
    assert pattern == event_pattern(Config.from_dict(PREFIXED))
    assert [branch["detail-type"][0] for branch in pattern["$or"]] == [
        "SageMaker Training Job State Change", "SageMaker HyperParameter Tuning Job State Change",
        "SageMaker Processing Job State Change", "SageMaker Model Building Pipeline Execution Status Change",
        "SageMaker Transform Job State Change"]


def test_each_family_is_granted_its_reads_under_its_prefixes_and_only_training_is_stopped(prefixed):
    found = {s["Sid"]: s for s in statements(prefixed)}
    stops = [a for s in found.values() for a in actions_of(s) if a.startswith("sagemaker:Stop")]
    assert stops == ["sagemaker:StopTrainingJob"]
    assert actions_of(found["ReadHyperparameterTuningJobs"]) == [
        "sagemaker:DescribeHyperParameterTuningJob", "sagemaker:ListTrainingJobsForHyperParameterTuningJob"]
    assert found["ReadHyperparameterTuningJobs"]["Resource"] == arn("sagemaker", "hyper-parameter-tuning-job/hpo-*")
    assert actions_of(found["DescribeProcessingJobs"]) == ["sagemaker:DescribeProcessingJob"]
    assert found["DescribeProcessingJobs"]["Resource"] == arn("sagemaker", "processing-job/prep-*")
    assert found["ListPipelineExecutionSteps"]["Resource"] == arn("sagemaker", "pipeline/churn-*")
    # A failed step's job is named by SageMaker, outside every prefix: describe only, read-only, per job type
    step_jobs = found["DescribePipelineStepJobs"]
    assert all(a.startswith(("sagemaker:Describe", "sagemaker:ListTrainingJobsFor")) for a in actions_of(step_jobs))
    assert sorted(map(json.dumps, step_jobs["Resource"])) == sorted(json.dumps(arn("sagemaker", f"{kind}/*")) for kind in
                                     ("training-job", "processing-job", "transform-job", "hyper-parameter-tuning-job"))
    # An execution that failed before any step did is described (its own FailureReason), under the prefixes only
    assert actions_of(found["DescribePipelineExecutions"]) == ["sagemaker:DescribePipelineExecution"]
    assert found["DescribePipelineExecutions"]["Resource"] == arn("sagemaker", "pipeline/churn-*")
    # A step job named lower-cased in its ARN is found by a listing: List actions support no resource-level
    # permissions, so Resource "*", read-only, in a statement of their own
    listing = found["ListPipelineStepJobs"]
    assert sorted(actions_of(listing)) == ["sagemaker:ListHyperParameterTuningJobs", "sagemaker:ListProcessingJobs",
                                           "sagemaker:ListTrainingJobs", "sagemaker:ListTransformJobs"]
    assert listing["Resource"] == "*" and listing["Effect"] == "Allow"
    # Transform jobs are read from their event alone: no statement of theirs
    assert not [s for s in found.values() if "Transform" in s["Sid"]]


@pytest.mark.parametrize(("owner", "sid", "call", "resource"), [
    ("tuning_job", "StopAndDescribeHyperparameterTuningJobs", "sagemaker:StopHyperParameterTuningJob",
     "hyper-parameter-tuning-job/hpo-*"),
    ("pipeline_execution", "StopAndDescribePipelineExecutions", "sagemaker:StopPipelineExecution", "pipeline/churn-*"),
])
def test_a_stop_naming_an_owner_grants_stopping_that_family_under_its_prefixes_only(tmp_path, owner, sid, call,
                                                                                    resource):
    # Given the families' configuration whose rules stop a job's owner
    config = {**PREFIXED, "rules": {"StalledTraining": [{"name": "stop", "job": owner}], "*": ["notify"]}}
    # When it is synthesized (cdk-nag raises on a finding)
    found = {s["Sid"]: s for s in statements(synthesize(context(config), tmp_path))}
    # Then that family's jobs under its prefixes may be stopped and described, and no other family's but training's
    assert sorted(actions_of(found[sid])) == sorted([call, call.replace("Stop", "Describe")])
    assert found[sid]["Resource"] == arn("sagemaker", resource)
    stops = sorted(a for s in found.values() for a in actions_of(s) if a.startswith("sagemaker:Stop"))
    assert stops == sorted({call, "sagemaker:StopTrainingJob"})


def test_stop_owners_grants_stopping_that_owner_s_family(tmp_path):
    config = {**PREFIXED, "stop_owners": ["tuning_job"]}
    found = {s["Sid"]: s for s in statements(synthesize(context(config), tmp_path, nag=False))}
    assert sorted(actions_of(found["StopAndDescribeHyperparameterTuningJobs"])) == [
        "sagemaker:DescribeHyperParameterTuningJob", "sagemaker:StopHyperParameterTuningJob"]
    assert not [s for s in found.values() if "sagemaker:StopPipelineExecution" in actions_of(s)]


def test_without_a_stop_naming_an_owner_no_owner_is_granted_a_stop(prefixed):
    stops = [a for s in statements(prefixed) for a in actions_of(s) if a.startswith("sagemaker:Stop")]
    assert stops == ["sagemaker:StopTrainingJob"]


def test_a_family_without_outcomes_adds_no_branch_and_no_statement(tmp_path):
    only = {**FAMILIES}
    for key in ("tuning_job_outcomes", "processing_job_outcomes", "pipeline_outcomes", "transform_job_outcomes"):
        only[key] = {}
    template = synthesize(context(only), tmp_path, nag=False)
    [rule] = template.find_resources("AWS::Events::Rule").values()
    assert rule["Properties"]["EventPattern"]["detail-type"] == ["SageMaker Training Job State Change"]
    sids = {s["Sid"] for s in statements(template)}
    # (a stop's warm pool is released once the job has Stopped: release_warm_pools, on by default)
    assert sids == {"StopAndDescribeTrainingJobs", "ListTrainingJobs", "ReleaseWarmPoolsOfTrainingJobs"}


def test_organization_mode_forwards_and_grants_every_family(tmp_path):
    app, _ = build_app(context({**FAMILIES, "organization": ORGANIZATION}), outdir=str(tmp_path))
    app.synth()  # cdk-nag raises on a finding
    member = Template.from_stack(app.node.find_child("RuleActionsMember"))
    central = Template.from_stack(app.node.find_child("RuleActions"))
    expected = event_pattern(Config.from_dict({**FAMILIES, "organization": ORGANIZATION}))
    member.has_resource_properties("AWS::Events::Rule", {"EventPattern": Match.exact(expected)})
    central.has_resource_properties("AWS::Events::Rule", {"EventPattern": Match.exact(expected)})
    granted = {a for s in statements(member) for a in actions_of(s)}
    assert {"sagemaker:DescribeHyperParameterTuningJob", "sagemaker:ListTrainingJobsForHyperParameterTuningJob",
            "sagemaker:DescribeProcessingJob", "sagemaker:ListPipelineExecutionSteps",
            "sagemaker:DescribePipelineExecution", "sagemaker:ListProcessingJobs",
            "sagemaker:StopTrainingJob"} <= granted
    # the central function's role reaches the members through the executor role: no family statement of its own
    assert not [s for s in statements(central) if s.get("Sid") in ("ReadHyperparameterTuningJobs",
                                                                  "ListPipelineExecutionSteps")]
