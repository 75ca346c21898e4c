"""Benchmark 8: every family's lifecycle with the monitor rules on (issue 25), against a rule on every state change.

Each timeline of events/timelines/families/ (one family lifecycle: a processing, transform or tuning job, or a
pipeline's step) is replayed on its own embedded account with examples/monitor-families-config.json (StalledJob and
FailingTrials acting, IdleInstances, NoImprovement; the jobs' tags ask for the stops), the evaluator run at every tick
of the schedule (rule_actions_cli.embedded.EmbeddedAccount.replay_timeline, in-process). Per timeline:

    ticks        the evaluator's scheduled runs (one invocation each)
    events       the function's invocations by a state change (the stack's rule matches only training jobs' rule
                 statuses with this configuration: these families' state changes invoke nothing)
    calls        every AWS call the handler's clients make (botocore's before-call event on the session the clients
                 are made from), by service:operation
    stops        the stops carried out (the job's own Stop* call, or its pipeline execution's)

Against it, a design that invokes the function on every state change of the family's jobs (its detail-type, as AWS's
documentation sample does for training jobs): one invocation per status change SageMaker publishes for the
timeline's jobs within its minutes: the first status (InProgress), each status a phase changes it to (Completed,
Failed), and for a job stopped by the monitor, Stopping and Stopped instead of its later phases. A tuning job's trials
are training jobs of their own (their events are another family's). Such a design sees no hung or idle job: a job
that hangs or idles publishes no state change.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import ROOT, block, verdict

TIMELINES = ROOT / "events" / "timelines" / "families"
CONFIG = ROOT / "examples" / "monitor-families-config.json"
EXPECTED_STOPS = 5  # the hung, idle, overrunning and failing lifecycles (tests/e2e/test_family_timelines.py)


class Counted:
    """The AWS calls (service:operation) of every client made from the session it is attached to."""

    def __init__(self) -> None:
        self.calls: Counter = Counter()

    def attach(self, session: Any) -> None:
        session.events.register("before-call.*.*", self._record, unique_id=f"bench-family-{id(self)}")

    def _record(self, model: Any, **_: Any) -> None:
        self.calls[f"{model.service_model.service_name}:{model.name}"] += 1


def state_changes(job: dict[str, Any], minutes: int, stopped_at: int | None) -> int:
    """The state changes SageMaker publishes for a timeline's job within its minutes (see the module's doc)."""
    statuses: list[str] = []
    for phase in job["phases"]:
        if phase["at"] > minutes or (stopped_at is not None and phase["at"] > stopped_at):
            break
        status = phase.get("status", "InProgress")
        if not statuses or statuses[-1] != status:
            statuses.append(status)
    if stopped_at is not None:
        statuses += ["Stopping", "Stopped"]
    return len(statuses)


def replay(path: Path) -> dict[str, Any]:
    """One timeline on a fresh embedded account: its ticks, invocations, calls, stops and the every-change count."""
    import boto3

    from rule_actions_cdk.app import project_context, quiet_node
    from rule_actions_cli.embedded import EmbeddedAccount
    from rule_actions_cli.synth import synthesize

    quiet_node()
    data = json.loads(path.read_text())
    assembly, stack = synthesize({**project_context(), "rule_actions": json.loads(CONFIG.read_text())})
    counted, kept, invoked = Counted(), [], Counter()
    with EmbeddedAccount(assembly, stack) as account:
        def run(handler: Any) -> list[dict[str, Any]]:
            counted.attach(boto3.DEFAULT_SESSION)  # the session _as_function made: every client of the handler's
            real = handler.lambda_handler

            def counting(event: Any, context: Any) -> Any:
                invoked[context.function_name] += 1
                return real(event, context)

            handler.lambda_handler = counting
            try:
                return account._timeline(handler, path.name, data, kept)
            finally:
                handler.lambda_handler = real

        rows = account._as_function(run, None)
        evaluator = account.evaluator_name
    stops: dict[str, int] = {}  # job -> the tick its stop was done
    for tick_result in kept:
        for job in tick_result["result"].get("jobs", []):
            if any(a["kind"] in ("stop", "stoptraining") and a["outcome"] == "done" for a in job.get("actions", [])):
                stops.setdefault(job.get("job") or job.get("training_job"), tick_result["tick"])
    minutes = data["minutes"]
    every_change = sum(state_changes(job, minutes, stops.get(job["name"])) for job in data["jobs"])
    return {"timeline": path.stem, "family": ",".join(sorted({j.get("family", "training") for j in data["jobs"]})),
            "jobs": len(data["jobs"]), "minutes": minutes, "ticks": len(kept), "evaluator": invoked[evaluator],
            "events": sum(n for name, n in invoked.items() if name != evaluator), "calls": counted.calls,
            "stops": len(stops), "stop_rows": sum(1 for r in rows for a in r.get("actions", [])
                                                  if a["kind"] in ("stop", "stoptraining") and a["outcome"] == "done"),
            "every_change": every_change}


def measure() -> list[dict[str, Any]]:
    return [replay(path) for path in sorted(TIMELINES.glob("*.json"))]


def table(found: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'timeline':<32}{'family':<11}{'jobs':>5}{'min':>5}{'ticks':>6}{'events':>7}{'invoc.':>7}"
             f"{'AWS calls':>10}{'stops':>6}{'every change':>14}"]
    for r in found:
        lines.append(f"{r['timeline']:<32}{r['family']:<11}{r['jobs']:>5}{r['minutes']:>5}{r['ticks']:>6}"
                     f"{r['events']:>7}{r['evaluator'] + r['events']:>7}{sum(r['calls'].values()):>10}"
                     f"{r['stops']:>6}{r['every_change']:>14}")
    total = Counter()
    for r in found:
        total.update({k: r[k] for k in ("jobs", "ticks", "events", "evaluator", "stops", "every_change")})
        total["calls"] += sum(r["calls"].values())
    lines.append(f"{'total':<43}{total['jobs']:>5}{'':>5}{total['ticks']:>6}{total['events']:>7}"
                 f"{total['evaluator'] + total['events']:>7}{total['calls']:>10}{total['stops']:>6}"
                 f"{total['every_change']:>14}")
    return lines


def run() -> list[str]:
    found = measure()
    lines = table(found)
    lines += ["  (invoc.: the evaluator's runs plus events; every change: the invocations of a rule on every state "
              "change of the family's jobs, as the module's doc counts them)", "AWS calls by service:operation:"]
    for r in found:
        lines.append(f"  {r['timeline']:<30}" + ", ".join(f"{op} {n}" for op, n in sorted(r["calls"].items())))
    healthy = [r for r in found if r["timeline"].startswith("healthy")]
    verdicts = [
        verdict(sum(r["stops"] for r in found) == EXPECTED_STOPS and not any(r["stops"] for r in healthy),
                f"{EXPECTED_STOPS} stops over the lifecycles, none on a healthy one"),
        verdict(all(r["ticks"] == r["evaluator"] for r in found), "one evaluator invocation per tick"),
    ]
    print(block("[8] Every family's lifecycle with the monitor rules (examples/monitor-families-config.json): "
                "invocations, AWS calls and stops vs a rule on every state change", lines + verdicts))
    return [f"[8] {v}" for v in verdicts]
