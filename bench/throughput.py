"""Benchmark 4: replay throughput on the embedded account.

10,000 generated events across 500 jobs (bench/generator.py: most are state changes the stack's rule filters
out, the rest IssuesFound with SageMaker's duplicates, StopTraining + Email in `action_json`, a few rule Errors)
go through the loop of EmbeddedAccount.replay: seed the job, match the stack's rule, run the real handler when it
matches. Two figures: matched events per second of handler time (the events that reach the function: goal >= 200),
and events per second over the whole loop, filtered ones included (target >= 200); the handler's latency per
matched event (p50/p99). The same events run twice, with the ledger's local cache (Powertools' `use_local_cache`:
done records kept in the execution environment, rule_actions.effects.ledger.LOCAL_CACHE) off and on, each on a
fresh embedded account, each checked for exactly-once. Then a smaller set runs under cProfile to show where the
time goes: the function's own code (rule_actions + Powertools), botocore's client side, moto answering the calls,
and the replay loop itself.

End to end, what a user waits for: `rule-actions replay --config examples/demo-config.json` over the same 10,000
events (JSON lists of 2,000 events, under the command's 10 MB a file), the command as typed, from its start to its
exit (the stack's synthesis is cached by an earlier run; the embedded account deployed, the events replayed, the
table printed), wall and CPU time; and the same command over one event, which is its start-up. The target applies
here: the loop alone leaves out what the command does before and around it.
"""

from __future__ import annotations

import cProfile
import json
import pstats
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
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
EVENTS_PER_FILE = 2_000  # about 4 MB of JSON: `rule-actions replay` refuses a file over 10 MB
TARGET_EVENTS_PER_SECOND = 200
GOAL_MATCHED_PER_SECOND = 200


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


