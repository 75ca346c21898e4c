"""Jobs of a family moto has no backend for: each kept as its description (its latest event's detail: a family's
event mirrors its Describe... output), and the family's Describe, List and Stop calls (its JobApi) answered from
them, registered on moto's SageMaker responses by the operations' names. A new job family is replayed with nothing
of its own here (rule_actions_cli.seeding seeds it so); the families moto models keep their own backends
(emulator/sagemaker.py).

    serve(api, status)            its calls answered (idempotent; a call moto implements is then answered here)
    put_job(api, name, description, account_id=, region=)      the job, as its event states it
    described(api, name, account_id=, region=)                      its description ({}: no such job)
    job_status(api, status, name, account_id=, region=)             its status, None when there is no such job
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from botocore import xform_name
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.core.responses import ActionResult
from moto.sagemaker.exceptions import ValidationError
from moto.sagemaker.responses import SageMakerResponse

from rule_actions.contract import IN_PROGRESS
from rule_actions.records import JobApi

_JOBS: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}  # (account, region, Describe...) -> name -> description


def _jobs(api: JobApi, account_id: str, region: str) -> dict[str, dict[str, Any]]:
    return _JOBS.setdefault((account_id, region, api.describe), {})


def serve(api: JobApi, status: str) -> None:
    """Answer the family's Describe, List and Stop calls from the jobs put here (`status`: its status member)."""

    def describe(self: SageMakerResponse) -> Any:
        name = self._get_param(api.name)
        found = _jobs(api, self.current_account, self.region).get(name)
        if found is None:
            raise ValidationError(message=f"Requested resource not found: {name}.")
        return ActionResult(copy.deepcopy(found))

    def listed(self: SageMakerResponse) -> Any:
        contains, wanted = self._get_param("NameContains") or "", self._get_param("StatusEquals")
        jobs = [{api.name: name, status: job.get(status)} for name, job in
                sorted(_jobs(api, self.current_account, self.region).items())
                if contains in name and (wanted is None or job.get(status) == wanted)]
        return ActionResult({api.summaries: jobs})

    def stop(self: SageMakerResponse) -> Any:
        name = self._get_param(api.name)
        found = _jobs(api, self.current_account, self.region).get(name)
        if found is None:
            raise ValidationError(message=f"Requested resource not found: {name}.")
        if found.get(status) != IN_PROGRESS:
            raise ValidationError(message=f"The request was rejected because the job is in status {found.get(status)}.")
        found[status] = "Stopping"
        return ActionResult({})

    for operation, handler in ((api.describe, describe), (api.list, listed), (api.stop, stop)):
        setattr(SageMakerResponse, xform_name(operation), handler)


def put_job(api: JobApi, name: str, description: Mapping[str, Any],
            account_id: str = DEFAULT_ACCOUNT_ID, region: str = "us-east-1") -> None:
    _jobs(api, account_id, region)[name] = dict(copy.deepcopy(description))


def described(api: JobApi, name: str, account_id: str = DEFAULT_ACCOUNT_ID,
              region: str = "us-east-1") -> dict[str, Any]:
    """The job's description as put ({} when there is no such job)."""
    return copy.deepcopy(_jobs(api, account_id, region).get(name, {}))


def job_status(api: JobApi, status: str, name: str, account_id: str = DEFAULT_ACCOUNT_ID,
               region: str = "us-east-1") -> str | None:
    found = _jobs(api, account_id, region).get(name)
    return None if found is None else str(found.get(status))
