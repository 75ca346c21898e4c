"""restart [from=scratch]: relaunch a training job as a copy of itself that resumes from its checkpoint.

When (each only where a rule, a job outcome or a job's tag asks for it):

    a finding (a rule's IssuesFound, a monitor rule)   after the same rule's stop: the restart is noted on the stop's
                                                       record (the row: "will restart as X"), and made when the job
                                                       has Stopped (its Stopped outcome, matched for it)
    job_outcomes MaxRuntimeExceeded, MaxWaitTimeExceeded
                                                       the job ran out of time (or of spot capacity): made at once
    job_outcomes Failed                                only a CapacityError at start (it never ran): made at once;
                                                       any other failure is the job's own: never restarted

A training job AWS Batch made (the Batch family on: batch_queues names its queue) is restarted through Batch, never
by a CreateTrainingJob behind it, and only after this stack's stop of it (a finding): its service job
(DescribeServiceJob) is submitted again to the same queue (SubmitServiceJob), its serviceRequestPayload verbatim (the
same CheckpointConfig: the new attempt resumes), its type, retry strategy, priority, share, preemption and timeout
kept, its tags with the chain's own; its name `<first service job, cut>-r<attempt>`, its clientToken derived from
the stopped training job (a repeated event submits once). The chain follows the service jobs (their tags): Batch
names their training jobs itself. A Batch job Batch is retrying (preempted and requeued) is not restarted.

Never: a training job of a tuning job (its tuning job retries its trials), a pipeline step's job (the pipeline's
RetryPolicies and RetryPipelineExecution do), a job AWS Batch submitted while the Batch family is off (Batch owns
its retries), a job stopped by someone outside this stack, a serverless job; without CheckpointConfig.S3Uri (or with nothing under it) only
`from=scratch` restarts. A job's own actions (action_json, its tags) may ask only when `restart_checkpoints` is set.

The copy (a new job: SageMaker cannot restart one) is the job's DescribeTrainingJob, each member CreateTrainingJob
takes (COPIED) and nothing it refuses (ResourceConfig's SelectedInstanceType/Count, ExperimentConfig's RunName), its
tags (ListTags, not aws:*) and the chain's own: CHAIN_TAG (the chain's first job), ATTEMPT_TAG, FROM_TAG,
CHECKPOINT_TAG (the newest checkpoint when the copy was made: the loop guard's mark) and SECONDS_TAG (the chain's
training time before it). Its name, `<first job, cut>-r<attempt>`, is the same for every delivery and retry of the
same attempt: SageMaker refuses a second job of that name (ResourceInUse), so one copy is made.

Limits: `max_restarts` per chain; `restarts_per_hour` per account; the chain's training time (`max_chain_hours`, by
default (1 + max_restarts) x the job's MaxRuntimeInSeconds: the copy's MaxRuntimeInSeconds is what is left); the
loop guard: a copy whose checkpoint has nothing newer than the mark it started from made no progress, and is not
restarted (both times said). Every refusal is the row's reason.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, ClassVar, NamedTuple

from rule_actions.contract import (
    IN_PROGRESS,
    RESTART_ATTEMPT_TAG,
    RESTART_CHAIN_TAG,
    RESTART_CHECKPOINT_TAG,
    RESTART_FROM_TAG,
    RESTART_SECONDS_TAG,
    RESTART_TAGS,
    Arn,
    Grant,
    Outcome,
)
from rule_actions.fields import TextList, Whole
from rule_actions.kinds.base import Kind
from rule_actions.ports import Configured, Occasion, Ports
from rule_actions.records import (
    Action,
    Capability,
    Done,
    Invalid,
    JobEffect,
    JobEvent,
    Need,
    NothingDone,
    Origin,
    Place,
    Planned,
    RestartSource,
    ServiceJobOf,
    Source,
    StopNote,
    StopRecord,
    Unread,
)
from rule_actions.text import arn_name, arn_place, duration, quoted, s3_parts, timestamp

NAME = "restart"
FROM_CHECKPOINT, FROM_SCRATCH = "checkpoint", "scratch"
TRAINING = "training"  # the family restarts copy (the others have no checkpoint contract)
CHAIN_TAG = RESTART_CHAIN_TAG  # the chain's first job
ATTEMPT_TAG = RESTART_ATTEMPT_TAG  # 1 for the first copy
FROM_TAG = RESTART_FROM_TAG  # the job this copy restarts
CHECKPOINT_TAG = RESTART_CHECKPOINT_TAG  # the newest checkpoint when the copy was made (ISO 8601), or "none"
SECONDS_TAG = RESTART_SECONDS_TAG  # the chain's training seconds before this copy
OWN_TAGS = RESTART_TAGS
# CreateTrainingJob's members that DescribeTrainingJob returns (botocore 1.44.8; tests/unit/test_restart_copy.py holds it
# to botocore's model): copied as they are, but for the ones `_request` changes. Tags and SessionChainingConfig
# are Create's only members Describe does not return: tags are read with ListTags; session chaining cannot be
# seen, so it is lost (docs/restarts.md says so: a row cannot tell whether the job had one).
COPIED = ("AlgorithmSpecification", "CheckpointConfig", "DebugHookConfig", "DebugRuleConfigurations",
          "EnableInterContainerTrafficEncryption", "EnableManagedSpotTraining", "EnableNetworkIsolation", "Environment",
          "ExperimentConfig", "HyperParameters", "InfraCheckConfig", "InputDataConfig", "MlflowConfig",
          "ModelPackageConfig", "OutputDataConfig", "ProfilerConfig", "ProfilerRuleConfigurations",
          "RemoteDebugConfig", "ResourceConfig", "RetryStrategy", "RoleArn", "StoppingCondition",
          "TensorBoardOutputConfig", "VpcConfig")
READ_ONLY_RESOURCES = ("SelectedInstanceType", "SelectedInstanceCount")  # botocore accepts them, SageMaker refuses
NAME_MAX = 63
CAPACITY = "CapacityError"  # FailureReason of a job that could not get its instances at start
TAGS_MAX = 50  # tags per SageMaker resource
DEFAULT_RUNTIME = 86400  # MaxRuntimeInSeconds when a description has none (SageMaker's default: one day)
S3_URI = r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\s]*)?"
ROLE_ARN = r"arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+"

MAX_RESTARTS = Whole(
    "max_restarts", 3, "Restarts per chain of attempts (a job and its copies). 3: above the HyperPod CLI's default "
    "of 1 retry, since the loop guard ends a chain that makes no progress; below Dataproc's 4 failures; each copy is "
    "a new job, billed from its start.", 1, 10, "restarts")
RESTARTS_PER_HOUR = Whole(
    "restarts_per_hour", 10, "Restarts per account per hour (UTC), whatever the chain: a bound on what a wave of "
    "findings can launch at once. Past it, a restart is skipped, said on its row.", 1, 1000, "restarts")
MAX_CHAIN_HOURS = Whole(
    "max_chain_hours", 0, "The training time a chain may use in all, in hours; a copy's MaxRuntimeInSeconds is what "
    "is left (at most its job's). 0: (1 + max_restarts) x the job's MaxRuntimeInSeconds.", 0, 2688, "hours")
RESTART_CHECKPOINTS = TextList(
    "restart_checkpoints", "The S3 prefixes (s3://bucket/prefix) under which restartable jobs keep their checkpoints "
    "(CheckpointConfig.S3Uri). The stack grants s3:ListBucket there only (the loop guard's listing); a job whose "
    "checkpoint is elsewhere is not restarted from it. Needed by a restart from a checkpoint; a job's own actions "
    "(action_json, tags) may ask for a restart only when it is set.", pattern=S3_URI,
    hint="an S3 URI (s3://bucket/prefix)")
RESTART_ROLES = TextList(
    "restart_roles", "The IAM roles (ARNs) restarted jobs run as: the stack grants iam:PassRole on them only, to "
    "SageMaker only. Empty: any role of the account, still to SageMaker only.", pattern=ROLE_ARN,
    hint="an IAM role ARN (arn:aws:iam::123456789012:role/name)")
BATCH_NAME = re.compile(r"AWSBatch.*[0-9a-f]{32}")  # the training jobs AWS Batch creates for its service jobs
PIPELINE_TAG = "sagemaker:pipeline-execution-arn"
OUTCOMES = ("MaxRuntimeExceeded", "MaxWaitTimeExceeded", "Failed")  # where job_outcomes may ask for a restart
# A restart through AWS Batch: what SubmitServiceJob is given of the stopped job's service job (DescribeServiceJob),
# beside its serviceRequestPayload (verbatim), and its limits (botocore 1.44.8's batch model).
RESUBMITTED = ("serviceJobType", "retryStrategy", "schedulingPriority", "shareIdentifier", "quotaShareName",
               "preemptionConfiguration", "timeoutConfig")
SERVICE_JOB_NAME_MAX = 128  # SubmitServiceJob's jobName
TOKEN_MAX = 64  # its clientToken
RUNNING = ("RUNNING", "STARTING", "SCHEDULED")  # a service job whose attempt runs


class Copy(NamedTuple):
    """A restart prepared by `check`: the copy's name, its attempt, its CreateTrainingJob request (None: the job
    has not stopped yet), and what its row and messages say of it."""

    name: str
    attempt: int
    request: dict[str, Any] | None
    says: str  # "as X from its checkpoint of T (s3://...); at most N min of work lost"
    notes: tuple[str, ...]  # what the copy does not keep (a mutable image tag...)
    queue: str = ""  # a restart through AWS Batch: the queue its SubmitServiceJob request goes to ("" a copy)


class RestartKind(Kind):
    name = NAME
    keys = ("from",)
    key_schemas: ClassVar[dict[str, dict[str, Any]]] = {"from": {"type": "string",
                                                                 "enum": [FROM_CHECKPOINT, FROM_SCRATCH]}}
    places = frozenset((Place.ACTION_JSON, Place.RULES, Place.JOB_OUTCOMES))
    effect = JobEffect.RESTART
    fields = (MAX_RESTARTS, RESTARTS_PER_HOUR, MAX_CHAIN_HOURS, RESTART_CHECKPOINTS, RESTART_ROLES)

    def parse(self, entry: Mapping[str, Any], where: str) -> Action | Invalid:
        start = entry.get("from", FROM_CHECKPOINT)
        if start not in (FROM_CHECKPOINT, FROM_SCRATCH):
            return Invalid(f"{where}.from", f"{quoted(start)} is not {FROM_CHECKPOINT} or {FROM_SCRATCH} (leave it "
                                            "out to resume from the job's checkpoint)", self.name,
                           start if isinstance(start, str) else "")
        return Action(self.name, start)

    def as_dict(self, action: Action) -> dict[str, str]:
        start = action.target or FROM_CHECKPOINT
        return {"name": self.name} if start == FROM_CHECKPOINT else {"name": self.name, "from": start}

    def targets(self, action: Action, event: JobEvent, config: Configured) -> tuple[str, ...]:
        return (action.target or FROM_CHECKPOINT,)

    # ---------------------------------------------------------------- deciding

    def needs(self, item: Planned, event: JobEvent, config: Configured) -> frozenset[Need]:
        if _refusal(item, event, config) is not None:
            return frozenset()
        found: set[Need] = {RestartSource(event.job_family.api, event.job_name, event.job_arn,
                                          config[RESTART_CHECKPOINTS])}
        if _cause(event) == "stopped":
            found.add(StopRecord(event.job_arn))
        queues = event.job_family.stopped_through(config, event.job_name)
        if queues:
            found.add(ServiceJobOf(event.job_arn, queues))
        return frozenset(found)

    def check(self, item: Planned, event: JobEvent, config: Configured, answers: Mapping[Need, Any]) -> Planned:
        refused = _refusal(item, event, config)
        if refused is not None:
            return item.decided(*refused)
        cause = _cause(event)
        if cause == "stopped":
            note = answers.get(StopRecord(event.job_arn))
            if isinstance(note, Unread):
                return item.decided(Outcome.FAILED, note.reason)
            if not (isinstance(note, StopNote) and _asked(note, item)):
                return item.decided(Outcome.SKIPPED, "stopped by someone outside this stack (or without a restart "
                                                     "asked at its stop): a person's stop is never undone")
        source = answers.get(RestartSource(event.job_family.api, event.job_name, event.job_arn,
                                         config[RESTART_CHECKPOINTS]), Unread("the job was not read"))
        if isinstance(source, Unread):
            return item.decided(Outcome.FAILED, source.reason)
        if not isinstance(source, Source):
            return item.decided(Outcome.FAILED, "the job was not read")
        queues = event.job_family.stopped_through(config, event.job_name)
        if queues:  # a job AWS Batch made: through Batch, its service job submitted again
            service = answers.get(ServiceJobOf(event.job_arn, queues), Unread("its service job was not read"))
            prepared = _through_batch(item, event, config, source, cause, service, queues)
        else:
            prepared = _prepare(item, event, config, source, cause)
        if not isinstance(prepared, Copy):
            return item.decided(*prepared)
        return replace(item, jobs=(prepared.name,), prepared=prepared)

    def preview(self, item: Planned) -> str:
        copy = item.prepared
        return f"would restart {copy.says}" if isinstance(copy, Copy) else "would restart the job"

    # ---------------------------------------------------------------- carrying out

    def carry_out(self, item: Planned, occasion: Occasion, ports: Ports) -> Done | NothingDone:
        event, copy = occasion.event, item.prepared
        if not isinstance(copy, Copy):
            return NothingDone(Outcome.SKIPPED, "nothing to restart")
        if copy.request is None:  # a finding: the job was stopped just now; the copy is made once it has Stopped
            stopped = [job for result in occasion.stops for job in result.stopped]
            if event.job_name not in stopped:
                return NothingDone(Outcome.SKIPPED, f"{event.job_name} was not stopped by this rule's stop (a restart "
                                                    "follows its own rule's stop: declare a stop before it)")
            ports.ledger.follow_stop(event.arn_of(event.job_name), f"{self.name}|{item.target}|{item.origin}|tell")
            return Done(f"will restart {copy.says}, once {event.job_name} has stopped", ())
        account = event.account or arn_place(event.job_arn)[0]
        if not ports.ledger.restart_quota(account, occasion.config[RESTARTS_PER_HOUR]):
            return NothingDone(Outcome.SKIPPED, f"restarts_per_hour ({occasion.config[RESTARTS_PER_HOUR]}) reached in "
                                                f"account {account} this hour: not restarted as {copy.name}")
        if copy.queue:  # through AWS Batch: never a CreateTrainingJob behind it
            if ports.batch is None:
                raise RuntimeError("AWS Batch is not available to this function (batch_queues is empty)")
            submitted, job_id = ports.batch.submit(copy.request)
            said = f"restarted {copy.says}; new service job {job_id}" + (
                " (submitted already by an earlier delivery)" if submitted == "exists" else "")
            return Done("; ".join((said, f"attempt {copy.attempt} of at most {occasion.config[MAX_RESTARTS]}",
                                   *copy.notes)), (copy.name,))
        created = ports.jobs.create(event.job_family.api, copy.request)
        if created == "exists" and ports.jobs.tags(event.arn_of(copy.name)).get(FROM_TAG) != event.job_name:
            return NothingDone(Outcome.FAILED, f"a job named {copy.name} exists and is no copy of {event.job_name} "
                                               f"(its tag {FROM_TAG} does not name it): not restarted")
        said = f"restarted {copy.says}" + (" (it existed already: made by an earlier delivery)"
                                            if created == "exists" else "")
        return Done("; ".join((said, f"attempt {copy.attempt} of at most {occasion.config[MAX_RESTARTS]}",
                               *copy.notes)), (copy.name,))

    # ---------------------------------------------------------------- the configuration and the stack

    def check_config(self, config: Configured, where: str) -> list[str]:
        errors = []
        for declared in self.declared(config):
            named = re.search(r'\["([^"]+)"\]', declared.where.rpartition(".job_outcomes")[2]) \
                or re.search(r'\["([^"]+)"\]', declared.where)
            key = named.group(1) if named else declared.where
            if declared.place == Place.JOB_OUTCOMES and ".job_outcomes[" not in declared.where:
                errors.append(f"{declared.where}: restart relaunches training jobs (job_outcomes); the other job "
                              "families have no checkpoint to resume from")
            elif declared.place == Place.JOB_OUTCOMES and key not in OUTCOMES:
                errors.append(f"{declared.where}: a restart follows {', '.join(OUTCOMES)} (a CapacityError at start) "
                              f"or a stop of this stack's (declare it with the rule that stops), not {key}")

            if declared.action.target != FROM_SCRATCH and not config[RESTART_CHECKPOINTS]:
                errors.append(f"{declared.where}: a restart from a checkpoint needs {where}.{RESTART_CHECKPOINTS.key} "
                              "(the S3 prefixes of the jobs' checkpoints, which the loop guard lists), or "
                              "{\"name\": \"restart\", \"from\": \"scratch\"}")
        if getattr(config, "organization", None) and self.allowed(config):
            errors.append(f"{where}: restart is not available in organization mode yet (a copy would be created "
                          "through the member account's executor role, which is granted neither iam:PassRole nor "
                          "s3:ListBucket): remove the restarts and restart_checkpoints")
        return errors

    def warnings(self, config: Configured, where: str) -> list[str]:
        """A restart declared with a rule that has no stop: it never happens."""
        found = []
        for declared in self.declared(config):
            if declared.place != Place.RULES:
                continue
            path = declared.where.rpartition("[")[0] or declared.where
            siblings = [d for d in config.declared if (d.where.rpartition("[")[0] or d.where) == path]
            if not any(d.action.kind in ("stop", "stoptraining") for d in siblings):
                found.append(f"{declared.where}: a restart follows the same rule's stop, and {path} declares no stop "
                             "(stoptraining or stop): it never restarts")
        return found

    def follows_stops(self, config: Configured) -> dict[str, Any] | None:
        return {} if self.allowed(config) else None

    def allowed(self, config: Configured) -> bool:
        """The stack may restart jobs: the configuration declares a restart, or lets jobs' own actions ask for one."""
        return bool(self.declared(config)) or bool(config[RESTART_CHECKPOINTS])

    def capabilities(self, config: Configured) -> frozenset[Capability]:
        """Describe, create (CreateTrainingJob, AddTags, ListTags) on the jobs in scope, when restarts are allowed."""
        return frozenset({Capability.DESCRIBE, Capability.CREATE}) if self.allowed(config) else frozenset()

    def stack_parts(self, config: Configured) -> list[Any]:
        """iam:PassRole on the jobs' roles, to SageMaker only; s3:ListBucket on the checkpoint prefixes."""
        if not self.allowed(config):
            return []
        roles = config[RESTART_ROLES] or (Arn("iam", "role", "*"),)
        grants = [Grant("PassRoleToRestartedJobs", ("iam:PassRole",), tuple(roles),
                        "A restarted training job runs as the role its first job ran as, which users choose at run "
                        "time (restart_roles names them): passed to sagemaker.amazonaws.com only.",
                        (("StringEquals", "iam:PassedToService", ("sagemaker.amazonaws.com",)),))]
        buckets: dict[str, list[str]] = {}
        for uri in config[RESTART_CHECKPOINTS]:
            bucket, prefix = s3_parts(uri)
            buckets.setdefault(bucket, []).append(prefix.rstrip("/"))
        for index, (bucket, prefixes) in enumerate(sorted(buckets.items())):
            grants.append(Grant(
                f"ListCheckpoints{index}", ("s3:ListBucket",), (Arn("s3", bucket, ""),),
                "The loop guard lists the checkpoints under the configured restart_checkpoints prefixes only.",
                (("StringLike", "s3:prefix", tuple(p for prefix in prefixes
                                                   for p in ((prefix, f"{prefix}/*") if prefix else ("*",)))),)))
        return grants


