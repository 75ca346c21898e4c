"""`rule-actions check --stack` against the stack deployed on moto server, with moto completed where it cannot
answer: TestEventPattern (moto returns no verdict) answers with the local matcher, or with a planted
disagreement, and Invoke (moto needs Docker) runs the artifact's handler in its clean interpreter."""

from __future__ import annotations

import json

import pytest
from harness import Runner, ServedAccount, lambda_runtime
from moto.awslambda.models import LambdaFunction
from moto.events.responses import EventsHandler

from rule_actions_cdk.app import project_context
from rule_actions_cli.check import REPLAY_NAME, synthetic_event
from rule_actions_cli.deploy_local import free_port
from rule_actions_cli.main import main
from rule_actions_cli.matcher import matches
from rule_actions_cli.synth import synthesize

CONFIG = {"notify": {"emails": ["ml-team@example.com"]}, "training_job_prefixes": ["exp-"],
          "rules": {"*": ["notify", "stoptraining"]}}


@pytest.fixture(scope="module")
def deployed():
    assembly, stack = synthesize({**project_context(), "rule_actions": CONFIG})
    with ServedAccount(assembly, stack, port=free_port()) as account:
        yield account


@pytest.fixture(scope="module")
def handler(deployed, tmp_path_factory):
    """The artifact's handler, started once (one execution environment), answering moto's Invoke."""
    folder = tmp_path_factory.mktemp("lambda")
    env = deployed.function_environment({"AWS_ACCESS_KEY_ID": "fn", "AWS_SECRET_ACCESS_KEY": "fn"})
    runner = Runner(deployed.unzip_asset(folder / "task"), lambda_runtime(folder / "runtime"), env)
    assert runner.hello.get("ready"), runner.hello
    yield runner
    runner.close()


@pytest.fixture
def moto_answers(monkeypatch, handler):
    """TestEventPattern with the local matcher (`disagree_on` inverts the verdict for one job), Invoke with the
    artifact; returns the events the function received."""
    received, disagree_on = [], set()

    def test_event_pattern(self):
        pattern, event = json.loads(self._get_param("EventPattern")), json.loads(self._get_param("Event"))
        verdict = matches(pattern, event)
        if (event.get("detail") or {}).get("TrainingJobName") in disagree_on:
            verdict = not verdict
        return json.dumps({"Result": verdict})

    def invoke(self, body, request_headers, response_headers):
        received.append(json.loads(body))
        answer = handler.send(json.loads(body))
        if "error" in answer:
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorMessage": answer["error"]}).encode()
        return json.dumps(answer["result"]).encode()

    monkeypatch.setattr(EventsHandler, "test_event_pattern", test_event_pattern)
    monkeypatch.setattr(LambdaFunction, "invoke", invoke)
    return received, disagree_on


def test_check_proves_the_rule_and_the_function_without_acting(deployed, moto_answers, capsys):
    received, _ = moto_answers
    # When the deployed stack is checked
    code = main(["check", "--stack", deployed.stack_name])
    out = capsys.readouterr().out.splitlines()
    # Then the rule was tested on every sample event, the matcher agreeing, and the function answered the
    # synthetic event (a job under the configured prefix, marked as a replay) skipping both actions
    assert code == 0, out
    assert out[0].startswith(f"stack {deployed.stack_name}: function {deployed.function_name}, rule(s) ")
    from rule_actions_cli.check import default_events

    assert out[1].startswith(f"rule: {len(default_events())} sample events tested with EventBridge's TestEventPattern: ")
    assert out[1].endswith("the local matcher agrees on every one")
    assert "invoke: a synthetic IssuesFound event of job exp-rule-actions-check-" in out[2]
    assert "with 2 action(s) planned and skipped (notify, stoptraining)" in out[2]
    assert out[-1] == "ok"
    [event] = received
    assert event["replay-name"] == REPLAY_NAME and event["detail"]["TrainingJobName"].startswith("exp-")


def test_a_difference_between_eventbridge_and_the_matcher_fails_the_check(deployed, moto_answers, capsys):
    # Given EventBridge judging one sample event otherwise than the local matcher
    _, disagree_on = moto_answers
    disagree_on.add("pt-resnet50-2026-11-22-08-01-13-512")
    code = main(["check", "--stack", deployed.stack_name, "events/vanishing-gradient-sdk-actions.json"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[1].endswith("the local matcher differs on 1")
    assert out[2].endswith("vanishing-gradient-sdk-actions.json (RuleActions-rule-outcomes): EventBridge says match, "
                           "the local matcher says no match")  # the job is not under exp-
    assert out[-1] == "FAILED: see the lines above"


def test_an_unknown_stack_is_one_line_and_exit_2(deployed, capsys):
    code = main(["check", "--stack", "NoSuchStack"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.strip().splitlines() == [
        "rule-actions: stack 'NoSuchStack' not found in us-east-1 (CloudFormation DescribeStacks returned "
        "ValidationError): check --stack and --region"]


def test_the_synthetic_event_is_a_replay_of_a_job_under_the_prefix():
    event = synthetic_event(["exp-"], "123456789012", "eu-west-1", now=0)
    assert event["replay-name"] == REPLAY_NAME
    assert event["detail"]["TrainingJobName"] == "exp-rule-actions-check-19700101-000000"
    assert event["detail"]["DebugRuleEvaluationStatuses"][0]["RuleEvaluationStatus"] == "IssuesFound"
    assert "action_json" not in json.dumps(event)  # nothing to read before the actions are skipped
