"""`rule-actions invoke` against stand-ins for a deployed function (botocore Stubber: the real client and
the real API shapes, no account)."""

from __future__ import annotations

import io
import json
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
    # Then the row is the handler's result
    assert row == {"source": "e.json", "training_job": JOB, "matched": True, "actions": RESULT["actions"]}


def test_function_error_is_reported_not_raised():
    # Given the function fails (failed actions make it raise so that Lambda retries)
    client = boto3.client("lambda", region_name="us-east-1")
    error = {"errorMessage": "1 action(s) failed for x: ...", "errorType": "ActionsFailed"}
    with Stubber(client) as stub:
        stub.add_response("invoke", {"StatusCode": 200, "FunctionError": "Unhandled", "Payload": payload(error)})
        [row] = invoke_all(client, "fn", [("e.json", EVENT)])
    assert row["error"] == "function error: 1 action(s) failed for x: ..." and row["training_job"] == JOB


def test_function_name_comes_from_the_stack_output():
    session = boto3.Session(region_name="us-east-1")
    client = session.client("cloudformation")
    stacks = {"Stacks": [{"StackName": "RuleActions", "CreationTime": "2026-11-22T00:00:00Z", "StackStatus": "CREATE_COMPLETE",
                          "Outputs": [{"OutputKey": "TopicArn", "OutputValue": "arn"}, {"OutputKey": "FunctionName", "OutputValue": "RuleActions-handler"}]}]}
    with Stubber(client) as stub:
        stub.add_response("describe_stacks", stacks, {"StackName": "RuleActions"})
        session.client = lambda service, **_: client  # type: ignore[method-assign]
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
