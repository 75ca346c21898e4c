"""The AWS Batch family (jobs/batch.py, issue 39): off unless batch_queues names queues; its events matched for those
queues only; a preemption told as one with its count, a failure after its attempts once with each attempt's reason,
a wait for capacity past a threshold; a Batch-made training job matched by its requested name, its outcomes held
back, and stopped through TerminateServiceJob, never StopTrainingJob."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import event as training_event
from builders import rule_status

from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions.contract import Arn
from rule_actions.records import StopNote
from rule_actions_cdk import plugins

ROOT = Path(__file__).resolve().parents[2]
PREEMPTED_LIFECYCLE = json.loads((ROOT / "events/batch/lifecycle-batch-preempted-then-stopped.json").read_text())
FAILED_LIFECYCLE = json.loads((ROOT / "events/batch/lifecycle-batch-failed-after-retries.json").read_text())
QUEUE = "gpu-training"
QUEUE_ARN = f"arn:aws:batch:us-east-1:123456789012:job-queue/{QUEUE}"
ATTEMPT = "AWSBatchllm-pretrain-nov242c4efeaef24eb8cb0adde4cbfc4a9a6b"  # the third attempt's training job
SERVICE_JOB_ID = "7d3c2f91-4b8e-4c1a-9f20-5e6a8b1d3c47"


def batch_event(lifecycle: list[dict[str, Any]], status: str, phase: str | None = None) -> dict[str, Any]:
    """The lifecycle's first Batch event of `status` (and of `phase`: the family's reading of it)."""
    for raw in lifecycle:
        if raw["source"] == "aws.batch" and raw["detail"]["status"] == status:
            if phase is None or registry.job_family(raw).parse(raw).secondary_status == phase:  # type: ignore[union-attr]
                return raw
    raise AssertionError(f"no {status} {phase} event")


def training_of(lifecycle: list[dict[str, Any]], name: str, status: str) -> dict[str, Any]:
    return next(raw for raw in lifecycle if raw["source"] == "aws.sagemaker"
                and raw["detail"]["TrainingJobName"] == name and raw["detail"]["TrainingJobStatus"] == status)


class Notifier:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def publish(self, to, message, chat=None):
        self.sent.append((message.subject, message.body))
        return "m-1"

    def publish_chat(self, notification):
        return "c-1"

    def ensure_subscription(self, protocol, endpoint):
        return "confirmed"

    def team_subscribed(self):
        return True


class Ledger:
    def __init__(self) -> None:
        self.stopped: list[tuple[str, str]] = []

    def once(self, key, work):
        return work()

    def mark_stopped(self, job_arn, by, at=None, **figures):
        self.stopped.append((job_arn, by))

    def stopped_by(self, job_arn):
        return None

    def stop_record(self, job_arn):
        return None

    def saw(self, job_arn, progress):
        return None


class Jobs:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def describe(self, api, job_name):
        self.calls.append((api.describe, job_name))
        return {}

    def in_progress(self, api, prefix):
        self.calls.append((api.list, prefix))
        return []

    def stop(self, api, key, token=None):
        self.calls.append((api.stop, key))
        return "stopped"


class ServiceJobs:
    """AWS Batch: one RUNNING service job in QUEUE whose latest attempt is ATTEMPT (or none)."""

    def __init__(self, running: bool = True) -> None:
        self.running, self.calls = running, []  # type: ignore[var-annotated]

    def running_job(self, training_job_arn, queues):
        self.calls.append(("ListServiceJobs", training_job_arn, queues))
        if not self.running or not training_job_arn.lower().endswith(ATTEMPT.lower()):
            return None
        return QUEUE_ARN, {"jobId": SERVICE_JOB_ID, "jobName": "llm-pretrain-nov24", "status": "RUNNING"}

    def terminate(self, job_id, reason):
        self.calls.append(("TerminateServiceJob", job_id, reason))
        return "terminated"

    def describe(self, job_id):
        return {}


class Prices:
    def products(self, instance_type, region):
        return {"Training": 1.0}


class Ports:
    def __init__(self, batch: ServiceJobs | None = None) -> None:
        self.jobs, self.notifier, self.ledger, self.batch = Jobs(), Notifier(), Ledger(), batch
        self.webhooks, self.region, self.prices, self.checkpoints, self.metrics, self.logs = (
            None, "us-east-1", Prices(), None, None, None)

    def in_account(self, account, region):
        return self


def acted(raw: dict[str, Any], config: dict[str, Any], ports: Ports) -> dict[str, Any]:
    """The function's result for one event (read, scoped, planned, carried out)."""
    event, found = pipeline.read_event(raw)
    return pipeline.act(event, found, Config.from_dict(config), ports)


