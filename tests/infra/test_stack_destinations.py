"""The stack with chat channels (Slack and Microsoft Teams) and webhooks: the chat topic and its channel
configurations, the function's scoped access to them and to exactly the named secrets; cdk-nag clean
(synthesize raises on a finding) and cfn-lint clean."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import ref, synthesize

from rule_actions.contract import ENV_CHAT_TOPIC_ARN
from rule_actions_cdk.app import project_context

SLACK = {"workspace_id": "T0123ABCD", "channel_id": "C0123ABCD"}
TEAMS = {"tenant_id": "0a1b2c3d-0000-4000-8000-000000000001", "team_id": "0a1b2c3d-0000-4000-8000-000000000002",
         "channel_id": "19%3a0f1e2d3c4b5a69788796a5b4c3d2e1f0%40thread.tacv2"}
SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:111122223333:secret:oncall-hook-AbCdEf"
CONTEXT = {
    **project_context(),
    "rule_actions": {
        "notify": {"emails": ["ml-team@example.com"]},
        "chat": {"slack": [SLACK], "teams": [TEAMS]},
        "webhooks": {"ml-alerts": {"secret": "rule-actions/ml-alerts", "format": "json"},
                     "oncall": {"secret": SECRET_ARN, "format": "slack"}},
        "job_outcomes": {"Failed": ["notify", {"name": "webhook", "endpoint": "ml-alerts"}]},
        "rules": {"*": ["notify", {"name": "webhook", "endpoint": "oncall"}]},
    },
}


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cdk.out")


@pytest.fixture(scope="module")
def template(outdir) -> Template:
    return synthesize(CONTEXT, outdir)  # cdk-nag raises on any unacknowledged finding


def _id(template: Template, kind: str, props: dict) -> str:
    return template.get_resource_id(kind, {"Properties": props})


def _policy(template: Template) -> list[dict]:
    [policy] = template.find_resources("AWS::IAM::Policy").values()
    return policy["Properties"]["PolicyDocument"]["Statement"]


def test_a_chat_topic_of_its_own_encrypted_with_the_stack_key(template):
    chat = _id(template, "AWS::SNS::Topic", {"TopicName": "RuleActions-chat"})
    key = next(iter(template.find_resources("AWS::KMS::Key")))
    template.has_resource_properties("AWS::SNS::Topic", {"TopicName": "RuleActions-chat",
                                                         "KmsMasterKeyId": {"Fn::GetAtt": [key, "Arn"]}})
    template.has_resource_properties("AWS::SNS::TopicPolicy", {"Topics": [ref(chat)], "PolicyDocument": {
        "Statement": Match.array_with([Match.object_like({"Effect": "Deny", "Condition": {
            "Bool": {"aws:SecureTransport": "false"}}})])}})


def test_each_channel_is_subscribed_to_the_chat_topic_only_with_a_read_only_guardrail(template):
    chat = _id(template, "AWS::SNS::Topic", {"TopicName": "RuleActions-chat"})
    role = _id(template, "AWS::IAM::Role", {"AssumeRolePolicyDocument": {"Statement": [Match.object_like(
        {"Principal": {"Service": "chatbot.amazonaws.com"}})]}})
    guardrail = {"Fn::Join": ["", ["arn:", ref("AWS::Partition"), ":iam::aws:policy/ReadOnlyAccess"]]}
    common = {"SnsTopicArns": [ref(chat)], "GuardrailPolicies": [guardrail], "UserRoleRequired": False,
              "IamRoleArn": {"Fn::GetAtt": [role, "Arn"]}, "LoggingLevel": "NONE"}
    template.has_resource_properties("AWS::Chatbot::SlackChannelConfiguration", {
        **common, "SlackWorkspaceId": SLACK["workspace_id"], "SlackChannelId": SLACK["channel_id"],
        "ConfigurationName": Match.string_like_regexp(r"^RuleActions-slack-[0-9a-f]{12}$")})
    template.has_resource_properties("AWS::Chatbot::MicrosoftTeamsChannelConfiguration", {
        **common, "TeamId": TEAMS["team_id"], "TeamsTenantId": TEAMS["tenant_id"],
        "TeamsChannelId": TEAMS["channel_id"],
        "ConfigurationName": Match.string_like_regexp(r"^RuleActions-teams-[0-9a-f]{12}$")})
    # never the team topic (it carries messages addressed to one person)
    assert "notifications" not in json.dumps(template.find_resources("AWS::Chatbot::SlackChannelConfiguration"))


def test_the_channels_role_has_no_permissions(template):
    role = template.find_resources("AWS::IAM::Role", {"Properties": {"AssumeRolePolicyDocument": {"Statement": [
        Match.object_like({"Principal": {"Service": "chatbot.amazonaws.com"}})]}}})
    [(role_id, props)] = role.items()
    assert "Policies" not in props["Properties"] and "ManagedPolicyArns" not in props["Properties"]
    for policy in template.find_resources("AWS::IAM::Policy").values():
        assert {"Ref": role_id} not in policy["Properties"]["Roles"]


def test_the_function_publishes_to_the_chat_topic_and_reads_exactly_the_named_secrets(template):
    chat = _id(template, "AWS::SNS::Topic", {"TopicName": "RuleActions-chat"})
    statements = {s["Sid"]: s for s in _policy(template)}
    assert statements["PublishToChat"]["Action"] == "sns:Publish"
    assert statements["PublishToChat"]["Resource"] == ref(chat)
    secrets = statements["ReadWebhookSecrets"]
    assert secrets["Action"] == "secretsmanager:GetSecretValue"
    by_name = {"Fn::Join": ["", ["arn:", ref("AWS::Partition"), ":secretsmanager:", ref("AWS::Region"), ":",
                                 ref("AWS::AccountId"), ":secret:rule-actions/ml-alerts-??????"]]}
    assert sorted(map(json.dumps, secrets["Resource"])) == sorted(map(json.dumps, [SECRET_ARN, by_name]))
    # no other statement names Secrets Manager
    assert sum("secretsmanager" in json.dumps(s["Action"]) for s in _policy(template)) == 1


def test_the_function_is_told_the_chat_topic(template):
    chat = _id(template, "AWS::SNS::Topic", {"TopicName": "RuleActions-chat"})
    template.has_resource_properties("AWS::Lambda::Function", {"Environment": {"Variables": Match.object_like(
        {ENV_CHAT_TOPIC_ARN: ref(chat)})}})


def test_without_chat_or_webhooks_there_is_none_of_it(tmp_path):
    plain = synthesize({**project_context()}, tmp_path, nag=False)
    plain.resource_count_is("AWS::Chatbot::SlackChannelConfiguration", 0)
    assert "RuleActions-chat" not in json.dumps(plain.to_json())
    assert "secretsmanager" not in json.dumps(plain.to_json())


def test_cfn_lint_accepts_the_channel_configurations(template, tmp_path):
    path = tmp_path / "destinations.template.json"
    path.write_text(json.dumps(template.to_json()))
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    lint = subprocess.run([str(cfn_lint), "--ignore-checks", "W3005", "--", str(path)],
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
