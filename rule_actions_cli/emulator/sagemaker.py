"""moto's SageMaker, extended: the calls the job families make that moto lacks, and jobs put into its backend in any
status (what rule_actions_cli/seeding.py seeds from events, and the tests and benches set up).

The gaps it fills are `GAPS` below: a job family's stop, a tuning job's trials, a pipeline execution's steps and
description, Search of tuning jobs (paged as AWS pages it), CreateTrainingJob as SageMaker does it (a name in use
refused, the job InProgress, every member of the request kept) and UpdateTrainingJob, and jobs in a status moto's API
cannot give them.

moto builds ``DescribeTrainingJob`` from the attributes of its ``FakeTrainingJob`` (``foo_bar`` -> ``FooBar``) and its
serializer keeps every member of the botocore output shape, so setting ``profiler_rule_configurations``,
``debug_rule_evaluation_statuses`` ... on the object is enough: the describe output needs no patching.
``ListTrainingJobs`` filters on ``training_job_status`` and ``training_job_name``, so it follows the attributes set
here too.

How the patch hooks in (see :func:`install`): each call is registered on moto's classes, on
``SageMakerModelBackend`` (the semantics) and on ``SageMakerResponse`` (parameter parsing). moto's
``BaseResponse.call_action`` looks the action up by name on the response class at every request, and both
``moto.mock_aws`` and ``moto.server.ThreadedMotoServer`` dispatch to that same class and read the same process-wide
``sagemaker_backends``, so one ``install()`` serves both (the server must run in this process; a separate
``moto_server`` process is not patched).

Caveats:

* ``put_training_job`` writes to moto's process-wide backend. Entering or leaving ``moto.mock_aws`` resets every
  backend, including the one a ``ThreadedMotoServer`` in the same process serves; the server itself never resets
  unless asked (``POST /moto-api/reset``), so jobs persist between tests that share a server.
* A stopped job stays ``Stopping``: nothing moves it to ``Stopped``. Call ``put_training_job(name, "Stopped")`` to
  play that part of SageMaker.
* Pipeline executions and their steps are kept in a store of this module's on moto's backend (reset with it). A
  tuning job's best training job is what SageMaker makes it: the trial that completed with the best value of its
  objective (put_trial_result), and for a warm start, its OverallBestTrainingJob among its parents' trials too.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import botocore.session
from botocore import xform_name
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.core.utils import utcnow
from moto.sagemaker.exceptions import ResourceInUseException, ResourceNotFound, ValidationError
from moto.sagemaker.models import FakeTrainingJob, SageMakerModelBackend, sagemaker_backends
from moto.sagemaker.responses import SageMakerResponse

from rule_actions.text import timestamp
from rule_actions_cli.emulator import Gap

__all__ = [
    "DEFAULT_ACCOUNT_ID",
    "GAPS",
    "TRAINING_JOB_STATUSES",
    "install",
    "pipeline_execution_status",
    "put_pipeline_execution",
    "put_pipeline_step",
    "put_processing_job",
    "put_training_job",
    "put_transform_job",
    "put_trial_result",
    "put_tuning_job",
    "training_job_status",
]

GAPS = (
    Gap("sagemaker", "StopTrainingJob", "not implemented (NotImplementedError in process, HTTP 500 on moto server)"),
    Gap("sagemaker", "StopProcessingJob", "sets Stopped at once, whatever the job's status (AWS: only an InProgress "
                                          "job is stopped, and goes Stopping)"),
    Gap("sagemaker", "StopTransformJob", "not implemented"),
    Gap("sagemaker", "StopHyperParameterTuningJob", "not implemented (AWS also stops its running trials)"),
    Gap("sagemaker", "StopPipelineExecution", "not implemented (AWS: idempotent by its ClientRequestToken)"),
    Gap("sagemaker", "ListTrainingJobsForHyperParameterTuningJob", "not implemented: a tuning job's trials"),
    Gap("sagemaker", "ListPipelineExecutionSteps", "not implemented: an execution's steps"),
    Gap("sagemaker", "DescribePipelineExecution", "answers only for executions of pipelines created through moto, "
                                                  "always without a FailureReason"),
    Gap("sagemaker", "Search", "refuses the resource HyperParameterTuningJob (botocore's ResourceType lists it), "
                               "and returns every result in one page (MaxResults, at most 100, and NextToken ignored)"),
    Gap("sagemaker", "CreateTrainingJob", "replaces a job of the same name (AWS: ResourceInUse), makes a job that is "
                                          "already Completed with ModelArtifacts, FinalMetricDataList and a "
                                          "MetricDefinitions of its own (AWS: InProgress, Starting, the request's "
                                          "AlgorithmSpecification as given), and drops the request's members its "
                                          "backend does not take (RetryStrategy, Environment, ProfilerConfig, "
                                          "ProfilerRuleConfigurations, RemoteDebugConfig, InfraCheckConfig...): "
                                          "install() fills these, and DescribeTrainingJob returns every member; "
                                          "nothing sets DebugRuleEvaluationStatuses or ProfilerRuleEvaluationStatuses:"
                                          " put_training_job sets them on moto's job"),
    Gap("sagemaker", "ListTags", "finds a training job by the name in its ARN as written (AWS: SageMaker lower-cases "
                                 "names in ARNs, so a job named with capitals, AWSBatch..., is found by its ARN)"),
    Gap("sagemaker", "UpdateTrainingJob", "not implemented (the warm pool's ResourceConfig.KeepAlivePeriodInSeconds, "
                                          "ProfilerConfig, ProfilerRuleConfigurations, RemoteDebugConfig)"),
)

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
    self.sagemaker_backend.stop_training_job(self._get_param("TrainingJobName"))  # type: ignore[attr-defined]  # (install() adds it)
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

    return ActionResult(self.sagemaker_backend.list_training_jobs_for_hyper_parameter_tuning_job(  # type: ignore[attr-defined]  # (install() adds it)
        hyper_parameter_tuning_job_name=self._get_param("HyperParameterTuningJobName"),
        status_equals=self._get_param("StatusEquals"), sort_by=self._get_param("SortBy"),
        sort_order=self._get_param("SortOrder"), next_token=self._get_param("NextToken"),
        max_results=self._get_int_param("MaxResults")))


# --------------------------------------------------------------------------- Search (Resource HyperParameterTuningJob)

_MOTO_SEARCH = SageMakerModelBackend.search
SEARCH_MAX = 100  # Search's MaxResults, at most


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
    """Search, paged as AWS pages it (MaxResults, at most 100; NextToken)."""
    from moto.core.responses import ActionResult

    found = self.sagemaker_backend.search(resource=self._get_param("Resource"),
                                          search_expression=self._get_param("SearchExpression"))
    size = min(int(self._get_param("MaxResults") or SEARCH_MAX), SEARCH_MAX)
    start = int(self._get_param("NextToken") or 0)
    page = found["Results"][start:start + size]
    more = start + size < len(found["Results"])
    return ActionResult({"Results": page, **({"NextToken": str(start + size)} if more else {})})


# --------------------------------------------------------------------------- ListPipelineExecutionSteps

_STEPS = "rule_actions_pipeline_steps"  # backend attribute: execution ARN -> {step name: PipelineExecutionStep}


def _steps(backend: SageMakerModelBackend) -> dict[str, dict[str, dict[str, Any]]]:
    if not hasattr(backend, _STEPS):
        setattr(backend, _STEPS, {})
    steps: dict[str, dict[str, dict[str, Any]]] = getattr(backend, _STEPS)
    return steps


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

    return ActionResult(self.sagemaker_backend.list_pipeline_execution_steps(  # type: ignore[attr-defined]  # (install() adds it)
        pipeline_execution_arn=self._get_param("PipelineExecutionArn"), sort_order=self._get_param("SortOrder"),
        next_token=self._get_param("NextToken"), max_results=self._get_int_param("MaxResults")))


# --------------------------------------------------------------------------- the other families' stops
# As SageMaker documents them: only a running job is stopped and goes Stopping (the replay ends it Stopped later, as
# SageMaker would); a tuning job's running trials stop with it; a job that is not running is refused with a
# ValidationException naming its status.


def _refuse_unless(status: str, running: str, noun: str) -> None:
    if status != running:
        raise ValidationError(message=f"The request was rejected because the {noun} is in status {status}.")


def _backend_stop_processing_job(self: SageMakerModelBackend, processing_job_name: str) -> None:
    job = self.processing_jobs.get(processing_job_name)
    if job is None:
        self.describe_processing_job(processing_job_name)  # moto's own not-found error
        raise ValidationError(message="Requested resource not found.")
    _refuse_unless(job.processing_job_status, "InProgress", "processing job")
    job.processing_job_status = "Stopping"
    job.last_modified_time = utcnow()


def _backend_stop_transform_job(self: SageMakerModelBackend, transform_job_name: str) -> None:
    job = self.transform_jobs.get(transform_job_name)
    if job is None:
        raise ValidationError(message=f"Could not find transform job '{transform_job_name}'.")
    _refuse_unless(job.transform_job_status, "InProgress", "transform job")
    job.transform_job_status = "Stopping"
    job.last_modified_time = utcnow()


def _backend_stop_tuning_job(self: SageMakerModelBackend, hyper_parameter_tuning_job_name: str) -> None:
    job = self.hyper_parameter_tuning_jobs.get(hyper_parameter_tuning_job_name)
    if job is None:
        raise ResourceNotFound(message=f"Amazon SageMaker can't find a tuning job with name "
                                       f"{hyper_parameter_tuning_job_name}")
    _refuse_unless(job.hyper_parameter_tuning_job_status, "InProgress", "tuning job")
    job.hyper_parameter_tuning_job_status = "Stopping"
    job.last_modified_time = utcnow()
    for trial in self.training_jobs.values():  # its running training jobs stop with it
        if getattr(trial, "tuning_job_arn", None) == job.arn and trial.training_job_status == "InProgress":
            trial.training_job_status = trial.secondary_status = "Stopping"
            trial.last_modified_time = utcnow()


_EXECUTIONS = "rule_actions_pipeline_executions"  # backend attribute: execution ARN -> what was seeded, a stop token


def _executions(backend: SageMakerModelBackend) -> dict[str, dict[str, Any]]:
    if not hasattr(backend, _EXECUTIONS):
        setattr(backend, _EXECUTIONS, {})
    executions: dict[str, dict[str, Any]] = getattr(backend, _EXECUTIONS)
    return executions


def _backend_stop_pipeline_execution(self: SageMakerModelBackend, pipeline_execution_arn: str,
                                     client_request_token: str) -> dict[str, Any]:
    """Idempotent by its ClientRequestToken: the same token again answers as the first call did."""
    execution = _executions(self).get(pipeline_execution_arn)
    if execution is None:
        raise ResourceNotFound(message=f"Pipeline execution '{pipeline_execution_arn}' does not exist.")
    if execution.get("token") != client_request_token:
        _refuse_unless(execution["status"], "Executing", "pipeline execution")
        execution.update(status="Stopping", token=client_request_token)
    return {"PipelineExecutionArn": pipeline_execution_arn}


def _stop_response(member: str, backend_name: str) -> Any:
    def respond(self: SageMakerResponse) -> Any:
        getattr(self.sagemaker_backend, backend_name)(self._get_param(member))
        return _empty_response()
    return respond


def _response_stop_pipeline_execution(self: SageMakerResponse) -> Any:
    from moto.core.responses import ActionResult

    return ActionResult(self.sagemaker_backend.stop_pipeline_execution(  # type: ignore[attr-defined]  # (install() adds it)
        self._get_param("PipelineExecutionArn"), self._get_param("ClientRequestToken")))


_MOTO_DESCRIBE_EXECUTION = SageMakerModelBackend.describe_pipeline_execution


def _backend_describe_execution(self: SageMakerModelBackend, pipeline_execution_arn: str) -> dict[str, Any]:
    """DescribePipelineExecution of a seeded execution (its status and FailureReason as seeded); moto's own answer
    for an execution of a pipeline created through moto."""
    seeded = _executions(self).get(pipeline_execution_arn)
    if seeded is None:
        return _MOTO_DESCRIBE_EXECUTION(self, pipeline_execution_arn)
    pipeline = pipeline_execution_arn.split("/execution/")[0]
    out = {"PipelineArn": pipeline, "PipelineExecutionArn": pipeline_execution_arn,
           "PipelineExecutionStatus": seeded["status"], "CreationTime": seeded["created"],
           "LastModifiedTime": seeded["modified"]}
    if seeded.get("failure_reason"):
        out["FailureReason"] = seeded["failure_reason"]
    if seeded.get("display_name"):
        out["PipelineExecutionDisplayName"] = seeded["display_name"]
    return out


def _response_describe_execution(self: SageMakerResponse) -> Any:
    from moto.core.responses import ActionResult

    return ActionResult(self.sagemaker_backend.describe_pipeline_execution(self._get_param("PipelineExecutionArn")))


# --------------------------------------------------------------------------- CreateTrainingJob, UpdateTrainingJob
# As SageMaker does them. moto's backend takes 18 of the request's members, replaces a job of the same name, makes
# the job Completed at once (ModelArtifacts, FinalMetricDataList, a MetricDefinitions of its own added to the
# request's AlgorithmSpecification) and drops the rest of the request (RetryStrategy, Environment, ProfilerConfig...).
# Here every member of botocore's request is kept on the job as the attribute of its snake_case name, which moto's
# DescribeTrainingJob turns back into the member (``retry_strategy`` -> ``RetryStrategy``); its serializer leaves out
# what DescribeTrainingJob's output has not (Tags, SessionChainingConfig: Tags are ListTags's).

_MOTO_CREATE_TRAINING_JOB = SageMakerModelBackend.create_training_job
# The members moto's backend method takes (its keyword arguments).
_MOTO_CREATE_ARGUMENTS = (
    "hyper_parameters", "algorithm_specification", "role_arn", "input_data_config", "output_data_config",
    "resource_config", "vpc_config", "stopping_condition", "tags", "enable_network_isolation",
    "enable_inter_container_traffic_encryption", "enable_managed_spot_training", "checkpoint_config",
    "debug_hook_config", "debug_rule_configurations", "tensor_board_output_config", "experiment_config")
_FLAGS = ("enable_network_isolation", "enable_inter_container_traffic_encryption", "enable_managed_spot_training")
_STARTING_MESSAGE = "Preparing the instances for training"


@functools.cache
def _create_training_job_members() -> tuple[tuple[str, str], ...]:
    """(member, keyword) of every member of botocore's CreateTrainingJob request but TrainingJobName (read at the
    first request: loading the model takes a while)."""
    model = botocore.session.get_session().get_service_model("sagemaker")
    members = model.operation_model("CreateTrainingJob").input_shape.members
    return tuple((member, xform_name(member)) for member in members if member != "TrainingJobName")


def _backend_create_training_job(self: SageMakerModelBackend, training_job_name: str, **members: Any) -> Any:
    """CreateTrainingJob as SageMaker does it: a name in use is refused (ResourceInUse); the new job is InProgress,
    Starting (its one transition so far), not yet started nor ended, without artifacts or metrics; every member of
    the request (as its snake_case keyword) is kept as given, and DescribeTrainingJob returns it."""
    existing = self.training_jobs.get(training_job_name)
    if existing is not None:
        raise ResourceInUseException(
            message="Training job names must be unique within an AWS account and region, and a training job with "
                    f"this name already exists ({existing.arn})")
    given = {keyword: copy.deepcopy(value) for keyword, value in members.items()}
    arguments: dict[str, Any] = {keyword: copy.deepcopy(given.get(keyword)) for keyword in _MOTO_CREATE_ARGUMENTS}
    arguments["algorithm_specification"] = arguments["algorithm_specification"] or {}  # moto writes into it
    arguments["output_data_config"] = arguments["output_data_config"] or {"S3OutputPath": ""}  # and reads it
    arguments["tags"] = arguments["tags"] or []
    for flag in _FLAGS:
        arguments[flag] = bool(arguments[flag])
    job: Any = _MOTO_CREATE_TRAINING_JOB(self, training_job_name=training_job_name, **arguments)
    for keyword, value in given.items():  # the request as given, and the rest of it
        if keyword not in _FLAGS and keyword != "tags":
            setattr(job, keyword, value)
    job.algorithm_specification = given.get("algorithm_specification")  # without moto's MetricDefinitions
    job.tags = arguments["tags"]
    now = job.creation_time
    job.last_modified_time = now
    job.training_job_status = "InProgress"
    job.secondary_status = "Starting"
    job.secondary_status_transitions = [{"Status": "Starting", "StartTime": now, "StatusMessage": _STARTING_MESSAGE}]
    job.training_start_time = job.training_end_time = None
    job.model_artifacts = job.final_metric_data_list = None
    return job


def _response_create_training_job(self: SageMakerResponse) -> Any:
    """The HTTP/botocore side: every member of the request is read (moto's reads 18 of them) and passed on."""
    from moto.core.responses import ActionResult

    members = {keyword: self._get_param(member) for member, keyword in _create_training_job_members()}
    job = self.sagemaker_backend.create_training_job(
        training_job_name=self._get_param("TrainingJobName"),
        **{keyword: value for keyword, value in members.items() if value is not None})
    return ActionResult({"TrainingJobArn": job.arn})


def _backend_update_training_job(self: SageMakerModelBackend, training_job_name: str,
                                 profiler_config: Mapping[str, Any] | None = None,
                                 profiler_rule_configurations: Sequence[Mapping[str, Any]] | None = None,
                                 resource_config: Mapping[str, Any] | None = None,
                                 remote_debug_config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """UpdateTrainingJob: ResourceConfig's KeepAlivePeriodInSeconds (the warm pool's) replaces the job's, ProfilerConfig
    and RemoteDebugConfig are merged into the job's, ProfilerRuleConfigurations added to its; a job that does not
    exist is ResourceNotFound."""
    job: Any = self.training_jobs.get(training_job_name)
    if job is None:
        arn = FakeTrainingJob.arn_formatter(training_job_name, self.account_id, self.region_name)
        raise ResourceNotFound(message=f"Could not find training job '{arn}'.")
    if resource_config is not None and "KeepAlivePeriodInSeconds" in resource_config:
        job.resource_config = {**(job.resource_config or {}),
                               "KeepAlivePeriodInSeconds": resource_config["KeepAlivePeriodInSeconds"]}
    for attribute, update in (("profiler_config", profiler_config), ("remote_debug_config", remote_debug_config)):
        if update is not None:
            setattr(job, attribute, {**(getattr(job, attribute, None) or {}), **copy.deepcopy(dict(update))})
    if profiler_rule_configurations is not None:
        job.profiler_rule_configurations = [*(getattr(job, "profiler_rule_configurations", None) or []),
                                            *(_rules(profiler_rule_configurations) or [])]
    job.last_modified_time = utcnow()
    return {"TrainingJobArn": job.arn}


def _response_update_training_job(self: SageMakerResponse) -> Any:
    from moto.core.responses import ActionResult

    return ActionResult(self.sagemaker_backend.update_training_job(  # type: ignore[attr-defined]  # (install() adds it)
        training_job_name=self._get_param("TrainingJobName"), profiler_config=self._get_param("ProfilerConfig"),
        profiler_rule_configurations=self._get_param("ProfilerRuleConfigurations"),
        resource_config=self._get_param("ResourceConfig"), remote_debug_config=self._get_param("RemoteDebugConfig")))


_MOTO_LIST_TAGS = SageMakerModelBackend.list_tags


def _backend_list_tags(self: SageMakerModelBackend, arn: str, **more: Any) -> Any:
    """moto's ListTags, a training job found by the name in its ARN whatever its case: SageMaker lower-cases names in
    ARNs, so a job named with capitals (AWS Batch's AWSBatch...) is tagged under an ARN that names it lower-cased."""
    kind, _, name = arn.rpartition(":")[2].partition("/")
    if kind == "training-job" and name not in self.training_jobs:
        found = next((key for key in self.training_jobs if key.lower() == name.lower()), None)
        arn = f"{arn.rpartition('/')[0]}/{found}" if found else arn
    return _MOTO_LIST_TAGS(self, arn, **more)


# The calls added (name, backend method, response method): each installed on both classes.
ADDED = (
    ("stop_training_job", _backend_stop_training_job, _response_stop_training_job),
    ("list_training_jobs_for_hyper_parameter_tuning_job", _backend_list_trials, _response_list_trials),
    ("list_pipeline_execution_steps", _backend_list_steps, _response_list_steps),
    ("stop_processing_job", _backend_stop_processing_job,
     _stop_response("ProcessingJobName", "stop_processing_job")),
    ("stop_transform_job", _backend_stop_transform_job, _stop_response("TransformJobName", "stop_transform_job")),
    ("stop_hyper_parameter_tuning_job", _backend_stop_tuning_job,
     _stop_response("HyperParameterTuningJobName", "stop_hyper_parameter_tuning_job")),
    ("stop_pipeline_execution", _backend_stop_pipeline_execution, _response_stop_pipeline_execution),
    ("describe_pipeline_execution", _backend_describe_execution, _response_describe_execution),
    ("search", _backend_search, _response_search),
    ("create_training_job", _backend_create_training_job, _response_create_training_job),
    ("update_training_job", _backend_update_training_job, _response_update_training_job),
    ("list_tags", _backend_list_tags, SageMakerResponse.list_tags),
)


def install() -> None:
    """Add StopTrainingJob, the other families' stops, ListTrainingJobsForHyperParameterTuningJob,
    ListPipelineExecutionSteps, Search of tuning jobs and UpdateTrainingJob to moto's SageMaker, make its
    CreateTrainingJob SageMaker's, and extend DescribePipelineExecution to the seeded executions (in-process
    ``mock_aws`` and ``ThreadedMotoServer``).

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


# --------------------------------------------------------------------------- jobs in any status


def _backend(account_id: str, region: str) -> SageMakerModelBackend:
    return sagemaker_backends[account_id][region]


def _create_minimal_job(backend: SageMakerModelBackend, name: str) -> Any:
    """Create a job through moto's own backend method (not the one install() puts in its place: a job seeded here
    is then set to the status asked), with the smallest valid definition."""
    return _MOTO_CREATE_TRAINING_JOB(
        backend,
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
    stopping_condition: Mapping[str, Any] | None = None,
    training_end_time: Any = None,
    checkpoint_config: Mapping[str, Any] | None = None,
    training_time_in_seconds: int | None = None,
    enable_managed_spot_training: bool | None = None,
    creation_time: Any = None,
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
    is replaced), ``transitions`` (``SecondaryStatusTransitions``), ``training_start_time``, ``stopping_condition``
    (``{"MaxRuntimeInSeconds": ...}``), ``training_end_time`` (a job that ended: when, instead of now),
    ``checkpoint_config`` (``{"S3Uri", "LocalPath"}``: DescribeTrainingJob's CheckpointConfig, which a restart copies),
    ``training_time_in_seconds`` (a job that ended: its TrainingTimeInSeconds), ``enable_managed_spot_training``,
    ``creation_time``.
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
    if stopping_condition is not None:
        job.stopping_condition = dict(stopping_condition)
    if training_end_time is not None and status not in ("InProgress", "Stopping"):
        job.training_end_time = training_end_time
    if checkpoint_config is not None:
        job.checkpoint_config = dict(checkpoint_config)
    if training_time_in_seconds is not None and status not in ("InProgress", "Stopping"):
        job.training_time_in_seconds = training_time_in_seconds  # type: ignore[union-attr]  # (the emulator's own attribute)
    if enable_managed_spot_training is not None:
        job.enable_managed_spot_training = enable_managed_spot_training
    if creation_time is not None:
        job.creation_time = creation_time

    for attribute, value in (
        ("debug_rule_configurations", debug_rule_configurations),
        ("profiler_rule_configurations", profiler_rule_configurations),
        ("debug_rule_evaluation_statuses", debug_rule_evaluation_statuses),
        ("profiler_rule_evaluation_statuses", profiler_rule_evaluation_statuses),
    ):
        if value is not None:
            setattr(job, attribute, _rules(value))
    if final_objective is not None:  # a trial's FinalHyperParameterTuningJobObjectiveMetric (name, value)
        job.final_objective = tuple(final_objective)  # type: ignore[union-attr]  # (the emulator's own attribute)
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
                   config: Mapping[str, Any] | None = None, warm_start_config: Mapping[str, Any] | None = None,
                   account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1",
                   tags: Mapping[str, str] | None = None, objective: str | None = None,
                   creation_time: Any = None, training_job_definition: Mapping[str, Any] | None = None,
                   resource_limits: Mapping[str, int] | None = None, end_time: Any = None) -> str:
    """Create (if missing) or update tuning job ``name``; return its ARN. Its best training job is the one given, or
    the best of its completed trials (:func:`put_trial_result`); none until then (moto's made-up one is removed).
    ``config`` (HyperParameterTuningJobConfig: its objective) and ``warm_start_config`` replace the job's when
    given; a warm start's OverallBestTrainingJob is the best of its own and its parents' best (the parents seeded
    here). For a scheduled evaluation: ``tags`` (a map), ``objective`` (its objective type, Minimize or Maximize),
    ``creation_time``, ``training_job_definition`` (its trials' ResourceConfig and StoppingCondition),
    ``resource_limits`` (ResourceLimits), ``end_time`` (HyperParameterTuningEndTime of a job that ended; a running
    one has none, and one that ended without it keeps moto's)."""
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
        job.best_training_job = job.OverallBestTrainingJob = None  # type: ignore[assignment]
        job.failure_reason = None  # type: ignore[assignment]  # (moto's annotations have no None)
    job.hyper_parameter_tuning_job_status = status
    job.last_modified_time = utcnow()
    _set(job, training_job_status_counters=training_job_status_counters,
         objective_status_counters=objective_status_counters, best_training_job=_summary_times(best_training_job),
         failure_reason=failure_reason, hyper_parameter_tuning_job_config=config, warm_start_config=warm_start_config,
         creation_time=creation_time, tags=None if tags is None else [{"Key": k, "Value": v} for k, v in tags.items()])
    if status in ("InProgress", "Stopping"):
        job.hyper_parameter_tuning_end_time = None  # type: ignore[assignment]  # not ended: DescribeHyperParameterTuningJob omits it, as AWS does
    elif end_time is not None:
        job.hyper_parameter_tuning_end_time = end_time
    _set(job, training_job_definition=training_job_definition)
    if resource_limits is not None:
        job.hyper_parameter_tuning_job_config = {**job.hyper_parameter_tuning_job_config,
                                                 "ResourceLimits": dict(resource_limits)}
    if objective is not None:
        job.hyper_parameter_tuning_job_config = {
            **job.hyper_parameter_tuning_job_config,
            "HyperParameterTuningJobObjective": {"Type": objective, "MetricName": "validation:objective"}}
    _overall_best(backend, job)
    return job.arn


def _summary_times(summary: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A HyperParameterTrainingJobSummary with its times as the API's timestamps (an event writes epoch-millisecond
    strings, which moto's serializer cannot read)."""
    if summary is None:
        return None
    times = ("CreationTime", "TrainingStartTime", "TrainingEndTime")
    return {key: (timestamp(value) if key in times else value) for key, value in summary.items()
            if key not in times or timestamp(value) is not None}


def _better(objective: Mapping[str, Any], value: float, than: Mapping[str, Any] | None) -> bool:
    if not than:
        return True
    best = (than.get("FinalHyperParameterTuningJobObjectiveMetric") or {}).get("Value")
    if not isinstance(best, (int, float)):
        return True
    return value < best if objective.get("Type") == "Minimize" else value > best


def put_trial_result(tuning_job_arn: str, trial: Mapping[str, Any], account_id: str = DEFAULT_ACCOUNT_ID,
                     region: str = "us-east-1") -> bool:
    """A trial that Completed (its event's detail: TrainingJobName, FinalMetricDataList...) becomes its tuning job's
    BestTrainingJob when its final value of the tuning job's objective metric is the best so far, as SageMaker
    makes it. Returns whether it did (False: no such tuning job seeded, no objective, or not better)."""
    backend = _backend(account_id, region)
    job = next((j for j in backend.hyper_parameter_tuning_jobs.values() if j.arn == tuning_job_arn), None)
    objective = ((job.hyper_parameter_tuning_job_config or {}).get("HyperParameterTuningJobObjective") or {}
                 if job else {})
    metrics = trial["FinalMetricDataList"] if isinstance(trial.get("FinalMetricDataList"), list) else []
    value = next((m.get("Value") for m in metrics if isinstance(m, Mapping)
                  and m.get("MetricName") == objective.get("MetricName")), None)
    if job is None or not isinstance(value, (int, float)) or not _better(objective, value, job.best_training_job):
        return False
    job.best_training_job = _summary_times({  # type: ignore[assignment]  # (moto's annotation has no None)
        "TrainingJobName": trial.get("TrainingJobName"), "TrainingJobArn": trial.get("TrainingJobArn"),
        "TuningJobName": job.hyper_parameter_tuning_job_name, "CreationTime": trial.get("CreationTime"),
        "TrainingStartTime": trial.get("TrainingStartTime"), "TrainingEndTime": trial.get("TrainingEndTime"),
        "TrainingJobStatus": "Completed", "TunedHyperParameters": {
            k: v for k, v in (trial.get("HyperParameters") or {}).items() if not k.startswith(("_", "sagemaker_"))},
        "FinalHyperParameterTuningJobObjectiveMetric": {"Type": objective.get("Type", "Maximize"),
                                                        "MetricName": objective["MetricName"], "Value": value},
        "ObjectiveStatus": "Succeeded"})
    _overall_best(backend, job)
    for other in backend.hyper_parameter_tuning_jobs.values():  # the warm starts this job is a parent of
        if other is not job:
            _overall_best(backend, other)
    return True


def _overall_best(backend: SageMakerModelBackend, job: Any) -> None:
    """A warm start's OverallBestTrainingJob: the best of its own best and its seeded parents' (none without a warm
    start: the member is absent, as the API leaves it)."""
    parents = [p.get("HyperParameterTuningJobName") for p in
               (job.warm_start_config or {}).get("ParentHyperParameterTuningJobs", []) if isinstance(p, Mapping)]
    if not parents:
        job.OverallBestTrainingJob = None
        return
    objective = (job.hyper_parameter_tuning_job_config or {}).get("HyperParameterTuningJobObjective") or {}
    best = job.best_training_job
    for name in parents:
        parent = backend.hyper_parameter_tuning_jobs.get(name)  # type: ignore[arg-type]  # (a parent without a name finds none)
        candidate: dict[str, Any] | None = parent.best_training_job if parent else None
        value = ((candidate or {}).get("FinalHyperParameterTuningJobObjectiveMetric") or {}).get("Value")
        if isinstance(value, (int, float)) and _better(objective, value, best):
            best = candidate
    job.OverallBestTrainingJob = copy.deepcopy(best)


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
        # moto drops ProcessingResources, which DescribeProcessingJob's model requires: one instance by default
        job.processing_resources = {"ClusterConfig": {"InstanceCount": 1, "InstanceType": "ml.m5.xlarge",  # type: ignore[attr-defined]
                                                      "VolumeSizeInGB": 30}}
    job.processing_job_status = status
    job.last_modified_time = utcnow()
    job.processing_end_time = (
        None if status in ("InProgress", "Stopping") else  # type: ignore[assignment]  # (moto's annotation has no None)
        (getattr(job, "processing_end_time", None) or job.last_modified_time))
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
            transform_job_name=name, model_name="model", max_concurrent_transforms=1, model_client_config=None,  # type: ignore[arg-type]
            max_payload_in_mb=6, batch_strategy="MultiRecord", environment={},
            transform_input={"DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://in/"}}},  # type: ignore[dict-item]
            transform_output={"S3OutputPath": "s3://out/"}, data_capture_config=None,  # type: ignore[arg-type]
            transform_resources={"InstanceType": "ml.m5.large", "InstanceCount": 1}, data_processing=None,  # type: ignore[arg-type]
            tags=[], experiment_config=None)  # type: ignore[arg-type]  # (moto's annotations: None and [] are what it takes)
        job.failure_reason = None  # type: ignore[assignment]  # (moto's annotation has no None)
    job.transform_job_status = status
    job.last_modified_time = utcnow()
    job.transform_end_time = (
        None if status in ("InProgress", "Stopping") else  # type: ignore[assignment]  # (moto's annotation has no None)
        (getattr(job, "transform_end_time", None) or job.last_modified_time))
    _set(job, failure_reason=failure_reason, transform_start_time=start_time,
         transform_resources=None if resources is None else dict(resources),
         tags=None if tags is None else [{"Key": k, "Value": v} for k, v in tags.items()])
    return job.arn


def put_pipeline_execution(execution_arn: str, status: str, *, failure_reason: str | None = None,
                           display_name: str | None = None, account_id: str = DEFAULT_ACCOUNT_ID,
                           region: str = "us-east-1") -> str:
    """Record a pipeline execution (ListPipelineExecutionSteps and DescribePipelineExecution then answer for it, the
    latter with ``failure_reason`` as its FailureReason: a Failed execution's events carry none); return its ARN."""
    _check(status, PIPELINE_EXECUTION_STATUSES)
    backend = _backend(account_id, region)
    _steps(backend).setdefault(execution_arn, {})
    now = utcnow()
    seeded = _executions(backend).setdefault(execution_arn, {"created": now})
    seeded.update(status=status, modified=now)
    for key, value in (("failure_reason", failure_reason), ("display_name", display_name)):
        if value is not None:
            seeded[key] = value
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


def pipeline_execution_status(execution_arn: str, account_id: str = DEFAULT_ACCOUNT_ID,
                              region: str = "us-east-1") -> str | None:
    """The status of a seeded pipeline execution, None when none was seeded."""
    return _executions(_backend(account_id, region)).get(execution_arn, {}).get("status")


def training_job_status(
    name: str, account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1"
) -> str:
    """TrainingJobStatus of ``name`` straight from moto's backend (KeyError if there is no such job)."""
    return _backend(account_id, region).training_jobs[name].training_job_status


def job_status(family: str, name: str, account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> str | None:
    """The status of the embedded job `name` of `family` (training, tuning, processing, transform; pipeline: an
    execution's ARN) as moto's backend holds it; None when there is no such job."""
    backend = _backend(account_id, region)
    if family == "pipeline":
        return pipeline_execution_status(name, account_id, region)
    families: dict[str, tuple[Mapping[str, Any], str]] = {
        "training": (backend.training_jobs, "training_job_status"),
        "tuning": (backend.hyper_parameter_tuning_jobs, "hyper_parameter_tuning_job_status"),
        "processing": (backend.processing_jobs, "processing_job_status"),
        "transform": (backend.transform_jobs, "transform_job_status")}
    jobs, member = families[family]
    job = jobs.get(name)
    return None if job is None else str(getattr(job, member))
