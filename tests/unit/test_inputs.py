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
    assert main(["replay", "--json", str(tmp_path)]) == 0
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
