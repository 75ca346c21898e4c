"""The constructs in a user's own CDK app: nothing read from cdk.json or the context, the configuration as a mapping
(rule-actions.json's keys) or typed, an existing topic or KMS key passed in, cdk-nag's acknowledgments scoped to the
construct's own resources, and the member account's construct."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sns as sns
from aws_cdk.assertions import Annotations, Match, Template
from cdk_nag import AwsSolutionsChecks
from stack_helpers import get_att, ref

import rule_actions_cdk
from rule_actions.config import Config, ConfigError
from rule_actions.contract import ENV_TOPIC_ARN
from rule_actions_cdk import RuleActions, RuleActionsMember

CONFIG = {"$schema": "./rule-actions.schema.json", "rules": {"*": ["stoptraining", "notify"]},
          "job_outcomes": {"Failed": ["notify"]}}


def user_stack(tmp_path: Path, name: str = "MyTraining") -> tuple[cdk.App, cdk.Stack]:
    app = cdk.App(outdir=str(tmp_path / "cdk.out"))
    return app, cdk.Stack(app, name)


def nag_findings(app: cdk.App, tmp_path: Path) -> list[tuple[str, str]]:
    """(rule, construct path) of every finding cdk-nag's AwsSolutions checks report on the app."""
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    try:
        app.synth()
    except RuntimeError as err:
        assert "ValidationFailed" in str(err)
    report = json.loads((tmp_path / "cdk.out" / "validation-report.json").read_text())
    return [(violation["ruleName"], found["constructPath"]) for plugin in report["pluginReports"]
            for violation in plugin["violations"] for found in violation["violatingConstructs"]]


def test_the_package_names_its_constructs_and_nothing_else():
    # Given the package's public names / Then each resolves, and an unknown one is an AttributeError
    assert rule_actions_cdk.RuleActions.__module__ == "rule_actions_cdk.construct"
    assert {"RuleActions", "RuleActionsMember", "StackSettings"} <= set(dir(rule_actions_cdk))
    with pytest.raises(AttributeError, match="RuleAction"):
        rule_actions_cdk.RuleAction  # noqa: B018


def test_a_mapping_and_the_typed_configuration_give_one_template(tmp_path):
    # Given the same configuration as rule-actions.json's keys (with its "$schema" line) and as a Config
    templates = []
    for index, config in enumerate((CONFIG, Config.from_dict({k: v for k, v in CONFIG.items() if k != "$schema"}))):
        _, stack = user_stack(tmp_path / str(index))
        RuleActions(stack, "Alerts", config=config)
        templates.append(Template.from_stack(stack).to_json())
    # Then the templates are the same, named after the user's stack
    assert templates[0] == templates[1]
    functions = Template.from_json(templates[0]).find_resources("AWS::Lambda::Function")
    assert {f["Properties"]["FunctionName"] for f in functions.values()} == {"MyTraining-handler"}


def test_a_bad_mapping_names_the_key_and_value(tmp_path):
    _, stack = user_stack(tmp_path)
    with pytest.raises(ConfigError, match=r'config\.dedup_ttl_hours: "soon" is not'):
        RuleActions(stack, "Alerts", config={**CONFIG, "dedup_ttl_hours": "soon"})
    with pytest.raises(ConfigError, match="config: must be"):
        RuleActions(stack, "Other", config=["rules"])  # type: ignore[arg-type]


def test_cdk_nag_reports_the_users_resources_and_none_of_the_constructs(tmp_path):
    # Given a user's stack with the construct beside a bucket of their own that breaks two AwsSolutions rules
    app, stack = user_stack(tmp_path)
    RuleActions(stack, "Alerts", config=CONFIG)
    s3.Bucket(stack, "Data")
    # When cdk-nag checks the whole app
    findings = nag_findings(app, tmp_path)
    # Then the user's bucket is reported, and nothing of the construct: its acknowledgments are its own
    assert {rule for rule, path in findings if path.startswith("MyTraining/Data/")} >= {"AwsSolutions-S1",
                                                                                         "AwsSolutions-S10"}
    assert [f for f in findings if not f[1].startswith("MyTraining/Data/")] == []


