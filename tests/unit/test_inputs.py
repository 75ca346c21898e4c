"""What `replay` and `invoke` read from event paths: a directory's entries that cannot be read each reported on
their own row, and the bound on what one event file may hold."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rule_actions_cli import inputs
from rule_actions_cli.main import main

EVENT = {"source": "aws.sagemaker", "detail-type": "SageMaker Training Job State Change",
         "detail": {"TrainingJobName": "job-1", "TrainingJobStatus": "Failed"}}


def test_a_directorys_unreadable_entries_each_have_their_own_row(tmp_path):
    # Given a directory of events beside a symlink loop, a dangling link and a directory named like an event file
    (tmp_path / "a.json").write_text(json.dumps(EVENT))
    os.symlink("loop.json", tmp_path / "loop.json")
    os.symlink("gone", tmp_path / "dangling.json")
    (tmp_path / "folder.json").mkdir()
    # When its events are loaded
    events, errors = inputs.load([str(tmp_path)])
    # Then the readable event is there, and each unreadable entry is an item of its own, saying why, in name order
    assert errors == []
    assert [source for source, _ in events] == [str(tmp_path / n) for n in
                                                ("a.json", "dangling.json", "folder.json", "loop.json")]
    problems = {Path(source).name: inputs.not_an_event(event) for source, event in events}
    assert problems["a.json"] is None
    assert "cannot be read" in problems["loop.json"] and "link" in problems["loop.json"]
    assert "cannot be read" in problems["dangling.json"] and "folder.json" not in problems["dangling.json"]
    assert "not a file" in problems["folder.json"]


def test_replay_reports_an_unreadable_entry_on_its_row_and_replays_the_rest(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(EVENT))
    os.symlink("loop.json", tmp_path / "loop.json")
    assert main(["replay", "--json", str(tmp_path)]) == 1  # the loop is a problem
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_source = {row["source"]: row for row in rows}
    assert set(by_source) == {str(tmp_path / "a.json"), str(tmp_path / "loop.json")}
    assert any("cannot be read" in p for p in by_source[str(tmp_path / "loop.json")]["problems"])


def test_an_event_file_beyond_the_bound_is_refused_by_its_size_before_it_is_read(tmp_path, monkeypatch):
    # Given a file one byte beyond the bound (sparse: nothing is written), and reading that would say it happened
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(inputs.MAX_EVENT_FILE_BYTES + 1)

    def no_read(*args, **kwargs):
        raise AssertionError("read")

    monkeypatch.setattr(Path, "read_text", no_read)
    monkeypatch.setattr(Path, "read_bytes", no_read)
    # When it is loaded / Then one line names it and the bound, and nothing of it is an event
    events, errors = inputs.load([str(big)])
    assert events == []
    assert errors == [f"{big}: {inputs.MAX_EVENT_FILE_BYTES + 1:,} bytes, more than an event file may hold "
                      f"({inputs.MAX_EVENT_FILE_BYTES // 1_000_000} MB): split it into smaller files"]


def test_an_event_file_at_the_bound_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "MAX_EVENT_FILE_BYTES", 1000)
    path = tmp_path / "e.json"
    text = json.dumps(EVENT)
    path.write_text(text + " " * (1000 - len(text)))
    assert inputs.load([str(path)]) == ([(str(path), EVENT)], [])


@pytest.mark.parametrize("size", [10_000_000])
def test_the_bound_is_ten_megabytes(size):
    assert inputs.MAX_EVENT_FILE_BYTES == size


def test_a_csv_given_as_events_is_told_what_an_event_looks_like(tmp_path):
    # Given a CSV export where events are expected
    (tmp_path / "jobs.csv").write_text("TrainingJobName,TrainingJobStatus\njob-1,Failed\n")
    # When it is loaded / Then the one error line names the file, says it is not JSON and shows an event's shape
    _, [error] = inputs.load([str(tmp_path / "jobs.csv")])
    assert error.startswith(f"{tmp_path / 'jobs.csv'}: not JSON (Expecting value: line 1 column 1 (char 0)): an "
                            "event is the JSON object EventBridge delivers")
    assert '"detail-type": "SageMaker Training Job State Change"' in error and "\n" not in error


@pytest.mark.parametrize("command", [["replay", "--config", "{missing}", "{event}"],
                                     ["replay", "--secrets", "{missing}", "{event}"],
                                     ["template", "--config", "{missing}", "--out", "{out}"],
                                     ["test-notify", "--config", "{missing}"]])
def test_a_missing_file_is_named_in_words_without_errno_text(tmp_path, capsys, command):
    # Given a configuration or secrets file that does not exist
    (tmp_path / "event.json").write_text(json.dumps(EVENT))
    names = {"missing": str(tmp_path / "missing.json"), "event": str(tmp_path / "event.json"), "out": str(tmp_path / "t")}
    # When a command is given it / Then one line names it and says what is wrong, without Python's errno text
    assert main([part.format(**names) for part in command]) == 2
    err = capsys.readouterr().err
    assert err == f"rule-actions: {tmp_path / 'missing.json'}: cannot be read (no such file or directory)\n"


def test_an_unreadable_configuration_says_so_in_words(tmp_path, capsys):
    config = tmp_path / "rule-actions.json"
    config.write_bytes(b"\xff\xfe{}")
    assert main(["replay", "--config", str(config), str(tmp_path)]) == 2
    assert f"{config}: cannot be read (not UTF-8 text)" in capsys.readouterr().err


# --------------------------------------------------------------------------- --secrets FILE: who may read it


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_secrets_file_others_or_the_group_may_read_is_warned_about(tmp_path, capsys, mode):
    # Given a secrets file the group or everyone may read
    path = tmp_path / "secrets.json"
    path.write_text('{"webhook": "s3cr3t-value"}')
    path.chmod(mode)

    # When it is read
    secrets, errors = inputs.load_secrets(str(path))

    # Then it is used, and stderr names the file, who may read it and the chmod to run (never a value)
    assert secrets == {"webhook": "s3cr3t-value"} and errors == []
    err = capsys.readouterr().err
    assert f"rule-actions: warning: {path} is readable by " in err, err
    assert f"chmod 600 {path}" in err and "s3cr3t" not in err


def test_a_secrets_file_only_its_owner_may_read_is_not_warned_about(tmp_path, capsys):
    path = tmp_path / "secrets.json"
    path.write_text('{"webhook": "s3cr3t-value"}')
    path.chmod(0o600)
    assert inputs.load_secrets(str(path)) == ({"webhook": "s3cr3t-value"}, [])
    assert capsys.readouterr().err == ""


def test_replay_and_test_notify_warn_about_a_readable_secrets_file(tmp_path, capsys, monkeypatch):
    # Both commands read --secrets through inputs.load_secrets: the warning comes before anything runs
    path = tmp_path / "secrets.json"
    path.write_text("[]")  # unusable, so that nothing is synthesized
    path.chmod(0o644)
    for command in (["replay", "--secrets", str(path), str(tmp_path)], ["test-notify", "--secrets", str(path)]):
        assert main(command) == 2
        assert f"chmod 600 {path}" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["replay", "{event}"], ["template", "--out", "{out}"],
                                     ["report", "--replay", "{event}"], ["test-notify"],
                                     ["replay", "--config", "rule-actions.json", "{event}"]])
def test_every_command_names_a_bad_field_by_its_path_in_the_users_file(tmp_path, monkeypatch, capsys, command):
    # Given a rule-actions.json with a misspelt rule and a bad stack name, in the current directory
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rule-actions.json").write_text(json.dumps({"rules": {"StaledTraining": ["notify"]},
                                                            "dedup_ttl_hours": "soon"}))
    (tmp_path / "event.json").write_text(json.dumps(EVENT))
    names = {"event": str(tmp_path / "event.json"), "out": str(tmp_path / "t")}
    # When a command reads it / Then it refuses (2), naming each field from the file, never from a context key
    assert main([part.format(**names) for part in command]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rule-actions: rule-actions.json: invalid configuration:\n"), err
    assert '\n  rule-actions.json.rules["StaledTraining"]: no built-in or monitor rule' in err
    assert '\n  rule-actions.json.dedup_ttl_hours: "soon" is not a whole number' in err
    assert "rule_actions" not in err


def test_a_bad_stack_setting_is_named_in_the_users_file_and_its_warnings_too(tmp_path, monkeypatch, capsys):
    from rule_actions_cli.inputs import replay_context, warnings_block

    monkeypatch.chdir(tmp_path)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "mine.json").write_text(json.dumps({"stack": {"stack_name": "1x"}}))
    _, [error] = replay_context("conf/mine.json", dry_run=False)
    assert error.startswith('conf/mine.json: invalid stack settings:\n  conf/mine.json.stack.stack_name: "1x" is not')
    # and the warnings of a valid file name its fields the same way
    (tmp_path / "conf" / "mine.json").write_text(json.dumps({"rules": {"*": ["notify"]}}))
    context, errors = replay_context("conf/mine.json", dry_run=False)
    assert errors == [] and "conf/mine.json.notify lists no emails or sms" in warnings_block(context, "conf/mine.json")


@pytest.mark.parametrize(("columns", "widest"), [("80", 80), ("200", 110)])
def test_the_configuration_s_warnings_fit_a_narrow_terminal_and_keep_synth_s_width_on_a_wide_one(
        monkeypatch, columns, widest):
    # Given the demo configuration (its allowed_endpoints is empty: a warning of several lines) and a terminal width
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    monkeypatch.setenv("COLUMNS", columns)
    context, errors = inputs.replay_context("examples/demo-config.json", False)
    assert not errors
    # When the replay words its warnings
    block = inputs.warnings_block(context, "examples/demo-config.json")
    # Then no line is wider than the terminal, nor than synth's 110 columns, and some line nearly fills it
    lines = block.splitlines()
    assert max(map(len, lines)) <= widest and max(map(len, lines)) > widest - 15, lines
