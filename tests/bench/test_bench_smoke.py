"""Smoke tests for bench/ (`make bench`): each benchmark's core runs on a small input and its numbers mean what
they say. Behaviour only, never timings (those are the benchmarks' business)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import api_calls, cold_start, generator, invocations, throughput  # noqa: E402
from bench.common import (  # noqa: E402
    DEMO_CONFIG,
    SAMPLE_PATTERN,
    CallCounter,
    Harness,
    classify,
    context,
    function_patterns,
    load_lifecycles,
    percentile,
    synthesized,
)
from rule_actions_cdk.app import project_context, read_context  # noqa: E402
from rule_actions_cdk.plugins import event_pattern  # noqa: E402

ISSUE = {generator.ISSUE_RULE: "IssuesFound", generator.OTHER_RULE: "InProgress"}
QUIET = {generator.ISSUE_RULE: "InProgress", generator.OTHER_RULE: "InProgress"}


def _events(*specs: tuple[str, str, dict[str, str]]) -> list[tuple[str, dict]]:
    return [(f"e#{i}", generator.event("job-1", status, secondary, debug, generator.START_MS + i))
            for i, (status, secondary, debug) in enumerate(specs)]


# ------------------------------------------------------------------------------------ 1. invocations


def test_sample_pattern_invokes_on_every_lifecycle_event_and_ours_on_a_subset():
    events = load_lifecycles()
    config, _ = read_context(project_context())
    ours = invocations.count_invocations(events, [event_pattern(config)])
    assert invocations.count_invocations(events, [SAMPLE_PATTERN]) == len(events)
    assert 0 < ours < len(events)


def test_function_patterns_reads_the_rule_that_targets_the_function():
    pattern = {"source": ["aws.sagemaker"]}
    template = {"Resources": {
        "Fn": {"Type": "AWS::Lambda::Function", "Properties": {}},
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {}},
        "ToFn": {"Type": "AWS::Events::Rule", "Properties": {
            "EventPattern": pattern, "Targets": [{"Arn": {"Fn::GetAtt": ["Fn", "Arn"]}, "Id": "t"}]}},
        "ToQueue": {"Type": "AWS::Events::Rule", "Properties": {
            "EventPattern": {"source": ["other"]}, "Targets": [{"Arn": {"Fn::GetAtt": ["Queue", "Arn"]}, "Id": "q"}]}},
    }}
    assert function_patterns(template) == [pattern]


def test_simulated_sample_stops_once_per_event_per_issues_found_entry_while_in_progress():
    events = _events(
        ("InProgress", "Training", QUIET),
        ("InProgress", "Training", ISSUE),
        ("InProgress", "Training", ISSUE),  # SageMaker's duplicate
        ("InProgress", "Training", {generator.ISSUE_RULE: "IssuesFound", generator.OTHER_RULE: "IssuesFound"}),
        ("Stopping", "Stopping", ISSUE),  # not InProgress: no call
    )
    sample = invocations.simulate_sample(events)
    assert sample["invocations"] == 5
    assert sample["calls"] == 1 + 1 + 2
    # Against the job's real state: the first call stops it; each later event's first call is refused, the
    # sample re-raises and Lambda retries it twice (the loop never reaches a second entry).
    assert sample["stopped"] == 1
    assert sample["calls_with_retries"] == 1 + 3 + 3
    assert sample["refused"] == 6
    assert sample["failed_invocations"] == 2


# ------------------------------------------------------------------------------------ 2. API calls


def test_call_counter_counts_each_call_once_and_classifies_it():
    client = boto3.client("dynamodb", region_name="us-east-1")
    counter = CallCounter()
    counter.attach(client)
    counter.attach(client)  # attaching twice does not count twice
    with Stubber(client) as stub:
        stub.add_response("list_tables", {"TableNames": []})
        stub.add_response("get_item", {})
        mark = counter.mark()
        client.list_tables()
        client.get_item(TableName="t", Key={"id": {"S": "x"}})
    assert counter.calls == ["ListTables", "GetItem"]
    assert counter.since(mark + 1) == {"GetItem": 1}
    assert [classify(op) for op in ("StopTrainingJob", "Publish", "DescribeTrainingJob", "PutItem", "ListTables")] == [
        "action", "action", "describe", "ledger", "other"]


@pytest.fixture(scope="module")
def harness():
    """The demo configuration's stack on the embedded account (synthesis is cached; the e2e tests share it)."""
    assembly, stack, _ = synthesized(context(DEMO_CONFIG))
    with Harness(assembly, stack) as h:
        yield h


