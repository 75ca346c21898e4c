"""The deployed artifact, tested as Lambda would run it: the stack's template deployed into moto server on
127.0.0.1 (its code asset uploaded as the zip CloudFormation reads), the function's role enforced by moto's IAM
policy engine, and the handler run from the unzipped asset in a clean interpreter (lambda_runner.py) of the
function's runtime version where one is found (settings.RUNTIME: the one that compiled the asset's bytecode).

What moto's IAM engine is given here beyond moto itself:
- the resource each call acts on (moto checks "*" for most services): the topic or subscription ARN for SNS,
  the training job's ARN for SageMaker (job names are lower-cased in ARNs), the table's ARN for DynamoDB, the log
  group's ARN for CloudWatch Logs, as the Service Authorization Reference names them; ListTrainingJobs, Search and
  GetMetricData act on "*" (no resource-level permission);
- SNS's refusal to Subscribe an endpoint already subscribed with other attributes (moto overwrites them), so the
  function takes the path real SNS makes it take (ListSubscriptionsByTopic, Get/SetSubscriptionAttributes);
- IAM's name of CloudWatch's actions: moto names them by the signature's service (monitoring:GetMetricData), IAM
  by the service prefix (cloudwatch:GetMetricData).
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from moto import settings as moto_settings
from moto.core.authorization import ActionAuthenticatorMixin
from moto.dynamodb.responses import DynamoHandler
from moto.iam.access_control import IAMRequestBase
from moto.logs.responses import LogsResponse
from moto.sagemaker.responses import SageMakerResponse
from moto.server import ThreadedMotoServer
from moto.sns.exceptions import SNSInvalidParameter
from moto.sns.responses import SNSResponse

from rule_actions_cdk.bundle import link_runtime
from rule_actions_cdk.settings import PYTHON_VERSION, RUNTIME
from rule_actions_cli.embedded import HANDLER, EmbeddedAccount, _sub
from rule_actions_cli.emulator import dynamodb as moto_dynamodb
from rule_actions_cli.emulator import monitoring as moto_monitoring
from rule_actions_cli.emulator import pricing as moto_pricing
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.inputs import job_of
from rule_actions_cli.replay_table import row

RUNNER = Path(__file__).resolve().parent / "lambda_runner.py"


def _sns_resource(self: SNSResponse) -> str:
    return self._get_param("SubscriptionArn") or self._get_param("TopicArn") or "*"


# The request member naming a SageMaker resource, and its ARN's resource type (IAM's service authorization
# reference); ListTrainingJobsForHyperParameterTuningJob is on its tuning job, ListPipelineExecutionSteps on the
# execution its ARN names, ListTags on the resource its ResourceArn names.
_SAGEMAKER_RESOURCES = {"TrainingJobName": "training-job", "HyperParameterTuningJobName": "hyper-parameter-tuning-job",
                        "ProcessingJobName": "processing-job", "TransformJobName": "transform-job"}


def _sagemaker_resource(self: SageMakerResponse) -> str:
    for member, kind in _SAGEMAKER_RESOURCES.items():
        name = self._get_param(member)
        if name:
            return f"arn:aws:sagemaker:{self.region}:{self.current_account}:{kind}/{name.lower()}"
    return self._get_param("PipelineExecutionArn") or self._get_param("ResourceArn") or "*"  # (ListTags: its ARN)


def _dynamodb_resource(self: DynamoHandler) -> str:
    body = self.body if isinstance(self.body, dict) else json.loads(self.body or "{}")
    table = body.get("TableName")
    return f"arn:aws:dynamodb:{self.region}:{self.current_account}:table/{table}" if table else "*"


def _logs_resource(self: LogsResponse) -> str:
    group = self._get_param("logGroupName")
    return f"arn:aws:logs:{self.region}:{self.current_account}:log-group:{group}" if group else "*"


_original_subscribe = SNSResponse.subscribe


def _subscribe_as_sns_does(self: SNSResponse) -> Any:
    """Real SNS refuses to subscribe an endpoint again with other attributes; moto overwrites them."""
    requested = (self._get_attributes() or {}).get("FilterPolicy")
    for sub in self.backend.subscriptions.values():
        if (sub.topic.arn, sub.protocol, sub.endpoint) == (self._get_param("TopicArn"), self._get_param("Protocol"),
                                                           self._get_param("Endpoint")):
            current = sub.attributes.get("FilterPolicy")
            if current and requested and json.loads(current) != json.loads(requested):
                raise SNSInvalidParameter("Invalid parameter: Attributes Reason: Subscription already exists with "
                                          "different attributes")
    return _original_subscribe(self)


_original_iam_request = IAMRequestBase.__init__
IAM_PREFIXES = {"monitoring": "cloudwatch"}  # the signature's service -> IAM's service prefix, where they differ


def _iam_request(self: IAMRequestBase, *args: Any, **kwargs: Any) -> None:
    _original_iam_request(self, *args, **kwargs)
    service, _, action = self._action.partition(":")
    self._action = f"{IAM_PREFIXES.get(service, service)}:{action}"


@contextmanager
def iam_enforced() -> Iterator[None]:
    """moto checks every request's signature and the caller's policies against the action and its resource."""
    patches = {SNSResponse: ("_determine_resource", _sns_resource),
               SageMakerResponse: ("_determine_resource", _sagemaker_resource),
               DynamoHandler: ("_determine_resource", _dynamodb_resource),
               LogsResponse: ("_determine_resource", _logs_resource)}
    saved = (moto_settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count)
    for cls, (name, function) in patches.items():
        setattr(cls, name, function)
    moto_settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = 0, 0
    IAMRequestBase.__init__ = _iam_request  # type: ignore[method-assign]
    try:
        yield
    finally:
        IAMRequestBase.__init__ = _original_iam_request  # type: ignore[method-assign]
        moto_settings.INITIAL_NO_AUTH_ACTION_COUNT, ActionAuthenticatorMixin.request_count = saved
        for cls, (name, _) in patches.items():
            delattr(cls, name)


def lambda_runtime(target: Path) -> Path:
    """What the Lambda Python runtime ships besides the standard library (boto3 and its dependencies)."""
    return link_runtime(target, PYTHON_VERSION)


class ServedAccount(EmbeddedAccount):
    """EmbeddedAccount on moto server (127.0.0.1) instead of in-process mocks, with the artifact's runner."""

    def __init__(self, assembly_dir: Path, stack_name: str, port: int, region: str = "us-east-1"):
        super().__init__(assembly_dir, stack_name, region)
        self.url = f"http://127.0.0.1:{port}"
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)

    def __enter__(self) -> ServedAccount:
        self._saved_env = dict(os.environ)
        os.environ.update(AWS_ACCESS_KEY_ID="setup", AWS_SECRET_ACCESS_KEY="setup", AWS_DEFAULT_REGION=self.region,
                          AWS_REGION=self.region, AWS_ENDPOINT_URL=self.url)
        for key in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
            os.environ.pop(key, None)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
        self.server.start()
        self._reset()  # the server serves moto's process-wide state: start from an empty account
        SNSResponse.subscribe = _subscribe_as_sns_does
        moto_sagemaker.install()
        moto_monitoring.install()
        moto_pricing.install()
        moto_dynamodb.install()
        self._deploy()
        return self

    def __exit__(self, *exc: Any) -> None:
        SNSResponse.subscribe = _original_subscribe
        self._reset()
        self.server.stop()
        os.environ.clear()
        os.environ.update(self._saved_env)

    def _reset(self) -> None:
        urllib.request.urlopen(urllib.request.Request(f"{self.url}/moto-api/reset", method="POST"), timeout=10).read()

    def unzip_asset(self, target: Path) -> Path:
        """The function's code as CloudFormation gave it to Lambda: the zip its Code names, unzipped."""
        template = json.loads((self.assembly_dir / f"{self.stack_name}.template.json").read_text())
        codes = [r["Properties"]["Code"] for r in template["Resources"].values()
                 if r["Type"] == "AWS::Lambda::Function" and r["Properties"].get("Handler") == HANDLER]
        [code] = [dict(c) for c in {json.dumps(c, sort_keys=True): c for c in codes}.values()]  # the evaluator's too
        bucket = code["S3Bucket"]  # a literal in a stack pinned to its account and region (organization mode)
        bucket = _sub(bucket["Fn::Sub"], self.region) if isinstance(bucket, dict) else bucket
        body = self.client("s3").get_object(Bucket=bucket, Key=code["S3Key"])["Body"].read()
        zipfile.ZipFile(io.BytesIO(body)).extractall(target)
        return target

    def role_credentials(self, function: str | None = None) -> dict[str, str]:
        """Temporary credentials of the function's role (or another function's: the evaluator's), STS AssumeRole,
        as Lambda gives them."""
        role = self.client("lambda").get_function_configuration(FunctionName=function or self.function_name)["Role"]
        credentials = self.client("sts").assume_role(RoleArn=role, RoleSessionName="artifact-test")["Credentials"]
        return {"AWS_ACCESS_KEY_ID": credentials["AccessKeyId"],
                "AWS_SECRET_ACCESS_KEY": credentials["SecretAccessKey"],
                "AWS_SESSION_TOKEN": credentials["SessionToken"]}

    def function_environment(self, credentials: dict[str, str], evaluator: bool = False) -> dict[str, str]:
        """The template's variables (as deployed, references resolved) and what Lambda itself sets; `evaluator`:
        the evaluator's."""
        name = self.evaluator_name if evaluator else self.function_name
        configuration = self.client("lambda").get_function_configuration(FunctionName=name)
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "en_US.UTF-8", "TZ": ":UTC",
            **(self.evaluator_environment if evaluator else self.environment),
            **credentials,
            "AWS_REGION": self.region, "AWS_DEFAULT_REGION": self.region, "AWS_ENDPOINT_URL": self.url,
            "AWS_LAMBDA_FUNCTION_NAME": name,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(configuration["MemorySize"]),
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{configuration['Runtime']}", "_HANDLER": configuration["Handler"],
            "RUNNER_FUNCTION_ARN": self.evaluator_arn if evaluator else self.function_arn,
        }


