"""`rule-actions replay` end to end: the synthesized stack deployed into moto, every sample event replayed
through the stack's own rule pattern and the real handler."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from replaying import DEMO_SECRETS, HOOK_PATH, HOOK_SECRET, replay_to_receiver

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
DEMO_CONFIG = ROOT / "examples" / "demo-config.json"  # the team: ml-team@example.com
# What `make demo` replays: the demo configuration and a json webhook on Failed and MaxRuntimeExceeded, whose
# secret (examples/demo-secrets.json) names a receiver on 127.0.0.1
DEMO = ROOT / "examples" / "demo-webhook-config.json"


def replay(capsys, *args: str) -> tuple[int, list[dict], str]:
    code = main(["replay", "--json", *args])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The whole events/ directory replayed once as `make demo` does, its webhook's secret pointed at a receiver
    on a free loopback port: (exit status, rows, what the receiver got)."""
    return replay_to_receiver(tmp_path_factory.mktemp("secrets"), DEMO, [EVENTS])


@pytest.fixture(scope="module")
def corpus(demo):
    return demo[:2]


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
        assert {"source", "training_job", "job", "job_family", "matched", "actions"} <= set(row)
        assert set(row) <= {"source", "training_job", "job", "job_family", "matched", "actions", "error", "ignored",
                            "problems"}
        assert row["job_family"] == "training" and row["job"] == row["training_job"]
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
        # a number only the job's action_json names is not texted (allow_any_sms is false by default)
        ("custom-prefix-stop.json", {("LossNotDecreasing", "stoptraining", "done"): 1, ("LossNotDecreasing", "sms", "denied"): 1, ("LossNotDecreasing", "notify", "done"): 1}),
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
        ("lifecycle-failed-algorithm-error.json", {("job:Failed", "notify"), ("job:Failed", "webhook")}),
        ("lifecycle-max-runtime-exceeded.json", {("job:MaxRuntimeExceeded", "notify"), ("job:MaxRuntimeExceeded", "webhook")}),
        ("lifecycle-spot-interrupted-resumed.json", {("job:Interrupted", "notify")}),
        ("lifecycle-stopped-by-person.json", {("job:Stopped", "notify")}),
        ("lifecycle-profiler-and-debug-after-completed.json", {("ExplodingTensor", "email"), ("ExplodingTensor", "notify"), ("ProfilerReport", "notify")}),
        ("lifecycle-completed-no-issues.json", set()),
        ("lifecycle-concurrent-family-prefix.json", {("LossNotDecreasing", "email"), ("LossNotDecreasing", "notify")}),
        # the job failed on its own before the stop took effect: its failure is news, with its FailureReason
        ("lifecycle-failed-after-issues.json", {("ExplodingTensor", "stoptraining"), ("ExplodingTensor", "notify"), ("job:Failed", "notify"), ("job:Failed", "webhook")}),
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

    # Then its Stopped outcome is skipped naming the rule that stopped it, said once: every later copy of the event
    # is a duplicate naming it
    assert [a["outcome"] for a in stopped] == ["skipped"] + ["duplicate"] * (len(stopped) - 1) and len(stopped) > 1
    assert all("stopped by this stack (rule LossNotDecreasing" in a["reason"] for a in stopped)
    assert all(a["reason"].startswith("already reported: skipped (stopped by this stack") for a in stopped[1:])

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
    at = out.index("EVENT  JOB")  # after the first line, wrapped to the width
    assert " ".join(line.strip() for line in out[:at]) == (
        f"Replaying 1 event from {EVENTS / 'cross-team-prefix.json'} against stack RuleActions of {DEMO_CONFIG} on "
        "the embedded AWS")
    assert out[at:at + 3] == ["EVENT  JOB", f"  TRIGGER          ACTION{' ' * 18}BY      OUTCOME  REASON",
                              "cross-team-prefix.json  cv-detr-ablation-03"]
    assert out[at + 3].split()[:5] == ["ExplodingTensor", "stoptraining", "nlp-bert-", "job", "denied"]
    assert out[-1] == "1 event, 1 matched the stack's rule; actions: 2 done, 1 denied"


