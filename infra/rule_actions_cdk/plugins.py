"""The stack side of the plug-ins: what the stack asks of them, and only the stack. rule_actions.registry lists the
plug-ins and what each declares as data next to its code (rule_actions.contract's records: Grant, TeamEndpoint,
ChatChannel, Texts, Schedule; a job family's API, scope, pattern clauses and its own reads; a trigger family's
clauses; what the kinds need); this module collects those declarations into what the stack builds, and each kind
of record is turned into CDK objects by one construct:

    event_pattern(config)       the rule's EventBridge pattern          -> rules.py (the rule and its target)
    job_grants(config)          the function's IAM statements for the   -> grants.py (statements and their cdk-nag
                                job families (organization mode: each      acknowledgments) on function.py's role, or
                                member's executor role's)                  member_stack.py's executor role
    evaluation_grants(config)   the evaluator's, with `monitor`         -> grants.py on evaluator.py's role
    schedule(config)            the evaluation's Schedule               -> evaluator.py (its schedule rules)
    stack_parts(config)         what the kinds ask of the stack: TeamEndpoint -> messaging.py (the team's
                                subscriptions), ChatChannel -> chat.py, Texts -> sms.py (SMS delivery logs), Grant
                                -> grants.py on both functions' roles; and reading prices (a Grant) when a cost is asked
    warnings(config, where)     the configuration's warnings, and what only the stack knows (the pattern's size)
    warning_block(warnings)     them as the block synth and the replay print on stderr ("valid, but:")

Nothing here imports aws-cdk-lib (the validation and the tests read it without a jsii runtime), and nothing here
imports a plug-in but through rule_actions.registry (tests/architecture.py).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any, Protocol

from rule_actions import registry
from rule_actions.config import Config
from rule_actions.contract import Arn, Grant, Schedule
from rule_actions.cost import PRICES
from rule_actions.fields import TextList
from rule_actions.ports import Configured
from rule_actions.records import Capability, EventFamily, Place


class Family(EventFamily, Protocol):
    """A job family (rule_actions.jobs.base.JobFamily), as the registry's JOBS hold them and the stack reads them: the
    stack reaches no plug-in module but the registry, type-only imports included."""

    @property
    def detail_type(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def scope(self) -> TextList: ...

    def scope_clause(self, prefixes: tuple[str, ...]) -> dict[str, Any]: ...
    def pattern_scope(self, config: Configured) -> dict[str, Any]: ...
    def on(self, config: Configured) -> bool: ...
    def service_grants(self, config: Configured) -> list[Grant]: ...
    def own_capabilities(self, config: Configured) -> frozenset[Capability]: ...
    def resources(self, config: Configured, resource: str | None = None) -> tuple[Arn, ...]: ...
    def read_grants(self, config: Configured) -> list[Grant]: ...


class Needing(Protocol):
    """A trigger family or a kind (the registry's TRIGGERS and KINDS), as far as their capabilities go."""

    @property
    def places(self) -> frozenset[Place]: ...

    def capabilities(self, config: Configured) -> frozenset[Capability]: ...

PATTERN_MAX = 2048  # EventBridge's default quota on an event pattern's size, in characters (adjustable to 4096)


# ------------------------------------------------------------------------------------------------ the rule's pattern


def clauses(config: Configured, family: Family) -> list[dict[str, Any]]:
    """The detail clauses the trigger families give for the family's events."""
    return [clause for trigger in registry.TRIGGERS for clause in trigger.clauses(config, family)]


def enabled(config: Configured, family: Family) -> bool:
    """A family is on when the configuration turns it on and some trigger can fire on its events: it is matched and
    granted, else neither."""
    return family.on(config) and bool(clauses(config, family))


def family_pattern(family: Family, found: list[dict[str, Any]], config: Configured) -> dict[str, Any]:
    """The family's events that can have a trigger: one of the clauses `found` holds, on a job in scope (one clause
    stands alone: EventBridge's $or takes two alternatives or more)."""
    detail: dict[str, Any] = {"$or": found} if len(found) > 1 else dict(found[0])
    detail.update(family.pattern_scope(config))
    return {"source": [family.source], "detail-type": [family.detail_type], "detail": detail}


def event_pattern(config: Configured) -> dict[str, Any]:
    """The EventBridge pattern of the stack's rule: the events of the enabled families that can have a trigger."""
    patterns = [family_pattern(family, clauses(config, family), config) for family in registry.JOBS
                if enabled(config, family)]
    if len(patterns) == 1:
        return patterns[0]
    sources = list(dict.fromkeys(source for p in patterns for source in p["source"]))
    if len(sources) > 1:  # families of several sources: a $or of each one's pattern
        return {"$or": patterns}
    # Several families of one source: that source, and a $or of each family's detail-type and detail.
    return {"source": sources, "$or": [{key: value for key, value in p.items() if key != "source"} for p in patterns]}


# ------------------------------------------------------------------------------------------------ IAM


def capabilities(config: Configured, family: Family) -> frozenset[Capability]:
    """What the trigger families and kinds of this configuration need of a job family: the triggers that fire on
    its events, and the kinds declared where those triggers take their actions from; and what the kinds need of it
    as the owner of other families' jobs (a trial's stop naming its tuning job)."""
    firing = [trigger for trigger in registry.TRIGGERS if trigger.clauses(config, family)]
    return _capabilities(config, firing) | follow_capabilities(config) | owner_capabilities(config, family)


def follow_capabilities(config: Configured) -> frozenset[Capability]:
    """What the kinds no place declares need: a stop's follow-up (release_warm_pool), which the job's Stopped
    outcome carries out in the function (its event matched by the kind's follows_stops clause), never a finding's
    run: the evaluator is not granted it."""
    return frozenset(c for kind in registry.KINDS.values() if not kind.places for c in kind.capabilities(config))


def _capabilities(config: Configured, firing: Sequence[Needing]) -> frozenset[Capability]:
    places = frozenset(place for trigger in firing for place in trigger.places)
    kinds: list[Needing] = [kind for kind in registry.KINDS.values() if kind.places & places]
    return frozenset(c for plugin in (*firing, *kinds) for c in plugin.capabilities(config))


def owner_capabilities(config: Configured, family: Family) -> frozenset[Capability]:
    """What the kinds need of a family's jobs as owners of other jobs (none when it owns none)."""
    if not family.owner_key:
        return frozenset()
    return frozenset(c for kind in registry.KINDS.values() for c in kind.owner_capabilities(config, family.owner_key))


def monitor_capabilities(config: Configured) -> frozenset[Capability]:
    """What acting on a monitor rule's finding needs of the evaluated family's jobs: the trigger family findings are
    handed to and the kinds declared where it takes its actions from (whether or not its events are matched on
    EventBridge: the evaluation hands its findings over itself)."""
    return _capabilities(config, [registry.FINDINGS])


# What the job actions besides a stop need of a family's jobs: the JobApi member naming the call, the calls beside
# it, the statement's name, and why (its jobs are named by users at run time: every job under the scope).
JOB_ACTION_CALLS = {
    Capability.CREATE: ("create", ("AddTags", "ListTags"), "Copy",
                        "a restart copies a job into a new one under the same name prefix: the function may create, "
                        "tag and read the tags of"),
    Capability.UPDATE: ("update", (), "ReleaseWarmPoolsOf",
                        "a stop of this stack releases the warm pool of the job it stopped: the function may update"),
}


def family_grants(family: Family, config: Configured, needed: frozenset[Capability],
                  reads: bool = True) -> list[Grant]:
    """What the other plug-ins need of a family's jobs, as IAM statements: describe and stop on the jobs in scope (in
    the stack's account and region), and the listing when a stop may name a prefix; then the family's own reads
    (unless `reads` is false: a role that never words its outcomes)."""
    needed = needed | family.own_capabilities(config)
    if not family.resources(config):  # a family whose calls are its service's (AWS Batch's: service_grants)
        return family.read_grants(config) if reads else []
    verbs = [str(verb) for verb in (Capability.STOP, Capability.DESCRIBE) if verb in needed]
    plural = f"{family.label}s"
    grants = []
    if verbs:
        grants.append(Grant(
            sid="And".join(verb.capitalize() for verb in verbs) + "".join(w.capitalize() for w in plural.split()),
            actions=tuple(f"sagemaker:{getattr(family.api, verb)}" for verb in verbs),
            resources=family.resources(config),
            reason=f"{plural} are named by users at run time: the function may {' or '.join(verbs)} any job "
                   f"under the configured {family.scope.key} (every job in the account and region when none "
                   "are set).",
        ))
    if Capability.SEARCH in needed and family.api.search:
        grants.append(Grant(
            sid="Search" + "".join(w.capitalize() for w in plural.split()), actions=("sagemaker:Search",),
            resources=("*",),
            reason="sagemaker:Search supports no resource-level permissions; IAM requires Resource \"*\" for it "
                   "(the only action in that statement; the evaluation keeps the jobs under the configured "
                   f"{family.scope.key}).",
        ))
    for capability, (member, more, sid, what) in JOB_ACTION_CALLS.items():
        call = getattr(family.api, member)
        if capability in needed and call:
            grants.append(Grant(
                sid=sid + "".join(w.capitalize() for w in plural.split()),
                actions=(f"sagemaker:{call}", *(f"sagemaker:{action}" for action in more)),
                resources=family.resources(config),
                reason=f"{what} {plural} under the configured {family.scope.key} (every job in the account and "
                       "region when none are set).",
            ))
    if Capability.LIST in needed:
        grants.append(Grant(
            sid=family.api.list, actions=(f"sagemaker:{family.api.list}",), resources=("*",),
            reason=f"sagemaker:{family.api.list} supports no resource-level permissions; IAM requires Resource "
                   "\"*\" for it (the only action in that statement).",
        ))
    return grants + (family.read_grants(config) if reads else [])


def job_grants(config: Configured) -> list[Grant]:
    """The job families' IAM statements (the function's role; in organization mode, each member's executor role)."""
    found = [grant for family in registry.JOBS if enabled(config, family) or owner_capabilities(config, family)
             for grant in family_grants(family, config, capabilities(config, family))]
    return found + [grant for family in registry.JOBS for grant in family.service_grants(config)]


def evaluation_grants(config: Configured) -> list[Grant]:
    """The evaluator's IAM statements, per family it evaluates: what the job family grants any trigger (it acts as
    the function does), plus listing the running jobs with their tags, describing them, and what the monitor rules
    read of them (their metrics, logs, a tuning job's trials: registry.evaluation_reads); and the families' calls to
    another service (service_grants: AWS Batch's, whose sweep and stops the evaluator makes). Without `monitor` (a
    family's sweep alone runs on the schedule), no family is evaluated."""
    evaluated = registry.monitored_families(config) if registry.monitoring(config) is not None else []
    grants: list[Grant] = []
    for family in evaluated:
        listing = {Capability.SEARCH} if family.api.search else {Capability.LIST}
        grants += family_grants(family, config, monitor_capabilities(config) | listing | {Capability.DESCRIBE})
        grants += registry.evaluation_reads(config, family)
    grants += [grant for owner in registry.JOBS if owner not in evaluated and owner_capabilities(config, owner)
               for grant in family_grants(owner, config, owner_capabilities(config, owner), reads=False)]
    # Another service's calls, as the function has them: a family's sweep lists its jobs (ListServiceJobs), and a
    # stop of a job that service runs goes through it (TerminateServiceJob), from a finding as from an event.
    grants += [grant for family in registry.JOBS for grant in family.service_grants(config)]
    return list(dict.fromkeys(grants))


def executor_grants(config: Configured) -> list[Grant]:
    """Organization mode: a member's executor role, which the function and (with a schedule) the evaluator assume:
    the function's statements (job_grants; a family's sweep alone on the schedule reads through its service_grants,
    which they hold), and with `monitor` the evaluator's too. Neither holds the other's: only the function releases a
    stopped job's warm pool (on its Stopped event), and reads what the families not evaluated need."""
    grants = job_grants(config)
    return list(dict.fromkeys([*evaluation_grants(config), *grants])) if registry.monitoring(config) is not None \
        else grants


PRICE_GRANT = Grant(
    "ReadPrices", ("pricing:GetProducts",), ("*",),
    "pricing:GetProducts supports no resource-level permissions; IAM requires Resource \"*\" for it (the only action "
    "in that statement): it reads AWS's public on-demand prices of SageMaker instance types, read-only, to say and "
    "judge what a job costs.")


def price_grants(config: Configured) -> list[Grant]:
    """pricing:GetProducts, when the Price List is asked (prices.price_list) and something asks a job's cost: an
    action that words or stops a job (declared, or from a rule's action_json), or the monitor rules (a budget)."""
    asks = bool(config.declared) or config.reads_action_json or registry.monitoring(config) is not None
    return [PRICE_GRANT] if config[PRICES].price_list and asks else []


# ------------------------------------------------------------------------------------------------ what else the stack holds


def stack_parts(config: Configured) -> list[Any]:
    """What the kinds ask of the stack (team subscriptions, chat channels, grants, SMS delivery logs), and reading
    prices when a job's cost is asked (both functions' roles: prices are public, read centrally in every mode)."""
    return [*(part for kind in registry.KINDS.values() for part in kind.stack_parts(config)), *price_grants(config)]


SWEEP_EVERY_MINUTES = 5  # how often a family's sweep runs without `monitor` (monitor.every_minutes with it)


def schedule(config: Configured) -> Schedule | None:
    """When the evaluation runs and what each run evaluates (one run per member account and region in organization
    mode, and per shard); None without `monitor` and without a family that sweeps its jobs (registry.sweeping: a
    Batch queue's waiting jobs), which alone has it run every SWEEP_EVERY_MINUTES, one shard, the central region."""
    settings = registry.monitoring(config)
    if settings is None and not registry.sweeping(config):
        return None
    every = settings.every_minutes if settings is not None else SWEEP_EVERY_MINUTES
    shards = settings.shards if settings is not None else 1
    regions = settings.regions if settings is not None else ()
    org = getattr(config, "organization", None)
    targets = [{}] if org is None else [{"account": account, "region": region} for account in org.accounts
                                        for region in regions or (org.central_region,)]
    return Schedule(every, tuple(
        {**target, "shard": shard, "shards": shards} for target in targets for shard in range(shards)))


def scheduled_work(config: Configured) -> str:
    """What a scheduled run does, in words (its schedule rules' description): the monitor rules, the job families'
    sweeps (a Batch queue's waiting jobs), or both."""
    sweeps = [f"sweep of waiting {family.noun}s" for family in registry.sweeping(config)]
    return " and ".join([*(["monitor rules"] if registry.monitoring(config) is not None else []), *sweeps])


def warnings(config: Config, where: str) -> list[str]:
    """What is valid but probably not meant (printed at synth): the configuration's own (Config.warnings), then what
    the stack adds: a rule pattern over EventBridge's default quota."""
    size = len(json.dumps(event_pattern(config), separators=(",", ":")))
    return config.warnings(where) + ([
        f"the rule's event pattern is {size} characters: EventBridge refuses a pattern over {PATTERN_MAX} unless the "
        "account's quota \"Event pattern size\" was raised (up to 4096) in this region; configure fewer outcomes or "
        "prefixes, or raise the quota before deploying."] if size > PATTERN_MAX else [])


def warning_block(warnings: list[str], width: int = 110) -> str:
    """The configuration's warnings as one readable block (synth and the replay print it on stderr): a heading,
    then each finding as a wrapped bullet."""
    items = [textwrap.fill(w, width, initial_indent="  - ", subsequent_indent="    ", break_long_words=False,
                           break_on_hyphens=False) for w in warnings]  # a file's path stays whole
    return "\n".join(["rule-actions: the configuration is valid, but:", *items])
