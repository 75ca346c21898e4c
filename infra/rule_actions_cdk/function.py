"""The function and its role, built into RuleActions' own scope (as all its parts: their construct ids, and so their
logical ids and physical names, are those of its first releases).

    Handler           <name>-handler: its log group, its role (its statements, and nothing else attached), the
                      function (Lambda's 2 async retries, then the on-failure queue)
    grant_function    a function's statements (the function's, or the evaluator's: evaluator.py): the job families'
                      grants, the topics, the key, the ledger, its logs, the kinds' grants, and in organization mode
                      the members' executor roles
    new_function      a function of the construct: the bundled code's handler, on arm64, on the runtime of the
                      synthesizing interpreter's Python where Lambda offers it
    function_environment  what the function reads from its environment (rule_actions.config.Settings.from_env)
"""

from __future__ import annotations

import json
from typing import NamedTuple, TypedDict, Unpack, cast

import jsii
from aws_cdk import Acknowledgment, Annotations, CfnElement, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from rule_actions.config import Config
from rule_actions.contract import (
    CONFIG_FILE_NAME,
    ENV_CHAT_TOPIC_ARN,
    ENV_CONFIG,
    ENV_CONFIG_FILE,
    ENV_LEDGER_TABLE,
    ENV_SERVICE,
    ENV_TOPIC_ARN,
    NAMESPACE,
    Grant,
)
from rule_actions_cdk import organization, plugins
from rule_actions_cdk.grants import acknowledge, grant
from rule_actions_cdk.settings import LAMBDA_PYTHONS, PYTHON_VERSION, RUNTIME, RUNTIME_PYTHON_ENV, StackSettings

HANDLER = "rule_actions.handler.lambda_handler"
RUNTIMES = {version: getattr(lambda_.Runtime, "PYTHON_" + version.replace(".", "_")) for version in LAMBDA_PYTHONS}

# Lambda's limit on the environment, keys and values together. Counted here as the JSON of the variables,
# which is at least what Lambda counts, with the longest partition and region names for the ARNs.
ENVIRONMENT_LIMIT = 4096
_LONGEST_PARTITION, _LONGEST_REGION, _ACCOUNT = "aws-us-gov", "x" * 20, "0" * 12

# The function: 256 MB (cold start is CPU-bound imports of boto3 and Powertools, ~0.4 s, and Lambda's CPU
# share grows with memory; 128 MB doubles it), 60 s timeout (a handful of AWS calls, each retried by
# botocore's standard mode with up to 5 attempts, plus a paged ListTrainingJobs; a normal run takes < 2 s).
MEMORY_MB = 256
TIMEOUT = Duration.seconds(60)
# Lambda's own async retries (EventBridge invokes asynchronously): 2, Lambda's maximum, then the on-failure
# queue. Six hours (Lambda's maximum) in the async queue: a throttled event waits rather than being dropped,
# because stopping a job late still saves its remaining hours and the ledger makes late re-delivery safe.
ASYNC_RETRIES = 2
ASYNC_MAX_EVENT_AGE = Duration.hours(6)


class Backing(NamedTuple):
    """What both functions act through, with the same statements on each role."""

    config: Config
    key: kms.IKey  # the stack's key (the topics' and queues')
    topic: sns.ITopic  # the team topic
    chat_topic: sns.ITopic | None  # the chat channels' topic, when the configuration names channels
    table: dynamodb.Table  # the ledger
    grants: list[Grant]  # what the kinds ask of both roles (webhook secrets, prices: plugins.stack_parts)


class FunctionOptions(TypedDict, total=False):
    """What a function of the construct sets beyond new_function's own arguments (lambda_.Function's options)."""

    reserved_concurrent_executions: int | None
    retry_attempts: int
    max_event_age: Duration
    on_failure: lambda_.IDestination


@jsii.implements(lambda_.IDestination)
class _QueueDestination:
    """An on-failure destination queue, without the grants `SqsDestination` adds (ReEncrypt, GetQueueUrl...):
    the construct grants exactly sqs:SendMessage and the key use, in statements of its own."""

    def __init__(self, queue: sqs.IQueue):
        self.queue = queue

    def bind(self, scope: Construct, fn: lambda_.IFunction, *, type: lambda_.DestinationType) -> lambda_.DestinationConfig:
        return lambda_.DestinationConfig(destination=self.queue.queue_arn)


