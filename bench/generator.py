"""Generated "SageMaker Training Job State Change" events, shaped like events/ and tests/builders.py.

`generate(n_events, n_jobs)` gives whole job lifecycles interleaved in time: most events are state changes
whose rules are InProgress / NoIssuesFound (the stack's rule filters them out); a share of the jobs reach
IssuesFound on a rule whose `action_json` is StopTraining (the job itself, as the SDK fills it in) + Email, after
which every event of the job still carries it (SageMaker's duplicate copies, later Training updates, Stopping,
Stopped); a few jobs have a rule in Error. Deterministic for a given seed.
"""

from __future__ import annotations

import random
import uuid
import zlib
from datetime import UTC
from typing import Any

from rule_actions_sdk import ActionList, Email, StopTraining, prepare_actions

ACCOUNT = "123456789012"  # moto's default account, as in events/
REGION = "us-east-1"
DETAIL_TYPE = "SageMaker Training Job State Change"
RULE_IMAGE = "503895931360.dkr.ecr.us-east-1.amazonaws.com/sagemaker-debugger-rules:latest"
PROFILER_IMAGE = "503895931360.dkr.ecr.us-east-1.amazonaws.com/sagemaker-debugger-rules:latest"
TEAMS = ("nlp", "cv", "rec", "speech", "tabular", "rl", "search", "ads")  # one mailing list each
ISSUE_RULE, OTHER_RULE, PROFILER_RULE = "LossNotDecreasing", "Overfit", "ProfilerReport"
START_MS = 1_795_360_000_000
PRE_TRAINING = ("Starting", "LaunchingMLInstances", "PreparingTrainingStack", "Downloading", "DownloadingTrainingImage")


def job_arn(name: str) -> str:
    return f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{name.lower()}"


def rule_status(name: str, status: str, job: str) -> dict[str, Any]:
    processing = f"{job[:26]}-{name.lower()[:26]}-{zlib.crc32((job + name).encode()):08x}"
    details = {
        "IssuesFound": f"RuleEvaluationConditionMet: Evaluation of the rule {name} at step 500 resulted in the condition being met\n",
        "Error": "ClientError: An error occurred (AccessDenied) when calling the ListObjectsV2 operation: Access Denied",
    }.get(status, "")
    return {
        "RuleConfigurationName": name,
        "RuleEvaluationJobArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:processing-job/{processing}",
        "RuleEvaluationStatus": status,
        "StatusDetails": details,
        "LastModifiedTime": str(START_MS),
    }


def debug_configs(job: str, email: str) -> list[dict[str, Any]]:
    """The job's Debug rule configurations as the SDK writes them: the issue rule carries StopTraining + Email."""
    issue = prepare_actions(
        {"RuleConfigurationName": ISSUE_RULE, "RuleEvaluatorImage": RULE_IMAGE,
         "RuleParameters": {"rule_to_invoke": ISSUE_RULE}},
        job,
        ActionList(StopTraining(), Email(email)),
    )
    other = {"RuleConfigurationName": OTHER_RULE, "RuleEvaluatorImage": RULE_IMAGE,
             "RuleParameters": {"rule_to_invoke": OTHER_RULE}}
    return [issue, other]


def profiler_configs() -> list[dict[str, Any]]:
    return [{"RuleConfigurationName": PROFILER_RULE, "RuleEvaluatorImage": PROFILER_IMAGE,
             "RuleParameters": {"rule_to_invoke": PROFILER_RULE}}]


def event(
    job: str,
    status: str,
    secondary: str,
    debug: dict[str, str],
    time_ms: int,
    *,
    email: str = "ml@example.com",
    profiler: dict[str, str] | None = None,
    with_configs: bool = True,
    configs: list[dict[str, Any]] | None = None,
    event_id: str | None = None,
    rng: random.Random | None = None,
) -> dict[str, Any]:
    """One event; `debug` / `profiler` map rule name -> RuleEvaluationStatus. The event carries the rule
    configurations (`configs`, by default StopTraining + Email on the issue rule) unless `with_configs` is false."""
    rng = rng or random.Random(0)
    detail: dict[str, Any] = {
        "TrainingJobName": job,
        "TrainingJobArn": job_arn(job),
        "TrainingJobStatus": status,
        "SecondaryStatus": secondary,
        "CreationTime": str(START_MS),
        "LastModifiedTime": str(time_ms),
        "DebugRuleEvaluationStatuses": [rule_status(n, s, job) for n, s in debug.items()],
    }
    if with_configs:
        detail["DebugRuleConfigurations"] = configs if configs is not None else debug_configs(job, email)
    if profiler is not None:
        detail["ProfilerRuleEvaluationStatuses"] = [rule_status(n, s, job) for n, s in profiler.items()]
        if with_configs:
            detail["ProfilerRuleConfigurations"] = profiler_configs()
    seconds = time_ms // 1000
    return {
        "version": "0",
        "id": event_id or str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "detail-type": DETAIL_TYPE,
        "source": "aws.sagemaker",
        "account": ACCOUNT,
        "time": _iso(seconds),
        "region": REGION,
        "resources": [job_arn(job)],
        "detail": detail,
    }


