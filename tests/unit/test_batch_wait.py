"""A Batch job that waits in its queue without a new event (issue 39, leftovers B): on the stack's schedule the Batch
family sweeps each followed queue's RUNNABLE jobs (ListServiceJobs) and tells a job waiting past
batch_wait_alert_minutes once, to batch_job_outcomes.WaitingForCapacity, under the event route's ledger key (an event
and the sweep never tell it twice); a job under the threshold, or gone from RUNNABLE before it, is not told, and each
decision not to tell is said once; a queue not configured is never listed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions.records import EvaluationRequest, EvaluationRun
from rule_actions_cdk import plugins

ROOT = Path(__file__).resolve().parents[2]
LIFECYCLE = json.loads((ROOT / "events/batch/lifecycle-batch-preempted-then-stopped.json").read_text())
QUEUE = "gpu-training"
OTHER_QUEUE = "cpu-batch"
CONFIG = {"batch_queues": [QUEUE], "batch_job_outcomes": {"WaitingForCapacity": ["notify"]},
          "batch_wait_alert_minutes": 30}
[CAPACITY_EVENT] = [raw for raw in LIFECYCLE if raw["source"] == "aws.batch"
                    and raw["detail"].get("statusReason", "").startswith("CAPACITY:")]
SUBMITTED_MS = CAPACITY_EVENT["detail"]["createdAt"]


def summary(**more: Any) -> dict[str, Any]:
    """The sample job as ListServiceJobs lists it while it waits (its summary: no queue, no attempts list)."""
    detail = CAPACITY_EVENT["detail"]
    found = {key: detail[key] for key in ("jobArn", "jobId", "jobName", "serviceJobType", "status", "statusReason",
                                          "createdAt", "shareIdentifier")}
    return {**found, **more}


def minutes_after_submission(minutes: float) -> int:
    return SUBMITTED_MS // 1000 + int(minutes * 60)


class Ledger:
    """The ledger's once: each key's work done once, a duplicate said after."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}

    def once(self, key, work):
        name = json.dumps(key, sort_keys=True)
        if name in self.records:
            return {**self.records[name], "duplicate": True, "ledger_expires": "2026-12-01T00:00:00Z"}
        self.records[name] = dict(work())
        return self.records[name]

    def saw(self, job_arn, progress):
        return None

    def stop_record(self, job_arn):
        return None

    def stopped_by(self, job_arn):
        return None


class Notifier:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def publish(self, to, message, chat=None):
        self.sent.append((message.subject, message.body))
        return "m-1"

    def publish_chat(self, notification):
        return "c-1"

    def team_subscribed(self):
        return True


class ServiceJobs:
    """AWS Batch: what ListServiceJobs lists for (queue, status), each call kept."""

    def __init__(self, listed: dict[tuple[str, str], list[dict[str, Any]]] | None = None,
                 fails: bool = False) -> None:
        self.answers = listed or {}
        self.calls: list[tuple[str, str]] = []
        self.fails = fails

    def listed(self, queue, status):
        self.calls.append((queue, status))
        if self.fails:
            raise RuntimeError("AccessDeniedException: not authorized to perform batch:ListServiceJobs")
        return self.answers.get((queue, status), [])

    def running_job(self, training_job_arn, queues):
        return None

    def terminate(self, job_id, reason):
        raise AssertionError("a wait is told, never stopped")

    def describe(self, job_id):
        raise AssertionError("the sweep reads the listing only")


class Prices:
    def products(self, instance_type, region):
        return {}


class Jobs:
    def describe(self, api, job_name):
        return {}

    def running(self, api):
        return []


class Ports:
    def __init__(self, batch: ServiceJobs) -> None:
        self.batch, self.ledger, self.notifier = batch, Ledger(), Notifier()
        self.jobs, self.webhooks, self.region, self.prices = Jobs(), None, "us-east-1", Prices()
        self.checkpoints, self.metrics, self.logs, self.members = None, None, None, None

    def in_account(self, account, region):
        return self


def swept(config: dict[str, Any], ports: Ports, at: int) -> dict[str, Any]:
    """The result of one scheduled run at `at` (epoch seconds)."""
    request = EvaluationRequest(at, None, None)
    return pipeline.evaluate(request, Config.from_dict(config), ports, 60.0, {}).result  # type: ignore[arg-type]


