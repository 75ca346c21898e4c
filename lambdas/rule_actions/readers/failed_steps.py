"""FailedSteps: a pipeline execution's failed steps (ListPipelineExecutionSteps, every page), each with the job its
metadata names described for that job's own FailureReason (at most `limit` describes; for a tuning job, its first
failed trial's reason, which is the real one). A describe that fails is named on its step; the others are kept."""

from __future__ import annotations

from collections.abc import Mapping

from rule_actions.readers.base import Reader
from rule_actions.records import FailedSteps, StepFailure
from rule_actions.text import arn_name, error_text


class Steps(Reader):
    need = FailedSteps

    def read(self, need, ports):
        apis = dict(need.jobs)
        found = []
        for step in ports.jobs.pipeline_steps(need.execution_arn):
            if step.get("StepStatus") != "Failed":
                continue
            metadata = step.get("Metadata") if isinstance(step.get("Metadata"), Mapping) else {}
            kind = next((key for key in metadata if key in apis), next(iter(metadata), ""))
            job = metadata.get(kind) if isinstance(metadata.get(kind), Mapping) else {}
            arn = job.get("Arn") if kind in apis and isinstance(job.get("Arn"), str) else ""
            reason, unread, trial = "", "", ""
            if arn and len(found) < need.limit:
                reason, unread, trial = _job_reason(ports, apis[kind], arn, kind == need.tuning)
            found.append(StepFailure(name=str(step.get("StepName") or ""), type=kind,
                                     reason=str(step.get("FailureReason") or ""), job_arn=arn, job_reason=reason,
                                     unread=unread, trial=trial))
        return tuple(found)

    def failure(self, need):
        return "ListPipelineExecutionSteps failed"


def _job_reason(ports, api, arn: str, tuning: bool) -> tuple[str, str, str]:
    """(the job's own FailureReason, why it could not be read, the trial it comes from)."""
    name = arn_name(arn)
    try:
        reason = str(ports.jobs.describe(api, name).get("FailureReason") or "")
    except Exception as err:
        return "", f"{api.describe} failed: {error_text(err)}", ""
    if not tuning:
        return reason, "", ""
    try:  # a tuning job's reason names no cause ("No training job succeeded..."): its trials' do
        trials = ports.jobs.failed_trials(name, 1)
    except Exception as err:
        return reason, f"ListTrainingJobsForHyperParameterTuningJob failed: {error_text(err)}", ""
    first = trials[0] if trials else {}
    if not first.get("FailureReason"):
        return reason, "", ""
    return str(first["FailureReason"]), "", str(first.get("TrainingJobName") or "")


READER = Steps()
