"""Smoke test for bench [8] (`make bench 8`): every family's lifecycle replayed with the monitor rules, its numbers
internally consistent (its own module: each timeline deploys a fresh embedded account)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import family_lifecycles  # noqa: E402


@pytest.fixture(scope="module")
def found():
    return {r["timeline"]: r for r in family_lifecycles.measure()}


def test_the_family_lifecycles_benchmark_counts_what_it_says(found):
    # Every timeline of events/timelines/families/ is replayed, the evaluator once per five-minute tick, and no
    # state change of these families invokes the function (the stack's rule matches training jobs' rule statuses)
    assert set(found) == {p.stem for p in family_lifecycles.TIMELINES.glob("*.json")}
    for r in found.values():
        assert r["ticks"] == r["evaluator"] == r["minutes"] // 5 and r["events"] == 0, r["timeline"]
    # Five stops over the lifecycles, each one the family's own call, none on a healthy lifecycle
    assert sum(r["stops"] for r in found.values()) == family_lifecycles.EXPECTED_STOPS == 5
    for r in found.values():
        stop_calls = {op: n for op, n in r["calls"].items() if op.split(":")[1].startswith("Stop")}
        assert r["stops"] == r["stop_rows"] == sum(stop_calls.values()), r["timeline"]
        if r["timeline"].startswith("healthy"):
            assert r["stops"] == 0 and not any(op.startswith(("sns:Publish", "dynamodb:")) for op in r["calls"])
    assert found["hung-processing"]["calls"]["sagemaker:StopProcessingJob"] == 1
    assert found["idle-transform"]["calls"]["sagemaker:StopTransformJob"] == 1
    assert found["failing-trials"]["calls"]["sagemaker:StopHyperParameterTuningJob"] == 1
    assert found["hung-pipeline-step-processing"]["calls"]["sagemaker:StopPipelineExecution"] == 1
    # A rule on every state change: InProgress, then Completed; or InProgress, Stopping, Stopped for a stopped job
    assert found["healthy-transform"]["every_change"] == 2
    assert found["hung-processing"]["every_change"] == 3
    assert found["healthy-processing"]["every_change"] == 1 + 2 + 1  # one of its three jobs completes
    # and the printed table's total is the sum of its rows
    total = family_lifecycles.table(list(found.values()))[-1].split()
    assert total[0] == "total" and [int(n) for n in total[1:]] == [
        sum(r[k] for r in found.values()) if isinstance(k, str) else sum(k(r) for r in found.values())
        for k in ("jobs", "ticks", "events", lambda r: r["evaluator"] + r["events"],
                  lambda r: sum(r["calls"].values()), "stops", "every_change")]
