"""A scheduled evaluation over fake ports (no AWS): what it reads (one Search page per 100 jobs, every series in one
GetMetricData batch, one log query per job, a describe only for jobs whose rules hold), what it never does (act on a
job that ended, stop the others when one job's read fails), and how a finding becomes the Monitor rule status the
pipeline handles as any Debugger rule status."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions.messages import render
from rule_actions.monitors.evaluation import NOT_REACHED, request, shard_of
from rule_actions.monitors.series import host_query
from rule_actions.records import EvaluationRequest as Request
from rule_actions.records import EvaluationRun, Heartbeat, IgnoredEvent, Span

NOW = 1_795_514_400
MIN = 60


def record(name: str, instance_type="ml.p3.8xlarge", count=1, tags=None, started=NOW - 90 * MIN, metrics=(),
           then=()):
    """A running job's Search record: training since `started`, then the phases `then` ((status, epoch s), ...)."""
    phases = [("Training", started), *then]
    return {"TrainingJobName": name, "TrainingJobArn": f"arn:aws:sagemaker:us-east-1:123456789012:training-job/{name}",
            "TrainingJobStatus": "InProgress", "SecondaryStatus": phases[-1][0],
            "SecondaryStatusTransitions": [{"Status": phase, "StartTime": datetime.fromtimestamp(at, UTC)}
                                           for phase, at in phases],
            "ResourceConfig": {"InstanceType": instance_type, "InstanceCount": count},
            "AlgorithmSpecification": {"MetricDefinitions": [{"Name": m, "Regex": "x"} for m in metrics]},
            "Tags": [{"Key": k, "Value": v} for k, v in (tags or {}).items()]}


class Ports:
    """The ports an evaluation reads through; every call recorded."""

    region = "us-east-1"

    def __init__(self, records, series=None, beats=None, status=None, failing=(), described=None):
        self.calls: list[Any] = []
        outer = self

        class Jobs:
            def running(self, api):
                outer.calls.append("Search")
                return list(records)

            def describe(self, api, name):
                outer.calls.append(("DescribeTrainingJob", name))
                found = next(r for r in records if r["TrainingJobName"] == name)
                return {**found, "TrainingJobStatus": (status or {}).get(name, "InProgress"),
                        **(described or {}).get(name, {})}

        class Metrics:
            def data(self, queries, start, end):
                outer.calls.append(("GetMetricData", len(queries)))
                return {q: (series or {}).get(q, ()) for q in queries}

        class Logs:
            insights_from = 500  # (the port's default: FilterLogEvents per job below it)

            def heartbeat(self, group, prefix, start, end):
                outer.calls.append(("FilterLogEvents", prefix))
                if prefix.rstrip("/") in failing:
                    raise RuntimeError("ThrottlingException: Rate exceeded")
                return (beats or {}).get(prefix.rstrip("/"), Heartbeat((), True))

        self.jobs, self.metrics, self.logs = Jobs(), Metrics(), Logs()


EVERYTHING = Request(None, None, None)


def evaluate(config: dict, ports: Ports, time_left=lambda: True, req=EVERYTHING):
    run = EvaluationRun(req, NOW, time_left, {}, ports.region, ports.logs.insights_from)
    return pipeline.answered(registry.evaluate(run, Config.from_dict(config)), ports)


def silent_since(minutes: int) -> Heartbeat:
    return Heartbeat((Span("x/algo-1-1", (NOW - 60 * MIN) * 1000, (NOW - minutes * MIN) * 1000, 50, 60_000),), True)


HUNG = {"rule-actions:StalledTraining": "stoptraining"}


