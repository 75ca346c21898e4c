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
