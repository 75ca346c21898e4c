"""The only list of plug-ins, and what they add up to. Everything outside the plug-in packages (the configuration,
the plan and pipeline, messages, the stack, the CLI) reaches a plug-in through here.

    JOBS        job families (jobs/): what an event of each says, how its jobs are stopped, listed, linked
    TRIGGERS    trigger families (triggers/): what happened that actions can be attached to, and its words
    KINDS       action kinds (kinds/): what can be done, its grammar, policy and configuration
    READERS     readers (readers/): the answer to each kind of Need
    destinations()  where webhooks post (destinations/): each `format`'s body, secret and URL (imported on first
                use: a configuration without `webhooks` never imports them)
    monitors()  monitor rules (monitors/): the rules a scheduled evaluation computes from CloudWatch metrics and logs
                (imported on first use: a configuration without `monitor` never imports them)

What the stack builds of them (the rule's pattern, IAM statements, the schedule, what the kinds ask of the stack) is
collected on the stack's side, from what they declare: rule_actions_cdk.plugins (infra/).

Adding a plug-in is its module and one line below (a new reader also names its Need in records.py).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rule_actions.contract import EVALUATION_KEY, Grant
from rule_actions.fields import Context, Custom, Field
from rule_actions.jobs import batch, pipelines, processing, training, transform, tuning
from rule_actions.jobs.base import JobFamily
from rule_actions.kinds import email, notify, release_warm_pool, restart, sms, stop, stoptraining, webhook
from rule_actions.kinds.base import Kind
from rule_actions.ports import Configured
from rule_actions.readers import (
    describe,
    failed_steps,
    failed_trials,
    in_progress,
    price_list,
    restart_source,
    seen,
    service_job,
    stop_record,
    team,
    trial_runs,
)
from rule_actions.readers.base import Reader
from rule_actions.records import ACTION_JSON, EvaluationRequest, EvaluationRun, JobEffect, Need, Place, Trigger
from rule_actions.triggers import job_outcome, rule_status, test
from rule_actions.triggers.base import TriggerFamily

if TYPE_CHECKING:
    from rule_actions.destinations.base import Destination
    from rule_actions.monitors.block import MonitorSettings
    from rule_actions.monitors.evaluation import EvaluationReport
    from rule_actions.monitors.rule import Monitor

T = TypeVar("T", bound=Trigger)
N = TypeVar("N", bound=Need)

JOBS: tuple[JobFamily, ...] = (training.FAMILY, tuning.FAMILY, processing.FAMILY, pipelines.FAMILY, transform.FAMILY,
                                batch.FAMILY)
# (a family's records, a reader's needs: each of its own type, paired with them by the functions below)
TRIGGERS: tuple[TriggerFamily[Any], ...] = (rule_status.FAMILY, job_outcome.FAMILY, test.FAMILY)
FINDINGS: TriggerFamily[Any] = rule_status.FAMILY  # the trigger family a monitor rule's finding is handed to
KINDS: dict[str, Kind] = {kind.name: kind for kind in (stoptraining.KIND, stop.KIND, email.KIND, sms.KIND, notify.KIND,
                                                       webhook.KIND, restart.KIND, release_warm_pool.KIND)}
READERS: dict[type, Reader[Any]] = {reader.need: reader for reader in (
    describe.READER, in_progress.READER, team.READER, stop_record.READER, failed_trials.READER, failed_steps.READER,
    price_list.READER, trial_runs.READER, restart_source.READER, seen.READER, service_job.READER)}


@cache
def monitors() -> dict[str, Monitor]:
    """The monitor rules, imported on first use: a configuration without `monitor` never imports them."""
    from rule_actions.monitors import (
        batch_size,
        budget,
        cpu_bottleneck,
        failing_trials,
        gpu_memory_increase,
        idle_instances,
        loss_not_decreasing,
        low_gpu_utilization,
        max_initialization_time,
        no_improvement,
        overfit,
        overtraining,
        runtime_overrun,
        stalled_job,
        stalled_training,
    )

    rules: dict[str, Monitor] = {rule.name: rule for rule in (
        stalled_training.MONITOR, low_gpu_utilization.MONITOR, batch_size.MONITOR, cpu_bottleneck.MONITOR,
        gpu_memory_increase.MONITOR, max_initialization_time.MONITOR, loss_not_decreasing.MONITOR, overfit.MONITOR,
        overtraining.MONITOR, stalled_job.MONITOR, idle_instances.MONITOR, runtime_overrun.MONITOR,
        failing_trials.MONITOR, no_improvement.MONITOR, budget.MONITOR)}
    # Each rule judges the families that offer all it needs: training first, then by name.
    ordered = sorted(JOBS, key=lambda family: (family.name != MONITORED, family.name))
    for rule in rules.values():
        rule.judging([(family.name, family.noun) for family in ordered if rule.needs <= family.offers])
    return rules


@cache
def destinations() -> dict[str, Destination]:
    """The destinations a webhook's `format` names, imported on first use."""
    from rule_actions.destinations import json, pagerduty, slack, teams

    return {d.name: d for d in (slack.DESTINATION, teams.DESTINATION, json.DESTINATION, pagerduty.DESTINATION)}


