"""What the stack (infra/) and the function agree on: the one place each of these names and values is written.

infra/ imports this module and the configuration, never the runtime adapters. Nothing here imports boto3 or
Powertools: importing it costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# The event: EventBridge's envelope and the two rule families of its detail.
SOURCE = "aws.sagemaker"
DETAIL_TYPE = "SageMaker Training Job State Change"
DEBUG, PROFILER = "Debug", "Profiler"
FAMILIES = (DEBUG, PROFILER)

# Rule evaluation statuses that are triggers, and the training job statuses the function reads.
ISSUES_FOUND, RULE_ERROR = "IssuesFound", "Error"
IN_PROGRESS, COMPLETED, FAILED, STOPPING, STOPPED = "InProgress", "Completed", "Failed", "Stopping", "Stopped"
TIMEOUTS = ("MaxRuntimeExceeded", "MaxWaitTimeExceeded")
INTERRUPTED = "Interrupted"


@dataclass(frozen=True)
class OutcomeCondition:
    """When an event is a job outcome: its TrainingJobStatus is one of `statuses` (any when empty), its
    SecondaryStatus one of `secondary` (any when empty) and none of `secondary_not` (a SecondaryStatus must
    then be present, as for EventBridge's anything-but). The conditions below exclude one another."""

    statuses: tuple[str, ...] = ()
    secondary: tuple[str, ...] = ()
    secondary_not: tuple[str, ...] = ()
    meaning: str = ""

    def holds(self, status: str | None, secondary: str | None) -> bool:
        if self.statuses and status not in self.statuses:
            return False
        if self.secondary and secondary not in self.secondary:
            return False
        return not self.secondary_not or (secondary is not None and secondary not in self.secondary_not)

    def pattern(self) -> dict[str, list]:
        """The EventBridge detail clause that matches exactly the events where this condition holds."""
        clause: dict[str, list] = {}
        if self.statuses:
            clause["TrainingJobStatus"] = list(self.statuses)
        if self.secondary:
            clause["SecondaryStatus"] = list(self.secondary)
        elif self.secondary_not:
            clause["SecondaryStatus"] = [{"anything-but": list(self.secondary_not)}]
        return clause


# Job outcomes, the keys of the configuration's `job_outcomes`. A timeout or a spot interruption is told apart
# from a plain stop or failure by SecondaryStatus (a timeout ends the job Stopped).
_ENDED_OTHERWISE = (*TIMEOUTS, INTERRUPTED)
JOB_OUTCOMES: dict[str, OutcomeCondition] = {
    "Failed": OutcomeCondition((FAILED,), (), _ENDED_OTHERWISE, "the training job failed"),
    "MaxRuntimeExceeded": OutcomeCondition((), ("MaxRuntimeExceeded",), (), "the job reached its maximum run time"),
    "MaxWaitTimeExceeded": OutcomeCondition((), ("MaxWaitTimeExceeded",), (),
                                            "the spot job reached its maximum wait time"),
    "Interrupted": OutcomeCondition((), (INTERRUPTED,), (), "the spot instances were interrupted"),
    "Stopped": OutcomeCondition((STOPPED,), (), _ENDED_OTHERWISE, "the training job was stopped"),
    "Completed": OutcomeCondition((COMPLETED,), (), _ENDED_OTHERWISE, "the training job completed"),
}
JOB_TRIGGER_PREFIX = "job:"  # a job outcome's trigger label: job:Failed


class Outcome(StrEnum):
    """What became of one planned action."""

    DONE = "done"  # carried out now
    DUPLICATE = "duplicate"  # done before (the ledger)
    SKIPPED = "skipped"  # nothing to do now
    DENIED = "denied"  # refused by policy
    INVALID = "invalid"  # malformed
    FAILED = "failed"  # an AWS call failed: the invocation fails and is retried
    DRY_RUN = "dry_run"  # dry_run: decided, nothing called


# The function's environment.
ENV_CONFIG = "RULE_ACTIONS_CONFIG"
ENV_TOPIC_ARN = "RULE_ACTIONS_TOPIC_ARN"
ENV_LEDGER_TABLE = "RULE_ACTIONS_LEDGER_TABLE"
ENV_CHAT_TOPIC_ARN = "RULE_ACTIONS_CHAT_TOPIC_ARN"  # set only when the configuration lists chat channels

# Webhook payload formats (the configuration's `webhooks.<name>.format`).
WEBHOOK_FORMATS = ("slack", "teams", "json")

# A test notification (`rule-actions test-notify`): an invocation whose payload is {TEST_EVENT_KEY: {...}}, never
# an EventBridge event. Its fields: "id" (one per request: its ledger keys), "emails" and "sms" (lists).
TEST_EVENT_KEY = "rule_actions_test_notification"

# SNS routing: every message carries ROUTING_ATTRIBUTE, set to an endpoint or to TEAM; every subscription the
# stack or the function makes filters on it.
ROUTING_ATTRIBUTE = "to"
TEAM = "team"

# The ledger table (Powertools idempotency records and the function's own stop records).
LEDGER_KEY_ATTRIBUTE = "id"
LEDGER_EXPIRY_ATTRIBUTE = "expiration"  # the table's TTL attribute

# Logs and metrics.
SERVICE = "rule-actions"
NAMESPACE = "RuleActions"
# Organization mode: events from an account the configuration does not name (refused; the stack alarms on it).
REFUSED_ACCOUNT_METRIC = "RefusedAccountEvents"