class Handler:
    """The function that acts on the rule's events: its log group, its role and the function."""

    def __init__(self, scope: Construct, name: str, backing: Backing, settings: StackSettings,
                 environment: dict[str, str], code: lambda_.Code, failure_queue: sqs.Queue) -> None:
        config, org = backing.config, backing.config.organization
        function_name = f"{name}-handler"
        self.log_group = logs.LogGroup(
            scope, "LogGroup", log_group_name=f"/aws/lambda/{function_name}",
            retention=retention(settings.log_retention_days),
            removal_policy=RemovalPolicy.DESTROY,  # a kept group would block redeploying the same name
        )
        self.role = iam.Role(
            scope, "FunctionRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{function_name}: stop training jobs, notify, keep the ledger",
            # Organization mode: a name the member stacks' executor roles trust.
            role_name=organization.function_role_name(name, org) if org else None,
        )
        grant_function(self.role, self.log_group, backing, [] if org else plugins.job_grants(config), failure_queue)
        self.function = new_function(
            scope, "Function", function_name,
            "Acts on SageMaker training job outcomes and Debugger/Profiler rule statuses",
            code, self.role, self.log_group, MEMORY_MB, TIMEOUT, environment,
            reserved_concurrent_executions=settings.reserved_concurrency,
            retry_attempts=ASYNC_RETRIES,
            max_event_age=ASYNC_MAX_EVENT_AGE,
            on_failure=_QueueDestination(failure_queue),
        )


def new_function(scope: Construct, construct_id: str, function_name: str, description: str, code: lambda_.Code,
                 role: iam.Role, log_group: logs.LogGroup, memory: int, timeout: Duration,
                 environment: dict[str, str], **options: Unpack[FunctionOptions]) -> lambda_.Function:
    """A function of the construct: the handler of the bundled code, on arm64, with the functions' environment, on
    the runtime settings.runtime_python chose (the synthesizing interpreter's version where Lambda offers it)."""
    function = lambda_.Function(
        scope, construct_id, function_name=function_name, description=description,
        runtime=RUNTIMES[PYTHON_VERSION], architecture=lambda_.Architecture.ARM_64, handler=HANDLER, code=code,
        role=role, environment=environment, memory_size=memory, timeout=timeout, log_group=log_group,
        **options)
    if RUNTIME.interpreter is None:
        Annotations.of(function).add_warning_v2(
            "rule-actions:NoBytecode",
            f"The function's code ships without bytecode: {RUNTIME.chosen}, so each cold start compiles its modules "
            f"(about 1.6x the import time). Install Python {LAMBDA_PYTHONS[-1]} (or {', '.join(LAMBDA_PYTHONS[:-1])}) "
            f"or name one in {RUNTIME_PYTHON_ENV}, then synthesize again.")
    if PYTHON_VERSION != LAMBDA_PYTHONS[-1]:
        Validations.of(function).acknowledge(Acknowledgment(
            id="AwsSolutions-L1",
            reason=f"The runtime is python{PYTHON_VERSION}, the version of {RUNTIME.chosen}, so that the code "
                   "ships the bytecode that runtime reads (a faster cold start); Lambda supports it. Synthesize "
                   f"with Python {LAMBDA_PYTHONS[-1]} (or name one in {RUNTIME_PYTHON_ENV}) for the latest runtime.",
        ))
    return function


