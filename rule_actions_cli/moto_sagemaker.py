"""The project's only extension of moto's SageMaker: StopTrainingJob and a way to seed training jobs.

moto (5.1/5.2) lacks what the rule-action tests and the local replay need:

* ``StopTrainingJob`` is not implemented (``NotImplementedError`` in-process, HTTP 500 in server mode).
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
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.utils import utcnow
from moto.sagemaker.exceptions import ValidationError
from moto.sagemaker.models import SageMakerModelBackend, sagemaker_backends
from moto.sagemaker.responses import SageMakerResponse

__all__ = [
    "DEFAULT_ACCOUNT_ID",
    "SEEDERS",
    "TRAINING_JOB_STATUSES",
    "install",
    "put_training_job",
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


def install() -> None:
    """Add StopTrainingJob to moto's SageMaker (in-process ``mock_aws`` and ``ThreadedMotoServer``).

    Idempotent. Registers ``stop_training_job`` on ``SageMakerModelBackend`` and on
    ``SageMakerResponse``; an implementation moto may ship later is replaced, so behaviour stays the
    one documented here (and matching real SageMaker).
    """
    for cls, func in (
        (SageMakerModelBackend, _backend_stop_training_job),
        (SageMakerResponse, _response_stop_training_job),
    ):
        if getattr(getattr(cls, "stop_training_job", None), _PATCH_MARK, False):
            continue
        setattr(func, _PATCH_MARK, True)
        func.__name__ = "stop_training_job"
        func.__qualname__ = f"{cls.__name__}.stop_training_job"
        cls.stop_training_job = func  # type: ignore[attr-defined]


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
    account_id: str = DEFAULT_ACCOUNT_ID,
    region: str = "us-east-1",
    resource_config: Mapping[str, Any] | None = None,
    tags: Mapping[str, str] | None = None,
    metric_definitions: Sequence[Mapping[str, str]] | None = None,
    transitions: Sequence[Mapping[str, Any]] | None = None,
    training_start_time: Any = None,
) -> str:
    """Create (if missing) or update training job ``name`` in moto's backend; return its ARN.

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
    return job.arn


# How the embedded account creates a job of each family (the family's name: rule_actions.registry.JOBS).
SEEDERS = {"training": put_training_job}


def training_job_status(
    name: str, account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1"
) -> str:
    """TrainingJobStatus of ``name`` straight from moto's backend (KeyError if there is no such job)."""
    return _backend(account_id, region).training_jobs[name].training_job_status