def place(s3_uri: str) -> str:
    """s3://bucket/prefix as rows say it: "bucket B, prefix P" (a URL would be redacted to its host)."""
    bucket, prefix = s3_parts(s3_uri)
    return f"bucket {bucket}, prefix {prefix.rstrip('/') or '(the whole bucket)'}"


def _asked(note: StopNote, item: Planned) -> bool:
    return any(entry.split("|")[:2] == [item.kind, item.target] for entry in note.then)


def _cause(event: JobEvent) -> str | None:
    """Why the job is to be restarted, from its status: "finding" (it runs: a rule found something), "stopped",
    "max_runtime", "max_wait", "capacity"; None: no cause a restart follows."""
    status, secondary = event.job_status, event.secondary_status
    if status in (IN_PROGRESS, "Stopping"):
        return "finding"
    if status == "Stopped":
        return {"MaxRuntimeExceeded": "max_runtime", "MaxWaitTimeExceeded": "max_wait"}.get(secondary or "",
                                                                                           "stopped")
    if status == "Failed" and event.failure_reason.strip().startswith(CAPACITY):
        return "capacity"
    return None


def _refusal(item: Planned, event: JobEvent, config: Configured) -> tuple[Outcome, str] | None:
    """What refuses a restart before anything is read: the family, the job's owner, its status, the origin."""
    family = event.job_family
    if family.name != TRAINING:
        return Outcome.SKIPPED, f"restart relaunches training jobs; a {family.noun} has no checkpoint to resume from"
    if item.origin != Origin.CONFIGURATION and not config[RESTART_CHECKPOINTS]:
        return Outcome.DENIED, ("a job's own actions may ask for a restart only when the configuration allows "
                                "restarts (restart_checkpoints): the stack grants the calls then")
    if event.parent:
        return Outcome.SKIPPED, (f"a trial of tuning job {arn_name(event.parent)}: its tuning job retries its "
                                 "trials; not restarted")
    if event.tags.get(PIPELINE_TAG):
        return Outcome.SKIPPED, (f"a step's job of pipeline execution {arn_name(event.tags[PIPELINE_TAG])}: the "
                                 "pipeline retries its steps (RetryPolicies, RetryPipelineExecution); not restarted")
    if BATCH_NAME.fullmatch(event.job_name):
        if not family.stopped_through(config, event.job_name):
            return Outcome.SKIPPED, ("a job AWS Batch submitted: Batch owns its retries (its retryStrategy); never "
                                     "restarted behind Batch's back (batch_queues does not follow its queue)")
        if _cause(event) in ("max_runtime", "max_wait", "capacity"):
            return Outcome.SKIPPED, ("a job AWS Batch submitted: Batch retries it itself (its retryStrategy); only "
                                     "a stop of this stack's is restarted through Batch")
    if _cause(event) is None:
        if event.job_status == "Failed":
            return Outcome.SKIPPED, (f"it failed ({quoted(event.failure_reason.strip()[:200])}): a failure of the "
                                     f"job's own code is never restarted (only a {CAPACITY} at start)")
        return Outcome.SKIPPED, f"the job is {event.job_status}: nothing to restart"
    if event.secondary_status == "Interrupted":
        return Outcome.SKIPPED, "SageMaker resumes an interrupted spot job itself when capacity returns"
    return None


