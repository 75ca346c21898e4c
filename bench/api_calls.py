"""Benchmark 2: AWS API calls per actionable event, counted with botocore's before-call event on the handler's
three clients (as tests/integration/conftest.py's Account.effects() does), against budgets stated per class of
event before measuring (BUDGET): what an event asks for may cost at most this much, whatever the code does.

Classes: a first event (its actions carried out now), a repeat (every action already done: SageMaker's duplicate
copies, later events still carrying IssuesFound), a later event of a job no longer running (its stop skipped, the
rest repeats). An event costs, at most:
    per action carried out now   its own calls (ACTION_CALLS) + 2 ledger calls (claim, complete)
                                 + 1 for a stop: the record that keeps the job's Stopped outcome from alerting twice
    per action already done      1 ledger call (the read that finds it done; none when the execution environment
                                 remembers it), and no action call
    per decision not to act      2 ledger calls the first time it is said (a skipped stop: the event says the job
                                 is not InProgress), then as an action already done: it is said once
    + 1 the ledger's order       when an action is carried out now: one conditional write keeping how far along its
                                 job's events were seen (a late event is never acted on)
    + 1 DescribeTrainingJob      when the event lacks its rule configurations, or a stop is carried out now (the
                                 job's live status: nothing acts on a job that has ended); one read for both
    + 2 for the team audience    the first team message of an execution environment (a topic of < 100
                                 subscriptions: one page, one filter read)
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
from rule_actions_sdk import ActionList, Email, StopTraining, prepare_actions

# The calls an action needs for itself, by what it is (the stated budget, not a measurement).
ACTION_CALLS = {
    "stop": 1,  # StopTrainingJob
    "stop by prefix": 2,  # ListTrainingJobs (one page) + StopTrainingJob
    "email": 3,  # Subscribe (or find the subscription), check it is confirmed, Publish
    "email to a team member": 5,  # AWS refuses a second subscription: list, read, widen its filter, then Publish
    "notify": 1,  # Publish to the team
}
LEDGER_NEW, LEDGER_REPEAT, STOP_RECORD, DESCRIBE, TEAM_CHECK, ORDER = 2, 1, 1, 1, 2, 1


TEAM_MEMBER = "ml-team@example.com"  # the demo configuration's team address


@dataclass
class Case:
    name: str
    event: dict[str, Any]
    describe: int  # DescribeTrainingJob calls expected: 0 when the event carries the rule configurations and no
    # stop is carried out now
    new: tuple[str, ...] = ()  # actions carried out now (ACTION_CALLS keys)
    repeats: int = 0  # actions already done (or decisions already said)
    said: int = 0  # decisions not to act, said now
    team_check: bool = False  # the execution environment's first team message
    seed: dict[str, Any] = field(default_factory=dict)  # the job as SageMaker knows it (put_training_job kwargs)

    @property
    def budget(self) -> int:
        """The stated budget of this event: see the module's doc."""
        stops = sum(1 for action in self.new if action.startswith("stop"))
        return (sum(ACTION_CALLS[a] + LEDGER_NEW for a in self.new) + STOP_RECORD * stops + LEDGER_NEW * self.said
                + LEDGER_REPEAT * self.repeats + DESCRIBE * self.describe + TEAM_CHECK * self.team_check
                + ORDER * bool(self.new))


