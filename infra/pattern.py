"""The EventBridge pattern of the stack's rule: the one place it is written.

The construct puts exactly this dict on the rule; tests import it; the local replay reads the pattern back
from the synthesized template, never from a copy.

Only state changes that can lead to an action invoke the function (rule_actions.triggers decides the same
from the same contract):
- a Debugger or Profiler rule whose evaluation status is IssuesFound (or Error, with `notify_on_rule_error`);
  each `RuleEvaluationStatus` field matches when any element of the array has one of the values (EventBridge
  flattens arrays of objects);
- each job outcome that `job_outcomes` attaches actions to, by its TrainingJobStatus / SecondaryStatus
  condition (rule_actions.contract.JOB_OUTCOMES);
- on a job under `training_job_prefixes` when those are set.
`$or` joins the clauses; with no `job_outcomes` the pattern is the rule clauses alone.
"""

from __future__ import annotations

from typing import Any

from rule_actions.config import Config
from rule_actions.contract import DETAIL_TYPE, FAMILIES, JOB_OUTCOMES, SOURCE


def event_pattern(config: Config) -> dict[str, Any]:
    statuses = config.rule_statuses
    clauses: list[dict[str, Any]] = [
        {f"{family}RuleEvaluationStatuses": {"RuleEvaluationStatus": list(statuses)}} for family in FAMILIES
    ]
    clauses += [JOB_OUTCOMES[outcome].pattern() for outcome, actions in config.job_outcomes if actions]
    detail: dict[str, Any] = {"$or": clauses}
    if config.training_job_prefixes:
        detail["TrainingJobName"] = [{"prefix": prefix} for prefix in config.training_job_prefixes]
    return {"source": [SOURCE], "detail-type": [DETAIL_TYPE], "detail": detail}
