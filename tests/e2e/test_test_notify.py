"""`rule-actions test-notify` end to end: locally on the embedded account deployed from the synthesized stack (a
real signing receiver on loopback via --receiver), and against a deployed function (botocore Stubber)."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from rule_actions.contract import TEST_EVENT_KEY
from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
KEY = "test-notify-signing-key"
CONFIG = {"notify": {"emails": ["ml-team@example.com"]}, "allowed_endpoints": ["*@example.com"],
          "webhooks": {"ml-alerts": {"secret": "rule-actions/test-hook", "format": "slack"}},
          "job_outcomes": {"Failed": ["notify", {"name": "webhook", "endpoint": "ml-alerts"}]}}


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def files(tmp_path):
    config, secrets = tmp_path / "config.json", tmp_path / "secrets.json"
    config.write_text(json.dumps(CONFIG))
    url = f"http://127.0.0.1:{unused_port()}/hooks/test"
    secrets.write_text(json.dumps({"rule-actions/test-hook": {"url": url, "signing_key": KEY}}))
    secrets.chmod(0o600)  # a secrets file only its owner reads (else the command warns)
    return str(config), str(secrets)


def test_every_destination_gets_one_test_and_the_receiver_checks_its_signature(files, capsys):
    config, secrets = files
    code = main(["test-notify", "--config", config, "--secrets", secrets, "--receiver", "--email", "me@example.com"])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert code == 0, out
    assert lines[0].split() == ["DESTINATION", "OUTCOME", "REASON"]
    assert {tuple(line.split()[:3]) for line in lines[1:4]} == {
        ("team", "topic", "done"), ("webhook", "ml-alerts", "done"), ("email", "m***@example.com", "done")}
    assert "3 of 3 destinations reached" in lines[4]
    assert lines[5] == ("ran locally, on the embedded account (moto): no email, text or chat message left this "
                        "machine; --stack NAME tests a deployed stack")
    assert "1 request(s), 1 correctly signed" in out and "slack  [rule-actions] TEST notification" in out
    assert "me@example.com" not in out and "/hooks/test" not in out and KEY not in out


def test_a_destination_not_reached_exits_1_and_says_why(files, capsys):
    # Given an address outside allowed_endpoints and a webhook nobody listens on
    config, secrets = files
    code = main(["test-notify", "--json", "--config", config, "--secrets", secrets, "--email", "me@elsewhere.org"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    outcomes = {(a["kind"], a["outcome"]) for a in result["actions"]}
    assert ("email", "denied") in outcomes
    assert ("webhook", "failed") in outcomes  # connection refused, after its retries
    webhook = next(a for a in result["actions"] if a["kind"] == "webhook")
    assert "connection failed (ConnectionRefusedError)" in webhook["reason"]


def test_receiver_without_a_webhook_shows_what_the_topics_delivered(tmp_path, capsys):
    # Given a configuration with a team and no webhook
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"notify": {"emails": ["ml-team@example.com"]}}))
    # When the test notification is sent locally with --receiver / Then the team's message is shown, redacted
    assert main(["test-notify", "--config", str(config), "--receiver"]) == 0
    out = capsys.readouterr().out
    assert "what the topics delivered: 1 message(s)" in out and "  to the team: 1\n" in out
    assert "    [rule-actions] TEST notification: this destination is wired correctly\n" in out
    assert "ml-team@" not in out


def test_flags_for_deployed_only_exit_2(capsys):
    assert main(["test-notify", "--profile", "x"]) == 2
    assert "--profile is only for a deployed function" in capsys.readouterr().err


@pytest.mark.parametrize("deployed", [[], ["--stack", "RuleActions", "--region", "us-east-1"]])
def test_an_unusable_address_or_number_exits_2_naming_the_flag_and_the_value(deployed, capsys):
    # Given a number that is not E.164 and an address that is not one, here or for a deployed stack
    code = main(["test-notify", *deployed, "--sms", "12345", "--email", "not-an-email", "--email", "ok@example.com"])
    # Then nothing is sent (no AWS is reached): one line for each, naming its flag and its value as typed
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert err == ['rule-actions: --email: "not-an-email" is not an email address',
                   'rule-actions: --sms: "12345" is not an E.164 phone number (like +15555550100)']


def test_a_port_in_use_exits_2_naming_it(files, capsys):
    config, secrets = files
    port = json.loads(Path(secrets).read_text())["rule-actions/test-hook"]["url"].split(":")[2].split("/")[0]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", int(port)))
        taken.listen()
        code = main(["test-notify", "--config", config, "--secrets", secrets, "--receiver"])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err and len(err.splitlines()) == 1


def test_replay_receiver_reports_what_arrived(files, capsys, tmp_path):
    config, secrets = files
    code = main(["replay", "--config", config, "--secrets", secrets, "--receiver",
                 str(ROOT / "events" / "lifecycle-failed-algorithm-error.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert "1 request(s), 1 correctly signed" in out and "slack  [rule-actions] training job failed" in out


# --- deployed --------------------------------------------------------------------------------------------------


def payload(data) -> StreamingBody:
    raw = json.dumps(data).encode()
    return StreamingBody(io.BytesIO(raw), len(raw))


@pytest.fixture
def lambda_stub(monkeypatch):
    client = boto3.client("lambda", region_name="us-east-1")
    stub = Stubber(client)
    stub.activate()
    monkeypatch.setattr(boto3.Session, "client", lambda self, service, **_: client)
    yield stub
    stub.assert_no_pending_responses()


def test_a_deployed_function_gets_the_documented_test_request(lambda_stub, capsys):
    answer = {"test_notification": "x", "actions": [
        {"trigger": "test", "rule": None, "kind": "notify", "target": "team", "origin": "test", "outcome": "done",
         "reason": "sent to the team subscribers (message 1)"}]}
    sent = {}

    def capture(params, **_):
        sent.update(json.loads(params["Payload"]))

    lambda_stub.client.meta.events.register("provide-client-params.lambda.Invoke", capture)
    lambda_stub.add_response("invoke", {"StatusCode": 200, "Payload": payload(answer)},
                             {"FunctionName": "RuleActions-handler", "InvocationType": "RequestResponse", "Payload": ANY})
    code = main(["test-notify", "--function-name", "RuleActions-handler", "--sms", "+15555550100"])
    out = capsys.readouterr().out
    assert code == 0 and "team topic" in out
    assert set(sent) == {TEST_EVENT_KEY}
    assert sent[TEST_EVENT_KEY]["sms"] == ["+15555550100"] and sent[TEST_EVENT_KEY]["emails"] == []


def test_a_deployed_function_error_is_one_line_and_exit_2(lambda_stub, capsys):
    lambda_stub.add_response("invoke", {"StatusCode": 200, "FunctionError": "Unhandled",
                                        "Payload": payload({"errorMessage": "environment: X not set"})})
    code = main(["test-notify", "--function-name", "RuleActions-handler"])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == "rule-actions: function error: environment: X not set"
