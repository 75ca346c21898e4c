"""The route of every invocation, one way, and every decision about an event: a job's state change (or a scheduled
evaluation's finding, or a test request) -> its job and triggers -> organization mode's refusal, the job family's
scope -> the triggers that count -> the plan, built once -> while it needs something, the readers read it -> decide
-> the job family learns what was read of its job -> when an action is to be carried out, what the job cost
(cost.py: its prices and a tuning job's trials read) -> carry each action out, at most once (the ledger), every one
attempted -> the result, each decision not to act on its row (ignored, with its reason, for the event as a whole;
skipped, denied... for an action), one log line per decision, the metrics.

    handle(raw, ...)       a job's state change (EventBridge): read, then `act`
    evaluate(request, ...) a scheduled evaluation: the monitor rules judge every running job in scope (they ask what
                           they need read: `answered`), then each job whose rules hold is acted on as the typed event
                           its family read (`act`), each job's verdicts on its row; and the families that sweep
                           (a Batch queue's waiting jobs) have each state change they read acted on the same way
    test(event, ...)       a trigger family's own request (a test notification)
    act(event, ...)        a job's event, read: organization mode's refusal, the family's scope, the triggers that
                           count (`select`), `run`, the result

    read_event(raw)        the job family parses the event; every trigger family observes it (problems named)
    request(raw, ...)      an invocation that is a trigger family's own request (a test notification), if it is
    run(...)               plan, read, decide, the job's cost, carry out: the results, in plan order

Only the ports it is handed (effects/) call AWS; plug-ins are reached through the registry.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping, MutableMapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from rule_actions import cost, organization, registry
from rule_actions.config import Config
from rule_actions.contract import (
    EVALUATED_METRIC,
    EVALUATION_ERRORS_METRIC,
    EVALUATION_PROBLEMS_METRIC,
    EVALUATION_SECONDS_METRIC,
    EVENTS_METRIC,
    FINDINGS_METRIC,
    IGNORED_METRIC,
    REFUSED_ACCOUNT_METRIC,
    TEST_METRIC,
    UNFINISHED_METRIC,
    Outcome,
)
from rule_actions.messages import MessageOccasion
from rule_actions.observability import emit, log_action, logger, metrics
from rule_actions.plan import Plan, ended, late, live_need, seen_need
from rule_actions.ports import InProgressElsewhere, LedgerUnavailable, Ports
from rule_actions.privacy import redact
from rule_actions.records import (
    EvaluationRequest,
    EvaluationRun,
    IgnoredEvent,
    JobEvent,
    Need,
    NothingDone,
    Planned,
    Result,
    Trigger,
    Unread,
)
from rule_actions.text import error_text, iso_z, quoted, timestamp

T = TypeVar("T")
EVENT_KEYS = ("job", "job_family", "event_id")  # what `act` adds to the log lines of an event's handling
TRAINING = "training"  # the family whose job the result's "training_job" names (its key since the first release)
# A run keeps this share of its time (at least RESERVE_MIN seconds) for acting on what it found.
RESERVE_SHARE, RESERVE_MIN = 0.15, 10.0


class Handled:
    """What the route gives the handler: the result (redacted), and when an action failed, what to raise (Lambda
    retries the invocation; the ledger skips what was done). (A plain class: defined at every cold start.)"""

    __slots__ = ("failed", "result")

    def __init__(self, result: dict[str, Any], failed: str | None = None):
        self.result, self.failed = result, failed


if TYPE_CHECKING:  # (a protocol for annotations only: nothing to define at a cold start)
    class Environment(Ports, Protocol):
        """The ports of the function's environment, which act in a member's account and region in organization
        mode."""

        def in_account(self, account: str, region: str) -> Environment: ...


# ---------------------------------------------------------------- the sources


def handle(raw: Any, config: Config, ports: Environment) -> Handled:
    """A job's state change: read, then acted on (`act`); the failed actions named for a retry."""
    metrics.add_metric(name=EVENTS_METRIC, unit="Count", value=1)
    try:
        event, found = read_event(raw)
    except IgnoredEvent as err:
        family = registry.job_family(raw)
        return Handled(_ignored(err.job, str(err), family=family.name if family else None))
    result = act(event, found, config, ports)
    failed = [a for a in result["actions"] if a["outcome"] == Outcome.FAILED]
    if not failed:
        return Handled(result)
    summary = "; ".join(f"{a['trigger']} {a['kind']} {a['target']}: {a['reason']}" for a in failed)
    return Handled(result, f"{len(failed)} action(s) failed for {result['job']}: {summary}")


