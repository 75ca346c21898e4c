"""`rule-actions invoke`: send events to a deployed function and report its answers.

Honours the usual AWS settings: --profile or AWS_PROFILE, --region or AWS_REGION / AWS_DEFAULT_REGION (botocore
alone reads only the latter; the AWS CLI reads both), the profile's credentials or AWS_ACCESS_KEY_ID..., and
AWS_ENDPOINT_URL. With --stack, the function name is read from the stack's `FunctionName` output.

When AWS cannot be configured or reached, or refuses a call, `InvokeError` carries one line saying what is
missing and how to set it: built from botocore's exception type, the operation and the error code only (never
the service's message, which can hold ARNs with account ids, user names or endpoint paths).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.config import Config as BotoConfig
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConfigParseError,
    ConnectionClosedError,
    ConnectTimeoutError,
    CredentialRetrievalError,
    EndpointConnectionError,
    InvalidRegionError,
    NoCredentialsError,
    NoRegionError,
    ParamValidationError,
    PartialCredentialsError,
    ProfileNotFound,
    ProxyConnectionError,
    ReadTimeoutError,
    SSLError,
    SSOError,
    TokenRetrievalError,
)

from rule_actions_cli.inputs import job_of
from rule_actions_cli.replay_table import row

FUNCTION_OUTPUT, EVALUATOR_OUTPUT = "FunctionName", "EvaluatorFunctionName"  # infra/rule_actions_cdk/construct.py
SERVICE_OUTPUT = "ServiceName"  # the service name of the functions' log lines and metrics
SERVICES = {"lambda": "Lambda", "cloudformation": "CloudFormation", "sts": "STS", "events": "EventBridge",
            "cloudwatch": "CloudWatch"}
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "AuthorizationError", "Forbidden"}
CREDENTIALS_REJECTED = {
    "UnrecognizedClientException", "InvalidClientTokenId", "InvalidAccessKeyId", "InvalidSignatureException",
    "SignatureDoesNotMatch", "IncompleteSignature", "ExpiredToken", "ExpiredTokenException", "RequestExpired",
    "MissingAuthenticationToken", "MissingAuthenticationTokenException",
}
CREDENTIAL_SOURCES = {"env": "the environment", "shared-credentials-file": "the shared credentials file",
                      "config-file": "the AWS config file"}


class InvokeError(Exception):
    """AWS cannot be configured or reached, or refuses a call: one line for the user; `rows`, the events
    answered before it."""

    def __init__(self, message: str, rows: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.rows = rows or []


def send(events: list[tuple[str, Any]], *, function_name: str | None, stack: str | None,
         profile: str | None, region: str | None) -> list[dict[str, Any]]:
    """One row per event, from the function named or the stack's output; InvokeError when AWS is not usable."""
    return invoke_all(*deployed_function(function_name, stack, profile, region), events)


def deployed_function(function_name: str | None, stack: str | None, profile: str | None,
                      region: str | None) -> tuple[Any, str]:
    """A Lambda client and the function named, or the one the stack's FunctionName output names."""
    session = open_session(profile, region)
    function = function_name or function_from_stack(session, stack or "", flag="--function-name")
    return lambda_client(session), function


def open_session(profile: str | None, region: str | None) -> boto3.Session:
    # --region, else AWS_REGION as the AWS CLI and the other SDKs read it, else botocore's own chain
    # (AWS_DEFAULT_REGION, then the profile's region).
    with aws_errors():
        return boto3.Session(profile_name=profile or None, region_name=region or os.environ.get("AWS_REGION") or None)


def function_from_stack(session: boto3.Session, stack: str, flag: str | None = None) -> str:
    """The function the stack's FunctionName output names: `FunctionName` (RuleActionsStack), or
    `<construct id>FunctionName` (the RuleActions construct in a stack of yours; two constructs: say which; never
    the evaluator's). `flag`: the command's option that names a function instead, when it has one."""
    outputs = stack_outputs(session, stack)
    return outputs[function_output(outputs, stack, flag)]


def function_output(outputs: Mapping[str, str], stack: str, flag: str | None = None) -> str:
    """The key of the output naming the stack's function (see function_from_stack); what precedes FunctionName in it
    prefixes the construct's other outputs."""
    found = sorted(key for key in outputs if key.endswith(FUNCTION_OUTPUT) and not key.endswith(EVALUATOR_OUTPUT))
    if FUNCTION_OUTPUT not in outputs and len(found) > 1:
        raise InvokeError(f"stack '{_stack_label(stack)}' has {len(found)} rule-actions functions (outputs "
                          f"{', '.join(found)}): " + (f"pass {flag} to name one" if flag else
                                                      "this command needs a stack with one"))
    if not found:
        raise InvokeError(f"stack '{_stack_label(stack)}' has no {FUNCTION_OUTPUT} output: is it a rule-actions "
                          f"stack, fully deployed?" + (f" Or pass {flag}" if flag else ""))
    return FUNCTION_OUTPUT if FUNCTION_OUTPUT in outputs else found[0]