def test_api_calls_per_event_type(harness):
    measured = api_calls.measure(harness, api_calls.cases())
    first, duplicate = measured[0], measured[1]
    assert first.case.name.startswith("first IssuesFound (") and duplicate.case.name.startswith("duplicate")
    assert first.outcomes == {"done": 3}
    # (the team audience is listed once per execution environment: ListSubscriptionsByTopic + one read)
    assert first.by_class("action") == {"StopTrainingJob": 1, "Subscribe": 1, "GetSubscriptionAttributes": 2,
                                        "ListSubscriptionsByTopic": 1, "Publish": 2}
    # + the record of the stopped job, and the ledger's order of the job's events (one conditional write)
    assert first.by_class("ledger") == {"PutItem": 4, "UpdateItem": 4}
    assert first.holds
    assert first.by_class("describe") == {"DescribeTrainingJob": 1}  # the job's live status, before its stop
    assert first.total == first.case.budget == 16  # stop 1+2+1, email 3+2, notify 1+2, describe 1, order 1, team 2
    assert duplicate.outcomes == {"duplicate": 3} and not duplicate.by_class("action")
    assert duplicate.by_class("ledger") == {}  # the done records are in the execution environment's cache
    assert duplicate.case.budget == 3
    bare = [m for m in measured if "without" in m.case.name]
    assert len(bare) == 2 and all(m.by_class("describe") == {"DescribeTrainingJob": 1} for m in bare)
    assert all(m.holds for m in measured)


# ------------------------------------------------------------------------------------ 3. cold start


def test_importtime_output_is_summed_by_top_level_package():
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       100 |        100 |   botocore.utils\n"
        "import time:        50 |        150 | botocore\n"
        "import time:        30 |        180 | rule_actions.handler\n"
    )
    assert cold_start.self_time_by_package(stderr) == {"botocore": 150, "rule_actions": 30}


def test_import_measure_runs_both_modules_in_fresh_interpreters():
    result = cold_start.measure_imports(rounds=1)
    assert {len(v) for v in result["samples"].values()} == {1}
    assert result["handler_ms"] > 0 and result["boto3_ms"] > 0
    assert result["ratio"] == pytest.approx(result["handler_ms"] / result["boto3_ms"])


def test_asset_load_measure_unzips_and_imports_the_shipped_and_the_whole_asset_in_a_clean_interpreter():
    result = cold_start.measure_asset_loads(rounds=1, count=False)  # (callgrind's count: `make bench`, 20 s more)
    assert set(result["import_ms"]) == set(result["import_cpu_ms"]) == {"shipped", "sources", "whole", "boto3"}
    assert min(result["import_ms"].values()) > 0 and min(result["unzip_ms"].values()) > 0
    assert min(result["import_cpu_ms"].values()) > 0
    assert result["instructions"] is None
    shipped, sources, whole = (result["sizes"][kind] for kind in ("shipped", "sources", "whole"))
    assert 50_000 < shipped["zip_bytes"] < shipped["unzipped_bytes"] < 50_000_000  # Lambda's zip limit: 50 MB
    assert shipped["files"] < whole["files"] and shipped["zip_bytes"] < whole["zip_bytes"]
    # The runtime's boto3 is imported from its bytecode, and so is the asset with its bytecode: nothing compiled;
    # without bytecode, every module of it is
    assert result["compiled"]["boto3"] == 0
    assert sources["bytecode"] == 0 and result["compiled"]["sources"] > 100
    assert shipped["bytecode"] == shipped["files"] - sources["files"] > 100 and result["compiled"]["shipped"] == 0


@pytest.mark.parametrize(("cold_ratio", "compiled", "met"), [
    (1.2, 0, True),
    (cold_start.TARGET_RATIO, 0, True),
    (cold_start.TARGET_RATIO + 0.01, 0, False),
    (1.0, 1, False),  # an asset compiled at import misses, however fast it was measured
])
def test_the_cold_start_target_holds_only_within_the_ratio_and_with_nothing_compiled(cold_ratio, compiled, met):
    assert cold_start.target_met(cold_ratio, compiled) is met


def test_callgrind_s_count_is_read_from_its_report():
    stderr = "==41== Callgrind, a call-graph generating cache profiler\n==41== Collected : 765551441\n==41==\n"
    assert cold_start.collected(stderr) == 765551441
    with pytest.raises(ValueError, match="no instruction count"):
        cold_start.collected("valgrind: failed to start tool 'callgrind'\n")


