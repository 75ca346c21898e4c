"""The monitor rules of the other job families (processing, transform, tuning): the job as their listing gives it,
the rules (StalledJob, IdleInstances, RuntimeOverrun, FailingTrials, NoImprovement) as pure functions, which rules
apply to which family, an evaluation over several families (over fake ports: what it reads, per family), the
listing's reads and cache (effects/sagemaker.py over a fake client), and the grants of each family."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions.effects.sagemaker import SageMaker
from rule_actions.jobs.common import PROCESSING
from rule_actions.monitors.block import MonitorSettings
from rule_actions.monitors.job import Host, RunningJob
from rule_actions.monitors.rule import Data, Reads, in_phase, parameters
from rule_actions.monitors.series import host_query
from rule_actions.monitors.tags import rules_of
from rule_actions.monitors.verdicts import Clear, Finding, NotJudged, Pending, Skipped
from rule_actions.records import EvaluationRequest, EvaluationRun, Heartbeat, Span, Trial, UnreadJob
from rule_actions_cdk import plugins

NOW = 1_795_514_400  # 2026-11-24T10:00:00Z
MIN = 60
RULES = registry.monitors()
FAMILY = {family.name: family for family in registry.JOBS}
ACCOUNT = "arn:aws:sagemaker:us-east-1:123456789012"


def at(minutes_ago: float) -> datetime:
    return datetime.fromtimestamp(NOW - minutes_ago * MIN, UTC)


def processing(name="prep-1", instance_type="ml.m5.xlarge", count=2, started=90, tags=None, status="InProgress"):
    """A running processing job's description and tags, as the listing gives it."""
    return {"ProcessingJobName": name, "ProcessingJobArn": f"{ACCOUNT}:processing-job/{name}",
            "ProcessingJobStatus": status,
            **({"ProcessingStartTime": at(started)} if started is not None else {}),
            "ProcessingResources": {"ClusterConfig": {"InstanceType": instance_type, "InstanceCount": count,
                                                      "VolumeSizeInGB": 30}},
            "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
            "Tags": [{"Key": k, "Value": v} for k, v in (tags or {}).items()]}


def transform(name="score-1", started=90, tags=None):
    return {"TransformJobName": name, "TransformJobArn": f"{ACCOUNT}:transform-job/{name}",
            "TransformJobStatus": "InProgress", "TransformStartTime": at(started),
            "TransformResources": {"InstanceType": "ml.m5.large", "InstanceCount": 2},
            "Tags": [{"Key": k, "Value": v} for k, v in (tags or {}).items()]}


def tuning(name="hpo-1", created=90, tags=None, objective="Minimize"):
    return {"HyperParameterTuningJobName": name, "HyperParameterTuningJobArn": f"{ACCOUNT}:hyper-parameter-tuning-job/"
            f"{name}", "HyperParameterTuningJobStatus": "InProgress", "CreationTime": at(created),
            "HyperParameterTuningJobConfig": {"Strategy": "Bayesian", "HyperParameterTuningJobObjective": {
                "Type": objective, "MetricName": "validation:loss"}},
            "Tags": [{"Key": k, "Value": v} for k, v in (tags or {}).items()]}


def defaults(rule: str, **given) -> dict:
    values, errors = parameters(RULES[rule], given, "test")
    assert not errors
    return values


def judged(rule: str, j: RunningJob, series=None, heartbeat=None, streams=None, trials=(), **given):
    """The rule's verdict as an evaluation reaches it (in_phase, needs, judge, and again with the streams asked)."""
    p = defaults(rule, **given)
    need = in_phase(j, RULES[rule], NOW) or RULES[rule].reads(j, p, NOW)
    if not isinstance(need, Reads):
        return need
    found = RULES[rule].judge(j, p, NOW, Data(series or {}, heartbeat, {}, tuple(trials)))
    if isinstance(found, Reads):
        read = {prefix: (streams or {}).get(prefix, Heartbeat((), True)) for prefix, _s, _e in found.streams}
        found = RULES[rule].judge(j, p, NOW, Data(series or {}, heartbeat, read, tuple(trials)))
    return found


