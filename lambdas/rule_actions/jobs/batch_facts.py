"""What AWS Batch's service jobs say about the SageMaker training jobs they run, read from names and event details
alone (no call), and the configuration that turns the Batch family on: the module the Batch job family (jobs/batch.py)
and the training family (a Batch-made training job is one of a service job's attempts) build on.

    BATCH_QUEUES, BATCH_WAIT_ALERT_MINUTES  the queues followed (empty: the family is off), the wait told
    queues(config)                         the queues followed
    managed(config, name)                  whether a training job is an attempt of a followed service job
    restarts(config)                       whether restarts are allowed (one of a Batch job goes through Batch)
    queue_followed(queues, queue)          whether a job queue (its ARN) is one of them
    queue_arn(queue, job_arn)              a followed queue's ARN, from a job's ARN (ListServiceJobs names none)

    training_job_name(requested, suffix)   the name Batch gives an attempt's training job
    requested_name(name)                   the name its owner asked for, from a Batch-made training job's name
    prefix_match(name, prefix)             whether a Batch-made job's requested name starts with `prefix`
    attempts(detail)                       a service job's attempts (its event's detail, or DescribeServiceJob)
    training_job_arns(detail)              their training jobs, oldest first
    preemptions(detail)                    how many times Batch preempted it
    waiting_for_capacity(detail)           whether it waits in its queue for capacity

Names. Batch names each attempt's training job `AWSBatch` + the TrainingJobName of the request it queued + 32
hexadecimal characters (AWS Batch User Guide, "Service job state change events": AWSBatchmy-training-job88b6...).
SageMaker allows 63 characters, so a requested name of more than 23 (63 - 8 - 32) characters cannot be kept whole.
How Batch shortens it is NOT documented; ASSUMED here: it keeps the requested name's first 23 characters (a
63-character Batch-made name may hold a cut name: `prefix_match` answers None when the cut decides). The 32
characters are ASSUMED lower-case hexadecimal, as in AWS's example. The requested name read from an ARN is
lower-cased, as SageMaker lower-cases names in ARNs; `AWSBatch` is matched without case for that reason.

The whole requested name is the `TrainingJobName` of DescribeServiceJob's `serviceRequestPayload` (the request,
verbatim); the service job's own `jobName` is another name (AWS's example: jobName event-test, training job
AWSBatchmy-training-job...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from rule_actions.contract import SERVICE_JOB_ENDED
from rule_actions.fields import TextList, Whole
from rule_actions.ports import Configured

PREFIX = "AWSBatch"
SUFFIX_LENGTH = 32  # hexadecimal characters after the requested name
NAME_MAX = 63  # a training job's name, at most (SageMaker's TrainingJobName)
KEPT_MAX = NAME_MAX - len(PREFIX) - SUFFIX_LENGTH  # 23: the longest requested name kept whole
TRAINING_JOB_ARN = "TrainingJobArn"  # serviceResourceId.name of an attempt that ran a training job
CAPACITY = "CAPACITY:"  # statusReason of a job RUNNABLE for want of capacity (CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY)
_MADE = rf"(?i:{PREFIX})(?P<requested>[a-zA-Z0-9-]+?)(?P<suffix>[0-9a-f]{{{SUFFIX_LENGTH}}})"
_HEX = rf"[0-9a-f]{{{SUFFIX_LENGTH}}}"
@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """A pattern compiled on its first use (ASCII): a cold start that never reads a Batch name compiles none."""
    return re.compile(pattern, re.ASCII)


# A job queue's name (CreateJobQueue: up to 128 letters, digits, hyphens and underscores) or its ARN.
QUEUE_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}"
QUEUE = rf"{QUEUE_NAME}|arn:aws[a-z-]*:batch:[a-z0-9-]+:[0-9]{{12}}:job-queue/{QUEUE_NAME}"
BATCH_QUEUES = TextList(
    "batch_queues", "AWS Batch job queues (names or ARNs) whose SageMaker training jobs (service jobs) this stack "
    "follows: their Batch state changes are matched (batch_job_outcomes), their training jobs matched by the name "
    "their owner asked for and stopped through Batch (TerminateServiceJob, never StopTrainingJob). Empty (the "
    "default): the Batch family is off: no aws.batch event is matched and nothing is granted on Batch.",
    pattern=QUEUE, hint="a job queue's name or ARN (letters, digits, '-', '_'; at most 128)",
    check=lambda value: compiled(QUEUE).fullmatch(value))
BATCH_WAIT_ALERT_MINUTES = Whole(
    "batch_wait_alert_minutes", 60, "How long a Batch service job may wait in its queue (RUNNABLE) before "
    "batch_job_outcomes.WaitingForCapacity tells it, once, in minutes since it was submitted: at its first "
    "capacity event past it (CAPACITY:...), or by the sweep of the followed queues on the stack's schedule, every "
    "5 minutes (monitor.every_minutes with monitor), when it waits without a new event (0: at its first wait).",
    0, 10080, "minutes")


class Attempt:
    """One attempt of a service job: the training job it ran, when (epoch ms; None: not known yet), why it stopped,
    and whether Batch preempted it (listed in preemptionSummary.recentPreemptedAttempts). A plain class with slots:
    a NamedTuple's definition costs every cold start of the function."""

    __slots__ = ("preempted", "started_at", "status_reason", "stopped_at", "training_job_arn")

    def __init__(self, training_job_arn: str, started_at: int | None, stopped_at: int | None, status_reason: str,
                 preempted: bool):
        self.training_job_arn, self.started_at, self.stopped_at = training_job_arn, started_at, stopped_at
        self.status_reason, self.preempted = status_reason, preempted

    def __repr__(self) -> str:
        return (f"Attempt({self.training_job_arn!r}, {self.started_at!r}, {self.stopped_at!r}, "
                f"{self.status_reason!r}, {self.preempted!r})")


