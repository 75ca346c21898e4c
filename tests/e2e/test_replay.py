"""`rule-actions replay` end to end: the synthesized stack deployed into moto, every sample event replayed
through the stack's own rule pattern and the real handler."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
DEMO_CONFIG = ROOT / "examples" / "demo-config.json"  # the team: ml-team@example.com


def replay(capsys, *args: str) -> tuple[int, list[dict], str]:
    code = main(["replay", "--json", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


@pytest.fixture(scope="module")
def corpus():
    """The whole events/ directory replayed once with the demo configuration."""
    capture = pytest.MonkeyPatch()
    import io
    import sys

    out = io.StringIO()
    capture.setattr(sys, "stdout", out)
    try:
        code = main(["replay", "--json", "--config", str(DEMO_CONFIG), str(EVENTS)])
    finally:
        capture.undo()
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def by_file(rows, name):
    return [r for r in rows if r["source"].split("/")[-1].split("#")[0] == name]


def summary(rows):
    return Counter((a["trigger"], a["kind"], a["outcome"]) for r in rows for a in r["actions"])


def test_every_event_is_processed_and_reported(corpus):
    code, rows = corpus
    # Then: exit 0, one JSON object per event in file-name order, with the documented keys
    assert code == 0
    assert len(rows) == sum(
        len(d) if isinstance(d := json.loads(p.read_text()), list) else 1 for p in EVENTS.glob("*.json")
    )
    for row in rows:
        assert {"source", "training_job", "matched", "actions"} <= set(row)
        assert set(row) <= {"source", "training_job", "matched", "actions", "error", "ignored", "problems"}
        assert row["matched"] or row["actions"] == []
        assert "problems" not in row and "error" not in row  # the sample corpus is well-formed
        for action in row["actions"]:
            assert {"trigger", "rule", "kind", "target", "origin", "outcome", "reason"} <= set(action)
            assert ("jobs" in action) == (action["kind"] == "stoptraining")
            # a rule status keeps its `rule` key (the trigger is the rule's name); a job outcome has none
            assert action["rule"] == (None if action["trigger"].startswith("job:") else action["trigger"])


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("vanishing-gradient-sdk-actions.json", {("VanishingGradient", "stoptraining", "done"): 1, ("VanishingGradient", "email", "done"): 1, ("VanishingGradient", "notify", "done"): 1}),
        ("profiler-low-gpu-utilization.json", {("ProfilerReport", "notify", "done"): 1, ("LowGPUUtilization", "notify", "done"): 1}),
        ("no-issues-found.json", {}),
        ("rule-error.json", {("LossNotDecreasing", "notify", "done"): 1}),
        ("issues-found-after-completed.json", {("Overfit", "stoptraining", "skipped"): 1, ("Overfit", "email", "done"): 1, ("Overfit", "notify", "done"): 1}),
        ("custom-prefix-stop.json", {("LossNotDecreasing", "stoptraining", "done"): 1, ("LossNotDecreasing", "sms", "done"): 1, ("LossNotDecreasing", "notify", "done"): 1}),
        ("cross-team-prefix.json", {("ExplodingTensor", "stoptraining", "denied"): 1, ("ExplodingTensor", "email", "done"): 1, ("ExplodingTensor", "notify", "done"): 1}),
    ],
)
def test_each_scenario_has_its_documented_outcome(corpus, file, expected):
    _, rows = corpus
    assert dict(summary(by_file(rows, file))) == expected


def test_archive_replay_matches_but_skips_everything(corpus):
    _, rows = corpus
    [row] = by_file(rows, "archive-replay.json")
    assert row["matched"] and {a["outcome"] for a in row["actions"]} == {"skipped"}
    assert all("act_on_replays" in a["reason"] for a in row["actions"])


def test_state_changes_that_cannot_act_never_invoke_the_function(corpus):
    _, rows = corpus
    for file in ("no-issues-found.json", "lifecycle-completed-no-issues.json"):
        assert {r["matched"] for r in by_file(rows, file)} == {False}
    early = by_file(rows, "lifecycle-stopped-after-issues.json")[:8]  # Starting .. Training, rules InProgress
    assert {r["matched"] for r in early} == {False}


@pytest.mark.parametrize(
    ("file", "once"),
    [
        ("lifecycle-stopped-after-issues.json", {("LossNotDecreasing", "stoptraining"), ("LossNotDecreasing", "email"), ("LossNotDecreasing", "notify")}),
        ("lifecycle-failed-algorithm-error.json", {("job:Failed", "notify")}),
        ("lifecycle-max-runtime-exceeded.json", {("job:MaxRuntimeExceeded", "notify")}),
        ("lifecycle-spot-interrupted-resumed.json", {("job:Interrupted", "notify")}),
        ("lifecycle-stopped-by-person.json", {("job:Stopped", "notify")}),
        ("lifecycle-profiler-and-debug-after-completed.json", {("ExplodingTensor", "email"), ("ExplodingTensor", "sms"), ("ExplodingTensor", "notify"), ("ProfilerReport", "notify")}),
        ("lifecycle-completed-no-issues.json", set()),
        ("lifecycle-concurrent-family-prefix.json", {("LossNotDecreasing", "email"), ("LossNotDecreasing", "notify")}),
        # the job failed on its own before the stop took effect: its failure is news, with its FailureReason
        ("lifecycle-failed-after-issues.json", {("ExplodingTensor", "stoptraining"), ("ExplodingTensor", "sms"), ("ExplodingTensor", "notify"), ("job:Failed", "notify")}),
        ("lifecycle-rule-error-then-completed.json", {("PoorWeightInitialization", "notify")}),
    ],
)
def test_lifecycles_do_each_action_exactly_once(corpus, file, once):
    _, rows = corpus
    done = Counter((a["trigger"], a["kind"]) for r in by_file(rows, file) for a in r["actions"] if a["outcome"] == "done")
    assert done == Counter({key: 1 for key in once})
    assert not [a for r in by_file(rows, file) for a in r["actions"] if a["outcome"] in ("failed", "invalid")]


def test_our_own_stop_never_alerts_twice(corpus):
    # Given the lifecycle where the stack stops the job (LossNotDecreasing IssuesFound), which then ends Stopped
    _, rows = corpus
    lifecycle = by_file(rows, "lifecycle-stopped-after-issues.json")
    stopped = [a for r in lifecycle for a in r["actions"] if a["trigger"] == "job:Stopped"]

    # Then its Stopped outcome, on every copy of the event, is skipped naming the rule that stopped it
    assert stopped and {a["outcome"] for a in stopped} == {"skipped"}
    assert all("stopped by this stack (rule LossNotDecreasing" in a["reason"] for a in stopped)

    # And a job stopped by somebody else alerts once
    person = [a for r in by_file(rows, "lifecycle-stopped-by-person.json") for a in r["actions"]]
    assert Counter(a["outcome"] for a in person) == Counter({"done": 1, "duplicate": len(person) - 1})


def test_dry_run_calls_nothing(capsys):
    code, rows, _ = replay(capsys, "--dry-run", "--config", str(DEMO_CONFIG), str(EVENTS / "vanishing-gradient-sdk-actions.json"))
    assert code == 0 and {a["outcome"] for a in rows[0]["actions"]} == {"dry_run"}


def test_table_output_reads_at_a_glance(capsys):
    code = main(["replay", "--config", str(DEMO_CONFIG), str(EVENTS / "cross-team-prefix.json")])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].split()[:4] == ["EVENT", "JOB", "MATCHED", "TRIGGER"]
    assert any("denied" in line and "stoptraining" in line for line in out)
    assert out[-1] == "1 events, 1 matched the stack's rule; actions: 2 done, 1 denied"


def test_broken_inputs_exit_2_naming_each_file_before_anything_runs(capsys, tmp_path):
    (tmp_path / "a-broken.json").write_text("{not json")
    (tmp_path / "b-scalar.json").write_text("42")
    good = EVENTS / "vanishing-gradient-sdk-actions.json"

    code = main(["replay", str(good), str(tmp_path), str(tmp_path / "missing.json")])

    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 3
    assert "a-broken.json: not JSON" in lines[0] and "b-scalar.json: must hold an event" in lines[1]
    assert "missing.json: no such file or directory" in lines[2]


def test_invalid_config_exits_2_naming_the_key(capsys, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"stop_all_matching": "yes", "notify": {"emails": ["not-an-email"]}}))
    code = main(["replay", "--config", str(bad), str(EVENTS / "no-issues-found.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert "rule_actions.stop_all_matching" in err and "not-an-email" in err


def test_help_documents_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["replay", "--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    for option in ("--json", "--config", "--dry-run", "EVENT_FILE_OR_DIR", "exit status"):
        assert option in text


def test_readme_shows_what_make_demo_prints(corpus):
    # Given the README's excerpt of `make demo`, which replays events/ with examples/demo-config.json
    from rule_actions_cli.report import summary as summary_line

    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "replay --config examples/demo-config.json events/" in makefile

    # When / Then its summary line is the one the replay prints today
    _, rows = corpus
    assert summary_line(rows) in readme


def test_a_family_prefix_matching_two_running_jobs_stops_neither(corpus):
    # Given two trials of one family running together, and a rule whose action_json stops the family prefix
    _, rows = corpus
    family = by_file(rows, "lifecycle-concurrent-family-prefix.json")
    stops = [a for r in family for a in r["actions"] if a["kind"] == "stoptraining"]

    # Then, like the SDK, several matches stop nothing (stop_all_matching is false), and the jobs are named
    assert stops and {a["outcome"] for a in stops} == {"skipped"} and all(a["jobs"] == [] for a in stops)
    assert "hpo-tabnet-trial-01, hpo-tabnet-trial-02" in stops[0]["reason"]
