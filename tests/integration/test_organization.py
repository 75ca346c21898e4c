"""Organization mode on the embedded AWS: the handler acts in each event's account and region through that
account's executor role (moto's STS gives credentials that land in the role's account), refuses accounts the
configuration does not name, says which account a job ran in, and keeps its secrets."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace
from typing import Any

import pytest
from builders import ACCOUNT, REGION, event, rule_config, rule_status
from moto.sts.models import sts_backends

from rule_actions.handler import ActionsFailed
from rule_actions.observability import logger
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

TEAM_A, TEAM_B, STRANGER = "111122223333", "444455556666", "777788889999"
TEAM = "team@example.com"
JOB = "bert-base-sweep-07"  # both teams name a job so: only the event's account's job may be stopped
ORGANIZATION = {"org_id": "o-a1b2c3d4e5", "accounts": [TEAM_A, TEAM_B], "member_role": "RuleActionsMember",
                "aliases": {TEAM_A: "team-a-prod"}, "central_account": ACCOUNT, "central_region": REGION}
STOP_OWN = '[{\\"name\\": \\"stoptraining\\"}]'


def configure(aws, **organization: Any) -> None:
    aws.configure(notify={"emails": [TEAM]}, job_outcomes={"Stopped": ["notify"], "Failed": ["notify"]},
                  organization={**ORGANIZATION, **organization})


def issues(account: str, job: str = JOB, region: str = REGION, actions: str = STOP_OWN, **extra: Any) -> dict[str, Any]:
    """LossNotDecreasing IssuesFound on a training job of `account`, its action_json stopping the job."""
    return event(job, debug=[rule_status("LossNotDecreasing", job=job)],
                 debug_configs=[rule_config("LossNotDecreasing", actions)], account=account, region=region, **extra)


def put_job(name: str, account: str, status: str = "InProgress", region: str = REGION, **extra: Any) -> None:
    moto_sagemaker.put_training_job(name, status, account_id=account, region=region, **extra)


def status(name: str, account: str, region: str = REGION) -> str:
    return moto_sagemaker.training_job_status(name, account_id=account, region=region)


def assume_role_calls(aws) -> list[str]:
    """Every AssumeRole the function's STS client makes from now on: the role ARNs."""
    calls: list[str] = []
    members = aws.effects().members
    members.sts.meta.events.register("before-parameter-build.sts.AssumeRole",
                                     lambda params, **_: calls.append(params["RoleArn"]))
    return calls


def outcomes(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(a["trigger"], a["kind"], a["outcome"]) for a in result["actions"]]


def test_the_stop_happens_in_the_events_account_and_nowhere_else(aws):
    # Given two member accounts and the central one, each with an InProgress job of the same name
    configure(aws)
    for account in (TEAM_A, TEAM_B, ACCOUNT):
        put_job(JOB, account)
    calls = assume_role_calls(aws)

    # When team A's rule finds issues and its action_json stops the job
    result = aws.invoke(issues(TEAM_A))

    # Then team A's job is stopped, through team A's executor role in the event's region, and no other job is
    assert outcomes(result) == [("LossNotDecreasing", "stoptraining", "done"), ("LossNotDecreasing", "notify", "done")]
    assert (status(JOB, TEAM_A), status(JOB, TEAM_B), status(JOB, ACCOUNT)) == ("Stopping", "InProgress", "InProgress")
    assert calls == [f"arn:aws:iam::{TEAM_A}:role/RuleActionsMember-{REGION}"]

    # And the result says which account the job ran in, with its alias
    assert (result["account"], result["account_alias"]) == (TEAM_A, "team-a-prod")


def test_an_account_the_configuration_does_not_name_is_refused_counted_and_never_acted_on(aws, capsys):
    # Given a stranger's InProgress job (its account is in the organization, but not in `accounts`)
    configure(aws)
    put_job(JOB, STRANGER)
    calls = assume_role_calls(aws)
    capsys.readouterr()

    # When its IssuesFound event reaches the function
    result = aws.invoke(issues(STRANGER))

    # Then nothing is done, the result and its reason name the account, no role is assumed, a metric counts it
    assert result == {"training_job": JOB, "job": JOB, "job_family": "training", "account": STRANGER, "actions": [],
                      "ignored": f"account {STRANGER} is not a member of this organization configuration"}
    assert status(JOB, STRANGER) == "InProgress" and calls == [] and aws.published == []
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    assert any(m.get("RefusedAccountEvents") == [1.0] or m.get("RefusedAccountEvents") == 1.0 for m in emitted)