def test_an_existing_topic_and_key_are_used_and_the_key_policy_gap_is_said(tmp_path):
    # Given a user's topic and a key defined elsewhere (its policy cannot be changed here)
    _, stack = user_stack(tmp_path)
    topic = sns.Topic(stack, "TeamTopic", enforce_ssl=True)
    key = kms.Key.from_key_arn(stack, "Key", "arn:aws:kms:us-east-1:111122223333:key/"
                                            "1234abcd-12ab-34cd-56ef-1234567890ab")
    # When the construct is given both
    actions = RuleActions(stack, "Alerts", config=CONFIG, topic=topic, key=key)
    template = Template.from_stack(stack)
    # Then no key is created, the function publishes to the user's topic, the ops topic uses the user's key
    template.resource_count_is("AWS::KMS::Key", 0)
    template.resource_count_is("AWS::SNS::Topic", 2)  # the user's and the construct's ops topic
    assert actions.topic is topic
    topic_id = stack.get_logical_id(topic.node.default_child)
    template.has_resource_properties("AWS::Lambda::Function", {"Environment": {"Variables": Match.object_like(
        {ENV_TOPIC_ARN: ref(topic_id)})}})
    template.has_resource_properties("AWS::SNS::Topic", {"TopicName": "MyTraining-ops", "KmsMasterKeyId": Match.any_value()})
    # and a warning says which statements the key's own policy must grant
    warnings = Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("rule-actions:key-policy"))
    texts = " ".join(str(w.entry.data) for w in warnings)
    assert "AlarmsPublishToEncryptedTopic" in texts and "RuleWritesToEncryptedDeadLetterQueue" in texts


def test_a_key_of_the_same_stack_takes_the_statements_without_a_warning(tmp_path):
    _, stack = user_stack(tmp_path)
    key = kms.Key(stack, "TeamKey", enable_key_rotation=True)
    RuleActions(stack, "Alerts", config=CONFIG, key=key)
    template = Template.from_stack(stack)
    template.resource_count_is("AWS::KMS::Key", 1)
    template.has_resource_properties("AWS::KMS::Key", {"KeyPolicy": {"Statement": Match.array_with([
        Match.object_like({"Sid": "AlarmsPublishToEncryptedTopic"})])}})
    template.has_resource_properties("AWS::SNS::Topic", {"TopicName": "MyTraining-notifications",
                                                         "KmsMasterKeyId": get_att(stack.get_logical_id(
                                                             key.node.default_child))})
    assert Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("rule-actions:key-policy")) == []


ORGANIZATION: dict[str, Any] = {"rules": {"*": ["stoptraining"]}, "organization": {
    "accounts": ["111122223333"], "central_account": "123456789012", "central_region": "us-east-1"}}


def test_the_member_construct_forwards_to_the_central_bus_in_a_users_stack(tmp_path):
    # Given a member account's own stack with the member construct
    app, stack = user_stack(tmp_path, "Platform")
    RuleActionsMember(stack, "Member", config=ORGANIZATION, central_stack_name="MlAlerts")
    template = Template.from_stack(stack)
    # Then the forwarding rule targets the central account's bus, and the executor role exists
    template.has_resource_properties("AWS::Events::Rule", {"Targets": Match.array_with([Match.object_like(
        {"Arn": {"Fn::Join": ["", ["arn:", ref("AWS::Partition"),
                                   ":events:us-east-1:123456789012:event-bus/MlAlerts-bus"]]}})])})
    template.resource_count_is("AWS::IAM::Role", 2)  # the forwarding role and the executor
    # and cdk-nag finds nothing in it
    assert nag_findings(app, tmp_path) == []


PHYSICAL_NAMES = {"AWS::Lambda::Function": "FunctionName", "AWS::DynamoDB::Table": "TableName",
                  "AWS::Logs::LogGroup": "LogGroupName", "AWS::CloudWatch::Alarm": "AlarmName",
                  "AWS::KMS::Alias": "AliasName", "AWS::SNS::Topic": "TopicName", "AWS::SQS::Queue": "QueueName",
                  "AWS::Events::Rule": "Name", "AWS::CloudWatch::Dashboard": "DashboardName"}
