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
    assert err.startswith(f"rule-actions: {bad}: invalid configuration:\n  {bad}.rules[\"*\"][0].name")
    missing = tmp_path / "missing.json"
    assert deploy.main(["deploy", "--config", str(missing), "--approve", "never"], interactive=False) == 2
    assert capsys.readouterr().err == f"rule-actions: {missing}: cannot be read (no such file or directory)\n"
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


def test_organization_no_region_says_where_each_stack_goes(monkeypatch, cdk, capsys, tmp_path):
    # Given an organization configuration and no region anywhere
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    config = organization_config(tmp_path)

    # When a stack is deployed, Then the hint says where the central and the member stacks go (not "one region")
    assert deploy.main(["deploy", "--config", config, "--approve", "never", "--", "RuleActionsMember"],
                       interactive=False) == 2
    assert capsys.readouterr().err.splitlines() == [
        "rule-actions: no AWS region: set AWS_REGION (or AWS_DEFAULT_REGION, or the profile's region); organization "
        "mode: the central stack goes to organization.central_region (eu-west-1) and serves every region, a member "
        "stack to each region where its account trains"]
    assert cdk == []


def test_organization_bootstrap_says_it_is_for_the_central_stack(account, cdk, capsys, tmp_path):
    config = organization_config(tmp_path)
    assert deploy.main(["bootstrap", "--config", config], interactive=False) == 0
    assert capsys.readouterr().err == (f"rule-actions: bootstrapping the CDK in account {ACCOUNT}, region eu-west-1 "
                                       "(the central stack needs it; member stacks do not)\n")


def test_cdk_arguments_pass_through_and_context_values_are_read(account, cdk, capsys):
    bootstrapped(account)
    stack = json.dumps({"stack_name": "MlRules"})
    assert deploy.main(["deploy", "--approve", "broadening", "--", "-c", f"rule_actions_stack={stack}",
                        "--profile=x"], interactive=False) == 0
    assert "deploying stack MlRules to account" in capsys.readouterr().err
    assert cdk[0][0][-3:] == ["-c", f"rule_actions_stack={stack}", "--profile=x"]


def organization_config(tmp_path, central_account: str = ACCOUNT, central_region: str = "eu-west-1"):
    config = tmp_path / "organization.json"
    config.write_text(json.dumps({"organization": {"accounts": ["111122223333"], "central_account": central_account,
                                                   "central_region": central_region}}))
    return str(config)


def test_organization_a_member_stack_deploys_without_bootstrap_and_says_what_it_is(account, cdk, capsys, tmp_path):
    # Given an organization configuration, and a member account never bootstrapped
    config = organization_config(tmp_path, central_account="210987654321")

    # When its member stack is deployed
    code = deploy.main(["deploy", "--config", config, "--approve", "never", "--", "RuleActionsMember"], interactive=False)

    # Then cdk deploys exactly that stack there, the account and region stated
    assert code == 0
    assert capsys.readouterr().err == (f"rule-actions: deploying stack RuleActionsMember to account {ACCOUNT}, region "
                                       "eu-west-1 (a member stack: it forwards this region's training job events to "
                                       "the central bus)\n")
    [(command, _)] = cdk
    assert command[-1] == "RuleActionsMember"


def test_organization_the_central_stack_deploys_only_from_its_account_and_region(account, cdk, capsys, tmp_path):
    # Given a bootstrapped account, and the central stack pinned elsewhere, then here
    bootstrapped(account)
    elsewhere = organization_config(tmp_path, central_account="210987654321")

    # When it is deployed from this account; Then it is refused, naming both, before cdk runs
    assert deploy.main(["deploy", "--config", elsewhere, "--approve", "never", "--", "RuleActions"],
                       interactive=False) == 2
    assert capsys.readouterr().err.splitlines() == [
        "rule-actions: RuleActions is the organization's central stack, pinned to account 210987654321, region "
        f"eu-west-1 (organization.central_account / central_region); these credentials are account {ACCOUNT}, "
        "region eu-west-1"]
    assert cdk == []

    # And from its own account and region it deploys
    here = organization_config(tmp_path)
    assert deploy.main(["deploy", "--config", here, "--approve", "never", "--", "RuleActions"], interactive=False) == 0
    assert "deploying stack RuleActions to" in capsys.readouterr().err and cdk[0][0][-1] == "RuleActions"


@pytest.mark.parametrize("cdk_args", [[], ["RuleActions", "RuleActionsMember"], ["--all"]], ids=["none", "both", "all"])
def test_organization_one_stack_must_be_named(account, cdk, capsys, tmp_path, cdk_args):
    bootstrapped(account)
    config = organization_config(tmp_path)
    assert deploy.main(["deploy", "--config", config, "--approve", "never", "--", *cdk_args], interactive=False) == 2
    assert capsys.readouterr().err.startswith("rule-actions: organization mode has two stacks: name one, "
                                              "ARGS=RuleActions (first, with the credentials of the central account")
    assert cdk == []