def test(event: JobEvent, trigger: Trigger, config: Config, ports: Ports) -> Handled:
    """One test message to every destination; each destination's outcome, never a failure to raise for them."""
    logger.append_keys(test_notification=event.event_id)
    metrics.add_metric(name=TEST_METRIC, unit="Count", value=1)
    return Handled(redact({"test_notification": event.event_id, "actions": _acted(event, [trigger], config, ports)}))


def evaluate(request: EvaluationRequest, config: Config, ports: Environment, seconds: float,
             heard: MutableMapping[tuple[str | None, str | None], Any]) -> Handled:
    """The monitor rules over every running job in scope of the request's account and region (one account: the
    stack's), within `seconds` (less a reserve for acting on what they found); then each job whose rules hold acted
    on as its family read it (`act`). `heard`: what this environment's evaluations heard of the jobs' logs, per
    (account, region), which the run reads and carries on."""
    org = config.organization
    began = time.monotonic()
    deadline = began + seconds - max(RESERVE_MIN, RESERVE_SHARE * seconds)
    now = request.time or int(time.time())
    account, region = request.account, request.region
    if org:  # the member account and region it names, read through that account's executor role
        if not (account and region):
            return Handled(ignored("a scheduled evaluation in organization mode names the account and region it "
                                   "evaluates"))
        if account not in org.accounts:
            return Handled(ignored(f"account {account} is not a member of this organization configuration"))
        ports = ports.in_account(account, region)
    logs = ports.logs
    if logs is None and registry.monitoring(config) is not None:
        raise ValueError("a scheduled evaluation reads through ports with CloudWatch metrics and logs")
    logger.append_keys(evaluation=now, account=request.account, shard=f"{request.shard}/{request.shards}")
    place = (request.account, request.region)
    run = EvaluationRun(request, now, lambda: time.monotonic() < deadline, heard.get(place) or {}, ports.region,
                        logs.insights_from if logs is not None else 1)
    report = answered(registry.evaluate(run, config), ports)
    heard[place] = report.heard
    jobs, failed = [], []
    for job in report.jobs:
        named = {"training_job": job.job} if job.family == TRAINING else {"job": job.job, "job_family": job.family}
        row: dict[str, Any] = {**named}
        if job.verdicts or job.event is None:  # a family's sweep judges no rule: its row is its event's actions
            row["rules"] = [{"rule": v.rule, "verdict": v.verdict, "reason": v.reason} for v in job.verdicts]
        for verdict in job.verdicts:
            if verdict.verdict not in ("NoIssuesFound", "Pending", "NotJudged"):  # the result says those each run
                (logger.warning if verdict.verdict in ("Error", "Skipped") else logger.info)(
                    "rule evaluated", extra={**named, "rule": verdict.rule, "verdict": verdict.verdict,
                                             "reason": verdict.reason})
        for problem in job.problems:
            logger.warning("rule not evaluated", extra={**named, "problem": problem})
        if job.event is not None:
            outcome = _found(job.event, job.family, config, ports)
            row["actions"] = outcome.get("actions", [])
            row.update({k: outcome[k] for k in ("account", "account_alias", "ignored") if k in outcome})
            failed += [a for a in row["actions"] if a["outcome"] == Outcome.FAILED]
        if job.problems:
            row["problems"] = list(job.problems)
        jobs.append(row)
        logger.remove_keys([*EVENT_KEYS, "account"])  # the job's event's keys, then the run's account again
        logger.append_keys(account=request.account)
    verdicts = [v.verdict for job in report.jobs for v in job.verdicts]
    for name, value in ((EVALUATED_METRIC, len(report.jobs)), (FINDINGS_METRIC, verdicts.count("IssuesFound")),
                        (EVALUATION_ERRORS_METRIC, verdicts.count("Error") + (1 if report.error else 0)),
                        (EVALUATION_PROBLEMS_METRIC,
                         verdicts.count("Skipped") + sum(len(j.problems) for j in report.jobs)),
                        (UNFINISHED_METRIC, report.unfinished)):
        metrics.add_metric(name=name, unit="Count", value=value)
    metrics.add_metric(name=EVALUATION_SECONDS_METRIC, unit="Seconds", value=round(time.monotonic() - began, 3))
    summary = {"time": iso_z(now), "account": request.account, "region": request.region,
               "shard": request.shard, "shards": request.shards, "running": report.listed,
               "evaluated": len(report.jobs), "findings": verdicts.count("IssuesFound"),
               "log_queries": report.log_queries, "unfinished": report.unfinished,
               **({"error": report.error} if report.error else {}),
               **({"log_reads": report.log_reads} if report.log_reads else {})}
    (logger.error if report.error else logger.info)("evaluation", extra=summary)
    result = redact({"evaluation": summary, "jobs": jobs})
    return Handled(result, f"{len(failed)} action(s) failed in the evaluation at {now}" if failed else None)