def test_broken_inputs_are_each_a_row_the_rest_replayed_and_the_exit_status_1(capsys, tmp_path):
    # Given a broken file, a scalar, a CSV, a missing path and a good event
    (tmp_path / "a-broken.json").write_text("{not json")
    (tmp_path / "b-scalar.json").write_text("42")
    (tmp_path / "c-jobs.csv").write_text("TrainingJobName,TrainingJobStatus\njob-1,Failed\n")
    good = EVENTS / "vanishing-gradient-sdk-actions.json"

    # When they are replayed
    code, rows, err = replay(capsys, "--config", str(DEMO_CONFIG), str(good), str(tmp_path),
                             str(tmp_path / "c-jobs.csv"), str(tmp_path / "missing.json"))

    # Then every input was processed, each bad one on its own row naming what is wrong, and the exit status says
    # some input was a problem
    assert code == 1 and "not JSON" not in err
    assert [r["source"].rsplit("/", 1)[-1] for r in rows] == [good.name, "a-broken.json", "b-scalar.json",
                                                              "c-jobs.csv", "missing.json"]
    assert rows[0]["matched"] and rows[0]["actions"] and "problems" not in rows[0]
    assert rows[1]["problems"][0].startswith("not JSON (Expecting property name")
    assert rows[2]["problems"][0].startswith("must hold an event (a JSON object) or a list of events, not a number")
    assert rows[3]["problems"][0].startswith("not JSON (Expecting value: line 1 column 1 (char 0)): an event is")
    assert rows[4]["problems"] == ["no such file or directory"]


def test_a_timeline_with_a_wrong_field_is_a_row_and_the_exit_status_1(capsys, tmp_path):
    # Given a timeline whose third phase has a status SageMaker has not, and a good event
    timeline = json.loads((EVENTS / "timelines" / "hung-job.json").read_text())
    timeline["jobs"][0]["phases"][-1]["status"] = "Paused"
    (tmp_path / "paused.json").write_text(json.dumps(timeline))
    index = len(timeline["jobs"][0]["phases"]) - 1
    # When both are replayed
    code, rows, _ = replay(capsys, str(tmp_path / "paused.json"), str(EVENTS / "vanishing-gradient-sdk-actions.json"))
    # Then the timeline's row names the field and its value, the event still acts, the exit status is 1
    assert code == 1
    assert rows[0]["problems"] == [f'{tmp_path / "paused.json"}: jobs[0].phases[{index}].status: "Paused" is not one '
                                   "of InProgress, Stopping, Completed, Failed, Stopped"]
    assert rows[1]["matched"] and "problems" not in rows[1]


def test_an_event_with_an_unreadable_field_exits_1_and_a_clean_replay_0(capsys, tmp_path):
    # Given an event whose status is not one SageMaker has
    event = json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text())
    event["detail"]["TrainingJobStatus"] = "Paused"
    (tmp_path / "paused.json").write_text(json.dumps(event))
    # When it is replayed / Then its row names the field, and the exit status is 1
    code, rows, _ = replay(capsys, "--config", str(DEMO_CONFIG), str(tmp_path / "paused.json"))
    assert code == 1 and any("TrainingJobStatus" in p and "Paused" in p for p in rows[0]["problems"]), rows
    # and the same event, as SageMaker sends it, exits 0
    assert replay(capsys, "--config", str(DEMO_CONFIG), str(EVENTS / "vanishing-gradient-sdk-actions.json"))[0] == 0


