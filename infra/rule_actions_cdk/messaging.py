"""The stack's key, topics and queues, built into RuleActions' own scope (as all its parts: their construct ids, and
so their logical ids and physical names, are those of its first releases).

    StackKey          one KMS key for the topics and queues, rotated yearly (or the one given), whose policy lets
                      CloudWatch alarms publish to the encrypted ops topic and the rule write to its encrypted DLQ
    Topics            <name>-notifications: the team topic (the function publishes with to=team or to=<endpoint>;
                      or the one given), <name>-ops: the alarms' topic; the team's subscriptions to both
                      (rule_actions_cdk.plugins.stack_parts: the kinds' TeamEndpoint records)
    DeadLetterQueues  <name>-target-dlq (the rule's target) and <name>-failed-events (the function's on-failure
                      destination)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from aws_cdk import Acknowledgment, Annotations, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from rule_actions.contract import ROUTING_ATTRIBUTE, TEAM, TeamEndpoint

QUEUE_RETENTION = Duration.days(14)  # SQS's maximum: time for a person to look after the alarm
PROTOCOLS = {"email": ("Email", sns.SubscriptionProtocol.EMAIL), "sms": ("Sms", sns.SubscriptionProtocol.SMS)}


class StackKey:
    """The key of the topics and queues (`key`: one given instead; it may refuse the statements: a warning says
    which). `rule_arn`: the stack's rule, the only one that may write to the encrypted target DLQ."""

    def __init__(self, scope: Construct, name: str, key: kms.IKey | None, rule_arn: str, alarm_arns: str) -> None:
        self.key = key or kms.Key(
            scope, "Key",
            description=f"{name}: encrypts the rule-actions SNS topics and SQS queues",
            alias=f"alias/{name}",
            enable_key_rotation=True,
            pending_window=Duration.days(7),
            removal_policy=RemovalPolicy.DESTROY,
        )
        # Alarm actions publish to the encrypted ops topic as CloudWatch: without this, they are dropped silently.
        # For this stack's alarms in this account only, as the ops topic's policy: CloudWatch passes the alarm's
        # ARN and account to KMS (aws:SourceArn, aws:SourceAccount), so another account's or stack's alarm
        # cannot use the key through CloudWatch (the confused deputy).
        statements = [iam.PolicyStatement(
            sid="AlarmsPublishToEncryptedTopic",
            principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["kms:Decrypt", "kms:GenerateDataKey*"],
            resources=["*"],  # in a key policy, "*" is this key
            conditions={"ArnLike": {"aws:SourceArn": alarm_arns},
                        "StringEquals": {"aws:SourceAccount": Stack.of(scope).account}},
        ),
            # EventBridge writes undeliverable events to the encrypted target DLQ, for this stack's rule only.
            iam.PolicyStatement(
            sid="RuleWritesToEncryptedDeadLetterQueue",
            principals=[iam.ServicePrincipal("events.amazonaws.com")],
            actions=["kms:Decrypt", "kms:GenerateDataKey"],
            resources=["*"],
            conditions={"ArnEquals": {"aws:SourceArn": rule_arn}},
        )]
        for statement in statements:
            if not self.key.add_to_resource_policy(statement).statement_added:
                Annotations.of(scope).add_warning_v2(
                    "rule-actions:key-policy", f"the key given cannot take the statement {statement.sid}: grant "
                    f"{', '.join(statement.actions)} to {statement.principals[0]} in its own key policy, or alarms "
                    "and undeliverable events are dropped")
        # The functions (their roles) use the key through their IAM statements (function.grant_function), which
        # the key's default policy (the account may delegate to IAM) permits.


class Topics:
    """The team topic (or `topic`, given: you own its encryption and policy) and the ops topic, and the team's
    emails and numbers subscribed to both (to the team topic with the filter to=team)."""

    def __init__(self, scope: Construct, name: str, key: kms.IKey, topic: sns.ITopic | None, alarm_arns: str,
                 team: Iterable[TeamEndpoint]) -> None:
        # The team topic: the function publishes with the attribute to=team or to=<endpoint>.
        # Display names are the email sender's name and prefix every text message: short.
        self.topic = topic or sns.Topic(
            scope, "Topic", topic_name=f"{name}-notifications", display_name="RuleActions",
            master_key=key, enforce_ssl=True,
        )
        # The ops topic: alarm notifications carry no message attributes, so they cannot go through the
        # team topic's filter policies.
        self.ops_topic = sns.Topic(
            scope, "OpsTopic", topic_name=f"{name}-ops", display_name="RuleOps",
            master_key=key, enforce_ssl=True,
        )
        self.ops_topic.add_to_resource_policy(iam.PolicyStatement(
            sid="AlarmsPublish",
            principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["sns:Publish"],
            resources=[self.ops_topic.topic_arn],
            conditions={"ArnLike": {"aws:SourceArn": alarm_arns}},
        ))
        team_filter = {ROUTING_ATTRIBUTE: sns.SubscriptionFilter.string_filter(allowlist=[TEAM])}
        for member in team:
            kind, protocol = PROTOCOLS[member.protocol]
            # Ids from the endpoint, not its position: adding one subscriber never replaces another.
            tag = hashlib.sha256(member.endpoint.encode()).hexdigest()[:10]
            sns.Subscription(scope, f"Team{kind}{tag}", topic=self.topic, protocol=protocol,
                             endpoint=member.endpoint, filter_policy=team_filter)
            sns.Subscription(scope, f"Ops{kind}{tag}", topic=self.ops_topic, protocol=protocol,
                             endpoint=member.endpoint)


class DeadLetterQueues:
    """Where undelivered events wait for a person (each alarmed: alarms.py): the rule's target DLQ and the
    function's on-failure queue, encrypted with the stack's key."""

    def __init__(self, scope: Construct, name: str, key: kms.IKey) -> None:
        self.target_dlq = _queue(scope, "TargetDeadLetterQueue", f"{name}-target-dlq", key,
                                 "the dead-letter queue of the EventBridge rule's target")
        self.failure_queue = _queue(scope, "FailedEventsQueue", f"{name}-failed-events", key,
                                    "the function's on-failure destination")


def _queue(scope: Construct, construct_id: str, queue_name: str, key: kms.IKey, purpose: str) -> sqs.Queue:
    queue = sqs.Queue(
        scope, construct_id, queue_name=queue_name,
        encryption=sqs.QueueEncryption.KMS, encryption_master_key=key,
        enforce_ssl=True, retention_period=QUEUE_RETENTION, removal_policy=RemovalPolicy.DESTROY,
    )
    Validations.of(queue).acknowledge(Acknowledgment(
        id="AwsSolutions-SQS3",
        reason=f"This queue is itself a dead-letter queue ({purpose}); a person reads it after its alarm.",
    ))
    return queue
