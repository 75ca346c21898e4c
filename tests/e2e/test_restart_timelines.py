"""The restart timelines (events/timelines/restarts/, `make demo-restarts`) replayed with examples/restart-config.json
on the embedded account: a hung job is stopped and restarted once from its checkpoint, and the copy (played from its
timeline's `restarts` spec) resumes from the same checkpoint prefix and completes; a copy that hangs again with no
newer checkpoint is stopped, not restarted, the reason said once; a copy that cannot get its instances
(CapacityError) is relaunched by job_outcomes.Failed; a healthy job with restart attached is never touched."""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESTARTS = ROOT / "events" / "timelines" / "restarts"
CONFIG = ROOT / "examples" / "restart-config.json"
ORDER = ("restart-resumes", "restart-no-progress", "restart-capacity", "healthy-restart")  # as make demo-restarts
RESUMES = "llm-pretrain-2026-11-24-08-00-00-303"
AGAIN = "llm-pretrain-2026-11-24-09-00-00-411"
CAPACITY = "llm-pretrain-2026-11-24-10-00-00-512"
OWN_FAILURE = "llm-sft-2026-11-24-10-00-00-513"
HEALTHY = "llm-pretrain-2026-11-24-11-00-00-620"
NO_PROGRESS = ("no progress: attempt 1 wrote no checkpoint newer than the one it started from (2026-11-24 08:40 UTC; "
               f"the newest in bucket ml-checkpoints, prefix llm/{AGAIN}: 2026-11-24 08:40 UTC); the chain is not "
               "restarted again")


@pytest.fixture(scope="module")
def replayed():
    """Every row of the four timelines replayed one after the other in one embedded account (as the command does),
    and what the account holds at the end: each training job's description and tags, each checkpoint's time."""
    import boto3

    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker
    from rule_actions_cli.synth import synthesize

    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": json.loads(CONFIG.read_text())})
    rows: list[dict] = []
    with EmbeddedAccount(assembly, stack) as account:
        for name in ORDER:
            source = str(RESTARTS / f"{name}.json")
            rows += account.replay_timeline(source, json.loads(Path(source).read_text()))
        backend = moto_sagemaker._backend("123456789012", account.region)
        jobs = {name: {"status": job.training_job_status, "checkpoint": job.checkpoint_config,
                       "resources": job.resource_config, "failure": getattr(job, "failure_reason", None),
                       "tags": {t["Key"]: t["Value"] for t in job.tags or []}}
                for name, job in backend.training_jobs.items()}
        s3 = boto3.client("s3", region_name=account.region)
        listed = s3.list_objects_v2(Bucket="ml-checkpoints", Prefix="llm/").get("Contents", [])
        checkpoints: dict[str, list[str]] = {}
        for item in listed:
            prefix = item["Key"].rsplit("/", 1)[0]
            checkpoints.setdefault(prefix, []).append(item["LastModified"].astimezone(UTC).strftime("%H:%M"))
    return rows, jobs, {prefix: sorted(times) for prefix, times in checkpoints.items()}


def rows_of(rows, timeline):
    return [r for r in rows if r["source"].split("/")[-1].startswith(f"{timeline}.json#+")]


def actions(rows, kind, job=None):
    """(minute, job, trigger, outcome, reason, jobs) of each `kind` action, duplicates left out."""
    return [(int(r["source"].rsplit("#+", 1)[1].rstrip("m")), r["job"], a["trigger"], a["outcome"], a["reason"],
             a.get("jobs", [])) for r in rows for a in r["actions"]
            if a["kind"] == kind and a["outcome"] != "duplicate" and (job is None or r["job"] == job)]


def test_the_hung_job_is_stopped_and_restarted_once_and_the_copy_resumes_and_completes(replayed):
    rows, jobs, checkpoints = replayed
    rows = rows_of(rows, "restart-resumes")
    copy = f"{RESUMES}-r1"
    # Then the hung job is stopped once, when StalledTraining finds it, the restart noted with the stop ...
    assert [(m, j, o) for m, j, _, o, _, _ in actions(rows, "stoptraining")] == [(80, RESUMES, "done")]
    [noted, made] = actions(rows, "restart")
    assert noted[:4] == (80, RESUMES, "StalledTraining", "done")
    assert noted[4].startswith(f"will restart as {copy} from its checkpoint of 2026-11-24 08:40 UTC "
                               f"(bucket ml-checkpoints, prefix llm/{RESUMES}); at most 40 min of work lost")
    # ... and made once the job has Stopped: one copy, from the checkpoint of minute 40
    assert made[:4] == (85, RESUMES, "job:Stopped", "done") and made[5] == [copy]
    assert made[4].startswith(f"restarted as {copy} from its checkpoint of 2026-11-24 08:40 UTC")
    assert "attempt 1 of at most 3" in made[4]
    assert sorted(n for n in jobs if n.startswith(RESUMES)) == [RESUMES, copy]
    # And the copy is the job again (its resources, its tags, its checkpoint prefix), tagged with its chain
    prefix = f"s3://ml-checkpoints/llm/{RESUMES}"
    assert jobs[RESUMES]["checkpoint"] == {"S3Uri": prefix, "LocalPath": "/opt/ml/checkpoints"}
    assert jobs[copy]["checkpoint"] == jobs[RESUMES]["checkpoint"]
    assert jobs[copy]["resources"]["InstanceCount"] == 2
    assert jobs[copy]["tags"]["rule-actions:StalledTraining"] == "stoptraining restart"
    assert jobs[copy]["tags"]["rule-actions:checkpoint-at"] == "2026-11-24T08:40:00Z"
    assert jobs[copy]["tags"]["rule-actions:restarted-from"] == RESUMES
    # which resumes: it writes newer checkpoints under the same prefix (created 09:25, one every 15 min from its
    # minute 20), is never found stalled, and completes (the team told)
    assert checkpoints[f"llm/{RESUMES}"] == ["08:10", "08:25", "08:40", "09:45", "10:00", "10:15", "10:30", "10:45"]
    assert jobs[copy]["status"] == "Completed"
    assert [(m, j, t, o) for m, j, t, o, _, _ in actions(rows, "notify", copy)] == [
        (180, copy, "job:Completed", "done")]
    assert not [r for r in rows if r["job"] == copy and r.get("rules")]


