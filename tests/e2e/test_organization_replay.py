"""`rule-actions replay` of an organization deployment: the central stack and a member stack per account deployed
into moto, the sample events of two member accounts forwarded by their member stacks through the central bus's
rule to the real handler, which stops the job in the right account through that account's executor role."""

from __future__ import annotations

import copy
import io
import json
import sys
from collections import Counter
from pathlib import Path

import boto3
import pytest

from rule_actions_cdk.app import read_context
from rule_actions_cli.embedded_organization import EmbeddedOrganization
from rule_actions_cli.emulator import sagemaker as moto_sagemaker
from rule_actions_cli.inputs import replay_context
from rule_actions_cli.main import main
from rule_actions_cli.synth import synthesize

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
CONFIG = ROOT / "examples" / "organization-config.json"
TEAMS, STRANGER = EVENTS / "organization" / "two-teams.json", EVENTS / "organization" / "unknown-account.json"
TEAM_A, TEAM_B, OUTSIDER, CENTRAL = "111122223333", "444455556666", "777788889999", "123456789012"
JOB = "bert-base-sweep-07"


def replay(*args: str) -> list[dict]:
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert main(["replay", "--json", *args]) == 0
    finally:
        sys.stdout = saved
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture(scope="module")
def rows():
    return replay("--config", str(CONFIG), str(TEAMS), str(STRANGER))


def world(config: Path = CONFIG) -> EmbeddedOrganization:
    context, errors = replay_context(str(config), dry_run=False)
    assert not errors
    assembly, stack = synthesize(context)
    return EmbeddedOrganization(assembly, stack, read_context(context)[0].organization)


def done(rows: list[dict]) -> Counter:
    return Counter((r.get("account"), a["trigger"], a["kind"]) for r in rows for a in r["actions"] if a["outcome"] == "done")


def test_each_action_is_done_once_in_the_right_account_and_named_by_its_alias(rows):
    # Then team A's job is stopped once, its people and the team told once; team B's failure is told once
    assert done(rows) == Counter({(TEAM_A, "LossNotDecreasing", "stoptraining"): 1,
                                  (TEAM_A, "LossNotDecreasing", "email"): 1,
                                  (TEAM_A, "LossNotDecreasing", "notify"): 1,
                                  (TEAM_B, "job:Failed", "notify"): 1})
    aliases = {r["account"]: r["account_alias"] for r in rows if "account_alias" in r}
    assert aliases == {TEAM_A: "team-a-prod", TEAM_B: "team-b-dev"}
    # and team A's Stopped outcome is not a second alert: the ledger knows this stack stopped that job there
    [stopped] = [a for r in rows for a in r["actions"] if a["trigger"] == "job:Stopped"]
    assert stopped["outcome"] == "skipped" and stopped["reason"].startswith("stopped by this stack")
    assert not [a for r in rows for a in r["actions"] if a["outcome"] in ("failed", "invalid", "denied")]


@pytest.mark.parametrize(("central_region", "member_region"), [("eu-west-1", "eu-west-1"),
                                                           ("ap-southeast-2", "eu-central-1")])
def test_any_central_region_and_member_region_replay_as_us_east_1_does(tmp_path, central_region, member_region):
    # Given the organization's central stack in another region (S3 wants a LocationConstraint there), and the
    # members' jobs training in the same or yet another region
    config = json.loads(CONFIG.read_text())
    config["organization"]["central_region"] = central_region
    (tmp_path / "org.json").write_text(json.dumps(config))
    (tmp_path / "events.json").write_text(TEAMS.read_text().replace("us-east-1", member_region))

    # When the sample is replayed
    moved = replay("--config", str(tmp_path / "org.json"), str(tmp_path / "events.json"))

    # Then each action is done once in the right account, as with us-east-1
    assert done(moved) == Counter({(TEAM_A, "LossNotDecreasing", "stoptraining"): 1,
                                   (TEAM_A, "LossNotDecreasing", "email"): 1,
                                   (TEAM_A, "LossNotDecreasing", "notify"): 1,
                                   (TEAM_B, "job:Failed", "notify"): 1})
    assert not [a for r in moved for a in r["actions"] if a["outcome"] in ("failed", "invalid", "denied")]


def test_state_changes_that_cannot_act_stay_in_the_member_account(rows):
    # the first events (both jobs training, their rule still InProgress) are not forwarded by the member stacks
    assert [r["matched"] for r in rows[:2]] == [False, False]
    assert all("ignored" not in r for r in rows[:2])


def test_an_account_of_the_organization_the_configuration_does_not_list_is_refused(rows):
    [row] = [r for r in rows if r["source"].endswith(STRANGER.name)]
    assert row["matched"] and row["actions"] == []
    assert row["ignored"] == f"account {OUTSIDER} is not a member of this organization configuration"


def test_every_row_names_the_account_its_event_came_from(rows):
    # Given the organization sample: events that act, events the pattern does not match, an account refused
    sent = [e for path in (TEAMS, STRANGER) for e in (lambda d: d if isinstance(d, list) else [d])(
        json.loads(path.read_text()))]
    aliases = {TEAM_A: "team-a-prod", TEAM_B: "team-b-dev"}
    # Then each row carries its event's account (and alias, when configured), whatever became of the event
    assert len(rows) == len(sent) and {r["matched"] for r in rows} == {True, False}
    for row, event in zip(rows, sent, strict=True):
        assert row["account"] == event["account"], row
        assert row.get("account_alias") == aliases.get(event["account"]), row
    refused = [r for r in rows if r["account"] == OUTSIDER]
    assert refused and all("not a member" in r["ignored"] for r in refused)


