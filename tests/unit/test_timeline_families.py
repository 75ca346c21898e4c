"""The timeline format's jobs of other families (rule_actions_cli/timeline.py): a processing, transform or tuning
job, a tuning job's trials, each problem named with its field; what a job publishes in its family's namespace and
log group."""

from __future__ import annotations

import pytest

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
    assert "t.json: jobs[0].trials: only a tuning job has trials (this is a processing job)" in problems
    assert 't.json: jobs[1].trials[0].status: "Running" is not one of Completed, Failed, Stopped' in problems
    assert 't.json: jobs[2].family: "endpoint" is not one of training, processing, transform, tuning' in problems


def test_a_tuning_job_s_max_trials_is_read_and_bounded_by_its_trials():
    good = {"family": "tuning", "name": "hpo-1", "instance_type": "ml.m5.large", "phases": [{"at": 0}], "expect": [],
            "trials": [{"name": f"hpo-1-00{i}-a", "from": 1, "to": 5, "status": "Failed"} for i in (1, 2)]}
    # Given a tuning job of 2 trials in the timeline that may launch 50, and one that says nothing of it
    timeline, problems = read({**BASE, "jobs": [{**good, "max_trials": 50}, {**good, "name": "hpo-2"}]}, "t.json")
    # Then the first may launch 50, the second as many as its trials (what the replay seeds: never a made-up limit)
    assert problems == [] and [job.max_trials for job in timeline.jobs] == [50, None]
    # and fewer than its trials, a fraction, or on a training job, is named
    _, problems = read({**BASE, "jobs": [{**good, "max_trials": 1}, {**good, "max_trials": 2.5},
                                         {**good, "family": "training", "trials": [], "max_trials": 5}]}, "t.json")
    assert "t.json: jobs[0].max_trials: 1 is not a whole number from 2 (its trials) to 10,000" in problems
    assert "t.json: jobs[1].max_trials: 2.5 is not a whole number from 2 (its trials) to 10,000" in problems
    assert "t.json: jobs[2].max_trials: only a tuning job has trials (this is a training job)" in problems


# ---------------------------------------------------------------- every field checked like a configuration's

JOB = {"name": "train-1", "instance_type": "ml.m5.large", "instance_count": 2, "phases": [{"at": 0}], "expect": [],
       "metrics": [{"metric": "CPUUtilization", "hosts": "all", "from": 0, "to": 5, "value": 50}],
       "logs": [{"hosts": "all", "from": 0, "to": 5, "text": "[{host}] step {minute} of {job} {{ok}}"}]}


def metric(**changed):
    return {**JOB, "metrics": [{**JOB["metrics"][0], **changed}]}


def log(**changed):
    return {**JOB, "logs": [{**JOB["logs"][0], **changed}]}


