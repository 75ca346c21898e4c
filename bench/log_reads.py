"""Benchmark 7: reads that scale. The logs an evaluation reads at 1,000 and 10,000 running jobs: calls, time and
dollars per run, one FilterLogEvents call per job (the read before issue 25, and still the read below
RULE_ACTIONS_LOGS_INSIGHTS_FROM jobs) against one CloudWatch Logs Insights query for them all (the read from there
on), modelled with the quotas and prices stated below; and the calls of one run over 1,000 jobs counted on the
embedded account (moto, extended to answer the query: rule_actions_cli.emulator.monitoring), both ways.

What a run reads: a first run in a fresh execution environment reads every job with a log rule; a run five minutes
later reads only the jobs whose silence could reach the threshold (2% in bench 6's fleet: the hung ones). The
Insights query scans every log event of the group in its window (its filter does not reduce the bytes charged), so
its price follows the fleet's log volume, not the number of jobs read: three profiles of a job's log volume.
"""

from __future__ import annotations

import math
from typing import Any

from bench.common import block, verdict

JOBS = (1_000, 10_000)
WARM_SHARE = 0.02  # jobs a warm run reads (bench 6: the hung ones; a job heard within the threshold is not read)
WINDOW_MINUTES = 45  # StalledTraining's default window (threshold 30 min + 15), the query's span
# A job's log volume (bytes a minute, all hosts), assumed: SageMaker's training logs are the script's stdout/stderr.
PROFILES = {"quiet (a 200-byte line a minute)": 200,
            "typical (a 200-byte line every 0.6 s: 20 KB a minute)": 20_000,
            "chatty (progress bars: 1 MB a minute)": 1_000_000}
TYPICAL = "typical (a 200-byte line every 0.6 s: 20 KB a minute)"
# Quotas and limits (docs/performance.md, "Reads that scale", has each source).
FILTER_TPS = 5.0  # FilterLogEvents, per account and region, cannot be raised
RUN_BUDGET = 300 - 45  # the evaluator's timeout at the default schedule less what a run keeps for acting (bench 6)
QUERY_ROWS = 100_000  # StartQuery's limit; GetQueryResults pages of 10,000
RESULTS_PAGE = 10_000
# Assumed (no AWS account here): a query's latency, a fixed 2 s plus 1 s per GB scanned; GetQueryResults polled every
# second; the run waits 60 s (effects/logs.py QUERY_WAIT) before it falls back to FilterLogEvents.
QUERY_FIXED, SCAN_PER_SECOND, POLL, WAIT = 2.0, 1e9, 1.0, 60.0
HOSTS = 1  # streams per job (one host): rows of the query's answer
# List prices, us-east-1: Logs Insights $0.005 per GB scanned (aws.amazon.com/cloudwatch/pricing); Lambda arm64
# $0.0000133334 per GB-second (aws.amazon.com/lambda/pricing), the evaluator's 512 MB; FilterLogEvents, StartQuery
# and GetQueryResults calls are not charged.
PRICE_GB_SCANNED = 0.005
PRICE_GB_SECOND = 0.0000133334
MEMORY_GB = 0.5
RUNS_PER_DAY = 24 * 60 // 5
THRESHOLD_RUNS = 30 // 5  # StalledTraining's default threshold, in runs of the default schedule


def filter_reads(jobs: int) -> dict[str, Any]:
    """One FilterLogEvents call per job, paced to the quota, while the run has time: the jobs past it wait for
    later runs (reported as unfinished)."""
    reached = min(jobs, int(RUN_BUDGET * FILTER_TPS))
    seconds = reached / FILTER_TPS
    return {"calls": reached, "seconds": seconds, "dollars": seconds * MEMORY_GB * PRICE_GB_SECOND, "scanned": 0.0,
            "unreached": jobs - reached, "runs": math.ceil(jobs / (RUN_BUDGET * FILTER_TPS)) if jobs else 0}