MONITORED = "training"  # the job family the monitor rules evaluate whatever the configuration (monitored_families)


# The `monitor` block, assembled here from what monitors/ declares (the rules' parameters, block.py's reading and
# schema): read lazily, so that a configuration without it never imports the monitor rules (cold start).


def _monitor_read(value: Any, where: str, errors: list[str]) -> MonitorSettings | None:
    if value is None:
        return None
    from rule_actions.monitors.block import read_settings

    return read_settings(value, where, errors, monitors())


def _monitor_write(settings: MonitorSettings | None) -> Any:
    if settings is None:
        return None
    from rule_actions.monitors.block import write_settings

    return write_settings(settings)


def _monitor_schema(ctx: Context) -> dict[str, Any]:
    from rule_actions.monitors.block import settings_schema

    return settings_schema(monitors())


MONITOR: Custom[MonitorSettings | None] = Custom(
    "monitor", None,
    "Rules evaluated by rule-actions itself every few minutes, from the metrics and logs SageMaker publishes for "
    "every training job (no Debugger): null (off) or {rules, every_minutes, job_tags, shards, regions}.",
    _monitor_read, _monitor_write, _monitor_schema)

_BY_DETAIL_TYPE = {(family.source, detail_type): family for family in JOBS for detail_type in family.detail_types}
_BY_TYPE = {family.type: family for family in TRIGGERS}


def job_family(raw: Any) -> JobFamily | None:
    """The family whose state-change event `raw` is, by its source and detail-type; None for anything else."""
    if not isinstance(raw, Mapping):
        return None
    source, detail_type = raw.get("source"), raw.get("detail-type")
    return _BY_DETAIL_TYPE.get((source, detail_type)) if isinstance(source, str) and isinstance(detail_type, str) \
        else None


def batch_on(config: Configured) -> bool:
    """Whether the AWS Batch family is on (batch_queues): the function's Batch port is made, the replay's emulated
    Batch installed, only then."""
    return batch.FAMILY.on(config)


def trigger_family(trigger: T) -> TriggerFamily[T]:
    """The family of a trigger record (each family's records are of its own type)."""
    return cast(TriggerFamily[T], _BY_TYPE[trigger.TYPE])


def kind(name: str) -> Kind:
    return KINDS[name]


def reader(need: N) -> Reader[N]:
    """The reader of a need (each reader answers the needs of its own type)."""
    found = READERS.get(type(need))
    return cast(Reader[N], found if found is not None else evaluation_readers()[type(need)])


