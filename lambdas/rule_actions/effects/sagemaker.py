"""SageMaker, for any job family: describe a job, list the running jobs under a prefix, list every running job with
its description (Search), stop a job (the family's JobApi names the operations and members: DescribeTrainingJob,
TrainingJobName...); find a job's real name from the lower-cased one in its ARN; list a tuning job's failed trials
and a pipeline execution's steps."""

from __future__ import annotations

import re
from typing import Any

from botocore import xform_name
from botocore.exceptions import ClientError

from rule_actions.contract import IN_PROGRESS
from rule_actions.records import JobApi
from rule_actions.text import error_code, error_message

_NOT_RUNNING = re.compile(r"is in status (\w+)")
ALREADY_STOPPING = ("Stopping", "Stopped")
REFUSALS = ("ValidationException", "ConflictException")  # a stop refused for the job's state
SEARCH_PAGE = 100  # Search's largest MaxResults
LIST_PAGE = 100  # a List...Jobs call's largest MaxResults


class SageMaker:
    def __init__(self, client: Any):
        self.client = client

    def describe(self, api: JobApi, job_name: str) -> dict[str, Any]:
        return getattr(self.client, xform_name(api.describe))(**{api.name: job_name})

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
        return self.client.list_training_jobs_for_hyper_parameter_tuning_job(
            HyperParameterTuningJobName=tuning_job_name, StatusEquals="Failed", MaxResults=limit,
            SortBy="CreationTime", SortOrder="Ascending")["TrainingJobSummaries"]

    def pipeline_steps(self, execution_arn: str) -> list[dict[str, Any]]:
        """Every step of a pipeline execution, oldest first, every page."""
        pages = self.client.get_paginator("list_pipeline_execution_steps").paginate(
            PipelineExecutionArn=execution_arn, SortOrder="Ascending")
        return [step for page in pages for step in page["PipelineExecutionSteps"]]

    def running(self, api: JobApi) -> list[dict[str, Any]]:
        """Every InProgress job of the family as Search returns it (its Describe members and its Tags), every page:
        one call per 100 jobs, where a listing and a describe per job would make one per job (and no tags)."""
        request: dict[str, Any] = {
            "Resource": api.search, "MaxResults": SEARCH_PAGE,
            "SearchExpression": {"Filters": [{"Name": f"{api.search}Status", "Operator": "Equals",
                                              "Value": IN_PROGRESS}]},
        }
        found: list[dict[str, Any]] = []
        while True:
            page = self.client.search(**request)
            found += [result[api.search] for result in page.get("Results", []) if api.search in result]
            token = page.get("NextToken")
            if not token:
                return found
            request["NextToken"] = token

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

    def _status(self, api: JobApi, key: str) -> str | None:
        """The status of a job whose stop was refused, when it is not running (None: running, or unknown)."""
        try:
            described = self.describe(api, key)
        except ClientError:
            return None
        status = described.get(re.sub(r"(Name|Arn)$", "Status", api.name))  # TrainingJobName -> TrainingJobStatus
        return None if not isinstance(status, str) or status in (IN_PROGRESS, "Executing") else status
