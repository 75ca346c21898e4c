"""`make bootstrap / deploy / destroy` (rule_actions_cli.deploy): what reaches the CDK CLI, and the one-line
refusals before it runs, in a shell without a terminal. The CLI itself is replaced by a recorder here;
`make deploy-local` runs the real one against moto server."""

from __future__ import annotations

import json
import subprocess

import boto3
import pytest
from moto import mock_aws

from rule_actions_cli import deploy

ACCOUNT = "123456789012"


@pytest.fixture
def cdk(monkeypatch):
    """Records the command and environment the CDK CLI would get; answers exit status 0."""
    calls = []

    def run(command, cwd=None, env=None, check=False):
        calls.append((command, env))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(deploy.subprocess, "run", run)
    return calls


@pytest.fixture
def account(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    with mock_aws():
        yield boto3.client("ssm", region_name="eu-west-1")


def bootstrapped(ssm):
    ssm.put_parameter(Name=deploy.BOOTSTRAP_PARAMETER, Value="30", Type="String")


def test_deploy_states_where_and_passes_the_file_and_the_approval(account, cdk, capsys, tmp_path):
    # Given a bootstrapped account and region, and a configuration file
    bootstrapped(account)
    config = tmp_path / "my.json"
    config.write_text(json.dumps({"notify": {"emails": ["ml@example.com"]}}))
    # When deploying without a terminal, with APPROVE
    code = deploy.main(["deploy", "--config", str(config), "--approve", "never", "--"], interactive=False)
    # Then the account and region are stated first, and cdk deploys the file's configuration there
    assert code == 0
    assert capsys.readouterr().err == (f"rule-actions: deploying stack RuleActions to account {ACCOUNT}, region "
                                       "eu-west-1 (the stack sees the training jobs of its own region only)\n")
    [(command, env)] = cdk
    assert command[1:] == ["deploy", "--no-notices", "-c", f"rule_actions_file={config}", "--require-approval", "never"]
    assert (env["AWS_REGION"], env["AWS_DEFAULT_REGION"]) == ("eu-west-1", "eu-west-1")


@pytest.mark.parametrize(("argv", "line"), [
    (["deploy"], "rule-actions: no terminal to approve security-related changes (IAM, key and topic policies): "
                 "pass APPROVE=never (deploy without asking; a first deploy needs it) or APPROVE=broadening (stop "
                 "if an update widens permissions)"),
    (["deploy", "--approve", "yes"], "rule-actions: APPROVE=yes is not one of never, broadening, any-change"),
    (["destroy"], "rule-actions: no terminal to confirm the deletion: pass CONFIRM=yes"),
    (["destroy", "--confirm", "y"], "rule-actions: CONFIRM=y: only CONFIRM=yes deletes the stack without asking"),
])
def test_without_a_terminal_an_answer_must_be_given_in_advance(account, cdk, capsys, argv, line):
    bootstrapped(account)
    assert deploy.main(argv, interactive=False) == 2
    assert capsys.readouterr().err.splitlines() == [line]
    assert cdk == []  # cdk never ran


def test_in_a_terminal_cdk_asks(account, cdk):
    bootstrapped(account)
    assert deploy.main(["deploy"], interactive=True) == 0 and deploy.main(["destroy"], interactive=True) == 0
    assert [command[1:] for command, _ in cdk] == [["deploy", "--no-notices"], ["destroy", "--no-notices"]]


def test_destroy_confirmed_is_forced(account, cdk):
    assert deploy.main(["destroy", "--confirm", "yes"], interactive=False) == 0
    assert cdk[0][0][1:] == ["destroy", "--no-notices", "--force"]


def test_an_invalid_configuration_file_is_named_before_anything_runs(account, cdk, capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rules": {"*": ["reboot"]}}))
    assert deploy.main(["deploy", "--config", str(bad), "--approve", "never"], interactive=False) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rule-actions: {bad}: invalid configuration:\n  rule_actions.rules[\"*\"][0].name")
    missing = tmp_path / "missing.json"
    assert deploy.main(["deploy", "--config", str(missing), "--approve", "never"], interactive=False) == 2
    assert capsys.readouterr().err.startswith(f"rule-actions: {missing}: not a readable JSON file")
    assert cdk == []


def test_an_account_not_bootstrapped_is_told_to_run_make_bootstrap(account, cdk, capsys):
    assert deploy.main(["deploy", "--approve", "never"], interactive=False) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"rule-actions: account {ACCOUNT}, region eu-west-1 is not bootstrapped for the CDK: run `make bootstrap` "
        "once (with the same AWS settings)"]
    # and bootstrap names the environment for cdk
    assert deploy.main(["bootstrap"], interactive=False) == 0
    assert cdk[0][0][1:] == ["bootstrap", "--no-notices", f"aws://{ACCOUNT}/eu-west-1"]


def test_no_region_is_one_line(monkeypatch, cdk, capsys, tmp_path):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    assert deploy.main(["deploy", "--approve", "never"], interactive=False) == 2
    assert capsys.readouterr().err.splitlines() == [
        "rule-actions: no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or the profile's region); the stack "
        "is deployed to one region and serves the training jobs of that region"]
    assert cdk == []


def test_cdk_arguments_pass_through_and_context_values_are_read(account, cdk, capsys):
    bootstrapped(account)
    stack = json.dumps({"stack_name": "MlRules"})
    assert deploy.main(["deploy", "--approve", "broadening", "--", "-c", f"rule_actions_stack={stack}",
                        "--profile=x"], interactive=False) == 0
    assert "deploying stack MlRules to account" in capsys.readouterr().err
    assert cdk[0][0][-3:] == ["-c", f"rule_actions_stack={stack}", "--profile=x"]
