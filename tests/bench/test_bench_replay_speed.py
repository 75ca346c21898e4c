"""bench/replay_speed.py (`python -m bench 11`): the command it times is the one asked, run in the checkout asked
with that checkout's packages first, and a failed run ends the bench naming it. Behaviour only, never timings."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("bench") is None:  # `pytest` run without the project root on sys.path
    sys.path.insert(0, str(ROOT))

from bench import replay_speed  # noqa: E402


def test_another_checkout_s_packages_come_first_and_this_one_s_need_no_path(monkeypatch, tmp_path):
    # Given BENCH_REPLAY_ROOT naming another checkout
    monkeypatch.setenv("BENCH_REPLAY_ROOT", str(tmp_path))
    # Then that checkout is timed, its package folders first on PYTHONPATH, the demo's cache and settings given
    assert replay_speed.checkout() == tmp_path.resolve()
    env = replay_speed.environment(tmp_path)
    assert env["PYTHONPATH"].split(os.pathsep) == [str(tmp_path / p) for p in ("", "lambdas", "infra")]
    assert env["RULE_ACTIONS_CACHE"] == str(ROOT / ".cache" / "replay") and "COLUMNS" not in env
    # and this checkout's own run needs none (its packages are the installed ones)
    monkeypatch.delenv("BENCH_REPLAY_ROOT")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert replay_speed.checkout() == ROOT and "PYTHONPATH" not in replay_speed.environment(ROOT)


@pytest.mark.parametrize(("value", "mode"), [("1", "compiled at each start"), ("", "cached")])
def test_the_bytecode_mode_is_the_environment_s(monkeypatch, value, mode):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", value)
    assert replay_speed.bytecode() == mode
    assert all(key[1] in ("compiled at each start", "cached") for key in replay_speed.BEFORE)
    assert set(replay_speed.STEP_1) == set(replay_speed.BEFORE)


def test_a_failed_run_ends_the_bench_naming_the_command():
    # When the command fails (a configuration that does not exist: exit status 2, before anything is deployed)
    with pytest.raises(SystemExit) as ended:
        replay_speed.timed(["replay", "--config", "no-such-config.json", "events/"], ROOT)
    # Then the bench stops, saying which command failed and why
    assert "rule-actions replay --config no-such-config.json events/ failed (2)" in str(ended.value)
    assert "no such file or directory" in str(ended.value)