def test_first_invocation_child_acts_on_its_events():
    result = cold_start.measure_first_invocations(runs=1)
    assert result["first_outcomes"] == ["email:done", "notify:done", "stoptraining:done"]
    assert result["warm_outcomes"] == result["first_outcomes"]
    assert min(result[k] for k in ("import_s", "runtime_s", "first_call_s", "warm_call_s")) > 0


# ------------------------------------------------------------------------------------ 4. throughput


def test_generator_mixes_filtered_state_changes_with_issues_and_duplicates():
    events = generator.generate(400, 20, tag="gen")
    config, _ = read_context(project_context())
    matched = invocations.count_invocations(events, [event_pattern(config)])
    assert len(events) == 400
    assert len({e["detail"]["TrainingJobName"] for _, e in events}) == 20
    assert 0 < matched < len(events) / 2  # most events are filtered out by the stack's rule
    assert len({e["id"] for _, e in events}) == len(events)
    details = [id(e["detail"]) for _, e in events]
    assert len(set(details)) < len(details)  # SageMaker's duplicates: same detail, new id
    assert generator.generate(400, 20, tag="gen") == events  # deterministic


def test_replay_counts_events_and_acts_once_per_job_rule_action(harness):
    events = generator.generate(200, 10, tag="smoke")
    stats = throughput.replay(harness, events)
    assert stats["events"] == 200 and stats["jobs"] == 10
    assert 0 < stats["matched"] < stats["events"]
    assert stats["exactly_once"] and stats["done_actions"] > 0
    assert stats["outcomes"]["duplicate"] > 0
    stoppable = {
        e["detail"]["TrainingJobName"] for _, e in events
        if e["detail"]["TrainingJobStatus"] == "InProgress"
        and any(s["RuleEvaluationStatus"] == "IssuesFound" for s in e["detail"]["DebugRuleEvaluationStatuses"])
    }
    assert stoppable and stats["calls"]["StopTrainingJob"] == len(stoppable)  # once per job, not per event
    assert stats["p50"] <= stats["p99"]


def test_the_end_to_end_replay_runs_the_command_as_typed_and_counts_its_events():
    # Given generated events, when `rule-actions replay` runs over one of them and over all of them
    events = generator.generate(40, 4, tag="typed")
    found = throughput.end_to_end(events)
    # Then the command's own summary counts them, and the rates are those of the wall time it took
    assert found["startup"]["events"] == 1 and found["whole"]["events"] == 40
    assert 0 < found["whole"]["matched"] < 40
    assert found["events_per_second"] == pytest.approx(40 / found["whole"]["seconds"])
    assert found["whole"]["cpu_seconds"] > 0


def test_percentile_is_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0], 99) == 3.0


def test_each_family_s_every_change_rule_matches_its_events_and_ours_a_subset():
    # [1b]: per family lifecycle, a rule on every state change of the family vs the families configuration's
    from rule_actions.config import Config
    from rule_actions.registry import JOBS, job_family

    config = Config.from_dict(invocations.families_context()["rule_actions"])
    ours = event_pattern(config)
    lifecycles = invocations.family_lifecycles()
    assert {path.parent.name for path, _ in lifecycles} == set(invocations.FAMILY_FOLDERS)
    for path, events in lifecycles:
        family = job_family(events[-1][1])
        own = [e for _, e in events if job_family(e) is family]
        assert invocations.count_invocations(events, [invocations.every_change(family)]) == len(own), path
        assert invocations.count_invocations(events, [invocations.every_change(f) for f in JOBS]) == len(events)
        assert invocations.count_invocations(events, [ours]) <= len(own), path
    assert "webhooks" not in invocations.families_context()["rule_actions"]


@pytest.mark.parametrize(("counted", "measure", "expected"), [
    ({"shipped": 1293, "boto3": 1000}, "counted instructions", 1.293),  # valgrind: the count, not the times
    (None, "CPU time", 1.25),  # without it: CPU time, never the wall time a busy machine inflates
])
def test_the_cold_start_is_judged_by_a_measure_the_machine_s_load_does_not_move(counted, measure, expected):
    # Given the counted instructions (or none) and the imports' CPU times
    cpu_ms = {"shipped": 250.0, "boto3": 200.0}
    # When the judged ratio is chosen
    judged, said = cold_start.judged_ratio(counted, cpu_ms)
    # Then it is the count when there is one, else CPU time
    assert (round(judged, 3), said) == (expected, measure)