def test_a_copy_that_hangs_again_is_stopped_not_restarted_the_reason_said_once(replayed):
    rows, jobs, checkpoints = replayed
    rows = rows_of(rows, "restart-no-progress")
    copy = f"{AGAIN}-r1"
    # Then the job is restarted once, and its copy, which hangs at once, is stopped when found (30 min into its
    # training, at minute 125) ...
    assert [(m, j) for m, j, _, o, _, _ in actions(rows, "stoptraining") if o == "done"] == [(80, AGAIN), (125, copy)]
    # ... and not restarted: the loop guard says why, once, with both times
    restarts = actions(rows, "restart")
    assert [(m, j, o) for m, j, _, o, _, _ in restarts] == [(80, AGAIN, "done"), (85, AGAIN, "done"),
                                                            (125, copy, "skipped")]
    assert restarts[-1][4] == NO_PROGRESS
    said = [a["reason"] for r in rows for a in r["actions"] if "no progress" in a["reason"]]
    assert said == [NO_PROGRESS]
    assert f"{AGAIN}-r2" not in jobs and jobs[copy]["status"] == "Stopped"
    assert checkpoints[f"llm/{AGAIN}"] == ["08:10", "08:25", "08:40"]  # the copy wrote none


def test_a_copy_that_cannot_get_its_instances_is_relaunched_by_job_outcomes_failed(replayed):
    rows, jobs, _ = replayed
    rows = rows_of(rows, "restart-capacity")
    first, second = f"{CAPACITY}-r1", f"{CAPACITY}-r2"
    # Then the first copy fails at start with a CapacityError (its FailureReason as the timeline says) ...
    assert jobs[first]["status"] == "Failed"
    assert jobs[first]["failure"].startswith("CapacityError: Unable to provision requested ML compute capacity.")
    # ... and job_outcomes.Failed relaunches it at once, as attempt 2, from the same checkpoint; the team is told
    made = [a for a in actions(rows, "restart") if a[5]]
    assert [(m, j, t, jobs_made) for m, j, t, _, _, jobs_made in made] == [
        (85, CAPACITY, "job:Stopped", [first]), (90, first, "job:Failed", [second])]
    assert "attempt 2 of at most 3" in made[1][4]
    assert "it failed for capacity at start and never ran" in made[1][4] and "work lost" not in made[1][4]
    assert (90, first, "job:Failed", "done") in [a[:4] for a in actions(rows, "notify")]
    assert jobs[second]["checkpoint"] == jobs[CAPACITY]["checkpoint"]
    assert jobs[second]["tags"]["rule-actions:attempt"] == "2"
    assert jobs[second]["tags"]["rule-actions:chain"] == CAPACITY
    assert jobs[second]["status"] == "Completed"
    # and a job that fails with its own error is never restarted, saying why
    [(_, _, _, outcome, reason, _)] = actions(rows, "restart", OWN_FAILURE)
    assert outcome == "skipped" and "a failure of the job's own code is never restarted" in reason
    assert f"{OWN_FAILURE}-r1" not in jobs


def test_a_healthy_job_with_restart_attached_is_never_stopped_nor_restarted(replayed):
    rows, jobs, checkpoints = replayed
    rows = rows_of(rows, "healthy-restart")
    assert not actions(rows, "stoptraining") and not actions(rows, "restart")
    assert not [r for r in rows for v in r.get("rules", []) if v["verdict"] == "IssuesFound"]
    assert [n for n in jobs if n.startswith(HEALTHY)] == [HEALTHY] and jobs[HEALTHY]["status"] == "Completed"
    assert len(checkpoints[f"llm/{HEALTHY}"]) == 7  # minutes 20 to 140, every 20


@pytest.mark.parametrize("timeline", ORDER)
def test_each_restart_timeline_finds_what_it_expects_and_nothing_else(replayed, timeline):
    # Given each job's expect and each restarted attempt's (its copy named <job>-r<attempt>)
    expected = set()
    for job in json.loads((RESTARTS / f"{timeline}.json").read_text())["jobs"]:
        expected |= {(job["name"], e["rule"]) for e in job["expect"]}
        for attempt, spec in enumerate(job.get("restarts", []), 1):
            expected |= {(f"{job['name']}-r{attempt}", e["rule"]) for e in spec.get("expect", [])}
    # Then exactly those are found, never an error, never a problem
    rows = rows_of(replayed[0], timeline)
    found = {(r["job"], v["rule"]) for r in rows for v in r.get("rules", []) if v["verdict"] == "IssuesFound"}
    assert found == expected
    assert not [v for r in rows for v in r.get("rules", []) if v["verdict"] == "Error"]
    assert not [r for r in rows if r.get("problems") or r.get("error")]