class _Checked(NamedTuple):
    """A restart the checks allow: its attempt, its name, what its row says, the chain's root and training seconds
    so far, and the run time left to it (at most the job's)."""

    attempt: int
    name: str
    says: str
    notes: tuple[str, ...]
    root: str
    used: int
    runtime: int


def _checked(item: Planned, event: JobEvent, config: Configured, source: Source, cause: str | None,
             tags: Mapping[str, str], root: str, name_of: Callable[[str, int], str]) -> _Checked | tuple[Outcome, str]:
    """The checks every restart passes (its checkpoint, the limits, the loop guard, the chain's time), on the
    chain's trusted `tags` (the job's, or its service job's), its first job `root` unless they name one, its name
    `name_of(root, attempt)`; or why it is refused."""
    described = source.description
    if described.get("ServerlessJobConfig"):
        return Outcome.SKIPPED, "a serverless training job is billed by tokens: it is not restarted as a copy"
    scratch = item.target == FROM_SCRATCH
    if not scratch:
        if not source.checkpoint:
            return Outcome.SKIPPED, ("it has no CheckpointConfig.S3Uri: a copy would start from scratch (declare "
                                     "restart from=scratch to allow that)")
        if not source.listed:
            allowed: tuple[str, ...] = config[RESTART_CHECKPOINTS]
            return Outcome.DENIED, (f"its checkpoint ({place(source.checkpoint)}) is not under restart_checkpoints "
                                    f"({'; '.join(place(p) for p in allowed) or 'none'}): not restarted from it")
        if source.newest is None and cause != "capacity":  # (a job that never started has written nothing)
            return Outcome.SKIPPED, (f"nothing under its checkpoint ({place(source.checkpoint)}) yet: a copy would "
                                     "start from scratch (declare restart from=scratch to allow that)")
    attempt = _whole(tags.get(ATTEMPT_TAG)) + 1
    root = tags.get(CHAIN_TAG) or root
    limit = config[MAX_RESTARTS]
    if attempt > limit:
        return Outcome.SKIPPED, f"the chain of {root} has had {attempt - 1} restarts (max_restarts {limit})"
    mark = tags.get(CHECKPOINT_TAG)
    if cause not in ("capacity",) and mark and not scratch:  # a copy: did it write a newer checkpoint?
        before = timestamp(mark)
        if before is not None and source.newest is not None and source.newest <= before:
            return Outcome.SKIPPED, (f"no progress: attempt {attempt - 1} wrote no checkpoint newer than the one it "
                                     f"started from ({_stamp(before)}; the newest in {place(source.checkpoint)}: "
                                     f"{_stamp(source.newest)}); the chain is not restarted again")
    stopping = described.get("StoppingCondition")
    runtime = _whole(stopping.get("MaxRuntimeInSeconds")) if isinstance(stopping, Mapping) else 0
    runtime = runtime or DEFAULT_RUNTIME
    used = _whole(tags.get(SECONDS_TAG)) + _whole(described.get("TrainingTimeInSeconds") or event.run_seconds)
    bound = config[MAX_CHAIN_HOURS] * 3600 or (1 + limit) * runtime
    left = bound - used
    if left < 60:
        return Outcome.SKIPPED, (f"the chain of {root} trained {duration(used)} of its {duration(bound)} "
                                 "(max_chain_hours): not restarted")
    name = name_of(root, attempt)
    ended = event.ended or _when(described.get("TrainingEndTime")) or timestamp(event.time) or datetime.now(UTC)
    if not source.checkpoint:
        says = f"as {name} from scratch (it has no checkpoint)"
    elif source.newest is None:
        says = f"as {name} from scratch (nothing in its checkpoint yet: {place(source.checkpoint)})"
    elif cause == "capacity":  # it never ran: nothing was lost by this attempt
        says = (f"as {name} from its checkpoint of {_stamp(source.newest)} ({place(source.checkpoint)}); it "
                "failed for capacity at start and never ran")
    else:
        lost = max(0, int((ended - source.newest).total_seconds()))
        says = (f"as {name} from its checkpoint of {_stamp(source.newest)} ({place(source.checkpoint)}); at most "
                f"{duration(lost)} of work lost")
    return _Checked(attempt, name, says, _notes(described, cause), root, used, min(runtime, left))


