"""The artifact Lambda runs, not the sources: the synthesized stack deployed into moto server on 127.0.0.1, its code
asset unzipped into a clean interpreter that holds only the standard library, what the Lambda runtime ships
(boto3 and its dependencies) and what the asset bundles, its handler run there with the environment the template
gives the function and the credentials of the function's role, every request checked by moto's IAM policy
engine against the role's policy as the template declares it.

Over the sample corpus (the demo configuration) and the fault paths the corpus does not reach, every AWS call the
handler makes is allowed; a removed grant or a missing module fails the run.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from importlib import metadata
from pathlib import Path

import pytest
from builders import event, rule_config, rule_status
from harness import Runner, iam_enforced, run_events, served, unzipped, without_statement

from rule_actions_cdk.app import project_context
from rule_actions_cli import inputs
from rule_actions_cli.main import run_replay
from rule_actions_cli.replay_table import summary

ROOT = Path(__file__).resolve().parents[2]
DEMO_CONFIG = json.loads((ROOT / "examples" / "demo-config.json").read_text())
TEAM_MEMBER = DEMO_CONFIG["notify"]["emails"][0]
REFUSED = "refused@example.org"  # SNS refuses to subscribe it: the action fails, its ledger record is deleted
ACCESS_DENIED = {"AccessDenied", "AccessDeniedException", "AuthorizationError"}
# Every call the handler may make (the IAM list of docs/operations.md), by service.
EXPECTED_CALLS = {
    ("sagemaker", "DescribeTrainingJob"), ("sagemaker", "ListTrainingJobs"), ("sagemaker", "StopTrainingJob"),
    ("sns", "Subscribe"), ("sns", "GetSubscriptionAttributes"), ("sns", "SetSubscriptionAttributes"),
    ("sns", "ListSubscriptionsByTopic"), ("sns", "Publish"),
    ("dynamodb", "GetItem"), ("dynamodb", "PutItem"), ("dynamodb", "UpdateItem"), ("dynamodb", "DeleteItem"),
}


def with_actions(job: str, actions: list[dict]) -> dict:
    """An IssuesFound event of `job` whose rule's action_json declares `actions` (serialized as the SDK does)."""
    return event(job, debug=[rule_status("VanishingGradient", job=job)],
                 debug_configs=[rule_config("VanishingGradient", json.dumps(actions).replace('"', '\\"'))])


def fault_events() -> list[tuple[str, dict]]:
    """The paths the corpus does not reach: the rule list read with DescribeTrainingJob (the event lacks it), an
    action_json email to a team member (SNS refuses a second subscription with other attributes: the function
    widens the existing one's filter), an action that fails (its in-progress ledger record is deleted)."""
    undescribed = event("artifact-describe-01", debug=[rule_status("VanishingGradient", job="artifact-describe-01")])
    return [
        ("fault:describe", undescribed),
        ("fault:team-member", with_actions("artifact-member-01", [{"name": "email", "endpoint": TEAM_MEMBER}])),
        ("fault:refused", with_actions("artifact-refused-01", [{"name": "email", "endpoint": REFUSED}])),
    ]


@pytest.fixture(scope="module")
def corpus():
    events, errors = inputs.load([str(ROOT / "events")])
    assert not errors
    return events + fault_events()


@pytest.fixture(scope="module")
def context():
    return {**project_context(), "rule_actions": DEMO_CONFIG}


@pytest.fixture(scope="module")
def replayed(context, corpus):
    """The same events through the sources in-process (`rule-actions replay`), before the server starts: moto's
    in-process mocks reset the backends the server shares."""
    return run_replay(corpus, context, verbose=False)


@pytest.fixture(scope="module")
def deployed(replayed):
    with served(DEMO_CONFIG) as account:
        yield account


@pytest.fixture(scope="module")
def artifact(deployed, tmp_path_factory):
    return unzipped(deployed, tmp_path_factory.mktemp("lambda"))


def refuse_one_endpoint(monkeypatch):
    """SNS refuses REFUSED's subscription (as it does an address it cannot use)."""
    from moto.sns.exceptions import SNSInvalidParameter
    from moto.sns.responses import SNSResponse

    current = SNSResponse.subscribe

    def subscribe(self):
        if self._get_param("Endpoint") == REFUSED:
            raise SNSInvalidParameter("Invalid parameter: Endpoint")
        return current(self)

    monkeypatch.setattr(SNSResponse, "subscribe", subscribe)


