"""AWS Batch in organization mode (issue 39, leftovers B): a member account's Batch events are forwarded by its member
stack to the central bus and told under its account; a stop of a Batch-made training job there goes through
TerminateServiceJob with the member's executor role (its Batch grants are the member template's), on the service job
of that account's (emulated) Batch; another member's queue of the same name is not touched."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from rule_actions_cdk.app import read_context
from rule_actions_cli.inputs import load, replay_context

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "events" / "batch" / "lifecycle-batch-preempted-then-stopped.json"
ORG = json.loads((ROOT / "examples" / "organization-config.json").read_text())
TEAM_A, TEAM_B, CENTRAL = "111122223333", "444455556666", "123456789012"
CONFIG = {**ORG, "rules": {"StalledTraining": ["stoptraining", "notify"]}, "job_outcomes": {},
          "batch_queues": ["gpu-training"],
          "batch_job_outcomes": {"WaitingForCapacity": ["notify"], "Terminated": ["notify"]},
          "batch_wait_alert_minutes": 5}


def in_account(raw: Any, account: str) -> Any:
    """The sample as it happens in `account` (its envelope and every ARN)."""
    return json.loads(json.dumps(raw).replace(CENTRAL, account))


def finding(lifecycle: list[dict[str, Any]], running: int) -> dict[str, Any]:
    """StalledTraining's finding on the attempt the service job runs at `running` (its training job, Training)."""
    training = copy.deepcopy(lifecycle[running - 1])
    training.update(id="f1e2d3c4-0000-4000-8000-0000000000aa", time="2026-11-24T13:40:00Z")
    training["detail"]["DebugRuleEvaluationStatuses"] = [{
        "RuleConfigurationName": "StalledTraining", "RuleEvaluationStatus": "IssuesFound",
        "StatusDetails": "RuleEvaluationConditionMet: no progress for 30 minutes", "LastModifiedTime": "1795527600000"}]
    training["detail"]["DebugRuleConfigurations"] = [{"RuleConfigurationName": "StalledTraining",
                                                      "RuleParameters": {"rule_to_invoke": "StalledTraining"}}]
    return training


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    from rule_actions_cli.embedded_organization import EmbeddedOrganization
    from rule_actions_cli.emulator import batch as moto_batch
    from rule_actions_cli.synth import synthesize

    folder = tmp_path_factory.mktemp("org-batch")
    config = folder / "config.json"
    config.write_text(json.dumps(CONFIG))
    lifecycle = in_account(json.loads(SAMPLE.read_text()), TEAM_A)
    running = next(i for i, raw in enumerate(lifecycle) if raw["source"] == "aws.batch"
                   and raw["detail"]["status"] == "RUNNING" and len(raw["detail"]["attempts"]) == 3)
    # team B runs a job of the same id in its own queue of the same name, waiting (its events alone seed it)
    other = in_account(json.loads(SAMPLE.read_text())[0], TEAM_B)
    events = folder / "events.json"
    events.write_text(json.dumps([*lifecycle[:running + 1], other, finding(lifecycle, running)]))
    context, errors = replay_context(str(config), dry_run=False)
    assert not errors
    assembly, stack = synthesize(context)
    member = json.loads((Path(assembly) / "RuleActionsMember.template.json").read_text())
    with EmbeddedOrganization(assembly, stack, read_context(context)[0].organization) as world:
        rows = world.replay(load([str(events)], as_rows=True)[0])
        job_id = lifecycle[0]["detail"]["jobId"]
        jobs = {account: moto_batch.service_job(job_id, account_id=account) for account in (TEAM_A, TEAM_B)}
        sweeps = {run["account"]: sweep(world, run) for run in world.evaluations}
    return rows, jobs, member, sweeps