def test_an_evaluation_reads_each_kind_once_and_describes_only_what_it_acts_on():
    # Given 250 running jobs with a stack-wide GPU rule, three of them tagged with StalledTraining, one silent
    records = [record(f"job-{n:03d}", tags=HUNG if n < 3 else None) for n in range(250)]
    ports = Ports(records, beats={"job-000": silent_since(40), "job-001": silent_since(1), "job-002": silent_since(2)})
    report = evaluate({"monitor": {"rules": {"LowGPUUtilization": {}}}}, ports)
    # Then one Search answer (paging is the adapter's), one GetMetricData batch for 250 series, one log query per
    # tagged job, and one describe: the job whose rule holds
    assert ports.calls[0] == "Search" and ports.calls[1] == ("GetMetricData", 250)
    assert sorted(c for c in ports.calls if c[0] == "FilterLogEvents") == [
        ("FilterLogEvents", f"job-00{n}/") for n in range(3)]
    assert [c for c in ports.calls if c[0] == "DescribeTrainingJob"] == [("DescribeTrainingJob", "job-000")]
    assert report.listed == 250 and len(report.jobs) == 250
    [acted] = [j for j in report.jobs if j.event]
    assert acted.job == "job-000"


def test_a_finding_becomes_the_monitor_rule_status_the_pipeline_acts_on():
    # Given a hung job whose tag attaches StalledTraining with a stop and an email
    tags = {"rule-actions:StalledTraining": "stoptraining email=ml@example.com"}
    ports = Ports([record("llm-1", tags=tags)], beats={"llm-1": silent_since(34)})
    [job] = evaluate({"monitor": {}}, ports).jobs
    # When its state change is observed as any event is
    event, found = pipeline.observe(job.event)
    config = Config.from_dict({"notify": {"emails": ["team@example.com"]}, "rules": {"*": ["notify"]}})
    [status] = pipeline.select(event, found, config)
    # Then it is an IssuesFound status of the Monitor family, with the finding and the tag's actions
    assert (status.rule_family, status.name, status.status) == ("Monitor", "StalledTraining", "IssuesFound")
    assert status.details == "no log line from any host for 34 min (threshold 30 min)"
    assert event.job_status == "InProgress" and event.tags == tags and event.account == "123456789012"
    entries = registry.trigger_family(status).entries(status, event, config, {})
    assert [(a.kind, a.target, str(o)) for a, o in entries] == [
        ("stoptraining", None, "action_json"), ("email", "ml@example.com", "action_json"), ("notify", None, "config")]
    # And its message says what rule-actions found, and where it read it
    message = render(config, event, status, "us-east-1")
    assert message.subject == "[rule-actions] StalledTraining issues found in llm-1"
    assert "rule-actions found that rule StalledTraining holds for training job llm-1 (evaluated from its " in message.body
    assert "Finding:\n  no log line from any host for 34 min (threshold 30 min)" in message.body
    assert "rules it evaluates on this job's metrics and logs (monitor rules)" in message.body
    assert ("Training job logs", "https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1#"
            "logsV2:log-groups/log-group/$252Faws$252Fsagemaker$252FTrainingJobs$3FlogStreamNameFilter$3Dllm-1"
            ) in message.links
    facts = registry.trigger_family(status).facts(status, event)
    assert facts.fields["rule_family"] == "Monitor" and facts.keywords == ("Monitor rule", "IssuesFound")


def test_a_misspelt_rule_tag_is_the_jobs_problem_naming_the_tag_meant():
    # Given a hung job whose owner misspelt the rule in its tag
    ports = Ports([record("typo-1", tags={"rule-actions:StaledTraining": "stoptraining"})],
                  beats={"typo-1": silent_since(34)})
    # When the evaluation runs
    [job] = evaluate({"monitor": {}}, ports).jobs
    # Then nothing acts on it, and its problem (its row in a replay) names the tag it probably meant
    assert job.event is None
    assert job.problems == ('tag rule-actions:StaledTraining: "StaledTraining" is not a rule rule-actions evaluates '
                            "(did you mean rule-actions:StalledTraining?); the job's other rules go on",)


