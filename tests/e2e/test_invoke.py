"""`rule-actions invoke` against stand-ins for a deployed function (botocore Stubber: the real client and
the real API shapes, no account)."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from rule_actions_cli import main as cli
from rule_actions_cli.invoke import function_from_stack, invoke_all

EVENT_FILE = Path(__file__).resolve().parents[2] / "events" / "vanishing-gradient-sdk-actions.json"
EVENT = json.loads(EVENT_FILE.read_text())
JOB = EVENT["detail"]["TrainingJobName"]
RESULT = {
    "training_job": JOB,
    "actions": [{"rule": "VanishingGradient", "kind": "stoptraining", "target": JOB, "jobs": [JOB],
                 "origin": "action_json", "outcome": "done", "reason": f"stopped {JOB}"}],
}


def payload(data) -> StreamingBody:
    raw = json.dumps(data).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


def test_invoke_reports_the_functions_answer():
    # Given a deployed function that answers with its result
    client = boto3.client("lambda", region_name="us-east-1")
    with Stubber(client) as stub:
        stub.add_response(
            "invoke",
            {"StatusCode": 200, "Payload": payload(RESULT)},
            {"FunctionName": "RuleActions-handler", "InvocationType": "RequestResponse", "Payload": ANY},
        )
        # When the event is sent
        [row] = invoke_all(client, "RuleActions-handler", [("e.json", EVENT)])
    # Then the row is the handler's result (an answer without "job", as functions answered before the other job
    # families, is read too: the event names the job and its family)
    assert row == {"source": "e.json", "training_job": JOB, "job": JOB, "job_family": "training", "matched": True,
                   "actions": RESULT["actions"]}


def test_function_error_is_reported_not_raised():
    # Given the function fails (failed actions make it raise so that Lambda retries)
    client = boto3.client("lambda", region_name="us-east-1")
    error = {"errorMessage": "1 action(s) failed for x: ...", "errorType": "ActionsFailed"}
    with Stubber(client) as stub:
        stub.add_response("invoke", {"StatusCode": 200, "FunctionError": "Unhandled", "Payload": payload(error)})
        [row] = invoke_all(client, "fn", [("e.json", EVENT)])
    assert row["error"] == "function error: 1 action(s) failed for x: ..." and row["training_job"] == JOB


def test_a_list_element_that_is_not_an_event_is_reported_and_never_sent():
    # Given a deployed function answering once, and a list holding an event and a number
    client = boto3.client("lambda", region_name="us-east-1")
    with Stubber(client) as stub:
        stub.add_response("invoke", {"StatusCode": 200, "Payload": payload(RESULT)})
        # When both are sent
        rows = invoke_all(client, "fn", [("l.json#0", 7), ("l.json#1", EVENT)])
        stub.assert_no_pending_responses()
    # Then the number is named on its own row (not sent) and the event is answered
    assert rows[0]["source"] == "l.json#0" and not rows[0]["matched"] and "a number 7" in rows[0]["problems"][0]
    assert rows[1]["actions"] == RESULT["actions"]


def test_function_name_comes_from_the_stack_output():
    session = boto3.Session(region_name="us-east-1")
    client = session.client("cloudformation")
    stacks = {"Stacks": [{"StackName": "RuleActions", "CreationTime": "2026-11-22T00:00:00Z", "StackStatus": "CREATE_COMPLETE",
                          "Outputs": [{"OutputKey": "TopicArn", "OutputValue": "arn"}, {"OutputKey": "FunctionName", "OutputValue": "RuleActions-handler"}]}]}
    with Stubber(client) as stub:
        stub.add_response("describe_stacks", stacks, {"StackName": "RuleActions"})
        session.client = lambda service, **_: client  # type: ignore[method-assign]
        assert function_from_stack(session, "RuleActions") == "RuleActions-handler"


@pytest.mark.parametrize("prefix", ["", "TrainingActions"])
def test_the_function_is_never_taken_for_the_evaluator_whatever_the_outputs_order(prefix):
    # Given a stack with the monitor rules: its evaluator's output, whose key ends with FunctionName too, listed first
    session = boto3.Session(region_name="us-east-1")
    client = session.client("cloudformation")
    outputs = [{"OutputKey": f"{prefix}EvaluatorFunctionName", "OutputValue": "RuleActions-evaluator"},
               {"OutputKey": f"{prefix}FunctionName", "OutputValue": "RuleActions-handler"}]
    stacks = {"Stacks": [{"StackName": "RuleActions", "CreationTime": "2026-11-22T00:00:00Z",
                          "StackStatus": "CREATE_COMPLETE", "Outputs": outputs}]}
    with Stubber(client) as stub:
        stub.add_response("describe_stacks", stacks, {"StackName": "RuleActions"})
        session.client = lambda service, **_: client  # type: ignore[method-assign]
        # Then the function named is the handler (check, invoke, test-notify and subscriptions reach it)
        assert function_from_stack(session, "RuleActions") == "RuleActions-handler"


def test_invoke_command_prints_json_lines(monkeypatch, capsys):
    # Given the command's Lambda client is a stand-in answering twice
    client = boto3.client("lambda", region_name="us-east-1")
    stub = Stubber(client)
    for _ in range(2):
        stub.add_response("invoke", {"StatusCode": 200, "Payload": payload(RESULT)})
    stub.activate()
    monkeypatch.setattr("rule_actions_cli.invoke.lambda_client", lambda session: client)

    # When two events are sent by name
    code = cli.main(["invoke", "--function-name", "RuleActions-handler", "--region", "us-east-1", "--json", str(EVENT_FILE), str(EVENT_FILE)])

    # Then each is reported with its source
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and [r["source"] for r in rows] == [str(EVENT_FILE)] * 2
    assert rows[0]["actions"][0]["outcome"] == "done"
    stub.assert_no_pending_responses()


def test_invoke_needs_a_target(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["invoke", str(EVENT_FILE)])
    assert exit_.value.code == 2 and "--function-name" in capsys.readouterr().err


# --- without a usable AWS set-up: one line on stderr, exit status 2 -------------------------------------------

ACCOUNT = "123456789012"
SETUP_VARIABLES = (
    "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_LAMBDA",
    "AWS_ENDPOINT_URL_CLOUDFORMATION", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
)


@pytest.fixture
def bare(monkeypatch, tmp_path):
    """No AWS set-up at all (undoing conftest's): no region, credentials or profile, empty config and
    credentials files, no instance metadata. Each test adds what it needs."""
    for name in SETUP_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        empty = tmp_path / name.lower()
        empty.write_text("")
        monkeypatch.setenv(name, str(empty))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return monkeypatch


@pytest.fixture
def stubbed(monkeypatch):
    """Every client the command creates is a stand-in (botocore Stubber); the session itself is real."""
    clients = {service: boto3.client(service, region_name="us-east-1") for service in ("cloudformation", "lambda")}
    stubs = {service: Stubber(client) for service, client in clients.items()}
    for stub in stubs.values():
        stub.activate()
    monkeypatch.setattr(boto3.Session, "client", lambda self, service, **_: clients[service])
    yield stubs
    for stub in stubs.values():
        stub.assert_no_pending_responses()
        stub.deactivate()


def fails(capsys, *args: str) -> str:
    """Run `rule-actions invoke ARGS EVENT_FILE`: exit status 2, one line on stderr (returned), no traceback."""
    code = cli.main(["invoke", *args, str(EVENT_FILE)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in out + err
    assert len(err.splitlines()) == 1, err
    return err.rstrip("\n")


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_no_region(bare, capsys):
    assert fails(capsys, "--function-name", "fn") == (
        "rule-actions: no AWS region: pass --region or set AWS_REGION / AWS_DEFAULT_REGION")


def test_no_region_from_the_installed_command(bare, tmp_path):
    # The console script itself, in a fresh process: nothing but the line reaches the terminal
    done = subprocess.run([str(Path(sys.executable).with_name("rule-actions")), "invoke", "--stack", "RuleActions",
                           str(EVENT_FILE)], capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "rule-actions: no AWS region: pass --region or set AWS_REGION / AWS_DEFAULT_REGION\n"


def test_not_a_region_name(bare, capsys):
    assert fails(capsys, "--function-name", "fn", "--region", "us east 1") == (
        "rule-actions: 'us east 1' is not an AWS region name: check --region, AWS_REGION / AWS_DEFAULT_REGION "
        "or the profile's region")


@pytest.mark.parametrize("how", ["AWS_PROFILE", "--profile"])
def test_unknown_profile(bare, capsys, how):
    if how == "AWS_PROFILE":
        bare.setenv("AWS_PROFILE", "missing")
    args = ["--profile", "missing"] if how == "--profile" else []
    assert fails(capsys, "--function-name", "fn", "--region", "us-east-1", *args) == (
        "rule-actions: AWS profile 'missing' not found: check --profile / AWS_PROFILE, or create it with "
        "`aws configure --profile missing`")


@pytest.mark.parametrize("target", [["--function-name", "fn"], ["--stack", "RuleActions"]])
def test_no_credentials(bare, capsys, target):
    bare.setenv("AWS_DEFAULT_REGION", "us-east-1")
    assert fails(capsys, *target) == (
        "rule-actions: no AWS credentials: run `aws configure` or set AWS_PROFILE / AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY")


def test_partial_credentials(bare, capsys):
    bare.setenv("AWS_DEFAULT_REGION", "us-east-1")
    bare.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEKEYID0000")
    line = fails(capsys, "--function-name", "fn")
    assert line == ("rule-actions: incomplete AWS credentials in the environment: AWS_SECRET_ACCESS_KEY is missing: "
                    "set it, or run `aws configure`")
    assert "AKIA" not in line


@pytest.mark.parametrize("target", [["--function-name", f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:fn"],
                                    ["--stack", "RuleActions"]])
def test_unreachable_endpoint(bare, capsys, target):
    # Given credentials and a region, but an endpoint nothing listens on (and one attempt only)
    port = unused_port()
    bare.setenv("AWS_DEFAULT_REGION", "us-east-1")
    bare.setenv("AWS_ACCESS_KEY_ID", "testing")
    bare.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    bare.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    bare.setenv("AWS_MAX_ATTEMPTS", "1")
    service = "Lambda" if target[0] == "--function-name" else "CloudFormation"
    line = fails(capsys, *target)
    # Then the line names the endpoint, never the request's path (it holds the function's ARN)
    assert line == (f"rule-actions: cannot connect to the {service} endpoint http://127.0.0.1:{port} "
                    f"(EndpointConnectionError): check the network, --region and AWS_ENDPOINT_URL")
    assert ACCOUNT not in line


def test_stack_that_does_not_exist(stubbed, capsys):
    stubbed["cloudformation"].add_client_error(
        "describe_stacks", "ValidationError", "Stack with id Missing does not exist", 400, expected_params={"StackName": "Missing"})
    assert fails(capsys, "--stack", "Missing") == (
        "rule-actions: stack 'Missing' not found in us-east-1 (CloudFormation DescribeStacks returned "
        "ValidationError): check --stack and --region")


def test_stack_without_the_function_output(stubbed, capsys):
    stacks = {"Stacks": [{"StackName": "Other", "CreationTime": "2026-11-22T00:00:00Z", "StackStatus": "CREATE_COMPLETE",
                          "Outputs": [{"OutputKey": "TopicArn", "OutputValue": f"arn:aws:sns:us-east-1:{ACCOUNT}:t"}]}]}
    stubbed["cloudformation"].add_response("describe_stacks", stacks, {"StackName": "Other"})
    assert fails(capsys, "--stack", "Other") == (
        "rule-actions: stack 'Other' has no FunctionName output: is it a rule-actions stack, fully deployed? "
        "Or pass --function-name")


def test_a_stack_with_two_constructs_asks_which_function(stubbed, capsys):
    # Given a user's stack holding two RuleActions constructs, each with its output
    outputs = [{"OutputKey": f"{name}FunctionName", "OutputValue": f"MLPlatform-{name}-handler"} for name in ("Alerts", "Audit")]
    stacks = {"Stacks": [{"StackName": "MLPlatform", "CreationTime": "2026-11-22T00:00:00Z",
                          "StackStatus": "CREATE_COMPLETE", "Outputs": outputs}]}
    stubbed["cloudformation"].add_response("describe_stacks", stacks, {"StackName": "MLPlatform"})
    # Then invoke names both outputs and the flag that picks one
    assert fails(capsys, "--stack", "MLPlatform") == (
        "rule-actions: stack 'MLPlatform' has 2 rule-actions functions (outputs AlertsFunctionName, "
        "AuditFunctionName): pass --function-name to name one")


def test_an_endpoint_that_cannot_run_the_function_is_one_line_exit_2(stubbed, capsys):
    # Given an endpoint answering Invoke with a function error in plain text (moto without Docker does)
    stubbed["lambda"].add_response("invoke", {"StatusCode": 200, "FunctionError": "Handled", "Payload": StreamingBody(
        io.BytesIO(b"error running docker: Error while fetching server API version"), 61)})
    # Then invoke says so on one line, without the endpoint's text, and exits 2
    assert fails(capsys, "--function-name", "fn") == (
        "rule-actions: the Lambda endpoint in us-east-1 answered Invoke of 'fn' with 61 bytes that are not JSON, "
        "function error Handled: it did not run the function (an emulator without a container runtime answers so); "
        "check AWS_ENDPOINT_URL and the function")


def test_function_that_does_not_exist(stubbed, capsys):
    arn = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:Missing"
    stubbed["lambda"].add_client_error("invoke", "ResourceNotFoundException", f"Function not found: {arn}", 404)
    line = fails(capsys, "--function-name", arn)
    assert line == ("rule-actions: function 'Missing' not found in us-east-1 (Lambda Invoke returned "
                    "ResourceNotFoundException): check the function's name (or the stack's FunctionName output) "
                    "and --region")
    assert ACCOUNT not in line


@pytest.mark.parametrize(("service", "operation", "code", "target"), [
    ("lambda", "invoke", "AccessDeniedException", ["--function-name", "fn"]),
    ("cloudformation", "describe_stacks", "AccessDenied", ["--stack", "RuleActions"]),
])
def test_access_denied_names_the_operation_and_code_only(stubbed, capsys, service, operation, code, target):
    # Given AWS refuses with a message naming the caller (user, account)
    message = f"User: arn:aws:iam::{ACCOUNT}:user/alice is not authorized to perform: {service}:* on resource: x"
    stubbed[service].add_client_error(operation, code, message, 403)
    line = fails(capsys, *target)
    call = {"lambda": "Lambda Invoke", "cloudformation": "CloudFormation DescribeStacks"}[service]
    # Then the line names the call and the code, nothing from the message
    assert line == (f"rule-actions: access denied: {call} returned {code}: the credentials in use may not call it "
                    f"(check --profile, or the policy of the user or role)")
    assert ACCOUNT not in line and "alice" not in line


def test_rejected_credentials(stubbed, capsys):
    stubbed["lambda"].add_client_error("invoke", "UnrecognizedClientException", "The security token included in "
                                       "the request is invalid.", 403)
    assert fails(capsys, "--function-name", "fn") == (
        "rule-actions: AWS rejected the credentials: Lambda Invoke returned UnrecognizedClientException: refresh "
        "them (`aws configure`, `aws sso login`) or choose another profile with --profile")


def test_a_refusal_midway_keeps_the_answers_before_it(stubbed, capsys):
    # Given the function answers the first event, then Lambda throttles the second
    stubbed["lambda"].add_response("invoke", {"StatusCode": 200, "Payload": payload(RESULT)})
    stubbed["lambda"].add_client_error("invoke", "TooManyRequestsException", "Rate exceeded", 429)
    # When both are sent
    code = cli.main(["invoke", "--function-name", "fn", "--json", str(EVENT_FILE), str(EVENT_FILE)])
    out, err = capsys.readouterr()
    # Then the first answer is reported, the refusal is one line, and the status says not everything was answered
    assert code == 2 and [json.loads(line)["actions"] for line in out.splitlines()] == [RESULT["actions"]]
    assert err == "rule-actions: Lambda Invoke returned TooManyRequestsException\n"


def test_aws_region_is_read_like_the_aws_cli(monkeypatch, capsys):
    # botocore reads only AWS_DEFAULT_REGION; the command also reads AWS_REGION, and --region before both
    regions = []

    def client(session):
        regions.append(session.region_name)
        stub = Stubber(boto3.client("lambda", region_name="us-east-1"))
        stub.add_response("invoke", {"StatusCode": 200, "Payload": payload(RESULT)})
        stub.activate()
        return stub.client

    monkeypatch.setattr("rule_actions_cli.invoke.lambda_client", client)
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert cli.main(["invoke", "--function-name", "fn", str(EVENT_FILE)]) == 0
    assert cli.main(["invoke", "--function-name", "fn", "--region", "ap-south-1", str(EVENT_FILE)]) == 0
    assert regions == ["eu-west-1", "ap-south-1"]


def test_invoke_help_has_its_own_exit_status_and_option_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["invoke", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert exit_.value.code == 0
    assert "exit status: 0 when every event was sent and answered" in out and "replayed" not in out
    assert "AWS cannot be configured or reached, or refuses a call" in out
    for option, text in [("--function-name NAME", "the function to invoke"), ("--profile NAME", "the AWS profile"),
                         ("--region REGION", "the function's region"), ("--stack NAME", "read the function name")]:
        assert f"{option} {text}" in out
