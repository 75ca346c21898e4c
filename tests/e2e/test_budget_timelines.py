"""The budget timelines (events/timelines/budgets/) replayed with examples/budgets-config.json on the embedded account:
a budget compares what AWS bills. A managed spot job under its budget that waits an hour for capacity is never judged
while it waits (said once) and never stopped; a heterogeneous spot cluster is priced group by group for its billed
time only, warned once and stopped once; a tuning job is priced from its trials' own instance types and times and
stopped once, its trials never on their own. And the replay never invents: every seeded trial's instance type and
times come from the timeline, never moto's defaults nor the machine's clock."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUDGETS = ROOT / "events" / "timelines" / "budgets"
CONFIG = ROOT / "examples" / "budgets-config.json"
ORDER = ("spot-wait-under-budget", "heterogeneous-spot-budget", "tuning-over-budget")
SPOT = "spot-ft-2026-11-24-08-00-00-931"
HETERO = "hetero-ft-2026-11-24-08-00-00-941"
TUNING = "hpo-llm-1124"
START = datetime(2026, 11, 24, 8, 0, tzinfo=UTC)
MOTO_DEFAULT = "ml.m5.large"  # what moto's CreateTrainingJob would run a seeded job on


@pytest.fixture(scope="module")
def replayed():
    """Every row of the three timelines replayed in one embedded account, and each trial and the tuning job as the
    account holds them at the end (their descriptions through the API, as the function reads them)."""
    import boto3

    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.synth import synthesize

    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": json.loads(CONFIG.read_text())})
    rows: list[dict] = []
    with EmbeddedAccount(assembly, stack) as account:
        for name in ORDER:
            source = str(BUDGETS / f"{name}.json")
            rows += account.replay_timeline(source, json.loads(Path(source).read_text()))
        client = boto3.client("sagemaker", region_name=account.region)
        tuning = client.describe_hyper_parameter_tuning_job(HyperParameterTuningJobName=TUNING)
        listed = client.list_training_jobs_for_hyper_parameter_tuning_job(HyperParameterTuningJobName=TUNING)
        trials = {t["TrainingJobName"]: client.describe_training_job(TrainingJobName=t["TrainingJobName"])
                  for t in listed["TrainingJobSummaries"]}
    return rows, tuning, trials


def rows_of(rows, timeline):
    return [r for r in rows if r["source"].split("/")[-1].startswith(f"{timeline}.json#+")]


def minute(row) -> int:
    return int(row["source"].rsplit("#+", 1)[1].rstrip("m"))


def verdicts(rows, rule="Budget"):
    """(minute, job, verdict, reason) of each row's `rule` verdict."""
    return [(minute(r), r["job"], v["verdict"], v["reason"]) for r in rows for v in r.get("rules", [])
            if v["rule"] == rule]


def stops(rows):
    return [(minute(r), r["job"], a["outcome"]) for r in rows for a in r["actions"]
            if a["kind"] in ("stoptraining", "stop") and a["outcome"] == "done"]


def test_a_spot_job_under_its_budget_waiting_for_capacity_is_never_stopped_and_the_wait_is_said_once(replayed):
    # Given the spot job billed 89 minutes ($10.52) of a $12 budget, interrupted from minute 40 to 103
    rows = rows_of(replayed[0], "spot-wait-under-budget")
    # Then it is never stopped nor warned (counting the wait, it passed $12 at minute 105) ...
    assert not stops(rows)
    assert not [v for v in verdicts(rows) if v[2] == "IssuesFound"]
    # ... and the wait is said once, when it begins, as not judged: nothing is billed meanwhile
    [(at, job, verdict, reason)] = verdicts(rows)
    assert (at, job, verdict) == (40, SPOT, "NotJudged")
    assert reason.startswith("not judged: waiting for capacity (interrupted, waiting for spot capacity")
    assert reason.endswith("nothing is billed meanwhile; judged again when it runs")
    # and it completes, the team told once
    assert [(minute(r), a["trigger"], a["outcome"]) for r in rows for a in r["actions"]] == [
        (155, "job:Completed", "done")]


def test_a_heterogeneous_spot_cluster_is_priced_group_by_group_for_its_billed_time(replayed):
    rows = rows_of(replayed[0], "heterogeneous-spot-budget")
    found = [v for v in verdicts(rows) if v[2] == "IssuesFound"]
    # Then its warning comes at minute 80 (45 billed minutes: 2-30 and 63-80), once, its stop skipped ...
    assert [(at, verdict) for at, _, verdict, _ in found] == [(80, "IssuesFound"), (120, "IssuesFound")]
    assert found[0][3].startswith("its cost $11.25 passed 50% of its budget $20.00 (56%; 2 x ml.g5.12xlarge at "
                                  "$7.09/h for 45 min + 2 x ml.c5.2xlarge at $0.408/h for 45 min)")
    # ... and it is stopped once at minute 120 (85 billed minutes), each group at its own price; counting the wait
    # it would have been stopped at minute 85
    assert found[1][3] == ("its cost $21.24 passed its budget $20.00 (106%; 2 x ml.g5.12xlarge at $7.09/h for 1 h "
                           "25 min + 2 x ml.c5.2xlarge at $0.408/h for 1 h 25 min)")
    assert stops(rows) == [(120, HETERO, "done")]
    # and its wait was said once, not judged
    assert [(at, v) for at, _, v, _ in verdicts(rows) if v == "NotJudged"] == [(30, "NotJudged")]