class Runner:
    """The handler in its own clean interpreter; `send(event)` -> {"result" | "error", "calls"}."""

    def __init__(self, asset: Path, runtime: Path, env: dict[str, str]):
        self.log = tempfile.TemporaryFile("w+")  # the handler's log lines (its stdout in Lambda), for failures
        python = RUNTIME.interpreter or sys.executable
        self.process = subprocess.Popen([python, "-I", "-S", str(RUNNER), str(asset), str(runtime)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                        env=env, cwd=asset)
        self.hello = self._read()

    def _read(self) -> dict[str, Any]:
        line = self.process.stdout.readline()
        if line:
            return json.loads(line)
        self.log.seek(0)
        return {"exited": self.process.wait(timeout=30), "stderr": self.log.read()[-3000:], "calls": []}

    def send(self, event: Any) -> dict[str, Any]:
        self.process.stdin.write(json.dumps(event) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> int:
        if self.process.stdin:
            self.process.stdin.close()
        return self.process.wait(timeout=30)


@contextmanager
def served(config: dict[str, Any]) -> Iterator[ServedAccount]:
    """The stack of `config` (rule-actions.json's otherwise) deployed into moto server on a free loopback port."""
    from rule_actions_cdk.app import project_context
    from rule_actions_cli.deploy_local import free_port
    from rule_actions_cli.synth import synthesize

    assembly, stack = synthesize({**project_context(), "rule_actions": config})
    with ServedAccount(assembly, stack, port=free_port()) as account:
        yield account


def unzipped(account: ServedAccount, folder: Path) -> tuple[Path, Path]:
    """(the code asset as Lambda gets it, what the Lambda runtime ships), under `folder`."""
    return account.unzip_asset(folder / "task"), lambda_runtime(folder / "runtime")


@contextmanager
def without_statement(iam: Any, role_name: str, sid: str) -> Iterator[None]:
    """The role's inline policy without its statement `sid`, for the time of the block."""
    [policy_name] = iam.list_role_policies(RoleName=role_name)["PolicyNames"]
    document = iam.get_role_policy(RoleName=role_name, PolicyName=policy_name)["PolicyDocument"]
    document = json.loads(document) if isinstance(document, str) else document
    narrowed = {**document, "Statement": [s for s in document["Statement"] if s.get("Sid") != sid]}
    iam.put_role_policy(RoleName=role_name, PolicyName=policy_name, PolicyDocument=json.dumps(narrowed))
    try:
        yield
    finally:
        iam.put_role_policy(RoleName=role_name, PolicyName=policy_name, PolicyDocument=json.dumps(document))


def run_events(account: ServedAccount, runner: Runner, events: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Each event through the deployed rule's pattern and, when it matches, the artifact's handler; rows as
    `rule-actions replay --json` prints them, with the AWS calls of each."""
    rows = []
    for source, event in events:
        account.seed_job(event)
        job, family = job_of(event)
        if not account.matched(event):
            rows.append(row(source, job, False, None, family=family))
            continue
        answer = runner.send(event)
        if "exited" in answer:
            raise RuntimeError(f"the handler's interpreter exited ({answer['exited']}): {answer['stderr']}")
        result = answer.get("result") or {"error": answer.get("error")}
        rows.append({**row(source, result.get("job") or result.get("training_job") or job, True, result,
                           family=family), "calls": answer["calls"]})
    return rows


__all__ = ["Runner", "ServedAccount", "iam_enforced", "lambda_runtime", "run_events", "served", "unzipped",
           "without_statement"]
