"""What plug-ins may call (the ground floor): the configuration's values, the adapters' interfaces, and the
occasion a message is about. Interfaces only: the adapters are in effects/, the configuration in config.py, the
occasion in messages.py; plug-ins are handed them and never import them.

    Configured     config[FIELD] for a plug-in's own fields; what the configuration attaches; whether action_json
                   is read; the destination a webhook's format names
    Ports          the adapters for one account and region: jobs (SageMaker), notifier (SNS), ledger, webhooks,
                   metrics (CloudWatch), logs (CloudWatch Logs), prices (the AWS Price List) and checkpoints (S3)
    ServiceJobs    AWS Batch's service jobs (Ports.batch: made when the Batch family is on)
    Occasion       one planned action's trigger and job, with its message and payloads rendered on demand
    WebhookFormat  a webhook's destination (destinations/: its body, its secret's members, its URL), as
                   config.destination(format) hands it to the webhook kind
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeVar

from rule_actions.cost import JobCost
from rule_actions.fields import Field
from rule_actions.records import (
    Action,
    Declared,
    Heartbeat,
    Invalid,
    JobApi,
    JobEvent,
    Message,
    MetricQuery,
    Place,
    Progress,
    Result,
    StopNote,
    Trigger,
    TriggerFacts,
)

T = TypeVar("T")


class Grammar(Protocol):
    """The action grammar (grammar.py), over every registered kind."""

    def action_json(self, text: Any) -> tuple[list[Action], list[Invalid]]: ...
    def entry(self, entry: Any, where: str, place: Place) -> Action | Invalid: ...

    def tag_entries(self, text: str) -> list[dict[str, str]]:
        """The action objects a tag's value declares in the tag form (`stoptraining email=a@example.com`)."""
        ...


class Configured(Protocol):
    @property
    def grammar(self) -> Grammar: ...

    def __getitem__(self, field: Field[T]) -> T: ...

    @property
    def declared(self) -> tuple[Declared, ...]:
        """Every action the configuration attaches, with the path of its field."""
        ...

    @property
    def reads_action_json(self) -> bool:
        """Whether rules' action_json is read at run time (anyone who starts a job may declare actions)."""
        ...

    @property
    def follows_stops(self) -> tuple[dict[str, Any], ...]:
        """The detail clauses of the Stopped events whose job an action may follow this stack's stop of, once it
        has stopped (a restart: {}, any; a warm pool's release); empty: none (Kind.follows_stops)."""
        ...

    @property
    def test_actions(self) -> tuple[Action, ...]:
        """What a test notification reaches: each kind's destinations of this configuration."""
        ...

    def destination(self, name: str) -> WebhookFormat:
        """The destination a webhook's `format` names (registry.destinations())."""
        ...


class Jobs(Protocol):
    """SageMaker, for any job family (its JobApi names the calls)."""

    def describe(self, api: JobApi, job_name: str) -> Mapping[str, Any]: ...
    def in_progress(self, api: JobApi, prefix: str) -> list[str]: ...

    def real_name(self, api: JobApi, lowered: str, fragment: str) -> str | None:
        """The name, as created, of the job whose lower-cased name is `lowered` (one listing: NameContains
        `fragment`), None when the listing has none."""
        ...

    def failed_trials(self, tuning_job_name: str, limit: int) -> Sequence[Mapping[str, Any]]:
        """A tuning job's failed training jobs (their summaries, with FailureReason), the first `limit` created."""
        ...

    def pipeline_steps(self, execution_arn: str) -> Sequence[Mapping[str, Any]]:
        """Every step of a pipeline execution (ListPipelineExecutionSteps' entries), in the order they ran."""
        ...

    def running(self, api: JobApi) -> list[Any]:
        """Every InProgress job of the family, each as Search returns it (its description and its tags); for a
        family Search does not support, listed, described and tagged (an UnreadJob where those reads failed)."""
        ...

    def trials(self, tuning_job_name: str, limit: int) -> list[Any]:
        """The latest `limit` trials of a tuning job, newest first (Trial records)."""
        ...

    def trial_runs(self, tuning_job_name: str) -> list[Any]:
        """Every trial of a tuning job, oldest first, with when it trained (TrialRun records)."""
        ...

    def stop(self, api: JobApi, key: str, token: str | None = None) -> str:
        """"stopped", "already Stopping" / "already Stopped", or the status of a job that is not running (`key`: the
        API's name for the job; `token`: a pipeline execution stop's ClientRequestToken)."""
        ...

    def tags(self, arn: str) -> dict[str, str]:
        """The job's tags (ListTags, every page)."""
        ...

    def release(self, api: JobApi, job_name: str) -> None:
        """Let go of the job's warm pool (its KeepAlivePeriodInSeconds set to 0: its instances stop billing)."""
        ...

    def create(self, api: JobApi, request: Mapping[str, Any]) -> str:
        """"created", or "exists" when a job of the request's name exists already (ResourceInUse: the name is the
        only idempotency key SageMaker has); raises on any other error."""
        ...


