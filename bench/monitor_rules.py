"""Benchmark 5: the monitor rules on the sample timelines (events/timelines/), each replayed on its own embedded account
with the evaluator run at every tick of the simulated clock.

    detection latency   per timeline, job and expected rule: from the minute its condition begins (the timeline's
                        `expect`) to the run that acted on it, with the phases the job went through besides starting
                        and training; goal: at most the rule's window plus one run
    false positives     every rule the timelines do not expect, found on any job; the healthy timelines (one for
                        each phase a job goes through and each rhythm real jobs show, the other families' and the
                        restarts') replayed with every rule stack-wide; per rule: the healthy timelines it judged, its
                        judgements, its findings (false positives, goal: 0), its NotJudged verdicts (a phase it does
                        not judge; Budget: no budget), and the quiet hosts StalledTraining held (their rhythm, busy
                        GPUs, too little history)

The configuration is the demo's (examples/demo-config.json, a team to notify) with the monitor rules: the timelines'
own tags, plus LowGPUUtilization stack-wide (as in the demo), or every rule stack-wide for the false positives.
CloudWatch's publishing delay (a few minutes on AWS) is not simulated: the replay's datapoints exist at their minute.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.common import DEMO_CONFIG, ROOT, block, verdict

TIMELINES = ROOT / "events" / "timelines"
EVERY = 5  # minutes: the schedule


def config(rules: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {**json.loads(DEMO_CONFIG.read_text()), "monitor": {"rules": rules}}


def replay(path: Path, rules: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every evaluation of the timeline: [{"tick", "result"}], on a fresh embedded account."""
    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.synth import synthesize

    quiet_node()
    assembly, stack = synthesize({**project_context(), "rule_actions": config(rules)})
    kept: list[dict[str, Any]] = []
    with EmbeddedAccount(assembly, stack) as account:
        account.replay_timeline(path.name, json.loads(path.read_text()), keep=kept)
    return kept


