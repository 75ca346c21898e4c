"""FailedSteps: a pipeline execution's failed and stopped steps (ListPipelineExecutionSteps, every page), each with
the job its metadata names described for that job's own FailureReason (at most `limit` describes; for a tuning
job, its first failed trial's reason, which is the real one; for a processing job, its ExitMessage too, the cause
a generic reason hides) and this stack's record of a stop of that job (the ledger, at most `limit` reads). A job
whose ARN's lower-cased name is not found is looked for by its real name (one listing, only then). When no step
failed, the execution's own FailureReason (one DescribePipelineExecution, only then). A read that fails is named on
its step (or on the answer); the others are kept."""

from __future__ import annotations

import re

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import FailedSteps, JobApi, StepFailure, StepFailures
from rule_actions.text import arn_name, error_code, error_message, error_text, mapping_at, text_at

LISTED = ("Failed", "Stopped")  # the step statuses a failure's message names
_NOT_FOUND = r"(?i)not found|could not find|does not exist|can't find"
# How SageMaker Pipelines names the job a step launches without a custom prefix: pipelines-<execution id (or its
# start)>-<step name>-<random>; only the step name may have capitals (the rest is generated lower-case).
_PIPELINES_NAME = r"pipelines-[0-9a-z]+-"
_LETTERLESS_MIN = 6  # the shortest run of digits and '-' worth a listing (a timestamp, a date)


class FailedStepsReader(Reader[FailedSteps]):
    need = FailedSteps

    def read(self, need: FailedSteps, ports: Ports) -> object:
        apis = dict(need.jobs)
        found, described = [], 0
        for step in ports.jobs.pipeline_steps(need.execution_arn):
            status = step.get("StepStatus")
            if status not in LISTED:
                continue
            metadata = mapping_at(step, "Metadata")
            kind = next((key for key in metadata if key in apis), next(iter(metadata), ""))
            job = mapping_at(metadata, kind)
            arn = text_at(job, "Arn") if kind in apis else ""
            failure = StepFailure(name=str(step.get("StepName") or ""), type=kind,
                                  reason=str(step.get("FailureReason") or ""), job_arn=arn, status=str(status))
            if arn and described < need.limit:
                described += 1
                failure = _stopped_by(ports, _job_reason(ports, need, apis[kind], failure, kind == need.tuning))
            found.append(failure)
        if any(f.status == "Failed" for f in found) or need.execution is None:
            return StepFailures(found)
        try:  # no step failed (the execution failed before any ran, or a stopped one made it fail): its own words
            reason = ports.jobs.describe(need.execution, need.execution_arn).get("FailureReason")
        except Exception as err:
            return StepFailures(found, execution_unread=f"{need.execution.describe} failed: {error_text(err)}")
        return StepFailures(found, execution_reason=str(reason or ""))

    def failure(self, need: FailedSteps) -> str:
        return "ListPipelineExecutionSteps failed"


def _job_reason(ports: Ports, need: FailedSteps, api: JobApi, failure: StepFailure, tuning: bool) -> StepFailure:
    """The step with its job's own FailureReason (and ExitMessage), or why it could not be read."""
    name = arn_name(failure.job_arn)
    try:
        description = ports.jobs.describe(api, name)
    except Exception as err:
        real = _real_name(ports, need, api, name) if need.find_names and _not_found(err) else None
        if isinstance(real, str):
            name = real
            try:
                description = ports.jobs.describe(api, name)
            except Exception as again:
                return failure._replace(job_name=name, unread=f"{api.describe} failed: {error_text(again)}")
        else:
            said = f"{api.describe} failed: {error_text(err)}"
            return failure._replace(unread=f"{said}; {real[1]}" if isinstance(real, tuple) else said)
    found = failure._replace(job_reason=str(description.get("FailureReason") or ""),
                             exit_message=str(description.get("ExitMessage") or ""),
                             job_name=name if name != arn_name(failure.job_arn) else "")
    if not tuning:
        return found
    try:  # a tuning job's reason names no cause ("No training job succeeded..."): its trials' do
        trials = ports.jobs.failed_trials(name, 1)
    except Exception as err:
        return found._replace(unread=f"ListTrainingJobsForHyperParameterTuningJob failed: {error_text(err)}")
    first = trials[0] if trials else {}
    if not first.get("FailureReason"):
        return found
    return found._replace(job_reason=str(first["FailureReason"]), trial=str(first.get("TrainingJobName") or ""))


def _not_found(err: Exception) -> bool:
    return error_code(err) in ("ValidationException", "ResourceNotFound") and bool(
        re.search(_NOT_FOUND, error_message(err)))


def _real_name(ports: Ports, need: FailedSteps, api: JobApi, lowered: str) -> str | tuple[None, str] | None:
    """The real name of the job an ARN names lower-cased (SageMaker lower-cases names in ARNs; Describe wants the
    name as created), or (None, why not).

    The cheapest correct way: one listing page (List...Jobs, NameContains, the newest 100), kept to the job whose
    name lower-cased is the ARN's. The step's metadata names only the ARN, and Search covers neither processing nor
    transform jobs (and needs Resource "*" for every family). NameContains is given a part of the name that has no
    capitals whatever the user wrote (SageMaker does not document whether NameContains ignores case): the generated
    "pipelines-<execution id>-" head, else its longest run of digits and '-' (a timestamp); with neither, no
    listing can find it safely and the step says so."""
    if not re.search("[a-z]", lowered):
        return None  # no letter: nothing was lower-cased, the job is gone
    head = re.match(_PIPELINES_NAME, lowered)
    runs = sorted(re.findall(r"[0-9-]+", lowered), key=len)
    fragment = head.group(0) if head else (runs[-1] if runs and len(runs[-1]) >= _LETTERLESS_MIN else "")
    if not fragment:
        return None, "its ARN names it lower-cased, and no part of its name is sure to match a listing"
    try:
        real = ports.jobs.real_name(api, lowered, fragment)
    except Exception as err:
        return None, f"{api.list} failed: {error_text(err)}"
    return real if real else (None, f"no job named {lowered} in any case among the newest {api.list} entries")


def _stopped_by(ports: Ports, failure: StepFailure) -> StepFailure:
    """The step knowing whether this stack stopped its job (the ledger's record); a record that cannot be read is
    named on the step, the message goes on."""
    try:
        by = ports.ledger.stopped_by(failure.job_arn)
    except Exception as err:
        note = f"this stack's stop record could not be read ({error_code(err)})"
        return failure._replace(unread=f"{failure.unread}; {note}" if failure.unread else note)
    return failure._replace(stopped_by=by) if isinstance(by, str) and by else failure


READER = FailedStepsReader()
