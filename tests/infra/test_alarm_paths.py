"""Every alarm reaches its topic: for each alarm action, the topic's policy lets CloudWatch publish for that alarm
and the key that encrypts the topic lets CloudWatch use it (else the notification is dropped without an error).

Evaluated on the synthesized templates (rule-actions.json's, and one with a team and texts), with the template's
intrinsic functions resolved for one account and region, and a small evaluator of the statements' effect,
principal, action, resource and conditions (moto's policy engine knows only StringEquals conditions).
"""

from __future__ import annotations

import copy
import fnmatch
import json
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template
from stack_helpers import synthesize

from rule_actions_cdk.app import project_context

ACCOUNT, REGION, PARTITION = "123456789012", "eu-west-1", "aws"
CLOUDWATCH = "cloudwatch.amazonaws.com"
TEAM_WITH_TEXTS = {**project_context(), "rule_actions": {"notify": {"emails": ["ml@example.com"],
                                                                     "sms": ["+15555550100"]}}}
MONITOR_RULES = {**project_context(), "rule_actions": {"monitor": {"rules": {"StalledTraining": {}}}}}
CONTEXTS = {"rule-actions.json": project_context(), "team with texts": TEAM_WITH_TEXTS, "monitor rules": MONITOR_RULES}
ALARMS = {"rule-actions.json": 7, "team with texts": 7, "monitor rules": 12}  # the evaluator adds five


@pytest.fixture(scope="module", params=list(CONTEXTS))
def template(request, tmp_path_factory) -> dict[str, Any]:
    found = synthesize(CONTEXTS[request.param], tmp_path_factory.mktemp("cdk.out"), nag=False).to_json()
    found["_variant"] = request.param
    return found


def physical(template: dict[str, Any], logical_id: str, attribute: str = "Ref") -> str:
    """What a Ref / GetAtt resolves to, for the resource types the paths go through."""
    resource = template["Resources"][logical_id]
    kind, props = resource["Type"], resource.get("Properties", {})
    if kind == "AWS::SNS::Topic":
        return {"Ref": f"arn:{PARTITION}:sns:{REGION}:{ACCOUNT}:{props['TopicName']}",
                "TopicName": props["TopicName"]}[attribute]
    if kind == "AWS::KMS::Key":
        return f"arn:{PARTITION}:kms:{REGION}:{ACCOUNT}:key/{logical_id}"
    return f"arn:{PARTITION}:{kind.split('::')[1].lower()}:{REGION}:{ACCOUNT}:{logical_id}"


def resolve(value: Any, template: dict[str, Any]) -> Any:
    if isinstance(value, list):
        return [resolve(v, template) for v in value]
    if not isinstance(value, dict):
        return value
    if "Ref" in value:
        pseudo = {"AWS::Partition": PARTITION, "AWS::Region": REGION, "AWS::AccountId": ACCOUNT}
        return pseudo.get(value["Ref"]) or physical(template, value["Ref"])
    if "Fn::GetAtt" in value:
        logical_id, attribute = value["Fn::GetAtt"]
        return physical(template, logical_id, "Ref" if attribute == "Arn" else attribute)
    if "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(resolve(parts, template))
    return {k: resolve(v, template) for k, v in value.items()}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


OPERATORS = {
    "StringEquals": lambda pattern, actual: pattern == actual,
    "ArnEquals": lambda pattern, actual: pattern == actual,
    "StringLike": lambda pattern, actual: fnmatch.fnmatchcase(actual, pattern),
    "ArnLike": lambda pattern, actual: fnmatch.fnmatchcase(actual, pattern),
    "Bool": lambda pattern, actual: str(pattern).lower() == str(actual).lower(),
}


def applies(statement: dict[str, Any], service: str, action: str, resource: str, context: dict[str, str]) -> bool:
    principal = statement.get("Principal", {})
    if principal != "*" and service not in as_list(principal.get("Service", [])) and principal.get("AWS") != "*":
        return False
    if not any(fnmatch.fnmatchcase(action, pattern) for pattern in as_list(statement["Action"])):
        return False
    if not any(fnmatch.fnmatchcase(resource, pattern) for pattern in as_list(statement["Resource"])):
        return False
    for operator, conditions in statement.get("Condition", {}).items():
        for key, patterns in conditions.items():
            if key not in context or not any(OPERATORS[operator](p, context[key]) for p in as_list(patterns)):
                return False
    return True


def allowed(statements: list[dict[str, Any]], action: str, resource: str, context: dict[str, str]) -> bool:
    """IAM's rule: some Allow applies and no Deny does."""
    matching = [s for s in statements if applies(s, CLOUDWATCH, action, resource, context)]
    return any(s["Effect"] == "Allow" for s in matching) and not any(s["Effect"] == "Deny" for s in matching)


