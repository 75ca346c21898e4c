"""The project's only extension of moto's SageMaker: the calls it lacks, and a way to seed the jobs of every family.

moto (5.1/5.2) lacks what the rule-action tests and the local replay need:

* ``StopTrainingJob`` is not implemented (``NotImplementedError`` in-process, HTTP 500 in server mode).
* ``ListTrainingJobsForHyperParameterTuningJob`` (a tuning job's trials) and ``ListPipelineExecutionSteps`` (a
  pipeline execution's steps) are not implemented: both are added here, over the training jobs seeded with the
  ARN of their tuning job and over the steps seeded from a pipeline's step events. The tests check each one's
  request and response against botocore's service model.
* ``CreateTrainingJob`` always makes a job that is already ``Completed``; there is no way to get an
  ``InProgress`` job through the API.
* ``ProfilerRuleConfigurations`` is ignored by ``CreateTrainingJob``, and nothing ever sets
  ``DebugRuleEvaluationStatuses`` / ``ProfilerRuleEvaluationStatuses``.

moto builds ``DescribeTrainingJob`` from the attributes of its ``FakeTrainingJob`` (``foo_bar`` ->
``FooBar``) and its serializer keeps every member of the botocore output shape, so setting
``profiler_rule_configurations``, ``debug_rule_evaluation_statuses`` ... on the object is enough: the
describe output needs no patching. ``ListTrainingJobs`` filters on ``training_job_status`` and
``training_job_name``, so it follows the attributes set here too.

How the patch hooks in (see :func:`install`): two methods are registered on moto's classes,
``SageMakerModelBackend.stop_training_job`` (the semantics) and ``SageMakerResponse.stop_training_job``
(parameter parsing). moto's ``BaseResponse.call_action`` looks the action up by name on the response
class at every request, and both ``moto.mock_aws`` and ``moto.server.ThreadedMotoServer`` dispatch to
that same class and read the same process-wide ``sagemaker_backends``, so one ``install()`` serves both
(the server must run in this process; a separate ``moto_server`` process is not patched).

Caveats:

* ``put_training_job`` writes to moto's process-wide backend. Entering or leaving ``moto.mock_aws``
  resets every backend, including the one a ``ThreadedMotoServer`` in the same process serves; the
  server itself never resets unless asked (``POST /moto-api/reset``), so jobs persist between tests
  that share a server.
* A stopped job stays ``Stopping``: nothing moves it to ``Stopped``. Call
  ``put_training_job(name, "Stopped")`` to play that part of SageMaker.

Seeding (``SEEDERS``, one per job family, each from an event's detail): training jobs (their status, rules, the
tuning job that launched them, their FailureReason), tuning jobs, processing jobs and transform jobs through moto's
own create calls and then their attributes (moto builds each describe from them), pipeline executions and their
steps in a store of this module's on moto's backend (reset with it).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.utils import utcnow
from moto.sagemaker.exceptions import ResourceNotFound, ValidationError
from moto.sagemaker.models import SageMakerModelBackend, sagemaker_backends
from moto.sagemaker.responses import SageMakerResponse

from rule_actions.text import quoted

__all__ = [
    "DEFAULT_ACCOUNT_ID",
    "SEEDERS",
    "TRAINING_JOB_STATUSES",
    "install",
    "put_pipeline_execution",
    "put_pipeline_step",
    "put_processing_job",
    "put_training_job",
    "put_transform_job",
    "put_tuning_job",
    "training_job_status",
]

# TrainingJobStatus values of the SageMaker API.
TRAINING_JOB_STATUSES = ("InProgress", "Completed", "Failed", "Stopping", "Stopped", "Deleting")

# SecondaryStatus used when the caller gives none.
_DEFAULT_SECONDARY_STATUS = {
    "InProgress": "Training",
    "Completed": "Completed",
    "Failed": "Failed",
    "Stopping": "Stopping",
    "Stopped": "Stopped",
    "Deleting": "Stopped",
}

_PATCH_MARK = "_rule_actions_patch"


# --------------------------------------------------------------------------- StopTrainingJob


def _backend_stop_training_job(self: SageMakerModelBackend, training_job_name: str) -> None:
    """StopTrainingJob as real SageMaker does it: only an InProgress job can be stopped."""
    job = self.training_jobs.get(training_job_name)
    if job is None:
        # Missing job: raise exactly what moto's DescribeTrainingJob raises, i.e.
        # ValidationException "Could not find training job '<job arn>'." (HTTP 400). Real SageMaker
        # answers a missing training job with the same code, ValidationException (its message reads
        # "Requested resource not found."). Delegating keeps us in step with moto if that changes.
        self.describe_training_job(training_job_name)
        raise ValidationError(message="Requested resource not found.")  # only if moto stops raising
    status = job.training_job_status
    if status != "InProgress":
        raise ValidationError(
            message=f"The request was rejected because the training job is in status {status}."
        )
    job.training_job_status = "Stopping"
    job.secondary_status = "Stopping"
    job.last_modified_time = utcnow()


def _empty_response() -> Any:
    try:  # moto >= 5.1.x with the botocore-model serializer
        from moto.core.responses import EmptyResult

        return EmptyResult()
    except ImportError:  # older 5.1 responses return JSON text
        return "{}"


def _response_stop_training_job(self: SageMakerResponse) -> Any:
    """HTTP/botocore side of StopTrainingJob: parse the name, call the backend, return nothing."""
    self.sagemaker_backend.stop_training_job(self._get_param("TrainingJobName"))
    return _empty_response()


# --------------------------------------------------------------------------- ListTrainingJobsForHyperParameterTuningJob

_TRIAL_SORT = {"Name": "training_job_name", "CreationTime": "creation_time", "Status": "training_job_status"}


def _token_page(items: list[Any], next_token: str | None, max_results: int | None) -> tuple[list[Any], str | None]:
    """One page of `items` after `next_token` (an offset, as this module writes it), and the next token."""
    start = int(next_token) if next_token and next_token.isdigit() else 0
    size = max_results or 10
    page = items[start:start + size]
    return page, (str(start + size) if start + size < len(items) else None)


def _backend_list_trials(self: SageMakerModelBackend, hyper_parameter_tuning_job_name: str,
                         status_equals: str | None = None, sort_by: str | None = None,
                         sort_order: str | None = None, next_token: str | None = None,
                         max_results: int | None = None) -> dict[str, Any]:
    """The training jobs a tuning job launched (seeded with its ARN), as HyperParameterTrainingJobSummary."""
    tuning = self.hyper_parameter_tuning_jobs.get(hyper_parameter_tuning_job_name)
    if tuning is None:
        raise ResourceNotFound(message=f"Amazon SageMaker can't find a tuning job with name "
                                       f"{hyper_parameter_tuning_job_name}")
    jobs = [job for job in self.training_jobs.values()
            if getattr(job, "tuning_job_arn", None) == tuning.arn
            and (status_equals is None or job.training_job_status == status_equals)]
    if sort_by == "FinalObjectiveMetricValue":  # jobs without an objective value are not listed (the API's rule)
        jobs = []
    jobs.sort(key=lambda job: getattr(job, _TRIAL_SORT.get(sort_by or "Name", "training_job_name")),
              reverse=sort_order == "Descending")
    page, token = _token_page(jobs, next_token, max_results)
    summaries = []
    for job in page:
        summary = {"TrainingJobName": job.training_job_name, "TrainingJobArn": job.arn,
                   "TuningJobName": hyper_parameter_tuning_job_name, "CreationTime": job.creation_time,
                   "TrainingJobStatus": job.training_job_status,
                   "TunedHyperParameters": dict(job.hyper_parameters or {})}
        objective = getattr(job, "final_objective", None)  # seeded: (metric name, value)
        if objective is not None:
            summary["FinalHyperParameterTuningJobObjectiveMetric"] = {"MetricName": objective[0],
                                                                      "Value": objective[1]}
            summary["ObjectiveStatus"] = "Succeeded"
        for key, attribute in (("TrainingStartTime", "training_start_time"), ("TrainingEndTime", "training_end_time"),
                               ("FailureReason", "failure_reason")):
            if getattr(job, attribute, None):
                summary[key] = getattr(job, attribute)
        summaries.append(summary)
    return {"TrainingJobSummaries": summaries, **({"NextToken": token} if token else {})}


def _response_list_trials(self: SageMakerResponse) -> Any:
    from moto.core.responses import ActionResult

    return ActionResult(self.sagemaker_backend.list_training_jobs_for_hyper_parameter_tuning_job(
        hyper_parameter_tuning_job_name=self._get_param("HyperParameterTuningJobName"),
        status_equals=self._get_param("StatusEquals"), sort_by=self._get_param("SortBy"),
        sort_order=self._get_param("SortOrder"), next_token=self._get_param("NextToken"),
        max_results=self._get_int_param("MaxResults")))


# --------------------------------------------------------------------------- Search (Resource HyperParameterTuningJob)

_MOTO_SEARCH = SageMakerModelBackend.search


def _backend_search(self: SageMakerModelBackend, resource: Any = None, search_expression: Any = None) -> Any:
    """moto's Search, plus the resource HyperParameterTuningJob (botocore's ResourceType lists it; moto 5.2.5 refuses
    it), filtered by the expression's Equals filters on its top-level members, as HyperParameterTuningJobSearchEntity
    (its Tags included)."""
    if resource != "HyperParameterTuningJob":
        return _MOTO_SEARCH(self, resource=resource, search_expression=search_expression)
    filters = (search_expression or {}).get("Filters", [])
    results = []
    for job in self.hyper_parameter_tuning_jobs.values():
        entity = {k: v for k, v in job.describe().items() if v is not None} if hasattr(job, "describe") else {}
        entity = entity or dict(self.describe_hyper_parameter_tuning_job(job.hyper_parameter_tuning_job_name))
        entity["Tags"] = list(getattr(job, "tags", None) or [])
        if all(entity.get(f.get("Name")) == f.get("Value") for f in filters
               if f.get("Operator", "Equals") == "Equals"):
            results.append({"HyperParameterTuningJob": entity})
    return {"Results": results}


def _response_search(self: SageMakerResponse) -> Any:
    from moto.core.responses import ActionResult

    return ActionResult(self.sagemaker_backend.search(resource=self._get_param("Resource"),
                                                      search_expression=self._get_param("SearchExpression")))


# --------------------------------------------------------------------------- ListPipelineExecutionSteps

_STEPS = "rule_actions_pipeline_steps"  # backend attribute: execution ARN -> {step name: PipelineExecutionStep}


def _steps(backend: SageMakerModelBackend) -> dict[str, dict[str, dict[str, Any]]]:
    if not hasattr(backend, _STEPS):
        setattr(backend, _STEPS, {})
    return getattr(backend, _STEPS)


def _backend_list_steps(self: SageMakerModelBackend, pipeline_execution_arn: str, sort_order: str | None = None,
                        next_token: str | None = None, max_results: int | None = None) -> dict[str, Any]:
    """The steps seeded for an execution (put_pipeline_execution / put_pipeline_step), by start time."""
    executions = _steps(self)
    if pipeline_execution_arn not in executions:
        raise ResourceNotFound(message=f"Pipeline execution '{pipeline_execution_arn}' does not exist.")
    steps = sorted(executions[pipeline_execution_arn].values(), key=lambda step: step.get("StartTime") or 0,
                   reverse=sort_order != "Ascending")  # the API's default order: the latest first
    page, token = _token_page([copy.deepcopy(step) for step in steps], next_token, max_results)
    return {"PipelineExecutionSteps": page, **({"NextToken": token} if token else {})}


def _response_list_steps(self: SageMakerResponse) -> Any:
    from moto.core.responses import ActionResult

    return ActionResult(self.sagemaker_backend.list_pipeline_execution_steps(
        pipeline_execution_arn=self._get_param("PipelineExecutionArn"), sort_order=self._get_param("SortOrder"),
        next_token=self._get_param("NextToken"), max_results=self._get_int_param("MaxResults")))


# The calls added (name, backend method, response method): each installed on both classes.
ADDED = (
    ("stop_training_job", _backend_stop_training_job, _response_stop_training_job),
    ("list_training_jobs_for_hyper_parameter_tuning_job", _backend_list_trials, _response_list_trials),
    ("list_pipeline_execution_steps", _backend_list_steps, _response_list_steps),
    ("search", _backend_search, _response_search),
)


def install() -> None:
    """Add StopTrainingJob, ListTrainingJobsForHyperParameterTuningJob, ListPipelineExecutionSteps and Search of tuning jobs to moto's
    SageMaker (in-process ``mock_aws`` and ``ThreadedMotoServer``).

    Idempotent. Registers each on ``SageMakerModelBackend`` and on ``SageMakerResponse``; an implementation moto
    may ship later is replaced, so behaviour stays the one documented here (and matching real SageMaker).
    """
    for name, backend_func, response_func in ADDED:
        for cls, func in ((SageMakerModelBackend, backend_func), (SageMakerResponse, response_func)):
            if getattr(getattr(cls, name, None), _PATCH_MARK, False):
                continue
            setattr(func, _PATCH_MARK, True)
            func.__name__ = name
            func.__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, func)


# --------------------------------------------------------------------------- seeding jobs


def _backend(account_id: str, region: str) -> SageMakerModelBackend:
    return sagemaker_backends[account_id][region]


def _create_minimal_job(backend: SageMakerModelBackend, name: str) -> Any:
    """Create a job through moto's own backend method, with the smallest valid definition."""
    return backend.create_training_job(
        training_job_name=name,
        hyper_parameters={},
        algorithm_specification={
            "TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/train:latest",
            "TrainingInputMode": "File",
        },
        role_arn=f"arn:aws:iam::{backend.account_id}:role/SageMakerRole",
        input_data_config=[],
        output_data_config={"S3OutputPath": f"s3://rule-actions-test-{backend.account_id}/output"},
        resource_config={"InstanceType": "ml.m5.large", "InstanceCount": 1, "VolumeSizeInGB": 10},
        vpc_config=None,  # type: ignore[arg-type]
        stopping_condition={"MaxRuntimeInSeconds": 3600},
        tags=[],
        enable_network_isolation=False,
        enable_inter_container_traffic_encryption=False,
        enable_managed_spot_training=False,
        checkpoint_config=None,  # type: ignore[arg-type]
        debug_hook_config=None,  # type: ignore[arg-type]
        debug_rule_configurations=None,  # type: ignore[arg-type]
        tensor_board_output_config=None,  # type: ignore[arg-type]
        experiment_config=None,  # type: ignore[arg-type]
    )