def sweep_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for row in result["jobs"] if row.get("job_family") == "batch"]


def at_event(raw: dict[str, Any], config: dict[str, Any], ports: Ports) -> dict[str, Any]:
    event, found = pipeline.read_event(raw)
    return pipeline.act(event, found, Config.from_dict(config), ports)  # type: ignore[arg-type]


# --- told: past the threshold, once, with its reason and its wait ------------------------------------------------


def test_a_job_waiting_past_the_threshold_without_an_event_is_told_with_its_reason_and_wait():
    # Given a job RUNNABLE for want of capacity since 45 minutes, no event since
    batch = ServiceJobs({(QUEUE, "RUNNABLE"): [summary()]})
    ports = Ports(batch)
    # When the schedule runs
    result = swept(CONFIG, ports, minutes_after_submission(45))
    # Then it is told to WaitingForCapacity's actions, with the status reason and how long it has waited
    [(subject, body)] = ports.notifier.sent
    assert "waiting for capacity" in subject and "llm-pretrain-nov24" in subject
    assert CAPACITY_EVENT["detail"]["statusReason"][:40] in body
    assert "Waiting for: 45 min" in body and "scheduled sweep" in body
    [row] = sweep_rows(result)
    assert [(a["trigger"], a["outcome"]) for a in row["actions"]] == [("job:WaitingForCapacity", "done")]
    # And only the configured queue's RUNNABLE jobs were listed
    assert batch.calls == [(QUEUE, "RUNNABLE")]


def test_the_attempt_of_a_job_waiting_again_is_never_said_running():
    # Given a job RUNNABLE again after its attempt failed for capacity: the listing names that attempt, no reason
    arn = next(a["serviceResourceId"]["value"] for raw in LIFECYCLE if raw["source"] == "aws.batch"
               for a in raw["detail"].get("attempts") or [])
    ports = Ports(ServiceJobs({(QUEUE, "RUNNABLE"): [
        summary(latestAttempt={"serviceResourceId": {"name": "TrainingJobArn", "value": arn}})]}))
    # When the sweep tells its wait
    swept(CONFIG, ports, minutes_after_submission(45))
    # Then its attempt is said ended, the listing giving no reason, not running: a waiting job runs none
    [(_subject, body)] = ports.notifier.sent
    [line] = [line for line in body.splitlines() if arn.rsplit("/", 1)[1] in line and line.strip().startswith("1.")]
    assert line.endswith(": ended (ListServiceJobs gives no reason)"), line


def test_a_job_with_no_status_reason_is_told_as_waiting_its_turn():
    # Given a job RUNNABLE without a status reason (its share or priority keeps it queued)
    ports = Ports(ServiceJobs({(QUEUE, "RUNNABLE"): [summary(statusReason=None)]}))
    swept(CONFIG, ports, minutes_after_submission(90))
    [(_subject, body)] = ports.notifier.sent
    assert "Status reason: none given by AWS Batch" in body and "Waiting for: 1 h 30 min" in body


def test_repeated_sweeps_and_a_later_event_tell_it_once():
    # Given a job told by a sweep past the threshold
    ports = Ports(ServiceJobs({(QUEUE, "RUNNABLE"): [summary()]}))
    swept(CONFIG, ports, minutes_after_submission(31))
    # When later sweeps list it again, and then Batch's own capacity event for it arrives
    again = swept(CONFIG, ports, minutes_after_submission(36))
    later = at_event({**CAPACITY_EVENT, "time": "2026-11-24T09:10:00Z"}, {**CONFIG, "batch_wait_alert_minutes": 5},
                     ports)
    # Then it was told once: the next sweep and the event find the ledger's record (the same key)
    assert len(ports.notifier.sent) == 1
    assert [a["outcome"] for a in sweep_rows(again)[0]["actions"]] == ["duplicate"]
    assert [a["outcome"] for a in later["actions"]] == ["duplicate"]


