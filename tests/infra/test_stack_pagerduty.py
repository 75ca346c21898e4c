"""The stack with a PagerDuty webhook (destinations/pagerduty.py): the function may read exactly its secret, on both
functions' roles, only when a webhook is configured; nothing of PagerDuty's is in the template but the secret's
name (the routing key lives in Secrets Manager alone). cdk-nag clean (synthesize raises on a finding)."""

import json

import pytest
from aws_cdk.assertions import Template
from stack_helpers import synthesize

from rule_actions_cdk.app import project_context

SECRET_ARN = "arn:aws:secretsmanager:us-east-1:111122223333:secret:rule-actions/pagerduty-AbCdEf"
PAGED = {"notify": {"emails": ["ml-team@example.com"]},
         "job_outcomes": {"Failed": ["notify", {"name": "webhook", "endpoint": "oncall"}]}}


def statements(template: Template) -> list[dict]:
    return [statement for policy in template.find_resources("AWS::IAM::Policy").values()
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]]


@pytest.fixture(scope="module")
def paged(tmp_path_factory) -> Template:
    context = {**project_context(), "rule_actions": {
        **PAGED, "webhooks": {"oncall": {"secret": SECRET_ARN, "format": "pagerduty"}}}}
    return synthesize(context, tmp_path_factory.mktemp("cdk.out"))  # cdk-nag raises on any finding


def test_the_function_may_read_exactly_the_pagerduty_secret(paged):
    # Given a stack whose Failed outcome pages through a pagerduty webhook
    found = [s for s in statements(paged) if "secretsmanager" in json.dumps(s["Action"])]
    # Then the only Secrets Manager statement reads that one secret, nothing else, and grants nothing more
    assert found and all(s["Sid"] == "ReadWebhookSecrets" for s in found)
    assert {json.dumps(s["Resource"]) for s in found} == {json.dumps(SECRET_ARN)}
    assert {json.dumps(s["Action"]) for s in found} == {json.dumps("secretsmanager:GetSecretValue")}
    # and no PagerDuty address or routing key is in the template: the function reads them from the secret
    assert "pagerduty.com" not in json.dumps(paged.to_json()) and "routing_key" not in json.dumps(paged.to_json())


def test_without_the_webhook_the_grant_is_not_there(tmp_path):
    # Given the same stack with the webhook removed
    context = {**project_context(), "rule_actions": {**PAGED, "job_outcomes": {"Failed": ["notify"]}}}
    template = synthesize(context, tmp_path, nag=False)
    # Then no statement names Secrets Manager
    assert not [s for s in statements(template) if "secretsmanager" in json.dumps(s["Action"])]