def _rules(value: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    # Deep copy: the caller's dicts must not alias the backend's state. Strings (action_json) are
    # kept as they are, so they come back byte-identical.
    return None if value is None else [dict(copy.deepcopy(item)) for item in value]


def put_training_job(
    name: str,
    status: str,
    *,
    secondary_status: str | None = None,
    debug_rule_configurations: Sequence[Mapping[str, Any]] | None = None,
    profiler_rule_configurations: Sequence[Mapping[str, Any]] | None = None,
    debug_rule_evaluation_statuses: Sequence[Mapping[str, Any]] | None = None,
    profiler_rule_evaluation_statuses: Sequence[Mapping[str, Any]] | None = None,
    tuning_job_arn: str | None = None,
    failure_reason: str | None = None,
    account_id: str = DEFAULT_ACCOUNT_ID,
    region: str = "us-east-1",
    resource_config: Mapping[str, Any] | None = None,
    tags: Mapping[str, str] | None = None,
    metric_definitions: Sequence[Mapping[str, str]] | None = None,
    transitions: Sequence[Mapping[str, Any]] | None = None,
    training_start_time: Any = None,
    final_objective: tuple[str, float] | None = None,
) -> str:
    """Create (if missing) or update training job ``name`` in moto's backend; return its ARN.

    ``tuning_job_arn`` makes it a trial of that tuning job (DescribeTrainingJob's TuningJobArn, and
    ListTrainingJobsForHyperParameterTuningJob lists it); ``failure_reason`` is its FailureReason.

    ``status`` is the TrainingJobStatus; ``secondary_status`` defaults to a plausible one
    (InProgress -> Training, otherwise the same word). Each rule list replaces the job's list when
    given and is left alone when ``None``; lists use the API's shapes, e.g. a debug rule
    configuration ``{"RuleConfigurationName": ..., "RuleEvaluatorImage": ..., "RuleParameters":
    {"rule_to_invoke": ..., "action_json": "..."}}`` or an evaluation status
    ``{"RuleConfigurationName": ..., "RuleEvaluationStatus": "IssuesFound", ...}``.
    Names are case-sensitive and stored as given. Works inside ``moto.mock_aws`` and for a
    ``ThreadedMotoServer`` running in this process.

    For a scheduled evaluation (each replaces the job's value when given): ``resource_config``
    (``{"InstanceType", "InstanceCount", ...}``), ``tags`` (a map; moto keeps them as Search and ListTags
    return them), ``metric_definitions`` (``AlgorithmSpecification.MetricDefinitions``; moto's own default
    is replaced), ``transitions`` (``SecondaryStatusTransitions``), ``training_start_time``.
    """
    if status not in TRAINING_JOB_STATUSES:
        raise ValueError(f"status must be one of {TRAINING_JOB_STATUSES}, not {status!r}")
    backend = _backend(account_id, region)
    job = backend.training_jobs.get(name)
    if job is None:
        job = _create_minimal_job(backend, name)

    job.training_job_status = status
    job.secondary_status = secondary_status or _DEFAULT_SECONDARY_STATUS[status]
    job.last_modified_time = now = utcnow()
    if status in ("InProgress", "Stopping"):  # (a Deleting job keeps the end time it had)
        job.training_end_time = None  # not finished: DescribeTrainingJob omits it, as AWS does
    elif getattr(job, "training_end_time", None) is None:
        job.training_end_time = now

    if resource_config is not None:
        job.resource_config = dict(resource_config)
    if tags is not None:
        job.tags = [{"Key": key, "Value": value} for key, value in tags.items()]
    if metric_definitions is not None:
        job.algorithm_specification = {**job.algorithm_specification,
                                       "MetricDefinitions": [dict(d) for d in metric_definitions]}
    if transitions is not None:
        job.secondary_status_transitions = [dict(t) for t in transitions]
    if training_start_time is not None:
        job.training_start_time = training_start_time

    for attribute, value in (
        ("debug_rule_configurations", debug_rule_configurations),
        ("profiler_rule_configurations", profiler_rule_configurations),
        ("debug_rule_evaluation_statuses", debug_rule_evaluation_statuses),
        ("profiler_rule_evaluation_statuses", profiler_rule_evaluation_statuses),
    ):
        if value is not None:
            setattr(job, attribute, _rules(value))
    if final_objective is not None:  # a trial's FinalHyperParameterTuningJobObjectiveMetric (name, value)
        job.final_objective = tuple(final_objective)
    for attribute, text in (("tuning_job_arn", tuning_job_arn), ("failure_reason", failure_reason)):
        if text is not None:
            setattr(job, attribute, text)
    return job.arn


TUNING_JOB_STATUSES = ("Completed", "InProgress", "Failed", "Stopped", "Stopping", "Deleting", "DeleteFailed")
JOB_STATUSES = ("InProgress", "Completed", "Failed", "Stopping", "Stopped")  # processing and transform jobs
PIPELINE_EXECUTION_STATUSES = ("Executing", "Stopping", "Stopped", "Failed", "Succeeded", "CompletedWithFailures")
STEP_STATUSES = ("Starting", "Executing", "Stopping", "Stopped", "Failed", "Succeeded")


def _set(job: Any, **attributes: Any) -> None:
    """Set the attributes given (None: leave alone); moto's describe is built from them."""
    for attribute, value in attributes.items():
        if value is not None:
            setattr(job, attribute, copy.deepcopy(value))


def _check(status: str, allowed: tuple[str, ...]) -> None:
    if status not in allowed:
        raise ValueError(f"status must be one of {allowed}, not {status!r}")


def put_tuning_job(name: str, status: str, *, training_job_status_counters: Mapping[str, int] | None = None,
                   objective_status_counters: Mapping[str, int] | None = None,
                   best_training_job: Mapping[str, Any] | None = None, failure_reason: str | None = None,
                   account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1",
                   tags: Mapping[str, str] | None = None, objective: str | None = None,
                   creation_time: Any = None) -> str:
    """Create (if missing) or update tuning job ``name``; return its ARN. Its best training job is the one given
    (none until then: moto's made-up one is removed). For a scheduled evaluation: ``tags`` (a map), ``objective``
    (its objective type, Minimize or Maximize), ``creation_time``."""
    _check(status, TUNING_JOB_STATUSES)
    backend = _backend(account_id, region)
    job = backend.hyper_parameter_tuning_jobs.get(name)
    if job is None:
        backend.create_hyper_parameter_tuning_job(
            hyper_parameter_tuning_job_name=name,
            hyper_parameter_tuning_job_config={"Strategy": "Bayesian", "ResourceLimits": {
                "MaxNumberOfTrainingJobs": 10, "MaxParallelTrainingJobs": 2}},
            training_job_definition=None, training_job_definitions=None, warm_start_config=None, tags=[],
            autotune=None)
        job = backend.hyper_parameter_tuning_jobs[name]
        job.best_training_job = job.OverallBestTrainingJob = None
        job.failure_reason = None
    job.hyper_parameter_tuning_job_status = status
    job.last_modified_time = utcnow()
    _set(job, training_job_status_counters=training_job_status_counters,
         objective_status_counters=objective_status_counters, best_training_job=best_training_job,
         failure_reason=failure_reason, creation_time=creation_time,
         tags=None if tags is None else [{"Key": k, "Value": v} for k, v in tags.items()])
    if objective is not None:
        job.hyper_parameter_tuning_job_config = {
            **job.hyper_parameter_tuning_job_config,
            "HyperParameterTuningJobObjective": {"Type": objective, "MetricName": "validation:objective"}}
    return job.arn


def put_processing_job(name: str, status: str, *, failure_reason: str | None = None, exit_message: str | None = None,
                       training_job_arn: str | None = None, image_uri: str | None = None,
                       account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1",
                       cluster: Mapping[str, Any] | None = None, start_time: Any = None,
                       tags: Mapping[str, str] | None = None) -> str:
    """Create (if missing) or update processing job ``name``; return its ARN. For a scheduled evaluation:
    ``cluster`` (ProcessingResources.ClusterConfig), ``start_time`` (ProcessingStartTime), ``tags`` (a map, as
    ListTags returns them); an InProgress job has no ProcessingEndTime."""
    _check(status, JOB_STATUSES)
    backend = _backend(account_id, region)
    job = backend.processing_jobs.get(name)
    if job is None:
        job = backend.create_processing_job(
            app_specification={"ImageUri": image_uri or f"{backend.account_id}.dkr.ecr.{region}.amazonaws.com/p:1"},
            experiment_config=None,  # type: ignore[arg-type]
            network_config=None,  # type: ignore[arg-type]
            processing_inputs=[], processing_job_name=name, processing_output_config=None,  # type: ignore[arg-type]
            role_arn=f"arn:aws:iam::{backend.account_id}:role/SageMakerRole", tags=[],
            stopping_condition={"MaxRuntimeInSeconds": 3600})
    job.processing_job_status = status
    job.last_modified_time = utcnow()
    job.processing_end_time = None if status in ("InProgress", "Stopping") else \
        (getattr(job, "processing_end_time", None) or job.last_modified_time)
    _set(job, failure_reason=failure_reason, exit_message=exit_message, training_job_arn=training_job_arn,
         processing_start_time=start_time,
         processing_resources=None if cluster is None else {"ClusterConfig": dict(cluster)},
         tags=None if tags is None else [{"Key": k, "Value": v} for k, v in tags.items()])
    return job.arn


def put_transform_job(name: str, status: str, *, failure_reason: str | None = None,
                      account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1",
                      resources: Mapping[str, Any] | None = None, start_time: Any = None,
                      tags: Mapping[str, str] | None = None) -> str:
    """Create (if missing) or update transform job ``name``; return its ARN. For a scheduled evaluation:
    ``resources`` (TransformResources), ``start_time`` (TransformStartTime), ``tags`` (a map); an InProgress job has
    no TransformEndTime."""
    _check(status, JOB_STATUSES)
    backend = _backend(account_id, region)
    job = backend.transform_jobs.get(name)
    if job is None:
        job = backend.create_transform_job(
            transform_job_name=name, model_name="model", max_concurrent_transforms=1, model_client_config=None,
            max_payload_in_mb=6, batch_strategy="MultiRecord", environment={},
            transform_input={"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://in/"}}},
            transform_output={"S3OutputPath": "s3://out/"}, data_capture_config=None,
            transform_resources={"InstanceType": "ml.m5.large", "InstanceCount": 1}, data_processing=None,
            tags=[], experiment_config=None)
        job.failure_reason = None
    job.transform_job_status = status
    job.last_modified_time = utcnow()
    job.transform_end_time = None if status in ("InProgress", "Stopping") else \
        (getattr(job, "transform_end_time", None) or job.last_modified_time)
    _set(job, failure_reason=failure_reason, transform_start_time=start_time,
         transform_resources=None if resources is None else dict(resources),
         tags=None if tags is None else [{"Key": k, "Value": v} for k, v in tags.items()])
    return job.arn