def sweep(world: Any, run: dict[str, Any]) -> dict[str, Any]:
    """One scheduled run of the central evaluator (its role, which assumes the member's executor role), an hour
    after the sample job was submitted."""
    from rule_actions.contract import EVALUATION_KEY
    from rule_actions_cli.embedded import LocalContext

    world._evaluated_place(run)  # the member stack of the run's account (its executor role trusts the evaluator)

    def call(handler: Any) -> dict[str, Any]:
        world._credentials_of(handler, evaluator=True)
        try:
            result: dict[str, Any] = handler.lambda_handler(
                {EVALUATION_KEY: {**run, "time": "2026-11-24T09:00:00Z"}},
                LocalContext(world.evaluator_name, world.evaluator_arn, remaining_millis=300_000))
            return result
        finally:
            world._credentials_of(handler, evaluator=False)

    return world._as_function(call, None, evaluator=True)


def test_a_member_s_batch_events_are_forwarded_and_told_under_its_account(replayed):
    rows, _, _, _ = replayed
    told = [(r.get("account"), a["trigger"]) for r in rows for a in r["actions"]
            if a["kind"] == "notify" and a["outcome"] == "done"]
    assert (TEAM_A, "job:WaitingForCapacity") in told
    assert all(r.get("account") in (TEAM_A, TEAM_B) for r in rows if r.get("job_family") == "batch")
    assert not [a for r in rows for a in r["actions"] if a["outcome"] in ("failed", "invalid", "denied")]


def test_a_stop_goes_through_the_member_s_batch_and_leaves_the_other_member_s_job(replayed):
    rows, jobs, _, _ = replayed
    [stop] = [(r.get("account"), a) for r in rows for a in r["actions"] if a["kind"] == "stoptraining"]
    assert stop[0] == TEAM_A and stop[1]["outcome"] == "done", stop
    assert "TerminateServiceJob of service job llm-pretrain-nov24" in stop[1]["reason"]
    # Then team A's service job is terminated with the rule's reason, team B's (same id, same queue name) waits on
    assert jobs[TEAM_A]["status"] == "FAILED" and jobs[TEAM_A]["isTerminated"] is True
    assert "StalledTraining" in jobs[TEAM_A]["statusReason"]
    assert jobs[TEAM_B]["status"] == "RUNNABLE"


def test_the_member_template_forwards_batch_events_and_grants_its_executor_role_batch(replayed):
    _, _, member, _ = replayed
    resources = member["Resources"].values()
    [forward] = [r for r in resources if r["Type"] == "AWS::Events::Rule"]
    assert "aws.batch" in json.dumps(forward["Properties"]["EventPattern"])
    statements = [s for r in resources if r["Type"] == "AWS::IAM::Policy"
                  for s in r["Properties"]["PolicyDocument"]["Statement"]]
    actions = json.dumps([s["Action"] for s in statements])
    assert "batch:TerminateServiceJob" in actions and "batch:ListServiceJobs" in actions
    # and, the schedule on for the sweep alone, what the function needs there as before (a rule's stop of a training
    # job no queue runs: StopTrainingJob under the configuration's scope)
    assert "sagemaker:StopTrainingJob" in actions and "sagemaker:Search" not in actions


def test_the_evaluator_sweeps_each_member_s_queue_through_its_executor_role(replayed):
    # Given the schedule, one run per listed member account (no monitor rules: the sweep alone)
    _, _, _, sweeps = replayed
    assert set(sweeps) == {TEAM_A, TEAM_B}
    # Then team B's job, waiting RUNNABLE without a new event since it was submitted an hour before, is told once,
    # under its account; team A's (terminated) is not listed
    [row] = [job for job in sweeps[TEAM_B]["jobs"] if job.get("job_family") == "batch"]
    assert row["account"] == TEAM_B and [(a["trigger"], a["outcome"]) for a in row["actions"]] == [
        ("job:WaitingForCapacity", "done")]
    assert not [job for job in sweeps[TEAM_A]["jobs"] if job.get("job_family") == "batch"]
    assert "error" not in sweeps[TEAM_A]["evaluation"] and "error" not in sweeps[TEAM_B]["evaluation"]