def beat(*streams) -> Heartbeat:
    """(stream, first, last) in minutes ago: a line every minute in between."""
    return Heartbeat(tuple(Span(name, (NOW - first * MIN) * 1000, (NOW - last * MIN) * 1000, 10, MIN * 1000)
                           for name, first, last in streams), True)


def minutes(first: int, last: int, value: float) -> tuple[tuple[int, float], ...]:
    return tuple((NOW - m * MIN, float(value)) for m in range(first, last - 1, -1))


# ---------------------------------------------------------------- the job of each family


def test_a_processing_job_is_its_cluster_s_hosts_judged_in_progress_from_its_start():
    # Given a processing job's description on two ml.m5.xlarge instances, started 90 minutes ago
    j = RunningJob.of(processing(), FAMILY["processing"])
    # Then its hosts are algo-1 and algo-2 (Host <job>/algo-<n> in /aws/sagemaker/ProcessingJobs), its clock its start
    assert [(h.name, h.vcpus, h.gpus) for h in j.hosts] == [("algo-1", 4, 0), ("algo-2", 4, 0)]
    assert (j.family, j.status, j.started, j.max_runtime) == ("processing", "InProgress", NOW - 90 * MIN, 86400)
    assert host_query(j, j.hosts[0], "CPUUtilization").namespace == "/aws/sagemaker/ProcessingJobs"
    assert host_query(j, j.hosts[0], "CPUUtilization").dimensions == (("Host", "prep-1/algo-1"),)
    assert in_phase(j, RULES["StalledJob"], NOW) is None


def test_a_job_of_another_family_not_started_is_pending_and_one_stopping_is_not_judged():
    # Given a processing job created but not started, and one stopping
    created = RunningJob.of(processing(started=None), FAMILY["processing"])
    stopping = RunningJob.of(processing(status="Stopping"), FAMILY["processing"])
    # Then the first is not judged yet, the second never, each saying why
    assert in_phase(created, RULES["StalledJob"], NOW) == Pending(
        "the processing job has not started yet (no start time)")
    assert in_phase(stopping, RULES["StalledJob"], NOW) == NotJudged(
        "the processing job is Stopping: not judged (StalledJob judges InProgress only)")


def test_a_transform_job_s_streams_name_its_instances_and_a_tuning_job_its_objective():
    j = RunningJob.of(transform(), FAMILY["transform"])
    assert j.host_of("score-1/i-0a1b2c3d4e5f60718-1795500000") == "i-0a1b2c3d4e5f60718"
    assert j.host_of("score-1/i-0a1b2c3d4e5f60718-1795500000/data-log") == "i-0a1b2c3d4e5f60718"
    assert RunningJob.of(tuning(objective="Maximize"), FAMILY["tuning"]).objective == "Maximize"


# ---------------------------------------------------------------- which rules a job of each family gets


def test_a_configured_rule_applies_to_the_families_it_judges_and_a_tag_of_another_family_s_rule_is_a_problem():
    # Given a configuration turning on StalledTraining and StalledJob, and a processing job tagged with LowGPUUtilization
    settings = MonitorSettings(rules=(("StalledTraining", ()), ("StalledJob", ())))
    j = RunningJob.of(processing(tags={"rule-actions:LowGPUUtilization": "stop"}), FAMILY["processing"])
    applied, problems = rules_of(j, settings, RULES)
    # Then only StalledJob applies, and the tag is a problem naming what the rule judges
    assert [a.rule.name for a in applied] == ["StalledJob"]
    assert problems == ["tag rule-actions:LowGPUUtilization: LowGPUUtilization judges training jobs only, not a "
                        "processing job; the job's other rules go on"]
    # and a training job gets StalledTraining only
    training = RunningJob("t-1", "arn", "InProgress", "Training", NOW - 90 * MIN, (), (), {})
    assert [a.rule.name for a in rules_of(training, settings, RULES)[0]] == ["StalledTraining"]


