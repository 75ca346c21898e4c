"""`rule-actions replay` of the job families' sample lifecycles (events/tuning, processing, pipelines, transform) with
examples/families-config.json, as `make demo-families` does: the synthesized stack (one rule, a branch per family)
deployed into moto, every event through its pattern and the real handler; malformed and unknown events of every
family each reported on its own row."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest
from replaying import replay_to_receiver

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
FAMILIES = ROOT / "examples" / "families-config.json"
FOLDERS = [EVENTS / name for name in ("tuning", "processing", "pipelines", "transform")]


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    """The four folders replayed once, the webhook's secret pointed at a receiver on a free loopback port."""
    return replay_to_receiver(tmp_path_factory.mktemp("secrets"), FAMILIES, FOLDERS)


def done(rows) -> Counter:
    return Counter((r["job_family"], r["job"], a["trigger"], a["kind"]) for r in rows for a in r["actions"]
                   if a["outcome"] == "done")


def test_every_event_has_its_row_and_each_failure_acts_once(families):
    code, rows, _ = families
    assert code == 0 and len(rows) == sum(len(json.loads(p.read_text())) for f in FOLDERS for p in f.glob("*.json"))
    assert all("problems" not in r and "error" not in r for r in rows)
    assert all(r["job_family"] and r["job"] for r in rows)
    assert all(r["training_job"] == (r["job"] if r["job_family"] == "training" else None) for r in rows)
    # Then each failure (and the completed tuning job) is told once to the team, failures once to the webhook
    assert done(rows) == Counter({
        ("tuning", "xgb-churn-hpo-1124", "job:Failed", "notify"): 1,
        ("tuning", "xgb-churn-hpo-1124", "job:Failed", "webhook"): 1,
        ("tuning", "bert-lr-hpo-1124", "job:Completed", "notify"): 1,
        ("processing", "churn-preprocess-2026-11-24-11-15-02-118", "job:Failed", "notify"): 1,
        ("processing", "feature-eng-2026-11-24-11-40-45-009", "job:Failed", "notify"): 1,
        ("pipeline", "churn-training-pipeline/k3j9x7a2b1c0", "job:Failed", "notify"): 1,
        ("pipeline", "churn-training-pipeline/k3j9x7a2b1c0", "job:Failed", "webhook"): 1,
        ("pipeline", "churn-features-pipeline/p5m1z8q4w6e2", "job:Failed", "notify"): 1,
        ("pipeline", "churn-features-pipeline/p5m1z8q4w6e2", "job:Failed", "webhook"): 1,
        ("pipeline", "churn-hpo-pipeline/r8t2y6u4i0o3", "job:Failed", "notify"): 1,
        ("pipeline", "churn-hpo-pipeline/r8t2y6u4i0o3", "job:Failed", "webhook"): 1,
        ("transform", "churn-batch-scoring-2026-11-24-13-05-11-402", "job:Failed", "notify"): 1,
        ("transform", "churn-batch-scoring-2026-11-24-13-05-11-402", "job:Failed", "webhook"): 1,
    })
    # And every other action is a duplicate of one of them, or a Debugger rule evaluation's outcome, skipped naming
    # its training job (it is that job's rule status)
    assert {a["outcome"] for r in rows for a in r["actions"]} == {"done", "duplicate", "skipped"}
    assert all("debugger-rule-evaluations" in r["source"] and a["reason"].startswith("a Debugger rule evaluation of ")
               for r in rows for a in r["actions"] if a["outcome"] == "skipped")


def test_trials_step_jobs_steps_and_rule_evaluations_never_act_on_their_own(families):
    _, rows, _ = families
    for row in rows:
        source = row["source"]
        name = row["job"]
        if row["job_family"] == "training":  # a trial, or a pipeline step's job: never matched
            assert not row["matched"], source
        if "debugger-rule-evaluations" in source:  # matched only when its event does not name its training job
            if not row["matched"]:
                assert row["actions"] == []
            else:  # its outcome's actions on its row, each skipped naming why
                assert row["actions"] and all(a["outcome"] == "skipped" and a["reason"].startswith(
                    "a Debugger rule evaluation") for a in row["actions"])
        if row["job_family"] == "pipeline" and "Step" in json.dumps(row):
            assert row["actions"] == []
        if name.startswith("pipelines-"):  # the jobs a pipeline's steps launched (pipeline_step_jobs_alert false)
            assert not row["matched"], source


def test_the_webhook_receives_the_families_in_json_v1(families):
    _, rows, received = families
    bodies = [item.json() for item in received]
    assert len(received) == 5 and all(item.valid for item in received)
    assert sorted((b["job"]["family"], b["job"]["name"]) for b in bodies) == sorted(
        (r["job_family"], r["job"]) for r in rows for a in r["actions"] if a["kind"] == "webhook" and a["outcome"] == "done")
    [pipeline] = [b for b in bodies if b["job"]["name"] == "churn-training-pipeline/k3j9x7a2b1c0"]
    assert [(s["name"], s["type"]) for s in pipeline["job"]["details"]["failed_steps"]] == [
        ("train-xgboost", "Training"), ("train-lightgbm", "Training")]
    assert "Month-to-month" in pipeline["job"]["details"]["failed_steps"][0]["job_reason"]
    # A processing step's job, named lower-cased in its ARN, found by its real name; its exit message the cause
    [features] = [b for b in bodies if b["job"]["name"] == "churn-features-pipeline/p5m1z8q4w6e2"]
    [step] = features["job"]["details"]["failed_steps"]
    assert (step["type"], step["job_name"], step["unread"]) == (
        "Processing", "pipelines-p5m1z8q4w6e2-Preprocess-h4k8s2d6f0", "")
    assert step["cause"].endswith("ValueError: could not convert string to float: ' '") and step["cause"] == step["exit_message"]


