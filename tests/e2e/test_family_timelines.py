"""`rule-actions replay` of the other families' timelines (events/timelines/families/): processing, transform and
tuning jobs on the embedded account, the evaluator at every tick. Each timeline finds what it expects, when it
should, and the healthy ones nothing; each hung, idle or failing job is stopped once by the family-neutral `stop`
its tag asks for (a pipeline step's job: its pipeline execution), and nothing healthy is stopped."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from rule_actions_cli.emulator.pricing import SAMPLE_PRICES
from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ROOT / "events" / "timelines" / "families"
CONFIG = ROOT / "examples" / "monitor-families-config.json"


@pytest.fixture(scope="module")
def rows():
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert main(["replay", "--json", "--config", str(CONFIG), str(FAMILIES)]) == 0
    finally:
        sys.stdout = saved
    return [json.loads(line) for line in out.getvalue().splitlines()]


def rows_of(rows, timeline):
    return [r for r in rows if r["source"].split("/")[-1].startswith(f"{timeline}.json#+")]


def findings(rows, timeline):
    """(job, rule) -> the minutes of the rows where the rule holds, with the first reason."""
    found: dict[tuple[str, str], list] = {}
    for row in rows_of(rows, timeline):
        for verdict in row.get("rules", []):
            if verdict["verdict"] == "IssuesFound":
                minute = int(row["source"].rsplit("#+", 1)[1].rstrip("m"))
                found.setdefault((row["job"], verdict["rule"]), []).append((minute, verdict["reason"]))
    return found


@pytest.mark.parametrize("timeline", sorted(p.stem for p in FAMILIES.glob("*.json")))
def test_each_family_timeline_finds_what_it_expects_and_nothing_else(rows, timeline):
    # Given a timeline's jobs and the rules expected to find them (none for the healthy ones)
    jobs = json.loads((FAMILIES / f"{timeline}.json").read_text())["jobs"]
    expected = {(job["name"], e["rule"]) for job in jobs for e in job["expect"]}
    # Then exactly those are found, never an error
    assert set(findings(rows, timeline)) == expected
    assert not [v for r in rows_of(rows, timeline) for v in r.get("rules", []) if v["verdict"] == "Error"]


@pytest.mark.parametrize(("timeline", "rule", "latest"), [
    ("hung-processing", "StalledJob", 30 + 5),  # the threshold, then at most one run
    ("idle-processing", "IdleInstances", 30 + 5),  # a full window of idle minutes, then at most one run
    ("idle-transform", "IdleInstances", 30 + 5),
    ("failing-trials", "FailingTrials", 5),  # the next run after the third trial ended
    ("overrun-transform", "RuntimeOverrun", 5),  # the next run after twice the declared minutes
])
def test_a_family_s_finding_comes_at_the_first_run_it_can(rows, timeline, rule, latest):
    job = next(j for j in json.loads((FAMILIES / f"{timeline}.json").read_text())["jobs"] if j["expect"])
    begins = next(e["begins"] for e in job["expect"] if e["rule"] == rule)
    [(first, _reason), *_] = findings(rows, timeline)[(job["name"], rule)]
    assert begins < first <= begins + latest


def test_the_findings_name_what_a_person_acts_on(rows):
    [(_, hung)] = findings(rows, "hung-processing")[("prep-features-2026-11-24-08-00-00-501", "StalledJob")][:1]
    assert hung == "no log line from any host for 30 min (threshold 30 min)"
    [(_, trials)] = findings(rows, "failing-trials")[("hpo-xgb-churn-1124", "FailingTrials")][:1]
    assert trials == ("its first 3 trials failed (hpo-xgb-churn-1124-001-3a1f, hpo-xgb-churn-1124-002-7c2e, "
                      "hpo-xgb-churn-1124-003-9d4b): 1 distinct reason: AlgorithmError: ExecuteUserScriptError: "
                      "KeyError: 'churned' (3 trials)")
    [(_, idle)] = findings(rows, "idle-processing")[("prep-join-2026-11-24-08-00-00-502", "IdleInstances")][:1]
    assert idle.startswith("algo-1 idles: CPU p95 1% < 5% per vCPU over the last 30 min; algo-2 idles")
    [(_, instances)] = findings(rows, "idle-transform")[("score-recs-2026-11-24-08-00-00-541", "IdleInstances")][:1]
    assert instances.startswith("i-0") and instances.count(" idles: CPU p95 1% < 5% per vCPU") == 2
    # and each row names its job's family
    assert {r["job_family"] for r in rows if r.get("rules")} == {"processing", "transform", "tuning"}


def price(region: str, instance_type: str) -> float:
    """The replay's sample price of an instance type (US dollars an hour)."""
    return float(json.loads(SAMPLE_PRICES.read_text())["regions"][region][instance_type])


def stops(rows):
    """(timeline, job, target, outcome) of every stop row."""
    return [(r["source"].split("/")[-1].split(".json#")[0], r["job"], a["target"], a["outcome"])
            for r in rows for a in r.get("actions", []) if a["kind"] == "stop"]


def test_each_hung_idle_or_failing_job_is_stopped_once_and_nothing_healthy_is(rows):
    # Given the replay of every family's timelines, their jobs' tags asking for `stop`
    done = [s for s in stops(rows) if s[3] == "done"]
    # Then the hung processing job, the idle and the overrunning transform jobs, the tuning job whose first trials
    # failed and the pipeline execution whose step hung are each stopped once, by the family's own call
    assert sorted((t, target) for t, _, target, _ in done) == sorted([
        ("failing-trials", "hpo-xgb-churn-1124"),
        ("hung-pipeline-step-processing", "churn-features/q7w2e9r4t1y6"),
        ("hung-processing", "prep-features-2026-11-24-08-00-00-501"),
        ("idle-transform", "score-recs-2026-11-24-08-00-00-541"),
        ("overrun-transform", "score-churn-2026-11-24-08-00-00-521"),
    ])
    assert not [s for s in stops(rows) if s[0].startswith("healthy")]
    # and every stop says what it stopped (the pipeline's: what SageMaker does with a running Callback or Lambda step)
    reasons = {a["target"]: a["reason"] for r in rows for a in r.get("actions", []) if a["kind"] == "stop"}
    assert reasons["churn-features/q7w2e9r4t1y6"].startswith("stopped churn-features/q7w2e9r4t1y6 (SageMaker does "
                                                             "not interrupt a running Callback or Lambda step")
    # and the tuning job's stop saves at most its 46 trials not launched (of its max_trials 50), each its definition's
    # ml.m5.xlarge for its MaxRuntimeInSeconds (the default day) at the replay's sample price
    saved = re.search(r"saved at most \$([\d,.]+)", reasons["hpo-xgb-churn-1124"])
    assert saved and float(saved.group(1).replace(",", "")) == round(46 * 24 * price("us-east-1", "ml.m5.xlarge"), 2)