def test_a_trial_carrying_its_tuning_job_s_rule_tag_is_no_problem_a_lone_training_job_s_is():
    # Given the FailingTrials tag (a tuning job's rule), which SageMaker copies from a tuning job to its trials
    tag = {"rule-actions:FailingTrials": "stop"}
    trial = RunningJob("t-001-abc", "arn", "InProgress", "Training", NOW - 90 * MIN, (), (), tag,
                       parent="arn:aws:sagemaker:us-east-1:123456789012:hyper-parameter-tuning-job/t")
    lone = RunningJob("t-1", "arn", "InProgress", "Training", NOW - 90 * MIN, (), (), tag)
    # When each job's rules are read
    trial_rules, trial_problems = rules_of(trial, MonitorSettings(), RULES)
    lone_rules, lone_problems = rules_of(lone, MonitorSettings(), RULES)
    # Then the trial gets no rule and no problem (its tuning job's rule judges it there), the lone job a problem
    assert (trial_rules, trial_problems) == ([], [])
    assert lone_rules == [] and lone_problems == [
        "tag rule-actions:FailingTrials: FailingTrials judges hyperparameter tuning jobs only, not a training job; "
        "the job's other rules go on"]


# ---------------------------------------------------------------- StalledJob


def test_stalled_job_holds_when_no_host_of_a_processing_job_logs_for_the_threshold():
    j = RunningJob.of(processing(), FAMILY["processing"])
    hb = beat(("prep-1/algo-1-1795500000", 44, 34), ("prep-1/algo-2-1795500000", 44, 36))
    assert judged("StalledJob", j, heartbeat=hb) == Finding("no log line from any host for 34 min (threshold 30 min)")
    assert judged("StalledJob", j, heartbeat=beat(("prep-1/algo-1-1795500000", 44, 1))) == Clear()


def test_stalled_job_names_a_silent_instance_of_a_transform_job_only_when_asked_per_host():
    # Given a transform job on two instances, one silent for 40 minutes while the other logs
    j = RunningJob.of(transform(started=180), FAMILY["transform"])
    a, b = "score-1/i-0aaaaaaaaaaaaaaa1-1795500000", "score-1/i-0bbbbbbbbbbbbbbb2-1795500000"
    hb = beat((a, 45, 1), (f"{a}/data-log", 45, 2), (b, 45, 40))
    # When its rhythm is read (a line a minute before it fell silent)
    history = {"score-1/i-0bbbbbbbbbbbbbbb2": beat((b, 180, 40))}
    # Then, by default, the job is not stalled: an instance that finished its share of the input waits quietly
    assert judged("StalledJob", j, heartbeat=hb, streams=history) == Clear()
    # and with per_host, it is the stalled host, named by its instance id
    assert judged("StalledJob", j, heartbeat=hb, streams=history, per_host="true") == Finding(
        "no log line from i-0bbbbbbbbbbbbbbb2 for 40 min (threshold 30 min; its longest gap before: 1 min), while "
        "i-0aaaaaaaaaaaaaaa1 still logs")


def test_stalled_job_waits_for_the_threshold_after_the_job_started():
    j = RunningJob.of(processing(started=12), FAMILY["processing"])
    assert judged("StalledJob", j) == Pending("the job started 12 min ago (threshold 30 min)")


# ---------------------------------------------------------------- IdleInstances


def cpu(j: RunningJob, host: str, value: float) -> dict:
    [h] = [h for h in j.hosts if h.name == host]
    return {host_query(j, h, "CPUUtilization"): minutes(40, 2, value)}


