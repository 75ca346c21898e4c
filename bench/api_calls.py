"""Benchmark 2: AWS API calls per actionable event, counted with botocore's before-call event on the handler's
three clients (as tests/integration/conftest.py's Account.effects() does), split into actions and overhead.

Actions: StopTrainingJob, ListTrainingJobs, Publish, Subscribe, Get/SetSubscriptionAttributes,
ListSubscriptionsByTopic (which also tell, once per execution environment, whether the team audience has a
subscriber). Overhead: DescribeTrainingJob and the DynamoDB ledger calls.
Target (issue 5): overhead at most one DescribeTrainingJob plus the ledger writes: 2 per executed action
(PutItem + UpdateItem), 1 per duplicate (the conditional PutItem / GetItem that finds the record), 1 per job
stopped (the stop record that keeps its Stopped outcome from alerting twice) and 1 read of that record per
Stopped outcome.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench import generator as gen
from bench.common import (
    DEMO_CONFIG,
    Harness,
    block,
    classify,
    context,
    load_lifecycles,
    synthesized,
    verdict,
)
from rule_actions.client import ActionList, Email, StopTraining, prepare_actions

TEAM_MEMBER = "ml-team@example.com"  # the demo configuration's team address


@dataclass
class Case:
    name: str
    event: dict[str, Any]
    describe: int  # DescribeTrainingJob calls expected: 0 when the event carries the rule configurations
    seed: dict[str, Any] = field(default_factory=dict)  # the job as SageMaker knows it (put_training_job kwargs)


@dataclass
class Measured:
    case: Case
    calls: Counter
    outcomes: Counter
    stopped: int = 0  # jobs this event stopped
    stopped_outcomes: int = 0  # job:Stopped triggers (each reads the stop record once)

    def by_class(self, kind: str) -> Counter:
        return Counter({op: n for op, n in self.calls.items() if classify(op) == kind})

    @property
    def ledger_allowed(self) -> int:
        executed = self.outcomes["done"] + self.outcomes["failed"]
        return 2 * executed + self.outcomes["duplicate"] + self.stopped + self.stopped_outcomes

    @property
    def holds(self) -> bool:
        return (
            sum(self.by_class("describe").values()) <= 1
            and sum(self.by_class("describe").values()) == self.case.describe
            and sum(self.by_class("ledger").values()) <= self.ledger_allowed
            and not self.by_class("other")
        )


def _rule_config(name: str, job: str, actions: Any | None) -> dict[str, Any]:
    rule = {"RuleConfigurationName": name, "RuleEvaluatorImage": gen.RULE_IMAGE,
            "RuleParameters": {"rule_to_invoke": name}}
    return prepare_actions(rule, job, actions) if actions is not None else rule


def cases() -> list[Case]:
    """The actionable event types, in delivery order (duplicates after their first)."""
    issue = {gen.ISSUE_RULE: "IssuesFound", gen.OTHER_RULE: "InProgress"}
    quiet = {gen.ISSUE_RULE: "InProgress", gen.OTHER_RULE: "InProgress"}
    t = gen.START_MS
    first = gen.event("bench-calls-a-001", "InProgress", "Training", issue, t, email="a-team@example.org")
    bare_job = "bench-calls-b-001"
    bare = gen.event(bare_job, "InProgress", "Training", issue, t, with_configs=False)
    prefix_job = "bench-hpo-trial-07"
    prefix_configs = [_rule_config(gen.ISSUE_RULE, prefix_job, StopTraining("bench-hpo-")), _rule_config(gen.OTHER_RULE, prefix_job, None)]
    member_job = "bench-calls-c-001"
    member_configs = [_rule_config(gen.ISSUE_RULE, member_job, ActionList(Email(TEAM_MEMBER))), _rule_config(gen.OTHER_RULE, member_job, None)]
    return [
        Case("first IssuesFound (action_json in the event: StopTraining + Email; team notify)", first, 0),
        Case("duplicate copy of it (new id, same detail)", {**first, "id": "00000000-0000-4000-8000-000000000001"}, 0),
        Case("later change still IssuesFound (job Stopping)",
             gen.event("bench-calls-a-001", "Stopping", "Stopping", issue, t + 60_000, email="a-team@example.org"), 0),
        Case("first IssuesFound, event without DebugRuleConfigurations", bare, 1,
             {"debug_rule_configurations": gen.debug_configs(bare_job, "b-team@example.org")}),
        Case("duplicate copy of it, still without configurations", {**bare, "id": "00000000-0000-4000-8000-000000000002"}, 1),
        Case("Profiler rule IssuesFound (no action_json: team notify)",
             gen.event("bench-calls-d-001", "InProgress", "Training", quiet, t, profiler={gen.PROFILER_RULE: "IssuesFound"}), 0),
        Case("rule in Error (notify_on_rule_error: team notify)",
             gen.event("bench-calls-e-001", "InProgress", "Training", {**quiet, gen.ISSUE_RULE: "Error"}, t), 0),
        Case("StopTraining by prefix 'bench-hpo-' (lists InProgress jobs)",
             gen.event(prefix_job, "InProgress", "Training", issue, t, configs=prefix_configs), 0),
        # moto's Subscribe returns the existing subscription and overwrites its filter policy; real SNS refuses
        # ("already exists with different attributes") and the handler then lists, reads and widens the policy
        # (+ ListSubscriptionsByTopic, SetSubscriptionAttributes): actions either way, no overhead.
        Case("Email to a team member, already subscribed (moto: Subscribe overwrites the filter; "
             "AWS: + ListSubscriptionsByTopic, SetSubscriptionAttributes)",
             gen.event(member_job, "InProgress", "Training", issue, t, configs=member_configs), 0),
    ]


def measure(harness: Harness, case_list: list[Case]) -> list[Measured]:
    from rule_actions_cli import moto_sagemaker

    out = []
    for case in case_list:
        detail = case.event["detail"]
        if case.seed:
            moto_sagemaker.put_training_job(detail["TrainingJobName"], detail["TrainingJobStatus"], **case.seed)
        row, _elapsed, calls = harness.process(case.name, case.event)
        out.append(Measured(case, calls, Counter(a["outcome"] for a in row["actions"]), *stops(row)))
    return out


def stops(row: dict[str, Any]) -> tuple[int, int]:
    """(jobs stopped, job:Stopped triggers) of one replayed event."""
    actions = row["actions"]
    stopped = sum(len(a.get("jobs") or ()) for a in actions if a["outcome"] == "done")
    return stopped, int(any(a["trigger"] == "job:Stopped" for a in actions))


def corpus_totals(harness: Harness, events: list[tuple[str, Any]]) -> tuple[int, Counter, Counter]:
    """(matched events, calls by class, outcomes) for the lifecycle corpus replayed on the harness."""
    matched, by_class, outcomes = 0, Counter(), Counter()
    for row, elapsed, calls in harness.replay(events):
        if elapsed is None:
            continue
        matched += 1
        for op, n in calls.items():
            by_class[classify(op)] += n
        outcomes.update(a["outcome"] for a in row["actions"])
    return matched, by_class, outcomes


def _fmt(counter: Counter) -> str:
    return ", ".join(f"{op} {n}" for op, n in sorted(counter.items())) or "-"


def run() -> list[str]:
    assembly, stack, _ = synthesized(context(DEMO_CONFIG))
    events = load_lifecycles()
    with Harness(assembly, stack) as harness:
        results = measure(harness, cases())
        matched, totals, outcomes = corpus_totals(harness, events)

    lines = [f"configuration: {DEMO_CONFIG.name} (team {TEAM_MEMBER}); calls counted on the handler's sagemaker, sns and dynamodb clients", ""]
    for m in results:
        describe = sum(m.by_class("describe").values())
        ledger = sum(m.by_class("ledger").values())
        lines += [
            f"* {m.case.name}",
            f"    outcomes: {_fmt(m.outcomes)}",
            f"    actions:  {_fmt(m.by_class('action'))}",
            f"    overhead: {_fmt(m.by_class('describe') + m.by_class('ledger'))}"
            + (f"; other: {_fmt(m.by_class('other'))}" if m.by_class("other") else ""),
            f"    target:   DescribeTrainingJob {describe} (expected {m.case.describe}, at most 1); ledger {ledger} "
            f"<= {m.ledger_allowed} (2 x {m.outcomes['done'] + m.outcomes['failed']} executed + "
            f"{m.outcomes['duplicate']} duplicate + {m.stopped} stop records + {m.stopped_outcomes} read)   {'holds' if m.holds else 'DOES NOT HOLD'}",
        ]
    overhead = totals["describe"] + totals["ledger"]
    lines += [
        "",
        f"lifecycle corpus ({len(events)} events, {matched} matched): {totals['action']} action calls, "
        f"{totals['describe']} DescribeTrainingJob, {totals['ledger']} ledger calls "
        f"({(totals['action']) / max(matched, 1):.2f} action + {overhead / max(matched, 1):.2f} overhead calls per "
        f"invocation; outcomes {_fmt(outcomes)})",
    ]
    first = [m for m in results if m.case.name.startswith("first")]
    dups = [m for m in results if m.case.name.startswith("duplicate")]
    verdicts = [
        verdict(all(m.holds for m in first), "first IssuesFound: overhead <= 1 DescribeTrainingJob + 2 ledger calls per executed action"),
        verdict(all(m.holds for m in dups), "duplicates: no action call, <= 1 DescribeTrainingJob + 1 ledger call per duplicate action"),
        verdict(all(m.holds for m in results), f"every event type ({len(results)})"),
        verdict(any(m.case.describe == 1 and sum(m.by_class("describe").values()) == 1 for m in first),
                "an event without DebugRuleConfigurations costs exactly one DescribeTrainingJob"),
    ]
    print(block("[2] AWS API calls per actionable event (botocore before-call hooks on the handler's clients)", lines + verdicts))
    return [f"[2] {v}" for v in verdicts]
