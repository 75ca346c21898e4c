"""Reads that scale: one CloudWatch Logs Insights query answers many jobs' latest log lines (effects/logs.py), the
query and its answers as botocore's model declares them (a stubbed client validates every request and response),
and the evaluation's choice between it and one FilterLogEvents call per job, with its fallback (monitors/
evaluation.py), each outcome reported."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from rule_actions import pipeline, registry
from rule_actions.config import Config
from rule_actions.effects.logs import QUERY, ROWS, CloudWatchLogs, QueryUnfinished, millis, parse_rows
from rule_actions.monitors.evaluation import INSIGHTS_SPAN
from rule_actions.records import EvaluationRequest, EvaluationRun, Heartbeat, Span

GROUP = "/aws/sagemaker/TrainingJobs"
NOW = 1_795_514_400
MIN = 60


def row(stream: str, first: int, last: int, events: int) -> list[dict[str, str]]:
    """A GetQueryResults row of the query: ResultField {field, value}, every value a string."""
    return [{"field": "@logStream", "value": stream}, {"field": "first", "value": str(first)},
            {"field": "last", "value": str(last)}, {"field": "events", "value": str(events)}]


class Clock:
    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def stubbed(wait: float = 60.0) -> tuple[CloudWatchLogs, Stubber, Clock]:
    client = boto3.client("logs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    clock = Clock()
    return CloudWatchLogs(lambda: client, tps=5, clock=clock, sleep=clock.sleep, wait=wait), Stubber(client), clock


def test_the_query_reads_every_stream_of_the_window_and_splits_it_per_job():
    # Given a query that runs once, then completes with three streams, one of them silent before job-b's window
    logs, stub, clock = stubbed()
    stub.add_response("start_query", {"queryId": "q-1"}, {
        "logGroupName": GROUP, "startTime": 1_795_511_700, "endTime": 1_795_514_401, "queryString": QUERY,
        "limit": ROWS})
    stub.add_response("get_query_results", {"status": "Running", "results": []}, {"queryId": "q-1", "maxItems": 10_000})
    stub.add_response("get_query_results", {"status": "Complete", "results": [
        row("job-a/algo-1-1763970000", 1_795_511_760_000, 1_795_514_340_000, 44),
        row("job-a/algo-2-1763970000", 1_795_511_760_000, 1_795_512_000_000, 5),
        row("job-b/algo-1-1763970000", 1_795_511_700_000, 1_795_512_100_000, 7)],
        "statistics": {"recordsMatched": 56.0, "recordsScanned": 56.0, "bytesScanned": 5600.0}},
        {"queryId": "q-1", "maxItems": 10_000})
    # When the latest lines of job-a (from 45 minutes ago) and job-b (from 30 minutes ago) are asked at once
    with stub:
        found = logs.latest(GROUP, (("job-a/", (NOW - 45 * MIN) * 1000), ("job-b/", (NOW - 30 * MIN) * 1000)),
                            NOW * 1000 + 1)
    # Then one query covers the earliest start to the end (whole seconds, the end rounded up), polled once a second
    stub.assert_no_pending_responses()
    assert clock.slept == [1.0]
    # and each job gets its own streams; a stream whose last line is before the job's window is not in it
    assert found["job-a/"].complete and [s.stream for s in found["job-a/"].streams] == [
        "job-a/algo-1-1763970000", "job-a/algo-2-1763970000"]
    assert found["job-a/"].streams[0] == Span("job-a/algo-1-1763970000", 1_795_511_760_000, 1_795_514_340_000, 44)
    assert found["job-b/"] == Heartbeat((), True)


def test_a_query_that_does_not_complete_in_time_is_stopped_and_the_read_fails():
    # Given a query still running when the wait is over
    logs, stub, clock = stubbed(wait=2.5)
    stub.add_response("start_query", {"queryId": "q-2"}, None)
    for _ in range(3):
        stub.add_response("get_query_results", {"status": "Running"}, {"queryId": "q-2", "maxItems": 10_000})
    stub.add_response("stop_query", {"success": True}, {"queryId": "q-2"})
    # When it is read
    with stub, pytest.raises(QueryUnfinished, match=r"did not complete within 2\.5 s"):
        logs.latest(GROUP, (("job-a/", 0),), 1000)
    # Then it is stopped (not left to scan, and charge, for up to an hour)
    stub.assert_no_pending_responses()
    assert clock.slept == [1.0, 1.0]


def test_a_query_whose_results_cannot_be_read_is_stopped_too():
    # Given a query whose GetQueryResults is throttled past its retries
    logs, stub, _ = stubbed()
    stub.add_response("start_query", {"queryId": "q-6"}, None)
    stub.add_client_error("get_query_results", "ThrottlingException", "Rate exceeded")
    stub.add_response("stop_query", {"success": True}, {"queryId": "q-6"})
    # When it is read, the read fails with the service's error, and the query is stopped, not left to run
    with stub, pytest.raises(Exception, match="ThrottlingException"):
        logs.latest(GROUP, (("job-a/", 0),), 1000)
    stub.assert_no_pending_responses()


@pytest.mark.parametrize("status", ["Failed", "Cancelled", "Timeout", "Unknown"])
def test_a_query_that_ended_otherwise_fails_the_read(status):
    logs, stub, _ = stubbed()
    stub.add_response("start_query", {"queryId": "q-3"}, None)
    stub.add_response("get_query_results", {"status": status}, None)
    with stub, pytest.raises(QueryUnfinished, match=f"ended {status}"):
        logs.latest(GROUP, (("job-a/", 0),), 1000)


def test_the_answer_is_read_page_by_page_and_a_full_answer_is_refused():
    # Given a completed query whose rows come in two pages
    logs, stub, _ = stubbed()
    stub.add_response("start_query", {"queryId": "q-4"}, None)
    stub.add_response("get_query_results", {"status": "Complete", "results": [row("job-a/algo-1-1", 1, 5, 2)],
                                            "nextToken": "t-1"}, {"queryId": "q-4", "maxItems": 10_000})
    stub.add_response("get_query_results", {"status": "Complete", "results": [row("job-a/algo-2-1", 1, 9, 3)]},
                      {"queryId": "q-4", "maxItems": 10_000, "nextToken": "t-1"})
    with stub:
        found = logs.latest(GROUP, (("job-a/", 0),), 1000)
    assert [s.last for s in found["job-a/"].streams] == [5, 9]
    # And an answer holding as many rows as the query's limit may have left streams out: it is refused
    logs, stub, _ = stubbed()
    stub.add_response("start_query", {"queryId": "q-5"}, None)
    stub.add_response("get_query_results", {"status": "Complete", "results": [row(f"s-{n}", 1, 2, 1)
                                                                              for n in range(ROWS)]}, None)
    with stub, pytest.raises(QueryUnfinished, match="reached its 100,000 rows"):
        logs.latest(GROUP, (("s-", 0),), 1000)


def test_rows_are_read_as_insights_writes_them():
    rows = [row("a/algo-1-1", 10, 20, 2),
            [{"field": "@logStream", "value": "b/algo-1-1"}, {"field": "last", "value": "2026-11-24 10:00:00.000"}],
            [{"field": "@logStream", "value": "c/algo-1-1"}, {"field": "last", "value": "1.7639784E12"}],
            [{"field": "last", "value": "5"}],  # no stream
            [{"field": "@logStream", "value": "d/algo-1-1"}, {"field": "last", "value": "soon"}]]
    assert parse_rows(rows) == [Span("a/algo-1-1", 10, 20, 2), Span("b/algo-1-1", 1_795_514_400_000,
                                                                    1_795_514_400_000, 1),
                                Span("c/algo-1-1", 1_763_978_400_000, 1_763_978_400_000, 1)]
    assert millis("inf") is None and millis("") is None and millis(None) is None


# ---------------------------------------------------------------- the evaluation's choice and its fallback


def record(name: str, started: int = NOW - 90 * MIN) -> dict[str, Any]:
    from datetime import UTC, datetime

    return {"TrainingJobName": name, "TrainingJobArn": f"arn:aws:sagemaker:us-east-1:123456789012:training-job/{name}",
            "TrainingJobStatus": "InProgress", "SecondaryStatus": "Training",
            "SecondaryStatusTransitions": [{"Status": "Training", "StartTime": datetime.fromtimestamp(started, UTC)}],
            "ResourceConfig": {"InstanceType": "ml.p3.8xlarge", "InstanceCount": 1},
            "Tags": [{"Key": "rule-actions:StalledTraining", "Value": "stoptraining"}]}


def beat(name: str, minutes_ago: int) -> Heartbeat:
    return Heartbeat((Span(f"{name}/algo-1-1", (NOW - 60 * MIN) * 1000, (NOW - minutes_ago * MIN) * 1000, 50),), True)


class Ports:
    region = "us-east-1"

    def __init__(self, records, silent: dict[str, int], insights_from: int = 3, failing: bool = False):
        self.calls: list[Any] = []
        outer = self
        beats = {name: beat(name, minutes) for name, minutes in silent.items()}

        class Jobs:
            def running(self, api):
                outer.calls.append("Search")
                return list(records)

            def describe(self, api, name):
                outer.calls.append("DescribeTrainingJob")
                return next(r for r in records if r["TrainingJobName"] == name)

        class CloudWatchLogs:
            def heartbeat(self, group, prefix, start, end):
                outer.calls.append(("FilterLogEvents", prefix))
                return beats.get(prefix.rstrip("/"), Heartbeat((), True))

            def latest(self, group, windows, end):
                outer.calls.append(("StartQuery", len(windows)))
                if failing:
                    raise QueryUnfinished("the Logs Insights query ended Failed")
                return {prefix: beats.get(prefix.rstrip("/"), Heartbeat((), True)) for prefix, _ in windows}

        self.jobs, self.logs = Jobs(), CloudWatchLogs()
        self.logs.insights_from = insights_from


def evaluate(ports: Ports, config: dict | None = None):
    run = EvaluationRun(EvaluationRequest(None, None, None), NOW, lambda: True, {}, ports.region,
                        ports.logs.insights_from)
    return pipeline.answered(registry.evaluate(run, Config.from_dict(config or {"monitor": {}})), ports)


def verdicts(report) -> list[tuple[str, str, str]]:
    return sorted((j.job, v.verdict, v.reason) for j in report.jobs for v in j.verdicts)


SILENT = {"job-0": 40, "job-1": 2, "job-2": 1, "job-3": 5}


def test_many_jobs_are_read_by_one_query_and_judged_as_one_call_each_would():
    # Given four jobs that need their logs (one silent for 40 minutes), and a query from three jobs on
    records = [record(f"job-{n}") for n in range(4)]
    at_once = Ports(records, SILENT)
    one_by_one = Ports(records, SILENT, insights_from=5)
    # When the evaluation runs with each
    together, apart = evaluate(at_once), evaluate(one_by_one)
    # Then one query reads them all, no FilterLogEvents, and the verdicts are those of one call per job
    assert [c for c in at_once.calls if c[0] in ("StartQuery", "FilterLogEvents")] == [("StartQuery", 4)]
    assert len([c for c in one_by_one.calls if c[0] == "FilterLogEvents"]) == 4
    assert verdicts(together) == verdicts(apart)
    assert [j.job for j in together.jobs if j.event] == ["job-0"]
    # and the run says how it read them; the FilterLogEvents-only run says nothing new
    assert (together.log_queries, together.log_reads) == (1, "one Logs Insights query read 4 jobs' logs")
    assert (apart.log_queries, apart.log_reads) == (4, "")


def test_a_failed_query_falls_back_to_one_filterlogevents_call_per_job_and_says_so():
    # Given the same jobs, and a query that fails
    ports = Ports([record(f"job-{n}") for n in range(4)], SILENT, failing=True)
    report = evaluate(ports)
    # Then each job is read by FilterLogEvents in the same run, judged as usual, and the run reports the failure
    assert sorted(c for c in ports.calls if c[0] in ("StartQuery", "FilterLogEvents")) == [
        ("FilterLogEvents", f"job-{n}/") for n in range(4)] + [("StartQuery", 4)]
    assert verdicts(report) == verdicts(evaluate(Ports([record(f"job-{n}") for n in range(4)], SILENT,
                                                       insights_from=5)))
    assert report.log_queries == 5
    assert report.log_reads == ("the Logs Insights query on /aws/sagemaker/TrainingJobs (4 jobs) failed: "
                                "QueryUnfinished: the Logs Insights query ended Failed; its 4 jobs read one "
                                "FilterLogEvents call each")


def test_a_job_whose_window_is_longer_than_the_querys_is_read_alone():
    # Given three jobs with the default threshold and one whose threshold of two hours makes its window longer
    records = [record(f"job-{n}") for n in range(4)]
    records[3]["Tags"] = [{"Key": "rule-actions:StalledTraining", "Value": "stoptraining"},
                          {"Key": "rule-actions:StalledTraining:parameters", "Value": "threshold=7200"}]
    records[3]["SecondaryStatusTransitions"][0]["StartTime"] = records[3]["SecondaryStatusTransitions"][0][
        "StartTime"].replace(hour=0)
    ports = Ports(records, SILENT)
    report = evaluate(ports)
    # Then the query reads the three, FilterLogEvents the fourth
    assert [c for c in ports.calls if c[0] in ("StartQuery", "FilterLogEvents")] == [("StartQuery", 3),
                                                                                     ("FilterLogEvents", "job-3/")]
    assert report.log_queries == 2 and INSIGHTS_SPAN == 90 * 60 * 1000


def test_below_the_threshold_each_job_is_read_alone():
    ports = Ports([record(f"job-{n}") for n in range(2)], SILENT)
    report = evaluate(ports)
    assert sorted(c for c in ports.calls if c[0] in ("StartQuery", "FilterLogEvents")) == [
        ("FilterLogEvents", "job-0/"), ("FilterLogEvents", "job-1/")]
    assert report.log_reads == ""
