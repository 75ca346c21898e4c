"""The stack as `cdk synth` builds it from rule-actions.json, asserted with `aws_cdk.assertions`: one synthesis (with
cdk-nag) for the whole module."""

import inspect
import json
from pathlib import Path

import pytest
from aws_cdk.assertions import Capture, Match, Template
from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
from stack_helpers import ROOT, arn, deny_without_tls, get_att, no_statement, ref, synthesize

from rule_actions.config import Config, Settings
from rule_actions.contract import (
    ENV_CONFIG,
    ENV_CONFIG_FILE,
    ENV_LEDGER_TABLE,
    ENV_SERVICE,
    ENV_TOPIC_ARN,
    LEDGER_EXPIRY_ATTRIBUTE,
    LEDGER_KEY_ATTRIBUTE,
    NAMESPACE,
)
from rule_actions_cdk.app import project_context
from rule_actions_cdk.bundle import bundled_distributions, shipped_metadata, shipped_modules
from rule_actions_cdk.plugins import event_pattern
from rule_actions_cdk.settings import PYTHON_VERSION

CONTEXT = project_context()
CONFIG = Config.from_dict(CONTEXT["rule_actions"])
NAME = CONTEXT["rule_actions_stack"]["stack_name"]
TOPIC, QUEUE = "AWS::SNS::Topic", "AWS::SQS::Queue"


@pytest.fixture(scope="module")
def outdir(tmp_path_factory):
    return tmp_path_factory.mktemp("cdk.out")


@pytest.fixture(scope="module")
def template(outdir) -> Template:
    # Given the context `cdk synth` gets (rule-actions.json), when the app synthesizes (cdk-nag raises on a finding)
    return synthesize(CONTEXT, outdir)


@pytest.fixture(scope="module")
def ids(template):
    """Logical ids of the stack's main resources, found by their deterministic names (exactly one each)."""

    def named(kind, key, value):
        return template.get_resource_id(kind, {"Properties": {key: value}})

    return {
        "function": named("AWS::Lambda::Function", "FunctionName", f"{NAME}-handler"),
        "topic": named(TOPIC, "TopicName", f"{NAME}-notifications"),
        "ops": named(TOPIC, "TopicName", f"{NAME}-ops"),
        "table": named("AWS::DynamoDB::Table", "TableName", f"{NAME}-ledger"),
        "target_dlq": named(QUEUE, "QueueName", f"{NAME}-target-dlq"),
        "failed": named(QUEUE, "QueueName", f"{NAME}-failed-events"),
        "rule": named("AWS::Events::Rule", "Name", f"{NAME}-rule-outcomes"),
        "log_group": named("AWS::Logs::LogGroup", "LogGroupName", f"/aws/lambda/{NAME}-handler"),
        "key": template.get_resource_id("AWS::KMS::Key"),
        "role": template.get_resource_id("AWS::IAM::Role"),
        "policy": template.get_resource_id("AWS::IAM::Policy"),
    }


COUNTS = {
    "AWS::KMS::Key": 1, "AWS::KMS::Alias": 1,
    TOPIC: 2, "AWS::SNS::TopicPolicy": 2,
    QUEUE: 2, "AWS::SQS::QueuePolicy": 2,
    "AWS::DynamoDB::Table": 1, "AWS::Logs::LogGroup": 1,
    "AWS::IAM::Role": 1, "AWS::IAM::Policy": 1,
    "AWS::Lambda::Function": 1, "AWS::Lambda::EventInvokeConfig": 1, "AWS::Lambda::Permission": 1,
    "AWS::Events::Rule": 1, "AWS::CloudWatch::Alarm": 7,
    "AWS::SNS::Subscription": 0,  # rule-actions.json's notify lists are empty
    "Custom::AWS": 0,  # nor can it send texts: the account's SMS settings are left alone
    "AWS::CloudWatch::Dashboard": 1,  # tests/infra/test_dashboard.py
}