def _iso(seconds: int) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def lifecycle(index: int, n: int, kind: str, rng: random.Random, tag: str = "exp") -> list[dict[str, Any]]:
    """`n` events of one job: kind "clean" (Completed, rules NoIssuesFound), "issues" (IssuesFound while
    training, duplicates, then Stopping/Stopped, every later event still IssuesFound) or "error" (a rule in Error)."""
    team = TEAMS[index % len(TEAMS)]
    job = f"{team}-{tag}-{index:04d}-2026-11-22-{index % 24:02d}-{index % 60:02d}-{index % 1000:03d}"
    if index % 5 == 0:
        job = job.replace(team, team.upper(), 1)  # jobs with capitals (the rule container never matches them)
    email = f"{team}-team@example.org"
    profiled = index % 3 == 0
    configs = debug_configs(job, email)  # one serialization per job (events share it read-only)
    t = START_MS + index * 7_000 + rng.randrange(0, 600_000)
    out: list[dict[str, Any]] = []

    def add(status: str, secondary: str, debug: dict[str, str], profiler: dict[str, str] | None = None) -> None:
        nonlocal t
        t += rng.randrange(30_000, 400_000)
        prof = profiler if profiler is not None else ({PROFILER_RULE: "InProgress"} if profiled else None)
        out.append(event(job, status, secondary, debug, t, email=email, profiler=prof, configs=configs, rng=rng))

    def duplicate() -> None:  # SageMaker's extra copy of the same change: new id, same detail
        copy = {**out[-1], "id": str(uuid.UUID(int=rng.getrandbits(128), version=4))}
        out.append(copy)

    running = {ISSUE_RULE: "InProgress", OTHER_RULE: "InProgress"}
    if kind == "issues":
        issue_at = max(len(PRE_TRAINING) + 1, n - 8 - rng.randrange(0, 3))
    elif kind == "error":
        issue_at = max(len(PRE_TRAINING) + 1, n - 5)
    else:
        issue_at = n  # never
    k = 0
    while len(out) < n:
        remaining = n - len(out)
        if k < len(PRE_TRAINING) and len(out) < issue_at - 1:
            add("InProgress", PRE_TRAINING[k], running)
            if k == 0:
                duplicate()
        elif kind == "clean":
            if remaining > 4:
                add("InProgress", "Training", running)
            elif remaining == 4:
                add("InProgress", "Uploading", running)
            elif remaining == 3:
                add("Completed", "Completed", running)
            elif remaining == 2:
                add("Completed", "Completed", {ISSUE_RULE: "NoIssuesFound", OTHER_RULE: "InProgress"})
            else:
                add("Completed", "Completed", {ISSUE_RULE: "NoIssuesFound", OTHER_RULE: "NoIssuesFound"},
                    {PROFILER_RULE: "NoIssuesFound"} if profiled else None)
        elif len(out) < issue_at:
            add("InProgress", "Training", running)
        else:
            state = {**running, ISSUE_RULE: "IssuesFound" if kind == "issues" else "Error"}
            after = len(out) - issue_at  # events since the rule's outcome
            if after == 0:
                add("InProgress", "Training", state)
                if len(out) < n:
                    duplicate()
                if len(out) < n and rng.random() < 0.5:
                    duplicate()  # a third copy, as in events/lifecycle-stopped-after-issues.json
            elif kind == "issues" and remaining > 3:
                add("InProgress", "Training", state)  # another change (metrics, other rules) still carrying it
            elif kind == "issues" and remaining > 1:
                add("Stopping", "Stopping", state)
            elif kind == "issues":
                add("Stopped", "Stopped", {**state, OTHER_RULE: "Stopped"})
            elif remaining > 1:
                add("InProgress", "Training", state)
            else:
                add("Completed", "Completed", state)
        k += 1
    return out[:n]


def generate(n_events: int = 10_000, n_jobs: int = 500, seed: int = 20261122,
             issue_share: float = 0.4, error_share: float = 0.04, tag: str = "exp") -> list[tuple[str, dict[str, Any]]]:
    """(source, event) for `n_events` events across `n_jobs` jobs, interleaved by event time; `tag` is part of
    every job name (two sets with different tags share no job)."""
    rng = random.Random(seed)
    per_job = [n_events // n_jobs + (1 if i < n_events % n_jobs else 0) for i in range(n_jobs)]
    kinds = ["issues"] * round(n_jobs * issue_share) + ["error"] * round(n_jobs * error_share)
    kinds += ["clean"] * (n_jobs - len(kinds))
    rng.shuffle(kinds)
    stamped: list[tuple[int, int, int, dict[str, Any]]] = []
    for index, (n, kind) in enumerate(zip(per_job, kinds, strict=False)):
        for position, item in enumerate(lifecycle(index, n, kind, rng, tag)):
            stamped.append((int(item["detail"]["LastModifiedTime"]), index, position, item))
    stamped.sort(key=lambda s: s[:3])
    return [(f"generated-{tag}#{i}", item) for i, (_, _, _, item) in enumerate(stamped)]