def insights_reads(fleet: int, jobs: int, per_minute: int) -> dict[str, Any]:
    """One Logs Insights query over the fleet's window (every job's events are scanned, whichever are read)."""
    scanned = fleet * per_minute * WINDOW_MINUTES
    latency = QUERY_FIXED + scanned / SCAN_PER_SECOND
    rows = fleet * HOSTS
    if latency > WAIT or rows >= QUERY_ROWS:  # stopped (or refused), then one FilterLogEvents call per job
        fallback = filter_reads(jobs)
        waited = WAIT if latency > WAIT else latency
        scanned = min(scanned, (waited - QUERY_FIXED) * SCAN_PER_SECOND)  # charged up to the stop
        return {**fallback, "calls": 2 + int(waited / POLL) + fallback["calls"],
                "seconds": waited + fallback["seconds"], "scanned": scanned,
                "dollars": scanned / 1e9 * PRICE_GB_SCANNED + (waited + fallback["seconds"]) * MEMORY_GB
                * PRICE_GB_SECOND, "fallback": True}
    calls = 1 + math.ceil(latency / POLL) + math.ceil(rows / RESULTS_PAGE) - 1
    return {"calls": calls, "seconds": latency, "scanned": scanned, "unreached": 0, "runs": 1,
            "dollars": scanned / 1e9 * PRICE_GB_SCANNED + latency * MEMORY_GB * PRICE_GB_SECOND}


def chosen_reads(fleet: int, jobs: int, per_minute: int, insights_from: int) -> dict[str, Any]:
    return insights_reads(fleet, jobs, per_minute) if jobs >= insights_from else filter_reads(jobs)


def table(insights_from: int) -> list[dict[str, Any]]:
    rows = []
    for fleet in JOBS:
        for run, read in (("fresh", fleet), ("warm", int(fleet * WARM_SHARE))):
            rows.append({"fleet": fleet, "run": run, "read": read, "before": filter_reads(read),
                         "after": chosen_reads(fleet, read, PROFILES[TYPICAL], insights_from),
                         "always": {name: insights_reads(fleet, read, b) for name, b in PROFILES.items()}})
    return rows


def on_moto(jobs: int = 1_000) -> dict[str, Any]:
    """bench 6's two runs over `jobs` on the embedded account, reading logs one FilterLogEvents call per job, then
    by one Logs Insights query: their calls."""
    from bench import evaluation_scale
    from rule_actions.effects.logs import DEFAULT_INSIGHTS_FROM

    return {"before": evaluation_scale.measure(jobs), "after": evaluation_scale.measure(jobs, DEFAULT_INSIGHTS_FROM)}


