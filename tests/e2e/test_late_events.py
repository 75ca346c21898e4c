"""A late event (EventBridge keeps no order) never moves the replay's embedded job back: a finding that arrives after
the job's Completed event, or after its owner stopped it, finds it so, and its stop is skipped saying so, never done
(issue 36, items 3 and 4); the samples of late findings in events/ act on nothing."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
from builders import event, rule_status

from rule_actions_cli.main import main


def test_a_finding_after_the_completed_event_stops_nothing_and_the_job_stays_completed(tmp_path, capsys):
    # Given the job's Completed event, then a finding about it sent while it ran but delivered after
    job = "late-finding-2026-11-24-001"
    completed = event(job=job, status="Completed", secondary="Completed", event_id="e-completed")
    late = event(job=job, debug=[rule_status("Overfit", job=job)], event_id="e-late")
    (tmp_path / "events.json").write_text(json.dumps([completed, late]))
    (tmp_path / "config.json").write_text(json.dumps({"rules": {"Overfit": ["stoptraining"]}}))
    # When both are replayed in the order they arrived
    code = main(["replay", "--json", "--config", str(tmp_path / "config.json"), str(tmp_path / "events.json")])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # Then the late finding's stop is skipped, the job Completed: never a stop done on a finished job
    assert code == 0
    stops = [a for r in rows for a in r.get("actions", []) if a["kind"] == "stoptraining"]
    [stop] = stops
    assert stop["outcome"] == "skipped"
    assert stop["reason"].startswith(f"nothing to stop: {job} is already Completed (at ")


ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-webhook-config.json"


def replayed(capsys, name):
    code = main(["replay", "--json", "--config", str(DEMO), str(ROOT / "events" / name)])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize(("name", "job", "outcome"), [
    ("late-finding-after-completed.json", "BERT-Late-After-Done", "Completed"),
    ("late-finding-after-owner-stop.json", "BERT-Late-After-Stop", "Stopping"),
])
def test_a_sample_late_finding_acts_on_nothing(capsys, name, job, outcome):
    # Given a job's events delivered out of order: the finding it sent while it trained comes after the job ended
    # (completed; stopped by its owner)
    # When the sample is replayed with the demo configuration
    code, rows = replayed(capsys, name)
    # Then nothing is stopped: the stop is skipped once, for the status the job had ended in, and every later copy
    # (the late finding's included) is a duplicate of that skip; no message is sent twice, none says it was stopped
    assert code == 0
    stops = [a for r in rows for a in r["actions"] if a["kind"] == "stoptraining"]
    assert [a["outcome"] for a in stops] == ["skipped"] + ["duplicate"] * (len(stops) - 1)
    assert stops[0]["reason"] == f"training job is {outcome}; only InProgress jobs are stopped"
    assert all(a["jobs"] == [] for a in stops)
    late = rows[-1]["actions"]
    assert late and {a["outcome"] for a in late} == {"duplicate"}
    done = Counter((a["trigger"], a["kind"]) for r in rows for a in r["actions"] if a["outcome"] == "done")
    assert done == Counter({("LossNotDecreasing", "email"): 1, ("LossNotDecreasing", "notify"): 1,
                            **({("job:Stopped", "notify"): 1} if outcome == "Stopping" else {})})
    assert not [a for r in rows for a in r["actions"] if "stopped " + job in a["reason"]]


def test_a_late_finding_alone_is_skipped_by_the_job_s_live_status_and_the_job_stays_stopped(tmp_path, capsys):
    # Given the owner's Stopped event (no action of its own), then a finding sent while the job ran
    job = "late-owner-stop-2026-11-24-002"
    stopped = event(job=job, status="Stopped", secondary="Stopped", event_id="e-stopped")
    late = event(job=job, debug=[rule_status("Overfit", job=job)], event_id="e-late")
    (tmp_path / "events.json").write_text(json.dumps([stopped, late, late]))
    (tmp_path / "config.json").write_text(json.dumps({"rules": {"Overfit": ["stoptraining", "notify"]}}))
    # When they are replayed in the order they arrived
    code = main(["replay", "--json", "--config", str(tmp_path / "config.json"), str(tmp_path / "events.json")])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # Then the stop is skipped naming the job's live status (the embedded job stayed Stopped), said once
    assert code == 0
    stops = [a for r in rows for a in r.get("actions", []) if a["kind"] == "stoptraining"]
    assert [a["outcome"] for a in stops] == ["skipped", "duplicate"]
    assert stops[0]["reason"].startswith(f"nothing to stop: {job} is already Stopped (at ")
    assert stops[0]["reason"].endswith("; this event showed it InProgress")


EXECUTION = "arn:aws:sagemaker:us-east-1:123456789012:pipeline/churn-pipeline/execution/late0001"
SEEDED = {  # family: (detail-type, the name member and the job's name, the status member, running, ended)
    "training": ("SageMaker Training Job State Change", "TrainingJobName", "late-train-001", "TrainingJobStatus",
                 "InProgress", "Completed"),
    "tuning": ("SageMaker HyperParameter Tuning Job State Change", "HyperParameterTuningJobName", "late-hpo-001",
               "HyperParameterTuningJobStatus", "InProgress", "Completed"),
    "processing": ("SageMaker Processing Job State Change", "ProcessingJobName", "late-processing-001",
                   "ProcessingJobStatus", "InProgress", "Stopped"),
    "transform": ("SageMaker Transform Job State Change", "TransformJobName", "late-transform-001",
                  "TransformJobStatus", "InProgress", "Failed"),
    "pipeline": ("SageMaker Model Building Pipeline Execution Status Change", "pipelineExecutionArn", EXECUTION,
                 "currentPipelineExecutionStatus", "Executing", "Succeeded"),
}


@pytest.mark.parametrize("family", list(SEEDED))
def test_a_late_event_never_moves_an_embedded_job_of_any_family_back(family):
    # Given the embedded account, and a job of the family seeded from its event that it ended
    from moto import mock_aws

    from rule_actions import registry
    from rule_actions_cli.emulator.sagemaker import job_status
    from rule_actions_cli.seeding import seeder

    detail_type, member, name, status, running, ended = SEEDED[family]
    with mock_aws():
        found = next(f for f in registry.JOBS if f.name == family)
        seed = partial(seeder(found), found)
        assert seed(detail_type, {member: name, status: ended}, {}) == []
        # When an event sent while it ran arrives after it
        problems = seed(detail_type, {member: name, status: running}, {})
        # Then the job keeps the state it reached (as SageMaker's would), and nothing is called a problem
        assert problems == [] and job_status(family, name) == ended
        # and a job that has not ended follows its events as before
        other = name.replace("late", "next")
        seed(detail_type, {member: other, status: running}, {})
        seed(detail_type, {member: other, status: "Stopping"}, {})
        assert job_status(family, other) == "Stopping"