def grant_function(role: iam.Role, log_group: logs.LogGroup, backing: Backing, job_grants: list[Grant],
                   failure_queue: sqs.Queue | None = None) -> None:
    """A function's permissions (the function's, or the evaluator's), statement by statement; nothing else is
    attached to its role. `job_grants`: one account, the job families' grants (the evaluator's include its
    reads); organization mode, none here (the members' executor roles have them). `failure_queue`: the function's
    on-failure destination (the evaluator has none)."""
    stack = Stack.of(role)
    org = backing.config.organization
    grant(role, job_grants)
    topic = backing.topic
    statements = [
        iam.PolicyStatement(sid="PublishAndSubscribe",
                            actions=["sns:Publish", "sns:Subscribe", "sns:ListSubscriptionsByTopic"],
                            resources=[topic.topic_arn]),
        # Subscription ARNs are <topic ARN>:<uuid>: this is the topic's subscriptions and nothing else.
        iam.PolicyStatement(sid="TopicSubscriptions",
                            actions=["sns:GetSubscriptionAttributes", "sns:SetSubscriptionAttributes"],
                            resources=[f"{topic.topic_arn}:*"]),
        # Publishing to the encrypted topic and sending to the encrypted queue (SNS/SQS call KMS as the
        # caller): what their documentation prescribes, on the stack's own key only.
        iam.PolicyStatement(sid="UseStackKey", actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                            resources=[backing.key.key_arn]),
        iam.PolicyStatement(sid="Ledger",
                            actions=["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
                                     "dynamodb:DeleteItem"],
                            resources=[backing.table.table_arn]),
        *([iam.PolicyStatement(sid="SendFailedEvents", actions=["sqs:SendMessage"],
                               resources=[failure_queue.queue_arn])] if failure_queue is not None else []),
        iam.PolicyStatement(sid="WriteLogs", actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                            resources=[log_group.log_group_arn]),
    ]
    if backing.chat_topic is not None:
        statements.append(iam.PolicyStatement(sid="PublishToChat", actions=["sns:Publish"],
                                              resources=[backing.chat_topic.topic_arn]))
    for statement in statements:
        role.add_to_policy(statement)
    grant(role, backing.grants)  # the kinds'

    if org:
        organization.grant_assume_member_roles(role, org)
    # cdk-nag AwsSolutions-IAM5 (wildcards) findings on this policy, each acknowledged with its reason.
    # None for a topic given (its ARN then names it in the finding); else its L1 CfnTopic, which CDK types IConstruct
    own = cast("CfnElement | None", topic.node.default_child)
    shown = f"<{stack.get_logical_id(own)}>" if own is not None else stack.resolve(topic.topic_arn)
    acknowledge(role.node.find_child("DefaultPolicy"), {
        f"Resource::{shown}:*": "The topic's own subscriptions (<topic ARN>:<id>), whose filter policies the "
                                "function reads and widens; their ids are not known in advance.",
        "Action::kms:GenerateDataKey*": "What SNS and SQS server-side encryption require of a publisher or "
                                        "sender, on the stack's own key only.",
    })


def function_environment(config: Config, topic_arn: str, table_name: str, chat_topic_arn: str | None = None,
                         config_in_code: bool = False, *, service: str) -> dict[str, str]:
    """The function's environment: what `rule_actions.config.Settings.from_env` reads, plus Powertools' (`service`:
    the service name its log lines and metrics carry, the construct's name). The configuration is in it, or
    (`config_in_code`) in the code asset's CONFIG_FILE_NAME, which it names."""
    return {
        **({ENV_CONFIG_FILE: CONFIG_FILE_NAME} if config_in_code else {ENV_CONFIG: config.to_json()}),
        ENV_TOPIC_ARN: topic_arn,
        ENV_LEDGER_TABLE: table_name,
        **({ENV_CHAT_TOPIC_ARN: chat_topic_arn} if chat_topic_arn else {}),
        ENV_SERVICE: service,
        "POWERTOOLS_METRICS_NAMESPACE": NAMESPACE,
    }


def fits_environment(config: Config, name: str) -> bool:
    """Whether the environment with the configuration in it fits Lambda's limit, with the longest ARNs the
    construct named `name` may give its topics (else the configuration ships in the code asset)."""
    longest = f"arn:{_LONGEST_PARTITION}:sns:{_LONGEST_REGION}:{_ACCOUNT}:{name}"
    environment = function_environment(config, f"{longest}-notifications", f"{name}-ledger",
                                       f"{longest}-chat" if config.chat else None, service=name)
    return len(json.dumps(environment, separators=(",", ":"), ensure_ascii=False).encode()) <= ENVIRONMENT_LIMIT


def retention(days: int | None) -> logs.RetentionDays:
    names = {1: "ONE_DAY", 3: "THREE_DAYS", 5: "FIVE_DAYS", 7: "ONE_WEEK", 14: "TWO_WEEKS", 30: "ONE_MONTH",
             60: "TWO_MONTHS", 90: "THREE_MONTHS", 120: "FOUR_MONTHS", 150: "FIVE_MONTHS", 180: "SIX_MONTHS",
             365: "ONE_YEAR", 400: "THIRTEEN_MONTHS", 545: "EIGHTEEN_MONTHS", 731: "TWO_YEARS",
             1096: "THREE_YEARS", 1827: "FIVE_YEARS", 2192: "SIX_YEARS", 2557: "SEVEN_YEARS",
             2922: "EIGHT_YEARS", 3288: "NINE_YEARS", 3653: "TEN_YEARS"}
    return logs.RetentionDays.INFINITE if days is None else getattr(logs.RetentionDays, names[days])