ON = {"batch_queues": [QUEUE]}
TOLD = {**ON, "batch_job_outcomes": {"Preempted": ["notify"], "Failed": ["notify"], "WaitingForCapacity": ["notify"],
                                     "Terminated": ["notify"]}}


# --- on and off: the pattern, the grants, the function ----------------------------------------------------------


def test_the_family_off_matches_no_batch_event_and_grants_nothing_on_batch():
    # Given Batch outcomes with actions but no queue named (the family off), beside a training outcome
    config = Config.from_dict({"batch_job_outcomes": {"Preempted": ["notify"]}, "job_outcomes": {"Failed": ["notify"]}})
    # When the stack's pattern and grants are derived
    pattern, grants = plugins.event_pattern(config), plugins.job_grants(config)
    # Then no aws.batch event is matched and nothing is granted on Batch
    assert "aws.batch" not in json.dumps(pattern)
    assert not [a for g in grants for a in g.actions if a.startswith("batch:")]
    assert not [g for g in grants if "Batch" in g.sid]
    # and a Batch event that reaches the function is ignored, naming why
    result = acted(batch_event(PREEMPTED_LIFECYCLE, "RUNNABLE", "Preempted"), config.to_dict(), Ports())
    assert "the Batch family is off (batch_queues is empty)" in json.dumps(result)


def test_the_family_on_matches_its_queues_events_and_grants_batch():
    # Given the family on for one queue, its preemptions told, training outcomes too
    config = Config.from_dict({**ON, "batch_job_outcomes": {"Preempted": ["notify"]},
                               "job_outcomes": {"Failed": ["notify"]}})
    # When the pattern and grants are derived
    pattern, grants = plugins.event_pattern(config), plugins.job_grants(config)
    # Then the pattern is a $or of each source's, Batch's on that queue's training service jobs only
    [batch] = [p for p in pattern["$or"] if p["source"] == ["aws.batch"]]
    assert batch["detail-type"] == ["Batch Service Job State Change"]
    assert batch["detail"]["jobQueue"] == [{"suffix": f":job-queue/{QUEUE}"}]
    assert batch["detail"]["serviceJobType"] == ["SAGEMAKER_TRAINING"]
    # and the stop through Batch is granted on service jobs, the reads on "*" (they take no resource)
    by_action = {a: g.resources for g in grants for a in g.actions if a.startswith("batch:")}
    assert by_action == {"batch:TerminateServiceJob": (Arn("batch", "service-job", "*"),),
                         "batch:DescribeServiceJob": ("*",), "batch:ListServiceJobs": ("*",)}
    # and its cost reads the training jobs Batch names, only those
    [describe] = [g for g in grants if g.sid == "DescribeBatchTrainingJobs"]
    assert describe.resources == (Arn("sagemaker", "training-job", "awsbatch*"),)


def test_a_job_of_another_queue_is_ignored():
    # Given the family on for another queue
    raw = batch_event(PREEMPTED_LIFECYCLE, "RUNNABLE", "Preempted")
    # When its event reaches the function
    result = acted(raw, {"batch_queues": ["cpu-queue"], "batch_job_outcomes": {"Preempted": ["notify"]}}, Ports())
    # Then it is ignored, naming the queue
    assert f"its job queue {QUEUE} is not in batch_queues" in json.dumps(result)


def test_a_queue_is_named_by_its_name_or_its_arn():
    for queues in ([QUEUE], [QUEUE_ARN]):
        ports = Ports()
        acted(batch_event(PREEMPTED_LIFECYCLE, "RUNNABLE", "Preempted"), {**TOLD, "batch_queues": queues}, ports)
        assert len(ports.notifier.sent) == 1, queues