def test_invalid_config_exits_2_naming_the_key(capsys, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"stop_all_matching": "yes", "notify": {"emails": ["not-an-email"]}}))
    code = main(["replay", "--config", str(bad), str(EVENTS / "no-issues-found.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{bad}.stop_all_matching" in err and "not-an-email" in err and "rule_actions." not in err


@pytest.mark.parametrize(("config", "said"), [
    ({"rules": {"StaledTraining": ["notify"]}},
     'rules["StaledTraining"]: no built-in or monitor rule is named "StaledTraining"; did you mean '
     '"StalledTraining"?'),
    ({"monitor": {"rules": {"StaledTraining": {}}}},
     'monitor.rules["StaledTraining"]: "StaledTraining" is not a rule rule-actions evaluates; did you '
     'mean "StalledTraining"?'),
    ({"job_outcomes": {"Faild": ["notify"]}}, 'job_outcomes["Faild"]: unknown job outcome; did you mean "Failed"?'),
])
def test_a_misspelt_rule_name_or_outcome_exits_2_saying_the_name_meant(capsys, tmp_path, config, said):
    # Given a configuration with a typo in a rule's or an outcome's name (the issue's: its notification never went)
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps(config))
    # When it is replayed / Then nothing is replayed: exit 2, the name meant said, its path in the file
    code = main(["replay", "--config", str(bad), str(EVENTS / "no-issues-found.json")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and f"\n  {bad}.{said}" in err


def test_the_replay_shows_the_configurations_warnings_as_synth_does(capsys, tmp_path):
    # Given the demo configuration with a rule no built-in or monitor rule is named
    config = tmp_path / "custom.json"
    data = json.loads(DEMO_CONFIG.read_text())
    config.write_text(json.dumps({**data, "rules": {"MyGradientCheck": ["notify"], **data["rules"]}}))
    # When it is replayed, its rows as JSON
    code, rows, err = replay(capsys, "--config", str(config), str(EVENTS / "vanishing-gradient-sdk-actions.json"))
    # Then the rows are what they were, and stderr has synth's block naming the rule as a custom rule's
    assert code == 0 and len(rows) == 1
    assert " ".join(err.split()).startswith("rule-actions: the configuration is valid, but: - allows: ")
    assert (f'- {config}.rules["MyGradientCheck"]: no built-in or monitor rule is named "MyGradientCheck": it '
            "acts only for a custom Debugger rule of that name.") in " ".join(err.split())  # wrapped in the block
    # and with the rule listed in custom_rules it is not warned of
    config.write_text(json.dumps({**data, "rules": {"MyGradientCheck": ["notify"], **data["rules"]},
                                  "custom_rules": ["MyGradientCheck"]}))
    code, rows, again = replay(capsys, "--config", str(config), str(EVENTS / "vanishing-gradient-sdk-actions.json"))
    assert code == 0 and len(rows) == 1 and "MyGradientCheck" not in again and again.startswith(err.split("\n  - ")[0])


def test_a_configuration_too_large_for_the_environment_replays_and_tests_its_notifications(capsys, tmp_path):
    # Given 150 rules, each emailing its owner (12 KB: three times Lambda's environment), and the team
    rules = {f"TeamRule{i:03}*": ["notify", {"name": "email", "endpoint": f"owner{i}@example.com"}] for i in range(150)}
    config = tmp_path / "big.json"
    config.write_text(json.dumps({"notify": {"emails": ["ml-team@example.com"]}, "rules": {**rules, "*": ["notify"]}}))

    # When the samples are replayed and a test notification is sent with it
    code = main(["replay", "--json", "--config", str(config), str(EVENTS / "vanishing-gradient-sdk-actions.json")])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    tested = main(["test-notify", "--json", "--config", str(config)])
    answer = json.loads(capsys.readouterr().out)

    # Then both run as with a small configuration: the function reads it from its code
    assert code == 0 and [(a["kind"], a["outcome"]) for a in rows[0]["actions"]] == [
        ("stoptraining", "done"), ("email", "done"), ("notify", "done")]
    assert tested == 0 and [(a["kind"], a["outcome"]) for a in answer["actions"]] == [("notify", "done")]


def test_help_documents_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["replay", "--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    for option in ("--json", "--config", "--dry-run", "EVENT_FILE_OR_DIR", "exit status"):
        assert option in text


def test_top_level_help_describes_every_command_and_outcome_and_sends_to_each_commands_exit_status(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "job outcomes" in text and "rule statuses" in text
    for command in ("replay", "invoke", "test-notify", "check", "subscriptions"):
        assert command in text
    assert "exit status, the same convention for every command (each command's --help says its own cases)" in text
    assert "0 when the command did its work" in text and "1 when it ran but found a problem" in text
    assert "2 when it could not start" in text
    assert "when every input was an event or timeline" not in text  # replay's, not everyone's


def test_make_demo_replays_the_events_then_the_timelines():
    # (tests/e2e/test_timelines.py replays what it replays, and checks the excerpt in docs/getting-started.md)
    makefile = (ROOT / "Makefile").read_text()
    assert ("replay --config examples/demo-webhook-config.json --secrets examples/demo-secrets.json \\\n"
            "\t\t--receiver events/ events/timelines/") in makefile


def test_the_demo_webhook_receives_one_signed_request_per_job_and_outcome(demo):
    # Given the demo's webhook on Failed and MaxRuntimeExceeded: when the corpus was replayed
    _, rows, received = demo
    done = [(r["training_job"], a["trigger"]) for r in rows for a in r["actions"]
            if a["kind"] == "webhook" and a["outcome"] == "done"]
    # Then each done delivery reached the receiver once, correctly signed, as the documented json payload
    assert len(done) == 3 and len(received) == 3 and all(item.valid for item in received)
    assert sorted((b["job"]["name"], b["trigger"]["label"]) for b in (item.json() for item in received)) == sorted(done)
    # and no row names the webhook's URL or key
    secret = json.loads(DEMO_SECRETS.read_text())[HOOK_SECRET]
    assert HOOK_PATH not in json.dumps(rows) and secret["signing_key"] not in json.dumps(rows)


def test_a_family_prefix_matching_two_running_jobs_stops_neither(corpus):
    # Given two trials of one family running together, and a rule whose action_json stops the family prefix
    _, rows = corpus
    family = by_file(rows, "lifecycle-concurrent-family-prefix.json")
    stops = [a for r in family for a in r["actions"] if a["kind"] == "stoptraining"]

    # Then, like the SDK, several matches stop nothing (stop_all_matching is false), and the jobs are named; said
    # once: each later copy of the rule's IssuesFound is a duplicate naming it
    assert [a["outcome"] for a in stops] == ["skipped"] + ["duplicate"] * (len(stops) - 1) and len(stops) > 1
    assert all(a["jobs"] == [] for a in stops)
    assert "hpo-tabnet-trial-01, hpo-tabnet-trial-02" in stops[0]["reason"]
    assert all(a["reason"].startswith("already reported: skipped (2 InProgress jobs") for a in stops[1:])


def test_a_malformed_event_is_reported_on_its_row_and_the_rest_still_replays(capsys, tmp_path):
    # Given good events around events whose parts cannot be read (valid JSON): rule configurations that are not
    # objects, a status list given as an object, a status given as an array, a job status SageMaker does not have
    good = json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text())
    bad_configs = json.loads(json.dumps(good))
    bad_configs["id"], bad_configs["detail"]["DebugRuleConfigurations"] = "bad-1", [None, "x", 5]
    status_object = json.loads(json.dumps(good))
    status_object["id"] = "bad-2"
    status_object["detail"]["DebugRuleEvaluationStatuses"] = {"RuleConfigurationName": "VanishingGradient"}
    status_array = json.loads(json.dumps(good))
    status_array["id"] = "bad-3"
    status_array["detail"]["DebugRuleEvaluationStatuses"][0]["RuleEvaluationStatus"] = ["IssuesFound"]
    unknown_status = json.loads(json.dumps(good))
    unknown_status["id"], unknown_status["detail"]["TrainingJobStatus"] = "bad-4", "Exploded"
    (tmp_path / "events.json").write_text(json.dumps([bad_configs, status_object, status_array, unknown_status, good]))

    # When they are replayed
    code, rows, err = replay(capsys, "--config", str(DEMO_CONFIG), str(tmp_path / "events.json"))

    # Then every event has its row and nothing is lost: the good one acts, each bad one names its problem
    assert code == 1 and len(rows) == 5 and "Traceback" not in err
    assert "detail.DebugRuleConfigurations[0]: no RuleConfigurationName string (null)" in rows[0]["problems"]
    assert rows[0]["matched"] and rows[0]["actions"]  # its rule status still acts (without action_json)
    assert rows[1]["problems"] == ['detail.DebugRuleEvaluationStatuses: not a list ({"RuleConfigurationName": "VanishingGradient"})']
    assert rows[2]["problems"][0].startswith("detail.DebugRuleEvaluationStatuses[0]: no RuleConfigurationName and RuleEvaluationStatus strings")
    assert any("TrainingJobStatus \"Exploded\" is not a SageMaker status" in p for p in rows[3]["problems"])
    assert {a["outcome"] for a in rows[4]["actions"]} <= {"done", "duplicate"}

    # And the table shows the problems too, and counts the rows that have them
    main(["replay", "--config", str(DEMO_CONFIG), str(tmp_path / "events.json")])
    table = capsys.readouterr().out.splitlines()
    assert sum(1 for line in table if " problem " in line) >= 4
    assert table[-1].endswith("4 with problems (see their rows)")


def test_a_list_element_that_is_not_an_event_is_named_on_its_own_row_and_the_others_replay(capsys, tmp_path):
    # Given a list of events holding a number, a string and null between two events
    good = json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text())
    (tmp_path / "events.json").write_text(json.dumps([good, 42, "oops", None, good]))

    # When it is replayed
    code, rows, err = replay(capsys, "--config", str(DEMO_CONFIG), str(tmp_path / "events.json"))

    # Then each bad element has its row, named by its index, saying what it is; both events are replayed (stderr:
    # only what synth says of the configuration)
    assert code == 1 and err.startswith("rule-actions: the configuration is valid, but:\n") and len(rows) == 5
    assert "problem" not in err and "not an event" not in err
    assert [r["source"].rsplit("#", 1)[1] for r in rows] == ["0", "1", "2", "3", "4"]
    assert rows[1]["problems"] == ["not an event: an element of the list must be a JSON object, this one is a "
                                   "number 42"]
    assert "a string \"oops\"" in rows[2]["problems"][0] and "null" in rows[3]["problems"][0]
    assert [r["matched"] for r in rows] == [True, False, False, False, True]
    assert {a["outcome"] for a in rows[0]["actions"]} >= {"done"} and rows[4]["actions"]


def test_an_empty_list_is_a_row_saying_so(capsys, tmp_path):
    (tmp_path / "empty.json").write_text("[]")
    code, [row], _ = replay(capsys, str(tmp_path / "empty.json"))
    assert code == 1 and row["problems"] == ["holds an empty list: no event to replay"]


def test_a_deleting_job_is_seeded_and_an_unnamed_status_keeps_the_job_name(capsys, tmp_path):
    # Given an IssuesFound event of a job being deleted (a status the API has), without its rule configurations,
    # and an event whose TrainingJobStatus is missing
    good = json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text())
    deleting = json.loads(json.dumps(good))
    deleting["detail"]["TrainingJobStatus"] = "Deleting"
    del deleting["detail"]["DebugRuleConfigurations"]
    nameless = json.loads(json.dumps(good))
    nameless["id"] = "no-status"
    del nameless["detail"]["TrainingJobStatus"]
    (tmp_path / "events.json").write_text(json.dumps([deleting, nameless]))

    # When they are replayed
    code, rows, _ = replay(capsys, "--config", str(DEMO_CONFIG), str(tmp_path / "events.json"))

    # Then the job exists in the embedded account (DescribeTrainingJob reads its configurations, nothing fails;
    # the exit status 1 is the second event's problem)
    assert code == 1 and "error" not in rows[0] and "problems" not in rows[0] and rows[1]["problems"]
    assert [a["outcome"] for a in rows[0]["actions"] if a["kind"] == "action_json"] == []
    # And the event without a status is ignored naming the field, its job still named
    assert rows[1]["training_job"] == good["detail"]["TrainingJobName"]
    assert "TrainingJobStatus" in rows[1]["ignored"]


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1", "ap-northeast-1"])
def test_the_embedded_account_deploys_and_acts_in_any_region(region):
    # Given the demo stack, deployed into an embedded account in `region`
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.inputs import replay_context
    from rule_actions_cli.synth import synthesize

    context, errors = replay_context(str(DEMO_CONFIG), dry_run=False)
    assert not errors
    assembly, stack = synthesize(context)
    event = json.loads((EVENTS / "vanishing-gradient-sdk-actions.json").read_text().replace("us-east-1", region))

    # When an IssuesFound event of a job there is replayed
    with EmbeddedAccount(assembly, stack, region=region) as account:
        [row] = account.replay([("event", event)])

    # Then its actions are done there
    assert row["matched"] and {a["outcome"] for a in row["actions"]} == {"done"}, row


@pytest.mark.parametrize(("text", "says"), [("{bad", "not JSON (Expecting property name enclosed in double quotes"),
                                            ('{"$schema": 5}', "$schema: 5 is not a string")])
def test_an_unreadable_configuration_file_is_named_once(tmp_path, monkeypatch, capsys, text, says):
    # Given a broken rule-actions.json in the current directory, found without --config
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rule-actions.json").write_text(text)
    # When a replay starts
    code = main(["replay", str(EVENTS / "custom-prefix-stop.json")])
    # Then it refuses in one line that names the file once
    err = capsys.readouterr().err.strip()
    assert code == 2 and says in err and err.count("rule-actions.json") == 1, err


DEEP = 100_000  # levels: json.loads itself raises RecursionError far sooner


@pytest.mark.parametrize(("command", "made"), [
    (["invoke", "--function-name", "f", "--region", "us-east-1", "{deep}"], "event"),
    (["replay", "--config", "{deep}", "{good}"], "config"), (["template", "--config", "{deep}", "--out", "{out}"], "config"),
    (["replay", "--secrets", "{deep}", "{good}"], "secrets"),
])
def test_json_nested_too_deeply_is_a_one_line_error_exit_2(capsys, tmp_path, command, made):
    # Given an event file, a configuration or a secrets file nested 100,000 levels deep
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' * DEEP + "1" + "}" * DEEP if made != "event" else "[" * DEEP + "]" * DEEP)
    names = {"deep": str(deep), "good": str(EVENTS / "vanishing-gradient-sdk-actions.json"), "out": str(tmp_path / "t")}

    # When the command reads it
    code = main([part.format(**names) for part in command])

    # Then it is one line naming the file, exit status 2, nothing run
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "deep.json" in err and "nested too deeply" in err, err
    assert "Traceback" not in err


def test_an_event_file_nested_too_deeply_is_its_row(capsys, tmp_path):
    (tmp_path / "deep.json").write_text("[" * DEEP + "]" * DEEP)
    code, [row], err = replay(capsys, str(tmp_path / "deep.json"))
    assert code == 1 and row["problems"] == ["not readable JSON (nested too deeply: JSON of more than about 1,000 "
                                             "levels)"] and "Traceback" not in err


def test_an_object_without_detail_type_is_told_what_an_event_looks_like_on_its_row(capsys, tmp_path):
    # Given a JSON object that is not an EventBridge event (a job's description pasted instead), and an event
    (tmp_path / "a-description.json").write_text(json.dumps({"TrainingJobName": "job-1", "TrainingJobStatus": "Failed"}))
    (tmp_path / "b-event.json").write_text((EVENTS / "vanishing-gradient-sdk-actions.json").read_text())
    # When both are replayed
    code, rows, _ = replay(capsys, "--config", str(DEMO_CONFIG), str(tmp_path))
    # Then its row says what an event looks like, and the event still acts
    assert code == 1 and not rows[0]["matched"]
    [problem] = rows[0]["problems"]
    assert "(source null, detail-type null); an event is the JSON object EventBridge delivers, e.g. {\"source\": " \
           "\"aws.sagemaker\", \"detail-type\": \"SageMaker Training Job State Change\"" in problem
    assert rows[1]["matched"] and rows[1]["actions"]
