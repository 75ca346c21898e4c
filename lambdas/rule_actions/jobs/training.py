"""SageMaker training jobs: the "SageMaker Training Job State Change" event, Describe/List/StopTrainingJob, their
console page and logs, their job outcomes (`job_outcomes`) and their scope (`training_job_prefixes`).

The outcomes of a training job launched by a hyperparameter tuning job (a trial) are held back while its tuning job
reports (`tuning_job_outcomes` attaches actions) unless `tuning_trials_alert` is true: the tuning job reports once
for all its trials (jobs/tuning.py), and the trial's outcome is shown skipped, naming it. The event names the tuning
job (TuningJobArn, as DescribeTrainingJob does): the rule's outcome clauses do not even match such events. A job
whose name has a trial's form (<tuning job>-NNN-xxxxxxxx) and whose event names no tuning job is described once
before its outcome acts, so that a trial is never mistaken for a job of its own. A trial's rule statuses are acted
on as any training job's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rule_actions.contract import PHASES, Offer, OutcomeCondition
from rule_actions.cost import TRAINING as TRAINING_BILLING
from rule_actions.fields import ActionMap
from rule_actions.jobs.base import JobFamily, Members, scope_field
from rule_actions.jobs.batch_facts import KEPT_MAX, PREFIX, managed, prefix_match, queues
from rule_actions.jobs.common import (
    LOG_GROUPS,
    TRAINING,
    TRAINING_JOB,
    TUNING_JOB,
    TUNING_JOB_OUTCOMES,
    TUNING_OWNER,
    TUNING_TRIALS_ALERT,
    attached,
    is_trial_name,
    reports,
    trials_held_back,
    tuning_ref,
)
from rule_actions.ports import Configured
from rule_actions.records import Capability, Described, JobEvent, JobRef, Need, Place, ServiceJobOf, Unread
from rule_actions.text import arn_name

COMPLETED, FAILED, STOPPED = "Completed", "Failed", "Stopped"
TIMEOUTS = ("MaxRuntimeExceeded", "MaxWaitTimeExceeded")
INTERRUPTED = "Interrupted"
UPLOADING = "Uploading"
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
PARENT = "TuningJobArn"
NAME_SHOWN = 63  # a requested name, at most, in a refusal


def requested_of(service: Any) -> str | None:
    """The TrainingJobName of a service job's request (a ServiceJobOf answer: its queue and DescribeServiceJob's
    answer); None when it was not read or holds none."""
    job = service[1] if isinstance(service, tuple) and len(service) == 2 else None
    payload = job.get("serviceRequestPayload") if isinstance(job, Mapping) else None
    try:
        request = json.loads(payload) if isinstance(payload, str) else None
    except ValueError:
        return None
    name = request.get("TrainingJobName") if isinstance(request, dict) else None
    return name if isinstance(name, str) else None


class Training(JobFamily):
    name = "training"
    noun = "training job"
    detail_type = "SageMaker Training Job State Change"
    members = Members(name="TrainingJobName", arn="TrainingJobArn", status="TrainingJobStatus",
                      started="TrainingStartTime", ended="TrainingEndTime", run_seconds="TrainingTimeInSeconds",
                      billable_seconds="BillableTimeInSeconds", parent=PARENT)
    api = TRAINING
    resource = TRAINING_JOB
    outcomes = OUTCOMES
    log_group = LOG_GROUPS[TRAINING_JOB]  # streams <job>/algo-<n>-<epoch>
    scope = scope_field("training_job_prefixes", noun)
    outcome_actions = ActionMap(
        "job_outcomes", (), "Training job outcome (" + ", ".join(OUTCOMES) + ") -> actions (notify, email, sms, "
        "webhook; not stoptraining: the job has ended, or SageMaker is resuming it). None by default. A tuning "
        "job's trials: while tuning_job_outcomes attaches actions, only with tuning_trials_alert.",
        Place.JOB_OUTCOMES, "job outcome", tuple(OUTCOMES))
    settings = (TUNING_TRIALS_ALERT,)
    stoppable = True
    billing = TRAINING_BILLING  # its billed time: cost.py (a spot wait or a cluster repair not billed; warm pools)
    offers = frozenset({Offer.TRAINING_PHASES, Offer.HOST_METRICS, Offer.HOST_LOGS, Offer.COST})
    metric_namespace = LOG_GROUPS[TRAINING_JOB]  # instance metrics (dimension Host) and the user's (TrainingJobName)
    statuses = ("InProgress", "Completed", "Failed", "Stopping", "Stopped", "Deleting")
    kept = ("DebugRuleConfigurations", "ProfilerRuleConfigurations")  # its rules: only its first event carries them

    def in_scope(self, config: Configured, job_name: str) -> bool:
        """Under a prefix by its name, or (the Batch family on) by the name its owner asked Batch for."""
        return super().in_scope(config, job_name) or (managed(config, job_name) and any(
            prefix_match(job_name, prefix) is not False for prefix in config[self.scope]))

    def scope_refusal(self, config: Configured, event: JobEvent,
                      answers: Mapping[Any, Any] | None = None) -> str | Need | None:
        """As any family's; but a Batch-made job whose kept requested name (its first KEPT_MAX characters) agrees
        with a longer prefix is judged on its whole requested name: its service job's serviceRequestPayload
        (DescribeServiceJob), asked for first. When that cannot be read, the kept part decides (in scope)."""
        name, prefixes = event.job_name, config[self.scope]
        if not prefixes or name.startswith(prefixes) or not managed(config, name):
            return super().scope_refusal(config, event, answers)
        verdicts = [prefix_match(name, prefix) for prefix in prefixes]
        if True in verdicts or None not in verdicts:
            return None if True in verdicts else f"{self.noun} is not under {self.scope.key}"
        need = ServiceJobOf(event.job_arn, queues(config))
        if answers is None:
            return need
        requested = requested_of(answers.get(need))
        if requested is None or requested.startswith(prefixes):
            return None
        return (f"{self.noun} is not under {self.scope.key}: the name its owner asked AWS Batch for, "
                f"{requested[:NAME_SHOWN]}, starts with none of them")

    def own_prefix(self, config: Configured, job_name: str, prefix: str) -> bool:
        return job_name.startswith(prefix) or (managed(config, job_name) and prefix_match(job_name, prefix) is True)

    def pattern_scope(self, config: Configured) -> dict[str, Any]:
        """Its prefixes, and (the Batch family on) the names Batch makes of them (the requested name's first
        KEPT_MAX characters are kept)."""
        prefixes = config[self.scope]
        if prefixes and queues(config):
            prefixes = tuple(dict.fromkeys((*prefixes, *(PREFIX + p[:KEPT_MAX] for p in prefixes))))
        return self.scope_clause(prefixes) if prefixes else {}

    def stopped_through(self, config: Configured, job_name: str) -> tuple[str, ...]:
        """A training job Batch made, while the Batch family is on: through its service job, in one of its
        queues."""
        return queues(config) if managed(config, job_name) else ()

    def held_back(self, event: JobEvent, config: Configured, answers: Mapping[Any, Any]) -> str | Need | None:
        """An attempt of an AWS Batch service job, while the Batch family is on (it reports for its service job: a
        preempted attempt's Stopped is no stop by someone); a trial of a tuning job, while its tuning job reports for
        it (unless tuning_trials_alert); a pipeline step's job, while the execution reports for it (unless
        pipeline_step_jobs_alert)."""
        if managed(config, event.job_name):
            return ("an attempt of an AWS Batch service job (Batch made its name): the Batch family reports for its "
                    "service job (batch_job_outcomes)")
        step = super().held_back(event, config, answers)
        if step is not None or not trials_held_back(config):
            return step
        parent = event.parent
        if not parent and is_trial_name(event.job_name):  # a trial's name, and the event names no parent
            need = Described(self.api, event.job_name)
            if need not in answers:
                return need
            described = answers[need]
            found = described.get(PARENT) if not isinstance(described, Unread) else None
            parent = found if isinstance(found, str) else ""  # unreadable: it alerts (better twice than never)
        if f":{TUNING_JOB}/" not in parent:
            return None
        return (f"a trial of tuning job {arn_name(parent)}: its tuning job reports for it (tuning_job_outcomes; "
                "tuning_trials_alert is false)")

    def jobs_of(self, event: JobEvent) -> dict[str, JobRef]:
        """Also its tuning job, when the event names the one that launched it (a trial)."""
        found = super().jobs_of(event)
        if f":{TUNING_JOB}/" in event.parent:
            found[TUNING_OWNER] = tuning_ref(event.parent)
        return found

    def stop_refusal(self, event: JobEvent) -> str | None:
        """Uploading: training is over and the model goes to S3; a stop now can lose it, and saves nothing."""
        if event.secondary_status != UPLOADING:
            return None
        return (f"the training job is {PHASES[UPLOADING]} (SecondaryStatus {UPLOADING}): its training is over and a "
                "stop now could lose the model; not stopped")

    def quiet_clause(self, config: Configured) -> dict[str, Any]:
        """A trial's outcomes are not matched while they are held back (its rule statuses are)."""
        quiet = super().quiet_clause(config)
        return {**quiet, PARENT: [{"exists": False}]} if trials_held_back(config) else quiet

    def own_capabilities(self, config: Configured) -> frozenset[Capability]:
        """Describe, to tell a trial from a job of its own when the event does not say (when an outcome may act
        and a trial's is held back)."""
        held = reports(config, self.outcome_actions) and trials_held_back(config)
        return frozenset({Capability.DESCRIBE}) if held else frozenset()

    def warnings(self, config: Configured, where: str) -> list[str]:
        """A failed trial reaches nobody: job_outcomes.Failed acts, but a trial's outcome is held back for its
        tuning job, and tuning_job_outcomes.Failed attaches nothing."""
        if not (trials_held_back(config) and attached(config, self.outcome_actions).get(FAILED)
                and not attached(config, TUNING_JOB_OUTCOMES).get(FAILED)):
            return []
        return [f"{where}.{self.outcome_actions.key}.{FAILED} has actions, but a tuning job's trials report through "
                f"their tuning job ({where}.{TUNING_TRIALS_ALERT.key} is false and {where}."
                f"{TUNING_JOB_OUTCOMES.key} attaches actions) and {where}.{TUNING_JOB_OUTCOMES.key}.{FAILED} attaches "
                "nothing: a tuning job whose trials fail reports nothing on failure. Give "
                f"{TUNING_JOB_OUTCOMES.key}.{FAILED} actions (one message per tuning job, naming its failed trials), "
                f"or set {TUNING_TRIALS_ALERT.key} true (every trial's failure alerts through "
                f"{self.outcome_actions.key})."]


FAMILY = Training()
