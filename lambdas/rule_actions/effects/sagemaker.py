"""SageMaker: read a job's rule configurations, list InProgress jobs by prefix, stop a job."""

from __future__ import annotations

import re
from typing import Any

from botocore.exceptions import ClientError

from rule_actions.contract import FAMILIES
from rule_actions.effects import error_code, error_message

_NOT_RUNNING = re.compile(r"training job is in status (\w+)")
ALREADY_STOPPING = ("Stopping", "Stopped")


class SageMaker:
    def __init__(self, client: Any):
        self.client = client

    def rule_parameters(self, job_name: str) -> dict[tuple[str, str], Any]:
        """(family, rule name) -> RuleParameters of the Debug and Profiler rule configurations."""
        job = self.client.describe_training_job(TrainingJobName=job_name)
        return {
            (family, item["RuleConfigurationName"]): item.get("RuleParameters") or {}
            for family in FAMILIES
            for item in job.get(f"{family}RuleConfigurations") or []
        }

    def in_progress_jobs(self, prefix: str) -> list[str]:
        """Names of the InProgress jobs that start with `prefix` (case-sensitive), every page."""
        names: list[str] = []
        for page in self.client.get_paginator("list_training_jobs").paginate(
            NameContains=prefix, StatusEquals="InProgress"
        ):
            names += [job["TrainingJobName"] for job in page["TrainingJobSummaries"]]
        return sorted(name for name in names if name.startswith(prefix))

    def stop(self, job_name: str) -> str:
        """Stop a job. Returns "stopped", "already Stopping" / "already Stopped", or the status of a job that is
        not running (Completed, Failed) as SageMaker names it; raises on any other error."""
        try:
            self.client.stop_training_job(TrainingJobName=job_name)
        except ClientError as err:
            found = _NOT_RUNNING.search(error_message(err)) if error_code(err) == "ValidationException" else None
            if not found:
                raise
            status = found.group(1)
            return f"already {status}" if status in ALREADY_STOPPING else status
        return "stopped"
