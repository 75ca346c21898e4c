"""SageMaker Pipelines: pipeline executions, from the "SageMaker Model Building Pipeline Execution Status Change" and
"... Execution Step Status Change" events; their outcomes (`pipeline_outcomes`: Failed, CompletedWithFailures,
Stopped, Succeeded) and their scope (`pipeline_prefixes`, by pipeline name).

A failed execution is reported once, however many of its steps failed, in parallel or not: its message names every
failed (or stopped) step, the step's type (its metadata's member: ListPipelineExecutionSteps has no type member,
and the step events that carry stepType are never matched), and the real reason, taken from the job the step's
metadata names (a training, processing, transform or tuning job, described; for a tuning job, its first failed
trial's own reason; for a processing job whose reason is generic, "AlgorithmError: See job logs for more
information", its ExitMessage): a step's own reason is often only "No training job succeeded after 5 attempts".
A step job's ARN names it lower-cased: when no job has that name, its real name is looked up (readers/
failed_steps.py). When this stack stopped a step's job (the ledger's stop record), the step says so and why. An
execution that failed before any step failed is told by its own FailureReason (one DescribePipelineExecution, only
then). The steps are read when the execution's status changes (one ListPipelineExecutionSteps, then one describe
and one stop record per failed step, at most STEPS_DESCRIBED): the execution ends only after its steps, so they are
all there. Step events are read too (a malformed one is reported
like any event) but are never a trigger: the rule does not match them, and a step's failure is reported with its
execution's. The job is the execution, named <pipeline>/<execution id>; its ARN keys the exactly-once records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rule_actions.contract import Arn, Grant, OutcomeCondition
from rule_actions.jobs.base import Envelope, JobFamily, Members, detail_of, job_name_patterns
from rule_actions.jobs.common import (
    CONSOLE_PATHS,
    EXECUTION_ARN_HINT,
    LIST_TRIALS,
    LOG_GROUPS,
    PIPELINE_EXECUTION,
    PIPELINE_OUTCOMES,
    PIPELINE_OWNER,
    PIPELINE_RUNNING,
    PIPELINE_SCOPE,
    PIPELINE_STEP_JOBS_ALERT,
    PROCESSING,
    PROCESSING_JOB,
    TRAINING,
    TRAINING_JOB,
    TRANSFORM,
    TRANSFORM_JOB,
    TUNING,
    TUNING_JOB,
    arn_resource,
    attached,
    essence,
    execution_name,
    execution_ref,
    generic,
    reports,
)
from rule_actions.ports import Configured
from rule_actions.records import FailedSteps, IgnoredEvent, JobEvent, JobRef, Need, StepFailure, Unread
from rule_actions.text import DETAILS_MAX, NAME_MAX, arn_name, console_link, encoded, line, log_link, plain, quoted

EXECUTION = "SageMaker Model Building Pipeline Execution Status Change"
STEP = "SageMaker Model Building Pipeline Execution Step Status Change"
FAILED, WITH_FAILURES = "Failed", "CompletedWithFailures"
OUTCOMES = {
    FAILED: OutcomeCondition((FAILED,), (), (), "pipeline execution failed", "failed"),
    WITH_FAILURES: OutcomeCondition((WITH_FAILURES,), (), (), "pipeline execution completed with failures",
                                    "completed, but some of its steps failed"),
    "Stopped": OutcomeCondition(("Stopped",), (), (), "pipeline execution stopped", "was stopped"),
    "Succeeded": OutcomeCondition(("Succeeded",), (), (), "pipeline execution succeeded", "succeeded"),
}
# A step's metadata names its job: the member, the step's type, how the job is described, its ARN resource type.
STEP_JOBS = {"TrainingJob": ("Training", TRAINING, TRAINING_JOB),
             "ProcessingJob": ("Processing", PROCESSING, PROCESSING_JOB),
             "TransformJob": ("Transform", TRANSFORM, TRANSFORM_JOB), "TuningJob": ("Tuning", TUNING, TUNING_JOB)}
# The other members of a step's metadata (PipelineExecutionStepMetadata, botocore's model) and the step type each
# says, as the step events write stepType.
OTHER_STEPS = {"AutoMLJob": "AutoML", **{member: member for member in (
    "Model", "RegisterModel", "Condition", "Callback", "Lambda", "EMR", "EMRServerless", "QualityCheck",
    "ClarifyCheck", "Fail", "Endpoint", "EndpointConfig", "BedrockCustomModel", "BedrockCustomModelDeployment",
    "BedrockProvisionedModelThroughput", "BedrockModelImport", "InferenceComponent", "Lineage", "Job", "Athena",
    "Cleanup", "ForEach", "HubContent")}}
STEPS_DESCRIBED = 10  # failed steps whose job is described (a bound on the calls of one message)
STEP_LINKS = 3  # failed steps whose job's console page and logs are linked
STEP_REASON_MAX = 400
EXIT_MESSAGE = "the job's exit message"
STEP_STATUS = "currentStepStatus"
EXECUTION_MEMBERS = Members(name="pipelineExecutionArn", arn="pipelineExecutionArn",
                            status="currentPipelineExecutionStatus", secondary=None, failure_reason="failureReason",
                            transitions=None, created="executionStartTime", started="executionStartTime",
                            ended="executionEndTime", last_modified="executionEndTime")
STEP_MEMBERS = Members(name="pipelineExecutionArn", arn="pipelineExecutionArn", status=STEP_STATUS,
                       secondary="stepName", failure_reason="failureReason", transitions=None,
                       created="stepStartTime", started="stepStartTime", ended="stepEndTime",
                       last_modified="stepEndTime")


__all__ = ["FAMILY", "execution_name"]


class Pipeline(JobFamily):
    name = "pipeline"
    noun = "pipeline execution"
    detail_type = EXECUTION
    members = EXECUTION_MEMBERS
    api = PIPELINE_EXECUTION
    resource = "pipeline"  # an execution's ARN: arn:...:pipeline/<pipeline>/execution/<id>
    outcomes = OUTCOMES
    scope = PIPELINE_SCOPE
    outcome_actions = PIPELINE_OUTCOMES
    running = PIPELINE_RUNNING
    owner_key = PIPELINE_OWNER
    statuses = ("Executing", "Stopping", "Stopped", "Failed", "Succeeded", "CompletedWithFailures")  # an execution's

    def own_ref(self, event: JobEvent) -> JobRef:
        """The execution, named by its ARN (StopPipelineExecution and DescribePipelineExecution take the ARN)."""
        found = execution_ref(event.job_arn, event.job_status)
        return found if found is not None else super().own_ref(event)

    @property
    def detail_types(self) -> tuple[str, ...]:
        return (EXECUTION, STEP)

    def name_of(self, detail: Mapping[str, Any]) -> Any:
        return execution_name(detail.get(self.members.arn))

    def parse(self, raw: Mapping[str, Any]) -> JobEvent:
        detail = detail_of(raw)
        step = raw.get("detail-type") == STEP
        arn = detail.get(EXECUTION_MEMBERS.arn)
        name = execution_name(arn)
        if name is None:
            raise IgnoredEvent(f"detail.{EXECUTION_MEMBERS.arn}: missing or not a pipeline execution ARN "
                               f"SageMaker gives ({quoted(arn)}; {EXECUTION_ARN_HINT})")
        return replace(self.read(detail, Envelope.of(raw), STEP_MEMBERS if step else EXECUTION_MEMBERS), job_name=name)

    def detail_problems(self, detail: Mapping[str, Any]) -> list[str]:
        display = detail.get("pipelineExecutionDisplayName")
        return [] if display is None or isinstance(display, str) else [
            f"detail.pipelineExecutionDisplayName: not a string ({quoted(display)})"]

    def in_scope(self, config: Configured, job_name: str) -> bool:
        prefixes = tuple(prefix.lower() for prefix in config[self.scope])
        return not prefixes or job_name.lower().startswith(prefixes)

    def scope_clause(self, prefixes: tuple[str, ...]) -> dict[str, Any]:
        return {"pipelineArn": [{"wildcard": f"arn:*:sagemaker:*:*:pipeline/{pattern}*"}
                                for pattern in job_name_patterns(prefixes)]}

    def outcome_of(self, event: JobEvent) -> str | None:
        return None if STEP_STATUS in event.detail else super().outcome_of(event)

    def outcome_needs(self, event: JobEvent, outcome: str) -> frozenset[Need]:
        if outcome not in (FAILED, WITH_FAILURES):
            return frozenset()
        return frozenset({_steps_need(event.job_arn)})

    def learn(self, event: JobEvent, answers: Mapping[Any, Any]) -> JobEvent:
        pipeline, _, execution = event.job_name.partition("/")
        display = event.detail.get("pipelineExecutionDisplayName")
        steps = answers.get(_steps_need(event.job_arn))
        read = isinstance(steps, tuple) and not isinstance(steps, Unread)
        failed = [_step(s) for s in steps] if isinstance(steps, tuple) and not isinstance(steps, Unread) else None
        own = plain(getattr(steps, "execution_reason", ""), DETAILS_MAX, multiline=True) if read else ""
        unread = steps.reason if isinstance(steps, Unread) else getattr(steps, "execution_unread", "") or None
        details = {"pipeline": pipeline, "execution": execution,
                   "display_name": plain(display, NAME_MAX) if isinstance(display, str) and display else None,
                   "failed_steps": failed, "unread": unread, "execution_reason": own or None}
        reason = event.failure_reason or own or "; ".join(
            f"{s['name']} ({s['type'] or 'step'}): {essence(s['cause']) or 'no reason given'}"
            for s in failed or () if s["status"] == "Failed")
        return replace(event, details=details, failure_reason=reason)

    def outcome_lines(self, event: JobEvent, outcome: str) -> list[str]:
        d = event.details
        if not d:
            return []
        display = f" ({d['display_name']})" if d.get("display_name") else ""
        lines = [line("Pipeline", plain(d["pipeline"], NAME_MAX)),
                 line("Execution", plain(d["execution"], NAME_MAX) + display)]
        steps = d.get("failed_steps")
        if steps is not None:
            stopped = any(s["status"] == "Stopped" for s in steps)
            title = "Failed and stopped steps" if stopped else "Failed steps"
            lines += ["", f"{title} ({len(steps)}):" if steps else "Failed steps: none listed"]
            if not steps and d.get("execution_reason"):
                lines.append("  (the execution failed before any step did: its own reason is above)")
            for s in steps:
                status = "; stopped" if s["status"] == "Stopped" else ""
                lines.append(f"  - {s['name']} ({s['type'] or 'type unknown'}{status})")
                if s["job_arn"]:
                    lines.append(f"      {'Job:':<11} {plain(s['job_name'] or arn_name(s['job_arn']), NAME_MAX)}")
                whose = _whose(s)
                if whose:
                    lines.append(f"      {'Reason:':<11} {plain(essence(s['cause']), STEP_REASON_MAX)}  ({whose})")
                job_said = whose == EXIT_MESSAGE and s["job_reason"].strip()
                if job_said:
                    lines.append(f"      {'Job said:':<11} {plain(essence(s['job_reason']), STEP_REASON_MAX)}")
                if s["reason"] and s["reason"] != s["cause"] and not (job_said and s["reason"] == s["job_reason"]):
                    lines.append(f"      {'Step said:':<11} {plain(essence(s['reason']), STEP_REASON_MAX)}")
                if s["stopped_by"]:
                    lines.append(f"      {'Stopped by rule-actions:':<11} {plain(s['stopped_by'], STEP_REASON_MAX)}")
                if s["unread"]:
                    lines.append(f"      {'Not read:':<11} {s['unread']}")
        if d.get("unread"):
            lines += ["", f"Steps not read: {plain(d['unread'], DETAILS_MAX)}"]
        return lines

    def links(self, event: JobEvent, region: str) -> tuple[tuple[str, str], ...]:
        found = []
        for step in (event.details.get("failed_steps") or ())[:STEP_LINKS]:
            resource = arn_resource(step["job_arn"])
            if resource not in CONSOLE_PATHS:
                continue
            job = step["job_name"] or arn_name(step["job_arn"])
            found.append((f"{step['name']}: its job in the console",
                          console_link(region, f"/{CONSOLE_PATHS[resource]}/{encoded(job)}")))
            found.append((f"{step['name']}: its job's logs", log_link(region, LOG_GROUPS[resource], job)))
        return tuple(found)

    def warnings(self, config: Configured, where: str) -> list[str]:
        """pipeline_step_jobs_alert false says nothing while no execution reports: its step jobs report on their own."""
        if config[PIPELINE_STEP_JOBS_ALERT] or reports(config, self.outcome_actions):
            return []
        return [f"{where}.{PIPELINE_STEP_JOBS_ALERT.key} is false, but {where}.{self.outcome_actions.key} attaches no "
                "actions: no pipeline execution reports for the jobs its steps launch, so they report their outcomes "
                "on their own, through their family's outcomes (job_outcomes, processing_job_outcomes...). Give "
                f"{self.outcome_actions.key} actions (Failed, CompletedWithFailures: one message per execution, naming "
                f"every failed step) for only the execution to report them, or set {PIPELINE_STEP_JOBS_ALERT.key} "
                "true."]

    def read_grants(self, config: Configured) -> list[Grant]:
        if not any(attached(config, self.outcome_actions).get(o) for o in (FAILED, WITH_FAILURES)):
            return []
        executions = self.resources(config)
        jobs = [(api, resource) for _, api, resource in STEP_JOBS.values()]
        return [
            Grant(sid="DescribePipelineExecutions", actions=(f"sagemaker:{self.api.describe}",), resources=executions,
                  reason="An execution that failed before any of its steps did says why only in its own "
                         "FailureReason: the function describes it then (once), read-only, for any execution of a "
                         "pipeline under the configured pipeline_prefixes."),
            Grant(sid="ListPipelineStepJobs", actions=tuple(f"sagemaker:{api.list}" for api, _ in jobs),
                  resources=("*",),
                  reason="A step's job is named lower-cased in the ARN its step lists; when no job has that name "
                         "the function lists the jobs whose names contain a part of it (once, only then) for its "
                         "real name. These List actions support no resource-level permissions: IAM requires "
                         "Resource \"*\" for them (the only actions in that statement), read-only."),
            Grant(sid="ListPipelineExecutionSteps", actions=("sagemaker:ListPipelineExecutionSteps",),
                  resources=executions,
                  reason="Pipelines are named by users: the function lists the steps of any execution of a pipeline "
                         "under the configured pipeline_prefixes (every pipeline when none are set), read-only."),
            Grant(sid="DescribePipelineStepJobs",
                  actions=(*(f"sagemaker:{api.describe}" for api, _ in jobs), f"sagemaker:{LIST_TRIALS}"),
                  resources=tuple(Arn("sagemaker", resource, "*") for _, resource in jobs),
                  reason="A pipeline's steps launch jobs that SageMaker names (pipelines-<execution>-<step>-<random>, "
                         "or the step's custom job prefix): the function describes a failed step's job, read-only, "
                         "for its real failure reason, whatever its name."),
        ]


def _steps_need(execution_arn: str) -> FailedSteps:
    return FailedSteps(execution_arn, tuple((member, api) for member, (_, api, _) in STEP_JOBS.items()),
                       STEPS_DESCRIBED, tuning="TuningJob", execution=PIPELINE_EXECUTION, find_names=True)


def _step(found: StepFailure) -> dict[str, str]:
    kind = STEP_JOBS[found.type][0] if found.type in STEP_JOBS else OTHER_STEPS.get(found.type, found.type)
    job_reason = plain(found.job_reason, DETAILS_MAX, multiline=True)
    exit_message = plain(found.exit_message, DETAILS_MAX, multiline=True)
    # The real cause: the job's own reason, unless it only points at the logs and the job's ExitMessage says more
    cause = exit_message if exit_message.strip() and generic(job_reason) else job_reason
    return {"name": plain(found.name, NAME_MAX) or "?", "type": plain(kind, 64),
            "reason": plain(found.reason, DETAILS_MAX, multiline=True), "job_arn": plain(found.job_arn, 2048),
            "job_reason": job_reason, "unread": plain(found.unread, STEP_REASON_MAX), "trial": plain(found.trial, NAME_MAX),
            "status": "Stopped" if found.status == "Stopped" else "Failed", "exit_message": exit_message,
            "cause": cause or plain(found.reason, DETAILS_MAX, multiline=True),
            "job_name": plain(found.job_name, NAME_MAX), "stopped_by": plain(found.stopped_by, STEP_REASON_MAX)}


def _whose(step: dict[str, str]) -> str:
    """Whose words the step's cause is ("" when only the step's own)."""
    if step["trial"] and step["job_reason"]:
        return f"its failed trial {step['trial']}'s own"
    if step["exit_message"].strip() and step["cause"] == step["exit_message"]:
        return EXIT_MESSAGE
    return "the job's own" if step["job_reason"] else ""


FAMILY = Pipeline()
