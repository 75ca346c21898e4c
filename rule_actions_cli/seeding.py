"""What the replay's embedded account is given of each job family: the job an event names, created or updated with
the status the event states. A family declares what this reads (rule_actions.jobs.base.JobFamily: its members, its
API, its statuses, the members of a first event its job keeps); the families moto models are put into moto's
backend through the emulator's put_* (rule_actions_cli.emulator.sagemaker: moto cannot make a job in a given status
through its API), any other family's job is its event's detail, which emulator.described serves as the answer to
its family's Describe, List and Stop calls.

    seeder(family)    its seeder (family, detail-type, detail, what it keeps from the job's first event, account_id=,
                      region=) -> problems; SEEDERS[family name] for the families moto models, else seed_described

Training jobs: their status, rules, the tuning job that launched them and their FailureReason (and a completed
trial's objective: its tuning job's best, as SageMaker keeps it); tuning, processing and transform jobs through
moto's own create calls, then their attributes; pipeline executions and their steps (a step event records the step
ListPipelineExecutionSteps lists); AWS Batch's service jobs in the emulated Batch, from their events' detail (a
plain replay's: a stop through Batch finds its job). An unusable status is a problem of the event: nothing is created or updated. A
late event (EventBridge keeps no order) never moves an embedded job of any family back: its status follows the job's
own history (rule_actions.contract.PROGRESS), as SageMaker's does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NotRequired, TypedDict, Unpack

from rule_actions.contract import PROGRESS
from rule_actions.text import quoted, timestamp
from rule_actions_cli.emulator import described
from rule_actions_cli.emulator.sagemaker import (
    STEP_STATUSES,
    job_status,
    put_pipeline_execution,
    put_pipeline_step,
    put_processing_job,
    put_training_job,
    put_transform_job,
    put_trial_result,
    put_tuning_job,
)

Seeder = Callable[..., list[str]]


class JobPlace(TypedDict):
    """Where a job lives in the embedded account (the put_* functions' keywords): moto's account when none."""

    region: str
    account_id: NotRequired[str]


def _text(detail: Mapping[str, Any], key: str) -> str | None:
    value = detail.get(key)
    return value if isinstance(value, str) else None


def _status(detail: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> list[str]:
    """Why the detail's status cannot be seeded (as the embedded account reports it), or nothing."""
    if detail.get(key) in allowed:
        return []
    return [f"embedded account: {key} {quoted(detail.get(key))} is not a SageMaker status ({', '.join(allowed)}): "
            "the job was not created or updated"]


def _behind(family: str, name: str, status: str, place: JobPlace) -> bool:
    """The embedded job `name` of `family` is further along than `status` (a late event's: EventBridge keeps no
    order), by the statuses' order SageMaker moves a job in (rule_actions.contract.PROGRESS, every family's): the
    embedded job keeps the state it reached, as SageMaker's would (a finding that arrives after the job's Completed
    event finds it Completed)."""
    now = job_status(family, name, **place)
    return now is not None and PROGRESS.get(status, 0) < PROGRESS.get(now, 0)


def seed_training(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
                  **place: Unpack[JobPlace]) -> list[str]:
    problems = _status(detail, family.members.status, family.statuses)
    if not problems and _behind("training", detail["TrainingJobName"], detail["TrainingJobStatus"], place):
        return []  # a late event: the embedded job keeps the state it reached (its rows say it, as a stop's does)
    if not problems:
        # (a trial's times as its events say them: its tuning job's cost sums them)
        put_training_job(detail["TrainingJobName"], detail["TrainingJobStatus"],
                         secondary_status=_text(detail, "SecondaryStatus"), tuning_job_arn=_text(detail, "TuningJobArn"),
                         failure_reason=_text(detail, "FailureReason"), **place, **first,
                         training_start_time=timestamp(detail.get("TrainingStartTime")),
                         training_end_time=timestamp(detail.get("TrainingEndTime")),
                         checkpoint_config=detail["CheckpointConfig"] if isinstance(detail.get("CheckpointConfig"),
                                                                                    dict) else None)
        if detail["TrainingJobStatus"] == "Completed" and _text(detail, "TuningJobArn"):
            put_trial_result(detail["TuningJobArn"], detail, **place)  # the tuning job's best, as SageMaker keeps it
    return problems


def seed_tuning(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
                **place: Unpack[JobPlace]) -> list[str]:
    problems = _status(detail, family.members.status, family.statuses)
    if not problems and _behind("tuning", detail["HyperParameterTuningJobName"],
                                detail["HyperParameterTuningJobStatus"], place):
        return []  # a late event: the embedded job keeps the state it reached
    if not problems:
        counters = {key: detail.get(key) if isinstance(detail.get(key), dict) else None
                    for key in ("TrainingJobStatusCounters", "ObjectiveStatusCounters", "BestTrainingJob",
                                "HyperParameterTuningJobConfig", "WarmStartConfig")}
        put_tuning_job(detail["HyperParameterTuningJobName"], detail["HyperParameterTuningJobStatus"],
                       training_job_status_counters=counters["TrainingJobStatusCounters"],
                       objective_status_counters=counters["ObjectiveStatusCounters"],
                       best_training_job=counters["BestTrainingJob"], failure_reason=_text(detail, "FailureReason"),
                       config=counters["HyperParameterTuningJobConfig"], warm_start_config=counters["WarmStartConfig"],
                       **place)
    return problems


def seed_processing(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
                    **place: Unpack[JobPlace]) -> list[str]:
    problems = _status(detail, family.members.status, family.statuses)
    if not problems and _behind("processing", detail["ProcessingJobName"], detail["ProcessingJobStatus"], place):
        return []  # a late event: the embedded job keeps the state it reached
    if not problems:
        spec = detail["AppSpecification"] if isinstance(detail.get("AppSpecification"), dict) else {}
        put_processing_job(detail["ProcessingJobName"], detail["ProcessingJobStatus"],
                           failure_reason=_text(detail, "FailureReason"), exit_message=_text(detail, "ExitMessage"),
                           training_job_arn=_text(detail, "TrainingJobArn"), image_uri=_text(spec, "ImageUri"),
                           **place)
    return problems


def seed_transform(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
                   **place: Unpack[JobPlace]) -> list[str]:
    problems = _status(detail, family.members.status, family.statuses)
    if not problems and _behind("transform", detail["TransformJobName"], detail["TransformJobStatus"], place):
        return []  # a late event: the embedded job keeps the state it reached
    if not problems:
        put_transform_job(detail["TransformJobName"], detail["TransformJobStatus"],
                          failure_reason=_text(detail, "FailureReason"), **place)
    return problems


STEP_EVENT = "SageMaker Model Building Pipeline Execution Step Status Change"


def seed_pipeline(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
                  **place: Unpack[JobPlace]) -> list[str]:
    """An execution event records the execution; a step event its step, its metadata as the API names it (the
    event writes {"trainingJob": {"arn": ...}}, ListPipelineExecutionSteps {"TrainingJob": {"Arn": ...}})."""
    arn = detail["pipelineExecutionArn"]
    if detail_type != STEP_EVENT:
        problems = _status(detail, family.members.status, family.statuses)
        if not problems and _behind("pipeline", arn, detail["currentPipelineExecutionStatus"], place):
            return []  # a late event: the embedded execution keeps the state it reached
        if not problems:
            display = _text(detail, "pipelineExecutionDisplayName")
            put_pipeline_execution(arn, detail["currentPipelineExecutionStatus"], display_name=display, **place)
        return problems
    problems = _status(detail, "currentStepStatus", STEP_STATUSES)
    name = _text(detail, "stepName")
    if not name:
        problems.append(f"embedded account: stepName {quoted(detail.get('stepName'))} is not a step name: the step "
                        "was not recorded")
    if problems or name is None:  # (no name is a problem)
        return problems
    metadata = detail["metadata"] if isinstance(detail.get("metadata"), dict) else {}
    put_pipeline_step(arn, name, detail["currentStepStatus"], failure_reason=_text(detail, "failureReason"),
                      metadata={key[:1].upper() + key[1:]: ({k[:1].upper() + k[1:]: v for k, v in value.items()}
                                                             if isinstance(value, dict) else value)
                                for key, value in metadata.items()},
                      start_time=timestamp(detail.get("stepStartTime")), end_time=timestamp(detail.get("stepEndTime")),
                      **place)
    return []


def seed_described(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
                   **place: Unpack[JobPlace]) -> list[str]:
    """A job of a family moto has no backend for: its event's detail (its tags aside: an event carries them as a
    map, Describe as none) becomes its description, over what earlier events said (its first event's members kept);
    emulator.described answers its family's Describe, List and Stop from it."""
    members = family.members
    problems = _status(detail, members.status, family.statuses)
    if problems:
        return problems
    described.serve(family.api, members.status)
    name, status = detail[members.name], detail[members.status]
    now = described.job_status(family.api, members.status, name, **place)
    if now is not None and PROGRESS.get(status, 0) < PROGRESS.get(now, 0):
        return []  # a late event: the embedded job keeps the state it reached
    before = described.described(family.api, name, **place)
    kept = {member: before[member] for member in family.kept if member in before}
    described.put_job(family.api, name, {**{k: v for k, v in detail.items() if k != members.tags}, **kept}, **place)
    return []


def seed_batch(family: Any, detail_type: str, detail: Mapping[str, Any], first: Mapping[str, Any],
               **place: Unpack[JobPlace]) -> list[str]:
    """An AWS Batch service job, in the emulated Batch (rule_actions_cli.emulator.batch), as its event's detail says
    it: a plain replay's job, which no timeline submitted, is found by the function's ListServiceJobs (a stop through
    Batch) and DescribeServiceJob; a timeline's own job is told the same members it holds."""
    from rule_actions_cli.emulator import batch as moto_batch  # (moto's Batch costs ~2 s to import)

    return moto_batch.seed_service_job(detail, **place)


# The seeders of the families moto models (rule_actions.registry.JOBS, by name), and the Batch family's in the
# emulated Batch; any other: seed_described.
SEEDERS: dict[str, Seeder] = {
    "training": seed_training,
    "tuning": seed_tuning,
    "processing": seed_processing,
    "pipeline": seed_pipeline,
    "transform": seed_transform,
    "batch": seed_batch,
}


def seeder(family: Any) -> Seeder:
    """How the embedded account gives the family's jobs the state its events state."""
    return SEEDERS.get(family.name, seed_described)
