"""Benchmark 9: what a job's cost costs to know. The AWS Price List calls (pricing:GetProducts) of scheduled
evaluations with the Budget rule on the embedded account (its sample prices), in-process: JOBS running training jobs
on TYPES instance types, each with a budget in its tags; RUNS runs in one execution environment, then one in a fresh
environment; and the event path: a stop on each of EVENTS jobs' events in one environment.

The claim: at most one GetProducts per (instance type, region) per execution environment; a warm environment makes
none. Counted twice: by the adapter (effects/pricing.py's own count) and by the embedded Price List (the requests it
answered); the time each run takes is printed beside them.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.common import DEMO_CONFIG, block, verdict

JOBS = 120
TYPES = ("ml.g5.xlarge", "ml.g5.2xlarge", "ml.p3.2xlarge", "ml.m5.xlarge")
RUNS = 3
EVENTS = 40
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)


def seed(jobs: int) -> None:
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker

    start = NOW - timedelta(minutes=90)
    for n in range(jobs):
        moto_sagemaker.put_training_job(
            f"bench-price-{n:04d}", "InProgress", transitions=[{"Status": "Training", "StartTime": start}],
            training_start_time=start, resource_config={"InstanceType": TYPES[n % len(TYPES)], "InstanceCount": 1},
            tags={"rule-actions:Budget": "notify", "rule-actions:Budget:parameters": f"usd={1000 + n}"})


def measure(jobs: int = JOBS, runs: int = RUNS, events: int = EVENTS) -> dict[str, Any]:
    from rule_actions.contract import EVALUATION_KEY
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount, LocalContext
    from rule_actions_cli.emulator import pricing as moto_pricing
    from rule_actions_cli.synth import synthesize

    quiet_node()
    config = {**json.loads(DEMO_CONFIG.read_text()), "rules": {"*": ["notify", "stoptraining"]},
              "monitor": {"rules": {}}}
    assembly, stack = synthesize({**project_context(), "rule_actions": config})
    with EmbeddedAccount(assembly, stack) as account:
        seed(jobs)

        def evaluate(handler: Any) -> list[dict[str, Any]]:
            found = []
            for index in range(runs + 1):
                if index in (0, runs):  # a fresh execution environment: the first run, and the last one again
                    handler.runtime.cache_clear()
                prices = handler.runtime()[1].evaluation().prices
                before, served = prices.calls, moto_pricing.calls()
                when = (NOW + timedelta(minutes=5 * index)).isoformat().replace("+00:00", "Z")
                context = LocalContext(account.evaluator_name, account.evaluator_arn, remaining_millis=300_000)
                with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
                    began = time.perf_counter()
                    result = handler.lambda_handler({EVALUATION_KEY: {"time": when, "shard": 0, "shards": 1}},
                                                    context)
                    wall = time.perf_counter() - began
                verdicts = [r["verdict"] for j in result["jobs"] for r in j["rules"] if r["rule"] == "Budget"]
                found.append({"fresh": index in (0, runs), "calls": prices.calls - before,
                              "served": moto_pricing.calls() - served, "wall": wall, "judged": len(verdicts),
                              "unknown": sum(1 for r in result["jobs"] for v in r["rules"]
                                             if v["reason"].startswith("unknown price"))})
            return found

        evaluations = account._as_function(evaluate, None, evaluator=True)

        def stops(handler: Any) -> dict[str, Any]:
            from rule_actions_cli.emulator import sagemaker as moto_sagemaker

            prices = handler.runtime()[1].prices
            before = prices.calls
            context = LocalContext(account.function_name, account.function_arn)
            stopped = 0
            for n in range(events):  # each job's Debugger finding: its stop and its message say what it cost
                name = f"bench-price-{n:04d}"
                moto_sagemaker.put_training_job(name, "InProgress")
                event = {"version": "0", "id": f"bench-price-{n}", "detail-type": "SageMaker Training Job State Change",
                         "source": "aws.sagemaker", "account": "123456789012", "time": NOW.isoformat(),
                         "region": account.region, "resources": [], "detail": {
                             "TrainingJobName": name, "TrainingJobStatus": "InProgress", "SecondaryStatus": "Training",
                             "TrainingJobArn": f"arn:aws:sagemaker:{account.region}:123456789012:training-job/{name}",
                             "TrainingStartTime": str(int((NOW - timedelta(hours=1)).timestamp() * 1000)),
                             "ResourceConfig": {"InstanceType": TYPES[n % len(TYPES)], "InstanceCount": 1},
                             "DebugRuleEvaluationStatuses": [{"RuleConfigurationName": "LossNotDecreasing",
                                                              "RuleEvaluationStatus": "IssuesFound"}]}}
                with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
                    result = handler.lambda_handler(event, context)
                stopped += sum(1 for a in result["actions"] if a["kind"] == "stoptraining" and a["outcome"] == "done"
                               and "(cost $" in a["reason"])
            return {"calls": prices.calls - before, "stopped": stopped}

        handled = account._as_function(stops, None)
    return {"evaluations": evaluations, "events": handled}


def run() -> list[str]:
    found = measure()
    lines = [f"{JOBS} running training jobs on {len(TYPES)} instance types in one region, each with a budget in its "
             f"tags (Budget, on the embedded account's sample prices); {RUNS} evaluation runs in one execution "
             "environment, then one in a fresh one"]
    for index, r in enumerate(found["evaluations"]):
        label = f"run {index + 1}" + (" (fresh environment)" if r["fresh"] else " (same environment)")
        lines.append(f"  {label}: {r['calls']} GetProducts (the embedded Price List answered {r['served']}); "
                     f"{r['judged']} budgets judged, {r['unknown']} unknown prices; {r['wall']:.2f} s")
    events = found["events"]
    lines.append(f"events: {EVENTS} stops on jobs of those {len(TYPES)} instance types in one environment: "
                 f"{events['calls']} GetProducts; {events['stopped']} stop results say what the job cost")
    fresh = [r for r in found["evaluations"] if r["fresh"]]
    warm = [r for r in found["evaluations"] if not r["fresh"]]
    ok = (all(r["calls"] == r["served"] <= len(TYPES) for r in fresh) and all(r["calls"] == 0 for r in warm)
          and events["calls"] <= len(TYPES) and all(r["unknown"] == 0 for r in found["evaluations"]))
    claim = (f"Price List calls per run: {', '.join(str(r['calls']) for r in found['evaluations'])} (at most one per "
             f"instance type and region per execution environment: {len(TYPES)} types)")
    print(block("[9] What a job's cost costs to know: Price List calls per evaluation run and per event", lines,
                verdict(ok, claim)), flush=True)
    return [verdict(ok, claim)]
