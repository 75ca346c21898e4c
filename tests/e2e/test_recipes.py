"""docs/recipes.md: each recipe's configuration, taken from the page as printed, replays the samples its replay line
names (as `rule-actions samples` writes them) and does what the recipe promises. Where a sample job's own tags
attach the rule too, the same timeline without them is replayed beside it: the recipe's configuration alone must
keep the promise."""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from pathlib import Path

import pytest

from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "recipes.md"


def sections() -> dict[str, str]:
    parts = re.split(r"^## ", PAGE.read_text(), flags=re.MULTILINE)[1:]
    return {part.split("\n", 1)[0]: part for part in parts}


def recipe(title: str) -> tuple[dict, list[str]]:
    """The recipe's configuration (its first json block) and the sample paths of its replay line."""
    text = sections()[title]
    config = json.loads(re.search(r"```json\n(.*?)```", text, re.DOTALL).group(1))
    [line] = [line for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
              for line in block.replace("\\\n", " ").splitlines() if line.startswith("rule-actions replay ")]
    return config, [arg for arg in shlex.split(line)[2:] if not arg.startswith("--")]


def untagged(path: Path, folder: Path) -> Path:
    """A copy of a timeline whose jobs carry no rule-actions tag (only the configuration can act on them), named
    `u-<name>` (a job of its own in the embedded account the samples share)."""
    data = json.loads(path.read_text())
    for job in data["jobs"]:
        job["name"] = f"u-{job['name']}"
        job["tags"] = {k: v for k, v in (job.get("tags") or {}).items() if not k.startswith("rule-actions:")}
    copy = folder / f"untagged-{path.name}"
    copy.write_text(json.dumps(data))
    return copy


