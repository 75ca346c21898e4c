"""The AWS Batch samples (events/batch/): each Batch event's detail is DescribeServiceJob's answer less tags and
serviceRequestPayload (as AWS Batch documents its events), in AWS's order; each lifecycle's states and attempts are
consistent, its attempts' training jobs are named as Batch names them and send their own state changes; and
jobs/batch_facts.py reads what a team must be told from them. No family reads them yet (issue 39, part 2)."""

from __future__ import annotations

import itertools
import json
import uuid
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from builders import ACCOUNT, EVENTS, REGION
from shapes import conforms

from rule_actions.jobs import batch_facts as facts
from rule_actions_cli import timeline

FOLDER = EVENTS / "batch"
FILES = sorted(FOLDER.glob("*.json"))
OUTPUT = botocore.session.get_session().get_service_model("batch").operation_model("DescribeServiceJob").output_shape
NOT_IN_EVENTS = {"tags", "serviceRequestPayload"}  # AWS Batch User Guide, "Service job state change events"
BATCH, TRAINING = "Batch Service Job State Change", "SageMaker Training Job State Change"
# A status -> the statuses its job's next event may carry (a retry or a preemption goes back to RUNNABLE).
NEXT = {"RUNNABLE": {"SCHEDULED", "FAILED"}, "SCHEDULED": {"STARTING", "RUNNABLE", "FAILED"},
        "STARTING": {"RUNNING", "RUNNABLE", "FAILED"}, "RUNNING": {"RUNNABLE", "SUCCEEDED", "FAILED"}}


def events(path: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(path.read_text())
    return found


def batch_events(path: Path) -> list[dict[str, Any]]:
    return [event for event in events(path) if event["detail-type"] == BATCH]


def test_the_samples_cover_capacity_preemption_a_stop_through_batch_and_retries():
    # Given every Batch event of the folder
    details = [event["detail"] for path in FILES for event in batch_events(path)]
    # Then they show a wait for capacity, a preemption, a job terminated with a reason naming a rule, and one that
    # failed after all its attempts (each with its reason)
    assert any(facts.waiting_for_capacity(d) for d in details)
    assert any(facts.preemptions(d) == 1 and d["status"] == "RUNNABLE" for d in details)
    assert any(d.get("isTerminated") and d["statusReason"].startswith("rule-actions: StalledTraining") for d in details)
    failed = [d for d in details if d["status"] == "FAILED" and not d["isTerminated"]]
    assert failed and all(len(d["attempts"]) == d["retryStrategy"]["attempts"] for d in failed)
    assert all(a.status_reason for d in failed for a in facts.attempts(d))


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_batch_events_are_describe_service_job_s_answer_less_tags_and_payload(path: Path):
    for index, event in enumerate(batch_events(path)):
        # Given a Batch event of the sample
        detail = event["detail"]
        # Then its envelope is AWS's, and its detail DescribeServiceJob's shape, in its order, without tags or payload
        assert (event["source"], event["account"], event["region"]) == ("aws.batch", ACCOUNT, REGION), index
        assert str(uuid.UUID(event["id"])) == event["id"] and event["resources"] == [detail["jobArn"]], index
        assert conforms(detail, OUTPUT, f"event {index}") == []
        assert not NOT_IN_EVENTS & set(detail) and list(detail) == sorted(detail), index
        assert facts.job_id(detail["jobArn"]) == detail["jobId"] and facts.queue_name(detail["jobQueue"]), index


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_each_lifecycle_moves_as_batch_moves_its_jobs(path: Path):
    # Given a lifecycle's Batch events, in time order
    details = [event["detail"] for event in batch_events(path)]
    times = [event["time"] for event in events(path)]
    assert times == sorted(times)
    # Then its states follow Batch's (no event for the submission: the first is RUNNABLE), it ends once, and its
    # attempts only grow: each event lists the ones before it, its latest attempt last
    assert details[0]["status"] == "RUNNABLE" and details[-1]["status"] in ("SUCCEEDED", "FAILED")
    for before, after in itertools.pairwise(details):
        assert after["status"] in NEXT[before["status"]], (before["status"], after["status"])
        assert facts.training_job_arns(after)[:len(facts.training_job_arns(before))] == facts.training_job_arns(before)
    for detail in details:
        if detail["attempts"]:
            assert detail["latestAttempt"]["serviceResourceId"] == detail["attempts"][-1]["serviceResourceId"]


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_each_attempt_is_a_training_job_named_by_batch_with_its_own_events(path: Path):
    # Given the lifecycle's last Batch event and its training jobs' own events
    last = batch_events(path)[-1]["detail"]
    training = [event["detail"] for event in events(path) if event["detail-type"] == TRAINING]
    # Then every attempt's training job is Batch-made from one requested name, and sends its own events, ending as
    # its attempt says; no other training job is in the file
    arns = facts.training_job_arns(last)
    names = {d["TrainingJobArn"]: d["TrainingJobName"] for d in training}
    assert set(names) == set(arns)
    assert len({facts.requested_name(name) for name in names.values()}) == 1 and None not in {
        facts.requested_name(name) for name in names.values()}
    assert all(facts.requested_name(arn.rpartition("/")[2]) == facts.requested_name(names[arn]).lower()  # type: ignore[union-attr]
               for arn in arns)
    for attempt in facts.attempts(last):
        final = [d for d in training if d["TrainingJobArn"] == attempt.training_job_arn][-1]
        assert final["TrainingJobStatus"] in ("Failed", "Stopped", "Stopping", "Completed")
        if final["TrainingJobStatus"] == "Failed":
            assert attempt.status_reason.endswith(final["FailureReason"])


TIMELINES = sorted((EVENTS / "timelines" / "batch").glob("*.json"))


@pytest.mark.parametrize("path", TIMELINES, ids=[path.name for path in TIMELINES])
def test_a_batch_timeline_draft_is_a_timeline_plus_its_batch_section(path: Path):
    # Given a draft timeline of a Batch-queued job
    data = json.loads(path.read_text())
    section = data.pop("batch")
    # When the timeline reader reads it without its batch section (the part 2 reader takes the section)
    found, problems = timeline.read(data, path.name)
    # Then it is a valid timeline whose jobs are the attempts' training jobs, each Batch-made from the requested name
    assert problems == [] and found is not None
    assert {facts.requested_name(job.name) for job in found.jobs} == {section["requested_name"]}
    # And the section's states follow Batch's, scheduling each attempt once, in order, at its training job's creation
    # (the states of the job a restart submits again after its own, from RUNNABLE: Batch sends no SUBMITTED)
    states, again = section["states"], section.get("resubmitted", [])
    for played in (states, again):
        assert [s["at"] for s in played] == sorted(s["at"] for s in played)
        assert not played or played[0]["status"] == "RUNNABLE"
        for before, after in itertools.pairwise(played):
            assert after["status"] in NEXT[before["status"]], (before, after)
    assert not again or again[0]["at"] > states[-1]["at"]
    scheduled = [(s["attempt"], s["at"]) for s in (*states, *again) if "attempt" in s]
    assert scheduled == [(n, found.jobs[n].phases[0][0]) for n in range(len(found.jobs))]
    assert len(scheduled) - len([s for s in again if "attempt" in s]) <= section["retry_attempts"] + sum(
        1 for s in states if s.get("preempted"))
