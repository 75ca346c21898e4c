"""`rule-actions replay` of the sample timelines (events/timelines/) as `make demo` replays them after the events:
the evaluator at every tick of a simulated clock on the embedded account, the monitor rules acting through the same
route as a Debugger rule status. The hung job is stopped and the team told; each timeline finds what it expects and
nothing else; organization mode acts in the member's account through its executor role."""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import sys
from pathlib import Path

import pytest
from replaying import UUID, reasons_shown_whole

from rule_actions_cli.main import main
from rule_actions_cli.receiver import Receiver

ROOT = Path(__file__).resolve().parents[2]
EVENTS, TIMELINES = ROOT / "events", ROOT / "events" / "timelines"
DEMO = ROOT / "examples" / "demo-webhook-config.json"
DEMO_SECRETS = ROOT / "examples" / "demo-secrets.json"
HOOK_SECRET, HOOK_PATH = "rule-actions/demo-webhook", "/hooks/ml-alerts"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """What `make demo` replays (events/, then events/timelines/), as JSON rows (the test's receiver gets the
    webhook) and as the table `COLUMNS=120 make demo` prints (--receiver: the command's own receiver, on a free
    port, then what the topics' destinations received)."""
    key = json.loads(DEMO_SECRETS.read_text())[HOOK_SECRET]["signing_key"]
    found = {}
    for form in ("--json", "--receiver"):
        out = io.StringIO()
        with contextlib.ExitStack() as stack:
            patch = stack.enter_context(pytest.MonkeyPatch.context())
            patch.setenv("COLUMNS", "120")
            url = stack.enter_context(Receiver({HOOK_PATH: key})).url(HOOK_PATH) if form == "--json" \
                else f"http://127.0.0.1:{free_port()}{HOOK_PATH}"
            secrets = tmp_path_factory.mktemp("secrets") / "secrets.json"
            secrets.write_text(json.dumps({HOOK_SECRET: {"url": url, "signing_key": key}}))
            saved, sys.stdout = sys.stdout, out
            try:
                args = ["replay", form, "--config", str(DEMO), "--secrets", str(secrets), str(EVENTS), str(TIMELINES)]
                assert main(args) == 0
            finally:
                sys.stdout = saved
        found[form] = out.getvalue()
    return [json.loads(line) for line in found["--json"].splitlines()], found["--receiver"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rows_of(rows, timeline):
    return [r for r in rows if r["source"].split("/")[-1].startswith(f"{timeline}.json#+")]


def test_make_demo_shows_the_hung_job_stopped_and_the_team_told(demo):
    rows, table = demo
    hung = rows_of(rows, "hung-job")
    [found] = [r for r in hung if r.get("rules")]
    assert found["source"].endswith("hung-job.json#+80m")
    assert found["rules"] == [{"rule": "StalledTraining", "verdict": "IssuesFound",
                               "reason": "no log line from any host for 30 min (threshold 30 min)"}]
    assert [(a["kind"], a["origin"], a["outcome"]) for a in found["actions"]] == [
        ("stoptraining", "action_json", "done"), ("notify", "config", "done")]
    # and SageMaker's Stopped state change of the job this stack stopped alerts nobody twice
    [stopped] = [r for r in hung if not r.get("rules")]
    assert [(a["trigger"], a["outcome"]) for a in stopped["actions"]] == [("job:Stopped", "skipped")]
    lines = table.splitlines()
    at = lines.index("hung-job.json#+80m  llm-pretrain-2026-11-24-08-00-00-303")
    assert lines[at + 1].split()[:4] == ["StalledTraining", "evaluated", "-", "IssuesFound"]
    assert "IssuesFound  no log line from any host for 30" in lines[at + 1]


STOPPED = {("StalledTraining", "stoptraining", "done"), ("StalledTraining", "notify", "done"),
           ("job:Stopped", "notify", "skipped")}  # and its Stopped outcome alerts nobody a second time


@pytest.mark.parametrize(("timeline", "expected"), [
    ("idle-gpu-job", {("LowGPUUtilization", "notify", "done")}),
    ("slow-start", {("MaxInitializationTime", "notify", "done"), ("LowGPUUtilization", "notify", "done")}),
    ("loss-plateau", {("LossNotDecreasing", "stoptraining", "done"), ("LossNotDecreasing", "notify", "done"),
                      ("job:Stopped", "notify", "skipped")}),
    ("multi-host-stall", {("StalledTraining", "stoptraining", "done"), ("StalledTraining", "email", "done"),
                          ("StalledTraining", "notify", "done"), ("LowGPUUtilization", "notify", "done"),
                          ("job:Stopped", "notify", "skipped")}),
    ("watch-mode", {("StalledTraining", "stoptraining", "watched"), ("StalledTraining", "notify", "done")}),
    ("healthy-gpu-job", set()), ("healthy-multi-host", set()),
    # the phases a job goes through, and the rhythms real jobs show: nothing is judged, found or stopped
    ("healthy-long-upload", set()), ("healthy-cluster-repair", set()),
    ("healthy-waiting-phases", {("job:Stopped", "notify", "done")}),  # one is stopped by its owner: the team is told
    ("healthy-checkpoint-workers", set()), ("healthy-checkpoint-dips", set()),
    # issue 36: workers whose first checkpoint interval (19 min) is shorter than the later ones (40 min), and the
    # twin whose worker hangs after its first checkpoint, its GPUs idle
    ("healthy-first-checkpoint", set()),
    ("hung-checkpoint-worker", STOPPED | {("LowGPUUtilization", "notify", "done")}),
    ("opt-out-job", {("job:Stopped", "notify", "done")}),  # its owner stops it: the team is told
    ("healthy-spot-resume", {("job:Interrupted", "notify", "done")}),  # the team is told it lost its capacity
    # a real hang after a repair; a hung trial and a hung pipeline step's job under their outcome switches
    ("repair-then-hang", STOPPED),
    # (their Stopped outcome is their parent's to report: the stack's rule does not even match it)
    ("hung-trial", STOPPED - {("job:Stopped", "notify", "skipped")}),
    ("hung-pipeline-step", STOPPED - {("job:Stopped", "notify", "skipped")}),
    # a budget: its warning notifies (its stop skipped, saying why), its 100% stops; one under its budget and one
    # whose price is unknown are never acted on
    ("budget-job", {("Budget", "stoptraining", "skipped"), ("Budget", "notify", "done"), ("Budget", "webhook", "done"),
                    ("Budget", "stoptraining", "done"), ("job:Stopped", "notify", "skipped")}),
    ("healthy-budget", set()),
])
def test_each_timeline_finds_what_it_expects_once_and_nothing_else(demo, timeline, expected):
    rows = rows_of(demo[0], timeline)
    done = {(a["trigger"], a["kind"], a["outcome"]) for r in rows for a in r["actions"] if a["outcome"] != "duplicate"}
    assert done == expected
    found = {r["rule"] for row in rows for r in row.get("rules", []) if r["verdict"] == "IssuesFound"}
    expect = {e["rule"] for job in json.loads((TIMELINES / f"{timeline}.json").read_text())["jobs"]
              for e in job["expect"]}
    assert found == expect


@pytest.mark.parametrize("timeline", ["hung-job", "multi-host-stall", "repair-then-hang", "hung-trial",
                                      "hung-pipeline-step", "hung-checkpoint-worker"])
def test_a_hung_job_is_stopped_once_within_the_threshold_plus_one_run(demo, timeline):
    # Given a timeline whose job hangs at a known minute
    [job] = json.loads((TIMELINES / f"{timeline}.json").read_text())["jobs"]
    begins = next(e["begins"] for e in job["expect"] if e["rule"] == "StalledTraining")
    # Then exactly one stop was carried out, at the first run after the threshold (30 min) passed
    stops = [int(r["source"].rsplit("#+", 1)[1].rstrip("m")) for r in rows_of(demo[0], timeline)
             for a in r["actions"] if a["kind"] == "stoptraining" and a["outcome"] == "done"]
    assert len(stops) == 1 and begins + 30 <= stops[0] <= begins + 30 + 5


@pytest.mark.parametrize(("timeline", "phase"), [("healthy-long-upload", "uploading artifacts"),
                                                 ("healthy-cluster-repair", "restarting after a hardware failure"),
                                                 ("healthy-spot-resume", "interrupted, waiting for spot capacity")])
def test_a_job_in_a_phase_no_rule_judges_says_so_once(demo, timeline, phase):
    # Given a job that spends longer than any threshold in a phase no rule judges
    rows = [r for r in rows_of(demo[0], timeline) if r.get("rules")]
    # Then one row says which phase, for every rule, and nothing is acted on
    [row] = rows
    assert {v["verdict"] for v in row["rules"]} == {"NotJudged"} and not row["actions"]
    assert all(v["reason"].startswith(phase) and ": not judged (" in v["reason"] for v in row["rules"])


def test_a_rule_in_watch_mode_says_what_it_would_stop_and_stops_nothing(demo):
    # Given the timeline whose job tags StalledTraining with stoptraining and mode=watch, hung from minute 50
    rows, table = demo
    found = [r for r in rows_of(rows, "watch-mode") if r.get("rules")]
    job = "mistral-ft-watch-2026-11-24-08-00-00-404"
    # Then its first finding (+80m) reports the stop as watched, naming the job, and the team is told
    first = found[0]
    assert first["source"].endswith("watch-mode.json#+80m")
    stop = first["actions"][0]
    assert (stop["kind"], stop["outcome"], stop["reason"]) == (
        "stoptraining", "watched", f"watch mode: would stop {job}; nothing was changed")
    assert [a["outcome"] for r in found for a in r["actions"] if a["kind"] == "notify"] == ["done"]
    # and the job is never stopped: the later runs repeat only what was said (duplicates: no row),
    # and no Stopped outcome follows
    assert [r["source"].rsplit("#", 1)[1] for r in found] == ["+80m"]
    assert not [a for r in found for a in r["actions"] if a["kind"] == "stoptraining" and a["outcome"] == "done"]
    assert not [a for r in rows_of(rows, "watch-mode") for a in r["actions"] if a["trigger"].startswith("job:")]
    assert any(line.split()[:5] == ["StalledTraining", "stoptraining", "job", "watched", "watch"]
               for line in table.splitlines())
    assert f"watch mode: would stop {job}; nothing was changed" in " ".join(table.split())


def test_an_opted_out_job_is_never_stopped_even_when_the_stack_reads_no_tags(tmp_path):
    # Given a stack whose StalledTraining (acting) and LowGPUUtilization apply to every job, with monitor.job_tags
    # false, and rules that stop on a stall
    config = {**json.loads(DEMO.read_text()), "rules": {"StalledTraining": ["stoptraining", "notify"], "*": ["notify"]},
              "monitor": {"rules": {"StalledTraining": {"mode": "act"}, "LowGPUUtilization": {}}, "job_tags": False}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:  # When the opted-out job's timeline is replayed: its GPUs idle from minute 20, its log silent from 30
        assert main(["replay", "--json", "--config", str(tmp_path / "config.json"), "--secrets", str(DEMO_SECRETS),
                     str(TIMELINES / "opt-out-job.json")]) == 0
    finally:
        sys.stdout = saved
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    # Then its row says, once, that the stack-wide rules do not judge it, and nothing but its owner's stop happens
    [judged] = [r for r in rows if r.get("rules")]
    assert {(v["rule"], v["verdict"]) for v in judged["rules"]} == {("StalledTraining", "NotJudged"),
                                                                    ("LowGPUUtilization", "NotJudged")}
    assert all(v["reason"].startswith("opted out (tag rule-actions:opt-out=true)") for v in judged["rules"])
    assert [(a["trigger"], a["kind"], a["outcome"]) for r in rows for a in r["actions"]] == [
        ("job:Stopped", "notify", "done")]


def test_the_multi_host_stall_names_the_silent_host(demo):
    [row] = [r for r in rows_of(demo[0], "multi-host-stall") if any(v["rule"] == "StalledTraining"
                                                                   for v in r.get("rules", []))]
    [finding] = [v["reason"] for v in row["rules"] if v["rule"] == "StalledTraining"]
    assert finding == ("no log line from algo-3 for 30 min (threshold 30 min) and its GPUs idle (0% over its last 10 "
                       "min), while algo-1, algo-2, algo-4 still log")


def replay_all_rules(tmp_path: Path, timeline: str) -> list[dict]:
    """The timeline replayed with every monitor rule stack-wide (acting: they notify, the jobs' tags stop), as rows."""
    from rule_actions import registry

    config = {**json.loads(DEMO.read_text()), "rules": {"*": ["notify"]},
              "monitor": {"rules": {name: {"mode": "act"} for name in registry.monitors()}}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        assert main(["replay", "--json", "--config", str(tmp_path / "config.json"), "--secrets", str(DEMO_SECRETS),
                     str(TIMELINES / f"{timeline}.json")]) == 0
    finally:
        sys.stdout = saved
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_workers_whose_first_checkpoint_comes_early_are_never_found_by_any_rule(tmp_path):
    # Given issue 36's jobs: workers that write a first checkpoint 19 minutes in, then every 40 minutes (GPUs busy on
    # one job, no GPU on the other), rank 0 logging every minute, tagged to stop on a stall; every monitor rule on
    rows = replay_all_rules(tmp_path, "healthy-first-checkpoint")
    # Then no rule finds anything and nothing is done but telling the team the jobs completed, over the four hours
    assert not [v for r in rows for v in r.get("rules", []) if v["verdict"] == "IssuesFound"]
    assert {a["trigger"] for r in rows for a in r["actions"]} <= {"job:Completed"}


def test_a_checkpoint_worker_that_hangs_is_stopped_once_naming_it(tmp_path):
    # Given the twin: algo-3 hangs after its first checkpoint (minute 27), its GPUs idle; every rule stack-wide
    rows = replay_all_rules(tmp_path, "hung-checkpoint-worker")
    # Then StalledTraining stops the job once, at the first run 30 minutes after, naming algo-3 and not the workers
    # that are as silent but whose GPUs are busy
    stops = [(r["source"].rsplit("#+", 1)[1], a["trigger"]) for r in rows for a in r["actions"]
             if a["kind"] == "stoptraining" and a["outcome"] == "done"]
    assert stops == [("60m", "StalledTraining")]
    [reason] = [v["reason"] for r in rows if r["source"].endswith("#+60m") for v in r.get("rules", [])
                if v["rule"] == "StalledTraining"]
    assert reason.startswith("no log line from algo-3 for 32 min (threshold 30 min) and its GPUs idle (0% over its "
                             "last 10 min)") and "algo-2" not in reason.split(", while")[0]


def test_a_budget_warns_once_at_its_fraction_then_stops_the_job_saying_what_it_cost_and_saved(demo):
    # Given the job whose tags give it a budget of $10, a warning at 50% and a stop, on the replay's sample prices
    rows = [r for r in rows_of(demo[0], "budget-job") if r.get("rules")]
    warned, stopped = rows
    # Then the first run past 50% warns: the team and the webhook are told, the stop is skipped saying why
    assert warned["source"].endswith("budget-job.json#+50m")
    assert warned["rules"][0]["reason"].startswith("its cost $5.55 passed 50% of its budget $10.00 (56%; 1 x "
                                                   "ml.g5.12xlarge at $7.09/h for 47 min)")
    assert [(a["kind"], a["outcome"]) for a in warned["actions"]] == [
        ("stoptraining", "skipped"), ("notify", "done"), ("webhook", "done")]
    assert warned["actions"][0]["reason"].startswith("Budget warns at 50%: a warning only notifies, it never stops")
    # And the first run past 100% stops it, once, saying what it cost until the stop and what the stop saved at most
    assert stopped["source"].endswith("budget-job.json#+90m")
    assert stopped["rules"][0]["reason"].startswith("its cost $10.28 passed its budget $10.00 (103%")
    stop = stopped["actions"][0]
    assert (stop["kind"], stop["outcome"]) == ("stoptraining", "done")
    assert stop["reason"] == ("stopped budget-ft-2026-11-24-08-00-00-901 (cost $10.28 until the stop; saved at most "
                              "$18.08)")  # 87 min of $7.09/h, and the 153 min left of its 240
    # And the table shows each once: the warning's event and the stop's, each with its finding
    lines = demo[1].splitlines()
    shown = [line.split()[0] for line in lines if line.startswith("budget-job.json#+")]
    assert shown == ["budget-job.json#+50m", "budget-job.json#+90m", "budget-job.json#+95m"]  # +95m: its Stopped
    assert sum(line.split()[:4] == ["Budget", "evaluated", "-", "IssuesFound"] for line in lines) == 2


def test_a_budget_never_judges_an_unknown_price_and_leaves_a_job_under_its_budget_alone(demo):
    rows = rows_of(demo[0], "healthy-budget")
    judged = [(v["rule"], v["verdict"], v["reason"]) for r in rows for v in r.get("rules", [])]
    assert judged == [("Budget", "Skipped", "unknown price, not judged: the AWS Price List has no Training price for "
                                            "ml.p5.48xlarge in us-east-1")]
    assert not [a for r in rows for a in r["actions"]]


def test_getting_started_shows_what_make_demo_prints(demo):
    from rule_actions_cli.replay_table import summary

    assert summary(demo[0]) in (ROOT / "docs" / "getting-started.md").read_text()


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_docs_excerpts_are_what_columns_120_make_demo_prints(demo, page, monkeypatch):
    # Given the excerpt of `make demo` a page shows (its first line, then its lines between "..." elisions)
    [(said, excerpt)] = re.findall(r"```[^\n]*\n(Replaying .*?\n)(EVENT  JOB\n.*?)```", (ROOT / page).read_text(),
                                   re.DOTALL)
    shown = [line for line in excerpt.splitlines() if line != "..."]
    # Then its first line is what `COLUMNS=120 make demo` says first (the test's replay names absolute paths)
    from rule_actions_cli import inputs, replay_table

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "120")
    paths = ["events/", "events/timelines/"]
    context, _ = inputs.replay_context("examples/demo-webhook-config.json", False)
    assert said == replay_table.heading(inputs.load(paths)[0], paths, context, "examples/demo-webhook-config.json") + "\n"
    # Then its lines are lines of what the demo prints, in its order (message ids and the receiver's port aside)
    def same(line: str) -> str:
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", UUID.sub("<id>", line))

    printed = iter(same(line) for line in demo[1].splitlines())
    missing = [line for line in shown if not any(same(line) == other for other in printed)]
    assert not missing and len(shown) > 10, missing


def test_columns_120_make_demo_fits_120_columns_and_cuts_no_reason(demo):
    # Given what `COLUMNS=120 make demo` prints, and its rows
    rows, table = demo
    lines = table.splitlines()
    # Then no line is wider than 120 characters
    assert max(map(len, lines)) <= 120 and len(lines) > 100
    # and every reason the table lists is there whole (wrapped in its column): the monitor rules' findings, each
    # action's (a row's repeated actions share one line saying so), each problem
    assert reasons_shown_whole(table, rows) > 80
    # and the rows that did nothing are counted on one line
    assert any(line.startswith("not listed (--all lists them): 82 events the stack's rule does not match")
               for line in lines)
    # and what the team was sent is there: each message's subject, then its text message whole, its size first
    at = next(i for i, line in enumerate(lines) if re.fullmatch(r"  to the team: \d+", line))
    assert lines[at + 1] == "    [rule-actions] ExplodingTensor issues found in cv-detr-ablation-03"
    assert lines[at + 2] == "      text message, 90 characters, 1 SMS part (GSM-7):"
    assert lines[at + 3] == ("        rule-actions: ExplodingTensor issues found in cv-detr-ablation-03 (InProgress); "
                             "cost $3.85")


def test_a_timeline_without_monitor_rules_says_so(capsys):
    assert main(["replay", "--json", str(TIMELINES / "hung-job.json")]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "the configuration runs no monitor rules (monitor is null)" in row["ignored"]


def test_local_replay_quotes_the_line_the_samples_timelines_get_without_monitor_rules(capsys, tmp_path, monkeypatch):
    # Given the line docs/local-replay.md quotes for the sample timelines under a configuration without monitor
    page = " ".join((ROOT / "docs" / "local-replay.md").read_text().split())
    [quoted] = re.findall(r"`(\d+ timelines not replayed: [^`]+)`", page)
    # When they are replayed with the defaults (no rule-actions.json: monitor is null, as init writes it)
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(TIMELINES)]) == 0
    # Then the table says that line, the count included
    assert quoted in " ".join(capsys.readouterr().out.split())


def test_a_broken_timeline_is_reported_on_its_row(capsys, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"timeline": "x", "start": "soon", "minutes": 0, "jobs": []}))
    assert main(["replay", "--json", "--config", str(DEMO), str(broken)]) == 1
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["matched"] is False and len(row["problems"]) == 3
    assert any("start: 'soon' is not an ISO 8601 time" in p for p in row["problems"])