@pytest.mark.parametrize(("job", "problem"), [
    (metric(every=0), "jobs[0].metrics[0].every: 0 is not a whole number of minutes from 1 to 1440"),
    (metric(every=-2), "jobs[0].metrics[0].every: -2 is not a whole number of minutes from 1 to 1440"),
    (log(every=0), "jobs[0].logs[0].every: 0 is not a whole number of minutes from 1 to 1440"),
    (log(every="x"), 'jobs[0].logs[0].every: "x" is not a whole number of minutes from 1 to 1440'),
    (metric(jitter="lots"), 'jobs[0].metrics[0].jitter: "lots" is not a number (0 or more)'),
    (metric(jitter=True), "jobs[0].metrics[0].jitter: true is not a number (0 or more)"),
    (metric(hosts="algo-1"), 'jobs[0].metrics[0].hosts: "algo-1" must be "all" or a list of hosts'),
    (metric(hosts=2), 'jobs[0].metrics[0].hosts: 2 must be "all" or a list of hosts'),
    (log(hosts=7), 'jobs[0].logs[0].hosts: 7 must be "all" or a list of hosts'),
    (metric(hosts=["algo-3"]), 'jobs[0].metrics[0].hosts[0]: "algo-3" is not a host of this job (algo-1 to algo-2)'),
    (log(hosts=["instance-1"]), 'jobs[0].logs[0].hosts[0]: "instance-1" is not a host of this job (algo-1 to algo-2)'),
    (metric(value=["a", "b"]), 'jobs[0].metrics[0].value: ["a", "b"] is not a number or [from, to] of numbers'),
    (metric(value="50"), 'jobs[0].metrics[0].value: "50" is not a number or [from, to] of numbers'),
    (metric(value=10**400), "jobs[0].metrics[0].value: 1000"),
    (metric(value=float("nan")), "jobs[0].metrics[0].value: NaN is not a number or [from, to] of numbers"),
    (metric(**{"from": 5, "to": 2}), "jobs[0].metrics[0].to: 2 must be after from (5)"),
    (metric(**{"from": True}), "jobs[0].metrics[0].from: true is not a whole number of minutes from 0 to 1440"),
    ({**JOB, "stream_epoch": "soon"}, 'jobs[0].stream_epoch: "soon" is not an epoch second (a whole number, 0 or more)'),
    ({**JOB, "stream_epoch": 10**400}, "jobs[0].stream_epoch: 1000"),
    (log(text="{minute.__class__}"), 'jobs[0].logs[0].text: "{minute.__class__}" may name only {minute}, {host} and'),
    (log(text="{unknown}"), 'jobs[0].logs[0].text: "{unknown}" may name only {minute}, {host} and {job}'),
    (log(text="step {"), 'jobs[0].logs[0].text: "step {" may name only {minute}, {host} and {job}'),
    (log(text="{minute:>999999999}"), "jobs[0].logs[0].text: "),
    (log(text=5), "jobs[0].logs[0].text: 5 is not text"),
    ({**JOB, "phases": 5}, "jobs[0].phases: 5 is not a list"),
    ({**JOB, "phases": []}, "jobs[0].phases: [] is not a non-empty list of phases"),
    ({**JOB, "phases": [{"at": 5}, {"at": 2}]}, "jobs[0].phases: the phases' minutes [5, 2] are not in time order"),
    ({**JOB, "phases": [{"at": 0}, {"at": 1}, {"at": 2, "status": "Paused"}]},
     'jobs[0].phases[2].status: "Paused" is not one of InProgress, Stopping, Completed, Failed, Stopped'),
    ({**JOB, "phases": [{"at": 0, "secondary": 7}]}, "jobs[0].phases[0].secondary: 7 is not text"),
    ({**JOB, "phases": [{"at": 0, "when": 7}]}, 'jobs[0].phases[0]."when": unknown key'),
    ({**JOB, "phases": ["x"]}, 'jobs[0].phases[0]: "x" is not an object with the keys at, status'),
    ({**JOB, "family": "endpoint"}, 'jobs[0].family: "endpoint" is not one of training'),
    ({**JOB, "name": "a_b"}, 'jobs[0].name: "a_b" is not a training job name'),
    ({**JOB, "instance_type": 5}, "jobs[0].instance_type: 5 is not an instance type"),
    ({**JOB, "tags": {"team": 1}}, 'jobs[0].tags: {"team": 1} is not an object of strings'),
    ({**JOB, "metric_definitions": [1]}, "jobs[0].metric_definitions: [1] is not a list of metric names"),
    ({**JOB, "expect": [{"rule": "X"}]}, 'jobs[0].expect[0]: {"rule": "X"} is not {rule'),
    ({**JOB, "account": "12"}, 'jobs[0].account: "12" is not an AWS account id (12 digits)'),
    ({**JOB, "objective": "Up"}, 'jobs[0].objective: "Up" is not Minimize or Maximize'),
    ({**JOB, "metrics": [{"metric": "X", "colour": 1}]}, 'jobs[0].metrics[0]."colour": unknown key'),
    ({**JOB, "metrics": 5}, "jobs[0].metrics: 5 is not a list"),
    ({**JOB, "logs": {"hosts": "all"}}, 'jobs[0].logs: {"hosts": "all"} is not a list'),
    ({**JOB, "trials": "abc", "family": "tuning"}, 'jobs[0].trials: "abc" is not a list'),
    ({**JOB, "instance_count": True}, "jobs[0].instance_count: true is not a whole number from 1 to 64"),
    ({**JOB, "phases": [{"at": -1}]}, "jobs[0].phases[0].at: -1 is not a whole number of minutes from 0 to 1440"),
])
def test_a_timeline_field_of_the_wrong_type_or_value_is_a_problem_naming_its_path(job, problem):
    # Given a timeline whose job has one bad field (and a good second job)
    # When it is read
    timeline, problems = read({**BASE, "jobs": [job, JOB]}, "t.json")
    # Then it is not replayed, and the problem names the field's path and its value
    assert timeline is None
    assert any(p.startswith("t.json: " + problem) for p in problems), problems
    assert not any("jobs[1]" in p for p in problems)  # the good job has none


def test_a_transform_job_s_hosts_are_its_instances_and_a_good_job_reads():
    timeline, problems = read({**BASE, "jobs": [JOB]}, "t.json")
    assert problems == [] and timeline is not None
    [(_, _, text), *_] = list(timeline.log_lines(timeline.jobs[0], 0, 1))
    assert text == "[algo-1] step 0 of train-1 {ok}"
    transform = {**JOB, "family": "transform", "logs": [{**JOB["logs"][0], "hosts": ["algo-1"]}]}
    _, problems = read({**BASE, "jobs": [transform]}, "t.json")
    assert problems == ['t.json: jobs[0].logs[0].hosts[0]: "algo-1" is not a host of this job (instance-1 to '
                        'instance-2)']


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("minutes", True, "minutes: true is not a whole number of minutes from 1 to 1440"),
    ("every", 0, "every: 0 is not a whole number of minutes from 1 to 60"),
    ("description", 5, "description: 5 is not text"),
    ("timeline", ["x"], 'timeline: ["x"] is not text'),
])
def test_a_timeline_s_own_fields_are_checked(key, value, problem):
    timeline, problems = read({**BASE, key: value, "jobs": [JOB]}, "t.json")
    assert timeline is None and "t.json: " + problem in problems, problems
