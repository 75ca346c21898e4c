"""`rule-actions report --replay`: the events and a timeline replayed on the embedded account, then the report from
its CloudWatch (the function's EMF output put there) and its ledger, each stop's cost and saving from the embedded
account's sample prices (the metrics SavedDollars and CostDollars, the stop records' cost_usd and saved_usd). Every
metric the replayed function emitted is one of those the dashboard graphs and the report reads, under the service
name the replayed stack gives its function. (Apart from test_report.py: each module's embedded account is its
own.)"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from rule_actions.contract import (
    COST_METRIC,
    EVALUATED_METRIC,
    EVALUATION_SECONDS_METRIC,
    EVENTS_METRIC,
    SAVED_METRIC,
)
from rule_actions_cdk import metrics as catalog
from rule_actions_cdk.settings import StackSettings
from rule_actions_cli import report
from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
MONITOR = {"notify": {"emails": ["ml-team@example.com"]}, "rules": {"*": ["notify"]},
           "job_outcomes": {"Failed": ["notify"], "Stopped": ["notify"]},
           "monitor": {"every_minutes": 10, "rules": {"StalledTraining": {}}}}


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """`report --replay` of a stop through a rule's action_json, an event the rule does not match and the hung-job
    timeline (the evaluator stops it), with the monitor rules on; each stop's cost and saving from the embedded
    account's sample prices. (The JSON report, the datapoints CloudWatch took from the function's output.)"""
    taken: list[tuple] = []
    datapoints = report.emf_datapoints
    config = tmp_path_factory.mktemp("config") / "monitor.json"
    config.write_text(json.dumps(MONITOR))
    paths = [str(ROOT / "events" / "vanishing-gradient-sdk-actions.json"), str(ROOT / "events" / "no-issues-found.json"),
             str(ROOT / "events" / "timelines" / "hung-job.json")]
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        patch.setattr(report, "emf_datapoints", lambda line: taken.extend(found := datapoints(line)) or found)
        code = main(["report", "--replay", *paths, "--config", str(config), "--json"])
    assert code == 0 and err.getvalue() == "", err.getvalue()
    return json.loads(out.getvalue()), taken


def test_a_replay_reports_its_stops_and_savings_from_the_metrics_and_the_ledger(replay):
    found, _ = replay
    assert found["scope"].startswith("a replay of 3 event(s) on the embedded account (moto)")
    # The ledger: each job this stack stopped (the rule's action_json, the evaluator's StalledTraining), with what
    # it cost until the stop and saved at most (both priced)
    stopped = found["ledger"]["stopped"]
    assert [(s["job"], s["stopped_by"]) for s in stopped] == [
        ("llm-pretrain-2026-11-24-08-00-00-303", "rule StalledTraining of llm-pretrain-2026-11-24-08-00-00-303"),
        ("pt-resnet50-2026-11-22-08-01-13-512", "rule VanishingGradient of pt-resnet50-2026-11-22-08-01-13-512")]
    assert all(s["cost_usd"] > 0 and s["saved_usd"] > 0 for s in stopped)
    # The metrics say the same: two stops, each saving known, what they saved and what the two stop messages stated
    saved, cost = round(sum(s["saved_usd"] for s in stopped), 2), round(sum(s["cost_usd"] for s in stopped), 2)
    assert found["stops"] == {"carried_out": 2, "watched": 0, "saving_known": 2, "saving_unknown": 0,
                              "saved_usd": saved, "saved_by_family": {"training": saved}}
    assert found["costs"] == {"messages": 2, "usd": cost, "by_family": {"training": cost}}
    assert found["triggers"]["rule:IssuesFound"] == 2
    # and one record per action carried out: as many as the metrics counted done
    done = sum(row.get("done", 0) for row in found["actions"].values())
    assert found["ledger"]["actions_done"] == done > 2
    # The evaluator ran at each tick of the timeline (every 10 minutes over 100), judged one job at most, found it
    evaluator = found["evaluator"]
    assert evaluator["timed_runs"] == 10 and evaluator["runs"] is None and evaluator["failed_runs"] is None
    assert evaluator["most_jobs_in_a_run"] == 1 and evaluator["findings"] >= 1 and evaluator["timeout_s"] == 600


def test_the_text_of_a_replay_lists_the_stopped_jobs_with_their_figures(replay):
    found, _ = replay
    # Given the replay's ledger, and a stop record whose figures are unknown (a price the Price List lacks)
    ledger = found["ledger"]
    unknown = {"job": "no-price-job", "stopped_by": "rule StalledTraining of no-price-job", "cost_usd": None,
               "saved_usd": None}
    lines = report._ledger_lines(report.LedgerContents(**{**ledger, "stopped": [*ledger["stopped"], unknown]}))
    assert lines[:4] == [
        "3 job(s) stopped by this stack (its stop records)",
        *(f"  {s['job']}: cost ${s['cost_usd']:,.2f} until the stop, saved ${s['saved_usd']:,.2f} at most; by "
          f"{s['stopped_by']}" for s in ledger["stopped"]),
        "  no-price-job: cost unknown, saving unknown; by rule StalledTraining of no-price-job"]
    assert lines[4].endswith("carried out, " + f"{ledger['decisions']} decision(s) not to act, each said once")


def test_every_metric_the_replayed_function_emitted_is_one_the_dashboard_and_report_read(replay):
    found, taken = replay
    # The replayed stack's service name is its construct's (the stack's default name), which the template gives the
    # function and the evaluator, and the report read
    assert found["service"] == StackSettings().stack_name == "RuleActions"
    emitted = {(namespace, name, frozenset(dimensions.items())) for namespace, name, dimensions, *_ in taken}
    known = {(m.namespace, m.name, frozenset(m.dimensions(found["service"]).items())) for m in catalog.every_metric()}
    assert emitted and emitted <= known
    # the replay emitted those the report's figures come from: actions, triggers, savings, costs, the evaluation's
    assert {name for _, name, _ in emitted} >= {"Actions", "Triggers", SAVED_METRIC, COST_METRIC, EVENTS_METRIC,
                                                 EVALUATION_SECONDS_METRIC, EVALUATED_METRIC}
