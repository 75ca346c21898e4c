"""docs/attaching-actions.md's `stop=tuning_job`, tried as a reader would: a timeline's hung trial whose tag asks
to stop its tuning job. The replay's account holds the tuning job the trial names (the timeline plays only the
trial), so the stop the configuration allows is carried out, and one it does not allow is denied, saying so."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
HUNG_TRIAL = ROOT / "events" / "timelines" / "hung-trial.json"
CONFIG = ROOT / "examples" / "monitor-config.json"


def replay(tmp_path: Path, **config: object) -> list[dict]:
    timeline = json.loads(HUNG_TRIAL.read_text())
    [trial] = timeline["jobs"]
    trial["tags"]["rule-actions:StalledTraining"] = "stop=tuning_job"
    (tmp_path / "trial.json").write_text(json.dumps(timeline))
    (tmp_path / "config.json").write_text(json.dumps({**json.loads(CONFIG.read_text()), **config}))
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert main(["replay", "--json", "--config", str(tmp_path / "config.json"), str(tmp_path / "trial.json")]) == 0
    finally:
        sys.stdout = saved
    return [json.loads(line) for line in out.getvalue().splitlines()]


def stops(rows: list[dict]) -> list[tuple[int, dict]]:
    return [(int(row["source"].rsplit("#+", 1)[1].rstrip("m")), action) for row in rows
            for action in row["actions"] if action["kind"] == "stop"]


@pytest.mark.parametrize("allowed", [True, False])
def test_a_trials_tag_stopping_its_tuning_job_acts_once_when_allowed_and_is_denied_otherwise(tmp_path, allowed):
    # Given a hung trial of hpo-resnet50-1124 whose tag asks StalledTraining to stop its tuning job
    [trial] = json.loads(HUNG_TRIAL.read_text())["jobs"]
    tuning_job, hangs = trial["tuning_job"], next(e["begins"] for e in trial["expect"])
    # When it is replayed with stop_owners allowing tuning jobs, or without
    rows = replay(tmp_path, **({"stop_owners": ["tuning_job"]} if allowed else {}))
    # Then its tuning job is stopped once, at the first run past the threshold (30 min), never a failed describe
    [(minute, stop)] = stops(rows)
    assert stop["target"] == tuning_job and hangs + 30 <= minute <= hangs + 35
    if allowed:
        assert stop["outcome"] == "done" and stop["reason"].startswith(f"stopped {tuning_job} ")
        assert "stops its running trials too" in stop["reason"]
    # or denied, naming what would allow it
    else:
        assert stop["outcome"] == "denied" and "stop_owners" in stop["reason"]
