"""`rule-actions invoke`: send events to a deployed function and report its answers.

Honours the usual AWS settings (profiles, AWS_REGION, AWS_ENDPOINT_URL). With --stack, the function name is
read from the stack's `FunctionName` output.
"""

from __future__ import annotations

import json
from typing import Any

import boto3
from botocore.config import Config as BotoConfig

from rule_actions_cli.report import row

FUNCTION_OUTPUT = "FunctionName"


def function_from_stack(session: boto3.Session, stack: str) -> str:
    outputs = session.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    for output in outputs:
        if output["OutputKey"] == FUNCTION_OUTPUT or output["OutputKey"].endswith(FUNCTION_OUTPUT):
            return output["OutputValue"]
    raise LookupError(f"stack {stack} has no {FUNCTION_OUTPUT} output")


def invoke_all(client: Any, function: str, events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Invoke synchronously, one event at a time; a function error (failed actions) is reported, not raised."""
    rows = []
    for source, event in events:
        response = client.invoke(FunctionName=function, InvocationType="RequestResponse", Payload=json.dumps(event))
        payload = json.loads(response["Payload"].read() or b"null")
        job = (event.get("detail") or {}).get("TrainingJobName") if isinstance(event.get("detail"), dict) else None
        if response.get("FunctionError"):
            message = payload.get("errorMessage", str(payload)) if isinstance(payload, dict) else str(payload)
            rows.append(row(source, job, True, {"error": f"function error: {message}"}))
        else:
            result = payload if isinstance(payload, dict) else {"error": f"unexpected response: {payload!r}"}
            rows.append(row(source, result.get("training_job", job), True, result))
    return rows


def lambda_client(session: boto3.Session) -> Any:
    # A rule-actions invocation waits for SageMaker and SNS calls: allow a minute, do not retry (not idempotent
    # from the caller's view: the function's ledger already makes repeats harmless, but the report would differ).
    return session.client("lambda", config=BotoConfig(read_timeout=70, retries={"mode": "standard", "max_attempts": 1}))
