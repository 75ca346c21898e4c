"""moto's AWS Batch, extended with service jobs: the SageMaker training jobs Batch queues (`GAPS`: moto 5.2.5 has
none of their calls). SubmitServiceJob, DescribeServiceJob, TerminateServiceJob and ListServiceJobs answer as
botocore's `batch` model shapes them (tests/integration/test_moto_batch.py checks the raw answers against it), and
what Batch itself does later is played by this module's functions:

    start_attempt(job_id)        Batch creates the attempt's training job in moto's SageMaker (named AWSBatch +
                                 the request's TrainingJobName + 32 hex, its request's ResourceConfig, tags...)
    put_service_job(job_id, ...) the job moves (RUNNABLE with a capacity reason, SCHEDULED, RUNNING, SUCCEEDED...),
                                 its attempt ends, or Batch preempts it (the attempt listed as preempted, the job
                                 requeued RUNNABLE, preemptionSummary counted)
    service_job(job_id)          what DescribeServiceJob answers, read from the store
    seed_service_job(detail)     a plain replay's service job, as a Batch event's detail says it (its seeder:
                                 rule_actions_cli.seeding): no request, no tags, nothing invented
    service_jobs()               every job, so (a replay finds the job the function submitted again: a restart)

A service job holds jobArn (arn:aws:batch:<region>:<account>:service-job/<id>), jobId, jobName, jobQueue (an ARN,
whether the request named the queue or gave its ARN), status, statusReason, attempts (serviceResourceId
{"name": "TrainingJobArn", "value": ...}, startedAt, stoppedAt, statusReason), latestAttempt, retryStrategy,
preemptionConfiguration, preemptionSummary, timeoutConfig, schedulingPriority, shareIdentifier, tags,
serviceRequestPayload (verbatim), serviceJobType, createdAt, startedAt, stoppedAt, isTerminated; times are epoch
milliseconds, as the API's longs.

TerminateServiceJob does what AWS Batch documents: the job is terminated (FAILED, its statusReason the reason given,
isTerminated true, stoppedAt now) and the training job of its running attempt is stopped in moto's SageMaker
(Stopping, as StopTrainingJob leaves it; put_training_job(name, "Stopped") plays the rest). A job that has ended
(SUCCEEDED, FAILED) is left as it is and the call answers as for any other: AWS does not document this case.

Not emulated: job queues (any queue name or ARN is taken: moto 5.2.5 cannot create a SAGEMAKER_TRAINING queue,
which needs a service environment), scheduling (nothing moves a job on its own), retries, the deletion of
capacity-failed attempts' training jobs, TerminateServiceJobs (bulk) and UpdateServiceJob.

How it hooks in (see :func:`install`): moto's Batch is REST-JSON, one URL path per operation, answered by
``BatchResponse`` methods named after the path (/v1/submitservicejob -> ``submitservicejob``). install() adds the
four paths to ``moto.batch.urls.url_paths`` (read at every in-process request) and the four methods to
``BatchResponse``; a ``ThreadedMotoServer`` of this process reads the same paths when it first serves Batch, so
install() must run before its first Batch request. The jobs are kept on moto's Batch backend (reset with it).
Importing this module imports moto's Batch (about 2 s, for its EC2/ECS/IAM dependencies): the replay imports it only
when Batch is asked for.
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any

from moto.batch import urls as batch_urls
from moto.batch.exceptions import ClientException
from moto.batch.models import batch_backends
from moto.batch.responses import BatchResponse
from moto.core.config import default_user_config
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.core.utils import utcnow
from moto.sagemaker.models import sagemaker_backends

from rule_actions.contract import SERVICE_JOB_ENDED
from rule_actions_cli.emulator import Gap
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

__all__ = ["GAPS", "STATUSES", "install", "put_service_job", "seed_service_job", "service_job", "service_jobs",
           "set_clock",
           "start_attempt", "submit_service_job"]

GAPS = (
    Gap("batch", "SubmitServiceJob", "not implemented (no service jobs at all): a SageMaker training job queued"),
    Gap("batch", "DescribeServiceJob", "not implemented: a service job, its attempts and their training jobs"),
    Gap("batch", "TerminateServiceJob", "not implemented (AWS: the job FAILED with the reason, and its training job "
                                        "stopped)"),
    Gap("batch", "ListServiceJobs", "not implemented (AWS: a queue's jobs, RUNNING ones when no status is asked, "
                                    "paged)"),
)

# ServiceJobStatus of botocore's model, in the order a job moves through them.
STATUSES = ("SUBMITTED", "PENDING", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING", "SUCCEEDED", "FAILED")
SERVICE_JOB_TYPE = "SAGEMAKER_TRAINING"
PAGE_MAX = 100  # ListServiceJobs' maxResults, at most (and its page without one)
RETRY_ATTEMPTS = (1, 10)  # retryStrategy.attempts
JOB_NAME_MAX = 128
_STORE = "rule_actions_service_jobs"  # backend attribute: job id -> the job, as DescribeServiceJob answers
_TOKENS = "rule_actions_service_job_tokens"  # backend attribute: clientToken -> the request it came with
# The URL path of each call (botocore's requestUri) and the BatchResponse method moto calls for it.
PATHS = {"SubmitServiceJob": "submitservicejob", "DescribeServiceJob": "describeservicejob",
         "TerminateServiceJob": "terminateservicejob", "ListServiceJobs": "listservicejobs"}
# ListServiceJobs' summary: the members of a job it lists (botocore's ServiceJobSummary, less capacityUsage).
SUMMARY = ("latestAttempt", "createdAt", "jobArn", "jobId", "jobName", "serviceJobType", "shareIdentifier",
           "quotaShareName", "status", "statusReason", "startedAt", "stoppedAt", "isTerminated", "scheduledAt")
_PATCH_MARK = "_rule_actions_patch"
TRAINING_JOB_ARN = "TrainingJobArn"  # an attempt's serviceResourceId.name
# The name Batch gives an attempt's training job: AWSBatch + the request's TrainingJobName, its first 23 characters
# (63 - 8 - 32: the cut is ASSUMED, as in rule_actions/jobs/batch_facts.py, which the replay may not import; the
# integration test holds the two together) + 32 lower-case hex.
NAME_PREFIX, KEPT_MAX = "AWSBatch", 23


_CLOCK: list[Any] = []  # a replay's clock (epoch ms): the timeline's minute, not the machine's


def set_clock(clock: Any) -> None:
    """Time the jobs' changes by `clock()` (epoch milliseconds; None: the machine's clock again)."""
    _CLOCK[:] = [clock] if clock is not None else []


def _now() -> int:
    return int(_CLOCK[0]()) if _CLOCK else int(utcnow().timestamp() * 1000)


def _backend(account_id: str, region: str) -> Any:
    """The backend BatchResponse answers from (moto's batch_simple when its configuration turns docker off)."""
    if default_user_config.get("batch", {}).get("use_docker", True) is False:
        from moto.batch_simple.models import batch_simple_backends

        return batch_simple_backends[account_id][region]
    return batch_backends[account_id][region]


def _store(backend: Any, name: str = _STORE) -> dict[str, Any]:
    if not hasattr(backend, name):
        setattr(backend, name, {})
    found: dict[str, Any] = getattr(backend, name)
    return found


def _job(backend: Any, job_id: Any) -> dict[str, Any]:
    job = _store(backend).get(job_id) if isinstance(job_id, str) else None
    if job is None:
        raise ClientException(f"Service job {job_id} does not exist.")
    found: dict[str, Any] = job
    return found


def _queue_arn(backend: Any, queue: str) -> str:
    if queue.startswith("arn:"):
        return queue
    return f"arn:aws:batch:{backend.region_name}:{backend.account_id}:job-queue/{queue}"


def _check_submit(request: Mapping[str, Any]) -> None:
    name = request.get("jobName")
    if not isinstance(name, str) or not name or len(name) > JOB_NAME_MAX or not all(
            c.isascii() and (c.isalnum() or c in "-_") for c in name):
        raise ClientException("jobName must be 1 to 128 letters, numbers, hyphens or underscores")
    if not isinstance(request.get("jobQueue"), str) or not request["jobQueue"]:
        raise ClientException("jobQueue is required")
    if request.get("serviceJobType") != SERVICE_JOB_TYPE:
        raise ClientException(f"serviceJobType must be {SERVICE_JOB_TYPE}")
    try:
        payload = json.loads(request.get("serviceRequestPayload") or "")
    except ValueError:
        raise ClientException("serviceRequestPayload is not valid JSON") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("TrainingJobName"), str):
        raise ClientException("serviceRequestPayload must be a CreateTrainingJob request with its TrainingJobName")
    attempts = (request.get("retryStrategy") or {}).get("attempts", RETRY_ATTEMPTS[0])
    if not isinstance(attempts, int) or not RETRY_ATTEMPTS[0] <= attempts <= RETRY_ATTEMPTS[1]:
        raise ClientException("retryStrategy.attempts must be from 1 to 10")