def test_a_job_told_by_its_event_is_not_told_again_by_the_sweep():
    # Given the capacity event told (a threshold it passed)
    ports = Ports(ServiceJobs({(QUEUE, "RUNNABLE"): [summary()]}))
    config = {**CONFIG, "batch_wait_alert_minutes": 5}
    first = at_event(CAPACITY_EVENT, config, ports)
    assert [a["outcome"] for a in first["actions"]] == ["done"]
    # When the sweep lists the job still waiting
    result = swept(config, ports, minutes_after_submission(20))
    # Then nothing more is sent
    assert len(ports.notifier.sent) == 1
    assert [a["outcome"] for a in sweep_rows(result)[0]["actions"]] == ["duplicate"]


# --- not told: under the threshold, gone from RUNNABLE, another queue ----------------------------------------------


def test_under_the_threshold_it_is_not_told_and_that_is_said_once():
    # Given a job waiting since 10 minutes, with a threshold of 30
    ports = Ports(ServiceJobs({(QUEUE, "RUNNABLE"): [summary()]}))
    # When two sweeps run under the threshold
    first = swept(CONFIG, ports, minutes_after_submission(10))
    second = swept(CONFIG, ports, minutes_after_submission(15))
    # Then nothing is sent; the first says why (its wait, the threshold), the second that it was said
    assert ports.notifier.sent == []
    [action] = sweep_rows(first)[0]["actions"]
    assert action["outcome"] == "skipped"
    assert "10 min" in action["reason"] and "less than batch_wait_alert_minutes (30 min)" in action["reason"]
    [again] = sweep_rows(second)[0]["actions"]
    assert again["outcome"] == "duplicate" and "already reported" in again["reason"]


def test_a_job_that_left_runnable_before_the_threshold_is_never_told():
    # Given a job seen waiting under the threshold
    batch = ServiceJobs({(QUEUE, "RUNNABLE"): [summary()]})
    ports = Ports(batch)
    swept(CONFIG, ports, minutes_after_submission(10))
    # When it is scheduled (no longer RUNNABLE) before the threshold, and the schedule runs past it
    batch.answers = {}
    result = swept(CONFIG, ports, minutes_after_submission(60))
    # Then it is not told: no longer listed, no row
    assert ports.notifier.sent == []
    assert sweep_rows(result) == []


def test_a_queue_not_configured_is_never_listed():
    # Given a job waiting long in a queue batch_queues does not name
    batch = ServiceJobs({(OTHER_QUEUE, "RUNNABLE"): [summary()], (QUEUE, "RUNNABLE"): []})
    ports = Ports(batch)
    swept(CONFIG, ports, minutes_after_submission(600))
    # Then only the configured queue was asked, and nothing told
    assert {queue for queue, _ in batch.calls} == {QUEUE}
    assert ports.notifier.sent == []


def test_a_queue_given_by_arn_is_listed_by_its_arn_and_its_job_is_in_scope():
    arn = f"arn:aws:batch:us-east-1:123456789012:job-queue/{QUEUE}"
    batch = ServiceJobs({(arn, "RUNNABLE"): [summary()]})
    ports = Ports(batch)
    swept({**CONFIG, "batch_queues": [arn]}, ports, minutes_after_submission(45))
    assert batch.calls == [(arn, "RUNNABLE")]
    assert len(ports.notifier.sent) == 1


def test_a_listing_that_fails_is_the_run_s_error_naming_the_queue():
    ports = Ports(ServiceJobs(fails=True))
    result = swept(CONFIG, ports, minutes_after_submission(45))
    assert "ListServiceJobs of queue gpu-training (RUNNABLE) failed" in result["evaluation"]["error"]
    assert "AccessDeniedException" in result["evaluation"]["error"]
    assert ports.notifier.sent == []


def test_only_the_first_shard_sweeps():
    # Given monitor rules in two shards beside the sweep
    config = Config.from_dict({**CONFIG, "monitor": {"rules": {}, "shards": 2}})
    listed = {}
    for shard in (0, 1):
        batch = ServiceJobs({(QUEUE, "RUNNABLE"): [summary()]})
        run = EvaluationRun(EvaluationRequest(minutes_after_submission(45), None, None, shard, 2),
                            minutes_after_submission(45), lambda: True, {}, "us-east-1", 1)
        # When each shard's run evaluates
        report = pipeline.answered(registry.evaluate(run, config), Ports(batch))  # type: ignore[arg-type]
        listed[shard] = (batch.calls, [job.job for job in report.jobs])
    # Then the queue is listed once per account and region, by the first shard
    assert listed[0] == ([(QUEUE, "RUNNABLE")], ["llm-pretrain-nov24"])
    assert listed[1] == ([], [])