def test_with_only_an_organization_id_every_account_is_acted_for(aws):
    # Given the organization alone (the central bus admits its accounts; no list)
    configure(aws, accounts=[], aliases={})
    put_job(JOB, STRANGER)

    # When an account of it sends IssuesFound
    result = aws.invoke(issues(STRANGER))

    # Then the job is stopped there, and the result names the account without an alias
    assert ("LossNotDecreasing", "stoptraining", "done") in outcomes(result)
    assert status(JOB, STRANGER) == "Stopping"
    assert result["account"] == STRANGER and "account_alias" not in result


def test_a_job_arn_of_another_account_than_the_events_is_refused(aws):
    # Given team B forwarding an event whose job ARN names team A's job
    configure(aws)
    put_job(JOB, TEAM_A)
    forged = issues(TEAM_B)
    forged["detail"]["TrainingJobArn"] = issues(TEAM_A)["detail"]["TrainingJobArn"]

    # When it reaches the function
    result = aws.invoke(forged)

    # Then it is refused: acting (or keeping exactly-once records) under team A's ARN for team B would be wrong
    assert result["actions"] == [] and result["ignored"].startswith("training job ARN ")
    assert f"is not a training job of the event's account {TEAM_B} in {REGION}" in result["ignored"]
    assert status(JOB, TEAM_A) == "InProgress"


def test_one_assume_role_per_account_and_region_per_execution_environment(aws):
    # Given jobs in two accounts, one of them in two regions
    configure(aws)
    jobs = [(f"exp-{n}", account, region) for n, (account, region) in enumerate(
        [(TEAM_A, REGION), (TEAM_A, REGION), (TEAM_B, REGION), (TEAM_A, "eu-west-1"), (TEAM_B, REGION)])]
    for name, account, region in jobs:
        put_job(name, account, region=region)
    calls = assume_role_calls(aws)

    # When each job's IssuesFound arrives (and the first once more)
    for name, account, region in [*jobs, jobs[0]]:
        aws.invoke(issues(account, name, region))

    # Then the role of each (account, region) was assumed once, and every job was stopped in its place
    assert sorted(calls) == sorted([f"arn:aws:iam::{TEAM_A}:role/RuleActionsMember-{REGION}",
                                    f"arn:aws:iam::{TEAM_B}:role/RuleActionsMember-{REGION}",
                                    f"arn:aws:iam::{TEAM_A}:role/RuleActionsMember-eu-west-1"])
    assert [status(name, account, region) for name, account, region in jobs] == ["Stopping"] * len(jobs)


def test_an_event_that_only_sends_messages_assumes_no_role(aws):
    # Given a member's job that fails (job_outcomes: Failed -> notify)
    configure(aws)
    put_job(JOB, TEAM_B, "Failed")
    calls = assume_role_calls(aws)

    # When its Failed event arrives
    result = aws.invoke(event(JOB, "Failed", "Failed", account=TEAM_B))

    # Then the team is notified, and the member's role was never needed
    assert outcomes(result) == [("job:Failed", "notify", "done")] and calls == []


def test_messages_name_the_account_and_link_to_the_events_region(aws):
    # Given team A's job in eu-west-1 whose rule finds issues
    configure(aws)
    put_job(JOB, TEAM_A, region="eu-west-1")

    # When the event arrives
    aws.invoke(issues(TEAM_A, region="eu-west-1"))

    # Then the team's message names the account (id and alias) in its subject, body and text, and links there
    [message] = aws.inbox(TEAM)
    assert message["subject"] == f"[rule-actions team-a-prod] LossNotDecreasing issues found in {JOB}"
    assert f"Training job:   {JOB}\nAccount:        {TEAM_A} (team-a-prod)\n" in message["email"]
    assert "Region:         eu-west-1" in message["email"]
    assert "https://eu-west-1.console.aws.amazon.com/sagemaker/home?region=eu-west-1#/jobs/" in message["email"]
    assert message["sms"].startswith("rule-actions team-a-prod: LossNotDecreasing issues found in ")
    assert status(JOB, TEAM_A, "eu-west-1") == "Stopping"


