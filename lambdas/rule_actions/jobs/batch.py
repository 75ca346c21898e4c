"""AWS Batch service jobs: the SageMaker training jobs teams queue in Batch job queues (SubmitServiceJob). Off unless
`batch_queues` names queues; then the "Batch Service Job State Change" events of those queues (source aws.batch)
are matched, and their outcomes (`batch_job_outcomes`) told as Batch means them:

    Preempted           Batch stopped a running attempt for higher-priority work and requeued the job (RUNNABLE):
                        told as a preemption, with the count, never as "stopped by someone"
    WaitingForCapacity  the job waits in its queue (RUNNABLE) and has waited at least batch_wait_alert_minutes since
                        it was submitted, told once with the status reason: at the first capacity event past it
                        (Batch sends one each time an attempt fails for want of capacity: RUNNABLE, CAPACITY:...),
                        or by the sweep on the stack's schedule (`sweep`: each followed queue's RUNNABLE jobs,
                        ListServiceJobs), whichever comes first (one ledger key: the job's ARN and the outcome)
    Failed              the job failed after its attempts: told once, with each attempt's reason
    Terminated          the job was terminated (TerminateServiceJob; rule-actions' own stop names the rule)
    Succeeded           the job succeeded

Each event's status, derived phase and attempts are read from its detail alone (jobs/batch_facts.py). A training job
Batch made (`AWSBatch` + the requested name + 32 hex) is an attempt: the training family matches it by its requested
name, holds its outcomes back (this family reports for its service job: a preempted attempt's Stopped is no stop by
someone) and a stop of it goes through Batch (TerminateServiceJob with a reason naming the rule, jobs/training.py and
kinds/base.py `through_batch`).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from rule_actions.contract import BATCH_SOURCE, SERVICE_JOB_RUNNING, Arn, Grant, OutcomeCondition
from rule_actions.cost import Billing
from rule_actions.fields import ActionMap, Actions
from rule_actions.jobs.base import Envelope, JobFamily, Members
from rule_actions.jobs.batch_facts import (
    BATCH_QUEUES,
    BATCH_WAIT_ALERT_MINUTES,
    CAPACITY,
    PREFIX,
    QUEUE_NAME,
    attempts,
    compiled,
    preemptions,
    queue_arn,
    queue_followed,
    queue_name,
    queues,
    restarts,
    training_job_arns,
)
from rule_actions.jobs.common import CONSOLE_PATHS, LOG_GROUPS, TRAINING, TRAINING_JOB, attached
from rule_actions.ports import Configured
from rule_actions.records import (
    IgnoredEvent,
    JobApi,
    JobEvent,
    Need,
    Place,
    QueuedServiceJobs,
    Swept,
    Transition,
    Unread,
)
from rule_actions.text import arn_name, console_link, digest, duration, encoded, log_link, plain, quoted

RUNNABLE, FAILED, SUCCEEDED = "RUNNABLE", "FAILED", "SUCCEEDED"
# The phase this family reads in a service job's event (its JobEvent.secondary_status): Batch sends none.
PREEMPTED, WAITING, TERMINATED, EXHAUSTED = "Preempted", "WaitingForCapacity", "Terminated", "AfterAttempts"
OUTCOMES = {
    "Preempted": OutcomeCondition((RUNNABLE,), (PREEMPTED,), (), "Batch service job preempted",
                                  "was preempted by AWS Batch (its running attempt stopped for higher-priority work) "
                                  "and requeued: not stopped by anyone"),
    "WaitingForCapacity": OutcomeCondition((RUNNABLE,), (WAITING,), (), "Batch service job waiting for capacity",
                                           "waits in its queue for capacity"),
    "Failed": OutcomeCondition((FAILED,), (EXHAUSTED,), (), "Batch service job failed", "failed after its attempts"),
    "Terminated": OutcomeCondition((FAILED,), (TERMINATED,), (), "Batch service job terminated", "was terminated"),
    "Succeeded": OutcomeCondition((SUCCEEDED,), (), (), "Batch service job succeeded", "succeeded"),
}
# The detail clause of each outcome (Batch's own members: the phase above is this family's reading).
CLAUSES: dict[str, dict[str, Any]] = {
    "Preempted": {"status": [RUNNABLE], "preemptionSummary": {"preemptedAttemptCount": [{"numeric": [">", 0]}]}},
    "WaitingForCapacity": {"status": [RUNNABLE], "statusReason": [{"prefix": CAPACITY}]},
    "Failed": {"status": [FAILED], "isTerminated": [False]},
    "Terminated": {"status": [FAILED], "isTerminated": [True]},
    "Succeeded": {"status": [SUCCEEDED]},
}
SERVICE_JOB = JobApi(describe="DescribeServiceJob", stop="TerminateServiceJob", list="ListServiceJobs", name="jobId",
                     summaries="jobSummaryList")
TYPE = "SAGEMAKER_TRAINING"  # serviceJobType of a SageMaker training job's service job
REASONS_SHOWN = 10  # the attempts an outcome's message lists (the newest)
REASON_MAX = 300  # an attempt's reason, on its line


class Batch(JobFamily):
    name = "batch"
    noun = "Batch service job"
    source = BATCH_SOURCE
    detail_type = "Batch Service Job State Change"
    members = Members(name="jobName", arn="jobArn", status="status", secondary=None, failure_reason="statusReason",
                      transitions=None, created="createdAt", started="startedAt", ended="stoppedAt",
                      last_modified="createdAt", tags="tags")
    api = SERVICE_JOB
    resource = "service-job"
    outcomes = OUTCOMES
    scope = BATCH_QUEUES
    settings = (BATCH_WAIT_ALERT_MINUTES,)
    outcome_actions = ActionMap(
        "batch_job_outcomes", (), "AWS Batch service job outcome (" + ", ".join(OUTCOMES) + ") -> actions (notify, "
        "email, sms, webhook), for the queues batch_queues names: a preemption with its count, a failure after its "
        "attempts with each attempt's reason, a wait for capacity past batch_wait_alert_minutes. None by default.",
        Place.JOB_OUTCOMES, "Batch service job outcome", tuple(OUTCOMES))
    stoppable = False  # its own events are never stopped: a stop of one of its training jobs goes through Batch
    name_hint = "letters, digits, '-' and '_', at most 128"  # SubmitServiceJob's jobName: a queue's charset
    # Its cost: the sum of its attempts' billed time, each read from its training job's description.
    billing = Billing("Training", started="startedAt", ended="stoppedAt",
                      attempts=(TRAINING, lambda detail: attempt_names(detail)))
    statuses = ("SUBMITTED", "PENDING", RUNNABLE, "SCHEDULED", "STARTING", "RUNNING", SUCCEEDED, FAILED)

    def on(self, config: Configured) -> bool:
        return bool(queues(config))

    def warnings(self, config: Configured, where: str) -> list[str]:
        """Outcomes given actions while no queue is followed: the family is off, and nothing of it is told."""
        told = [outcome for outcome, actions in attached(config, self.outcome_actions).items() if actions]
        if self.on(config) or not told:
            return []
        return [f"{where}.{self.outcome_actions.key} gives actions to {', '.join(told)}, but {where}."
                f"{BATCH_QUEUES.key} names no job queue: the AWS Batch family is off and none of them is ever told. "
                f"Name the queues to follow in {BATCH_QUEUES.key}."]

    def named(self, event: JobEvent) -> JobEvent:
        """A job name as SubmitServiceJob takes it (its pattern compiled on its first use: cold starts)."""
        if not compiled(QUEUE_NAME).fullmatch(event.job_name):
            raise IgnoredEvent(f"detail.{self.members.name}: {quoted(event.job_name)} is not an AWS Batch job name "
                               f"({self.name_hint})")
        return event

    def read(self, detail: Mapping[str, Any], envelope: Envelope, m: Members) -> JobEvent:
        """Batch's event, with the phase this family reads in it and its attempts as its transitions (a later
        attempt's events are further along: Batch's statuses go back to RUNNABLE after RUNNING)."""
        event = super().read(detail, envelope, m)
        steps = tuple(Transition("Attempt", _at(a.started_at), a.status_reason) for a in attempts(detail))
        return replace(event, secondary_status=phase(detail), transitions=steps)

    def scope_refusal(self, config: Configured, event: JobEvent,
                      answers: Mapping[Any, Any] | None = None) -> str | Need | None:
        followed = queues(config)
        if not followed:
            return f"the Batch family is off ({self.scope.key} is empty)"
        queue = event.detail.get("jobQueue")
        if not isinstance(queue, str) or not queue_followed(followed, queue):
            return f"its job queue {queue_name(str(queue))} is not in {self.scope.key}"
        if event.detail.get("serviceJobType", TYPE) != TYPE:
            return f"it is no SageMaker training job's service job (serviceJobType {event.detail['serviceJobType']})"
        return None

    def scope_clause(self, prefixes: tuple[str, ...]) -> dict[str, Any]:
        """Its queues (an ARN as given, a name at the end of the queue's ARN), training jobs only."""
        return {"serviceJobType": [TYPE],
                "jobQueue": [q if q.startswith("arn:") else {"suffix": f":job-queue/{q}"} for q in prefixes]}

    def outcome_clause(self, outcome: str) -> dict[str, Any]:
        return dict(CLAUSES[outcome])

    def quiet_clause(self, config: Configured) -> dict[str, Any]:
        return {}

    def stop_record_of(self, event: JobEvent, outcome: str) -> str | None:
        """A termination's: its latest attempt's training job, which this stack's stop through Batch recorded (its
        ARN as the event names it: SageMaker lower-cases the name), so that a stop told with its finding is not told
        again as the service job's end."""
        if outcome != TERMINATED:
            return None
        ran = training_job_arns(event.detail)
        return ran[-1].lower() if ran else None

    def held_back(self, event: JobEvent, config: Configured, answers: Mapping[Any, Any]) -> str | Need | None:
        """A wait for capacity shorter than batch_wait_alert_minutes (told at a later wait, if any)."""
        if event.secondary_status != WAITING:
            return None
        waited, least = waited_seconds(event), config[BATCH_WAIT_ALERT_MINUTES] * 60
        if waited is None or waited >= least:
            return None
        return (f"it has waited {duration(waited)} in its queue, less than {BATCH_WAIT_ALERT_MINUTES.key} "
                f"({config[BATCH_WAIT_ALERT_MINUTES]} min)")

    def short_reason(self, event: JobEvent) -> str:
        if event.secondary_status == PREEMPTED:
            return f"preempted {preemptions(event.detail)} time(s), requeued"
        return event.failure_reason

    def outcome_lines(self, event: JobEvent, outcome: str) -> list[str]:
        """Its queue; the preemptions; how long it has waited; each attempt with its reason."""
        detail = event.detail
        lines = [f"Queue: {plain(queue_name(str(detail.get('jobQueue', ''))), 128)}"]
        count = preemptions(detail)
        if count:
            lines.append(f"Preempted: {count} time(s) (Batch requeues a preempted job: not a failure, not a stop)")
        waited = waited_seconds(event)
        if outcome == WAITING and waited is not None:
            lines.append(f"Waiting for: {duration(waited)} since it was submitted")
        if outcome == WAITING and not event.failure_reason:
            lines.append("Status reason: none given by AWS Batch (it waits its turn: capacity, its share or "
                         "priority)")
        if outcome == WAITING and event.live:
            lines.append("Seen: RUNNABLE in its queue by the scheduled sweep (ListServiceJobs), without a new event")
        tried = attempts(detail)
        # Only the latest attempt of a job that runs one is running: a job waiting in its queue, or ended, runs none
        # (the sweep's listing gives an attempt's name, never its reason)
        runs = detail.get("status") in SERVICE_JOB_RUNNING
        unsaid = "ended (ListServiceJobs gives no reason)" if event.live else "ended (no reason given by AWS Batch)"
        if tried:
            lines.append(f"Attempts ({len(tried)}):")
            for index, attempt in enumerate(tried[-REASONS_SHOWN:], start=max(1, len(tried) - REASONS_SHOWN + 1)):
                why = "preempted" if attempt.preempted else plain(attempt.status_reason, REASON_MAX) or (
                    "running" if runs and attempt is tried[-1] else unsaid)
                lines.append(f"  {index}. {arn_name(attempt.training_job_arn)}: {why}")
        return lines

    def json_details(self, event: JobEvent) -> dict[str, Any] | None:
        detail = event.detail
        return {"queue": queue_name(str(detail.get("jobQueue", ""))), "job_id": detail.get("jobId"),
                "preemptions": preemptions(detail), "waited_seconds": waited_seconds(event),
                "attempts": [{"training_job": arn_name(a.training_job_arn), "reason": a.status_reason,
                              "preempted": a.preempted} for a in attempts(detail)]}

    def links(self, event: JobEvent, region: str) -> tuple[tuple[str, str], ...]:
        """Its latest attempt's training job in the console, and its logs (Batch names none until it ran one)."""
        tried = attempts(event.detail)
        if not tried:
            return ()
        latest = arn_name(tried[-1].training_job_arn)
        return (("Latest training job in the console",
                 console_link(region, f"/{CONSOLE_PATHS[TRAINING_JOB]}/{encoded(latest)}")),
                ("Latest training job logs", log_link(region, LOG_GROUPS[TRAINING_JOB], latest)))

    def resources(self, config: Configured, resource: str | None = None) -> tuple[Arn, ...]:
        return ()

    def sweeps(self, config: Configured) -> bool:
        """On, with actions for WaitingForCapacity: a job may wait in its queue for hours without a new event."""
        attached: Actions = config[self.outcome_actions]
        return self.on(config) and bool(dict(attached).get(WAITING))

    def sweep(self, now: int, config: Configured) -> Generator[frozenset[Need], Mapping[Need, Any], Swept]:
        """Each followed queue's RUNNABLE jobs (ListServiceJobs, every page), each read as the state change Batch
        would send for it now: a wait in its queue (WaitingForCapacity, whatever its status reason), told past
        batch_wait_alert_minutes since it was submitted, once (the ledger's key is the event route's: the job's ARN
        and the outcome)."""
        asked = {queue: QueuedServiceJobs(queue, RUNNABLE) for queue in queues(config)}
        answers = yield frozenset(asked.values())
        events: list[JobEvent | IgnoredEvent] = []
        errors, listed = [], 0
        for queue, need in asked.items():
            found = answers[need]
            if isinstance(found, Unread):
                errors.append(found.reason)
                continue
            for summary in found:
                listed += 1
                events.append(self.waiting(summary, queue, now))
        return Swept(listed, tuple(events), tuple(errors))

    def waiting(self, summary: Mapping[str, Any], queue: str, now: int) -> JobEvent | IgnoredEvent:
        """The state change of a job ListServiceJobs lists RUNNABLE in `queue`, at `now`: its summary as the detail
        (Batch's own members only; its queue, which the summary does not name, as an ARN when the job's ARN says
        the account and region), a wait in its queue, live; its attempts' history is not listed (none of it is
        counted: the ledger's order of the job's events ranks it by its status alone)."""
        detail = {**summary, "jobQueue": queue_arn(queue, str(summary.get("jobArn", "")))}
        when = datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        try:
            event = self.event_of(detail, when, "sweep-" + digest(f"{detail.get('jobArn')}@{now}")[:24], {})
        except IgnoredEvent as err:
            return err
        if event.job_status != RUNNABLE:
            return event
        return replace(event, secondary_status=WAITING, transitions=())

    def service_grants(self, config: Configured) -> list[Grant]:
        """When on: terminate a service job (its ARN names its id, not its queue: the function checks the queue
        first), describe one and list a queue's (neither takes a resource)."""
        if not self.on(config):
            return []
        return [
            Grant(sid="TerminateBatchServiceJobs", actions=("batch:TerminateServiceJob",),
                  resources=(Arn("batch", "service-job", "*"),),
                  reason="a stop of a Batch-made training job goes through Batch; a service job's ARN names its id, "
                         "not its queue: the function reads the job's queue first and stops only those of "
                         "batch_queues"),
            Grant(sid="DescribeBatchTrainingJobs", actions=("sagemaker:DescribeTrainingJob",),
                  resources=(Arn("sagemaker", TRAINING_JOB, f"{PREFIX.lower()}*"),),
                  reason="a Batch job's cost sums its attempts' billed time: the function may describe the training "
                         "jobs Batch names (AWSBatch<requested name><32 hex>)"),
            Grant(sid="ReadBatchServiceJobs", actions=("batch:DescribeServiceJob", "batch:ListServiceJobs"),
                  resources=("*",),
                  reason="batch:DescribeServiceJob and batch:ListServiceJobs support no resource-level permissions; "
                         "IAM requires Resource \"*\" for them (the function lists only the queues of batch_queues)"),
            *resubmit_grants(config),
        ]


def resubmit_grants(config: Configured) -> list[Grant]:
    """When restarts are allowed too: submit a service job again (a restart through Batch) to the configured queues
    only (SubmitServiceJob takes the queue's ARN, its quota shares', and the new job's, whose id is not known
    before), and tag it (the chain's tags). iam:PassRole for its request's RoleArn is the restart's own grant
    (PassRoleToRestartedJobs: to sagemaker.amazonaws.com only)."""
    if not restarts(config):
        return []
    named = tuple(q if q.startswith("arn:") else Arn("batch", "job-queue", q) for q in queues(config))
    shares = tuple(f"{q}/quota-share/*" if q.startswith("arn:") else Arn("batch", "job-queue", f"{q}/quota-share/*")
                   for q in queues(config))
    return [
        Grant(sid="ResubmitBatchServiceJobs", actions=("batch:SubmitServiceJob",),
              resources=(*named, *shares, Arn("batch", "service-job", "*")),
              reason="a restart of a Batch-made training job submits its service job again to its queue, one of "
                     "batch_queues (and its quota share); the new service job's id is Batch's, unknown before"),
        Grant(sid="TagResubmittedBatchServiceJobs", actions=("batch:TagResource",),
              resources=(Arn("batch", "service-job", "*"),),
              reason="SubmitServiceJob with tags needs batch:TagResource on the new service job, whose id is "
                     "Batch's, unknown before (the chain's tags follow the restarts)"),
    ]


def attempt_names(detail: Mapping[str, Any]) -> tuple[str, ...]:
    """Its attempts' training jobs, by name: their ARNs lower-case the name; Batch begins it with `AWSBatch`, so
    that much is given back (a requested name with capitals is described under its lower-cased form: not found,
    that attempt is left out of the cost, said)."""
    names = (arn_name(arn) for arn in training_job_arns(detail))
    return tuple(PREFIX + name[len(PREFIX):] if name.lower().startswith(PREFIX.lower()) else name for name in names)


def phase(detail: Mapping[str, Any]) -> str | None:
    """What a service job's event shows beyond its status: a preemption (RUNNABLE, its latest attempt one Batch
    preempted), a wait for capacity, a termination or a failure after its attempts; None otherwise."""
    status = detail.get("status")
    if status == FAILED:
        return TERMINATED if detail.get("isTerminated") is True else EXHAUSTED
    if status != RUNNABLE:
        return None
    tried = attempts(detail)
    latest = detail.get("latestAttempt")
    resource = latest.get("serviceResourceId") if isinstance(latest, Mapping) else None
    arn = resource.get("value") if isinstance(resource, Mapping) else None
    reason = detail.get("statusReason")
    if isinstance(reason, str) and reason.startswith(CAPACITY):
        return WAITING
    if any(a.preempted and a.training_job_arn == arn for a in tried):
        return PREEMPTED
    return None


def waited_seconds(event: JobEvent) -> int | None:
    """How long the job has waited since it was submitted, at the event's time (None: not known)."""
    created = event.created
    at = _event_time(event.time)
    return max(0, int((at - created).total_seconds())) if created and at else None


def _event_time(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _at(ms: int | None) -> datetime | None:
    return datetime.fromtimestamp(ms / 1000, tz=UTC) if ms is not None else None


FAMILY = Batch()
