"""bench [1] as `make bench` prints it: the AWS documentation sample is said to be modelled, not run (its own
module: the benchmark deploys its own embedded account)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import invocations  # noqa: E402


def test_the_invocations_benchmark_says_the_aws_sample_is_modelled_not_run(capsys):
    verdicts = invocations.run()
    out = capsys.readouterr().out
    assert "the AWS sample is modelled, not run" in out and "(modelled)" in out
    assert all(v.startswith(("[1] PASS", "[1b] PASS")) for v in verdicts)