def test_an_account_without_alias_is_named_by_its_id(aws):
    # Given team B (no alias) and a job that fails
    configure(aws)

    # When its Failed event arrives
    aws.invoke(event(JOB, "Failed", "Failed", account=TEAM_B))

    # Then the message names the account by its id
    [message] = aws.inbox(TEAM)
    assert message["subject"] == f"[rule-actions {TEAM_B}] training job failed: {JOB}"
    assert f"Account:        {TEAM_B}\n" in message["email"]


def test_our_stop_is_remembered_per_account(aws):
    # Given team A's job stopped by this stack, and team B's job of the same name stopped by a person
    configure(aws)
    put_job(JOB, TEAM_A)
    put_job(JOB, TEAM_B)
    aws.invoke(issues(TEAM_A))

    # When both jobs' Stopped events arrive
    ours = aws.invoke(event(JOB, "Stopped", "Stopped", account=TEAM_A, event_id="e-a"))
    theirs = aws.invoke(event(JOB, "Stopped", "Stopped", account=TEAM_B, event_id="e-b"))

    # Then only team B's stop is news: the ledger's stop records are keyed by the job ARN, account included
    assert outcomes(ours) == [("job:Stopped", "notify", "skipped")]
    assert "stopped by this stack" in ours["actions"][0]["reason"]
    assert outcomes(theirs) == [("job:Stopped", "notify", "done")]


def test_a_role_that_cannot_be_assumed_fails_the_stop_names_the_role_and_still_notifies(aws):
    # Given team A's job, and STS refusing the role (the member stack is not deployed there)
    configure(aws)
    put_job(JOB, TEAM_A)
    denied = SimpleNamespace(status_code=403, headers={}, text="")
    error = {"Error": {"Code": "AccessDenied", "Message": "not authorized to perform: sts:AssumeRole"}}
    aws.effects().members.sts.meta.events.register("before-call.sts.AssumeRole", lambda **_: (denied, error))

    # When its IssuesFound arrives
    with pytest.raises(ActionsFailed) as raised:
        aws.invoke(issues(TEAM_A))

    # Then the stop failed with a reason naming the role and what to do, the team was notified, Lambda retries
    actions = {a["kind"]: a for a in raised.value.result["actions"]}
    assert actions["notify"]["outcome"] == "done" and actions["stoptraining"]["outcome"] == "failed"
    role = f"arn:aws:iam::{TEAM_A}:role/RuleActionsMember-{REGION}"
    assert actions["stoptraining"]["reason"] == (
        f"MemberRoleUnavailable: cannot assume {role} (AccessDenied: not authorized to perform: sts:AssumeRole): is "
        f"the member stack deployed in account {TEAM_A}, region {REGION}, after the central stack?")
    assert status(JOB, TEAM_A) == "InProgress"


def test_member_credentials_never_reach_a_log_line_or_a_result(aws, capsys, monkeypatch):
    # Given jobs in both member accounts, and the handler's logs captured
    configure(aws)
    for account in (TEAM_A, TEAM_B):
        put_job(JOB, account)
    logs = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", logs)

    # When both accounts' events are handled
    results = [aws.invoke(issues(account)) for account in (TEAM_A, TEAM_B)]
    output = logs.getvalue() + capsys.readouterr().out + json.dumps(results)

    # Then the logs say a role was assumed, but no key, secret or session token of it appears anywhere
    credentials = [role for account in (TEAM_A, TEAM_B) for role in sts_backends[account]["aws"].assumed_roles]
    assert len(credentials) == 2 and "member role assumed" in output
    for role in credentials:
        for secret in (role.access_key_id, role.secret_access_key, role.session_token):
            assert secret not in output
    assert "SecretAccessKey" not in repr(aws.effects().members._sessions)