@cache
def evaluation_readers() -> dict[type, Reader[Any]]:
    """The readers only a scheduled evaluation asks (imported on its first read)."""
    from rule_actions.readers import heartbeat, latest, metric_hosts, metrics, queued, running, trials

    return {r.need: r for r in (running.READER, metrics.READER, heartbeat.READER, latest.READER, trials.READER,
                                metric_hosts.READER, queued.READER)}


def allowed_in(place: Place) -> tuple[str, ...]:
    """The kinds that may be declared in `place`."""
    return tuple(name for name, kind in KINDS.items() if place in kind.places)


def effect(name: str) -> JobEffect | None:
    """What the kind `name` does to jobs (a stop, a restart), None when it acts on no job (or is no kind)."""
    return KINDS[name].effect if name in KINDS else None


def follows_stops(config: Configured) -> tuple[dict[str, Any], ...]:
    """The detail clauses of the Stopped events whose job an action may follow this stack's stop of (a restart: {},
    any; a warm pool's release: the jobs that keep one); the Stopped outcome is matched for them and its stop
    record read. Empty: none."""
    found = [clause for kind in KINDS.values() if (clause := kind.follows_stops(config)) is not None]
    return () if not found else ({},) if {} in found else tuple(found)


def rank(name: str) -> int:
    """A planned action's place in its trigger's plan (Kind.rank); an entry of no kind (an invalid one) last."""
    return KINDS[name].rank if name in KINDS else 2


def kinds_with(effect: JobEffect) -> tuple[str, ...]:
    """The kinds whose results count as `effect` (the stops, the restarts)."""
    return tuple(name for name, kind in KINDS.items() if kind.effect == effect)


def action_kinds() -> tuple[str, ...]:
    """Every value of the `Actions` metric's kind: the kinds, and ACTION_JSON (a rule's list that cannot be read)."""
    return (*KINDS, str(ACTION_JSON))


def trigger_metrics() -> tuple[str, ...]:
    """Every value of the `Triggers` metric's trigger: the trigger families', over every job family's outcomes."""
    outcomes = tuple(dict.fromkeys(outcome for family in JOBS for outcome in family.outcomes))
    return tuple(dict.fromkeys(value for trigger in TRIGGERS for value in trigger.metric_values(outcomes)))


def fields() -> tuple[Field[Any], ...]:
    """Every plug-in's configuration fields, each once, in registry order (the monitor rules' block last)."""
    found = [*(f for family in JOBS for f in family.fields), *(f for trigger in TRIGGERS for f in trigger.fields),
             *(f for kind in KINDS.values() for f in kind.fields)]
    return (*dict.fromkeys(found), MONITOR)


def config_checks(config: Configured, where: str) -> list[str]:
    """What the plug-ins check across the configuration's fields."""
    found = [*(e for trigger in TRIGGERS for e in trigger.check_config(config, where)),
             *(e for kind in KINDS.values() for e in kind.check_config(config, where)),
             *rule_status.rule_names(config, where, monitors)[0]]
    org = getattr(config, "organization", None)
    if org is not None and not org.accounts:  # a sweep runs in each listed account: an organization id names none
        found += [f"{where}.{family.outcome_actions.key}: organization mode sweeps the {family.noun}s of "
                  "organization.accounts on the schedule, which lists none (an organization id alone names no "
                  "account to sweep): list the accounts, or remove the outcome the sweep tells"
                  for family in sweeping(config)]
    settings = config[MONITOR]
    if settings is None:
        return found
    from rule_actions.monitors.block import check

    return found + check(settings, getattr(config, "organization", None), where, config, monitors())


def config_warnings(config: Configured, where: str) -> list[str]:
    """What the plug-ins warn of across the configuration's fields: a `rules` key that names no rule known (the
    built-in and the monitor rules, which the trigger family alone does not know)."""
    return rule_status.rule_names(config, where, monitors)[1]


# A scheduled evaluation (monitors/): the monitor rules over every running job of one family.


def monitoring(config: Configured) -> MonitorSettings | None:
    """The `monitor` block; None when no evaluation runs (nothing of it is in the stack)."""
    return config[MONITOR]