def test_a_timeline_with_bad_fields_is_one_row_naming_each_path_and_the_next_timeline_goes_on(capsys, tmp_path):
    # Given a timeline whose metric repeats every 0 minutes, whose log text names {minute.real} and a host outside
    # algo-1..2, beside a good timeline
    bad = json.loads((TIMELINES / "hung-job.json").read_text())
    job = bad["jobs"][0]
    job["instance_count"] = 2
    job["metrics"][0]["every"] = 0
    job["logs"] = [{"hosts": ["algo-9"], "from": 0, "to": 5, "text": "step {minute.real} {"}]
    (tmp_path / "a-bad.json").write_text(json.dumps(bad))
    (tmp_path / "b-good.json").write_text((TIMELINES / "hung-job.json").read_text())

    # When both are replayed
    assert main(["replay", "--json", "--config", str(DEMO), str(tmp_path)]) == 1

    # Then the bad one is one row naming each field's path, and the good one is replayed
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    bad_rows = [r for r in rows if "a-bad.json" in r["source"]]
    assert len(bad_rows) == 1 and bad_rows[0]["matched"] is False
    problems = bad_rows[0]["problems"]
    assert any("jobs[0].metrics[0].every: 0 is not a whole number of minutes" in p for p in problems)
    assert any('jobs[0].logs[0].hosts[0]: "algo-9" is not a host of this job (algo-1 to algo-2)' in p for p in problems)
    assert any("jobs[0].logs[0].text: " in p and "may name only {minute}, {host} and {job}" in p for p in problems)
    good = [r for r in rows if "b-good.json" in r["source"]]
    assert good and not any(r.get("problems") for r in good)
    assert any(a["kind"] == "stoptraining" and a["outcome"] == "done" for r in good for a in r.get("actions") or [])