def _found(event: JobEvent | IgnoredEvent, family: str, config: Config, ports: Environment) -> dict[str, Any]:
    """A scheduled evaluation's finding about one job of `family`: its event acted on as any job's (or why it cannot
    be read)."""
    metrics.add_metric(name=EVENTS_METRIC, unit="Count", value=1)
    if isinstance(event, IgnoredEvent):
        return _ignored(event.job, str(event), family=family)
    return act(*observe(event), config, ports)


def answered(asking: Generator[frozenset[Need], Mapping[Need, Any], T], ports: Ports) -> T:
    """What `asking` returns, each set of needs it yields read by the readers through `ports` (and sent back)."""
    try:
        needs = next(asking)
        while True:
            needs = asking.send(read(needs, ports))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


# ---------------------------------------------------------------- every decision about an event


def act(event: JobEvent, found: list[Trigger], config: Config, ports: Environment) -> dict[str, Any]:
    """A job's event, read, and the triggers observed in it: in organization mode, named for its account and
    refused when it is not a member's; in both modes refused when its job's ARN names another account or region
    than the event's envelope; ignored when its job is
    outside its family's scope; else the triggers that count, planned, decided and carried out. The result names
    the job, each action's outcome and the event's problems; a decision not to act on the event is its `ignored`."""
    logger.append_keys(job=event.job_name, job_family=event.job_family.name, event_id=event.event_id)  # EVENT_KEYS
    for problem in event.problems:
        logger.warning("unreadable part of the event", problem=problem)
    if config.organization:  # organization mode: act in the event's account and region, if it is a member's
        event = organization.named(config.organization, event)
        refused = organization.refusal(config.organization, event)
        if refused:
            metrics.add_metric(name=REFUSED_ACCOUNT_METRIC, unit="Count", value=1)
            return _ignored(event.job_name, refused, event.problems, event.job_family.name, _account(event))
        ports = ports.in_account(event.account, event.region)
        logger.append_keys(account=event.account)
    else:  # one account: a job ARN of another account or region than the event's is refused all the same
        refused = organization.foreign_job(event)
        if refused:
            metrics.add_metric(name=REFUSED_ACCOUNT_METRIC, unit="Count", value=1)
            return _ignored(event.job_name, refused, event.problems, event.job_family.name, _account(event))
    family = event.job_family
    outside = family.scope_refusal(config, event)
    if outside is not None and not isinstance(outside, str):  # the family reads before it knows (a Batch-made
        outside = family.scope_refusal(config, event, read(frozenset({outside}), ports))  # job's requested name)
    if isinstance(outside, str):
        return _ignored(event.job_name, outside, event.problems, family.name, _account(event))
    actions = _acted(event, select(event, found, config), config, ports)
    return _with_problems({**_job(event.job_name, family.name), **_account(event), "actions": actions}, event.problems)