def command(events: list[tuple[str, Any]], config: Path = DEMO_CONFIG) -> dict[str, Any]:
    """`rule-actions replay --config CONFIG FILE...` over `events` (JSON lists of EVENTS_PER_FILE events), as a user
    types it: wall and CPU seconds from start to exit, and the events its summary line counts."""
    script = Path(sys.executable).with_name("rule-actions")
    with tempfile.TemporaryDirectory(prefix="replay-") as folder:
        paths = []
        for first in range(0, len(events), EVENTS_PER_FILE):
            paths.append(Path(folder) / f"events-{first // EVENTS_PER_FILE:03d}.json")
            paths[-1].write_text(json.dumps([event for _, event in events[first:first + EVENTS_PER_FILE]]))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([str(script), "replay", "--config", str(config), *map(str, paths)],
                              capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    counted = re.search(r"^(\d+) events?, (\d+) matched", done.stdout, re.MULTILINE)
    return {"events": int(counted.group(1)) if counted else 0, "matched": int(counted.group(2)) if counted else 0,
            "seconds": wall, "cpu_seconds": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def end_to_end(events: list[tuple[str, Any]]) -> dict[str, Any]:
    """The command over one event (its start-up), then over `events`; events per second of each."""
    startup = command(events[:1])
    whole = command(events)
    per_event = whole["seconds"] - startup["seconds"]
    return {"startup": startup, "whole": whole,
            "events_per_second": whole["events"] / whole["seconds"] if whole["seconds"] else float("inf"),
            "after_startup_per_second": (whole["events"] - 1) / per_event if per_event > 0 else float("inf")}


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


def replay_with(local_cache: bool, events: list[tuple[str, Any]], assembly: Any, stack: str,
                profiled: list[tuple[str, Any]] | None = None) -> tuple[dict[str, Any], list[tuple[str, float]]]:
    """`replay` on a fresh embedded account with the ledger's local cache on or off; and the profile, if asked."""
    from rule_actions.effects import ledger

    saved, ledger.LOCAL_CACHE = ledger.LOCAL_CACHE, local_cache
    try:
        with Harness(assembly, stack) as harness:
            harness.effects()  # the clients exist before the clock starts (cold start is benchmark 3)
            stats = replay(harness, events)
            shares = where_time_goes(harness, profiled) if profiled else []
    finally:
        ledger.LOCAL_CACHE = saved
    return stats, shares


def run() -> list[str]:
    from rule_actions.effects.ledger import LOCAL_CACHE

    events = generator.generate(N_EVENTS, N_JOBS)
    profiled = generator.generate(PROFILE_EVENTS, PROFILE_JOBS, seed=7, tag="prof")
    assembly, stack, _ = synthesized(context(DEMO_CONFIG))
    without, _ = replay_with(False, events, assembly, stack)
    stats, shares = replay_with(True, events, assembly, stack, profiled)
    adopted = stats if LOCAL_CACHE else without
    typed = end_to_end(events)
    whole, startup = typed["whole"], typed["startup"]

    def matched_rate(run: dict[str, Any]) -> float:
        return run["matched"] / run["matched_seconds"] if run["matched_seconds"] else float("inf")

    by_class = Counter()
    for op, n in adopted["calls"].items():
        by_class[classify(op)] += n
    n_act, act50, act99 = adopted["acting"]
    n_quiet, quiet50, quiet99 = adopted["quiet"]
    n_un, un50 = adopted["unmatched"]
    same = without["exactly_once"] and stats["exactly_once"] and without["outcomes"] == stats["outcomes"]
    lines = [
        f"{adopted['events']} generated events across {adopted['jobs']} jobs; {adopted['matched']} matched the stack's "
        f"rule ({adopted['matched'] / adopted['events']:.0%}), {n_un} filtered out; configuration {DEMO_CONFIG.name}; "
        f"ledger local cache {'on' if LOCAL_CACHE else 'off'} (adopted)",
        f"matched events: {adopted['matched']} in {adopted['matched_seconds']:.1f} s of handler time = "
        f"{matched_rate(adopted):.0f}/s   goal >= {GOAL_MATCHED_PER_SECOND}",
        f"all events:     {adopted['events_per_second']:.0f} events/s over the whole loop ({adopted['seconds']:.1f} s)",
        f"end to end, as a user waits for it: `rule-actions replay --config {DEMO_CONFIG.name}` over {whole['events']:,} "
        f"events ({whole['matched']} matched): {whole['seconds']:.1f} s ({whole['cpu_seconds']:.1f} s of CPU) = "
        f"{typed['events_per_second']:.0f} events/s   target >= {TARGET_EVENTS_PER_SECOND}",
        f"  of which start-up (the same command over 1 event: imports, the cached synthesis read, the embedded "
        f"account deployed, the report): {startup['seconds']:.1f} s ({startup['cpu_seconds']:.1f} s of CPU); after "
        f"it {typed['after_startup_per_second']:.0f} events/s",
        f"the ledger's local cache, same events on a fresh account each: off {matched_rate(without):.0f} matched/s "
        f"({without['events_per_second']:.0f} events/s), on {matched_rate(stats):.0f} matched/s "
        f"({stats['events_per_second']:.0f} events/s): {ratio_text(matched_rate(stats), matched_rate(without))} on "
        f"matched events; DynamoDB calls {_ledger(without)} -> {_ledger(stats)}; outcomes and exactly-once "
        f"{'identical' if same else 'DIFFERENT'}",
        f"handler latency per matched event: p50 {adopted['p50'] * 1000:.1f} ms, p99 {adopted['p99'] * 1000:.1f} ms",
        f"  events where an action was done ({n_act}): p50 {act50 * 1000:.1f} ms, p99 {act99 * 1000:.1f} ms",
        f"  events with nothing new to do ({n_quiet}: duplicates, skipped stops): p50 {quiet50 * 1000:.1f} ms, "
        f"p99 {quiet99 * 1000:.1f} ms",
        f"  filtered-out events (seed + pattern match only): median {un50 * 1000:.3f} ms",
        f"outcomes: {', '.join(f'{o} {n}' for o, n in adopted['outcomes'].most_common())}; "
        f"each (job, trigger, action) done at most once: {'yes' if adopted['exactly_once'] else 'NO'}",
        f"AWS calls: {by_class['action']} action, {by_class['describe']} DescribeTrainingJob, {by_class['ledger']} ledger; "
        f"by operation: {', '.join(f'{op} {n}' for op, n in adopted['calls'].most_common())}",
        f"where the time goes ({PROFILE_EVENTS} more events, {PROFILE_JOBS} jobs, under cProfile, local cache on; "
        "shares of the loop):",
        *[f"  {share:6.1%}  {name}" for name, share in shares],
    ]
    verdicts = [
        verdict(matched_rate(adopted) >= GOAL_MATCHED_PER_SECOND,
                f"{matched_rate(adopted):.0f} matched events/s (goal >= {GOAL_MATCHED_PER_SECOND})"),
        verdict(typed["events_per_second"] >= TARGET_EVENTS_PER_SECOND,
                f"{typed['events_per_second']:.0f} events/s end to end, `rule-actions replay` over {whole['events']:,} "
                f"events (target >= {TARGET_EVENTS_PER_SECOND})"),
        verdict(same, "exactly once with and without the ledger's local cache, the same outcomes"),
    ]
    print(block(f"[4] Replay throughput: {N_EVENTS:,} events, {N_JOBS} jobs, embedded account", lines + verdicts))
    return [f"[4] {v}" for v in verdicts]


def _ledger(run: dict[str, Any]) -> int:
    return sum(n for op, n in run["calls"].items() if classify(op) == "ledger")


def ratio_text(faster: float, slower: float) -> str:
    return f"{faster / slower:.2f}x" if slower else "n/a"