def training_job_name(requested: str, suffix: str) -> str:
    """The name Batch gives an attempt's training job (the cut is ASSUMED: see the module's doc)."""
    if not compiled(_HEX).fullmatch(suffix):
        raise ValueError(f"the suffix must be {SUFFIX_LENGTH} lower-case hexadecimal characters, not {suffix!r}")
    return f"{PREFIX}{requested[:KEPT_MAX]}{suffix}"


def requested_name(name: str) -> str | None:
    """The requested name kept in a Batch-made training job's name (or its lower-cased form from an ARN); None when
    the name is not Batch-made. May be cut (`may_be_cut`)."""
    found = compiled(_MADE).fullmatch(name) if len(name) <= NAME_MAX else None
    return found.group("requested") if found else None


def may_be_cut(name: str) -> bool:
    """Whether the requested name in a Batch-made name may be the beginning of a longer one (the name is as long
    as SageMaker allows: its requested part is KEPT_MAX characters, whole or cut)."""
    return requested_name(name) is not None and len(name) == NAME_MAX


def prefix_match(name: str, prefix: str) -> bool | None:
    """Whether the training job `name`, made by Batch, was requested under a name that starts with `prefix`
    (case-sensitive, as a rule's prefix is). None when the name alone cannot tell: it is not Batch-made, or its
    requested part may be cut and `prefix` goes past it while agreeing with it (read the whole requested name from
    DescribeServiceJob's serviceRequestPayload)."""
    requested = requested_name(name)
    if requested is None:
        return None
    if requested.startswith(prefix):
        return True
    if may_be_cut(name) and prefix.startswith(requested):
        return None
    return False


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _ms(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _training_job_arn(entry: Any) -> str:
    """The training job ARN of an attempt entry (its serviceResourceId), "" when it names none."""
    resource = entry.get("serviceResourceId") if isinstance(entry, Mapping) else None
    if not isinstance(resource, Mapping) or resource.get("name") != TRAINING_JOB_ARN:
        return ""
    return _text(resource.get("value"))


def attempts(detail: Mapping[str, Any]) -> tuple[Attempt, ...]:
    """The service job's attempts that ran a training job, oldest first (by startedAt; unknown last, in the order
    listed): its `attempts`, the preempted ones of `preemptionSummary.recentPreemptedAttempts` that `attempts` does
    not list, and `latestAttempt` when neither lists it (its training job was just created). One per training job."""
    summary = detail.get("preemptionSummary")
    recent = summary.get("recentPreemptedAttempts") if isinstance(summary, Mapping) else None
    preempted = [entry for entry in recent or [] if _training_job_arn(entry)] if isinstance(recent, list) else []
    preempted_arns = {_training_job_arn(entry) for entry in preempted}
    listed = detail.get("attempts")
    entries = [*(listed if isinstance(listed, list) else []), *preempted, detail.get("latestAttempt")]
    found: dict[str, Attempt] = {}
    for entry in entries:
        arn = _training_job_arn(entry)
        if not arn or arn in found:
            continue
        found[arn] = Attempt(arn, _ms(entry.get("startedAt")), _ms(entry.get("stoppedAt")),
                             _text(entry.get("statusReason")), arn in preempted_arns)
    order = list(found)
    return tuple(sorted(found.values(), key=lambda a: (a.started_at is None, a.started_at or 0,
                                                       order.index(a.training_job_arn))))


def training_job_arns(detail: Mapping[str, Any]) -> tuple[str, ...]:
    """The training jobs of the service job's attempts, oldest first."""
    return tuple(attempt.training_job_arn for attempt in attempts(detail))


def preemptions(detail: Mapping[str, Any]) -> int:
    """How many times Batch preempted the job: preemptionSummary.preemptedAttemptCount, else the recent preempted
    attempts listed; 0 when it was never preempted (the summary appears only then)."""
    summary = detail.get("preemptionSummary")
    if not isinstance(summary, Mapping):
        return 0
    count = _ms(summary.get("preemptedAttemptCount"))
    recent = summary.get("recentPreemptedAttempts")
    return count if count is not None else len(recent) if isinstance(recent, list) else 0


def waiting_for_capacity(detail: Mapping[str, Any]) -> bool:
    """Whether the job waits in its queue for capacity: RUNNABLE with a statusReason of CAPACITY:..."""
    return detail.get("status") == "RUNNABLE" and _text(detail.get("statusReason")).startswith(CAPACITY)


def ended(detail: Mapping[str, Any]) -> bool:
    """Whether the service job has ended (SUCCEEDED, or FAILED: after its attempts, or terminated)."""
    return detail.get("status") in SERVICE_JOB_ENDED


def job_id(job_arn: str) -> str:
    """The job id in a service job's ARN (arn:aws:batch:<region>:<account>:service-job/<id>), "" when it is none."""
    kind, _, found = job_arn.rpartition(":")[2].partition("/")
    return found if kind == "service-job" else ""


def queue_name(queue: str) -> str:
    """A job queue's name from its ARN (arn:aws:batch:<region>:<account>:job-queue/<name>) or its name."""
    return queue.rpartition("job-queue/")[2] if queue.startswith("arn:") else queue


def queue_arn(queue: str, job_arn: str) -> str:
    """The ARN of the job queue `queue` (a name or an ARN) that runs the service job `job_arn`: a name completed
    with the partition, region and account the job's ARN names (the queue's name when it names none)."""
    if queue.startswith("arn:"):
        return queue
    parts = job_arn.split(":")
    if len(parts) < 6 or parts[2] != "batch" or not job_id(job_arn):
        return queue
    return f"{':'.join(parts[:5])}:job-queue/{queue}"


def queues(config: Configured) -> tuple[str, ...]:
    """The job queues the Batch family follows (empty: it is off)."""
    return config[BATCH_QUEUES]


def restarts(config: Configured) -> bool:
    """Whether the configuration may restart jobs: a restart follows any stop of this stack (its follow clause, {},
    matches every Stopped event: kinds/restart.py follows_stops), so a Batch job's restart goes through Batch."""
    return {} in config.follows_stops


def managed(config: Configured, name: str) -> bool:
    """Whether the training job `name` is an attempt of a service job this stack follows: the Batch family is on
    and Batch made the name (its queue is checked before a stop: the name does not say it)."""
    return bool(queues(config)) and requested_name(name) is not None


def queue_followed(followed: tuple[str, ...], queue: str) -> bool:
    """Whether the job queue `queue` (an ARN, as Batch's events and answers name it) is one of `followed` (names
    or ARNs)."""
    return any(queue == q if q.startswith("arn:") else queue_name(queue) == q for q in followed)
