"""Smoke tests for the monitor rules' benchmarks (`make bench` 5 and 6): their cores on a small input, their numbers
meaning what they say (in a module of their own: each needs a fresh embedded account)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import evaluation_scale, monitor_rules  # noqa: E402


def test_the_monitor_benchmarks_measure_what_they_say():
    # Detection latency: the hung timeline's stall is found and acted on, within its window plus one run
    kept = monitor_rules.replay(monitor_rules.TIMELINES / "hung-job.json", {})
    job = "llm-pretrain-2026-11-24-08-00-00-303"
    assert monitor_rules.findings(kept)[(job, "StalledTraining")][0][0] == 80
    assert monitor_rules.acted(kept, job, "StalledTraining") == 80
    data = json.loads((monitor_rules.TIMELINES / "hung-job.json").read_text())
    assert monitor_rules.budget("StalledTraining", data["jobs"][0], 50) == 35
    assert "LowGPUUtilization      1 metric(s) (GPUUtilization)" in "\n".join(monitor_rules.reads_per_rule())
    # One run over a few jobs: its calls are counted per run, the second run reads fewer logs
    found = evaluation_scale.measure(jobs=60)
    cold, warm = found["runs"]
    assert cold["calls"]["Search"] == 1 and cold["calls"]["FilterLogEvents"] == 60 and cold["metrics"] == 120
    assert warm["calls"]["FilterLogEvents"] == 2  # the two hung jobs only
    assert evaluation_scale.extrapolate(cold)["logs"] == 60 / evaluation_scale.LOGS_TPS


def test_the_false_positives_cover_every_healthy_timeline_and_every_family():
    # Given the healthy timelines of the training jobs, the other families and the restarts
    names = [str(path.relative_to(monitor_rules.TIMELINES)) for path in monitor_rules.healthy()]
    # Then each is judged, issue 36's among them
    assert {"healthy-first-checkpoint.json", "families/healthy-transform.json",
            "restarts/healthy-restart.json"} <= set(names)
    assert not [name for name in names if not name.rsplit("/", 1)[-1].startswith("healthy-")]
    # and a finding on another family's job (its row names it `job`, not `training_job`) is counted
    kept = [{"tick": 40, "result": {"jobs": [
        {"training_job": None, "job": "scoring-1", "rules": [{"rule": "StalledJob", "verdict": "IssuesFound",
                                                               "reason": "no log line"}]},
        {"training_job": "train-1", "job": "train-1", "rules": [{"rule": "StalledTraining",
                                                                  "verdict": "NoIssuesFound", "reason": ""}]}]}}]
    assert monitor_rules.findings(kept) == {("scoring-1", "StalledJob"): [(40, "no log line")]}


def test_the_log_reads_benchmark_models_and_counts_what_it_says():
    from bench import log_reads

    # Modelled: per job, FilterLogEvents at its quota takes 8 runs for 10,000 jobs; one query reads them in one
    typical = log_reads.PROFILES[log_reads.TYPICAL]
    assert log_reads.filter_reads(10_000)["runs"] == 8 and log_reads.filter_reads(10_000)["calls"] == 1_275
    query = log_reads.insights_reads(10_000, 10_000, typical)
    assert query["unreached"] == 0 and query["scanned"] == 10_000 * typical * 45
    assert round(query["dollars"], 4) == round(9.0 * 0.005 + query["seconds"] * 0.5 * 0.0000133334, 4)
    # and a query longer than the run waits is stopped (charged up to there) and the jobs read one call each
    chatty = log_reads.insights_reads(10_000, 10_000, 1_000_000)
    assert chatty["fallback"] and chatty["scanned"] == 58e9
    # Counted on the embedded account: one query instead of 60 FilterLogEvents calls, the same findings
    found = evaluation_scale.measure(jobs=60, insights_from=10)
    cold, warm = found["runs"]
    assert (cold["calls"]["StartQuery"], cold["calls"]["GetQueryResults"], cold["calls"]["FilterLogEvents"]) == (1, 1, 0)
    assert warm["calls"]["FilterLogEvents"] == 2 and warm["calls"]["StartQuery"] == 0  # below 10 jobs to read
    assert cold["result"]["findings"] == 4 and cold["result"]["log_reads"] == "one Logs Insights query read 60 jobs' logs"