def _chain(checked: _Checked, tags: Mapping[str, str], job: str, source: Source) -> dict[str, str]:
    """The new attempt's tags: the job's (not aws:*, not the chain's) and the chain's own."""
    return {**{k: v for k, v in tags.items() if not k.startswith("aws:") and k not in OWN_TAGS},
            CHAIN_TAG: checked.root, ATTEMPT_TAG: str(checked.attempt), FROM_TAG: job,
            CHECKPOINT_TAG: _iso(source.newest) if source.newest else "none", SECONDS_TAG: str(checked.used)}


def _prepare(item: Planned, event: JobEvent, config: Configured, source: Source,
             cause: str | None) -> Copy | tuple[Outcome, str]:
    """The copy, or why there is none (the loop guard, the limits, what cannot be copied)."""
    tags = _chain_tags(event.job_name, source.tags)
    checked = _checked(item, event, config, source, cause, tags, event.job_name, _name)
    if not isinstance(checked, _Checked):
        return checked
    if cause == "finding":
        return Copy(checked.name, checked.attempt, None, checked.says, checked.notes)
    request = _request(source.description, checked.name, checked.runtime,
                       _chain(checked, tags, event.job_name, source))
    if len(request["Tags"]) > TAGS_MAX:
        return Outcome.SKIPPED, (f"the job has {len(request['Tags']) - len(OWN_TAGS)} tags: with the chain's "
                                 f"{len(OWN_TAGS)} the copy would pass SageMaker's {TAGS_MAX}")
    return Copy(checked.name, checked.attempt, request, checked.says, checked.notes)