def test_idle_instances_holds_when_the_processing_job_s_hosts_idle_for_the_window():
    # Given a processing job on two 4-vCPU instances: algo-1 busy (200% = 50% per vCPU), algo-2 at 8% (2% per vCPU)
    j = RunningJob.of(processing(), FAMILY["processing"])
    series = {**cpu(j, "algo-1", 200), **cpu(j, "algo-2", 8)}
    # Then, by default, the job is not idle: algo-2 may have finished its share of the input
    assert judged("IdleInstances", j, series) == Clear(
        "1 of 2 hosts idle, the others work (per_host is false): algo-2 idles: CPU p95 2% < 5% per vCPU over the "
        "last 30 min")
    # and with per_host, algo-2 idles
    assert judged("IdleInstances", j, series, per_host="true") == Finding(
        "algo-2 idles: CPU p95 2% < 5% per vCPU over the last 30 min")
    # and when both idle, the job does
    assert judged("IdleInstances", j, {**cpu(j, "algo-1", 4), **cpu(j, "algo-2", 8)}) == Finding(
        "algo-1 idles: CPU p95 1% < 5% per vCPU over the last 30 min; algo-2 idles: CPU p95 2% < 5% per vCPU over "
        "the last 30 min")
    # and a busy job is clear
    assert judged("IdleInstances", j, {**cpu(j, "algo-1", 200), **cpu(j, "algo-2", 150)}) == Clear()


def test_idle_instances_reads_the_gpu_of_a_gpu_instance_and_skips_an_unknown_type():
    # Given a GPU processing job whose CPU idles while its GPU works
    j = RunningJob.of(processing(instance_type="ml.g5.xlarge", count=1), FAMILY["processing"])
    [h] = j.hosts
    busy_gpu = {**cpu(j, "algo-1", 1), host_query(j, h, "GPUUtilization"): minutes(40, 2, 90)}
    assert judged("IdleInstances", j, busy_gpu) == Clear()
    idle_gpu = {**cpu(j, "algo-1", 1), host_query(j, h, "GPUUtilization"): minutes(40, 2, 0)}
    assert judged("IdleInstances", j, idle_gpu) == Finding(
        "algo-1 idles: CPU p95 0% < 5% per vCPU and GPU p95 0% < 5% (1 GPU) over the last 30 min")
    odd = RunningJob.of(processing(instance_type="ml.x9.huge"), FAMILY["processing"])
    assert isinstance(judged("IdleInstances", odd), Skipped)


def test_idle_instances_waits_for_its_warm_up_and_a_full_window():
    j = RunningJob.of(processing(started=20), FAMILY["processing"])
    assert judged("IdleInstances", j) == Pending(
        "the job started 20 min ago: the rule waits 5 min, then judges 30-min windows")


# ---------------------------------------------------------------- RuntimeOverrun


def test_runtime_overrun_is_skipped_without_a_declared_duration_naming_the_parameter():
    j = RunningJob.of(processing(), FAMILY["processing"])
    assert judged("RuntimeOverrun", j) == Skipped(
        "RuntimeOverrun needs expected_minutes: declare it in the tag rule-actions:RuntimeOverrun:parameters "
        "(expected_minutes=<minutes>) or in monitor.rules.RuntimeOverrun; its MaxRuntimeInSeconds is 24 h 00 min")


def test_runtime_overrun_holds_past_factor_times_what_was_declared():
    # Given a job declared to take 40 minutes, running for 90
    j = RunningJob.of(transform(started=90), FAMILY["transform"])
    assert judged("RuntimeOverrun", j, expected_minutes=40) == Finding(
        "the job ran 1 h 30 min; expected 40 min, allowed 2 times that (1 h 20 min)")
    assert judged("RuntimeOverrun", j, expected_minutes=50) == Clear(
        "ran 1 h 30 min; expected 50 min, allowed 2 times that")


# ---------------------------------------------------------------- FailingTrials, NoImprovement


def trial(n: int, status: str, reason="", objective=None) -> Trial:
    return Trial(f"hpo-1-{n:03d}-abc", status, NOW - (100 - n) * MIN, NOW - (99 - n) * MIN if status != "InProgress"
                 else None, reason, objective)


