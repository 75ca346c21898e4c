"""The scheduled evaluation through the real handler against moto (SageMaker's Search, CloudWatch's GetMetricData,
CloudWatch Logs' FilterLogEvents, as AWS answers them: rule_actions_cli.emulator.monitoring): the same route as a
Debugger rule status from there (the ledger, the trust rules, dry run), against the real service's behaviour where
moto differs (a lagging lastEventTimestamp, a page without events but with a token, a namespace moto would ignore)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from rule_actions.contract import EVALUATION_KEY
from rule_actions.observability import logger
from rule_actions_cli.emulator import monitoring as moto_monitoring
from rule_actions_cli.emulator import sagemaker as moto_sagemaker

NOW = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
T = int(NOW.timestamp())
GROUP = "/aws/sagemaker/TrainingJobs"


@pytest.fixture
def monitored(aws):
    moto_monitoring.install()
    aws.configure(notify={"emails": ["team@example.com"]}, rules={"*": ["notify"]}, monitor={})
    return aws


def running(name: str, tags: dict[str, str], count: int = 1, instance_type: str = "ml.p3.8xlarge",
            started_minutes_ago: int = 90, metrics: tuple[str, ...] = ()) -> None:
    start = NOW - timedelta(minutes=started_minutes_ago)
    moto_sagemaker.put_training_job(name, "InProgress", tags=tags,
                                    resource_config={"InstanceType": instance_type, "InstanceCount": count},
                                    transitions=[{"Status": "Training", "StartTime": start}], training_start_time=start,
                                    metric_definitions=[{"Name": m, "Regex": "x"} for m in metrics])


def logs(name: str, host: str, minutes_ago: range) -> None:
    moto_monitoring.put_log_lines(GROUP, f"{name}/{host}-1763970000", [(T - m * 60, f"line {m}") for m in minutes_ago])


def gpu(name: str, host: str, value: float, minutes: int = 45, namespace: str = "/aws/sagemaker/TrainingJobs") -> None:
    moto_monitoring.put_metrics((namespace, "GPUUtilization", {"Host": f"{name}/{host}"}, T - m * 60, value)
                                for m in range(minutes, 0, -1))


def evaluate(aws, minutes_later: int = 0) -> dict[str, Any]:
    effects = aws.effects().evaluation()  # the ports the evaluator reads through
    for client in (effects.metrics.client, effects.logs.client):
        if not getattr(client, "_counted", False):
            client.meta.events.register("before-call", lambda model, **_: aws.calls.append(model.name))
            client._counted = True
    when = (NOW + timedelta(minutes=minutes_later)).isoformat().replace("+00:00", "Z")
    return aws.invoke({EVALUATION_KEY: {"time": when}})


def outcomes(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(job["training_job"], a["trigger"], a["kind"], a["outcome"]) for job in result["jobs"]
            for a in job.get("actions", [])]


def test_a_hung_job_is_stopped_and_the_team_told_once(monitored):
    # Given a job whose tag attaches StalledTraining with a stop, silent for 34 minutes, and a healthy one
    running("hung-1", {"rule-actions:StalledTraining": "stoptraining"})
    logs("hung-1", "algo-1", range(60, 33, -1))
    running("fine-1", {"rule-actions:StalledTraining": "stoptraining"})
    logs("fine-1", "algo-1", range(60, 0, -1))
    # When the evaluator runs, and again five minutes later
    first = evaluate(monitored)
    second = evaluate(monitored, 5)
    # Then the hung job is stopped and the team told, once; the healthy job is left alone
    assert outcomes(first) == [("hung-1", "StalledTraining", "stoptraining", "done"),
                               ("hung-1", "StalledTraining", "notify", "done")]
    assert moto_sagemaker.training_job_status("hung-1") == "Stopping"
    assert moto_sagemaker.training_job_status("fine-1") == "InProgress"
    assert next(r for r in first["jobs"] if r["training_job"] == "fine-1")["rules"] == [
        {"rule": "StalledTraining", "verdict": "NoIssuesFound", "reason": ""}]
    assert [j["training_job"] for j in second["jobs"]] == ["fine-1"]  # a job that stopped is not listed again
    assert len(monitored.inbox("team@example.com")) == 1
    assert first["evaluation"] | {"time": None} == {"time": None, "account": None, "region": None, "shard": 0,
                                                   "shards": 1, "running": 2, "evaluated": 2, "findings": 1,
                                                   "log_queries": 2, "unfinished": 0}


WATCHING = {"notify": {"emails": ["team@example.com"]}, "rules": {"StalledTraining": ["stoptraining", "notify"]}}


def test_a_stack_wide_rule_watches_a_hung_job_and_tells_the_team_what_it_would_stop(monitored, capsys):
    # Given StalledTraining turned on for every job by the configuration, whose rules stop and notify, and a job
    # silent for 34 minutes
    monitored.configure(**WATCHING, monitor={"rules": {"StalledTraining": {}}})
    running("hung-7", {})
    logs("hung-7", "algo-1", range(60, 33, -1))
    # When the evaluator runs
    result = evaluate(monitored)
    # Then the stop is watched, saying what it would have stopped; the job still runs; the team is told so
    [stop, notify] = result["jobs"][0]["actions"]
    assert (stop["kind"], stop["outcome"], stop["reason"], stop["jobs"]) == (
        "stoptraining", "watched", "watch mode: would stop hung-7; nothing was changed", [])
    assert (notify["kind"], notify["outcome"]) == ("notify", "done")
    assert moto_sagemaker.training_job_status("hung-7") == "InProgress"
    assert "StopTrainingJob" not in monitored.calls
    [message] = monitored.inbox("team@example.com")
    assert "Watch mode: the rule would have stopped hung-7; nothing was stopped" in message["email"]
    assert "  - stoptraining hung-7: watched (watch mode: would stop hung-7; nothing was changed)" in message["email"]
    assert "in hung-7 (InProgress); would stop it (watch mode); cost $" in message["sms"]  # and what it has cost so far
    # and the Actions metric counts the stop with the outcome watched (EMF, on stdout)
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    assert [m["Actions"] for m in emitted if (m.get("kind"), m.get("outcome")) == ("stoptraining", "watched")] == [
        [1.0]]


def test_a_stack_wide_rule_set_to_act_stops_the_hung_job(monitored):
    # Given the same configuration with the rule's mode set to act
    monitored.configure(**WATCHING, monitor={"rules": {"StalledTraining": {"mode": "act"}}})
    running("hung-8", {})
    logs("hung-8", "algo-1", range(60, 33, -1))
    # When the evaluator runs / Then the job is stopped and the team told
    assert outcomes(evaluate(monitored)) == [("hung-8", "StalledTraining", "stoptraining", "done"),
                                             ("hung-8", "StalledTraining", "notify", "done")]
    assert moto_sagemaker.training_job_status("hung-8") == "Stopping"
    [message] = monitored.inbox("team@example.com")
    assert "Watch mode" not in message["email"] and "stoptraining hung-8: done" in message["email"]


def test_a_watching_rule_set_to_act_later_stops_the_job_and_says_so(monitored):
    # Given a hung job a stack-wide rule watched (the team told what it would stop)
    monitored.configure(**WATCHING, monitor={"rules": {"StalledTraining": {}}})
    running("hung-9", {})
    logs("hung-9", "algo-1", range(60, 33, -1))
    evaluate(monitored)
    # When the team sets the rule to act and the evaluator runs again
    monitored.configure(**WATCHING, monitor={"rules": {"StalledTraining": {"mode": "act"}}})
    # Then the job is stopped, and the team told that too: what watched was recorded apart from what acts
    assert outcomes(evaluate(monitored, 5)) == [("hung-9", "StalledTraining", "stoptraining", "done"),
                                                ("hung-9", "StalledTraining", "notify", "done")]
    assert moto_sagemaker.training_job_status("hung-9") == "Stopping"
    assert len(monitored.inbox("team@example.com")) == 2


def test_a_finding_that_persists_acts_once_and_is_a_duplicate_after(monitored):
    monitored.configure(notify={"emails": ["team@example.com"]}, monitor={"rules": {"LowGPUUtilization": {}}})
    running("idle-1", {})
    gpu("idle-1", "algo-1", 20)
    assert outcomes(evaluate(monitored)) == [("idle-1", "LowGPUUtilization", "notify", "done")]
    assert outcomes(evaluate(monitored, 1)) == [("idle-1", "LowGPUUtilization", "notify", "duplicate")]


def test_the_trust_rules_of_action_json_apply_to_a_tags_actions(monitored):
    # Given a tag texting a number the configuration does not name, and emailing outside allowed_endpoints
    monitored.configure(notify={"emails": ["team@example.com"]}, allowed_endpoints=["*@example.com", "+1555*"],
                        monitor={})
    running("hung-2", {"rule-actions:StalledTraining": "sms=+4915155550100 email=x@example.org stoptraining=other-"})
    logs("hung-2", "algo-1", range(60, 40, -1))
    result = evaluate(monitored)
    # Then each is refused as an action_json's would be, and the job is not stopped by another team's prefix
    actions = {(a["kind"], a["outcome"]) for a in result["jobs"][0]["actions"]}
    assert actions == {("stoptraining", "denied"), ("sms", "denied"), ("email", "denied"), ("notify", "done")}
    assert moto_sagemaker.training_job_status("hung-2") == "InProgress"


def test_a_refusal_is_said_once_while_the_finding_holds(monitored, capsys, monkeypatch):
    # Given a hung job whose tag texts a number the configuration does not name (denied by policy), and the
    # handler's log lines and metrics captured
    running("hung-4", {"rule-actions:StalledTraining": "sms=+15555550199"})
    logs("hung-4", "algo-1", range(60, 40, -1))
    lines = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", lines)
    capsys.readouterr()

    # When the evaluator runs three times while the job stays hung
    runs = [evaluate(monitored, minutes) for minutes in (0, 5, 10)]
    printed = [json.loads(line) for line in (lines.getvalue() + capsys.readouterr().out).splitlines()
               if line.startswith("{")]

    # Then the refusal (and the team's notify) is said by the first run; the later runs are duplicates naming it
    assert outcomes(runs[0]) == [("hung-4", "StalledTraining", "sms", "denied"),
                                 ("hung-4", "StalledTraining", "notify", "done")]
    for later in runs[1:]:
        assert outcomes(later) == [("hung-4", "StalledTraining", "sms", "duplicate"),
                                   ("hung-4", "StalledTraining", "notify", "duplicate")]
        reason = later["jobs"][0]["actions"][0]["reason"]
        assert reason.startswith("already reported: denied (+*******0199 is not a number the configuration names")
        assert "; ledger record until 20" in reason and "+15555550199" not in reason
    # and the log lines and the Actions metric count the repeats as duplicates (a warning once)
    assert [(line["level"], line["outcome"]) for line in printed if line.get("kind") == "sms" and "level" in line] == [
        ("WARNING", "denied"), ("INFO", "duplicate"), ("INFO", "duplicate")]
    assert [line["outcome"] for line in printed if line.get("kind") == "sms" and "Actions" in line] == [
        "denied", "duplicate", "duplicate"]


def test_dry_run_decides_once_calls_nothing_that_acts_and_hides_nothing_from_the_real_run(monitored):
    # Given a hung job whose tag attaches StalledTraining with a stop, under dry_run
    monitored.configure(notify={"emails": ["team@example.com"]}, dry_run=True, monitor={})
    running("hung-3", {"rule-actions:StalledTraining": "stoptraining"})
    logs("hung-3", "algo-1", range(60, 40, -1))

    # When the evaluator runs twice
    first, second = evaluate(monitored), evaluate(monitored, 5)

    # Then the dry run is said once, the later run a duplicate naming it, and nothing acted
    assert {a["outcome"] for a in first["jobs"][0]["actions"]} == {"dry_run"}
    [stop, _] = second["jobs"][0]["actions"]
    assert (stop["outcome"], stop["reason"].split(";")[0]) == (
        "duplicate", "already reported: dry_run (dry_run is true: would stop hung-3")
    assert moto_sagemaker.training_job_status("hung-3") == "InProgress"
    assert not {"StopTrainingJob", "Publish"} & set(monitored.calls)

    # When dry_run is turned off and the evaluator runs again, twice
    monitored.configure(notify={"emails": ["team@example.com"]}, monitor={})
    real = evaluate(monitored, 10)

    # Then the recorded dry run stands for nothing: the job is stopped and the team told, once
    assert outcomes(real) == [("hung-3", "StalledTraining", "stoptraining", "done"),
                              ("hung-3", "StalledTraining", "notify", "done")]
    assert moto_sagemaker.training_job_status("hung-3") == "Stopping"
    assert monitored.calls.count("StopTrainingJob") == 1 and len(monitored.inbox("team@example.com")) == 1


def test_what_cannot_be_used_is_reported_on_the_jobs_row(monitored):
    monitored.configure(notify={"emails": ["team@example.com"]}, monitor={"rules": {"LowGPUUtilization": {}}})
    running("cpu-1", {"rule-actions:IOBottleneck": "stoptraining"}, instance_type="ml.m5.xlarge")
    [row] = evaluate(monitored)["jobs"]
    assert row["rules"] == [{"rule": "LowGPUUtilization", "verdict": "Skipped",
                             "reason": "LowGPUUtilization needs GPUUtilization: ml.m5.xlarge has no GPU"}]
    assert row["problems"] == ['tag rule-actions:IOBottleneck: "IOBottleneck" cannot be computed without Debugger: it '
                               "needs I/O wait per step from Debugger's profiler; CloudWatch's DiskUtilization is disk "
                               "space, not I/O; the job's other rules go on"]


def test_the_calls_of_a_run(monitored):
    running("hung-4", {"rule-actions:StalledTraining": "stoptraining"})
    logs("hung-4", "algo-1", range(60, 40, -1))
    monitored.configure(notify={"emails": ["team@example.com"]}, monitor={"rules": {"LowGPUUtilization": {}}})
    gpu("hung-4", "algo-1", 300)
    monitored.calls.clear()
    evaluate(monitored)
    reads = [c for c in monitored.calls if c in ("Search", "GetMetricData", "FilterLogEvents", "DescribeTrainingJob",
                                                 "DescribeLogStreams", "GetLogEvents")]
    assert reads == ["Search", "GetMetricData", "FilterLogEvents", "DescribeTrainingJob"]
    assert "StopTrainingJob" in monitored.calls


def test_a_lagging_last_event_timestamp_changes_nothing(monitored):
    # Given AWS's lastEventTimestamp, an hour behind (moto's is exact): the job logged a minute ago
    undo = moto_monitoring.lag_last_event(timedelta(hours=1))
    try:
        running("busy-1", {"rule-actions:StalledTraining": "stoptraining"})
        logs("busy-1", "algo-1", range(90, 0, -1))
        import boto3

        stream = boto3.client("logs", region_name="us-east-1").describe_log_streams(
            logGroupName=GROUP, logStreamNamePrefix="busy-1/")["logStreams"][0]
        assert T * 1000 - stream["lastEventTimestamp"] > 55 * 60 * 1000  # as stale as AWS's may be
        # Then the job is not stalled: the window's events are read, not the timestamp
        [row] = evaluate(monitored)["jobs"]
        assert row["rules"][0]["verdict"] == "NoIssuesFound" and "actions" not in row
    finally:
        undo()


def test_a_page_without_events_but_with_a_token_is_not_silence(monitored, monkeypatch):
    # FilterLogEvents may return an empty page and a nextToken while it has not searched every stream
    from moto.logs.responses import LogsResponse

    monkeypatch.setattr(LogsResponse, "filter_log_events",
                        lambda self: json.dumps({"events": [], "nextToken": "more", "searchedLogStreams": []}))
    running("quiet-1", {"rule-actions:StalledTraining": "stoptraining"})
    [row] = evaluate(monitored)["jobs"]
    assert row["rules"][0]["verdict"] == "Pending" and "actions" not in row
    assert moto_sagemaker.training_job_status("quiet-1") == "InProgress"


def test_the_namespace_is_pinned_where_moto_would_mix_namespaces(monitored):
    # Given busy GPUs in SageMaker's namespace and an idle decoy with the same name and dimensions elsewhere
    monitored.configure(notify={"emails": ["team@example.com"]}, monitor={"rules": {"LowGPUUtilization": {}}})
    running("busy-2", {})
    gpu("busy-2", "algo-1", 320)
    gpu("busy-2", "algo-1", 0, namespace="Custom/Decoy")
    # Then the busy series alone is judged (moto's own GetMetricData would average both)
    [row] = evaluate(monitored)["jobs"]
    assert row["rules"] == [{"rule": "LowGPUUtilization", "verdict": "NoIssuesFound", "reason": ""}]


def test_a_job_heard_recently_is_not_queried_again_until_its_silence_could_count(monitored):
    # Given a healthy job that logs every minute
    running("chatty-1", {"rule-actions:StalledTraining": "stoptraining"})
    logs("chatty-1", "algo-1", range(90, -40, -1))  # up to 40 minutes ahead of NOW: the runs below see them
    # When the evaluator runs every five minutes for half an hour
    queries = [evaluate(monitored, minutes)["evaluation"]["log_queries"] for minutes in range(0, 40, 5)]
    # Then its logs are read at the first run, then again only once the threshold could have passed
    assert queries == [1, 0, 0, 0, 0, 0, 0, 1]


def test_a_job_s_log_keys_do_not_stay_on_the_lines_after_it(monitored, monkeypatch):
    import io

    from rule_actions.observability import logger

    # Given a hung job the evaluator acts on (its event handled: the job's keys added to the log lines), and the
    # handler's log lines captured
    running("hung-6", {"rule-actions:StalledTraining": "stoptraining"})
    logs("hung-6", "algo-1", range(60, 33, -1))
    lines = io.StringIO()
    monkeypatch.setattr(logger.registered_handler, "stream", lines)
    # When the evaluator runs
    evaluate(monitored)
    # Then the run's summary line names no job: the acted-on job's keys went with its event
    [summary] = [line for line in map(json.loads, lines.getvalue().splitlines()) if line["message"] == "evaluation"]
    assert {"job", "job_family", "training_job", "event_id"}.isdisjoint(summary), summary


def test_many_jobs_are_read_by_one_logs_insights_query_with_the_same_verdicts(monitored, monkeypatch):
    # Given four jobs whose tags attach StalledTraining, one silent for 34 minutes, one with a silent second host
    # (the rhythm read), and a run that reads its logs by one Logs Insights query from three jobs on
    monkeypatch.setenv("RULE_ACTIONS_LOGS_INSIGHTS_FROM", "3")
    tags = {"rule-actions:StalledTraining": "stoptraining"}
    running("hung-q", tags)
    logs("hung-q", "algo-1", range(60, 33, -1))
    for name in ("fine-q1", "fine-q2"):
        running(name, tags)
        logs(name, "algo-1", range(60, 0, -1))
    running("two-q", tags, count=2)
    logs("two-q", "algo-1", range(60, 0, -1))
    logs("two-q", "algo-2", range(60, 35, -1))
    # When the evaluator runs
    result = evaluate(monitored)
    # Then one StartQuery and its GetQueryResults read every job's streams, no FilterLogEvents but the silent host's
    # rhythm (one stream's window)
    reads = [c for c in monitored.calls if c in ("StartQuery", "GetQueryResults", "StopQuery", "FilterLogEvents")]
    assert reads == ["StartQuery", "GetQueryResults", "FilterLogEvents"]
    assert result["evaluation"]["log_reads"] == "one Logs Insights query read 4 jobs' logs"
    assert result["evaluation"]["log_queries"] == 2
    # and the verdicts are those of one FilterLogEvents call per job: the hung job stopped, the others left alone
    # (algo-2's silence of 36 minutes is held: its one 30-minute gap, before its first line, in 54 minutes of history
    # is too little to trust, and its GPUs published nothing: it is compared with an hour)
    assert outcomes(result) == [("hung-q", "StalledTraining", "stoptraining", "done"),
                                ("hung-q", "StalledTraining", "notify", "done")]
    rows = {j["training_job"]: j["rules"][0] for j in result["jobs"]}
    assert rows["fine-q1"] == rows["fine-q2"] == {"rule": "StalledTraining", "verdict": "NoIssuesFound", "reason": ""}
    assert rows["hung-q"]["reason"] == "no log line from any host for 34 min (threshold 30 min)"
    assert (rows["two-q"]["verdict"], rows["two-q"]["reason"]) == (
        "NoIssuesFound", "algo-2 silent for 36 min, too little history for its own rhythm (a history of 54 min, longest "
                         "gap 30 min): stalled after 1.5 times 1 h 00 min (its GPUs unknown: no datapoint yet)")


def test_a_failed_logs_insights_query_falls_back_to_filterlogevents_in_the_same_run(monitored, monkeypatch):
    # Given three jobs, one hung, and a Logs Insights query that fails on the service's side
    from moto.logs.models import LogQuery

    monkeypatch.setenv("RULE_ACTIONS_LOGS_INSIGHTS_FROM", "3")
    monkeypatch.setattr(LogQuery, "to_result_json", lambda self: {"results": [], "status": "Failed"})
    tags = {"rule-actions:StalledTraining": "stoptraining"}
    running("hung-f", tags)
    logs("hung-f", "algo-1", range(60, 33, -1))
    for name in ("fine-f1", "fine-f2"):
        running(name, tags)
        logs(name, "algo-1", range(60, 0, -1))
    # When the evaluator runs
    result = evaluate(monitored)
    # Then each job is read by FilterLogEvents after the query, the hung job is stopped all the same, and the run
    # says the query failed and how the jobs were read instead
    reads = [c for c in monitored.calls if c in ("StartQuery", "GetQueryResults", "FilterLogEvents")]
    assert reads == ["StartQuery", "GetQueryResults", "FilterLogEvents", "FilterLogEvents", "FilterLogEvents"]
    assert outcomes(result)[0] == ("hung-f", "StalledTraining", "stoptraining", "done")
    assert result["evaluation"]["log_reads"] == (
        "the Logs Insights query on /aws/sagemaker/TrainingJobs (3 jobs) failed: QueryUnfinished: the Logs "
        "Insights query ended Failed; its 3 jobs read one FilterLogEvents call each")
    assert result["evaluation"]["log_queries"] == 4
