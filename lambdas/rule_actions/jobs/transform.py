"""SageMaker batch transform jobs: the "SageMaker Transform Job State Change" event, their outcomes
(`transform_job_outcomes`: Failed, Stopped, Completed) with the FailureReason the event carries, and their scope
(`transform_job_prefixes`). Nothing is read: the event says it all."""

from __future__ import annotations

from rule_actions.contract import Offer, OutcomeCondition
from rule_actions.cost import Billing
from rule_actions.fields import ActionMap
from rule_actions.jobs.base import JobFamily, Members, scope_field
from rule_actions.jobs.common import CONSOLE_PATHS, LOG_GROUPS, TRANSFORM, TRANSFORM_JOB
from rule_actions.records import Place

OUTCOMES = {
    "Failed": OutcomeCondition(("Failed",), (), (), "transform job failed", "failed"),
    "Stopped": OutcomeCondition(("Stopped",), (), (), "transform job stopped", "was stopped"),
    "Completed": OutcomeCondition(("Completed",), (), (), "transform job completed", "completed"),
}


class Transform(JobFamily):
    name = "transform"
    noun = "transform job"
    detail_type = "SageMaker Transform Job State Change"
    members = Members(name="TransformJobName", arn="TransformJobArn", status="TransformJobStatus",
                      secondary=None, transitions=None, started="TransformStartTime", ended="TransformEndTime")
    api = TRANSFORM
    resource = TRANSFORM_JOB
    outcomes = OUTCOMES
    console_path = CONSOLE_PATHS[TRANSFORM_JOB]
    log_group = LOG_GROUPS[TRANSFORM_JOB]
    scope = scope_field("transform_job_prefixes", noun)
    stop_consequence = "SageMaker stores no output of a stopped transform job"
    outcome_actions = ActionMap(
        "transform_job_outcomes", (), "Batch transform job outcome (" + ", ".join(OUTCOMES) + ") -> actions "
        "(notify, email, sms, webhook), with the FailureReason. None by default.",
        Place.JOB_OUTCOMES, "transform job outcome", tuple(OUTCOMES))
    # A transform job sets no MaxRuntimeInSeconds: what the rest of it would cost has no bound.
    billing = Billing("BatchTransform", ("TransformResources",), "TransformStartTime", "TransformEndTime")
    offers = frozenset({Offer.JOB_STATUS, Offer.HOST_METRICS, Offer.HOST_LOGS, Offer.COST})
    metric_namespace = LOG_GROUPS[TRANSFORM_JOB]  # dimension Host: <job>/<instance-id>
    instances_listed = True  # no API names its instances: only its metrics' Host dimension does


FAMILY = Transform()
