"""The timeline format's checkpoints, restarted attempts and failure reasons (rule_actions_cli/timeline.py): what a
job writes and when, what a restart spec becomes for the copy that plays it, and each problem named by its path and
value."""

from __future__ import annotations

import pytest

from rule_actions_cli.timeline import read

BASE = {"timeline": "t", "start": "2026-11-24T08:00:00Z", "minutes": 200}
URI = "s3://ml-checkpoints/llm/job-1"


def job(**given):
    return {"name": "job-1", "instance_type": "ml.p4d.24xlarge", "instance_count": 2,
            "phases": [{"at": 0, "secondary": "Starting"}, {"at": 6, "secondary": "Training"}], **given}


def test_a_job_writes_its_checkpoints_at_its_minutes_and_a_restart_spec_plays_from_the_copy_s_creation():
    # Given a job writing a checkpoint every 15 minutes from 10 to 50 (end excluded), and an attempt's spec that
    # fails at start with a CapacityError, and another that writes from its minute 20
    timeline, problems = read({**BASE, "jobs": [job(
        checkpoint={"s3_uri": URI, "every": 15, "from": 10, "to": 50},
        restarts=[{"phases": [{"at": 0, "secondary": "Starting"},
                              {"at": 4, "status": "Failed", "secondary": "Failed", "reason": "CapacityError: none"}]},
                  {"phases": [{"at": 0, "secondary": "Starting"}, {"at": 95, "status": "Completed"}],
                   "checkpoint": {"every": 15, "from": 20, "to": 95},
                   "metrics": [{"metric": "GPUUtilization", "hosts": "all", "from": 8, "to": 95, "value": 700}],
                   "logs": [{"hosts": ["algo-2"], "from": 8, "to": 9, "text": "resumed"}],
                   "expect": [{"rule": "StalledTraining", "begins": 8}]}])]}, "t.json")
    assert problems == []
    [original] = timeline.jobs
    # Then it writes at 10, 25 and 40, under its CheckpointConfig.S3Uri, at the simulated times
    assert [(uri, (at - timeline.start) // 60) for uri, at in timeline.checkpoints(original, 0, 200)] == [
        (URI, 10), (URI, 25), (URI, 40)]
    assert [m for _, at in timeline.checkpoints(original, 11, 40) for m in [(at - timeline.start) // 60]] == [25]
    # and its attempts are read: the first's Failed phase carries its FailureReason
    capacity, resumes = original.restarts
    assert capacity.failure_reason == "CapacityError: none" and original.failure_reason == ""
    # When the second is played by a copy created at minute 90 (what it runs on, its tags and checkpoint: the copy's)
    copy = resumes.attempt(90, "job-1-r2", "ml.p4d.24xlarge", 2, {"team": "llm"}, URI, "job-1-r1")
    # Then its minutes count from 90, under the copy's checkpoint URI
    assert [p[0] for p in copy.phases] == [90, 185] and copy.restarted_from == "job-1-r1"
    assert [(at - timeline.start) // 60 for _, at in timeline.checkpoints(copy, 0, 200)] == [110, 125, 140, 155, 170]
    assert (copy.metrics[0].start, copy.metrics[0].end, copy.logs[0].hosts) == (98, 185, ("algo-2",))
    assert copy.expect == ({"rule": "StalledTraining", "begins": 98},) and copy.tags == {"team": "llm"}
    # and a copy whose checkpoint the function did not give writes nothing
    assert list(timeline.checkpoints(resumes.attempt(90, "c", "t", 2, {}, None, "job-1"), 0, 200)) == []


@pytest.mark.parametrize(("given", "problem"), [
    ({"checkpoint": "s3://x"}, 'jobs[0].checkpoint: "s3://x" is not an object with the keys s3_uri, from, to, every'),
    ({"checkpoint": {"s3_uri": "ml-checkpoints/llm", "from": 0, "to": 10}},
     'jobs[0].checkpoint.s3_uri: "ml-checkpoints/llm" is not an S3 URI (s3://bucket/prefix)'),
    ({"checkpoint": {"from": 0, "to": 10}}, "jobs[0].checkpoint.s3_uri: null is not an S3 URI"),
    ({"checkpoint": {"s3_uri": URI, "from": 10, "to": 5}}, "jobs[0].checkpoint.to: 5 must be after from (10)"),
    ({"checkpoint": {"s3_uri": URI, "from": 0, "to": 50, "every": 0}},
     "jobs[0].checkpoint.every: 0 is not a whole number of minutes from 1 to 1440"),
    ({"checkpoint": {"s3_uri": URI, "from": True, "to": 50}},
     "jobs[0].checkpoint.from: true is not a whole number of minutes from 0 to 1440"),
    ({"checkpoint": {"s3_uri": URI, "from": 0, "to": 50, "evry": 5}},
     'jobs[0].checkpoint."evry": unknown key; did you mean "every"?'),
    ({"family": "processing", "checkpoint": {"s3_uri": URI, "from": 0, "to": 50}},
     "jobs[0].checkpoint: only a training job has a CheckpointConfig (this is a processing job)"),
    ({"restarts": {"phases": []}}, 'jobs[0].restarts: {"phases": []} is not a list'),
    ({"restarts": ["again"]}, 'jobs[0].restarts[0]: "again" is not an object with the keys phases, metrics, logs, '
                              "checkpoint, expect"),
    ({"restarts": [{"phases": [{"at": 0}], "tags": {}}]}, 'jobs[0].restarts[0]."tags": unknown key'),
    ({"restarts": [{"phases": [{"at": 0}], "checkpoint": {"s3_uri": URI, "from": 0, "to": 10}}]},
     f'jobs[0].restarts[0].checkpoint.s3_uri: "{URI}": a restarted attempt writes under the CheckpointConfig.S3Uri '
     "of the copy the function created (its job's): leave it out"),
    ({"restarts": [{"phases": [{"at": 0}], "metrics": [{"metric": "GPUUtilization", "hosts": ["algo-3"], "from": 0,
                                                        "to": 5, "value": 1}]}]},
     'jobs[0].restarts[0].metrics[0].hosts[0]: "algo-3" is not a host of this job (algo-1 to algo-2)'),
    ({"restarts": [{"phases": []}]}, "jobs[0].restarts[0].phases: [] is not a non-empty list of phases"),
    ({"restarts": [{"phases": [{"at": 0}], "logs": [{"from": 0, "to": 5, "text": "{step}"}]}]},
     'jobs[0].restarts[0].logs[0].text: "{step}" may name only {minute}, {host} and {job}'),
    ({"family": "processing", "restarts": [{"phases": [{"at": 0}]}]},
     "jobs[0].restarts: only a training job is restarted (this is a processing job)"),
    ({"phases": [{"at": 0, "status": "Failed", "reason": 42}]}, "jobs[0].phases[0].reason: 42 is not text"),
    ({"phases": [{"at": 0, "status": "Stopped", "reason": "CapacityError: x"}]},
     'jobs[0].phases[0].reason: "CapacityError: x": only a Failed phase has a FailureReason (this one is "Stopped")'),
])
def test_each_problem_of_a_checkpoint_a_restart_or_a_reason_names_its_path_and_value(given, problem):
    timeline, problems = read({**BASE, "jobs": [job(**given)]}, "t.json")
    assert timeline is None
    assert any(p.startswith("t.json: " + problem) for p in problems), problems
