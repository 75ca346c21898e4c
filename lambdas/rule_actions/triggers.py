"""Event -> triggers: what happened that the configuration can act on.

    a rule status    IssuesFound of a Debugger or Profiler rule; Error too with `notify_on_rule_error`
    a job outcome    the event's outcome (contract.JOB_OUTCOMES), when `job_outcomes` attaches actions to it

Rules come first, in the event's order; the job outcome, if any, last. The stack's EventBridge pattern
(infra/pattern.py) matches exactly the events that can have a trigger here.
"""

from __future__ import annotations

from rule_actions.config import Config
from rule_actions.model import JobEvent, Trigger


def find(event: JobEvent, config: Config) -> list[Trigger]:
    found: list[Trigger] = [rule for rule in event.rules if rule.status in config.rule_statuses]
    outcome = event.outcome
    if outcome is not None and config.actions_for_outcome(outcome.outcome):
        found.append(outcome)
    return found
