"""The garbage collector while a command runs (rule_actions_cli.main): run less often during the command, as before
after it (the tests call main() in one process), and the console script's objects frozen as it ends."""

from __future__ import annotations

import gc

import pytest

from rule_actions_cli import main as command


def test_the_collector_runs_less_often_during_a_command_and_as_before_after(monkeypatch):
    # Given the collector's thresholds before a command, and a command that reads them as it runs
    before = gc.get_threshold()
    during = []
    monkeypatch.setattr(command, "_main", lambda argv: during.append(gc.get_threshold()) or 0)
    # When the command runs
    assert command.main(["schema"]) == 0
    # Then it ran with the raised thresholds, and they are as before after it
    assert during == [command.COLLECTOR_THRESHOLDS] and during[0][0] > before[0]
    assert gc.get_threshold() == before


def test_the_thresholds_are_restored_when_the_command_fails(monkeypatch):
    before = gc.get_threshold()

    def fails(argv):
        raise RuntimeError("boom")

    monkeypatch.setattr(command, "_main", fails)
    with pytest.raises(RuntimeError):
        command.main([])
    assert gc.get_threshold() == before


def test_the_console_script_freezes_what_the_command_built_as_it_ends(monkeypatch):
    # Given the console script's entry, its command answering 1
    monkeypatch.setattr(command, "main", lambda: 1)
    frozen = gc.get_freeze_count()
    try:
        # When it ends
        status = command.cli()
        # Then the command's status is its, and the objects alive are frozen (the exit's collection skips them)
        assert status == 1 and gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()