def replay(title: str, tmp_path: Path, capsys, strip: bool = False) -> list[dict]:
    """The recipe's rows: its samples (each path as the page prints it, under the repository's events/, which is
    what `rule-actions samples` writes) and, with `strip`, their untagged copies."""
    config, samples = recipe(title)
    (tmp_path / "rule-actions.json").write_text(json.dumps(config))
    paths = [ROOT / sample for sample in samples]
    assert all(path.is_file() for path in paths), samples
    paths += [untagged(path, tmp_path) for path in paths] if strip else []
    assert main(["replay", "--json", "--config", str(tmp_path / "rule-actions.json"), *map(str, paths)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def file_of(row: dict) -> str:
    return row["source"].rsplit("/", 1)[1].split("#")[0]


def acted(rows: list[dict], name: str) -> list[tuple[str, str, str, str]]:
    """(source file, trigger, action, outcome) of every action on the rows of the sample files named `name`..."""
    return [(file_of(r), a["trigger"], f"{a['kind']} {a['target']}", a["outcome"])
            for r in rows if file_of(r).startswith(name) for a in r["actions"]]


def test_the_page_is_the_recipes_the_issue_asks_for_each_ending_with_a_deploy():
    titles = list(sections())
    assert titles == ["Trying and deploying a recipe", "Stop a hung job and tell Slack",
                      "Stop a hung job, restart it from its checkpoint, tell Slack",
                      "Tell the team once when a job fails or times out", "Stop idle GPUs",
                      "Watch a rule before it may stop", "Cap what a job may cost",
                      "Follow training jobs queued in AWS Batch", "One stack for an organization"]
    for title in titles[1:]:
        text = sections()[title]
        assert "**Deploy it**" in text and "make " not in text, title  # the pip-installed package, not a checkout


def test_stop_a_hung_job_and_tell_slack(tmp_path, capsys):
    rows = replay("Stop a hung job and tell Slack", tmp_path, capsys, strip=True)
    for sample, job in (("hung-job.json", "llm-pretrain-2026-11-24-08-00-00-303"),
                        ("untagged-hung-job.json", "u-llm-pretrain-2026-11-24-08-00-00-303")):
        # the run at minute 80 stops the job and tells the team and the Slack channel, once
        assert acted(rows, sample) == [(sample, "StalledTraining", f"stoptraining {job}", "done"),
                                       (sample, "StalledTraining", "notify team", "done"),
                                       (sample, "StalledTraining", "notify chat", "done")]
        [found] = [r for r in rows if file_of(r) == sample and r["source"].endswith("#+80m")]
        assert [v["verdict"] for v in found["rules"]] == ["IssuesFound"]


def test_tell_the_team_once_when_a_job_fails_or_times_out(tmp_path, capsys):
    rows = replay("Tell the team once when a job fails or times out", tmp_path, capsys)
    failed = acted(rows, "lifecycle-failed-algorithm-error")
    timed_out = acted(rows, "lifecycle-max-runtime-exceeded")
    # one message per job, every later delivery a duplicate, nothing stopped
    assert Counter(outcome for *_, outcome in failed) == Counter({"done": 1, "duplicate": 2})
    assert {(trigger, action) for _, trigger, action, _ in failed} == {("job:Failed", "notify team")}
    assert Counter(outcome for *_, outcome in timed_out) == Counter({"done": 1, "duplicate": 3})
    assert {(trigger, action) for _, trigger, action, _ in timed_out} == {("job:MaxRuntimeExceeded", "notify team")}


def test_stop_idle_gpus_and_leave_the_healthy_jobs_alone(tmp_path, capsys):
    rows = replay("Stop idle GPUs", tmp_path, capsys)
    assert acted(rows, "idle-gpu-job") == [
        ("idle-gpu-job.json", "LowGPUUtilization", "stoptraining resnet152-idle-2026-11-24-08-00-00-202", "done"),
        ("idle-gpu-job.json", "LowGPUUtilization", "notify team", "done")]
    # the healthy jobs, judged at every run, are never stopped nor reported
    assert not acted(rows, "healthy-") and not [r for r in rows if "healthy-" in r["source"]]


def test_watch_a_rule_before_it_may_stop(tmp_path, capsys):
    rows = replay("Watch a rule before it may stop", tmp_path, capsys, strip=True)
    for sample, job in (("watch-mode.json", "mistral-ft-watch-2026-11-24-08-00-00-404"),
                        ("untagged-watch-mode.json", "u-mistral-ft-watch-2026-11-24-08-00-00-404")):
        # the stop is said, not made, and the team is told once
        assert acted(rows, sample) == [(sample, "StalledTraining", f"stoptraining {job}", "watched"),
                                       (sample, "StalledTraining", "notify team", "done")]
        [stop] = [a for r in rows if file_of(r) == sample for a in r["actions"] if a["kind"] == "stoptraining"]
        assert stop["reason"] == f"watch mode: would stop {job}; nothing was changed"


def test_the_watch_recipes_mode_holds_for_a_job_that_attached_the_rule_unless_its_tag_says_act(tmp_path, capsys):
    # Given the recipe's configuration (mode watch) and two hung jobs whose owners attached StalledTraining with the
    # job's own tag: one without parameters, one whose parameters tag says mode=act
    config, _ = recipe("Watch a rule before it may stop")
    (tmp_path / "rule-actions.json").write_text(json.dumps(config))
    data = json.loads((ROOT / "events/timelines/hung-job.json").read_text())
    [job] = data["jobs"]
    assert job["tags"]["rule-actions:StalledTraining"] == "stoptraining"
    assert "rule-actions:StalledTraining:parameters" not in job["tags"]
    (tmp_path / "owner.json").write_text(json.dumps(data))
    job.update(name=f"act-{job['name']}", tags={**job["tags"], "rule-actions:StalledTraining:parameters": "mode=act"})
    (tmp_path / "owner-act.json").write_text(json.dumps(data))
    # When they are replayed
    assert main(["replay", "--json", "--config", str(tmp_path / "rule-actions.json"),
                 str(tmp_path / "owner.json"), str(tmp_path / "owner-act.json")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    stops = {file_of(r): a["outcome"] for r in rows for a in r["actions"] if a["kind"] == "stoptraining"}
    # Then the configuration's mode watches the first, and the job's own mode=act stops the second
    assert stops == {"owner.json": "watched", "owner-act.json": "done"}


def test_cap_what_a_job_may_cost(tmp_path, capsys):
    rows = replay("Cap what a job may cost", tmp_path, capsys, strip=True)
    for sample, job, levels in (("budget-job.json", "budget-ft-2026-11-24-08-00-00-901", ["50%"]),
                                ("untagged-budget-job.json", "u-budget-ft-2026-11-24-08-00-00-901", ["50%", "80%"])):
        # each warning tells the team once and skips the stop; the stop at 100% is done once, with its figures
        expected = [step for level in levels for step in (
            (sample, "Budget", f"stoptraining {job}", "skipped"), (sample, "Budget", "notify team", "done"))]
        assert acted(rows, sample) == [*expected, (sample, "Budget", f"stoptraining {job}", "done"),
                                       (sample, "Budget", "notify team", "done")]
        skipped = [a["reason"] for r in rows if file_of(r) == sample for a in r["actions"] if a["outcome"] == "skipped"]
        assert skipped == [f"Budget warns at {level}: a warning only notifies, it never stops" for level in levels]
        [stop] = [a for r in rows if file_of(r) == sample for a in r["actions"]
                  if a["kind"] == "stoptraining" and a["outcome"] == "done"]
        assert stop["reason"] == f"stopped {job} (cost $10.28 until the stop; saved at most $18.08)"
    # the job under its budget never reported, the one of an unknown price never judged
    for sample in ("healthy-budget.json", "untagged-healthy-budget.json"):
        assert not acted(rows, sample)
        judged = [(v["verdict"], v["reason"]) for r in rows if file_of(r) == sample for v in r.get("rules", [])]
        assert judged == [("Skipped", "unknown price, not judged: the AWS Price List has no Training price for "
                                      "ml.p5.48xlarge in us-east-1")]


def test_one_stack_for_an_organization(tmp_path, capsys):
    rows = replay("One stack for an organization", tmp_path, capsys)
    done = {(r.get("account_alias"), a["trigger"], a["kind"]) for r in rows for a in r["actions"] if a["outcome"] == "done"}
    # each team's job acted on in its own account, under its alias
    assert ("team-a-prod", "LossNotDecreasing", "stoptraining") in done
    assert ("team-b-dev", "job:Failed", "notify") in done
    # and the account the configuration does not list reaches nothing
    [refused] = [r for r in rows if "unknown-account" in r["source"]]
    assert not refused["matched"] and not refused["actions"] and "777788889999" in refused["ignored"]


@pytest.mark.parametrize("title", list(sections())[1:])
def test_each_recipe_is_valid_and_names_only_shipped_samples(title):
    from rule_actions.config import Config

    config, samples = recipe(title)
    Config.from_dict(config)  # a recipe is a valid configuration, as printed
    assert samples and all(sample.startswith("events/") for sample in samples)
    shipped = {p.relative_to(ROOT).as_posix() for pattern in ("*.json", "*/*.json", "*/*/*.json")
               for p in (ROOT / "events").glob(pattern)}
    assert set(samples) <= {f"events/{p.split('/', 1)[1]}" for p in shipped}  # what `rule-actions samples` writes


def test_stop_a_hung_job_restart_it_from_its_checkpoint_tell_slack(tmp_path, capsys):
    # Given the recipe's configuration and its samples, with the jobs' own tags and without them
    rows = replay("Stop a hung job, restart it from its checkpoint, tell Slack", tmp_path, capsys, strip=True)
    for prefix in ("restart-resumes", "untagged-restart-resumes"):
        acts = acted(rows, prefix)
        # Then the hung job is stopped, restarted once when it has stopped, and Slack and the team hear it once
        restarts = [a for a in acts if a[2] == "restart checkpoint" and a[3] == "done"]
        assert len(restarts) == 2, acts  # "will restart" at the finding, "restarted as" at Stopped
        assert [a[1] for a in restarts] == ["StalledTraining", "job:Stopped"]
        assert any(a[2].startswith("stoptraining ") and a[3] == "done" for a in acts), acts
        assert ("StalledTraining" in {a[1] for a in acts if a[2] == "notify chat" and a[3] == "done"}), acts
    copies = [job for r in rows if file_of(r).endswith("restart-resumes.json") for a in r["actions"]
              if a["kind"] == "restart" and a["outcome"] == "done" for job in a.get("jobs", [])]
    assert len(copies) == 2 and all(c.endswith("-r1") for c in copies)  # one copy per job (tagged, untagged)
    # And the copy that hangs again with no newer checkpoint is stopped, not restarted, said once
    guard = [a for a in acted(rows, "restart-no-progress") if a[2] == "restart checkpoint" and a[3] == "skipped"]
    assert len(guard) == 1, acted(rows, "restart-no-progress")


def test_follow_training_jobs_queued_in_aws_batch(tmp_path, capsys):
    rows = replay("Follow training jobs queued in AWS Batch", tmp_path, capsys)
    hung = "AWSBatchllm-pretrain-nov240a4f78472239f9c5987e8bd5ddee3397"
    # the early wait held back, then told by the scheduled sweep once the job has waited 30 minutes in its queue
    # without a new event; the preemption told, the hung attempt stopped through Batch and told with its finding (its
    # service job's end, that stop, not told again); the other job's failure after its attempts told once
    done = [(a["trigger"], a["kind"], a["reason"]) for r in rows for a in r["actions"] if a["outcome"] == "done"]
    assert [(t, k) for t, k, _ in done] == [("job:WaitingForCapacity", "notify"), ("job:Preempted", "notify"),
                                           ("StalledTraining", "stoptraining"), ("StalledTraining", "notify"),
                                           ("job:Failed", "notify")]
    [end] = [a for r in rows for a in r["actions"] if a["trigger"] == "job:Terminated"]
    assert end["outcome"] == "skipped" and end["reason"].endswith(": no second alert")
    [stop] = [reason for _, kind, reason in done if kind == "stoptraining"]
    assert f"stopped {hung}" in stop and "TerminateServiceJob of service job llm-pretrain-nov24" in stop
    waits = [(r["source"].rsplit("#+", 1)[-1], a["outcome"], a["reason"]) for r in rows for a in r["actions"]
             if a["trigger"] == "job:WaitingForCapacity"]
    # the capacity event of minute 9 reaches the function before the run at minute 10: its own wait is said
    assert waits[0] == ("10m", "skipped", "it has waited 9 min in its queue, less than batch_wait_alert_minutes (30 min)")
    assert [(at, outcome) for at, outcome, _ in waits if outcome == "done"] == [("30m", "done")]
