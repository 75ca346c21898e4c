"""`rule-actions subscriptions --stack NAME` against the stack deployed into moto (the embedded account): the team
topic's subscriptions classed, the personal ones nobody needs removed only with --remove, the team's never."""

from __future__ import annotations

import io
import json
from pathlib import Path

import boto3
import pytest

from rule_actions_cli.embedded import EmbeddedAccount
from rule_actions_cli.main import main
from rule_actions_cli.synth import synthesize

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {**json.loads((ROOT / "examples" / "demo-config.json").read_text()), "allowed_endpoints": ["*@example.com"]}


@pytest.fixture
def deployed(tmp_path):
    """The demo stack (team ml-team@example.com, only @example.com addresses allowed) with, on its topic: three
    personal subscriptions the function made (one for an address the configuration now refuses), a chat channel
    subscribed by hand to the team, and a subscription filtering on something else."""
    from rule_actions_cdk.app import project_context

    context = {**project_context(), "rule_actions": CONFIG}
    assembly, stack = synthesize(context)
    with EmbeddedAccount(assembly, stack) as account:
        sns = boto3.client("sns", region_name=account.region)
        topic = account.environment["RULE_ACTIONS_TOPIC_ARN"]
        for address in ("alice@example.com", "casey@example.com", "old@elsewhere.org"):
            sns.subscribe(TopicArn=topic, Protocol="email", Endpoint=address,
                          Attributes={"FilterPolicy": json.dumps({"to": [address]})})
        sns.subscribe(TopicArn=topic, Protocol="https", Endpoint="https://chat.example.com/hook",
                      Attributes={"FilterPolicy": json.dumps({"to": ["team"]})})
        sns.subscribe(TopicArn=topic, Protocol="email", Endpoint="sec-audit@example.com",
                      Attributes={"FilterPolicy": json.dumps({"severity": ["high"]})})
        yield sns, topic, stack


def run(*args: str) -> tuple[int, list[str]]:
    import sys

    out, saved = io.StringIO(), sys.stdout
    sys.stdout = out
    try:
        code = main(["subscriptions", *args])
    finally:
        sys.stdout = saved
    return code, out.getvalue().splitlines()


def endpoints(sns, topic) -> set[str]:
    return {s["Endpoint"] for s in sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]}


def test_a_dry_run_classes_every_subscription_and_removes_nothing(deployed):
    sns, topic, stack = deployed
    before = endpoints(sns, topic)

    code, lines = run("--stack", stack)

    assert code == 0 and endpoints(sns, topic) == before
    rows = {line.split()[2]: line for line in lines[1:-1]}
    assert "o***@elsewhere.org" in rows and "would remove" in rows["o***@elsewhere.org"]
    assert "no longer lets the function message it" in rows["o***@elsewhere.org"]
    assert "keep" in rows["m***@example.com"] and " team " in rows["m***@example.com"]  # the stack's team member
    assert "keep" in rows["https://chat.example.com/***"] and " team " in rows["https://chat.example.com/***"]
    assert "keep" in rows["s***@example.com"] and " other " in rows["s***@example.com"]
    assert "keep" in rows["a***@example.com"] and " personal " in rows["a***@example.com"]
    assert lines[-1] == ("6 subscription(s): 1 other, 3 personal, 2 team; 1 would remove; a dry run: pass "
                         "--remove to unsubscribe them")
    assert not [line for line in lines if "alice@" in line or "old@elsewhere" in line]  # redacted


def test_remove_unsubscribes_the_refused_and_the_named_and_never_the_team(deployed):
    sns, topic, stack = deployed

    code, lines = run("--stack", stack, "--endpoint", "CASEY@example.com", "--remove")

    assert code == 0 and lines[-1].endswith("; 2 removed")
    left = endpoints(sns, topic)
    assert {"old@elsewhere.org", "casey@example.com"}.isdisjoint(left)
    assert {"alice@example.com", "ml-team@example.com", "https://chat.example.com/hook", "sec-audit@example.com"} <= left


def test_all_personal_removes_every_personal_subscription(deployed):
    sns, topic, stack = deployed
    code, _ = run("--stack", stack, "--all-personal", "--remove")
    left = endpoints(sns, topic)
    assert code == 0 and not {"alice@example.com", "casey@example.com", "old@elsewhere.org"} & left
    assert {"ml-team@example.com", "https://chat.example.com/hook", "sec-audit@example.com"} <= left


def test_a_stack_that_does_not_exist_is_one_line_and_exit_2(deployed, capsys):
    assert main(["subscriptions", "--stack", "NoSuchStack"]) == 2
    assert capsys.readouterr().err.startswith("rule-actions: stack 'NoSuchStack' not found")
