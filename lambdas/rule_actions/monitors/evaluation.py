"""A scheduled evaluation (the monitor package's shared module; rule_actions.registry.evaluate runs it): the monitor
rules over every running job in scope, from what SageMaker publishes without Debugger. Each job whose rules hold becomes a state change of its family carrying them as rule
statuses of the Monitor family (and, from its tags, each rule's actions as its action_json), which the pipeline then
handles exactly as a Debugger rule status: `rules`, the plan, the ledger, messages, chat, webhooks, dry run.

    request(raw)      the scheduled invocation (records.EvaluationRequest): {"rule_actions_evaluation": {"time",
                      "account", "region", "shard", "shards"}} (IgnoredEvent, naming the field, when malformed); None for anything else
    evaluate(run, ...)  needs -> readers -> learn -> judge, for one account and region: each job's verdicts, and
                      the state change of each job whose rules hold (after DescribeTrainingJob confirms it still
                      runs), read by its family (a JobEvent). It reads nothing itself: it asks (yields) what it needs
                      read, and the pipeline answers (sends) what its readers read through the ports

One run evaluates one job family (registry.evaluate runs each family a rule judges, training first, and merges
their reports); a job of another family is judged while InProgress once it started, and becomes that family's state
change.

The reads, in order, all through the readers: the running jobs (Search: one call per 100, tags included; for
processing and transform jobs a listing, then a describe and ListTags per job seen for the first time; an UnreadJob
is reported on its own row); a transform job's instances (one ListMetrics, when a rule judges them); a tuning job's
latest trials (one call per tuning job, when a rule asks); what the jobs a rule asks it of cost (the Price List's prices
of their instance types, each read once per execution environment, and a tuning job's trials); every metric series
of every job at once (GetMetricData,
500 a call); the logs of the jobs that need them, by one Logs Insights query for many jobs, else (and when it
fails) one FilterLogEvents per job while the run has time (the jobs not reached are reported, in an order that
rotates from run to run); what a rule asks after a first judging (StalledTraining's silent hosts: their GPUs, one
GetMetricData for every such job, and their rhythms, one FilterLogEvents each); DescribeTrainingJob for the
jobs whose rules hold. A job that ended is never acted on; a job whose read fails is reported and the others go on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from rule_actions import cost as costs
from rule_actions.contract import EVALUATION_KEY, IN_PROGRESS, MODE_KEY, MONITOR_RULE_FAMILY
from rule_actions.cost import PRICES
from rule_actions.monitors.block import MonitorSettings
from rule_actions.monitors.job import Evaluated, RunningJob, listed_hosts
from rule_actions.monitors.rule import Data, Monitor, Reads, in_phase
from rule_actions.monitors.series import LOOKBACK_MAX, STALE_AFTER
from rule_actions.monitors.tags import OPTED_OUT, Applied, is_opted_out, rules_of
from rule_actions.monitors.verdicts import ISSUES_FOUND, Clear, Finding, NotJudged, Pending, Skipped
from rule_actions.ports import Configured
from rule_actions.records import (
    Described,
    EvaluationRequest,
    EvaluationRun,
    IgnoredEvent,
    JobEvent,
    LogHeartbeat,
    LogLatest,
    MetricData,
    MetricHosts,
    Need,
    RunningJobs,
    Swept,
    TuningTrials,
    Unread,
    UnreadJob,
)
from rule_actions.text import arn_place, digest, quoted

KEYS = ("time", "account", "region", "shard", "shards")
NOT_REACHED = "not evaluated in this run: its time ran out before this job's log query (raise monitor.shards)"
T = TypeVar("T")
Chosen = tuple[RunningJob, Mapping[str, Any], list[Applied], list[str]]  # a job, its record, its rules, its problems
# What an evaluation yields (the needs it asks to be read), is sent (each need's answer, or an Unread) and returns.
Asking = Generator[frozenset[Need], Mapping[Need, Any], T]
INSIGHTS_SPAN = 90 * 60 * 1000  # the longest window (ms) it reads: a job whose window is longer is read alone


class Verdict(NamedTuple):
    rule: str
    verdict: str  # IssuesFound | NoIssuesFound | Pending | Skipped | NotJudged | Error
    reason: str
    parameters: tuple[tuple[str, str], ...] = ()  # what a finding carries in its RuleParameters (a warning's level)


class JobReport(NamedTuple):
    job: str
    verdicts: tuple[Verdict, ...]
    problems: tuple[str, ...]  # the job's tags or rules that cannot be used (each names the tag or field)
    # The job's state change to act on, carrying its rules that hold, as its family read it (IgnoredEvent: why it
    # could not be read); None: nothing to act on.
    event: JobEvent | IgnoredEvent | None = None
    family: str = "training"  # the job's family


class EvaluationReport(NamedTuple):
    time: int
    listed: int  # running jobs of the account and region
    jobs: tuple[JobReport, ...]  # the jobs evaluated (in scope and shard, with at least one rule or problem)
    unfinished: int = 0  # jobs whose log query the run had no time for
    error: str | None = None  # the running jobs could not be listed
    heard: Mapping[str, Mapping[str, int]] = {}  # job -> host -> its latest log line read so far (epoch ms)
    log_queries: int = 0
    log_reads: str = ""  # how the jobs' logs were read when a Logs Insights query was tried (or why it failed)


def request(raw: Any) -> EvaluationRequest | None:
    if not (isinstance(raw, Mapping) and EVALUATION_KEY in raw):
        return None
    body, where = raw[EVALUATION_KEY], EVALUATION_KEY
    if not isinstance(body, Mapping) or set(body) - set(KEYS):
        raise IgnoredEvent(f"{where}: must be an object with the keys {', '.join(KEYS)} ({quoted(body)})")
    shards, shard = body.get("shards", 1), body.get("shard", 0)
    if not (isinstance(shards, int) and isinstance(shard, int) and 1 <= shards <= 100 and 0 <= shard < shards) \
            or isinstance(shards, bool) or isinstance(shard, bool):
        raise IgnoredEvent(f"{where}.shard: {quoted(shard)} of {quoted(shards)} is not a shard (0 <= shard < shards)")
    time = body.get("time")
    when = None
    if time is not None:
        try:
            when = int(datetime.fromisoformat(str(time).replace("Z", "+00:00")).timestamp())
        except ValueError:
            raise IgnoredEvent(f"{where}.time: {quoted(time)} is not an ISO 8601 time") from None
    account, region = body.get("account"), body.get("region")
    for key, value in (("account", account), ("region", region)):
        if value is not None and not (isinstance(value, str) and value):
            raise IgnoredEvent(f"{where}.{key}: {quoted(value)} is not a string")
    return EvaluationRequest(when, account, region, shard, shards)


def shard_of(name: str, shards: int) -> int:
    return int(digest(name)[:8], 16) % shards


def evaluate(run: EvaluationRun, settings: MonitorSettings, monitors: Mapping[str, Monitor], family: Evaluated,
             config: Configured) -> Asking[EvaluationReport]:
    """The verdicts for the running jobs (of `family`) of the account and region the run reads in, in the request's
    shard (the report's `heard` carries on what the run read of each job's log streams)."""
    req, now, heard = run.request, run.now, run.heard
    listing = RunningJobs(family.api)
    listed = (yield frozenset({listing}))[listing]
    if isinstance(listed, Unread):
        return EvaluationReport(now, 0, (), error=listed.reason)
    chosen: list[Chosen] = []
    unread: list[JobReport] = []
    own = {name for name, _ in settings.rules if family.name in monitors[name].families}
    for record in listed:
        if isinstance(record, UnreadJob):  # its description or tags could not be read: its own row
            if family.in_scope(config, record.name) and shard_of(record.name, req.shards) == req.shard:
                unread.append(JobReport(record.name, (Verdict("*", "Error", f"not evaluated: {record.reason}"),),
                                        (), family=family.name))
            continue
        job = RunningJob.of(record, family)
        job = job._replace(heard=heard.get(heard_key(family.name, job.name), {}))
        if job.status != IN_PROGRESS or not family.in_scope(config, job.name) \
                or shard_of(job.name, req.shards) != req.shard:
            continue
        applied, problems = rules_of(job, settings, monitors)
        if applied or problems or (own and is_opted_out(job)):
            chosen.append((job, record, applied, problems))

    chosen, unlisted = yield from _instances(family, chosen)
    needs: dict[tuple[str, str], Any] = {}  # (job, rule) -> Reads | Pending | Skipped | Clear | NotJudged
    for job, _record, applied, _problems in chosen:
        for rule in applied:
            needs[(job.name, rule.rule.name)] = in_phase(job, rule.rule, now) or \
                (Verdict(rule.rule.name, "Error", unlisted.reason) if unlisted and rule.rule.instances else None) or \
                rule.rule.reads(job.clocked(rule.rule.phases), rule.params, now)
    series = yield from _series(needs, now)
    trials = yield from _trials(chosen, needs)
    figures = yield from _costs(chosen, needs, family, config, run)
    heartbeats, unfinished, queries, log_reads = yield from _heartbeats(chosen, needs, family.log_group, run)

    learned: dict[str, Mapping[str, int]] = {}
    for job, _r, _a, _p in chosen:
        latest = job.latest_per_host(getattr(heartbeats.get(job.name), "streams", ()), job.heard)
        if latest:
            learned[heard_key(family.name, job.name)] = latest
    found: dict[tuple[str, str], Any] = {}  # (job, rule) -> a verdict of the rule, or the streams it asks for
    for job, _record, applied, _problems in chosen:
        for rule in applied:
            key = (job.name, rule.rule.name)
            found[key] = _judge(rule, job, now, needs[key], series, heartbeats.get(job.name), None,
                                trials.get(job.name), figures.get(job.name))
    more = {key: asked for key, asked in found.items() if isinstance(asked, Reads)}
    again = yield from _series(more, now)  # the series a judging asked for (a silent host's GPUs), read at once
    streams, reached = yield from _streams(more, family.log_group, run.time_left)
    reports, confirm = [], []
    for job, record, applied, problems in chosen:
        attached = {item.rule.name for item in applied}
        verdicts = [Verdict(name, "NotJudged", OPTED_OUT) for name, _ in settings.rules
                    if name in own and name not in attached and is_opted_out(job)]
        for rule in applied:
            key = (job.name, rule.rule.name)
            verdict = found[key]
            if isinstance(verdict, Reads) and verdict.queries and isinstance(again, Unread):
                verdict = Verdict(rule.rule.name, "Error", again.reason)
            elif isinstance(verdict, Reads):  # judged again with the streams (and series) it asked for
                verdict = _judge(rule, job, now, needs[key], _joined(series, again), heartbeats.get(job.name),
                                 streams[key], trials.get(job.name), figures.get(job.name))
            verdicts.append(_named(rule.rule.name, verdict))
        reports.append(JobReport(job.name, tuple(verdicts), tuple(problems), family=family.name))
        if any(v.verdict == ISSUES_FOUND for v in verdicts):
            confirm.append((len(reports) - 1, job, record, applied))
    described = (yield frozenset(Described(family.api, job.name) for _, job, _, _ in confirm)) if confirm else {}
    for index, job, record, applied in confirm:
        answer = described[Described(family.api, job.name)]
        report = reports[index]
        now_job = RunningJob.of({**record, **answer}, family) if not isinstance(answer, Unread) else job
        rules = {item.rule.name: item.rule for item in applied}
        reports[index] = report = report._replace(verdicts=tuple(
            _confirmed(v, answer, family, now_job, rules[v.rule], now) if v.verdict == ISSUES_FOUND else v
            for v in report.verdicts))
        if any(v.verdict == ISSUES_FOUND for v in report.verdicts):
            reports[index] = report._replace(event=_finding(family, config, {**record, **answer}, applied, report,
                                                            now))
    return EvaluationReport(now, len(listed), tuple(unread + reports), unfinished, heard=learned,
                            log_queries=queries + reached,  # the log queries made (one for many jobs, or one a job)
                            log_reads=log_reads)  # and the streams read


def _confirmed(verdict: Verdict, answer: Any, family: Evaluated, job: RunningJob, rule: Monitor, now: int) -> Verdict:
    """A finding, once DescribeTrainingJob says the job still runs in a phase the rule judges; else why it is not
    acted on (Search's index lags: the job may have ended, or begun uploading its artifacts)."""
    if isinstance(answer, Unread):
        return verdict._replace(verdict="Error", reason=f"{verdict.reason} (not acted on: {answer.reason})")
    status = answer.get(family.members.status)
    if status != IN_PROGRESS:
        return verdict._replace(verdict="Skipped", reason=f"{verdict.reason} (not acted on: the job is {status}: a "
                                                          "job that ended is not acted on)")
    elsewhere = in_phase(job, rule, now)
    if elsewhere is not None:
        return verdict._replace(verdict="NotJudged", reason=f"{verdict.reason} (not acted on: the job is now "
                                                            f"{elsewhere.reason})")
    return verdict


def _series(needs: Mapping[tuple[str, str], Any], now: int) -> Asking[Mapping[Any, Any] | Unread]:
    """Every series every rule needs, read at once (GetMetricData, 500 a call), from the earliest start."""
    wanted = [n for n in needs.values() if isinstance(n, Reads) and n.queries]
    if not wanted:
        return {}
    start = max(min(n.start for n in wanted), now - LOOKBACK_MAX * 60 - STALE_AFTER)
    need = MetricData(tuple(dict.fromkeys(q for n in wanted for q in n.queries)), start, now)
    answer: Mapping[Any, Any] | Unread = (yield frozenset({need}))[need]
    return answer


def _joined(series: Mapping[Any, Any] | Unread, again: Mapping[Any, Any] | Unread) -> Mapping[Any, Any] | Unread:
    """The series read first, with those a second judging asked for (the first read's failure kept when none was)."""
    if not again or isinstance(again, Unread):
        return series
    return {**(series if not isinstance(series, Unread) else {}), **again}


def _heartbeats(chosen: list[Chosen], needs: Mapping[tuple[str, str], Any], log_group: str,
                run: EvaluationRun) -> Asking[tuple[dict[str, Any], int, int, str]]:
    """The jobs' log windows (each the union of its rules'), read: at once by one Logs Insights query when at least
    `run.insights_from` jobs need one (those whose window is at most INSIGHTS_SPAN); otherwise, and when that
    query fails, one FilterLogEvents call per job while the run has time, in an order that rotates each run (a run
    short of time leaves out other jobs the next time). Returns the answers, how many jobs were not reached, how
    many queries were made, and how the logs were read (a sentence for the report; "" with FilterLogEvents only)."""
    windows: dict[str, tuple[int, int]] = {}
    for job, _record, applied, _problems in chosen:
        asked = [needs[(job.name, r.rule.name)] for r in applied]
        spans = [n.logs for n in asked if isinstance(n, Reads) and n.logs]
        if spans:
            windows[job.name] = (min(s for s, _ in spans), max(e for _, e in spans))
    found: dict[str, Any] = {}
    queries, outcome = 0, ""
    together = sorted(name for name, (start, end) in windows.items() if end - start <= INSIGHTS_SPAN)
    now, time_left = run.now, run.time_left
    if together and len(together) >= run.insights_from and time_left():
        together_need = LogLatest(log_group, tuple((f"{name}/", windows[name][0]) for name in together),
                                  max(windows[name][1] for name in together))
        answer, queries = (yield frozenset({together_need}))[together_need], 1
        if isinstance(answer, Unread):
            outcome = f"{answer.reason}; its {len(together)} jobs read one FilterLogEvents call each"
        else:
            found = {name: answer[f"{name}/"] for name in together}
            outcome = f"one Logs Insights query read {len(together)} jobs' logs"
    unfinished = 0
    for name in sorted(set(windows) - set(found), key=lambda n: digest(f"{n}@{now // 60}")):
        if not time_left():
            found[name] = Unread(NOT_REACHED)
            unfinished += 1
            continue
        start, end = windows[name]
        need = LogHeartbeat(log_group, f"{name}/", start, end)
        found[name] = (yield frozenset({need}))[need]
        queries += 1
    return found, unfinished, queries, outcome


def merged(reports: list[EvaluationReport]) -> EvaluationReport:
    """The reports of one run's families as one: the training jobs' first (as before), then each family's."""
    first = reports[0]
    if len(reports) == 1:
        return first
    return first._replace(
        listed=sum(r.listed for r in reports), jobs=tuple(j for r in reports for j in r.jobs),
        unfinished=sum(r.unfinished for r in reports),
        error="; ".join(r.error for r in reports if r.error) or None,
        heard={k: v for r in reports for k, v in r.heard.items()}, log_queries=sum(r.log_queries for r in reports),
        log_reads="; ".join(r.log_reads for r in reports if r.log_reads))


def swept(now: int, family: str, found: Swept) -> EvaluationReport:
    """A job family's sweep as a run's report: a row for each job it read a state change of (no rule verdicts: the
    pipeline acts on its event as on any of the family's events), its failed listings as the run's error."""
    jobs = tuple(JobReport(event.job_name if isinstance(event, JobEvent) else (event.job or "?"), (), (), event,
                           family) for event in found.events)
    return EvaluationReport(now, found.listed, jobs, error="; ".join(found.errors) or None)


def _instances(family: Evaluated, chosen: list[Chosen]) -> Asking[tuple[list[Chosen], Unread | None]]:
    """The instances of a family whose metrics alone name them (a transform job's), for the rules that judge them: one
    ListMetrics read per run for every such job (its Host values <job>/<instance-id>); the jobs unchanged otherwise,
    and the read's failure when it failed."""
    if not family.instances_listed or not any(a.rule.instances for _j, _r, applied, _p in chosen for a in applied):
        return chosen, None
    need = MetricHosts(family.metric_namespace, "CPUUtilization")
    found = (yield frozenset({need}))[need]
    if isinstance(found, Unread):
        return chosen, found
    return [(listed_hosts(job, record, found, family), record, applied, problems)
            for job, record, applied, problems in chosen], None


def heard_key(family: str, name: str) -> str:
    """Where what earlier runs heard of a job's logs is kept: its name (training), <family>:<name> (the others)."""
    return name if family == "training" else f"{family}:{name}"


def _trials(chosen: list[Chosen], needs: Mapping[tuple[str, str], Any]) -> Asking[dict[str, Any]]:
    """A tuning job's latest trials, for the rules that asked (one call per tuning job, the largest limit)."""
    limits: dict[str, int] = {}
    for job, _record, applied, _problems in chosen:
        asked = [needs[(job.name, r.rule.name)] for r in applied]
        wanted = max((n.trials for n in asked if isinstance(n, Reads)), default=0)
        if wanted:
            limits[job.name] = wanted
    wanted_needs = {name: TuningTrials(name, limit) for name, limit in limits.items()}
    answers = (yield frozenset(wanted_needs.values())) if wanted_needs else {}
    return {name: answers[need] for name, need in wanted_needs.items()}


def _costs(chosen: list[Chosen], needs: Mapping[tuple[str, str], Any], family: Evaluated, config: Configured,
           run: EvaluationRun) -> Asking[dict[str, Any]]:
    """What each job a rule asked it of cost at `now` (cost.py): the prices of its instance types (the Price List,
    once per type and region in the environment) and a tuning job's trials, read at once for every such job."""
    asking = [(job, record) for job, record, applied, _problems in chosen
              if any(isinstance(n, Reads) and n.cost for n in (needs[(job.name, r.rule.name)] for r in applied))]
    if not asking:
        return {}
    prices = config[PRICES]
    now = run.now
    regions = {job.name: arn_place(job.arn)[1] or run.region for job, _record in asking}
    wanted = frozenset(need for job, record in asking
                       for need in costs.needs(family.billing, record, regions[job.name], prices, job.name))
    answers = dict((yield wanted)) if wanted else {}
    more = frozenset(need for job, record in asking for need in costs.needs(
        family.billing, record, regions[job.name], prices, job.name, answers)) - answers.keys()
    answers.update((yield more) if more else {})  # the prices of the types a tuning job's trials ran on
    return {job.name: costs.of(family.billing, record, regions[job.name], prices, answers, now, job.name)
            for job, record in asking}


def _judge(applied: Applied, job: RunningJob, now: int, need: Any, series: Any, heartbeat: Any,
           streams: Mapping[str, Any] | None = None, trials: Any = None, cost: Any = None) -> Any:
    """The rule's verdict for the job (a Verdict when a read failed or the rule did), or the Reads of the streams it
    asks for before it can decide (only on the first judging: `streams` None)."""
    rule = applied.rule.name
    if isinstance(need, (Pending, Skipped, Clear, NotJudged, Verdict)):
        return need
    if need.queries and isinstance(series, Unread):
        return Verdict(rule, "Error", series.reason)
    if need.logs and isinstance(heartbeat, Unread):
        return Verdict(rule, "Pending" if heartbeat.reason == NOT_REACHED else "Error", heartbeat.reason)
    if need.trials and isinstance(trials, Unread):
        return Verdict(rule, "Error", trials.reason)
    failed = next((answer for answer in (streams or {}).values() if isinstance(answer, Unread)), None)
    if failed is not None:
        return Verdict(rule, "Pending" if failed.reason == NOT_REACHED else "Error", failed.reason)
    try:
        found = applied.rule.judge(job.clocked(applied.rule.phases), applied.params, now,
                                   Data(series, heartbeat if need.logs else None, streams or {},
                                        tuple(trials or ()) if need.trials else (), cost if need.cost else None))
    except Exception as err:  # a rule that fails on one job's data is reported there; the others go on
        return Verdict(rule, "Error", f"the rule failed on this job's data ({type(err).__name__}: {err})")
    if isinstance(found, Reads) and (streams is not None or not found.streams or found.logs or found.trials
                                     or found.cost):
        return Verdict(rule, "Error", "the rule asked for more reads after it was given them")
    return found


def _named(rule: str, verdict: Any) -> Verdict:
    if isinstance(verdict, Verdict):
        return verdict
    return Verdict(rule, _name(verdict), verdict.reason, getattr(verdict, "parameters", ()))


def _name(verdict: Any) -> str:
    return {Finding: ISSUES_FOUND, Clear: "NoIssuesFound", Pending: "Pending", Skipped: "Skipped",
            NotJudged: "NotJudged"}[type(verdict)]


def _streams(asked: Mapping[tuple[str, str], Reads], log_group: str,
             time_left: Callable[[], bool]) -> Asking[tuple[dict[tuple[str, str], dict[str, Any]], int]]:
    """The stream windows rules asked for after a first judging (a silent host's rhythm), one FilterLogEvents each,
    while the run has time: (job, rule) -> prefix -> Heartbeat or Unread; and how many were read."""
    answers: dict[tuple[str, str, int, int], Any] = {}
    for key in sorted(asked):
        for prefix, start, end in asked[key].streams:
            window = (key[0], prefix, start, end)
            if window in answers:
                continue
            if not time_left():
                answers[window] = Unread(NOT_REACHED)
                continue
            need = LogHeartbeat(log_group, prefix, start, end)
            answers[window] = (yield frozenset({need}))[need]
    found = {key: {prefix: answers[(key[0], prefix, start, end)] for prefix, start, end in need.streams}
             for key, need in asked.items()}
    return found, sum(1 for answer in answers.values() if not (isinstance(answer, Unread)
                                                                and answer.reason == NOT_REACHED))


def _finding(family: Evaluated, config: Configured, description: Mapping[str, Any], applied: list[Applied],
             report: JobReport, now: int) -> JobEvent | IgnoredEvent:
    """The job's state change carrying its rules that hold as Monitor rule statuses, read by its family (or why it
    cannot be read); each rule's RuleParameters carry its mode (act or watch), and those of a rule a tag attaches the
    tag's actions as its action_json (the tag form made the objects action_json holds)."""
    try:
        return _state_change(family, config, description, applied, report, now)
    except IgnoredEvent as err:
        return err


def _state_change(family: Evaluated, config: Configured, description: Mapping[str, Any], applied: list[Applied],
                  report: JobReport, now: int) -> JobEvent:
    """`_finding`'s state change (IgnoredEvent when its family cannot read it)."""
    stamp = str(now * 1000)
    found = {v.rule: v for v in report.verdicts if v.verdict == ISSUES_FOUND}
    statuses, configurations = [], []
    for item in applied:
        name = item.rule.name
        if name not in found:
            continue
        statuses.append({"RuleConfigurationName": name, "RuleEvaluationStatus": ISSUES_FOUND,
                         "StatusDetails": found[name].reason, "LastModifiedTime": stamp})
        parameters = {"rule_to_invoke": name, MODE_KEY: item.params[MODE_KEY], **dict(found[name].parameters)}
        if item.actions is not None:
            parameters["action_json"] = json.dumps(config.grammar.tag_entries(item.actions))
        configurations.append({"RuleConfigurationName": name, "RuleParameters": parameters})
    extra = {f"{MONITOR_RULE_FAMILY}RuleEvaluationStatuses": statuses,
             f"{MONITOR_RULE_FAMILY}RuleConfigurations": configurations}
    time = datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    event_id = "evaluation-" + digest(f"{report.job}@{now}")[:24]
    return family.event_of(description, time, event_id, extra)
