"""Load: many jobs' lifecycles, with SageMaker's duplicate events, delivered out of order to 8 threads that
share one embedded account (moto in-process) and the real handler. What our own stop causes (the job's Stopping and
Stopped events) is delivered after the events that led to it, as it can only be sent after it (in any order among
themselves): a Stopped event seen first would make every finding of the job a late event, acted on never.

Every (job, rule, action) must be done exactly once and none lost: counted from the returned outcomes and,
independently, from botocore call hooks on StopTrainingJob and Publish. Invocations that fail because an action
was "in progress in a concurrent invocation" are what Lambda retries: they are redelivered, sequentially, after
the concurrent run.

Default suite: 500 events for 50 jobs. `make stress` / `pytest -m stress`: 10,000 events for 500 jobs.
"""

from __future__ import annotations

import random
import re
import sys
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from builders import event, rule_config, rule_status

from rule_actions import handler, pipeline
from rule_actions.handler import ActionsFailed
from rule_actions.privacy import redact
from rule_actions_cli.embedded import LocalContext
from rule_actions_sdk import ActionList, Email, StopTraining, prepare_actions

THREADS = 8
TEAMS = ("nlp", "cv", "rec", "speech", "tabular", "rl", "search", "ads")
ISSUE, ERROR_RULE, PROFILER = "LossNotDecreasing", "Overfit", "ProfilerReport"
IN_PROGRESS_REASON = "in progress in a concurrent invocation"
SUBJECT = re.compile(r"\[rule-actions\] (\S+) (?:issues found|rule error) in (\S+)$")


@pytest.fixture(autouse=True)
def _atomic(atomic_requests):
    """Every test here: each AWS request atomic, as DynamoDB's conditional writes are (conftest.atomic_requests)."""


@dataclass
class Workload:
    events: list[dict[str, Any]]
    jobs: list[str]
    expected: set[tuple[str, str, str, str]]  # (job, rule, kind, target) that must be done exactly once
    stops: set[str]  # jobs that must be stopped exactly once
    after: int = 0  # where the events our stops cause begin (delivered once the others were)


def sdk_configs(job: str, email: str) -> list[dict[str, Any]]:
    """The job's Debug rule configurations as the SDK writes them (StopTraining + Email on the issue rule)."""
    issue = prepare_actions(
        {"RuleConfigurationName": ISSUE, "RuleEvaluatorImage": "rules:latest", "RuleParameters": {"rule_to_invoke": ISSUE}},
        job,
        ActionList(StopTraining(), Email(email)),
    )
    return [issue, rule_config(ERROR_RULE)]


def lifecycle(job: str, kind: str, email: str, length: int, rng: random.Random) -> list[dict[str, Any]]:
    """One job's state changes, oldest first: Starting ... Training; from `onset` on, the rule's IssuesFound (or
    Error) is carried by every later event, through Stopping and Stopped (issue jobs) or Completed."""
    onset = rng.randint(2, max(2, length - 4))
    configs = sdk_configs(job, email)
    events = []
    for step in range(length):
        fired = step >= onset and kind != "quiet"
        if kind == "issue" and step > onset + 2:
            status, secondary = ("Stopping", "Stopping") if step < length - 1 else ("Stopped", "Stopped")
        elif kind != "issue" and step == length - 1:
            status, secondary = "Completed", "Completed"
        else:
            status, secondary = "InProgress", "Starting" if step == 0 else "Training"
        debug = [
            rule_status(ISSUE, "IssuesFound" if fired and kind == "issue" else "InProgress", job=job),
            rule_status(ERROR_RULE, "Error" if fired and kind == "error" else "InProgress", job=job),
        ]
        profiler = [rule_status(PROFILER, "IssuesFound" if fired and kind == "profiler" else "InProgress", job=job)]
        events.append(event(job=job, status=status, secondary=secondary, debug=debug, profiler=profiler,
                            debug_configs=configs, event_id=str(uuid.UUID(int=rng.getrandbits(128)))))
    return events


