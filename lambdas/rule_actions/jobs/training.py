"""SageMaker training jobs: the "SageMaker Training Job State Change" event, Describe/List/StopTrainingJob, their
console page and logs, their job outcomes (`job_outcomes`) and their scope (`training_job_prefixes`)."""

from __future__ import annotations

from rule_actions.contract import OutcomeCondition
from rule_actions.fields import ActionMap
from rule_actions.jobs.base import JobFamily, Members, scope_field
from rule_actions.records import JobApi, Place

COMPLETED, FAILED, STOPPED = "Completed", "Failed", "Stopped"
TIMEOUTS = ("MaxRuntimeExceeded", "MaxWaitTimeExceeded")
INTERRUPTED = "Interrupted"
# A timeout or a spot interruption is told apart from a plain stop or failure by SecondaryStatus (a timeout ends
# the job Stopped); the conditions exclude one another.
_ENDED_OTHERWISE = (*TIMEOUTS, INTERRUPTED)
OUTCOMES = {
    "Failed": OutcomeCondition((FAILED,), (), _ENDED_OTHERWISE, "training job failed", "failed"),
    "MaxRuntimeExceeded": OutcomeCondition(
        (), ("MaxRuntimeExceeded",), (), "training job timed out",
        "was stopped by SageMaker: it reached its maximum run time (MaxRuntimeExceeded)"),
    "MaxWaitTimeExceeded": OutcomeCondition(
        (), ("MaxWaitTimeExceeded",), (), "spot training job timed out",
        "was stopped by SageMaker: it reached its maximum wait time for spot capacity (MaxWaitTimeExceeded)"),
    "Interrupted": OutcomeCondition(
        (), (INTERRUPTED,), (), "spot training job interrupted",
        "lost its spot instances (Interrupted); SageMaker resumes it from its last checkpoint when capacity returns"),
    "Stopped": OutcomeCondition((STOPPED,), (), _ENDED_OTHERWISE, "training job stopped",
                                "was stopped (by a person or a tool outside this stack)"),
    "Completed": OutcomeCondition((COMPLETED,), (), _ENDED_OTHERWISE, "training job completed", "completed"),
}


class Training(JobFamily):
    name = "training"
    noun = "training job"
    detail_type = "SageMaker Training Job State Change"
    members = Members(name="TrainingJobName", arn="TrainingJobArn", status="TrainingJobStatus",
                      started="TrainingStartTime", ended="TrainingEndTime", run_seconds="TrainingTimeInSeconds",
                      billable_seconds="BillableTimeInSeconds")
    api = JobApi(describe="DescribeTrainingJob", stop="StopTrainingJob", list="ListTrainingJobs",
                 name="TrainingJobName", summaries="TrainingJobSummaries", search="TrainingJob")
    resource = "training-job"
    statuses = ("InProgress", "Completed", "Failed", "Stopping", "Stopped", "Deleting")
    outcomes = OUTCOMES
    log_group = "/aws/sagemaker/TrainingJobs"  # streams <job>/algo-<n>-<epoch>
    seeded = ("DebugRuleConfigurations", "ProfilerRuleConfigurations")
    scope = scope_field("training_job_prefixes", noun)
    outcome_actions = ActionMap(
        "job_outcomes", (), "Training job outcome (" + ", ".join(OUTCOMES) + ") -> actions (notify, email, sms, "
        "webhook; not stoptraining: the job has ended, or SageMaker is resuming it). None by default.",
        Place.JOB_OUTCOMES, "job outcome", tuple(OUTCOMES))


FAMILY = Training()
