"""`RuleActionsStack`: the `RuleActions` construct alone in a stack, with the outputs a user needs."""

from __future__ import annotations

from typing import Any

from aws_cdk import Stack
from constructs import Construct

from rule_actions.config import Config
from rule_actions_cdk import organization
from rule_actions_cdk.construct import RuleActions
from rule_actions_cdk.settings import StackSettings


class RuleActionsStack(Stack):
    def __init__(self, scope: Construct, *, config: Config, settings: StackSettings | None = None,
                 warn: bool = True, **kwargs: Any) -> None:
        settings = settings or StackSettings()
        kwargs.setdefault("description", "rule-actions: event-driven actions (stop training, notify) for "
                                         "SageMaker Debugger/Profiler rule outcomes")
        if config.organization:  # the central stack: pinned where the member stacks forward and whose role they trust
            kwargs.setdefault("env", organization.central_environment(config.organization))
        super().__init__(scope, settings.stack_name, stack_name=settings.stack_name, **kwargs)
        # Its outputs (FunctionName, TopicArn, ...) are the construct's, named without a prefix.
        self.actions = RuleActions(self, "RuleActions", config=config, settings=settings, output_prefix="", warn=warn)