class ServiceJobs(Protocol):
    """AWS Batch, for the SageMaker training jobs it queues (service jobs; effects/batch.py)."""

    def describe(self, job_id: str) -> Mapping[str, Any]:
        """DescribeServiceJob's answer: status, statusReason, jobQueue, attempts, preemptionSummary, tags and the
        request it queued (serviceRequestPayload, verbatim)."""
        ...

    def running_job(self, training_job_arn: str, queues: tuple[str, ...]) -> tuple[str, Mapping[str, Any]] | None:
        """The service job of one of `queues` running the training job, as (its queue, its summary: jobId,
        jobName, status, latestAttempt), or None."""
        ...

    def listed(self, queue: str, status: str) -> list[Mapping[str, Any]]:
        """The summaries of the queue's service jobs in `status` (ListServiceJobs with jobQueue and jobStatus, every
        page): jobArn, jobId, jobName, status, statusReason, createdAt, latestAttempt..."""
        ...

    def terminate(self, job_id: str, reason: str) -> str:
        """"terminated" (Batch stops its training job too), or "already SUCCEEDED" / "already FAILED" for a job
        that had ended; raises on any other error."""
        ...

    def job_of(self, training_job_arn: str, queues: tuple[str, ...]) -> tuple[str, Mapping[str, Any]] | None:
        """The service job of one of `queues` whose latest attempt is the training job, whatever its status (running
        first, then requeued, then ended), as (its queue, its summary), or None."""
        ...

    def submit(self, request: Mapping[str, Any]) -> tuple[str, str]:
        """SubmitServiceJob of `request` (its clientToken makes a repeat the same request): ("submitted", its job id),
        or ("exists", the id of the job of that name in that queue) when Batch refused a repeat; raises otherwise."""
        ...


class Checkpoints(Protocol):
    """Amazon S3, where jobs keep their checkpoints."""

    def newest(self, s3_uri: str) -> datetime | None:
        """The LastModified of the newest object under `s3_uri` (every page), None when there is none."""
        ...


class Notifier(Protocol):
    PENDING: str

    def ensure_subscription(self, protocol: str, endpoint: str) -> str: ...
    def publish(self, to: str, message: Message, chat: dict[str, Any] | None = None) -> str: ...
    def publish_chat(self, notification: dict[str, Any]) -> str: ...
    def team_subscribed(self) -> bool: ...


