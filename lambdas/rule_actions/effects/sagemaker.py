"""SageMaker, for any job family: describe a job, list the running jobs under a prefix, list every running job with
its description (Search), stop a job, create one (a restart's copy) and read its tags (the family's JobApi names the operations and members: DescribeTrainingJob,
TrainingJobName...); find a job's real name from the lower-cased one in its ARN; list a tuning job's failed trials, its trials' runs (what
its cost sums) and a pipeline execution's steps."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from botocore import xform_name
from botocore.exceptions import ClientError

from rule_actions.contract import IN_PROGRESS
from rule_actions.records import TRIAL_MEMBERS, JobApi, Trial, TrialRun, UnreadJob
from rule_actions.text import error_code, error_message

_NOT_RUNNING = re.compile(r"is in status (\w+)")
ALREADY_STOPPING = ("Stopping", "Stopped")
REFUSALS = ("ValidationException", "ConflictException")  # a stop refused for the job's state
SEARCH_PAGE = 100  # Search's largest MaxResults
LIST_PAGE = 100  # a List...Jobs call's largest MaxResults
DESCRIBED_MAX = 1024  # descriptions (with tags) of listed jobs kept per execution environment
TRIALS_MAX = 100  # ListTrainingJobsForHyperParameterTuningJob's largest MaxResults


class SageMaker:
    def __init__(self, client: Any):
        self.client = client
        # A listed job's description and tags, read once per execution environment (a job's resources, start and
        # declared parameters do not change while it runs; its status comes from each listing).
        self.described: dict[tuple[str, str], dict[str, Any]] = {}

    def describe(self, api: JobApi, job_name: str) -> dict[str, Any]:
        found: dict[str, Any] = getattr(self.client, xform_name(api.describe))(**{api.name: job_name})
        return found

    def in_progress(self, api: JobApi, prefix: str) -> list[str]:
        """Names of the running jobs that start with `prefix` (case-sensitive), every page."""
        names: list[str] = []
        for page in self.client.get_paginator(xform_name(api.list)).paginate(NameContains=prefix,
                                                                             StatusEquals=IN_PROGRESS):
            names += [job[api.name] for job in page[api.summaries]]
        return sorted(name for name in names if name.startswith(prefix))

    def real_name(self, api: JobApi, lowered: str, fragment: str) -> str | None:
        """The name, as created, of the job whose name lower-cased is `lowered`: one listing page (NameContains
        `fragment`, the newest 100 jobs), None when none is."""
        page = getattr(self.client, xform_name(api.list))(NameContains=fragment, SortBy="CreationTime",
                                                          SortOrder="Descending", MaxResults=LIST_PAGE)
        return next((job[api.name] for job in page.get(api.summaries, [])
                     if isinstance(job.get(api.name), str) and job[api.name].lower() == lowered), None)

    def failed_trials(self, tuning_job_name: str, limit: int) -> list[dict[str, Any]]:
        """The first `limit` failed training jobs of a tuning job, by creation time: one call, however many."""
        found: list[dict[str, Any]] = self.client.list_training_jobs_for_hyper_parameter_tuning_job(
            HyperParameterTuningJobName=tuning_job_name, StatusEquals="Failed", MaxResults=limit,
            SortBy="CreationTime", SortOrder="Ascending")["TrainingJobSummaries"]
        return found

    def pipeline_steps(self, execution_arn: str) -> list[dict[str, Any]]:
        """Every step of a pipeline execution, oldest first, every page."""
        pages = self.client.get_paginator("list_pipeline_execution_steps").paginate(
            PipelineExecutionArn=execution_arn, SortOrder="Ascending")
        return [step for page in pages for step in page["PipelineExecutionSteps"]]

    def running(self, api: JobApi) -> list[dict[str, Any] | UnreadJob]:
        """Every InProgress job of the family as Search returns it (its Describe members and its Tags), every page:
        one call per 100 jobs, where a listing and a describe per job would make one per job (and no tags). A family
        Search does not support (processing, transform) is listed (List...Jobs, StatusEquals InProgress: one call
        per 100 jobs), and each job seen for the first time in this execution environment is described and its tags
        listed (2 calls, then kept: at most DESCRIBED_MAX jobs); a job whose reads fail is an UnreadJob."""
        if not api.search:
            return self._listed(api)
        request: dict[str, Any] = {
            "Resource": api.search, "MaxResults": SEARCH_PAGE,
            "SearchExpression": {"Filters": [{"Name": f"{api.search}Status", "Operator": "Equals",
                                              "Value": IN_PROGRESS}]},
        }
        found: list[dict[str, Any] | UnreadJob] = []
        while True:
            page = self.client.search(**request)
            found += [result[api.search] for result in page.get("Results", []) if api.search in result]
            token = page.get("NextToken")
            if not token:
                return found
            request["NextToken"] = token

    def _listed(self, api: JobApi) -> list[dict[str, Any] | UnreadJob]:
        names: list[str] = []
        for page in self.client.get_paginator(xform_name(api.list)).paginate(
                StatusEquals=IN_PROGRESS, PaginationConfig={"PageSize": LIST_PAGE}):
            names += [job[api.name] for job in page[api.summaries]]
        found: list[dict[str, Any] | UnreadJob] = []
        for name in names:
            key = (api.describe, name)
            record = self.described.get(key)
            if record is None:
                try:
                    record = {k: v for k, v in self.describe(api, name).items() if k != "ResponseMetadata"}
                    arn = next((v for k, v in record.items() if k.endswith("JobArn") and isinstance(v, str)), "")
                    pages = self.client.get_paginator("list_tags").paginate(ResourceArn=arn)
                    record["Tags"] = [tag for page in pages for tag in page.get("Tags", [])]
                except Exception as err:  # one job's failure is that job's row; the others go on
                    found.append(UnreadJob(name, f"{api.describe} or ListTags failed: {type(err).__name__}: "
                                                 f"{error_message(err) if isinstance(err, ClientError) else err}"))
                    continue
                if len(self.described) >= DESCRIBED_MAX:
                    self.described.pop(next(iter(self.described)))
                self.described[key] = record
            found.append({**record, api.name.removesuffix("Name") + "Status": IN_PROGRESS})
        listed = {(api.describe, name) for name in names}
        for key in [key for key in self.described if key[0] == api.describe and key not in listed]:
            del self.described[key]  # ended: forgotten
        return found

    def trials(self, tuning_job_name: str, limit: int) -> list[Trial]:
        """The latest `limit` trials of a tuning job (at most TRIALS_MAX), newest first: one call."""
        page = self.client.list_training_jobs_for_hyper_parameter_tuning_job(
            HyperParameterTuningJobName=tuning_job_name, MaxResults=min(limit, TRIALS_MAX), SortBy="CreationTime",
            SortOrder="Descending")
        return [_trial(t) for t in page.get("TrainingJobSummaries", [])]

    def trial_runs(self, tuning_job_name: str) -> list[TrialRun]:
        """Every trial of a tuning job, oldest first, with when it trained (one call per 100 trials) and what its own
        DescribeTrainingJob says it ran on and was billed for: one call per trial, except a trial this execution
        environment saw end (its description kept). A trial whose Describe fails carries why (its definition's
        instances are counted instead)."""
        pages = self.client.get_paginator("list_training_jobs_for_hyper_parameter_tuning_job").paginate(
            HyperParameterTuningJobName=tuning_job_name, SortBy="CreationTime", SortOrder="Ascending",
            PaginationConfig={"PageSize": TRIALS_MAX})
        found = []
        for page in pages:
            for t in page.get("TrainingJobSummaries", []):
                name = str(t.get("TrainingJobName", ""))
                record, unread = self._trial_record(name)
                found.append(TrialRun(name, str(t.get("TrainingJobDefinitionName") or ""),
                                      str(t.get("TrainingJobStatus", "")), _epoch(t.get("TrainingStartTime")),
                                      _epoch(t.get("TrainingEndTime")), record, unread))
        return found

    def _trial_record(self, name: str) -> tuple[dict[str, Any] | None, str]:
        """A trial's billing members (TRIAL_MEMBERS), kept once it ended; or None and why it was not read."""
        key = ("trial", name)
        if key in self.described:
            return self.described[key], ""
        try:
            answer = self.client.describe_training_job(TrainingJobName=name)
        except ClientError as err:
            return None, f"DescribeTrainingJob of {name} failed: {error_code(err)}: {error_message(err)}"
        record = {member: answer[member] for member in TRIAL_MEMBERS if member in answer}
        if record.get("TrainingJobStatus") not in (IN_PROGRESS, "Stopping"):
            if len(self.described) >= DESCRIBED_MAX:
                self.described.pop(next(iter(self.described)))
            self.described[key] = record
        return record, ""

    def stop(self, api: JobApi, key: str, token: str | None = None) -> str:
        """Stop a job (`key`: what the API names it by; a pipeline execution's ARN, with its ClientRequestToken).
        Returns "stopped", "already Stopping" / "already Stopped", or the status of a job that is not running
        (Completed, Failed) as SageMaker names it; raises on any other error. A refusal that does not say the job's
        status (each family words it its own way) is answered by describing the job: a job that is not running is
        not an error, a running one re-raises the refusal."""
        request = {api.name: key, **({"ClientRequestToken": token} if token else {})}
        try:
            getattr(self.client, xform_name(api.stop))(**request)
        except ClientError as err:
            if error_code(err) not in REFUSALS:
                raise
            found = _NOT_RUNNING.search(error_message(err))
            status = found.group(1) if found else self._status(api, key)
            if status is None:
                raise
            return f"already {status}" if status in ALREADY_STOPPING else status
        return "stopped"

    def tags(self, arn: str) -> dict[str, str]:
        """The job's tags, every page."""
        pages = self.client.get_paginator("list_tags").paginate(ResourceArn=arn)
        return {tag["Key"]: tag["Value"] for page in pages for tag in page.get("Tags", [])}

    def release(self, api: JobApi, job_name: str) -> None:
        """The job's warm pool let go: its KeepAlivePeriodInSeconds set to 0 (UpdateTrainingJob)."""
        getattr(self.client, xform_name(api.update))(**{api.name: job_name},
                                                      ResourceConfig={"KeepAlivePeriodInSeconds": 0})

    def create(self, api: JobApi, request: Mapping[str, Any]) -> str:
        """Create a job (a restart's copy): "created", or "exists" when its name is taken already (ResourceInUse:
        SageMaker's only idempotency key is the name; the caller made it the same for every retry)."""
        try:
            getattr(self.client, xform_name(api.create))(**request)
        except ClientError as err:
            if error_code(err) == "ResourceInUse":
                return "exists"
            raise
        return "created"

    def _status(self, api: JobApi, key: str) -> str | None:
        """The status of a job whose stop was refused, when it is not running (None: running, or unknown)."""
        try:
            described = self.describe(api, key)
        except ClientError:
            return None
        status = described.get(re.sub(r"(Name|Arn)$", "Status", api.name))  # TrainingJobName -> TrainingJobStatus
        return None if not isinstance(status, str) or status in (IN_PROGRESS, "Executing") else status

def _epoch(value: Any) -> int | None:
    return int(value.timestamp()) if hasattr(value, "timestamp") else None


def _trial(summary: dict[str, Any]) -> Trial:
    metric = summary.get("FinalHyperParameterTuningJobObjectiveMetric") or {}
    value = metric.get("Value") if isinstance(metric, dict) else None
    return Trial(str(summary.get("TrainingJobName", "")), str(summary.get("TrainingJobStatus", "")),
                 _epoch(summary.get("CreationTime")) or 0, _epoch(summary.get("TrainingEndTime")),
                 str(summary.get("FailureReason") or ""),
                 float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None)