BUG = "AlgorithmError: ExecuteUserScriptError: KeyError: 'label'"


def test_failing_trials_holds_when_the_first_trials_failed_naming_their_one_reason():
    # Given a tuning job whose first three trials failed with the same bug, a fourth running
    trials = [trial(1, "Failed", BUG), trial(2, "Failed", BUG), trial(3, "Failed", BUG), trial(4, "InProgress")]
    j = RunningJob.of(tuning(), FAMILY["tuning"])
    # Then the rule holds, naming the one reason and the trials
    assert judged("FailingTrials", j, trials=trials) == Finding(
        f"its first 3 trials failed (hpo-1-001-abc, hpo-1-002-abc, hpo-1-003-abc): 1 distinct reason: {BUG} (3 "
        "trials)")
    # and with two failed, one completed, it does not
    mixed = [trial(1, "Failed", BUG), trial(2, "Completed", objective=0.3), trial(3, "Failed", BUG)]
    assert judged("FailingTrials", j, trials=mixed) == Clear("2 of 3 ended trials failed")


def test_failing_trials_holds_when_the_latest_trials_failed_in_a_row():
    trials = [trial(1, "Completed", objective=0.5), trial(2, "Completed", objective=0.4),
              trial(3, "Failed", "CapacityError: ml.p4d.24xlarge"), trial(4, "Failed", BUG), trial(5, "Failed", BUG)]
    found = judged("FailingTrials", RunningJob.of(tuning(), FAMILY["tuning"]), trials=trials)
    assert found == Finding(
        "its latest 3 trials failed in a row (hpo-1-003-abc, hpo-1-004-abc, hpo-1-005-abc): 2 distinct reasons: "
        f"CapacityError: ml.p4d.24xlarge (1 trial); {BUG} (2 trials)")
    assert judged("FailingTrials", RunningJob.of(tuning(), FAMILY["tuning"]), trials=[trial(1, "InProgress")]) == Pending(
        "no trial has ended yet")


def test_no_improvement_holds_when_the_last_trials_did_not_beat_the_best_before_them():
    # Given a minimizing tuning job: 0.30 best early, then three trials no better
    trials = [trial(1, "Completed", objective=0.5), trial(2, "Completed", objective=0.3),
              trial(3, "Completed", objective=0.31), trial(4, "Failed", BUG), trial(5, "Completed", objective=0.4),
              trial(6, "Completed", objective=0.35)]
    j = RunningJob.of(tuning(), FAMILY["tuning"])
    p = defaults("NoImprovement", trials=3)
    data = Data({}, None, {}, tuple(trials))
    assert RULES["NoImprovement"].judge(j, p, NOW, data) == Finding(
        "none of the last 3 completed trials improved the objective (Minimize) by more than 0: their best 0.31 "
        "(hpo-1-003-abc), the best before them 0.3")
    # and a maximizing one whose trial among the last three beat the best before them is clear
    up = RunningJob.of(tuning(objective="Maximize"), FAMILY["tuning"])
    rising = Data({}, None, {}, (*trials[:5], trial(6, "Completed", objective=0.55)))
    assert RULES["NoImprovement"].judge(up, p, NOW, rising) == Clear(
        "hpo-1-006-abc improved the objective to 0.55 among the last 3 trials")
    few = Data({}, None, {}, tuple(trials[:3]))
    assert isinstance(RULES["NoImprovement"].judge(j, p, NOW, few), Pending)


# ---------------------------------------------------------------- an evaluation over several families


