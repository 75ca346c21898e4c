"""The artifact in organization mode: the central stack deployed into moto server as the central account, each
event's member stack as its member account, the handler run from the code asset with the central function's
role's credentials, every request checked by moto's IAM policy engine. The function reaches SageMaker only through
the member's executor role: the central grant (sts:AssumeRole on the members' roles), the member's trust (checked
by rule_actions_cli.emulator.organization) and the executor role's policy are each enforced on the calls they cover.

moto's engine ignores policy conditions (aws:ResourceOrgID on the central grant): what the grant's resources allow
is checked, not the organization condition.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from builders import event, rule_config, rule_status
from harness import Runner, ServedAccount, iam_enforced, lambda_runtime, run_events, without_statement
from moto.awslambda.models import LambdaFunction
from moto.events.responses import EventsHandler
from moto.server import ThreadedMotoServer

from rule_actions.organization import Organization
from rule_actions_cdk.app import project_context, read_context
from rule_actions_cli import inputs
from rule_actions_cli.check import REPLAY_NAME
from rule_actions_cli.deploy_local import free_port
from rule_actions_cli.embedded_organization import EmbeddedOrganization
from rule_actions_cli.main import main, run_replay
from rule_actions_cli.matcher import matches
from rule_actions_cli.synth import synthesize

ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((ROOT / "examples" / "organization-config.json").read_text())
TEAM_A = "111122223333"
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "AuthorizationError"}
ORG_CALLS = {("sts", "AssumeRole"), ("sagemaker", "DescribeTrainingJob"), ("sagemaker", "ListTrainingJobs"),
             ("sagemaker", "StopTrainingJob")}


class ServedOrganization(ServedAccount, EmbeddedOrganization):
    """The embedded organization on moto server: ServedAccount's server and artifact, EmbeddedOrganization's
    central and member stacks."""

    def __init__(self, assembly_dir: Path, stack_name: str, organization: Organization, port: int):
        EmbeddedOrganization.__init__(self, assembly_dir, stack_name, organization)
        self.url = f"http://127.0.0.1:{port}"
        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)


def team_a(job: str, actions: list[dict] | None) -> dict:
    """LossNotDecreasing IssuesFound on a job of team A; its rule's action_json (None: the event carries no rule
    configurations, so the function describes the job)."""
    configs = None if actions is None else [rule_config("LossNotDecreasing",
                                                        json.dumps(actions).replace('"', '\\"'))]
    return event(job, debug=[rule_status("LossNotDecreasing", job=job)], debug_configs=configs, account=TEAM_A)


def paths() -> list[tuple[str, dict]]:
    """The member-account calls the samples do not make: a rule list read with DescribeTrainingJob (the event
    lacks it), a family prefix resolved with ListTrainingJobs (one running job: it is stopped)."""
    return [("org:describe", team_a("org-describe-01", None)),
            ("org:prefix", team_a("org-family-trial-01", [{"name": "stoptraining", "training_job_prefix": "org-family-"}]))]


@pytest.fixture(scope="module")
def events():
    found, errors = inputs.load([str(ROOT / "events" / "organization")])
    assert not errors
    return found + paths()


@pytest.fixture(scope="module")
def context():
    return {**project_context(), "rule_actions": CONFIG}


@pytest.fixture(scope="module")
def replayed(context, events):
    """The same events through the sources in-process, before the server starts (the mocks reset its backends)."""
    return run_replay(events, context, verbose=False)


@pytest.fixture(scope="module")
def organization(context, replayed):
    assembly, stack = synthesize(context)
    with ServedOrganization(assembly, stack, read_context(context)[0].organization, port=free_port()) as world:
        yield world


@pytest.fixture(scope="module")
def artifact(organization, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lambda")
    return organization.unzip_asset(folder / "task"), lambda_runtime(folder / "runtime")


def run_as_function(organization, artifact, events):
    asset, runtime = artifact
    for _, found in events:  # each event's member stack deployed first, with the harness's (unsigned) credentials
        organization.matched(found)
    env = organization.function_environment(organization.role_credentials())
    with iam_enforced():
        runner = Runner(asset, runtime, env)
        try:
            assert runner.hello.get("ready"), runner.hello
            return run_events(organization, runner, events)
        finally:
            runner.close()


def test_the_asset_acts_in_member_accounts_through_their_executor_roles_only(organization, artifact, events,
                                                                            replayed):
    # When the organization's events run through the artifact, as the central function's role
    rows = run_as_function(organization, artifact, events)

    # Then every call was allowed, among them AssumeRole and SageMaker's calls in the member account
    calls = [tuple(call) for r in rows for call in r.get("calls", [])]
    assert [c for c in calls if c[2] in ACCESS_DENIED] == []
    assert ORG_CALLS <= {(service, op) for service, op, _ in calls}
    # one AssumeRole for the whole run (one execution environment): team A's role, once
    assert Counter(op for service, op, _ in calls if service == "sts") == Counter({"AssumeRole": 1})
    # and the artifact decided what the sources decide in-process: the stops done, the stranger refused
    def decisions(found):
        return [(r["source"], r.get("ignored"), [(a["trigger"], a["kind"], a["outcome"]) for a in r["actions"]])
                for r in found]

    assert decisions(rows) == decisions(replayed)
    [prefix] = [a for r in rows if r["source"] == "org:prefix" for a in r["actions"] if a["kind"] == "stoptraining"]
    assert prefix["outcome"] == "done" and prefix["jobs"] == ["org-family-trial-01"]
    [described] = [r for r in rows if r["source"] == "org:describe"]
    assert ["sagemaker", "DescribeTrainingJob", None] in described["calls"]


def test_without_the_central_grant_the_member_role_cannot_be_assumed(organization, artifact):
    # Given the function's role without its statement on the members' executor roles
    role_name = organization.function_role_arn.rsplit("/", 1)[1]
    with without_statement(organization.client("iam"), role_name, "AssumeMemberExecutorRoles"):
        # When team A's rule finds issues on a running job
        [row] = run_as_function(organization, artifact, [("ungranted", team_a("org-ungranted-01", [{"name": "stoptraining"}]))])

    # Then STS refused the function's role, twice (the job's live status read before the stop, then the stop,
    # which decides when that read fails), the stop failed naming the role, and the invocation with it
    assert [tuple(c[:3]) for c in row["calls"] if c[0] == "sts"] == [("sts", "AssumeRole", "AccessDenied")] * 2
    assert row["error"].startswith("ActionsFailed: 1 action(s) failed for org-ungranted-01: LossNotDecreasing "
                                   "stoptraining org-ungranted-01: MemberRoleUnavailable: cannot assume "
                                   f"arn:aws:iam::{TEAM_A}:role/RuleActionsMember-us-east-1 (AccessDenied")
    # and the rest was still carried out (the team told)
    assert ["sns", "Publish", None] in row["calls"]


def test_check_finds_the_rule_on_the_central_bus_and_the_function_answers_a_members_event(organization, artifact,
                                                                                           monkeypatch, capsys):
    # Given the artifact answering moto's Invoke as the function's role (IAM enforced), and TestEventPattern
    # answered by the local matcher (moto returns no verdict)
    asset, runtime = artifact
    received = []
    runner = Runner(asset, runtime, organization.function_environment(organization.role_credentials()))

    def invoke(self, body, request_headers, response_headers):
        received.append(json.loads(body))
        with iam_enforced():
            answer = runner.send(json.loads(body))
        return json.dumps(answer.get("result") or {"errorMessage": answer.get("error")}).encode()

    def test_event_pattern(self):
        return json.dumps({"Result": matches(json.loads(self._get_param("EventPattern")),
                                             json.loads(self._get_param("Event")))})

    monkeypatch.setattr(LambdaFunction, "invoke", invoke)
    monkeypatch.setattr(EventsHandler, "test_event_pattern", test_event_pattern)
    try:
        # When the central stack is checked
        code = main(["check", "--stack", organization.stack_name, "events/organization/"])
    finally:
        runner.close()

    # Then its rule is the one on the central bus, and the function planned and skipped the synthetic event of
    # the first listed member account (acted on nothing, called nothing in the member account)
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[0].startswith(f"stack {organization.stack_name}: function {organization.function_name}, rule(s) "
                             "RuleActions-rule-outcomes, ")
    assert out[1].startswith("rule: 9 sample events tested with EventBridge's TestEventPattern: 7 match")
    [event] = received
    assert event["account"] == TEAM_A and event["replay-name"] == REPLAY_NAME
    assert out[-1] == "ok"
