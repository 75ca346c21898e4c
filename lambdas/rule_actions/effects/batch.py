"""AWS Batch, for the SageMaker training jobs it queues (service jobs): describe one, list a queue's, terminate one
(which also stops its training job: a StopTrainingJob behind Batch's back may be retried by Batch's retry strategy),
submit one again (a restart through Batch: never a CreateTrainingJob behind it). The client is made on first use.

IAM: batch:DescribeServiceJob and batch:ListServiceJobs take no resource (Resource "*"); batch:TerminateServiceJob takes the service job's
ARN, arn:<partition>:batch:<region>:<account>:service-job/<job id>, which names no queue: a stop scoped to queues is
this adapter's caller's check (the job's jobQueue, from its event or `describe`), not IAM's (docs/batch.md).
batch:SubmitServiceJob takes the job queue's ARN (job-queue/<name>) and the new job's (service-job/*), and needs
batch:TagResource for its tags and iam:PassRole for its request's RoleArn (to sagemaker.amazonaws.com).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botocore.exceptions import ClientError

from rule_actions.contract import SERVICE_JOB_ENDED, SERVICE_JOB_RUNNING
from rule_actions.effects import LazyClient
from rule_actions.text import error_code

REFUSED = "ClientException"  # what Batch answers a request it refuses (an unknown job, a bad argument)
REASON_MAX = 1024  # a reason is kept short: Batch returns it in DescribeServiceJob's statusReason
RUNNING_STATUSES = SERVICE_JOB_RUNNING
# Where a service job whose attempt ran a training job may be, running first: requeued (RUNNABLE, after a
# preemption), then ended (FAILED: a termination, SUCCEEDED).
ANY_STATUSES = (*RUNNING_STATUSES, "RUNNABLE", "FAILED", "SUCCEEDED")


class BatchServiceJobs(LazyClient):
    def describe(self, job_id: str) -> dict[str, Any]:
        """DescribeServiceJob's answer (its serviceRequestPayload holds the request it queued, verbatim)."""
        found = self.client.describe_service_job(jobId=job_id)
        return {key: value for key, value in found.items() if key != "ResponseMetadata"}

    def running_job(self, training_job_arn: str, queues: tuple[str, ...]) -> tuple[str, Mapping[str, Any]] | None:
        """The service job of one of `queues` whose latest attempt is the training job (its ARN, compared without
        case: SageMaker lower-cases names in ARNs), as (its queue, its ListServiceJobs summary); None when none of
        those queues runs it. Lists each queue's RUNNING, STARTING and SCHEDULED jobs, every page."""
        return self._find(training_job_arn, queues, RUNNING_STATUSES)

    def job_of(self, training_job_arn: str, queues: tuple[str, ...]) -> tuple[str, Mapping[str, Any]] | None:
        """As `running_job`, whatever the job's status (ANY_STATUSES, in that order: a stopped attempt's job has
        usually ended, FAILED, or been requeued, RUNNABLE)."""
        return self._find(training_job_arn, queues, ANY_STATUSES)

    def submit(self, request: Mapping[str, Any]) -> tuple[str, str]:
        """SubmitServiceJob: ("submitted", its job id). Batch refuses a repeat of a request with its clientToken
        (ClientException): the job of that name in that queue is then the one submitted before, ("exists", its id);
        raises when there is none, or on any other error."""
        try:
            return "submitted", str(self.client.submit_service_job(**request)["jobId"])
        except ClientError as err:
            if error_code(err) != REFUSED or not request.get("clientToken"):
                raise
            pages = self.client.get_paginator("list_service_jobs")
            for page in pages.paginate(jobQueue=request["jobQueue"],
                                       filters=[{"name": "JOB_NAME", "values": [request["jobName"]]}]):
                for summary in page.get("jobSummaryList", []):
                    if summary.get("jobName") == request["jobName"]:
                        return "exists", str(summary.get("jobId", ""))
            raise

    def _find(self, training_job_arn: str, queues: tuple[str, ...],
              statuses: tuple[str, ...]) -> tuple[str, Mapping[str, Any]] | None:
        wanted = training_job_arn.lower()
        pages = self.client.get_paginator("list_service_jobs")
        for queue in queues:
            for status in statuses:
                for page in pages.paginate(jobQueue=queue, jobStatus=status):
                    for summary in page.get("jobSummaryList", []):
                        resource = (summary.get("latestAttempt") or {}).get("serviceResourceId") or {}
                        if str(resource.get("value", "")).lower() == wanted:
                            return queue, summary
        return None

    def listed(self, queue: str, status: str) -> list[Mapping[str, Any]]:
        """The summaries of the queue's service jobs in `status`, every page (ListServiceJobs)."""
        pages = self.client.get_paginator("list_service_jobs")
        return [summary for page in pages.paginate(jobQueue=queue, jobStatus=status)
                for summary in page.get("jobSummaryList", [])]

    def terminate(self, job_id: str, reason: str) -> str:
        """Terminate the service job with `reason` (naming who asks and why: Batch keeps it as the job's
        statusReason). "terminated", or "already SUCCEEDED" / "already FAILED" when a refusal came for a job that
        had ended (read back with `describe`); raises on any other error."""
        try:
            self.client.terminate_service_job(jobId=job_id, reason=reason[:REASON_MAX])
        except ClientError as err:
            if error_code(err) != REFUSED:
                raise
            try:
                status = self.describe(job_id).get("status")
            except ClientError:
                raise err from None
            if status not in SERVICE_JOB_ENDED:
                raise
            return f"already {status}"
        return "terminated"