class Ports:
    """Fake ports: each family's running jobs by its JobApi's describe operation; every call recorded."""

    region = "us-east-1"

    def __init__(self, running: dict[str, list], beats=None, series=None, trials=None):
        self.calls: list[Any] = []
        self.instances: list[str] = []
        outer = self

        class Jobs:
            def running(self, api):
                outer.calls.append(("running", api.describe))
                return list(running.get(api.describe, []))

            def describe(self, api, name):
                outer.calls.append((api.describe, name))
                key = api.name
                return next(r for r in running[api.describe] if isinstance(r, dict) and r.get(key) == name)

            def trials(self, name, limit):
                outer.calls.append(("ListTrainingJobsForHyperParameterTuningJob", name, limit))
                return list((trials or {}).get(name, ()))

        class Metrics:
            def hosts(self, namespace, metric):
                outer.calls.append(("ListMetrics", namespace, metric))
                return tuple(outer.instances)

            def data(self, queries, start, end):
                outer.calls.append(("GetMetricData", len(queries)))
                return {q: (series or {}).get(q, ()) for q in queries}

        class Logs:
            insights_from = 500  # (the port's default: FilterLogEvents per job below it)

            def heartbeat(self, group, prefix, start, end):
                outer.calls.append(("FilterLogEvents", group, prefix))
                return (beats or {}).get(prefix.rstrip("/"), Heartbeat((), True))

        self.jobs, self.metrics, self.logs = Jobs(), Metrics(), Logs()


def evaluate(config: dict, ports: Ports):
    run = EvaluationRun(EvaluationRequest(None, None, None), NOW, lambda: True, {}, ports.region, ports.logs.insights_from)
    return pipeline.answered(registry.evaluate(run, Config.from_dict(config)), ports)


def test_an_evaluation_lists_each_family_a_rule_judges_and_hands_over_a_processing_job_s_state_change():
    # Given StalledJob turned on, a hung processing job and a healthy transform job
    hung = processing(tags={"rule-actions:StalledJob": "stop"})
    ports = Ports({"DescribeProcessingJob": [hung], "DescribeTransformJob": [transform()]},
                  beats={"prep-1": beat(("prep-1/algo-1-1795500000", 44, 34)),
                         "score-1": beat(("score-1/i-0a-1795500000", 44, 1))})
    report = evaluate({"monitor": {"rules": {"StalledJob": {}}}}, ports)
    # Then training, processing and transform jobs are listed, each family's logs read in its own log group
    assert [c for c in ports.calls if c[0] == "running"] == [
        ("running", "DescribeTrainingJob"), ("running", "DescribeProcessingJob"), ("running", "DescribeTransformJob")]
    assert sorted(c[1:] for c in ports.calls if c[0] == "FilterLogEvents") == [
        ("/aws/sagemaker/ProcessingJobs", "prep-1/"), ("/aws/sagemaker/TransformJobs", "score-1/")]
    # and the hung job becomes the processing family's state change carrying the Monitor rule status
    [acted] = [j for j in report.jobs if j.event]
    assert (acted.job, acted.family) == ("prep-1", "processing")
    event = acted.event
    assert event.family.detail_type == "SageMaker Processing Job State Change"
    assert event.detail["ProcessingJobName"] == "prep-1"
    [status] = event.detail["MonitorRuleEvaluationStatuses"]
    assert (status["RuleConfigurationName"], status["RuleEvaluationStatus"]) == ("StalledJob", "IssuesFound")
    assert status["StatusDetails"] == "no log line from any host for 34 min (threshold 30 min)"
    [configuration] = event.detail["MonitorRuleConfigurations"]
    assert configuration["RuleParameters"]["rule_to_invoke"] == "StalledJob"
    assert configuration["RuleParameters"]["mode"] == "act"  # its own tag attached it
    [healthy] = [j for j in report.jobs if j.job == "score-1"]
    assert healthy.event is None and [v.verdict for v in healthy.verdicts] == ["NoIssuesFound"]


