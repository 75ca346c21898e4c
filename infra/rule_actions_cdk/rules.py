"""The rule and its target, built into RuleActions' own scope (its construct ids, logical ids and names those of its
first releases): <name>-rule-outcomes, on the default bus (or, in organization mode, the bus the members forward
to), whose pattern is the plug-ins' (rule_actions_cdk.plugins.event_pattern), invoking the function
asynchronously, its undeliverable events in the target DLQ."""

from __future__ import annotations

from typing import Any, cast

from aws_cdk import Duration, Stack
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from rule_actions.config import Config
from rule_actions_cdk import organization, plugins

# EventBridge's retries apply only when it cannot hand the event to Lambda at all (permissions, a disabled
# key, service errors): those rarely heal by waiting, so 8 attempts within 2 hours, then the target DLQ and
# its alarm, instead of EventBridge's default of 185 attempts over 24 hours.
TARGET_RETRIES = 8
TARGET_MAX_EVENT_AGE = Duration.hours(2)


def rule_name(name: str) -> str:
    return f"{name}-rule-outcomes"


def rule_arn(stack: Stack, name: str, config: Config) -> str:
    """The rule's ARN before it exists (the key's policy names it): on the organization's bus in organization mode."""
    resource = f"{organization.bus_name(name)}/{rule_name(name)}" if config.organization else rule_name(name)
    return stack.format_arn(service="events", resource="rule", resource_name=resource)


class EventRule:
    """The rule (`pattern`: the plug-ins' EventBridge pattern) and its target, the function."""

    def __init__(self, scope: Construct, name: str, config: Config, bus: events.IEventBus | None,
                 function: lambda_.IFunction, target_dlq: sqs.IQueue) -> None:
        self.bus = bus
        self.pattern = plugins.event_pattern(config)
        self.rule = events.Rule(
            scope, "Rule", rule_name=rule_name(name),
            description="SageMaker training jobs whose rule status or job outcome can trigger an action",
            event_pattern=rule_pattern(self.pattern),
            event_bus=bus,
            targets=[targets.LambdaFunction(
                function, dead_letter_queue=target_dlq,
                retry_attempts=TARGET_RETRIES, max_event_age=TARGET_MAX_EVENT_AGE,
            )],
        )
        set_pattern(self.rule, self.pattern)

    def dimensions(self) -> dict[str, str]:
        """The rule's metric dimensions: a rule on a custom bus (organization mode) is also named by its bus, and
        its RuleName alone would name a rule of the default bus."""
        bus = {"EventBusName": self.bus.event_bus_name} if self.bus else {}
        return {**bus, "RuleName": self.rule.rule_name}


def rule_pattern(pattern: dict[str, Any]) -> events.EventPattern:
    """The plug-ins' pattern as the rule's EventPattern (the central rule's, and the member stacks' forwarding rule).
    A pattern of several job families is a top-level $or, which EventPattern cannot state: the rule starts with its
    source(s) alone (families of several sources: each alternative names its own), and set_pattern gives it the
    whole pattern."""
    if "$or" in pattern:
        sources = pattern.get("source") or list(dict.fromkeys(s for p in pattern["$or"] for s in p["source"]))
        return events.EventPattern(source=sources)
    return events.EventPattern(source=pattern["source"], detail_type=pattern["detail-type"], detail=pattern["detail"])


def set_pattern(rule: events.Rule, pattern: dict[str, Any]) -> None:
    """The rule's EventPattern, whole, when EventPattern could not state it (rule_pattern); else nothing to do."""
    if "$or" in pattern:
        # the rule's L1 CfnRule, which CDK types IConstruct
        cast(events.CfnRule, rule.node.default_child).add_property_override("EventPattern", pattern)
