"""A late event (EventBridge keeps no order) never moves the replay's embedded job back: a finding that arrives after
the job's Completed event finds it Completed, and its stop is skipped saying so, never done (issue 36, item 3/4)."""

from __future__ import annotations

import json

from builders import event, rule_status

from rule_actions_cli.main import main


def test_a_finding_after_the_completed_event_stops_nothing_and_the_job_stays_completed(tmp_path, capsys):
    # Given the job's Completed event, then a finding about it sent while it ran but delivered after
    job = "late-finding-2026-11-24-001"
    completed = event(job=job, status="Completed", secondary="Completed", event_id="e-completed")
    late = event(job=job, debug=[rule_status("Overfit", job=job)], event_id="e-late")
    (tmp_path / "events.json").write_text(json.dumps([completed, late]))
    (tmp_path / "config.json").write_text(json.dumps({"rules": {"Overfit": ["stoptraining"]}}))
    # When both are replayed in the order they arrived
    code = main(["replay", "--json", "--config", str(tmp_path / "config.json"), str(tmp_path / "events.json")])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # Then the late finding's stop is skipped, the job Completed: never a stop done on a finished job
    assert code == 0
    stops = [a for r in rows for a in r.get("actions", []) if a["kind"] == "stoptraining"]
    assert [(a["outcome"], a["reason"]) for a in stops] == [("skipped", f"nothing to stop: {job} is Completed")]