# --- when the sweep runs: the schedule -------------------------------------------------------------------------


@pytest.mark.parametrize(("config", "sweeps"), [
    (CONFIG, True),
    ({**CONFIG, "batch_queues": []}, False),  # the family off
    ({**CONFIG, "batch_job_outcomes": {"Preempted": ["notify"]}}, False),  # no WaitingForCapacity actions
    ({**CONFIG, "batch_job_outcomes": {"WaitingForCapacity": []}}, False),
])
def test_the_schedule_exists_for_the_sweep_only_when_a_wait_can_be_told(config, sweeps):
    # Given a configuration without monitor rules
    parsed = Config.from_dict(config)
    # Then the schedule exists only when the family is on and WaitingForCapacity has actions
    schedule = plugins.schedule(parsed)
    assert (schedule is not None) is sweeps
    assert bool(registry.sweeping(parsed)) is sweeps
    if sweeps:
        assert schedule is not None and schedule.every_minutes == 5 and len(schedule.runs) == 1


def test_the_sweep_s_event_says_when_it_was_seen():
    # The state change read from a listing is the job's, at the run's time, live (nothing describes it again)
    family = registry.job_family(CAPACITY_EVENT)
    assert family is not None
    at = minutes_after_submission(45)
    event = family.waiting(summary(), QUEUE, at)  # type: ignore[attr-defined]
    assert event.job_arn == CAPACITY_EVENT["detail"]["jobArn"]
    assert event.detail["jobQueue"] == CAPACITY_EVENT["detail"]["jobQueue"]
    assert event.time == datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")
    assert event.live and event.secondary_status == "WaitingForCapacity" and event.transitions == ()


# --- organization mode: the sweep in each member account ---------------------------------------------------------

ORGANIZATION = {"org_id": "o-a1b2c3d4e5", "accounts": ["111122223333", "444455556666"],
                "central_account": "123456789012", "central_region": "us-east-1"}


def test_in_organization_mode_each_member_account_is_swept_through_its_ports():
    # Given the sweep in organization mode, no monitor rules
    config = Config.from_dict({**CONFIG, "organization": ORGANIZATION})
    # Then the schedule runs once per member account, in the central region
    schedule = plugins.schedule(config)
    assert schedule is not None
    assert [(run["account"], run["region"]) for run in schedule.runs] == [
        ("111122223333", "us-east-1"), ("444455556666", "us-east-1")]
    # And a run lists that account's queues through its ports (its executor role)
    listed = json.loads(json.dumps(summary()).replace("123456789012", "111122223333"))  # a job of that account
    member = Ports(ServiceJobs({(QUEUE, "RUNNABLE"): [listed]}))
    central = Ports(ServiceJobs())
    asked: list[tuple[str, str]] = []

    def in_account(account, region):
        asked.append((account, region))
        return member

    central.in_account = in_account  # type: ignore[method-assign]
    request = EvaluationRequest(minutes_after_submission(45), "111122223333", "us-east-1")
    result = pipeline.evaluate(request, config, central, 60.0, {}).result  # type: ignore[arg-type]
    assert asked and set(asked) == {("111122223333", "us-east-1")}
    assert central.batch.calls == [] and member.batch.calls == [(QUEUE, "RUNNABLE")]
    # And the waiting job is told under its account
    [row] = sweep_rows(result)
    assert row["account"] == "111122223333"
    assert [a["outcome"] for a in row["actions"]] == ["done"] and len(member.notifier.sent) == 1


def test_an_organization_without_accounts_cannot_sweep_and_says_which_field():
    from rule_actions.config import ConfigError

    with pytest.raises(ConfigError, match=r"batch_job_outcomes: organization mode sweeps"):
        Config.from_dict({**CONFIG, "organization": {**ORGANIZATION, "accounts": []}})
    # without WaitingForCapacity actions nothing is swept: valid
    Config.from_dict({**CONFIG, "batch_job_outcomes": {"Failed": ["notify"]},
                      "organization": {**ORGANIZATION, "accounts": []}})
