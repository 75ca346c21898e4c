"""The monitor rules (monitors/): pure functions over one-minute datapoints and log windows, each judged on what it
needs and nothing else; their parameters, the tags that attach them, and the running job as Search returns it."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rule_actions import registry
from rule_actions.monitors.block import MonitorSettings
from rule_actions.monitors.instances import counts
from rule_actions.monitors.job import Host, RunningJob, clock
from rule_actions.monitors.rule import Data, Reads, in_phase, parameters
from rule_actions.monitors.series import host_query, job_query, percentile
from rule_actions.monitors.stalled_training import rhythm
from rule_actions.monitors.tags import rules_of
from rule_actions.monitors.verdicts import Clear, Finding, NotJudged, Pending, Skipped
from rule_actions.records import Heartbeat, Span
from rule_actions_cdk import plugins

NOW = 1_795_514_400  # 2026-11-24T10:00:00Z
MIN = 60
RULES = registry.monitors()


def job(name="job-1", hosts=(("ml.p3.8xlarge", 1),), started=NOW - 120 * MIN, metrics=(), tags=None) -> RunningJob:
    found = []
    for instance_type, count in hosts:
        gpus, vcpus = counts(instance_type)
        for _ in range(count):
            found.append(Host(f"algo-{len(found) + 1}", instance_type, gpus, vcpus))
    return RunningJob(name, f"arn:aws:sagemaker:us-east-1:123456789012:training-job/{name}", "InProgress", "Training",
                      started, tuple(found), tuple(metrics), tags or {})


def defaults(rule: str, **given) -> dict:
    values, errors = parameters(RULES[rule], given, "test")
    assert not errors
    return values


def minutes(first: int, last: int, value, step: int = 1) -> tuple[tuple[int, float], ...]:
    """Datapoints at NOW-first ... NOW-last minutes (first > last), value a number or a function of the minute."""
    return tuple((NOW - m * MIN, value(m) if callable(value) else float(value)) for m in range(first, last - 1, -step))


def judged(rule: str, j: RunningJob, series=None, heartbeat=None, streams=None, **given):
    """The rule's verdict as an evaluation reaches it: its needs, its judging, and when it asks for some streams'
    windows, its judging again with them (`streams`: prefix -> Heartbeat; a window it lacks reads as empty)."""
    p = defaults(rule, **given)
    need = RULES[rule].reads(j, p, NOW)
    if not isinstance(need, Reads):
        return need
    found = RULES[rule].judge(j, p, NOW, Data(series or {}, heartbeat))
    if isinstance(found, Reads):
        read = {prefix: (streams or {}).get(prefix, Heartbeat((), True)) for prefix, _start, _end in found.streams}
        found = RULES[rule].judge(j, p, NOW, Data(series or {}, heartbeat, read))
    return found


# ---------------------------------------------------------------- percentiles, instances, the job


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 800, allow_nan=False), min_size=1, max_size=200), st.sampled_from([0, 5, 50, 95, 100]))
def test_percentiles_are_numpys_linear_interpolation(values, q):
    assert percentile(values, q) == pytest.approx(numpy.percentile(values, q))


@pytest.mark.parametrize(("instance_type", "expected"), [
    ("ml.p3.8xlarge", (4, 32)), ("ml.p4d.24xlarge", (8, 96)), ("ml.g5.xlarge", (1, 4)), ("ml.g5.48xlarge", (8, 192)),
    ("ml.m5.large", (0, 2)), ("ml.trn1.32xlarge", (0, 128)), ("ml.x9.huge", (None, None)), ("m5.large", (None, None)),
])
def test_gpus_and_vcpus_come_from_the_instance_type(instance_type, expected):
    assert counts(instance_type) == expected


def test_a_search_record_becomes_the_job_the_rules_see():
    # Given a Search record: transitions (a spot restart trains twice), instance groups, tags as a list
    record = {
        "TrainingJobName": "j", "TrainingJobArn": "arn:aws:sagemaker:us-east-1:1:training-job/j",
        "TrainingJobStatus": "InProgress", "SecondaryStatus": "Training",
        "SecondaryStatusTransitions": [
            {"Status": "Training", "StartTime": datetime(2026, 11, 24, 8, 0, tzinfo=UTC)},
            {"Status": "Interrupted", "StartTime": datetime(2026, 11, 24, 8, 30, tzinfo=UTC)},
            {"Status": "Training", "StartTime": datetime(2026, 11, 24, 8, 40, tzinfo=UTC)}],
        "ResourceConfig": {"InstanceGroups": [{"InstanceType": "ml.p4d.24xlarge", "InstanceCount": 1},
                                              {"InstanceType": "ml.m5.xlarge", "InstanceCount": 2}]},
        "AlgorithmSpecification": {"MetricDefinitions": [{"Name": "train:loss", "Regex": "x"}, {"Regex": "no name"}]},
        "Tags": [{"Key": "rule-actions:StalledTraining", "Value": "stoptraining"}, {"Key": 3}],
    }
    found = RunningJob.of(record)
    # Then training started at the latest Training, hosts follow the groups, broken members are left out
    assert found.started == int(datetime(2026, 11, 24, 8, 40, tzinfo=UTC).timestamp())
    assert [(h.name, h.gpus) for h in found.hosts] == [("algo-1", 8), ("algo-2", 0), ("algo-3", 0)]
    assert found.metrics == ("train:loss",) and found.tags == {"rule-actions:StalledTraining": "stoptraining"}
    assert found.host_of("j/algo-3-1763970000") == "algo-3"


def test_a_record_missing_everything_is_a_job_without_rules_to_judge():
    found = RunningJob.of({})
    assert found.hosts == () and found.started is None and found.metrics == ()
    assert isinstance(RULES["LowGPUUtilization"].reads(found, defaults("LowGPUUtilization"), NOW), Skipped)
    assert isinstance(RULES["StalledTraining"].reads(found, defaults("StalledTraining"), NOW), Pending)


# ---------------------------------------------------------------- phases


def at(minute: int) -> int:
    return NOW - minute * MIN


def test_a_rules_clock_starts_again_when_training_restarts_but_not_after_an_update():
    # A cluster repair, then training again: the clock starts at the second Training
    repaired = (("Starting", at(300)), ("Training", at(290)), ("Restarting", at(100)), ("Training", at(80)))
    training = ("Training", "Updating")
    assert clock(repaired, training) == at(80)
    # A spot interruption, the start-up after it, then training again
    resumed = (("Training", at(300)), ("Interrupted", at(200)), ("Starting", at(150)), ("Downloading", at(148)),
               ("Training", at(140)))
    assert clock(resumed, training) == at(140)
    # An update (training goes on meanwhile) does not end the stretch
    updated = (("Training", at(300)), ("Updating", at(200)), ("Training", at(190)))
    assert clock(updated, training) == at(300)
    # While uploading, the clock is the stretch that ended; never in training: none
    assert clock((*repaired, ("Uploading", at(5))), training) == at(80)
    assert clock((("Starting", at(5)),), training) is None


@pytest.mark.parametrize(("secondary", "verdict"), [
    ("Uploading", NotJudged("uploading artifacts for 12 min: not judged (StalledTraining judges Training and Updating "
                            "only)")),
    ("Restarting", NotJudged("restarting after a hardware failure (cluster repair) for 12 min: not judged "
                             "(StalledTraining judges Training and Updating only)")),
    ("Interrupted", NotJudged("interrupted, waiting for spot capacity for 12 min: not judged (StalledTraining judges "
                              "Training and Updating only)")),
    ("Downloading", Pending("training has not restarted yet (downloading input data for 12 min)")),
    ("Pending", Pending("training has not restarted yet (waiting for capacity for 12 min)")),
    ("Mystery", NotJudged('in phase "Mystery" for 12 min: not judged (StalledTraining judges Training and Updating '
                          'only)')),
    ("Training", None), ("Updating", None),
])
def test_a_job_in_a_phase_the_rule_does_not_judge_says_which_and_since_when(secondary, verdict):
    # Given a job that trained, then entered a phase 12 minutes ago
    j = job()._replace(secondary=secondary, transitions=(("Training", at(120)), (secondary, at(12))))
    # Then the rule does not judge it, saying why (before training: not yet)
    assert in_phase(j, RULES["StalledTraining"], NOW) == verdict


def test_a_job_that_never_trained_is_not_started_yet():
    j = job(started=None)._replace(secondary="Downloading", transitions=(("Starting", at(5)), ("Downloading", at(3))))
    assert in_phase(j, RULES["LowGPUUtilization"], NOW) == Pending(
        "training has not started yet (downloading input data for 3 min)")


def test_every_training_rule_judges_a_job_while_it_trains_and_the_others_while_in_progress():
    training = {name for name, rule in RULES.items() if rule.families == ("training",)}
    assert {name: RULES[name].phases for name in training} == dict.fromkeys(training, ("Training", "Updating"))
    others = {name: rule.phases for name, rule in RULES.items() if name not in training and name != "Budget"}
    assert others == dict.fromkeys(
        ("StalledJob", "IdleInstances", "RuntimeOverrun", "FailingTrials", "NoImprovement"), ("InProgress",))
    # The budget judges every phase a running job is billed and may be stopped in: never a training job's upload,
    # nor a wait for capacity or a cluster repair (nothing billed)
    assert "Uploading" not in RULES["Budget"].phases
    assert {"Training", "Downloading", "InProgress"} <= set(RULES["Budget"].phases)
    assert not {"Interrupted", "Pending", "Starting", "LaunchingMLInstances", "Restarting"} & set(
        RULES["Budget"].phases)


# ---------------------------------------------------------------- the rules over instance metrics


def gpu(j, host, series):
    return {host_query(j, j.hosts[host], "GPUUtilization"): series}


def test_low_gpu_utilization_holds_on_an_idle_host_and_names_it():
    j = job(hosts=(("ml.p3.8xlarge", 2),))
    series = {**gpu(j, 0, minutes(40, 1, 320)), **gpu(j, 1, minutes(40, 1, 48))}  # 4 GPUs: 80% and 12%
    verdict = judged("LowGPUUtilization", j, series)
    assert verdict == Finding("GPU utilization p95 12% < 70% over the last 30 min on algo-2 (4 GPUs)")


def test_low_gpu_utilization_holds_when_utilization_fluctuates():
    # Given GPUs busy at 90% but idle one minute in four: 7 idle minutes in the 30-minute window
    j = job()
    verdict = judged("LowGPUUtilization", j, gpu(j, 0, minutes(40, 1, lambda m: 360 if m % 4 else 8)))
    assert verdict == Finding("GPU utilization fluctuates: 7 min below 10% (more than 6) while p95 is 90% over the "
                              "last 30 min on algo-1 (4 GPUs)")


@pytest.mark.parametrize(("every", "dip"), [(40, 3), (30, 3), (20, 3), (15, 3), (40, 5)])
def test_low_gpu_utilization_is_clear_on_the_dips_of_checkpoint_saves(every, dip):
    # Given GPUs at 85% that idle for `dip` minutes at each checkpoint save, every `every` minutes
    j = job()
    saving = gpu(j, 0, minutes(40, 1, lambda m: 4 * (2 if m % every < dip else 85)))
    # Then the rule does not hold
    assert judged("LowGPUUtilization", j, saving) == Clear()


def test_debuggers_p5_test_would_have_fired_on_checkpoint_dips():
    # Given checkpoint saves of 3 minutes every 15: 6 idle minutes in 30
    j = job()
    saving = gpu(j, 0, minutes(40, 1, lambda m: 4 * (2 if m % 15 < 3 else 85)))
    window = [v / 4 for _t, v in saving[host_query(j, j.hosts[0], "GPUUtilization")][-30:]]
    # Then p5 < 10% (the old test, Debugger's) holds, while the count of idle minutes does not exceed low_minutes
    assert percentile(window, 5) < 10 and percentile(window, 95) >= 70
    assert judged("LowGPUUtilization", j, saving) == Clear()
    # and with low_minutes at 5 it would hold: the parameter is the team's to tune
    assert isinstance(judged("LowGPUUtilization", j, saving, low_minutes=5), Finding)


def test_low_gpu_utilization_is_clear_on_busy_gpus_and_waits_for_a_window():
    j = job()
    assert judged("LowGPUUtilization", j, gpu(j, 0, minutes(40, 1, 330))) == Clear()
    young = job(started=NOW - 20 * MIN)  # 9 min warm-up + a 30-min window not there yet
    assert isinstance(RULES["LowGPUUtilization"].reads(young, defaults("LowGPUUtilization"), NOW), Pending)
    assert isinstance(judged("LowGPUUtilization", j, gpu(j, 0, minutes(40, 1, 330, step=3))), Pending)  # sparse


def test_low_gpu_utilization_ends_its_window_at_the_latest_datapoint_cloudwatch_has():
    # CloudWatch publishes a few minutes late: the last datapoints are missing, the window still holds 30
    j = job()
    assert isinstance(judged("LowGPUUtilization", j, gpu(j, 0, minutes(40, 4, 20))), Finding)
    # A series that stopped long ago is not judged on stale data
    assert isinstance(judged("LowGPUUtilization", j, gpu(j, 0, minutes(60, 20, 20))), Pending)


def test_a_rule_needing_gpus_is_skipped_naming_the_instance_type_or_the_missing_metric():
    assert judged("LowGPUUtilization", job(hosts=(("ml.m5.xlarge", 1),))) == Skipped(
        "LowGPUUtilization needs GPUUtilization: ml.m5.xlarge has no GPU")
    assert "ml.x9.huge, which is not in the instance table" in judged(
        "BatchSize", job(hosts=(("ml.x9.huge", 1),))).reason
    j = job()
    missing = judged("LowGPUUtilization", j, {})
    assert isinstance(missing, Skipped) and "no datapoint for algo-1" in missing.reason


def test_batch_size_holds_when_cpu_gpu_and_gpu_memory_are_all_underused():
    j = job()  # 4 GPUs, 32 vCPUs
    series = {host_query(j, j.hosts[0], "CPUUtilization"): minutes(40, 1, 32 * 20),
              host_query(j, j.hosts[0], "GPUUtilization"): minutes(40, 1, 4 * 40),
              host_query(j, j.hosts[0], "GPUMemoryUtilization"): minutes(40, 1, 4 * 30)}
    verdict = judged("BatchSize", j, series)
    assert isinstance(verdict, Finding) and "GPU 40% < 70%, GPU memory 30% < 70%, CPU 20% < 70%" in verdict.reason
    series[host_query(j, j.hosts[0], "GPUMemoryUtilization")] = minutes(40, 1, 4 * 90)
    assert judged("BatchSize", j, series) == Clear()


def test_cpu_bottleneck_holds_when_most_minutes_are_cpu_bound_with_idle_gpus():
    j = job()
    series = {host_query(j, j.hosts[0], "CPUUtilization"): minutes(40, 1, 32 * 97),
              host_query(j, j.hosts[0], "GPUUtilization"): minutes(40, 1, lambda m: 4 * (5 if m % 3 else 80))}
    verdict = judged("CPUBottleneck", j, series)
    assert isinstance(verdict, Finding) and "67% of the last 30 min had CPU > 90% and GPU < 10%" in verdict.reason
    assert judged("CPUBottleneck", j, series, threshold=70) == Clear()


def test_gpu_memory_increase_compares_two_consecutive_windows():
    j = job()
    growing = {host_query(j, j.hosts[0], "GPUMemoryUtilization"): minutes(30, 1, lambda m: 4 * (40 if m > 10 else 58))}
    verdict = judged("GPUMemoryIncrease", j, growing)
    assert isinstance(verdict, Finding) and "rose from 40% to 58% (+18 points > 5)" in verdict.reason
    assert judged("GPUMemoryIncrease", j, growing, increase=20) == Clear()


# ---------------------------------------------------------------- heartbeats


def beat(*streams, complete=True, gap=MIN) -> Heartbeat:
    """(stream, first, last[, longest gap]) in epoch seconds: a line every minute unless the gap is given."""
    return Heartbeat(tuple(Span(name, first * 1000, last * 1000, 10, (rest[0] if rest else gap) * 1000)
                           for name, first, last, *rest in streams), complete)


def test_stalled_training_holds_when_no_host_logs_for_the_threshold():
    j = job(hosts=(("ml.p4d.24xlarge", 2),))
    hb = beat(("job-1/algo-1-1", NOW - 44 * MIN, NOW - 34 * MIN), ("job-1/algo-2-1", NOW - 44 * MIN, NOW - 35 * MIN))
    assert judged("StalledTraining", j, heartbeat=hb) == Finding(
        "no log line from any host for 34 min (threshold 30 min)")
    silent = judged("StalledTraining", j, heartbeat=beat())
    assert silent == Finding("no log line from any host for more than 45 min (threshold 30 min)")


def test_stalled_training_names_the_one_host_of_four_that_fell_silent():
    # Given four hosts logging every minute, algo-3 silent for 34 minutes
    j = job(hosts=(("ml.p3.16xlarge", 4),))
    streams = [(f"job-1/algo-{n}-1", NOW - 45 * MIN, NOW - 1 * MIN) for n in (1, 2, 4)]
    hb = beat(*streams, ("job-1/algo-3-1", NOW - 45 * MIN, NOW - 34 * MIN))
    # When its rhythm is read: a line a minute since training started, two hours ago
    history = {"job-1/algo-3-": beat(("job-1/algo-3-1", NOW - 120 * MIN, NOW - 34 * MIN))}
    # Then it is a stalled host, named with its silence and its rhythm
    assert judged("StalledTraining", j, heartbeat=hb, streams=history) == Finding(
        "no log line from algo-3 for 34 min (threshold 30 min; its longest gap before: 1 min), while algo-1, "
        "algo-2, algo-4 still log")


def test_stalled_training_reads_a_silent_hosts_rhythm_since_training_started_at_most_six_hours_back():
    # Given a host silent past the threshold while another logs
    j = job(hosts=(("ml.p3.16xlarge", 2),), started=NOW - 600 * MIN)
    hb = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), ("job-1/algo-2-1", NOW - 45 * MIN, NOW - 33 * MIN))
    p = defaults("StalledTraining")
    # When the rule first judges it
    asked = RULES["StalledTraining"].judge(j, p, NOW, Data({}, hb))
    # Then it asks for that host's streams up to its last line, from six hours before it (training began earlier),
    # and that host's GPUs over their last 10 minutes (CloudWatch publishes late: 6 more)
    assert asked == Reads((host_query(j, j.hosts[1], "GPUUtilization"),), NOW - 16 * MIN, streams=(
        ("job-1/algo-2-", (NOW - 33 * MIN - 360 * MIN) * 1000, (NOW - 33 * MIN) * 1000),))
    # and from when training (re)started when that is later
    young = j._replace(started=NOW - 90 * MIN)
    assert RULES["StalledTraining"].judge(young, p, NOW, Data({}, hb)).streams[0][1] == (NOW - 90 * MIN) * 1000


def test_a_worker_that_writes_only_at_checkpoints_is_not_a_stalled_host():
    # Given 8 hosts: rank 0 logs every minute, the workers write one line at each checkpoint, every 40 minutes
    j = job(hosts=(("ml.p4d.24xlarge", 8),), started=NOW - 200 * MIN)
    workers = [(f"job-1/algo-{n}-1", NOW - 45 * MIN, NOW - 38 * MIN) for n in range(2, 9)]
    hb = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), *workers)
    history = {f"job-1/algo-{n}-": beat((f"job-1/algo-{n}-1", NOW - 199 * MIN, NOW - 38 * MIN, 40 * MIN))
               for n in range(2, 9)}
    # When they have been silent for 38 minutes (past the 30-minute threshold)
    verdict = judged("StalledTraining", j, heartbeat=hb, streams=history)
    # Then no host is stalled: each is within its own rhythm, and the row says so
    assert isinstance(verdict, Clear)
    assert verdict.reason.startswith("algo-2 silent for 38 min, within its rhythm (a gap of 40 min before; stalled "
                                     "after 1.5 times that)")
    # But one silent for 61 minutes, past 1.5 times its longest gap, is stalled
    late = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), ("job-1/algo-2-1", NOW - 61 * MIN, NOW - 61 * MIN),
                *workers[1:])
    history["job-1/algo-2-"] = beat(("job-1/algo-2-1", NOW - 199 * MIN, NOW - 61 * MIN, 40 * MIN))
    stalled = judged("StalledTraining", j, heartbeat=late, streams=history)
    assert isinstance(stalled, Finding) and stalled.reason.startswith(
        "no log line from algo-2 for 1 h 01 min (threshold 30 min; its longest gap before: 40 min), while algo-1 "
        "still logs")


def first_checkpoint(j: RunningJob, gpus: float | None) -> tuple[Heartbeat, dict, dict]:
    """Issue 36: a worker (algo-2) that wrote its start-up lines, then its first checkpoint 19 minutes later, silent
    for 33 minutes since (its next checkpoint comes 40 minutes after the first); rank 0 logs every minute; algo-2's
    GPUs at `gpus` % each (None: no datapoint)."""
    hb = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), ("job-1/algo-2-1", NOW - 33 * MIN, NOW - 33 * MIN))
    history = {"job-1/algo-2-": beat(("job-1/algo-2-1", NOW - 54 * MIN, NOW - 33 * MIN, 19 * MIN))}
    series = {} if gpus is None else {host_query(j, j.hosts[1], "GPUUtilization"): minutes(20, 0, 8 * gpus)}
    return hb, history, series


def test_a_quiet_worker_whose_gpus_are_busy_while_rank_0_logs_is_not_a_stalled_host():
    # Given the worker of issue 36, judged by a rhythm of one 19-minute gap, its GPUs busy (90% each)
    j = job(hosts=(("ml.p4d.24xlarge", 2),), started=NOW - 55 * MIN)
    hb, history, series = first_checkpoint(j, 90)
    # When its silence passes the threshold and 1.5 times that gap
    verdict = judged("StalledTraining", j, series, heartbeat=hb, streams=history)
    # Then it is not a stall, and the row says why
    assert verdict == Clear("algo-2 silent for 33 min, its GPUs busy (90% over its last 10 min) while algo-1 logs: "
                            "not a stall")


def test_a_silent_worker_whose_gpus_idle_is_stalled_at_the_threshold_whatever_its_rhythm():
    # Given the same worker whose GPUs idle since it fell silent (a hung worker)
    j = job(hosts=(("ml.p4d.24xlarge", 2),), started=NOW - 55 * MIN)
    hb, history, series = first_checkpoint(j, 0)
    # Then it is a stalled host at the threshold, saying its GPUs idle
    assert judged("StalledTraining", j, series, heartbeat=hb, streams=history) == Finding(
        "no log line from algo-2 for 33 min (threshold 30 min) and its GPUs idle (0% over its last 10 min), while "
        "algo-1 still logs")
    # and so it is with a long trusted rhythm (a checkpoint every 40 minutes for three hours)
    history = {"job-1/algo-2-": beat(("job-1/algo-2-1", NOW - 200 * MIN, NOW - 33 * MIN, 40 * MIN))}
    assert isinstance(judged("StalledTraining", j._replace(started=NOW - 210 * MIN), series, heartbeat=hb,
                             streams=history), Finding)


@pytest.mark.parametrize(("gpus", "why"), [(None, "its GPUs unknown: no datapoint yet"),
                                           (30, "its GPUs at 30% over its last 10 min")])
def test_a_rhythm_learned_from_too_little_history_is_not_trusted(gpus, why):
    # Given the worker of issue 36 whose GPUs do not decide (no datapoint, or partly busy)
    j = job(hosts=(("ml.p4d.24xlarge", 2),), started=NOW - 55 * MIN)
    hb, history, series = first_checkpoint(j, gpus)
    # When its silence passes 1.5 times its one 19-minute gap, its history spanning 22 minutes (under 30, and under
    # 3 times that gap)
    verdict = judged("StalledTraining", j, series, heartbeat=hb, streams=history)
    # Then it is held: its silence is compared with at least an hourly checkpoint
    assert verdict == Clear("algo-2 silent for 33 min, too little history for its own rhythm (a history of 22 min, "
                            f"longest gap 19 min): stalled after 1.5 times 1 h 00 min ({why})")
    # and it is a stall once silent longer than 1.5 times that hour
    late = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), ("job-1/algo-2-1", NOW - 91 * MIN, NOW - 91 * MIN))
    history = {"job-1/algo-2-": beat(("job-1/algo-2-1", NOW - 112 * MIN, NOW - 91 * MIN, 19 * MIN))}
    found = judged("StalledTraining", j._replace(started=NOW - 113 * MIN), series, heartbeat=late, streams=history)
    assert found == Finding("no log line from algo-2 for 1 h 31 min (threshold 30 min; too little history for its own "
                            "rhythm (a history of 22 min, longest gap 19 min): stalled after 1.5 times 1 h 00 min), while "
                            "algo-1 still logs")


def test_a_rhythm_is_trusted_once_its_history_spans_three_of_its_longest_gaps_and_half_an_hour():
    j = job(hosts=(("ml.p4d.24xlarge", 2),), started=NOW - 200 * MIN)
    hb = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), ("job-1/algo-2-1", NOW - 35 * MIN, NOW - 35 * MIN))

    def verdict(history_minutes: int, gap: int):
        first = NOW - 35 * MIN - history_minutes * MIN
        history = {"job-1/algo-2-": beat(("job-1/algo-2-1", first, NOW - 35 * MIN, gap * MIN))}
        return judged("StalledTraining", j._replace(started=first), heartbeat=hb, streams=history)

    # A line a minute for 30 minutes (30 gaps): trusted, and 35 silent minutes are past 1.5 times that minute
    assert isinstance(verdict(30, 1), Finding)
    # but for 29 minutes: too little history (held up to 1.5 times an hour)
    assert isinstance(verdict(29, 1), Clear)
    # A 20-minute gap in 60 minutes of lines (three of it): trusted, 35 > 30 minutes; in 59: not yet
    assert isinstance(verdict(60, 20), Finding) and isinstance(verdict(59, 20), Clear)


def test_a_job_whose_every_host_falls_silent_is_stalled_whatever_their_rhythms():
    # Given checkpoint-only workers and a rank 0 that stopped too: the whole job is silent for 31 minutes
    j = job(hosts=(("ml.p4d.24xlarge", 3),), started=NOW - 200 * MIN)
    hb = beat(*[(f"job-1/algo-{n}-1", NOW - 45 * MIN, NOW - 31 * MIN) for n in (1, 2, 3)])
    # Then it is stalled at the threshold, without reading any rhythm
    p = defaults("StalledTraining")
    assert RULES["StalledTraining"].judge(j, p, NOW, Data({}, hb)) == Finding(
        "no log line from any host for 31 min (threshold 30 min)")


def test_a_hosts_rhythm_counts_the_silence_before_its_first_line_and_between_its_streams():
    # A host whose first line came 25 minutes into the window, then a line a minute
    assert rhythm(beat(("s-1", NOW - 35 * MIN, NOW - 10 * MIN)), (NOW - 60 * MIN) * 1000) == 25 * MIN
    # Two streams (the container restarted): the gap between them counts
    two = beat(("s-1", NOW - 60 * MIN, NOW - 50 * MIN), ("s-2", NOW - 20 * MIN, NOW - MIN))
    assert rhythm(two, (NOW - 60 * MIN) * 1000) == 30 * MIN
    # No line in the window: unknown
    assert rhythm(beat(), (NOW - 60 * MIN) * 1000) is None


def test_a_silent_host_whose_history_shows_no_line_is_not_judged_yet():
    j = job(hosts=(("ml.p3.16xlarge", 2),))
    hb = beat(("job-1/algo-1-1", NOW - 45 * MIN, NOW - MIN), ("job-1/algo-2-1", NOW - 45 * MIN, NOW - 34 * MIN))
    verdict = judged("StalledTraining", j, heartbeat=hb, streams={})
    assert isinstance(verdict, Pending) and "algo-2's log lines before its silence could not be read" in verdict.reason


def test_stalled_training_does_not_watch_a_host_that_only_wrote_its_start_up_lines():
    # Given a worker whose script logs on rank 0 only: its last lines are the toolkit's, at training's start
    j = job(hosts=(("ml.p3.16xlarge", 2),), started=NOW - 38 * MIN)
    hb = beat(("job-1/algo-1-1", NOW - 38 * MIN, NOW - 1 * MIN), ("job-1/algo-2-1", NOW - 38 * MIN, NOW - 36 * MIN))
    # Then it is not a stalled host
    assert judged("StalledTraining", j, heartbeat=hb) == Clear()


def test_stalled_training_judges_nothing_on_an_incomplete_page():
    # FilterLogEvents may answer an empty page with a token (it has not searched every stream), or a full page
    j = job()
    assert isinstance(judged("StalledTraining", j, heartbeat=beat(complete=False)), Pending)


def test_stalled_training_waits_for_the_threshold_and_can_watch_a_metric_instead():
    assert isinstance(RULES["StalledTraining"].reads(job(started=NOW - 10 * MIN), defaults("StalledTraining"), NOW),
                      Pending)
    j = job(metrics=("train:step",))
    need = RULES["StalledTraining"].reads(j, defaults("StalledTraining", metric="train:step"), NOW)
    assert need.logs is None and need.queries == (job_query(j, "train:step"),)
    series = {job_query(j, "train:step"): minutes(45, 40, 1)}
    assert judged("StalledTraining", j, series, metric="train:step") == Finding(
        "no datapoint of train:step for 40 min (threshold 30 min)")
    assert isinstance(judged("StalledTraining", j, metric="train:nope"), Skipped)


def test_max_initialization_time_holds_without_a_first_datapoint():
    j = job(started=NOW - 24 * MIN, metrics=("train:loss",))
    assert judged("MaxInitializationTime", j, {}) == Finding(
        "no datapoint of train:loss 24 min after training started (threshold 20 min)")
    assert judged("MaxInitializationTime", j, {job_query(j, "train:loss"): minutes(2, 1, 0.7)}) == Clear()
    assert isinstance(RULES["MaxInitializationTime"].reads(job(started=NOW - 10 * MIN), defaults(
        "MaxInitializationTime"), NOW), Pending)
    assert isinstance(RULES["MaxInitializationTime"].reads(job(started=NOW - 200 * MIN), defaults(
        "MaxInitializationTime"), NOW), Clear)


def test_max_initialization_time_reads_the_logs_of_a_job_without_metric_definitions():
    j = job(started=NOW - 24 * MIN)
    need = RULES["MaxInitializationTime"].reads(j, defaults("MaxInitializationTime"), NOW)
    assert need.logs == (j.started * 1000, NOW * 1000)
    assert judged("MaxInitializationTime", j, heartbeat=beat()) == Finding(
        "no log line from any host 24 min after training started (threshold 20 min)")
    assert judged("MaxInitializationTime", j, heartbeat=beat(("job-1/algo-1-1", NOW - 3 * MIN, NOW - MIN))) == Clear()


# ---------------------------------------------------------------- the user's metrics


def test_loss_not_decreasing_holds_on_a_plateau_and_on_a_rise():
    j = job(metrics=("train:loss",))
    q = job_query(j, "train:loss")
    assert isinstance(judged("LossNotDecreasing", j, {q: minutes(30, 1, 1.4)}), Finding)
    rising = judged("LossNotDecreasing", j, {q: minutes(30, 1, lambda m: 1.0 + (30 - m) * 0.02)})
    assert isinstance(rising, Finding) and "rose" in rising.reason
    assert judged("LossNotDecreasing", j, {q: minutes(30, 1, lambda m: 1.0 + m * 0.02)}) == Clear()
    assert isinstance(judged("LossNotDecreasing", j, {q: minutes(5, 1, 1.0)}), Pending)


def test_loss_not_decreasing_finds_the_loss_by_name_or_says_what_to_set():
    assert "set the parameter metric" in judged("LossNotDecreasing", job(metrics=("accuracy",))).reason
    j = job(metrics=("accuracy", "train_loss"))
    assert RULES["LossNotDecreasing"].reads(j, defaults("LossNotDecreasing"), NOW).queries == (
        job_query(j, "train_loss"),)


def test_overfit_compares_each_validation_datapoint_with_the_training_loss_before_it():
    j = job(metrics=("train:loss", "validation:loss"))
    train, val = job_query(j, "train:loss"), job_query(j, "validation:loss")
    series = {train: minutes(60, 1, 0.5), val: minutes(55, 5, 0.8, step=10)}
    verdict = judged("Overfit", j, series)
    assert isinstance(verdict, Finding) and "validation:loss 0.8 is 60% above train:loss 0.5" in verdict.reason
    series[val] = minutes(55, 5, 0.52, step=10)
    assert judged("Overfit", j, series) == Clear()


def test_overtraining_holds_when_neither_loss_improves():
    j = job(metrics=("train:loss", "val:loss"))
    train, val = job_query(j, "train:loss"), job_query(j, "val:loss")
    flat = {train: minutes(60, 1, lambda m: 0.5 if m < 40 else 0.5 + m / 1000), val: minutes(60, 1, 0.7)}
    assert isinstance(judged("Overtraining", j, flat), Finding)
    improving = {train: minutes(60, 1, lambda m: 0.3 + m / 100), val: minutes(60, 1, lambda m: 0.5 + m / 100)}
    assert judged("Overtraining", j, improving) == Clear()


# ---------------------------------------------------------------- parameters and tags


def test_parameters_are_checked_and_named():
    _, errors = parameters(RULES["LowGPUUtilization"], {"threshold_p95": 170, "window": 2.5, "x": 1}, "where")
    assert errors == ["where.threshold_p95: 170 is not a number from 0 to 100%",
                      "where.window: 2.5 is not a whole number from 5 to 180 min",
                      "where.x: unknown parameter of LowGPUUtilization; allowed: threshold_p95, threshold_p5, "
                      "low_minutes, window, patience, mode"]
    assert parameters(RULES["StalledTraining"], {"threshold": "1800"}, "w")[1]  # text only from a tag
    assert parameters(RULES["StalledTraining"], {"threshold": "1200"}, "w", from_tag=True)[0]["threshold"] == 1200


STACK_WIDE = MonitorSettings(rules=(("LowGPUUtilization", (("window", 20),)),))


def test_a_job_gets_the_stack_wide_rules_and_those_its_tags_attach():
    applied, problems = rules_of(job(tags={"rule-actions:StalledTraining": "stoptraining email=a@example.com",
                                           "rule-actions:StalledTraining:parameters": "threshold=1200",
                                           "rule-actions:LowGPUUtilization:parameters": "window=45"}),
                                 STACK_WIDE, RULES)
    assert problems == []
    assert [(a.rule.name, a.source, a.actions) for a in applied] == [
        ("LowGPUUtilization", "config", None), ("StalledTraining", "tag", "stoptraining email=a@example.com")]
    assert applied[0].params["window"] == 45 and applied[1].params["threshold"] == 1200


def test_a_restarted_copy_s_chain_tags_are_not_rules():
    # Given a copy a restart made: its own tags (the rule its job's tag attached) and the chain's (OWN_TAGS)
    from rule_actions.kinds.restart import OWN_TAGS
    from rule_actions.monitors.tags import CHAIN_TAGS, TAG_PREFIX

    tags = {"rule-actions:StalledTraining": "stoptraining restart", **dict.fromkeys(OWN_TAGS, "1")}
    # When its rules are chosen / Then the chain's tags are no problem, and its rule tag attaches the rule
    applied, problems = rules_of(job(tags=tags), STACK_WIDE, RULES)
    assert problems == []
    assert [(a.rule.name, a.actions) for a in applied] == [("LowGPUUtilization", None),
                                                           ("StalledTraining", "stoptraining restart")]
    assert {TAG_PREFIX + name for name in CHAIN_TAGS} == set(OWN_TAGS)  # the two lists are one


def test_a_job_can_opt_out_of_the_stack_wide_rules_but_keep_its_own():
    applied, _ = rules_of(job(tags={"rule-actions:opt-out": "true", "rule-actions:StalledTraining": ""}),
                          STACK_WIDE, RULES)
    assert [a.rule.name for a in applied] == ["StalledTraining"]
    assert rules_of(job(tags={"rule-actions:StalledTraining": ""}), STACK_WIDE._replace(job_tags=False),
                    RULES)[0][0].rule.name == "LowGPUUtilization"


def test_the_opt_out_is_honoured_whatever_job_tags_says():
    # Given a job tagged to opt out, and a stack that does not read tags for rules (job_tags false)
    opted_out = job(tags={"rule-actions:opt-out": "true", "rule-actions:StalledTraining": "stoptraining"})
    # When its rules are chosen
    applied, problems = rules_of(opted_out, STACK_WIDE._replace(job_tags=False), RULES)
    # Then no stack-wide rule applies, and its own tag adds nothing either (job_tags is false)
    assert applied == [] and problems == []
    # and a malformed opt-out is still named, the stack-wide rules applying
    applied, problems = rules_of(job(tags={"rule-actions:opt-out": "yes"}), STACK_WIDE._replace(job_tags=False), RULES)
    assert [a.rule.name for a in applied] == ["LowGPUUtilization"]
    assert problems == ['tag rule-actions:opt-out: "yes" is not true or false (the stack-wide rules apply)']


@pytest.mark.parametrize(("tags", "problem"), [
    ({"rule-actions:VanishingGradient": "stoptraining"},
     'tag rule-actions:VanishingGradient: "VanishingGradient" cannot be computed without Debugger: it inspects the '
     "model's tensors, which only Debugger's hook saves; the job's other rules go on"),
    ({"rule-actions:Nope": ""}, 'tag rule-actions:Nope: "Nope" is not a rule rule-actions evaluates; the job'),
    # a misspelt rule, its parameters' tag, the opt-out: the tag meant named
    ({"rule-actions:StaledTraining": "stoptraining"},
     'tag rule-actions:StaledTraining: "StaledTraining" is not a rule rule-actions evaluates (did you mean '
     "rule-actions:StalledTraining?); the job's other rules go on"),
    ({"rule-actions:lowgpuutilization": ""}, "(did you mean rule-actions:LowGPUUtilization?)"),
    ({"rule-actions:Overfitt:parameters": "patience=2"}, 'tag rule-actions:Overfitt:parameters: "Overfitt" is not '
                                                         "a rule rule-actions evaluates (did you mean "
                                                         "rule-actions:Overfit:parameters?)"),
    ({"rule-actions:optout": "true"}, '"optout" is not a rule rule-actions evaluates (did you mean '
                                      "rule-actions:opt-out?)"),
    ({"rule-actions:StalledTraining": '[{"name": "stoptraining"}]'}, "is not a tag value"),
    ({"rule-actions:StalledTraining": "", "rule-actions:StalledTraining:parameters": "threshold=5"},
     'tag rule-actions:StalledTraining:parameters.threshold: "5" is not a whole number from 60 to 86400 s; '
     "StalledTraining is not evaluated for this job"),
    ({"rule-actions:StalledTraining": "", "rule-actions:StalledTraining:parameters": "threshold"},
     'tag rule-actions:StalledTraining:parameters: "threshold" is not key=value'),
    ({"rule-actions:StalledTraining": "", "rule-actions:StalledTraining:parameters": "threshold=" + "9" * 200},
     'tag rule-actions:StalledTraining:parameters.threshold: "999999'),
    ({"rule-actions:opt-out": "maybe"}, 'tag rule-actions:opt-out: "maybe" is not true or false'),
    ({"rule-actions:Overfit:parameters": "patience=2"}, "which no configuration or tag rule-actions:Overfit applies"),
    # a key SageMaker could not have given (found by the fuzz test): quoted, so the problem stays one line
    ({"rule-actions:\nX\u202e": "stop"}, 'tag "rule-actions:\\nX\\u202e": "\\nX\\u202e" is not a rule rule-actions evaluates'),
])
def test_a_tag_that_cannot_be_used_is_a_problem_naming_it_and_the_rest_goes_on(tags, problem):
    applied, problems = rules_of(job(tags=tags), STACK_WIDE, RULES)
    assert any(problem in p for p in problems), problems
    assert "LowGPUUtilization" in [a.rule.name for a in applied]  # the stack-wide rule still applies


# ---------------------------------------------------------------- watch mode


def test_the_mode_is_act_or_watch_wherever_it_is_set():
    # Given a mode spelled right and wrong, in a configuration and in a tag (where every value is text)
    rule = RULES["StalledTraining"]
    # When each is read / Then only act and watch pass, and a wrong one names the allowed values
    assert parameters(rule, {"mode": "act"}, "w")[0]["mode"] == "act"
    assert parameters(rule, {"mode": "watch"}, "w", from_tag=True)[0]["mode"] == "watch"
    assert parameters(rule, {"mode": "wtch"}, "monitor.rules.StalledTraining")[1] == [
        'monitor.rules.StalledTraining.mode: "wtch" is not one of act, watch']
    assert parameters(rule, {"mode": "Watch"}, "w", from_tag=True)[1] == ['w.mode: "Watch" is not one of act, watch']
    assert parameters(rule, {"mode": True}, "w")[1] == ["w.mode: true is not one of act, watch"]
    # and in a job's parameters tag the rule is then not evaluated, the problem naming the tag
    applied, problems = rules_of(job(tags={"rule-actions:StalledTraining": "stoptraining",
                                           "rule-actions:StalledTraining:parameters": "mode=wtch"}), MonitorSettings(), RULES)
    assert applied == [] and problems == ['tag rule-actions:StalledTraining:parameters.mode: "wtch" is not one of '
                                          "act, watch; StalledTraining is not evaluated for this job"]


def test_every_rule_has_a_mode_in_the_configuration_and_its_schema():
    from rule_actions.monitors.block import settings_schema

    # Given every rule's block in the schema / Then each has the mode, its two values and watch for its default
    schema = settings_schema(RULES)["properties"]["rules"]["properties"]
    assert {name: (rule["properties"]["mode"]["enum"], rule["properties"]["mode"]["default"])
            for name, rule in schema.items()} == {name: (["act", "watch"], "watch") for name in RULES}
    # and a configuration's wrong mode fails naming the field and the value
    assert config_errors({"monitor": {"rules": {"Overfit": {"mode": "wtch"}}}}) == [
        'rule_actions.monitor.rules["Overfit"].mode: "wtch" is not one of act, watch']


CONFIGURED = {"rule-actions:StalledTraining": ""}  # the job's own tag attaches the rule


@pytest.mark.parametrize(("configured", "tags", "mode"), [
    ({}, {}, "watch"),  # turned on for every job by the configuration: it watches
    (None, CONFIGURED, "act"),  # attached by the job's own tag: its owner asked for it, it acts
    ({}, CONFIGURED, "act"),  # both: the tag's request wins
    ({"mode": "act"}, {}, "act"),  # an explicit mode wins ...
    ({"mode": "watch"}, CONFIGURED, "watch"),  # ... over the tag's default too
    (None, {**CONFIGURED, "rule-actions:StalledTraining:parameters": "mode=watch"}, "watch"),
    ({"mode": "act"}, {**CONFIGURED, "rule-actions:StalledTraining:parameters": "mode=watch"}, "watch"),  # tag first
    ({"mode": "watch"}, {"rule-actions:StalledTraining:parameters": "mode=act threshold=1200"}, "act"),
])
def test_a_rules_mode_is_the_one_set_else_who_turned_it_on_decides(configured, tags, mode):
    # Given StalledTraining turned on by the configuration (its parameters), by the job's tag, or both
    settings = MonitorSettings(rules=(("StalledTraining", tuple(configured.items())),)) if configured is not None else \
        MonitorSettings()
    # When the job's rules are chosen
    applied, problems = rules_of(job(tags=tags), settings, RULES)
    # Then the rule has the mode set (the tag's over the configuration's), else act when the job's tag attaches
    # it and watch when only the configuration does
    assert problems == [] and [(a.rule.name, a.params["mode"]) for a in applied] == [("StalledTraining", mode)]


def test_an_opted_out_job_keeps_its_own_rules_acting():
    settings = MonitorSettings(rules=(("StalledTraining", ()),))
    applied, _ = rules_of(job(tags={"rule-actions:opt-out": "true", **CONFIGURED}), settings, RULES)
    assert [(a.source, a.params["mode"]) for a in applied] == [("tag", "act")]


def test_the_client_sets_a_rules_mode_in_its_parameters_tag():
    from rule_actions_sdk import StopTraining, monitor_tags

    assert monitor_tags("StalledTraining", StopTraining(), mode="watch") == [
        {"Key": "rule-actions:StalledTraining", "Value": "stoptraining"},
        {"Key": "rule-actions:StalledTraining:parameters", "Value": "mode=watch"}]
    with pytest.raises(ValueError, match=r'parameters\.mode: "wtch" is not one of act, watch'):
        monitor_tags("StalledTraining", StopTraining(), mode="wtch")


# ---------------------------------------------------------------- the configuration block, the tag helper, the grammar


def config_errors(data: dict) -> list[str]:
    from rule_actions.config import Config, ConfigError

    try:
        Config.from_dict(data)
    except ConfigError as err:
        return [line.strip() for line in str(err).splitlines()[1:]]
    return []


def test_the_monitor_block_names_each_bad_field_and_value():
    assert config_errors({"monitor": {"rules": {"VanishingGradient": {}, "LowGPUUtilization": {"window": 2}},
                                      "every_minutes": 0}}) == [
        'rule_actions.monitor.rules["VanishingGradient"]: "VanishingGradient" cannot be computed without Debugger: '
        "it inspects the model's tensors, which only Debugger's hook saves; rules: " + ", ".join(RULES),
        'rule_actions.monitor.rules["LowGPUUtilization"].window: 2 is not a whole number from 5 to 180 min',
        "rule_actions.monitor.every_minutes: 0 is not a whole number of minutes from 1 to 60"]
    assert config_errors({"monitor": {"regions": ["eu-west-1"]}}) == [
        "rule_actions.monitor.regions: only organization mode evaluates other regions (one account: the stack's own "
        "region); remove it"]
    assert config_errors({"monitor": {}, "organization": {"org_id": "o-a1b2c3d4e5", "central_account": "123456789012",
                                                          "central_region": "us-east-1"}}) == [
        "rule_actions.monitor: organization mode evaluates the jobs of organization.accounts, which lists none (an "
        "organization id alone names no account to evaluate)"]


def test_without_a_monitor_block_the_environment_is_what_it_was():
    from rule_actions.config import Config

    assert "monitor" not in Config().to_json() and Config.from_dict({"monitor": None}) == Config()
    assert plugins.schedule(Config()) is None
    schedule = plugins.schedule(Config.from_dict({"monitor": {"every_minutes": 10, "shards": 2}}))
    assert schedule.every_minutes == 10 and schedule.runs == ({"shard": 0, "shards": 2}, {"shard": 1, "shards": 2})
    org = Config.from_dict({"monitor": {"regions": ["us-east-1", "eu-west-1"]}, "organization": {
        "accounts": ["111122223333", "444455556666"], "central_account": "123456789012", "central_region": "us-east-1"}})
    assert [(r["account"], r["region"]) for r in plugins.schedule(org).runs] == [
        ("111122223333", "us-east-1"), ("111122223333", "eu-west-1"), ("444455556666", "us-east-1"),
        ("444455556666", "eu-west-1")]


def test_the_evaluators_grants_add_its_reads_to_what_the_function_may_do():
    from rule_actions.config import Config

    grants = {g.sid: g for g in plugins.evaluation_grants(Config.from_dict({"monitor": {}}))}
    assert grants["SearchTrainingJobs"].actions == ("sagemaker:Search",) and grants["SearchTrainingJobs"].resources == (
        "*",)
    assert grants["ReadTrainingMetrics"].actions == ("cloudwatch:GetMetricData",)
    assert [r.name for r in grants["ReadTrainingLogs"].resources] == ["/aws/sagemaker/TrainingJobs",
                                                                      "/aws/sagemaker/TrainingJobs:*"]
    # And the Logs Insights query: started on the log group only, its results and stop on "*" (no narrower resource)
    assert grants["ReadTrainingLogs"].actions == ("logs:FilterLogEvents", "logs:StartQuery")
    assert (grants["ReadTrainingLogQueries"].actions, grants["ReadTrainingLogQueries"].resources) == (
        ("logs:GetQueryResults", "logs:StopQuery"), ("*",))
    assert "sagemaker:DescribeTrainingJob" in grants["StopAndDescribeTrainingJobs"].actions
    metrics_only = Config.from_dict({"monitor": {"rules": {"LowGPUUtilization": {}}, "job_tags": False}})
    assert not {"ReadTrainingLogs", "ReadTrainingLogQueries"} & {g.sid for g in plugins.evaluation_grants(metrics_only)}


def test_the_client_builds_the_tags_that_attach_a_rule():
    from rule_actions_sdk import SMS, ActionList, Email, StopTraining, monitor_opt_out, monitor_tags

    assert monitor_tags("StalledTraining", ActionList(StopTraining(), Email("first.last@mail.example.co.uk"),
                                                      SMS("+15555550100")), threshold=1200) == [
        {"Key": "rule-actions:StalledTraining", "Value": "stoptraining email=first.last@mail.example.co.uk "
                                                         "sms=+15555550100"},
        {"Key": "rule-actions:StalledTraining:parameters", "Value": "threshold=1200"}]
    assert monitor_tags("LowGPUUtilization", StopTraining("exp-a")) == [
        {"Key": "rule-actions:LowGPUUtilization", "Value": "stoptraining=exp-a"}]
    assert monitor_opt_out() == [{"Key": "rule-actions:opt-out", "Value": "true"}]
    # And what the evaluation would refuse is refused here, naming it
    with pytest.raises(ValueError, match="cannot be computed without Debugger"):
        monitor_tags("IOBottleneck")
    with pytest.raises(ValueError, match=r"'StaledTraining' is not a rule rule-actions evaluates; did you mean "
                                         r"'StalledTraining'\?$"):
        monitor_tags("StaledTraining")
    with pytest.raises(ValueError, match=r"parameters\.window: 1 is not a whole number"):
        monitor_tags("LowGPUUtilization", window=1)
    with pytest.raises(ValueError, match="is not a SageMaker tag value"):
        monitor_tags("StalledTraining", Email("o'brien@example.com"))
    with pytest.raises(TypeError):
        monitor_tags("StalledTraining", [StopTraining()])


@pytest.mark.parametrize(("value", "entries"), [
    ("stoptraining email=a@example.com sms=+15555550100", [{"name": "stoptraining"},
                                                           {"name": "email", "endpoint": "a@example.com"},
                                                           {"name": "sms", "endpoint": "+15555550100"}]),
    ("StopTraining=exp-", [{"name": "StopTraining", "training_job_prefix": "exp-"}]),
    ("", []), ("nope=1", [{"name": "nope", "endpoint": "1"}]),
    ('[{"name": "email", "endpoint": "a@example.com"}]', [{"name": "email", "endpoint": "a@example.com"}]),
])
def test_the_tag_form_of_the_action_grammar(value, entries):
    from rule_actions import grammar

    assert grammar.tag_entries(value) == entries


def test_what_a_tag_declares_is_checked_as_action_json_is():
    import json

    from rule_actions import grammar

    actions, invalid = grammar.parse_action_json(json.dumps(grammar.tag_entries("stoptraining=a* email=x notify")))
    assert actions == []
    assert [(i.field, i.kind) for i in invalid] == [("action_json[0].training_job_prefix", "stoptraining"),
                                                   ("action_json[1].endpoint", "email"),
                                                   ("action_json[2].name", "action_json")]


def test_a_job_heard_within_the_threshold_needs_no_log_query():
    rule, p = RULES["StalledTraining"], defaults("StalledTraining")
    recent = job(hosts=(("ml.p3.16xlarge", 2),))._replace(heard={"algo-1": (NOW - 3 * MIN) * 1000,
                                                                  "algo-2": (NOW - 20 * MIN) * 1000})
    assert isinstance(rule.reads(recent, p, NOW), Clear)
    # A watched host heard longer ago than the threshold may be the stalled one: its logs are read
    stale = recent._replace(heard={"algo-1": (NOW - 3 * MIN) * 1000, "algo-2": (NOW - 31 * MIN) * 1000})
    assert isinstance(rule.reads(stale, p, NOW), Reads)
    # A host heard only during start-up is not watched: it does not force a query
    quiet = job(hosts=(("ml.p3.16xlarge", 2),), started=NOW - 60 * MIN)._replace(
        heard={"algo-1": (NOW - 2 * MIN) * 1000, "algo-2": (NOW - 58 * MIN) * 1000})
    assert isinstance(rule.reads(quiet, p, NOW), Clear)


HUGE = 10**400  # an integer too large for a float


def test_an_integer_too_large_for_a_float_is_an_error_naming_the_parameter_wherever_it_is_given():
    # Given a whole and a fractional parameter each given an integer too large for a float
    # When the configuration, the parameters and the SDK's tag helper read them
    errors = config_errors({"monitor": {"rules": {"StalledTraining": {"threshold": HUGE},
                                                  "LowGPUUtilization": {"threshold_p95": -HUGE}}}})
    _, problems = parameters(RULES["LowGPUUtilization"], {"threshold_p95": HUGE}, "where")
    from rule_actions_sdk import monitor_tags

    # Then each is one error naming the field and the value, never an OverflowError
    assert errors == ['rule_actions.monitor.rules["StalledTraining"].threshold: 1' + "0" * 59
                      + '..." is not a whole number from 60 to 86400 s',
                      'rule_actions.monitor.rules["LowGPUUtilization"].threshold_p95: -1' + "0" * 58
                      + '..." is not a number from 0 to 100%']
    assert problems == ["where.threshold_p95: 1" + "0" * 59 + '..." is not a number from 0 to 100%']
    with pytest.raises(ValueError, match=r"StalledTraining parameters\.threshold: 10+\.\.\.\" is not a whole number"):
        monitor_tags("StalledTraining", threshold=HUGE)