def _money(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def run() -> list[str]:
    from rule_actions.effects.logs import DEFAULT_INSIGHTS_FROM

    rows = table(DEFAULT_INSIGHTS_FROM)
    lines = [f"modelled on AWS (FilterLogEvents {FILTER_TPS:.0f}/s, a run's {RUN_BUDGET} s for reading; a query "
             f"{QUERY_FIXED:.0f} s + 1 s per GB scanned, polled every {POLL:.0f} s, waited for {WAIT:.0f} s; a "
             f"{WINDOW_MINUTES}-minute window; {TYPICAL.split(' (')[0]} logs; Insights from {DEFAULT_INSIGHTS_FROM} "
             "jobs to read):",
             f"  {'jobs':>6} {'run':<5} {'read':>6} | {'before: calls':>13} {'time':>7} {'$/run':>8} {'runs':>4} | "
             f"{'after: calls':>12} {'time':>7} {'$/run':>8} {'GB':>6}"]
    for r in rows:
        b, a = r["before"], r["after"]
        lines.append(f"  {r['fleet']:>6,} {r['run']:<5} {r['read']:>6,} | {b['calls']:>13,} {b['seconds']:>6.0f}s "
                     f"{_money(b['dollars']):>8} {b['runs']:>4} | {a['calls']:>12,} {a['seconds']:>6.0f}s "
                     f"{_money(a['dollars']):>8} {a['scanned'] / 1e9:>6.2f}")
    lines.append("  (runs: how many runs it takes to read every job once; FilterLogEvents leaves the others "
                 "unfinished, reached by the next runs)")
    lines.append("one Insights query every run, by log volume (fresh run: $ per run; per day: 288 runs):")
    for name in PROFILES:
        cells = []
        for r in rows:
            if r["run"] != "fresh":
                continue
            q = r["always"][name]
            cells.append(f"{r['fleet']:,} jobs {_money(q['dollars'])}/run ({q['scanned'] / 1e9:.2f} GB, "
                         f"{q['seconds']:.0f} s{', stopped: falls back' if q.get('fallback') else ''}; "
                         f"{_money(q['dollars'] * RUNS_PER_DAY)}/day)")
        lines.append(f"  {name}: " + "; ".join(cells))
    lines.append(f"steady state (a job heard within the threshold is read again once it could be silent that long: "
                 f"each job every {THRESHOLD_RUNS} runs, {RUNS_PER_DAY // THRESHOLD_RUNS} times a day; typical logs):")
    for fleet in JOBS:
        due = math.ceil(fleet / THRESHOLD_RUNS)  # jobs due each run, once their reads have spread over the runs
        before = filter_reads(due)
        query = insights_reads(fleet, fleet, PROFILES[TYPICAL])
        reads_day = fleet * RUNS_PER_DAY // THRESHOLD_RUNS
        lines.append(
            f"  {fleet:,} jobs: before {due:,} FilterLogEvents a run ({reads_day:,} a day, "
            f"{reads_day / 86_400:.2f}/s of the 5/s quota{'' if before['unreached'] == 0 else ', more than a run can make: ' + format(before['unreached'], ',') + ' unfinished a run'}); "
            f"after {'the same' if due < DEFAULT_INSIGHTS_FROM else 'one query each time the jobs read together are due again'}"
            + ("" if due < DEFAULT_INSIGHTS_FROM else
               f" ({RUNS_PER_DAY // THRESHOLD_RUNS} a day: {_money(query['dollars'] * RUNS_PER_DAY / THRESHOLD_RUNS)}"
               "/day), and FilterLogEvents for the few jobs due between them"))
    moto = on_moto()
    for label, found in (("before (FilterLogEvents per job)", moto["before"]),
                         ("after (one Logs Insights query)", moto["after"])):
        cold, warm = found["runs"]
        logs = ("FilterLogEvents", "StartQuery", "GetQueryResults", "StopQuery")
        lines.append(f"embedded account, 1,000 jobs, {label}: fresh run {sum(cold['calls'].values()):,} calls ("
                     + ", ".join(f"{op} {cold['calls'][op]}" for op in logs if cold["calls"][op])
                     + f"), {cold['wall']:.1f} s; warm run {sum(warm['calls'].values())} calls ("
                     + ", ".join(f"{op} {warm['calls'][op]}" for op in logs if warm["calls"][op])
                     + f"), findings {cold['result']['findings']} + {warm['result']['findings']}")
    same = [r["result"]["findings"] for r in moto["before"]["runs"]] == [r["result"]["findings"]
                                                                         for r in moto["after"]["runs"]]
    fresh_10k = rows[2]
    ok = same and fresh_10k["after"]["unreached"] == 0
    print(block("[7] Reads that scale: logs at 1,000 and 10,000 running jobs, per job vs one Insights query", lines,
                verdict(ok, "one query reads 10,000 jobs in one run "
                            f"({fresh_10k['after']['seconds']:.0f} s, {_money(fresh_10k['after']['dollars'])}) where "
                            f"FilterLogEvents takes {fresh_10k['before']['runs']} runs; same findings on moto")),
          flush=True)
    return [verdict(ok, f"logs of 10,000 jobs: one Insights query, {fresh_10k['after']['seconds']:.0f} s and "
                        f"{_money(fresh_10k['after']['dollars'])} a fresh run, vs {fresh_10k['before']['runs']} runs "
                        "of FilterLogEvents")]


if __name__ == "__main__":
    run()