def workload(n_events: int, n_jobs: int, seed: int = 7) -> Workload:
    """Lifecycles of n_jobs jobs, SageMaker's duplicate copies (same detail, new id) until n_events, shuffled."""
    rng = random.Random(seed)
    kinds = ["issue", "issue", "issue", "error", "profiler", "quiet"]
    per_job = max(4, n_events * 3 // (4 * n_jobs))  # a quarter of the events are duplicates
    events, jobs, expected, stops = [], [], set(), set()
    for index in range(n_jobs):
        team = TEAMS[index % len(TEAMS)]
        job, kind = f"{team}-exp-{index:04d}", kinds[index % len(kinds)]
        email = f"{team}team@example.com"
        jobs.append(job)
        events += lifecycle(job, kind, email, per_job, rng)
        if kind == "issue":
            expected |= {(job, ISSUE, "stoptraining", job), (job, ISSUE, "email", email), (job, ISSUE, "notify", "team")}
            stops.add(job)
        elif kind == "error":
            expected.add((job, ERROR_RULE, "notify", "team"))
        elif kind == "profiler":
            expected.add((job, PROFILER, "notify", "team"))
    actionable = [e for e in events if any(r["RuleEvaluationStatus"] in ("IssuesFound", "Error")
                                           for r in e["detail"]["DebugRuleEvaluationStatuses"]
                                           + e["detail"]["ProfilerRuleEvaluationStatuses"])]
    while len(events) < n_events:  # duplicates, mostly of the events that lead to actions
        original = rng.choice(actionable if rng.random() < 0.8 else events)
        events.append({**original, "id": str(uuid.UUID(int=rng.getrandbits(128)))})
    rng.shuffle(events)
    events = events[:n_events]
    caused = [e for e in events if e["detail"]["TrainingJobStatus"] in ("Stopping", "Stopped")]  # by our stops
    before = [e for e in events if e["detail"]["TrainingJobStatus"] not in ("Stopping", "Stopped")]
    return Workload(before + caused, jobs, expected, stops, len(before))


@dataclass
class Run:
    results: list[dict[str, Any]] = field(default_factory=list)
    failed: list[tuple[dict[str, Any], ActionsFailed]] = field(default_factory=list)
    stop_calls: Counter = field(default_factory=Counter)
    publish_calls: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def count_calls(effects: Any, run: Run) -> None:
    """Botocore hooks on the handler's clients: every StopTrainingJob by job, every Publish by (job, rule, to)."""

    def on_stop(params, **_):
        with run.lock:
            run.stop_calls[params["TrainingJobName"]] += 1

    def on_publish(params, **_):
        rule, job = SUBJECT.match(params["Subject"]).groups()
        with run.lock:
            run.publish_calls[(job, rule, params["MessageAttributes"]["to"]["StringValue"])] += 1

    effects.jobs.client.meta.events.register("before-parameter-build.sagemaker.StopTrainingJob", on_stop)
    effects.notifier.client.meta.events.register("before-parameter-build.sns.Publish", on_publish)


def invoke(settings, effects, raw: dict[str, Any]) -> dict[str, Any]:
    """The real handler's work for one event, as `lambda_handler` does it, without its per-process Powertools
    decorators (Metrics/Logger state is global: one invocation per process in Lambda, not thread-safe here)."""
    outcome = pipeline.handle(raw, settings.config, effects).result
    failed = [a for a in outcome["actions"] if a["outcome"] == "failed"]
    if failed:
        raise ActionsFailed(f"{len(failed)} action(s) failed", outcome)
    return outcome


def deliver(work: Workload, aws, threads: int = THREADS) -> tuple[Run, list[dict[str, Any]]]:
    """Concurrent delivery of every event, then a sequential redelivery of the ones whose invocation failed."""
    for job in work.jobs:
        aws.put_job(job)
    settings, effects = handler.runtime()
    effects.ledger.register(_Context())
    run = Run()
    count_calls(effects, run)

    def one(raw):
        try:
            result = invoke(settings, effects, raw)
        except ActionsFailed as err:
            with run.lock:
                run.failed.append((raw, err))
                run.results.append(err.result)
        else:
            with run.lock:
                run.results.append(result)

    for wave in (work.events[:work.after], work.events[work.after:]):
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(one, wave))
    redelivered = [invoke(settings, effects, raw) for raw, _ in run.failed]
    return run, redelivered


def _Context() -> LocalContext:
    return LocalContext("rule-actions", "arn:aws:lambda:us-east-1:123456789012:function:rule-actions",
                        aws_request_id="req-load", remaining_millis=600_000)