def test_resource_counts(template):
    for kind, count in COUNTS.items():
        template.resource_count_is(kind, count)
    # and no resource of another type: Template counts one type at a time, so the total comes from its JSON
    assert len(template.to_json()["Resources"]) == sum(COUNTS.values())


def test_rule_pattern_is_the_one_event_pattern_builds(template):
    pattern = Capture(Match.exact({
        "source": ["aws.sagemaker"],
        "detail-type": ["SageMaker Training Job State Change"],
        "detail": {"$or": [
            {"DebugRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
            {"ProfilerRuleEvaluationStatuses": {"RuleEvaluationStatus": ["IssuesFound", "Error"]}},
            # rule-actions.json's job_outcomes: Failed (not a timeout or spot interruption), the timeouts, Interrupted
            {"TrainingJobStatus": ["Failed"],
             "SecondaryStatus": [{"anything-but": ["MaxRuntimeExceeded", "MaxWaitTimeExceeded", "Interrupted"]}]},
            {"SecondaryStatus": ["MaxRuntimeExceeded"]},
            {"SecondaryStatus": ["MaxWaitTimeExceeded"]},
            {"SecondaryStatus": ["Interrupted"]},
            # a stop of this stack releases the job's warm pool once it has Stopped (release_warm_pools)
            {"TrainingJobStatus": ["Stopped"],
             "SecondaryStatus": [{"anything-but": ["MaxRuntimeExceeded", "MaxWaitTimeExceeded", "Interrupted"]}],
             "ResourceConfig": {"KeepAlivePeriodInSeconds": [{"numeric": [">", 0]}]}},
            # no tuning_job_outcomes: nothing reports for a tuning job's trials, whose outcomes alert as any job's
        ]},
    }))
    template.has_resource_properties("AWS::Events::Rule", {
        "Name": f"{NAME}-rule-outcomes",
        "EventPattern": pattern,
        "State": "ENABLED",
        "EventBusName": Match.absent(),  # the default bus
    })
    assert pattern.as_object() == event_pattern(CONFIG)


def test_rule_targets_the_function_with_retry_policy_and_dead_letter_queue(template, ids):
    template.has_resource_properties("AWS::Events::Rule", {
        "Targets": [{  # one target
            "Arn": get_att(ids["function"]),
            "DeadLetterConfig": Match.exact({"Arn": get_att(ids["target_dlq"])}),
            "RetryPolicy": Match.exact({"MaximumRetryAttempts": 8, "MaximumEventAgeInSeconds": 2 * 3600}),
        }],
    })
    # EventBridge may write to the DLQ, for this rule only (the policy's other statement: TLS only)
    template.has_resource_properties("AWS::SQS::QueuePolicy", {
        "Queues": [ref(ids["target_dlq"])],
        "PolicyDocument": {"Statement": Match.exact([
            deny_without_tls(QUEUE, ids["target_dlq"]),
            {"Sid": Match.any_value(), "Effect": "Allow", "Action": "sqs:SendMessage",
             "Principal": {"Service": "events.amazonaws.com"},
             "Resource": get_att(ids["target_dlq"]),
             "Condition": {"ArnEquals": {"aws:SourceArn": get_att(ids["rule"])}}},
        ])},
    })
    # and may invoke the function, for this rule only
    template.resource_count_is("AWS::Lambda::Permission", 1)
    template.has_resource_properties("AWS::Lambda::Permission", Match.exact({
        "Action": "lambda:InvokeFunction",
        "FunctionName": get_att(ids["function"]),
        "Principal": "events.amazonaws.com",
        "SourceArn": get_att(ids["rule"]),
    }))


def test_async_invocations_retry_twice_then_go_to_the_failed_events_queue(template, ids):
    template.resource_count_is("AWS::Lambda::EventInvokeConfig", 1)
    template.has_resource_properties("AWS::Lambda::EventInvokeConfig", Match.exact({
        "FunctionName": ref(ids["function"]),
        "Qualifier": "$LATEST",
        "MaximumRetryAttempts": 2,
        "MaximumEventAgeInSeconds": 6 * 3600,
        "DestinationConfig": {"OnFailure": {"Destination": get_att(ids["failed"])}},
    }))
    # Lambda checks the role may send there when it creates the config: the function (and so the config,
    # which refers to it) waits for the role's policy
    template.has_resource_properties("AWS::IAM::Policy", {"PolicyDocument": {"Statement": Match.array_with([
        Match.object_like({"Action": "sqs:SendMessage", "Resource": get_att(ids["failed"])}),
    ])}})
    template.has_resource("AWS::Lambda::Function", {
        "Properties": {"FunctionName": f"{NAME}-handler"},
        "DependsOn": Match.array_with([ids["policy"]]),
    })


def test_alarms_fire_on_any_error_or_message_and_notify_the_ops_topic(template, ids):
    template.resource_count_is("AWS::CloudWatch::Alarm", 7)
    template.all_resources_properties("AWS::CloudWatch::Alarm", {
        "AlarmActions": [ref(ids["ops"])],  # never the filtered team topic
        "Threshold": 1,
        "ComparisonOperator": "GreaterThanOrEqualToThreshold",
        "EvaluationPeriods": 1,
        "TreatMissingData": "notBreaching",
    })
    template.has_resource_properties("AWS::CloudWatch::Alarm", {
        "AlarmName": f"{NAME}-function-errors",
        "Namespace": "AWS/Lambda", "MetricName": "Errors", "Statistic": "Sum",
        "Dimensions": Match.exact([{"Name": "FunctionName", "Value": ref(ids["function"])}]),
    })
    for alarm_name, queue in ((f"{NAME}-target-dlq-messages", ids["target_dlq"]),
                              (f"{NAME}-failed-events-messages", ids["failed"])):
        template.has_resource_properties("AWS::CloudWatch::Alarm", {
            "AlarmName": alarm_name,
            "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible",
            "Dimensions": Match.exact([{"Name": "QueueName", "Value": get_att(queue, "QueueName")}]),
        })
    # what would otherwise be lost or late without a trace: throttles, events neither delivered nor queued,
    # messages SNS could not deliver
    for alarm_name, namespace, metric, dimension in (
        (f"{NAME}-function-throttles", "AWS/Lambda", "Throttles", {"Name": "FunctionName", "Value": ref(ids["function"])}),
        (f"{NAME}-destination-delivery-failures", "AWS/Lambda", "DestinationDeliveryFailures",
         {"Name": "FunctionName", "Value": ref(ids["function"])}),
        (f"{NAME}-rule-dlq-failures", "AWS/Events", "InvocationsFailedToBeSentToDlq",
         {"Name": "RuleName", "Value": ref(ids["rule"])}),
        (f"{NAME}-notifications-failed", "AWS/SNS", "NumberOfNotificationsFailed",
         {"Name": "TopicName", "Value": get_att(ids["topic"], "TopicName")}),
    ):
        template.has_resource_properties("AWS::CloudWatch::Alarm", {
            "AlarmName": alarm_name, "Namespace": namespace, "MetricName": metric, "Statistic": "Sum",
            "Dimensions": Match.exact([dimension]),
        })
    # CloudWatch may publish to the ops topic (its policy replaces SNS's default one) for this stack's alarms
    template.has_resource_properties("AWS::SNS::TopicPolicy", {
        "Topics": [ref(ids["ops"])],
        "PolicyDocument": {"Statement": Match.exact([
            deny_without_tls(TOPIC, ids["ops"]),
            {"Sid": Match.any_value(), "Effect": "Allow", "Principal": {"Service": "cloudwatch.amazonaws.com"},
             "Action": "sns:Publish", "Resource": ref(ids["ops"]),
             "Condition": {"ArnLike": {"aws:SourceArn": arn("cloudwatch", f"alarm:{NAME}-*")}}},
        ])},
    })


def test_topics_queues_and_table_are_encrypted(template, ids):
    key_arn = get_att(ids["key"])
    template.all_resources_properties(TOPIC, {"KmsMasterKeyId": key_arn})
    template.all_resources_properties(QUEUE, {"KmsMasterKeyId": key_arn, "MessageRetentionPeriod": 14 * 24 * 3600})
    template.has_resource_properties("AWS::DynamoDB::Table", {"SSESpecification": Match.exact({"SSEEnabled": True})})
    template.has_resource_properties("AWS::KMS::Key", {"EnableKeyRotation": True})


def test_the_key_policy_lets_cloudwatch_and_eventbridge_use_the_key(template):
    cloudwatch = {"Effect": "Allow", "Principal": {"Service": "cloudwatch.amazonaws.com"},
                  "Action": ["kms:Decrypt", "kms:GenerateDataKey*"], "Resource": "*"}
    # EventBridge, only for the stack's rule
    events = {"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"},
              "Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Resource": "*",
              "Condition": Match.exact({"ArnEquals": {"aws:SourceArn": arn("events", f"rule/{NAME}-rule-outcomes")}})}
    for statement in (cloudwatch, events):
        template.has_resource_properties("AWS::KMS::Key", {
            "KeyPolicy": {"Statement": Match.array_with([Match.object_like(statement)])},
        })
    # and no other service
    other_service = Match.not_(Match.string_like_regexp(r"^(cloudwatch|events)\.amazonaws\.com$"))
    template.has_resource_properties("AWS::KMS::Key", {
        "KeyPolicy": {"Statement": Match.not_(Match.array_with([
            Match.object_like({"Principal": {"Service": other_service}}),
        ]))},
    })


