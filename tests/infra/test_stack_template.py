"""The stack as `cdk synth` builds it from cdk.json: one synthesis (with cdk-nag) for the whole module."""

import inspect
import json

import pytest
from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
from stack_helpers import ROOT, as_list, by_sid, flat, named, of_type, one, policy_of, props, statements, synthesize

from infra import construct
from infra.app import cdk_json_context
from infra.pattern import event_pattern
from infra.settings import POWERTOOLS_SSM_PARAMETER, PYTHON_VERSION
from rule_actions.config import Config, Settings
from rule_actions.effects.ledger import EXPIRY_ATTRIBUTE
from rule_actions.observability import NAMESPACE, SERVICE

CONTEXT = cdk_json_context()
CONFIG = Config.from_dict(CONTEXT["rule_actions"])
NAME = CONTEXT["rule_actions_stack"]["stack_name"]


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cdk.out")


@pytest.fixture(scope="module")
def template(outdir):
    # Given the context cdk.json gives `cdk synth`, when the app synthesizes (cdk-nag raises on a finding)
    return synthesize(CONTEXT, outdir)


def logical(template, kind, name_key, name):
    return named(template, kind, name_key, name)[0]


@pytest.fixture(scope="module")
def ids(template):
    """Logical ids of the stack's main resources, found by their deterministic names."""
    return {
        "function": logical(template, "AWS::Lambda::Function", "FunctionName", f"{NAME}-handler"),
        "topic": logical(template, "AWS::SNS::Topic", "TopicName", f"{NAME}-notifications"),
        "ops": logical(template, "AWS::SNS::Topic", "TopicName", f"{NAME}-ops"),
        "table": logical(template, "AWS::DynamoDB::Table", "TableName", f"{NAME}-ledger"),
        "target_dlq": logical(template, "AWS::SQS::Queue", "QueueName", f"{NAME}-target-dlq"),
        "failed": logical(template, "AWS::SQS::Queue", "QueueName", f"{NAME}-failed-events"),
        "rule": logical(template, "AWS::Events::Rule", "Name", f"{NAME}-rule-outcomes"),
        "log_group": logical(template, "AWS::Logs::LogGroup", "LogGroupName", f"/aws/lambda/{NAME}-handler"),
        "key": one(template, "AWS::KMS::Key")[0],
    }


def test_resource_counts(template):
    counts = {}
    for resource in template["Resources"].values():
        counts[resource["Type"]] = counts.get(resource["Type"], 0) + 1
    assert counts == {
        "AWS::KMS::Key": 1, "AWS::KMS::Alias": 1,
        "AWS::SNS::Topic": 2, "AWS::SNS::TopicPolicy": 2,
        "AWS::SQS::Queue": 2, "AWS::SQS::QueuePolicy": 2,
        "AWS::DynamoDB::Table": 1, "AWS::Logs::LogGroup": 1,
        "AWS::IAM::Role": 1, "AWS::IAM::Policy": 1,
        "AWS::Lambda::Function": 1, "AWS::Lambda::EventInvokeConfig": 1, "AWS::Lambda::Permission": 1,
        "AWS::Events::Rule": 1, "AWS::CloudWatch::Alarm": 3,
    }  # no subscriptions: cdk.json's notify lists are empty


def test_rule_pattern_is_the_one_event_pattern_builds(template, ids):
    rule = props(template["Resources"][ids["rule"]])
    assert rule["EventPattern"] == event_pattern(CONFIG)
    assert rule["EventPattern"] == {
        "source": ["aws.sagemaker"],
        "detail-type": ["SageMaker Training Job State Change"],
        "detail": {"$or": [
            {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
            {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
        ]},
    }
    assert rule["State"] == "ENABLED" and "EventBusName" not in rule  # the default bus


def test_rule_targets_the_function_with_retry_policy_and_dead_letter_queue(template, ids):
    [target] = props(template["Resources"][ids["rule"]])["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [ids["function"], "Arn"]}
    assert target["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": [ids["target_dlq"], "Arn"]}}
    assert target["RetryPolicy"] == {"MaximumRetryAttempts": 8, "MaximumEventAgeInSeconds": 2 * 3600}
    # EventBridge may write to the DLQ, for this rule only
    allow = [s for s in policy_of(template, "AWS::SQS::QueuePolicy", ids["target_dlq"]) if s["Effect"] == "Allow"]
    assert allow == [{
        "Sid": allow[0]["Sid"], "Effect": "Allow", "Action": "sqs:SendMessage",
        "Principal": {"Service": "events.amazonaws.com"},
        "Resource": {"Fn::GetAtt": [ids["target_dlq"], "Arn"]},
        "Condition": {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [ids["rule"], "Arn"]}}},
    }]
    # and may invoke the function, for this rule only
    [(_, permission)] = of_type(template, "AWS::Lambda::Permission").items()
    assert props(permission)["Principal"] == "events.amazonaws.com"
    assert props(permission)["SourceArn"] == {"Fn::GetAtt": [ids["rule"], "Arn"]}


