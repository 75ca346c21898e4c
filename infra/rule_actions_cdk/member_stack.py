"""`RuleActionsMemberStack`: what a member account deploys in each region where it trains (organization mode).

    default bus -> rule <member>-forward (rule_actions_cdk.plugins.event_pattern: the central rule's pattern)
        --PutEvents, as a role EventBridge assumes--> the central bus     (undeliverable: <member>-forward-dlq)
    executor role <member_role>-<region>, trusted by the central function's role and no other principal:
        DescribeTrainingJob and StopTrainingJob on the training jobs under training_job_prefixes in this account
        and region; ListTrainingJobs (resource "*": the API allows nothing else) only when a stop may name a prefix;
        with `monitor` (the monitor rules) also trusted by the central evaluator's role, and reading what they
        need: Search, GetMetricData ("*": neither allows less), FilterLogEvents and StartQuery on the training log
        group, GetQueryResults and StopQuery ("*") for its Logs Insights query

It has no assets and needs no bootstrap (LegacyStackSynthesizer: no bootstrap roles, the template inline):
`cdk deploy RuleActionsMember` with the member account's credentials, or CloudFormation StackSets with the
synthesized template, deploy it anywhere. Deploy the central stack first: IAM accepts a trust policy only for a
role that exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from aws_cdk import (
    Acknowledgment,
    Aws,
    CfnOutput,
    Duration,
    LegacyStackSynthesizer,
    RemovalPolicy,
    Stack,
    Validations,
)
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from rule_actions.config import Config, ConfigError
from rule_actions_cdk import organization, plugins
from rule_actions_cdk.construct import as_config
from rule_actions_cdk.grants import grant
from rule_actions_cdk.rules import rule_pattern, set_pattern
from rule_actions_cdk.settings import StackSettings

QUEUE_RETENTION = Duration.days(14)  # SQS's maximum


class MemberResources:
    """What `member_resources` sets on the construct or stack it fills (the resources at its top level)."""

    central_bus_arn: str
    central_role_arn: str
    evaluator_role_arn: str | None  # with `monitor` (the evaluator's role), else None
    dead_letter_queue: sqs.Queue
    rule: events.Rule
    executor_role: iam.Role


class RuleActionsMember(MemberResources, Construct):
    """What a member account deploys in each region where it trains (organization mode), as a construct for your
    own app: the forwarding rule, its dead-letter queue and the executor role (`member_resources`)."""

    def __init__(self, scope: Construct, construct_id: str, *, config: Config | Mapping[str, Any],
                 central_stack_name: str = "RuleActions", name: str | None = None) -> None:
        super().__init__(scope, construct_id)
        config = as_config(config)
        member_resources(self, config, central_stack_name, name or f"{central_stack_name}Member")


# Where member_resources builds: the member's construct, or the member stack at its top level.
Member = TypeVar("Member", "RuleActionsMember", "RuleActionsMemberStack")


def member_resources(scope: Member, config: Config, central_stack_name: str, name: str) -> Member:
    """The member's resources, built into `scope` (the repository's member stack builds them at its top level:
    their logical ids are those of its first releases)."""
    org = config.organization
    if org is None:
        raise ConfigError("a member needs the configuration's organization block")
    partition = Aws.PARTITION
    scope.central_bus_arn = (f"arn:{partition}:events:{org.central_region}:{org.central_account}:event-bus/"
                             f"{organization.bus_name(central_stack_name)}")
    scope.central_role_arn = (f"arn:{partition}:iam::{org.central_account}:role/"
                              f"{organization.function_role_name(central_stack_name, org)}")
    evaluating = plugins.schedule(config) is not None
    scope.evaluator_role_arn = (f"arn:{partition}:iam::{org.central_account}:role/"
                                f"{organization.evaluator_role_name(central_stack_name, org)}") if evaluating else None

    scope.dead_letter_queue = sqs.Queue(
        scope, "ForwardDeadLetterQueue", queue_name=f"{name}-forward-dlq",
        encryption=sqs.QueueEncryption.SQS_MANAGED, enforce_ssl=True,
        retention_period=QUEUE_RETENTION, removal_policy=RemovalPolicy.DESTROY,
    )
    Validations.of(scope.dead_letter_queue).acknowledge(Acknowledgment(
        id="AwsSolutions-SQS3",
        reason="This queue is itself a dead-letter queue: the events EventBridge could not forward to the "
               "central bus.",
    ))
    central_bus = events.EventBus.from_event_bus_arn(scope, "CentralBus", scope.central_bus_arn)
    scope.rule = events.Rule(
        scope, "Forward", rule_name=f"{name}-forward",
        description="SageMaker training jobs whose rule status or job outcome can trigger an action, forwarded to "
                    "the central rule-actions bus",
        event_pattern=rule_pattern(plugins.event_pattern(config)),
        targets=[targets.EventBus(central_bus, dead_letter_queue=scope.dead_letter_queue)],
    )
    set_pattern(scope.rule, plugins.event_pattern(config))

    principal: iam.IPrincipal = iam.ArnPrincipal(scope.central_role_arn)
    if scope.evaluator_role_arn:
        principal = iam.CompositePrincipal(principal, iam.ArnPrincipal(scope.evaluator_role_arn))
    scope.executor_role = iam.Role(
        scope, "ExecutorRole", role_name=org.role_name(Aws.REGION), assumed_by=principal,
        description="rule-actions: the central function describes and stops this account's training jobs here",
    )
    grant(scope.executor_role, plugins.executor_grants(config))
    return scope


class RuleActionsMemberStack(MemberResources, Stack):
    def __init__(self, scope: Construct, *, config: Config, settings: StackSettings | None = None,
                 **kwargs: Any) -> None:
        settings = settings or StackSettings()
        org = config.organization
        if org is None:
            raise ValueError("RuleActionsMemberStack needs the configuration's organization block")
        name = settings.member_stack_name
        kwargs.setdefault("description", f"rule-actions member: forwards SageMaker training job events to "
                                         f"{settings.stack_name} in {org.central_account} {org.central_region}, "
                                         "and lets its function describe and stop this account's training jobs")
        super().__init__(scope, name, stack_name=name, synthesizer=LegacyStackSynthesizer(), **kwargs)
        member_resources(self, config, settings.stack_name, name)

        for output_id, value, description in (
            ("ExecutorRoleArn", self.executor_role.role_arn, "The role the central function assumes here"),
            ("ForwardDeadLetterQueueUrl", self.dead_letter_queue.queue_url,
             "Events EventBridge could not forward to the central bus"),
        ):
            CfnOutput(self, output_id, value=value, description=description)