def alarm_path_problems(template: dict[str, Any]) -> list[str]:
    """For every alarm action: what CloudWatch would be refused on the way to the topic."""
    resources = template["Resources"]
    topic_policies = {ref["Ref"]: policy["Properties"]["PolicyDocument"]["Statement"]
                      for policy in resources.values() if policy["Type"] == "AWS::SNS::TopicPolicy"
                      for ref in policy["Properties"]["Topics"]}
    problems = []
    for alarm in (r["Properties"] for r in resources.values() if r["Type"] == "AWS::CloudWatch::Alarm"):
        alarm_arn = f"arn:{PARTITION}:cloudwatch:{REGION}:{ACCOUNT}:alarm:{alarm['AlarmName']}"
        context = {"aws:SourceArn": alarm_arn, "aws:SourceAccount": ACCOUNT, "aws:SecureTransport": "true"}
        if not alarm.get("AlarmActions"):
            problems.append(f"{alarm['AlarmName']}: no alarm action")
        for action in alarm.get("AlarmActions", []):
            topic_id = action["Ref"]
            topic = resources[topic_id]["Properties"]
            statements = resolve(topic_policies.get(topic_id, []), template)
            if not allowed(statements, "sns:Publish", physical(template, topic_id), context):
                problems.append(f"{alarm['AlarmName']} -> {topic['TopicName']}: the topic policy refuses sns:Publish")
            key_id = topic["KmsMasterKeyId"]["Fn::GetAtt"][0]
            key_policy = resolve(resources[key_id]["Properties"]["KeyPolicy"]["Statement"], template)
            for kms_action in ("kms:Decrypt", "kms:GenerateDataKey"):
                if not allowed(key_policy, kms_action, "*", context):
                    problems.append(f"{alarm['AlarmName']} -> {topic['TopicName']} -> key {key_id}: the key policy "
                                    f"refuses {kms_action}")
    return problems


def test_every_alarm_can_publish_to_its_encrypted_topic(template):
    alarms = [r for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert len(alarms) == ALARMS[template["_variant"]]
    assert alarm_path_problems(template) == []


@pytest.mark.parametrize(("where", "sid", "expected"), [
    ("key", "AlarmsPublishToEncryptedTopic", "the key policy refuses kms:Decrypt"),
    ("topic", "AlarmsPublish", "the topic policy refuses sns:Publish"),
])
def test_a_missing_grant_on_the_path_is_found(template, where, sid, expected):
    # Given the template without one of the two grants
    broken = copy.deepcopy(template)
    for resource in broken["Resources"].values():
        props = resource.get("Properties", {})
        document = props.get("KeyPolicy") or props.get("PolicyDocument") or {}
        if "Statement" in document:
            document["Statement"] = [s for s in document["Statement"] if s.get("Sid") != sid]
    # Then every alarm's path reports it
    problems = alarm_path_problems(broken)
    assert len([p for p in problems if expected in p]) == ALARMS[template["_variant"]], json.dumps(problems, indent=1)


def test_an_alarm_name_outside_the_stack_prefix_is_refused_by_the_topic_policy(template):
    # The topic policy admits this stack's alarms only (aws:SourceArn alarm:<name>-*)
    stray = copy.deepcopy(template)
    [alarm] = [r for r in stray["Resources"].values() if r["Type"] == "AWS::CloudWatch::Alarm"][:1]
    alarm["Properties"]["AlarmName"] = "SomeoneElses-alarm"
    assert [p for p in alarm_path_problems(stray) if p.startswith("SomeoneElses-alarm")] == [
        "SomeoneElses-alarm -> RuleActions-ops: the topic policy refuses sns:Publish",
        "SomeoneElses-alarm -> RuleActions-ops -> key RuleActionsKey91446BD1: the key policy refuses kms:Decrypt",
        "SomeoneElses-alarm -> RuleActions-ops -> key RuleActionsKey91446BD1: the key policy refuses kms:GenerateDataKey"]


def test_the_keys_statement_for_alarms_is_conditioned_on_the_stacks_alarms_and_account(template):
    # The key lets CloudWatch use it for this stack's alarms, in this account, only (as the topic's policy and the
    # EventBridge statement are conditioned): CloudWatch sends aws:SourceArn and aws:SourceAccount to KMS
    alarm_arns = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":cloudwatch:", {"Ref": "AWS::Region"}, ":",
                                    {"Ref": "AWS::AccountId"}, ":alarm:RuleActions-*"]]}
    Template.from_json({k: v for k, v in template.items() if k != "_variant"}).has_resource_properties("AWS::KMS::Key", {"KeyPolicy": {
        "Statement": Match.array_with([Match.object_like({
            "Sid": "AlarmsPublishToEncryptedTopic",
            "Principal": {"Service": "cloudwatch.amazonaws.com"},
            "Condition": {"ArnLike": {"aws:SourceArn": alarm_arns},
                          "StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}},
        })])}})