def check_exactly_once(aws, work: Workload, run: Run, redelivered: list[dict[str, Any]]) -> dict[str, Any]:
    everything = run.results + redelivered
    done = Counter(
        (r["training_job"], a["rule"], a["kind"], a["target"])
        for r in everything for a in r["actions"] if a["outcome"] == "done"
    )
    # Every (job, rule, action) the workload calls for was done, exactly once, and nothing else was done (results
    # name endpoints redacted; the workload's addresses differ in their first letter, so they stay distinct)
    expected = {redact(key) for key in work.expected}
    assert len(expected) == len(work.expected)
    assert set(done) == expected, (set(done) ^ expected)
    assert [key for key, n in done.items() if n != 1] == []
    # Counted independently: one StopTrainingJob per job to stop, one Publish per message
    assert run.stop_calls == Counter(work.stops)
    assert run.publish_calls == Counter(
        (job, rule, target if kind != "notify" else "team") for job, rule, kind, target in work.expected if kind != "stoptraining"
    )
    assert {job for job in work.jobs if aws.status(job) == "Stopping"} == work.stops
    # The only failures were concurrent in-progress ones, and their redelivery failed nothing
    reasons = {a["reason"] for _, err in run.failed for a in err.result["actions"] if a["outcome"] == "failed"}
    assert reasons <= {f"{IN_PROGRESS_REASON}; failed here so the retry confirms it was done"}
    assert all(a["outcome"] != "failed" for r in redelivered for a in r["actions"])
    outcomes = Counter(a["outcome"] for r in everything for a in r["actions"])
    return {"events": len(work.events), "done": sum(done.values()), "redelivered": len(redelivered), **outcomes}


def test_concurrent_lifecycles_with_duplicates_act_exactly_once(aws):
    # Given 50 jobs' lifecycles (500 events, duplicates, shuffled) and a team to notify
    aws.configure(notify={"emails": ["team@example.com"]})
    work = workload(500, 50)

    # When 8 threads deliver them concurrently, then the failed ones are redelivered
    started = time.perf_counter()
    run, redelivered = deliver(work, aws)
    elapsed = time.perf_counter() - started

    # Then every (job, rule, action) was done exactly once, none lost
    summary = check_exactly_once(aws, work, run, redelivered)
    print(f"load 500/50: {summary}, {elapsed:.1f} s")
    assert len(work.expected) > 50 and summary["duplicate"] > 0


@pytest.mark.filterwarnings("ignore:No application metrics to publish:UserWarning")
def test_the_decorated_lambda_handler_under_threads_still_acts_exactly_once(aws, monkeypatch):
    # Given the Powertools-decorated entry point itself. Its Logger keys and Metrics set are process-global (one
    # invocation per process in Lambda): under threads, log lines carry another invocation's event_id and EMF
    # blobs mix the metric values of concurrent invocations (some flush none: "No application metrics to
    # publish"). That is noise in this test only; the decisions must not change.
    aws.configure(notify={"emails": ["team@example.com"]})
    monkeypatch.setattr(sys.modules[__name__], "invoke", lambda settings, effects, raw: handler.lambda_handler(raw, _Context()))
    work = workload(200, 20, seed=11)

    # When 8 threads deliver 200 events through lambda_handler, then the failed ones are redelivered
    run, redelivered = deliver(work, aws)

    # Then every (job, rule, action) was done exactly once, none lost
    summary = check_exactly_once(aws, work, run, redelivered)
    assert summary["done"] == len(work.expected)


@pytest.mark.stress
def test_stress_ten_thousand_events_for_five_hundred_jobs_act_exactly_once(aws):
    # Given 500 jobs' lifecycles, 10,000 events with duplicates, shuffled
    aws.configure(notify={"emails": ["team@example.com"]})
    work = workload(10_000, 500)

    # When 8 threads deliver them concurrently, then the failed ones are redelivered
    started = time.perf_counter()
    run, redelivered = deliver(work, aws)
    elapsed = time.perf_counter() - started

    # Then every (job, rule, action) was done exactly once, none lost
    summary = check_exactly_once(aws, work, run, redelivered)
    print(f"load 10000/500: {summary}, {elapsed:.1f} s")
