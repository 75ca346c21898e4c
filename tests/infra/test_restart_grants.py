"""A restart creates a job: the stack grants sagemaker:CreateTrainingJob, AddTags and ListTags on the training jobs in
scope, iam:PassRole to SageMaker only, and s3:ListBucket on the checkpoint prefixes only; and its rule matches the
Stopped outcome (when the copy is made). Nothing of it without a restart in the configuration. cdk-nag passes (the
synthesis raises on an unacknowledged finding)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import no_statement, synthesize

from rule_actions_cdk.app import project_context

RESTART = {"rules": {"StalledTraining": ["stoptraining", "restart"]},
           "restart_checkpoints": ["s3://ml-checkpoints/llm", "s3://ml-checkpoints/cv/", "s3://other-bucket"],
           "training_job_prefixes": ["llm-", "cv-"]}


def context(**config: Any) -> dict[str, Any]:
    return {**project_context(), "rule_actions": {"notify": {"emails": ["ml@example.com"]}, **config}}


def statements(template: Template) -> list[dict[str, Any]]:
    return [s for resource in template.find_resources("AWS::IAM::Policy").values()
            for s in resource["Properties"]["PolicyDocument"]["Statement"]]


def pattern(template: Template) -> dict[str, Any]:
    rules = [r for r in template.find_resources("AWS::Events::Rule").values() if "EventPattern" in r["Properties"]]
    return rules[0]["Properties"]["EventPattern"]


@pytest.fixture(scope="module")
def restarting(tmp_path_factory) -> Template:
    return synthesize(context(**RESTART), tmp_path_factory.mktemp("cdk.out"))


def test_create_add_tags_and_list_tags_are_granted_on_the_training_jobs_in_scope_only(restarting):
    copy = next(s for s in statements(restarting) if s["Sid"] == "CopyTrainingJobs")
    assert sorted(copy["Action"]) == ["sagemaker:AddTags", "sagemaker:CreateTrainingJob", "sagemaker:ListTags"]
    resources = json.dumps(copy["Resource"])
    assert "training-job/llm-*" in resources and "training-job/cv-*" in resources
    assert "training-job/*" not in resources


def test_pass_role_goes_to_sagemaker_only(restarting):
    passing = next(s for s in statements(restarting) if s["Sid"] == "PassRoleToRestartedJobs")
    assert passing["Action"] == "iam:PassRole"
    assert passing["Condition"] == {"StringEquals": {"iam:PassedToService": ["sagemaker.amazonaws.com"]}}
    assert ":iam::" in json.dumps(passing["Resource"]) and ":role/*" in json.dumps(passing["Resource"])


def test_the_configured_roles_are_the_only_ones_passed(tmp_path):
    role = "arn:aws:iam::123456789012:role/SageMakerTraining"
    template = synthesize(context(**RESTART, restart_roles=[role]), tmp_path)
    passing = next(s for s in statements(template) if s["Sid"] == "PassRoleToRestartedJobs")
    assert passing["Resource"] == role


def test_checkpoints_are_listed_under_their_prefixes_only(restarting):
    listing = {json.dumps(s["Resource"]): s for s in statements(restarting) if s["Sid"].startswith("ListCheckpoints")}
    assert len(listing) == 2  # one statement per bucket
    by_bucket = {("other-bucket" if "other-bucket" in k else "ml-checkpoints"): s for k, s in listing.items()}
    assert by_bucket["ml-checkpoints"]["Action"] == "s3:ListBucket"
    assert by_bucket["ml-checkpoints"]["Condition"] == {"StringLike": {"s3:prefix": ["llm", "llm/*", "cv", "cv/*"]}}
    assert by_bucket["other-bucket"]["Condition"] == {"StringLike": {"s3:prefix": ["*"]}}
    assert not any(s["Action"] in ("s3:GetObject", "s3:*") for s in statements(restarting))


def test_the_rule_matches_the_stopped_outcome_when_the_copy_is_made(restarting):
    clauses = pattern(restarting)["detail"]["$or"]
    stopped = [c for c in clauses if c.get("TrainingJobStatus") == ["Stopped"]]
    assert len(stopped) == 1
    assert "MaxRuntimeExceeded" in json.dumps(stopped[0]["SecondaryStatus"])  # a timeout is not this outcome


def test_nothing_of_a_restart_without_one(tmp_path):
    template = synthesize(context(rules={"StalledTraining": ["stoptraining"]}), tmp_path)
    for action in ("sagemaker:CreateTrainingJob", "iam:PassRole", "s3:ListBucket"):
        template.all_resources_properties("AWS::IAM::Policy", no_statement({"Action": Match.array_with([action])}))
        template.all_resources_properties("AWS::IAM::Policy", no_statement({"Action": action}))
    stopped = [c for c in pattern(template)["detail"]["$or"] if c.get("TrainingJobStatus") == ["Stopped"]]
    assert all("ResourceConfig" in c for c in stopped)  # only a warm pool's release follows a stop then


def role_statements(template: Template, role: str) -> list[dict[str, Any]]:
    """The statements of the policies attached to the role whose logical id starts with `role`."""
    return [s for resource in template.find_resources("AWS::IAM::Policy").values()
            if any(r["Ref"].startswith(role) for r in resource["Properties"]["Roles"])
            for s in resource["Properties"]["PolicyDocument"]["Statement"]]


@pytest.mark.parametrize("release", [True, False])
def test_a_stop_releases_its_warm_pool_through_the_functions_own_grant(tmp_path, release):
    # Given a configuration whose monitor rule stops jobs, with release_warm_pools on (the default) or off
    template = synthesize(context(rules={"StalledTraining": ["stoptraining"]},
                                  monitor={"rules": {"StalledTraining": {}}},
                                  **({} if release else {"release_warm_pools": False})), tmp_path)
    # When the function's and the evaluator's statements are read
    function = [s for s in role_statements(template, "RuleActionsFunctionRole") if s["Sid"].startswith("Release")]
    evaluator = [s for s in role_statements(template, "RuleActionsEvaluatorRole") if "UpdateTrainingJob" in
                 json.dumps(s["Action"])]
    # Then the function, which carries out the release at the job's Stopped outcome, may update the training jobs
    # in scope exactly when the rule matches those Stopped events; the evaluator never may
    released = [c for c in pattern(template)["detail"]["$or"] if "ResourceConfig" in c]
    assert [s["Sid"] for s in function] == (["ReleaseWarmPoolsOfTrainingJobs"] if release else [])
    assert all(s["Action"] == "sagemaker:UpdateTrainingJob" and "training-job/*" in json.dumps(s["Resource"])
               for s in function)
    assert bool(released) == release and not evaluator