def read_event(raw: Any) -> tuple[JobEvent, list[Trigger]]:
    """The event's job (its family's reading) and everything the trigger families observe in it; IgnoredEvent
    naming the field when it is no state change of a known family or names no job."""
    if not isinstance(raw, Mapping):
        raise IgnoredEvent(f"event: not an object ({type(raw).__name__})")
    family = registry.job_family(raw)
    if family is None:
        raise IgnoredEvent(f"not a state change of a SageMaker job this stack acts on (source "
                           f"{quoted(raw.get('source'))}, detail-type {quoted(raw.get('detail-type'))})")
    return observe(family.parse(raw))


def observe(event: JobEvent) -> tuple[JobEvent, list[Trigger]]:
    """Everything the trigger families observe in a job's event, and the event with what they could not read."""
    found: list[Trigger] = []
    problems = list(event.problems)
    for trigger_family in registry.TRIGGERS:
        observed, unreadable = trigger_family.observe(event)
        found += observed
        problems += unreadable
    return replace(event, problems=tuple(problems)), found


def select(event: JobEvent, found: list[Trigger], config: Config) -> list[Trigger]:
    """The observed triggers that count here, family by family in registry order (rules before the outcome)."""
    return [trigger for family in registry.TRIGGERS
            for trigger in family.select([t for t in found if t.TYPE == family.type], event, config)]


def request(raw: Any, region: str, config: Config) -> tuple[JobEvent, Trigger] | None:
    """The stand-in event and the trigger of a trigger family's own request; None when `raw` is no such request
    (IgnoredEvent, naming the field, when it is one but malformed)."""
    for family in registry.TRIGGERS:
        found = family.request(raw, region, config)
        if found is not None:
            return found
    return None


def _acted(event: JobEvent, triggers: list[Trigger], config: Config, ports: Ports) -> list[dict[str, Any]]:
    """`run` over the triggers; one log line per decision and per failed read, the metrics; the results."""
    results, unread, found = run(event, triggers, config, ports)
    for failure in unread:
        logger.warning("read failed", reason=failure.reason)
    for item in results:
        log_action(event.job_name, item)
    emit(triggers, results, event, found)
    return [r.as_dict() for r in results]


# ---------------------------------------------------------------- the result


def _account(event: JobEvent) -> dict[str, str]:
    """Organization mode: the account the job ran in, and its alias when one is configured."""
    if not event.account_name:
        return {}
    alias = {"account_alias": event.account_name} if event.account_name != event.account else {}
    return {"account": event.account, **alias}


def _job(job: str | None, family: str | None) -> dict[str, Any]:
    """The result's job: "training_job" as before (a training job's name, else null), "job" and "job_family"."""
    return {"training_job": job if family == TRAINING else None, "job": job, "job_family": family}


def ignored(reason: str) -> dict[str, Any]:
    """The result of an invocation that names no job and is not acted on (a malformed request), saying why."""
    return _ignored(None, reason)


def _ignored(job: str | None, reason: str, problems: tuple[str, ...] = (), family: str | None = None,
             account: dict[str, str] | None = None) -> dict[str, Any]:
    logger.info("event ignored", reason=reason)
    metrics.add_metric(name=IGNORED_METRIC, unit="Count", value=1)
    return _with_problems({**_job(job, family), **(account or {}), "actions": [], "ignored": reason}, problems)


def _with_problems(result: dict[str, Any], problems: tuple[str, ...]) -> dict[str, Any]:
    """The result, with the parts of the event that could not be read (quoted from the event: redacted)."""
    return {**redact(result), "problems": [redact(p) for p in problems]} if problems else redact(result)


# ---------------------------------------------------------------- plan, read, decide, carry out


