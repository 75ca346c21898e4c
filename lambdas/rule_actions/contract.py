"""What the stack (rule_actions_cdk/) and the function agree on: the one place each of these names and values is written.

The ground floor: it imports nothing of the project. rule_actions_cdk/ reads it beside the configuration and the registry,
never the runtime adapters; the records at the end are what plug-ins ask of the stack (rule_actions_cdk.plugins).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple

# Every SageMaker job family's state-change events come from this source (each family names its detail-type).
SOURCE = "aws.sagemaker"
IN_PROGRESS = "InProgress"  # the status of a running job, in every SageMaker job family's API
# How far along its life a job's status is, in every family's API (the families share these names): running (a
# pipeline execution's Executing), stopping, ended, then deleted. A job never moves back: an event whose status is
# behind what is known of its job is late (EventBridge keeps no order), and nothing acts on a job that has ENDED.
PROGRESS = {IN_PROGRESS: 0, "Executing": 0, "Stopping": 1, "Completed": 2, "Failed": 2, "Stopped": 2,
            "Succeeded": 2, "CompletedWithFailures": 2, "Deleting": 3, "DeleteFailed": 3,
            # AWS Batch's service jobs: every status before the end ranks 0 (RUNNABLE follows RUNNING when Batch
            # requeues a preempted job), and a later attempt is further along (jobs/batch.py counts them as phases)
            "SUCCEEDED": 2, "FAILED": 2}
ENDED = 2  # the PROGRESS of a job that has ended
# AWS Batch's service jobs (SageMaker training jobs Batch queues) send their state changes from this source; these
# two statuses are final (a terminated job is FAILED, its statusReason the reason given).
BATCH_SOURCE = "aws.batch"
SERVICE_JOB_ENDED = ("SUCCEEDED", "FAILED")
# The statuses of a service job whose latest attempt's training job may be running (SCHEDULED: created, Pending;
# STARTING: Downloading; RUNNING: Training or Uploading); in any other, none runs.
SERVICE_JOB_RUNNING = ("RUNNING", "STARTING", "SCHEDULED")
# A job name prefix (the name charset of SageMaker jobs; ListTrainingJobs' NameContains takes at most 63): it goes
# into IAM resource ARNs, so nothing else (a `*`, say) may widen them.
JOB_NAME_PREFIX = r"[A-Za-z0-9-]{1,63}"
# A SageMaker job's name (training, tuning, processing, transform: CreateTrainingJob's pattern; tuning jobs take at
# most 32 of its characters).
JOB_NAME = r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"
# An AWS region's name (us-east-1): the configuration's regions (organization mode, the monitor rules, prices).
REGION_NAME = r"[a-z]{2,4}(-[a-z]+)+-\d{1,2}"


class OutcomeCondition(NamedTuple):
    """When an event is a job outcome: its status is one of `statuses` (any when empty), its secondary status one
    of `secondary` (any when empty) and none of `secondary_not` (a secondary status must then be present, as for
    EventBridge's anything-but). A job family's conditions exclude one another. `subject` names the outcome in a
    subject ("training job failed"), `says` completes the body's first line ("<job> failed")."""

    statuses: tuple[str, ...] = ()
    secondary: tuple[str, ...] = ()
    secondary_not: tuple[str, ...] = ()
    subject: str = ""
    says: str = ""

    def holds(self, status: str | None, secondary: str | None) -> bool:
        if self.statuses and status not in self.statuses:
            return False
        if self.secondary and secondary not in self.secondary:
            return False
        return not self.secondary_not or (secondary is not None and secondary not in self.secondary_not)

    def pattern(self, status_field: str, secondary_field: str) -> dict[str, list[Any]]:
        """The EventBridge detail clause that matches exactly the events where this condition holds."""
        clause: dict[str, list[Any]] = {}
        if self.statuses:
            clause[status_field] = list(self.statuses)
        if self.secondary:
            clause[secondary_field] = list(self.secondary)
        elif self.secondary_not:
            clause[secondary_field] = [{"anything-but": list(self.secondary_not)}]
        return clause


class Outcome(StrEnum):
    """What became of one planned action."""

    DONE = "done"  # carried out now
    DUPLICATE = "duplicate"  # done before (the ledger)
    SKIPPED = "skipped"  # nothing to do now
    DENIED = "denied"  # refused by policy
    INVALID = "invalid"  # malformed
    FAILED = "failed"  # an AWS call failed: the invocation fails and is retried
    DRY_RUN = "dry_run"  # dry_run: decided, nothing called
    WATCHED = "watched"  # a stop of a rule in watch mode: reported as what it would do, nothing called


# A training job's phases (SecondaryStatus: botocore's enum), in a row's words: what the monitor rules say of a phase
# they do not judge, and why a stop is refused in one (docs/triggers.md, "Phases", says what each means for a stop).
TRAINING_PHASE = "Training"
PHASES = {
    "Starting": "starting", "Pending": "waiting for capacity", "LaunchingMLInstances": "launching ML instances",
    "PreparingTrainingStack": "preparing the training stack", "Downloading": "downloading input data",
    "DownloadingTrainingImage": "downloading the training image", TRAINING_PHASE: "training",
    "Uploading": "uploading artifacts", "Restarting": "restarting after a hardware failure (cluster repair)",
    "Interrupted": "interrupted, waiting for spot capacity", "Updating": "updating (training goes on)",
    "Stopping": "stopping",
}
# The phases in which a job trains (Updating: UpdateTrainingJob applies while training goes on), and those before
# training (re)starts.
TRAINING_PHASES = (TRAINING_PHASE, "Updating")
STARTUP_PHASES = ("Starting", "Pending", "LaunchingMLInstances", "PreparingTrainingStack", "Downloading",
                  "DownloadingTrainingImage")


class Offer(StrEnum):
    """What a job family's running jobs give the monitor rules to judge (JobFamily.offers), and what a rule needs
    (Monitor.needs): a rule judges the families that offer all it needs, so neither lists the other's names."""

    TRAINING_PHASES = "training phases"  # SecondaryStatus phases, the user's MetricDefinitions (training jobs)
    JOB_STATUS = "job status"  # judged by its status (InProgress) once it started, its clock its start
    HOST_METRICS = "host metrics"  # CPU/GPU/memory per instance in its metric namespace (dimension Host)
    HOST_LOGS = "host logs"  # a log stream per instance in its log group (<job>/<host>-<epoch>)
    TRIALS = "trials"  # the training jobs it launched (a tuning job's)
    COST = "cost"  # what it costs so far (its Billing)


# The function's environment.
ENV_CONFIG = "RULE_ACTIONS_CONFIG"
# A configuration too large for Lambda's 4 KB environment ships in the code asset instead: this variable names the
# file, relative to the code's root (LAMBDA_TASK_ROOT).
ENV_CONFIG_FILE = "RULE_ACTIONS_CONFIG_FILE"
CONFIG_FILE_NAME = "rule-actions-config.json"
ENV_TOPIC_ARN = "RULE_ACTIONS_TOPIC_ARN"
ENV_LEDGER_TABLE = "RULE_ACTIONS_LEDGER_TABLE"
ENV_CHAT_TOPIC_ARN = "RULE_ACTIONS_CHAT_TOPIC_ARN"  # set only when the configuration lists chat channels

# A scheduled evaluation (the monitor rules): an invocation whose payload is {EVALUATION_KEY: {...}} (the schedule's
# time, and in organization mode the account and region evaluated; the shard), never an EventBridge event.
EVALUATION_KEY = "rule_actions_evaluation"
# The rule family of the statuses an evaluation finds (beside Debugger's Debug and Profiler): its events carry
# MonitorRuleEvaluationStatuses and MonitorRuleConfigurations.
MONITOR_RULE_FAMILY = "Monitor"
# A monitor rule's mode (its parameter `mode`, which an evaluation carries in the rule's RuleParameters): ACT, its
# stops stop the job; WATCH, each stop is reported as what it would do ("would stop <job>") and nothing is stopped.
MODE_KEY, ACT, WATCH = "mode", "act", "watch"
# A monitor rule's finding that only warns (a budget's warning at a fraction of it): the evaluation writes the level
# in the rule's RuleParameters under WARNING_KEY; the rule's stops are skipped for it, its messages go out, each once
# per job and level (the level is part of the trigger's ledger key).
WARNING_KEY = "warning"

# A test notification (`rule-actions test-notify`): an invocation whose payload is {TEST_EVENT_KEY: {...}}, never
# an EventBridge event. Its fields: "id" (one per request: its ledger keys), "emails" and "sms" (lists).
TEST_EVENT_KEY = "rule_actions_test_notification"

# SNS routing: every message carries ROUTING_ATTRIBUTE, set to an endpoint or to TEAM; every subscription the
# stack or the function makes filters on it.
ROUTING_ATTRIBUTE = "to"
TEAM = "team"

# The ledger table (Powertools idempotency records and the function's own stop records).
# The tags a restart gives the copy it makes (kinds/restart.py), under the monitor rules' prefix but never rules (the
# monitor's tag reader skips them; the replay reads them to play the copy's attempt): the chain's first job, the
# attempt (1 for the first copy), the job it restarts, the newest checkpoint when it was made (the loop guard's mark),
# the chain's training seconds before it.
RESTART_CHAIN_TAG, RESTART_ATTEMPT_TAG, RESTART_FROM_TAG = ("rule-actions:chain", "rule-actions:attempt",
                                                            "rule-actions:restarted-from")
RESTART_CHECKPOINT_TAG, RESTART_SECONDS_TAG = "rule-actions:checkpoint-at", "rule-actions:chain-seconds"
RESTART_TAGS = (RESTART_CHAIN_TAG, RESTART_ATTEMPT_TAG, RESTART_FROM_TAG, RESTART_CHECKPOINT_TAG, RESTART_SECONDS_TAG)

LEDGER_KEY_ATTRIBUTE = "id"
LEDGER_EXPIRY_ATTRIBUTE = "expiration"  # the table's TTL attribute
# A stop record's optional figures (strings holding a decimal, US dollars; absent when unknown): what the job cost
# until the stop, and what the stop saved at most.
LEDGER_COST_ATTRIBUTE, LEDGER_SAVED_ATTRIBUTE = "cost_usd", "saved_usd"

# Logs and metrics. Each deployment's service name is its construct's name (the root of its physical names), which
# the stack sets in ENV_SERVICE (Powertools' own variable); SERVICE outside a stack (tests, the CLI), and what a
# stack deployed before the service name was its own emitted.
SERVICE = "rule-actions"
ENV_SERVICE = "POWERTOOLS_SERVICE_NAME"
NAMESPACE = "RuleActions"
# The function's EMF metrics, all in NAMESPACE, all counts but where said. Each carries the dimension
# SERVICE_DIMENSION (= the service name: rule_actions.observability adds it to every record) beside the ones named
# here: two deployments in one account and region keep their metrics apart. The stack's alarms and dashboard and
# `rule-actions report` read them by these names and the deployment's service name.
SERVICE_DIMENSION = "service"
ACTIONS_METRIC, KIND_DIMENSION, OUTCOME_DIMENSION = "Actions", "kind", "outcome"  # each decision, per (kind, outcome)
TRIGGERS_METRIC, TRIGGER_DIMENSION = "Triggers", "trigger"  # each trigger, per trigger (rule:IssuesFound, job:Failed)
EVENTS_METRIC, IGNORED_METRIC, TEST_METRIC = "Events", "IgnoredEvents", "TestNotifications"  # per invocation
# A scheduled evaluation's, once per run: jobs judged, rules that hold, failed reads, rules not computed (or jobs'
# problems), jobs a run had no time left for; and the run's seconds (unit Seconds).
EVALUATED_METRIC, FINDINGS_METRIC, EVALUATION_ERRORS_METRIC = "EvaluatedJobs", "RuleFindings", "EvaluationErrors"
EVALUATION_PROBLEMS_METRIC, UNFINISHED_METRIC = "EvaluationProblems", "UnfinishedJobs"
EVALUATION_SECONDS_METRIC = "EvaluationSeconds"
# What a stop saved at most (once per stop done whose saving is known) and a job's cost when a message says it, in
# US dollars (unit None), per job family (FAMILY_DIMENSION): nothing is emitted when the figure is unknown.
SAVED_METRIC, COST_METRIC, FAMILY_DIMENSION = "SavedDollars", "CostDollars", "family"
# Organization mode: events from an account the configuration does not name (refused; the stack alarms on it).
REFUSED_ACCOUNT_METRIC = "RefusedAccountEvents"
# Per copy a restart created (a job relaunched from its checkpoint; the restart's own decisions are in Actions).
RESTARTS_METRIC = "Restarts"


# What plug-ins ask of the stack (rule_actions_cdk.plugins collects it, its parts build it): records, not constructs.


class Arn(NamedTuple):
    """An ARN in the stack's own partition, region and account (Stack.format_arn); `colon`: the resource name
    follows a ':' (secretsmanager:...:secret:<name>), else a '/'. IAM's have no region; S3's name a bucket
    (`resource`, `name` empty) and have neither region nor account."""

    service: str
    resource: str
    name: str
    colon: bool = False


class Grant(NamedTuple):
    """An IAM statement a plug-in needs. Every resource with a wildcard is acknowledged to cdk-nag with `reason`."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[Arn | str, ...]  # a str is a whole ARN as configured, or "*"
    reason: str = ""
    conditions: tuple[tuple[str, str, tuple[str, ...]], ...] = ()  # (operator, key, values): StringEquals...


class TeamEndpoint(NamedTuple):
    """An email address or phone number of the team: subscribed by the stack to the team topic (filter to=team)
    and to the ops topic."""

    protocol: str  # email | sms
    endpoint: str


class ChatChannel(NamedTuple):
    """A Slack or Microsoft Teams channel that receives the team's messages through Amazon Q Developer."""

    platform: str  # slack | teams
    ids: tuple[tuple[str, str], ...]  # (key, value) in the platform's key order


class Texts:
    """The configuration can send text messages: the stack logs their delivery status (when asked to)."""


class Schedule:
    """A scheduled evaluation: every `every_minutes`, one invocation per run; each run's request body (the value
    of EVALUATION_KEY, to which the schedule adds its time). (A plain class: defined at every cold start.)"""

    __slots__ = ("every_minutes", "runs")

    def __init__(self, every_minutes: int, runs: tuple[dict[str, Any], ...]):
        self.every_minutes, self.runs = every_minutes, runs


def detail_matches(clause: Mapping[str, Any], detail: Any) -> bool:
    """Whether an event's detail matches a detail clause written in the part of EventBridge's pattern syntax the
    plug-ins' follow clauses use (Kind.follows_stops): nested objects, lists of values, {"numeric": [op, n]} with
    one comparison, {"exists": bool}. ({}: any detail.)"""
    for key, wanted in clause.items():
        value = detail.get(key) if isinstance(detail, Mapping) else None
        if isinstance(wanted, Mapping):
            if not detail_matches(wanted, value):
                return False
        elif not any(_value_matches(option, value) for option in wanted):
            return False
    return True


def _value_matches(option: Any, value: Any) -> bool:
    if isinstance(option, Mapping) and "exists" in option:
        return (value is not None) is bool(option["exists"])
    if isinstance(option, Mapping) and "numeric" in option:
        op, bound = option["numeric"]
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        return number is not None and {">": number > bound, ">=": number >= bound, "<": number < bound,
                                       "<=": number <= bound, "=": number == bound}.get(op, False)
    return bool(option == value)