def test_only_the_events_accounts_job_is_stopped():
    # Given the embedded organization, and the events up to team A's IssuesFound and the stranger's
    events = [*json.loads(TEAMS.read_text())[:3], json.loads(STRANGER.read_text())]
    with world() as organization:
        organization.replay([(str(i), event) for i, event in enumerate(events)])

        # Then team A's job is stopping; team B's job of the same name, and the stranger's, keep training
        assert moto_sagemaker.training_job_status(JOB, account_id=TEAM_A) == "Stopping"
        assert moto_sagemaker.training_job_status(JOB, account_id=TEAM_B) == "InProgress"
        assert moto_sagemaker.training_job_status("gpt2-distill-2026-11-24", account_id=OUTSIDER) == "InProgress"
        # and the central account holds none of them
        assert JOB not in moto_sagemaker.sagemaker_backends[CENTRAL]["us-east-1"].training_jobs


# AccessDenied, STS's answer, is not an error shape of its model: moto says so when it serializes it.
@pytest.mark.filterwarnings("ignore:Exception\\(STSClientError\\) with code AccessDenied:UserWarning")
def test_an_executor_role_that_trusts_someone_else_cannot_be_assumed():
    # Given the embedded organization, and team A's executor role trusting another account instead
    events = json.loads(TEAMS.read_text())
    with world() as organization:
        organization.replay([("0", events[1])])  # team A's member stack is deployed at its first event
        credentials = organization._credentials(TEAM_A)
        iam = boto3.client("iam", aws_access_key_id=credentials["AccessKeyId"],
                           aws_secret_access_key=credentials["SecretAccessKey"],
                           aws_session_token=credentials["SessionToken"])
        trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                         "Principal": {"AWS": f"arn:aws:iam::{OUTSIDER}:root"}}]}
        iam.update_assume_role_policy(RoleName="RuleActionsMember-us-east-1", PolicyDocument=json.dumps(trust))

        # When team A's IssuesFound arrives
        [row] = organization.replay([("1", events[2])])

        # Then the stop fails naming the role (STS refused the function's role), and the job keeps training
        [stop] = [a for a in row["actions"] if a["kind"] == "stoptraining"]
        assert stop["outcome"] == "failed" and "AccessDenied" in stop["reason"]
        assert f"cannot assume arn:aws:iam::{TEAM_A}:role/RuleActionsMember-us-east-1" in stop["reason"]
        assert moto_sagemaker.training_job_status(JOB, account_id=TEAM_A) == "InProgress"


def test_without_an_org_id_the_bus_admits_only_the_listed_accounts(tmp_path):
    # Given the same organization listed by account alone
    config = json.loads(CONFIG.read_text())
    del config["organization"]["org_id"]
    path = tmp_path / "accounts-only.json"
    path.write_text(json.dumps(config))

    # When the stranger's event is replayed
    [row] = replay("--config", str(path), str(STRANGER))

    # Then EventBridge would refuse what its member stack forwards: the function never sees it
    assert not row["matched"] and row["actions"] == []
    assert row["ignored"] == (f"the central bus's policy does not admit account {OUTSIDER}: EventBridge refuses what "
                              "its member stack forwards")


def test_one_account_replays_an_event_of_any_account_as_before(tmp_path):
    # Given a sample event, and the same event as a user would copy it from their own account (not the embedded one)
    original = EVENTS / "vanishing-gradient-sdk-actions.json"
    copied = tmp_path / "copied.json"
    copied.write_text(original.read_text().replace(CENTRAL, TEAM_B))
    demo = str(ROOT / "examples" / "demo-config.json")

    # When each is replayed with the single-account demo configuration (one embedded account)
    [mine], [theirs] = replay("--config", demo, str(original)), replay("--config", demo, str(copied))

    # Then the embedded account stands for the user's: the copy is acted on as the original is, naming no account
    def decided(row: dict) -> list:
        return [(a["trigger"], a["kind"], a["outcome"]) for a in row["actions"]]

    assert theirs["matched"] and decided(theirs) == decided(mine) and ("stoptraining", "done") in {
        (kind, outcome) for _, kind, outcome in decided(theirs)}
    assert not {"account", "ignored"} & set(theirs)


def test_the_central_accounts_own_events_need_it_listed(tmp_path):
    # Given an event of the central account (not in `accounts`: it has no member stack)
    event = copy.deepcopy(json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text()))
    path = tmp_path / "central.json"
    path.write_text(json.dumps(event))

    # When it is replayed with the organization configuration
    [row] = replay("--config", str(CONFIG), str(path))

    # Then it is never forwarded
    assert not row["matched"] and "organization.accounts does not list" in row["ignored"]


def test_a_test_notification_reaches_the_team_in_organization_mode(capsys):
    # Given the organization configuration (the central stack alone answers: a test names no account)
    # When a test notification is sent locally
    code = main(["test-notify", "--json", "--config", str(CONFIG)])

    # Then the team topic got it, no account was refused or named, and no role was assumed
    result = json.loads(capsys.readouterr().out)
    assert code == 0, result
    assert [(a["kind"], a["target"], a["outcome"]) for a in result["actions"]] == [("notify", "team", "done")]
    assert not {"ignored", "account"} & set(result)
