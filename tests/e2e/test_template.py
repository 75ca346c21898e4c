"""`rule-actions template`: the stack as a CloudFormation template plus its code zips, deployed the way its printed
commands say (the zips uploaded to a bucket of the user's, the template created with CodeBucket naming it) into
the embedded AWS, with no CDK bootstrap."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SMS_CONFIG = {"notify": {"sms": ["+15555550100"]}, "allowed_endpoints": ["+1555*"],
              "rules": {"*": ["stoptraining", "notify"]}}


def written(config: dict[str, Any], tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """Run the command on `config`; (its output folder, the central template)."""
    path = tmp_path / "rule-actions.json"
    path.write_text(json.dumps(config))
    assert main(["template", "--config", str(path), "--out", str(tmp_path / "out")]) == 0
    return tmp_path / "out", json.loads((tmp_path / "out" / "RuleActions.template.json").read_text())


def code_keys(template: dict[str, Any]) -> set[str]:
    return {r["Properties"]["Code"]["S3Key"] for r in template["Resources"].values()
            if r["Type"] == "AWS::Lambda::Function"}


@pytest.fixture(scope="module")
def sms_template(tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    return written(SMS_CONFIG, tmp_path_factory.mktemp("template"))


def test_the_template_reads_its_code_from_the_bucket_parameter_and_needs_no_bootstrap(sms_template):
    out, template = sms_template
    # Then its only parameter is the code's bucket, every function reads its code from it, and nothing of the
    # CDK bootstrap is named (no version parameter or rule, no bootstrap bucket)
    assert list(template["Parameters"]) == ["CodeBucket"] and "Rules" not in template
    functions = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"]
    assert {json.dumps(f["Code"]["S3Bucket"]) for f in functions} == {json.dumps({"Fn::Sub": "${CodeBucket}"})}
    assert "hnb659fds" not in json.dumps(template) and "BootstrapVersion" not in json.dumps(template)
    # and the zips written are exactly those the template names (the function's and, for SMS delivery logs, the
    # custom resource's), the function's holding the handler, and its bytecode only for the runtime it was compiled
    # for (settings.RUNTIME: an interpreter of the runtime's version found, else no bytecode)
    assert {p.name for p in (out / "code").iterdir()} == code_keys(template) and len(code_keys(template)) == 2
    [handler] = [f for f in functions if f["Handler"] == "rule_actions.handler.lambda_handler"]
    names = zipfile.ZipFile(out / "code" / handler["Code"]["S3Key"]).namelist()
    compiled = [n for n in names if "__pycache__" in n]
    assert "rule_actions/handler.py" in names
    from rule_actions_cdk.settings import RUNTIME

    assert handler["Runtime"] == f"python{RUNTIME.version}"
    if RUNTIME.interpreter:
        tag = "cpython-" + RUNTIME.version.replace(".", "")
        assert f"rule_actions/__pycache__/handler.{tag}.pyc" in compiled
        assert all(n.endswith(f".{tag}.pyc") for n in compiled)
    else:
        assert not compiled


def test_a_second_run_writes_the_same_bytes(sms_template, tmp_path):
    out, template = sms_template
    again, _ = written(SMS_CONFIG, tmp_path)
    for key in code_keys(template):
        assert (again / "code" / key).read_bytes() == (out / "code" / key).read_bytes()


# moto's CloudFormation does not model every resource type of the stack and warns for each one it skips
@pytest.mark.filterwarnings("ignore:Tried to parse AWS::")
def test_the_printed_commands_deploy_it_without_a_bootstrap(sms_template, monkeypatch):
    out, template = sms_template
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        # Given an account with nothing but the user's bucket
        s3, cloudformation = boto3.client("s3"), boto3.client("cloudformation")
        s3.create_bucket(Bucket="team-artifacts")
        # When the zips are uploaded at their names and the template is deployed naming that bucket
        for path in (out / "code").iterdir():
            s3.upload_file(str(path), "team-artifacts", path.name)
        # (moto would run the custom resource, the account's SMS settings, in Docker: it is left out; its provider
        # function, whose code is the other zip, is deployed)
        resources = {k: r for k, r in template["Resources"].items() if not r["Type"].startswith("Custom::")}
        cloudformation.create_stack(StackName="RuleActions", TemplateBody=json.dumps({**template, "Resources": resources}),
                                    Parameters=[{"ParameterKey": "CodeBucket", "ParameterValue": "team-artifacts"}],
                                    Capabilities=["CAPABILITY_NAMED_IAM"])
        # Then the stack is created, and its function runs the uploaded handler
        [stack] = cloudformation.describe_stacks(StackName="RuleActions")["Stacks"]
        assert stack["StackStatus"] == "CREATE_COMPLETE"
        lambda_ = boto3.client("lambda")
        function = lambda_.get_function(FunctionName="RuleActions-handler")["Configuration"]
        provider = lambda_.get_function(FunctionName="RuleActions-sms-settings")["Configuration"]
        sizes = {key: (out / "code" / key).stat().st_size for key in code_keys(template)}
        [handler_key] = [k for k in sizes if "rule_actions/handler.py" in zipfile.ZipFile(out / "code" / k).namelist()]
        assert function["Handler"] == "rule_actions.handler.lambda_handler"
        assert function["CodeSize"] == sizes[handler_key]
        assert provider["CodeSize"] == sizes[next(k for k in sizes if k != handler_key)]


def test_organization_mode_writes_the_member_template_too(tmp_path, capsys):
    config = json.loads((ROOT / "examples" / "organization-config.json").read_text())
    out, _ = written(config, tmp_path)
    member = json.loads((out / "RuleActionsMember.template.json").read_text())
    assert any(r["Type"] == "AWS::Events::Rule" for r in member["Resources"].values())
    printed, err = capsys.readouterr()
    assert "--stack-name RuleActionsMember" in printed
    # and the configuration's warnings are said, once, each field named from the file, as the replay names it (the
    # example allows any address: allowed_endpoints is empty)
    assert err.count("rule-actions: the configuration is valid, but:") == 1
    assert "rule-actions.json.allowed_endpoints is empty" in " ".join(err.split())
    assert "rule_actions.allowed_endpoints" not in err


def test_a_bad_configuration_writes_nothing_and_names_the_key(tmp_path, capsys):
    path = tmp_path / "rule-actions.json"
    path.write_text(json.dumps({"dedup_ttl_hours": "soon"}))
    assert main(["template", "--config", str(path), "--out", str(tmp_path / "out")]) == 2
    assert 'dedup_ttl_hours: "soon"' in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