def test_a_queue_that_is_neither_name_nor_arn_is_refused():
    with pytest.raises(Exception, match="batch_queues"):
        Config.from_dict({"batch_queues": ["gpu queue"]})


# --- what is told ------------------------------------------------------------------------------------------------


def test_a_preemption_is_told_as_one_with_its_count_never_as_a_stop_by_someone():
    # Given the family on, telling preemptions, and training jobs' Stopped outcomes told too
    config = {**TOLD, "job_outcomes": {"Stopped": ["notify"]}}
    ports = Ports()
    # When Batch requeues the preempted job, and the preempted attempt's training job reports Stopped
    acted(batch_event(PREEMPTED_LIFECYCLE, "RUNNABLE", "Preempted"), config, ports)
    attempt = training_of(PREEMPTED_LIFECYCLE, "AWSBatchllm-pretrain-nov244f005d2bc75229f27d8176b88bf6e95a", "Stopped")
    held = acted(attempt, config, ports)
    # Then one message tells the preemption with its count
    [(subject, body)] = ports.notifier.sent
    assert "Batch service job preempted" in subject
    assert "Preempted: 1 time(s)" in body and "not stopped by anyone" in body
    assert "stopped by someone" not in body and "by a person" not in body
    # and the attempt's Stopped is held back for its service job, naming why
    assert "an attempt of an AWS Batch service job" in json.dumps(held)


def test_a_job_failed_after_its_attempts_is_told_once_with_each_attempts_reason():
    ports = Ports()
    acted(batch_event(FAILED_LIFECYCLE, "FAILED"), TOLD, ports)
    [(subject, body)] = ports.notifier.sent
    assert "Batch service job failed" in subject
    assert "Attempts (3):" in body
    reasons = [a["statusReason"] for a in batch_event(FAILED_LIFECYCLE, "FAILED")["detail"]["attempts"]]
    assert len(reasons) == 3
    for reason in reasons:
        assert reason.splitlines()[0][:60] in body


@pytest.mark.parametrize(("minutes", "told"), [(0, True), (5, True), (60 * 24, False)])
def test_a_wait_for_capacity_is_told_past_the_threshold(minutes, told):
    # Given the capacity wait of the sample (its first attempt failed for capacity about 9 minutes in)
    raw = batch_event(PREEMPTED_LIFECYCLE, "RUNNABLE", "WaitingForCapacity")
    ports = Ports()
    # When it reaches the function with a threshold
    result = acted(raw, {**TOLD, "batch_wait_alert_minutes": minutes}, ports)
    # Then it is told, with the status reason and how long it waited, only past the threshold
    if told:
        [(subject, body)] = ports.notifier.sent
        assert "waiting for capacity" in subject and "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY" in body
        assert "Waiting for:" in body
    else:
        assert ports.notifier.sent == []
        assert "less than batch_wait_alert_minutes" in json.dumps(result)


def test_a_termination_by_rule_actions_is_told_with_the_reason_naming_the_rule():
    ports = Ports()
    acted(batch_event(PREEMPTED_LIFECYCLE, "FAILED"), TOLD, ports)
    [(subject, body)] = ports.notifier.sent
    assert "terminated" in subject and "StalledTraining" in body


def test_a_termination_of_this_stacks_own_stop_is_not_told_a_second_time():
    # Given the ledger's record that this stack stopped the job's latest attempt (its stop through Batch)
    terminated = batch_event(PREEMPTED_LIFECYCLE, "FAILED")
    latest = terminated["detail"]["latestAttempt"]["serviceResourceId"]["value"]
    ports = Ports()
    ports.ledger.stop_record = lambda arn: StopNote("rule StalledTraining of " + ATTEMPT, (), "") \
        if arn == latest.lower() else None
    # When the service job's termination arrives
    result = acted(terminated, TOLD, ports)
    # Then its Terminated outcome is skipped, naming the stop, and nothing is sent: the finding told it
    [action] = [a for r in [result] for a in r["actions"]]
    assert (action["trigger"], action["outcome"]) == ("job:Terminated", "skipped")
    assert action["reason"] == f"stopped by this stack (rule StalledTraining of {ATTEMPT}): no second alert"
    assert ports.notifier.sent == []


