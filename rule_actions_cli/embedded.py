"""The embedded account: moto, built from the synthesized stack, with the real handler run in-process.

The stack's template is deployed into moto's CloudFormation (with the bootstrap parameter and the Lambda asset
in the assets bucket), or for the replay its resources created as moto's CloudFormation creates them without importing
it (emulator.stacks), so the handler runs with the environment the stack really gives it, and events are matched
against the EventBridge rules the stack really creates. State (jobs, the exactly-once ledger, SNS subscriptions)
lives for the whole run.
Secrets given as {name: secret string} (webhooks' URLs and keys) are created in its Secrets Manager.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO, TypeVar, cast

import boto3
from botocore import loaders, xform_name
from moto import mock_aws

from rule_actions import registry
from rule_actions.contract import ENV_CHAT_TOPIC_ARN, ENV_TOPIC_ARN, ROUTING_ATTRIBUTE
from rule_actions.text import iso_z, quoted
from rule_actions_cli.emulator import dynamodb as moto_dynamodb
from rule_actions_cli.emulator import monitoring as moto_monitoring
from rule_actions_cli.emulator import pricing as moto_pricing
from rule_actions_cli.emulator import s3 as moto_s3
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.emulator import speed as moto_speed
from rule_actions_cli.emulator import stacks as moto_stacks
from rule_actions_cli.inputs import is_timeline, job_of
from rule_actions_cli.matcher import matches
from rule_actions_cli.replay_table import NOTABLE, Delivery
from rule_actions_cli.seeding import JobPlace, seeder
from rule_actions_cli.synth import asset_bytes, file_assets

ACCOUNT = "123456789012"  # moto's default account
BOOTSTRAP_VERSION = "/cdk-bootstrap/hnb659fds/version"
HANDLER = "rule_actions.handler.lambda_handler"  # the stack's function (a stack may hold custom resources' too)
T = TypeVar("T")  # what a run with the function's environment gives back


@dataclass
class LocalContext:
    """The parts of the Lambda context the handler (Powertools) reads."""

    function_name: str
    invoked_function_arn: str
    memory_limit_in_mb: int = 256
    aws_request_id: str = "embedded"
    remaining_millis: int = 60_000  # the function's timeout

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_millis




_ONCE_MARK = "_rule_actions_once"


def _botocore_data_once() -> None:
    """botocore's data read once per process, not once per session: its JSON files (service models, endpoints) parsed
    once, and the services its data folders hold listed once. moto makes a session for each service it loads (ec2's
    4 MB model was parsed three times before a replay's first event, and each session listed the 400 services'
    folders: 1,800 file checks) and so does the handler's runtime. botocore only reads a parsed model (merging a
    model's sdk-extras into it again changes nothing), as the tests have relied on since they parse each file once
    (tests/conftest.py); the folders do not change while the command runs. Idempotent."""
    if getattr(loaders.JSONFileLoader._load_file, _ONCE_MARK, False):
        return
    parse, listing = loaders.JSONFileLoader._load_file, loaders.Loader.list_available_services

    @functools.cache
    def parsed(full_path: str, open_method: Any) -> Any:
        return parse(loaders.JSONFileLoader(), full_path, open_method)

    known: dict[tuple[Any, ...], list[str]] = {}

    def load_file(self: Any, full_path: str, open_method: Any) -> Any:
        return parsed(full_path, open_method)

    def list_available_services(self: Any, type_name: str) -> list[str]:
        key = (type(self), tuple(self.search_paths), type_name)
        if key not in known:
            known[key] = listing(self, type_name)
        return list(known[key])

    setattr(load_file, _ONCE_MARK, True)
    loaders.JSONFileLoader._load_file = load_file
    loaders.Loader.list_available_services = list_available_services


def _datetime(epoch: int) -> Any:
    return datetime.fromtimestamp(epoch, UTC)


def _shown(job: dict[str, Any]) -> set[Any]:
    """What a row would show of an evaluated job: its rules that hold, cannot be computed, do not judge its phase or
    failed (replay_table.NOTABLE), its problems."""
    return {(r["rule"], r["verdict"]) for r in job.get("rules", []) if r["verdict"] in NOTABLE} | set(
        job.get("problems", []))


def _notable(job: dict[str, Any], shown: set[Any], before: set[Any]) -> bool:
    """An evaluated job worth a row: something its previous evaluation did not show, or an action other than a
    duplicate (a rule that keeps holding, whose actions are all done, is not repeated at every tick)."""
    return bool(shown - before or any(a["outcome"] != "duplicate" for a in job.get("actions", [])))


PIPELINE_TAG = "sagemaker:pipeline-execution-arn"  # the execution a pipeline step's job belongs to


def _put_other(timeline: Any, job: Any, status: str, tick: int, place: JobPlace) -> None:
    """A processing, transform or tuning job of a timeline as SageMaker shows it at `tick`: its status, resources,
    start and tags; a tuning job's trials (training jobs of its ARN) created, running or ended by then. Its state
    changes are not replayed (a timeline of these families shows the evaluator's rows)."""
    started = job.started()
    start = _datetime(timeline.time(started)) if started is not None and started <= tick else None
    execution = (job.tags or {}).get(PIPELINE_TAG)
    if execution and moto_sagemaker.pipeline_execution_status(execution, **place) is None:
        moto_sagemaker.put_pipeline_execution(execution, "Executing", **place)  # the execution its step belongs to
    if job.family == "processing":
        moto_sagemaker.put_processing_job(job.name, status, cluster={
            "InstanceType": job.instance_type, "InstanceCount": job.instance_count, "VolumeSizeInGB": 30},
            start_time=start, tags=job.tags, **place)
    elif job.family == "transform":
        moto_sagemaker.put_transform_job(job.name, status, resources={
            "InstanceType": job.instance_type, "InstanceCount": job.instance_count}, start_time=start,
            tags=job.tags, **place)
    else:
        _put_tuning(timeline, job, status, tick, place)


def _put_tuning(timeline: Any, job: Any, status: str, tick: int, place: JobPlace) -> None:
    """A tuning job and its trials at `tick`, every fact from the timeline (never moto's defaults nor the machine's
    clock): its training job definition (the job's instances, or when its trials name other instance types the
    InstanceConfigs SageMaker chooses among, and its MaxRuntimeInSeconds), its ResourceLimits (its
    `max_trials`, else as many trials as the timeline gives, as many at once as ever run together in it), its counters and its end; each trial
    created, started (TrainingStartTime and its Training transition) and ended at its minutes, on its own instances
    (else the tuning job's), with the tuning job's tags (SageMaker adds them to every training job it launches)."""
    runtime = {"MaxRuntimeInSeconds": job.max_runtime_minutes * 60}
    parallel = max((sum(1 for t in job.trials if t.start <= minute < t.end)
                    for minute in range(timeline.minutes + 1)), default=0)
    states = {trial.name: trial.at(tick) for trial in job.trials}
    if status != "InProgress":  # a tuning job that ended stops its running trials
        states = {name: "Stopped" if state == "InProgress" else state for name, state in states.items()}
    counters = dict.fromkeys(("Completed", "InProgress", "RetryableError", "NonRetryableError", "Stopped"), 0)
    for state in states.values():
        if state is not None:
            counters["NonRetryableError" if state == "Failed" else state] += 1
    ended = tick if status != "InProgress" else None
    kinds = list(dict.fromkeys([(job.instance_type, job.instance_count)] + [
        (t.instance_type, t.instance_count or job.instance_count) for t in job.trials if t.instance_type]))
    definition: dict[str, Any] = {"ResourceConfig": job.resources(30), "StoppingCondition": runtime}
    if len(kinds) > 1:  # trials on several instance types: flexible instances, SageMaker choosing per trial
        definition = {"HyperParameterTuningResourceConfig": {"InstanceConfigs": [
            {"InstanceType": kind, "InstanceCount": count, "VolumeSizeInGB": 30} for kind, count in kinds]},
            "StoppingCondition": runtime}
    arn = moto_sagemaker.put_tuning_job(
        job.name, status, tags=job.tags, objective=job.objective,
        creation_time=_datetime(timeline.time(job.phases[0][0])),
        training_job_definition=definition,
        resource_limits={"MaxNumberOfTrainingJobs": job.max_trials or max(1, len(job.trials)),
                         "MaxParallelTrainingJobs": max(1, parallel)},
        training_job_status_counters=counters, end_time=_datetime(timeline.time(ended)) if ended is not None else None,
        **place)
    for trial in job.trials:
        state = states[trial.name]
        if state is None:
            continue
        started = _datetime(timeline.time(trial.start))
        resources = {"InstanceType": trial.instance_type, "InstanceCount": trial.instance_count or job.instance_count,
                     "VolumeSizeInGB": 30} if trial.instance_type else job.resources(30)
        end = min(trial.end, tick) if state != "InProgress" else None
        moto_sagemaker.put_training_job(
            trial.name, state, tuning_job_arn=arn, failure_reason=trial.reason or None,
            final_objective=("validation:objective", trial.objective) if trial.objective is not None
            and state == "Completed" else None, resource_config=resources, tags=job.tags, stopping_condition=runtime,
            transitions=[{"Status": "Training", "StartTime": started}], training_start_time=started,
            creation_time=started, training_end_time=_datetime(timeline.time(end)) if end is not None else None,
            training_time_in_seconds=(end - trial.start) * 60 if end is not None else None, **place)


def _unplayed_tuning_job(timeline: Any, job: Any) -> str | None:
    """The tuning job a timeline's trial names (`jobs[].tuning_job`) when the timeline does not play it itself."""
    name: str | None = job.tuning_job
    return name if name and not any(other.name == name for other in timeline.jobs) else None


def _put_parent_tuning_job(timeline: Any, job: Any, place: JobPlace, ended: bool = False) -> None:
    """The unplayed tuning job of a timeline's trial, running in the account from the trial's start, so that a stop
    naming it (`stop=tuning_job`) finds it; what happens to it then (a stop) is the account's, never overwritten;
    `ended`: the timeline is over, and it leaves the running jobs as its trial does."""
    name = _unplayed_tuning_job(timeline, job)
    if name is None:
        return
    found = moto_sagemaker._backend(place.get("account_id", ACCOUNT), place["region"]).hyper_parameter_tuning_jobs.get(
        name)
    if found is None and not ended:
        moto_sagemaker.put_tuning_job(name, "InProgress", tags=job.tags,
                                      creation_time=_datetime(timeline.time(job.phases[0][0])), **place)
    elif found is not None and ended and found.hyper_parameter_tuning_job_status == "InProgress":
        moto_sagemaker.put_tuning_job(name, "Stopped", **place)


def _tuning_job_arn(name: str, place: JobPlace) -> str:
    return f"arn:aws:sagemaker:{place['region']}:{place.get('account_id', ACCOUNT)}:hyper-parameter-tuning-job/" \
           f"{name.lower()}"


def _state_change(name: str, status: str, secondary: str, when: int, account: str, region: str,
                  tags: Mapping[str, str], tuning_job: str | None = None,
                  described: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The "SageMaker Training Job State Change" SageMaker sends when a timeline's job ends (a trial's names its
    tuning job), with `described`: its members that say what it ran on and when."""
    return {"version": "0", "id": hashlib.sha256(f"{name}{when}{status}".encode()).hexdigest()[:32],
            "detail-type": "SageMaker Training Job State Change", "source": "aws.sagemaker", "account": account,
            "time": iso_z(when), "region": region,
            "resources": [f"arn:aws:sagemaker:{region}:{account}:training-job/{name.lower()}"],
            "detail": {"TrainingJobName": name,
                       "TrainingJobArn": f"arn:aws:sagemaker:{region}:{account}:training-job/{name.lower()}",
                       "TrainingJobStatus": status, "SecondaryStatus": secondary, "Tags": dict(tags),
                       "LastModifiedTime": str(when * 1000), **({"TuningJobArn": tuning_job} if tuning_job else {}),
                       **(described or {})}}


class _ServiceJob:
    """A timeline's AWS Batch service job (its `batch` section) in the embedded Batch: submitted at minute 0, each
    of its states played at its minute (an attempt starts one of the timeline's jobs as its training job) and told
    by the state change Batch sends (aws.batch, DescribeServiceJob's answer less its tags and request); a change
    another made (the function's TerminateServiceJob) told at the tick that follows it. The service job the function
    submits again (a restart through Batch: its tag rule-actions:chain names the job) plays the `resubmitted`
    states, once it exists."""

    def __init__(self, timeline: Any, place: JobPlace) -> None:
        from rule_actions_cli.emulator import batch as moto_batch

        self.emulator, self.timeline, self.spec, self.place = moto_batch, timeline, timeline.batch, place
        self.minute: int = 0
        self.running: dict[str, int | None] = {}  # job id -> its running attempt: its index in the jobs
        self.told: tuple[Any, ...] | None = None  # what its last state change told
        moto_batch.set_clock(lambda: self.timeline.time(self.minute) * 1000)
        first = timeline.jobs[0]
        payload = {"TrainingJobName": self.spec.requested_name, "ResourceConfig": first.resources(100),
                   "StoppingCondition": {"MaxRuntimeInSeconds": first.max_runtime_minutes * 60},
                   **({"CheckpointConfig": {"S3Uri": self.spec.checkpoint}} if self.spec.checkpoint else {}),
                   "Tags": [{"Key": key, "Value": value} for key, value in (first.tags or {}).items()]}
        request = {"jobName": self.spec.job_name, "jobQueue": self.spec.queue, "serviceJobType": "SAGEMAKER_TRAINING",
                   "serviceRequestPayload": json.dumps(payload),
                   "retryStrategy": {"attempts": self.spec.retry_attempts},
                   **({"shareIdentifier": self.spec.share} if self.spec.share else {})}
        self.job_id = moto_batch.submit_service_job(request, **self.place)["jobId"]
        self.again: str | None = None  # the service job the function submitted again, once it has

    def states(self, after: int, tick: int) -> list[dict[str, Any]]:
        """The state changes of the states after minute `after` up to `tick`, each played at its minute (the
        resubmitted job's once the function has submitted it)."""
        from rule_actions.contract import RESTART_CHAIN_TAG

        if self.again is None and self.spec.resubmitted:
            self.again = next((job["jobId"] for job in self.emulator.service_jobs(**self.place)
                               if job["tags"].get(RESTART_CHAIN_TAG) == self.spec.job_name), None)
        played = [(self.job_id, state) for state in self.spec.states if after < state.at <= tick]
        if self.again is not None:
            played += [(self.again, state) for state in self.spec.resubmitted if after < state.at <= tick]
        found = []
        for job_id, state in sorted(played, key=lambda pair: pair[1].at):
            self.minute = state.at
            self._play(job_id, state)
            found.append(self.event(job_id))
        return found

    def _play(self, job_id: str, state: Any) -> None:
        running = self.running.get(job_id)
        if state.attempt is not None:  # Batch creates the attempt's training job (SCHEDULED)
            job = self.timeline.jobs[state.attempt]
            self.emulator.start_attempt(job_id, name=job.name, **self.place)
            self.running[job_id] = state.attempt
            if state.status != "SCHEDULED":
                self.emulator.put_service_job(job_id, state.status, status_reason=state.reason, **self.place)
            return
        ended = running is not None and state.status in ("RUNNABLE", "SUCCEEDED", "FAILED")
        why = "Training job stopped (preempted)" if state.preempted else \
            (self.timeline.jobs[running].failure_reason or "Training job ended") if ended and running is not None \
            else None
        self.emulator.put_service_job(
            job_id, state.status, status_reason=state.reason, preempted=state.preempted,
            attempt_reason=f"Received status from SageMaker: {why}" if why else None, **self.place)
        self.running[job_id] = None if ended else running

    def changed(self, tick: int) -> dict[str, Any] | None:
        """The state change of what another did to the job since it was last told (the function's terminate)."""
        self.minute = tick
        job = self.emulator.service_job(self.job_id, **self.place)
        return self.event() if self._key(job) != self.told else None

    def event(self, job_id: str | None = None) -> dict[str, Any]:
        job = self.emulator.service_job(job_id or self.job_id, **self.place)
        if job_id in (None, self.job_id):
            self.told = self._key(job)
        when = self.timeline.time(self.minute)
        detail = {key: value for key, value in job.items() if key not in ("tags", "serviceRequestPayload")}
        return {"version": "0",
                "id": hashlib.sha256(f"{job['jobName']}{when}{self._key(job)}".encode()).hexdigest()[:32],
                "detail-type": "Batch Service Job State Change", "source": "aws.batch",
                "account": self.place.get("account_id", ACCOUNT), "time": iso_z(when), "region": self.place["region"],
                "resources": [job["jobArn"]], "detail": detail}

    def close(self) -> None:
        self.emulator.set_clock(None)

    @staticmethod
    def _key(job: Mapping[str, Any]) -> tuple[Any, ...]:
        return job["status"], len(job.get("attempts") or ()), job.get("statusReason"), job.get("isTerminated")


def _copies(found: Mapping[str, Any]) -> list[str]:
    """The jobs a row's restarts created (a restart done, naming its copy)."""
    return [job for action in found.get("actions", []) if action.get("kind") == "restart"
            and action.get("outcome") == "done" for job in action.get("jobs") or []]


def _delivery(message: str, subject: str | None, attributes: Mapping[str, Any] | None) -> Delivery:
    """One published message as a subscriber gets it: the team topic's JSON structure (its text message under
    "sms"), or the chat topic's custom notification (its title and description)."""
    to = ((attributes or {}).get(ROUTING_ATTRIBUTE) or {}).get("Value") or "chat channels"
    try:
        body = json.loads(message)
    except ValueError:
        body = message
    if isinstance(body, dict) and isinstance(body.get("content"), dict):  # a chat custom notification
        content = body["content"]
        return Delivery(to, str(content.get("title") or ""), str(content.get("description") or ""), "chat")
    if isinstance(body, dict) and body.get("sms"):
        return Delivery(to, subject or "", str(body["sms"]), "sms")
    text = body.get("default") if isinstance(body, dict) else body
    return Delivery(to, subject or "", str(text or ""))


def _sub(value: str, region: str) -> str:
    return value.replace("${AWS::AccountId}", ACCOUNT).replace("${AWS::Region}", region).replace("${AWS::Partition}", "aws")


class EmbeddedAccount:
    """`with EmbeddedAccount(assembly_dir, stack_name) as account: account.process(event)`."""

    def __init__(self, assembly_dir: Path, stack_name: str, region: str = "us-east-1",
                 secrets: Mapping[str, str] | None = None, cloudformation: bool = True):
        self.assembly_dir, self.stack_name, self.region = Path(assembly_dir), stack_name, region
        # The stack created by moto's CloudFormation (DescribeStacks finds it: the commands that read a deployed
        # stack, run against this account), or only its resources, as moto's CloudFormation creates them, without
        # importing it (emulator.stacks: a third of a one-event replay's start-up): the replay reads nothing else.
        self.cloudformation = cloudformation
        self.secrets = dict(secrets or {})
        self._mock = mock_aws()
        self.patterns: list[dict[str, Any]] = []
        self.environment: dict[str, str] = {}
        self._seen: set[tuple[object, ...]] = set()  # (family, job name, its place's values)
        self._evaluated: dict[str, set[Any]] = {}
        # Told what the replay is doing (the deploy, each event, each timeline's minute): a terminal's status line.
        self.progress: Callable[[str], None] = lambda text: None
        self._doing = ""  # the timeline being replayed, for its minutes' progress

    def __enter__(self) -> EmbeddedAccount:
        self._saved_env, self._saved_session = dict(os.environ), boto3.DEFAULT_SESSION
        os.environ.update(AWS_ACCESS_KEY_ID="embedded", AWS_SECRET_ACCESS_KEY="embedded", AWS_DEFAULT_REGION=self.region)
        for key in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
            os.environ.pop(key, None)
        self.progress(f"deploying stack {self.stack_name} on the embedded AWS")
        _botocore_data_once()
        moto_speed.install()
        self._mock.start()
        try:
            moto_sagemaker.install()
            moto_monitoring.install()
            moto_pricing.install()
            moto_dynamodb.install()
            self._deploy()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mock.stop()
        os.environ.clear()
        os.environ.update(self._saved_env)
        boto3.DEFAULT_SESSION = self._saved_session  # replay() makes one with the function's credentials

    def client(self, service: str) -> Any:
        return boto3.client(service, region_name=self.region)

    def put_metrics(self, datapoints: Iterable[tuple[str, str, Mapping[str, str], float, float]]) -> None:
        """(namespace, name, dimensions, epoch seconds, value) datapoints into the CloudWatch of the function's account
        and region (what it emitted as its log lines' embedded metrics)."""
        moto_monitoring.put_metrics(datapoints, account_id=self.function_arn.split(":")[4], region=self.region)

    def _deploy(self) -> None:
        self.template = template = json.loads((self.assembly_dir / f"{self.stack_name}.template.json").read_text())
        if "batch:TerminateServiceJob" in json.dumps(template):  # the Batch family is on: AWS Batch's service jobs
            from rule_actions_cli.emulator import batch as moto_batch  # (moto's Batch costs ~2 s to import)

            moto_batch.install()
        self._upload_assets()
        # moto skips the types it does not emulate (alarms, topic/queue policies, EventInvokeConfig, CDK
        # metadata) with a warning each: they do not change what the handler does, so the run stays quiet.
        logging.getLogger("moto").setLevel(logging.ERROR)
        # Custom resources (the account's SMS delivery settings) would have moto invoke their provider function,
        # which needs Docker: they set nothing the handler reads.
        template["Resources"] = {name: r for name, r in template["Resources"].items()
                                 if not r["Type"].startswith("Custom::")}
        warnings.filterwarnings("ignore", message="Tried to parse AWS::", category=UserWarning)
        resources = self._create_stack(template)
        handlers = {name for name, r in template["Resources"].items()
                    if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("Handler") == HANDLER}
        # The evaluator (the monitor rules) is the function the stack's schedule rules target; the other is the one.
        scheduled = [r["Properties"] for r in template["Resources"].values()
                     if r["Type"] == "AWS::Events::Rule" and "ScheduleExpression" in r["Properties"]]
        targets = [t for rule in scheduled for t in rule.get("Targets", [])]
        evaluator = {t["Arn"]["Fn::GetAtt"][0] for t in targets if isinstance(t.get("Arn"), dict) and "Fn::GetAtt" in t["Arn"]}
        physical = {r.get("LogicalResourceId"): r.get("PhysicalResourceId") for r in resources}
        [function] = [physical[name] for name in handlers - evaluator]
        configuration = self.client("lambda").get_function_configuration(FunctionName=function)
        self.function_name, self.function_arn = configuration["FunctionName"], configuration["FunctionArn"]
        self.environment = dict(configuration.get("Environment", {}).get("Variables", {}))
        # The function's code root, as Lambda's LAMBDA_TASK_ROOT: where a configuration too large for the
        # environment is read from (the handler itself runs from this checkout's package).
        [code] = {r["Properties"]["Code"]["S3Key"] for name, r in template["Resources"].items() if name in handlers}
        self.environment["LAMBDA_TASK_ROOT"] = str(self.assembly_dir / f"asset.{code.removesuffix('.zip')}")
        self.evaluator_name: str | None = None
        self.evaluator_arn: str | None = None
        self.evaluations: list[dict[str, Any]] = []  # each scheduled run's request body, its time left out
        if evaluator & handlers:
            [name] = evaluator & handlers
            found = self.client("lambda").get_function_configuration(FunctionName=physical[name])
            self.evaluator_name, self.evaluator_arn = found["FunctionName"], found["FunctionArn"]
            self.evaluator_environment = {**found.get("Environment", {}).get("Variables", {}),
                                          "LAMBDA_TASK_ROOT": self.environment["LAMBDA_TASK_ROOT"]}
            self.evaluations = [next(iter(json.loads(t["InputTransformer"]["InputTemplate"].replace(
                "<time>", "null")).values())) for t in targets if "InputTransformer" in t]
        self.patterns = self._function_patterns()
        if not self.patterns:
            raise RuntimeError("the stack has no EventBridge rule targeting its function")
        self._subscriptions(template, resources)
        for name, value in self.secrets.items():
            self.client("secretsmanager").create_secret(Name=name, SecretString=value)

    def _create_stack(self, template: dict[str, Any]) -> list[dict[str, Any]]:
        """The stack created in the embedded account, as its StackResources (logical and physical ids): by moto's
        CloudFormation, or (`cloudformation` false) each resource as it creates them without it (emulator.stacks),
        unless the template holds what emulator.stacks does not deploy so."""
        if not self.cloudformation:
            from moto.iam.models import get_account_id_from

            account = get_account_id_from(os.environ["AWS_ACCESS_KEY_ID"])  # as moto answers these credentials
            deployed = moto_stacks.deploy(template, self.stack_name, account, self.region)
            if deployed is not None:
                return [{"LogicalResourceId": logical, "PhysicalResourceId": physical}
                        for logical, physical in deployed.physical.items()]
        self.client("ssm").put_parameter(Name=BOOTSTRAP_VERSION, Value="30", Type="String")
        moto_speed.install_templates()
        cloudformation = self.client("cloudformation")
        cloudformation.create_stack(
            StackName=self.stack_name,
            TemplateBody=json.dumps(template),
            Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"],
        )
        status = cloudformation.describe_stacks(StackName=self.stack_name)["Stacks"][0]["StackStatus"]
        if status != "CREATE_COMPLETE":
            raise RuntimeError(f"the embedded stack did not deploy: {status}")
        described = cloudformation.describe_stack_resources(StackName=self.stack_name)
        found: list[dict[str, Any]] = described["StackResources"]
        return found

    def deliveries(self) -> list[Delivery]:
        """What the stack's topics delivered, in order: each message's audience (`to`: team, or the address or
        number it was sent to), its subject and its text message (the chat topic's: the notification's title and
        description). Read from moto's SNS, which records every publish; call it inside the `with`."""
        from moto.sns.models import sns_backends

        found = []
        for variable in (ENV_TOPIC_ARN, ENV_CHAT_TOPIC_ARN):
            arn = self.environment.get(variable)
            if not arn:
                continue
            _, _, _, region, account, _ = arn.split(":", 5)
            topic = sns_backends[account][region].topics.get(arn)
            for _id, message, subject, attributes, _group in topic.sent_notifications if topic else []:
                found.append(_delivery(message, subject, attributes))
        return found

    def _subscriptions(self, template: dict[str, Any], resources: list[dict[str, Any]]) -> None:
        """moto's CloudFormation skips AWS::SNS::Subscription: create the team's subscriptions as declared."""
        physical = {r.get("LogicalResourceId"): r.get("PhysicalResourceId") for r in resources}
        sns = self.client("sns")
        for resource in template.get("Resources", {}).values():
            if resource.get("Type") != "AWS::SNS::Subscription":
                continue
            props = resource["Properties"]
            topic = props["TopicArn"]
            topic_arn = physical.get(topic["Ref"]) if isinstance(topic, dict) and "Ref" in topic else topic
            attributes = {"FilterPolicy": json.dumps(props["FilterPolicy"])} if "FilterPolicy" in props else {}
            sns.subscribe(TopicArn=topic_arn, Protocol=props["Protocol"], Endpoint=props["Endpoint"], Attributes=attributes)

    def _upload_assets(self) -> None:
        s3 = self.client("s3")
        for asset in file_assets(self.assembly_dir, self.stack_name):
            body = asset_bytes(self.assembly_dir, asset)
            for destination in asset["destinations"].values():
                bucket = _sub(destination["bucketName"], self.region)
                if bucket not in {b["Name"] for b in s3.list_buckets().get("Buckets", [])}:
                    # S3 refuses a LocationConstraint of us-east-1 and requires one everywhere else
                    where = {} if self.region == "us-east-1" else {
                        "CreateBucketConfiguration": {"LocationConstraint": self.region}}
                    s3.create_bucket(Bucket=bucket, **where)
                s3.put_object(Bucket=bucket, Key=_sub(destination["objectKey"], self.region), Body=body)

    def _function_patterns(self) -> list[dict[str, Any]]:
        """The patterns of the stack's rules that invoke the function (on the default bus)."""
        return self._patterns_targeting(self.function_arn)

    def _patterns_targeting(self, function_arn: str, events: Any = None, bus: str = "default") -> list[dict[str, Any]]:
        """The patterns of the rules on `bus` that target `function_arn` (the stack's own bus and account unless
        an events client of another account is given)."""
        events = events or self.client("events")
        patterns = []
        for rule in events.list_rules(EventBusName=bus).get("Rules", []):
            targets = events.list_targets_by_rule(Rule=rule["Name"], EventBusName=bus).get("Targets", [])
            if any(t["Arn"] == function_arn for t in targets) and rule.get("EventPattern"):
                patterns.append(json.loads(rule["EventPattern"]))
        return patterns

    def replay(self, events: list[tuple[str, Any]], log: TextIO | None = None) -> list[dict[str, Any]]:
        """Each event through the stack's rule pattern and, when it matches, the real handler. The handler's
        logs and EMF metrics (its stdout in Lambda) go to `log`, or nowhere."""
        return self._as_function(lambda handler: self._replay(handler, events), log)

    def invoke(self, payload: Any, log: TextIO | None = None) -> Any:
        """The handler called directly with `payload` (as `aws lambda invoke` would: no rule pattern)."""
        return self._as_function(
            lambda handler: handler.lambda_handler(payload, LocalContext(self.function_name, self.function_arn)), log)

    def _as_function(self, run: Callable[[Any], T], log: TextIO | None, evaluator: bool = False) -> T:
        """`run(handler)` with the function's environment (or the evaluator's), its logs and metrics sent to `log`
        (or nowhere)."""
        from rule_actions import handler  # after the environment is the function's
        from rule_actions.observability import logger

        environment = self.evaluator_environment if evaluator else self.environment
        os.environ.update(environment, AWS_REGION=self.region, RULE_ACTIONS_LOGS_TPS="0",
                          **self._function_credentials(evaluator))
        boto3.setup_default_session()  # the handler's clients read these credentials (a session keeps the first)
        handler.runtime.cache_clear()
        with open(os.devnull, "w") as devnull:
            # (Powertools registers a StreamHandler; its registered_handler is typed as any logging.Handler)
            sink, logs = log or devnull, cast("logging.StreamHandler[TextIO]", logger.registered_handler)
            # Swapped, not setStream: that flushes the stream it replaces, which a caller may have closed since.
            previous, logs.stream = logs.stream, sink
            try:
                with contextlib.redirect_stdout(sink):
                    return run(handler)
            finally:
                logs.stream = previous

    def _function_credentials(self, evaluator: bool = False) -> dict[str, str]:
        """Environment variables of the credentials the handler runs with: here, the environment's own."""
        return {}

    def _replay(self, handler: Any, events: list[tuple[str, Any]]) -> list[dict[str, Any]]:
        """One row per event, whatever an event holds: what cannot be read or seeded is a problem on its row. A
        timeline (events/timelines/) is replayed in its place, as its rows."""
        context = LocalContext(self.function_name, self.function_arn)
        rows: list[dict[str, Any]] = []
        timelines = [is_timeline(event) for _, event in events]
        counts, done = {True: sum(timelines), False: len(events) - sum(timelines)}, {True: 0, False: 0}
        for (source, event), timeline in zip(events, timelines, strict=True):
            done[timeline] += 1
            self._doing = f"{'timeline' if timeline else 'event'} {done[timeline]}/{counts[timeline]} {source}"
            self.progress(self._doing)
            if timeline:
                rows += self._timeline(handler, source, event)
            else:
                rows.append(self._replay_one(handler, context, source, event))
        return rows

    # ------------------------------------------------------------------------------------ timelines

    def replay_timeline(self, source: str, data: dict[str, Any], log: TextIO | None = None,
                        keep: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """A timeline's rows (the evaluator at each tick, the job's state changes as they happen). `keep`, when
        given, receives every evaluation's whole result (the benchmarks read every verdict)."""
        return self._as_function(lambda handler: self._timeline(handler, source, data, keep), log)

    def _timeline(self, handler: Any, source: str, data: dict[str, Any],
                  keep: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """The timeline minute by minute: at each tick of the schedule, each job's status as its phases say (a job
        this stack stopped goes Stopped at the next tick), what SageMaker published since the previous tick seeded
        in CloudWatch and CloudWatch Logs, then every scheduled run of the evaluator at the tick's time; a job's
        terminal state change goes through the stack's rule and the function, as any event."""
        from rule_actions_cli.replay_table import NO_MONITOR, row
        from rule_actions_cli.timeline import read

        timeline, problems = read(data, source)
        if timeline is None:
            return [row(source, None, False, None, problems)]
        if not self.evaluations:
            return [row(source, None, False, {"ignored": NO_MONITOR})]
        every = timeline.every or self._schedule_minutes()
        for run in self.evaluations:
            self._evaluated_place(run)
        assert self.evaluator_name is not None and self.evaluator_arn is not None  # (evaluations are its)
        evaluator = LocalContext(self.evaluator_name, self.evaluator_arn, remaining_millis=every * 60_000)
        main = LocalContext(self.function_name, self.function_arn)
        # The jobs this timeline runs (a tuning job's trials, a step's pipeline execution too) -> their family: its
        # rows name them as every other row does, and only them (timelines replayed together share the account).
        families: dict[str, str] = {}
        for job in timeline.jobs:
            families[job.name] = job.family
            families.update({trial.name: "training" for trial in job.trials})
            for parent, family in ((job.tuning_job, "tuning"), ((job.tags or {}).get(PIPELINE_TAG), "pipeline")):
                if parent:  # by its name or ARN
                    families.setdefault(parent, family)
                    families.setdefault(parent.rsplit("/", 1)[-1], family)
        if timeline.batch:  # its service job: the rows of the Batch family's sweep of waiting jobs name it
            families.setdefault(timeline.batch.job_name, "batch")
        jobs = list(timeline.jobs)  # and the copies the function creates of them (restarts), as they are created
        service = _ServiceJob(timeline, self._timeline_place(timeline.jobs[0])) if timeline.batch else None
        try:
            return self._ticks(handler, source, timeline, every, evaluator, main, families, jobs, service, keep)
        finally:
            if service is not None:
                service.close()

    def _ticks(self, handler: Any, source: str, timeline: Any, every: int, evaluator: Any, main: Any,
               families: dict[str, str], jobs: list[Any], service: _ServiceJob | None,
               keep: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        """The timeline's ticks (see _timeline), its service job's state changes among its jobs'."""
        from rule_actions.contract import EVALUATION_KEY
        from rule_actions_cli.replay_table import row

        ours: dict[str, int] = {}  # job -> the tick at which this stack stopped it
        seen = self._evaluated  # job -> what its previous evaluation showed (rule verdicts, problems), for the run
        phases: dict[str, tuple[str, str]] = {}  # job -> its status and phase at the previous tick
        rows: list[dict[str, Any]] = []
        previous = 0
        for tick in timeline.ticks(every):
            label = f"{source}#+{tick}m"
            self.progress(f"{self._doing or source}: minute {tick} of {timeline.minutes}")
            changes = service.states(-1 if previous == 0 else previous, tick) if service is not None else []
            # A state change between two runs reaches the function when it happens, before the run at this tick
            now = iso_z(timeline.time(tick))
            early = [event for event in changes if event["time"] < now]
            changes = [event for event in changes if event["time"] >= now]
            rows += self._deliver(handler, main, label, early, timeline, jobs, families, tick)
            for job in jobs:
                place = self._timeline_place(job)
                change = self._advance(timeline, job, tick, ours, phases, place)
                if change:
                    changes.append(change)
                stop = min(tick, ours.get(job.name, tick))
                minutes = [m for m in range(previous, stop) if (job.phase(m) or (0, ""))[1] == "InProgress"]
                if minutes:
                    moto_monitoring.put_metrics(timeline.datapoints(job, minutes[0], minutes[-1] + 1), **place)
                    lines: dict[str, list[tuple[float, str]]] = {}
                    for stream, stamp, message in timeline.log_lines(job, minutes[0], minutes[-1] + 1):
                        lines.setdefault(stream, []).append((stamp, message))
                    for stream, found in lines.items():
                        moto_monitoring.put_log_lines(job.log_group, stream, found, **place)
                    for uri, stamp in timeline.checkpoints(job, minutes[0], minutes[-1] + 1):
                        moto_s3.put_checkpoint(uri, _datetime(stamp), account_id=place.get("account_id", ACCOUNT),
                                               region=place["region"])
            for run in self.evaluations:
                request = {EVALUATION_KEY: {**run, "time": iso_z(timeline.time(tick))}}
                self._credentials_of(handler, evaluator=True)
                try:
                    result = handler.lambda_handler(request, evaluator)
                except handler.ActionsFailed as err:
                    result = {**err.result, "error": str(err)}
                finally:
                    self._credentials_of(handler, evaluator=False)
                if keep is not None:
                    keep.append({"tick": tick, "result": result})
                for job in result.get("jobs", []):
                    name = job.get("training_job") or job.get("job")  # a training job's row, or another family's
                    if name not in families:  # another timeline's job (the account is shared): not this one's row
                        continue
                    stopped = [a for a in job.get("actions", []) if a["kind"] in ("stoptraining", "stop")
                               and a["outcome"] == "done"]
                    if stopped and name not in ours:
                        ours[name] = tick
                    shown = _shown(job)
                    if _notable(job, shown, seen.get(name, set())):
                        rows.append(row(label, name, True, job, job.get("problems", ()),
                                        job.get("job_family") or families[name]))
                    seen[name] = shown
                failed = result.get("error") or result.get("ignored") or result.get("evaluation", {}).get("error")
                if failed and not result.get("jobs"):
                    rows.append(row(label, None, True, {"error": failed}))
            told = service.changed(tick) if service is not None else None
            changes += [told] if told else []
            rows += self._deliver(handler, main, label, changes, timeline, jobs, families, tick)
            previous = tick
        for job in jobs:  # the timeline is over: its jobs leave the account's running jobs, quietly, so that
            if phases.get(job.name, ("InProgress",))[0] == "InProgress":  # a later timeline sees only its own
                if job.family == "training":
                    moto_sagemaker.put_training_job(job.name, "Stopped", secondary_status="Stopped",
                                                    **self._timeline_place(job))
                else:
                    _put_other(timeline, job, "Stopped", timeline.minutes, self._timeline_place(job))
            _put_parent_tuning_job(timeline, job, self._timeline_place(job), ended=True)  # a trial's, unplayed
            execution = (job.tags or {}).get(PIPELINE_TAG)
            if execution:  # its pipeline execution ends with the timeline too (Stopped, if this stack stopped it)
                moto_sagemaker.put_pipeline_execution(execution, "Stopped", **self._timeline_place(job))
        return rows

    def _deliver(self, handler: Any, main: Any, label: str, events: list[dict[str, Any]], timeline: Any,
                 jobs: list[Any], families: dict[str, str], tick: int) -> list[dict[str, Any]]:
        """The rows of the state changes handed to the function at `tick`; a restart's copy joins the timeline."""
        from rule_actions_cli.replay_table import row

        rows: list[dict[str, Any]] = []
        for event in events:  # a state change the stack's rule does not match invokes nothing: no row
            replayed = self._replay_one(handler, main, label, event)
            if replayed["matched"] or replayed.get("problems"):
                rows.append(replayed)
            for name in _copies(replayed):  # a restart: the copy plays its attempt's spec from this tick on
                copy, said = self._copy_of(timeline, jobs, name, tick)
                if copy is not None and copy.name not in families:
                    jobs.append(copy)
                    families[copy.name] = "training"
                    if said:
                        rows.append(row(label, copy.name, True, {"ignored": said}, (), "training"))
        return rows

    def _copy_of(self, timeline: Any, jobs: list[Any], name: str, tick: int) -> tuple[Any, str]:
        """The copy `name` the function created at `tick` (a restart of a timeline's job) as a job of the timeline:
        what its chain's first job's `restarts` says its attempt does (minutes from `tick`), on what the function
        created (its resources, tags and checkpoint, read from the embedded account). With no spec for its attempt,
        a job with no phases (left as CreateTrainingJob made it) and what its row says; (None, "") when the copy is
        not a restart of this timeline's jobs."""
        from rule_actions.contract import RESTART_ATTEMPT_TAG as ATTEMPT_TAG
        from rule_actions.contract import RESTART_CHAIN_TAG as CHAIN_TAG
        from rule_actions.contract import RESTART_FROM_TAG as FROM_TAG

        for root in timeline.jobs:
            place = self._timeline_place(root)
            made = moto_sagemaker._backend(place.get("account_id", ACCOUNT), place["region"]).training_jobs.get(name)
            if made is None:
                continue
            tags = {t["Key"]: t["Value"] for t in made.tags or []}
            attempt = tags.get(ATTEMPT_TAG, "")
            if tags.get(CHAIN_TAG) != root.name or not attempt.isdigit():
                continue
            made.creation_time = made.last_modified_time = _datetime(timeline.time(tick))  # created at this tick
            for transition in made.secondary_status_transitions or []:
                transition["StartTime"] = made.creation_time
            resources = made.resource_config or {}
            spec = root.restarts[int(attempt) - 1] if 0 < int(attempt) <= len(root.restarts) else None
            said = "" if spec else (f"the timeline gives attempt {attempt} of {root.name} no spec (its restarts has "
                                    f"{len(root.restarts)}): left as created, InProgress (Starting), until the "
                                    "timeline ends")
            template = spec or replace(root, phases=(), metrics=(), logs=(), expect=(), checkpoint=None)
            copy = template.attempt(tick, name, str(resources.get("InstanceType") or root.instance_type),
                                    int(resources.get("InstanceCount") or root.instance_count), tags,
                                    (made.checkpoint_config or {}).get("S3Uri"), tags.get(FROM_TAG, root.name))
            return replace(copy, account=root.account), said
        return None, ""

    def _schedule_minutes(self) -> int:
        found = [r["Properties"]["ScheduleExpression"] for r in self.template["Resources"].values()
                 if r["Type"] == "AWS::Events::Rule" and "ScheduleExpression" in r["Properties"]]
        match = re.fullmatch(r"rate\((\d+) minutes?\)", found[0]) if found else None
        return int(match.group(1)) if match else 5

    def _timeline_place(self, job: Any) -> JobPlace:
        """Where a timeline's job lives: the stack's account and region."""
        return {"region": self.region}

    def _evaluated_place(self, run: dict[str, Any]) -> None:
        """What a scheduled run evaluates exists: here, the stack's own account."""

    def _credentials_of(self, handler: Any, evaluator: bool) -> None:
        """The handler's clients with the function's credentials, or the evaluator's (the same here)."""
        credentials = self._function_credentials(evaluator)
        if credentials:
            os.environ.update(credentials)
            boto3.setup_default_session()
            handler.runtime.cache_clear()

    def _advance(self, timeline: Any, job: Any, tick: int, ours: dict[str, int], phases: dict[str, tuple[str, str]],
                 place: JobPlace) -> dict[str, Any] | None:
        """The job's status at `tick` in the embedded account; the state change to replay when its status or phase
        changed since the previous tick (SageMaker sends one at each: the stack's rule matches the outcomes)."""
        from rule_actions_cli.timeline import LOCAL_PATH

        if phases.get(job.name, ("",))[0] in ("Completed", "Failed", "Stopped"):
            return None
        if job.name in ours:  # stopped by this stack at an earlier tick: SageMaker ends it Stopped
            if tick == ours[job.name]:
                return None
            status, secondary = "Stopped", "Stopped"
        else:
            phase = job.phase(tick)
            if phase is None:
                return None
            status, secondary = phase[1], phase[2]
        if job.family != "training":  # its status (and a tuning job's trials) in the account; no state change
            _put_other(timeline, job, status, tick, place)
            phases[job.name] = (status, secondary)
            return None
        transitions = [{"Status": p[2], "StartTime": _datetime(timeline.time(p[0])),
                        "StatusMessage": p[3]} for p in job.phases if p[0] <= tick and p[1] == "InProgress"]
        # TrainingStartTime: when the job started on its instances (billing starts), its first phase after launching.
        training = [t["StartTime"] for t in transitions if t["Status"] not in ("Starting", "Pending",
                                                                                 "LaunchingMLInstances")]
        tuning_job = _tuning_job_arn(job.tuning_job, place) if job.tuning_job else None
        _put_parent_tuning_job(timeline, job, place)
        ended = status not in ("InProgress", "Stopping")
        seconds = int(timeline.time(tick) - training[0].timestamp()) if ended and training else None
        failure = job.failure_reason if status == "Failed" and job.failure_reason else None
        if job.restarted_from:  # a copy the function created: what it runs on, its tags and checkpoint are its own
            moto_sagemaker.put_training_job(
                job.name, status, secondary_status=secondary, **place, transitions=transitions,
                training_start_time=training[0] if training else None, failure_reason=failure,
                training_time_in_seconds=seconds)
            made = moto_sagemaker._backend(place.get("account_id", ACCOUNT), place["region"]).training_jobs[job.name]
            resources, stopping = dict(made.resource_config or {}), dict(made.stopping_condition or {})
            checkpoint = dict(made.checkpoint_config) if made.checkpoint_config else None
        else:
            resources = job.resources(100)
            stopping = {"MaxRuntimeInSeconds": job.max_runtime_minutes * 60}
            checkpoint = {"S3Uri": job.checkpoint.s3_uri, "LocalPath": LOCAL_PATH} if job.checkpoint else None
            moto_sagemaker.put_training_job(
                job.name, status, secondary_status=secondary, tuning_job_arn=tuning_job, **place,
                resource_config=resources, tags=job.tags, transitions=transitions,
                metric_definitions=[{"Name": m, "Regex": f"{m}=([0-9.eE+-]+)"} for m in job.metric_definitions],
                training_start_time=training[0] if training else None, stopping_condition=stopping,
                checkpoint_config=checkpoint, failure_reason=failure, training_time_in_seconds=seconds,
                enable_managed_spot_training=job.spot)
        if phases.get(job.name) == (status, secondary):
            return None
        phases[job.name] = (status, secondary)
        # What SageMaker's state change carries of the job besides its status (its description): what it ran on and
        # when, so that an outcome's message says what the job cost; its checkpoint, why it failed.
        described = {"ResourceConfig": resources, "StoppingCondition": stopping,
                     "SecondaryStatusTransitions": [{"Status": t["Status"], "StartTime": int(t["StartTime"].timestamp()
                                                                                              * 1000)}
                                                    for t in transitions],
                     **({"EnableManagedSpotTraining": True} if job.spot else {}),
                     **({"CheckpointConfig": checkpoint} if checkpoint else {}),
                     **({"FailureReason": failure} if failure else {}),
                     **({"TrainingStartTime": str(int(training[0].timestamp() * 1000))} if training else {}),
                     **({"TrainingEndTime": str(timeline.time(tick) * 1000)} if status != "InProgress" else {}),
                     **({"TrainingTimeInSeconds": seconds} if seconds is not None else {})}
        return _state_change(job.name, status, secondary, timeline.time(tick), place.get("account_id", ACCOUNT),
                             place["region"], job.tags, tuning_job, described)

    def _replay_one(self, handler: Any, context: LocalContext, source: str, event: Any) -> dict[str, Any]:
        from rule_actions.pipeline import read_event
        from rule_actions.records import IgnoredEvent
        from rule_actions_cli.inputs import EVENT_SHAPE, not_an_event
        from rule_actions_cli.replay_table import row

        problem = not_an_event(event)
        if problem:  # an element of a list of events that is not one: its own row, the rest goes on
            return row(source, None, False, None, [problem])
        job, family = job_of(event)
        try:
            problems = list(read_event(event)[0].problems)
        except IgnoredEvent as err:
            shape = "" if isinstance(event, dict) and "detail-type" in event else f"; {EVENT_SHAPE}"
            problems = [f"not an event the function acts on: {err}{shape}"]
        undelivered = self.undelivered(event)
        if undelivered:  # its account is not in this embedded world: nothing to seed, no bus of ours sees it
            return row(source, job, False, {"ignored": undelivered, **self.where(event)}, problems, family)
        problems += self.seed_job(event)
        if not self.matched(event):
            return row(source, job, False, self.where(event), problems, family)
        try:
            result = handler.lambda_handler(event, context)
        except handler.ActionsFailed as err:  # Lambda would retry the event; the replay reports it
            result = {**err.result, "error": str(err)}
        except Exception as err:  # the function would fail on this event: reported on its row, the rest goes on
            result = {"error": f"the function raised {type(err).__name__}: {err}"}
        return row(source, result.get("job") or job, True, result, problems, family)

    def where(self, event: Any) -> dict[str, str]:
        """What a row says of the account an event came from: nothing with one account."""
        return {}

    def undelivered(self, event: Any) -> str | None:
        """Why the event never reaches a bus of this deployment, or None. One account: the embedded account stands
        for the user's, whatever account the event names (events copied from a real account replay as they are)."""
        return None

    def matched(self, event: Any) -> bool:
        return isinstance(event, dict) and any(matches(pattern, event) for pattern in self.patterns)

    def _job_place(self, event: dict[str, Any]) -> JobPlace:
        """Where the event's training job lives in the embedded world: the stack's account and region."""
        return {"region": self.region}

    def seed_job(self, event: Any) -> list[str]:
        """The job the event names exists with the status it states (what its family keeps from the first sight,
        e.g. a training job's rule configurations: their readable entries); returns why it could not be, as
        problems of the event (nothing raises). Each family is seeded as rule_actions_cli.seeding.seeder says: a
        pipeline's step events record the steps ListPipelineExecutionSteps lists."""
        family = registry.job_family(event)
        detail = event.get("detail") if family else None
        if not family or not isinstance(detail, dict) or not isinstance(family.name_of(detail), str):
            return []
        name = family.name_of(detail)
        first: dict[str, Any] = {}
        place = self._job_place(event)
        if (family.name, name, *place.values()) not in self._seen:  # first sight (a name per account and region)
            self._seen.add((family.name, name, *place.values()))
            first = {xform_name(member): [item for item in detail[member] if isinstance(item, dict)]
                     for member in family.kept if isinstance(detail.get(member), list)}
        try:
            return seeder(family)(family, event.get("detail-type"), detail, first, **place)
        except Exception as err:  # e.g. a name SageMaker would refuse
            return [f"embedded account: the job could not be created ({type(err).__name__}: {quoted(str(err))})"]
