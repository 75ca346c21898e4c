"""The CDK side of rule-actions: the constructs to add to your CDK app, their stacks and the repository's app (the
event pattern and the IAM statements derive from the plug-ins: rule_actions.registry).

    from rule_actions_cdk import RuleActions
    RuleActions(stack, "Alerts", config={"rules": {"*": ["stoptraining", "notify"]}})

The names below load aws-cdk-lib (a jsii runtime start-up of a few seconds) when first used; importing
`rule_actions_cdk` or `rule_actions_cdk.settings` alone costs nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# A public name -> the module that defines it.
_EXPORTS = {"RuleActions": "construct", "RuleActionsStack": "stack", "RuleActionsMember": "member_stack",
            "RuleActionsMemberStack": "member_stack", "StackSettings": "settings", "stack_name": "settings"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