def test_the_state_change_carries_each_rules_mode_in_its_rule_parameters():
    # Given a hung job that a stack-wide StalledTraining judges, and another whose own tag attaches it
    ports = Ports([record("wide-1"), record("own-1", tags={"rule-actions:StalledTraining": ""})],
                  beats={"wide-1": silent_since(34), "own-1": silent_since(34)})
    # When the evaluation finds both stalled
    report = evaluate({"monitor": {"rules": {"StalledTraining": {}}}}, ports)
    # Then each state change carries the rule's mode beside rule_to_invoke: the stack-wide rule watches, the
    # tag's acts (and reads back as the Monitor status the route decides on)
    modes = {}
    for job in report.jobs:
        [configuration] = job.event.detail["MonitorRuleConfigurations"]
        modes[job.job] = configuration["RuleParameters"]["mode"]
        _event, found = pipeline.observe(job.event)
        assert found[0].watch is (modes[job.job] == "watch")
    assert modes == {"wide-1": "watch", "own-1": "act"}


def test_a_job_that_ended_is_never_acted_on():
    # Given a job Search still lists as running, whose DescribeTrainingJob says Completed
    ports = Ports([record("done-1", tags=HUNG)], beats={"done-1": silent_since(40)}, status={"done-1": "Completed"})
    [job] = evaluate({"monitor": {}}, ports).jobs
    # Then its finding is reported, not acted on
    assert job.event is None
    assert job.verdicts[0].verdict == "Skipped" and "the job is Completed: a job that ended is not acted on" in \
        job.verdicts[0].reason


def test_a_job_uploading_its_artifacts_is_not_judged_and_nothing_is_read_for_it():
    # Given a job tagged with StalledTraining that finished training 38 minutes ago and uploads its model since
    ports = Ports([record("big-1", tags=HUNG, then=(("Uploading", NOW - 38 * MIN),))])
    # When the rules run over it
    [job] = evaluate({"monitor": {"rules": {"LowGPUUtilization": {}}}}, ports).jobs
    # Then no rule judges it, each saying why, nothing is read and nothing is acted on
    assert [(v.rule, v.verdict, v.reason) for v in job.verdicts] == [
        ("LowGPUUtilization", "NotJudged", "uploading artifacts for 38 min: not judged (LowGPUUtilization judges "
                                           "Training and Updating only)"),
        ("StalledTraining", "NotJudged", "uploading artifacts for 38 min: not judged (StalledTraining judges Training "
                                         "and Updating only)")]
    assert ports.calls == ["Search"] and job.event is None


def test_a_finding_on_a_job_that_has_begun_uploading_is_not_acted_on():
    # Given a job Search still lists as training (its index lags), silent for 40 minutes, that DescribeTrainingJob
    # shows uploading its artifacts
    uploading = {"SecondaryStatus": "Uploading", "SecondaryStatusTransitions": [
        {"Status": "Training", "StartTime": datetime.fromtimestamp(NOW - 90 * MIN, UTC)},
        {"Status": "Uploading", "StartTime": datetime.fromtimestamp(NOW - 40 * MIN, UTC)}]}
    ports = Ports([record("big-2", tags=HUNG)], beats={"big-2": silent_since(40)}, described={"big-2": uploading})
    [job] = evaluate({"monitor": {}}, ports).jobs
    # Then the finding is reported with why it is not acted on
    assert job.event is None and job.verdicts[0].verdict == "NotJudged"
    assert job.verdicts[0].reason == (
        "no log line from any host for 40 min (threshold 30 min) (not acted on: the job is now uploading artifacts "
        "for 40 min: not judged (StalledTraining judges Training and Updating only))")


def host_beat(job: str, *hosts: tuple[int, int, int]) -> Heartbeat:
    """Each host n's stream: (n, last line minutes ago, longest gap in minutes), since training began (90 min ago)."""
    return Heartbeat(tuple(Span(f"{job}/algo-{n}-1", (NOW - 89 * MIN) * 1000, (NOW - last * MIN) * 1000, 50,
                                gap * MIN * 1000) for n, last, gap in hosts), True)


