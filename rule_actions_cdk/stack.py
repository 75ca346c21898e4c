"""`RuleActionsStack`: the `RuleActions` construct alone in a stack, with the outputs a user needs."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from rule_actions.config import Config
from rule_actions_cdk import organization
from rule_actions_cdk.construct import RuleActions
from rule_actions_cdk.settings import StackSettings


class RuleActionsStack(Stack):
    def __init__(self, scope: Construct, *, config: Config, settings: StackSettings | None = None,
                 **kwargs: Any) -> None:
        settings = settings or StackSettings()
        kwargs.setdefault("description", "rule-actions: event-driven actions (stop training, notify) for "
                                         "SageMaker Debugger/Profiler rule outcomes")
        if config.organization:  # the central stack: pinned where the member stacks forward and whose role they trust
            kwargs.setdefault("env", organization.central_environment(config.organization))
        super().__init__(scope, settings.stack_name, stack_name=settings.stack_name, **kwargs)
        self.actions = actions = RuleActions(self, "RuleActions", config=config, settings=settings)
        for output_id, value, description in (
            ("FunctionName", actions.function.function_name, "The function that acts on rule outcomes"),
            ("TopicArn", actions.topic.topic_arn, "Team notifications (subscribers filter on to=team)"),
            ("OpsTopicArn", actions.ops_topic.topic_arn, "Alarm notifications"),
            ("LedgerTable", actions.table.table_name, "The exactly-once ledger"),
            ("TargetDeadLetterQueueUrl", actions.target_dlq.queue_url,
             "Events EventBridge could not deliver to the function"),
            ("FailedEventsQueueUrl", actions.failure_queue.queue_url,
             "Events the function failed on after Lambda's retries"),
        ):
            CfnOutput(self, output_id, value=value, description=description)
        if actions.dashboard is not None:
            CfnOutput(self, "DashboardName", value=actions.dashboard.dashboard_name,
                      description="The CloudWatch dashboard: what rule-actions did and saved, the evaluator's health")
        if actions.chat_topic is not None:
            CfnOutput(self, "ChatTopicArn", value=actions.chat_topic.topic_arn,
                      description="Team messages for the chat channels (custom notifications)")
        if actions.evaluator is not None:
            CfnOutput(self, "EvaluatorFunctionName", value=actions.evaluator.function_name,
                      description="The function that evaluates the monitor rules on its schedule")
        if actions.bus:
            CfnOutput(self, "EventBusArn", value=actions.bus.event_bus_arn,
                      description="The bus the member stacks forward training job events to")
            CfnOutput(self, "FunctionRoleArn", value=actions.role.role_arn,
                      description="The role the member stacks' executor roles trust")
            if actions.evaluator is not None:
                CfnOutput(self, "EvaluatorRoleArn", value=actions.evaluator_role.role_arn,
                          description="The evaluator's role, which the member stacks' executor roles also trust")