class Ran(NamedTuple):
    results: list[Result]  # every planned action's, in plan order
    unread: list[Unread]  # the reads that failed (each already reflected in the results or the cost)
    cost: cost.JobCost | None  # what the job cost at the event's time; None: nothing carried out, or no cost here


def run(event: JobEvent, triggers: list[Trigger], config: Config, ports: Ports) -> Ran:
    """Every planned action's result, the reads that failed, and the job's cost when an action was carried out."""
    plan = Plan.build(event, triggers, config)
    unread: list[Unread] = []
    while needs := plan.needs():
        answers = read(needs, ports)
        unread += [answer for answer in answers.values() if isinstance(answer, Unread)]
        plan = plan.learn(answers)
    decided = plan.decide()
    if event.family is not None:  # what its words say of the job: its failed trials, its failed steps
        event = event.family.learn(event, plan.answers)
    found = job_cost(event, config, ports, unread) if any(item.outcome is None for item in decided) else None
    return Ran(carry_out(decided, config, event, ports, found, plan.answers, unread), unread, found)


def job_cost(event: JobEvent, config: Config, ports: Ports, unread: list[Unread]) -> cost.JobCost | None:
    """What the event's job cost at the event's time (its prices, a tuning job's trials read; a failed read makes
    the figure unknown, naming it); None for a family without a cost (a pipeline execution) or a test."""
    billing = event.family.billing if event.family is not None else None
    if billing is None:
        return None
    region = event.region or ports.region
    answers = read(cost.needs(billing, event.detail, region, config.prices, event.job_name), ports)
    more = cost.needs(billing, event.detail, region, config.prices, event.job_name, answers) - answers.keys()
    answers.update(read(frozenset(more), ports) if more else {})  # the prices of a tuning job's trials' own types
    unread += [answer for answer in answers.values() if isinstance(answer, Unread)]
    when = timestamp(event.time) or event.last_modified
    at = int(when.timestamp()) if when else int(time.time())
    return cost.of(billing, event.detail, region, config.prices, answers, at, event.job_name)


def read(needs: frozenset[Need], ports: Ports) -> dict[Need, Any]:
    """Each need's answer from its reader; a read that fails is an Unread naming the call and the error."""
    answers: dict[Need, Any] = {}
    for need in sorted(needs, key=repr):
        reader = registry.reader(need)
        try:
            answers[need] = reader.read(need, ports)
        except Exception as err:
            answers[need] = Unread(f"{reader.failure(need)}: {error_text(err)}")
    return answers


class _Unrecorded(Exception):
    """Carries a NothingDone out of the ledger, which then keeps no record of the action."""

    def __init__(self, nothing: NothingDone):
        super().__init__(nothing.reason)
        self.nothing = nothing


def carry_out(planned: list[Planned], config: Config, event: JobEvent, ports: Ports,
              found: cost.JobCost | None = None, answers: Mapping[Need, Any] | None = None,
              unread: list[Unread] | None = None) -> list[Result]:
    """Each action still open, at most once (the ledger), every one attempted; each decision not to carry one out
    said once (the ledger too); a failed one as decided, never recorded (a retry reads it again). `found`: what the
    job cost (its messages and stops say it). Before an action the ledger says is not done yet: is the event late
    (the ledger's order of what it saw of the job), and, for a job action, has the job ended (its live status)? Each
    read once per invocation, `answers` (what the plan read) first; a read that fails joins `unread`."""
    known: dict[Need, Any] = dict(answers or {})

    def fact(need: Need | None) -> Any:
        if need is None:
            return None
        if need not in known:
            answers = read(frozenset({need}), ports)
            known.update(answers)
            if unread is not None:
                unread.extend(answer for answer in answers.values() if isinstance(answer, Unread))
        return known[need]

    results: list[Result] = []
    for item in planned:
        if item.outcome == Outcome.FAILED:  # never recorded: the retry it causes decides again
            results.append(item.result(item.outcome, item.reason))
            continue
        if item.outcome:
            results.append(_said(item, item.outcome, _key(event, item), ports))
            continue
        kind = registry.kind(item.kind)
        stops = tuple(r for r in results if r.planned.trigger == item.trigger and r.jobs is not None)
        occasion = MessageOccasion(config, event, item.trigger, ports.region, stops, found)

        def work(item: Planned = item, occasion: MessageOccasion = occasion, kind: Any = kind) -> dict[str, Any]:
            refused = late(event, fact(seen_need(event))) or (
                ended(item, event, fact(live_need(event))) if kind.acts_on_jobs else None)
            if refused:  # a decision that stands (a job never moves back): said once
                raise _Unrecorded(NothingDone(Outcome.SKIPPED, refused, once=True))
            done = kind.carry_out(item, occasion, ports)
            if isinstance(done, NothingDone):
                raise _Unrecorded(done)
            return {"reason": redact(done.reason), "jobs": list(done.jobs)}  # the ledger keeps it: redacted

        results.append(_once(item, _key(event, item), work, ports))
    return results