TEXTS = {**CONFIG, "notify": {"sms": ["+14155550100"]}}


def physical_names(template: Template) -> list[str]:
    return [properties[key] for kind, key in PHYSICAL_NAMES.items()
            for resource in template.find_resources(kind).values()
            if isinstance(properties := resource.get("Properties", {}), dict) and isinstance(properties.get(key), str)]


def test_two_constructs_with_their_own_names_synthesize_side_by_side_without_a_shared_name(tmp_path):
    # Given one stack holding two constructs, each with its own name
    app, stack = user_stack(tmp_path)
    RuleActions(stack, "Alerts", config=CONFIG)
    RuleActions(stack, "Audit", config=CONFIG, name="MyTraining-audit")
    # When the stack synthesizes / Then no physical name is used twice, and the second's names carry its name
    names = physical_names(Template.from_stack(stack))
    assert len(names) == len(set(names)) and "MyTraining-audit-handler" in names and "alias/MyTraining-audit" in names
    assert {"MyTraining-dashboard", "MyTraining-audit-dashboard"} <= set(names)
    # and cdk-nag finds nothing in either
    assert nag_findings(app, tmp_path) == []


def test_two_constructs_deriving_one_name_are_refused_naming_the_clash_and_the_fix(tmp_path):
    # Given a stack that already holds a construct named after the stack
    _, stack = user_stack(tmp_path)
    RuleActions(stack, "Alerts", config=CONFIG)
    # When a second one is added without a name of its own (or with the same name)
    # Then synthesis stops, naming both constructs, the shared name and the fix
    for construct_id, name in (("Audit", None), ("Other", "MyTraining")):
        with pytest.raises(ConfigError, match=rf'MyTraining/{construct_id}.*"MyTraining".*MyTraining/Alerts.*name='):
            RuleActions(stack, construct_id, config=CONFIG, name=name)


def test_two_constructs_cannot_both_set_the_accounts_sms_delivery_logs(tmp_path):
    _, stack = user_stack(tmp_path)
    RuleActions(stack, "Alerts", config=TEXTS)
    with pytest.raises(ConfigError, match=r"sms_delivery_logs.*MyTraining/Alerts"):
        RuleActions(stack, "Audit", config=TEXTS, name="Audit")
    # and with the setting off in the second, both synthesize
    RuleActions(stack, "Audit2", config=TEXTS, name="Audit2",
                settings=rule_actions_cdk.StackSettings(sms_delivery_logs=False))
    names = physical_names(Template.from_stack(stack))
    assert len(names) == len(set(names))


def test_a_key_of_another_region_is_refused_and_of_another_account_warned(tmp_path):
    # Given a stack whose account and region are known
    app = cdk.App(outdir=str(tmp_path / "cdk.out"))
    stack = cdk.Stack(app, "MyTraining", env=cdk.Environment(account="123456789012", region="eu-west-1"))
    elsewhere = kms.Key.from_key_arn(stack, "Far", "arn:aws:kms:us-east-1:123456789012:key/"
                                                   "1234abcd-12ab-34cd-56ef-1234567890ab")
    # When it is given a key of another region / Then synthesis stops naming both regions
    with pytest.raises(ConfigError, match=r"key.*us-east-1.*eu-west-1"):
        RuleActions(stack, "Alerts", config=CONFIG, key=elsewhere)
    # When it is given a key of another account (same region) / Then a warning names the account
    other = kms.Key.from_key_arn(stack, "Other", "arn:aws:kms:eu-west-1:111122223333:key/"
                                                 "1234abcd-12ab-34cd-56ef-1234567890ab")
    RuleActions(stack, "Alerts2", config=CONFIG, key=other, name="Other")
    warnings = Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("rule-actions:key-account"))
    assert "111122223333" in " ".join(str(w.entry.data) for w in warnings)