def findings(kept: list[dict[str, Any]]) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(job, rule) -> [(tick, reason)] of every IssuesFound."""
    found: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for run in kept:
        for job in run["result"].get("jobs", []):
            for rule in job.get("rules", []):
                if rule["verdict"] == "IssuesFound":
                    name = job.get("training_job") or job["job"]  # a training job's row, or another family's
                    found.setdefault((name, rule["rule"]), []).append((run["tick"], rule["reason"]))
    return found


def acted(kept: list[dict[str, Any]], job: str, rule: str) -> int | None:
    """The first tick at which an action of the rule was carried out for the job."""
    for run in kept:
        for row in run["result"].get("jobs", []):
            if row["training_job"] == job and any(a["trigger"] == rule and a["outcome"] in ("done", "dry_run")
                                                  for a in row.get("actions", [])):
                return run["tick"]
    return None


def budget(rule: str, job: dict[str, Any], begins: int) -> int:
    """The rule's window plus one run, in minutes from the condition's start (a condition that begins before the
    rule's warm-up ends waits for it)."""
    from rule_actions import registry

    p = {param.key: param.default for param in registry.monitors()[rule].params}
    training = next(phase["at"] for phase in job["phases"] if phase.get("secondary") == "Training")
    if rule == "StalledTraining":
        window = p["threshold"] // 60
    elif rule == "MaxInitializationTime":
        window = p["threshold"] + (training - begins)
    elif rule == "LossNotDecreasing":
        window = p["num_steps"]
    elif rule in ("LowGPUUtilization", "BatchSize", "CPUBottleneck"):
        window = max(training + p["patience"] - begins, 0) + p["window"]
    elif rule == "GPUMemoryIncrease":
        window = max(training + p["patience"] - begins, 0) + 2 * p["window"]
    else:
        window = p.get("window", 60)
    return window + EVERY


def latency() -> tuple[list[str], bool]:
    lines, ok = [], True
    lines.append(f"{'timeline':<28}{'rule':<22}{'begins':>7}{'found':>7}{'acted':>7}{'latency':>9}{'budget':>8}"
                 "  phases besides training")
    unexpected = []
    for path in sorted(TIMELINES.glob("*.json")):
        data = json.loads(path.read_text())
        expected = [(job, e) for job in data["jobs"] for e in job.get("expect", [])]
        if not expected:
            continue
        kept = replay(path, {"LowGPUUtilization": {}})
        found = findings(kept)
        for job, e in expected:
            first = found.get((job["name"], e["rule"]), [(None, "")])[0][0]
            done = acted(kept, job["name"], e["rule"])
            limit = budget(e["rule"], job, e["begins"])
            late = None if done is None else done - e["begins"]
            ok &= late is not None and late <= limit
            lines.append(f"{path.stem:<28}{e['rule']:<22}{e['begins']:>7}{first or '-':>7}{done or '-':>7}"
                         f"{late if late is not None else 'never':>9}{limit:>8}  {in_play(job) or '-'}")
        wanted = {(job["name"], e["rule"]) for job, e in expected}
        unexpected += [f"  {path.stem}: {rule} on {job} at +{hits[0][0]}m: {hits[0][1]}"
                       for (job, rule), hits in found.items() if (job, rule) not in wanted]
    lines.append("  (minutes from the timeline's start; latency: from the condition's start to the run that acted; "
                 "budget: the rule's window plus one run)")
    if unexpected:
        lines += ["findings no timeline expects:", *unexpected]
    return lines, ok and not unexpected


def in_play(job: dict[str, Any]) -> str:
    """The phases a timeline's job goes through besides starting up and training (Uploading, Restarting...)."""
    from rule_actions.contract import STARTUP_PHASES, TRAINING_PHASE

    quiet = {*STARTUP_PHASES, TRAINING_PHASE}
    return ", ".join(dict.fromkeys(p["secondary"] for p in job["phases"] if p.get("status", "InProgress") == "InProgress"
                                   and p.get("secondary", TRAINING_PHASE) not in quiet))


HEALTHY = ("healthy-*.json", "families/healthy-*.json", "restarts/healthy-*.json")
HELD = ("within its rhythm", "its GPUs busy", "too little history for its own rhythm")  # a quiet host not stalled


def healthy() -> list[Path]:
    """Every healthy timeline: the training phases and rhythms, the other families', the restarts' (each a job that
    must never be found by any rule)."""
    return sorted(path for pattern in HEALTHY for path in TIMELINES.glob(pattern))


def false_positives() -> tuple[list[str], int]:
    """Every healthy timeline replayed with every monitor rule stack-wide; per rule: the healthy timelines it judged
    (a verdict IssuesFound or NoIssuesFound on one of their jobs), its judgements, its findings (each a false
    positive), its NotJudged verdicts (a phase it does not judge; Budget: a job with no budget), and the quiet hosts
    StalledTraining held (past its threshold while others log: within its rhythm, busy GPUs, or too little history
    to trust a rhythm)."""
    from rule_actions import registry

    every_rule = {name: {} for name in registry.monitors()}
    lines, count = [], 0
    per_rule = {name: [set(), 0, 0, 0, 0] for name in every_rule}  # timelines, judged, found, not judged, held
    for path in healthy():
        kept = replay(path, every_rule)
        found = findings(kept)
        verdicts = [r for run in kept for job in run["result"].get("jobs", []) for r in job.get("rules", [])]
        name = str(path.relative_to(TIMELINES).with_suffix(""))
        for r in verdicts:
            tally = per_rule[r["rule"]]
            if r["verdict"] in ("IssuesFound", "NoIssuesFound"):
                tally[0].add(name)
            tally[1] += r["verdict"] in ("IssuesFound", "NoIssuesFound")
            tally[2] += r["verdict"] == "IssuesFound"
            tally[3] += r["verdict"] == "NotJudged"
            tally[4] += r["verdict"] == "NoIssuesFound" and any(held in r["reason"] for held in HELD)
        count += sum(len(hits) for hits in found.values())
        phases = ", ".join(dict.fromkeys(in_play(job) for job in json.loads(path.read_text())["jobs"] if in_play(job)))
        lines.append(f"  {name}: {len(kept)} runs, {sum(r['verdict'] in ('IssuesFound', 'NoIssuesFound') for r in verdicts)} "
                     f"judgements by the {len(every_rule)} rules, {sum(len(h) for h in found.values())} IssuesFound"
                     + (f" (phases: {phases})" if phases else ""))
        lines += [f"    {rule} on {job} at +{hits[0][0]}m: {hits[0][1]}" for (job, rule), hits in found.items()]
    lines.append(f"  {'rule':<22}{'healthy timelines judged':>25}{'judgements':>12}{'false positives':>17}"
                 f"{'not judged':>12}{'quiet hosts held':>18}")
    lines += [f"  {name:<22}{len(t[0]):>25}{t[1]:>12}{t[2]:>17}{t[3]:>12}{t[4]:>18}" for name, t in per_rule.items()]
    lines.append(f"  ({len(healthy())} healthy timelines: {', '.join(HEALTHY)}; a false positive is any IssuesFound "
                 "on them; quiet hosts held: StalledTraining's hosts silent past its threshold while others log, "
                 "held by their rhythm, busy GPUs or too little history)")
    return lines, count


def reads_per_rule() -> list[str]:
    """What each rule reads for one running job of one host, per run (from its needs)."""
    from rule_actions import registry
    from rule_actions.monitors.job import Host, RunningJob
    from rule_actions.monitors.rule import Reads

    now = 1_795_514_400
    job = RunningJob("j", "arn", "InProgress", "Training", now - 3 * 3600, (Host("algo-1", "ml.g5.xlarge", 1, 4),),
                     ("train:loss", "validation:loss"), {})
    lines = ["what each rule reads per run for a job of one host (n hosts: the instance metrics times n):"]
    for name, rule in registry.monitors().items():
        young = job._replace(started=now - 25 * 60)  # MaxInitializationTime judges only the first hour or so
        need = rule.reads(young if name == "MaxInitializationTime" else job, {p.key: p.default for p in rule.params},
                          now)
        if isinstance(need, Reads):
            logs = ("one log query (StalledTraining: only when its silence could reach the threshold; and one per "
                    "host silent past it while others log, its rhythm)") if need.logs \
                else "no log query"
            lines.append(f"  {name:<22} {len(need.queries)} metric(s) ({', '.join(q.name for q in need.queries)}), "
                         f"{logs}")
        else:
            lines.append(f"  {name:<22} {type(need).__name__}: {need.reason}")
    lines.append("  series shared by rules are requested once per run (one GetMetricData call per 500 series)")
    return lines


def run() -> list[str]:
    print(block("[5] Monitor rules: what each rule reads", reads_per_rule()), flush=True)
    latency_lines, on_time = latency()
    print(block("[5] Monitor rules: detection latency on the sample timelines", latency_lines,
                verdict(on_time, "every expected rule acted within its window plus one run, nothing unexpected "
                                 "found")), flush=True)
    fp_lines, count = false_positives()
    print(block("[5] Monitor rules: false positives on the healthy timelines (every rule stack-wide)", fp_lines,
                verdict(count == 0, f"{count} false positive(s) (goal 0)")), flush=True)
    return [verdict(on_time, "monitor rules act within their window plus one run"),
            verdict(count == 0, f"{count} false positive(s) on the healthy timelines")]


if __name__ == "__main__":
    run()