def monitored_family() -> JobFamily:
    return next(family for family in JOBS if family.name == MONITORED)


def monitored_families(config: Configured) -> list[JobFamily]:
    """The job families an evaluation lists: training jobs, and each family a configured rule judges or
    `monitor.families` names (monitors/block.py evaluated_families)."""
    settings = monitoring(config)
    if settings is None:
        names: tuple[str, ...] = (MONITORED,)
    else:
        from rule_actions.monitors.block import evaluated_families

        names = evaluated_families(settings, monitors())
    return [family for name in names for family in JOBS if family.name == name]


def evaluation_reads(config: Configured, family: JobFamily) -> list[Grant]:
    """What an evaluation reads of one family's jobs besides listing and describing them (the IAM statements the
    stack grants the evaluator, rule_actions_cdk.plugins.evaluation_grants): for the rules the configuration applies
    to them and, with job_tags, those their tags may attach."""
    settings = monitoring(config)
    judging = [rule for rule in monitors().values() if family.name in rule.families]
    configured = [monitors()[name] for name, _ in settings.rules if family.name in monitors()[name].families] \
        if settings is not None else []
    tagged = settings is not None and settings.job_tags
    from rule_actions.monitors.grants import family_read_grants

    return family_read_grants(family, config, configured, judging if tagged else [],
                              first=family.name == MONITORED)


def evaluation_request(raw: Any) -> EvaluationRequest | None:
    """A scheduled evaluation's invocation, or None (IgnoredEvent, naming the field, when malformed)."""
    if not (isinstance(raw, Mapping) and EVALUATION_KEY in raw):
        return None
    from rule_actions.monitors import evaluation

    return evaluation.request(raw)


def sweeping(config: Configured) -> list[JobFamily]:
    """The job families that sweep their jobs on the stack's schedule (JobFamily.sweeps): the schedule exists for
    them even without `monitor`."""
    return [family for family in JOBS if family.sweeps(config)]


def evaluate(run: EvaluationRun, config: Configured) -> Generator[frozenset[Need], Mapping[Need, Any], EvaluationReport]:
    """The monitor rules over the running jobs of the run's account and region, family by family (training first),
    then the sweeps of the families that sweep (on the run's first shard only): what they ask to be read (each set of
    needs yielded, its answers sent back), then their report."""
    from rule_actions.monitors import evaluation

    settings = monitoring(config)
    sweeps = sweeping(config)
    if settings is None and not sweeps:
        raise ValueError("a scheduled evaluation runs the monitor rules or a job family's sweep: the configuration "
                         "has neither (its monitor block is null)")
    reports = []
    if settings is not None:
        for family in monitored_families(config):
            reports.append((yield from evaluation.evaluate(run, settings, monitors(), family, config)))
    if run.request.shard == 0:  # a sweep lists whole queues: once per account and region, never per shard
        for family in sweeps:
            reports.append(evaluation.swept(run.now, family.name, (yield from family.sweep(run.now, config))))
    return evaluation.merged(reports) if reports else evaluation.EvaluationReport(run.now, 0, ())


def monitor_tags(rule: str, actions: str | None, parameters: dict[str, Any]) -> list[dict[str, str]]:
    """The training job tags that attach monitor rule `rule` (ValueError naming an unknown rule, a parameter out of
    range, a value SageMaker refuses)."""
    from rule_actions.monitors.rule import REFUSED, refusal
    from rule_actions.monitors.tags import tags_for
    from rule_actions.text import closest

    if rule not in monitors():
        near = None if rule in REFUSED else closest(rule, monitors())
        raise ValueError(f"{rule!r} {refusal(rule)}; "
                         + (f"did you mean {near!r}?" if near else f"rules: {', '.join(monitors())}"))
    return tags_for(monitors()[rule], actions, parameters)


def monitor_opt_out_tags() -> list[dict[str, str]]:
    from rule_actions.monitors.tags import opt_out_tags

    return opt_out_tags()