def test_the_asset_runs_the_corpus_with_only_the_runtime_and_the_roles_permissions(deployed, artifact, corpus,
                                                                                  replayed, monkeypatch):
    asset, runtime = artifact
    refuse_one_endpoint(monkeypatch)
    # Given the function's environment as deployed, and its role's credentials
    env = deployed.function_environment(deployed.role_credentials())
    with iam_enforced():
        # When the handler runs from the asset in a clean interpreter, every request checked against the role
        runner = Runner(asset, runtime, env)
        try:
            assert runner.hello.get("ready"), runner.hello
            rows = run_events(deployed, runner, corpus)
        finally:
            runner.close()

    # Then it imported nothing from outside the asset, the runtime and the standard library; Powertools is the
    # asset's, at the version the tests ran
    assert runner.hello["outside"] == []
    assert runner.hello["powertools"].startswith(str(asset))
    installed = metadata.version("aws-lambda-powertools")
    assert (asset / f"aws_lambda_powertools-{installed}.dist-info" / "METADATA").is_file()

    # and every AWS call it made was allowed, covering every call the handler can make
    calls = [tuple(call) for r in rows for call in r.get("calls", [])]
    denied = [c for c in calls if c[2] in ACCESS_DENIED]
    assert denied == []
    assert EXPECTED_CALLS <= {(service, op) for service, op, _ in calls}
    codes = Counter((op, code) for _, op, code in calls if code)
    # (refusals that are answers: a ledger record already there; an event not further along than one the ledger's
    # order of the job's events saw; a subscription that exists with other attributes)
    assert set(codes) <= {("PutItem", "ConditionalCheckFailedException"), ("UpdateItem", "ConditionalCheckFailedException"),
                          ("Subscribe", "InvalidParameter")}, codes

    # and, over the sample corpus, the artifact decided exactly what the sources decide in-process (`rule-actions
    # replay`; the fault paths need the server's SNS behaviour)
    def decisions(rows):
        return [(r["source"], [(a["trigger"], a["kind"], a["outcome"]) for a in r.get("actions", [])])
                for r in rows if not r["source"].startswith("fault:")]

    samples = [r for r in rows if not r["source"].startswith("fault:")]
    assert decisions(rows) == decisions(replayed)
    assert summary(samples) == summary([r for r in replayed if not r["source"].startswith("fault:")])
    [refused] = [r for r in rows if r["source"] == "fault:refused"]
    assert "ActionsFailed" in refused["error"]  # Lambda would retry it; its ledger record was deleted
    [member] = [r for r in rows if r["source"] == "fault:team-member"]
    assert [(a["kind"], a["outcome"]) for a in member["actions"]] == [("email", "done"), ("notify", "done")]


def test_a_removed_grant_fails_the_calls_it_covered(deployed, artifact):
    # Given the role's policy without the statement on the topic's subscriptions (Get/SetSubscriptionAttributes)
    asset, runtime = artifact
    role = deployed.client("lambda").get_function_configuration(FunctionName=deployed.function_name)["Role"]
    env = deployed.function_environment(deployed.role_credentials())
    with without_statement(deployed.client("iam"), role.rsplit("/", 1)[1], "TopicSubscriptions"), iam_enforced():
        runner = Runner(asset, runtime, env)
        try:
            member = with_actions("artifact-member-02", [{"name": "email", "endpoint": TEAM_MEMBER}])
            [row] = run_events(deployed, runner, [("member", member)])
        finally:
            runner.close()
    # Then SNS refused the call the statement granted (moto answers AccessDenied where SNS says
    # AuthorizationError), the email failed and the invocation with it (Lambda retries it)
    refused = [c for c in row["calls"] if c[2] in ACCESS_DENIED]
    assert refused and {tuple(c[:2]) for c in refused} == {("sns", "GetSubscriptionAttributes")}
    assert row["error"].startswith("ActionsFailed: 1 action(s) failed") and "email" in row["error"]


@pytest.mark.parametrize("missing", ["typing_extensions.py", "aws_lambda_powertools"])
def test_an_asset_missing_a_module_fails_to_import(artifact, tmp_path, missing):
    # Given the asset without one of the files it bundles
    asset, runtime = artifact
    broken = shutil.copytree(asset, tmp_path / "task", symlinks=True)
    target = broken / missing
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    # When the runtime loads the handler, then it fails as Lambda's Runtime.ImportModuleError would
    env = {"PATH": "/usr/bin:/bin", "_HANDLER": "rule_actions.handler.lambda_handler"}
    runner = Runner(broken, runtime, env)
    assert runner.close() == 3
    assert runner.hello["import_error"].startswith("ModuleNotFoundError: No module named")
    assert missing.removesuffix(".py") in runner.hello["import_error"]
