"""`RuleActions`: everything one deployment needs, as one construct that a user's CDK app can also embed.

    EventBridge rule (pattern: rule_actions_cdk.plugins.event_pattern) --async--> Lambda (lambdas/ + Powertools, bundled: rule_actions_cdk.bundle)
        |  target retry policy, target DLQ                 |  2 retries, then the on-failure queue
        v                                                  v
    <name>-target-dlq                                   <name>-failed-events
    Lambda --> SNS <name>-notifications (team subscribers filtered on to=team; endpoints it subscribes itself)
           --> SageMaker StopTrainingJob / DescribeTrainingJob / ListTrainingJobs
           --> DynamoDB <name>-ledger (exactly-once per action)
    CloudWatch alarms (function errors and throttles, a message in either queue, events neither delivered nor
    queued, undeliverable messages) --> SNS <name>-ops (team, unfiltered)
    With `monitor` (the monitor rules, rule_actions_cdk.plugins.schedule): scheduled rules <name>-evaluate[-<n>] (every
    `every_minutes`, one target per run) --> Lambda <name>-evaluator (the same code; its own role: the function's
    statements plus Search, GetMetricData, FilterLogEvents and StartQuery on the training log group, and
    GetQueryResults and StopQuery for that query), and its alarms (errors,
    jobs whose reads failed, runs near their timeout or out of time for some jobs, no run at all)
    SNS account SMS preferences: the delivery status role (when the configuration can text; a custom resource)
    CloudWatch dashboard <name>-dashboard (unless settings.dashboard is false: dashboard.py): actions, triggers,
    stops and dollars saved from the function's metrics, the evaluator's health, the alarms' states

Names derive from `name` (by default the stack's name), so two deployments in one account need two names: two
constructs in one stack deriving one name are refused at synth (each needs its own `name=`). `name` is also the
service name (POWERTOOLS_SERVICE_NAME, output ServiceName) of the functions' log lines and metrics, which its alarms
and dashboard read: each deployment reads its own. Every cdk-nag acknowledgment is made here, next to the resource it is about, with its reason.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import textwrap
from collections.abc import Mapping
from os import PathLike
from typing import Any

import jsii
from aws_cdk import (
    Acknowledgment,
    Annotations,
    ArnFormat,
    CfnOutput,
    Duration,
    RemovalPolicy,
    Stack,
    Token,
    Validations,
)
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from aws_cdk import custom_resources as cr
from constructs import Construct

from rule_actions.config import Config, ConfigError
from rule_actions.contract import (
    CONFIG_FILE_NAME,
    ENV_CHAT_TOPIC_ARN,
    ENV_CONFIG,
    ENV_CONFIG_FILE,
    ENV_LEDGER_TABLE,
    ENV_SERVICE,
    ENV_TOPIC_ARN,
    EVALUATION_KEY,
    LEDGER_EXPIRY_ATTRIBUTE,
    LEDGER_KEY_ATTRIBUTE,
    NAMESPACE,
    ROUTING_ATTRIBUTE,
    SERVICE_DIMENSION,
    TEAM,
    Arn,
    Grant,
    TeamEndpoint,
    Texts,
)
from rule_actions.text import quoted
from rule_actions_cdk import bundle, metrics, organization, plugins
from rule_actions_cdk.chat import ChatChannels
from rule_actions_cdk.dashboard import SavingsDashboard, function_metric
from rule_actions_cdk.settings import (
    FILE_STACK,
    LAMBDA_PYTHONS,
    PYTHON_VERSION,
    STACK_NAME_RE,
    StackSettings,
    read_config_file,
    split_file,
)

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
# EventBridge's retries apply only when it cannot hand the event to Lambda at all (permissions, a disabled
# key, service errors): those rarely heal by waiting, so 8 attempts within 2 hours, then the target DLQ and
# its alarm, instead of EventBridge's default of 185 attempts over 24 hours.
TARGET_RETRIES = 8
TARGET_MAX_EVENT_AGE = Duration.hours(2)
QUEUE_RETENTION = Duration.days(14)  # SQS's maximum: time for a person to look after the alarm
ALARM_PERIOD = Duration.minutes(5)
# The evaluator: 512 MB (a run over a thousand jobs parses their Search records and datapoints; Lambda's CPU share
# grows with memory), a timeout of its schedule's interval (a run never overlaps the next; at most Lambda's 15
# minutes); no retry of a failed run (the next run comes within minutes; the ledger keeps its actions once).
EVALUATOR_MEMORY_MB = 512
EVALUATOR_MAX_TIMEOUT = 900
TARGETS_PER_RULE = 5  # EventBridge's limit of targets per rule: runs of one schedule share rules five by five
DURATION_ALARM_SHARE = 0.8  # a run longer than this share of its timeout alarms


@jsii.implements(lambda_.IDestination)
class _QueueDestination:
    """An on-failure destination queue, without the grants `SqsDestination` adds (ReEncrypt, GetQueueUrl...):
    the construct grants exactly sqs:SendMessage and the key use, in statements of its own."""

    def __init__(self, queue: sqs.IQueue):
        self.queue = queue

    def bind(self, scope: Construct, fn: lambda_.IFunction, *, type: lambda_.DestinationType) -> lambda_.DestinationConfig:
        return lambda_.DestinationConfig(destination=self.queue.queue_arn)


ConfigSource = Config | Mapping[str, Any] | str | PathLike[str]


def read_source(config: ConfigSource) -> tuple[Config | Mapping[str, Any], str]:
    """The configuration as given, a file's read (a path: rule-actions.json), and the name its errors and warnings
    use for it (the file's path, else `config`)."""
    if isinstance(config, str | PathLike):
        return read_config_file(config), str(config)
    return config, "config"


def as_config(config: ConfigSource, where: str | None = None) -> Config:
    """The configuration, given as `Config`, as a mapping with the keys of rule-actions.json (its "$schema" line
    ignored, its "stack" block read by `file_settings`) or as the path of such a file; ConfigError naming every bad
    key (and the file). `where` names a mapping in errors (default: `config`)."""
    config, named = read_source(config)
    where = where or named
    if isinstance(config, Config):
        return config
    if not isinstance(config, Mapping):
        raise ConfigError(f"{where}: must be a rule_actions.config.Config, a mapping or the path of rule-actions.json, "
                          f"got {type(config).__name__}")
    values, _ = split_file(config, where)
    return Config.from_dict(values, where=where)


def file_settings(config: ConfigSource, where: str | None = None) -> StackSettings | None:
    """The "stack" block of rule-actions.json given as the mapping or the file (validated: ConfigError names a bad
    key), or None when there is none."""
    config, named = read_source(config)
    where = where or named
    if isinstance(config, Mapping) and config.get(FILE_STACK) is not None:
        return StackSettings.from_dict(config[FILE_STACK], where=f"{where}.{FILE_STACK}")
    return None


def warning_block(warnings: list[str], width: int = 110) -> str:
    """The configuration's warnings as one readable block: a heading, then each finding as a wrapped bullet."""
    items = [textwrap.fill(w, width, initial_indent="  - ", subsequent_indent="    ", break_long_words=False,
                           break_on_hyphens=False) for w in warnings]  # a file's path stays whole
    return "\n".join(["rule-actions: the configuration is valid, but:", *items])


def _claim_name(construct: RuleActions, stack: Stack, name: str, sms_logs: bool) -> None:
    """Refuse a second RuleActions in `stack` deriving the same physical names, or also setting the account's SMS
    delivery logs, naming both constructs and the fix."""
    claimed: dict[str, tuple[str, bool]] = getattr(stack, "_rule_actions_names", None) or {}
    path = construct.node.path
    if name in claimed:
        raise ConfigError(f"RuleActions {path}: its resource names derive from {quoted(name)}, as those of "
                          f"RuleActions {claimed[name][0]} in the same stack do, so both cannot be deployed; pass "
                          f"each its own name=... (e.g. name={quoted(name + '-' + construct.node.id)[:60]})")
    setters = [other for other, sms in claimed.values() if sms]
    if sms_logs and setters:
        raise ConfigError(f"RuleActions {path}: sms_delivery_logs sets the account's SMS delivery status role, an "
                          f"account-wide setting already set by RuleActions {setters[0]} in the same stack; pass "
                          f"settings=StackSettings(sms_delivery_logs=False) to this one")
    claimed[name] = (path, sms_logs)
    stack._rule_actions_names = claimed  # type: ignore[attr-defined]


def _check_key_place(construct: RuleActions, key: kms.IKey) -> None:
    """A key given must be in the stack's region (SNS and SQS use a key of their own region only): refused when
    both regions are known; a key of another account (its policy must grant this one) is warned about."""
    stack = Stack.of(construct)
    key_region, key_account = key.env.region, key.env.account
    if not Token.is_unresolved(key_region) and not Token.is_unresolved(stack.region) and key_region != stack.region:
        raise ConfigError(f"RuleActions {construct.node.path}: key= is a KMS key of region {key_region}, the stack "
                          f"deploys to {stack.region}; SNS topics and SQS queues take a key of their own region "
                          f"only: pass a key of {stack.region} (or no key: the construct creates one)")
    if (not Token.is_unresolved(key_account) and not Token.is_unresolved(stack.account)
            and key_account != stack.account):
        Annotations.of(construct).add_warning_v2(
            "rule-actions:key-account",
            f"key= is a KMS key of account {key_account}, the stack deploys to {stack.account}: its key policy must "
            f"grant this account's SNS, SQS, CloudWatch and EventBridge its use, or nothing gets encrypted messages")


class RuleActions(Construct):
    """The rule, function, topics, queues, ledger table, alarms and IAM for one configuration.

        RuleActions(stack, "TrainingActions", config={"notify": {"emails": ["ml-team@example.com"]}})

        RuleActions(stack, "TrainingActions", config="rule-actions.json")

    `config`: the path of rule-actions.json (the file `rule-actions replay`, `template` and `test-notify` read), the
    configuration as a mapping with its keys (validated here: ConfigError names every bad key, and the file), or a
    `rule_actions.config.Config`; actions may be `rule_actions_sdk` objects
    (`{"rules": {"VanishingGradient": ActionList(StopTraining())}}`). Nothing is read from the app's context. A
    valid configuration that leaves someone unreachable or allows more than it probably should is printed on
    stderr as one block ("the configuration is valid, but:"; `warn=False` keeps it quiet).
    `settings`: the reserved concurrency, log retention, SMS delivery logs and dashboard (`StackSettings`; its
    stack_name is not used here). `name` prefixes every resource name (default: the stack's name) and is the service
    name of the functions' log lines and metrics (their dimension `service`), which its alarms and dashboard read. `topic`: an
    existing SNS topic for the team's messages instead of a new one (you own its encryption and policy). `key`: an
    existing KMS key for the topics and queues instead of a new one; a key defined elsewhere cannot take the
    statements CloudWatch and EventBridge need (a warning says which), so grant them in its own policy; one of
    another region is refused, of another account warned (when both are known). The file's (or a mapping's) "stack" block is the
    settings when `settings` is not given. The stack gets outputs `<construct id>FunctionName`, `...TopicArn`,
    `...OpsTopicArn`, `...ServiceName` (and the others of RuleActionsStack), which `rule-actions check`, `invoke`,
    `test-notify` and `report --stack` read; `output_prefix` replaces the construct id in their names.
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: ConfigSource,
                 settings: StackSettings | None = None, name: str | None = None, topic: sns.ITopic | None = None,
                 key: kms.IKey | None = None, output_prefix: str | None = None, warn: bool = True) -> None:
        super().__init__(scope, construct_id)
        source, where = read_source(config)  # a file, read once: its errors and warnings name it
        settings = settings or file_settings(source, where) or StackSettings()
        stack = Stack.of(self)
        self.config = config = as_config(source, where)
        self.name = name = name or stack.stack_name
        if not STACK_NAME_RE.fullmatch(name):
            raise ConfigError(f"RuleActions name {quoted(name)}: resource names are derived from it, so it must be "
                              f"a letter, then letters, digits or '-', at most 40 characters (pass name=...)")
        texts = any(isinstance(p, Texts) for p in plugins.stack_parts(config))
        _claim_name(self, stack, name, texts and settings.sms_delivery_logs)
        if key is not None:
            _check_key_place(self, key)
        function_name = f"{name}-handler"
        topic_name, table_name = f"{name}-notifications", f"{name}-ledger"
        # A configuration too large for the environment ships in the code asset (the environment names the file).
        self.config_in_code = not _fits_environment(
            config, f"arn:{_LONGEST_PARTITION}:sns:{_LONGEST_REGION}:{_ACCOUNT}:{topic_name}", table_name,
            f"arn:{_LONGEST_PARTITION}:sns:{_LONGEST_REGION}:{_ACCOUNT}:{name}-chat", name)

        # One key for the topics and queues, owned by the stack, rotated yearly (or the one given).
        self.key = key or kms.Key(
            self, "Key",
            description=f"{name}: encrypts the rule-actions SNS topics and SQS queues",
            alias=f"alias/{name}",
            enable_key_rotation=True,
            pending_window=Duration.days(7),
            removal_policy=RemovalPolicy.DESTROY,
        )
        rule_name = f"{name}-rule-outcomes"
        # Organization mode: the rule is on the bus the member accounts forward to (infra/rule_actions_cdk/organization.py).
        org = config.organization
        self.bus = organization.central_bus(self, name, org) if org else None
        rule_resource = f"{organization.bus_name(name)}/{rule_name}" if org else rule_name
        rule_arn = stack.format_arn(service="events", resource="rule", resource_name=rule_resource)
        alarm_arns = stack.format_arn(service="cloudwatch", resource="alarm", resource_name=f"{name}-*",
                                      arn_format=ArnFormat.COLON_RESOURCE_NAME)
        # Alarm actions publish to the encrypted ops topic as CloudWatch: without this, they are dropped silently.
        key_statements = [iam.PolicyStatement(
            sid="AlarmsPublishToEncryptedTopic",
            principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["kms:Decrypt", "kms:GenerateDataKey*"],
            resources=["*"],  # in a key policy, "*" is this key
        ),
            # EventBridge writes undeliverable events to the encrypted target DLQ, for this stack's rule only.
            iam.PolicyStatement(
            sid="RuleWritesToEncryptedDeadLetterQueue",
            principals=[iam.ServicePrincipal("events.amazonaws.com")],
            actions=["kms:Decrypt", "kms:GenerateDataKey"],
            resources=["*"],
            conditions={"ArnEquals": {"aws:SourceArn": rule_arn}},
        )]
        for statement in key_statements:
            if not self.key.add_to_resource_policy(statement).statement_added:
                Annotations.of(self).add_warning_v2(
                    "rule-actions:key-policy", f"the key given cannot take the statement {statement.sid}: grant "
                    f"{', '.join(statement.actions)} to {statement.principals[0]} in its own key policy, or alarms "
                    "and undeliverable events are dropped")
        # The function (its role) uses the key through the IAM statements below, which the key's default
        # policy (the account may delegate to IAM) permits.

        # The team topic: the function publishes with the attribute to=team or to=<endpoint>.
        # Display names are the email sender's name and prefix every text message: short.
        self.topic = topic or sns.Topic(
            self, "Topic", topic_name=topic_name, display_name="RuleActions",
            master_key=self.key, enforce_ssl=True,
        )
        # The ops topic: alarm notifications carry no message attributes, so they cannot go through the
        # team topic's filter policies.
        self.ops_topic = sns.Topic(
            self, "OpsTopic", topic_name=f"{name}-ops", display_name="RuleOps",
            master_key=self.key, enforce_ssl=True,
        )
        self.ops_topic.add_to_resource_policy(iam.PolicyStatement(
            sid="AlarmsPublish",
            principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["sns:Publish"],
            resources=[self.ops_topic.topic_arn],
            conditions={"ArnLike": {"aws:SourceArn": alarm_arns}},
        ))
        team_filter = {ROUTING_ATTRIBUTE: sns.SubscriptionFilter.string_filter(allowlist=[TEAM])}
        parts = plugins.stack_parts(config)  # what the kinds ask of the stack
        protocols = {"email": ("Email", sns.SubscriptionProtocol.EMAIL), "sms": ("Sms", sns.SubscriptionProtocol.SMS)}
        for member in (p for p in parts if isinstance(p, TeamEndpoint)):
            kind, protocol = protocols[member.protocol]
            # Ids from the endpoint, not its position: adding one subscriber never replaces another.
            tag = hashlib.sha256(member.endpoint.encode()).hexdigest()[:10]
            sns.Subscription(self, f"Team{kind}{tag}", topic=self.topic, protocol=protocol,
                             endpoint=member.endpoint, filter_policy=team_filter)
            sns.Subscription(self, f"Ops{kind}{tag}", topic=self.ops_topic, protocol=protocol,
                             endpoint=member.endpoint)

        # Chat channels (Amazon Q Developer in chat applications) on a topic of their own: team messages only.
        self.chat = ChatChannels(self, "Chat", name=name, channels=config.chat, key=self.key) if config.chat else None
        self.chat_topic = self.chat.topic if self.chat else None

        # The exactly-once ledger (Powertools idempotency records, expired by TTL).
        self.table = dynamodb.Table(
            self, "Ledger", table_name=table_name,
            partition_key=dynamodb.Attribute(name=LEDGER_KEY_ATTRIBUTE, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            time_to_live_attribute=LEDGER_EXPIRY_ATTRIBUTE,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True),
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            removal_policy=RemovalPolicy.DESTROY,  # records live dedup_ttl_hours; nothing to keep
        )

        self.target_dlq = self._queue("TargetDeadLetterQueue", f"{name}-target-dlq",
                                      "the dead-letter queue of the EventBridge rule's target")
        self.failure_queue = self._queue("FailedEventsQueue", f"{name}-failed-events",
                                         "the function's on-failure destination")

        self.log_group = logs.LogGroup(
            self, "LogGroup", log_group_name=f"/aws/lambda/{function_name}",
            retention=_retention(settings.log_retention_days),
            removal_policy=RemovalPolicy.DESTROY,  # a kept group would block redeploying the same name
        )
        self.role = iam.Role(
            self, "FunctionRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{function_name}: stop training jobs, notify, keep the ledger",
            # Organization mode: a name the member stacks' executor roles trust.
            role_name=organization.function_role_name(name, org) if org else None,
        )
        self._grant_function(stack, self.role, self.log_group, [] if org else plugins.job_grants(config))

        self.environment = function_environment(config, self.topic.topic_arn, self.table.table_name,
                                                self.chat_topic.topic_arn if self.chat_topic else None,
                                                self.config_in_code, service=name)
        code = bundle.function_code({CONFIG_FILE_NAME: config.to_json()} if self.config_in_code else None)
        self.function = self._function(
            "Function", function_name, "Acts on SageMaker training job outcomes and Debugger/Profiler rule statuses",
            code, self.role, self.log_group, MEMORY_MB, TIMEOUT,
            reserved_concurrent_executions=settings.reserved_concurrency,
            retry_attempts=ASYNC_RETRIES,
            max_event_age=ASYNC_MAX_EVENT_AGE,
            on_failure=_QueueDestination(self.failure_queue),
        )

        self.pattern = plugins.event_pattern(config)
        self.rule = events.Rule(
            self, "Rule", rule_name=rule_name,
            description="SageMaker training jobs whose rule status or job outcome can trigger an action",
            event_pattern=rule_pattern(self.pattern),
            event_bus=self.bus,
            targets=[targets.LambdaFunction(
                self.function, dead_letter_queue=self.target_dlq,
                retry_attempts=TARGET_RETRIES, max_event_age=TARGET_MAX_EVENT_AGE,
            )],
        )
        set_pattern(self.rule, self.pattern)

        alarm_action = cloudwatch_actions.SnsAction(self.ops_topic)
        queue_metric = {"period": ALARM_PERIOD, "statistic": "Maximum"}
        self.alarms = [
            self._alarm("FunctionErrorsAlarm", f"{name}-function-errors",
                        "The rule-actions function failed: an action failed, or the handler raised",
                        self.function.metric_errors(period=ALARM_PERIOD, statistic="Sum")),
            self._alarm("TargetDeadLetterQueueAlarm", f"{name}-target-dlq-messages",
                        "EventBridge could not deliver rule outcomes to the function: they wait in the target DLQ",
                        self.target_dlq.metric_approximate_number_of_messages_visible(**queue_metric)),
            self._alarm("FailedEventsQueueAlarm", f"{name}-failed-events-messages",
                        "The function failed on rule outcomes after Lambda's retries: they wait in the "
                        "failed-events queue",
                        self.failure_queue.metric_approximate_number_of_messages_visible(**queue_metric)),
        ]
        self.alarms += self._delivery_alarms()
        if org:
            self.alarms.append(self._alarm(
                "RefusedAccountsAlarm", f"{name}-refused-accounts",
                "Events came from an account the organization configuration does not name: nothing was done for "
                "them (add the account to organization.accounts, or remove its member stack)",
                organization.refused_account_metric(name)))
        self.schedule = plugins.schedule(config)
        self.evaluator_timeout = min(self.schedule.every_minutes * 60, EVALUATOR_MAX_TIMEOUT) if self.schedule else 0
        self.evaluator = self._evaluator(stack, code, settings) if self.schedule else None
        for alarm in self.alarms:
            alarm.add_alarm_action(alarm_action)

        self.sms_logs_role = self._sms_delivery_logs(settings) if texts and settings.sms_delivery_logs else None
        self.dashboard = SavingsDashboard(
            self, "Dashboard", name=name, service=name, alarms=[a.node.default_child.alarm_name for a in self.alarms],
            evaluator=self.evaluator, evaluator_timeout=self.evaluator_timeout,
            duration_alarm=DURATION_ALARM_SHARE * self.evaluator_timeout,
            organization=org is not None).dashboard if settings.dashboard else None
        self._outputs(re.sub(r"[^A-Za-z0-9]", "", construct_id) if output_prefix is None else output_prefix)
        self.warnings = plugins.warnings(config, config.where)
        if warn and self.warnings:
            print(warning_block(self.warnings), file=sys.stderr)

    def _outputs(self, prefix: str) -> None:
        """The stack outputs the command reads (check, invoke, test-notify, subscriptions) and a person needs, each
        named `<prefix><name>` so that two constructs in one stack keep theirs apart."""
        found = [
            ("FunctionName", self.function.function_name, "The function that acts on rule outcomes"),
            ("TopicArn", self.topic.topic_arn, "Team notifications (subscribers filter on to=team)"),
            ("OpsTopicArn", self.ops_topic.topic_arn, "Alarm notifications"),
            ("LedgerTable", self.table.table_name, "The exactly-once ledger"),
            ("TargetDeadLetterQueueUrl", self.target_dlq.queue_url,
             "Events EventBridge could not deliver to the function"),
            ("FailedEventsQueueUrl", self.failure_queue.queue_url,
             "Events the function failed on after Lambda's retries"),
            ("ServiceName", self.name, f"The service name of the functions' log lines and metrics (dimension "
             f"{SERVICE_DIMENSION}, namespace {NAMESPACE}): what the alarms, the dashboard and rule-actions report "
             "read"),
        ]
        if self.dashboard is not None:
            found.append(("DashboardName", self.dashboard.dashboard_name,
                          "The CloudWatch dashboard: what rule-actions did and saved, the evaluator's health"))
        if self.chat_topic is not None:
            found.append(("ChatTopicArn", self.chat_topic.topic_arn,
                          "Team messages for the chat channels (custom notifications)"))
        if self.evaluator is not None:
            found.append(("EvaluatorFunctionName", self.evaluator.function_name,
                          "The function that evaluates the monitor rules on its schedule"))
        if self.bus:
            found += [("EventBusArn", self.bus.event_bus_arn,
                       "The bus the member stacks forward training job events to"),
                      ("FunctionRoleArn", self.role.role_arn, "The role the member stacks' executor roles trust")]
            if self.evaluator is not None:
                found.append(("EvaluatorRoleArn", self.evaluator_role.role_arn,
                              "The evaluator's role, which the member stacks' executor roles also trust"))
        for output_id, value, description in found:
            output = CfnOutput(self, output_id, value=value, description=description)
            output.override_logical_id(prefix + output_id)

    def _function(self, construct_id: str, function_name: str, description: str, code: lambda_.Code, role: iam.Role,
                  log_group: logs.LogGroup, memory: int, timeout: Duration, **options: object) -> lambda_.Function:
        """A function of this construct: the handler of the bundled code, on arm64, with the functions' environment,
        on the runtime of the synthesizing interpreter's Python version where Lambda offers it (settings.py)."""
        function = lambda_.Function(
            self, construct_id, function_name=function_name, description=description,
            runtime=RUNTIMES[PYTHON_VERSION], architecture=lambda_.Architecture.ARM_64, handler=HANDLER, code=code,
            role=role, environment=self.environment, memory_size=memory, timeout=timeout, log_group=log_group,
            **options)
        if PYTHON_VERSION != LAMBDA_PYTHONS[-1]:
            Validations.of(function).acknowledge(Acknowledgment(
                id="AwsSolutions-L1",
                reason=f"The runtime is python{PYTHON_VERSION}, the version of the Python that synthesized the stack, "
                       "so that the code ships the bytecode that runtime reads (a faster cold start); Lambda supports "
                       f"it. Synthesize with Python {LAMBDA_PYTHONS[-1]} for the latest runtime.",
            ))
        return function

    # ------------------------------------------------------------------------------------ the monitor rules

    def _evaluator(self, stack: Stack, code: lambda_.Code, settings: StackSettings) -> lambda_.Function:
        """The function that evaluates the monitor rules on a schedule and acts on what they find, as the
        function does (the same code, environment and statements: it stops jobs and notifies through the same
        topic and ledger), plus the reads of an evaluation."""
        name, org, schedule = self.name, self.config.organization, self.schedule
        function_name = f"{name}-evaluator"
        self.evaluator_log_group = logs.LogGroup(
            self, "EvaluatorLogGroup", log_group_name=f"/aws/lambda/{function_name}",
            retention=_retention(settings.log_retention_days), removal_policy=RemovalPolicy.DESTROY)
        self.evaluator_role = iam.Role(
            self, "EvaluatorRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"{function_name}: evaluate the monitor rules, stop training jobs, notify, keep the ledger",
            role_name=organization.evaluator_role_name(name, org) if org else None)
        self._grant_function(stack, self.evaluator_role, self.evaluator_log_group,
                             [] if org else plugins.evaluation_grants(self.config))
        timeout = self.evaluator_timeout
        evaluator = self._function(
            "Evaluator", function_name,
            "Evaluates the monitor rules on SageMaker training jobs' metrics and logs, and acts on them",
            code, self.evaluator_role, self.evaluator_log_group, EVALUATOR_MEMORY_MB, Duration.seconds(timeout),
            retry_attempts=0)
        runs = schedule.runs
        every = Duration.minutes(schedule.every_minutes)
        self.schedule_rules = []
        for index in range(0, len(runs), TARGETS_PER_RULE):
            part = index // TARGETS_PER_RULE
            rule_name = f"{name}-evaluate" + (f"-{part + 1}" if len(runs) > TARGETS_PER_RULE else "")
            self.schedule_rules.append(events.Rule(
                self, f"Schedule{part + 1}" if part else "Schedule", rule_name=rule_name,
                description=f"Runs the monitor rules every {schedule.every_minutes} minute(s)",
                schedule=events.Schedule.rate(Duration.minutes(schedule.every_minutes)),
                # EventBridge retries an invocation it could not make (throttling) within one interval: a later
                # attempt would overlap the next run.
                targets=[targets.LambdaFunction(evaluator, retry_attempts=TARGET_RETRIES, max_event_age=every,
                                                event=events.RuleTargetInput.from_object(
                    {EVALUATION_KEY: {**run, "time": events.EventField.time}}))
                    for run in runs[index:index + TARGETS_PER_RULE]],
            ))
        quiet = Duration.minutes(max(schedule.every_minutes, 5))
        self.alarms += [
            self._alarm("EvaluatorErrorsAlarm", f"{name}-evaluator-errors",
                        "The evaluator failed: an action it decided failed, or the run raised (see its logs)",
                        evaluator.metric_errors(period=quiet, statistic="Sum")),
            self._alarm("EvaluationErrorsAlarm", f"{name}-evaluation-errors",
                        "The evaluator could not read what some jobs' rules need (Search, GetMetricData or "
                        "FilterLogEvents failed: throttling, permissions of a member's executor role); those rules "
                        "were not judged (see the evaluator's logs)",
                        function_metric(metrics.EVALUATION_ERRORS, name, period=quiet)),
            self._alarm("EvaluatorDurationAlarm", f"{name}-evaluator-duration",
                        f"An evaluation ran longer than {int(DURATION_ALARM_SHARE * 100)}% of its timeout: raise "
                        "monitor.shards (or every_minutes) before runs fail",
                        evaluator.metric_duration(period=quiet, statistic="Maximum"),
                        threshold=int(DURATION_ALARM_SHARE * timeout * 1000)),
            self._alarm("EvaluationUnfinishedAlarm", f"{name}-evaluation-unfinished",
                        "A run had no time left for some jobs' log queries: those jobs were not evaluated in it "
                        "(FilterLogEvents allows 5 calls a second per account and region, a quota that cannot be "
                        "raised; from 500 jobs to read one Logs Insights query reads them); raise every_minutes",
                        function_metric(metrics.UNFINISHED, name, period=quiet)),
            cloudwatch.Alarm(
                self, "EvaluatorNotRunningAlarm", alarm_name=f"{name}-evaluator-not-running",
                alarm_description="The evaluator was not invoked for three schedule periods: the schedule rule is "
                                  "disabled, or EventBridge cannot invoke it",
                metric=evaluator.metric_invocations(period=every, statistic="Sum"),
                threshold=1, evaluation_periods=3,
                comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
                treat_missing_data=cloudwatch.TreatMissingData.BREACHING),
        ]
        return evaluator

    # ------------------------------------------------------------------------------------ deploy confidence

    def _delivery_alarms(self) -> list[cloudwatch.Alarm]:
        """Alarms on what would otherwise be lost or late without a trace: throttled invocations, a failed event
        Lambda could not put in the failed-events queue, an event EventBridge could not put in the target DLQ,
        and messages SNS could not deliver (a bounced email, a refused text)."""
        name, sum_ = self.name, {"period": ALARM_PERIOD, "statistic": "Sum"}
        return [
            self._alarm("FunctionThrottlesAlarm", f"{name}-function-throttles",
                        "Lambda throttled the rule-actions function: events wait in Lambda's async queue (up to "
                        "6 hours) and may be late; raise the account's concurrency or reserved_concurrency",
                        self.function.metric_throttles(**sum_)),
            self._alarm("DestinationDeliveryFailuresAlarm", f"{name}-destination-delivery-failures",
                        "Lambda could not put an event the function failed on into the failed-events queue: that "
                        "event is lost (see the function's logs)",
                        self.function.metric("DestinationDeliveryFailures", **sum_)),
            self._alarm("RuleDeadLetterFailuresAlarm", f"{name}-rule-dlq-failures",
                        "EventBridge could neither deliver rule outcomes to the function nor put them in the target "
                        "DLQ: those events are lost",
                        cloudwatch.Metric(namespace="AWS/Events", metric_name="InvocationsFailedToBeSentToDlq",
                                          dimensions_map=self._rule_dimensions(), **sum_)),
            self._alarm("NotificationsFailedAlarm", f"{name}-notifications-failed",
                        "SNS could not deliver messages of the team topic (an email bounced, a text was refused: "
                        "SMS sandbox, spend limit, opted-out number); texts' reasons are in the SMS delivery logs",
                        self.topic.metric_number_of_notifications_failed(**sum_)),
        ]

    def _rule_dimensions(self) -> dict[str, str]:
        """The rule's metric dimensions: a rule on a custom bus (organization mode) is also named by its bus, and
        its RuleName alone would name a rule of the default bus."""
        bus = {"EventBusName": self.bus.event_bus_name} if self.bus else {}
        return {**bus, "RuleName": self.rule.rule_name}

    def _sms_delivery_logs(self, settings: StackSettings) -> iam.Role:
        """SMS delivery status logging: SNS's per-topic delivery feedback covers HTTP, SQS, Lambda, Firehose and
        mobile push, not SMS; texts are logged through the account's SMS preferences (SetSMSAttributes:
        DeliveryStatusIAMRole, a role SNS assumes to write `sns/<region>/<account>/...` log groups). Set by a
        custom resource on create and update (failures only: success sampling 0%); on delete the role is
        unset (ignoring errors, so that a delete never fails on it). An account-wide, per-region setting:
        `sms_delivery_logs: false` leaves it alone."""
        stack = Stack.of(self)
        log_groups = stack.format_arn(service="logs", resource="log-group",
                                      resource_name=f"sns/{stack.region}/{stack.account}/*",
                                      arn_format=ArnFormat.COLON_RESOURCE_NAME)
        role = iam.Role(
            self, "SmsDeliveryLogsRole",
            assumed_by=iam.ServicePrincipal("sns.amazonaws.com", conditions={
                "StringEquals": {"aws:SourceAccount": stack.account}}),
            description=f"{self.name}: SNS writes SMS delivery status logs (failed texts and their reasons)",
        )
        role.add_to_policy(iam.PolicyStatement(
            sid="WriteSmsDeliveryLogs", resources=[log_groups],
            actions=["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]))
        provider_name = f"{self.name}-sms-settings"
        provider_logs = logs.LogGroup(self, "SmsSettingsLogGroup", log_group_name=f"/aws/lambda/{provider_name}",
                                      retention=_retention(settings.log_retention_days),
                                      removal_policy=RemovalPolicy.DESTROY)
        provider_role = iam.Role(self, "SmsSettingsRole", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
                                 description=f"{provider_name}: sets the account's SMS delivery status role")
        provider_role.add_to_policy(iam.PolicyStatement(
            sid="WriteLogs", actions=["logs:CreateLogStream", "logs:PutLogEvents"],
            resources=[provider_logs.log_group_arn]))
        attributes = {"DeliveryStatusIAMRole": role.role_arn, "DeliveryStatusSuccessSamplingRate": "0"}
        custom = cr.AwsCustomResource(
            self, "SmsDeliveryLogs", function_name=provider_name, role=provider_role, log_group=provider_logs,
            install_latest_aws_sdk=False,
            on_update=cr.AwsSdkCall(service="SNS", action="setSMSAttributes", parameters={"attributes": attributes},
                                    physical_resource_id=cr.PhysicalResourceId.of(f"{self.name}-sms-delivery-logs")),
            on_delete=cr.AwsSdkCall(service="SNS", action="setSMSAttributes",
                                    parameters={"attributes": {"DeliveryStatusIAMRole": ""}},
                                    ignore_error_codes_matching=".*"),
            policy=cr.AwsCustomResourcePolicy.from_statements([
                # SetSMSAttributes supports no resource-level permissions
                iam.PolicyStatement(actions=["sns:SetSMSAttributes"], resources=["*"]),
                iam.PolicyStatement(actions=["iam:PassRole"], resources=[role.role_arn]),
            ]),
        )
        custom.node.add_dependency(role)
        for scope, finding, reason in (
            (role, "Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:sns/<AWS::Region>/"
                   "<AWS::AccountId>/*",
             "SNS names its SMS delivery log groups sns/<region>/<account>/<topic or DirectPublishToPhoneNumber>[/Failure]"),
            (custom, "Resource::*", "sns:SetSMSAttributes supports no resource-level permissions; IAM requires "
                                    "Resource \"*\" for it (the only action in that statement)."),
        ):
            for child in scope.node.find_all():
                if child.node.id == "DefaultPolicy" or child.node.id == "CustomResourcePolicy":
                    Validations.of(child).acknowledge(Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=reason))
        return role

    def _queue(self, construct_id: str, queue_name: str, purpose: str) -> sqs.Queue:
        queue = sqs.Queue(
            self, construct_id, queue_name=queue_name,
            encryption=sqs.QueueEncryption.KMS, encryption_master_key=self.key,
            enforce_ssl=True, retention_period=QUEUE_RETENTION, removal_policy=RemovalPolicy.DESTROY,
        )
        Validations.of(queue).acknowledge(Acknowledgment(
            id="AwsSolutions-SQS3",
            reason=f"This queue is itself a dead-letter queue ({purpose}); a person reads it after its alarm.",
        ))
        return queue

    def _alarm(self, construct_id: str, alarm_name: str, description: str,
               metric: cloudwatch.Metric, threshold: float = 1) -> cloudwatch.Alarm:
        return cloudwatch.Alarm(
            self, construct_id, alarm_name=alarm_name, alarm_description=description, metric=metric,
            threshold=threshold, evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def _grant_function(self, stack: Stack, role: iam.Role, log_group: logs.LogGroup, job_grants: list[Grant]) -> None:
        """A function's permissions (the function's, or the evaluator's), statement by statement; nothing else is
        attached to its role. `job_grants`: one account, the job families' grants (the evaluator's include its
        reads); organization mode, none here (the members' executor roles have them)."""
        org = self.config.organization
        grant(role, job_grants)
        statements = [
            iam.PolicyStatement(sid="PublishAndSubscribe",
                                actions=["sns:Publish", "sns:Subscribe", "sns:ListSubscriptionsByTopic"],
                                resources=[self.topic.topic_arn]),
            # Subscription ARNs are <topic ARN>:<uuid>: this is the topic's subscriptions and nothing else.
            iam.PolicyStatement(sid="TopicSubscriptions",
                                actions=["sns:GetSubscriptionAttributes", "sns:SetSubscriptionAttributes"],
                                resources=[f"{self.topic.topic_arn}:*"]),
            # Publishing to the encrypted topic and sending to the encrypted queue (SNS/SQS call KMS as the
            # caller): what their documentation prescribes, on the stack's own key only.
            iam.PolicyStatement(sid="UseStackKey", actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                                resources=[self.key.key_arn]),
            iam.PolicyStatement(sid="Ledger",
                                actions=["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
                                         "dynamodb:DeleteItem"],
                                resources=[self.table.table_arn]),
            *([iam.PolicyStatement(sid="SendFailedEvents", actions=["sqs:SendMessage"],
                                   resources=[self.failure_queue.queue_arn])] if role is self.role else []),
            iam.PolicyStatement(sid="WriteLogs", actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                                resources=[log_group.log_group_arn]),
        ]
        if self.chat_topic is not None:
            statements.append(iam.PolicyStatement(sid="PublishToChat", actions=["sns:Publish"],
                                                  resources=[self.chat_topic.topic_arn]))
        for statement in statements:
            role.add_to_policy(statement)
        grant(role, [p for p in plugins.stack_parts(self.config) if isinstance(p, Grant)])  # the kinds'

        if org:
            organization.grant_assume_member_roles(role, org)
        # cdk-nag AwsSolutions-IAM5 (wildcards) findings on this policy, each acknowledged with its reason.
        own = self.topic.node.default_child  # None for a topic given (its ARN then names it in the finding)
        topic = f"<{stack.get_logical_id(own)}>" if own is not None else stack.resolve(self.topic.topic_arn)
        acknowledge(role.node.find_child("DefaultPolicy"), {
            f"Resource::{topic}:*": "The topic's own subscriptions (<topic ARN>:<id>), whose filter policies the "
                                     "function reads and widens; their ids are not known in advance.",
            "Action::kms:GenerateDataKey*": "What SNS and SQS server-side encryption require of a publisher or "
                                            "sender, on the stack's own key only.",
        })


def rule_pattern(pattern: dict) -> events.EventPattern:
    """The registry's pattern as the rule's EventPattern (the central rule's, and the member stacks' forwarding rule).
    A pattern of several job families is a top-level $or, which EventPattern cannot state: the rule starts with its
    source alone, and set_pattern gives it the whole pattern."""
    if "$or" in pattern:
        return events.EventPattern(source=pattern["source"])
    return events.EventPattern(source=pattern["source"], detail_type=pattern["detail-type"], detail=pattern["detail"])


def set_pattern(rule: events.Rule, pattern: dict) -> None:
    """The rule's EventPattern, whole, when EventPattern could not state it (rule_pattern); else nothing to do."""
    if "$or" in pattern:
        rule.node.default_child.add_property_override("EventPattern", pattern)


def grant(role: iam.Role, grants: list[Grant]) -> None:
    """The plug-ins' grants (contract.Grant) as statements on `role`, each wildcard acknowledged to cdk-nag with
    the grant's reason."""
    stack = Stack.of(role)
    for item in grants:
        resources = [_arn(stack, resource) for resource in item.resources]
        role.add_to_policy(iam.PolicyStatement(sid=item.sid, actions=list(item.actions), resources=resources))
        acknowledge(role.node.find_child("DefaultPolicy"),
                    {f"Resource::{_finding(resource)}": item.reason for resource in item.resources
                     if "*" in _finding(resource)})


def _arn(stack: Stack, resource: Arn | str) -> str:
    if isinstance(resource, str):
        return resource
    return stack.format_arn(service=resource.service, resource=resource.resource, resource_name=resource.name,
                            arn_format=ArnFormat.COLON_RESOURCE_NAME if resource.colon else ArnFormat.SLASH_RESOURCE_NAME)


def _finding(resource: Arn | str) -> str:
    """How cdk-nag names a resource in its findings (the stack's partition, region and account as tokens)."""
    if isinstance(resource, str):
        return resource
    separator = ":" if resource.colon else "/"
    return (f"arn:<AWS::Partition>:{resource.service}:<AWS::Region>:<AWS::AccountId>:{resource.resource}"
            f"{separator}{resource.name}")


def acknowledge(policy: Construct, acknowledgments: dict[str, str]) -> None:
    """cdk-nag AwsSolutions-IAM5 (wildcard) findings on `policy`, each acknowledged with its reason."""
    for finding, reason in acknowledgments.items():
        Validations.of(policy).acknowledge(Acknowledgment(id=f"AwsSolutions-IAM5[{finding}]", reason=reason))


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


def _fits_environment(config: Config, longest_topic_arn: str, table_name: str, longest_chat_arn: str,
                      service: str) -> bool:
    """Whether the environment with the configuration in it fits Lambda's limit, with the longest ARNs."""
    environment = function_environment(config, longest_topic_arn, table_name,
                                       longest_chat_arn if config.chat else None, service=service)
    return len(json.dumps(environment, separators=(",", ":"), ensure_ascii=False).encode()) <= ENVIRONMENT_LIMIT


def _retention(days: int | None) -> logs.RetentionDays:
    names = {1: "ONE_DAY", 3: "THREE_DAYS", 5: "FIVE_DAYS", 7: "ONE_WEEK", 14: "TWO_WEEKS", 30: "ONE_MONTH",
             60: "TWO_MONTHS", 90: "THREE_MONTHS", 120: "FOUR_MONTHS", 150: "FIVE_MONTHS", 180: "SIX_MONTHS",
             365: "ONE_YEAR", 400: "THIRTEEN_MONTHS", 545: "EIGHTEEN_MONTHS", 731: "TWO_YEARS",
             1096: "THREE_YEARS", 1827: "FIVE_YEARS", 2192: "SIX_YEARS", 2557: "SEVEN_YEARS",
             2922: "EIGHT_YEARS", 3288: "NINE_YEARS", 3653: "TEN_YEARS"}
    return logs.RetentionDays.INFINITE if days is None else getattr(logs.RetentionDays, names[days])