def submit(backend: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """SubmitServiceJob: the job SUBMITTED, with everything the request gave (what AWS Batch does next is played by
    put_service_job and start_attempt). A clientToken seen before with the same request is refused, as AWS
    documents; with another request it is another job."""
    _check_submit(request)
    token = request.get("clientToken")
    given = {key: copy.deepcopy(value) for key, value in request.items() if value is not None and key != "clientToken"}
    if isinstance(token, str):
        tokens = _store(backend, _TOKENS)
        if tokens.get(token) == given:
            raise ClientException(f"A service job was submitted already with clientToken {token}")
        tokens[token] = given
    # A replay's clock makes the id its own (the same every replay); else a random one, as AWS's
    job_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{given['jobName']}|{_now()}")) if _CLOCK else str(uuid.uuid4())
    job: dict[str, Any] = {
        "attempts": [], "createdAt": _now(), "isTerminated": False,
        "jobArn": f"arn:aws:batch:{backend.region_name}:{backend.account_id}:service-job/{job_id}",
        "jobId": job_id, "jobName": given["jobName"], "jobQueue": _queue_arn(backend, given["jobQueue"]),
        **{key: given[key] for key in ("retryStrategy", "schedulingPriority", "shareIdentifier", "quotaShareName",
                                       "preemptionConfiguration", "timeoutConfig") if key in given},
        "serviceRequestPayload": given["serviceRequestPayload"], "serviceJobType": SERVICE_JOB_TYPE,
        "status": "SUBMITTED", "tags": dict(given.get("tags") or {})}
    _store(backend)[job_id] = job
    return {"jobArn": job["jobArn"], "jobName": job["jobName"], "jobId": job_id}


def describe(backend: Any, job_id: Any) -> dict[str, Any]:
    """DescribeServiceJob: the job as it stands (a copy); an unknown id is refused (ClientException)."""
    return copy.deepcopy(_job(backend, job_id))


def terminate(backend: Any, job_id: Any, reason: Any) -> None:
    """TerminateServiceJob: the job FAILED with `reason`, isTerminated, its running attempt's training job stopped
    in moto's SageMaker (Batch stops it for the caller). A job that has ended is left as it is."""
    if not isinstance(reason, str) or not reason:
        raise ClientException("reason is required")
    job = _job(backend, job_id)
    if job["status"] in SERVICE_JOB_ENDED:
        return
    now = _now()
    job.update(status="FAILED", statusReason=reason, isTerminated=True, stoppedAt=now)
    if job["attempts"] and "stoppedAt" not in job["attempts"][-1]:
        attempt = job["attempts"][-1]
        attempt["stoppedAt"] = now
        _stop_training_job(backend, attempt["serviceResourceId"]["value"])


def _stop_training_job(backend: Any, arn: str) -> None:
    """The attempt's training job stopped, as StopTrainingJob leaves it (Stopping), when it runs."""
    name = arn.rpartition("/")[2]
    jobs = sagemaker_backends[backend.account_id][backend.region_name].training_jobs
    job = next((job for key, job in jobs.items() if key.lower() == name.lower() and job.arn == arn), None)
    if job is not None and job.training_job_status == "InProgress":
        job.training_job_status = job.secondary_status = "Stopping"
        job.last_modified_time = utcnow()


def _matches(job: Mapping[str, Any], queue: str | None, status: str | None,
             filters: list[Mapping[str, Any]]) -> bool:
    if queue is not None and job["jobQueue"] != queue:
        return False
    shares = [f for f in filters if f.get("name") in ("SHARE_IDENTIFIER", "QUOTA_SHARE_NAME")]
    others = [f for f in filters if f not in shares]
    if status is not None and not others and job["status"] != status:
        return False
    for item in filters:
        values = [str(v) for v in item.get("values") or []]
        name = item.get("name")
        if name == "JOB_NAME" and not any(
                job["jobName"].lower().startswith(v[:-1].lower()) if v.endswith("*")
                else job["jobName"].lower() == v.lower() for v in values):
            return False
        if name == "BEFORE_CREATED_AT" and not all(v.isdigit() and job["createdAt"] < int(v) for v in values):
            return False
        if name == "AFTER_CREATED_AT" and not all(v.isdigit() and job["createdAt"] > int(v) for v in values):
            return False
        member = {"SHARE_IDENTIFIER": "shareIdentifier", "QUOTA_SHARE_NAME": "quotaShareName"}.get(str(name))
        if member and job.get(member) not in values:
            return False
    return True


def list_jobs(backend: Any, queue: str | None = None, status: str | None = None, max_results: int | None = None,
              next_token: str | None = None, filters: list[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """ListServiceJobs: the queue's jobs, newest first, as summaries; RUNNING ones when no status is asked; a filter
    (JOB_NAME, BEFORE_/AFTER_CREATED_AT) makes the status ignored, SHARE_IDENTIFIER and QUOTA_SHARE_NAME do not;
    pages of `max_results` (1-100; 100 without)."""
    if max_results is not None and not 1 <= max_results <= PAGE_MAX:
        raise ClientException("maxResults must be from 1 to 100")
    if filters and len(filters) > 1:
        raise ClientException("Only one filter can be used at a time")
    wanted = None if queue is None else _queue_arn(backend, queue)
    jobs = [job for job in _store(backend).values()
            if _matches(job, wanted, status if status is not None else "RUNNING", filters or [])]
    jobs.sort(key=lambda job: job["createdAt"], reverse=True)
    start = int(next_token) if next_token and next_token.isdigit() else 0
    size = max_results or PAGE_MAX
    page = jobs[start:start + size]
    summaries = [{key: copy.deepcopy(job[key]) for key in SUMMARY if key in job} for job in page]
    more = start + size < len(jobs)
    return {"jobSummaryList": summaries, **({"nextToken": str(start + size)} if more else {})}


# --------------------------------------------------------------------------- the HTTP side (BatchResponse methods)


def _submitservicejob(self: BatchResponse) -> str:
    request = {key: self._get_param(key) for key in (
        "jobName", "jobQueue", "retryStrategy", "schedulingPriority", "serviceRequestPayload", "serviceJobType",
        "shareIdentifier", "quotaShareName", "preemptionConfiguration", "timeoutConfig", "tags", "clientToken")}
    return json.dumps(submit(self.batch_backend, request))


def _describeservicejob(self: BatchResponse) -> str:
    return json.dumps(describe(self.batch_backend, self._get_param("jobId")))


def _terminateservicejob(self: BatchResponse) -> str:
    terminate(self.batch_backend, self._get_param("jobId"), self._get_param("reason"))
    return "{}"


def _listservicejobs(self: BatchResponse) -> str:
    return json.dumps(list_jobs(self.batch_backend, self._get_param("jobQueue"), self._get_param("jobStatus"),
                                self._get_param("maxResults"), self._get_param("nextToken"),
                                self._get_param("filters")))


ADDED = {"submitservicejob": _submitservicejob, "describeservicejob": _describeservicejob,
         "terminateservicejob": _terminateservicejob, "listservicejobs": _listservicejobs}


def install() -> None:
    """Add the four service-job calls to moto's Batch (in-process ``mock_aws`` and a ``ThreadedMotoServer`` of this
    process that has not served Batch yet). Idempotent; an implementation moto may ship later is replaced."""
    for path in PATHS.values():
        batch_urls.url_paths.setdefault(f"{{0}}/v1/{path}$", BatchResponse.dispatch)
    for name, func in ADDED.items():
        if getattr(getattr(BatchResponse, name, None), _PATCH_MARK, False):
            continue
        setattr(func, _PATCH_MARK, True)
        func.__name__ = name
        func.__qualname__ = f"BatchResponse.{name}"
        setattr(BatchResponse, name, func)


# --------------------------------------------------------------------------- what AWS Batch does on its own


def service_job(job_id: str, account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> dict[str, Any]:
    """The job as DescribeServiceJob answers it (ClientException when there is none)."""
    return describe(_backend(account_id, region), job_id)


def service_jobs(account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> list[dict[str, Any]]:
    """Every service job of the account and region, as DescribeServiceJob answers, oldest first."""
    backend = _backend(account_id, region)
    return sorted((describe(backend, job_id) for job_id in _store(backend)), key=lambda job: job["createdAt"])


def submit_service_job(request: Mapping[str, Any], account_id: str = DEFAULT_ACCOUNT_ID,
                       region: str = "us-east-1") -> dict[str, Any]:
    """SubmitServiceJob, as a replay submits a timeline's job (its answer: jobArn, jobName, jobId)."""
    return submit(_backend(account_id, region), request)


# What a Batch event's detail says of its job (DescribeServiceJob's answer less its tags and the request it queued:
# an event carries neither), each taken as the event says it.
EVENT_MEMBERS = ("attempts", "capacityUsage", "createdAt", "isTerminated", "jobArn", "jobId", "jobName", "jobQueue",
                 "latestAttempt", "retryStrategy", "scheduledAt", "schedulingPriority", "serviceJobType",
                 "shareIdentifier", "quotaShareName", "preemptionConfiguration", "preemptionSummary", "startedAt",
                 "status", "statusReason", "stoppedAt", "timeoutConfig")


def seed_service_job(detail: Mapping[str, Any], account_id: str = DEFAULT_ACCOUNT_ID,
                     region: str = "us-east-1") -> list[str]:
    """A Batch event's service job in the store (a plain replay's: no timeline submitted it), as the event's detail
    says it and nothing more: its members of EVENT_MEMBERS over what earlier events said (no request, no tags: an
    event carries neither). A late event never moves it back: an ended job stays as it ended, and an event listing
    fewer attempts than the job has is behind it. Returns why it could not be seeded (problems of the event)."""
    job_id, status = detail.get("jobId"), detail.get("status")
    if not isinstance(job_id, str) or not job_id or not isinstance(detail.get("jobArn"), str):
        return [f"embedded Batch: jobId {job_id!r} or jobArn is not a string: the service job was not seeded"]
    if status not in STATUSES:
        return [f"embedded Batch: status {status!r} is not a service job's status ({', '.join(STATUSES)}): the "
                "service job was not seeded"]
    if not isinstance(detail.get("jobQueue"), str):
        return ["embedded Batch: jobQueue is not a string: the service job was not seeded"]
    store = _store(_backend(account_id, region))
    before = store.get(job_id)
    if before is not None and ((before["status"] in SERVICE_JOB_ENDED and status not in SERVICE_JOB_ENDED)
                               or len(detail.get("attempts") or ()) < len(before.get("attempts") or ())):
        return []  # a late event: the embedded job keeps the state it reached
    said = {key: copy.deepcopy(detail[key]) for key in EVENT_MEMBERS if key in detail}
    job = {**(before or {"attempts": [], "tags": {}}), **said}
    if "statusReason" not in detail:
        job.pop("statusReason", None)
    store[job_id] = job
    return []


def start_attempt(job_id: str, *, secondary_status: str = "Starting", name: str | None = None,
                  account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> str:
    """Batch creates the job's next attempt: a training job in moto's SageMaker named AWSBatch + the request's
    TrainingJobName + 32 hex (from the job id and the attempt's number: the same every replay), with the request's
    ResourceConfig, StoppingCondition, CheckpointConfig and Tags (the service job's tags added), InProgress; the
    attempt listed (startedAt now) and the job SCHEDULED. `name`: the training job's name as a timeline gives it
    (Batch-made: AWSBatch + the requested name + 32 hex). Returns the training job's name."""
    backend = _backend(account_id, region)
    job = _job(backend, job_id)
    payload = json.loads(job["serviceRequestPayload"])
    number = len(job["attempts"]) + 1
    suffix = hashlib.sha256(f"{job_id}|{number}".encode()).hexdigest()[:32]
    name = name or f"{NAME_PREFIX}{payload['TrainingJobName'][:KEPT_MAX]}{suffix}"
    tags = {tag["Key"]: tag["Value"] for tag in payload.get("Tags") or [] if isinstance(tag, Mapping)}
    arn = moto_sagemaker.put_training_job(
        name, "InProgress", secondary_status=secondary_status, account_id=account_id, region=region,
        resource_config=payload.get("ResourceConfig"), stopping_condition=payload.get("StoppingCondition"),
        checkpoint_config=payload.get("CheckpointConfig"), tags={**tags, **job["tags"]})
    now = _now()
    job["attempts"].append({"serviceResourceId": {"name": TRAINING_JOB_ARN, "value": arn}, "startedAt": now})
    job["latestAttempt"] = {"serviceResourceId": {"name": TRAINING_JOB_ARN, "value": arn}}
    job.update(status="SCHEDULED", scheduledAt=now)
    job.setdefault("startedAt", now)
    job.pop("statusReason", None)
    return name


def put_service_job(job_id: str, status: str, *, status_reason: str | None = None,
                    attempt_reason: str | None = None, preempted: bool = False,
                    account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> dict[str, Any]:
    """The job moves to `status` with `status_reason` (None: none), as Batch moves it. `attempt_reason` ends its
    running attempt (stoppedAt now, that statusReason). `preempted`: Batch preempted the running attempt (the
    attempt ended, listed in preemptionSummary.recentPreemptedAttempts, preemptedAttemptCount counted) and the job
    goes back to `status` (RUNNABLE); its training job is stopped in moto's SageMaker (Stopping). Returns the job as DescribeServiceJob answers."""
    if status not in STATUSES:
        raise ValueError(f"status must be one of {STATUSES}, not {status!r}")
    backend = _backend(account_id, region)
    job = _job(backend, job_id)
    running = job["attempts"][-1] if job["attempts"] and "stoppedAt" not in job["attempts"][-1] else None
    now = _now()
    if running is not None and (attempt_reason is not None or preempted):
        running["stoppedAt"] = now
        if attempt_reason is not None:
            running["statusReason"] = attempt_reason
    if preempted and running is not None:
        summary = job.setdefault("preemptionSummary", {"preemptedAttemptCount": 0, "recentPreemptedAttempts": []})
        summary["preemptedAttemptCount"] += 1
        summary["recentPreemptedAttempts"].append(copy.deepcopy(running))
        _stop_training_job(backend, running["serviceResourceId"]["value"])  # Batch stops the preempted attempt
    job["status"] = status
    if status_reason is None:
        job.pop("statusReason", None)
    else:
        job["statusReason"] = status_reason
    if status in SERVICE_JOB_ENDED:
        job["stoppedAt"] = now
    return copy.deepcopy(job)