@pytest.mark.parametrize(("kind", "policy", "attached_to", "name"), [
    (TOPIC, "AWS::SNS::TopicPolicy", "Topics", "topic"),
    (TOPIC, "AWS::SNS::TopicPolicy", "Topics", "ops"),
    (QUEUE, "AWS::SQS::QueuePolicy", "Queues", "target_dlq"),
    (QUEUE, "AWS::SQS::QueuePolicy", "Queues", "failed"),
])
def test_topics_and_queues_refuse_requests_without_tls(template, ids, kind, policy, attached_to, name):
    of_this = {attached_to: [ref(ids[name])]}
    template.resource_properties_count_is(policy, of_this, 1)
    template.has_resource_properties(policy, {**of_this, "PolicyDocument": {"Statement": Match.array_with([
        Match.exact(deny_without_tls(kind, ids[name])),
    ])}})
    # the only Deny: no two statements deny
    template.has_resource_properties(policy, {**of_this, "PolicyDocument": {"Statement": Match.not_(
        Match.array_with([Match.object_like({"Effect": "Deny"})] * 2),
    )}})


# An action with a wildcard, but for kms:GenerateDataKey* (GenerateDataKey and its WithoutPlaintext form)
WILDCARD_ACTION = Match.string_like_regexp(r"^(?!kms:GenerateDataKey\*$).*\*")


