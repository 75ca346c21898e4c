"""Benchmark 4: replay throughput on the embedded account.

10,000 generated events across 500 jobs (bench/generator.py: most are state changes the stack's rule filters
out, the rest IssuesFound with SageMaker's duplicates, StopTraining + Email in `action_json`, a few rule Errors)
go through the loop of EmbeddedAccount.replay: seed the job, match the stack's rule, run the real handler when it
matches. Events per second over the whole loop (target >= 200) and the handler's latency per matched event
(p50/p99). Then a smaller set runs under cProfile to show where the time goes: the function's own code
(rule_actions + Powertools), botocore's client side, moto answering the calls, and the replay loop itself.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import Counter
from typing import Any

from bench import generator
from bench.common import (
    DEMO_CONFIG,
    Harness,
    block,
    classify,
    context,
    median,
    percentile,
    synthesized,
    verdict,
)

N_EVENTS, N_JOBS = 10_000, 500
PROFILE_EVENTS, PROFILE_JOBS = 2_000, 100
TARGET_EVENTS_PER_SECOND = 200


def replay(harness: Harness, events: list[tuple[str, Any]]) -> dict[str, Any]:
    """Run `events` through the harness; timings in seconds, counts, and the exactly-once check."""
    matched: list[float] = []
    acting: list[float] = []  # matched events where some action was done
    quiet: list[float] = []  # matched events with nothing done (duplicates, skipped)
    unmatched: list[float] = []
    outcomes: Counter = Counter()
    calls: Counter = Counter()
    done_keys: Counter = Counter()
    start = time.perf_counter()
    for source, event in events:
        t0 = time.perf_counter()
        row, elapsed, made = harness.process(source, event)
        if elapsed is None:
            unmatched.append(time.perf_counter() - t0)
            continue
        matched.append(elapsed)
        calls.update(made)
        kinds = [a["outcome"] for a in row["actions"]]
        outcomes.update(kinds)
        (acting if "done" in kinds else quiet).append(elapsed)
        done_keys.update((row["training_job"], a["trigger"], a["kind"], a["target"]) for a in row["actions"] if a["outcome"] == "done")
    total = time.perf_counter() - start
    return {
        "events": len(events),
        "jobs": len({e["detail"]["TrainingJobName"] for _, e in events}),
        "seconds": total,
        "events_per_second": len(events) / total if total else float("inf"),
        "matched": len(matched),
        "matched_seconds": sum(matched),
        "p50": percentile(matched, 50),
        "p99": percentile(matched, 99),
        "acting": (len(acting), percentile(acting, 50), percentile(acting, 99)),
        "quiet": (len(quiet), percentile(quiet, 50), percentile(quiet, 99)),
        "unmatched": (len(unmatched), median(unmatched)),
        "outcomes": outcomes,
        "calls": calls,
        "exactly_once": all(n == 1 for n in done_keys.values()),
        "done_actions": sum(done_keys.values()),
    }


def _cumulative(stats: pstats.Stats, path_part: str, function: str) -> float:
    return sum(ct for (file, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items()  # type: ignore[attr-defined]
               if path_part in file.replace("\\", "/") and name == function)


def where_time_goes(harness: Harness, events: list[tuple[str, Any]]) -> list[tuple[str, float]]:
    """(part, share of the loop's time) with `events` run under cProfile."""
    profile = cProfile.Profile()
    profile.enable()
    for source, event in events:
        harness.process(source, event)
    profile.disable()
    stats = pstats.Stats(profile)
    total = stats.total_tt  # type: ignore[attr-defined]
    handler = _cumulative(stats, "/rule_actions/handler.py", "lambda_handler")
    api = _cumulative(stats, "/botocore/client.py", "_make_api_call")
    moto = _cumulative(stats, "/moto/core/botocore_stubber.py", "__call__")
    parts = [
        ("moto answering the AWS calls (in-process emulation)", moto),
        ("botocore client side (serialize, hooks, parse)", api - moto),
        ("the function: rule_actions + Powertools (idempotency, logger, metrics)", handler - api),
        ("replay loop: seed jobs in moto, match the rule, report", total - handler),
    ]
    return [(name, seconds / total if total else 0.0) for name, seconds in parts]


def run() -> list[str]:
    events = generator.generate(N_EVENTS, N_JOBS)
    profiled = generator.generate(PROFILE_EVENTS, PROFILE_JOBS, seed=7, tag="prof")
    assembly, stack, _ = synthesized(context(DEMO_CONFIG))
    with Harness(assembly, stack) as harness:
        harness.effects()  # the clients exist before the clock starts (cold start is benchmark 3)
        stats = replay(harness, events)
        shares = where_time_goes(harness, profiled)

    by_class = Counter()
    for op, n in stats["calls"].items():
        by_class[classify(op)] += n
    ok = stats["events_per_second"] >= TARGET_EVENTS_PER_SECOND
    n_act, act50, act99 = stats["acting"]
    n_quiet, quiet50, quiet99 = stats["quiet"]
    n_un, un50 = stats["unmatched"]
    lines = [
        f"{stats['events']} generated events across {stats['jobs']} jobs; {stats['matched']} matched the stack's rule "
        f"({stats['matched'] / stats['events']:.0%}), {n_un} filtered out; configuration {DEMO_CONFIG.name}",
        f"throughput: {stats['events_per_second']:.0f} events/s over the whole loop ({stats['seconds']:.1f} s)   "
        f"target >= {TARGET_EVENTS_PER_SECOND}",
        f"            matched events only: {stats['matched']} in {stats['matched_seconds']:.1f} s of handler time = "
        f"{stats['matched'] / stats['matched_seconds']:.0f}/s (a stream of nothing but actionable events)",
        f"handler latency per matched event: p50 {stats['p50'] * 1000:.1f} ms, p99 {stats['p99'] * 1000:.1f} ms",
        f"  events where an action was done ({n_act}): p50 {act50 * 1000:.1f} ms, p99 {act99 * 1000:.1f} ms",
        f"  events with nothing new to do ({n_quiet}: duplicates, skipped stops): p50 {quiet50 * 1000:.1f} ms, "
        f"p99 {quiet99 * 1000:.1f} ms",
        f"  filtered-out events (seed + pattern match only): median {un50 * 1000:.3f} ms",
        f"outcomes: {', '.join(f'{o} {n}' for o, n in stats['outcomes'].most_common())}; "
        f"each (job, trigger, action) done at most once: {'yes' if stats['exactly_once'] else 'NO'}",
        f"AWS calls: {by_class['action']} action, {by_class['describe']} DescribeTrainingJob, {by_class['ledger']} ledger; "
        f"by operation: {', '.join(f'{op} {n}' for op, n in stats['calls'].most_common())}",
        f"where the time goes ({PROFILE_EVENTS} more events, {PROFILE_JOBS} jobs, under cProfile; shares of the loop):",
        *[f"  {share:6.1%}  {name}" for name, share in shares],
    ]
    verdicts = [verdict(ok, f"{stats['events_per_second']:.0f} events/s (target >= {TARGET_EVENTS_PER_SECOND})")]
    print(block(f"[4] Replay throughput: {N_EVENTS:,} events, {N_JOBS} jobs, embedded account", lines + verdicts))
    return [f"[4] {v}" for v in verdicts]