def test_a_tuning_job_s_trials_are_read_once_per_run_and_a_job_whose_reads_failed_has_its_own_row():
    # Given FailingTrials on, a tuning job whose first trials failed, and a processing job whose describe failed
    failed = [trial(1, "Failed", BUG), trial(2, "Failed", BUG), trial(3, "Failed", BUG)]
    ports = Ports({"DescribeHyperParameterTuningJob": [tuning()],
                   "DescribeProcessingJob": [UnreadJob("prep-9", "DescribeProcessingJob failed: Throttling")]},
                  trials={"hpo-1": failed})
    report = evaluate({"monitor": {"rules": {"FailingTrials": {}, "RuntimeOverrun": {}}}}, ports)
    # Then one trials call for the tuning job, bounded
    assert [c for c in ports.calls if c[0].startswith("ListTraining")] == [
        ("ListTrainingJobsForHyperParameterTuningJob", "hpo-1", 100)]
    rows = {j.job: j for j in report.jobs}
    assert [(v.rule, v.verdict) for v in rows["hpo-1"].verdicts] == [("FailingTrials", "IssuesFound"),
                                                                     ("RuntimeOverrun", "Skipped")]
    assert rows["hpo-1"].event.family.detail_type == "SageMaker HyperParameter Tuning Job State Change"
    # and the processing job that could not be read is reported on its own row, never acted on
    assert rows["prep-9"].verdicts[0].verdict == "Error" and rows["prep-9"].event is None
    assert "Throttling" in rows["prep-9"].verdicts[0].reason


def test_a_configuration_of_training_rules_lists_training_jobs_only():
    ports = Ports({})
    evaluate({"monitor": {"rules": {"StalledTraining": {}}}}, ports)
    assert [c for c in ports.calls if c[0] == "running"] == [("running", "DescribeTrainingJob")]
    evaluate({"monitor": {"families": ["transform"]}}, ports)
    assert ("running", "DescribeTransformJob") in ports.calls


# ---------------------------------------------------------------- the listing of processing and transform jobs


class Client:
    """A fake SageMaker client: ListProcessingJobs pages, DescribeProcessingJob, ListTags; every call recorded."""

    def __init__(self, names, failing=()):
        self.names, self.failing, self.calls = list(names), set(failing), []
        outer = self

        class Paginator:
            def __init__(self, op):
                self.op = op

            def paginate(self, **kwargs):
                outer.calls.append((self.op, kwargs.get("StatusEquals")))
                if self.op == "list_tags":
                    yield {"Tags": [{"Key": "team", "Value": "ml"}]}
                    return
                yield {"ProcessingJobSummaries": [{"ProcessingJobName": n} for n in outer.names]}

        self.Paginator = Paginator

    def get_paginator(self, op):
        return self.Paginator(op)

    def describe_processing_job(self, ProcessingJobName):
        self.calls.append(("describe", ProcessingJobName))
        if ProcessingJobName in self.failing:
            raise RuntimeError("Rate exceeded")
        return {**processing(ProcessingJobName), "ResponseMetadata": {}}


def test_processing_jobs_are_listed_then_each_described_and_tagged_once_per_execution_environment():
    # Given two running processing jobs, one whose describe fails
    client = Client(["prep-1", "prep-2"], failing={"prep-2"})
    jobs = SageMaker(client)
    # When the evaluation lists them twice
    first = jobs.running(PROCESSING)
    second = jobs.running(PROCESSING)
    # Then each run lists once; prep-1 is described and tagged once only, prep-2 is an UnreadJob each run
    assert client.calls.count(("list_processing_jobs", "InProgress")) == 2
    assert client.calls.count(("describe", "prep-1")) == 1 and client.calls.count(("list_tags", None)) == 1
    assert first[0]["Tags"] == [{"Key": "team", "Value": "ml"}] and "ResponseMetadata" not in first[0]
    assert isinstance(first[1], UnreadJob) and "Rate exceeded" in first[1].reason
    assert second[0] == first[0]
    # and a job no longer listed is forgotten
    client.names = []
    assert jobs.running(PROCESSING) == [] and not jobs.described


# ---------------------------------------------------------------- grants per family


