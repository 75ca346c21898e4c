"""Smoke test of the price benchmark (`make bench` 9): its counts mean what they say, on a few jobs (a module of its
own: it needs a fresh embedded account)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import prices  # noqa: E402


def test_the_price_benchmark_counts_one_read_per_instance_type_and_environment():
    # Given 8 budgeted jobs on the benchmark's 4 instance types, 2 runs in one environment then one in a fresh one
    found = prices.measure(jobs=8, runs=2, events=4)
    # Then a fresh environment reads each type once (the adapter's count and the embedded Price List's agree), a warm
    # one reads nothing, and each stop event's result says what its job cost
    assert [(r["fresh"], r["calls"], r["served"]) for r in found["evaluations"]] == [
        (True, 4, 4), (False, 0, 0), (True, 4, 4)]
    assert all(r["judged"] == 8 and r["unknown"] == 0 for r in found["evaluations"])
    assert found["events"] == {"calls": 4, "stopped": 4}