def put_pipeline_execution(execution_arn: str, status: str, *, account_id: str = DEFAULT_ACCOUNT_ID,
                           region: str = "us-east-1") -> str:
    """Record a pipeline execution (ListPipelineExecutionSteps then answers for it); return its ARN."""
    _check(status, PIPELINE_EXECUTION_STATUSES)
    _steps(_backend(account_id, region)).setdefault(execution_arn, {})
    return execution_arn


def put_pipeline_step(execution_arn: str, step_name: str, status: str, *, failure_reason: str | None = None,
                      metadata: Mapping[str, Any] | None = None, start_time: Any = None, end_time: Any = None,
                      account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> None:
    """Create or update a step of an execution, as ListPipelineExecutionSteps returns it (PipelineExecutionStep:
    StepName, StepStatus, StartTime, EndTime, FailureReason, Metadata such as {"TrainingJob": {"Arn": ...}})."""
    _check(status, STEP_STATUSES)
    step = _steps(_backend(account_id, region)).setdefault(execution_arn, {}).setdefault(step_name, {
        "StepName": step_name, "AttemptCount": 1})
    step["StepStatus"] = status
    for key, value in (("FailureReason", failure_reason), ("Metadata", metadata), ("StartTime", start_time),
                       ("EndTime", end_time)):
        if value is not None:
            step[key] = copy.deepcopy(value)


# --------------------------------------------------------------------------- seeding from an event's detail


def _text(detail: Mapping[str, Any], key: str) -> str | None:
    value = detail.get(key)
    return value if isinstance(value, str) else None


def _status(detail: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> list[str]:
    """Why the detail's status cannot be seeded (as the embedded account reports it), or nothing."""
    if detail.get(key) in allowed:
        return []
    return [f"embedded account: {key} {quoted(detail.get(key))} is not a SageMaker status ({', '.join(allowed)}): "
            "the job was not created or updated"]


def _time(value: Any) -> Any:
    """An event's timestamp (epoch milliseconds, or ISO 8601) as the API's timestamp, None when unreadable."""
    from rule_actions.text import timestamp

    return timestamp(value)


def seed_training(detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any], **place: str) -> list[str]:
    problems = _status(detail, "TrainingJobStatus", TRAINING_JOB_STATUSES)
    if not problems:
        put_training_job(detail["TrainingJobName"], detail["TrainingJobStatus"],
                         secondary_status=_text(detail, "SecondaryStatus"), tuning_job_arn=_text(detail, "TuningJobArn"),
                         failure_reason=_text(detail, "FailureReason"), **place, **first)
    return problems


def seed_tuning(detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any], **place: str) -> list[str]:
    problems = _status(detail, "HyperParameterTuningJobStatus", TUNING_JOB_STATUSES)
    if not problems:
        counters = {key: detail.get(key) if isinstance(detail.get(key), dict) else None
                    for key in ("TrainingJobStatusCounters", "ObjectiveStatusCounters", "BestTrainingJob")}
        put_tuning_job(detail["HyperParameterTuningJobName"], detail["HyperParameterTuningJobStatus"],
                       training_job_status_counters=counters["TrainingJobStatusCounters"],
                       objective_status_counters=counters["ObjectiveStatusCounters"],
                       best_training_job=counters["BestTrainingJob"], failure_reason=_text(detail, "FailureReason"),
                       **place)
    return problems


