"""The EventBridge pattern of the stack's rule: the one place it is written.

The construct puts exactly this dict on the rule; tests import it; the local replay reads the pattern back
from the synthesized template, never from a copy.

Only state changes that can lead to an action invoke the function: a Debugger or Profiler rule whose
evaluation status is IssuesFound (or Error, when `notify_on_rule_error`), on a job under
`training_job_prefixes` when those are set. Each `RuleEvaluationStatus` field matches when any element of the
array has one of the values (EventBridge flattens arrays of objects); `$or` joins the two rule families.
"""

from __future__ import annotations

from typing import Any

from rule_actions.config import Config

SOURCE = "aws.sagemaker"
DETAIL_TYPE = "SageMaker Training Job State Change"
RULE_FAMILIES = ("DebugRuleEvaluationStatuses", "ProfilerRuleEvaluationStatuses")


def trigger_statuses(config: Config) -> list[str]:
    """The rule evaluation statuses the handler can act on."""
    return ["IssuesFound", "Error"] if config.notify_on_rule_error else ["IssuesFound"]


def event_pattern(config: Config) -> dict[str, Any]:
    statuses = trigger_statuses(config)
    detail: dict[str, Any] = {
        "$or": [{family: {"RuleEvaluationStatus": list(statuses)}} for family in RULE_FAMILIES],
    }
    if config.training_job_prefixes:
        detail["TrainingJobName"] = [{"prefix": prefix} for prefix in config.training_job_prefixes]
    return {"source": [SOURCE], "detail-type": [DETAIL_TYPE], "detail": detail}
