"""Benchmark 1: Lambda invocations and actions over the lifecycle corpus, ours versus the AWS documentation sample;
then, per lifecycle of the other job families (events/tuning, processing, pipelines, transform), ours versus a rule
that matches every state change of that family.

Ours: the EventBridge pattern read back from the stack synthesized from rule-actions.json (rules, and the job
outcomes it notifies: Failed, the timeouts, Interrupted), from the same stack without job outcomes (rule
statuses only, as the first release), and with the demo configuration (Stopped too); and the actions the real
handler carries out when the lifecycles are replayed on the embedded account with a configuration that has a
team to notify (examples/demo-config.json): outcome "done".

The AWS sample (sdk-facts §4): its rule matches every "SageMaker Training Job State Change"; its handler loops
over DebugRuleEvaluationStatuses and calls StopTrainingJob for each IssuesFound entry when the event's
TrainingJobStatus is InProgress, re-raising errors, and sends nothing. It is simulated over the same sequence:
`calls` counts one StopTrainingJob per delivered event per IssuesFound entry (duplicates included); the
`with_state` figures add what really happens next: once a call stopped the job, later calls are refused
(ValidationException, the job is Stopping), the sample re-raises, and Lambda retries the event twice more.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.common import (
    DEMO_CONFIG,
    EVENTS,
    SAMPLE_PATTERN,
    Harness,
    block,
    context,
    function_patterns,
    lifecycle_files,
    load_lifecycles,
    ratio,
    synthesized,
    verdict,
)

LAMBDA_ASYNC_RETRIES = 2  # Lambda's default for asynchronous invocations (EventBridge)
FAMILY_FOLDERS = ("tuning", "processing", "pipelines", "transform")
FAMILIES_CONFIG = DEMO_CONFIG.parent / "families-config.json"


def every_change(family: Any) -> dict[str, Any]:
    """A rule on every state change of a job family (every detail-type of its events), as AWS's sample is for
    training jobs."""
    return {"source": ["aws.sagemaker"], "detail-type": list(family.detail_types)}


def families_context() -> dict[str, Any]:
    """examples/families-config.json without its webhook (the benchmark runs no receiver)."""
    ctx = context(FAMILIES_CONFIG)
    config = ctx["rule_actions"]
    config.pop("webhooks", None)
    for key, outcomes in list(config.items()):
        if key.endswith("outcomes"):
            config[key] = {o: [a for a in actions if a == "notify"] for o, actions in outcomes.items()}
    return ctx


def family_lifecycles() -> list[tuple[Path, list[tuple[str, Any]]]]:
    from rule_actions_cli.inputs import load

    found = []
    for folder in FAMILY_FOLDERS:
        for path in sorted((EVENTS / folder).glob("lifecycle-*.json")):
            events, errors = load([str(path)])
            if errors:
                raise SystemExit("bench: unusable lifecycle files: " + "; ".join(errors))
            found.append((path, events))
    return found


def run_families() -> list[str]:
    """Per lifecycle of the other families: its events, its family's own, the invocations of a rule on every state
    change of the family and of a rule on every job event of the file, ours, and what ours did."""
    from rule_actions import registry

    lifecycles = family_lifecycles()
    ctx = families_context()
    assembly, stack, template = synthesized(ctx)
    patterns = function_patterns(template)
    lines = [
        "ours: the rule of the stack synthesized with examples/families-config.json (every family's outcomes notify the",
        "team; pipeline_step_jobs_alert false); 'family': a rule on every state change of the lifecycle's family (its",
        "detail-types); 'all jobs': a rule on every job event of the file, the trials' and step jobs' included",
        "",
        f"  {'lifecycle file':<58} {'family':<10} {'events':>6} {'family':>6} {'all jobs':>8} {'ours':>5} "
        f"{'done':>5} {'dup':>4}",
    ]
    totals = Counter()
    with Harness(assembly, stack) as harness:
        for path, events in lifecycles:
            family = registry.job_family(events[-1][1])
            own = count_invocations(events, [every_change(family)])
            everything = count_invocations(events, [every_change(f) for f in registry.JOBS])
            ours = count_invocations(events, patterns)
            rows = replay_ours(harness, events)
            outcomes = Counter(a["outcome"] for r in rows for a in r["actions"])
            name = path.relative_to(EVENTS).as_posix()
            lines.append(f"  {name:<58} {family.name:<10} {len(events):>6} {own:>6} {everything:>8} {ours:>5} "
                         f"{outcomes['done']:>5} {outcomes['duplicate']:>4}")
            totals.update(events=len(events), own=own, everything=everything, ours=ours, done=outcomes["done"])
    lines += [
        "",
        f"Lambda invocations over {len(lifecycles)} family lifecycles ({totals['events']} events): ours "
        f"{totals['ours']}  vs  {totals['own']} on every state change of each family "
        f"({ratio(totals['ours'], totals['own']):.2f}), {totals['everything']} on every job event "
        f"({ratio(totals['ours'], totals['everything']):.2f}); actions done: {totals['done']} (one per failure, "
        "and the completed tuning job's)",
    ]
    check = verdict(totals["ours"] <= totals["own"], "ours invokes on a subset of each family's every-change rule")
    print(block("[1b] Invocations per job family lifecycle: ours vs a rule on every state change of the family",
                [*lines, check]))
    return [f"[1b] {check}"]


def count_invocations(events: Iterable[tuple[str, Any]], patterns: list[dict[str, Any]]) -> int:
    """Events that at least one of `patterns` matches: each is one Lambda invocation."""
    from rule_actions_cli.matcher import matches

    return sum(1 for _, event in events if isinstance(event, dict) and any(matches(p, event) for p in patterns))


def simulate_sample(events: Iterable[tuple[str, Any]], retries: int = LAMBDA_ASYNC_RETRIES) -> dict[str, int]:
    """What the AWS documentation sample would do over `events`, delivered in order (see the module doc)."""
    from rule_actions_cli.matcher import matches

    out = Counter(invocations=0, calls=0, calls_with_retries=0, stopped=0, refused=0, failed_invocations=0)
    stopped: set[str] = set()  # jobs a previous call stopped: SageMaker refuses to stop them again
    for _, event in events:
        if not (isinstance(event, dict) and matches(SAMPLE_PATTERN, event)):
            continue
        out["invocations"] += 1
        detail = event.get("detail") or {}
        job = detail.get("TrainingJobName")
        issues = [
            s for s in detail.get("DebugRuleEvaluationStatuses") or []
            if isinstance(s, dict) and s.get("RuleEvaluationStatus") == "IssuesFound"
        ]
        if detail.get("TrainingJobStatus") != "InProgress" or not issues:
            continue
        out["calls"] += len(issues)
        for _attempt in range(1 + retries):
            raised = False
            for _entry in issues:  # the loop stops at the first error (re-raised)
                out["calls_with_retries"] += 1
                if job in stopped:
                    out["refused"] += 1
                    raised = True
                    break
                stopped.add(job)
                out["stopped"] += 1
            if not raised:
                break
        else:
            out["failed_invocations"] += 1
    return dict(out)


def replay_ours(harness: Harness, events: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """The replay rows (EmbeddedAccount.replay's shape) for `events` on the harness's embedded account."""
    return [row for row, _elapsed, _calls in harness.replay(events)]


def run() -> list[str]:
    events = load_lifecycles()
    files = lifecycle_files()
    _, _, template = synthesized(context())  # rule-actions.json's: the pattern `cdk synth` deploys
    patterns = function_patterns(template)
    ours_invocations = count_invocations(events, patterns)
    sample = simulate_sample(events)
    rules_only = context()
    rules_only["rule_actions"] = {**rules_only["rule_actions"], "job_outcomes": {}}
    variants = [("rule statuses only (no job_outcomes)", rules_only),
                ("rule-actions.json (+ Failed, MaxRuntimeExceeded, MaxWaitTimeExceeded, Interrupted)", context()),
                ("demo configuration (+ Stopped)", context(DEMO_CONFIG))]
    by_variant = [(label, count_invocations(events, function_patterns(synthesized(ctx)[2]))) for label, ctx in variants]

    assembly, stack, _ = synthesized(context(DEMO_CONFIG))
    with Harness(assembly, stack) as harness:
        rows = replay_ours(harness, events)

    by_file: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for source, event in events:
        by_file[Path(source.split("#")[0]).name].append((source, event))
    rows_by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        rows_by_file[Path(row["source"].split("#")[0]).name].append(row)

    outcomes = Counter(a["outcome"] for r in rows for a in r["actions"])
    done = [a for r in rows for a in r["actions"] if a["outcome"] == "done"]
    done_kinds = Counter(a["kind"] for a in done)
    done_keys = Counter((r["training_job"], a["trigger"], a["kind"], a["target"]) for r in rows for a in r["actions"]
                        if a["outcome"] == "done")
    replay_matched = sum(1 for r in rows if r["matched"])

    lines = [
        f"corpus: {len(files)} lifecycle files, {len(events)} events (events/lifecycle-*.json, read at run time)",
        "the AWS sample is modelled, not run: its rule is matched by the local matcher and its handler's actions "
        "are counted from its documented code (one StopTrainingJob per IssuesFound entry while InProgress, "
        "re-raising errors; no messages); nothing of it is deployed or called",
        f"ours: the pattern of the EventBridge rule targeting the function in the template synthesized from rule-actions.json "
        f"({len(patterns)} rule); actions: replay on the embedded account with {DEMO_CONFIG.relative_to(DEMO_CONFIG.parents[1])}",
        "",
        f"  {'lifecycle file':<52} {'events':>6} {'ours inv':>8} {'sample inv':>10} {'ours done':>9} {'sample stops':>12}",
    ]
    for name, file_events in by_file.items():
        file_rows = rows_by_file[name]
        lines.append(
            f"  {name:<52} {len(file_events):>6} {count_invocations(file_events, patterns):>8} "
            f"{count_invocations(file_events, [SAMPLE_PATTERN]):>10} "
            f"{sum(1 for r in file_rows for a in r['actions'] if a['outcome'] == 'done'):>9} "
            f"{simulate_sample(file_events)['calls']:>12}"
        )
    inv_ratio = ratio(ours_invocations, sample["invocations"])
    lines += [
        "",
        f"Lambda invocations:  ours {ours_invocations}  vs  AWS sample {sample['invocations']}   "
        f"ratio ours/sample {inv_ratio:.2f} ({1 - inv_ratio:.0%} fewer)",
        *(f"  {label:<78} {n:>4} invocations ({ratio(n, sample['invocations']):.2f} of the sample's)"
          for label, n in by_variant),
        f"  (the demo configuration's stack matched {replay_matched} in the replay)",
        f"Actions executed:    ours {len(done)} done by the real handler ({', '.join(f'{k} {n}' for k, n in sorted(done_kinds.items()))})"
        f"  vs  AWS sample {sample['calls']} StopTrainingJob calls, modelled (one per delivered event per IssuesFound "
        f"entry while InProgress, duplicates included)   ratio ours/sample {ratio(len(done), sample['calls']):.2f}",
        f"  stops only:        ours {done_kinds.get('stoptraining', 0)}  vs  sample {sample['calls']}   "
        f"ratio {ratio(done_kinds.get('stoptraining', 0), sample['calls']):.2f}; "
        f"messages: ours {len(done) - done_kinds.get('stoptraining', 0)}, sample 0",
        f"  sample modelled against the job state, with Lambda's {LAMBDA_ASYNC_RETRIES} retries: "
        f"{sample['calls_with_retries']} StopTrainingJob calls ({sample['stopped']} stopped a job, {sample['refused']} "
        f"refused: job already Stopping), {sample['failed_invocations']} invocation(s) failed after every retry",
        f"  ours, every outcome: {', '.join(f'{o} {n}' for o, n in outcomes.most_common())}",
        "target: none set (a comparison); checks:",
    ]
    subset = ours_invocations <= sample["invocations"]
    once = all(n == 1 for n in done_keys.values())
    verdicts = [
        verdict(subset, f"ours invokes on a subset of the sample's events ({ours_invocations} <= {sample['invocations']})"),
        verdict(all(n <= sample["invocations"] for _, n in by_variant),
                "with any job_outcomes, still a subset of the sample's invocations"),
        verdict(once, "each (job, trigger, action) done at most once over the corpus"),
    ]
    print(block("[1] Invocations and actions over the lifecycle corpus: ours (run) vs the AWS documentation sample "
                "(modelled)", lines + verdicts))
    return [f"[1] {v}" for v in verdicts] + run_families()