def test_async_invocations_retry_twice_then_go_to_the_failed_events_queue(template, ids):
    _, config = one(template, "AWS::Lambda::EventInvokeConfig")
    assert props(config) == {
        "FunctionName": {"Ref": ids["function"]},
        "Qualifier": "$LATEST",
        "MaximumRetryAttempts": 2,
        "MaximumEventAgeInSeconds": 6 * 3600,
        "DestinationConfig": {"OnFailure": {"Destination": {"Fn::GetAtt": [ids["failed"], "Arn"]}}},
    }
    # Lambda checks the role may send there when it creates the config: the function (and so the config,
    # which refers to it) waits for the role's policy
    assert any(s["Action"] == "sqs:SendMessage" and s["Resource"] == {"Fn::GetAtt": [ids["failed"], "Arn"]}
               for s in statements(template))
    policy = one(template, "AWS::IAM::Policy")[0]
    assert policy in template["Resources"][ids["function"]]["DependsOn"]


def test_alarms_fire_on_any_error_or_message_and_notify_the_ops_topic(template, ids):
    alarms = {props(a)["AlarmName"]: props(a) for a in of_type(template, "AWS::CloudWatch::Alarm").values()}
    assert set(alarms) == {f"{NAME}-function-errors", f"{NAME}-target-dlq-messages",
                           f"{NAME}-failed-events-messages"}
    for alarm in alarms.values():
        assert alarm["AlarmActions"] == [{"Ref": ids["ops"]}]  # never the filtered team topic
        assert alarm["Threshold"] == 1
        assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
        assert alarm["EvaluationPeriods"] == 1
        assert alarm["TreatMissingData"] == "notBreaching"
    errors = alarms[f"{NAME}-function-errors"]
    assert (errors["Namespace"], errors["MetricName"], errors["Statistic"]) == ("AWS/Lambda", "Errors", "Sum")
    assert errors["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": ids["function"]}}]
    for alarm_name, queue in ((f"{NAME}-target-dlq-messages", ids["target_dlq"]),
                              (f"{NAME}-failed-events-messages", ids["failed"])):
        alarm = alarms[alarm_name]
        assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/SQS", "ApproximateNumberOfMessagesVisible")
        assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}]
    # CloudWatch may publish to the ops topic (its policy replaces SNS's default one) for this stack's alarms
    allow = [s for s in policy_of(template, "AWS::SNS::TopicPolicy", ids["ops"]) if s["Effect"] == "Allow"]
    assert [(s["Principal"], s["Action"]) for s in allow] == [({"Service": "cloudwatch.amazonaws.com"}, "sns:Publish")]
    assert flat(allow[0]["Condition"]["ArnLike"]["aws:SourceArn"]).endswith(f":alarm:{NAME}-*")


def test_topics_queues_and_table_are_encrypted(template, ids):
    key_arn = {"Fn::GetAtt": [ids["key"], "Arn"]}
    for topic in ("topic", "ops"):
        assert props(template["Resources"][ids[topic]])["KmsMasterKeyId"] == key_arn
    for queue in ("target_dlq", "failed"):
        queue_props = props(template["Resources"][ids[queue]])
        assert queue_props["KmsMasterKeyId"] == key_arn
        assert queue_props["MessageRetentionPeriod"] == 14 * 24 * 3600
    assert props(template["Resources"][ids["table"]])["SSESpecification"] == {"SSEEnabled": True}
    assert props(template["Resources"][ids["key"]])["EnableKeyRotation"] is True


def test_the_key_policy_lets_cloudwatch_and_eventbridge_use_the_key(template, ids):
    policy = props(template["Resources"][ids["key"]])["KeyPolicy"]["Statement"]
    services = {s["Principal"]["Service"]: s for s in policy if "Service" in s["Principal"]}
    assert set(services) == {"cloudwatch.amazonaws.com", "events.amazonaws.com"}
    assert set(services["cloudwatch.amazonaws.com"]["Action"]) == {"kms:Decrypt", "kms:GenerateDataKey*"}
    events = services["events.amazonaws.com"]
    assert set(events["Action"]) == {"kms:Decrypt", "kms:GenerateDataKey"}
    rule_arn = flat(events["Condition"]["ArnEquals"]["aws:SourceArn"])
    assert rule_arn == (f"arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:rule/"
                        f"{props(template['Resources'][ids['rule']])['Name']}")