@dataclass
class Measured:
    case: Case
    calls: Counter
    outcomes: Counter

    def by_class(self, kind: str) -> Counter:
        return Counter({op: n for op, n in self.calls.items() if classify(op) == kind})

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    @property
    def holds(self) -> bool:
        """Within the stated budget; a repeat makes no action call; DescribeTrainingJob exactly when needed."""
        return (self.total <= self.case.budget and not (not self.case.new and self.by_class("action"))
                and sum(self.by_class("describe").values()) == self.case.describe and not self.by_class("other"))


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
        Case("first IssuesFound (action_json in the event: StopTraining + Email; team notify)", first, 1,
             new=("stop", "email", "notify"), team_check=True),
        Case("duplicate copy of it (new id, same detail)", {**first, "id": "00000000-0000-4000-8000-000000000001"}, 0,
             repeats=3),
        Case("later change still IssuesFound (job Stopping)",
             gen.event("bench-calls-a-001", "Stopping", "Stopping", issue, t + 60_000, email="a-team@example.org"), 0,
             repeats=2, said=1),
        Case("first IssuesFound, event without DebugRuleConfigurations", bare, 1, new=("stop", "email", "notify"),
             seed={"debug_rule_configurations": gen.debug_configs(bare_job, "b-team@example.org")}),
        Case("duplicate copy of it, still without configurations", {**bare, "id": "00000000-0000-4000-8000-000000000002"}, 1,
             repeats=3),
        Case("Profiler rule IssuesFound (no action_json: team notify)",
             gen.event("bench-calls-d-001", "InProgress", "Training", quiet, t, profiler={gen.PROFILER_RULE: "IssuesFound"}), 0,
             new=("notify",)),
        Case("rule in Error (notify_on_rule_error: team notify)",
             gen.event("bench-calls-e-001", "InProgress", "Training", {**quiet, gen.ISSUE_RULE: "Error"}, t), 0,
             new=("notify",)),
        Case("StopTraining by prefix 'bench-hpo-' (lists InProgress jobs; team notify)",
             gen.event(prefix_job, "InProgress", "Training", issue, t, configs=prefix_configs), 1,
             new=("stop by prefix", "notify")),
        # moto's Subscribe returns the existing subscription and overwrites its filter policy; real SNS refuses
        # ("already exists with different attributes") and the handler then lists, reads and widens the policy:
        # the budget is AWS's path.
        Case("Email to a team member, already subscribed (moto: Subscribe overwrites the filter; AWS: + "
             "ListSubscriptionsByTopic, SetSubscriptionAttributes)",
             gen.event(member_job, "InProgress", "Training", issue, t, configs=member_configs), 0,
             new=("email to a team member", "notify")),
    ]


def measure(harness: Harness, case_list: list[Case]) -> list[Measured]:
    from rule_actions_cli.emulator import sagemaker as moto_sagemaker

    out = []
    for case in case_list:
        detail = case.event["detail"]
        if case.seed:
            moto_sagemaker.put_training_job(detail["TrainingJobName"], detail["TrainingJobStatus"], **case.seed)
        row, _elapsed, calls = harness.process(case.name, case.event)
        out.append(Measured(case, calls, Counter(a["outcome"] for a in row["actions"])))
    return out


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

    lines = [f"configuration: {DEMO_CONFIG.name} (team {TEAM_MEMBER}); calls counted on the handler's sagemaker, sns and "
             "dynamodb clients; budgets stated per class of event in bench/api_calls.py, before measuring", ""]
    for m in results:
        lines += [
            f"* {m.case.name}",
            f"    outcomes: {_fmt(m.outcomes)}",
            f"    actions:  {_fmt(m.by_class('action'))}",
            f"    overhead: {_fmt(m.by_class('describe') + m.by_class('ledger'))}"
            + (f"; other: {_fmt(m.by_class('other'))}" if m.by_class("other") else ""),
            f"    budget:   {m.total} calls <= {m.case.budget} stated ({_budget_text(m.case)})   "
            f"{'holds' if m.holds else 'DOES NOT HOLD'}",
        ]
    overhead = totals["describe"] + totals["ledger"]
    lines += [
        "",
        f"lifecycle corpus ({len(events)} events, {matched} matched): {totals['action']} action calls, "
        f"{totals['describe']} DescribeTrainingJob, {totals['ledger']} ledger calls "
        f"({(totals['action']) / max(matched, 1):.2f} action + {overhead / max(matched, 1):.2f} overhead calls per "
        f"invocation; outcomes {_fmt(outcomes)})",
    ]
    firsts = [m for m in results if m.case.new]
    repeats = [m for m in results if not m.case.new]
    verdicts = [
        verdict(all(m.holds for m in firsts), f"first events ({len(firsts)}): within the stated budget"),
        verdict(all(m.holds for m in repeats), f"repeats ({len(repeats)}): within the stated budget, no action call"),
        verdict(any(m.case.describe == 1 and sum(m.by_class("describe").values()) == 1 for m in firsts),
                "an event without DebugRuleConfigurations costs exactly one DescribeTrainingJob"),
    ]
    print(block("[2] AWS API calls per actionable event, against stated budgets (botocore before-call hooks on the "
                "handler's clients)", lines + verdicts))
    return [f"[2] {v}" for v in verdicts]


def _budget_text(case: Case) -> str:
    parts = [f"{a} {ACTION_CALLS[a]}+{LEDGER_NEW}" + (f"+{STOP_RECORD}" if a.startswith("stop") else "")
             for a in case.new]
    parts += [f"{case.said} said x {LEDGER_NEW}"] if case.said else []
    parts += [f"{case.repeats} done x {LEDGER_REPEAT}"] if case.repeats else []
    parts += ["describe 1"] if case.describe else []
    parts += [f"order {ORDER}"] if case.new else []
    parts += [f"team audience {TEAM_CHECK}"] if case.team_check else []
    return ", ".join(parts)