def test_every_iam_statement_is_scoped(template, ids):
    # The role's one policy is all the function may do: no inline policies (see below), no other policy
    template.resource_count_is("AWS::IAM::Policy", 1)
    for pattern in (
        {"Effect": Match.not_("Allow")},
        # "*" only where IAM allows nothing narrower: a listing, the public price list
        {"Resource": "*", "Action": Match.not_(Match.string_like_regexp("^(sagemaker:ListTrainingJobs|pricing:"
                                                                        "GetProducts)$"))},
        {"Resource": Match.array_with(["*"])},  # nothing else
        {"Action": WILDCARD_ACTION},
        {"Action": Match.array_with([WILDCARD_ACTION])},
    ):
        template.all_resources_properties("AWS::IAM::Policy", no_statement(pattern))
    statements = Capture()
    template.has_resource_properties("AWS::IAM::Policy", {
        "Roles": [ref(ids["role"])],
        "PolicyDocument": {"Statement": statements},
    })
    by_sid = {s["Sid"]: s for s in statements.as_array()}
    assert len(by_sid) == len(statements.as_array())  # every statement has its own Sid

    def allow(action, resource):
        return {"Effect": "Allow", "Action": action, "Resource": resource}

    assert by_sid == {sid: {"Sid": sid, **statement} for sid, statement in {
        "StopAndDescribeTrainingJobs": allow(["sagemaker:DescribeTrainingJob", "sagemaker:StopTrainingJob"],
                                             arn("sagemaker", "training-job/*")),
        "ListTrainingJobs": allow("sagemaker:ListTrainingJobs", "*"),
        # a stop's warm pool released once the job has Stopped (release_warm_pools, on by default)
        "ReleaseWarmPoolsOfTrainingJobs": allow("sagemaker:UpdateTrainingJob", arn("sagemaker", "training-job/*")),
        "PublishAndSubscribe": allow(["sns:ListSubscriptionsByTopic", "sns:Publish", "sns:Subscribe"],
                                     ref(ids["topic"])),
        "TopicSubscriptions": allow(["sns:GetSubscriptionAttributes", "sns:SetSubscriptionAttributes"],
                                    {"Fn::Join": ["", [ref(ids["topic"]), ":*"]]}),
        "UseStackKey": allow(["kms:Decrypt", "kms:GenerateDataKey*"], get_att(ids["key"])),
        "Ledger": allow(["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
                        get_att(ids["table"])),
        "SendFailedEvents": allow("sqs:SendMessage", get_att(ids["failed"])),
        "WriteLogs": allow(["logs:CreateLogStream", "logs:PutLogEvents"], get_att(ids["log_group"])),
        "ReadPrices": allow("pricing:GetProducts", "*"),  # what a job costs: the AWS Price List (public prices)
    }.items()}


def test_the_role_has_no_managed_policies_and_only_lambda_assumes_it(template):
    template.resource_count_is("AWS::IAM::Role", 1)
    template.has_resource_properties("AWS::IAM::Role", {
        "ManagedPolicyArns": Match.absent(),
        "Policies": Match.absent(),
        "AssumeRolePolicyDocument": {"Statement": [Match.exact({
            "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole",
        })]},
    })
    # anywhere in the template (Template has no "nowhere in the template" matcher: a search of its JSON)
    assert "FullAccess" not in json.dumps(template.to_json())


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


def deployed(value):
    """A variable's value as the function sees it: a reference {"Ref": X} resolved, here to "<X>"."""
    return value if isinstance(value, str) else f"<{value['Ref']}>"


def test_the_environment_is_what_the_handler_reads(template, ids):
    assert NAMESPACE == "RuleActions"
    variables = Capture(Match.object_like({
        ENV_CONFIG: Match.serialized_json(json.loads(CONFIG.to_json())),
        ENV_TOPIC_ARN: ref(ids["topic"]),  # a topic's Ref is its ARN
        ENV_LEDGER_TABLE: ref(ids["table"]),  # a table's Ref is its name
        ENV_SERVICE: NAME,  # the service name of its log lines and metrics: the deployment's own name
        "POWERTOOLS_METRICS_NAMESPACE": NAMESPACE,
    }))
    template.has_resource_properties("AWS::Lambda::Function", {
        "FunctionName": f"{NAME}-handler",
        "Environment": {"Variables": variables},
    })
    # When the function reads its environment as deployed (references resolved, AWS_REGION from Lambda)
    environment = RecordingEnvironment({name: deployed(value) for name, value in variables.as_object().items()})
    environment["AWS_REGION"] = "us-east-1"
    settings = Settings.from_env(environment)
    # Then every variable it reads is set by the stack or by Lambda (the configuration's file is named only for a
    # configuration too large for the environment), and the configuration round-trips
    set_by_stack = set(variables.as_object())
    assert environment.read - {"AWS_REGION", "AWS_DEFAULT_REGION", ENV_CONFIG_FILE} <= set_by_stack
    assert {name for name in set_by_stack if name.startswith("RULE_ACTIONS_")} <= environment.read
    assert settings.config == CONFIG == Config.from_json(variables.as_object()[ENV_CONFIG])
    assert variables.as_object()[ENV_CONFIG] == CONFIG.to_json()
    assert (settings.topic_arn, settings.ledger_table) == (f"<{ids['topic']}>", f"<{ids['table']}>")


def test_function_runtime_code_and_limits(template, ids):
    template.has_resource_properties("AWS::Lambda::Function", {
        "FunctionName": f"{NAME}-handler",
        "Runtime": f"python{PYTHON_VERSION}",
        "Architectures": ["arm64"],
        "Handler": "rule_actions.handler.lambda_handler",
        "MemorySize": 256,
        "Timeout": 60,
        "ReservedConcurrentExecutions": Match.absent(),  # null in rule-actions.json: no reservation
        "LoggingConfig": Match.exact({"LogGroup": ref(ids["log_group"])}),
        "Role": get_att(ids["role"]),
    })
    assert CONTEXT["rule_actions_stack"]["log_retention_days"] == 90
    template.has_resource_properties("AWS::Logs::LogGroup", {
        "LogGroupName": f"/aws/lambda/{NAME}-handler",
        "RetentionInDays": 90,
    })


def test_the_code_asset_is_the_lambdas_folder_and_the_powertools_files_it_imports(template, outdir):
    [asset] = [p for p in outdir.iterdir() if p.name.startswith("asset.")]
    files = {p.relative_to(asset).as_posix() for p in asset.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    ours = {p.relative_to(ROOT / "lambdas").as_posix() for p in (ROOT / "lambdas").rglob("*.py")}
    # Then: our package, and of Powertools and its dependencies Lambda does not ship, the files the function
    # imports (infra/rule_actions_cdk/bundled-modules.txt), their METADATA and licenses
    bundled = bundled_distributions(PYTHON_VERSION)
    names = {d.metadata["Name"] for d in bundled}
    assert names == {"aws_lambda_powertools", "typing_extensions"}  # boto3 and its dependencies: the runtime's
    installed = {f.as_posix() for d in bundled for f in d.files
                 if f.parts[0] != ".." and "__pycache__" not in f.parts and f.suffix != ".pyc"}
    metadata = {f for f in installed
                if f.split("/", 1)[0].endswith(".dist-info") and shipped_metadata(tuple(f.split("/")[1:]))}
    assert shipped_modules() <= installed
    assert files == ours | shipped_modules() | metadata
    assert not {f for f in files if f.endswith((".pyc", ".so"))} and not {f for f in files if f.startswith("boto")}
    assert "aws_lambda_powertools/utilities/idempotency/persistence/dynamodb.py" in files
    template.has_resource_properties("AWS::Lambda::Function", {
        "FunctionName": f"{NAME}-handler",
        "Code": {"S3Key": f"{asset.name[len('asset.'):]}.zip"},
    })


def test_nothing_is_resolved_at_deploy_time_and_no_layer(template):
    # Powertools is in the code: no layer, no SSM parameter (which exists only where Powertools publishes, and
    # whose `latest` would change the running code on any deploy)
    template.has_resource_properties("AWS::Lambda::Function", {"Layers": Match.absent()})
    assert set(template.to_json().get("Parameters", {})) <= {"BootstrapVersion"}


def test_ledger_table_matches_the_ledger_code(template):
    key = inspect.signature(DynamoDBPersistenceLayer).parameters["key_attr"].default
    assert key == LEDGER_KEY_ATTRIBUTE == "id"
    assert LEDGER_EXPIRY_ATTRIBUTE == "expiration"
    template.has_resource_properties("AWS::DynamoDB::Table", {
        "TableName": f"{NAME}-ledger",
        "KeySchema": Match.exact([{"AttributeName": key, "KeyType": "HASH"}]),
        "AttributeDefinitions": Match.exact([{"AttributeName": key, "AttributeType": "S"}]),
        "TimeToLiveSpecification": Match.exact({"AttributeName": LEDGER_EXPIRY_ATTRIBUTE, "Enabled": True}),
        "BillingMode": "PAY_PER_REQUEST",
        "PointInTimeRecoverySpecification": Match.exact({"PointInTimeRecoveryEnabled": True}),
    })


def test_names_derive_from_the_stack_name(template, ids):
    template.has_resource_properties("AWS::Lambda::Function", {"FunctionName": "RuleActions-handler"})
    template.has_resource_properties("AWS::KMS::Alias", {
        "AliasName": "alias/RuleActions",
        "TargetKeyId": get_att(ids["key"]),
    })


def test_outputs(template, ids):
    expected = {
        "FunctionName": ref(ids["function"]),
        "TopicArn": ref(ids["topic"]),
        "OpsTopicArn": ref(ids["ops"]),
        "LedgerTable": ref(ids["table"]),
        "TargetDeadLetterQueueUrl": ref(ids["target_dlq"]),
        "FailedEventsQueueUrl": ref(ids["failed"]),
        "DashboardName": ref(template.get_resource_id("AWS::CloudWatch::Dashboard")),
        "ServiceName": NAME,  # the service name of its log lines and metrics, which `rule-actions report` reads
    }
    for name, value in expected.items():
        template.has_output(name, {"Value": value})
    assert set(template.find_outputs("*")) == set(expected)  # and no other output


def test_the_runtime_follows_the_synthesizing_python_where_lambda_offers_it():
    # Given this interpreter's version and the Python runtimes Lambda offers
    import sys

    from rule_actions_cdk.function import RUNTIMES
    from rule_actions_cdk.settings import LAMBDA_PYTHONS, RUNTIME

    mine = f"{sys.version_info.major}.{sys.version_info.minor}"
    # Then the function's runtime is this interpreter's version where Lambda offers it, else that of the newest
    # Lambda Python found here (else the newest), and each version Lambda offers names its runtime in aws-cdk-lib
    assert PYTHON_VERSION == RUNTIME.version and PYTHON_VERSION in LAMBDA_PYTHONS
    assert (RUNTIME.interpreter == sys.executable) == (mine in LAMBDA_PYTHONS)
    assert {version: runtime.name for version, runtime in RUNTIMES.items()} == {
        version: f"python{version}" for version in LAMBDA_PYTHONS}


# What shapes the checkout's cdk.out (`make synth`): the app, its context, the function and the constructs.
SYNTH_SOURCES = ("app.py", "cdk.json", "rule-actions.json", "lambdas", "infra")


def newer_than(path: Path) -> list[str]:
    """The sources `make synth` reads that changed after `path` was written (bytecode caches aside)."""
    written = path.stat().st_mtime
    files = [f for name in SYNTH_SOURCES for f in ([ROOT / name] if (ROOT / name).is_file() else (ROOT / name).rglob("*"))
             if f.is_file() and "__pycache__" not in f.parts]
    return sorted(f.relative_to(ROOT).as_posix() for f in files if f.stat().st_mtime > written)


def test_same_template_as_the_cdk_cli(template):
    """`make test` synthesizes with the real CLI first (`make synth`): its cdk.out holds the same resources. A
    cdk.out older than the sources is not compared (it would differ for that reason alone): the test fails, naming
    what changed since."""
    written = ROOT / "cdk.out" / f"{NAME}.template.json"
    if not written.is_file():
        pytest.skip("no cdk.out: run `make synth` (make test does)")
    changed = newer_than(written)
    assert not changed, f"cdk.out is older than {', '.join(changed[:5])}: run `make synth` (make test does)"

    def comparable(t):  # the CLI adds version reporting and construct paths
        return {
            "Resources": {name: {k: v for k, v in r.items() if k != "Metadata"}
                          for name, r in t["Resources"].items() if r["Type"] != "AWS::CDK::Metadata"},
        }

    cli = Template.from_json(comparable(json.loads(written.read_text())))
    cli.template_matches(Match.exact(comparable(template.to_json())))
