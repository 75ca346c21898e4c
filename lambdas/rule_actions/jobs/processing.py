"""SageMaker processing jobs: the "SageMaker Processing Job State Change" event, their outcomes
(`processing_job_outcomes`: Failed, Stopped, Completed) with the FailureReason, the exit message and links, and their
scope (`processing_job_prefixes`).

Debugger and Profiler rules are evaluated in processing jobs that their training job launches. Those are reported as
the training job's rule statuses (triggers/rule_status.py) and never as processing jobs: DescribeProcessingJob, which
the event mirrors, names that training job (TrainingJobArn), so the rule's outcome clauses never match their events,
and an event that reaches the function anyway has its outcome's actions skipped, naming that training job; a rule
evaluator's image (sagemaker-debugger-rules) is recognized too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rule_actions.contract import Grant, Offer, OutcomeCondition
from rule_actions.cost import Billing
from rule_actions.fields import ActionMap
from rule_actions.jobs.base import JobFamily, Members, scope_field
from rule_actions.jobs.common import CONSOLE_PATHS, LOG_GROUPS, PROCESSING, PROCESSING_JOB, attached
from rule_actions.ports import Configured
from rule_actions.records import Described, JobEvent, Need, Place, Unread
from rule_actions.text import DETAILS_MAX, arn_name, indented, quoted

FAILED = "Failed"
OUTCOMES = {
    FAILED: OutcomeCondition((FAILED,), (), (), "processing job failed", "failed"),
    "Stopped": OutcomeCondition(("Stopped",), (), (), "processing job stopped", "was stopped"),
    "Completed": OutcomeCondition(("Completed",), (), (), "processing job completed", "completed"),
}
PARENT = "TrainingJobArn"  # set on the processing jobs a training job launched: its rule evaluations
RULE_EVALUATOR_IMAGES = ("/sagemaker-debugger-rules:", "/sagemaker-debugger-rule-evaluator:")


class Processing(JobFamily):
    name = "processing"
    noun = "processing job"
    detail_type = "SageMaker Processing Job State Change"
    members = Members(name="ProcessingJobName", arn="ProcessingJobArn", status="ProcessingJobStatus",
                      secondary=None, transitions=None, started="ProcessingStartTime", ended="ProcessingEndTime",
                      parent=PARENT)
    api = PROCESSING
    resource = PROCESSING_JOB
    outcomes = OUTCOMES
    console_path = CONSOLE_PATHS[PROCESSING_JOB]
    log_group = LOG_GROUPS[PROCESSING_JOB]
    scope = scope_field("processing_job_prefixes", noun)
    outcome_actions = ActionMap(
        "processing_job_outcomes", (), "Processing job outcome (" + ", ".join(OUTCOMES) + ") -> actions (notify, "
        "email, sms, webhook), with the FailureReason and the exit message. Debugger's rule evaluations are never "
        "reported here (they are their training job's rule statuses). None by default.",
        Place.JOB_OUTCOMES, "processing job outcome", tuple(OUTCOMES))
    billing = Billing("Processing", ("ProcessingResources", "ClusterConfig"), "ProcessingStartTime",
                      "ProcessingEndTime", ("StoppingCondition", "MaxRuntimeInSeconds"))
    offers = frozenset({Offer.JOB_STATUS, Offer.HOST_METRICS, Offer.HOST_LOGS, Offer.COST})
    metric_namespace = LOG_GROUPS[PROCESSING_JOB]  # dimension Host: <job>/algo-<n>

    def held_back(self, event: JobEvent, config: Configured, answers: Mapping[Any, Any]) -> str | Need | None:
        image = event.detail.get("AppSpecification")
        image = image.get("ImageUri") if isinstance(image, Mapping) else None
        if event.parent:
            training = f"training job {arn_name(event.parent)}"
        elif event.detail.get(PARENT) is not None or (  # one SageMaker never gives (a problem): not named
                isinstance(image, str) and any(marker in image for marker in RULE_EVALUATOR_IMAGES)):
            training = "its training job"
        else:
            return super().held_back(event, config, answers)
        return f"a Debugger rule evaluation of {training}: reported as that job's rule status, never twice"

    def quiet_clause(self, config: Configured) -> dict[str, Any]:
        return {**super().quiet_clause(config), PARENT: [{"exists": False}]}

    def detail_problems(self, detail: Mapping[str, Any]) -> list[str]:
        message = detail.get("ExitMessage")
        return [] if message is None or isinstance(message, str) else [
            f"detail.ExitMessage: not a string ({quoted(message)})"]

    def outcome_needs(self, event: JobEvent, outcome: str) -> frozenset[Need]:
        if outcome == FAILED and not isinstance(event.detail.get("ExitMessage"), str):
            return frozenset({Described(self.api, event.job_name)})
        return frozenset()

    def learn(self, event: JobEvent, answers: Mapping[Any, Any]) -> JobEvent:
        described = answers.get(Described(self.api, event.job_name))
        message = event.detail.get("ExitMessage")
        if not isinstance(message, str) and isinstance(described, Mapping):
            message = described.get("ExitMessage")
            if not event.failure_reason and isinstance(described.get("FailureReason"), str):
                event = replace(event, failure_reason=described["FailureReason"])
        details = {"exit_message": message if isinstance(message, str) and message.strip() else None,
                   "unread": described.reason if isinstance(described, Unread) else None}
        return replace(event, details=details)

    def outcome_lines(self, event: JobEvent, outcome: str) -> list[str]:
        d = event.details
        lines = ["Exit message:", indented(d["exit_message"])] if d.get("exit_message") else []
        if d.get("unread"):
            lines.append(f"Exit message not read: {d['unread'][:DETAILS_MAX]}")
        return lines

    def json_details(self, event: JobEvent) -> dict[str, Any] | None:
        return {"exit_message": event.details.get("exit_message")}

    def read_grants(self, config: Configured) -> list[Grant]:
        if not attached(config, self.outcome_actions).get(FAILED):
            return []
        return [Grant(
            sid="DescribeProcessingJobs", actions=(f"sagemaker:{self.api.describe}",),
            resources=self.resources(config),
            reason="Processing jobs are named by users at run time: the function describes any processing job under "
                   "the configured processing_job_prefixes (every one in the account and region when none are set), "
                   "read-only, for a failed job's exit message when its event does not carry it.",
        )]


FAMILY = Processing()