def seed_processing(detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any], **place: str) -> list[str]:
    problems = _status(detail, "ProcessingJobStatus", JOB_STATUSES)
    if not problems:
        spec = detail.get("AppSpecification") if isinstance(detail.get("AppSpecification"), dict) else {}
        put_processing_job(detail["ProcessingJobName"], detail["ProcessingJobStatus"],
                           failure_reason=_text(detail, "FailureReason"), exit_message=_text(detail, "ExitMessage"),
                           training_job_arn=_text(detail, "TrainingJobArn"), image_uri=_text(spec, "ImageUri"),
                           **place)
    return problems


def seed_transform(detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any], **place: str) -> list[str]:
    problems = _status(detail, "TransformJobStatus", JOB_STATUSES)
    if not problems:
        put_transform_job(detail["TransformJobName"], detail["TransformJobStatus"],
                          failure_reason=_text(detail, "FailureReason"), **place)
    return problems


STEP_EVENT = "SageMaker Model Building Pipeline Execution Step Status Change"


def seed_pipeline(detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any], **place: str) -> list[str]:
    """An execution event records the execution; a step event its step, its metadata as the API names it (the
    event writes {"trainingJob": {"arn": ...}}, ListPipelineExecutionSteps {"TrainingJob": {"Arn": ...}})."""
    arn = detail["pipelineExecutionArn"]
    if detail_type != STEP_EVENT:
        problems = _status(detail, "currentPipelineExecutionStatus", PIPELINE_EXECUTION_STATUSES)
        if not problems:
            put_pipeline_execution(arn, detail["currentPipelineExecutionStatus"], **place)
        return problems
    problems = _status(detail, "currentStepStatus", STEP_STATUSES)
    name = _text(detail, "stepName")
    if not name:
        problems.append(f"embedded account: stepName {quoted(detail.get('stepName'))} is not a step name: the step "
                        "was not recorded")
    if problems:
        return problems
    metadata = detail.get("metadata") if isinstance(detail.get("metadata"), dict) else {}
    put_pipeline_step(arn, name, detail["currentStepStatus"], failure_reason=_text(detail, "failureReason"),
                      metadata={key[:1].upper() + key[1:]: ({k[:1].upper() + k[1:]: v for k, v in value.items()}
                                                             if isinstance(value, dict) else value)
                                for key, value in metadata.items()},
                      start_time=_time(detail.get("stepStartTime")), end_time=_time(detail.get("stepEndTime")),
                      **place)
    return []


# How the embedded account creates the job an event names, for each family (rule_actions.registry.JOBS, by name):
# seeder(detail-type, detail, what the family keeps from the job's first event, account_id=, region=) -> problems.
SEEDERS = {"training": seed_training, "tuning": seed_tuning, "processing": seed_processing,
           "pipeline": seed_pipeline, "transform": seed_transform}


def training_job_status(
    name: str, account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1"
) -> str:
    """TrainingJobStatus of ``name`` straight from moto's backend (KeyError if there is no such job)."""
    return _backend(account_id, region).training_jobs[name].training_job_status
