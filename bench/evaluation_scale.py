"""Benchmark 6: one scheduled evaluation over 1,000 InProgress training jobs with three rules (StalledTraining,
LowGPUUtilization, CPUBottleneck, stack-wide) on the embedded account, in-process; the AWS calls and metrics a run
requests per job; the run extrapolated to the real service's latencies; where sharding starts; the dollar cost per
job-day at list prices; and how the evaluation knows which jobs run: a listing per run (Search, what it does) against
a small TTL table fed by the state-change events (measured on the same embedded account).

Logs are read one FilterLogEvents call per job here (the read below 500 jobs to read; bench 7 compares it with one
Logs Insights query for them all, the read from there on). Each job: one ml.g5.xlarge, training for 90 minutes, 45 minutes of GPU and CPU datapoints and of log lines (one a
minute) seeded; 2% hung (silent for 40 minutes), 2% with idle GPUs. Two runs: the first in a fresh execution
environment (every job's logs read), the second five minutes later (jobs heard within the threshold are not read
again).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.common import DEMO_CONFIG, block, verdict

JOBS = 1_000
RULES = {"StalledTraining": {}, "LowGPUUtilization": {}, "CPUBottleneck": {}}
NOW = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
T = int(NOW.timestamp())
RUNS_PER_DAY = 24 * 60 // 5
# Assumed round trips of the real service in-region (no AWS account here to measure them): a Search page of 100
# training jobs, a GetMetricData call of up to 500 series, a DescribeTrainingJob, an action (Stop, Publish, the
# ledger). FilterLogEvents is bound by its quota, not its latency: 5 calls a second per account and region.
LATENCY = {"Search": 0.30, "GetMetricData": 0.40, "DescribeTrainingJob": 0.08, "action": 0.06}
LOGS_TPS = 5.0
TIMEOUT, RESERVE = 300, 45  # the evaluator's timeout at the default schedule, and what a run keeps for acting
LAMBDA_CPU_SHARE = 512 / 1769  # Lambda gives a full vCPU at 1,769 MB: the evaluator's 512 MB get this share
# List prices, us-east-1 (aws.amazon.com/cloudwatch/pricing, aws.amazon.com/lambda/pricing, aws.amazon.com/dynamodb/
# pricing; Search, DescribeTrainingJob and FilterLogEvents calls are not charged).
PRICE_METRIC = 0.01 / 1000  # GetMetricData, per metric requested
PRICE_GB_SECOND = 0.0000133334  # Lambda, arm64
PRICE_REQUEST = 0.20 / 1_000_000  # Lambda invocation
PRICE_WRITE = 0.625 / 1_000_000  # DynamoDB on-demand write request unit
MEMORY_GB = 0.5


def seed(jobs: int) -> None:
    from rule_actions_cli.emulator import monitoring as moto_monitoring
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker

    start = NOW - timedelta(minutes=90)
    points, lines = [], {}
    for n in range(jobs):
        name = f"bench-eval-{n:04d}"
        moto_sagemaker.put_training_job(name, "InProgress", transitions=[{"Status": "Training", "StartTime": start}],
                                        resource_config={"InstanceType": "ml.g5.xlarge", "InstanceCount": 1})
        hung, idle = n % 50 == 0, n % 50 == 1
        for m in range(45, 0, -1):
            points.append(("/aws/sagemaker/TrainingJobs", "GPUUtilization", {"Host": f"{name}/algo-1"}, T - m * 60,
                           5.0 if idle else 85.0 + (n + m) % 7))
            points.append(("/aws/sagemaker/TrainingJobs", "CPUUtilization", {"Host": f"{name}/algo-1"}, T - m * 60,
                           120.0 + (n + m) % 9))
        lines[f"{name}/algo-1-1763970000"] = [(T - m * 60, f"step {m}") for m in range(45, 40 if hung else -10, -1)]
    moto_monitoring.put_metrics(points)
    for stream, found in lines.items():
        moto_monitoring.put_log_lines("/aws/sagemaker/TrainingJobs", stream, found)


class Timed:
    """Counts and times every call of the evaluator's clients (what the embedded account's moto and botocore take),
    and the metrics GetMetricData is asked for; `reset()` starts a new run."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.calls: Counter = Counter()
        self.seconds = 0.0
        self.metrics_requested = 0

    def attach(self, *clients: Any) -> None:
        for client in clients:
            client.meta.events.register("provide-client-params.*.*", self._params, unique_id=f"timed-p-{id(self)}")
            client.meta.events.register("before-call.*.*", self._before, unique_id=f"timed-{id(self)}")
            client.meta.events.register("after-call.*.*", self._after, unique_id=f"timed-after-{id(self)}")

    def _params(self, params: Any, model: Any, **_: Any) -> None:
        if model.name == "GetMetricData":
            self.metrics_requested += len(params.get("MetricDataQueries", []))

    def _before(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1
        self._last = time.perf_counter()

    def _after(self, **_: Any) -> None:
        self.seconds += time.perf_counter() - self._last


def measure(jobs: int = JOBS, insights_from: int = 10**9) -> dict[str, Any]:
    """The two runs; `insights_from`: from how many jobs to read one Logs Insights query reads them (by default
    never here: this block measures one FilterLogEvents call per job; bench 7 compares the two reads)."""
    saved = os.environ.get("RULE_ACTIONS_LOGS_INSIGHTS_FROM")
    os.environ["RULE_ACTIONS_LOGS_INSIGHTS_FROM"] = str(insights_from)
    try:
        return _measure(jobs)
    finally:
        if saved is None:
            os.environ.pop("RULE_ACTIONS_LOGS_INSIGHTS_FROM", None)
        else:
            os.environ["RULE_ACTIONS_LOGS_INSIGHTS_FROM"] = saved


def _measure(jobs: int) -> dict[str, Any]:
    from rule_actions.contract import EVALUATION_KEY
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount, LocalContext
    from rule_actions_cli.synth import synthesize

    quiet_node()
    config = {**json.loads(DEMO_CONFIG.read_text()), "monitor": {"rules": RULES, "job_tags": False}}
    assembly, stack = synthesize({**project_context(), "rule_actions": config})
    runs = []
    with EmbeddedAccount(assembly, stack) as account:
        seeding = time.perf_counter()
        seed(jobs)
        seeding = time.perf_counter() - seeding

        def evaluate(handler: Any) -> list[dict[str, Any]]:
            handler.runtime.cache_clear()
            effects = handler.runtime()[1].evaluation()  # the evaluator's ports
            found = []
            timed = Timed()
            timed.attach(effects.jobs.client, effects.metrics.client, effects.logs.client, effects.notifier.client,
                         effects.ledger.client)
            for minutes in (0, 5):
                timed.reset()
                when = (NOW + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
                context = LocalContext(account.evaluator_name, account.evaluator_arn, remaining_millis=TIMEOUT * 1000)
                with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
                    began = time.perf_counter()
                    result = handler.lambda_handler({EVALUATION_KEY: {"time": when, "shard": 0, "shards": 1}},
                                                    context)
                    wall = time.perf_counter() - began
                found.append({"wall": wall, "calls": timed.calls, "aws_seconds": timed.seconds,
                              "metrics": timed.metrics_requested, "result": result["evaluation"]})
            return found

        runs = account._as_function(evaluate, None, evaluator=True)
    return {"jobs": jobs, "seeding": seeding, "runs": runs}


def extrapolate(run: dict[str, Any]) -> dict[str, float]:
    """The run on the real service: our own compute at the evaluator's CPU share, plus each call's assumed latency
    (FilterLogEvents at its quota)."""
    calls = run["calls"]
    ours = max(run["wall"] - run["aws_seconds"], 0.0) / LAMBDA_CPU_SHARE
    reads = (calls["Search"] * LATENCY["Search"] + calls["GetMetricData"] * LATENCY["GetMetricData"]
             + calls["DescribeTrainingJob"] * LATENCY["DescribeTrainingJob"])
    logs = calls["FilterLogEvents"] / LOGS_TPS
    actions = sum(n for op, n in calls.items() if op not in ("Search", "GetMetricData", "DescribeTrainingJob",
                                                              "FilterLogEvents")) * LATENCY["action"]
    return {"ours": ours, "reads": reads, "logs": logs, "actions": actions, "total": ours + reads + logs + actions}


def ttl_table(jobs: int = JOBS) -> dict[str, Any]:
    """The alternative: a table the function writes at every state change of a job in scope (an item per running
    job, deleted when it ends, expired by TTL), scanned by each run. Measured on moto's DynamoDB with an item as the
    event's detail would make it (tags, resources, metric definitions, transitions)."""
    import boto3
    from moto import mock_aws

    from bench.common import load_lifecycles

    item = {"id": {"S": "x"}, "detail": {"S": json.dumps({
        "TrainingJobName": "bench-eval-0000", "TrainingJobStatus": "InProgress", "SecondaryStatus": "Training",
        "ResourceConfig": {"InstanceType": "ml.g5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 100},
        "AlgorithmSpecification": {"TrainingImage": "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:"
                                                    "2.3.0-gpu-py311-cu121-ubuntu20.04-sagemaker",
                                   "MetricDefinitions": [{"Name": "train:loss", "Regex": "loss=([0-9.]+)"}]},
        "Tags": {"team": "nlp", "rule-actions:StalledTraining": "stoptraining email=ml@example.com"},
        "SecondaryStatusTransitions": [{"Status": s, "StartTime": "1763800000000", "StatusMessage": "x" * 40}
                                       for s in ("Starting", "Downloading", "Training")]})},
            "expiration": {"N": str(T + 86400)}}
    size = len(json.dumps(item))
    events = load_lifecycles()
    per_job = Counter((e.get("detail") or {}).get("TrainingJobName") for _, e in events)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(TableName="jobs", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        for n in range(jobs):
            client.put_item(TableName="jobs", Item={**item, "id": {"S": f"bench-eval-{n:04d}"}})
        began, pages, kwargs = time.perf_counter(), 0, {"TableName": "jobs"}
        while True:
            page = client.scan(**kwargs)
            pages += 1
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        scan_seconds = time.perf_counter() - began
    return {"item_bytes": size, "scan_pages": pages, "scan_seconds": scan_seconds,
            "events_per_job": sum(per_job.values()) / len(per_job), "lifecycles": len(per_job)}


def run() -> list[str]:
    found = measure()
    cold, warm = found["runs"]
    lines = [f"{JOBS} InProgress jobs, rules {', '.join(RULES)} stack-wide (seeded in {found['seeding']:.1f} s)"]
    for label, r in (("first run (fresh execution environment)", cold), ("second run, 5 minutes later", warm)):
        calls = r["calls"]
        lines += [f"{label}: {r['wall']:.1f} s on the embedded account ({r['aws_seconds']:.1f} s of it in moto and "
                  f"botocore), {sum(calls.values())} calls: "
                  + ", ".join(f"{op} {n}" for op, n in sorted(calls.items(), key=lambda x: -x[1])),
                  f"  findings {r['result']['findings']}, log queries {r['result']['log_queries']}, unfinished "
                  f"{r['result']['unfinished']}; metrics requested {r['metrics']}"]
    per_job = {op: n / JOBS for op, n in warm["calls"].items()}
    lines += ["per job per run (steady state: the second run): "
              + ", ".join(f"{op} {n:.3f}" for op, n in sorted(per_job.items(), key=lambda x: -x[1]))
              + f"; metrics requested {warm['metrics'] / JOBS:.2f}"]
    lines.append("extrapolated to the real service (our compute at 512 MB's CPU share; Search 0.30 s a page, "
                 "GetMetricData 0.40 s a call, DescribeTrainingJob 0.08 s, an action 0.06 s, assumed; "
                 "FilterLogEvents at its 5 a second quota):")
    for label, r in (("first run", cold), ("second run", warm)):
        x = extrapolate(r)
        lines.append(f"  {label}: {x['total']:.0f} s = compute {x['ours']:.1f} + reads {x['reads']:.1f} + logs "
                     f"{x['logs']:.0f} + actions {x['actions']:.1f}; timeout {TIMEOUT} s, {TIMEOUT - RESERVE} s "
                     "before the run stops reading")
    x_cold, x_warm = extrapolate(cold), extrapolate(warm)
    budget = TIMEOUT - RESERVE
    other_cold = x_cold["total"] - x_cold["logs"]
    log_jobs_cold = int((budget - other_cold) * LOGS_TPS)
    share = warm["calls"]["FilterLogEvents"] / max(cold["calls"]["FilterLogEvents"], 1)
    lines += [f"where it stops fitting (per account and region, 5-minute schedule): FilterLogEvents' quota of "
              f"{LOGS_TPS:.0f}/s, shared by every shard, bounds the log queries of one run to about {int(budget * LOGS_TPS)}:"
              f" a fresh environment reads every log rule's job (about {log_jobs_cold:,} jobs fit), a warm one about "
              f"{share:.0%} of them (about {int(log_jobs_cold / max(share, 0.01)):,} jobs); past that the run reports "
              "the jobs it did not reach (the unfinished alarm) and reaches them next (the order rotates); shards "
              "(monitor.shards) split the jobs, the metrics and the compute but not that quota: raise every_minutes "
              "or the quota. Without log rules the bound is compute: about "
              f"{int(budget / max(x_warm['ours'] + x_warm['reads'], 0.001) * JOBS):,} jobs a run, then shards.",
              "organization mode: one run per member account and region, each with its own quotas, in parallel"]
    metrics_day = warm["metrics"] / JOBS * RUNS_PER_DAY
    gb_seconds_day = x_warm["total"] / JOBS * MEMORY_GB * RUNS_PER_DAY
    dollars = metrics_day * PRICE_METRIC + gb_seconds_day * PRICE_GB_SECOND + RUNS_PER_DAY / JOBS * PRICE_REQUEST
    lines += [f"cost per job-day (list prices, us-east-1; {RUNS_PER_DAY} runs a day): GetMetricData "
              f"{metrics_day:.0f} metrics x $0.01/1,000 = ${metrics_day * PRICE_METRIC:.5f}; the evaluator's "
              f"{gb_seconds_day:.2f} GB-s x ${PRICE_GB_SECOND} = ${gb_seconds_day * PRICE_GB_SECOND:.5f}; "
              f"invocations ${RUNS_PER_DAY / JOBS * PRICE_REQUEST:.7f}; total ${dollars:.4f} per job-day "
              f"(Search, DescribeTrainingJob and FilterLogEvents are not charged; sources: aws.amazon.com/cloudwatch/"
              "pricing, aws.amazon.com/lambda/pricing)"]
    table = ttl_table()
    listing_calls = math.ceil(JOBS / 100)
    scan_pages = math.ceil(JOBS * table["item_bytes"] / 1_000_000)  # DynamoDB: 1 MB a Scan page
    writes = table["events_per_job"] * math.ceil(table["item_bytes"] / 1024)
    lines += [
        f"knowing which jobs run, {JOBS} jobs: a listing (Search) costs {listing_calls} calls a run "
        f"({cold['calls']['Search']} measured), ~{listing_calls * LATENCY['Search']:.0f} s, no extra invocation; "
        f"a TTL table costs {scan_pages} Scan pages a run on AWS (1 MB a page; {table['scan_pages']} on moto, "
        f"{table['scan_seconds']:.2f} s; items of {table['item_bytes']:,} bytes) but an invocation and a write at every state change of every job in scope: "
        f"{table['events_per_job']:.1f} events per job over the {table['lifecycles']} sample lifecycles (~{writes:.0f} "
        f"write units, ${writes * PRICE_WRITE + table['events_per_job'] * PRICE_REQUEST:.7f} a job before the "
        "invocations' duration), and the rule's pattern must widen to every state change",
        "chosen: the listing. The table cannot know a job that began before the stack (nor one whose event was "
        "lost), and a job Training for hours sends no event to refresh it; the listing is authoritative each run, "
        "brings tags, resources and metric definitions in one call per 100 jobs, and a DescribeTrainingJob confirms "
        "each job before anything acts on it (Search's index may lag)"]
    ok = x_cold["total"] <= TIMEOUT and cold["result"]["unfinished"] == 0
    print(block("[6] One evaluation over 1,000 running jobs: calls, time, sharding, cost, the job index", lines,
                verdict(ok, f"a run over {JOBS} jobs fits its {TIMEOUT} s timeout (extrapolated: "
                            f"{x_cold['total']:.0f} s fresh, {x_warm['total']:.0f} s warm)")), flush=True)
    return [verdict(ok, f"an evaluation over {JOBS} jobs x 3 rules: {x_cold['total']:.0f} s fresh, "
                        f"{x_warm['total']:.0f} s warm (extrapolated; timeout {TIMEOUT} s); ${dollars:.4f} per job-day")]


if __name__ == "__main__":
    run()