def test_the_file_init_writes_is_accepted_as_the_configuration(tmp_path):
    # Given rule-actions.json as `rule-actions init` writes it (its "$schema" and "stack" block)
    import argparse

    from rule_actions_cli.files import init

    (tmp_path / "project").mkdir()
    assert init(argparse.Namespace(directory=str(tmp_path / "project"), cdk=False)) == 0
    written = json.loads((tmp_path / "project" / "rule-actions.json").read_text())
    assert "stack" in written and "$schema" in written
    # When the construct is given the file's object
    _, stack = user_stack(tmp_path)
    RuleActions(stack, "Alerts", config={**written, "stack": {**written["stack"], "log_retention_days": 30}})
    # Then it synthesizes, the block's settings apply, and a bad key of the block is named
    Template.from_stack(stack).has_resource_properties("AWS::Logs::LogGroup", {
        "LogGroupName": "/aws/lambda/MyTraining-handler", "RetentionInDays": 30})
    with pytest.raises(ConfigError, match=r"config\.stack\.colour: unknown key"):
        RuleActions(stack, "Other", config={**written, "stack": {"colour": "red"}}, name="Other")


def test_the_path_of_rule_actions_json_is_the_configuration_its_errors_and_warnings_naming_the_file(tmp_path, capsys):
    # Given rule-actions.json as `init --cdk` writes it (no addresses yet: valid, but nobody is reached)
    import argparse

    from rule_actions_cli.files import init

    (tmp_path / "project").mkdir()
    assert init(argparse.Namespace(directory=str(tmp_path / "project"), cdk=True)) == 0
    capsys.readouterr()
    path = tmp_path / "project" / "rule-actions.json"
    # When the construct is given its path
    _, stack = user_stack(tmp_path)
    RuleActions(stack, "TrainingActions", config=str(path))
    # Then the configuration is the file's, and its warnings are printed once, as one block naming the file
    err = capsys.readouterr().err
    assert err.startswith("rule-actions: the configuration is valid, but:\n  - unreachable:")
    assert f"{path}.notify lists no emails or sms" in " ".join(err.split())
    # and the stack has the outputs the command reads, named after the construct
    outputs = Template.from_stack(stack).find_outputs("*")
    assert {"TrainingActionsFunctionName", "TrainingActionsTopicArn", "TrainingActionsOpsTopicArn"} <= set(outputs)
    assert outputs["TrainingActionsFunctionName"]["Value"] == ref(
        stack.get_logical_id(stack.node.find_child("TrainingActions").function.node.default_child))
    # When the file names an unknown key / Then synthesis stops naming the file, the key and the key meant
    path.write_text(json.dumps({"rulez": {"*": ["notify"]}}))
    with pytest.raises(ConfigError, match=rf'{path}\.rulez: unknown key; did you mean "rules"\?'):
        RuleActions(stack, "Other", config=path, name="Other")
    # When the file is bad in its configuration and in its "stack" block / Then one message names every field
    path.write_text(json.dumps({"dedup_ttl_hours": 0, "stack": {"stack_name": "1x"}}))
    with pytest.raises(ConfigError) as refused:
        RuleActions(stack, "Fourth", config=path, name="Fourth")
    assert str(refused.value).startswith(f"{path}: invalid configuration:\n  {path}.dedup_ttl_hours: 0 ")
    assert f'\n  {path}.stack.stack_name: "1x" is not a stack name' in str(refused.value)
    # and a file that is not there is named in words
    with pytest.raises(ConfigError, match=r"missing\.json: cannot be read \(no such file or directory\)$"):
        RuleActions(stack, "Third", config=tmp_path / "missing.json", name="Third")


def test_warn_false_keeps_the_warnings_quiet_and_two_constructs_keep_their_outputs_apart(tmp_path, capsys):
    _, stack = user_stack(tmp_path)
    RuleActions(stack, "Alerts", config={"rules": {"*": ["notify"]}}, warn=False)
    RuleActions(stack, "Audit", config={"rules": {"*": ["notify"]}}, name="Audit", warn=False)
    assert capsys.readouterr().err == ""
    outputs = Template.from_stack(stack).find_outputs("*")
    assert {"AlertsFunctionName", "AuditFunctionName"} <= set(outputs)
