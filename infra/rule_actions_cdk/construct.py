"""`RuleActions`: everything one deployment needs, as one construct that a user's CDK app can also embed, composed of
the parts below, each in a module of its own.

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

    messaging.py   StackKey (the key and its policy), Topics (team and ops topics, the team's subscriptions),
                   DeadLetterQueues (the target DLQ, the failed-events queue)
    chat.py        ChatChannels (the chat topic and channel configurations; a construct of its own: "Chat")
    ledger.py      LedgerTable (the table)
    function.py    Handler (the function, its log group and role), the statements both functions' roles get
    rules.py       EventRule (the rule and its target)
    evaluator.py   Evaluator (with `monitor`: the evaluator, its log group, role and schedule rules)
    alarms.py      Alarms (every alarm, apart, each notifying the ops topic)
    sms.py         SmsDeliveryLogs (the account's SMS delivery status role and the custom resource that sets it)
    dashboard.py   SavingsDashboard (a construct of its own: "Dashboard")

The parts build into this construct's own scope, under the construct ids it has always given them (as
member_stack.py's member_resources does): CDK derives a resource's logical id from its construct path, and a level of
its own for a part would give every resource below it a new logical id, which CloudFormation deploys as a new
resource replacing the old one (a named one cannot even be replaced: the new one's name is taken). So each logical
id, each physical name and the template stay those of the releases before (no logical id is overridden for it).

Names derive from `name` (by default the stack's name), so two deployments in one account need two names: two
constructs in one stack deriving one name are refused at synth (each needs its own `name=`). `name` is also the
service name (POWERTOOLS_SERVICE_NAME, output ServiceName) of the functions' log lines and metrics, which its alarms
and dashboard read: each deployment reads its own. Every cdk-nag acknowledgment is made in the part that makes the
resource it is about, with its reason.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from os import PathLike
from typing import Any

from aws_cdk import Annotations, CfnOutput, Stack, Token
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from rule_actions.config import Config, ConfigError
from rule_actions.contract import CONFIG_FILE_NAME, NAMESPACE, SERVICE_DIMENSION, Grant, TeamEndpoint, Texts
from rule_actions.text import quoted
from rule_actions_cdk import bundle, organization, plugins
from rule_actions_cdk.alarms import DURATION_ALARM_SHARE, Alarms, alarm_arns, alarm_name
from rule_actions_cdk.chat import ChatChannels
from rule_actions_cdk.dashboard import SavingsDashboard
from rule_actions_cdk.evaluator import Evaluator
from rule_actions_cdk.function import Backing, Handler, fits_environment, function_environment
from rule_actions_cdk.ledger import LedgerTable
from rule_actions_cdk.messaging import DeadLetterQueues, StackKey, Topics
from rule_actions_cdk.rules import EventRule, rule_arn
from rule_actions_cdk.settings import (
    FILE_STACK,
    STACK_NAME_RE,
    StackSettings,
    both,
    read_config_file,
    split_file,
)
from rule_actions_cdk.sms import SmsDeliveryLogs

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
        given = settings  # (every bad field of the configuration and its "stack" block in one message)
        read = both(lambda: as_config(source, where), lambda: given or file_settings(source, where) or StackSettings(),
                    where if isinstance(config, str | PathLike) else None)
        self.config = config = read[0]
        settings = read[1]
        stack = Stack.of(self)
        self.name = name = name or stack.stack_name
        if not STACK_NAME_RE.fullmatch(name):
            raise ConfigError(f"RuleActions name {quoted(name)}: resource names are derived from it, so it must be "
                              f"a letter, then letters, digits or '-', at most 40 characters (pass name=...)")
        parts = plugins.stack_parts(config)  # what the kinds ask of the stack
        texts = any(isinstance(p, Texts) for p in parts)
        _claim_name(self, stack, name, texts and settings.sms_delivery_logs)
        if key is not None:
            _check_key_place(self, key)
        # A configuration too large for the environment ships in the code asset (the environment names the file).
        self.config_in_code = not fits_environment(config, name)
        org = config.organization

        self.key = StackKey(self, name, key, rule_arn(stack, name, config), alarm_arns(stack, name)).key
        # Organization mode: the rule is on the bus the member accounts forward to (organization.py).
        self.bus = organization.central_bus(self, name, org) if org else None
        topics = Topics(self, name, self.key, topic, alarm_arns(stack, name),
                        [p for p in parts if isinstance(p, TeamEndpoint)])
        self.topic, self.ops_topic = topics.topic, topics.ops_topic
        # Chat channels (Amazon Q Developer in chat applications) on a topic of their own: team messages only.
        self.chat = ChatChannels(self, "Chat", name=name, channels=config.chat, key=self.key) if config.chat else None
        self.chat_topic = self.chat.topic if self.chat else None
        self.table = LedgerTable(self, f"{name}-ledger").table
        queues = DeadLetterQueues(self, name, self.key)
        self.target_dlq, self.failure_queue = queues.target_dlq, queues.failure_queue

        backing = Backing(config, self.key, self.topic, self.chat_topic, self.table,
                          [p for p in parts if isinstance(p, Grant)])
        self.environment = function_environment(config, self.topic.topic_arn, self.table.table_name,
                                                self.chat_topic.topic_arn if self.chat_topic else None,
                                                self.config_in_code, service=name)
        code = bundle.function_code({CONFIG_FILE_NAME: config.to_json()} if self.config_in_code else None)
        handler = Handler(self, name, backing, settings, self.environment, code, self.failure_queue)
        self.log_group, self.role, self.function = handler.log_group, handler.role, handler.function
        rule = EventRule(self, name, config, self.bus, self.function, self.target_dlq)
        self.pattern, self.rule = rule.pattern, rule.rule

        alarms = Alarms(self, name, self.ops_topic)
        alarms.of_function(self.function, queues, rule.dimensions(), self.topic, org is not None)
        self.alarms = alarms.alarms
        self.schedule = plugins.schedule(config)
        evaluation = Evaluator(self, name, backing, settings, self.environment, code, self.schedule) \
            if self.schedule else None
        self.evaluator = evaluation.function if evaluation else None
        self.evaluator_timeout = evaluation.timeout if evaluation else 0
        if evaluation:
            self.evaluator_log_group, self.evaluator_role = evaluation.log_group, evaluation.role
            self.schedule_rules = evaluation.rules
            alarms.of_evaluator(evaluation.function, evaluation.schedule.every_minutes, evaluation.timeout)

        self.sms_logs_role = SmsDeliveryLogs(self, name, settings).role if texts and settings.sms_delivery_logs \
            else None
        self.dashboard = SavingsDashboard(
            self, "Dashboard", name=name, service=name, alarms=[alarm_name(a) for a in self.alarms],
            evaluator=self.evaluator, evaluator_timeout=self.evaluator_timeout,
            duration_alarm=DURATION_ALARM_SHARE * self.evaluator_timeout,
            organization=org is not None).dashboard if settings.dashboard else None
        self._outputs(re.sub(r"[^A-Za-z0-9]", "", construct_id) if output_prefix is None else output_prefix)
        self.warnings = plugins.warnings(config, config.where)
        if warn and self.warnings:
            print(plugins.warning_block(self.warnings), file=sys.stderr)

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