def test_batch_statuses_going_back_to_runnable_are_not_late_but_an_event_after_the_end_is():
    family = registry.job_family(PREEMPTED_LIFECYCLE[0])
    assert family is not None
    running = family.parse(batch_event(PREEMPTED_LIFECYCLE, "RUNNING")).progress
    requeued = family.parse(batch_event(PREEMPTED_LIFECYCLE, "RUNNABLE", "Preempted")).progress
    ended = family.parse(batch_event(PREEMPTED_LIFECYCLE, "FAILED")).progress
    assert not running.after(requeued)  # the requeue after a preemption is no late event
    assert ended.after(requeued) and ended.after(running)


# --- a Batch-made training job: its requested name, its stop ------------------------------------------------------


def test_a_prefix_rule_matches_a_batch_made_job_by_its_requested_name():
    training = registry.monitored_family()
    on = Config.from_dict({**ON, "training_job_prefixes": ["llm-pretrain"]})
    off = Config.from_dict({"training_job_prefixes": ["llm-pretrain"]})
    assert training.in_scope(on, ATTEMPT) and not training.in_scope(off, ATTEMPT)
    assert not training.in_scope(on, "AWSBatchsft-llama-nov24503bf44d3b72b80e64cae96db9bfcc6b")
    # and the stack's pattern matches the names Batch makes of the prefix
    assert {"prefix": "AWSBatchllm-pretrain"} in training.pattern_scope(on)["TrainingJobName"]
    assert {"prefix": "AWSBatchllm-pretrain"} not in training.pattern_scope(off)["TrainingJobName"]


def stalled(action_json: str | None = None) -> dict[str, Any]:
    """A rule finding on the third attempt's training job (Training)."""
    from builders import rule_config

    raw = training_event(job=ATTEMPT, debug=[rule_status("StalledTraining", job=ATTEMPT)],
                         debug_configs=[rule_config("StalledTraining", action_json)] if action_json else None)
    return raw


def test_a_stop_of_a_batch_made_job_goes_through_terminate_service_job_never_stop_training_job():
    # Given the family on and a rule that stops the job
    batch = ServiceJobs()
    ports = Ports(batch)
    # When the rule's finding on a Batch-made training job is acted on
    result = acted(stalled(), {**ON, "rules": {"StalledTraining": ["stoptraining"]}}, ports)
    # Then its service job is terminated with a reason naming the rule, and StopTrainingJob is never called
    [terminate] = [c for c in batch.calls if c[0] == "TerminateServiceJob"]
    assert terminate[1] == SERVICE_JOB_ID and "StalledTraining" in terminate[2]
    assert not [c for c in ports.jobs.calls if c[0] == "StopTrainingJob"]
    # and the row says it went through Batch
    [row] = [a for a in result["actions"] if a["kind"] == "stoptraining"]
    assert row["outcome"] == "done" and "TerminateServiceJob" in row["reason"] and "never StopTrainingJob" in row["reason"]
    assert ports.ledger.stopped and ports.ledger.stopped[0][0].endswith(ATTEMPT.lower())


def test_a_stop_naming_the_requested_name_stops_that_job_through_batch():
    batch = ServiceJobs()
    ports = Ports(batch)
    result = acted(stalled('[{"name": "stoptraining", "training_job_prefix": "llm-pretrain-nov24"}]'),
                   {**ON, "honor_action_json": True, "rules": {}}, ports)
    rows = [a for a in result["actions"] if a["kind"] == "stoptraining"]
    assert [r["outcome"] for r in rows] == ["done"], rows
    assert [c[0] for c in batch.calls] == ["ListServiceJobs", "TerminateServiceJob"]
    assert not [c for c in ports.jobs.calls if c[0] in ("StopTrainingJob", "ListTrainingJobs")]


def test_a_batch_made_job_no_followed_queue_runs_is_not_stopped_at_all():
    batch = ServiceJobs(running=False)
    ports = Ports(batch)
    result = acted(stalled(), {**ON, "rules": {"StalledTraining": ["stoptraining", "stop"]}}, ports)
    rows = [a for a in result["actions"] if a["kind"] in ("stoptraining", "stop")]
    assert rows and all(r["outcome"] == "skipped" and "run by no service job of batch_queues" in r["reason"]
                        for r in rows), rows
    assert not [c for c in batch.calls if c[0] == "TerminateServiceJob"]
    assert not [c for c in ports.jobs.calls if c[0] == "StopTrainingJob"]


