"""`rule-actions report --replay`: the events and a timeline replayed on the embedded account, then the report from
its CloudWatch (the function's EMF output put there) and its ledger; with what the cost work adds (test-only: a
stop record's cost_usd and saved_usd, SavedDollars and CostDollars for one of the two stops). Every metric the
replayed function emitted is one of those the dashboard graphs and the report reads. (Apart from test_report.py:
each module's embedded account is its own.)"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.metrics import MetricUnit, single_metric

from rule_actions.contract import (
    COST_METRIC,
    EVALUATED_METRIC,
    EVALUATION_SECONDS_METRIC,
    EVENTS_METRIC,
    FAMILY_DIMENSION,
    LEDGER_COST_ATTRIBUTE,
    LEDGER_KEY_ATTRIBUTE,
    LEDGER_SAVED_ATTRIBUTE,
    NAMESPACE,
    SAVED_METRIC,
)
from rule_actions.observability import emit
from rule_actions_cdk import metrics as catalog
from rule_actions_cli import savings
from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
MONITOR = {"notify": {"emails": ["ml-team@example.com"]}, "rules": {"*": ["notify"]},
           "job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"]},
           "monitor": {"every_minutes": 10, "rules": {"StalledTraining": {}}}}


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """`report --replay` of a stop through a rule's action_json, an event the rule does not match and the hung-job
    timeline (the evaluator stops it), with the monitor rules on; what the cost work adds (test-only): the first
    job's stop record holds its cost and saving, and its stop emits SavedDollars and CostDollars. (The JSON report,
    the text report, the datapoints CloudWatch took from the function's output.)"""
    from rule_actions import handler
    from rule_actions.effects.ledger import STOPPED_PREFIX, Ledger

    patch = pytest.MonkeyPatch()
    priced = "pt-resnet50-2026-11-22-08-01-13-512"
    mark_stopped = Ledger.mark_stopped

    def mark_with_figures(self: Ledger, job_arn: str, by: str) -> None:
        mark_stopped(self, job_arn, by)
        if job_arn.endswith(priced):
            self.client.update_item(TableName=self.table_name, Key={LEDGER_KEY_ATTRIBUTE: {"S": STOPPED_PREFIX + job_arn}},
                                    UpdateExpression="SET #c = :c, #s = :s",
                                    ExpressionAttributeNames={"#c": LEDGER_COST_ATTRIBUTE, "#s": LEDGER_SAVED_ATTRIBUTE},
                                    ExpressionAttributeValues={":c": {"S": "12.34"}, ":s": {"S": "45.67"}})

    def emit_with_figures(triggers: Any, results: Any) -> None:
        results = list(results)
        emit(triggers, results)
        if any(priced in r.stopped for r in results):
            figures_of_one = ((SAVED_METRIC, 45.67), (COST_METRIC, 12.34))
            for name, value in figures_of_one:
                with single_metric(name=name, unit=MetricUnit.NoUnit, value=value, namespace=NAMESPACE) as metric:
                    metric.add_dimension(name=FAMILY_DIMENSION, value="training")

    taken: list[tuple] = []
    datapoints = savings.emf_datapoints
    patch.setattr(Ledger, "mark_stopped", mark_with_figures)
    patch.setattr(handler, "emit", emit_with_figures)
    patch.setattr(savings, "emf_datapoints", lambda line: taken.extend(found := datapoints(line)) or found)
    config = tmp_path_factory.mktemp("config") / "monitor.json"
    config.write_text(json.dumps(MONITOR))
    paths = [str(ROOT / "events" / "vanishing-gradient-sdk-actions.json"), str(ROOT / "events" / "no-issues-found.json"),
             str(ROOT / "events" / "timelines" / "hung-job.json")]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["report", "--replay", *paths, "--config", str(config), "--json"])
    finally:
        patch.undo()
    assert code == 0 and err.getvalue() == "", err.getvalue()
    return json.loads(out.getvalue()), taken


def test_a_replay_reports_its_stops_and_savings_from_the_metrics_and_the_ledger(replay):
    found, _ = replay
    assert found["scope"].startswith("a replay of 3 event(s) on the embedded account (moto)")
    # Two stops (the rule's action_json, the evaluator's StalledTraining): one saving known, one unknown
    assert found["stops"] == {"carried_out": 2, "watched": 0, "saving_known": 1, "saving_unknown": 1,
                              "saved_usd": 45.67, "saved_by_family": {"training": 45.67}}
    assert found["costs"] == {"messages": 1, "usd": 12.34, "by_family": {"training": 12.34}}
    assert found["triggers"]["rule:IssuesFound"] == 2
    # The ledger: each job this stack stopped, with its figures when known, unknown (null) otherwise
    assert found["ledger"]["stopped"] == [
        {"job": "llm-pretrain-2026-11-24-08-00-00-303", "stopped_by": "rule StalledTraining of "
         "llm-pretrain-2026-11-24-08-00-00-303", "cost_usd": None, "saved_usd": None},
        {"job": "pt-resnet50-2026-11-22-08-01-13-512", "stopped_by": "rule VanishingGradient of "
         "pt-resnet50-2026-11-22-08-01-13-512", "cost_usd": 12.34, "saved_usd": 45.67}]
    # and one record per action carried out: as many as the metrics counted done
    done = sum(row.get("done", 0) for row in found["actions"].values())
    assert found["ledger"]["actions_done"] == done > 2
    # The evaluator ran at each tick of the timeline (every 10 minutes over 100), judged one job at most, found it
    evaluator = found["evaluator"]
    assert evaluator["timed_runs"] == 10 and evaluator["runs"] is None and evaluator["failed_runs"] is None
    assert evaluator["most_jobs_in_a_run"] == 1 and evaluator["findings"] >= 1 and evaluator["timeout_s"] == 600


def test_the_text_of_a_replay_lists_the_stopped_jobs_with_their_figures(replay):
    found, _ = replay
    lines = savings._ledger_lines(savings.Ledger(**found["ledger"]))
    assert lines[:3] == [
        "2 job(s) stopped by this stack (its stop records)",
        "  llm-pretrain-2026-11-24-08-00-00-303: cost unknown, saving unknown; by rule StalledTraining of "
        "llm-pretrain-2026-11-24-08-00-00-303",
        "  pt-resnet50-2026-11-22-08-01-13-512: cost $12.34 until the stop, saved $45.67 at most; by rule "
        "VanishingGradient of pt-resnet50-2026-11-22-08-01-13-512"]
    assert lines[3].endswith("carried out, " + f"{found['ledger']['decisions']} decision(s) not to act, each said once")


def test_every_metric_the_replayed_function_emitted_is_one_the_dashboard_and_report_read(replay):
    _, taken = replay
    emitted = {(namespace, name, frozenset(dimensions.items())) for namespace, name, dimensions, *_ in taken}
    known = {(m.namespace, m.name, frozenset(m.dimensions.items())) for m in catalog.every_metric()}
    assert emitted and emitted <= known
    # the replay emitted those the report's figures come from: actions, triggers, savings, costs, the evaluation's
    assert {name for _, name, _ in emitted} >= {"Actions", "Triggers", SAVED_METRIC, COST_METRIC, EVENTS_METRIC,
                                                 EVALUATION_SECONDS_METRIC, EVALUATED_METRIC}