def test_the_evaluator_is_granted_each_family_s_reads_only_when_a_rule_judges_it():
    def sids(config):
        return {g.sid: g for g in plugins.evaluation_grants(Config.from_dict(config))}

    training = sids({"monitor": {"rules": {"StalledTraining": {}}}})
    assert not any("Processing" in sid or "Transform" in sid or "Tuning" in sid for sid in training)
    both = sids({"monitor": {"rules": {"StalledJob": {}, "IdleInstances": {}}}})
    assert both["ListTransformJobInstances"].actions == ("cloudwatch:ListMetrics",)
    assert both["ListProcessingJobs"].actions == ("sagemaker:ListProcessingJobs",)
    assert both["ListTransformJobs"].actions == ("sagemaker:ListTransformJobs",)
    assert both["ReadProcessingLogs"].resources[0].name == "/aws/sagemaker/ProcessingJobs"
    assert both["ReadTransformLogs"].resources[0].name == "/aws/sagemaker/TransformJobs"
    assert both["ListTagsProcessingJobs"].actions == ("sagemaker:ListTags",)
    assert "ListTuningJobTrials" not in both
    hpo = sids({"monitor": {"rules": {"FailingTrials": {}}, "job_tags": False}})
    assert hpo["ListTuningJobTrials"].actions == ("sagemaker:ListTrainingJobsForHyperParameterTuningJob",)
    assert "SearchHyperparameterTuningJobs" in hpo or any(s.startswith("Search") and "uning" in s for s in hpo)
    assert not any("Logs" in sid and "Tuning" in sid for sid in hpo)


def test_a_transform_job_s_instances_are_found_once_per_run_by_their_metrics_and_judged():
    # Given IdleInstances on, two transform jobs on ml.m5.large (2 vCPUs), the first's one instance idle
    first, second = transform("score-1"), transform("score-2")

    def cpu_of(record, instance, value):
        job = RunningJob.of(record, FAMILY["transform"])
        return {host_query(job, Host(instance, "ml.m5.large", 0, 2), "CPUUtilization"): minutes(40, 2, value)}

    ports = Ports({"DescribeTransformJob": [first, second]},
                  series={**cpu_of(first, "i-0aaa", 1), **cpu_of(second, "i-0bbb", 150),
                          **cpu_of(second, "i-0ccc", 150)})
    ports.instances = ["score-1/i-0aaa", "score-2/i-0bbb", "score-2/i-0ccc", "elsewhere/i-0ddd"]
    # When the evaluation runs
    report = evaluate({"monitor": {"rules": {"IdleInstances": {}}}}, ports)
    # Then one ListMetrics call found every transform job's instances, and the idle one is named by its id
    assert [c for c in ports.calls if c[0] == "ListMetrics"] == [
        ("ListMetrics", "/aws/sagemaker/TransformJobs", "CPUUtilization")]
    rows = {j.job: j for j in report.jobs}
    assert rows["score-1"].verdicts[0].reason == "i-0aaa idles: CPU p95 0% < 5% per vCPU over the last 30 min"
    assert rows["score-2"].verdicts[0].verdict == "NoIssuesFound"
    # and a transform job no instance of which published yet waits
    assert RULES["IdleInstances"].reads(RunningJob.of(first, FAMILY["transform"]), defaults("IdleInstances"), NOW) == Pending(
        "no instance of the transform job has published CPUUtilization yet (its instances are found by their "
        "metrics' Host dimension)")


def test_a_member_account_s_processing_jobs_are_listed_through_its_role():
    # Given organization mode: a member account's SageMaker, its client made through the member's role
    from rule_actions.effects.members import MemberSageMaker

    client = Client(["prep-1"])

    class Members:
        def client(self, service, account, region):
            assert (service, account, region) == ("sagemaker", "111122223333", "eu-west-1")
            return client

    # Then its running processing jobs are listed, described and tagged as in the stack's own account
    [found] = MemberSageMaker(Members(), "111122223333", "eu-west-1").running(PROCESSING)
    assert found["ProcessingJobName"] == "prep-1" and found["Tags"] == [{"Key": "team", "Value": "ml"}]

