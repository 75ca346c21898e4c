"""`python -m bench [N ...]`: run the benchmarks (all, or those numbered), print each block and a summary."""

from __future__ import annotations

import os
import platform
import sys
import time
from importlib import metadata

BENCHMARKS = {
    "1": ("invocations", "invocations and actions over the lifecycle corpus"),
    "2": ("api_calls", "AWS API calls per actionable event"),
    "3": ("cold_start", "cold start"),
    "4": ("throughput", "replay throughput"),
    "5": ("monitor_rules", "monitor rules: detection latency and false positives on the sample timelines"),
    "6": ("evaluation_scale", "one evaluation over 1,000 running jobs: calls, time, sharding, cost, the job index"),
    "7": ("log_reads", "reads that scale: logs at 1,000 and 10,000 jobs, per job vs one Logs Insights query"),
    "8": ("family_lifecycles", "every family's lifecycle with the monitor rules vs a rule on every state change"),
    "9": ("prices", "what a job's cost costs to know: Price List calls per evaluation run and per event"),
    "10": ("walk", "the walk of an event and of a scheduled evaluation through the code: places, returns"),
    "11": ("replay_speed", "a warm make demo and a one-event replay, end to end, beside the numbers before"),
}


def _versions() -> str:
    names = ("boto3", "aws-lambda-powertools", "moto")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


def main(argv: list[str]) -> int:
    selected = argv or list(BENCHMARKS)
    unknown = [n for n in selected if n not in BENCHMARKS]
    if unknown:
        print(f"bench: unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    print(f"rule-actions benchmarks: Python {platform.python_version()}, {os.cpu_count()} CPU(s), {_versions()}")
    summary: list[str] = []
    start = time.perf_counter()
    for number in selected:
        module, _title = BENCHMARKS[number]
        began = time.perf_counter()
        run = __import__(f"bench.{module}", fromlist=["run"]).run
        summary += run()
        print(f"({time.perf_counter() - began:.1f} s)", flush=True)
    print("=" * 100)
    print(f"summary ({time.perf_counter() - start:.0f} s):")
    for line in summary:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