@pytest.mark.parametrize(("gap", "verdict"), [(1, "IssuesFound"), (40, "NoIssuesFound")])
def test_a_silent_hosts_rhythm_is_read_in_the_same_run_before_the_rule_decides(gap, verdict):
    # Given a two-host job whose algo-2 has been silent for 35 minutes while algo-1 logs
    ports = Ports([record("dist-1", count=2, tags=HUNG)],
                  beats={"dist-1": host_beat("dist-1", (1, 1, 1), (2, 35, gap)),
                         "dist-1/algo-2-": host_beat("dist-1", (2, 35, gap))})
    # When the rules run
    report = evaluate({"monitor": {}}, ports)
    [job] = report.jobs
    # Then the job's window and then algo-2's history are read, in this run, and the host's rhythm decides
    assert [c for c in ports.calls if c[0] == "FilterLogEvents"] == [("FilterLogEvents", "dist-1/"),
                                                                     ("FilterLogEvents", "dist-1/algo-2-")]
    assert job.verdicts[0].verdict == verdict and report.log_queries == 2
    assert (job.event is not None) == (verdict == "IssuesFound")


@pytest.mark.parametrize(("gpus", "verdict"), [(360, "NoIssuesFound"), (0, "IssuesFound")])
def test_a_silent_hosts_gpus_are_read_with_its_rhythm_and_weigh_in(gpus, verdict):
    # Given a two-host job (ml.p3.8xlarge: 4 GPUs) whose algo-2 logged every minute, then fell silent 35 minutes ago
    # while algo-1 logs; algo-2's GPUs at `gpus` (summed over its 4 GPUs)
    from rule_actions.monitors.job import RunningJob

    seen = RunningJob.of(record("dist-3", count=2))
    gpu = host_query(seen, seen.hosts[1], "GPUUtilization")
    ports = Ports([record("dist-3", count=2, tags=HUNG)],
                  series={gpu: tuple((NOW - m * MIN, float(gpus)) for m in range(15, 0, -1))},
                  beats={"dist-3": host_beat("dist-3", (1, 1, 1), (2, 35, 1)),
                         "dist-3/algo-2-": host_beat("dist-3", (2, 35, 1))})
    # When the rules run
    [job] = evaluate({"monitor": {}}, ports).jobs
    # Then its GPUs are read in the same run as its rhythm (one GetMetricData call of one series), and decide:
    # busy, it is not a stall; idle, it is
    assert ("GetMetricData", 1) in ports.calls
    assert job.verdicts[0].verdict == verdict, job.verdicts[0].reason
    assert ("its GPUs busy (90% over its last 10 min)" in job.verdicts[0].reason) == (gpus > 0)


def test_a_rhythm_the_run_had_no_time_to_read_is_judged_later():
    ports = Ports([record("dist-2", count=2, tags=HUNG)],
                  beats={"dist-2": host_beat("dist-2", (1, 1, 1), (2, 35, 1))})
    left = iter([True, False])
    [job] = evaluate({"monitor": {}}, ports, time_left=lambda: next(left)).jobs
    assert (job.verdicts[0].verdict, job.verdicts[0].reason) == ("Pending", NOT_REACHED) and job.event is None


@pytest.mark.parametrize("job_tags", [True, False])
def test_an_opted_out_job_is_reported_not_judged_and_never_stopped(job_tags):
    # Given a hung job tagged to opt out, and StalledTraining stack-wide (the job's tags read or not)
    ports = Ports([record("mine-1", tags={"rule-actions:opt-out": "true"})], beats={"mine-1": silent_since(50)})
    [job] = evaluate({"monitor": {"rules": {"StalledTraining": {}}, "job_tags": job_tags}}, ports).jobs
    # Then the rule does not judge it, the row says why, and nothing is read or acted on
    assert [(v.rule, v.verdict, v.reason) for v in job.verdicts] == [
        ("StalledTraining", "NotJudged", "opted out (tag rule-actions:opt-out=true): not judged by the stack-wide "
                                         "rules")]
    assert ports.calls == ["Search"] and job.event is None


