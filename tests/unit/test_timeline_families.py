"""The timeline format's jobs of other families (rule_actions_cli/timeline.py): a processing, transform or tuning
job, a tuning job's trials, each problem named with its field; what a job publishes in its family's namespace and
log group."""

from __future__ import annotations

from rule_actions_cli.timeline import read

BASE = {"timeline": "t", "start": "2026-11-24T08:00:00Z", "minutes": 30}


def test_a_transform_job_publishes_in_its_family_s_namespace_under_its_instance_ids():
    # Given a transform job on two instances, the second named in a log spec as instance-2
    timeline, problems = read({**BASE, "jobs": [{
        "family": "transform", "name": "score-1", "instance_type": "ml.m5.large", "instance_count": 2,
        "phases": [{"at": 0, "secondary": "Starting"}, {"at": 3}],
        "metrics": [{"metric": "CPUUtilization", "hosts": "all", "from": 3, "to": 5, "value": 50}],
        "logs": [{"hosts": ["instance-2"], "from": 3, "to": 4, "text": "ok"}], "expect": []}]}, "t.json")
    assert problems == []
    [job] = timeline.jobs
    # Then its hosts are made-up stable instance ids, its metrics in /aws/sagemaker/TransformJobs, its start minute 3
    assert all(h.startswith("i-0") and len(h) == 19 for h in job.hosts) and job.started() == 3
    points = list(timeline.datapoints(job, 0, 10))
    assert {p[0] for p in points} == {"/aws/sagemaker/TransformJobs"} and len(points) == 4
    [(stream, _at, text)] = list(timeline.log_lines(job, 0, 10))
    assert stream.startswith(f"score-1/{job.hosts[1]}-") and text == "ok" and job.log_group == "/aws/sagemaker/TransformJobs"


def test_a_tuning_job_s_trials_are_read_and_each_problem_names_its_field():
    good = {"family": "tuning", "name": "hpo-1", "instance_type": "ml.m5.large", "objective": "Maximize",
            "phases": [{"at": 0}], "expect": [],
            "trials": [{"name": "hpo-1-001-a", "from": 1, "to": 5, "status": "Failed", "reason": "boom"}]}
    timeline, problems = read({**BASE, "jobs": [good]}, "t.json")
    assert problems == []
    [trial] = timeline.jobs[0].trials
    assert (trial.at(0), trial.at(1), trial.at(5), timeline.jobs[0].objective) == (None, "InProgress", "Failed",
                                                                                  "Maximize")
    # and a trial on a processing job, a trial without an end status, an unknown family are named
    _, problems = read({**BASE, "jobs": [
        {**good, "family": "processing"},
        {**good, "trials": [{"name": "hpo-1-002-b", "from": 1, "to": 5, "status": "Running"}]},
        {**good, "family": "endpoint"}]}, "t.json")
    assert "t.json: jobs[0].trials: only a tuning job has trials" in problems
    assert any(p.startswith("t.json: jobs[1].trials[0]: must be {name, from, to") for p in problems)
    assert "t.json: jobs[2].family: must be one of training, processing, transform, tuning" in problems