def _through_batch(item: Planned, event: JobEvent, config: Configured, source: Source, cause: str | None,
                   service: tuple[str, Mapping[str, Any]] | Unread | None,
                   queues: tuple[str, ...]) -> Copy | tuple[Outcome, str]:
    """A restart of a training job AWS Batch made: its service job submitted again (SubmitServiceJob to the same
    queue, its request verbatim), or why not: no service job of the queues ran it, Batch is retrying it itself
    (preempted and requeued: not this stack's stop), it succeeded, or what refuses any restart. The chain is the
    service jobs' (their tags; a service job's are trusted only when its name is the one the chain gives it)."""
    if isinstance(service, Unread):
        return Outcome.FAILED, service.reason
    if service is None:
        return Outcome.SKIPPED, (f"run by no service job of batch_queues ({', '.join(queues)}): not restarted (never "
                                 "a CreateTrainingJob behind Batch's back)")
    queue, job = service
    name, status = str(job.get("jobName", "")), str(job.get("status", ""))
    shown = f"service job {name} ({job.get('jobId', '')}, queue {queue.rpartition('job-queue/')[2] or queue})"
    terminated = status == "FAILED" and job.get("isTerminated") is True
    if status not in RUNNING and not terminated:
        why = "AWS Batch requeued it (preempted, or retried by its retryStrategy) and retries it itself" \
            if status not in ("SUCCEEDED", "FAILED") else f"it is {status} and was not terminated by this stack"
        return Outcome.SKIPPED, f"{shown} is {status}: {why}; not restarted"
    if cause == "stopped" and not terminated:  # our stop asked it, but the service job was not terminated by it
        return Outcome.SKIPPED, (f"{shown} is {status}, not terminated: AWS Batch retries it itself; not "
                                 "restarted")
    own = job.get("tags")
    tags = _chain_tags(name, own if isinstance(own, Mapping) else {}, _batch_name)
    checked = _checked(item, event, config, source, cause, tags, name, _batch_name)
    if not isinstance(checked, _Checked):
        return checked
    says = (f"through AWS Batch: SubmitServiceJob of service job {checked.name} to queue "
            f"{queue.rpartition('job-queue/')[2] or queue} (the request of {name}, verbatim) "
            + checked.says.removeprefix(f"as {checked.name} "))
    notes = (*checked.notes, "its run time is its request's (verbatim): the chain's time is checked, not cut")
    if cause == "finding":
        return Copy(checked.name, checked.attempt, None, says, notes, queue)
    chain = _chain(checked, tags, name, source)
    if len(chain) > TAGS_MAX:
        return Outcome.SKIPPED, (f"service job {name} has {len(chain) - len(OWN_TAGS)} tags: with the chain's "
                                 f"{len(OWN_TAGS)} the new one would pass Batch's {TAGS_MAX}")
    request = {"jobName": checked.name, "jobQueue": queue, "serviceRequestPayload": job.get("serviceRequestPayload"),
               **{key: job[key] for key in RESUBMITTED if job.get(key) is not None}, "tags": chain,
               "clientToken": hashlib.sha256(f"rule-actions restart {event.job_arn}".encode()).hexdigest()[:TOKEN_MAX]}
    return Copy(checked.name, checked.attempt, request, says, notes, queue)