def test_organization_mode_evaluates_and_acts_in_the_members_account(capsys, tmp_path):
    config = {**json.loads((ROOT / "examples" / "organization-config.json").read_text()),
              "monitor": {"rules": {"LowGPUUtilization": {}}}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    timeline = json.loads((TIMELINES / "hung-job.json").read_text())
    timeline["jobs"][0]["account"] = "111122223333"
    (tmp_path / "hung.json").write_text(json.dumps(timeline))
    assert main(["replay", "--json", "--config", str(tmp_path / "config.json"), str(tmp_path / "hung.json")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [found] = [r for r in rows if r.get("rules")]
    assert (found["account"], found["account_alias"]) == ("111122223333", "team-a-prod")
    assert [(a["kind"], a["outcome"]) for a in found["actions"]] == [("stoptraining", "done"), ("notify", "done")]
    assert not [r for r in rows if r.get("error")]


def test_a_refusal_is_one_row_over_a_timeline(tmp_path):
    # Given a job that hangs at minute 10 whose tag attaches StalledTraining with a text to a number the
    # configuration does not name (denied: allow_any_sms is false), replayed for 90 minutes, a run every 5
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.replay_table import summary
    from rule_actions_cli.synth import synthesize

    timeline = {
        "timeline": "A hung job whose tag texts a number the configuration does not name", "minutes": 90,
        "start": "2026-11-24T08:00:00Z",
        "jobs": [{"name": "llm-sms-denied-2026-11-24-08-00-00-404", "instance_type": "ml.g5.2xlarge",
                  "tags": {"rule-actions:StalledTraining": "sms=+15555550199"},
                  "phases": [{"at": 0, "secondary": "Starting"}, {"at": 2, "secondary": "Training"}],
                  "metrics": [{"metric": "GPUUtilization", "hosts": "all", "from": 3, "to": 90, "value": 95}],
                  "logs": [{"hosts": "all", "from": 2, "to": 10, "every": 1, "text": "step {minute}00 loss ok"}]}],
    }
    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": {"rules": {}, "monitor": {}}})
    kept: list[dict] = []

    # When it is replayed as `rule-actions replay` does
    with EmbeddedAccount(assembly, stack) as account:
        rows = account.replay_timeline("sms-denied.json", timeline, keep=kept)

    # Then the finding holds at every run from minute 40 (11 runs) and the text is refused at each ...
    runs = [(run["tick"], outcomes) for run in kept
            if (outcomes := [a["outcome"] for job in run["result"]["jobs"] for a in job.get("actions", [])])]
    assert [tick for tick, _ in runs] == list(range(40, 91, 5))
    # ... said by the first run, a duplicate at every later one
    assert [outcome for _, outcome in runs] == [["denied"]] + [["duplicate"]] * 10
    # and the table shows it once: one row, one denied
    assert [(row["source"], [a["outcome"] for a in row["actions"]]) for row in rows] == [
        ("sms-denied.json#+40m", ["denied"])]
    assert summary(rows).endswith("actions: 1 denied")


def test_a_timelines_evaluation_rows_name_their_job_and_only_its_own_jobs(tmp_path):
    # Given a hung training job's timeline, replayed in an embedded account that also runs another timeline's
    # job (the account is shared by the timelines replayed together), with no metrics or logs of its own
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.emulator import monitoring as moto_monitoring
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker
    from rule_actions_cli.synth import synthesize

    own = "llm-hung-own-2026-11-24-08-00-00-901"
    timeline = {
        "timeline": "A hung job", "minutes": 60, "start": "2026-11-24T08:00:00Z",
        "jobs": [{"name": own, "instance_type": "ml.g5.2xlarge",
                  "phases": [{"at": 0, "secondary": "Starting"}, {"at": 2, "secondary": "Training"}],
                  "metrics": [{"metric": "GPUUtilization", "hosts": "all", "from": 3, "to": 60, "value": 95}],
                  "logs": [{"hosts": "all", "from": 2, "to": 10, "every": 1, "text": "step {minute}00 loss ok"}]}],
    }
    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": {
        "rules": {}, "monitor": {"rules": {"StalledTraining": {}}}}})

    # When it is replayed
    with EmbeddedAccount(assembly, stack) as account:
        other, start = "other-timelines-job-2026-11-24-08-00-00-902", 1_795_507_200  # 08:00, and hung from then
        moto_sagemaker.put_training_job(other, "InProgress", secondary_status="Training", region=account.region,
                                        training_start_time=start)
        moto_monitoring.put_log_lines("/aws/sagemaker/TrainingJobs", f"{other}/algo-1-{start}",
                                      [(start + 60, "step 1 loss ok")], region=account.region)
        rows = account.replay_timeline("hung.json", timeline)

    # Then every evaluation row names its job as every other row does (job, family, training_job)
    evaluations = [row for row in rows if row.get("rules")]
    assert evaluations and all((row["job"], row["job_family"], row["training_job"]) == (own, "training", own)
                               for row in evaluations)
    # and no row names the other timeline's job
    assert {row["job"] for row in rows} == {own}