def test_topics_and_queues_refuse_requests_without_tls(template, ids):
    for topic in ("topic", "ops"):
        deny = [s for s in policy_of(template, "AWS::SNS::TopicPolicy", ids[topic]) if s["Effect"] == "Deny"]
        assert deny == [{"Sid": "AllowPublishThroughSSLOnly", "Effect": "Deny", "Principal": "*",
                         "Action": "sns:Publish", "Resource": {"Ref": ids[topic]},
                         "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]
    for queue in ("target_dlq", "failed"):
        deny = [s for s in policy_of(template, "AWS::SQS::QueuePolicy", ids[queue]) if s["Effect"] == "Deny"]
        assert deny == [{"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "sqs:*",
                         "Resource": {"Fn::GetAtt": [ids[queue], "Arn"]},
                         "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]


def test_every_iam_statement_is_scoped(template, ids):
    stmts = by_sid(template)
    assert len(stmts) == len(statements(template))  # every statement has its own Sid
    for statement in stmts.values():
        assert statement["Effect"] == "Allow"
        for resource in as_list(statement["Resource"]):
            if resource == "*":  # only where IAM allows nothing else
                assert as_list(statement["Action"]) == ["sagemaker:ListTrainingJobs"]
        for action in as_list(statement["Action"]):
            assert "*" not in action or action == "kms:GenerateDataKey*", action
    resources = {sid: [flat(r) for r in as_list(s["Resource"])] for sid, s in stmts.items()}
    assert resources == {
        "StopAndDescribeTrainingJobs": ["arn:<AWS::Partition>:sagemaker:<AWS::Region>:<AWS::AccountId>:training-job/*"],
        "ListTrainingJobs": ["*"],
        "PublishAndSubscribe": [f"<{ids['topic']}>"],
        "TopicSubscriptions": [f"<{ids['topic']}>:*"],
        "UseStackKey": [f"<{ids['key']}.Arn>"],
        "Ledger": [f"<{ids['table']}.Arn>"],
        "SendFailedEvents": [f"<{ids['failed']}.Arn>"],
        "WriteLogs": [f"<{ids['log_group']}.Arn>"],
    }
    actions = {sid: sorted(as_list(s["Action"])) for sid, s in stmts.items()}
    assert actions == {
        "StopAndDescribeTrainingJobs": ["sagemaker:DescribeTrainingJob", "sagemaker:StopTrainingJob"],
        "ListTrainingJobs": ["sagemaker:ListTrainingJobs"],
        "PublishAndSubscribe": ["sns:ListSubscriptionsByTopic", "sns:Publish", "sns:Subscribe"],
        "TopicSubscriptions": ["sns:GetSubscriptionAttributes", "sns:SetSubscriptionAttributes"],
        "UseStackKey": ["kms:Decrypt", "kms:GenerateDataKey*"],
        "Ledger": ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        "SendFailedEvents": ["sqs:SendMessage"],
        "WriteLogs": ["logs:CreateLogStream", "logs:PutLogEvents"],
    }


def test_the_role_has_no_managed_policies_and_only_lambda_assumes_it(template):
    _, role = one(template, "AWS::IAM::Role")
    assert "ManagedPolicyArns" not in props(role) and "Policies" not in props(role)
    [trust] = props(role)["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "lambda.amazonaws.com"} and trust["Action"] == "sts:AssumeRole"
    assert "FullAccess" not in json.dumps(template)


class RecordingEnvironment(dict):
    """An environment that remembers which variables were read."""

    def __init__(self, *args):
        super().__init__(*args)
        self.read = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)


def test_the_environment_is_what_the_handler_reads(template, ids):
    function = props(template["Resources"][ids["function"]])
    variables = function["Environment"]["Variables"]
    assert variables["RULE_ACTIONS_TOPIC_ARN"] == {"Ref": ids["topic"]}  # a topic's Ref is its ARN
    assert variables["RULE_ACTIONS_LEDGER_TABLE"] == {"Ref": ids["table"]}  # a table's Ref is its name
    assert variables["POWERTOOLS_SERVICE_NAME"] == SERVICE == "rule-actions"
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == NAMESPACE == "RuleActions"
    # When the function reads its environment as deployed (references resolved, AWS_REGION from Lambda)
    deployed = RecordingEnvironment({name: flat(value) for name, value in variables.items()})
    deployed["AWS_REGION"] = "us-east-1"
    settings = Settings.from_env(deployed)
    # Then every variable it reads is set by the stack or by Lambda, and the configuration round-trips
    assert deployed.read - {"AWS_REGION", "AWS_DEFAULT_REGION"} <= set(variables)
    assert {name for name in variables if name.startswith("RULE_ACTIONS_")} <= deployed.read
    assert settings.config == CONFIG == Config.from_json(variables["RULE_ACTIONS_CONFIG"])
    assert variables["RULE_ACTIONS_CONFIG"] == CONFIG.to_json()
    assert (settings.topic_arn, settings.ledger_table) == (f"<{ids['topic']}>", f"<{ids['table']}>")


def test_function_runtime_code_and_limits(template, ids):
    function = props(template["Resources"][ids["function"]])
    assert function["Runtime"] == f"python{PYTHON_VERSION}"
    assert function["Architectures"] == ["arm64"]
    assert function["Handler"] == "rule_actions.handler.lambda_handler"
    assert (function["MemorySize"], function["Timeout"]) == (256, 60)
    assert "ReservedConcurrentExecutions" not in function  # null in cdk.json: no reservation
    assert function["LoggingConfig"] == {"LogGroup": {"Ref": ids["log_group"]}}
    assert function["Role"] == {"Fn::GetAtt": [one(template, "AWS::IAM::Role")[0], "Arn"]}
    log_group = props(template["Resources"][ids["log_group"]])
    assert log_group["RetentionInDays"] == CONTEXT["rule_actions_stack"]["log_retention_days"] == 90


def test_the_code_asset_is_the_lambdas_folder_only(template, ids, outdir):
    [asset] = [p for p in outdir.iterdir() if p.name.startswith("asset.")]
    files = {p.relative_to(asset).as_posix() for p in asset.rglob("*") if p.is_file()}
    expected = {p.relative_to(ROOT / "lambdas").as_posix() for p in (ROOT / "lambdas").rglob("*.py")}
    assert files == expected
    assert props(template["Resources"][ids["function"]])["Code"]["S3Key"] == f"{asset.name[len('asset.'):]}.zip"


def test_powertools_comes_from_the_public_ssm_parameter_at_deploy_time(template, ids):
    parameter = template["Parameters"][construct.POWERTOOLS_PARAMETER_ID]
    assert construct.POWERTOOLS_PARAMETER_ID == "PowertoolsLayerArn"  # the replay rewrites its Default
    assert parameter["Type"] == "AWS::SSM::Parameter::Value<String>"
    assert parameter["Default"] == POWERTOOLS_SSM_PARAMETER
    assert POWERTOOLS_SSM_PARAMETER == f"/aws/service/powertools/python/arm64/python{PYTHON_VERSION}/latest"
    assert props(template["Resources"][ids["function"]])["Layers"] == [{"Ref": "PowertoolsLayerArn"}]


def test_ledger_table_matches_the_ledger_code(template, ids):
    table = props(template["Resources"][ids["table"]])
    key = inspect.signature(DynamoDBPersistenceLayer).parameters["key_attr"].default
    assert table["KeySchema"] == [{"AttributeName": key, "KeyType": "HASH"}] and key == "id"
    assert table["AttributeDefinitions"] == [{"AttributeName": "id", "AttributeType": "S"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": EXPIRY_ATTRIBUTE, "Enabled": True}
    assert EXPIRY_ATTRIBUTE == "expiration"
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_names_derive_from_the_stack_name(template, ids):
    assert props(template["Resources"][ids["function"]])["FunctionName"] == "RuleActions-handler"
    _, alias = one(template, "AWS::KMS::Alias")
    assert props(alias)["AliasName"] == "alias/RuleActions"


def test_outputs(template, ids):
    outputs = {name: output["Value"] for name, output in template["Outputs"].items()}
    assert outputs == {
        "FunctionName": {"Ref": ids["function"]},
        "TopicArn": {"Ref": ids["topic"]},
        "OpsTopicArn": {"Ref": ids["ops"]},
        "LedgerTable": {"Ref": ids["table"]},
        "TargetDeadLetterQueueUrl": {"Ref": ids["target_dlq"]},
        "FailedEventsQueueUrl": {"Ref": ids["failed"]},
    }


def test_same_template_as_the_cdk_cli(template):
    """`make test` synthesizes with the real CLI first: its cdk.out holds the same resources."""
    written = ROOT / "cdk.out" / f"{NAME}.template.json"
    if not written.is_file():
        pytest.skip("no cdk.out: run `make synth` (make test does)")
    cli = json.loads(written.read_text())

    def comparable(t):  # the CLI adds version reporting and construct paths
        return {name: {k: v for k, v in r.items() if k != "Metadata"}
                for name, r in t["Resources"].items() if r["Type"] != "AWS::CDK::Metadata"}

    assert comparable(cli) == comparable(template)
    assert cli["Parameters"]["PowertoolsLayerArn"] == template["Parameters"]["PowertoolsLayerArn"]