class Ledger(Protocol):
    def once(self, key: dict[str, str], work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """`work()` unless the ledger holds `key`'s record (then that record, marked duplicate); raises
        InProgressElsewhere or LedgerUnavailable, and whatever `work` raises (nothing recorded then)."""
        ...

    def mark_stopped(self, job_arn: str, by: str, cost_usd: float | None = None,
                     saved_usd: float | None = None, at: datetime | None = None) -> None:
        """Record that this stack stopped the job (`by`: the rule of the job), with what it cost until the stop and
        what the stop saved at most, when known, and when (`at`: the time of the event that asked; else now)."""
        ...

    def stopped_by(self, job_arn: str) -> str | None: ...

    def stop_record(self, job_arn: str) -> StopNote | None:
        """The record of this stack's stop of the job (who, and what is to follow), None when it did not stop it."""
        ...

    def follow_stop(self, job_arn: str, action: str) -> None:
        """Add `action` ("kind|target|origin") to what follows this stack's stop of the job, once it has stopped."""
        ...

    def restart_quota(self, account: str, limit: int) -> bool:
        """Count one restart in `account` this hour (UTC); False, counting nothing, when `limit` were counted."""
        ...

    def saw(self, job_arn: str, progress: Progress) -> Progress | None:
        """Keep `progress` as the furthest the job is known to be along when it is further than what was seen;
        else the Progress seen that is further along (the event is late), or None (as far: a duplicate)."""
        ...


class Webhook(Protocol):
    @property
    def name(self) -> str:
        """As declared in `webhooks`."""
        ...

    @property
    def secret(self) -> str:
        """The Secrets Manager secret (name or ARN) holding what its destination reads ({"url", "signing_key"})."""
        ...

    @property
    def format(self) -> str: ...


class Webhooks(Protocol):
    loopback_http: bool  # plain http to a loopback address is allowed (a local replay only)

    def secret(self, hook: Webhook, keys: tuple[str, ...], shape: str) -> Mapping[str, Any]:
        """The webhook's secret, a JSON object whose `keys` are non-empty strings (`shape` says them in the error
        when they are not)."""
        ...

    def read_afresh(self, hook: Webhook) -> None: ...
    def post(self, hook: Webhook, url: str, body: bytes, headers: Mapping[str, str]) -> tuple[int, int]: ...


class Metrics(Protocol):
    """CloudWatch metrics."""

    def hosts(self, namespace: str, metric: str) -> tuple[str, ...]:
        """The Host dimension values of `metric` in `namespace` active in the last 3 hours."""
        ...

    def data(self, queries: Sequence[MetricQuery], start: int, end: int) -> dict[MetricQuery, tuple[tuple[int, float], ...]]:
        """Each query's datapoints from `start` to `end` (epoch seconds), oldest first."""
        ...


class Logs(Protocol):
    """CloudWatch Logs."""

    insights_from: int  # jobs to read in a run from which one Logs Insights query reads them (FilterLogEvents below)

    def heartbeat(self, group: str, prefix: str, start: int, end: int) -> Heartbeat:
        """One query of the streams starting with `prefix` from `start` to `end` (epoch ms)."""
        ...

    def latest(self, group: str, windows: tuple[tuple[str, int], ...], end: int) -> Mapping[str, Heartbeat]:
        """One Logs Insights query over many jobs' streams: prefix -> Heartbeat of its streams with a line from its
        window's start (epoch ms) to `end`."""
        ...


class Prices(Protocol):
    """The AWS Price List API."""

    def products(self, instance_type: str, region: str) -> Mapping[str, float]:
        """The on-demand prices of an instance type in a region: the price list's component (Training, Processing,
        BatchTransform...) -> US dollars per hour; read at most once per execution environment (a failure too)."""
        ...


class Ports(Protocol):
    """The adapters for one account and region (read-only: effects/adapters.py's Adapters is one)."""

    @property
    def jobs(self) -> Jobs: ...
    @property
    def notifier(self) -> Notifier: ...
    @property
    def ledger(self) -> Ledger: ...
    @property
    def webhooks(self) -> Webhooks: ...
    @property
    def region(self) -> str: ...  # where links point: the job's region
    @property
    def prices(self) -> Prices: ...
    @property
    def checkpoints(self) -> Checkpoints | None: ...  # S3, where checkpoints are listed (None: not available here)
    @property
    def metrics(self) -> Metrics | None: ...  # a scheduled evaluation's reads: None for an event's invocation
    @property
    def logs(self) -> Logs | None: ...
    @property
    def batch(self) -> ServiceJobs | None: ...  # AWS Batch's service jobs (None: the Batch family is off)


class Occasion(Protocol):
    config: Configured
    event: JobEvent
    trigger: Trigger
    region: str  # where links point
    stops: tuple[Result, ...]  # the trigger's stops carried out so far (what its message reports as taken)
    cost: JobCost | None  # what the job cost at the event's time (cost.py); None: not asked, or no cost here

    @property
    def message(self) -> Message: ...
    @property
    def facts(self) -> TriggerFacts: ...
    def chat(self) -> dict[str, Any]: ...


class WebhookFormat(Protocol):
    """Where a webhook posts (destinations/base.py's Destination says each member)."""

    @property
    def name(self) -> str: ...
    @property
    def secret_keys(self) -> tuple[str, ...]: ...
    @property
    def secret_shape(self) -> str: ...
    @property
    def signed(self) -> bool: ...

    def url(self, secret: Mapping[str, Any]) -> Any: ...
    def refusal(self, url: str, loopback_http: bool) -> str | None: ...
    def body(self, occasion: Occasion, delivery: str, secret: Mapping[str, Any]) -> bytes: ...
    def stack_parts(self, secrets: tuple[Any, ...]) -> list[Any]: ...


class InProgressElsewhere(Exception):
    """The ledger holds an in-progress record of this action: a concurrent invocation is carrying it out."""


class LedgerUnavailable(Exception):
    """The ledger could not be used; `after_work`: the action ran, only its record could not be completed."""

    def __init__(self, cause: str, after_work: bool):
        super().__init__(cause)
        self.cause, self.after_work = cause, after_work