def _chain_tags(job: str, tags: Mapping[str, str],
                name_of: Callable[[str, int], str] | None = None) -> Mapping[str, str]:
    """The job's tags, its chain's trusted only when its name is the one the chain gives its copy (a job tagged by
    hand as a chain's copy under another name is a first job: its claimed root, attempt, mark and seconds dropped,
    so that no job can borrow another's name for its copy nor escape the limits)."""
    root, attempt = tags.get(CHAIN_TAG), _whole(tags.get(ATTEMPT_TAG))
    if root and attempt and job == (name_of or _name)(root, attempt):
        return tags
    return {key: value for key, value in tags.items() if key not in OWN_TAGS}


def _request(described: Mapping[str, Any], name: str, runtime: int, tags: Mapping[str, str]) -> dict[str, Any]:
    """DescribeTrainingJob -> CreateTrainingJob: the members Create takes (COPIED), what it refuses stripped, the
    run time what is left of the chain's, the tags given."""
    request: dict[str, Any] = {key: described[key] for key in COPIED if described.get(key) not in (None, {}, [])}
    resources = request.get("ResourceConfig")
    if isinstance(resources, Mapping):
        request["ResourceConfig"] = {k: v for k, v in resources.items() if k not in READ_ONLY_RESOURCES}
    experiment = request.get("ExperimentConfig")
    if isinstance(experiment, Mapping):  # a run belongs to one job
        request["ExperimentConfig"] = {k: v for k, v in experiment.items() if k != "RunName"}
    stopping = dict(request.get("StoppingCondition") or {})
    stopping["MaxRuntimeInSeconds"] = runtime
    wait = stopping.get("MaxWaitTimeInSeconds")
    if isinstance(wait, int) and wait < runtime:
        stopping["MaxWaitTimeInSeconds"] = runtime
    request["StoppingCondition"] = stopping
    return {"TrainingJobName": name, **request, "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}


def _notes(described: Mapping[str, Any], cause: str | None) -> tuple[str, ...]:
    """What the copy does not keep of the job, or may do otherwise (said on the row and in the messages)."""
    notes = []
    image = (described.get("AlgorithmSpecification") or {}).get("TrainingImage")
    if isinstance(image, str) and "@sha256:" not in image:
        notes.append(f"its image {image} is a tag, not a digest: the copy runs what the tag names now")
    resources = described.get("ResourceConfig") or {}
    plan = resources.get("TrainingPlanArn") if isinstance(resources, Mapping) else None
    if plan:
        notes.append(f"training plan {arn_name(str(plan))} is kept: if it has ended, SageMaker refuses the copy")
    keep = resources.get("KeepAlivePeriodInSeconds") if isinstance(resources, Mapping) else None
    if keep:
        notes.append(f"its warm pool (KeepAlivePeriodInSeconds {keep}) may be reused by the copy, which asks the same "
                     "resources")
    if cause == "max_wait":
        notes.append("the copy is a spot job again (the same MaxWaitTimeInSeconds): not moved to on-demand")
    return tuple(notes)


def _name(root: str, attempt: int) -> str:
    """<root>-r<attempt>, the root cut to fit 63 characters (never ending in '-')."""
    suffix = f"-r{attempt}"
    return root[:NAME_MAX - len(suffix)].rstrip("-") + suffix


def _batch_name(root: str, attempt: int) -> str:
    """A resubmitted service job's name: <root>-r<attempt>, the root (the chain's first service job) cut to fit
    SubmitServiceJob's 128 characters (never ending in '-' or '_')."""
    suffix = f"-r{attempt}"
    return root[:SERVICE_JOB_NAME_MAX - len(suffix)].rstrip("-_") + suffix


def _whole(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def _when(value: Any) -> datetime | None:
    """A time as Describe (a datetime) or an event (epoch milliseconds, ISO 8601) gives it."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return timestamp(value)


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _stamp(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


KIND = RestartKind()