def test_a_tuning_job_over_budget_is_priced_from_its_trials_and_stopped_once_never_a_trial(replayed):
    rows = rows_of(replayed[0], "tuning-over-budget")
    found = [(at, job, reason) for at, job, verdict, reason in verdicts(rows) if verdict == "IssuesFound"]
    # Then the tuning job is warned at 90% and stopped at 100%, priced from each trial's own instance type and time
    # (two on ml.g5.4xlarge, which only their descriptions say: the definition lets SageMaker choose)
    assert [(at, job) for at, job, _ in found] == [(65, TUNING), (70, TUNING)]
    assert found[1][2] == ("its cost $4.08 passed its budget $4.00 (102%; 1 x ml.g5.4xlarge at $2.03/h for 1 h 09 "
                           "min, 2 trials + 1 x ml.g5.2xlarge at $1.515/h for 1 h 09 min, 2 trials)")
    assert stops(rows) == [(70, TUNING, "done")]
    # ... and each trial (its name under the budget's prefix, its tags its tuning job's) says once that its tuning
    # job's budget covers it: never judged, never stopped on its own
    trials = [(at, job) for at, job, verdict, _ in verdicts(rows) if verdict == "NotJudged"]
    assert sorted(job for _, job in trials) == [f"{TUNING}-00{n}-b1a{n}" for n in (1, 2, 3, 4)]
    assert {reason for _, job, verdict, reason in verdicts(rows) if verdict == "NotJudged"} == {
        f"a trial of tuning job {TUNING}: its tuning job's budget covers its trials (Budget trials=each judges each "
        "trial on its own)"}
    assert not [v for v in verdicts(rows) if v[2] == "Skipped"]  # never an unknown price


def test_the_replay_seeds_each_trial_from_the_timeline_never_moto_s_defaults_nor_the_machine_s_clock(replayed):
    # Given the timeline's trials (minutes from its start) and the tuning job's instance type (not moto's default)
    _, tuning, trials = replayed
    spec = json.loads((BUDGETS / "tuning-over-budget.json").read_text())["jobs"][0]
    assert spec["instance_type"] != MOTO_DEFAULT
    given = {t["name"]: t for t in spec["trials"]}
    # Then each trial the account holds runs on the type the timeline gives it, created and started at its minute,
    # ended at its minute or when the tuning job was stopped (minute 75: the tick after the stop), its run time the
    # timeline's
    assert set(trials) == {f"{TUNING}-00{n}-b1a{n}" for n in (1, 2, 3, 4)}  # 5 and 6 were never launched
    for name, described in trials.items():
        trial = given[name]
        assert described["ResourceConfig"]["InstanceType"] == trial.get("instance_type", spec["instance_type"])
        assert described["CreationTime"] == described["TrainingStartTime"] == at(trial["from"])
        assert described["TrainingEndTime"] == at(min(trial["to"], 75))
        assert described["StoppingCondition"]["MaxRuntimeInSeconds"] == spec["max_runtime_minutes"] * 60
    # and every time the account holds is within the timeline (the machine's clock is not 2026-11-24 08:00-09:30)
    times = [v for d in trials.values() for k, v in d.items() if isinstance(v, datetime) and k != "LastModifiedTime"]
    times += [tuning["CreationTime"], tuning["HyperParameterTuningEndTime"]]
    assert all(START <= t <= at(spec["phases"][-1]["at"]) for t in times), times
    # and the tuning job says what the timeline says: its instances, its trials' limits, its counters
    assert tuning["TrainingJobDefinition"]["HyperParameterTuningResourceConfig"]["InstanceConfigs"] == [
        {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        {"InstanceType": "ml.g5.4xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30}]
    assert tuning["HyperParameterTuningJobConfig"]["ResourceLimits"] == {"MaxNumberOfTrainingJobs": 6,
                                                                         "MaxParallelTrainingJobs": 2}
    assert tuning["TrainingJobStatusCounters"]["Stopped"] == 2 and tuning["TrainingJobStatusCounters"]["Completed"] == 2


def at(minutes: int) -> datetime:
    return datetime.fromtimestamp(START.timestamp() + minutes * 60, UTC)


@pytest.mark.parametrize("timeline", ORDER)
def test_each_budget_timeline_finds_what_it_expects_and_nothing_else(replayed, timeline):
    jobs = json.loads((BUDGETS / f"{timeline}.json").read_text())["jobs"]
    expected = {(job["name"], e["rule"], e["begins"]) for job in jobs for e in job["expect"]}
    rows = rows_of(replayed[0], timeline)
    found = {(r["job"], v["rule"]) for r in rows for v in r.get("rules", []) if v["verdict"] == "IssuesFound"}
    first = {(job, rule, min(minute(r) for r in rows if r["job"] == job and any(
        v["rule"] == rule and v["verdict"] == "IssuesFound" for v in r.get("rules", [])))) for job, rule in found}
    assert first == expected
    assert not [v for r in rows for v in r.get("rules", []) if v["verdict"] == "Error"]
    assert not [r for r in rows if r.get("problems") or r.get("error")]