def stack_outputs(session: boto3.Session, stack: str) -> dict[str, str]:
    with aws_errors("cloudformation"):
        client = session.client("cloudformation")
    with aws_errors("cloudformation", region=client.meta.region_name, stack=stack):
        outputs = client.describe_stacks(StackName=stack)["Stacks"][0].get("Outputs", [])
    return {output["OutputKey"]: output["OutputValue"] for output in outputs}


def output_of(outputs: Mapping[str, str], name: str) -> str | None:
    """The output `name`, else one whose key ends with it (a user's app may prefix its outputs). The function's
    output has function_output, which tells it from the evaluator's (EvaluatorFunctionName ends with FunctionName)."""
    if name in outputs:
        return outputs[name]
    return next((value for key, value in outputs.items() if key.endswith(name)), None)


def invoke_all(client: Any, function: str, events: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Invoke synchronously, one event at a time; a function error (failed actions) is reported, not raised.
    An AWS problem stops at that event: InvokeError with the rows of the events before it."""
    from rule_actions_cli.inputs import not_an_event

    rows: list[dict[str, Any]] = []
    for source, event in events:
        problem = not_an_event(event)
        if problem:  # never sent: reported on its own row
            rows.append(row(source, None, False, None, [problem]))
            continue
        try:
            payload, error = _invoke(client, function, event)
        except InvokeError as err:
            raise InvokeError(str(err), rows) from None
        job, family = job_of(event)
        if error:
            rows.append(row(source, job, True, {"error": error}, family=family))
        else:
            result = payload if isinstance(payload, dict) else {"error": f"unexpected response: {payload!r}"}
            rows.append(row(source, result.get("job") or result.get("training_job", job), True, result, family=family))
    return rows


def invoke_once(client: Any, function: str, payload: Any) -> Any:
    """One synchronous invocation's answer; InvokeError for an AWS problem or a function error."""
    answer, error = _invoke(client, function, payload)
    if error:
        raise InvokeError(error)
    return answer


def _invoke(client: Any, function: str, payload: Any) -> tuple[Any, str | None]:
    """(the function's answer, "function error: ..." when it raised); InvokeError when AWS is not usable."""
    with aws_errors("lambda", region=client.meta.region_name, function=function):
        response = client.invoke(FunctionName=function, InvocationType="RequestResponse", Payload=json.dumps(payload))
        answer = read_answer(response, function, client.meta.region_name)
    if response.get("FunctionError"):
        message = answer.get("errorMessage", str(answer)) if isinstance(answer, dict) else str(answer)
        return answer, f"function error: {message}"
    return answer, None


def read_answer(response: dict[str, Any], function: str, region: str | None) -> Any:
    """The function's answer (its JSON payload); InvokeError when the endpoint answered with something else: an
    endpoint that cannot run the function (an emulator without a container runtime) says so in plain text. Its
    text is not repeated (it can name paths or accounts)."""
    raw = response["Payload"].read()
    try:
        return json.loads(raw or b"null")
    except ValueError:
        failed = f", function error {response['FunctionError']}" if response.get("FunctionError") else ""
        where = f" in {region}" if region else ""
        raise InvokeError(f"the Lambda endpoint{where} answered Invoke of '{_function_label(function)}' with "
                          f"{len(raw)} bytes that are not JSON{failed}: it did not run the function (an emulator "
                          "without a container runtime answers so); check AWS_ENDPOINT_URL and the function") from None


def lambda_client(session: boto3.Session) -> Any:
    # A rule-actions invocation waits for SageMaker and SNS calls: allow a minute, do not retry (not idempotent
    # from the caller's view: the function's ledger already makes repeats harmless, but the report would differ).
    with aws_errors("lambda"):
        return session.client("lambda", config=BotoConfig(read_timeout=70, retries={"mode": "standard", "max_attempts": 1}))


@contextmanager
def aws_errors(service: str | None = None, *, region: str | None = None, function: str | None = None,
               stack: str | None = None) -> Iterator[None]:
    """botocore's set-up, connection and service errors as InvokeError (one line, nothing personal)."""
    try:
        yield
    except ClientError as err:
        raise InvokeError(_refused(err, service, region, function, stack)) from None
    except BotoCoreError as err:
        raise InvokeError(_unusable(err, service)) from None


def _unusable(err: BotoCoreError, service: str | None) -> str:
    name, kind = SERVICES.get(service or "", service or "AWS"), type(err).__name__
    endpoint = _endpoint(err.kwargs.get("endpoint_url"))
    if isinstance(err, NoRegionError):
        return "no AWS region: pass --region or set AWS_REGION / AWS_DEFAULT_REGION"
    if isinstance(err, InvalidRegionError):
        return (f"'{err.kwargs.get('region_name')}' is not an AWS region name: check --region, AWS_REGION / "
                f"AWS_DEFAULT_REGION or the profile's region")
    if isinstance(err, ProfileNotFound):
        profile = err.kwargs.get("profile")
        return (f"AWS profile '{profile}' not found: check --profile / AWS_PROFILE, or create it with "
                f"`aws configure --profile {profile}`")
    if isinstance(err, NoCredentialsError):
        return ("no AWS credentials: run `aws configure` or set AWS_PROFILE / AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY")
    if isinstance(err, PartialCredentialsError):
        source = err.kwargs.get("provider")
        return (f"incomplete AWS credentials in {CREDENTIAL_SOURCES.get(source, source)}: "
                f"{err.kwargs.get('cred_var')} is missing: set it, or run `aws configure`")
    if isinstance(err, (SSOError, TokenRetrievalError)):
        return "the AWS SSO session is missing or expired: run `aws sso login` (with --profile if you use one)"
    if isinstance(err, CredentialRetrievalError):
        return (f"could not get AWS credentials from {err.kwargs.get('provider')}: check the profile's "
                f"credential settings (`aws configure list`)")
    if isinstance(err, ConfigParseError):
        return "the AWS config file cannot be parsed: check AWS_CONFIG_FILE or ~/.aws/config"
    if isinstance(err, ProxyConnectionError):
        return f"cannot connect to the proxy for the {name} endpoint: check HTTPS_PROXY / HTTP_PROXY"
    if isinstance(err, SSLError):
        return f"TLS verification failed for the {name} endpoint {endpoint}: check AWS_ENDPOINT_URL and AWS_CA_BUNDLE"
    if isinstance(err, (EndpointConnectionError, ConnectTimeoutError)):
        return (f"cannot connect to the {name} endpoint {endpoint} ({kind}): check the network, --region and "
                f"AWS_ENDPOINT_URL")
    if isinstance(err, (ReadTimeoutError, ConnectionClosedError)):
        ran = "; the function may have run: see its logs" if service == "lambda" else ""
        return f"no complete answer from the {name} endpoint {endpoint} ({kind}){ran}"
    if isinstance(err, ParamValidationError):
        return f"{name} refused the request before sending it ({kind}): check the function's or the stack's name"
    return f"AWS set-up problem ({kind}): check the AWS config and credentials files and the AWS_* variables"


def _refused(err: ClientError, service: str | None, region: str | None, function: str | None,
             stack: str | None) -> str:
    code = str(err.response.get("Error", {}).get("Code") or "UnknownError")
    call = f"{SERVICES.get(service or '', service or 'AWS')} {err.operation_name}"
    where = f" in {region}" if region else ""
    if code in ACCESS_DENIED:
        return (f"access denied: {call} returned {code}: the credentials in use may not call it (check --profile, "
                f"or the policy of the user or role)")
    if code in CREDENTIALS_REJECTED:
        return (f"AWS rejected the credentials: {call} returned {code}: refresh them (`aws configure`, "
                f"`aws sso login`) or choose another profile with --profile")
    if service == "lambda" and function and code == "ResourceNotFoundException":
        return (f"function '{_function_label(function)}' not found{where} ({call} returned {code}): check the "
                f"function's name (or the stack's {FUNCTION_OUTPUT} output) and --region")
    message = str(err.response.get("Error", {}).get("Message") or "")
    if service == "cloudformation" and stack is not None and code == "ValidationError" and "does not exist" in message:
        return f"stack '{_stack_label(stack)}' not found{where} ({call} returned {code}): check --stack and --region"
    return f"{call} returned {code}"


def _endpoint(url: Any) -> str:
    """scheme://host[:port] only: the path can name the function (an ARN), userinfo could be a secret."""
    try:
        parts = urlsplit(str(url or ""))
        host, port = parts.hostname, parts.port
    except ValueError:
        return "(unparsable URL)"
    if not host:
        return "(unknown URL)"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{f':{port}' if port else ''}"


def _function_label(function: str) -> str:
    """A function's name (and alias) without the account an ARN names."""
    return function.split("function:", 1)[1] if "function:" in function else function


def _stack_label(stack: str) -> str:
    """A stack's name: a stack id (an ARN) names the account."""
    return stack.split("/")[1] if stack.startswith("arn:") and stack.count("/") >= 1 else stack