class RecordingLedger(Ledger):
    """A ledger that keeps what it recorded: a second claim of a key is a duplicate."""

    def __init__(self) -> None:
        super().__init__()
        self.records: dict[str, dict[str, Any]] = {}

    def once(self, key, work):
        name = json.dumps(key, sort_keys=True)
        if name in self.records:
            return {**self.records[name], "duplicate": True, "ledger_expires": "later"}
        self.records[name] = work()
        return self.records[name]


def test_a_batch_made_job_no_followed_queue_runs_is_said_not_stopped_once_over_repeated_findings():
    # Given a hung Batch-made job that no followed queue's running service job runs, found at two runs
    ports = Ports(ServiceJobs(running=False))
    ports.ledger = RecordingLedger()
    config = {**ON, "rules": {"StalledTraining": ["stoptraining", "stop"]}}
    first, again = (acted(stalled(), config, ports) for _ in range(2))
    # Then the decision not to stop is said at the first (a decision that stands), and reported as such after
    outcomes = [[a["outcome"] for a in r["actions"] if a["kind"] in ("stoptraining", "stop")] for r in (first, again)]
    assert outcomes == [["skipped", "skipped"], ["duplicate", "duplicate"]]


def test_with_the_family_off_a_batch_made_job_is_stopped_as_any_training_job():
    ports = Ports()
    acted(stalled(), {"rules": {"StalledTraining": ["stoptraining"]}}, ports)
    assert ("StopTrainingJob", ATTEMPT) in ports.jobs.calls


# --- cost: the sum of its attempts' billed time -------------------------------------------------------------------


class Described(Jobs):
    """SageMaker answering DescribeTrainingJob with each attempt's own description (its last event's detail)."""

    def __init__(self, lifecycle: list[dict[str, Any]]) -> None:
        super().__init__()
        self.found = {raw["detail"]["TrainingJobName"]: raw["detail"] for raw in lifecycle
                      if raw["source"] == "aws.sagemaker"}

    def describe(self, api, job_name):
        self.calls.append((api.describe, job_name))
        if job_name not in self.found:
            raise RuntimeError(f"ValidationException: {job_name} not found")
        return self.found[job_name]


def test_a_batch_job_costs_the_sum_of_its_attempts_billed_time():
    # Given the job that failed after three attempts, each attempt's training job described, a price of $1/h
    ports = Ports()
    ports.jobs = Described(FAILED_LIFECYCLE)
    # When its failure is told
    acted(batch_event(FAILED_LIFECYCLE, "FAILED"), {**TOLD, "prices": {"price_list": False,
                                                                      "usd_per_hour": {"ml.g5.12xlarge": 1.0}}}, ports)
    # Then its cost is the three attempts' billed time at that rate (each read by its Batch-made name)
    billed = [d["BillableTimeInSeconds"] * d["ResourceConfig"]["InstanceCount"] for d in ports.jobs.found.values()]
    [(_, body)] = ports.notifier.sent
    assert f"${sum(billed) / 3600:,.2f}" in body
    assert sorted(name for call, name in ports.jobs.calls if call == "DescribeTrainingJob") == sorted(ports.jobs.found)


def test_an_attempt_that_cannot_be_read_is_left_out_of_the_cost_and_said():
    ports = Ports()
    ports.jobs = Described([raw for raw in FAILED_LIFECYCLE
                            if raw["detail"].get("TrainingJobName") != "AWSBatchsft-llama-nov24b2eccc712c66d7cf3232cdcea89d6c53"])
    acted(batch_event(FAILED_LIFECYCLE, "FAILED"), {**TOLD, "prices": {"price_list": False,
                                                                      "usd_per_hour": {"ml.g5.12xlarge": 1.0}}}, ports)
    [(_, body)] = ports.notifier.sent
    assert "attempt AWSBatchsft-llama-nov24b2eccc712c66d7cf3232cdcea89d6c53 not counted" in body