def test_one_job_whose_read_fails_is_reported_and_the_others_go_on():
    ports = Ports([record("a-1", tags=HUNG), record("b-1", tags=HUNG)], failing=("a-1",),
                  beats={"b-1": silent_since(40)})
    a, b = sorted(evaluate({"monitor": {}}, ports).jobs)
    assert a.verdicts[0].verdict == "Error" and "FilterLogEvents on /aws/sagemaker/TrainingJobs (a-1/*) failed: " \
        "RuntimeError: ThrottlingException: Rate exceeded" == a.verdicts[0].reason
    assert b.event is not None


def test_a_run_out_of_time_reports_the_jobs_it_did_not_reach():
    ports = Ports([record(f"j-{n}", tags=HUNG) for n in range(5)])
    left = iter([True, True, False, False, False])
    report = evaluate({"monitor": {}}, ports, time_left=lambda: next(left))
    assert report.unfinished == 3
    assert sorted(v.reason == NOT_REACHED for j in report.jobs for v in j.verdicts) == [False, False, True, True, True]
    assert len([c for c in ports.calls if c[0] == "FilterLogEvents"]) == 2


def test_only_jobs_in_scope_and_in_the_runs_shard_are_evaluated():
    records = [record(f"exp-{n}") for n in range(40)] + [record("other-1")]
    config = {"training_job_prefixes": ["exp-"], "monitor": {"rules": {"LowGPUUtilization": {}}, "shards": 3}}
    seen = []
    for shard in range(3):
        seen += [j.job for j in evaluate(config, Ports(records), req=Request(None, None, None, shard, 3)).jobs]
    assert sorted(seen) == sorted(f"exp-{n}" for n in range(40))  # each once, none out of scope
    assert {shard_of(f"exp-{n}", 3) for n in range(40)} == {0, 1, 2}


def test_a_job_without_rules_or_problems_is_not_in_the_report():
    assert evaluate({"monitor": {}}, Ports([record("plain-1")])).jobs == ()


def test_an_idle_gpu_finding_carries_the_hosts_numbers():
    rec = record("idle-1", count=2)
    j = registry.monitors()["LowGPUUtilization"]
    from rule_actions.monitors.job import RunningJob

    job = RunningJob.of(rec)
    series = {host_query(job, job.hosts[0], "GPUUtilization"): tuple((NOW - m * MIN, 20.0) for m in range(40, 0, -1)),
              host_query(job, job.hosts[1], "GPUUtilization"): tuple((NOW - m * MIN, 300.0) for m in range(40, 0, -1))}
    [found] = evaluate({"monitor": {"rules": {j.name: {}}}}, Ports([rec], series=series)).jobs
    assert found.verdicts[0].reason == "GPU utilization p95 5% < 70% over the last 30 min on algo-1 (4 GPUs)"


@pytest.mark.parametrize(("raw", "expected"), [
    ({"rule_actions_evaluation": {}}, Request(None, None, None, 0, 1)),
    ({"rule_actions_evaluation": {"time": "2026-11-24T10:00:00Z", "shard": 1, "shards": 2, "account": "1",
                                  "region": "us-east-1"}}, Request(NOW, "1", "us-east-1", 1, 2)),
    ({"source": "aws.sagemaker"}, None),
])
def test_the_scheduled_request_is_read(raw, expected):
    assert request(raw) == expected


@pytest.mark.parametrize(("raw", "field"), [
    ({"rule_actions_evaluation": {"shard": 2, "shards": 2}}, "rule_actions_evaluation.shard"),
    ({"rule_actions_evaluation": {"time": "yesterday"}}, "rule_actions_evaluation.time"),
    ({"rule_actions_evaluation": {"when": 1}}, "rule_actions_evaluation: must be an object"),
    ({"rule_actions_evaluation": {"account": 5}}, "rule_actions_evaluation.account"),
])
def test_a_malformed_request_names_its_field(raw, field):
    with pytest.raises(IgnoredEvent, match=field.replace(".", r"\.")):
        request(raw)
