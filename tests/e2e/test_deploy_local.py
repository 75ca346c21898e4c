"""`make deploy-local` (rule_actions_cli.deploy_local): the steps it runs, in order, and as which account, against
a real moto server; the make targets themselves are recorded here (`make stress` runs the whole thing)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import boto3
import pytest

from rule_actions_cli import deploy_local

ROOT = Path(__file__).resolve().parents[2]
ORGANIZATION = ROOT / "examples" / "organization-config.json"
MEMBER = "111122223333"  # the first account organization-config.json lists


@pytest.fixture
def recorded(monkeypatch):
    """Each step as (make arguments, the account its credentials are in, its region); each stack read back."""
    steps, read = [], []

    def step(title, command, env):
        sts = boto3.client("sts", endpoint_url=env["AWS_ENDPOINT_URL"], region_name=env["AWS_REGION"],
                           aws_access_key_id=env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
                           aws_session_token=env.get("AWS_SESSION_TOKEN"))
        steps.append((command[2:], sts.get_caller_identity()["Account"], env["AWS_REGION"]))

    monkeypatch.setattr(deploy_local, "step", step)
    monkeypatch.setattr(deploy_local, "outputs", lambda env, stack: read.append(stack) or {})
    return steps, read


def test_organization_deploys_the_central_then_a_member_stack_and_destroys_both(recorded, tmp_path):
    # Given an organization configuration whose central stack is in another account and region than moto's own
    config = json.loads(ORGANIZATION.read_text())
    config["organization"].update(central_account="210987654321", central_region="eu-west-1")
    path = tmp_path / "org.json"
    path.write_text(json.dumps(config))

    # When make deploy-local runs with it
    assert deploy_local.main(["--config", str(path)]) == 0

    # Then, as docs/organization.md orders it: bootstrap and the central stack as the central account in its region, a member
    # stack as a member account, both read back, the member destroyed first
    steps, read = recorded
    central = ("210987654321", "eu-west-1")
    assert steps == [
        (["bootstrap", f"CONFIG={path}"], *central),
        (["deploy", f"CONFIG={path}", "APPROVE=never", "ARGS=RuleActions"], *central),
        (["deploy", f"CONFIG={path}", "APPROVE=never", "ARGS=RuleActionsMember"], MEMBER, "eu-west-1"),
        (["destroy", f"CONFIG={path}", "CONFIRM=yes", "ARGS=RuleActionsMember"], MEMBER, "eu-west-1"),
        (["destroy", f"CONFIG={path}", "CONFIRM=yes", "ARGS=RuleActions"], *central),
    ]
    assert read == ["RuleActions", "RuleActionsMember"]


def test_one_account_runs_the_readme_commands_as_printed(recorded):
    assert deploy_local.main([]) == 0
    steps, read = recorded
    # (destroy with the same CONFIG: its "stack" block, not ./rule-actions.json's, names the stack)
    assert [s[0] for s in steps] == [["bootstrap"], ["deploy", "CONFIG=examples/demo-config.json", "APPROVE=never"],
                                     ["destroy", "CONFIG=examples/demo-config.json", "CONFIRM=yes"]]
    assert {(account, region) for _, account, region in steps} == {("123456789012", "us-east-1")}
    assert read == ["RuleActions"]


@pytest.mark.stress
@pytest.mark.parametrize("config", ["examples/demo-config.json", "examples/organization-config.json"])
def test_make_deploy_local_for_real(config):
    done = subprocess.run(["make", "--no-print-directory", "deploy-local", f"CONFIG={config}"], cwd=ROOT,
                          capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "deploy-local: bootstrap, deploy, outputs and destroy" in done.stdout
    assert "NodeVersionSupportWarning" not in done.stdout + done.stderr


def test_the_outputs_moto_leaves_out_are_resolved_from_the_template_literals_included():
    # Given the stack's resources as moto describes them, and outputs of each shape the template writes
    resources = [{"LogicalResourceId": "RuleActionsTopicF07BDED6", "ResourceType": "AWS::SNS::Topic",
                  "PhysicalResourceId": "arn:aws:sns:us-east-1:123456789012:RuleActions-topic"}]
    # When each is resolved (no call to the service is needed for these)
    # Then a Ref is the resource's physical id and a literal (ServiceName: the construct's name) is itself
    assert deploy_local._resolve({"Ref": "RuleActionsTopicF07BDED6"}, resources, None, "") == \
        "arn:aws:sns:us-east-1:123456789012:RuleActions-topic"
    assert deploy_local._resolve("RuleActions", resources, None, "") == "RuleActions"