def without_webhooks(tmp_path: Path) -> Path:
    """examples/families-config.json without its webhook (no secret, no receiver)."""
    config = json.loads(FAMILIES.read_text())
    del config["webhooks"]
    for key, outcomes in config.items():
        if key.endswith("outcomes"):
            config[key] = {o: [a for a in actions if a == "notify"] for o, actions in outcomes.items()}
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path / "config.json"


def test_the_table_names_each_family(capsys, tmp_path):
    main(["replay", "--config", str(without_webhooks(tmp_path)), str(EVENTS / "transform" / "lifecycle-transform-failed.json")])
    table = capsys.readouterr().out
    assert "transform:churn-batch-scoring-" in table
    assert table.splitlines()[-1] == "5 events, 3 matched the stack's rule; actions: 1 done, 2 duplicate"


def test_malformed_and_unknown_events_of_every_family_are_reported_each_on_its_row(capsys, tmp_path):
    # Given, among good events, an event of each family with a part that cannot be read, one naming no job, an
    # unknown status, a step without a step name, and a SageMaker event of a family this stack does not know
    good = [json.loads((EVENTS / path).read_text())[-1] for path in (
        "tuning/lifecycle-tuning-every-trial-failed.json", "processing/lifecycle-processing-internal-error.json",
        "pipelines/lifecycle-pipeline-parallel-steps-failed.json", "transform/lifecycle-transform-failed.json")]
    step = next(e for e in json.loads((EVENTS / "pipelines/lifecycle-pipeline-parallel-steps-failed.json").read_text())
                if e["detail-type"].endswith("Step Status Change"))

    def changed(raw, event_id, **detail):
        raw = copy.deepcopy(raw)
        raw["id"] = event_id
        for key, value in detail.items():
            if value is None:
                raw["detail"].pop(key)
            else:
                raw["detail"][key] = value
        return raw

    events = [
        changed(good[0], "t-1", TrainingJobStatusCounters="many", FailureReason=7),  # unreadable parts: it still acts
        changed(good[1], "p-1", ProcessingJobName=None),                              # names no job
        changed(good[2], "x-1", currentPipelineExecutionStatus="Exploded"),           # a status the API has not
        changed(step, "s-1", stepName=None),                                          # a step without its name
        changed(good[3], "b-1", TransformJobArn=["x"]),                               # an ARN that is no string
        {**good[3], "id": "e-1", "detail-type": "SageMaker Endpoint State Change"},   # a family this stack lacks
        *good,
    ]
    (tmp_path / "events.json").write_text(json.dumps(events))

    # When they are replayed
    code = main(["replay", "--json", "--config", str(without_webhooks(tmp_path)), str(tmp_path / "events.json")])
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]

    # Then every event has its row, the replay goes on, and each bad one says what is wrong
    assert code == 1 and len(rows) == len(events) and "Traceback" not in err
    assert any(p.startswith("detail.FailureReason: not a str") for p in rows[0]["problems"])
    assert [a["outcome"] for a in rows[0]["actions"]] == ["done"]  # the tuning job still reports
    assert "detail.ProcessingJobName" in rows[1]["ignored"]
    assert any('currentPipelineExecutionStatus "Exploded" is not a SageMaker status' in p for p in rows[2]["problems"])
    assert any("stepName null is not a step name" in p for p in rows[3]["problems"]) and not rows[3]["matched"]
    assert "detail.TransformJobArn" in rows[4]["ignored"]
    assert rows[5]["job_family"] is None and not rows[5]["matched"]
    assert all([a["outcome"] for a in r["actions"]] in (["done"], ["duplicate"]) for r in rows[6:])


def test_organization_mode_forwards_and_acts_for_every_family(capsys, tmp_path):
    # Given the families' configuration in organization mode (the samples' account a member: its member stack
    # forwards its events, the central function acts through its executor role)
    config = json.loads(without_webhooks(tmp_path).read_text())
    config["organization"] = {"accounts": ["123456789012"], "central_account": "123456789012",
                              "central_region": "us-east-1"}
    (tmp_path / "org.json").write_text(json.dumps(config))
    files = [EVENTS / "pipelines" / "lifecycle-pipeline-tuning-step-failed.json",
             EVENTS / "tuning" / "lifecycle-tuning-every-trial-failed.json",
             EVENTS / "processing" / "lifecycle-processing-internal-error.json",
             EVENTS / "transform" / "lifecycle-transform-failed.json"]

    # When their lifecycles are replayed through the member's forwarding rule, the central bus and the function
    code = main(["replay", "--json", "--config", str(tmp_path / "org.json"), *map(str, files)])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    # Then each family's failure is told once, in the member's account, its reads made there (nothing failed)
    assert code == 0 and all("error" not in r and "problems" not in r for r in rows)
    assert sorted((r["job_family"], r["account"]) for r in rows for a in r["actions"] if a["outcome"] == "done") == [
        ("pipeline", "123456789012"), ("processing", "123456789012"), ("transform", "123456789012"),
        ("tuning", "123456789012")]