def _key(event: JobEvent, item: Planned) -> dict[str, str]:
    """The ledger key of carrying the action out (never change a released one), or of a decision not to: the same
    with the outcome added, so that a recorded refusal never stands for the action done (allowed later, it runs
    once). An invalid entry, which may name no kind or target, is told apart by its reason (it names the field)."""
    kind = registry.KINDS.get(item.kind)
    key = {"job": event.job_arn, **item.trigger.ledger_fields, "kind": item.kind,
           "target": kind.identity(item.target) if kind else item.target}
    if item.outcome is None:
        return key
    return {**key, "decided": str(item.outcome), **({"entry": item.reason} if item.outcome == Outcome.INVALID else {})}


def _said(item: Planned, outcome: Outcome, key: dict[str, str], ports: Ports) -> Result:
    """A decision not to act (`outcome`, the item's), reported once per (job, trigger, action, outcome) while its
    record lasts; when the ledger cannot tell, reported again rather than failed (a failed action is retried and
    alarms)."""
    try:
        record = ports.ledger.once(key, lambda: {"reason": redact(item.reason)})
    except InProgressElsewhere:
        return item.result(outcome, f"{item.reason} (its ledger record is in progress: reported here too)")
    except Exception as err:  # whatever the ledger raises, a decision stays a decision
        cause = err.cause if isinstance(err, LedgerUnavailable) else error_text(err)
        return item.result(outcome, f"{item.reason} (not recorded as reported: {cause})")
    if record.get("duplicate"):
        return item.result(Outcome.DUPLICATE, f"already reported: {outcome} ({record['reason']}); ledger record "
                                              f"until {record['ledger_expires']}")
    return item.result(outcome, item.reason)


def _once(item: Planned, key: dict[str, str], work: Any, ports: Ports) -> Result:
    try:
        record = ports.ledger.once(key, work)
    except _Unrecorded as err:
        nothing = err.nothing
        if nothing.once:  # a decision that stands: said once, under the key of a decision not to act
            decided = item.decided(nothing.outcome, nothing.reason)
            return _said(decided, nothing.outcome, {**key, "decided": str(nothing.outcome)}, ports)
        return item.result(nothing.outcome, nothing.reason)
    except InProgressElsewhere:
        return item.result(Outcome.FAILED, "in progress in a concurrent invocation; failed here so the retry "
                                           "confirms it was done")
    except LedgerUnavailable as err:
        if err.after_work:  # the work ran; only its record could not be completed
            return item.result(Outcome.FAILED, f"carried out, but the ledger could not record it ({err.cause}); a "
                                               "redelivery repeats it only after its in-progress record expires")
        return item.result(Outcome.FAILED, f"ledger unavailable, not attempted: {err.cause}")
    except Exception as err:  # every action is attempted; the handler raises for the failed ones at the end
        return item.result(Outcome.FAILED, error_text(err))
    jobs = tuple(record.get("jobs") or ())
    if record.get("duplicate"):
        reason = f"already done ({record['reason']}); ledger record until {record['ledger_expires']}"
        return item.result(Outcome.DUPLICATE, reason, jobs)
    return item.result(Outcome.DONE, record["reason"], jobs)

